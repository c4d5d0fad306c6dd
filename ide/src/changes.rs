//! Changes between two states of a package, side by side: each definition that differs (a
//! class definition, a comment, a method) with its text before on the left and after on the
//! right, line against line, removed lines and added ones highlighted.

use eframe::egui;
use onyx_protocol::agent as pb;
use similar::{ChangeTag, TextDiff};

/// How a definition differs, in words.
pub fn kind(change: &pb::DefinitionDiff) -> &'static str {
    match pb::ChangeKind::try_from(change.kind) {
        Ok(pb::ChangeKind::Added) => "added",
        Ok(pb::ChangeKind::Removed) => "removed",
        _ => "changed",
    }
}

/// A line of one side, and whether it differs from the other side's; none facing a line
/// only the other side has.
type Cell = Option<(String, bool)>;

/// The lines of `before` and `after` side by side: (left, right).
fn rows(before: &str, after: &str) -> Vec<(Cell, Cell)> {
    let mut rows = Vec::new();
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    let flush = |rows: &mut Vec<_>, removed: &mut Vec<String>, added: &mut Vec<String>| {
        let n = removed.len().max(added.len());
        let (mut r, mut a) = (removed.drain(..), added.drain(..));
        for _ in 0..n {
            rows.push((r.next().map(|l| (l, true)), a.next().map(|l| (l, true))));
        }
    };
    for change in TextDiff::from_lines(before, after).iter_all_changes() {
        let line = change.value().trim_end_matches(['\r', '\n']).to_string();
        match change.tag() {
            ChangeTag::Delete => removed.push(line),
            ChangeTag::Insert => added.push(line),
            ChangeTag::Equal => {
                flush(&mut rows, &mut removed, &mut added);
                rows.push((Some((line.clone(), false)), Some((line, false))));
            }
        }
    }
    flush(&mut rows, &mut removed, &mut added);
    rows
}

/// Draws `changes` side by side under the headings `left` and `right`.
pub fn side_by_side(ui: &mut egui::Ui, id: &str, changes: &[pb::DefinitionDiff], left: &str, right: &str) {
    if changes.is_empty() {
        ui.label("No difference");
        return;
    }
    let red = egui::Color32::from_rgba_unmultiplied(220, 50, 47, 70);
    let green = egui::Color32::from_rgba_unmultiplied(133, 153, 0, 70);
    let cell = |ui: &mut egui::Ui, side: Cell, color: egui::Color32| match side {
        Some((line, differs)) => {
            let text = egui::RichText::new(if line.is_empty() { " ".to_string() } else { line }).monospace();
            ui.label(if differs { text.background_color(color) } else { text });
        }
        None => {
            ui.label("");
        }
    };
    for (i, change) in changes.iter().enumerate() {
        ui.strong(format!("{} ({})", change.definition, kind(change)));
        let (before, after) =
            (change.before.as_deref().unwrap_or_default(), change.after.as_deref().unwrap_or_default());
        egui::Grid::new((id, i)).num_columns(2).min_col_width(ui.available_width() / 2.0 - 8.0).show(ui, |ui| {
            ui.weak(left);
            ui.weak(right);
            ui.end_row();
            for (l, r) in rows(before, after) {
                cell(ui, l, red);
                cell(ui, r, green);
                ui.end_row();
            }
        });
        ui.separator();
    }
}

#[cfg(test)]
mod tests {
    use super::rows;

    #[test]
    fn changed_lines_face_each_other_and_kept_ones_line_up() {
        let got = rows("a\n\t^ 42\nz", "a\n\t^ 43\n\t^ 44\nz");
        let side = |s: super::Cell| s.map(|(l, d)| format!("{}{l}", if d { "*" } else { "" }));
        let got: Vec<_> = got.into_iter().map(|(l, r)| (side(l), side(r))).collect();
        let want = vec![
            (Some("a".to_string()), Some("a".to_string())),
            (Some("*\t^ 42".to_string()), Some("*\t^ 43".to_string())),
            (None, Some("*\t^ 44".to_string())),
            (Some("z".to_string()), Some("z".to_string())),
        ];
        assert_eq!(got, want);
    }
}
