//! The process browser: the gem's processes (running, ready, waiting, suspended, with why a
//! suspended one stopped), each a click from a debugger, and Terminate. It reads the list
//! anew when the gem says a process changed, so it stays current without a Refresh.

use eframe::egui;
use onyx_protocol::agent::{self as pb, event::Event, operation::Op, result::Outcome};

use crate::app::Ctx;
use crate::debugger::Debugger;
use crate::link::{Reply, Ticket};
use crate::panes::{View, first};

/// What the process browser asked for.
enum Want {
    List,
    Terminate,
}

/// The gem's processes.
pub struct Processes {
    list: Vec<pb::ProcessEntry>,
    pending: Vec<(Ticket, Want)>,
    /// A process changed since the list was read.
    stale: bool,
    message: String,
}

impl Processes {
    /// The browser, with the list as the gem answers it.
    pub fn new(ctx: &mut Ctx) -> Processes {
        let mut processes = Processes { list: Vec::new(), pending: Vec::new(), stale: false, message: String::new() };
        processes.read(ctx);
        processes
    }

    fn read(&mut self, ctx: &mut Ctx) {
        self.stale = false;
        self.pending.push((ctx.send("list processes", vec![Op::Processes(pb::Empty {})]), Want::List));
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

    fn hear(&mut self, event: &Event) {
        if matches!(event, Event::Process(_) | Event::Relogged(_)) {
            self.stale = true;
        }
    }

    fn receive(&mut self, reply: Reply) {
        let Some(at) = self.pending.iter().position(|(t, _)| *t == reply.ticket) else { return };
        let (_, want) = self.pending.remove(at);
        match (want, first(reply)) {
            (Want::List, Ok(Outcome::Processes(p))) => self.list = p.processes,
            (Want::Terminate, Ok(_)) => self.message = "terminated".into(),
            (_, Err(e)) => self.message = e.message,
            (_, Ok(_)) => {}
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        // A change the gem told of: the list is read anew once nothing else is asked.
        if self.stale && self.pending.is_empty() {
            self.read(ctx);
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
        let (mut debug, mut terminate) = (None, None);
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
                    });
                    ui.end_row();
                }
            });
        });
        if let Some(process) = debug {
            let debugger = Debugger::open(ctx, process);
            ctx.opened.push(Box::new(debugger));
        }
        if let Some(process) = terminate {
            let op = Op::Terminate(pb::ProcessRef { process });
            self.pending.push((ctx.send("terminate", vec![op]), Want::Terminate));
        }
    }
}
