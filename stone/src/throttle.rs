//! Failed logins, counted per user and per address: past a few within a minute, further
//! attempts are refused at once (without a password check) until the minute has passed, so
//! that passwords cannot be guessed at the speed of the network.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures that a key may have within [`WINDOW`] before it waits.
pub const LIMIT: usize = 5;
/// How long a failure counts.
pub const WINDOW: Duration = Duration::from_secs(60);

/// The failures of each user and each address, most recent last.
#[derive(Default)]
pub struct Throttle {
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

fn keys(user: &str, from: Option<IpAddr>) -> [String; 2] {
    [format!("user {user}"), from.map_or_else(|| "an unknown address".into(), |ip| format!("address {ip}"))]
}

impl Throttle {
    /// `None` if `user` may try to log in from `from` now; otherwise how long they must wait.
    pub fn wait(&self, user: &str, from: Option<IpAddr>) -> Option<Duration> {
        let now = Instant::now();
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        failures.retain(|_, times| {
            while times.front().is_some_and(|t| now.duration_since(*t) > WINDOW) {
                times.pop_front();
            }
            !times.is_empty()
        });
        keys(user, from)
            .iter()
            .filter_map(|k| failures.get(k))
            .filter(|times| times.len() >= LIMIT)
            .filter_map(|times| times.front().map(|first| WINDOW.saturating_sub(now.duration_since(*first))))
            .max()
    }

    /// Counts a failed login.
    pub fn failed(&self, user: &str, from: Option<IpAddr>) {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        for k in keys(user, from) {
            failures.entry(k).or_default().push_back(Instant::now());
        }
    }

    /// Forgets a user's failures once they logged in.
    pub fn succeeded(&self, user: &str) {
        let [user, _] = keys(user, None);
        self.failures.lock().unwrap_or_else(|e| e.into_inner()).remove(&user);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_or_address_with_too_many_failures_waits() {
        let t = Throttle::default();
        let (here, there) = (Some(IpAddr::from([127, 0, 0, 1])), Some(IpAddr::from([10, 0, 0, 2])));
        for _ in 0..LIMIT {
            assert_eq!(t.wait("bob", here), None);
            t.failed("bob", here);
        }
        assert!(t.wait("bob", there).is_some(), "the user waits wherever they come from");
        assert!(t.wait("carol", here).is_some(), "the address waits whoever it tries");
        assert_eq!(t.wait("carol", there), None);
        t.succeeded("bob");
        assert_eq!(t.wait("bob", there), None);
    }
}
