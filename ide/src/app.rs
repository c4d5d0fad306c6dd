//! The IDE's window: the menus, the tools and quick-open, and the transaction bar at the
//! top, the status bar at the bottom, and the panes (browsers, workspaces, the transcript,
//! inspectors, method lists, sessions, the test runner, ...) as dockable tabs between them
//! (`tabs.rs` draws them). Every frame it hands what came back from the gem to the panes
//! that asked for it.

use std::collections::HashSet;
use std::time::Duration;

use eframe::egui;
use onyx_protocol::agent::{self as pb, event::Event, operation::Op};

use crate::browser::Browser;
use crate::ctx::{Ctx, Sent};
use crate::debugger::Notifier;
use crate::find::Find;
use crate::help::Help;
use crate::inspector::Inspector;
use crate::layout::{self, Closed, Layout};
use crate::link::{Incoming, Link, Linking, Reply, Ticket};
use crate::panes::{Changed, Pane, Transcript};
use crate::processes::Processes;
use crate::remote::{Attach, Attached, OnGem};
use crate::runner::{TestRunner, TestScope};
use crate::sessions::Sessions;
use crate::show::Show;
use crate::tabs::Behavior;
use crate::tools::Tool;
use crate::transaction::{Gesture, Quit, Transaction};
use crate::versions::VersionBrowser;
use crate::workspace::{Action, Workspace};

/// The last gesture that went to the gem, as the status bar shows it.
struct LastGesture {
    name: &'static str,
    server: Duration,
    network: Duration,
}

/// The IDE: its link to a gem, its panes and its bars.
pub struct Ide {
    link: Link,
    tree: egui_tiles::Tree<Pane>,
    sent: Sent,
    last: Option<LastGesture>,
    /// The last call that failed (the gem gone, or the login ended).
    error: Option<String>,
    /// Something the user is asked to do (shown until the next gesture is answered).
    notice: Option<String>,
    transaction: Transaction,
    events_ended: Option<String>,
    /// A new link being made after the gem could not be reached.
    reconnecting: Option<Linking>,
    find: Find,
    /// Processes of the gem that stopped where no tool looked (a forked process's error).
    notifiers: Vec<Notifier>,
    /// Workspaces closed, to open again (the latest last).
    closed: Vec<Closed>,
    /// The pane the pointer was last pressed in.
    focus: Option<egui_tiles::TileId>,
    /// Links to other gems, for the panes on them.
    attached: Attached,
}

impl Ide {
    /// An IDE on `link`, with a system browser, a workspace and the transcript open.
    pub fn new(link: Link) -> Ide {
        Ide::restored(link, Layout::default())
    }

    /// An IDE on `link` with the panes and closed workspaces `layout` kept (each pane asks
    /// the gem for what it shows), or the default panes if it kept none.
    pub fn restored(mut link: Link, layout: Layout) -> Ide {
        let mut sent = Sent::default();
        let mut opened = Vec::new();
        let tree = {
            let mut ctx = Ctx::new(&mut link, &mut sent, &mut opened);
            let tree = layout.tree.and_then(|saved| layout::restore(saved, &mut ctx)).unwrap_or_else(|| {
                let panes: Vec<Pane> = vec![
                    Box::new(Browser::new(&mut ctx)),
                    Box::new(Workspace::default()),
                    Box::new(Transcript::new(&mut ctx)),
                ];
                egui_tiles::Tree::new_tabs(egui::Id::unique("onyx-panes"), panes)
            });
            ctx.read_breakpoints();
            tree
        };
        let mut ide = Ide {
            link,
            tree,
            sent,
            last: None,
            error: None,
            notice: None,
            transaction: Transaction::default(),
            events_ended: None,
            reconnecting: None,
            find: Find::default(),
            notifiers: Vec::new(),
            closed: layout.closed,
            focus: None,
            attached: Attached::default(),
        };
        ide.refresh_transaction();
        ide
    }

    /// What is kept across closing and restarting: the panes as arranged, and the
    /// workspaces closed.
    pub fn layout(&self) -> Layout {
        Layout { tree: layout::save(&self.tree), closed: self.closed.clone() }
    }

    /// The workspaces closed, to open again (the latest last).
    pub fn closed_workspaces(&self) -> &[Closed] {
        &self.closed
    }

    /// Opens the pane a start-up option asks for (`onyx-ide --show`, used to make the README's
    /// screenshots).
    pub fn show(&mut self, what: &Show) {
        let mut opened = Vec::new();
        let mut ctx = Ctx::new(&mut self.link, &mut self.sent, &mut opened);
        let pane: Pane = match what {
            Show::Browser { class, selector } => {
                let mut browser = Browser::on_class(&mut ctx, class.clone());
                if let Some(selector) = selector {
                    browser.then_select(selector.clone());
                }
                Box::new(browser)
            }
            Show::Hierarchy(class) => Box::new(Browser::hierarchy_of(&mut ctx, class.clone())),
            Show::Print(code) => Box::new(Workspace::running(code.clone(), Action::Print)),
            Show::Inspect(code) => Box::new(Workspace::running(code.clone(), Action::Inspect)),
            Show::Transcript(code) => Box::new(Workspace::running(code.clone(), Action::Do)),
            Show::Debug(code) => Box::new(Workspace::running(code.clone(), Action::Debug)),
            Show::Sessions => Box::new(Sessions::new(&mut ctx)),
            Show::Processes => Box::new(Processes::new(&mut ctx)),
            Show::Breakpoints => Tool::Breakpoints.open(&mut ctx),
            Show::Tests(package) => {
                let scope = TestScope { package: package.clone(), tests: Vec::new() };
                Box::new(TestRunner::running(&mut ctx, scope))
            }
            Show::Versions { repository, package, merge } => {
                Box::new(VersionBrowser::showing(&mut ctx, repository, package, merge.as_deref()))
            }
            Show::Help => Box::new(Help),
        };
        self.open(pane);
        if matches!(what, Show::Transcript(_)) {
            self.activate("Transcript");
        }
    }

    /// Shows the first pane of kind `name`; answers whether there is one.
    fn activate(&mut self, name: &str) -> bool {
        let found = self.tree.tiles.iter().find_map(|(id, t)| match t {
            egui_tiles::Tile::Pane(p) if p.name() == name => Some(*id),
            _ => None,
        });
        if let Some(id) = found {
            self.tree.make_active(|tile, _| tile == id);
        }
        found.is_some()
    }

    /// Opens a pane of kind `tool` (or shows the one there is, for a kind of which one is
    /// enough).
    fn open_tool(&mut self, tool: Tool) {
        if tool.single().is_some_and(|name| self.activate(name)) {
            return;
        }
        let mut opened = Vec::new();
        let mut ctx = Ctx::new(&mut self.link, &mut self.sent, &mut opened);
        let pane = tool.open(&mut ctx);
        self.open(pane);
    }

    /// The link, for tests that count the batches a gesture sends.
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// Whether the window may close: not while code has edits not accepted (the first such
    /// pane is shown, asking to accept or discard them), nor while the transaction has
    /// uncommitted changes (it asks: Commit, Abort or Cancel).
    pub fn may_close(&mut self) -> bool {
        match self.transaction.quit {
            Some(Quit::Close) => return true,
            Some(_) => return false,
            None => {}
        }
        let mut dirty = None;
        for (id, tile) in self.tree.tiles.iter_mut() {
            if let egui_tiles::Tile::Pane(pane) = tile
                && pane.holds_unaccepted_edits()
            {
                dirty.get_or_insert(*id);
            }
        }
        if let Some(id) = dirty {
            self.tree.make_active(|tile, _| tile == id);
            self.notice = Some("Some code has edits not accepted: accept or discard them, then close.".into());
            return false;
        }
        if self.transaction.needs_commit() {
            self.transaction.quit = Some(Quit::Asking);
            return false;
        }
        true
    }

    /// Whether the window is to close now (the question on closing was answered, and the
    /// commit or abort is done).
    pub fn wants_close(&self) -> bool {
        self.transaction.quit == Some(Quit::Close)
    }

    /// Whether a gesture still waits for its reply (or a login to another gem).
    pub fn is_waiting(&self) -> bool {
        !self.sent.names.is_empty() || self.attached.is_connecting()
    }

    /// Batches sent to other gems by gestures of the panes on them, not counting those that
    /// read again what their events changed (for tests that count them).
    pub fn batches_to_other_gems(&self) -> u64 {
        self.attached.gestures_sent()
    }

    /// Draws the IDE.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.receive();
        self.reconnected();
        let mut tool = None;
        egui::Panel::top("transaction").show(ui, |ui| {
            tool = self.menus(ui);
            tool = self.tools_bar(ui).or(tool);
            self.transaction_bar(ui);
        });
        if ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::F1)) {
            tool = Some(Tool::Help);
        }
        if let Some(tool) = tool {
            self.open_tool(tool);
        }
        egui::Panel::bottom("status").show(ui, |ui| self.status_bar(ui));
        let mut opened = Vec::new();
        let chosen = {
            let conflicts = self.transaction.conflicts.iter().map(|f| f.handle).collect();
            let mut behavior = Behavior {
                ctx: Ctx::new(&mut self.link, &mut self.sent, &mut opened),
                attached: &mut self.attached,
                conflicts,
                closed: &mut self.closed,
                focus: &mut self.focus,
                chosen: None,
            };
            egui::CentralPanel::default().show(ui, |ui| self.tree.ui(&mut behavior, ui));
            behavior.chosen
        };
        if let Some(id) = chosen {
            self.tree.make_active(|tile, _| tile == id);
        }
        // A pane closed is no longer where the keys go.
        if self.focus.is_some_and(|f| self.tree.tiles.get(f).is_none()) {
            self.focus = None;
        }
        self.notifiers_ui(ui, &mut opened);
        if let Some(gesture) = self.transaction.quit_ui(ui) {
            self.transaction_gesture(gesture, false);
        }
        for pane in opened {
            self.open(pane);
        }
        self.attach_asked();
    }

    /// Opens the panes asked for on other gems: at once on a gem linked, else once its login
    /// is answered; and logs out of the gems no pane is on any more.
    fn attach_asked(&mut self) {
        for (gem, session, what) in std::mem::take(&mut self.sent.attach) {
            if gem == self.link.address {
                self.open_on(None, what);
            } else if let Some((gem, what)) = self.attached.ask(&self.link, gem, session, what) {
                self.open_on(Some(gem), what);
            }
        }
        for made in self.attached.made() {
            match made {
                Ok((gem, what)) => self.open_on(Some(gem), what),
                Err(why) => self.error = Some(why),
            }
        }
        let mut used = HashSet::new();
        for tile in self.tree.tiles.tiles() {
            if let egui_tiles::Tile::Pane(pane) = tile
                && let Some(gem) = pane.gem()
            {
                used.insert(gem.to_string());
            }
        }
        self.attached.keep_only(&used);
    }

    /// Opens `what` on the gem at `gem` (this gem: `None`).
    fn open_on(&mut self, gem: Option<String>, what: Attach) {
        let mut opened = Vec::new();
        let link = match &gem {
            None => &mut self.link,
            Some(g) => match self.attached.link_mut(g) {
                Some(link) => link,
                None => return,
            },
        };
        let mut ctx = Ctx::new(link, &mut self.sent, &mut opened);
        let pane: Pane = match what {
            Attach::Debugger(process) => Box::new(crate::debugger::Debugger::open(&mut ctx, process)),
            Attach::Processes => Box::new(Processes::new(&mut ctx)),
        };
        self.open(match gem {
            Some(gem) => Box::new(OnGem { gem, inner: pane }),
            None => pane,
        });
    }

    /// The notifiers of processes that stopped where no tool looked, each a window over the
    /// panes; what they open goes in `opened`.
    fn notifiers_ui(&mut self, ui: &mut egui::Ui, opened: &mut Vec<Pane>) {
        let mut ctx = Ctx::new(&mut self.link, &mut self.sent, opened);
        for (i, notifier) in self.notifiers.iter_mut().enumerate() {
            egui::Window::new(format!("Process {} stopped", notifier.process))
                .id(ui.make_persistent_id(("notifier", notifier.process)))
                // In a corner, over the status bar's end: the panes stay in reach.
                .anchor(egui::Align2::RIGHT_BOTTOM, egui::vec2(-12.0 - 24.0 * i as f32, -36.0 - 24.0 * i as f32))
                .collapsible(false)
                .show(ui.ctx(), |ui| notifier.ui(ui, &mut ctx));
        }
        self.notifiers.retain(|n| n.done.is_none());
    }

    /// Adds a pane as a new tab of the root, and shows it.
    fn open(&mut self, pane: Pane) {
        let id = self.tree.tiles.insert_pane(pane);
        let root = self.tree.root();
        match root.and_then(|r| self.tree.tiles.get_mut(r)) {
            Some(egui_tiles::Tile::Container(egui_tiles::Container::Tabs(tabs))) => {
                tabs.add_child(id);
                tabs.set_active(id);
            }
            Some(egui_tiles::Tile::Container(container)) => container.add_child(id),
            _ => self.tree.root = Some(id),
        }
    }

    /// Takes the new link once it is made: what the old one waited for will not come.
    fn reconnected(&mut self) {
        let Some(made) = self.reconnecting.as_ref().and_then(|r| r.try_recv().ok()) else { return };
        self.reconnecting = None;
        match made {
            Ok(link) => {
                self.link = link;
                self.sent = Sent::default();
                self.error = None;
                self.events_ended = None;
                self.each_pane(|p| p.forget_pending());
                self.notifiers.iter_mut().for_each(Notifier::forget_pending);
                self.find.forget_pending();
                self.refresh_transaction();
                let mut opened = Vec::new();
                Ctx::new(&mut self.link, &mut self.sent, &mut opened).read_breakpoints();
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Hands what came back to whoever asked for it.
    fn receive(&mut self) {
        for incoming in self.link.take() {
            match incoming {
                Incoming::Reply(reply) => self.deliver(*reply),
                Incoming::Event(event) => {
                    match &event {
                        Event::Stale(_) => self.transaction.stale = true,
                        Event::Relogged(r) => {
                            self.transaction.stale = false;
                            self.notice = Some(format!(
                                "The gem lost its stone and logged in again (session {}): its transaction was aborted, \
                                 and objects shown from before are gone.",
                                r.session
                            ));
                        }
                        Event::Process(p) if p.change == "failed" => {
                            let mut opened = Vec::new();
                            let mut ctx = Ctx::new(&mut self.link, &mut self.sent, &mut opened);
                            self.notifiers.push(Notifier::of_process(&mut ctx, p.process));
                        }
                        Event::Process(p) if p.change == "terminated" => {
                            self.notifiers.retain(|n| n.process != p.process);
                        }
                        Event::Transcript(_)
                        | Event::Sessions(_)
                        | Event::Process(_)
                        | Event::Suspended(_)
                        | Event::Breakpoints(_)
                        | Event::Progress(_) => {}
                    }
                    let mut opened = Vec::new();
                    let mut ctx = Ctx::new(&mut self.link, &mut self.sent, &mut opened);
                    ctx.refreshing = true;
                    for tile in self.tree.tiles.tiles_mut() {
                        if let egui_tiles::Tile::Pane(pane) = tile
                            && pane.gem().is_none()
                        {
                            pane.hear(&event, &mut ctx);
                        }
                    }
                    if matches!(event, Event::Breakpoints(_)) {
                        ctx.read_breakpoints();
                    }
                }
                Incoming::EventsEnded(why) => self.events_ended = Some(why),
            }
        }
        self.receive_from_other_gems();
    }

    /// Hands what came back from other gems to their panes: replies (the IDE's transaction is
    /// not theirs), and events, which only the panes on that gem hear.
    fn receive_from_other_gems(&mut self) {
        for (gem, incoming) in self.attached.take() {
            match incoming {
                Incoming::Reply(reply) => {
                    if let Some(name) = self.sent.names.remove(&reply.ticket) {
                        let network = reply.wall.saturating_sub(reply.server);
                        self.last = Some(LastGesture { name, server: reply.server, network });
                    }
                    self.error = reply.result.as_ref().err().cloned();
                    match self.attached.link_mut(&gem) {
                        Some(link) if link.breakpoints.waits_for(reply.ticket) => link.breakpoints.receive(*reply),
                        _ => self.deliver_to_panes(*reply),
                    }
                }
                Incoming::Event(event) => {
                    let Some(link) = self.attached.link_mut(&gem) else { continue };
                    let mut opened = Vec::new();
                    let mut ctx = Ctx::new(link, &mut self.sent, &mut opened);
                    ctx.refreshing = true;
                    let panes = self.tree.tiles.tiles_mut().filter_map(|t| match t {
                        egui_tiles::Tile::Pane(pane) if pane.gem() == Some(gem.as_str()) => Some(pane),
                        _ => None,
                    });
                    panes.for_each(|pane| pane.hear(&event, &mut ctx));
                    if matches!(event, Event::Breakpoints(_)) {
                        ctx.read_breakpoints();
                    }
                }
                Incoming::EventsEnded(why) => self.error = Some(format!("the gem at {gem} went away: {why}")),
            }
        }
    }

    fn deliver(&mut self, reply: Reply) {
        if let Some(name) = self.sent.names.remove(&reply.ticket) {
            self.last =
                Some(LastGesture { name, server: reply.server, network: reply.wall.saturating_sub(reply.server) });
        }
        self.error = reply.result.as_ref().err().cloned();
        self.notice = None;
        let mut moved = false;
        if let Some(commit) = reply.auto_commit.clone() {
            moved |= self.transaction.took(Gesture::Commit, commit);
        }
        if let Some(status) = reply.transaction.clone() {
            self.transaction.took_status(status);
        }
        // After a doit the other panes read what it may have changed: the repository only if
        // it changed the transaction.
        if self.sent.changing.remove(&reply.ticket) {
            let changed = if moved || self.transaction.needs_commit() { Changed::Repository } else { Changed::Objects };
            let from = self.pane_waiting_for(reply.ticket);
            // (Before the reply: a pane it opens has just read what it shows.)
            self.refresh_panes(changed, from);
            self.deliver_to_panes(reply);
            return;
        }
        // A gesture followed by an auto-commit moved the view: what others committed shows,
        // in every pane (the gesture's own batch read before the view moved).
        let refreshing = self.sent.refreshing.remove(&reply.ticket);
        if moved && !refreshing && !self.transaction.pending.iter().any(|(t, _)| *t == reply.ticket) {
            self.refresh_panes(Changed::Repository, None);
        }
        if self.find.waits_for(reply.ticket) {
            self.find.receive(reply);
            return;
        }
        if self.link.breakpoints.waits_for(reply.ticket) {
            self.link.breakpoints.receive(reply);
            return;
        }
        if let Some(notifier) = self.notifiers.iter_mut().find(|n| n.waits_for(reply.ticket)) {
            notifier.receive(reply);
            return;
        }
        if let Some(at) = self.transaction.pending.iter().position(|(t, _)| *t == reply.ticket) {
            let (_, gesture) = self.transaction.pending.remove(at);
            if let Ok(outcomes) = reply.result {
                self.transaction.message.clear();
                for outcome in outcomes {
                    moved |= self.transaction.took(gesture, outcome);
                }
            }
            // The view moved: what others committed shows.
            if moved {
                self.refresh_panes(Changed::Repository, None);
            }
            return;
        }
        self.deliver_to_panes(reply);
    }

    /// The pane that waits for the reply to `ticket`.
    fn pane_waiting_for(&self, ticket: Ticket) -> Option<egui_tiles::TileId> {
        self.tree.tiles.iter().find_map(|(id, t)| match t {
            egui_tiles::Tile::Pane(p) if p.waits_for(ticket) => Some(*id),
            _ => None,
        })
    }

    /// Every pane but `except` (the one whose gesture changed things, which read them in
    /// its own batch) reads what it shows again: one batch from each that shows something
    /// `changed`.
    fn refresh_panes(&mut self, changed: Changed, except: Option<egui_tiles::TileId>) {
        let mut opened = Vec::new();
        let mut ctx = Ctx::new(&mut self.link, &mut self.sent, &mut opened);
        ctx.refreshing = true;
        for (id, tile) in self.tree.tiles.iter_mut() {
            if let egui_tiles::Tile::Pane(pane) = tile
                && Some(*id) != except
                && pane.gem().is_none()
            {
                pane.refresh(&mut ctx, changed);
            }
        }
    }

    /// How many batches panes sent to read again what they show, after a commit, an abort,
    /// a doit or an event (for tests that count them).
    pub fn refreshes_sent(&self) -> u64 {
        self.link.refreshes_sent()
    }

    /// Hands a reply to the pane that waits for it.
    fn deliver_to_panes(&mut self, reply: Reply) {
        let (mut reply, mut opens) = (Some(reply), None);
        self.each_pane(|pane| {
            if let Some(r) = reply.take_if(|r| pane.waits_for(r.ticket)) {
                pane.receive(r);
                opens = pane.opens();
            }
        });
        if let Some(pane) = opens {
            self.open(pane);
        }
    }

    fn each_pane(&mut self, mut f: impl FnMut(&mut Pane)) {
        for tile in self.tree.tiles.tiles_mut() {
            if let egui_tiles::Tile::Pane(pane) = tile {
                f(pane);
            }
        }
    }

    /// Asks for the transaction's state (the bar's own gesture).
    fn refresh_transaction(&mut self) {
        self.transaction_gesture(Gesture::Status, false);
    }

    /// Sends the bar's `gesture` followed by a transaction status (`auto`: Auto-commit on).
    fn transaction_gesture(&mut self, gesture: Gesture, auto: bool) {
        let (name, op) = gesture.op(auto);
        let ops = op.into_iter().chain([Op::TransactionStatus(pb::Empty {})]).collect();
        let ticket = self.link.execute(ops);
        self.sent.names.insert(ticket, name);
        self.transaction.pending.push((ticket, gesture));
    }

    /// The menus: Onyx (settings, quitting), Tools (every kind of pane, the closed
    /// workspaces) and Help; answers the kind of pane asked for.
    fn menus(&mut self, ui: &mut egui::Ui) -> Option<Tool> {
        let mut tool = None;
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("Onyx", |ui| {
                if ui.button("Settings").clicked() {
                    tool = Some(Tool::Settings);
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    // Asks first, as closing the window does, when something would be lost.
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
            });
            ui.menu_button("Tools", |ui| {
                for (kind, label, _) in Tool::ALL.into_iter().filter(|(t, ..)| t.single().is_none()) {
                    if ui.button(label).clicked() {
                        tool = Some(kind);
                    }
                }
                ui.separator();
                self.closed_menu(ui);
            });
            ui.menu_button("Help", |ui| {
                if ui.button("Shortcuts and help (F1)").clicked() {
                    tool = Some(Tool::Help);
                }
            });
        });
        tool
    }

    /// The closed workspaces, the latest first, each opened again when chosen; Ctrl+Shift+T
    /// opens the last one closed.
    fn closed_menu(&mut self, ui: &mut egui::Ui) {
        let mut reopen = None;
        ui.add_enabled_ui(!self.closed.is_empty(), |ui| {
            ui.menu_button("Closed workspaces", |ui| {
                for (i, closed) in self.closed.iter().enumerate().rev() {
                    if ui.button(closed.label()).clicked() {
                        reopen = Some(i);
                    }
                }
            });
        });
        if ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::T)) {
            reopen = self.closed.len().checked_sub(1);
        }
        if let Some(i) = reopen {
            let closed = self.closed.remove(i);
            self.open(Box::new(Workspace::with_text(closed.text)));
        }
    }

    /// The tool bar: a button for each kind of pane used most, the closed workspaces, and
    /// quick-open; answers the kind of pane asked for.
    fn tools_bar(&mut self, ui: &mut egui::Ui) -> Option<Tool> {
        let mut tool = None;
        let mut opened = Vec::new();
        ui.horizontal(|ui| {
            for (kind, _, button) in Tool::ALL.into_iter().filter(|(.., b)| !b.is_empty()) {
                if ui.button(button).clicked() {
                    tool = Some(kind);
                }
            }
            self.closed_menu(ui);
            ui.separator();
            let mut ctx = Ctx::new(&mut self.link, &mut self.sent, &mut opened);
            self.find.ui(ui, &mut ctx);
        });
        for pane in opened {
            self.open(pane);
        }
        tool
    }

    fn transaction_bar(&mut self, ui: &mut egui::Ui) {
        if let Some((gesture, auto)) = self.transaction.bar(ui) {
            self.transaction_gesture(gesture, auto);
        }
        let mut inspect = None;
        if !self.transaction.conflicts.is_empty() {
            ui.horizontal_wrapped(|ui| {
                ui.label("Conflicting objects:");
                for field in &self.transaction.conflicts {
                    if ui.link(&field.print_string).clicked() {
                        inspect = Some(field.handle);
                    }
                }
            });
        }
        if let Some(handle) = inspect {
            let mut opened = Vec::new();
            let mut ctx = Ctx::new(&mut self.link, &mut self.sent, &mut opened);
            let pane = Box::new(Inspector::new(&mut ctx, handle, String::new()));
            self.open(pane);
        }
    }

    fn status_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label(format!("{} on {}", self.link.user, self.link.address))
                .on_hover_text(format!("the gem's agent; its stone is at {}", self.link.stone));
            ui.separator();
            if !self.sent.names.is_empty() {
                ui.spinner();
            }
            match &self.last {
                Some(g) => ui.label(format!(
                    "{}: 1 round trip, server {:.2} ms, network {:.2} ms",
                    g.name,
                    g.server.as_secs_f64() * 1e3,
                    g.network.as_secs_f64() * 1e3
                )),
                None => ui.label(""),
            };
            if let Some(notice) = &self.notice {
                ui.separator();
                ui.colored_label(ui.visuals().warn_fg_color, notice);
            }
            if let Some(error) = self.error.clone().or(self.events_ended.clone()) {
                ui.separator();
                if self.reconnecting.is_some() {
                    ui.spinner();
                    ui.label("reconnecting...");
                } else if ui.button("Reconnect").clicked() {
                    self.reconnecting = Some(self.link.reconnect());
                }
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
        });
    }
}
