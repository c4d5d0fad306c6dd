//! A gem's session with its stone, as the gem sees it: [`StoneLink`], the calls a VM makes of
//! its repository, and what they answer. The gem's gRPC client implements it for a remote
//! stone, the store for a stone in the same process.

use std::fmt;
use std::ops::Range;

use crate::breakpoint::Breakpoint;
use crate::error::StoneError;
use crate::log::LogEntry;
use crate::policy::Policy;
use crate::record::{ObjectRecord, Oop};

/// A gem's session with a stone. Every failure is a [`StoneError`] saying what kind of
/// failure it is, so that the VM (and the tools behind it) can tell a denied lock from a stone
/// that is gone.
pub trait StoneLink {
    /// `oops`, then what they reference and `nearby` (objects the gem expects to touch
    /// next), up to `budget` bytes of records.
    fn fetch(&mut self, oops: &[Oop], nearby: &[Oop], budget: u64) -> Result<Vec<ObjectRecord>, StoneError>;
    /// Fresh OOPs for new objects.
    fn allocate(&mut self, count: u64) -> Result<Range<Oop>, StoneError>;
    /// Commits changed and new objects.
    fn commit(&mut self, records: &[ObjectRecord]) -> Result<CommitOutcome, StoneError>;
    /// A view of the latest commit (releasing the session's locks).
    fn abort(&mut self) -> Result<ViewChange, StoneError>;
    /// A view of the latest commit for a transaction that goes on (keeping its locks).
    fn continue_transaction(&mut self) -> Result<ViewChange, StoneError>;
    /// The ids of symbols by name, interning new ones.
    fn intern(&mut self, names: &[Vec<u8>]) -> Result<Vec<u64>, StoneError>;
    /// The names of symbols by id.
    fn symbol_names(&mut self, ids: &[u64]) -> Result<Vec<Vec<u8>>, StoneError>;
    /// The session's id in the stone.
    fn session(&self) -> u64;
    /// A lock on `oop`; denied with [`StoneError::LockDenied`], naming the holder.
    fn lock(&mut self, oop: Oop, kind: LockKind) -> Result<(), StoneError>;
    /// Releases the session's lock on `oop`.
    fn unlock(&mut self, oop: Oop) -> Result<(), StoneError>;
    /// Releases every lock of the session.
    fn unlock_all(&mut self) -> Result<(), StoneError>;
    /// Has the stone delete what no live view reaches; answers how many objects went.
    fn collect_garbage(&mut self) -> Result<u64, StoneError>;
    /// Chunk `index` of large object `oop` (its slot words, then its bytes).
    fn fetch_chunk(&mut self, oop: Oop, index: u32) -> Result<Vec<u8>, StoneError>;
    /// Says what the gem is, for lists of the stone's sessions.
    fn describe(&mut self, about: &About) -> Result<(), StoneError>;
    /// Every session of the stone, and the number of the latest commit.
    fn sessions(&mut self) -> Result<(Vec<SessionInfo>, u64), StoneError>;
    /// Does `act` to session `session` (any session's for an administrator; a session may
    /// list its own locks); answers the locks it holds, or held before the act.
    fn administer(&mut self, session: u64, act: SessionAct) -> Result<Vec<(Oop, LockKind)>, StoneError>;
    /// The user the session is, as the stone knows them.
    fn user(&self) -> &UserInfo;
    /// Checks a login to this gem's agent: user `name` with `password`, who must be the
    /// session's own user or one who may debug others' gems (in
    /// [`crate::policy::DEBUGGERS`]); answers what the gem knows of them, or refuses with
    /// [`StoneError::PermissionDenied`].
    fn admit(&mut self, name: &str, password: &str) -> Result<UserInfo, StoneError>;
    /// A one-time ticket of the session's user to the gem of session `session`, which that
    /// gem's agent takes instead of a password: a tool never sends a password to an agent
    /// address it was only told about.
    fn issue_ticket(&mut self, session: u64) -> Result<String, StoneError>;
    /// Redeems a ticket handed to this gem's agent: the user it was issued to, if it was
    /// issued for this session and they may log in here (as [`StoneLink::admit`] decides).
    fn redeem_ticket(&mut self, ticket: &str) -> Result<UserInfo, StoneError>;
    /// Adds user `name` with `password` (or gives an existing one a new password and
    /// privilege); only an administrator adds users.
    fn add_user(&mut self, name: &str, password: &str, may_change_code: bool) -> Result<(), StoneError>;
    /// Puts user `name` in `groups`, replacing the groups they were in (from their next
    /// login); only an administrator does.
    fn set_groups(&mut self, name: &str, groups: &[String]) -> Result<(), StoneError>;
    /// Object security policy `id` as the stone keeps it (every user may read every policy).
    fn policy(&mut self, id: u32) -> Result<Policy, StoneError>;
    /// Defines an object security policy, durably, and answers its id: a new one (`id`
    /// `None`), owned by the session's user (or by anyone, for a user who may change code), or
    /// policy `id` anew, which only its owner or a user who may change code may do.
    fn define_policy(&mut self, id: Option<u32>, policy: &Policy) -> Result<u32, StoneError>;
    /// Writes a post-mortem report to the stone's object log, durably and outside every
    /// transaction; answers its id. The stone stamps its time, session, gem and user.
    fn log_failure(&mut self, entry: &LogEntry) -> Result<u64, StoneError>;
    /// `count` entries of the object log from the `from`th newest (0: the newest first), and
    /// how many it holds.
    fn object_log(&mut self, from: u64, count: u32) -> Result<(Vec<LogEntry>, u64), StoneError>;
    /// Entry `id` of the object log, if it holds it still.
    fn object_log_entry(&mut self, id: u64) -> Result<Option<LogEntry>, StoneError>;
    /// The stone's breakpoints and their generation, unless the generation is still `since`
    /// (then `None`).
    fn breakpoints(&mut self, since: u64) -> Result<Option<(u64, Vec<Breakpoint>)>, StoneError>;
    /// Sets a breakpoint (`id` 0: a new one), answering it as the stone keeps it; only a
    /// user who may change code sets breakpoints.
    fn set_breakpoint(&mut self, breakpoint: &Breakpoint) -> Result<Breakpoint, StoneError>;
    /// Removes a breakpoint (one who may change code, or any session for a breakpoint that
    /// fired `once`); answers whether there was one.
    fn remove_breakpoint(&mut self, id: u64, fired_once: bool) -> Result<bool, StoneError>;
}

/// The policy of an object that belongs to none: everyone may read and change it.
pub const NO_POLICY: u32 = 0;
/// The policy of the kernel (classes, methods, the system dictionary, the root): everyone
/// reads it, only users who may change code change it.
pub const SYSTEM_POLICY: u32 = 1;

/// A user, as their session knows them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserInfo {
    /// Their name.
    pub name: String,
    /// Whether they may change code (compile, define and remove classes, add users).
    pub may_change_code: bool,
    /// The policy the objects they make belong to.
    pub default_policy: u32,
    /// The OOP of their `UserProfile` (their symbol list, and so their `UserGlobals`): the
    /// stone reserves it for them, and their first session creates it.
    pub profile: Oop,
}

/// Which lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockKind {
    /// Shared.
    Read,
    /// Exclusive.
    Write,
}

impl fmt::Display for LockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LockKind::Read => "read",
            LockKind::Write => "write",
        })
    }
}

/// What an administrator does to a session ([`StoneLink::administer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionAct {
    /// Lists the objects it holds locks on.
    ListLocks,
    /// Removes every lock it holds (its transaction goes on).
    RemoveLocks,
    /// Ends the session: its transaction is gone and its locks are released.
    Stop,
}

/// A new view for a session: the commit it shows, and what changed since the old one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewChange {
    /// The commit the new view shows.
    pub seq: u64,
    /// Objects other sessions changed between the old view and the new one: the gem
    /// invalidates its copies.
    pub changed: Vec<Oop>,
}

/// What a commit came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    /// Durable; the session now has a view of the repository after it.
    Committed(ViewChange),
    /// Objects in the write set that other sessions committed since the session's view: the
    /// commit was not applied and the session keeps its view (it must abort).
    Conflict(Vec<Oop>),
}

/// What a gem says of its session, for lists of the stone's sessions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct About {
    /// Who uses its agent, as the gem says (the users logged in to it): the session's own
    /// user is [`SessionInfo::user`], which the stone knows.
    pub user: String,
    /// The machine the gem runs on.
    pub host: String,
    /// The gem's process id.
    pub pid: u32,
    /// Where the gem's agent listens (empty for a gem without one).
    pub agent: String,
    /// The processes the gem keeps suspended for a debugger, oldest first (at most
    /// [`MAX_LISTED_SUSPENDED`]).
    pub suspended: Vec<Suspended>,
    /// The hits each of the stone's breakpoints counted in the gem (those with some), by
    /// breakpoint number (at most [`MAX_LISTED_HITS`]).
    pub hits: Vec<(u64, u64)>,
}

/// The breakpoints a gem tells its hits of at most (as many as a stone keeps).
pub const MAX_LISTED_HITS: usize = 10_000;

/// The suspended processes a gem lists at most in what it says of itself.
pub const MAX_LISTED_SUSPENDED: usize = 100;

/// The longest text of a listed suspended process (its reason, its method).
pub const MAX_SUSPENDED_TEXT: usize = 1024;

/// A process a gem keeps suspended, as the stone's list of sessions shows it to every tool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suspended {
    /// Its number in the gem.
    pub process: u64,
    /// What stopped it: error, halt, breakpoint, interrupt, pause, step or suspended.
    pub kind: String,
    /// Why it stopped (`breakpoint 3 at line 4`, an error's description, ...).
    pub reason: String,
    /// The frame it stopped in (`Foo>>bar`).
    pub method: String,
    /// Since when, in microseconds since the Unix epoch.
    pub since_micros: u64,
}

impl About {
    /// Checks what a stone takes from a gem: a bounded list of bounded texts.
    pub fn check(&self) -> Result<(), String> {
        if self.suspended.len() > MAX_LISTED_SUSPENDED {
            return Err(format!("a gem lists at most {MAX_LISTED_SUSPENDED} suspended processes"));
        }
        let long =
            self.suspended.iter().any(|s| [&s.kind, &s.reason, &s.method].iter().any(|t| t.len() > MAX_SUSPENDED_TEXT));
        if long {
            return Err(format!("a suspended process's texts are at most {MAX_SUSPENDED_TEXT} bytes"));
        }
        if self.hits.len() > MAX_LISTED_HITS {
            return Err(format!("a gem tells the hits of at most {MAX_LISTED_HITS} breakpoints"));
        }
        Ok(())
    }
}

/// One session of the stone, as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    /// Its id.
    pub session: u64,
    /// The user who logged in, as the stone checked them (not what the gem says).
    pub user: String,
    /// What its gem said of itself.
    pub about: About,
    /// The commit its view shows.
    pub view: u64,
    /// Commits since its view (the session does not see them until it commits or aborts).
    pub behind: u64,
    /// Objects it holds locks on.
    pub locks: u64,
}

#[cfg(test)]
mod tests {
    use super::{About, MAX_LISTED_HITS, MAX_LISTED_SUSPENDED, MAX_SUSPENDED_TEXT, Suspended};

    #[test]
    fn a_gem_lists_a_bounded_number_of_suspended_processes_with_bounded_texts() {
        let one = Suspended {
            process: 1,
            kind: "halt".into(),
            reason: "halt".into(),
            method: "Foo>>bar".into(),
            since_micros: 1,
        };
        assert_eq!(About { suspended: vec![one.clone(); MAX_LISTED_SUSPENDED], ..About::default() }.check(), Ok(()));
        assert!(About { suspended: vec![one.clone(); MAX_LISTED_SUSPENDED + 1], ..About::default() }.check().is_err());
        let long = Suspended { reason: "x".repeat(MAX_SUSPENDED_TEXT + 1), ..one.clone() };
        assert!(About { suspended: vec![long], ..About::default() }.check().is_err());
        let kind = Suspended { kind: "x".repeat(MAX_SUSPENDED_TEXT + 1), ..one };
        assert!(About { suspended: vec![kind], ..About::default() }.check().is_err());
        assert_eq!(About { hits: vec![(1, 1); MAX_LISTED_HITS], ..About::default() }.check(), Ok(()));
        assert!(About { hits: vec![(1, 1); MAX_LISTED_HITS + 1], ..About::default() }.check().is_err());
    }
}
