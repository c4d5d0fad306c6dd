//! Quick-open (Ctrl+K, as Pharo's Spotter): the classes whose names hold what is typed, and
//! the selectors some method implements that hold it, listed as one types (one batch each
//! time the text changes, none while one is under way). Ctrl+K selects what was typed
//! before; Up and Down move through the list, Enter or a click opens the entry: a class in a
//! browser (scrolled to it), a selector's implementors in a method list.

use eframe::egui::{self, text::CCursor, text::CCursorRange};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::browser::Browser;
use crate::ctx::Ctx;
use crate::link::{Reply, Ticket};
use crate::panes::{MethodList, outcomes};

/// The field's label.
pub const LABEL: &str = "Find class or selector (Ctrl+K)";

/// At most this many of each kind are listed.
const SHOWN: usize = 30;

#[derive(Default)]
pub struct Find {
    text: String,
    /// What the list answers (or is being asked for).
    searched: String,
    pending: Option<Ticket>,
    classes: Vec<pb::ClassEntry>,
    selectors: Vec<String>,
    /// The entry Enter opens.
    at: usize,
    /// The list shows.
    open: bool,
}

/// An entry of the list.
#[derive(Clone)]
enum Entry {
    Class(String),
    Selector(String),
}

impl Find {
    pub fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending == Some(ticket)
    }

    pub fn forget_pending(&mut self) {
        self.pending = None;
    }

    /// What a search answered: classes, then selectors.
    pub fn receive(&mut self, reply: Reply) {
        self.pending = None;
        let Ok(answers) = outcomes(reply) else { return };
        for answer in answers {
            match answer {
                Outcome::Classes(c) => self.classes = c.classes,
                Outcome::Names(n) => self.selectors = n.names,
                _ => {}
            }
        }
        self.at = 0;
    }

    fn entries(&self) -> Vec<Entry> {
        let classes = self.classes.iter().take(SHOWN).map(|c| Entry::Class(c.name.clone()));
        classes.chain(self.selectors.iter().take(SHOWN).map(|s| Entry::Selector(s.clone()))).collect()
    }

    /// The field, and under it the list while it is open.
    pub fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        let label = ui.label(LABEL);
        let field = egui::TextEdit::singleline(&mut self.text).desired_width(240.0).show(ui);
        let response = field.response.response.clone().labelled_by(label.id);
        if ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::K)) {
            // What was typed before, selected: typing replaces it.
            let mut state = field.state.clone();
            let all = CCursorRange::two(CCursor::new(0), CCursor::new(self.text.chars().count()));
            state.cursor.set_char_range(Some(all));
            state.store(ui.ctx(), response.id);
            response.request_focus();
            self.open = true;
        }
        if response.changed() {
            self.open = true;
        }
        let fragment = self.text.trim().to_string();
        if fragment.is_empty() {
            self.classes.clear();
            self.selectors.clear();
            self.searched.clear();
        } else if fragment != self.searched && self.pending.is_none() {
            let ops = vec![
                Op::FindClass(pb::Fragment { fragment: fragment.clone() }),
                Op::FindSelectors(pb::Fragment { fragment: fragment.clone() }),
            ];
            self.pending = Some(ctx.send("find", ops));
            self.searched = fragment.clone();
            self.open = true;
        }
        let entries = self.entries();
        if response.has_focus() {
            ui.input_mut(|i| {
                if i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown) {
                    self.at = (self.at + 1).min(entries.len().saturating_sub(1));
                }
                if i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp) {
                    self.at = self.at.saturating_sub(1);
                }
            });
        }
        let mut chosen = None;
        if response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            chosen = entries.get(self.at).cloned();
        }
        if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
            self.open = false;
        }
        if self.open && !fragment.is_empty() && chosen.is_none() {
            chosen = self.list(ui, &response, &entries);
        }
        if let Some(entry) = chosen {
            self.open = false;
            let pane: crate::panes::Pane = match entry {
                Entry::Class(name) => Box::new(Browser::on_class(ctx, name)),
                Entry::Selector(selector) => {
                    let op = Op::Implementors(pb::SelectorRef { selector: selector.clone() });
                    Box::new(MethodList::open(ctx, format!("Implementors of #{selector}"), op))
                }
            };
            ctx.opened.push(pane);
        }
    }

    /// The list under the field; answers the entry clicked. A press elsewhere closes it.
    fn list(&mut self, ui: &egui::Ui, field: &egui::Response, entries: &[Entry]) -> Option<Entry> {
        let mut chosen = None;
        let area = egui::Area::new(field.id.with("found"))
            .order(egui::Order::Foreground)
            .fixed_pos(field.rect.left_bottom() + egui::vec2(0.0, 2.0))
            .show(ui.ctx(), |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.set_min_width(field.rect.width().max(240.0));
                    if entries.is_empty() {
                        ui.weak(if self.pending.is_some() { "searching..." } else { "nothing matches" });
                    }
                    let more = |n: usize| n.saturating_sub(SHOWN);
                    for (i, entry) in entries.iter().enumerate() {
                        let (text, hint) = match entry {
                            Entry::Class(name) => (name.clone(), "browse the class"),
                            Entry::Selector(s) => (format!("#{s}"), "its implementors"),
                        };
                        if ui.selectable_label(i == self.at, text).on_hover_text(hint).clicked() {
                            chosen = Some(entry.clone());
                        }
                    }
                    let left = more(self.classes.len()) + more(self.selectors.len());
                    if left > 0 {
                        ui.weak(format!("and {left} more: type more of the name"));
                    }
                });
            });
        let pressed_outside = ui.input(|i| {
            i.pointer.any_pressed()
                && i.pointer
                    .interact_pos()
                    .is_some_and(|at| !area.response.rect.contains(at) && !field.rect.contains(at))
        });
        if pressed_outside {
            self.open = false;
        }
        chosen
    }
}
