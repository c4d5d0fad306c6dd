//! The process browser: the gem's processes (running, ready, waiting, suspended, with why a
//! suspended one stopped), each a click from a debugger, and Terminate, or Pause for one that
//! runs (a debugger opens on it once it stopped); and the stone's
//! object log, the post-mortem reports of processes of any gem that failed where no tool
//! looked, each opened on its frames and variables. It reads both anew when the gem says a
//! process changed, so it stays current without a Refresh.

use eframe::egui;
use onyx_protocol::agent::{self as pb, event::Event, operation::Op, result::Outcome};

use crate::ctx::Ctx;
use crate::debugger::Debugger;
use crate::inspector::Inspector;
use crate::layout::Saved;
use crate::link::{Reply, Ticket};
use crate::panes::{View, first, outcomes};

/// What the process browser asked for.
enum Want {
    /// The processes and the newest entries of the object log.
    List,
    /// More entries of the object log.
    More,
    /// An entry of the object log, whole.
    Entry,
    Terminate,
    Pause,
}

/// The gem's processes, and the object log.
pub struct Processes {
    list: Vec<pb::ProcessEntry>,
    log: Vec<pb::LoggedFailure>,
    /// Where the next part of the log starts (0: none is left).
    log_next: u64,
    log_total: u64,
    /// The entry opened.
    entry: Option<pb::LoggedFailure>,
    pending: Vec<(Ticket, Want)>,
    /// A process changed since the list was read.
    stale: bool,
    message: String,
    /// A debugger on a process paused, to open.
    paused: Option<Debugger>,
}

impl Processes {
    /// The browser, with the list as the gem answers it.
    pub fn new(ctx: &mut Ctx) -> Processes {
        let mut processes = Processes {
            list: Vec::new(),
            log: Vec::new(),
            log_next: 0,
            log_total: 0,
            entry: None,
            pending: Vec::new(),
            stale: false,
            message: String::new(),
            paused: None,
        };
        processes.read(ctx);
        processes
    }

    fn read(&mut self, ctx: &mut Ctx) {
        self.stale = false;
        let ops = vec![Op::Processes(pb::Empty {}), Op::ObjectLog(pb::Empty {})];
        self.pending.push((ctx.send("list processes", ops), Want::List));
    }
}

impl View for Processes {
    fn name(&self) -> &'static str {
        "Processes"
    }

    fn title(&self) -> String {
        "Processes".into()
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending.iter().any(|(t, _)| *t == ticket)
    }

    fn forget_pending(&mut self) {
        self.pending.clear();
    }

    fn saved(&self) -> Option<Saved> {
        Some(Saved::Processes)
    }

    /// The handles of the opened entry's persistent objects.
    fn handles(&self) -> Vec<u64> {
        let variables = self.entry.iter().flat_map(|e| &e.frames).flat_map(|f| &f.variables);
        variables.map(|v| v.handle).filter(|h| *h != 0).collect()
    }

    fn hear(&mut self, event: &Event, _ctx: &mut Ctx) {
        if matches!(event, Event::Process(_) | Event::Relogged(_)) {
            self.stale = true;
        }
    }

    fn opens(&mut self) -> Option<crate::panes::Pane> {
        self.paused.take().map(|d| Box::new(d) as crate::panes::Pane)
    }

    fn receive(&mut self, reply: Reply) {
        let Some(at) = self.pending.iter().position(|(t, _)| *t == reply.ticket) else { return };
        let (_, want) = self.pending.remove(at);
        if let Want::List = want {
            match outcomes(reply) {
                Ok(answered) => {
                    for outcome in answered {
                        match outcome {
                            Outcome::Processes(p) => self.list = p.processes,
                            Outcome::ObjectLog(l) => {
                                self.log = l.entries;
                                (self.log_total, self.log_next) = l.paged.map_or((0, 0), |p| (p.total, p.next));
                            }
                            Outcome::Error(e) => self.message = e.message,
                            _ => {}
                        }
                    }
                }
                Err(e) => self.message = e.message,
            }
            return;
        }
        match (want, first(reply)) {
            (Want::More, Ok(Outcome::ObjectLog(l))) => {
                self.log.extend(l.entries);
                (self.log_total, self.log_next) = l.paged.map_or((0, 0), |p| (p.total, p.next));
            }
            (Want::Entry, Ok(Outcome::LoggedFailure(e))) => self.entry = Some(e),
            (Want::Terminate, Ok(_)) => self.message = "terminated".into(),
            (Want::Pause, Ok(Outcome::Debugged(d))) if d.kind == "pausing" => {
                self.message = format!("process {} stops at its next step point when it runs", d.process);
            }
            (Want::Pause, Ok(Outcome::Debugged(d))) if d.kind.is_empty() => {
                self.message = format!("process {} ended", d.process);
            }
            (Want::Pause, Ok(Outcome::Debugged(d))) => self.paused = Some(Debugger::shown(d)),
            (_, Err(e)) => self.message = e.message,
            (_, Ok(_)) => {}
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        // A change the gem told of: the list is read anew once nothing else is asked.
        if self.stale && self.pending.is_empty() {
            ctx.refreshing(|ctx| self.read(ctx));
        }
        ui.horizontal(|ui| {
            if ui.button("Refresh").clicked() {
                self.read(ctx);
            }
            ui.label(match self.list.len() {
                1 => "1 process".to_string(),
                n => format!("{n} processes"),
            });
            if !self.message.is_empty() {
                ui.label(&self.message);
            }
        });
        let (mut debug, mut terminate, mut pause) = (None, None, None);
        egui::ScrollArea::vertical().id_salt("processes").auto_shrink([false, true]).show(ui, |ui| {
            egui::Grid::new("processes-grid").striped(true).show(ui, |ui| {
                for heading in ["process", "state", "priority", "top frame", "frames", "why", ""] {
                    ui.strong(heading);
                }
                ui.end_row();
                for p in &self.list {
                    ui.label(p.process.to_string());
                    ui.label(if p.kept { format!("{} (kept)", p.status) } else { p.status.clone() });
                    ui.label(p.priority.to_string());
                    ui.label(&p.top);
                    ui.label(p.depth.to_string());
                    ui.label(&p.reason);
                    ui.horizontal(|ui| {
                        let suspended = p.status == "suspended";
                        if ui.add_enabled(suspended, egui::Button::new(format!("Debug {}", p.process))).clicked() {
                            debug = Some(p.process);
                        }
                        if ui.add_enabled(suspended, egui::Button::new(format!("Terminate {}", p.process))).clicked() {
                            terminate = Some(p.process);
                        }
                        let pausable = !suspended && p.status != "running";
                        if ui.add_enabled(pausable, egui::Button::new(format!("Pause {}", p.process))).clicked() {
                            pause = Some(p.process);
                        }
                    });
                    ui.end_row();
                }
            });
        });
        if let Some(process) = debug {
            let debugger = Debugger::open(ctx, process);
            ctx.opened.push(Box::new(debugger));
        }
        if let Some(process) = pause {
            let op = Op::Pause(pb::ProcessRef { process });
            self.pending.push((ctx.send("pause", vec![op]), Want::Pause));
        }
        if let Some(process) = terminate {
            let op = Op::Terminate(pb::ProcessRef { process });
            self.pending.push((ctx.send("terminate", vec![op]), Want::Terminate));
        }
        ui.separator();
        self.object_log(ui, ctx);
    }
}

impl Processes {
    /// The object log's entries, newest first, and the one opened.
    fn object_log(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        ui.strong(match self.log_total {
            1 => "Object log (1 entry)".to_string(),
            n => format!("Object log ({n} entries)"),
        });
        let mut open = None;
        egui::ScrollArea::vertical().id_salt("object-log").max_height(ui.available_height() * 0.4).show(ui, |ui| {
            for e in &self.log {
                let label = format!("{}  {}  {}  {}", time(e.time_micros), e.user, e.error, e.gem);
                let chosen = self.entry.as_ref().is_some_and(|o| o.id == e.id);
                if ui.selectable_label(chosen, label).clicked() {
                    open = Some(e.id);
                }
            }
            if self.log_next != 0 && ui.button("More").clicked() {
                let page = pb::Page { from: self.log_next, size: 20 };
                self.pending
                    .push((ctx.send_page("more of the object log", Op::ObjectLog(pb::Empty {}), page), Want::More));
            }
        });
        if let Some(id) = open {
            let op = Op::ObjectLogEntry(pb::LogEntryRef { id });
            self.pending.push((ctx.send("open a log entry", vec![op]), Want::Entry));
        }
        let Some(entry) = &self.entry else { return };
        ui.separator();
        ui.colored_label(
            ui.visuals().error_fg_color,
            format!("{} (process {} of {})", entry.error, entry.process, entry.gem),
        );
        let mut inspect = None;
        egui::ScrollArea::vertical().id_salt("object-log-entry").show(ui, |ui| {
            for (i, f) in entry.frames.iter().enumerate() {
                egui::CollapsingHeader::new(format!("{}  (line {})  {}", f.label, f.line, f.step))
                    .id_salt(("log-frame", entry.id, i))
                    .default_open(i == 0)
                    .show(ui, |ui| {
                        egui::Grid::new(("log-variables", entry.id, i)).show(ui, |ui| {
                            for v in &f.variables {
                                if v.handle != 0 {
                                    if ui.link(&v.name).on_hover_text("inspect").clicked() {
                                        inspect = Some((v.handle, v.print_string.clone()));
                                    }
                                } else {
                                    ui.label(&v.name);
                                }
                                ui.label(egui::RichText::new(&v.print_string).monospace());
                                ui.end_row();
                            }
                        });
                    });
            }
        });
        if let Some((handle, printed)) = inspect {
            let pane = Inspector::new(ctx, handle, printed);
            ctx.opened.push(Box::new(pane));
        }
    }
}

/// A time in microseconds since the Unix epoch, as a UTC date and time.
pub fn time(micros: u64) -> String {
    let secs = micros / 1_000_000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days to a civil date (the proleptic Gregorian calendar), in eras of 400 years.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", rest / 3600, rest % 3600 / 60, rest % 60)
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_read_as_utc_dates() {
        assert_eq!(super::time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(super::time(951_782_400_000_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(super::time(1_796_212_800_123_456), "2026-12-02 12:00:00 UTC");
    }
}
