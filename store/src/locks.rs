//! Object locks: read and write locks held by sessions, as GemStone's `System readLock:`,
//! `writeLock:` and `removeLock:`.
//!
//! Any number of sessions may hold a read lock on an object; a write lock excludes every
//! other session's lock. A request that conflicts is denied at once (the caller polls or
//! gives up); it never waits. Locks are the session's, released when it commits, aborts or
//! logs out.

use std::collections::{HashMap, HashSet};

use crate::error::StoreError;
use onyx_record::{LockKind, Oop};

#[derive(Default)]
struct Held {
    readers: HashSet<u64>,
    writer: Option<u64>,
}

/// Every lock held, by object and by session.
#[derive(Default)]
pub struct LockTable {
    by_object: HashMap<Oop, Held>,
    by_session: HashMap<u64, HashSet<Oop>>,
}

impl LockTable {
    /// Grants `session` a `kind` lock on `oop`, or says who stands in the way. A session
    /// holding a read lock alone may upgrade it to a write lock; asking again for a lock
    /// already held is granted.
    pub fn lock(&mut self, session: u64, oop: Oop, kind: LockKind) -> Result<(), StoreError> {
        let held = self.by_object.entry(oop).or_default();
        if let Some(w) = held.writer.filter(|&w| w != session) {
            return Err(StoreError::LockDenied { oop, holder: w, kind: LockKind::Write });
        }
        if kind == LockKind::Write {
            if let Some(&r) = held.readers.iter().find(|&&r| r != session) {
                return Err(StoreError::LockDenied { oop, holder: r, kind: LockKind::Read });
            }
            held.readers.remove(&session);
            held.writer = Some(session);
        } else if held.writer != Some(session) {
            held.readers.insert(session);
        }
        self.by_session.entry(session).or_default().insert(oop);
        Ok(())
    }

    /// Releases `session`'s lock on `oop`, if it holds one.
    pub fn unlock(&mut self, session: u64, oop: Oop) {
        if let Some(held) = self.by_object.get_mut(&oop) {
            held.readers.remove(&session);
            if held.writer == Some(session) {
                held.writer = None;
            }
            if held.readers.is_empty() && held.writer.is_none() {
                self.by_object.remove(&oop);
            }
        }
        if let Some(set) = self.by_session.get_mut(&session) {
            set.remove(&oop);
        }
    }

    /// Releases every lock `session` holds.
    pub fn unlock_all(&mut self, session: u64) {
        for oop in self.by_session.remove(&session).unwrap_or_default() {
            self.unlock(session, oop);
        }
    }

    /// How many objects `session` holds locks on.
    pub fn held_by(&self, session: u64) -> u64 {
        self.by_session.get(&session).map_or(0, |s| s.len() as u64)
    }

    /// The locks `session` holds, by object.
    pub fn locks_of(&self, session: u64) -> Vec<(Oop, LockKind)> {
        let mut locks: Vec<(Oop, LockKind)> = self
            .by_session
            .get(&session)
            .into_iter()
            .flatten()
            .filter_map(|&oop| self.held(session, oop).map(|kind| (oop, kind)))
            .collect();
        locks.sort_unstable_by_key(|&(oop, _)| oop);
        locks
    }

    /// Whether a session other than `session` holds any lock on `oop`.
    pub fn locked_by_other(&self, session: u64, oop: Oop) -> bool {
        self.by_object
            .get(&oop)
            .is_some_and(|h| h.writer.is_some_and(|w| w != session) || h.readers.iter().any(|&r| r != session))
    }

    /// The lock `session` holds on `oop`.
    pub fn held(&self, session: u64, oop: Oop) -> Option<LockKind> {
        let held = self.by_object.get(&oop)?;
        if held.writer == Some(session) {
            Some(LockKind::Write)
        } else {
            held.readers.contains(&session).then_some(LockKind::Read)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_locks_exclude_and_read_locks_share() {
        let mut t = LockTable::default();
        assert!(t.lock(1, 100, LockKind::Read).is_ok());
        assert!(t.lock(2, 100, LockKind::Read).is_ok());
        assert!(matches!(t.lock(2, 100, LockKind::Write), Err(StoreError::LockDenied { holder: 1, .. })));
        t.unlock(1, 100);
        assert!(t.lock(2, 100, LockKind::Write).is_ok(), "a lone reader upgrades");
        assert!(matches!(t.lock(1, 100, LockKind::Read), Err(StoreError::LockDenied { holder: 2, .. })));
        assert!(t.lock(2, 100, LockKind::Read).is_ok(), "a writer may ask for a read lock again");
        assert_eq!(t.held(2, 100), Some(LockKind::Write));
        t.unlock_all(2);
        assert_eq!(t.held(2, 100), None);
        assert!(t.lock(1, 100, LockKind::Write).is_ok());
    }
}
