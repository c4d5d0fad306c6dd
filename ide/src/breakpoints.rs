//! The stone's breakpoints in the IDE: what a gem has of them ([`Book`], one per link, read
//! at start, after each breakpoint gesture in the same batch, and again when the gem says they
//! changed), the gestures that set, remove, enable and disable one (each one batch), and the
//! breakpoint browser: every breakpoint with its method, line, kind, scope, hits in this gem
//! and who set it, with Go to source, Enable or Disable, and Remove. A row of a method list
//! whose method has breakpoints is marked ([`mark`]).

use eframe::egui;
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::browser::Browser;
use crate::ctx::Ctx;
use crate::link::{Reply, Ticket};
use crate::panes::{View, outcomes};

/// What a gem has of the stone's breakpoints.
#[derive(Default)]
pub struct Book {
    list: Vec<pb::BreakpointInfo>,
    pending: Vec<Ticket>,
    /// What the last gesture's answer said was wrong.
    pub message: String,
}

impl Book {
    /// Every breakpoint, as the gem has it.
    pub fn all(&self) -> &[pb::BreakpointInfo] {
        &self.list
    }

    /// The breakpoints on `selector` of `class` (`Foo class` for the class side).
    pub fn on<'a>(&'a self, class: &'a str, selector: &'a str) -> impl Iterator<Item = &'a pb::BreakpointInfo> {
        self.list.iter().filter(move |b| b.class_name == class && b.selector == selector)
    }

    /// Marks `row` of a method list if `method` has breakpoints: a dot at its right, filled
    /// when one is enabled, saying how many to a hover and to a screen reader.
    pub fn mark(&self, ui: &mut egui::Ui, row: &egui::Response, method: &pb::MethodRef) {
        let class = class_name(method);
        let (count, enabled) =
            self.on(&class, &method.selector).fold((0, 0), |(n, e), b| (n + 1, e + usize::from(b.enabled)));
        if count == 0 {
            return;
        }
        let side = row.rect.height();
        let rect = egui::Rect::from_min_size(row.rect.right_top() - egui::vec2(side, 0.0), egui::vec2(side, side));
        let said = match (count, enabled) {
            (1, 1) => format!("A breakpoint in {class}>>{}", method.selector),
            (1, _) => format!("A disabled breakpoint in {class}>>{}", method.selector),
            (n, e) => format!("{n} breakpoints ({e} enabled) in {class}>>{}", method.selector),
        };
        let dot = ui.interact(rect, row.id.with("breakpoints"), egui::Sense::hover());
        dot.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &said));
        let red = egui::Color32::from_rgb(220, 50, 47);
        let radius = side * 0.22;
        if enabled > 0 {
            ui.painter().circle_filled(rect.center(), radius, red);
        } else {
            ui.painter().circle_stroke(rect.center(), radius, egui::Stroke::new(1.5, red));
        }
        dot.on_hover_text(said);
    }

    /// Whether the reply to `ticket` is the book's.
    pub fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending.contains(&ticket)
    }

    /// Takes a reply: the list, after what the gesture did (or its error).
    pub fn receive(&mut self, reply: Reply) {
        self.pending.retain(|t| *t != reply.ticket);
        match outcomes(reply) {
            Ok(answered) => {
                self.message.clear();
                // A gesture's batch ends with the whole list (the last list answered wins).
                for outcome in answered {
                    match outcome {
                        Outcome::Breakpoints(l) => self.list = l.breakpoints,
                        Outcome::Error(e) => self.message = e.message,
                        _ => {}
                    }
                }
            }
            Err(e) => self.message = e.message,
        }
    }

    /// Forgets the replies it waits for (they went by a link that is gone).
    pub fn forget_pending(&mut self) {
        self.pending.clear();
    }
}

/// The name the stone gives a method's class: `Foo`, or `Foo class`.
pub fn class_name(method: &pb::MethodRef) -> String {
    let class = method.class.as_ref();
    let name = class.map_or("", |c| c.class_name.as_str());
    if class.is_some_and(|c| c.meta) { format!("{name} class") } else { name.to_string() }
}

impl Ctx<'_> {
    /// Reads the gem's breakpoints again (one batch).
    pub fn read_breakpoints(&mut self) {
        let ticket = self.send("list breakpoints", vec![Op::Breakpoints(pb::Empty {})]);
        self.link.breakpoints.pending.push(ticket);
    }

    /// Does `op` (a breakpoint's setting or removal) and reads the list after it: one batch.
    fn breakpoint_gesture(&mut self, name: &'static str, op: Op) {
        let ticket = self.send(name, vec![op, Op::Breakpoints(pb::Empty {})]);
        self.link.breakpoints.pending.push(ticket);
    }

    /// Sets a breakpoint on `method` for every gem, at `at` (a line, or the statement around
    /// an offset of its source).
    pub fn set_breakpoint(&mut self, method: pb::MethodRef, at: pb::set_breakpoint::At) {
        let set = pb::SetBreakpoint { method: Some(method), at: Some(at), enabled: true, ..Default::default() };
        self.breakpoint_gesture("set a breakpoint", Op::SetBreakpoint(set));
    }

    /// Removes breakpoint `id` from every gem.
    pub fn remove_breakpoint(&mut self, id: u64) {
        self.breakpoint_gesture("remove a breakpoint", Op::RemoveBreakpoint(pb::BreakpointRef { id }));
    }

    /// Enables or disables a breakpoint, everything else as it is.
    fn enable_breakpoint(&mut self, b: &pb::BreakpointInfo, enabled: bool) {
        let (name, meta) = match b.class_name.strip_suffix(" class") {
            Some(name) => (name.to_string(), true),
            None => (b.class_name.clone(), false),
        };
        let method =
            pb::MethodRef { class: Some(pb::ClassRef { class_name: name, meta }), selector: b.selector.clone() };
        let at =
            if b.line != 0 { pb::set_breakpoint::At::Line(b.line) } else { pb::set_breakpoint::At::Offset(b.offset) };
        let set = pb::SetBreakpoint {
            id: b.id,
            method: Some(method),
            at: Some(at),
            condition: b.condition.clone(),
            log: b.log.clone(),
            hits: b.hits,
            hits_n: b.hits_n,
            once: b.once,
            enabled,
            scope: if b.scope_session == 0 {
                pb::BreakpointScope::EveryGem as i32
            } else if b.scope_process == 0 {
                pb::BreakpointScope::ThisGem as i32
            } else {
                pb::BreakpointScope::OneProcess as i32
            },
            process: b.scope_process,
        };
        let name = if enabled { "enable a breakpoint" } else { "disable a breakpoint" };
        self.breakpoint_gesture(name, Op::SetBreakpoint(set));
    }
}

/// What a breakpoint is, in a few words.
fn kind(b: &pb::BreakpointInfo) -> String {
    let words = onyx_protocol::describe::breakpoint_kind(b);
    if words.is_empty() { "always".into() } else { words.join(", ") }
}

/// The breakpoint browser.
#[derive(Default)]
pub struct BreakpointBrowser;

impl View for BreakpointBrowser {
    fn name(&self) -> &'static str {
        "Breakpoints"
    }

    fn title(&self) -> String {
        "Breakpoints".into()
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        let list = ctx.link.breakpoints.all().to_vec();
        ui.horizontal(|ui| {
            if ui.button("Refresh").clicked() {
                ctx.read_breakpoints();
            }
            ui.label(match list.len() {
                0 => "No breakpoint: set one in the margin of a method's source (or F9 at a statement)".to_string(),
                1 => "1 breakpoint, for the gems of the stone".to_string(),
                n => format!("{n} breakpoints, for the gems of the stone"),
            });
        });
        if !ctx.link.breakpoints.message.is_empty() {
            ui.colored_label(ui.visuals().error_fg_color, ctx.link.breakpoints.message.clone());
        }
        let (mut go, mut enable, mut remove) = (None, None, None);
        egui::ScrollArea::vertical().id_salt("breakpoints").auto_shrink([false, true]).show(ui, |ui| {
            egui::Grid::new("breakpoints-grid").striped(true).show(ui, |ui| {
                for heading in ["", "method", "line", "kind", "scope", "hits", "set by", ""] {
                    ui.strong(heading);
                }
                ui.end_row();
                for b in &list {
                    ui.label(b.id.to_string());
                    ui.label(format!("{}>>{}", b.class_name, b.selector));
                    ui.label(match (b.orphaned, b.line) {
                        (true, _) => "orphaned".to_string(),
                        (false, 0) => "not in this gem".to_string(),
                        (false, line) => line.to_string(),
                    });
                    ui.label(kind(b));
                    ui.label(match (b.scope_session, b.scope_process) {
                        (0, _) => "every gem".to_string(),
                        (s, 0) => format!("gem {s}"),
                        (s, p) => format!("process {p} of gem {s}"),
                    });
                    ui.label(onyx_protocol::describe::breakpoint_hits(b));
                    ui.label(&b.owner);
                    ui.horizontal(|ui| {
                        if ui.button(format!("Go to {}", b.id)).clicked() {
                            go = Some(b.clone());
                        }
                        let toggle = if b.enabled { "Disable" } else { "Enable" };
                        if ui.button(format!("{toggle} {}", b.id)).clicked() {
                            enable = Some((b.clone(), !b.enabled));
                        }
                        if ui.button(format!("Remove {}", b.id)).clicked() {
                            remove = Some(b.id);
                        }
                    });
                    ui.end_row();
                }
            });
        });
        if let Some(b) = go {
            // (A class-side method's browser opens on its class.)
            let class = b.class_name.strip_suffix(" class").unwrap_or(&b.class_name).to_string();
            let mut browser = Browser::on_class(ctx, class);
            browser.then_select(b.selector.clone());
            ctx.opened.push(Box::new(browser));
        }
        if let Some((b, enabled)) = enable {
            ctx.enable_breakpoint(&b, enabled);
        }
        if let Some(id) = remove {
            ctx.remove_breakpoint(id);
        }
    }
}
