//! The committer: one thread that holds the commit token for good. It takes every commit
//! queued since its last round (group commit), checks each in order against the write-set
//! union since its session's view and against other sessions' locks, writes all that pass
//! in one durable repository transaction, and only then answers them.
//!
//! Group commit is where throughput comes from: eight gems committing at once share one
//! disk sync instead of queueing for eight, and no commit is answered before it is on disk.
//!
//! A batch is on disk once the transaction log holds it (`tranlog.rs`); the committer then
//! writes it to the object table without waiting for the disk, and makes the object table
//! durable at a checkpoint: every [`CHECKPOINT_INTERVAL`] while commits come in, when the
//! log is full, and when the stone stops. A checkpoint lets the log start over.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::StoreError;
use crate::repo::{Durability, Meta, Snapshot, WriteError};
use crate::stone::{Shared, State, changed_between, denied, prune_log};
use crate::tranlog::TranLog;
use crate::users::{self, Access};
use onyx_record::{CommitOutcome, ObjectRecord, Oop, ROOT, ViewChange};

/// How long commits stay in the transaction log alone at most (bounding recovery time and
/// the space the object table holds for undurable versions).
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(1);

/// Where a commit's outcome goes (called once, on the committer thread).
pub type Reply = Box<dyn FnOnce(Result<CommitOutcome, StoreError>) + Send>;

/// A commit waiting for the committer.
pub(crate) struct Pending {
    pub session: u64,
    pub records: Vec<ObjectRecord>,
    pub reply: Reply,
}

/// The commits queued, the collections asked for, and whether the stone still takes work.
#[derive(Default)]
pub(crate) struct Queue {
    pub pending: Vec<Pending>,
    pub collect: Vec<crate::gc::GcReply>,
    pub closed: bool,
}

/// The committer's transaction log and when the object table was last made durable.
pub(crate) struct Committer {
    pub log: TranLog,
    checkpointed: Instant,
    /// Whether the repository says the log holds commits past its checkpoint (set before the
    /// first record after a checkpoint, cleared by the next).
    marked: bool,
    /// Why the committer takes no more commits, once a write's outcome could not be made
    /// certain (see [`Committer::write`]).
    broken: Option<String>,
}

impl Committer {
    pub fn new(log: TranLog) -> Committer {
        Committer { log, checkpointed: Instant::now(), marked: false, broken: None }
    }

    /// Makes the object table durable; the log starts over. A checkpoint that fails is
    /// tried again an interval later.
    fn checkpoint(&mut self, shared: &Shared) -> Result<(), StoreError> {
        self.checkpointed = Instant::now();
        if let Some(why) = &self.broken {
            return Err(StoreError::Storage(why.clone()));
        }
        shared.repo.checkpoint()?;
        self.marked = false;
        self.log.start_over();
        Ok(())
    }

    /// Makes a batch durable: in the log, then in the object table (on disk at the next
    /// checkpoint). A batch larger than the log goes to the object table durably.
    ///
    /// When the outcome cannot be made certain (the log or the object table failed half
    /// way), the committer stops taking commits and says why: the stone must be restarted,
    /// and recovery then settles it (what the log holds is applied).
    fn write(&mut self, shared: &Shared, prev: u64, meta: Meta, records: &[&ObjectRecord]) -> Result<(), StoreError> {
        if let Some(why) = &self.broken {
            return Err(StoreError::Storage(why.clone()));
        }
        let mut at = self.append(shared, prev, meta, records)?;
        if at.is_none() {
            self.checkpoint(shared)?;
            at = self.append(shared, prev, meta, records)?;
        }
        let Some(at) = at else {
            return shared.repo.write(records.iter().copied(), meta, Durability::Now).map_err(|e| match e {
                WriteError::Refused(e) => e,
                WriteError::Unsettled(e) => self.stop(format!(
                    "the repository file failed while taking a commit ({e}), which may or may not have been written"
                )),
            });
        };
        match shared.repo.write(records.iter().copied(), meta, Durability::AtCheckpoint) {
            Ok(()) => Ok(()),
            Err(WriteError::Refused(e)) => match self.log.retract(at) {
                Ok(()) => Err(e),
                Err(again) => Err(self.stop(format!(
                    "the repository file refused a commit ({e}) and the transaction log could not take it back \
                     ({again}): the commit is applied when the stone restarts"
                ))),
            },
            Err(WriteError::Unsettled(e)) => Err(self.stop(format!(
                "the repository file failed while taking a commit ({e}): the commit is in the transaction log and \
                 is applied when the stone restarts"
            ))),
        }
    }

    fn append(
        &mut self,
        shared: &Shared,
        prev: u64,
        meta: Meta,
        records: &[&ObjectRecord],
    ) -> Result<Option<u64>, StoreError> {
        if !self.marked {
            // Before the log holds anything the object table lacks on disk, the repository
            // says so: a log lost after this is refused, not started afresh.
            shared.repo.mark_log_pending()?;
            self.marked = true;
        }
        let at = self.log.end();
        match self.log.append(prev, meta, records.iter().copied()) {
            Ok(written) => Ok(written),
            // The record may be on disk in part or whole: take it back, or stop.
            Err(e) => match self.log.retract(at) {
                Ok(()) => Err(e),
                Err(again) => Err(self.stop(format!(
                    "the transaction log failed while taking a commit ({e}; {again}), which may or may not be in it"
                ))),
            },
        }
    }

    /// Takes no more commits: answers the error that says why (and that the stone must be
    /// restarted), which every later commit gets too.
    fn stop(&mut self, why: String) -> StoreError {
        let why = format!("{why}; the stone takes no more commits until it is restarted");
        self.broken = Some(why.clone());
        StoreError::Storage(why)
    }
}

/// The committer thread's loop, until the stone closes the queue.
pub(crate) fn run(shared: &Shared, mut committer: Committer) {
    loop {
        let (batch, collect, closed) = {
            let mut q = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            while q.pending.is_empty() && q.collect.is_empty() && !q.closed {
                if committer.log.is_empty() {
                    q = shared.queued.wait(q).unwrap_or_else(|e| e.into_inner());
                    continue;
                }
                let left = CHECKPOINT_INTERVAL.saturating_sub(committer.checkpointed.elapsed());
                if left.is_zero() {
                    break;
                }
                q = shared.queued.wait_timeout(q, left).unwrap_or_else(|e| e.into_inner()).0;
            }
            (std::mem::take(&mut q.pending), std::mem::take(&mut q.collect), q.closed)
        };
        let idle = batch.is_empty() && collect.is_empty();
        if !batch.is_empty() {
            commit_batch(shared, &mut committer, batch);
        }
        if !collect.is_empty() {
            let report = crate::gc::collect(shared);
            for reply in collect {
                reply(match &report {
                    Ok(r) => Ok(*r),
                    Err(e) => Err(StoreError::Storage(e.to_string())),
                });
            }
        }
        let due = committer.checkpointed.elapsed() >= CHECKPOINT_INTERVAL || (closed && idle);
        if due && !committer.log.is_empty() {
            // A checkpoint that fails is tried again later; commits go on into the log.
            let _ = committer.checkpoint(shared);
        }
        if closed && idle {
            return;
        }
    }
}

/// A commit that passed its checks, with the number it gets.
struct Accepted {
    pending: Pending,
    seq: u64,
}

fn commit_batch(shared: &Shared, committer: &mut Committer, batch: Vec<Pending>) {
    // The committer is the only writer, so this is the state every check reads.
    let snap = match shared.repo.snapshot() {
        Ok(s) => s,
        Err(e) => {
            for p in batch {
                (p.reply)(Err(StoreError::Storage(e.to_string())));
            }
            return;
        }
    };
    let mut accepted: Vec<Accepted> = Vec::new();
    let (first, meta) = {
        let mut st = shared.state();
        let first = st.durable_seq;
        let mut seq = first;
        for p in batch {
            match check(&st, &snap, &p) {
                Err(e) => {
                    (p.reply)(Err(e));
                }
                Ok(conflicts) if !conflicts.is_empty() => {
                    (p.reply)(Ok(CommitOutcome::Conflict(conflicts)));
                }
                Ok(_) => {
                    seq += 1;
                    let oops: Arc<HashSet<Oop>> = Arc::new(p.records.iter().map(|r| r.oop).collect());
                    st.log.push_back((seq, oops));
                    accepted.push(Accepted { pending: p, seq });
                }
            }
        }
        (first, Meta { oop_high: st.oop_high, commit_seq: seq })
    };
    if accepted.is_empty() {
        return;
    }
    let records: Vec<&ObjectRecord> = accepted.iter().flat_map(|a| a.pending.records.iter()).collect();
    let written = committer.write(shared, first, meta, &records);
    // The new views; if taking them fails the commits still stand, and the sessions keep
    // their old views (a later commit of theirs then conflicts, and an abort recovers).
    let view = written.as_ref().ok().and_then(|()| shared.repo.snapshot().ok()).map(Arc::new);
    let mut st = shared.state();
    match written {
        Ok(()) => {
            st.durable_seq = meta.commit_seq;
            for a in accepted {
                let outcome = match &view {
                    Some(view) => finish(&mut st, a.pending.session, a.seq, view, meta.commit_seq),
                    None => {
                        st.locks.unlock_all(a.pending.session);
                        let seq = st.sessions.get(&a.pending.session).map_or(0, |s| s.view_seq);
                        CommitOutcome::Committed(ViewChange { seq, changed: Vec::new() })
                    }
                };
                (a.pending.reply)(Ok(outcome));
            }
            prune_log(&mut st);
        }
        Err(e) => {
            st.log.retain(|(seq, _)| *seq <= first);
            for a in accepted {
                (a.pending.reply)(Err(StoreError::Storage(format!("the commit was not written: {e}"))));
            }
        }
    }
}

/// After a durable write: the session gets a view of it and drops its locks.
fn finish(st: &mut State, session: u64, seq: u64, view: &Arc<Snapshot>, latest: u64) -> CommitOutcome {
    st.locks.unlock_all(session);
    let old = match st.sessions.get_mut(&session) {
        Some(s) => {
            s.view = Arc::clone(view);
            std::mem::replace(&mut s.view_seq, latest)
        }
        None => latest,
    };
    let changed = changed_between(&st.log, old, latest, Some(seq));
    CommitOutcome::Committed(ViewChange { seq: latest, changed })
}

/// Checks one commit against the repository as of `snap` (plus the commits accepted before
/// it in this batch, which are in the log already). Answers the conflicting objects (none:
/// it may go ahead), or why the commit is not a valid one.
fn check(st: &State, snap: &Snapshot, p: &Pending) -> Result<Vec<Oop>, StoreError> {
    let session = st.sessions.get(&p.session).ok_or(StoreError::NoSession(p.session))?;
    // Objects found to exist (a commit's records mostly share a few classes).
    let mut existing: HashSet<Oop> = HashSet::new();
    let mut named: HashSet<Oop> = HashSet::with_capacity(p.records.len());
    let mut modified: Vec<Oop> = Vec::new();
    let objects = snap.objects()?;
    let may_write = |policy: u32| users::access(&st.policies, &session.user, policy) == Access::Write;
    // What exists before anyone allocates it: the root, and the user's own profile.
    let reserved = |oop: Oop| oop == ROOT || oop == session.user.profile;
    for r in &p.records {
        if !named.insert(r.oop) {
            return Err(StoreError::Invalid(format!("the commit names object {} twice", r.oop)));
        }
        // The user changes the object as it is, and puts it in the policy the record names:
        // both must be theirs to write.
        let stored = snap.head(r.oop)?;
        if let Some(stored) = &stored
            && !may_write(stored.policy)
        {
            return Err(denied(&session.user, "change", r.oop, stored.policy));
        }
        // Moving an object to another policy is its policy's owner's to do (or an
        // administrator's); an object of no policy has no owner to move it.
        if let Some(stored) = &stored
            && stored.policy != r.policy
            && !users::may_move(&st.policies, &session.user, stored.policy)
        {
            return Err(StoreError::PermissionDenied(format!(
                "user {} may not move object {} out of policy {}: only its owner or an administrator may",
                session.user.name, r.oop, stored.policy
            )));
        }
        if !may_write(r.policy) {
            let who = &session.user.name;
            return Err(StoreError::PermissionDenied(format!(
                "user {who} may not put object {} in policy {}",
                r.oop, r.policy
            )));
        }
        if stored.is_some() {
            modified.push(r.oop);
        } else if reserved(r.oop) && st.log.iter().any(|(seq, w)| *seq > st.durable_seq && w.contains(&r.oop)) {
            // Another commit of this batch created it first.
            modified.push(r.oop);
        } else if !(reserved(r.oop) || session.allocated.iter().any(|range| range.contains(&r.oop))) {
            return Err(StoreError::Invalid(format!(
                "the commit names object {}, which does not exist and was not allocated to this session",
                r.oop
            )));
        }
    }
    for r in &p.records {
        for id in r.symbols() {
            if snap.symbol_name(id)?.is_none() {
                return Err(StoreError::Invalid(format!("object {} names symbol {id}, which does not exist", r.oop)));
            }
        }
        for oop in r.references() {
            if named.contains(&oop) || existing.contains(&oop) {
                continue;
            }
            if !objects.contains(oop)? {
                return Err(StoreError::Invalid(format!(
                    "object {} refers to object {oop}, which neither exists nor is in the commit",
                    r.oop
                )));
            }
            existing.insert(oop);
        }
    }
    crate::rules::refuse_code(snap, &p.records, &session.user)?;
    crate::rules::check_profile(snap, &p.records, &session.user)?;
    // Changed by a commit the session's view predates, or locked by another session (a
    // read lock promises its holder that the object stays as it is).
    let written_since: Vec<&HashSet<Oop>> =
        st.log.iter().filter(|(seq, _)| *seq > session.view_seq).map(|(_, oops)| oops.as_ref()).collect();
    let mut conflicts: Vec<Oop> = modified
        .into_iter()
        .filter(|oop| written_since.iter().any(|w| w.contains(oop)) || st.locks.locked_by_other(p.session, *oop))
        .collect();
    conflicts.sort_unstable();
    Ok(conflicts)
}
