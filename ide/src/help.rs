//! The help pane: every keyboard shortcut of the IDE, where each works, and the gestures a
//! keyboard does not show (context menus, dragging, splitters, zoom). It asks the gem for
//! nothing.

use eframe::egui;

use crate::ctx::Ctx;
use crate::layout::Saved;
use crate::panes::View;

/// Where shortcuts work, and each one's keys and effect.
pub const SHORTCUTS: &[(&str, &[(&str, &str)])] = &[
    (
        "Anywhere",
        &[
            ("Ctrl+K", "Find: a class or a selector, listed as you type (Enter opens the first)"),
            ("Ctrl+Shift+T", "Open the workspace closed last again"),
            ("Ctrl+Tab, Ctrl+Shift+Tab", "The next or previous tab of the tabs under the pointer"),
            ("Ctrl+Plus, Ctrl+Minus, Ctrl+0", "Zoom in, out, back to 100% (also in Settings)"),
            ("F1", "This help"),
        ],
    ),
    (
        "Code (browser, method lists, debugger, workspace)",
        &[
            ("Ctrl+S", "Accept: compile the method, redefine the class, or set the comment"),
            ("Ctrl+B", "Browse the name at the cursor: a class, or a selector's implementors"),
            ("Right click", "Browse, senders, implementors or references of the name at the cursor"),
            ("Ctrl+Z, Ctrl+Y", "Undo, redo"),
        ],
    ),
    (
        "System browser",
        &[
            ("Ctrl+N", "Senders of the method chosen"),
            ("Ctrl+M", "Implementors of the method chosen"),
            ("Alt+Left, Alt+Right", "Back and forward through what was browsed"),
            ("Right click", "A package's, class's, protocol's or method's menu"),
            ("Drag a method onto a protocol", "Move it there"),
            ("Drag a splitter", "Resize the lists and the editor"),
        ],
    ),
    (
        "Workspace",
        &[
            ("Ctrl+D", "Do it: the selection, or the line the cursor is on"),
            ("Ctrl+P", "Print it: the value goes in after the selection"),
            ("Ctrl+I", "Inspect it"),
        ],
    ),
    (
        "Debugger",
        &[
            ("F5", "Proceed"),
            ("Shift+F5", "Terminate"),
            ("Ctrl+Shift+F5", "Restart the frame"),
            ("F10", "Step over"),
            ("F11", "Step into"),
            ("Ctrl+F11", "Step through (into the blocks of the frame)"),
            ("Shift+F11", "Step out"),
            ("Ctrl+F10", "Run to the statement at the cursor"),
            ("Ctrl+Shift+F10", "Return the value typed from the frame"),
        ],
    ),
];

/// The shortcuts, and how the IDE works.
#[derive(Default)]
pub struct Help;

impl View for Help {
    fn name(&self) -> &'static str {
        "Help"
    }

    fn title(&self) -> String {
        "Help".into()
    }

    fn saved(&self) -> Option<Saved> {
        Some(Saved::Help)
    }

    fn ui(&mut self, ui: &mut egui::Ui, _ctx: &mut Ctx) {
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            ui.heading("Keyboard shortcuts");
            // The widest key sets every group's first column, so the descriptions line up down
            // the page (the column is at least that wide; the descriptions are wider).
            let keys_width = SHORTCUTS
                .iter()
                .flat_map(|(_, keys)| keys.iter())
                .map(|(key, _)| {
                    let font = egui::TextStyle::Monospace.resolve(ui.style());
                    ui.fonts_mut(|f| f.layout_no_wrap(key.to_string(), font, egui::Color32::WHITE).size().x)
                })
                .fold(0.0, f32::max);
            for (place, keys) in SHORTCUTS {
                ui.add_space(8.0);
                ui.strong(*place);
                egui::Grid::new(("shortcuts", *place)).striped(true).min_col_width(keys_width).show(ui, |ui| {
                    for (key, what) in *keys {
                        ui.monospace(*key);
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            }
            ui.add_space(12.0);
            ui.heading("Working in a gem");
            for line in [
                "Every gesture that needs the gem is one round trip: the status bar shows its server and network time.",
                "Your work is a transaction: the bar at the top says whether it holds uncommitted changes. Commit \
                 makes them everyone's; Abort drops them and shows what others committed.",
                "Closing the window over uncommitted changes asks to commit or abort them first; closing a \
                 workspace keeps its text under Closed workspaces.",
                "The tabs, the workspaces' text and the panes' sizes are kept across restarts.",
            ] {
                ui.label(line);
            }
        });
    }
}
