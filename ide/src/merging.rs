//! A merge in the package-version browser: what the version brings into the gem's code
//! without a conflict (side by side), and each conflict with the ancestor's, our and their
//! text, settled by taking a side or by editing the merged text by hand. Settling is the
//! IDE's alone; the merge is applied (one batch) only once every conflict is settled.

use std::collections::BTreeMap;

use eframe::egui;
use onyx_protocol::agent::{self as pb, merge_resolution::Take};

use crate::changes::side_by_side;
use crate::ctx::Ctx;
use crate::editor::CodeEditor;

/// A merge told by the gem, and the conflicts settled so far.
pub struct MergeView {
    /// What the gem told of the merge.
    pub told: pb::Merged,
    /// How each conflict is settled, by definition.
    settled: BTreeMap<String, Take>,
    /// The conflict whose merged text is edited, and its editor.
    editing: Option<String>,
    editor: CodeEditor,
}

/// A method's source in a definition's text (which starts with its category, quoted), or
/// the text itself (a comment).
fn editable_text(definition: &str, text: &str) -> String {
    match text.split_once('\n') {
        Some((category, source)) if definition.contains(">>") && category.starts_with('"') => source.to_string(),
        _ => text.to_string(),
    }
}

impl MergeView {
    pub fn new(told: pb::Merged) -> MergeView {
        MergeView { told, settled: BTreeMap::new(), editing: None, editor: CodeEditor::new("merged-text") }
    }

    /// The resolutions to send with the merge.
    pub fn resolutions(&self) -> Vec<pb::MergeResolution> {
        self.settled
            .iter()
            .map(|(definition, take)| pb::MergeResolution { definition: definition.clone(), take: Some(take.clone()) })
            .collect()
    }

    /// Whether every conflict is settled.
    pub fn settled(&self) -> bool {
        self.told.conflicts.iter().all(|c| self.settled.contains_key(&c.definition))
    }

    /// Draws the merge; answers whether the user asked to apply it.
    pub fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) -> bool {
        let told = &self.told;
        ui.heading(format!("Merging {} into {} (common ancestor {})", told.theirs, told.ours, told.base));
        let open = told.conflicts.len();
        let settled = told.conflicts.iter().filter(|c| self.settled.contains_key(&c.definition)).count();
        let mut apply = false;
        ui.horizontal(|ui| {
            let may = self.settled() && ctx.link.may_change_code;
            if ui.add_enabled(may, egui::Button::new("Apply merge")).clicked() {
                apply = true;
            }
            ui.label(format!("{} incoming changes; {open} conflicts, {settled} settled", self.told.incoming.len()));
        });
        egui::CollapsingHeader::new(format!("Incoming ({})", self.told.incoming.len()))
            .default_open(open == 0)
            .show(ui, |ui| side_by_side(ui, "incoming", &self.told.incoming, &self.told.ours, &self.told.theirs));
        let mut edit = None;
        for conflict in &self.told.conflicts {
            let def = &conflict.definition;
            ui.horizontal(|ui| {
                let state = match self.settled.get(def) {
                    None => "not settled",
                    Some(Take::Ours(_)) => "ours taken",
                    Some(Take::Theirs(_)) => "theirs taken",
                    Some(Take::Edited(_)) => "edited by hand",
                };
                ui.strong(format!("Conflict: {def} ({state})"));
                if ui.button(format!("Take ours: {def}")).clicked() {
                    self.settled.insert(def.clone(), Take::Ours(pb::Empty {}));
                }
                if ui.button(format!("Take theirs: {def}")).clicked() {
                    self.settled.insert(def.clone(), Take::Theirs(pb::Empty {}));
                }
                if conflict.editable && ui.button(format!("Edit: {def}")).clicked() {
                    edit = Some(conflict.clone());
                }
            });
            ui.columns(3, |columns| {
                for (column, (title, text)) in columns.iter_mut().zip([
                    ("ancestor", &conflict.base),
                    ("ours", &conflict.ours),
                    ("theirs", &conflict.theirs),
                ]) {
                    column.weak(title);
                    column.label(egui::RichText::new(text.as_deref().unwrap_or("(absent)")).monospace());
                }
            });
            if self.editing.as_deref() == Some(def.as_str()) && self.editor.ui(ui, ctx, &format!("Merged {def}")) {
                self.settled.insert(def.clone(), Take::Edited(self.editor.text.clone()));
                let text = self.editor.text.clone();
                self.editor.accepted(&text);
            }
            ui.separator();
        }
        if let Some(conflict) = edit {
            let start = match self.settled.get(&conflict.definition) {
                Some(Take::Edited(text)) => Some(text.clone()),
                _ => {
                    conflict.ours.as_ref().or(conflict.theirs.as_ref()).map(|t| editable_text(&conflict.definition, t))
                }
            };
            self.editor.load(&start.unwrap_or_default());
            self.editing = Some(conflict.definition);
        }
        apply
    }
}
