//! A session with a stone in the same process (what `onyx init` commits the kernel through,
//! and what tests drive the VM's persistence with): the real stone, without the network.

use std::ops::Range;
use std::sync::Arc;

use onyx_store::{About, CommitOutcome, LockKind, ObjectRecord, Oop, SessionInfo, Stone, ViewChange};

use super::StoneLink;

/// One session of an in-process [`Stone`]; it logs out when dropped.
pub struct LocalLink {
    stone: Arc<Stone>,
    session: u64,
}

impl LocalLink {
    /// Logs in to `stone`.
    pub fn login(stone: Arc<Stone>) -> Result<LocalLink, String> {
        let (session, _) = stone.login().map_err(|e| e.to_string())?;
        Ok(LocalLink { stone, session })
    }
}

impl Drop for LocalLink {
    fn drop(&mut self) {
        self.stone.logout(self.session);
    }
}

impl StoneLink for LocalLink {
    fn fetch(&mut self, oops: &[Oop], nearby: &[Oop], budget: u64) -> Result<Vec<ObjectRecord>, String> {
        let budget = usize::try_from(budget).unwrap_or(usize::MAX);
        self.stone.fetch(self.session, oops, nearby, budget).map_err(|e| e.to_string())
    }

    fn allocate(&mut self, count: u64) -> Result<Range<Oop>, String> {
        self.stone.allocate(self.session, count).map_err(|e| e.to_string())
    }

    fn commit(&mut self, records: &[ObjectRecord]) -> Result<CommitOutcome, String> {
        self.stone.commit(self.session, records.to_vec()).map_err(|e| e.to_string())
    }

    fn abort(&mut self) -> Result<ViewChange, String> {
        self.stone.abort(self.session).map_err(|e| e.to_string())
    }

    fn continue_transaction(&mut self) -> Result<ViewChange, String> {
        self.stone.continue_transaction(self.session).map_err(|e| e.to_string())
    }

    fn intern(&mut self, names: &[Vec<u8>]) -> Result<Vec<u64>, String> {
        self.stone.intern(names).map_err(|e| e.to_string())
    }

    fn symbol_names(&mut self, ids: &[u64]) -> Result<Vec<Vec<u8>>, String> {
        self.stone.symbol_names(ids).map_err(|e| e.to_string())
    }

    fn session(&self) -> u64 {
        self.session
    }

    fn lock(&mut self, oop: Oop, write: bool) -> Result<(), String> {
        let kind = if write { LockKind::Write } else { LockKind::Read };
        self.stone.lock(self.session, oop, kind).map_err(|e| e.to_string())
    }

    fn unlock(&mut self, oop: Oop) -> Result<(), String> {
        self.stone.unlock(self.session, oop);
        Ok(())
    }

    fn unlock_all(&mut self) -> Result<(), String> {
        self.stone.unlock_all(self.session);
        Ok(())
    }

    fn fetch_chunk(&mut self, oop: Oop, index: u32) -> Result<Vec<u8>, String> {
        self.stone.fetch_chunk(self.session, oop, index).map_err(|e| e.to_string())
    }

    fn collect_garbage(&mut self) -> Result<u64, String> {
        self.stone.collect_garbage().map(|r| r.reclaimed).map_err(|e| e.to_string())
    }

    fn describe(&mut self, about: &About) -> Result<(), String> {
        self.stone.describe(self.session, about.clone()).map_err(|e| e.to_string())
    }

    fn sessions(&mut self) -> Result<(Vec<SessionInfo>, u64), String> {
        Ok(self.stone.sessions())
    }
}
