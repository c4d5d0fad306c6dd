//! The inspector: an object's class and printString, its named fields and its indexed fields a
//! page (of 100) at a time with a jump to any index; a double-click drills into a field, and
//! a breadcrumb leads back; an evaluation pane runs code with `self` bound to the object.

use eframe::egui;
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::ctx::Ctx;
use crate::link::{Reply, Ticket};
use crate::panes::{Changed, View, first, outcomes};

/// Indexed fields per page.
const PAGE: u32 = 100;

enum Want {
    /// An inspection of `handle`, and where it leads once it has come (from index `from`).
    Inspection { handle: u64, to: Move, from: u64 },
    /// An evaluation with `self` bound, and its tag (for Interrupt); the object's inspection
    /// (from index `from`) comes after it, as the evaluation left it.
    Evaluation { tag: u64, handle: u64, from: u64 },
}

/// Where an inspection leads: the breadcrumb changes only once it has come.
enum Move {
    /// Another page of the object shown.
    Stay,
    /// Into a field: its handle and short name.
    Into(u64, String),
    /// Back to the object at this place in the breadcrumb.
    Back(usize),
}

pub struct Inspector {
    /// The objects drilled through, the one shown last: handle and a short name.
    trail: Vec<(u64, String)>,
    inspection: Option<pb::Inspection>,
    from: u64,
    jump: String,
    code: String,
    result: String,
    pending: Vec<(Ticket, Want)>,
    message: String,
    /// A handle on the rest of a printString too long for one reply, to release.
    rest: Option<u64>,
}

impl Inspector {
    /// An inspector on the object behind `handle` (0: a value shown whole by `printed`).
    pub fn new(ctx: &mut Ctx, handle: u64, printed: String) -> Inspector {
        let mut inspector = Inspector::blank(handle, short(&printed));
        if handle == 0 {
            inspector.message = printed;
        } else {
            inspector.ask(ctx, "inspect", handle, 1, Move::Stay);
        }
        inspector
    }

    /// An inspector on an inspection already made (Inspect it answers one).
    pub fn of(inspection: pb::Inspection) -> Inspector {
        let mut inspector = Inspector::blank(inspection.handle, short(&inspection.print_string));
        inspector.inspection = Some(inspection);
        inspector
    }

    /// An inspector on a value that is no object: its printString is all there is.
    pub fn printed(printed: String) -> Inspector {
        let mut inspector = Inspector::blank(0, short(&printed));
        inspector.message = printed;
        inspector
    }

    fn blank(handle: u64, name: String) -> Inspector {
        Inspector {
            trail: vec![(handle, name)],
            inspection: None,
            from: 1,
            jump: String::new(),
            code: "self".into(),
            result: String::new(),
            pending: Vec::new(),
            message: String::new(),
            rest: None,
        }
    }

    fn handle(&self) -> u64 {
        self.trail.last().map_or(0, |(h, _)| *h)
    }

    /// Asks for the object behind `handle` from index `from`, leading to `to` once it comes.
    fn ask(&mut self, ctx: &mut Ctx, gesture: &'static str, handle: u64, from: u64, to: Move) {
        let op = Op::Inspect(pb::Inspect { handle, from, page_size: PAGE });
        self.pending.push((ctx.send(gesture, vec![op]), Want::Inspection { handle, to, from }));
    }
}

/// "a Point", "an Array".
fn with_article(class_name: &str) -> String {
    let vowel = class_name.starts_with(['A', 'E', 'I', 'O', 'U']);
    format!("{} {class_name}", if vowel { "an" } else { "a" })
}

/// A printString cut to one short line.
pub(crate) fn short(printed: &str) -> String {
    let line = printed.lines().next().unwrap_or_default();
    if line.chars().count() > 60 || printed.contains('\n') {
        line.chars().take(60).chain("...".chars()).collect()
    } else {
        line.to_string()
    }
}

impl Inspector {
    /// An evaluation's printString (or its error), then the object as it left it.
    fn evaluated(&mut self, reply: Reply, handle: u64, from: u64) {
        let mut answered = match outcomes(reply) {
            Ok(answered) => answered.into_iter(),
            Err(e) => {
                self.result = e.message;
                return;
            }
        };
        match answered.next() {
            Some(Outcome::Evaluated(e)) => {
                self.result = e.print_string;
                if e.rest != 0 {
                    // The pane shows a long printString's start only.
                    self.rest = Some(e.rest);
                    self.result.push_str(&format!("... ({} characters in all)", e.print_size));
                }
            }
            Some(Outcome::Error(e)) => {
                self.result = [e.message].into_iter().chain(e.stack).collect::<Vec<_>>().join("\n")
            }
            other => self.result = format!("an unexpected answer: {other:?}"),
        }
        if let Some(Outcome::Inspection(i)) = answered.next()
            && handle == self.handle()
            && from == self.from
        {
            self.inspection = Some(i);
        }
    }
}

impl View for Inspector {
    fn name(&self) -> &'static str {
        "Inspector"
    }

    /// The handles it holds: the objects on its breadcrumb, the fields shown, and a field
    /// being drilled into (released in the gem when it closes).
    fn handles(&self) -> Vec<u64> {
        let trail = self.trail.iter().map(|(h, _)| *h);
        let fields = self.inspection.iter().flat_map(|i| i.named.iter().chain(&i.indexed)).map(|f| f.handle);
        let drilling = self.pending.iter().filter_map(|(_, w)| match w {
            Want::Inspection { to: Move::Into(h, _), .. } => Some(*h),
            _ => None,
        });
        trail.chain(fields).chain(drilling).filter(|h| *h != 0).collect()
    }

    fn title(&self) -> String {
        match &self.inspection {
            Some(i) => format!("Inspector: {}", short(&i.print_string)),
            None => "Inspector".into(),
        }
    }

    /// The object's fields again, unless they are being read already.
    fn refresh(&mut self, ctx: &mut Ctx, _changed: Changed) {
        let reading = self.pending.iter().any(|(_, w)| matches!(w, Want::Inspection { to: Move::Stay, .. }));
        if self.handle() != 0 && !reading {
            self.ask(ctx, "refresh an inspector", self.handle(), self.from, Move::Stay);
        }
    }

    fn forget_pending(&mut self) {
        self.pending.clear();
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending.iter().any(|(t, _)| *t == ticket)
    }

    fn receive(&mut self, reply: Reply) {
        let Some(at) = self.pending.iter().position(|(t, _)| *t == reply.ticket) else { return };
        let (_, want) = self.pending.remove(at);
        if let Want::Evaluation { handle, from, .. } = want {
            self.evaluated(reply, handle, from);
            return;
        }
        match (want, first(reply)) {
            // A page of an object no longer shown (drilled out of since) is dropped.
            (Want::Inspection { handle, to: Move::Stay, .. }, Ok(_)) if handle != self.handle() => {}
            (Want::Inspection { to, from, .. }, Ok(Outcome::Inspection(i))) => {
                match to {
                    Move::Stay => {}
                    Move::Into(handle, name) => self.trail.push((handle, name)),
                    Move::Back(at) => self.trail.truncate(at + 1),
                }
                self.from = from;
                if let Some(last) = self.trail.last_mut() {
                    last.1 = short(&i.print_string);
                }
                self.message.clear();
                self.inspection = Some(i);
            }
            // Taken above.
            (Want::Evaluation { .. }, _) => {}
            (_, Err(e)) => self.message = e.message,
            (_, Ok(other)) => self.message = format!("an unexpected answer: {other:?}"),
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        if let Some(rest) = self.rest.take() {
            ctx.send("release a printString", vec![Op::Release(pb::Handles { handles: vec![rest] })]);
        }
        let mut back_to = None;
        ui.horizontal_wrapped(|ui| {
            for (i, (_, name)) in self.trail.iter().enumerate() {
                if i > 0 {
                    ui.label(">");
                }
                if ui.link(name).clicked() && i + 1 < self.trail.len() {
                    back_to = Some(i);
                }
            }
        });
        if let Some(i) = back_to
            && let Some(&(handle, _)) = self.trail.get(i)
        {
            self.ask(ctx, "back", handle, 1, Move::Back(i));
        }
        if !self.message.is_empty() {
            ui.label(&self.message);
        }
        let Some(inspection) = &self.inspection else {
            if !self.pending.is_empty() {
                ui.spinner();
            }
            return;
        };
        ui.strong(with_article(&inspection.class_name));
        ui.label(egui::RichText::new(&inspection.print_string).monospace());
        let mut drill = None;
        let mut page = None;
        egui::ScrollArea::vertical().id_salt("fields").max_height(ui.available_height() * 0.6).show(ui, |ui| {
            egui::Grid::new("named").striped(true).show(ui, |ui| {
                for field in inspection.named.iter().chain(&inspection.indexed) {
                    ui.label(&field.name);
                    // Not selectable: a double-click drills in rather than selecting a word.
                    let value = egui::Label::new(short(&field.print_string)).selectable(false);
                    let value = ui.add(value.sense(egui::Sense::click()));
                    let into = field.handle != 0 && ui.small_button(format!("> {}", field.name)).clicked();
                    if into || (field.handle != 0 && value.double_clicked()) {
                        drill = Some((field.handle, field.print_string.clone()));
                    }
                    ui.end_row();
                }
            });
        });
        if inspection.indexed_size > 0 {
            ui.horizontal(|ui| {
                let shown_to = self.from + inspection.indexed.len() as u64 - 1;
                ui.label(format!("{}-{} of {}", self.from, shown_to, inspection.indexed_size));
                if ui.add_enabled(self.from > 1, egui::Button::new("< Previous")).clicked() {
                    page = Some(self.from.saturating_sub(u64::from(PAGE)).max(1));
                }
                if ui.add_enabled(inspection.next != 0, egui::Button::new("Next >")).clicked() {
                    page = Some(inspection.next);
                }
                let label = ui.label("Index");
                ui.add(egui::TextEdit::singleline(&mut self.jump).desired_width(60.0)).labelled_by(label.id);
                if ui.button("Go").clicked()
                    && let Ok(index) = self.jump.trim().parse::<u64>()
                {
                    page = Some(index.clamp(1, inspection.indexed_size));
                }
            });
        }
        if let Some((handle, printed)) = drill {
            self.ask(ctx, "drill in", handle, 1, Move::Into(handle, short(&printed)));
        }
        if let Some(from) = page {
            self.ask(ctx, "page", self.handle(), from, Move::Stay);
        }
        ui.separator();
        let label = ui.label("Evaluate with self bound to this object");
        ui.add(egui::TextEdit::multiline(&mut self.code).code_editor().desired_rows(2).desired_width(f32::INFINITY))
            .labelled_by(label.id);
        let running = self.pending.iter().find_map(|(_, w)| match w {
            Want::Evaluation { tag, .. } => Some(*tag),
            _ => None,
        });
        ui.horizontal(|ui| {
            if ui.add_enabled(running.is_none(), egui::Button::new("Print it")).clicked() {
                let tag = crate::workspace::next_tag();
                let (handle, from) = (self.handle(), self.from);
                let op = Op::Evaluate(pb::Evaluate {
                    source: self.code.clone(),
                    receiver: handle,
                    forget: true,
                    tag,
                    ..Default::default()
                });
                // The fields as the evaluation leaves them, in the same round trip.
                let inspect = Op::Inspect(pb::Inspect { handle, from, page_size: PAGE });
                let ticket = ctx.send_changing("print it", vec![op, inspect]);
                self.pending.push((ticket, Want::Evaluation { tag, handle, from }));
            }
            if let Some(tag) = running {
                ui.spinner();
                if ui.button("Interrupt").clicked() {
                    ctx.send("interrupt", vec![Op::Interrupt(pb::Interrupt { tag, process: 0 })]);
                }
            }
        });
        if !self.result.is_empty() {
            ui.label(egui::RichText::new(&self.result).monospace());
        }
    }
}
