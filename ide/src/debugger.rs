//! The debugger: a suspended process of the gem, live. The stack is paged (only the frames in
//! sight are asked for, so a stack overflow's thousands of frames scroll in a list of fixed
//! height); the selected frame's source shows its current step point marked, its variables
//! are each a click from an inspector, and an evaluation runs bound to the frame. Proceed,
//! Restart, Into, Over, Through, Out, Run to here, Return and Terminate are each one batch,
//! answered with what the debugger then shows. Accepting the source is edit and continue; a
//! compile error keeps the edit, at its position, and no gesture moves on over an edit that is
//! neither accepted nor discarded.

use std::collections::{BTreeMap, BTreeSet};

use eframe::egui;
use onyx_protocol::agent::{self as pb, event::Event, operation::Op, result::Outcome};

use crate::ctx::Ctx;
use crate::editor::CodeEditor;
use crate::inspector::{Inspector, short};
use crate::link::{Reply, Ticket};
use crate::panes::{View, first, outcomes};

/// Frames asked for at a time.
const PAGE: u32 = 50;

/// A stack row's height.
const ROW: f32 = 18.0;

/// What a debugger does to its process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gesture {
    Proceed,
    Restart,
    Into,
    Over,
    Through,
    Out,
    RunToHere,
    Return,
    Terminate,
}

impl Gesture {
    /// The buttons, in their order.
    const BUTTONS: [Gesture; 9] = [
        Gesture::Proceed,
        Gesture::Restart,
        Gesture::Into,
        Gesture::Over,
        Gesture::Through,
        Gesture::Out,
        Gesture::RunToHere,
        Gesture::Return,
        Gesture::Terminate,
    ];

    /// The keys, the ones with more modifiers first (a key without Shift matches it pressed
    /// with Shift too).
    const KEYS: [Gesture; 9] = [
        Gesture::Restart,
        Gesture::Terminate,
        Gesture::Proceed,
        Gesture::Return,
        Gesture::Out,
        Gesture::Through,
        Gesture::Into,
        Gesture::RunToHere,
        Gesture::Over,
    ];

    fn label(self) -> &'static str {
        match self {
            Gesture::Proceed => "Proceed (F5)",
            Gesture::Restart => "Restart (Ctrl+Shift+F5)",
            Gesture::Into => "Into (F11)",
            Gesture::Over => "Over (F10)",
            Gesture::Through => "Through (Ctrl+F11)",
            Gesture::Out => "Out (Shift+F11)",
            Gesture::RunToHere => "Run to here (Ctrl+F10)",
            Gesture::Return => "Return (Ctrl+Shift+F10)",
            Gesture::Terminate => "Terminate (Shift+F5)",
        }
    }

    fn key(self) -> (egui::Modifiers, egui::Key) {
        let (none, shift, ctrl) = (egui::Modifiers::NONE, egui::Modifiers::SHIFT, egui::Modifiers::COMMAND);
        let ctrl_shift = egui::Modifiers::COMMAND | egui::Modifiers::SHIFT;
        match self {
            Gesture::Proceed => (none, egui::Key::F5),
            Gesture::Restart => (ctrl_shift, egui::Key::F5),
            Gesture::Into => (none, egui::Key::F11),
            Gesture::Over => (none, egui::Key::F10),
            Gesture::Through => (ctrl, egui::Key::F11),
            Gesture::Out => (shift, egui::Key::F11),
            Gesture::RunToHere => (ctrl, egui::Key::F10),
            Gesture::Return => (ctrl_shift, egui::Key::F10),
            Gesture::Terminate => (shift, egui::Key::F5),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Gesture::Proceed => "proceed",
            Gesture::Restart => "restart",
            Gesture::Into => "step into",
            Gesture::Over => "step over",
            Gesture::Through => "step through",
            Gesture::Out => "step out",
            Gesture::RunToHere => "run to here",
            Gesture::Return => "return",
            Gesture::Terminate => "terminate",
        }
    }
}

/// What a debugger asked the gem for.
enum Want {
    /// What the debugger then shows: a stack page (the whole stack anew when `anew`) and a
    /// frame's detail.
    Show { anew: bool },
    /// A page of the stack, of the stack as it was in this generation.
    Page(u64),
    /// An evaluation in the frame, then the frame again (its variables may have changed).
    Evaluation,
    /// An edited method accepted: the source sent.
    Accept(String),
}

/// A debugger on one suspended process of the gem.
pub struct Debugger {
    process: u64,
    /// error, halt, step, interrupt or suspended.
    kind: String,
    reason: String,
    total: u64,
    /// The frames read so far, by index.
    frames: BTreeMap<u32, pb::FrameEntry>,
    selected: u32,
    detail: Option<pb::FrameDetail>,
    editor: CodeEditor,
    /// Code to evaluate in the frame, and what it answered.
    code: String,
    result: String,
    /// The expression Return returns.
    value: String,
    pending: Vec<(Ticket, Want)>,
    message: String,
    /// Once the process ended: what became of it.
    ended: Option<String>,
    /// Scroll the stack to the selected frame.
    reveal_frame: bool,
    /// A page of the stack failed: no other is asked for until the debugger shows anew.
    paging_failed: bool,
    /// Counts the stacks shown anew: a page of an older one is dropped.
    generation: u64,
    /// Every handle the gem gave the debugger (its frames' variables), released when it
    /// closes.
    held: BTreeSet<u64>,
}

impl Debugger {
    /// A debugger on `process`: its top frames and the top one's detail, in one batch.
    pub fn open(ctx: &mut Ctx, process: u64) -> Debugger {
        let mut debugger = Debugger::unread(process);
        let op = Op::Stack(pb::FrameRef { process, frame: 0 });
        let ticket = ctx.send_page("debug", op, pb::Page { from: 0, size: PAGE });
        debugger.pending.push((ticket, Want::Show { anew: true }));
        debugger
    }

    /// A debugger on `process` that knows nothing of it yet.
    fn unread(process: u64) -> Debugger {
        Debugger {
            process,
            kind: String::new(),
            reason: String::new(),
            total: 0,
            frames: BTreeMap::new(),
            selected: 0,
            detail: None,
            editor: CodeEditor::new("debugger-source"),
            code: "self".into(),
            result: String::new(),
            value: "nil".into(),
            pending: Vec::new(),
            message: String::new(),
            ended: None,
            reveal_frame: true,
            paging_failed: false,
            generation: 0,
            held: BTreeSet::new(),
        }
    }

    /// A debugger on a process as a gesture's answer shows it (a pause), asking nothing.
    pub fn shown(d: pb::Debugged) -> Debugger {
        let mut debugger = Debugger::unread(d.process);
        debugger.take(d, true);
        debugger
    }

    fn frame_ref(&self) -> pb::FrameRef {
        pb::FrameRef { process: self.process, frame: self.selected }
    }

    fn frame_source(&self, source: String) -> pb::FrameSource {
        pb::FrameSource { process: self.process, frame: self.selected, source }
    }

    /// Whether a gesture that lets the process run may go now: one at a time, and never over
    /// an edit neither accepted nor discarded (the editor then asks for one or the other).
    fn may_run(&mut self) -> bool {
        self.ended.is_none() && !self.busy() && !self.editor.holds_unaccepted_edits()
    }

    /// Whether a gesture is under way whose answer moves what the debugger shows (a page of
    /// the stack does not).
    fn busy(&self) -> bool {
        self.pending.iter().any(|(_, w)| !matches!(w, Want::Page(_)))
    }

    fn act(&mut self, ctx: &mut Ctx, gesture: Gesture) {
        if !self.may_run() {
            return;
        }
        let step = |kind: pb::StepKind, offset: u32| {
            Op::Step(pb::Step { process: self.process, frame: self.selected, kind: kind.into(), offset })
        };
        let op = match gesture {
            Gesture::Proceed => Op::Proceed(pb::ProcessRef { process: self.process }),
            Gesture::Terminate => Op::Terminate(pb::ProcessRef { process: self.process }),
            Gesture::Restart => Op::Restart(self.frame_ref()),
            Gesture::Return => Op::ReturnValue(self.frame_source(self.value.clone())),
            Gesture::Into => step(pb::StepKind::StepInto, 0),
            Gesture::Over => step(pb::StepKind::StepOver, 0),
            Gesture::Through => step(pb::StepKind::StepThrough, 0),
            Gesture::Out => step(pb::StepKind::StepOut, 0),
            Gesture::RunToHere => {
                let offset = u32::try_from(self.editor.cursor()).unwrap_or(u32::MAX);
                step(pb::StepKind::StepRunTo, offset)
            }
        };
        self.message.clear();
        self.pending.push((ctx.send(gesture.name(), vec![op]), Want::Show { anew: true }));
    }

    /// Takes what the debugger is to show: a page of frames (all it knew of the stack
    /// dropped when `anew`), and the frame detail that came with it.
    fn take(&mut self, d: pb::Debugged, anew: bool) {
        if let Some(ended) = d.ended {
            self.ended = Some(format!("The process ended: it answered {}", ended.print_string));
            self.frames.clear();
            self.total = 0;
            self.detail = None;
            return;
        }
        if d.kind == "running" {
            self.ended = Some("Proceeded: the process goes on with its work in the background.".into());
            self.frames.clear();
            self.total = 0;
            self.detail = None;
            return;
        }
        self.kind = d.kind;
        self.reason = d.reason;
        self.total = d.total;
        if anew {
            self.frames.clear();
            self.generation += 1;
        }
        self.frames.extend(d.frames.into_iter().map(|f| (f.index, f)));
        self.paging_failed = false;
        let Some(frame) = d.frame else { return };
        self.held.extend(frame.variables.iter().map(|v| v.handle).filter(|h| *h != 0));
        self.reveal_frame |= self.selected != frame.index || anew;
        self.selected = frame.index;
        let same_source = self.detail.as_ref().is_some_and(|old| old.source == frame.source);
        if !self.editor.is_dirty() {
            self.editor.load_method(&frame.source, frame.method.clone());
            let (start, end) = (frame.start as usize, frame.end as usize);
            self.editor.mark_current((start < end).then_some((start, end)));
        } else if !same_source {
            self.message = "The debugger moved to other code; your edit is kept: accept or discard it.".into();
        }
        self.detail = Some(frame);
    }
}

impl View for Debugger {
    fn name(&self) -> &'static str {
        "Debugger"
    }

    fn title(&self) -> String {
        let reason: String = self.reason.chars().take(40).collect();
        match (&self.ended, reason.is_empty()) {
            (Some(_), _) => format!("Debugger: process {} (ended)", self.process),
            (None, true) => format!("Debugger: process {}", self.process),
            (None, false) => format!("Debugger: {reason}"),
        }
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

    /// The variables' objects of every frame shown (released in the gem when the debugger
    /// closes).
    fn handles(&self) -> Vec<u64> {
        self.held.iter().copied().collect()
    }

    fn hear(&mut self, event: &Event, _ctx: &mut Ctx) {
        if let Event::Process(p) = event
            && p.process == self.process
            && p.change == "terminated"
            && !self.busy()
            && self.ended.is_none()
        {
            self.ended = Some("The process was terminated.".into());
        }
    }

    fn receive(&mut self, reply: Reply) {
        let Some(at) = self.pending.iter().position(|(t, _)| *t == reply.ticket) else { return };
        let (_, want) = self.pending.remove(at);
        match want {
            Want::Show { anew } => match first(reply) {
                Ok(Outcome::Debugged(d)) => self.take(d, anew),
                Ok(other) => self.message = format!("an unexpected answer: {other:?}"),
                Err(e) => self.message = e.message,
            },
            Want::Page(generation) if generation != self.generation => {}
            Want::Page(_) => match first(reply) {
                Ok(Outcome::Debugged(d)) => {
                    self.total = d.total;
                    self.frames.extend(d.frames.into_iter().map(|f| (f.index, f)));
                }
                Ok(_) => self.paging_failed = true,
                Err(e) => {
                    self.paging_failed = true;
                    self.message = e.message;
                }
            },
            Want::Evaluation => match outcomes(reply) {
                Ok(answered) => {
                    let mut answered = answered.into_iter();
                    self.result = match answered.next() {
                        Some(Outcome::Evaluated(e)) => e.print_string,
                        Some(Outcome::Error(e)) if e.process != 0 => {
                            format!("{} (its process is kept as {})", e.message, e.process)
                        }
                        Some(Outcome::Error(e)) => e.message,
                        other => format!("an unexpected answer: {other:?}"),
                    };
                    if let Some(Outcome::Debugged(d)) = answered.next() {
                        self.take(d, false);
                    }
                }
                Err(e) => self.result = e.message,
            },
            Want::Accept(sent) => match first(reply) {
                Ok(Outcome::Debugged(d)) => {
                    self.editor.accepted(&sent);
                    self.message = "accepted: the frame restarted in the new method".into();
                    self.take(d, true);
                }
                Ok(other) => self.message = format!("an unexpected answer: {other:?}"),
                Err(e) => self.editor.show_error(&e),
            },
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        // What the source shows may move while a gesture runs: no edit meanwhile.
        self.editor.locked = self.busy();
        if let Some(ended) = &self.ended {
            ui.strong(ended);
        } else if !self.kind.is_empty() {
            ui.colored_label(ui.visuals().error_fg_color, format!("{}: {}", self.kind, self.reason));
        }
        let mut gesture = None;
        let live = self.ended.is_none() && !self.busy();
        ui.horizontal_wrapped(|ui| {
            for g in Gesture::BUTTONS {
                if ui.add_enabled(live, egui::Button::new(g.label())).clicked() {
                    gesture = Some(g);
                }
                if g == Gesture::Return {
                    let label = ui.label("value");
                    ui.add(egui::TextEdit::singleline(&mut self.value).desired_width(80.0).code_editor())
                        .labelled_by(label.id);
                }
            }
            if self.busy() {
                ui.spinner();
            }
            let running = self.pending.iter().any(|(_, w)| matches!(w, Want::Show { anew: true } | Want::Accept(_)));
            if running && ui.button("Interrupt").clicked() {
                // The gesture under way answers where the process then stands.
                let op = Op::Interrupt(pb::Interrupt { tag: 0, process: self.process });
                ctx.send("interrupt", vec![op]);
            }
        });
        if live {
            ui.input_mut(|i| {
                for g in Gesture::KEYS {
                    let (modifiers, key) = g.key();
                    if gesture.is_none() && i.consume_key(modifiers, key) {
                        gesture = Some(g);
                    }
                }
            });
        }
        if let Some(g) = gesture {
            self.act(ctx, g);
        }
        if !self.message.is_empty() {
            ui.label(&self.message);
        }
        self.stack(ui, ctx);
        ui.separator();
        let height = ui.available_height() * 0.6;
        let accepted =
            ui.allocate_ui(egui::vec2(ui.available_width(), height), |ui| self.editor.ui(ui, ctx, "Source")).inner;
        if accepted && self.ended.is_none() && !self.busy() {
            let sent = self.editor.text.clone();
            let op = Op::Accept(self.frame_source(sent.clone()));
            self.pending.push((ctx.send("accept and continue", vec![op]), Want::Accept(sent)));
        }
        ui.separator();
        ui.columns(2, |columns| {
            self.variables(&mut columns[0], ctx);
            self.evaluation(&mut columns[1], ctx);
        });
    }
}

impl Debugger {
    /// The stack: a list of fixed height, whose frames are asked for a page at a time as they
    /// come in sight.
    fn stack(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        ui.label(format!("Stack ({} frames)", self.total));
        let rows = usize::try_from(self.total).unwrap_or(usize::MAX);
        let mut area = egui::ScrollArea::vertical()
            .id_salt("debugger-stack")
            .max_height(ui.available_height() * 0.25)
            .auto_shrink([false, true]);
        if std::mem::take(&mut self.reveal_frame) {
            let spaced = ROW + ui.spacing().item_spacing.y;
            area = area.vertical_scroll_offset((self.selected.saturating_sub(2)) as f32 * spaced);
        }
        let (mut chosen, mut missing) = (None, None);
        area.show_rows(ui, ROW, rows, |ui, range| {
            for i in range {
                let index = u32::try_from(i).unwrap_or(u32::MAX);
                match self.frames.get(&index) {
                    Some(f) => {
                        let label = format!("{}  (line {})", f.label, f.line);
                        if ui.selectable_label(index == self.selected, label).clicked() {
                            chosen = Some(index);
                        }
                    }
                    None => {
                        missing.get_or_insert(index);
                        ui.label("...");
                    }
                }
            }
        });
        // One page at a time, and none while a gesture runs (its answer brings the stack).
        let paging = self.pending.iter().any(|(_, w)| matches!(w, Want::Page(_)));
        let may_page = !self.busy() && !paging && !self.paging_failed && self.ended.is_none();
        if let Some(index) = missing.filter(|_| may_page) {
            let from = index / PAGE * PAGE;
            let op = Op::Stack(self.frame_ref());
            let ticket = ctx.send_page("more frames", op, pb::Page { from: u64::from(from), size: PAGE });
            self.pending.push((ticket, Want::Page(self.generation)));
        }
        if let Some(index) = chosen
            && index != self.selected
            && self.ended.is_none()
            && !self.busy()
            && !self.editor.holds_unaccepted_edits()
        {
            let op = Op::Frame(pb::FrameRef { process: self.process, frame: index });
            self.pending.push((ctx.send("select frame", vec![op]), Want::Show { anew: false }));
        }
    }

    /// The frame's receiver, arguments and temporaries: each a click from an inspector.
    fn variables(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        ui.label("Variables");
        let Some(detail) = &self.detail else { return };
        let mut inspect = None;
        egui::ScrollArea::vertical().id_salt("debugger-variables").show(ui, |ui| {
            egui::Grid::new("debugger-variables-grid").striped(true).show(ui, |ui| {
                for v in &detail.variables {
                    if v.handle != 0 {
                        if ui.link(&v.name).on_hover_text("inspect").clicked() {
                            inspect = Some((v.handle, v.print_string.clone()));
                        }
                    } else {
                        ui.label(&v.name);
                    }
                    ui.label(egui::RichText::new(short(&v.print_string)).monospace());
                    ui.end_row();
                }
            });
        });
        if let Some((handle, printed)) = inspect {
            let pane = Inspector::new(ctx, handle, printed);
            ctx.opened.push(Box::new(pane));
        }
    }

    /// An evaluation bound to the frame: what it assigns, the frame sees when it goes on.
    fn evaluation(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        let label = ui.label("Evaluate in this frame");
        ui.add(egui::TextEdit::multiline(&mut self.code).code_editor().desired_rows(2).desired_width(f32::INFINITY))
            .labelled_by(label.id);
        let live = self.ended.is_none() && !self.busy();
        if ui.add_enabled(live, egui::Button::new("Print it in the frame")).clicked() {
            let ops = vec![Op::EvaluateInFrame(self.frame_source(self.code.clone())), Op::Frame(self.frame_ref())];
            self.pending.push((ctx.send("evaluate in the frame", ops), Want::Evaluation));
        }
        if !self.result.is_empty() {
            ui.label(egui::RichText::new(&self.result).monospace());
        }
    }
}

/// A stopped process as it first shows, in a workspace or over the IDE: what stopped it, its
/// top frames, and Debug, Proceed and Abandon.
pub struct Notifier {
    /// The process.
    pub process: u64,
    message: String,
    frames: Vec<String>,
    pending: Option<(Ticket, Asked)>,
    /// Set once it is done with (debugged, proceeded, abandoned): what to say of it.
    pub done: Option<String>,
}

/// What a notifier asked the gem for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Asked {
    Stack,
    Proceed,
    Abandon,
}

/// How many frames a notifier shows.
const NOTIFIER_FRAMES: usize = 5;

impl Notifier {
    /// The notifier of an evaluation's error, if the gem kept its process.
    pub fn of_error(error: &pb::Error) -> Option<Notifier> {
        (error.process != 0).then(|| Notifier {
            process: error.process,
            message: error.message.clone(),
            frames: error.stack.iter().take(NOTIFIER_FRAMES).cloned().collect(),
            pending: None,
            done: None,
        })
    }

    /// The notifier of a process that stopped where no tool looked: what stopped it comes
    /// with its top frames, in one batch.
    pub fn of_process(ctx: &mut Ctx, process: u64) -> Notifier {
        let op = Op::Stack(pb::FrameRef { process, frame: 0 });
        let page = pb::Page { from: 0, size: u32::try_from(NOTIFIER_FRAMES).unwrap_or(5) };
        let pending = Some((ctx.send_page("a process stopped", op, page), Asked::Stack));
        Notifier { process, message: format!("process {process} stopped"), frames: Vec::new(), pending, done: None }
    }

    /// Whether the reply to `ticket` is the notifier's.
    pub fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending.is_some_and(|(t, _)| t == ticket)
    }

    /// Forgets its reply (it went by a link that is gone).
    pub fn forget_pending(&mut self) {
        self.pending = None;
    }

    /// Takes its reply: the process's stack, or what became of it after Proceed or Abandon.
    pub fn receive(&mut self, reply: Reply) {
        let Some((_, asked)) = self.pending.take() else { return };
        match first(reply) {
            Ok(Outcome::Debugged(_)) if asked == Asked::Abandon => self.done = Some("abandoned".into()),
            Ok(Outcome::Debugged(d)) => match d.ended {
                Some(e) => self.done = Some(format!("proceeded: it answered {}", e.print_string)),
                None => {
                    self.message = format!("{}: {}", d.kind, d.reason);
                    self.frames = d.frames.iter().take(NOTIFIER_FRAMES).map(|f| f.label.clone()).collect();
                }
            },
            Ok(_) => {}
            Err(e) if e.code == i32::from(pb::Code::NotFound) => self.done = Some(e.message),
            Err(e) => self.message = e.message,
        }
    }

    /// Draws it; Debug opens a debugger on the process (as a pane to open).
    pub fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.colored_label(ui.visuals().error_fg_color, &self.message);
            for frame in &self.frames {
                ui.monospace(frame);
            }
            ui.horizontal(|ui| {
                let free = self.pending.is_none();
                if ui.add_enabled(free, egui::Button::new("Debug")).clicked() {
                    let debugger = Debugger::open(ctx, self.process);
                    ctx.opened.push(Box::new(debugger));
                    self.done = Some(String::new());
                }
                if ui.add_enabled(free, egui::Button::new("Proceed")).clicked() {
                    let op = Op::Proceed(pb::ProcessRef { process: self.process });
                    self.pending = Some((ctx.send("proceed", vec![op]), Asked::Proceed));
                }
                if ui.add_enabled(free, egui::Button::new("Abandon")).clicked() {
                    let op = Op::Terminate(pb::ProcessRef { process: self.process });
                    self.pending = Some((ctx.send("abandon", vec![op]), Asked::Abandon));
                }
                if !free {
                    ui.spinner();
                }
            });
        });
    }
}
