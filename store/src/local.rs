//! A session with a stone in the same process: the real stone without the network, as
//! [`StoneLink`] a gem's VM uses (what `onyx init` commits the kernel through, what the VM's
//! persistence tests drive).

use std::ops::Range;
use std::sync::Arc;

use onyx_record::{
    About, Breakpoint, CommitOutcome, LockKind, LogEntry, ObjectRecord, Oop, Policy, SessionAct, SessionInfo,
    StoneError, StoneLink, UserInfo, ViewChange,
};

use crate::stone::Stone;

/// One session of an in-process [`Stone`]; it logs out when dropped.
pub struct LocalLink {
    stone: Arc<Stone>,
    session: u64,
    user: UserInfo,
}

impl LocalLink {
    /// Logs in to `stone` as `user` with `password`.
    pub fn login(stone: Arc<Stone>, user: &str, password: &str) -> Result<LocalLink, StoneError> {
        let (session, _) = stone.login(user, password)?;
        let user = stone.user_of(session)?;
        Ok(LocalLink { stone, session, user })
    }
}

impl Drop for LocalLink {
    fn drop(&mut self) {
        self.stone.logout(self.session);
    }
}

impl StoneLink for LocalLink {
    fn fetch(&mut self, oops: &[Oop], nearby: &[Oop], budget: u64) -> Result<Vec<ObjectRecord>, StoneError> {
        let budget = usize::try_from(budget).unwrap_or(usize::MAX);
        Ok(self.stone.fetch(self.session, oops, nearby, budget)?)
    }

    fn allocate(&mut self, count: u64) -> Result<Range<Oop>, StoneError> {
        Ok(self.stone.allocate(self.session, count)?)
    }

    fn commit(&mut self, records: &[ObjectRecord]) -> Result<CommitOutcome, StoneError> {
        Ok(self.stone.commit(self.session, records.to_vec())?)
    }

    fn abort(&mut self) -> Result<ViewChange, StoneError> {
        Ok(self.stone.abort(self.session)?)
    }

    fn continue_transaction(&mut self) -> Result<ViewChange, StoneError> {
        Ok(self.stone.continue_transaction(self.session)?)
    }

    fn intern(&mut self, names: &[Vec<u8>]) -> Result<Vec<u64>, StoneError> {
        Ok(self.stone.intern(names)?)
    }

    fn symbol_names(&mut self, ids: &[u64]) -> Result<Vec<Vec<u8>>, StoneError> {
        Ok(self.stone.symbol_names(ids)?)
    }

    fn session(&self) -> u64 {
        self.session
    }

    fn lock(&mut self, oop: Oop, kind: LockKind) -> Result<(), StoneError> {
        Ok(self.stone.lock(self.session, oop, kind)?)
    }

    fn unlock(&mut self, oop: Oop) -> Result<(), StoneError> {
        self.stone.unlock(self.session, oop);
        Ok(())
    }

    fn unlock_all(&mut self) -> Result<(), StoneError> {
        self.stone.unlock_all(self.session);
        Ok(())
    }

    fn fetch_chunk(&mut self, oop: Oop, index: u32) -> Result<Vec<u8>, StoneError> {
        Ok(self.stone.fetch_chunk(self.session, oop, index)?)
    }

    fn collect_garbage(&mut self) -> Result<u64, StoneError> {
        Ok(self.stone.collect_garbage()?.reclaimed)
    }

    fn describe(&mut self, about: &About) -> Result<(), StoneError> {
        Ok(self.stone.describe(self.session, about.clone())?)
    }

    fn sessions(&mut self) -> Result<(Vec<SessionInfo>, u64), StoneError> {
        Ok(self.stone.sessions())
    }

    fn user(&self) -> &UserInfo {
        &self.user
    }

    fn admit(&mut self, name: &str, password: &str) -> Result<UserInfo, StoneError> {
        Ok(self.stone.admit(self.session, name, password)?)
    }

    fn issue_ticket(&mut self, session: u64) -> Result<String, StoneError> {
        Ok(self.stone.issue_ticket(self.session, session)?)
    }

    fn redeem_ticket(&mut self, ticket: &str) -> Result<UserInfo, StoneError> {
        Ok(self.stone.redeem_ticket(self.session, ticket)?)
    }

    fn add_user(&mut self, name: &str, password: &str, may_change_code: bool) -> Result<(), StoneError> {
        Ok(self.stone.add_user(Some(self.session), name, password, may_change_code, None)?)
    }

    fn set_groups(&mut self, name: &str, groups: &[String]) -> Result<(), StoneError> {
        Ok(self.stone.set_groups(Some(self.session), name, groups)?)
    }

    fn policy(&mut self, id: u32) -> Result<Policy, StoneError> {
        Ok(self.stone.policy(self.session, id)?)
    }

    fn define_policy(&mut self, id: Option<u32>, policy: &Policy) -> Result<u32, StoneError> {
        Ok(self.stone.define_policy(self.session, id, policy.clone())?)
    }

    fn administer(&mut self, session: u64, act: SessionAct) -> Result<Vec<(Oop, LockKind)>, StoneError> {
        Ok(self.stone.administer(self.session, session, act)?)
    }

    fn log_failure(&mut self, entry: &LogEntry) -> Result<u64, StoneError> {
        Ok(self.stone.log_failure(self.session, entry.clone())?)
    }

    fn object_log(&mut self, from: u64, count: u32) -> Result<(Vec<LogEntry>, u64), StoneError> {
        Ok(self.stone.object_log(self.session, from, count)?)
    }

    fn breakpoints(&mut self, since: u64) -> Result<Option<(u64, Vec<Breakpoint>)>, StoneError> {
        Ok(self.stone.breakpoints(self.session, since)?)
    }

    fn set_breakpoint(&mut self, breakpoint: &Breakpoint) -> Result<Breakpoint, StoneError> {
        Ok(self.stone.set_breakpoint(self.session, breakpoint.clone())?)
    }

    fn remove_breakpoint(&mut self, id: u64, fired_once: bool) -> Result<bool, StoneError> {
        Ok(self.stone.remove_breakpoint(self.session, id, fired_once)?)
    }

    fn object_log_entry(&mut self, id: u64) -> Result<Option<LogEntry>, StoneError> {
        Ok(self.stone.object_log_entry(self.session, id)?)
    }
}
