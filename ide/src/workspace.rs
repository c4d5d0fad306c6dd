//! The workspace: Smalltalk to evaluate. Do it (Ctrl+D), Print it (Ctrl+P: the result goes in
//! after the selection, selected), Inspect it (Ctrl+I: an inspector opens on the result). The
//! selection is evaluated, or the line the cursor is on. A running evaluation shows as busy
//! and can be interrupted. An error whose process the gem keeps opens a notifier (its message,
//! the top frames, Debug / Proceed / Abandon); any other shows its message.

use eframe::egui::{self, text::CCursor, text::CCursorRange};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::ctx::Ctx;
use crate::debugger::{Debugger, Notifier};
use crate::editor::{Marks, code_edit};
use crate::inspector::Inspector;
use crate::layout::Saved;
use crate::link::{Reply, Ticket};
use crate::panes::{Pane, View, first};

/// Tags name evaluations across workspaces and inspectors (0 is no tag).
static NEXT_TAG: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A new tag for an evaluation, so that Interrupt can stop it alone.
pub fn next_tag() -> u64 {
    NEXT_TAG.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Do,
    Print,
    Inspect,
    /// Do it, and open a debugger at once if it stops (no notifier first).
    Debug,
}

pub struct Workspace {
    text: String,
    /// The evaluation under way: what it was for, and where a printed result goes (a
    /// character index).
    pending: Option<(Ticket, Action, usize)>,
    interrupting: Option<Ticket>,
    /// The gem's name for the evaluation under way: Interrupt stops it alone.
    tag: u64,
    /// The text when the evaluation under way was sent: a printed result goes in only if the
    /// text is still the same.
    sent_with: String,
    /// A printed result that could not go in.
    note: String,
    error: Option<pb::Error>,
    /// The notifier of an evaluation that stopped, its process kept to debug.
    notifier: Option<Notifier>,
    /// A debugger to open (an evaluation begun by Debug stopped).
    debugger: Option<u64>,
    /// Characters to select next frame (a printed result).
    select: Option<(usize, usize)>,
    /// The selection the last frame had (character indices).
    selection: Option<(usize, usize)>,
    /// An inspector to open on a result.
    inspect: Option<Inspector>,
    /// What to do with the whole text when first drawn.
    at_start: Option<Action>,
    /// A handle on the rest of a printString too long for one reply, to release.
    rest: Option<u64>,
}

impl Default for Workspace {
    fn default() -> Workspace {
        Workspace {
            text: "3 + 4\n(1 to: 10) inject: 0 into: [:a :b | a + b]\nUserGlobals\n".into(),
            pending: None,
            interrupting: None,
            tag: 0,
            sent_with: String::new(),
            note: String::new(),
            error: None,
            notifier: None,
            debugger: None,
            select: None,
            selection: None,
            inspect: None,
            at_start: None,
            rest: None,
        }
    }
}

impl Workspace {
    /// A workspace holding `text` (one kept from before, or closed and opened again).
    pub fn with_text(text: String) -> Workspace {
        Workspace { text, ..Workspace::default() }
    }

    /// A workspace holding `code`, which it evaluates whole (`action`) when first drawn.
    pub fn running(code: String, action: Action) -> Workspace {
        Workspace { text: code, at_start: Some(action), ..Workspace::default() }
    }

    /// The code to evaluate: the selection, or else the line the cursor is on; and the
    /// character index it ends at.
    fn code(&self) -> (String, usize) {
        let (from, to) = self.selection.unwrap_or((0, 0));
        if from != to {
            let code: String = self.text.chars().skip(from).take(to - from).collect();
            return (code, to);
        }
        let chars: Vec<char> = self.text.chars().collect();
        let at = from.min(chars.len());
        let start = chars[..at].iter().rposition(|&c| c == '\n').map_or(0, |i| i + 1);
        let end = chars[at..].iter().position(|&c| c == '\n').map_or(chars.len(), |i| at + i);
        (chars[start..end].iter().collect(), end)
    }

    fn evaluate(&mut self, ctx: &mut Ctx, action: Action) {
        if self.pending.is_some() {
            return;
        }
        let (source, end) = self.code();
        let name = match action {
            Action::Do | Action::Debug => "do it",
            Action::Print => "print it",
            Action::Inspect => "inspect it",
        };
        // Only Inspect it keeps the value in the gem (for the inspector).
        let inspect = action == Action::Inspect;
        let tag = next_tag();
        let op = Op::Evaluate(pb::Evaluate { source, inspect, forget: !inspect, tag, ..Default::default() });
        self.pending = Some((ctx.send_changing(name, vec![op]), action, end));
        self.tag = tag;
        self.sent_with = self.text.clone();
    }

    /// Puts an evaluation's printString where `action` says.
    fn show(&mut self, action: Action, at: usize, e: pb::Evaluated) {
        match action {
            Action::Do | Action::Debug => {}
            Action::Print if self.text != self.sent_with => {
                self.note = format!("printed (not inserted: the text changed meanwhile): {}", e.print_string);
            }
            Action::Print => {
                let at = at.min(self.text.chars().count());
                let byte = self.text.char_indices().nth(at).map_or(self.text.len(), |(i, _)| i);
                let inserted = format!(" {}", e.print_string);
                self.text.insert_str(byte, &inserted);
                self.select = Some((at, at + inserted.chars().count()));
            }
            // A value that is no object (nil, a SmallInteger, ...) is its printString.
            Action::Inspect => self.inspect = Some(Inspector::printed(e.print_string)),
        }
    }
}

impl View for Workspace {
    fn name(&self) -> &'static str {
        "Workspace"
    }

    fn title(&self) -> String {
        "Workspace".into()
    }

    fn saved(&self) -> Option<Saved> {
        Some(Saved::Workspace { text: self.text.clone() })
    }

    fn opens(&mut self) -> Option<Pane> {
        self.inspect.take().map(|i| Box::new(i) as Pane)
    }

    fn forget_pending(&mut self) {
        self.pending = None;
        self.interrupting = None;
        if let Some(n) = &mut self.notifier {
            n.forget_pending();
        }
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending.is_some_and(|(t, ..)| t == ticket)
            || self.interrupting == Some(ticket)
            || self.notifier.as_ref().is_some_and(|n| n.waits_for(ticket))
    }

    fn receive(&mut self, reply: Reply) {
        if self.interrupting == Some(reply.ticket) {
            self.interrupting = None;
            return;
        }
        if let Some(notifier) = self.notifier.as_mut().filter(|n| n.waits_for(reply.ticket)) {
            notifier.receive(reply);
            return;
        }
        let Some((_, action, at)) = self.pending.take() else { return };
        self.error = None;
        self.notifier = None;
        self.note.clear();
        match first(reply) {
            Ok(Outcome::Evaluated(mut e)) => {
                if e.rest != 0 {
                    // The workspace shows a long printString's start only.
                    self.rest = Some(e.rest);
                    e.print_string.push_str(&format!("... ({} characters in all)", e.print_size));
                }
                self.show(action, at, e);
            }
            Ok(Outcome::Inspection(i)) => self.inspect = Some(Inspector::of(i)),
            Ok(other) => self.error = Some(pb::Error { message: format!("{other:?}"), ..Default::default() }),
            Err(e) if e.process != 0 && action == Action::Debug => self.debugger = Some(e.process),
            Err(e) => match Notifier::of_error(&e) {
                Some(notifier) => self.notifier = Some(notifier),
                None => self.error = Some(e),
            },
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        if let Some(rest) = self.rest.take() {
            ctx.send("release a printString", vec![Op::Release(pb::Handles { handles: vec![rest] })]);
        }
        if let Some(action) = self.at_start.take() {
            self.selection = Some((0, self.text.chars().count()));
            self.evaluate(ctx, action);
        }
        let mut action = None;
        let busy = self.pending.is_some();
        ui.horizontal(|ui| {
            for (label, a) in [
                ("Do it (Ctrl+D)", Action::Do),
                ("Print it (Ctrl+P)", Action::Print),
                ("Inspect it (Ctrl+I)", Action::Inspect),
            ] {
                if ui.add_enabled(!busy, egui::Button::new(label)).clicked() {
                    action = Some(a);
                }
            }
            if busy {
                ui.spinner();
                ui.label("evaluating...");
                if ui.button("Interrupt").clicked() {
                    let op = Op::Interrupt(pb::Interrupt { tag: self.tag, process: 0 });
                    self.interrupting = Some(ctx.send("interrupt", vec![op]));
                }
            }
        });
        if !self.note.is_empty() {
            ui.label(&self.note);
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, &error.message);
            for frame in &error.stack {
                ui.monospace(frame);
            }
        }
        if let Some(process) = self.debugger.take() {
            let debugger = Debugger::open(ctx, process);
            ctx.opened.push(Box::new(debugger));
        }
        if let Some(notifier) = &mut self.notifier {
            notifier.ui(ui, ctx);
            if let Some(done) = notifier.done.take() {
                self.note = done;
                self.notifier = None;
            }
        }
        let name = ui.label("Code");
        let (id, output, _) = code_edit(ui, ctx, &mut self.text, "workspace-code", Marks::default(), None);
        let response = output.response.response.labelled_by(name.id);
        if let Some(range) = output.cursor_range {
            let (a, b) = (range.primary.index, range.secondary.index);
            let (a, b) = (usize::from(a), usize::from(b));
            self.selection = Some((a.min(b), a.max(b)));
        }
        if response.has_focus() {
            ui.input_mut(|i| {
                for (key, a) in
                    [(egui::Key::D, Action::Do), (egui::Key::P, Action::Print), (egui::Key::I, Action::Inspect)]
                {
                    if i.consume_key(egui::Modifiers::COMMAND, key) {
                        action = Some(a);
                    }
                }
            });
        }
        if let Some((from, to)) = self.select.take() {
            let mut state = output.state;
            state.cursor.set_char_range(Some(CCursorRange::two(CCursor::new(from), CCursor::new(to))));
            state.store(ui.ctx(), id);
            self.selection = Some((from, to));
        }
        if let Some(a) = action {
            self.evaluate(ctx, a);
        }
    }
}
