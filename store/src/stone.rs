//! The stone: sessions and their views, OOP allocation, faulting objects in with traversals,
//! abort, locks, and the hand-off of commits to the committer (`commit.rs`).
//!
//! A session's *view* is a redb snapshot of the repository as of one commit; everything the
//! session reads comes from it until it commits or aborts. The stone keeps the write set of
//! every commit that some view predates (the *write-set union* since that view): it decides
//! conflicts, and an abort hands it to the gem so that the gem invalidates what others
//! changed.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::commit::{self, Committer, Pending, Queue, Reply};
use crate::error::StoreError;
use onyx_record::word::MAX_OOP;
use onyx_record::{
    About, Breakpoint, CommitOutcome, LockKind, LogEntry, ObjectRecord, Oop, SessionInfo, UserInfo, ViewChange,
};

use crate::locks::LockTable;
use crate::repo::{Durability, Repository, Snapshot};
use crate::tranlog::{Recovery, TranLog};
use crate::users::{self, Access, Policies, User};

/// The objects one commit wrote.
pub(crate) type WriteSet = Arc<HashSet<Oop>>;

/// What a read of a session needs, taken out of the stone's lock: its view, its user, and
/// the policies.
type Reader = (Arc<Snapshot>, Arc<User>, Arc<Policies>);

/// A logged-in session: one gem's transaction state in the stone.
pub(crate) struct Session {
    /// Its user, as they were when the session logged in.
    pub user: Arc<User>,
    /// The commit its view shows.
    pub view_seq: u64,
    pub view: Arc<Snapshot>,
    /// OOP ranges handed to it for new objects.
    pub allocated: Vec<Range<Oop>>,
    /// What its gem said of itself.
    pub about: About,
}

/// The stone's bookkeeping, behind one lock.
pub(crate) struct State {
    pub sessions: HashMap<u64, Session>,
    pub next_session: u64,
    /// No OOP at or above this has been handed out.
    pub oop_high: Oop,
    /// Write sets of the commits some view predates, oldest first, with their numbers.
    /// A batch being written is here already (see `commit.rs`), so that a view which
    /// shows it always finds its write sets.
    pub log: VecDeque<(u64, WriteSet)>,
    pub locks: LockTable,
    /// The users by name.
    pub users: HashMap<String, Arc<User>>,
    /// The object security policies (replaced whole when one is added).
    pub policies: Arc<Policies>,
    /// The last commit known to be on disk.
    pub durable_seq: u64,
    pub shutting_down: bool,
    pub breakpoints: crate::breakpoints::BreakpointTable,
    pub tickets: crate::tickets::Tickets,
}

/// What the stone shares with its committer thread.
pub(crate) struct Shared {
    pub repo: Repository,
    pub state: Mutex<State>,
    pub queue: Mutex<Queue>,
    pub queued: Condvar,
}

impl Shared {
    pub fn state(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves plain data behind; go on with it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A running stone over an open repository.
pub struct Stone {
    pub(crate) shared: Arc<Shared>,
    committer: Option<JoinHandle<()>>,
    /// What recovery gave up, when it was told to (see [`Recovery::Truncate`]).
    dropped: Option<String>,
}

/// The longest symbol name.
pub const MAX_SYMBOL: usize = 64 * 1024;

/// OOPs handed out per allocation at most.
pub const MAX_ALLOCATION: u64 = 1 << 20;

/// Object log entries one call answers at most.
pub const MAX_LOG_PAGE: u32 = 100;

impl Stone {
    /// Creates a repository in `dir` and serves it.
    pub fn create(dir: &Path) -> Result<Stone, StoreError> {
        Stone::serve(Repository::create(dir)?, Recovery::Strict)
    }

    /// Opens the repository in `dir` and serves it.
    pub fn open(dir: &Path) -> Result<Stone, StoreError> {
        Stone::open_with(dir, Recovery::Strict)
    }

    /// Opens the repository in `dir` and serves it, recovering its transaction log as
    /// `recovery` says.
    pub fn open_with(dir: &Path, recovery: Recovery) -> Result<Stone, StoreError> {
        Stone::serve(Repository::open(dir)?, recovery)
    }

    /// Serves an open repository, first bringing its object table up to date with the
    /// commits its transaction log holds (those a crash kept from the last checkpoint).
    pub fn serve(repo: Repository, recovery: Recovery) -> Result<Stone, StoreError> {
        let durable = repo.snapshot()?.meta()?.commit_seq;
        let dir = repo.path().parent().unwrap_or(Path::new("."));
        let pending = repo.log_pending()?;
        let (mut log, recovered) = TranLog::open(dir, repo.id()?, durable, pending, recovery)?;
        for b in &recovered.batches {
            repo.write(&b.records, b.meta, Durability::AtCheckpoint)?;
        }
        if pending {
            repo.checkpoint()?;
        }
        log.start_over();
        let meta = repo.snapshot()?.meta()?;
        let (users, oop_high) = reserve_profiles(&repo, meta.oop_high)?;
        let policies = Arc::new(repo.policies()?);
        let state = State {
            users,
            policies,
            sessions: HashMap::new(),
            next_session: 1,
            oop_high,
            log: VecDeque::new(),
            locks: LockTable::default(),
            durable_seq: meta.commit_seq,
            shutting_down: false,
            breakpoints: Default::default(),
            tickets: Default::default(),
        };
        let shared = Arc::new(Shared {
            repo,
            state: Mutex::new(state),
            queue: Mutex::new(Queue::default()),
            queued: Condvar::new(),
        });
        let for_thread = Arc::clone(&shared);
        let committer = std::thread::Builder::new()
            .name("committer".into())
            .spawn(move || commit::run(&for_thread, Committer::new(log)))
            .map_err(|e| StoreError::Storage(format!("cannot start the committer: {e}")))?;
        Ok(Stone { shared, committer: Some(committer), dropped: recovered.dropped })
    }

    /// What recovery gave up when this stone started, if it was told to give something up
    /// ([`Recovery::Truncate`]) and had to.
    pub fn recovery_loss(&self) -> Option<&str> {
        self.dropped.as_deref()
    }

    /// Logs a new session of user `name` in, if `password` is theirs, with a view of the
    /// latest commit. Answers its id and view. A refused login says nothing of whether the
    /// user exists, and takes as long either way (see [`users::verify`]).
    pub fn login(&self, name: &str, password: &str) -> Result<(u64, u64), StoreError> {
        let user = self.shared.state().users.get(name).cloned();
        // Checking a password takes tens of milliseconds on purpose: not under the lock, and
        // not for a name or password no user can have.
        if !users::plausible(name, password) || !users::verify(user.as_deref(), password) {
            return Err(StoreError::PermissionDenied(format!("user {name} or its password is not known")));
        }
        let user = user.ok_or_else(|| StoreError::PermissionDenied(format!("user {name} is not known")))?;
        // The snapshot is taken under the state lock, so that no write set it does not show
        // can be pruned from the log before the session is registered (the committer never
        // holds the lock while it writes, so this does not wait for the disk).
        let mut st = self.shared.state();
        if st.shutting_down {
            return Err(StoreError::ShuttingDown);
        }
        let view = Arc::new(self.shared.repo.snapshot()?);
        let view_seq = view.meta()?.commit_seq;
        let id = st.next_session;
        st.next_session += 1;
        st.sessions.insert(id, Session { user, view_seq, view, allocated: Vec::new(), about: About::default() });
        Ok((id, view_seq))
    }

    /// The user session `session` is.
    pub fn user_of(&self, session: u64) -> Result<UserInfo, StoreError> {
        let st = self.shared.state();
        st.sessions.get(&session).map(|s| s.user.info()).ok_or(StoreError::NoSession(session))
    }

    /// Checks a login to the agent of the session's gem: user `name` with `password`, who
    /// must be the session's own user (as they are now) or one of [`users::DEBUGGERS`], who
    /// may debug others' gems. Answers what the gem knows of them.
    pub fn admit(&self, session: u64, name: &str, password: &str) -> Result<UserInfo, StoreError> {
        let (user, owner) = {
            let st = self.shared.state();
            let owner = st.sessions.get(&session).ok_or(StoreError::NoSession(session))?.user.name.clone();
            (st.users.get(name).cloned(), owner)
        };
        let denied = || StoreError::PermissionDenied(format!("no user {name} with that password"));
        if !users::plausible(name, password) || !users::verify(user.as_deref(), password) {
            return Err(denied());
        }
        let user = user.ok_or_else(denied)?;
        user.may_attach_to(&owner)?;
        Ok(user.info())
    }

    /// Writes a post-mortem report of `session`'s gem to the object log, stamped with the
    /// stone's clock, the session, its gem and its user (what the gem said of these is not
    /// taken); answers its id.
    pub fn log_failure(&self, session: u64, mut entry: LogEntry) -> Result<u64, StoreError> {
        {
            let st = self.shared.state();
            let s = st.sessions.get(&session).ok_or(StoreError::NoSession(session))?;
            let about = &s.about;
            entry.session = session;
            entry.user = s.user.name.clone();
            entry.gem = onyx_record::log::log_text(&format!("{} pid {} {}", about.host, about.pid, about.agent));
        }
        entry.time_micros = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
        entry.check().map_err(StoreError::Invalid)?;
        self.shared.repo.append_log(&mut entry)
    }

    /// `count` of `session`'s user's entries of the object log from the `from`th newest, and
    /// how many they have: a user reads their own reports only (a report shows printStrings
    /// of objects its process could read, which object policies may keep from others).
    pub fn object_log(&self, session: u64, from: u64, count: u32) -> Result<(Vec<LogEntry>, u64), StoreError> {
        let user = self.session_user(session)?;
        self.shared.repo.object_log(from, count.min(MAX_LOG_PAGE), Some(&user.name))
    }

    /// Entry `id` of the object log, if it holds it and it is `session`'s user's (another
    /// user's is as absent as one the log no longer holds).
    pub fn object_log_entry(&self, session: u64, id: u64) -> Result<Option<LogEntry>, StoreError> {
        let user = self.session_user(session)?;
        Ok(self.shared.repo.object_log_entry(id)?.filter(|e| e.user == user.name))
    }

    /// The breakpoints and their generation, unless it is still `since`.
    pub fn breakpoints(&self, session: u64, since: u64) -> Result<Option<(u64, Vec<Breakpoint>)>, StoreError> {
        let st = self.shared.state();
        st.sessions.get(&session).ok_or(StoreError::NoSession(session))?;
        Ok(st.breakpoints.since(since))
    }

    /// Sets a breakpoint for `session`'s user, who must be one who may change code.
    pub fn set_breakpoint(&self, session: u64, breakpoint: Breakpoint) -> Result<Breakpoint, StoreError> {
        let mut st = self.shared.state();
        let user = Arc::clone(&st.sessions.get(&session).ok_or(StoreError::NoSession(session))?.user);
        if !user.may_change_code {
            return Err(StoreError::PermissionDenied(format!("{} may not set breakpoints", user.name)));
        }
        st.breakpoints.set(breakpoint, &user.name)
    }

    /// Removes a breakpoint (see [`crate::breakpoints::BreakpointTable::remove`]).
    pub fn remove_breakpoint(&self, session: u64, id: u64, fired_once: bool) -> Result<bool, StoreError> {
        let mut st = self.shared.state();
        let may = st.sessions.get(&session).ok_or(StoreError::NoSession(session))?.user.may_change_code;
        st.breakpoints.remove(id, may, fired_once.then_some(session))
    }

    fn session_user(&self, session: u64) -> Result<Arc<User>, StoreError> {
        let st = self.shared.state();
        Ok(Arc::clone(&st.sessions.get(&session).ok_or(StoreError::NoSession(session))?.user))
    }

    /// Logs a session out, releasing its locks and its view.
    pub fn logout(&self, session: u64) {
        let mut st = self.shared.state();
        st.sessions.remove(&session);
        st.locks.unlock_all(session);
        prune_log(&mut st);
    }

    /// The sessions logged in.
    pub fn session_count(&self) -> usize {
        self.shared.state().sessions.len()
    }

    /// Records what a session's gem says of itself.
    pub fn describe(&self, session: u64, about: About) -> Result<(), StoreError> {
        about.check().map_err(StoreError::Invalid)?;
        let mut st = self.shared.state();
        st.sessions.get_mut(&session).ok_or(StoreError::NoSession(session))?.about = about;
        Ok(())
    }

    /// Every session, by id, and the number of the latest durable commit.
    pub fn sessions(&self) -> (Vec<SessionInfo>, u64) {
        let st = self.shared.state();
        let latest = st.durable_seq;
        let mut list: Vec<SessionInfo> = st
            .sessions
            .iter()
            .map(|(&id, s)| SessionInfo {
                session: id,
                user: s.user.name.clone(),
                about: s.about.clone(),
                view: s.view_seq,
                behind: latest.saturating_sub(s.view_seq),
                locks: st.locks.held_by(id),
            })
            .collect();
        list.sort_by_key(|s| s.session);
        (list, latest)
    }

    /// Hands `session` `count` fresh OOPs for new objects.
    pub fn allocate(&self, session: u64, count: u64) -> Result<Range<Oop>, StoreError> {
        if count == 0 || count > MAX_ALLOCATION {
            return Err(StoreError::Invalid(format!("cannot allocate {count} OOPs (1 to {MAX_ALLOCATION} at a time)")));
        }
        let mut st = self.shared.state();
        let start = st.oop_high;
        let end = start.checked_add(count).filter(|&e| e <= MAX_OOP).ok_or_else(out_of_oops)?;
        let s = st.sessions.get_mut(&session).ok_or(StoreError::NoSession(session))?;
        s.allocated.push(start..end);
        st.oop_high = end;
        Ok(start..end)
    }

    /// Objects `oops` as the session's view shows them, followed by what their slots refer to
    /// and then objects `nearby` (breadth first) until the records reach `budget` bytes: one
    /// call faults in a structure rather than one object. `nearby` are objects the gem expects
    /// to touch next (the elements of a collection next to the one it touches, say). Classes
    /// are not followed (a gem has the classes it uses, and faults in one it lacks when it
    /// looks a method up). An OOP the view does not have (one the garbage collector deleted)
    /// gets no record.
    pub fn fetch(
        &self,
        session: u64,
        oops: &[Oop],
        nearby: &[Oop],
        budget: usize,
    ) -> Result<Vec<ObjectRecord>, StoreError> {
        let (view, user, policies) = self.view_of(session)?;
        let readable = |r: &ObjectRecord| users::access(&policies, &user, r.policy) >= Access::Read;
        let mut seen: HashSet<Oop> = HashSet::new();
        let mut queue: VecDeque<Oop> = VecDeque::new();
        let mut out = Vec::new();
        let mut bytes = 0usize;
        for &oop in oops {
            let Some(record) = view.get_for_fetch(oop)? else { continue };
            if !readable(&record) {
                return Err(denied(&user, "read", oop, record.policy));
            }
            if seen.insert(oop) {
                bytes += record.encoded_len();
                queue.extend(record.slot_references());
                out.push(record);
            }
        }
        queue.extend(nearby);
        while bytes < budget {
            let Some(oop) = queue.pop_front() else { break };
            if !seen.insert(oop) {
                continue;
            }
            // What the user may not read is not sent along; asked for, it is refused.
            if let Some(record) = view.get_for_fetch(oop)?.filter(|r| readable(r)) {
                bytes += record.encoded_len();
                queue.extend(record.slot_references());
                out.push(record);
            }
        }
        Ok(out)
    }

    /// Chunk `index` of a large object's contents (its slot words, 8 bytes each, then its
    /// bytes, in pieces of [`onyx_record::CHUNK`] bytes) as the session's view shows it.
    pub fn fetch_chunk(&self, session: u64, oop: Oop, index: u32) -> Result<Vec<u8>, StoreError> {
        let (view, user, policies) = self.view_of(session)?;
        if let Some(head) = view.head(oop)?
            && users::access(&policies, &user, head.policy) < Access::Read
        {
            return Err(denied(&user, "read", oop, head.policy));
        }
        view.chunk(oop, index)?.ok_or_else(|| StoreError::Invalid(format!("object {oop} has no chunk {index}")))
    }

    /// Commits `records` (changed objects and new ones) for `session`. Waits until the
    /// commit is durable or refused.
    pub fn commit(&self, session: u64, records: Vec<ObjectRecord>) -> Result<CommitOutcome, StoreError> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.commit_then(
            session,
            records,
            Box::new(move |outcome| {
                let _ = tx.send(outcome);
            }),
        );
        rx.recv().unwrap_or(Err(StoreError::ShuttingDown))
    }

    /// Queues a commit and returns at once; `reply` gets the outcome once the commit is
    /// durable or refused (on the committer's thread: it must not block). A record that is no
    /// object (see [`ObjectRecord::check_shape`]) is refused here, before it is queued.
    pub fn commit_then(&self, session: u64, records: Vec<ObjectRecord>, reply: Reply) {
        if let Some(why) = records.iter().find_map(|r| r.check_shape().err()) {
            reply(Err(StoreError::Invalid(format!("the commit holds a malformed record: {why}"))));
            return;
        }
        if records.is_empty() {
            // Nothing to write: the commit only moves the view and releases the locks, as
            // an abort does, without waiting for the disk.
            reply(self.abort(session).map(CommitOutcome::Committed));
            return;
        }
        {
            let mut q = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            if q.closed {
                drop(q);
                reply(Err(StoreError::ShuttingDown));
                return;
            }
            q.pending.push(Pending { session, records, reply });
        }
        self.shared.queued.notify_one();
    }

    /// Drops the session's view for one of the latest commit and releases its locks (what
    /// `System abortTransaction` and `beginTransaction` ask of the stone).
    pub fn abort(&self, session: u64) -> Result<ViewChange, StoreError> {
        self.new_view(session, true)
    }

    /// Moves the session's view to the latest commit and keeps its locks: the gem goes on
    /// with its transaction (after a conflict on objects it can bring up to date itself, as
    /// reduced-conflict classes do). The objects changed in between are answered, so that
    /// the gem can check that none of its other changes is affected.
    pub fn continue_transaction(&self, session: u64) -> Result<ViewChange, StoreError> {
        self.new_view(session, false)
    }

    fn new_view(&self, session: u64, release_locks: bool) -> Result<ViewChange, StoreError> {
        // Under the state lock, as at login: nothing between the snapshot and the session's
        // new view can be pruned or overtaken by a concurrent commit of the same session.
        let mut st = self.shared.state();
        if !st.sessions.contains_key(&session) {
            return Err(StoreError::NoSession(session));
        }
        let view = Arc::new(self.shared.repo.snapshot()?);
        let seq = view.meta()?.commit_seq;
        let s = st.sessions.get_mut(&session).ok_or(StoreError::NoSession(session))?;
        let old = s.view_seq;
        if seq >= old {
            s.view_seq = seq;
            s.view = view;
        }
        let seq = s.view_seq;
        let changed = changed_between(&st.log, old, seq, None);
        if release_locks {
            st.locks.unlock_all(session);
        }
        prune_log(&mut st);
        Ok(ViewChange { seq, changed })
    }

    /// Locks `oop` for `session` (denied at once if another session's lock stands in the way).
    /// A read lock needs read access to the object as the session's view shows it, a write
    /// lock write access, as GemStone asks: nobody holds up commits of objects they may not
    /// use themselves.
    pub fn lock(&self, session: u64, oop: Oop, kind: LockKind) -> Result<(), StoreError> {
        let (view, user, policies) = self.view_of(session)?;
        let Some(head) = view.head(oop)? else {
            return Err(StoreError::Invalid(format!(
                "object {oop} is not committed: only committed objects are locked"
            )));
        };
        let needed = match kind {
            LockKind::Read => Access::Read,
            LockKind::Write => Access::Write,
        };
        if users::access(&policies, &user, head.policy) < needed {
            let what = if kind == LockKind::Read { "read-lock" } else { "write-lock" };
            return Err(denied(&user, what, oop, head.policy));
        }
        let mut st = self.shared.state();
        if !st.sessions.contains_key(&session) {
            return Err(StoreError::NoSession(session));
        }
        st.locks.lock(session, oop, kind)
    }

    /// Releases `session`'s lock on `oop`.
    pub fn unlock(&self, session: u64, oop: Oop) {
        self.shared.state().locks.unlock(session, oop);
    }

    /// Releases every lock of `session`.
    pub fn unlock_all(&self, session: u64) {
        self.shared.state().locks.unlock_all(session);
    }

    /// Deletes the objects no live view can reach from the root (see `gc.rs`); waits for it.
    pub fn collect_garbage(&self) -> Result<crate::gc::GcReport, StoreError> {
        let (tx, rx) = std::sync::mpsc::channel();
        {
            let mut q = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            if q.closed {
                return Err(StoreError::ShuttingDown);
            }
            q.collect.push(Box::new(move |report| {
                let _ = tx.send(report);
            }));
        }
        self.shared.queued.notify_one();
        rx.recv().unwrap_or(Err(StoreError::ShuttingDown))
    }

    /// The ids of symbols `names` in the stone's symbol table, interning new ones durably.
    /// Interning is idempotent and never conflicts: two gems that intern the same new name
    /// get the same id.
    pub fn intern(&self, names: &[Vec<u8>]) -> Result<Vec<u64>, StoreError> {
        if let Some(n) = names.iter().find(|n| n.len() > MAX_SYMBOL) {
            return Err(StoreError::Invalid(format!("a symbol of {} bytes is too long", n.len())));
        }
        self.shared.repo.intern(names)
    }

    /// The names of the symbols with ids `ids`.
    pub fn symbol_names(&self, ids: &[u64]) -> Result<Vec<Vec<u8>>, StoreError> {
        let snap = self.shared.repo.snapshot()?;
        ids.iter()
            .map(|&id| snap.symbol_name(id)?.ok_or_else(|| StoreError::Invalid(format!("there is no symbol {id}"))))
            .collect()
    }

    /// The commit number the latest durable commit has.
    pub fn last_commit(&self) -> Result<u64, StoreError> {
        Ok(self.shared.repo.snapshot()?.meta()?.commit_seq)
    }

    /// A session's view, user, and the policies as they are now.
    pub(crate) fn view_of(&self, session: u64) -> Result<Reader, StoreError> {
        let st = self.shared.state();
        let s = st.sessions.get(&session).ok_or(StoreError::NoSession(session))?;
        Ok((Arc::clone(&s.view), Arc::clone(&s.user), Arc::clone(&st.policies)))
    }
}

impl Drop for Stone {
    fn drop(&mut self) {
        self.shared.state().shutting_down = true;
        self.shared.queue.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.shared.queued.notify_all();
        if let Some(t) = self.committer.take() {
            let _ = t.join();
        }
    }
}

/// The users, each with the OOP of their `UserProfile` reserved (a user written before
/// profiles were reserved gets one now, durably), and the OOP high-water mark past every
/// reserved one. (Reserving one moves only the stone's mark, which a commit writes: taking
/// the highest reserved OOP into account here keeps it from being handed out twice.)
fn reserve_profiles(repo: &Repository, oop_high: Oop) -> Result<(HashMap<String, Arc<User>>, Oop), StoreError> {
    let mut users = repo.users()?;
    let mut high = users.values().map(|u| u.profile.saturating_add(1)).fold(oop_high, Oop::max);
    for user in users.values_mut().filter(|u| u.profile == 0) {
        user.profile = high;
        high = high.checked_add(1).filter(|&e| e <= MAX_OOP).ok_or_else(out_of_oops)?;
        repo.put_user(user, None)?;
    }
    Ok((users.into_iter().map(|(name, u)| (name, Arc::new(u))).collect(), high))
}

pub(crate) fn out_of_oops() -> StoreError {
    StoreError::Invalid("the repository has run out of OOPs".into())
}

/// The refusal of what `user` may not do (`what`: read or change) to object `oop`.
pub(crate) fn denied(user: &User, what: &str, oop: Oop, policy: u32) -> StoreError {
    StoreError::PermissionDenied(format!("user {} may not {what} object {oop} (policy {policy})", user.name))
}

/// The objects committed after commit `from` up to and including commit `to`, leaving out
/// commit `except` (the session's own).
pub(crate) fn changed_between(log: &VecDeque<(u64, WriteSet)>, from: u64, to: u64, except: Option<u64>) -> Vec<Oop> {
    let mut v: Vec<Oop> = Vec::new();
    for (seq, oops) in log {
        if *seq > from && *seq <= to && Some(*seq) != except {
            v.extend(oops.iter().copied());
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Forgets write sets no view predates any more. A batch still being written is kept: a
/// view taken meanwhile may or may not show it.
pub(crate) fn prune_log(st: &mut State) {
    let oldest = st.sessions.values().map(|s| s.view_seq).min().unwrap_or(u64::MAX).min(st.durable_seq);
    while st.log.front().is_some_and(|&(seq, _)| seq <= oldest) {
        st.log.pop_front();
    }
}
