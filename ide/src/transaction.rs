//! The transaction as the IDE shows it: the bar (in or outside a transaction, whether it holds
//! uncommitted changes, Commit, Abort, Auto-commit, the last outcome, the conflicting objects)
//! and the question asked when the window closes over uncommitted changes (Commit, Abort or
//! Cancel). Every batch's answer carries the transaction's state, so the bar is current
//! after any gesture without a round trip of its own.

use eframe::egui;
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::link::Ticket;

/// A gesture of the bar (each is sent with a transaction status after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gesture {
    Status,
    Commit,
    Abort,
    AutoCommit,
}

impl Gesture {
    /// The gesture's name (in the status bar) and its operation.
    pub fn op(self, auto: bool) -> (&'static str, Option<Op>) {
        match self {
            Gesture::Status => ("transaction status", None),
            Gesture::Commit => ("commit", Some(Op::CommitTransaction(pb::Empty {}))),
            Gesture::Abort => ("abort", Some(Op::AbortTransaction(pb::Empty {}))),
            Gesture::AutoCommit => ("auto-commit", Some(Op::AutoCommit(pb::AutoCommit { on: auto }))),
        }
    }
}

/// Where closing the window stands when the transaction has uncommitted changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quit {
    /// Asking: Commit, Abort or Cancel.
    Asking,
    /// Committing or aborting (this gesture), to close once it is done.
    Ending(Gesture),
    /// Done: the window may close.
    Close,
}

/// The transaction as the bar shows it.
#[derive(Default)]
pub struct Transaction {
    pub status: Option<pb::TransactionStatus>,
    /// Other sessions committed since this view.
    pub stale: bool,
    pub conflicts: Vec<pb::Field>,
    /// The bar's gestures under way (each answers the transaction's state after it).
    pub pending: Vec<(Ticket, Gesture)>,
    pub message: String,
    /// Closing the window over uncommitted changes.
    pub quit: Option<Quit>,
}

impl Transaction {
    /// Whether a commit would write something.
    pub fn needs_commit(&self) -> bool {
        self.status.as_ref().is_some_and(|s| s.needs_commit)
    }

    /// Takes the state a batch's answer carries.
    pub fn took_status(&mut self, status: pb::TransactionStatus) {
        // "committed" or "aborted" no longer describes a transaction changed since.
        if status.needs_commit && matches!(self.message.as_str(), "committed" | "aborted") {
            self.message.clear();
        }
        self.status = Some(status);
    }

    /// Takes in an outcome of the bar's `gesture` (or of an auto-commit, as a commit);
    /// answers whether the view moved (a commit or an abort was done).
    pub fn took(&mut self, gesture: Gesture, outcome: Outcome) -> bool {
        match outcome {
            Outcome::Transaction(status) => self.took_status(status),
            Outcome::Committed(c) => {
                self.stale = false;
                self.message = match c.conflict_count as usize {
                    _ if c.committed => "committed".into(),
                    count if count > c.conflicts.len() => {
                        format!("the commit failed: {count} conflicts, the first {} shown", c.conflicts.len())
                    }
                    _ => "the commit failed: conflicts".into(),
                };
                self.conflicts = c.conflicts;
                // A commit that failed asks again, saying why.
                if self.quit == Some(Quit::Ending(Gesture::Commit)) {
                    self.quit = Some(if c.committed { Quit::Close } else { Quit::Asking });
                }
                return c.committed;
            }
            Outcome::Done(_) if gesture == Gesture::Abort => {
                self.stale = false;
                self.conflicts.clear();
                self.message = "aborted".into();
                if self.quit == Some(Quit::Ending(Gesture::Abort)) {
                    self.quit = Some(Quit::Close);
                }
                return true;
            }
            Outcome::Done(_) if gesture == Gesture::AutoCommit => {
                self.message = "auto-commit switched".into();
            }
            Outcome::Error(e) => {
                self.message = e.message;
                if matches!(self.quit, Some(Quit::Ending(_))) {
                    self.quit = Some(Quit::Asking);
                }
            }
            _ => {}
        }
        false
    }

    /// The bar; answers the gesture clicked (and for Auto-commit, whether it is to be on).
    pub fn bar(&mut self, ui: &mut egui::Ui) -> Option<(Gesture, bool)> {
        let mut clicked = None;
        ui.horizontal(|ui| {
            let status = self.status.clone();
            let state = match &status {
                Some(s) if s.in_transaction => format!("in a transaction ({})", s.mode),
                Some(s) => format!("outside a transaction ({})", s.mode),
                None => "...".into(),
            };
            ui.label(state);
            match &status {
                Some(s) if s.needs_commit => {
                    ui.colored_label(ui.visuals().warn_fg_color, "uncommitted changes");
                }
                Some(_) => {
                    ui.weak("nothing to commit");
                }
                None => {}
            }
            if ui.button("Commit").clicked() {
                clicked = Some((Gesture::Commit, false));
            }
            if ui.button("Abort").clicked() {
                clicked = Some((Gesture::Abort, false));
            }
            let mut auto = status.is_some_and(|s| s.auto_commit);
            if ui.checkbox(&mut auto, "Auto-commit").changed() {
                clicked = Some((Gesture::AutoCommit, auto));
            }
            if self.stale {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    "Others have committed since this view: abort to see their work",
                );
            }
            if !self.message.is_empty() {
                ui.label(&self.message);
            }
        });
        clicked
    }

    /// The question asked when the window closes over uncommitted changes; answers the
    /// gesture chosen (Commit or Abort; Cancel answers none and ends the question).
    pub fn quit_ui(&mut self, ui: &mut egui::Ui) -> Option<Gesture> {
        let quit = self.quit?;
        let mut chosen = None;
        let modal = egui::Modal::new(egui::Id::unique("quit-with-changes")).show(ui.ctx(), |ui| {
            ui.set_width(420.0);
            ui.heading("Uncommitted changes");
            match quit {
                Quit::Asking => {
                    ui.label("The transaction has changes not committed. Commit them before closing, or abort them?");
                }
                Quit::Ending(_) | Quit::Close => {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("closing...");
                    });
                }
            }
            if !self.message.is_empty() {
                ui.label(&self.message);
            }
            ui.horizontal(|ui| {
                let asking = quit == Quit::Asking;
                if ui.add_enabled(asking, egui::Button::new("Commit and close")).clicked() {
                    chosen = Some(Gesture::Commit);
                }
                if ui.add_enabled(asking, egui::Button::new("Abort and close")).clicked() {
                    chosen = Some(Gesture::Abort);
                }
                if ui.button("Cancel").clicked() {
                    self.quit = None;
                }
            });
        });
        if modal.should_close() && quit == Quit::Asking && chosen.is_none() {
            self.quit = None;
        }
        if let Some(gesture) = chosen {
            self.quit = Some(Quit::Ending(gesture));
        }
        chosen
    }
}
