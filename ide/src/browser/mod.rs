//! The system browser: packages | classes (flat or as a hierarchy) | protocols | methods, an
//! instance/class side switch, and below them the class definition or the method source to
//! edit and accept. Each selection is one gesture and one batch: choosing a class asks for its
//! definition, protocols and methods together. A hierarchy browser is the same browser with
//! a class's superclasses and subclasses in place of a package's classes.

use eframe::egui;
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::app::Ctx;
use crate::editor::CodeEditor;
use crate::layout::Saved;
use crate::link::{Reply, Ticket};
use crate::panes::{Changed, MethodList, View, first, outcomes};

mod reread;
mod rows;

use rows::{defined_name, flat, hierarchy, list};

/// What a batch the browser sent was for, and what it was about: a reply about a selection
/// the user has since left is dropped.
enum Want {
    Packages,
    Classes(String),
    /// The class's definition, protocols and methods.
    Class(pb::ClassRef),
    /// Packages, classes, then what `Class` answers.
    Browse(pb::ClassRef),
    Methods(pb::ClassRef, Option<String>),
    Source(pb::ClassRef, String),
    /// The source sent, to the class.
    Compiled(String, pb::ClassRef),
    /// The definition sent.
    Defined(String),
    /// A removal, after which this class (if any) and package were chosen.
    Removed(Option<pb::ClassRef>, Option<String>),
    /// Everything shown, read again: what each operation was for, and what was chosen.
    Reread(Vec<Part>, Chosen),
}

/// What one operation of a batch that reads everything again asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Packages,
    Classes,
    Definition,
    Protocols,
    Methods,
    Source,
}

/// What was chosen when a batch was sent: its answers are taken only for what still is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Chosen {
    package: Option<String>,
    hierarchy_of: Option<String>,
    class: Option<pb::ClassRef>,
    protocol: Option<String>,
    method: Option<String>,
}

/// A removal asked for, waiting for the user to confirm it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Removal {
    Method(String),
    Class(String),
}

const NEW_METHOD: &str = "messageSelectorAndArgumentNames\n\t\"comment stating purpose of message\"\n\n\t| temporary variable names |\n\tstatements";

pub struct Browser {
    packages: Vec<String>,
    package: Option<String>,
    classes: Vec<pb::ClassEntry>,
    /// The class list as drawn: names, indented under their superclasses in a hierarchy.
    rows: Vec<String>,
    class: Option<String>,
    as_hierarchy: bool,
    /// The class whose hierarchy is listed instead of a package's classes.
    hierarchy_of: Option<String>,
    meta: bool,
    protocols: Vec<String>,
    protocol: Option<String>,
    methods: Vec<String>,
    method: Option<String>,
    /// The class definition (when no method is chosen) or the method source.
    definition: CodeEditor,
    comment: String,
    source: CodeEditor,
    /// A method is being written from the template.
    new_method: bool,
    pending: Vec<(Ticket, Want)>,
    message: String,
    /// A method to choose once the class it is in has come.
    then_select: Option<String>,
    /// A removal to confirm.
    confirm: Option<Removal>,
}

impl Browser {
    /// A browser on the class named `class` (quick-open, Ctrl+B), in one batch: the packages,
    /// the classes of its package, and the class's definition, protocols and methods.
    pub fn on_class(ctx: &mut Ctx, class: String) -> Browser {
        let list = Op::Classes(pb::PackageRef { of_class: class.clone(), ..Default::default() });
        Browser::showing(ctx, "browse class", list, class)
    }

    /// A hierarchy browser: the superclasses and subclasses of `class` in place of a package's
    /// classes, with the class chosen; one batch, as [`Browser::on_class`].
    pub fn hierarchy_of(ctx: &mut Ctx, class: String) -> Browser {
        let list = Op::Hierarchy(pb::ClassRef { class_name: class.clone(), meta: false });
        let mut browser = Browser::showing(ctx, "browse hierarchy", list, class.clone());
        browser.hierarchy_of = Some(class);
        browser.as_hierarchy = true;
        browser
    }

    /// A browser whose class list `list` answers, with `class` chosen.
    fn showing(ctx: &mut Ctx, gesture: &'static str, list: Op, class: String) -> Browser {
        let mut browser = Browser::blank();
        browser.class = Some(class.clone());
        let class = pb::ClassRef { class_name: class, meta: false };
        let ops = vec![
            Op::Packages(pb::Empty {}),
            list,
            Op::ClassDefinition(class.clone()),
            Op::Protocols(class.clone()),
            Op::Methods(pb::ProtocolRef { class: Some(class), protocol: String::new() }),
        ];
        browser.pending.push((ctx.send(gesture, ops), Want::Browse(browser.class_ref().unwrap_or_default())));
        browser
    }

    pub fn new(ctx: &mut Ctx) -> Browser {
        let mut browser = Browser::blank();
        browser.pending.push((ctx.send("open a browser", vec![Op::Packages(pb::Empty {})]), Want::Packages));
        browser
    }

    fn blank() -> Browser {
        Browser {
            packages: Vec::new(),
            package: None,
            classes: Vec::new(),
            rows: Vec::new(),
            class: None,
            as_hierarchy: false,
            hierarchy_of: None,
            meta: false,
            protocols: Vec::new(),
            protocol: None,
            methods: Vec::new(),
            method: None,
            definition: CodeEditor::new("class-definition"),
            comment: String::new(),
            source: CodeEditor::new("method-source"),
            new_method: false,
            pending: Vec::new(),
            message: String::new(),
            then_select: None,
            confirm: None,
        }
    }

    /// A browser showing again what one showed before a restart (one batch).
    pub fn restored(
        ctx: &mut Ctx,
        package: Option<String>,
        class: Option<String>,
        meta: bool,
        method: Option<String>,
        hierarchy_of: Option<String>,
    ) -> Browser {
        let mut browser = Browser::blank();
        browser.as_hierarchy = hierarchy_of.is_some();
        (browser.package, browser.class, browser.meta, browser.method, browser.hierarchy_of) =
            (package, class, meta, method, hierarchy_of);
        browser.reread(ctx, "restore a browser");
        browser
    }

    /// What is chosen now.
    fn chosen(&self) -> Chosen {
        Chosen {
            package: self.package.clone(),
            hierarchy_of: self.hierarchy_of.clone(),
            class: self.class_ref(),
            protocol: self.protocol.clone(),
            method: self.method.clone(),
        }
    }

    /// Reads everything it shows again, in one batch: the packages, the class list, the
    /// class chosen, and the method chosen.
    fn reread(&mut self, ctx: &mut Ctx, gesture: &'static str) {
        let mut parts = vec![Part::Packages];
        let mut ops = vec![Op::Packages(pb::Empty {})];
        let list = match (&self.hierarchy_of, &self.package, &self.class) {
            (Some(root), _, _) => Some(Op::Hierarchy(pb::ClassRef { class_name: root.clone(), meta: false })),
            (None, Some(package), _) => {
                Some(Op::Classes(pb::PackageRef { package: package.clone(), ..Default::default() }))
            }
            (None, None, Some(class)) => {
                Some(Op::Classes(pb::PackageRef { of_class: class.clone(), ..Default::default() }))
            }
            (None, None, None) => None,
        };
        if let Some(list) = list {
            ops.push(list);
            parts.push(Part::Classes);
        }
        if let (Some(class), Some(name)) = (self.class_ref(), self.class.clone()) {
            ops.push(Op::ClassDefinition(pb::ClassRef { class_name: name, meta: false }));
            ops.push(Op::Protocols(class.clone()));
            ops.push(self.methods_op());
            parts.extend([Part::Definition, Part::Protocols, Part::Methods]);
            if let Some(selector) = self.method.clone() {
                ops.push(Op::MethodSource(pb::MethodRef { class: Some(class), selector }));
                parts.push(Part::Source);
            }
        }
        let ticket = ctx.send(gesture, ops);
        self.pending.push((ticket, Want::Reread(parts, self.chosen())));
    }

    fn class_ref(&self) -> Option<pb::ClassRef> {
        self.class.as_ref().map(|c| pb::ClassRef { class_name: c.clone(), meta: self.meta })
    }

    fn methods_op(&self) -> Op {
        Op::Methods(pb::ProtocolRef { class: self.class_ref(), protocol: self.protocol.clone().unwrap_or_default() })
    }

    /// Whether the code being edited may be left (it asks when it has edits not accepted).
    fn may_leave(&mut self, ui: &egui::Ui) -> bool {
        self.source.may_leave(ui) && self.definition.may_leave(ui)
    }

    fn select_package(&mut self, ctx: &mut Ctx, package: String) {
        let op = Op::Classes(pb::PackageRef { package: package.clone(), ..Default::default() });
        self.pending.push((ctx.send("select package", vec![op]), Want::Classes(package.clone())));
        self.package = Some(package);
        self.hierarchy_of = None;
        self.class = None;
        self.clear_class();
    }

    fn clear_class(&mut self) {
        self.protocols.clear();
        self.methods.clear();
        self.protocol = None;
        self.method = None;
        self.new_method = false;
        self.definition.load("");
        self.source.load("");
    }

    fn select_class(&mut self, ctx: &mut Ctx, class: String) {
        self.class = Some(class.clone());
        self.clear_class();
        let instance = pb::ClassRef { class_name: class, meta: false };
        let ops = vec![
            Op::ClassDefinition(instance),
            Op::Protocols(self.class_ref().unwrap_or_default()),
            Op::Methods(pb::ProtocolRef { class: self.class_ref(), protocol: String::new() }),
        ];
        self.pending.push((ctx.send("select class", ops), Want::Class(self.class_ref().unwrap_or_default())));
    }

    fn select_protocol(&mut self, ctx: &mut Ctx, protocol: Option<String>) {
        self.protocol = protocol;
        self.method = None;
        self.new_method = false;
        let op = self.methods_op();
        let want = Want::Methods(self.class_ref().unwrap_or_default(), self.protocol.clone());
        self.pending.push((ctx.send("select protocol", vec![op]), want));
    }

    fn select_method(&mut self, ctx: &mut Ctx, selector: String) {
        let op = Op::MethodSource(pb::MethodRef { class: self.class_ref(), selector: selector.clone() });
        let want = Want::Source(self.class_ref().unwrap_or_default(), selector.clone());
        self.pending.push((ctx.send("select method", vec![op]), want));
        self.method = Some(selector);
        self.new_method = false;
    }

    fn failed(&mut self, outcome: Result<Outcome, pb::Error>) {
        self.message = match outcome {
            Err(e) => e.message,
            Ok(other) => format!("an unexpected answer: {other:?}"),
        };
    }

    /// The definition, protocols and methods of the class chosen, in that order.
    fn class_arrived(&mut self, reply: Reply) {
        let Ok(outcomes) = outcomes(reply) else { return };
        self.take_class(outcomes.into_iter());
    }

    /// The packages and the package's classes, then the class as [`Browser::class_arrived`].
    fn browse_arrived(&mut self, reply: Reply) {
        let Ok(outcomes) = outcomes(reply) else { return };
        let mut outcomes = outcomes.into_iter();
        if let Some(Outcome::Names(n)) = outcomes.next() {
            self.packages = n.names;
        }
        match outcomes.next() {
            Some(Outcome::Classes(c)) => self.set_classes(c.classes),
            Some(Outcome::Error(e)) => self.message = e.message,
            _ => {}
        }
        self.take_class(outcomes);
    }

    fn take_class(&mut self, outcomes: impl Iterator<Item = Outcome>) {
        for (i, outcome) in outcomes.enumerate() {
            match (i, outcome) {
                (_, Outcome::ClassDefinition(d)) => {
                    // Not over edits made since it was asked for.
                    if !self.definition.is_dirty() {
                        self.definition.load(&d.definition);
                    }
                    self.comment = d.comment;
                    self.package = Some(d.package);
                }
                (1, Outcome::Names(n)) => self.protocols = n.names,
                (_, Outcome::Names(n)) => self.methods = n.names,
                (_, Outcome::Error(e)) => self.message = e.message,
                _ => {}
            }
        }
    }

    /// After Accept on a method (`sent`): the compile's answer, then the protocols and methods
    /// again.
    fn compiled(&mut self, reply: Reply, sent: &str) {
        let Ok(outcomes) = outcomes(reply) else { return };
        let mut outcomes = outcomes.into_iter();
        match outcomes.next() {
            Some(Outcome::Compiled(c)) => {
                self.source.accepted(sent);
                self.method = Some(c.selector);
                self.new_method = false;
                self.message = c.warnings.iter().map(|w| w.message.as_str()).collect::<Vec<_>>().join("; ");
            }
            Some(Outcome::Error(e)) => {
                self.source.show_error(&e);
                return;
            }
            _ => {}
        }
        if let Some(Outcome::Names(n)) = outcomes.next() {
            self.protocols = n.names;
        }
        if let Some(Outcome::Names(n)) = outcomes.next() {
            self.methods = n.names;
        }
    }

    /// After Accept on a class definition (`sent`): the class as it now stands (chosen, and
    /// shown unless edited since), and its package's classes.
    fn defined(&mut self, reply: Reply, sent: &str) {
        let Ok(outcomes) = outcomes(reply) else { return };
        for outcome in outcomes {
            match outcome {
                Outcome::ClassDefinition(d) => {
                    if self.definition.text == sent {
                        self.definition.load(&d.definition);
                    } else {
                        self.definition.accepted(sent);
                    }
                    if self.class.as_ref() != Some(&d.name) {
                        self.class = Some(d.name);
                        self.protocols.clear();
                        self.methods.clear();
                    }
                    self.package = Some(d.package);
                    self.hierarchy_of = None;
                }
                Outcome::Classes(c) => self.set_classes(c.classes),
                Outcome::Names(n) => self.packages = n.names,
                Outcome::Error(e) => {
                    self.definition.show_error(&e);
                    return;
                }
                _ => {}
            }
        }
        self.message = "defined".into();
    }

    /// After a removal: its answer, then the protocols and methods (of a method's class) or
    /// the classes (of a class's package), taken if that class or package is still chosen.
    fn removed(&mut self, reply: Reply, same_class: bool, same_package: bool) {
        let Ok(outcomes) = outcomes(reply) else { return };
        for (i, outcome) in outcomes.into_iter().enumerate() {
            match (i, outcome) {
                (_, Outcome::Error(e)) => self.message = e.message,
                (1, Outcome::Names(n)) if same_class => self.protocols = n.names,
                (_, Outcome::Names(n)) if same_class => self.methods = n.names,
                (_, Outcome::Classes(c)) if same_package && self.hierarchy_of.is_none() => self.set_classes(c.classes),
                _ => {}
            }
        }
    }

    /// The class list, and its rows as drawn (worked out once, not every frame).
    fn set_classes(&mut self, classes: Vec<pb::ClassEntry>) {
        self.classes = classes;
        self.rows = if self.as_hierarchy { hierarchy(&self.classes) } else { flat(&self.classes) };
    }

    /// Chooses method `selector` once the class shown has come.
    pub fn then_select(&mut self, selector: String) {
        self.then_select = Some(selector);
    }

    fn choose(&mut self, ctx: &mut Ctx, choice: Choice) {
        match choice {
            Choice::Package(p) => self.select_package(ctx, p),
            Choice::Class(c) => self.select_class(ctx, c),
            Choice::Side(meta) => {
                self.meta = meta;
                if let Some(class) = self.class.clone() {
                    self.select_class(ctx, class);
                }
            }
            Choice::Protocol(p) => self.select_protocol(ctx, p),
            Choice::Method(m) => self.select_method(ctx, m),
        }
    }

    fn accept_method(&mut self, ctx: &mut Ctx) {
        let sent = self.source.text.clone();
        // Under "-- all --" no protocol: a method keeps its own, a new one is unclassified.
        let compile = Op::CompileMethod(pb::CompileMethod {
            class: self.class_ref(),
            protocol: self.protocol.clone().unwrap_or_default(),
            source: sent.clone(),
        });
        let ops = vec![compile, Op::Protocols(self.class_ref().unwrap_or_default()), self.methods_op()];
        let want = Want::Compiled(sent, self.class_ref().unwrap_or_default());
        self.pending.push((ctx.send("accept", ops), want));
    }

    /// Removes what the user confirmed removing.
    fn remove(&mut self, ctx: &mut Ctx, removal: Removal) {
        match removal {
            Removal::Method(selector) => {
                let ops = vec![
                    Op::RemoveMethod(pb::MethodRef { class: self.class_ref(), selector }),
                    Op::Protocols(self.class_ref().unwrap_or_default()),
                    self.methods_op(),
                ];
                let ticket = ctx.send("remove method", ops);
                self.method = None;
                self.protocols.clear();
                self.source.load("");
                self.pending.push((ticket, Want::Removed(self.class_ref(), self.package.clone())));
            }
            Removal::Class(class_name) => {
                let mut ops = vec![Op::RemoveClass(pb::ClassRef { class_name, meta: false })];
                if let Some(package) = &self.package {
                    ops.push(Op::Classes(pb::PackageRef { package: package.clone(), ..Default::default() }));
                }
                let ticket = ctx.send("remove class", ops);
                self.class = None;
                self.clear_class();
                self.pending.push((ticket, Want::Removed(None, self.package.clone())));
            }
        }
    }

    /// Asks to confirm a removal; answers it once confirmed.
    fn confirm_ui(&mut self, ui: &mut egui::Ui) -> Option<Removal> {
        let removal = self.confirm.clone()?;
        let question = match &removal {
            Removal::Method(selector) => {
                let side = if self.meta { " class" } else { "" };
                format!("Remove the method {}{side}>>#{selector}?", self.class.clone().unwrap_or_default())
            }
            Removal::Class(class) => format!("Remove the class {class}, with its methods?"),
        };
        let mut answer = None;
        let modal = egui::Modal::new(ui.make_persistent_id("confirm-removal")).show(ui.ctx(), |ui| {
            ui.set_width(380.0);
            ui.label(question);
            ui.weak("Until you commit, Abort brings it back.");
            ui.horizontal(|ui| {
                if ui.button("Remove").clicked() {
                    answer = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(false);
                }
            });
        });
        if answer.is_some() || modal.should_close() {
            self.confirm = None;
        }
        (answer == Some(true)).then_some(removal)
    }

    /// The buttons under the lists: new and remove, and the cross-references.
    fn tools(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        ui.horizontal(|ui| {
            let class = self.class.clone();
            let may = ctx.link.may_change_code;
            if ui.add_enabled(may && class.is_some(), egui::Button::new("New method")).clicked() && self.may_leave(ui) {
                self.method = None;
                self.new_method = true;
                self.source.load(NEW_METHOD);
            }
            let method = self.method.clone();
            if ui.add_enabled(may && method.is_some(), egui::Button::new("Remove method")).clicked()
                && self.may_leave(ui)
                && let Some(selector) = method.clone()
            {
                self.confirm = Some(Removal::Method(selector));
            }
            if ui.add_enabled(may && self.package.is_some(), egui::Button::new("New class")).clicked()
                && self.may_leave(ui)
            {
                let package = self.package.clone().unwrap_or_default();
                self.class = None;
                self.clear_class();
                self.definition.load(&format!(
                    "Object subclass: #NameOfSubclass\n\tinstanceVariableNames: ''\n\tclassVariableNames: ''\n\tpackage: '{package}'"
                ));
            }
            if ui.add_enabled(may && class.is_some(), egui::Button::new("Remove class")).clicked()
                && self.may_leave(ui)
                && let Some(class_name) = class.clone()
            {
                self.confirm = Some(Removal::Class(class_name));
            }
            ui.separator();
            // Taken by the first browser drawn: one key press, one list.
            let key = |ui: &mut egui::Ui, key| ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, key));
            if let Some(selector) = method.clone() {
                if ui.button("Senders (Ctrl+N)").clicked() || key(ui, egui::Key::N) {
                    let op = Op::Senders(pb::SelectorRef { selector: selector.clone() });
                    let list = MethodList::open(ctx, format!("Senders of #{selector}"), op);
                    ctx.opened.push(Box::new(list));
                }
                if ui.button("Implementors (Ctrl+M)").clicked() || key(ui, egui::Key::M) {
                    let op = Op::Implementors(pb::SelectorRef { selector: selector.clone() });
                    let title = format!("Implementors of #{selector}");
                    let list = MethodList::open(ctx, title, op);
                    ctx.opened.push(Box::new(list));
                }
            }
            if let Some(class_name) = class {
                if ui.button("References").clicked() {
                    let op = Op::References(pb::Global { name: class_name.clone() });
                    let list = MethodList::open(ctx, format!("References to {class_name}"), op);
                    ctx.opened.push(Box::new(list));
                }
                if ui.button("Hierarchy").clicked() {
                    let browser = Browser::hierarchy_of(ctx, class_name);
                    ctx.opened.push(Box::new(browser));
                }
            }
        });
    }
}

enum Choice {
    Package(String),
    Class(String),
    Side(bool),
    Protocol(Option<String>),
    Method(String),
}

impl View for Browser {
    fn name(&self) -> &'static str {
        "Browser"
    }

    fn title(&self) -> String {
        let title = match (&self.class, &self.method) {
            (Some(c), Some(m)) => format!("{c}>>{m}"),
            (Some(c), None) => c.clone(),
            _ => "System Browser".into(),
        };
        match &self.hierarchy_of {
            Some(root) if *root == title => format!("Hierarchy of {root}"),
            Some(root) => format!("Hierarchy of {root}: {title}"),
            None => title,
        }
    }

    fn forget_pending(&mut self) {
        self.pending.clear();
    }

    fn saved(&self) -> Option<Saved> {
        Some(Saved::Browser {
            package: self.package.clone(),
            class: self.class.clone(),
            meta: self.meta,
            selector: self.method.clone(),
            hierarchy_of: self.hierarchy_of.clone(),
        })
    }

    /// Everything again, after the view moved or code changed (unless it is being read).
    fn refresh(&mut self, ctx: &mut Ctx, changed: Changed) {
        let rereading = self.pending.iter().any(|(_, w)| matches!(w, Want::Reread(..)));
        if changed == Changed::Repository && !rereading {
            self.reread(ctx, "refresh a browser");
        }
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending.iter().any(|(t, _)| *t == ticket)
    }

    fn holds_unaccepted_edits(&mut self) -> bool {
        self.source.holds_unaccepted_edits() | self.definition.holds_unaccepted_edits()
    }

    fn receive(&mut self, reply: Reply) {
        let Some(at) = self.pending.iter().position(|(t, _)| *t == reply.ticket) else { return };
        let (_, want) = self.pending.remove(at);
        self.message.clear();
        let class = self.class_ref().unwrap_or_default();
        match want {
            Want::Packages => match first(reply) {
                Ok(Outcome::Names(n)) => self.packages = n.names,
                other => self.failed(other),
            },
            Want::Classes(package) if self.package.as_ref() == Some(&package) && self.hierarchy_of.is_none() => {
                match first(reply) {
                    Ok(Outcome::Classes(c)) => self.set_classes(c.classes),
                    other => self.failed(other),
                }
            }
            Want::Methods(of, protocol) if of == class && protocol == self.protocol => match first(reply) {
                Ok(Outcome::Names(n)) => self.methods = n.names,
                other => self.failed(other),
            },
            // Not over edits made since it was asked for.
            Want::Source(of, selector)
                if of == class && self.method.as_ref() == Some(&selector) && !self.source.is_dirty() =>
            {
                match first(reply) {
                    Ok(Outcome::MethodSource(s)) => self.source.load(&s.source),
                    other => self.failed(other),
                }
            }
            Want::Class(of) if of == class => self.class_arrived(reply),
            Want::Browse(of) if of == class => self.browse_arrived(reply),
            Want::Compiled(sent, to) if to == class => self.compiled(reply, &sent),
            Want::Defined(sent) => self.defined(reply, &sent),
            Want::Reread(parts, then) => self.reread_arrived(reply, &parts, &then),
            Want::Removed(of, package) => {
                let (same_class, same_package) = (of == self.class_ref(), package == self.package);
                self.removed(reply, same_class, same_package);
            }
            // About a selection since left.
            _ => {}
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        if self.pending.is_empty()
            && let Some(selector) = self.then_select.take()
        {
            self.select_method(ctx, selector);
        }
        let height = (ui.available_height() * 0.35).max(120.0);
        let mut chosen: Option<Choice> = None;
        ui.horizontal(|ui| {
            let width = (ui.available_width() / 4.0 - 8.0).max(80.0);
            ui.vertical(|ui| {
                ui.set_width(width);
                ui.strong("Packages");
                list(ui, "packages", height, &self.packages, self.package.as_deref(), |p| {
                    chosen = Some(Choice::Package(p.to_string()))
                });
            });
            ui.separator();
            ui.vertical(|ui| {
                ui.set_width(width);
                let toggled = ui
                    .horizontal(|ui| match &self.hierarchy_of {
                        Some(root) => ui.strong(format!("Hierarchy of {root}")).changed(),
                        None => {
                            ui.strong("Classes");
                            ui.checkbox(&mut self.as_hierarchy, "hierarchy").changed()
                        }
                    })
                    .inner;
                if toggled {
                    let classes = std::mem::take(&mut self.classes);
                    self.set_classes(classes);
                }
                list(ui, "classes", height, &self.rows, self.class.as_deref(), |row| {
                    chosen = Some(Choice::Class(row.trim().to_string()))
                });
            });
            ui.separator();
            ui.vertical(|ui| {
                ui.set_width(width);
                ui.horizontal(|ui| {
                    ui.strong("Protocols");
                    if ui.selectable_label(!self.meta, "instance").clicked() && self.meta {
                        chosen = Some(Choice::Side(false));
                    }
                    if ui.selectable_label(self.meta, "class").clicked() && !self.meta {
                        chosen = Some(Choice::Side(true));
                    }
                });
                let mut rows = vec!["-- all --".to_string()];
                rows.extend(self.protocols.iter().cloned());
                let selected = self.protocol.clone().unwrap_or_else(|| "-- all --".into());
                list(ui, "protocols", height, &rows, Some(selected.as_str()), |p| {
                    chosen = Some(Choice::Protocol((p != "-- all --").then(|| p.to_string())))
                });
            });
            ui.separator();
            ui.vertical(|ui| {
                ui.set_width(width);
                ui.strong("Methods");
                list(ui, "methods", height, &self.methods, self.method.as_deref(), |m| {
                    chosen = Some(Choice::Method(m.to_string()))
                });
            });
        });
        if let Some(choice) = chosen
            && self.may_leave(ui)
        {
            self.choose(ctx, choice);
        }
        ui.separator();
        self.tools(ui, ctx);
        if let Some(removal) = self.confirm_ui(ui) {
            self.remove(ctx, removal);
        }
        if !self.message.is_empty() {
            ui.label(&self.message);
        }
        if self.method.is_some() || self.new_method {
            if self.source.ui(ui, ctx, "Method") {
                self.accept_method(ctx);
            }
        } else if self.class.is_some() || self.package.is_some() {
            if !self.comment.is_empty() {
                ui.label(egui::RichText::new(&self.comment).italics());
            }
            if self.definition.ui(ui, ctx, "Class definition") {
                let sent = self.definition.text.clone();
                let op = Op::DefineClass(pb::Definition { definition: sent.clone() });
                // The classes of the package the class is in once defined.
                let of_class = match (defined_name(&sent), &self.package) {
                    (name, Some(package)) if name.is_empty() => {
                        pb::PackageRef { package: package.clone(), ..Default::default() }
                    }
                    (name, _) => pb::PackageRef { of_class: name, ..Default::default() },
                };
                let of_class = Op::Classes(of_class);
                let ops = vec![op, Op::Packages(pb::Empty {}), of_class];
                self.pending.push((ctx.send("define class", ops), Want::Defined(sent)));
            }
        }
    }
}
