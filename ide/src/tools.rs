//! The kinds of pane the menus and the tool bar open, each a [`Tool`].

use crate::breakpoints::BreakpointBrowser;
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

/// A kind of pane the menus and the tool bar open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Browser,
    Workspace,
    Transcript,
    Sessions,
    Processes,
    Breakpoints,
    Versions,
    TestRunner,
    Help,
    Settings,
}

impl Tool {
    /// The menus' entries, and the tool bar's buttons.
    pub const ALL: [(Tool, &'static str, &'static str); 10] = [
        (Tool::Browser, "Browser", "New browser"),
        (Tool::Workspace, "Workspace", "New workspace"),
        (Tool::Transcript, "Transcript", "New transcript"),
        (Tool::Sessions, "Sessions", "Sessions"),
        (Tool::Processes, "Processes", "Processes"),
        (Tool::Breakpoints, "Breakpoints", "Breakpoints"),
        (Tool::Versions, "Package versions", "Versions"),
        (Tool::TestRunner, "Test runner", "Test runner"),
        (Tool::Help, "Shortcuts and help (F1)", ""),
        (Tool::Settings, "Settings", ""),
    ];

    /// A new pane of this kind (asking the gem for what it shows: one batch).
    pub fn open(self, ctx: &mut Ctx) -> Pane {
        match self {
            Tool::Browser => Box::new(Browser::new(ctx)),
            Tool::Workspace => Box::new(Workspace::default()),
            Tool::Transcript => Box::new(Transcript::new(ctx)),
            Tool::Sessions => Box::new(Sessions::new(ctx)),
            Tool::Processes => Box::new(Processes::new(ctx)),
            Tool::Breakpoints => {
                ctx.read_breakpoints();
                Box::new(BreakpointBrowser)
            }
            Tool::Versions => Box::new(VersionBrowser::new(Vec::new(), &ctx.link.user)),
            Tool::TestRunner => Box::new(TestRunner::new(ctx)),
            Tool::Help => Box::new(Help),
            Tool::Settings => Box::new(Settings),
        }
    }

    /// Whether one pane of this kind is enough (shown again rather than opened twice).
    pub fn single(self) -> Option<&'static str> {
        match self {
            Tool::Help => Some("Help"),
            Tool::Settings => Some("Settings"),
            _ => None,
        }
    }
}
