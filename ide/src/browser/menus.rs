//! The browser's context menus, as Calypso has them (on packages, classes, protocols and
//! methods), and what they and the buttons ask for: organising code (protocols added,
//! renamed, removed; methods moved by menu or by dragging one onto a protocol), removing
//! (after asking), new methods and classes, the cross-references, and running or debugging
//! tests. Each gesture that needs the gem sends one batch, which also reads again the lists
//! it changed.

use eframe::egui;
use onyx_protocol::agent::{self as pb, operation::Op};

use super::{Browser, Choice, ClassTab, NEW_METHOD, UNCLASSIFIED, Want};
use crate::ask::Ask;
use crate::ctx::Ctx;
use crate::panes::MethodList;
use crate::runner::{TestRunner, TestScope};

/// A method being dragged (onto a protocol, to move it there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Dragged {
    pub(super) class: Option<pb::ClassRef>,
    pub(super) selector: String,
}

/// What the user asked the browser for.
#[derive(Clone, Debug)]
pub(super) enum Act {
    Choose(Choice),
    /// Back (true) or Forward.
    Travel(bool),
    NewMethod,
    NewClass,
    AskRemoveMethod(String),
    RemoveMethod(String),
    AskRemoveClass(String),
    RemoveClass(String),
    /// A class renamed: from, to (once asked).
    RenameClass(String, String),
    /// A new protocol, named (once asked).
    NewProtocol(String),
    /// A protocol renamed: from, to (once asked).
    RenameProtocol(String, String),
    AskRemoveProtocol(String),
    RemoveProtocol(String),
    /// Methods moved to a protocol (named once asked, for a new one).
    Move(Vec<String>, String),
    Senders(String),
    Implementors(String),
    References(String),
    Hierarchy(String),
    /// A class in a new browser.
    Browse(String),
    RunTests(TestScope),
    /// A test run again, stopping where it fails, in a debugger: class, selector.
    DebugTest(String, String),
    /// Text copied (done by the menu itself).
    Copy(String),
    /// A name asked for (the question, the name to start from), then the act named.
    AskName(&'static str, String, Box<Act>),
}

impl Act {
    /// The act a question for a name asked about, with the name given.
    pub(super) fn named(self, name: String) -> Act {
        match self {
            Act::NewProtocol(_) => Act::NewProtocol(name),
            Act::RenameProtocol(from, _) => Act::RenameProtocol(from, name),
            Act::RenameClass(from, _) => Act::RenameClass(from, name),
            Act::Move(selectors, _) => Act::Move(selectors, name),
            other => other,
        }
    }
}

impl Browser {
    /// Does what was asked (at most one batch).
    pub(super) fn act(&mut self, ctx: &mut Ctx, act: Act) {
        match act {
            Act::Choose(choice) => {
                if self.may_leave() {
                    self.choose(ctx, choice);
                }
            }
            Act::Travel(back) => {
                if self.may_leave() {
                    self.travel(ctx, back);
                }
            }
            Act::NewMethod => {
                if self.class.is_some() && self.may_leave() {
                    self.method = None;
                    self.new_method = true;
                    self.source.load(NEW_METHOD);
                }
            }
            Act::NewClass => {
                if self.may_leave() {
                    let package = self.package.clone().unwrap_or_default();
                    self.class = None;
                    self.clear_class();
                    self.tab = ClassTab::Definition;
                    self.definition.load(&format!(
                        "Object subclass: #NameOfSubclass\n\tinstanceVariableNames: ''\n\tclassVariableNames: ''\n\tpackage: '{package}'"
                    ));
                }
            }
            Act::AskRemoveMethod(selector) => {
                if self.may_leave() {
                    let side = if self.meta { " class" } else { "" };
                    let class = self.class.clone().unwrap_or_default();
                    let question = format!("Remove the method {class}{side}>>#{selector}?");
                    self.ask = Some(Ask::confirm(question, UNDO, "Remove", Act::RemoveMethod(selector)));
                }
            }
            Act::AskRemoveClass(class) => {
                if self.may_leave() {
                    let question = format!("Remove the class {class}, with its methods?");
                    self.ask = Some(Ask::confirm(question, UNDO, "Remove", Act::RemoveClass(class)));
                }
            }
            Act::AskRemoveProtocol(protocol) => {
                let question = format!("Remove the protocol {protocol}?");
                let detail = format!("Its methods go to '{UNCLASSIFIED}'.");
                self.ask = Some(Ask::confirm(question, detail, "Remove", Act::RemoveProtocol(protocol)));
            }
            Act::RemoveMethod(selector) => {
                let op = Op::RemoveMethod(pb::MethodRef { class: self.class_ref(), selector });
                self.method = None;
                self.source.load("");
                self.change(ctx, "remove method", op, None);
            }
            Act::RemoveClass(class_name) => {
                let mut ops = vec![Op::RemoveClass(pb::ClassRef { class_name, meta: false })];
                if let Some(package) = &self.package {
                    ops.push(Op::Classes(pb::PackageRef { package: package.clone(), ..Default::default() }));
                }
                let ticket = ctx.send("remove class", ops);
                self.class = None;
                self.clear_class();
                self.pending.push((ticket, Want::Changed(None, self.package.clone())));
            }
            Act::RenameClass(from, to) => {
                if self.may_leave() {
                    self.rename_class(ctx, from, to);
                }
            }
            Act::NewProtocol(name) => {
                let op = Op::AddProtocol(pb::ProtocolRef { class: self.class_ref(), protocol: name.clone() });
                self.change(ctx, "new protocol", op, Some(Some(name)));
            }
            Act::RenameProtocol(from, to) => {
                let class = self.class_ref();
                let op = Op::RenameProtocol(pb::RenameProtocol { class, from, to: to.clone() });
                self.change(ctx, "rename protocol", op, Some(Some(to)));
            }
            Act::RemoveProtocol(protocol) => {
                let op = Op::RemoveProtocol(pb::ProtocolRef { class: self.class_ref(), protocol });
                self.change(ctx, "remove protocol", op, Some(None));
            }
            Act::Move(selectors, protocol) => {
                let op = Op::MoveMethods(pb::MoveMethods { class: self.class_ref(), selectors, protocol });
                self.change(ctx, "move to protocol", op, None);
            }
            Act::Senders(selector) => {
                let op = Op::Senders(pb::SelectorRef { selector: selector.clone() });
                let list = MethodList::open(ctx, format!("Senders of #{selector}"), op);
                ctx.opened.push(Box::new(list));
            }
            Act::Implementors(selector) => {
                let op = Op::Implementors(pb::SelectorRef { selector: selector.clone() });
                let list = MethodList::open(ctx, format!("Implementors of #{selector}"), op);
                ctx.opened.push(Box::new(list));
            }
            Act::References(class) => {
                let op = Op::References(pb::Global { name: class.clone() });
                let list = MethodList::open(ctx, format!("References to {class}"), op);
                ctx.opened.push(Box::new(list));
            }
            Act::Hierarchy(class) => {
                let browser = Browser::hierarchy_of(ctx, class);
                ctx.opened.push(Box::new(browser));
            }
            Act::Browse(class) => {
                let browser = Browser::on_class(ctx, class);
                ctx.opened.push(Box::new(browser));
            }
            Act::RunTests(scope) => {
                let runner = TestRunner::running(ctx, scope);
                ctx.opened.push(Box::new(runner));
            }
            Act::DebugTest(class, selector) => {
                let runner = TestRunner::debugging(ctx, class, selector);
                ctx.opened.push(Box::new(runner));
            }
            Act::AskName(question, name, then) => self.ask = Some(Ask::name(question, name, *then)),
            Act::Copy(_) => {}
        }
    }

    /// Sends `op`, a change to the class chosen, with its protocols and methods after it (one
    /// batch); `protocol`, if given, is the protocol chosen once it is done.
    fn change(&mut self, ctx: &mut Ctx, gesture: &'static str, op: Op, protocol: Option<Option<String>>) {
        if let Some(protocol) = protocol {
            self.protocol = protocol;
            self.method = None;
            self.new_method = false;
        }
        let ops = vec![op, Op::Protocols(self.class_ref().unwrap_or_default()), self.methods_op()];
        // Other panes showing the class read it again.
        let ticket = ctx.send_changing(gesture, ops);
        self.pending.push((ticket, Want::Changed(self.class_ref(), self.package.clone())));
    }

    /// Renames class `from` `to` (and the methods that name it), then shows it under its new
    /// name: one batch.
    fn rename_class(&mut self, ctx: &mut Ctx, from: String, to: String) {
        let class = pb::ClassRef { class_name: to.clone(), meta: self.meta };
        let ops = vec![
            Op::RenameClass(pb::RenameClass { from: from.clone(), to: to.clone() }),
            Op::Packages(pb::Empty {}),
            Op::Classes(pb::PackageRef { of_class: to.clone(), ..Default::default() }),
            Op::ClassDefinition(pb::ClassRef { class_name: to.clone(), meta: false }),
            Op::Protocols(class.clone()),
            Op::Methods(pb::ProtocolRef { class: Some(class), protocol: String::new() }),
        ];
        let ticket = ctx.send_changing("rename class", ops);
        self.pending.push((ticket, Want::Renamed(from, to)));
    }

    /// Whether `class` is a test class, as far as the list shows: a subclass of TestCase, or
    /// named as one.
    fn is_test_class(&self, class: &str) -> bool {
        let mut name = class;
        for _ in 0..self.classes.len() + 1 {
            if name == "TestCase" {
                return true;
            }
            match self.classes.iter().find(|c| c.name == name) {
                Some(entry) => name = &entry.superclass,
                None => break,
            }
        }
        class.ends_with("Test") || class.ends_with("Tests")
    }

    pub(super) fn package_menu(&self, ui: &mut egui::Ui, package: &str, may_change_code: bool, acts: &mut Vec<Act>) {
        let scope = TestScope { package: Some(package.to_string()), tests: Vec::new() };
        let items = [
            ("Run the package's tests", Some(Act::RunTests(scope))),
            ("New class", may_change_code.then_some(Act::NewClass)),
            ("Copy the name", Some(Act::Copy(package.to_string()))),
        ];
        // A new class goes in the package chosen.
        if self.package.as_deref() != Some(package) {
            acts_menu(ui, &items[..1], acts);
            acts_menu(ui, &items[2..], acts);
            return;
        }
        acts_menu(ui, &items, acts);
    }

    pub(super) fn class_menu(&self, ui: &mut egui::Ui, class: &str, may_change_code: bool, acts: &mut Vec<Act>) {
        let chosen = self.class.as_deref() == Some(class);
        let test = TestScope::class(class);
        let items = [
            ("Browse in a new browser", Some(Act::Browse(class.to_string()))),
            ("Hierarchy", Some(Act::Hierarchy(class.to_string()))),
            ("References", Some(Act::References(class.to_string()))),
            ("Run tests", self.is_test_class(class).then_some(Act::RunTests(test))),
            ("New method", (may_change_code && chosen).then_some(Act::NewMethod)),
            ("Remove...", (may_change_code && chosen).then(|| Act::AskRemoveClass(class.to_string()))),
            ("Copy the name", Some(Act::Copy(class.to_string()))),
        ];
        acts_menu(ui, &items, acts);
        if may_change_code && ui.button("Rename...").clicked() {
            self.ask_or(Act::RenameClass(class.to_string(), class.to_string()), acts);
            ui.close();
        }
    }

    pub(super) fn protocol_menu(
        &self,
        ui: &mut egui::Ui,
        protocol: Option<&str>,
        may_change_code: bool,
        acts: &mut Vec<Act>,
    ) {
        if self.class.is_none() {
            ui.weak("(choose a class)");
            return;
        }
        let named = |p: &str| p.to_string();
        let items = [
            ("New protocol...", may_change_code.then(|| Act::NewProtocol(String::new()))),
            ("Rename...", protocol.filter(|_| may_change_code).map(|p| Act::RenameProtocol(named(p), named(p)))),
            ("Remove...", protocol.filter(|_| may_change_code).map(|p| Act::AskRemoveProtocol(named(p)))),
        ];
        for (label, act) in items {
            let Some(act) = act else { continue };
            if ui.button(label).clicked() {
                self.ask_or(act, acts);
                ui.close();
            }
        }
    }

    pub(super) fn method_menu(&self, ui: &mut egui::Ui, selector: &str, may_change_code: bool, acts: &mut Vec<Act>) {
        let chosen = self.method.as_deref() == Some(selector);
        let class = self.class.clone().unwrap_or_default();
        let is_test =
            selector.starts_with("test") && !selector.contains(':') && self.is_test_class(&class) && !self.meta;
        let items = [
            ("Senders", Some(Act::Senders(selector.to_string()))),
            ("Implementors", Some(Act::Implementors(selector.to_string()))),
            ("Run test", is_test.then(|| Act::RunTests(TestScope::test(&class, selector)))),
            ("Debug test", is_test.then(|| Act::DebugTest(class.clone(), selector.to_string()))),
            ("Remove...", (may_change_code && chosen).then(|| Act::AskRemoveMethod(selector.to_string()))),
            ("Copy the selector", Some(Act::Copy(selector.to_string()))),
        ];
        acts_menu(ui, &items, acts);
        if may_change_code {
            ui.menu_button("Move to protocol", |ui| {
                for protocol in &self.protocols {
                    if ui.button(protocol).clicked() {
                        acts.push(Act::Move(vec![selector.to_string()], protocol.clone()));
                        ui.close();
                    }
                }
                ui.separator();
                if ui.button("New protocol...").clicked() {
                    self.ask_or(Act::Move(vec![selector.to_string()], String::new()), acts);
                    ui.close();
                }
            });
        }
    }

    /// Asks for a name first where `act` needs one (it comes back named), else does it.
    fn ask_or(&self, act: Act, acts: &mut Vec<Act>) {
        let question = match &act {
            Act::NewProtocol(_) => Some(("Name of the new protocol", String::new())),
            Act::RenameProtocol(from, _) => Some(("New name of the protocol", from.clone())),
            Act::RenameClass(from, _) => Some(("New name of the class", from.clone())),
            Act::Move(_, to) if to.is_empty() => Some(("Name of the new protocol", String::new())),
            _ => None,
        };
        match question {
            Some((question, name)) => acts.push(Act::AskName(question, name, Box::new(act))),
            None => acts.push(act),
        }
    }
}

/// What is said under the question before a removal.
const UNDO: &str = "Until you commit, Abort brings it back.";

/// Menu entries: those with an act, each closing the menu once clicked.
fn acts_menu(ui: &mut egui::Ui, items: &[(&str, Option<Act>)], acts: &mut Vec<Act>) {
    for (label, act) in items {
        if let Some(act) = act
            && ui.button(*label).clicked()
        {
            if let Act::Copy(text) = act {
                ui.ctx().copy_text(text.clone());
            }
            acts.push(act.clone());
            ui.close();
        }
    }
}
