//! How the browser is drawn: the four lists side by side between splitters, above a splitter
//! from the editor, which takes the space left; the tools under the lists (Back, Forward, new
//! and remove, the cross-references); the class definition or comment, or the method source.
//! What the user asks for is gathered as [`Act`]s while drawing and done after.

use eframe::egui;
use onyx_protocol::agent as pb;

use super::menus::{Act, Dragged};
use super::rows::list;
use super::{Browser, Choice, ClassTab};
use crate::ask::Answered;
use crate::ctx::Ctx;

/// The header of the protocols' list that stands for every method.
pub const ALL: &str = "-- all --";

impl Browser {
    /// Draws the browser, then does what was asked in it.
    pub(super) fn draw(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        let mut acts = Vec::new();
        if ctx.focused {
            ui.input_mut(|i| {
                if i.consume_key(egui::Modifiers::ALT, egui::Key::ArrowLeft) {
                    acts.push(Act::Travel(true));
                }
                if i.consume_key(egui::Modifiers::ALT, egui::Key::ArrowRight) {
                    acts.push(Act::Travel(false));
                }
            });
        }
        let tall = ui.available_height();
        egui::Panel::top("browser-lists")
            .resizable(true)
            .default_size((tall * 0.4).max(140.0))
            .size_range(80.0..=(tall - 120.0).max(80.0))
            .frame(egui::Frame::NONE.inner_margin(egui::Margin::symmetric(0, 2)))
            .show(ui, |ui| self.lists(ui, ctx, &mut acts));
        self.tools(ui, ctx, &mut acts);
        if let Some(ask) = self.ask.take() {
            let (left, answered) = ask.ui(ui);
            self.ask = left;
            if let Answered::Yes(act, name) = answered {
                acts.push(act.named(name));
            }
        }
        if !self.message.is_empty() {
            ui.label(&self.message);
        }
        self.editors(ui, ctx);
        for act in acts {
            self.act(ctx, act);
        }
    }

    /// The packages, classes, protocols and methods, side by side between splitters.
    fn lists(&mut self, ui: &mut egui::Ui, ctx: &Ctx, acts: &mut Vec<Act>) {
        let may_change_code = ctx.link.may_change_code;
        let quarter = (ui.available_width() / 4.0).max(80.0);
        let column = |id: &'static str| {
            egui::Panel::left(id)
                .resizable(true)
                .default_size(quarter)
                .min_size(60.0)
                .frame(egui::Frame::NONE.inner_margin(egui::Margin { right: 4, ..Default::default() }))
        };
        // Until what was asked for has come, the rows to scroll to may not be listed yet.
        let reveal = self.reveal;
        if self.pending.is_empty() {
            self.reveal = false;
        }
        column("browser-packages").show(ui, |ui| {
            ui.strong("Packages");
            list(ui, "packages", &self.packages, self.package.as_deref(), reveal, false, |_, p, response| {
                if response.clicked() {
                    acts.push(Act::Choose(Choice::Package(p.to_string())));
                }
                response.context_menu(|ui| self.package_menu(ui, p, may_change_code, acts));
            });
        });
        column("browser-classes").show(ui, |ui| {
            let toggled = ui
                .horizontal(|ui| match &self.hierarchy_of {
                    Some(root) => ui.strong(format!("Hierarchy of {root}")).changed(),
                    None => {
                        ui.strong("Classes");
                        ui.checkbox(&mut self.as_hierarchy, "hierarchy").changed()
                    }
                })
                .inner;
            if toggled {
                let classes = std::mem::take(&mut self.classes);
                self.set_classes(classes);
            }
            let rows = std::mem::take(&mut self.rows);
            list(ui, "classes", &rows, self.class.as_deref(), reveal, false, |_, row, response| {
                let class = row.trim();
                if response.clicked() {
                    acts.push(Act::Choose(Choice::Class(class.to_string())));
                }
                response.context_menu(|ui| self.class_menu(ui, class, may_change_code, acts));
            });
            self.rows = rows;
        });
        column("browser-protocols").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong("Protocols");
                if ui.selectable_label(!self.meta, "instance").clicked() && self.meta {
                    acts.push(Act::Choose(Choice::Side(false)));
                }
                if ui.selectable_label(self.meta, "class").clicked() && !self.meta {
                    acts.push(Act::Choose(Choice::Side(true)));
                }
            });
            let mut rows = vec![ALL.to_string()];
            rows.extend(self.protocols.iter().cloned());
            let selected = self.protocol.clone().unwrap_or_else(|| ALL.into());
            list(ui, "protocols", &rows, Some(selected.as_str()), reveal, false, |_, p, response| {
                let protocol = (p != ALL).then(|| p.to_string());
                if response.clicked() {
                    acts.push(Act::Choose(Choice::Protocol(protocol.clone())));
                }
                // A method dropped on a protocol moves there.
                if let Some(to) = protocol.clone()
                    && may_change_code
                {
                    if response.dnd_hover_payload::<Dragged>().is_some() {
                        let stroke = response.ctx.global_style().visuals.selection.stroke;
                        let painter = response.ctx.layer_painter(response.layer_id);
                        painter.rect_stroke(response.rect, 2.0, stroke, egui::StrokeKind::Inside);
                    }
                    if let Some(dragged) = response.dnd_release_payload::<Dragged>()
                        && dragged.class == self.class_ref()
                    {
                        acts.push(Act::Move(vec![dragged.selector.clone()], to));
                    }
                }
                response.context_menu(|ui| self.protocol_menu(ui, protocol.as_deref(), may_change_code, acts));
            });
        });
        egui::CentralPanel::no_frame().show(ui, |ui| {
            ui.strong("Methods");
            let class = self.class_ref();
            list(ui, "methods", &self.methods, self.method.as_deref(), reveal, may_change_code, |ui, m, response| {
                let method = pb::MethodRef { class: class.clone(), selector: m.to_string() };
                ctx.link.breakpoints.mark(ui, response, &method);
                if response.clicked() {
                    acts.push(Act::Choose(Choice::Method(m.to_string())));
                }
                response.dnd_set_drag_payload(Dragged { class: class.clone(), selector: m.to_string() });
                response.context_menu(|ui| self.method_menu(ui, m, may_change_code, acts));
            });
        });
    }

    /// The buttons under the lists: Back and Forward, new and remove, and the
    /// cross-references.
    fn tools(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx, acts: &mut Vec<Act>) {
        ui.horizontal(|ui| {
            let back = ui.add_enabled(self.history.can_go_back(), egui::Button::new("Back"));
            if back.on_hover_text("Alt+Left").clicked() {
                acts.push(Act::Travel(true));
            }
            let forward = ui.add_enabled(self.history.can_go_forward(), egui::Button::new("Forward"));
            if forward.on_hover_text("Alt+Right").clicked() {
                acts.push(Act::Travel(false));
            }
            ui.separator();
            let (class, method) = (self.class.clone(), self.method.clone());
            let may = ctx.link.may_change_code;
            if ui.add_enabled(may && class.is_some(), egui::Button::new("New method")).clicked() {
                acts.push(Act::NewMethod);
            }
            if ui.add_enabled(may && method.is_some(), egui::Button::new("Remove method")).clicked()
                && let Some(selector) = method.clone()
            {
                acts.push(Act::AskRemoveMethod(selector));
            }
            if ui.add_enabled(may && self.package.is_some(), egui::Button::new("New class")).clicked() {
                acts.push(Act::NewClass);
            }
            if ui.add_enabled(may && class.is_some(), egui::Button::new("Remove class")).clicked()
                && let Some(class) = class.clone()
            {
                acts.push(Act::AskRemoveClass(class));
            }
            ui.separator();
            // Taken by the browser the pointer was last pressed in: one key press, one list.
            let key =
                |ui: &mut egui::Ui, key| ctx.focused && ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, key));
            if let Some(selector) = method {
                if ui.button("Senders (Ctrl+N)").clicked() || key(ui, egui::Key::N) {
                    acts.push(Act::Senders(selector.clone()));
                }
                if ui.button("Implementors (Ctrl+M)").clicked() || key(ui, egui::Key::M) {
                    acts.push(Act::Implementors(selector));
                }
            }
            if let Some(class) = class {
                if ui.button("References").clicked() {
                    acts.push(Act::References(class.clone()));
                }
                if ui.button("Hierarchy").clicked() {
                    acts.push(Act::Hierarchy(class));
                }
            }
        });
    }

    /// The method source, or the class definition or comment, or a new class's template.
    fn editors(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        if self.method.is_some() || self.new_method {
            if self.source.ui(ui, ctx, "Method") {
                self.accept_method(ctx);
            }
            return;
        }
        if self.class.is_some() {
            ui.horizontal(|ui| {
                for (tab, label) in [(ClassTab::Definition, "Definition"), (ClassTab::Comment, "Comment")] {
                    if ui.selectable_label(self.tab == tab, label).clicked() {
                        self.tab = tab;
                    }
                }
            });
        }
        if self.class.is_some() && self.tab == ClassTab::Comment {
            if self.comment.ui(ui, ctx, "Class comment") {
                self.accept_comment(ctx);
            }
        } else if (self.class.is_some() || self.package.is_some()) && self.definition.ui(ui, ctx, "Class definition") {
            self.accept_definition(ctx);
        }
    }
}
