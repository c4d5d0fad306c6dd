//! The margin beside a method's source in a code editor: a marker on each line with a
//! breakpoint (filled when enabled, hollow when disabled), and on every line a place to click
//! that sets a breakpoint there, or removes the one there. Each place is a button to
//! assistive technology too ("Set a breakpoint at line 3", "Remove breakpoint 2 at line 3").

use eframe::egui::{self, text::CCursor};

/// The width of the margin, in points.
pub const WIDTH: f32 = 16.0;

/// A breakpoint as the margin shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marker {
    /// Its line (from 1).
    pub line: u32,
    /// Its number.
    pub id: u64,
    /// Whether it stops.
    pub enabled: bool,
}

/// What a click in the margin asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Click {
    /// A breakpoint at this line.
    Set(u32),
    /// Breakpoint `id` gone.
    Remove(u64),
}

/// Draws the margin at the left of `margin` beside the text laid out in `galley` at `at`,
/// with `markers`; answers what a click there asks.
pub fn draw(
    ui: &mut egui::Ui,
    margin: egui::Rect,
    galley: &egui::Galley,
    at: egui::Pos2,
    text: &str,
    markers: &[Marker],
) -> Option<Click> {
    let starts = std::iter::once(0).chain(text.char_indices().filter(|(_, c)| *c == '\n').map(|(i, _)| i + 1));
    let mut clicked = None;
    for (index, byte) in starts.enumerate() {
        let line = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let chars = text.get(..byte).map_or(0, |before| before.chars().count());
        let row = galley.pos_from_cursor(CCursor::new(chars)).translate(at.to_vec2());
        let rect =
            egui::Rect::from_min_max(egui::pos2(margin.left(), row.top()), egui::pos2(margin.right(), row.bottom()));
        let id = ui.scope_id().with(("breakpoint margin", line));
        let response = ui.interact(rect, id, egui::Sense::click());
        let marker = markers.iter().find(|m| m.line == line);
        let label = match marker {
            Some(m) => format!("Remove breakpoint {} at line {line}", m.id),
            None => format!("Set a breakpoint at line {line}"),
        };
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, ui.is_enabled(), &label));
        let center = rect.center();
        let radius = (rect.height().min(WIDTH) * 0.3).max(2.0);
        let red = egui::Color32::from_rgb(220, 50, 47);
        match marker {
            Some(m) if m.enabled => {
                ui.painter().circle_filled(center, radius, red);
            }
            Some(_) => {
                ui.painter().circle_stroke(center, radius, egui::Stroke::new(1.5, red));
            }
            None if response.hovered() => {
                ui.painter().circle_filled(center, radius, red.gamma_multiply(0.35));
            }
            None => {}
        }
        if response.clicked() {
            clicked = Some(match marker {
                Some(m) => Click::Remove(m.id),
                None => Click::Set(line),
            });
        }
    }
    clicked
}
