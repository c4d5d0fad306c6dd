//! The test runner: the test classes of a package (or of all packages), the ones chosen run
//! (one batch: each test on its own in the gem, as an evaluation), the results with their
//! outcomes and times, a failure's message, and Debug, which runs a test again with no
//! handler around it and opens a debugger where it fails. The browser's menus open it on a
//! package, a class or a test, and run at once.

use std::collections::BTreeSet;

use eframe::egui;
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::ctx::Ctx;
use crate::debugger::Debugger;
use crate::layout::Saved;
use crate::link::{Reply, Ticket};
use crate::panes::{Changed, View, outcomes};

/// The tests to run: every test of a package's test classes, and tests named (one with an
/// empty selector stands for every test of its class).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestScope {
    pub package: Option<String>,
    pub tests: Vec<pb::TestRef>,
}

impl TestScope {
    /// Every test of class `class`.
    pub fn class(class: &str) -> TestScope {
        TestScope::test(class, "")
    }

    /// One test.
    pub fn test(class: &str, selector: &str) -> TestScope {
        let test = pb::TestRef { class_name: class.to_string(), selector: selector.to_string() };
        TestScope { package: None, tests: vec![test] }
    }
}

/// What the runner asked for.
enum Want {
    Classes,
    /// Tests run (after the classes, when both are asked in one batch).
    Run {
        listed: bool,
    },
    /// A test run to debug.
    Debug,
}

pub struct TestRunner {
    /// The package whose test classes are listed (every package's without one).
    package: Option<String>,
    classes: Vec<pb::TestClass>,
    /// Every package that has test classes (read with the whole list).
    packages: Vec<String>,
    /// The classes checked, to run.
    checked: BTreeSet<String>,
    results: Vec<pb::TestOutcome>,
    /// The result whose message shows.
    selected: Option<usize>,
    pending: Vec<(Ticket, Want)>,
    message: String,
    /// A debugger to open (a test run by Debug stopped).
    debugger: Option<u64>,
}

impl TestRunner {
    /// The runner on every package's test classes.
    pub fn new(ctx: &mut Ctx) -> TestRunner {
        let mut runner = TestRunner::blank(None);
        runner.list(ctx, "open the test runner");
        runner
    }

    /// The runner on `package`'s test classes (every package's without one), as kept.
    pub fn restored(ctx: &mut Ctx, package: Option<String>) -> TestRunner {
        let mut runner = TestRunner::blank(package);
        runner.list(ctx, "open the test runner");
        runner
    }

    /// The runner on the package `scope` names (or every package), running `scope`'s tests at
    /// once: one batch.
    pub fn running(ctx: &mut Ctx, scope: TestScope) -> TestRunner {
        let mut runner = TestRunner::blank(scope.package.clone());
        let ops = vec![Op::TestClasses(runner.package_ref()), run_op(scope)];
        runner.pending.push((ctx.send("run tests", ops), Want::Run { listed: true }));
        runner
    }

    /// The runner, with test `class>>selector` run again to debug: one batch (and the
    /// debugger's, once it stops).
    pub fn debugging(ctx: &mut Ctx, class: String, selector: String) -> TestRunner {
        let mut runner = TestRunner::blank(None);
        runner.debug(ctx, &class, &selector);
        runner
    }

    fn blank(package: Option<String>) -> TestRunner {
        TestRunner {
            package,
            classes: Vec::new(),
            packages: Vec::new(),
            checked: BTreeSet::new(),
            results: Vec::new(),
            selected: None,
            pending: Vec::new(),
            message: String::new(),
            debugger: None,
        }
    }

    fn package_ref(&self) -> pb::PackageRef {
        pb::PackageRef { package: self.package.clone().unwrap_or_default(), ..Default::default() }
    }

    fn list(&mut self, ctx: &mut Ctx, gesture: &'static str) {
        let op = Op::TestClasses(self.package_ref());
        self.pending.push((ctx.send(gesture, vec![op]), Want::Classes));
    }

    fn run(&mut self, ctx: &mut Ctx, scope: TestScope) {
        self.message.clear();
        self.pending.push((ctx.send("run tests", vec![run_op(scope)]), Want::Run { listed: false }));
    }

    /// Runs `class>>selector` with no handler around it: where it fails, its process stops
    /// and a debugger opens on it.
    fn debug(&mut self, ctx: &mut Ctx, class: &str, selector: &str) {
        // Names as Symbols: quoted, so that nothing in them is read as code.
        let source = format!("(Smalltalk at: {}) debug: {}", symbol(class), symbol(selector));
        let op = Op::Evaluate(pb::Evaluate { source, forget: true, ..Default::default() });
        self.message = format!("debugging {class}>>{selector}...");
        self.pending.push((ctx.send_changing("debug test", vec![op]), Want::Debug));
    }

    fn busy(&self) -> bool {
        self.pending.iter().any(|(_, w)| matches!(w, Want::Run { .. } | Want::Debug))
    }

    fn take_classes(&mut self, classes: Vec<pb::TestClass>) {
        if self.package.is_none() {
            let mut packages: Vec<String> = classes.iter().map(|c| c.package.clone()).collect();
            packages.sort();
            packages.dedup();
            self.packages = packages;
        }
        self.checked.retain(|name| classes.iter().any(|c| c.name == *name));
        self.classes = classes;
    }

    /// The tests that failed or erred in the last run.
    fn failures(&self) -> Vec<pb::TestRef> {
        self.results.iter().filter(|r| status(r) != pb::TestStatus::TestPassed).filter_map(|r| r.test.clone()).collect()
    }
}

/// `name` as a Symbol literal.
fn symbol(name: &str) -> String {
    format!("#'{}'", name.replace('\'', "''"))
}

fn run_op(scope: TestScope) -> Op {
    Op::RunTests(pb::RunTests { tests: scope.tests, package: scope.package.unwrap_or_default() })
}

fn status(r: &pb::TestOutcome) -> pb::TestStatus {
    pb::TestStatus::try_from(r.status).unwrap_or(pb::TestStatus::TestError)
}

fn test_name(r: &pb::TestOutcome) -> String {
    r.test.as_ref().map_or_else(String::new, |t| format!("{}>>{}", t.class_name, t.selector))
}

impl View for TestRunner {
    fn name(&self) -> &'static str {
        "Test Runner"
    }

    fn title(&self) -> String {
        "Test Runner".into()
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending.iter().any(|(t, _)| *t == ticket)
    }

    fn forget_pending(&mut self) {
        self.pending.clear();
    }

    fn saved(&self) -> Option<Saved> {
        Some(Saved::TestRunner { package: self.package.clone() })
    }

    /// The test classes again, after the view moved or code changed.
    fn refresh(&mut self, ctx: &mut Ctx, changed: Changed) {
        let listing = self.pending.iter().any(|(_, w)| matches!(w, Want::Classes | Want::Run { listed: true }));
        if changed == Changed::Repository && !listing {
            self.list(ctx, "refresh the test runner");
        }
    }

    fn receive(&mut self, reply: Reply) {
        let Some(at) = self.pending.iter().position(|(t, _)| *t == reply.ticket) else { return };
        let (_, want) = self.pending.remove(at);
        let outcomes = match outcomes(reply) {
            Ok(outcomes) => outcomes,
            Err(e) => {
                self.message = e.message;
                return;
            }
        };
        for outcome in outcomes {
            match outcome {
                Outcome::TestClasses(c) => self.take_classes(c.classes),
                Outcome::TestResults(r) => {
                    self.results = r.outcomes;
                    self.selected = self.results.iter().position(|r| status(r) != pb::TestStatus::TestPassed);
                    self.message.clear();
                }
                // A test run to debug that did not stop: it passed.
                Outcome::Evaluated(_) => self.message = "the test passed: nothing to debug".into(),
                Outcome::Error(e) if matches!(want, Want::Debug) && e.process != 0 => {
                    self.message.clear();
                    self.debugger = Some(e.process);
                }
                Outcome::Error(e) => self.message = e.message,
                _ => {}
            }
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        if let Some(process) = self.debugger.take() {
            let debugger = Debugger::open(ctx, process);
            ctx.opened.push(Box::new(debugger));
        }
        let busy = self.busy();
        ui.horizontal(|ui| {
            let shown = self.package.clone().unwrap_or_else(|| "(all packages)".into());
            let mut chosen = None;
            egui::ComboBox::from_label("Package").selected_text(shown).show_ui(ui, |ui| {
                if ui.selectable_label(self.package.is_none(), "(all packages)").clicked() {
                    chosen = Some(None);
                }
                for p in &self.packages {
                    if ui.selectable_label(self.package.as_ref() == Some(p), p).clicked() {
                        chosen = Some(Some(p.clone()));
                    }
                }
            });
            if let Some(package) = chosen
                && package != self.package
            {
                self.package = package;
                self.list(ctx, "choose a package");
            }
            ui.separator();
            let checked: Vec<pb::TestRef> =
                self.checked.iter().map(|c| pb::TestRef { class_name: c.clone(), selector: String::new() }).collect();
            if ui.add_enabled(!busy && !checked.is_empty(), egui::Button::new("Run selected")).clicked() {
                self.run(ctx, TestScope { package: None, tests: checked });
            }
            let all: Vec<pb::TestRef> = self
                .classes
                .iter()
                .map(|c| pb::TestRef { class_name: c.name.clone(), selector: String::new() })
                .collect();
            if ui.add_enabled(!busy && !all.is_empty(), egui::Button::new("Run all")).clicked() {
                self.run(ctx, TestScope { package: None, tests: all });
            }
            let failures = self.failures();
            if ui.add_enabled(!busy && !failures.is_empty(), egui::Button::new("Run failures")).clicked() {
                self.run(ctx, TestScope { package: None, tests: failures });
            }
            if busy {
                ui.spinner();
                if ui.button("Interrupt").clicked() {
                    ctx.send("interrupt", vec![Op::Interrupt(pb::Interrupt { tag: 0, process: 0 })]);
                }
            }
        });
        if !self.message.is_empty() {
            ui.label(&self.message);
        }
        ui.separator();
        let mut debug = None;
        ui.columns(2, |columns| {
            self.classes_ui(&mut columns[0]);
            debug = self.results_ui(&mut columns[1]);
        });
        if let Some(test) = debug
            && !busy
        {
            self.debug(ctx, &test.class_name, &test.selector);
        }
    }
}

impl TestRunner {
    /// The test classes, each with a box to check (to run) and its number of tests.
    fn classes_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.strong(format!("Test classes ({})", self.classes.len()));
            if ui.small_button("all").clicked() {
                self.checked = self.classes.iter().map(|c| c.name.clone()).collect();
            }
            if ui.small_button("none").clicked() {
                self.checked.clear();
            }
        });
        egui::ScrollArea::vertical().id_salt("runner-classes").auto_shrink([false, false]).show(ui, |ui| {
            for class in &self.classes {
                let mut on = self.checked.contains(&class.name);
                let label = format!("{} ({})", class.name, class.selectors.len());
                if ui.checkbox(&mut on, label).changed() {
                    if on {
                        self.checked.insert(class.name.clone());
                    } else {
                        self.checked.remove(&class.name);
                    }
                }
            }
        });
    }

    /// The results: a summary, each test with its outcome and time, and the chosen one's
    /// message with Debug; answers the test to debug, if asked.
    fn results_ui(&mut self, ui: &mut egui::Ui) -> Option<pb::TestRef> {
        let count = |s| self.results.iter().filter(|r| status(r) == s).count();
        let (passed, failed, errors) =
            (count(pb::TestStatus::TestPassed), count(pb::TestStatus::TestFailed), count(pb::TestStatus::TestError));
        let millis: f64 = self.results.iter().map(|r| r.micros as f64 / 1e3).sum();
        ui.strong(format!("{passed} passed, {failed} failed, {errors} errors in {millis:.1} ms"));
        let mut debug = None;
        let height = ui.available_height() * 0.6;
        egui::ScrollArea::vertical().id_salt("runner-results").max_height(height).auto_shrink([false, true]).show(
            ui,
            |ui| {
                for (i, r) in self.results.iter().enumerate() {
                    let (word, color) = match status(r) {
                        pb::TestStatus::TestPassed => ("passed", egui::Color32::from_rgb(60, 160, 80)),
                        pb::TestStatus::TestFailed => ("FAILED", ui.visuals().warn_fg_color),
                        _ => ("ERROR", ui.visuals().error_fg_color),
                    };
                    let text = format!("{word}  {}  ({:.2} ms)", test_name(r), r.micros as f64 / 1e3);
                    let chosen = self.selected == Some(i);
                    // Chosen, it reads as every chosen row does.
                    let text = if chosen { egui::RichText::new(text) } else { egui::RichText::new(text).color(color) };
                    if ui.selectable_label(chosen, text).clicked() {
                        self.selected = Some(i);
                    }
                }
            },
        );
        if let Some(r) = self.selected.and_then(|i| self.results.get(i))
            && status(r) != pb::TestStatus::TestPassed
        {
            ui.separator();
            ui.horizontal(|ui| {
                ui.strong(test_name(r));
                if ui.button("Debug").clicked() {
                    debug = r.test.clone();
                }
            });
            ui.label(egui::RichText::new(&r.message).monospace());
        }
        debug
    }
}
