//! Failed logins and password checks, counted per user name *at* an address: past a few
//! within a minute, that name's attempts from that address are refused at once (without a
//! password check) until the minute has passed, so that passwords cannot be guessed at the
//! speed of the network. And password checks, bounded in number at once, so that a storm of
//! logins costs the stone a queue, not memory.
//!
//! Why the pair and not the name or the address alone: a count per name lets anyone lock
//! that user out from wherever they are (five wrong passwords for `DataCurator`); a count per
//! address lets one user lock out every other user of a shared host (the gem host, whose
//! agents relay their logins to the stone, or a NAT). Counted by pair, an attacker's
//! failures lock out only themselves at their own address; guessing many names from one
//! address is held to the rate of password checks the stone makes at once
//! ([`CHECKS_AT_ONCE`], each an argon2 hash of tens of milliseconds), and the table of
//! failures is bounded ([`MAX_KEYS`]).

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures that a user name at an address may have within [`WINDOW`] before it waits.
pub const LIMIT: usize = 5;
/// How long a failure counts.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Name-and-address pairs whose failures are kept at most; past it the pair whose last
/// failure is oldest is forgotten.
pub const MAX_KEYS: usize = 10_000;
/// Password checks the stone makes at once at most (argon2 takes about 19 MiB each).
pub const CHECKS_AT_ONCE: usize = 2;
/// The longest user name a login may give: a longer one is refused before anything is kept.
const MAX_KEY_NAME: usize = 256;

/// A user name at an address (none: one the stone could not tell).
type Key = (String, Option<IpAddr>);

/// The failures of each user name at each address, most recent last.
#[derive(Default)]
pub struct Throttle {
    failures: Mutex<HashMap<Key, VecDeque<Instant>>>,
}

fn key(user: &str, from: Option<IpAddr>) -> Key {
    let end = (0..=MAX_KEY_NAME.min(user.len())).rev().find(|&i| user.is_char_boundary(i)).unwrap_or(0);
    (user[..end].to_string(), from)
}

impl Throttle {
    /// `None` if `user` may try to log in from `from` now; otherwise how long they must wait.
    pub fn wait(&self, user: &str, from: Option<IpAddr>) -> Option<Duration> {
        let now = Instant::now();
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let k = key(user, from);
        let times = failures.get_mut(&k)?;
        while times.front().is_some_and(|t| now.duration_since(*t) > WINDOW) {
            times.pop_front();
        }
        if times.is_empty() {
            failures.remove(&k);
            return None;
        }
        (times.len() >= LIMIT)
            .then(|| times.front().map(|first| WINDOW.saturating_sub(now.duration_since(*first))))
            .flatten()
    }

    /// Counts a failed login.
    pub fn failed(&self, user: &str, from: Option<IpAddr>) {
        let now = Instant::now();
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let k = key(user, from);
        if !failures.contains_key(&k) && failures.len() >= MAX_KEYS {
            failures.retain(|_, times| times.back().is_some_and(|t| now.duration_since(*t) <= WINDOW));
            if failures.len() >= MAX_KEYS {
                let oldest = failures.iter().min_by_key(|(_, times)| times.back().copied()).map(|(k, _)| k.clone());
                if let Some(oldest) = oldest {
                    failures.remove(&oldest);
                }
            }
        }
        let times = failures.entry(k).or_default();
        times.push_back(now);
        // More than the limit tells nothing more.
        while times.len() > LIMIT {
            times.pop_front();
        }
    }

    /// Forgets a user's failures at an address once they logged in from it.
    pub fn succeeded(&self, user: &str, from: Option<IpAddr>) {
        self.failures.lock().unwrap_or_else(|e| e.into_inner()).remove(&key(user, from));
    }

    /// How many name-and-address pairs have failures kept.
    #[cfg(test)]
    fn kept(&self) -> usize {
        self.failures.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_too_many_failures_at_an_address_waits_there_alone() {
        let t = Throttle::default();
        let (here, there) = (Some(IpAddr::from([127, 0, 0, 1])), Some(IpAddr::from([127, 0, 0, 2])));
        for _ in 0..LIMIT {
            assert_eq!(t.wait("bob", here), None);
            t.failed("bob", here);
        }
        assert!(t.wait("bob", here).is_some(), "the name waits at the address it failed from");
        assert_eq!(t.wait("bob", there), None, "not elsewhere: nobody locks bob out from their own address");
        assert_eq!(t.wait("carol", here), None, "nor does anyone else at that address wait");
        t.succeeded("bob", here);
        assert_eq!(t.wait("bob", here), None);
    }

    #[test]
    fn the_failures_kept_are_bounded_whatever_names_are_tried() {
        let t = Throttle::default();
        let here = Some(IpAddr::from([127, 0, 0, 1]));
        for i in 0..MAX_KEYS + 100 {
            t.failed(&format!("nobody{i}"), here);
        }
        assert_eq!(t.kept(), MAX_KEYS);
        t.failed(&"x".repeat(100_000), here);
        assert_eq!(t.kept(), MAX_KEYS);
        for _ in 0..LIMIT {
            t.failed("bob", here);
        }
        assert!(t.wait("bob", here).is_some(), "the newest failures are the ones kept");
    }
}
