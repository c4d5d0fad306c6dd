//! The settings pane: the theme (light, dark, or the system's) and the zoom. egui keeps both
//! and they are kept across restarts with the window's other state. It asks the gem for
//! nothing.

use eframe::egui;

use crate::ctx::Ctx;
use crate::layout::Saved;
use crate::panes::View;

#[derive(Default)]
pub struct Settings;

impl View for Settings {
    fn name(&self) -> &'static str {
        "Settings"
    }

    fn title(&self) -> String {
        "Settings".into()
    }

    fn saved(&self) -> Option<Saved> {
        Some(Saved::Settings)
    }

    fn ui(&mut self, ui: &mut egui::Ui, _ctx: &mut Ctx) {
        egui::Grid::new("settings").num_columns(2).spacing([16.0, 8.0]).show(ui, |ui| {
            ui.label("Theme");
            ui.horizontal(|ui| {
                let now = ui.ctx().options(|o| o.theme_preference);
                for (theme, name) in [
                    (egui::ThemePreference::System, "As the system"),
                    (egui::ThemePreference::Light, "Light"),
                    (egui::ThemePreference::Dark, "Dark"),
                ] {
                    if ui.selectable_label(now == theme, name).clicked() {
                        ui.ctx().set_theme(theme);
                    }
                }
            });
            ui.end_row();
            let label = ui.label("Zoom");
            let mut zoom = ui.ctx().zoom_factor();
            let slider = egui::Slider::new(&mut zoom, 0.5..=3.0).step_by(0.1).suffix("x");
            if ui.add(slider).labelled_by(label.id).changed() {
                ui.ctx().set_zoom_factor(zoom);
            }
            ui.end_row();
            ui.label("");
            ui.weak("Ctrl+Plus, Ctrl+Minus and Ctrl+0 zoom too.");
            ui.end_row();
        });
    }
}
