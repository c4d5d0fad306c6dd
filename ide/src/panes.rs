//! The kinds of pane the IDE shows as tabs, and the small ones: the transcript, the sessions
//! of the stone, and a list of methods (senders, implementors) to browse and edit. The
//! system browser, the workspace and the inspector have modules of their own.

use eframe::egui;
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::app::Ctx;
use crate::browser::Browser;
use crate::editor::CodeEditor;
use crate::inspector::Inspector;
use crate::link::{Reply, Ticket};
use crate::workspace::Workspace;

pub enum Pane {
    Browser(Box<Browser>),
    Workspace(Box<Workspace>),
    Transcript(Transcript),
    Inspector(Box<Inspector>),
    Methods(Box<MethodList>),
    Sessions(Sessions),
}

impl Pane {
    pub fn browser(ctx: &mut Ctx) -> Pane {
        Pane::Browser(Box::new(Browser::new(ctx)))
    }

    /// A browser on a class reached by name.
    pub fn browser_on(ctx: &mut Ctx, class: String) -> Pane {
        Pane::Browser(Box::new(Browser::on_class(ctx, class)))
    }

    /// A workspace that evaluates `code` whole when first drawn.
    pub fn workspace_running(code: String, action: crate::workspace::Action) -> Pane {
        Pane::Workspace(Box::new(Workspace::running(code, action)))
    }

    pub fn sessions(ctx: &mut Ctx) -> Pane {
        Pane::Sessions(Sessions::new(ctx))
    }

    /// A list of the methods `op` finds, titled `title`.
    pub fn methods(ctx: &mut Ctx, title: String, op: Op) -> Pane {
        Pane::Methods(Box::new(MethodList::open(ctx, title, op)))
    }

    pub fn workspace() -> Pane {
        Pane::Workspace(Box::default())
    }

    pub fn inspector(ctx: &mut Ctx, handle: u64) -> Pane {
        Pane::inspector_of(ctx, handle, String::new())
    }

    /// An inspector on the object behind `handle`, known so far by its printString.
    pub fn inspector_of(ctx: &mut Ctx, handle: u64, printed: String) -> Pane {
        Pane::Inspector(Box::new(Inspector::new(ctx, handle, printed)))
    }

    pub fn title(&self) -> String {
        match self {
            Pane::Browser(b) => b.title(),
            Pane::Workspace(_) => "Workspace".into(),
            Pane::Transcript(_) => "Transcript".into(),
            Pane::Inspector(i) => i.title(),
            Pane::Methods(m) => m.title.clone(),
            Pane::Sessions(_) => "Sessions".into(),
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        match self {
            Pane::Browser(b) => b.ui(ui, ctx),
            Pane::Workspace(w) => w.ui(ui, ctx),
            Pane::Transcript(t) => t.ui(ui),
            Pane::Inspector(i) => i.ui(ui, ctx),
            Pane::Methods(m) => m.ui(ui, ctx),
            Pane::Sessions(s) => s.ui(ui, ctx),
        }
    }

    /// Whether the pane has code with edits not accepted (it then asks to accept or discard
    /// them).
    pub fn holds_unaccepted_edits(&mut self) -> bool {
        match self {
            Pane::Browser(b) => b.holds_unaccepted_edits(),
            Pane::Methods(m) => m.editor.holds_unaccepted_edits(),
            _ => false,
        }
    }

    /// Forgets the replies it waits for (they went by a link that is gone).
    pub fn forget_pending(&mut self) {
        match self {
            Pane::Browser(b) => b.forget_pending(),
            Pane::Workspace(w) => w.forget_pending(),
            Pane::Transcript(t) => t.pending = None,
            Pane::Inspector(i) => i.forget_pending(),
            Pane::Methods(m) => m.pending.clear(),
            Pane::Sessions(s) => s.pending = None,
        }
    }

    /// Whether the reply to `ticket` is this pane's.
    pub fn waits_for(&self, ticket: Ticket) -> bool {
        match self {
            Pane::Browser(b) => b.waits_for(ticket),
            Pane::Workspace(w) => w.waits_for(ticket),
            Pane::Transcript(t) => t.pending == Some(ticket),
            Pane::Inspector(i) => i.waits_for(ticket),
            Pane::Methods(m) => m.pending.iter().any(|(t, _)| *t == ticket),
            Pane::Sessions(s) => s.pending == Some(ticket),
        }
    }

    /// A pane that what came back asks to open.
    pub fn opens(&mut self) -> Option<Pane> {
        match self {
            Pane::Workspace(w) => w.take_inspector().map(|i| Pane::Inspector(Box::new(i))),
            _ => None,
        }
    }

    pub fn receive(&mut self, reply: Reply) {
        match self {
            Pane::Browser(b) => b.receive(reply),
            Pane::Workspace(w) => w.receive(reply),
            Pane::Transcript(t) => t.receive(reply),
            Pane::Inspector(i) => i.receive(reply),
            Pane::Methods(m) => m.receive(reply),
            Pane::Sessions(s) => s.receive(reply),
        }
    }
}

/// The outcomes of a reply, or the error that took their place (a call that failed).
pub fn outcomes(reply: Reply) -> Result<Vec<Outcome>, pb::Error> {
    reply.result.map_err(|message| pb::Error { message, ..Default::default() })
}

/// The first outcome of a reply, or the error that took its place.
pub fn first(reply: Reply) -> Result<Outcome, pb::Error> {
    match outcomes(reply)?.into_iter().next() {
        Some(Outcome::Error(e)) => Err(e),
        Some(outcome) => Ok(outcome),
        None => Err(pb::Error { message: "the gem answered nothing".into(), ..Default::default() }),
    }
}

/// What Smalltalk code writes to the Transcript, live from the gem's events.
pub struct Transcript {
    pub text: String,
    pending: Option<Ticket>,
}

impl Transcript {
    /// The transcript, starting with what the gem kept of it.
    pub fn new(ctx: &mut Ctx) -> Transcript {
        let pending = Some(ctx.send("read the transcript", vec![Op::Transcript(pb::Empty {})]));
        Transcript { text: String::new(), pending }
    }

    fn receive(&mut self, reply: Reply) {
        self.pending = None;
        if let Ok(Outcome::Text(t)) = first(reply) {
            self.text.insert_str(0, &t.text);
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui) {
        if ui.button("Clear").clicked() {
            self.text.clear();
        }
        egui::ScrollArea::vertical().stick_to_bottom(true).auto_shrink(false).show(ui, |ui| {
            ui.add(egui::Label::new(egui::RichText::new(&self.text).monospace()).wrap());
        });
    }
}

/// The gems of the stone: session, user, host, pid, agent and how far behind their views are.
#[derive(Default)]
pub struct Sessions {
    list: Vec<pb::GemSession>,
    pending: Option<Ticket>,
    /// A gem logged in or out, or committed, since the list was read.
    pub stale: bool,
}

impl Sessions {
    pub fn new(ctx: &mut Ctx) -> Sessions {
        Sessions { pending: Some(ctx.send("list sessions", vec![Op::Sessions(pb::Empty {})])), ..Sessions::default() }
    }

    fn receive(&mut self, reply: Reply) {
        self.pending = None;
        if let Ok(Outcome::Sessions(s)) = first(reply) {
            self.list = s.sessions;
            self.stale = false;
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        ui.horizontal(|ui| {
            if ui.button("Refresh").clicked() {
                self.pending = Some(ctx.send("list sessions", vec![Op::Sessions(pb::Empty {})]));
            }
            if self.stale {
                ui.label("(changed since)");
            }
        });
        egui::Grid::new("sessions").striped(true).show(ui, |ui| {
            for heading in ["session", "user", "host", "pid", "agent", "state", "locks"] {
                ui.strong(heading);
            }
            ui.end_row();
            for s in &self.list {
                let marker = if s.this_gem { " (this gem)" } else { "" };
                ui.label(format!("{}{marker}", s.session));
                ui.label(&s.user);
                ui.label(&s.host);
                ui.label(s.pid.to_string());
                ui.label(&s.agent);
                ui.label(match s.behind {
                    0 => "view current".to_string(),
                    1 => "view 1 commit behind".to_string(),
                    n => format!("view {n} commits behind"),
                });
                ui.label(s.locks.to_string());
                ui.end_row();
            }
        });
    }
}

/// What a method list asked for.
enum Want {
    List,
    Source(pb::MethodEntry),
    /// The source sent.
    Compiled(String),
}

/// Methods found (senders, implementors, ...): choosing one shows its source to edit.
pub struct MethodList {
    title: String,
    methods: Vec<pb::MethodEntry>,
    selected: Option<pb::MethodEntry>,
    pub editor: CodeEditor,
    protocol: String,
    pending: Vec<(Ticket, Want)>,
    message: String,
}

impl MethodList {
    /// A list filled by the reply to `op` (which answers methods).
    pub fn open(ctx: &mut Ctx, title: String, op: Op) -> MethodList {
        let ticket = ctx.send("find methods", vec![op]);
        MethodList {
            title,
            methods: Vec::new(),
            selected: None,
            editor: CodeEditor::new("method-list-source"),
            protocol: String::new(),
            pending: vec![(ticket, Want::List)],
            message: String::new(),
        }
    }

    fn receive(&mut self, reply: Reply) {
        let Some(at) = self.pending.iter().position(|(t, _)| *t == reply.ticket) else { return };
        let (_, want) = self.pending.remove(at);
        match (want, first(reply)) {
            (Want::List, Ok(Outcome::Methods(m))) => self.methods = m.methods,
            // Only the source last asked for, and not over edits made since.
            (Want::Source(entry), Ok(Outcome::MethodSource(s)))
                if !self.editor.is_dirty() && !self.pending.iter().any(|(_, w)| matches!(w, Want::Source(_))) =>
            {
                self.editor.load(&s.source);
                self.protocol = s.protocol;
                self.selected = Some(entry);
            }
            (Want::Compiled(sent), Ok(Outcome::Compiled(_))) => {
                self.editor.accepted(&sent);
                self.message = "accepted".into();
            }
            (Want::Compiled(_), Err(e)) => self.editor.show_error(&e),
            (_, Err(e)) => self.message = e.message,
            _ => {}
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        ui.label(match self.methods.len() {
            1 => "1 method".to_string(),
            n => format!("{n} methods"),
        });
        let mut chosen = None;
        egui::ScrollArea::vertical().id_salt("methods").max_height(ui.available_height() / 3.0).show_rows(
            ui,
            18.0,
            self.methods.len(),
            |ui, rows| {
                for m in &self.methods[rows] {
                    let side = if m.meta { " class" } else { "" };
                    let label = format!("{}{side}>>{}", m.class_name, m.selector);
                    if ui.selectable_label(self.selected.as_ref() == Some(m), label).clicked() {
                        chosen = Some(m.clone());
                    }
                }
            },
        );
        if let Some(m) = chosen
            && self.editor.may_leave(ui)
        {
            let class = Some(pb::ClassRef { class_name: m.class_name.clone(), meta: m.meta });
            let op = Op::MethodSource(pb::MethodRef { class, selector: m.selector.clone() });
            self.pending.push((ctx.send("select method", vec![op]), Want::Source(m)));
        }
        if let Some(m) = &self.selected {
            ui.separator();
            if self.editor.ui(ui, ctx, "Source") {
                let class = Some(pb::ClassRef { class_name: m.class_name.clone(), meta: m.meta });
                let sent = self.editor.text.clone();
                let op = Op::CompileMethod(pb::CompileMethod {
                    class,
                    protocol: self.protocol.clone(),
                    source: sent.clone(),
                });
                self.pending.push((ctx.send("accept", vec![op]), Want::Compiled(sent)));
            }
        }
        if !self.message.is_empty() {
            ui.label(&self.message);
        }
    }
}
