//! What the IDE keeps across closing and restarting: the tabs as they were arranged (each pane
//! as what it showed, not the gem's objects it held), the workspaces' text, and the workspaces
//! closed since (to open again). It is written through egui's persistence (`eframe::Storage`)
//! and read back at start from eframe's file, before the window is made (so the panes' first
//! questions are answered while it opens); panes that showed objects of a session that ended
//! (inspectors, debuggers, method lists) are not kept.

use serde::{Deserialize, Serialize};

use crate::browser::Browser;
use crate::ctx::Ctx;
use crate::help::Help;
use crate::panes::{Pane, Transcript};
use crate::processes::Processes;
use crate::runner::TestRunner;
use crate::sessions::Sessions;
use crate::settings::Settings;
use crate::versions::VersionBrowser;
use crate::workspace::Workspace;

/// The key the layout is kept under in egui's storage.
pub const KEY: &str = "onyx-ide-layout";

/// The layout kept in egui's storage file at `path` (a RON map from each key to the RON of
/// its value, as eframe writes it), read before the window is made; none if there is no such
/// file or it holds no layout this IDE reads.
pub fn read(path: &std::path::Path) -> Option<Layout> {
    let text = std::fs::read_to_string(path).ok()?;
    let kept: std::collections::HashMap<String, String> = ron::from_str(&text).ok()?;
    ron::from_str(kept.get(KEY)?).ok()
}

/// At most this many closed workspaces are kept (the oldest go first).
pub const CLOSED_KEPT: usize = 30;

/// A pane as it is kept: what it showed, to show again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Saved {
    /// A system or hierarchy browser and what was chosen in it.
    Browser {
        /// The package chosen.
        package: Option<String>,
        /// The class chosen.
        class: Option<String>,
        /// The class side rather than the instance side.
        meta: bool,
        /// The method chosen.
        selector: Option<String>,
        /// The class whose hierarchy it lists, for a hierarchy browser.
        hierarchy_of: Option<String>,
    },
    /// A workspace and its text.
    Workspace {
        /// What was typed in it.
        text: String,
    },
    /// The transcript.
    Transcript,
    /// The stone's sessions.
    Sessions,
    /// The gem's processes.
    Processes,
    /// The test runner, on a package (every package without one).
    TestRunner {
        /// The package whose test classes it lists.
        package: Option<String>,
    },
    /// The package-version browser and its repositories.
    Versions {
        /// The version repositories added to it.
        repositories: Vec<String>,
    },
    /// The help pane.
    Help,
    /// The settings pane.
    Settings,
}

impl Saved {
    /// The pane again, asking the gem for what it shows (one batch per pane).
    pub fn open(self, ctx: &mut Ctx) -> Pane {
        match self {
            Saved::Browser { package, class, meta, selector, hierarchy_of } => {
                Box::new(Browser::restored(ctx, package, class, meta, selector, hierarchy_of))
            }
            Saved::Workspace { text } => Box::new(Workspace::with_text(text)),
            Saved::Transcript => Box::new(Transcript::new(ctx)),
            Saved::Sessions => Box::new(Sessions::new(ctx)),
            Saved::Processes => Box::new(Processes::new(ctx)),
            Saved::TestRunner { package } => Box::new(TestRunner::restored(ctx, package)),
            Saved::Versions { repositories } => Box::new(VersionBrowser::new(repositories, &ctx.link.user)),
            Saved::Help => Box::new(Help),
            Saved::Settings => Box::new(Settings),
        }
    }
}

/// A workspace that was closed, to open again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Closed {
    /// Its text.
    pub text: String,
}

impl Closed {
    /// Its first line with something on it, cut short: what the list of closed workspaces
    /// shows.
    pub fn label(&self) -> String {
        let line = self.text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("(blank)");
        let mut label: String = line.chars().take(48).collect();
        if line.chars().count() > 48 {
            label.push_str("...");
        }
        label
    }
}

/// Everything kept: the tabs, and the workspaces closed.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Layout {
    /// The tabs and how they were split, each pane as it is kept; none if no pane could be.
    pub tree: Option<egui_tiles::Tree<Saved>>,
    /// Closed workspaces, the latest last.
    pub closed: Vec<Closed>,
}

/// The tree of panes as kept: the same tiles and arrangement, without the panes that are not
/// kept.
pub fn save(tree: &egui_tiles::Tree<Pane>) -> Option<egui_tiles::Tree<Saved>> {
    let mut tiles = egui_tiles::Tiles::default();
    for (id, tile) in tree.tiles.iter() {
        if let egui_tiles::Tile::Pane(pane) = tile
            && let Some(saved) = pane.saved()
        {
            tiles.insert(*id, egui_tiles::Tile::Pane(saved));
        }
    }
    for (id, tile) in tree.tiles.iter() {
        if let egui_tiles::Tile::Container(container) = tile {
            let mut container = container.clone();
            container.retain(|child| tiles.get(child).is_some() || tree.tiles.get_container(child).is_some());
            tiles.insert(*id, egui_tiles::Tile::Container(container));
        }
    }
    let root = tree.root.filter(|r| tiles.get(*r).is_some())?;
    let any = tiles.iter().any(|(_, t)| t.is_pane());
    any.then(|| egui_tiles::Tree::new(tree.id(), root, tiles))
}

/// The tree of panes kept, opened again (each pane asking the gem for what it shows); none if
/// it holds no pane.
pub fn restore(saved: egui_tiles::Tree<Saved>, ctx: &mut Ctx) -> Option<egui_tiles::Tree<Pane>> {
    let root = saved.root?;
    let mut tiles = egui_tiles::Tiles::default();
    for (id, tile) in saved.tiles.iter() {
        let tile = match tile {
            egui_tiles::Tile::Pane(pane) => egui_tiles::Tile::Pane(pane.clone().open(ctx)),
            egui_tiles::Tile::Container(container) => egui_tiles::Tile::Container(container.clone()),
        };
        tiles.insert(*id, tile);
    }
    tiles.get(root)?;
    let any = tiles.iter().any(|(_, t)| t.is_pane());
    any.then(|| egui_tiles::Tree::new(saved.id(), root, tiles))
}
