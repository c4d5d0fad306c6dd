//! Questions a pane asks before it acts, as a modal over the window: a confirmation (before
//! removing something) or a name (a new protocol, a protocol renamed). What the answer lets
//! happen waits in the question until the user answers it; Escape or Cancel drops it.

use eframe::egui;

/// A question, and `T`: what happens once it is answered.
pub struct Ask<T> {
    question: String,
    /// A line under the question (what the answer does besides).
    detail: String,
    kind: Kind,
    then: T,
}

enum Kind {
    /// Yes (this button's label) or Cancel.
    Confirm(&'static str),
    /// A name, typed.
    Name(String),
}

/// How a question was answered.
pub enum Answered<T> {
    /// Not yet.
    Asking,
    /// Cancelled: nothing happens.
    Cancelled,
    /// Yes, with the name typed (empty for a confirmation).
    Yes(T, String),
}

impl<T> Ask<T> {
    /// Asks to confirm `question` (`yes` labels the button that does it).
    pub fn confirm(question: impl Into<String>, detail: impl Into<String>, yes: &'static str, then: T) -> Ask<T> {
        Ask { question: question.into(), detail: detail.into(), kind: Kind::Confirm(yes), then }
    }

    /// Asks for a name (`question` labels the field), starting from `name`.
    pub fn name(question: impl Into<String>, name: impl Into<String>, then: T) -> Ask<T> {
        Ask { question: question.into(), detail: String::new(), kind: Kind::Name(name.into()), then }
    }

    /// Draws the question; answers how it was answered (the question is done unless
    /// [`Answered::Asking`]).
    pub fn ui(self, ui: &egui::Ui) -> (Option<Ask<T>>, Answered<T>) {
        let mut this = self;
        let mut answer = None;
        let modal =
            egui::Modal::new(ui.make_persistent_id(("onyx-ask", this.question.as_str()))).show(ui.ctx(), |ui| {
                ui.set_width(400.0);
                match &mut this.kind {
                    Kind::Confirm(yes) => {
                        ui.label(&this.question);
                        if !this.detail.is_empty() {
                            ui.weak(&this.detail);
                        }
                        ui.horizontal(|ui| {
                            if ui.button(*yes).clicked() {
                                answer = Some(true);
                            }
                            if ui.button("Cancel").clicked() {
                                answer = Some(false);
                            }
                        });
                    }
                    Kind::Name(name) => {
                        let label = ui.label(&this.question);
                        let field =
                            ui.add(egui::TextEdit::singleline(name).desired_width(f32::INFINITY)).labelled_by(label.id);
                        if !field.has_focus() && !field.lost_focus() {
                            field.request_focus();
                        }
                        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                        let named = !name.trim().is_empty();
                        ui.horizontal(|ui| {
                            if ui.add_enabled(named, egui::Button::new("OK")).clicked() || (entered && named) {
                                answer = Some(true);
                            }
                            if ui.button("Cancel").clicked() {
                                answer = Some(false);
                            }
                        });
                    }
                }
            });
        match answer {
            Some(true) => {
                let name = match this.kind {
                    Kind::Name(name) => name.trim().to_string(),
                    Kind::Confirm(_) => String::new(),
                };
                (None, Answered::Yes(this.then, name))
            }
            Some(false) => (None, Answered::Cancelled),
            None if modal.should_close() => (None, Answered::Cancelled),
            None => (Some(this), Answered::Asking),
        }
    }
}
