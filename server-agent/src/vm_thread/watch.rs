//! What the tools hear of the stone besides their own replies: other sessions' commits
//! (this gem's view is behind) and sessions logging in and out. The VM thread looks every
//! second, between batches, and applies the stone's breakpoints when they changed; it tells of
//! the processes every gem keeps suspended when they change. It also
//! keeps what the gem says of itself in the stone's list of sessions up to date (its users,
//! its suspended processes, the hits of each breakpoint here), and finds
//! out, within a second, that the stone is gone (`relogin.rs` takes it from there).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use onyx_record::link::{MAX_LISTED_HITS, MAX_LISTED_SUSPENDED, MAX_SUSPENDED_TEXT};
use onyx_record::{About, StoneError, Suspended};
use onyx_vm::Vm;
use tokio::sync::broadcast;

use crate::ops::request::Event;

/// How often the stone is asked.
pub const EVERY: Duration = Duration::from_secs(1);

/// What the gem last heard of the stone, and what it says of itself.
pub struct Watch {
    about: About,
    users: BTreeSet<String>,
    /// The latest commit last seen.
    latest: u64,
    /// The sessions last seen (none until the stone first answers).
    sessions: Option<BTreeSet<u64>>,
    /// The suspended processes each gem listed when last seen.
    suspended: BTreeMap<u64, Vec<Suspended>>,
    looked: Instant,
    /// Where the VM's breakpoints stood when last told of.
    breakpoints_told: (u64, u64),
}

impl Watch {
    /// Tells the stone what this gem is.
    pub fn new(vm: &mut Vm, about: About) -> Watch {
        // The stone's breakpoints as they are when the gem starts: a change since is told of.
        // (If the stone cannot say now, the first look applies them.)
        let _ = vm.sync_breakpoints();
        // A gem that cannot describe itself still serves; its entry stays blank.
        let _ = vm.describe_session(&about);
        // What comes and goes from now on is told.
        let sessions = vm.stone_sessions().ok().map(|(list, _)| list.iter().map(|s| s.session).collect());
        Watch {
            about,
            users: BTreeSet::new(),
            latest: 0,
            sessions,
            suspended: BTreeMap::new(),
            looked: Instant::now(),
            breakpoints_told: vm.breakpoint_changes(),
        }
    }

    /// A user logged in to the agent: the stone's list of sessions names them.
    pub fn logged_in(&mut self, vm: &mut Vm, user: String) {
        if self.users.insert(user) {
            self.about.user = self.users.iter().cloned().collect::<Vec<_>>().join(", ");
            let _ = vm.describe_session(&self.about);
        }
    }

    /// The processes the gem keeps suspended changed: the stone's list of sessions shows them
    /// to every tool of every gem.
    pub fn suspended_changed(&mut self, vm: &mut Vm) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
        let before = std::mem::take(&mut self.about.suspended);
        let clip = |mut s: String| {
            if s.len() > MAX_SUSPENDED_TEXT {
                let mut end = MAX_SUSPENDED_TEXT;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.truncate(end);
            }
            s
        };
        let listed: Vec<Suspended> = vm
            .kept_processes()
            .into_iter()
            .filter_map(|p| vm.process_view(p))
            .map(|view| {
                let since = before.iter().find(|s| s.process == view.serial).map_or(now, |s| s.since_micros);
                let (kind, reason) = view.reason.as_ref().map(crate::ops::debugger::reason_text).unwrap_or_default();
                let kind = kind.to_string();
                Suspended {
                    process: view.serial,
                    kind,
                    reason: clip(reason),
                    method: clip(view.top),
                    since_micros: since,
                }
            })
            .take(MAX_LISTED_SUSPENDED)
            .collect();
        let changed = listed != before;
        self.about.suspended = listed;
        if changed {
            let _ = vm.describe_session(&self.about);
        }
    }

    /// The gem logged in again (see `relogin.rs`): the stone's list of sessions names it anew.
    pub fn rejoin(&mut self, vm: &mut Vm) {
        // The processes the lost VM kept are gone with it.
        self.about.suspended.clear();
        let _ = vm.describe_session(&self.about);
        self.latest = 0;
        self.sessions = None;
    }

    /// Asks the stone, if a second has passed, and tells the listeners (if any) what changed.
    /// Answers the error if the stone is gone.
    pub fn look(&mut self, vm: &mut Vm, events: &broadcast::Sender<Event>) -> Result<(), StoneError> {
        if self.looked.elapsed() < EVERY {
            return Ok(());
        }
        self.looked = Instant::now();
        // The stone's breakpoints, applied here within the second (see `onyx_vm::SharedBreakpoint`).
        if let Err(e) = vm.sync_breakpoints() {
            if let StoneError::Unavailable(_) = e {
                return Err(e);
            }
            let text = format!("The stone's breakpoints could not be applied here: {e}\n");
            let _ = events.send(Event::Transcript(text));
        }
        // Told by what changed since the last telling, whoever synced in between (a tool's
        // request syncs too).
        let now = vm.breakpoint_changes();
        if now != self.breakpoints_told {
            self.breakpoints_told = now;
            let _ = events.send(Event::Breakpoints);
        }
        // The hits counted here, for every tool's breakpoint browser.
        let mut hits: Vec<(u64, u64)> =
            vm.breakpoints().iter().filter(|b| b.hit_count > 0).map(|b| (b.spec.id, b.hit_count)).collect();
        hits.sort_unstable();
        hits.truncate(MAX_LISTED_HITS);
        if hits != self.about.hits {
            self.about.hits = hits;
            let _ = vm.describe_session(&self.about);
        }
        let (list, latest) = match vm.stone_sessions() {
            Ok(answer) => answer,
            Err(e @ StoneError::Unavailable(_)) => return Err(e),
            // Whatever else failed, the stone is there: look again in a second.
            Err(_) => return Ok(()),
        };
        // The list is followed with no one listening too: a tool that subscribes hears of
        // the gems that came or went since its gem last looked, not since it first listened.
        let own = vm.session_id();
        let behind = list.iter().find(|s| Some(s.session) == own).map_or(0, |s| s.behind);
        if latest > self.latest && behind > 0 {
            let _ = events.send(Event::Stale { latest, behind });
        }
        self.latest = latest;
        // Each gem whose suspended processes changed since the last look (one that went
        // counts as having none).
        let mut suspended: BTreeMap<u64, Vec<Suspended>> =
            list.iter().map(|s| (s.session, s.about.suspended.clone())).collect();
        for (session, was) in &self.suspended {
            if !was.is_empty() && !suspended.contains_key(session) {
                let _ = events.send(Event::Suspended { session: *session, processes: Vec::new() });
            }
        }
        for (session, now) in &suspended {
            if self.suspended.get(session).map_or(!now.is_empty(), |was| was != now) {
                let _ = events.send(Event::Suspended { session: *session, processes: now.clone() });
            }
        }
        suspended.retain(|_, list| !list.is_empty());
        self.suspended = suspended;
        let now: BTreeSet<u64> = list.iter().map(|s| s.session).collect();
        if let Some(before) = &self.sessions {
            let logged_in: Vec<u64> = now.difference(before).copied().collect();
            let logged_out: Vec<u64> = before.difference(&now).copied().collect();
            if !logged_in.is_empty() || !logged_out.is_empty() {
                let _ = events.send(Event::Sessions { logged_in, logged_out });
            }
        }
        self.sessions = Some(now);
        Ok(())
    }
}

/// The machine's name, as the stone's list of sessions shows it.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}
