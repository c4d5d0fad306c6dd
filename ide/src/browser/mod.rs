//! The system browser: packages | classes (flat or as a hierarchy) | protocols | methods, an
//! instance/class side switch, and below them the class definition and comment, or the
//! method source, to edit and accept. Each selection is one gesture and one batch: choosing a
//! class asks for its definition, protocols and methods together. A hierarchy browser is the
//! same browser with a class's superclasses and subclasses in place of a package's classes.
//!
//! `view` draws it (lists between splitters, the editor taking the space left), `menus` has
//! its context menus and what they do (organising protocols and methods, removing, running
//! tests), `history` where it has been (Back, Forward), `reread` reading everything again.

use eframe::egui;
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::ask::Ask;
use crate::ctx::Ctx;
use crate::editor::CodeEditor;
use crate::layout::Saved;
use crate::link::{Reply, Ticket};
use crate::panes::{Changed, View, first, outcomes};

mod history;
mod menus;
mod reread;
mod rows;
mod view;

use history::{History, Place};
use menus::Act;
use rows::{flat, hierarchy};

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
    /// The comment sent, to the class.
    Commented(String, String),
    /// A change to the class (a removal, a protocol added, renamed or removed, methods
    /// moved), after which this class (if any) and package were chosen: its answer, then the
    /// protocols and methods or the classes again.
    Changed(Option<pb::ClassRef>, Option<String>),
    /// Everything shown, read again: what each operation was for, and what was chosen.
    Reread(Vec<Part>, Chosen),
    /// A class renamed (from, to): its answer, then the packages, the classes of its package
    /// and what `Class` answers.
    Renamed(String, String),
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

/// What shows under the lists when a class is chosen and no method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClassTab {
    Definition,
    Comment,
}

const NEW_METHOD: &str = "messageSelectorAndArgumentNames\n\t\"comment stating purpose of message\"\n\n\t| temporary variable names |\n\tstatements";

/// The protocol a method goes in when none is chosen (and where a removed protocol's go).
pub const UNCLASSIFIED: &str = "as yet unclassified";

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
    /// The class definition (when no method is chosen).
    definition: CodeEditor,
    /// The class comment (when no method is chosen).
    comment: CodeEditor,
    tab: ClassTab,
    source: CodeEditor,
    /// A method is being written from the template (in this protocol, if any).
    new_method: bool,
    pending: Vec<(Ticket, Want)>,
    message: String,
    /// A method to choose once the class it is in has come.
    then_select: Option<String>,
    /// A question before a gesture (a removal to confirm, a protocol's name).
    ask: Option<Ask<Act>>,
    history: History,
    /// Scroll the class list to the class chosen (once it is listed).
    reveal: bool,
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
        browser.reveal = true;
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
            comment: CodeEditor::prose("class-comment"),
            tab: ClassTab::Definition,
            source: CodeEditor::new("method-source"),
            new_method: false,
            pending: Vec::new(),
            message: String::new(),
            then_select: None,
            ask: None,
            history: History::default(),
            reveal: false,
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
        browser.go_to(ctx, "restore a browser", Place { package, hierarchy_of, class, meta, protocol: None, method });
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

    /// Where it is, for Back and Forward.
    fn place(&self) -> Place {
        Place {
            package: self.package.clone(),
            hierarchy_of: self.hierarchy_of.clone(),
            class: self.class.clone(),
            meta: self.meta,
            protocol: self.protocol.clone(),
            method: self.method.clone(),
        }
    }

    /// Shows `place`, reading everything it shows in one batch (gesture `gesture`).
    fn go_to(&mut self, ctx: &mut Ctx, gesture: &'static str, place: Place) {
        let Place { package, hierarchy_of, class, meta, protocol, method } = place;
        self.as_hierarchy |= hierarchy_of.is_some();
        (self.package, self.hierarchy_of, self.class, self.meta) = (package, hierarchy_of, class, meta);
        self.clear_class();
        (self.protocol, self.method) = (protocol, method);
        self.reveal = true;
        self.reread(ctx, gesture);
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
    fn may_leave(&mut self) -> bool {
        !self.holds_unaccepted_edits()
    }

    fn select_package(&mut self, ctx: &mut Ctx, package: String) {
        let op = Op::Classes(pb::PackageRef { package: package.clone(), ..Default::default() });
        self.pending.push((ctx.send("select package", vec![op]), Want::Classes(package.clone())));
        self.package = Some(package);
        self.hierarchy_of = None;
        self.class = None;
        self.clear_class();
    }

    /// Forgets what was shown of the class chosen (its definition, comment, protocols,
    /// methods and source).
    fn clear_class(&mut self) {
        self.protocols.clear();
        self.methods.clear();
        self.protocol = None;
        self.method = None;
        self.new_method = false;
        self.definition.load("");
        self.comment.load("");
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
                (_, Outcome::ClassDefinition(d)) => self.take_definition(d),
                (1, Outcome::Names(n)) => self.protocols = n.names,
                (_, Outcome::Names(n)) => self.methods = n.names,
                (_, Outcome::Error(e)) => self.message = e.message,
                _ => {}
            }
        }
    }

    /// A class's definition and comment as the gem answered them (not over edits made since
    /// they were asked for).
    fn take_definition(&mut self, d: pb::ClassDefinition) {
        if !self.definition.is_dirty() && self.definition.text != d.definition {
            self.definition.load(&d.definition);
        }
        if !self.comment.is_dirty() && self.comment.text != d.comment {
            self.comment.load(&d.comment);
        }
        self.package = Some(d.package);
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
                        self.comment.load(&d.comment);
                        self.reveal = true;
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

    /// After Accept on a class comment (`sent`).
    fn commented(&mut self, reply: Reply, sent: &str) {
        match first(reply) {
            Ok(Outcome::Done(_)) => {
                self.comment.accepted(sent);
                self.message = "comment accepted".into();
            }
            Err(e) => self.comment.show_error(&e),
            Ok(other) => self.failed(Ok(other)),
        }
    }

    /// After a change to the class (`same_class`: still chosen) or its package
    /// (`same_package`): its answer, then the protocols and methods, or the classes, taken if
    /// that class or package is still chosen.
    fn changed(&mut self, reply: Reply, same_class: bool, same_package: bool) {
        let Ok(outcomes) = outcomes(reply) else { return };
        for (i, outcome) in outcomes.into_iter().enumerate() {
            match (i, outcome) {
                (_, Outcome::Error(e)) => self.message = e.message,
                (1, Outcome::Names(n)) if same_class => {
                    // A protocol chosen that is no more: every method shows.
                    if self.protocol.as_ref().is_some_and(|p| !n.names.contains(p)) {
                        self.protocol = None;
                    }
                    self.protocols = n.names;
                }
                (_, Outcome::Names(n)) if same_class => self.methods = n.names,
                (_, Outcome::Classes(c)) if same_package && self.hierarchy_of.is_none() => self.set_classes(c.classes),
                _ => {}
            }
        }
    }

    /// After a class was renamed `to` (still chosen under its old name): the class under its
    /// new name, in its package's list; or why it was not renamed.
    fn renamed(&mut self, reply: Reply, to: String) {
        let Ok(outcomes) = outcomes(reply) else { return };
        let mut outcomes = outcomes.into_iter();
        if let Some(Outcome::Error(e)) = outcomes.next() {
            self.message = e.message;
            return;
        }
        self.class = Some(to);
        self.clear_class();
        self.hierarchy_of = None;
        self.reveal = true;
        if let Some(Outcome::Names(n)) = outcomes.next() {
            self.packages = n.names;
        }
        if let Some(Outcome::Classes(c)) = outcomes.next() {
            self.set_classes(c.classes);
        }
        self.take_class(outcomes);
        self.message = "renamed".into();
    }

    /// The class list, and its rows as drawn (worked out once, not every frame).
    fn set_classes(&mut self, classes: Vec<pb::ClassEntry>) {
        self.classes = classes;
        self.rows = if self.as_hierarchy { hierarchy(&self.classes) } else { flat(&self.classes) };
    }

    /// The method chosen, as the protocol names it.
    fn method_ref(&self) -> Option<pb::MethodRef> {
        let class = pb::ClassRef { class_name: self.class.clone()?, meta: self.meta };
        Some(pb::MethodRef { class: Some(class), selector: self.method.clone()? })
    }

    /// Chooses method `selector` once the class shown has come.
    pub fn then_select(&mut self, selector: String) {
        self.then_select = Some(selector);
    }

    /// Makes a choice in the lists (one batch), remembering where it was for Back.
    fn choose(&mut self, ctx: &mut Ctx, choice: Choice) {
        self.history.left(self.place());
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

    /// Back (`back`) or Forward through the places it has shown: one batch.
    fn travel(&mut self, ctx: &mut Ctx, back: bool) {
        let now = self.place();
        let to = if back { self.history.back(now) } else { self.history.forward(now) };
        if let Some(place) = to {
            self.go_to(ctx, if back { "back" } else { "forward" }, place);
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

    fn accept_definition(&mut self, ctx: &mut Ctx) {
        let sent = self.definition.text.clone();
        let op = Op::DefineClass(pb::Definition { definition: sent.clone() });
        // The classes of the package the class is in once defined.
        let of_class = match (rows::defined_name(&sent), &self.package) {
            (name, Some(package)) if name.is_empty() => {
                pb::PackageRef { package: package.clone(), ..Default::default() }
            }
            (name, _) => pb::PackageRef { of_class: name, ..Default::default() },
        };
        let ops = vec![op, Op::Packages(pb::Empty {}), Op::Classes(of_class)];
        self.pending.push((ctx.send("define class", ops), Want::Defined(sent)));
    }

    fn accept_comment(&mut self, ctx: &mut Ctx) {
        let Some(class) = self.class.clone() else { return };
        let sent = self.comment.text.clone();
        let op = Op::SetComment(pb::ClassComment { class_name: class.clone(), comment: sent.clone() });
        self.pending.push((ctx.send("accept comment", vec![op]), Want::Commented(sent, class)));
    }
}

#[derive(Clone, Debug)]
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
        self.source.holds_unaccepted_edits()
            | self.definition.holds_unaccepted_edits()
            | self.comment.holds_unaccepted_edits()
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
                    Ok(Outcome::MethodSource(s)) => self.source.load_method(&s.source, self.method_ref()),
                    other => self.failed(other),
                }
            }
            Want::Class(of) if of == class => self.class_arrived(reply),
            Want::Browse(of) if of == class => self.browse_arrived(reply),
            Want::Compiled(sent, to) if to == class => self.compiled(reply, &sent),
            Want::Defined(sent) => self.defined(reply, &sent),
            Want::Commented(sent, to) if Some(&to) == self.class.as_ref() => self.commented(reply, &sent),
            Want::Reread(parts, then) => self.reread_arrived(reply, &parts, &then),
            Want::Renamed(from, to) if self.class.as_ref() == Some(&from) => self.renamed(reply, to),
            Want::Changed(of, package) => {
                let (same_class, same_package) = (of == self.class_ref(), package == self.package);
                self.changed(reply, same_class, same_package);
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
        self.draw(ui, ctx);
    }
}
