//! Panes on another gem of the stone: a debugger attached to a process another gem keeps
//! suspended (stopped at a breakpoint, paused, failed), that gem's process browser, and what
//! they open (inspectors). Each such pane is an [`OnGem`], which names the gem; the IDE keeps
//! one link per such gem ([`Attached`]), logged in as the IDE's user (the gem's own user, or
//! one who may debug others' gems, as the stone decides), made off the UI thread and logged
//! out when the last pane on it closes. What those panes ask goes through their gem's link,
//! and only they hear that gem's events; the IDE's transaction is not theirs.

use std::collections::{HashMap, HashSet};

use eframe::egui;
use onyx_protocol::agent::event::Event;

use crate::ctx::Ctx;
use crate::link::{Incoming, Link, Linking, Reply, Ticket};
use crate::panes::{Changed, Pane, View};

/// What a pane asks to open on another gem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attach {
    /// A debugger on the gem's suspended process.
    Debugger(u64),
    /// The gem's process browser (to pause a process that runs).
    Processes,
}

/// A pane on another gem than the IDE's.
pub struct OnGem {
    /// The gem's agent (`host:port`).
    pub gem: String,
    /// The pane.
    pub inner: Pane,
}

impl View for OnGem {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn title(&self) -> String {
        format!("{} on {}", self.inner.title(), self.gem)
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        ui.weak(format!("In the gem at {}, logged in as {}", self.gem, ctx.link.user));
        self.inner.ui(ui, ctx);
    }

    fn gem(&self) -> Option<&str> {
        Some(&self.gem)
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.inner.waits_for(ticket)
    }

    fn receive(&mut self, reply: Reply) {
        self.inner.receive(reply);
    }

    fn forget_pending(&mut self) {
        self.inner.forget_pending();
    }

    fn hear(&mut self, event: &Event, ctx: &mut Ctx) {
        self.inner.hear(event, ctx);
    }

    fn refresh(&mut self, ctx: &mut Ctx, changed: Changed) {
        self.inner.refresh(ctx, changed);
    }

    fn holds_unaccepted_edits(&mut self) -> bool {
        self.inner.holds_unaccepted_edits()
    }

    /// What it opens is on the same gem.
    fn opens(&mut self) -> Option<Pane> {
        let inner = self.inner.opens()?;
        Some(Box::new(OnGem { gem: self.gem.clone(), inner }))
    }

    // Its objects are the other gem's: they go when its link logs out, not through the
    // IDE's own link (so `handles` is left empty).
}

/// The IDE's links to other gems, and those being made.
#[derive(Default)]
pub struct Attached {
    links: HashMap<String, Link>,
    connecting: Vec<(String, Attach, Linking)>,
}

impl Attached {
    /// The link to the gem at `gem`, if there is one.
    pub fn link_mut(&mut self, gem: &str) -> Option<&mut Link> {
        self.links.get_mut(gem)
    }

    /// Asks to open `what` on the gem at `gem`: at once (answered back) if there is a link to
    /// it, or once a login made with a ticket through `main` is answered (see
    /// [`Attached::made`]).
    pub fn ask(&mut self, main: &Link, gem: String, session: u64, what: Attach) -> Option<(String, Attach)> {
        if self.links.contains_key(&gem) {
            return Some((gem, what));
        }
        if !self.connecting.iter().any(|(g, w, _)| *g == gem && *w == what) {
            let made = main.attach_to(&gem, session);
            self.connecting.push((gem, what, made));
        }
        None
    }

    /// The logins answered since the last call: what to open on each gem now linked, or why
    /// the gem would not have the user.
    pub fn made(&mut self) -> Vec<Result<(String, Attach), String>> {
        let mut out = Vec::new();
        self.connecting.retain(|(gem, what, made)| match made.try_recv() {
            Ok(Ok(link)) => {
                self.links.entry(gem.clone()).or_insert(link);
                out.push(Ok((gem.clone(), *what)));
                false
            }
            Ok(Err(e)) => {
                out.push(Err(format!("cannot attach to the gem at {gem}: {e}")));
                false
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => true,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => false,
        });
        out
    }

    /// What came back from every linked gem, with the gem.
    pub fn take(&mut self) -> Vec<(String, Incoming)> {
        let mut out = Vec::new();
        for (gem, link) in &self.links {
            out.extend(link.take().into_iter().map(|i| (gem.clone(), i)));
        }
        out
    }

    /// Logs out of every gem no pane is on any more.
    pub fn keep_only(&mut self, used: &HashSet<String>) {
        let unused: Vec<String> = self.links.keys().filter(|g| !used.contains(*g)).cloned().collect();
        for gem in unused {
            if let Some(link) = self.links.remove(&gem) {
                link.logout();
            }
        }
    }

    /// Whether a login is being made.
    pub fn is_connecting(&self) -> bool {
        !self.connecting.is_empty()
    }

    /// Batches sent through the links to other gems by gestures, not by panes reading again
    /// what changed there (for tests that count them).
    pub fn gestures_sent(&self) -> u64 {
        self.links.values().map(|l| l.batches_sent() - l.refreshes_sent()).sum()
    }
}
