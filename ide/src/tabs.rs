//! How the panes are drawn as tabs (egui_tiles' `Behavior`): tabs of one width whatever their
//! titles (a long title is cut short, shown whole on hover), so that a click lands where it
//! was aimed as titles change; a list of every tab at the right of each tab bar; the tab made
//! active scrolled into sight; which pane the pointer was last pressed in (its shortcuts
//! work); and what closing a tab does (a workspace is kept to open again, an inspector's
//! objects are let go, code with edits not accepted stays open).

use std::collections::HashSet;

use eframe::egui;
use egui_tiles::{TileId, Tiles};
use onyx_protocol::agent::{self as pb, operation::Op};

use crate::ctx::Ctx;
use crate::layout::{self, Closed};
use crate::panes::Pane;
use crate::remote::{Attached, OnGem};

/// The width of every tab, in points.
const TAB_WIDTH: f32 = 180.0;

/// Where it is kept that the tab of `tile` is to be scrolled into sight.
fn reveal_key(tile: TileId) -> egui::Id {
    egui::Id::NULL.with(("onyx-reveal-tab", tile))
}

/// How the panes are drawn as tabs.
pub struct Behavior<'a> {
    /// The context of the panes on the IDE's own gem.
    pub ctx: Ctx<'a>,
    /// The links of the panes on other gems.
    pub attached: &'a mut Attached,
    /// The handles of the conflicting objects the transaction bar shows.
    pub conflicts: HashSet<u64>,
    /// Where a workspace closed goes, to be opened again.
    pub closed: &'a mut Vec<Closed>,
    /// The pane the pointer was last pressed in (its keyboard shortcuts work).
    pub focus: &'a mut Option<TileId>,
    /// A tab chosen from a tab list, to make active once the tabs are drawn.
    pub chosen: Option<TileId>,
}

impl egui_tiles::Behavior<Pane> for Behavior<'_> {
    fn pane_ui(&mut self, ui: &mut egui::Ui, tile: TileId, pane: &mut Pane) -> egui_tiles::UiResponse {
        let pressed = ui.input(|i| i.pointer.any_pressed().then(|| i.pointer.interact_pos()).flatten());
        if pressed.is_some_and(|at| ui.max_rect().contains(at)) {
            *self.focus = Some(tile);
        }
        // Until the pointer has been pressed in a pane, each takes the shortcuts it hears.
        self.ctx.focused = self.focus.is_none_or(|f| f == tile);
        egui::Frame::new().inner_margin(4.0).show(ui, |ui| match pane.gem().map(str::to_string) {
            None => pane.ui(ui, &mut self.ctx),
            Some(gem) => match self.attached.link_mut(&gem) {
                Some(link) => {
                    let before = self.ctx.opened.len();
                    pane.ui(ui, &mut self.ctx.on(link));
                    // What a pane on another gem opens is on that gem too.
                    let new: Vec<Pane> = self.ctx.opened.drain(before..).collect();
                    for inner in new {
                        self.ctx.opened.push(Box::new(OnGem { gem: gem.clone(), inner }));
                    }
                }
                None => {
                    ui.label(format!("Not linked to the gem at {gem}."));
                }
            },
        });
        egui_tiles::UiResponse::None
    }

    fn tab_title_for_pane(&mut self, pane: &Pane) -> egui::WidgetText {
        pane.title().into()
    }

    fn is_tab_closable(&self, _tiles: &Tiles<Pane>, _tile: TileId) -> bool {
        true
    }

    /// A tab of [`TAB_WIDTH`]: its title (cut short if it must be), and a close button.
    fn tab_ui(
        &mut self,
        tiles: &mut Tiles<Pane>,
        ui: &mut egui::Ui,
        id: egui::Id,
        tile: TileId,
        state: &egui_tiles::TabState,
    ) -> egui::Response {
        let title = self.tab_title_for_tile(tiles, tile).text().to_string();
        let (_, rect) = ui.allocate_space(egui::vec2(TAB_WIDTH, ui.available_height()));
        let response = ui.interact(rect, id, egui::Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, ui.is_enabled(), state.active, &title));
        let response = response.on_hover_text(&title);
        // A tab clicked is where the keys go, as a pane clicked in.
        if response.clicked() {
            *self.focus = Some(tile);
        }
        // A tab made active is scrolled into sight (see `top_bar_right_ui`) until it is.
        if state.active && ui.clip_rect().contains_rect(rect) {
            ui.data_mut(|d| d.remove::<bool>(reveal_key(tile)));
        }
        let margin = self.tab_title_spacing(ui.visuals());
        let close = egui::Rect::from_center_size(
            egui::pos2(rect.right() - margin - 6.0, rect.center().y),
            egui::Vec2::splat(self.close_button_outer_size()),
        );
        if ui.is_rect_visible(rect) && !state.is_being_dragged {
            let fill = self.tab_bg_color(ui.visuals(), tiles, tile, state);
            let stroke = self.tab_outline_stroke(ui.visuals(), tiles, tile, state);
            ui.painter().rect(rect.shrink(0.5), 0.0, fill, stroke, egui::StrokeKind::Inside);
            let text = egui::WidgetText::from(title.as_str());
            let width = (close.left() - rect.left() - 2.0 * margin).max(10.0);
            let font = egui::TextStyle::Button.resolve(ui.style());
            let galley = text.into_galley(ui, Some(egui::TextWrapMode::Truncate), width, font);
            let at = egui::pos2(rect.left() + margin, rect.center().y - galley.size().y / 2.0);
            let color = self.tab_text_color(ui.visuals(), tiles, tile, state);
            ui.painter().galley(at, galley, color);
        }
        if state.closable {
            let button = ui.interact(close, id.with("close"), egui::Sense::click());
            button.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, ui.is_enabled(), "Close"));
            let visuals = ui.style().interact(&button);
            let cross = close.shrink(self.close_button_inner_margin()).expand(visuals.expansion);
            let painter = ui.painter();
            painter.line_segment([cross.left_top(), cross.right_bottom()], visuals.fg_stroke);
            painter.line_segment([cross.right_top(), cross.left_bottom()], visuals.fg_stroke);
            if (button.clicked() || response.clicked_by(egui::PointerButton::Middle)) && self.on_tab_close(tiles, tile)
            {
                tiles.remove(tile);
            }
        }
        response
    }

    /// Every tab of the bar in a list (to reach one scrolled out of sight), and the tab made
    /// active scrolled into sight.
    fn top_bar_right_ui(
        &mut self,
        tiles: &Tiles<Pane>,
        ui: &mut egui::Ui,
        tile: TileId,
        tabs: &egui_tiles::Tabs,
        scroll_offset: &mut f32,
    ) {
        let shown: Vec<TileId> = tabs.children.iter().copied().filter(|c| tiles.is_visible(*c)).collect();
        ui.menu_button("Tabs", |ui| {
            for &child in &shown {
                let title = match tiles.get(child) {
                    Some(egui_tiles::Tile::Pane(pane)) => pane.title(),
                    _ => continue,
                };
                if ui.selectable_label(tabs.active == Some(child), title).clicked() {
                    self.chosen = Some(child);
                    ui.close();
                }
            }
        });
        let Some(active) = tabs.active else { return };
        let key = egui::Id::NULL.with(("onyx-active-tab", tile));
        if ui.data(|d| d.get_temp::<TileId>(key)) != Some(active) {
            ui.data_mut(|d| {
                d.insert_temp(key, active);
                d.insert_temp(reveal_key(active), true);
            });
        }
        if ui.data(|d| d.get_temp::<bool>(reveal_key(active))).unwrap_or(false)
            && let Some(at) = shown.iter().position(|c| *c == active)
        {
            let arrows = 2.0 * (self.tab_bar_height(ui.style()) + ui.spacing().item_spacing.x);
            let room = (ui.available_width() - arrows).max(TAB_WIDTH);
            let (left, right) = (at as f32 * TAB_WIDTH, (at + 1) as f32 * TAB_WIDTH);
            *scroll_offset = scroll_offset.clamp((right - room).max(0.0), left);
            ui.ctx().request_repaint();
        }
    }

    /// A pane with code whose edits are not accepted stays open, and says so. An inspector
    /// that closes lets the gem forget the objects only it held.
    fn on_tab_close(&mut self, tiles: &mut Tiles<Pane>, tile: TileId) -> bool {
        let closing: Vec<u64> = match tiles.get_mut(tile) {
            Some(egui_tiles::Tile::Pane(pane)) => {
                if pane.holds_unaccepted_edits() {
                    return false;
                }
                if let Some(layout::Saved::Workspace { text }) = pane.saved()
                    && !text.trim().is_empty()
                {
                    self.closed.push(Closed { text });
                    let over = self.closed.len().saturating_sub(layout::CLOSED_KEPT);
                    self.closed.drain(..over);
                }
                pane.handles()
            }
            _ => return true,
        };
        // The gem gives one object one handle: keep those another pane or the bar still shows.
        let held_elsewhere: HashSet<u64> = tiles
            .iter()
            .filter(|(id, _)| **id != tile)
            .filter_map(|(_, t)| match t {
                egui_tiles::Tile::Pane(pane) => Some(pane.handles()),
                egui_tiles::Tile::Container(_) => None,
            })
            .flatten()
            .chain(self.conflicts.iter().copied())
            .collect();
        let handles: Vec<u64> = closing.into_iter().filter(|h| !held_elsewhere.contains(h)).collect();
        if !handles.is_empty() {
            self.ctx.send("close an inspector", vec![Op::Release(pb::Handles { handles })]);
        }
        true
    }

    fn simplification_options(&self) -> egui_tiles::SimplificationOptions {
        egui_tiles::SimplificationOptions { all_panes_must_have_tabs: true, ..Default::default() }
    }
}
