//! The browser's lists as drawn: a scrolling list that draws only the rows in view (cut
//! short, never wrapped; its rows clicked, dragged, dropped on, or opening a context menu),
//! the classes flat or indented under their superclasses, and the name a class definition
//! defines.

use eframe::egui;
use onyx_protocol::agent as pb;

/// Rows of the lists, in points.
pub const ROW: f32 = 18.0;

/// The name of the class a definition (`Object subclass: #Name ...`) defines, if it says.
pub fn defined_name(definition: &str) -> String {
    let message = definition.rsplit_once("subclass:").map_or(definition, |(_, rest)| rest);
    let after = message.split_once('#').map_or("", |(_, rest)| rest);
    after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// A scrolling list of `rows` taking the height it is given, that draws only the rows in view
/// (a row too long for the width is cut short, never wrapped); `reveal` scrolls the selected
/// row into view. `each` gets every row drawn and its response (a click, a context menu, a
/// drag when `draggable`, a drop).
pub fn list(
    ui: &mut egui::Ui,
    id: &str,
    rows: &[String],
    selected: Option<&str>,
    reveal: bool,
    draggable: bool,
    mut each: impl FnMut(&mut egui::Ui, &str, &egui::Response),
) {
    let spaced = ROW + ui.spacing().item_spacing.y;
    let mut area = egui::ScrollArea::vertical().id_salt(id).auto_shrink([false, false]);
    if reveal && let Some(at) = rows.iter().position(|r| selected.is_some_and(|s| s == r.trim())) {
        let offset = at as f32 * spaced - (ui.available_height() - spaced) / 2.0;
        area = area.vertical_scroll_offset(offset.max(0.0));
    }
    let sense = if draggable { egui::Sense::click_and_drag() } else { egui::Sense::click() };
    area.show_rows(ui, ROW, rows.len(), |ui, range| {
        for row in &rows[range] {
            let is_selected = selected.is_some_and(|s| s == row.trim());
            // The name at the left, the row as wide as the list (to click and drop on).
            let button = egui::Button::selectable(is_selected, (row.as_str(), egui::Atom::grow()))
                .truncate()
                .sense(sense)
                .min_size(egui::vec2(ui.available_width(), ROW));
            let response = ui.add(button);
            each(ui, row, &response);
        }
    });
}

pub fn flat(classes: &[pb::ClassEntry]) -> Vec<String> {
    classes.iter().map(|c| c.name.clone()).collect()
}

/// The classes indented under their superclasses (those whose superclass is not listed at the
/// left), each after its superclass; siblings keep the order they came in.
pub fn hierarchy(classes: &[pb::ClassEntry]) -> Vec<String> {
    use std::collections::HashMap;
    let listed: HashMap<&str, usize> = classes.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); classes.len()];
    let mut roots = Vec::new();
    for (i, c) in classes.iter().enumerate() {
        match listed.get(c.superclass.as_str()) {
            Some(&parent) if parent != i => children[parent].push(i),
            _ => roots.push(i),
        }
    }
    // Depth first, without recursion: a deep hierarchy cannot exhaust the stack. Classes in a
    // cycle of superclasses (no root above them) come last, each still once.
    let mut rows = Vec::with_capacity(classes.len());
    let mut seen = vec![false; classes.len()];
    for start in roots.into_iter().chain(0..classes.len()) {
        let mut stack = vec![(start, 0)];
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            rows.push(format!("{}{}", "    ".repeat(depth), classes[i].name));
            stack.extend(children[i].iter().rev().map(|&k| (k, depth + 1)));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, superclass: &str) -> pb::ClassEntry {
        pb::ClassEntry { name: name.into(), superclass: superclass.into(), package: String::new() }
    }

    #[test]
    fn a_hierarchy_indents_each_class_under_its_superclass() {
        let classes = [entry("B", "A"), entry("A", "Object"), entry("C", "A"), entry("D", "B"), entry("E", "Object")];
        assert_eq!(hierarchy(&classes), ["A", "    B", "        D", "    C", "E"]);
    }

    #[test]
    fn the_class_a_definition_defines_is_named_after_subclass() {
        assert_eq!(defined_name("Object subclass: #Foo\n\tinstanceVariableNames: ''"), "Foo");
        assert_eq!(defined_name("(Smalltalk at: #Base) subclass: #Foo_2 instanceVariableNames: ''"), "Foo_2");
        assert_eq!(defined_name("Object subclass: 'Foo'"), "");
    }

    #[test]
    fn a_cycle_of_superclasses_is_listed_once_each_and_ends() {
        let classes = [entry("A", "B"), entry("B", "A"), entry("C", "C")];
        assert_eq!(hierarchy(&classes), ["C", "A", "    B"]);
    }
}
