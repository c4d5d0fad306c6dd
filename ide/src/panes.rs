//! The panes the IDE shows as tabs, behind one trait ([`View`], in the manner of egui's demo
//! views): each kind of pane is one struct that draws itself, says which replies are its own
//! and takes them. This file has the trait and the small panes: the transcript and a list of
//! methods (senders, implementors) to browse and edit. The system
//! browser, the workspace and the inspector have modules of their own.

use eframe::egui;
use onyx_protocol::agent::{self as pb, event::Event, operation::Op, result::Outcome};

use crate::ctx::Ctx;
use crate::editor::CodeEditor;
use crate::layout::Saved;
use crate::link::{Reply, Ticket};

/// A pane: what it shows, what it asked the gem for, and what it hears.
pub trait View {
    /// Names the kind of pane (the same for every pane of the kind).
    fn name(&self) -> &'static str;

    /// The tab's title.
    fn title(&self) -> String;

    /// Draws the pane's contents. A gesture sends at most one batch (through `ctx`), and
    /// nothing here waits on the network.
    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx);

    /// Whether the reply to `ticket` is this pane's (none, for a pane that asks for nothing).
    fn waits_for(&self, ticket: Ticket) -> bool {
        let _ = ticket;
        false
    }

    /// Takes a reply it waits for.
    fn receive(&mut self, reply: Reply) {
        let _ = reply;
    }

    /// Forgets the replies it waits for (they went by a link that is gone).
    fn forget_pending(&mut self) {}

    /// Takes an event of the gem (every pane hears every event); a pane that shows what the
    /// event changed reads it again (one batch).
    fn hear(&mut self, event: &Event, ctx: &mut Ctx) {
        let _ = (event, ctx);
    }

    /// Reads again what it shows (one batch, or none if it shows nothing that `changed`):
    /// after a commit, an abort, or a doit.
    fn refresh(&mut self, ctx: &mut Ctx, changed: Changed) {
        let _ = (ctx, changed);
    }

    /// What is kept of it across restarts (none for a pane that shows objects of the
    /// session, which end with it).
    fn saved(&self) -> Option<Saved> {
        None
    }

    /// Whether the pane has code with edits not accepted (it then asks to accept or discard
    /// them).
    fn holds_unaccepted_edits(&mut self) -> bool {
        false
    }

    /// A pane that what came back asks to open.
    fn opens(&mut self) -> Option<Pane> {
        None
    }

    /// The handles of the gem's objects it shows (released when it closes, unless another
    /// pane shows them too).
    fn handles(&self) -> Vec<u64> {
        Vec::new()
    }

    /// The agent of the gem the pane is on, when it is not the IDE's own (see `remote.rs`).
    fn gem(&self) -> Option<&str> {
        None
    }
}

/// What a gesture may have changed, for the panes to read again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    /// Objects of the session only (a doit that changed nothing persistent): what
    /// inspectors show.
    Objects,
    /// The repository as the gem sees it: the view moved (a commit, an abort) or persistent
    /// objects changed (code, globals).
    Repository,
}

/// A pane, whatever its kind.
pub type Pane = Box<dyn View>;

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
    text: String,
    pending: Option<Ticket>,
}

impl Transcript {
    /// The transcript, starting with what the gem kept of it.
    pub fn new(ctx: &mut Ctx) -> Transcript {
        let pending = Some(ctx.send("read the transcript", vec![Op::Transcript(pb::Empty {})]));
        Transcript { text: String::new(), pending }
    }
}

impl View for Transcript {
    fn name(&self) -> &'static str {
        "Transcript"
    }

    fn title(&self) -> String {
        "Transcript".into()
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending == Some(ticket)
    }

    fn forget_pending(&mut self) {
        self.pending = None;
    }

    fn saved(&self) -> Option<Saved> {
        Some(Saved::Transcript)
    }

    fn hear(&mut self, event: &Event, _ctx: &mut Ctx) {
        match event {
            Event::Transcript(text) => self.text.push_str(text),
            Event::Stale(_)
            | Event::Sessions(_)
            | Event::Relogged(_)
            | Event::Process(_)
            | Event::Suspended(_)
            | Event::Breakpoints(_)
            | Event::Progress(_) => {}
        }
    }

    fn receive(&mut self, reply: Reply) {
        self.pending = None;
        if let Ok(Outcome::Text(t)) = first(reply) {
            self.text.insert_str(0, &t.text);
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _ctx: &mut Ctx) {
        if ui.button("Clear").clicked() {
            self.text.clear();
        }
        egui::ScrollArea::vertical().stick_to_bottom(true).auto_shrink(false).show(ui, |ui| {
            ui.add(egui::Label::new(egui::RichText::new(&self.text).monospace()).wrap());
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
    editor: CodeEditor,
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
}

impl View for MethodList {
    fn name(&self) -> &'static str {
        "Methods"
    }

    fn title(&self) -> String {
        self.title.clone()
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending.iter().any(|(t, _)| *t == ticket)
    }

    fn forget_pending(&mut self) {
        self.pending.clear();
    }

    fn holds_unaccepted_edits(&mut self) -> bool {
        self.editor.holds_unaccepted_edits()
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
                let class = pb::ClassRef { class_name: entry.class_name.clone(), meta: entry.meta };
                let method = pb::MethodRef { class: Some(class), selector: entry.selector.clone() };
                self.editor.load_method(&s.source, Some(method));
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
                    // As wide as the list, its breakpoints marked at the right.
                    let row = egui::Button::selectable(self.selected.as_ref() == Some(m), (label, egui::Atom::grow()))
                        .truncate()
                        .min_size(egui::vec2(ui.available_width(), 18.0));
                    let row = ui.add(row);
                    let class = Some(pb::ClassRef { class_name: m.class_name.clone(), meta: m.meta });
                    let method = pb::MethodRef { class, selector: m.selector.clone() };
                    ctx.link.breakpoints.mark(ui, &row, &method);
                    if row.clicked() {
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
        if !self.message.is_empty() {
            ui.label(&self.message);
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
    }
}
