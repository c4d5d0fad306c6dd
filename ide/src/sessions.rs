//! The Sessions pane: the gems of the stone (session, user, host, pid, agent, how far behind
//! their views are, their locks), the stone's address with the command that starts another gem
//! on it (and, on an embedded stone, a button that does), and the processes every gem keeps
//! suspended for a debugger (gem, user, host, process, reason, method, since when), each a
//! click from a debugger: in this gem directly, in another through its agent (Attach). It
//! reads the list again when a gem logs in or out, commits, or its suspended processes change.

use eframe::egui;
use onyx_protocol::agent::{self as pb, event::Event, operation::Op, result::Outcome};

use crate::ctx::Ctx;
use crate::gems::{Gems, Started};
use crate::layout::Saved;
use crate::link::{Reply, Ticket};
use crate::panes::{Changed, View, first};
use crate::remote::Attach;

/// The gems of the stone and the processes they keep suspended.
#[derive(Default)]
pub struct Sessions {
    list: Vec<pb::GemSession>,
    pending: Option<Ticket>,
    /// Something changed while the list was being read: it is read again once it comes.
    stale: bool,
}

impl Sessions {
    /// The list, as the gem answers it.
    pub fn new(ctx: &mut Ctx) -> Sessions {
        let mut sessions = Sessions::default();
        sessions.read(ctx);
        sessions
    }

    /// Reads the list (once at a time: what changes meanwhile is read after).
    fn read(&mut self, ctx: &mut Ctx) {
        if self.pending.is_some() {
            self.stale = true;
        } else {
            self.pending = Some(ctx.send("list sessions", vec![Op::Sessions(pb::Empty {})]));
            self.stale = false;
        }
    }
}

impl View for Sessions {
    fn name(&self) -> &'static str {
        "Sessions"
    }

    fn title(&self) -> String {
        "Sessions".into()
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending == Some(ticket)
    }

    fn forget_pending(&mut self) {
        self.pending = None;
    }

    fn saved(&self) -> Option<Saved> {
        Some(Saved::Sessions)
    }

    /// Gems logging in or out, commits (how far behind each view is) and processes suspended
    /// in any gem change the list.
    fn hear(&mut self, event: &Event, ctx: &mut Ctx) {
        match event {
            Event::Sessions(_) | Event::Relogged(_) | Event::Stale(_) | Event::Suspended(_) => self.read(ctx),
            Event::Transcript(_) | Event::Process(_) | Event::Breakpoints(_) | Event::Progress(_) => {}
        }
    }

    fn refresh(&mut self, ctx: &mut Ctx, changed: Changed) {
        if changed == Changed::Repository {
            self.read(ctx);
        }
    }

    fn receive(&mut self, reply: Reply) {
        self.pending = None;
        if let Ok(Outcome::Sessions(s)) = first(reply) {
            self.list = s.sessions;
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        if self.stale && self.pending.is_none() {
            ctx.refreshing(|ctx| self.read(ctx));
        }
        ui.horizontal(|ui| {
            if ui.button("Refresh").clicked() {
                self.read(ctx);
            }
            if self.pending.is_some() {
                ui.spinner();
            }
        });
        // Where another gem joins this stone, as a terminal starts one; an embedded stone's
        // gems are started here too.
        let stone = ctx.link.stone.clone();
        if !stone.is_empty() {
            let command = format!("onyx gem --stone {stone}");
            ui.horizontal(|ui| {
                ui.label(format!("Stone at {stone}. Another gem joins it with"));
                ui.monospace(&command);
                if ui.button("Copy the command").clicked() {
                    ui.ctx().copy_text(command.clone());
                }
                if ctx.link.gems().is_some() && ui.button("Start a gem").clicked() {
                    ctx.link.start_gem();
                }
            });
        }
        for started in ctx.link.gems().map(Gems::started).unwrap_or_default() {
            ui.horizontal(|ui| match started {
                Started::Starting => {
                    ui.spinner();
                    ui.label("Starting a gem");
                }
                Started::Serving(address) => {
                    let command = format!("onyx-ide --connect {address}");
                    ui.label(format!("Gem started here, its agent at {address}: work in it with"));
                    ui.monospace(&command);
                    if ui.button("Copy").clicked() {
                        ui.ctx().copy_text(command);
                    }
                }
                Started::Failed(why) => {
                    ui.colored_label(ui.visuals().error_fg_color, format!("A gem did not start: {why}"));
                }
            });
        }
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
                if s.this_gem {
                    ui.label("");
                } else if ui.button(format!("Processes of {}", s.session)).clicked() {
                    ctx.attach(s.agent.clone(), s.session, Attach::Processes);
                }
                ui.end_row();
            }
        });
        self.suspended(ui, ctx);
    }
}

impl Sessions {
    /// The processes every gem keeps suspended, each a click from a debugger.
    fn suspended(&self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        let listed: Vec<(&pb::GemSession, &pb::SuspendedProcess)> =
            self.list.iter().flat_map(|s| s.suspended.iter().map(move |p| (s, p))).collect();
        ui.separator();
        ui.strong(match listed.len() {
            0 => "No process is suspended in any gem".to_string(),
            1 => "1 process suspended across the gems".to_string(),
            n => format!("{n} processes suspended across the gems"),
        });
        if listed.is_empty() {
            return;
        }
        egui::Grid::new("suspended").striped(true).show(ui, |ui| {
            for heading in ["session", "user", "host", "process", "why", "method", "since", ""] {
                ui.strong(heading);
            }
            ui.end_row();
            for (s, p) in listed {
                let marker = if s.this_gem { " (this gem)" } else { "" };
                ui.label(format!("{}{marker}", s.session));
                ui.label(&s.user);
                ui.label(&s.host);
                ui.label(p.process.to_string());
                ui.label(&p.reason);
                ui.label(&p.method);
                ui.label(crate::processes::time(p.since_micros));
                let (label, hint) = if s.this_gem {
                    (format!("Debug {}", p.process), "open a debugger on it".to_string())
                } else {
                    (format!("Attach to {} in {}", p.process, s.session), format!("debug it in the gem at {}", s.agent))
                };
                if ui.button(label).on_hover_text(hint).clicked() {
                    ctx.attach(s.agent.clone(), s.session, Attach::Debugger(p.process));
                }
                ui.end_row();
            }
        });
    }
}
