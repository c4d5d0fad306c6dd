//! What the agent's operations take and answer, in the gem's own terms: no protobuf, so that
//! any front end (the gRPC agent today; a debugger service, a debug adapter or HTTP later)
//! hands the VM thread the same work and reads the same answers. The agent's gRPC layer
//! validates each message into these types once, at its edge (`agent/convert.rs`).

use std::time::Duration;

/// An object a login holds in the gem, by number (see `inspect.rs`); 0 names none.
pub type Handle = u64;

/// A class, or its class side (the metaclass), by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassRef {
    /// The class's name.
    pub name: String,
    /// The class side rather than the instance side.
    pub meta: bool,
}

impl ClassRef {
    /// The instance side of class `name`.
    pub fn instance(name: impl Into<String>) -> ClassRef {
        ClassRef { name: name.into(), meta: false }
    }
}

/// A method of a class (or of its class side).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MethodRef {
    /// Its class.
    pub class: ClassRef,
    /// Its selector.
    pub selector: String,
}

/// An instance variable of a class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstVarRef {
    /// The class.
    pub class: ClassRef,
    /// The variable's name.
    pub name: String,
}

/// A doit to run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evaluate {
    /// Smalltalk statements.
    pub source: String,
    /// Stops it (an interrupted error) after this long.
    pub time_limit: Option<Duration>,
    /// What `self` is bound to (nil without one).
    pub receiver: Option<Handle>,
    /// Answer the value inspected.
    pub inspect: bool,
    /// Answer the printString only, keeping no handle on the value.
    pub forget: bool,
    /// The client's name for it (0: none), so that an interrupt can stop it alone.
    pub tag: u64,
}

/// A password on its way to the stone, which alone hashes and checks passwords: never shown.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(pub String);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(..)")
    }
}

/// What a login to the agent shows the stone: a user's password, or a ticket the stone issued
/// to a user for this gem (see `onyx_store::tickets`). Never shown.
#[derive(Clone, PartialEq, Eq)]
pub enum Proof {
    /// User `0` with password `1`.
    Password(String, Password),
    /// A one-time ticket.
    Ticket(Password),
}

impl std::fmt::Debug for Proof {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Proof::Password(user, _) => write!(f, "Password({user}, ..)"),
            Proof::Ticket(_) => f.write_str("Ticket(..)"),
        }
    }
}

/// Which classes a class list shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Package {
    /// The classes of the package of this name.
    Named(String),
    /// The classes of the package this class is in.
    OfClass(String),
}

/// Which indexed fields of an object an inspection shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InspectRequest {
    /// The object.
    pub handle: Handle,
    /// The first indexed field (1-based; 0 or 1: from the start).
    pub from: u64,
    /// How many at most (0: a page of the default size).
    pub page_size: u32,
}

/// One operation of a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Loads packages, all or nothing.
    LoadPackages(Vec<super::packages::Loadable>),
    /// Packages as the image holds them, by name.
    PackageContents(Vec<String>),
    /// The packages of a version repository on the gem's host.
    RepositoryPackages(std::path::PathBuf),
    /// A package's versions in a version repository on the gem's host, newest first.
    RepositoryVersions {
        /// The repository's folder.
        path: std::path::PathBuf,
        /// The package.
        package: String,
    },
    /// Loads a version of a repository's package.
    RepositoryLoad {
        /// The repository's folder.
        path: std::path::PathBuf,
        /// The package.
        package: String,
        /// The version (by name or id; the newest when empty).
        version: String,
    },
    /// Saves a package as the image holds it as a new version of a repository.
    RepositorySave {
        /// The repository's folder.
        path: std::path::PathBuf,
        /// The package.
        package: String,
        /// The version's message.
        message: String,
        /// Its author.
        author: String,
    },
    /// The definitions that differ between two states of a package.
    ComparePackages(super::versions::PackageSide, super::versions::PackageSide),
    /// Merges a version into the image's code.
    RepositoryMerge(super::versions::MergeRequest),
    /// Packages as the image remembers them, with what changed since (all, with no name).
    PackageStates(Vec<String>),
    /// Remembers packages as the image holds them, each as a version saved.
    RecordVersions(Vec<onyx_vm::source::Record>),
    /// Runs a doit.
    Evaluate(Evaluate),
    /// Stops the sending login's evaluation of this tag (0: every evaluation of the gem), or
    /// its debugger operation that runs a process.
    Interrupt {
        /// The evaluation's tag.
        tag: u64,
        /// Instead of a tag (when not 0): the process a debugger operation runs.
        process: u64,
    },
    /// The package names.
    Packages,
    /// The classes of a package.
    Classes(Package),
    /// A class's definition and comment.
    ClassDefinition(ClassRef),
    /// The protocols of one side of a class.
    Protocols(ClassRef),
    /// The selectors of a protocol (all of them without one).
    Methods {
        /// The class.
        class: ClassRef,
        /// The protocol; `None`: every selector.
        protocol: Option<String>,
    },
    /// A method's source, protocol and step points.
    MethodSource(MethodRef),
    /// Compiles a method into a class.
    CompileMethod {
        /// The class.
        class: ClassRef,
        /// `None`: the replaced method's protocol (or "as yet unclassified").
        protocol: Option<String>,
        /// The method's source.
        source: String,
    },
    /// Removes a method.
    RemoveMethod(MethodRef),
    /// The methods that send a selector.
    Senders(String),
    /// The methods that implement a selector.
    Implementors(String),
    /// The classes whose names contain a fragment.
    FindClass(String),
    /// The transaction's state.
    TransactionStatus,
    /// `System beginTransaction`.
    BeginTransaction,
    /// `System commitTransaction`.
    CommitTransaction,
    /// `System abortTransaction`.
    AbortTransaction,
    /// What Smalltalk code wrote to the Transcript since the last read.
    Transcript,
    /// An object behind a handle.
    Inspect(InspectRequest),
    /// Handles the client no longer needs.
    Release(Vec<Handle>),
    /// Adds a user (or gives one a new password and privilege) in the stone, at once.
    AddUser {
        /// The user's name.
        user: String,
        /// Their password.
        password: Password,
        /// Whether they may change code.
        may_change_code: bool,
        /// The groups they are in, replacing those they were in (none: as they were).
        groups: Vec<String>,
    },
    /// Evaluates a class definition.
    DefineClass(String),
    /// Removes a class from the system.
    RemoveClass(String),
    /// The methods that refer to a global.
    References(String),
    /// The methods of a class and its subclasses that read an instance variable.
    Readers(InstVarRef),
    /// The methods of a class and its subclasses that write an instance variable.
    Writers(InstVarRef),
    /// A class's superclasses, itself and its subclasses.
    Hierarchy(String),
    /// Turns auto-commit on or off.
    AutoCommit(bool),
    /// The stone's sessions.
    Sessions,
    /// Another session's locks listed or removed, or the session stopped (an
    /// administrator's, as the stone says).
    AdministerSession {
        /// The session.
        session: u64,
        /// What is done to it.
        act: onyx_record::SessionAct,
    },
    /// A one-time ticket of the gem's user to the agent of another session's gem.
    IssueTicket(u64),
    /// A page of the stone's object log (post-mortem reports), newest first.
    ObjectLog,
    /// One entry of the object log, whole.
    ObjectLogEntry(u64),
    /// A debugger's operation.
    Debug(super::debugger::DebugRequest),
    /// Set, remove or list breakpoints.
    Breakpoint(super::breakpoints::BreakpointRequest),
    /// Names a protocol of one side of a class, kept while it holds no method.
    AddProtocol {
        /// The class.
        class: ClassRef,
        /// The protocol.
        protocol: String,
    },
    /// Moves the methods of a protocol to another name.
    RenameProtocol {
        /// The class.
        class: ClassRef,
        /// The protocol's name.
        from: String,
        /// Its new name.
        to: String,
    },
    /// Removes a protocol; its methods go to "as yet unclassified".
    RemoveProtocol {
        /// The class.
        class: ClassRef,
        /// The protocol.
        protocol: String,
    },
    /// Puts methods of a class in a protocol.
    MoveMethods {
        /// The class.
        class: ClassRef,
        /// The methods' selectors.
        selectors: Vec<String>,
        /// The protocol.
        protocol: String,
    },
    /// Renames a class, and rewrites the methods that name it.
    RenameClass {
        /// Its name.
        from: String,
        /// Its new name.
        to: String,
    },
    /// Sets a class's comment.
    SetComment {
        /// The class's name.
        class: String,
        /// The comment.
        comment: String,
    },
    /// The selectors some method implements whose names contain a fragment.
    FindSelectors(String),
    /// The test classes of a package (of every package without one).
    TestClasses(Option<String>),
    /// Runs tests, each on its own, and answers each one's outcome and time.
    RunTests {
        /// The tests (one with no selector: every test of its class).
        tests: Vec<TestRef>,
        /// Every test of this package's test classes too.
        package: Option<String>,
    },
    /// A part of the text of a String behind a handle (in characters; at most
    /// [`PRINT_PAGE`]).
    ReadText {
        /// The String.
        handle: Handle,
        /// Its part.
        page: Page,
    },
}

/// A part of a list: `size` entries from entry `from` (0-based; `size` 0: the rest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Page {
    /// The first entry.
    pub from: u64,
    /// How many.
    pub size: u32,
}

/// An operation, and the part of its list it asks for (whole without one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// What to do.
    pub request: Request,
    /// For an operation that answers a list: which part.
    pub page: Option<Page>,
}

/// Where a list's part stands in the whole list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paged {
    /// Entries in the whole list.
    pub total: u64,
    /// The next part's first entry; 0 when this part is the last.
    pub next: u64,
}

/// A list, or the part of it asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listed<T> {
    /// The entries.
    pub items: Vec<T>,
    /// Where they stand, once the list is cut to its page.
    pub paged: Option<Paged>,
}

impl<T> Listed<T> {
    /// A whole list, not cut yet.
    pub fn whole(items: Vec<T>) -> Listed<T> {
        Listed { items, paged: None }
    }
}

/// A class in a list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassEntry {
    /// Its name.
    pub name: String,
    /// Its superclass's name (empty for none).
    pub superclass: String,
    /// Its package.
    pub package: String,
}

/// A method in a list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MethodEntry {
    /// Its class's name.
    pub class_name: String,
    /// Whether it is on the class side.
    pub meta: bool,
    /// Its selector.
    pub selector: String,
}

/// A test: a test class and one of its test selectors (or, to run, none: all of them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestRef {
    /// The test class's name.
    pub class: String,
    /// The test's selector.
    pub selector: String,
}

/// A test class and its tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestClass {
    /// Its name.
    pub name: String,
    /// Its package.
    pub package: String,
    /// Its test selectors (its own and those it inherits), sorted.
    pub selectors: Vec<String>,
}

/// How a test came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestStatus {
    /// Every assertion held.
    Passed,
    /// An assertion failed.
    Failed,
    /// An error nobody handled (or no such test).
    Error,
}

/// A test run, and how it came out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestOutcome {
    /// The test.
    pub test: TestRef,
    /// How it came out.
    pub status: TestStatus,
    /// How long it ran.
    pub time: Duration,
    /// The failure's or error's message (empty if it passed).
    pub message: String,
}

/// An evaluation's value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evaluated {
    /// Its printString.
    pub print_string: String,
    /// Its class's name.
    pub class_name: String,
    /// A handle on it (0: none kept, or not an object).
    pub handle: Handle,
    /// The length of the whole printString, in characters.
    pub print_size: u64,
    /// For a printString longer than [`PRINT_PAGE`]: a handle on the whole of it, whose
    /// other parts [`Request::ReadText`] answers (0: `print_string` is all of it).
    pub rest: Handle,
}

/// The most characters of a text one reply carries (a printString's start, a part of it):
/// 1 Mi, at most 2 MiB of UTF-8, under the 4 MiB any gRPC client takes by default.
pub const PRINT_PAGE: usize = 1 << 20;

/// A field of an inspected object, or an object a commit conflicted on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Field {
    /// The instance variable's name, the index, or empty.
    pub name: String,
    /// Its printString (cut at a length).
    pub print_string: String,
    /// A handle on its value.
    pub handle: Handle,
}

/// An inspected object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inspection {
    /// Its class's name.
    pub class_name: String,
    /// Its printString.
    pub print_string: String,
    /// Its named fields.
    pub named: Vec<Field>,
    /// How many indexed fields it has, of which `indexed` are a page.
    pub indexed_size: u64,
    /// A page of its indexed fields.
    pub indexed: Vec<Field>,
    /// The next page's first field; 0 when this page is the last.
    pub next: u64,
    /// The object's handle.
    pub handle: Handle,
}

/// A class's definition.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassDefinition {
    /// The message that recreates it.
    pub definition: String,
    /// Its comment.
    pub comment: String,
    /// Its package.
    pub package: String,
    /// Its name.
    pub name: String,
}

/// A method's source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MethodSource {
    /// The source, as the user wrote it.
    pub source: String,
    /// Its protocol.
    pub protocol: String,
    /// Its step points, as byte ranges of the source.
    pub step_points: Vec<(u32, u32)>,
}

/// A compiler warning and where it is (line 0: about other code than the source compiled).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Warning {
    /// What is wrong.
    pub message: String,
    /// The byte offset.
    pub start: u32,
    /// The 1-based line.
    pub line: u32,
    /// The 1-based column.
    pub column: u32,
}

/// A method compiled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Compiled {
    /// Its selector.
    pub selector: String,
    /// The compiler's warnings.
    pub warnings: Vec<Warning>,
}

/// The transaction's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TransactionStatus {
    /// Whether changes made now can be committed.
    pub in_transaction: bool,
    /// `autoBegin` or `manualBegin`.
    pub mode: String,
    /// Whether every batch is followed by a commit.
    pub auto_commit: bool,
    /// Whether a persistent object changed in the transaction.
    pub needs_commit: bool,
}

/// A commit's outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Committed {
    /// Whether it committed.
    pub committed: bool,
    /// If not: the objects it conflicted on, the first `transaction::CONFLICTS_SHOWN`.
    pub conflicts: Vec<Field>,
    /// How many objects it conflicted on.
    pub conflict_count: u64,
}

/// A gem of the stone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GemSession {
    /// Its session.
    pub session: u64,
    /// Its user, as the stone checked them at login.
    pub user: String,
    /// The users logged in to its agent, as the gem says.
    pub agent_users: String,
    /// Its host.
    pub host: String,
    /// Its process id.
    pub pid: u32,
    /// Where its agent listens.
    pub agent: String,
    /// The commit its view shows.
    pub view: u64,
    /// How many commits it is behind.
    pub behind: u64,
    /// Objects it holds locks on.
    pub locks: u64,
    /// Whether it is the gem answering.
    pub this_gem: bool,
    /// The processes it keeps suspended for a debugger.
    pub suspended: Vec<onyx_record::Suspended>,
}

/// What an operation answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// What a load changed.
    Loaded(super::packages::LoadSummary),
    /// Packages as the image holds them.
    Packages(Vec<onyx_vm::source::Package>),
    /// A package's versions.
    Versions(Listed<onyx_versions::Version>),
    /// Packages as the image remembers them.
    PackageStates(Vec<onyx_vm::source::PackageState>),
    /// The definitions that differ between two states of a package.
    Changes(Vec<super::versions::DefinitionDiff>),
    /// A merge, told or applied.
    Merged(super::versions::Merged),
    /// A doit's value.
    Evaluated(Evaluated),
    /// Done, with nothing to say.
    Done,
    /// Names (packages, protocols, selectors).
    Names(Listed<String>),
    /// Classes.
    Classes(Listed<ClassEntry>),
    /// A class's definition.
    ClassDefinition(ClassDefinition),
    /// A method's source.
    MethodSource(MethodSource),
    /// A method compiled.
    Compiled(Compiled),
    /// Methods (senders, implementors, references).
    Methods(Listed<MethodEntry>),
    /// The transaction's state.
    Transaction(TransactionStatus),
    /// A commit's outcome.
    Committed(Committed),
    /// Text (the Transcript).
    Text(String),
    /// A part of a text, and where it stands in the whole.
    TextPart(String, Paged),
    /// An inspected object.
    Inspection(Inspection),
    /// The gem's processes.
    Processes(Vec<super::debugger::ProcessEntry>),
    /// What a debugger shows of a process.
    Debugged(Box<super::debugger::Debugged>),
    /// The locks a session holds (or held before they were removed, or it was stopped).
    SessionLocks {
        /// The session.
        session: u64,
        /// Its locks, by object.
        locks: Vec<(onyx_record::Oop, onyx_record::LockKind)>,
    },
    /// A ticket to the agent of session `0`'s gem.
    Ticket(u64, Password),
    /// The stone's sessions, and its latest commit.
    Sessions {
        /// The gems.
        sessions: Vec<GemSession>,
        /// The latest commit.
        latest: u64,
    },
    /// A page of the object log.
    ObjectLog {
        /// Its entries, without frames.
        entries: Vec<super::object_log::LoggedFailure>,
        /// Where the page stands in the log.
        paged: Paged,
    },
    /// An entry of the object log, whole.
    ObjectLogEntry(Box<super::object_log::LoggedFailure>),
    /// Test classes.
    TestClasses(Vec<TestClass>),
    /// Tests run, each with its outcome.
    TestResults(Vec<TestOutcome>),
    /// Breakpoints.
    Breakpoints(Vec<super::breakpoints::BreakpointEntry>),
}

/// What kind of failure an operation's is, so that a client can act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request itself is malformed.
    Invalid,
    /// No such class, method or handle.
    NotFound,
    /// The source does not compile.
    CompileError,
    /// Smalltalk code signalled an error nobody handled.
    SmalltalkError,
    /// The evaluation was interrupted or ran past its time limit.
    Interrupted,
    /// The repository refused or failed (damage, storage, a request the stone refused).
    Repository,
    /// The user may not do this.
    PermissionDenied,
    /// Another session holds a lock that stands in the way.
    LockDenied,
    /// The stone cannot be reached or ended the session.
    Unavailable,
    /// The answer does not fit in the batch's reply.
    TooLarge,
}

/// An operation's error, as the client gets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Its kind.
    pub kind: ErrorKind,
    /// What went wrong.
    pub message: String,
    /// For a compile error: where in the source (byte offsets).
    pub span: (u32, u32),
    /// For an error in Smalltalk code: the stack, top first.
    pub stack: Vec<String>,
    /// For an error that stopped a process the gem keeps: its number, to debug it (0: none).
    pub process: u64,
}

impl Failure {
    /// A failure with nothing but a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Failure {
        Failure { kind, message: message.into(), span: (0, 0), stack: Vec::new(), process: 0 }
    }
}

/// What an operation came to.
pub type Outcome = Result<Answer, Failure>;

/// One operation's outcome and the server time it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    /// Its outcome.
    pub outcome: Outcome,
    /// How long the gem spent on it.
    pub server_time: Duration,
}

/// A batch's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchAnswer {
    /// Each operation's, in order.
    pub results: Vec<Done>,
    /// From the batch's arrival to its answer.
    pub server_time: Duration,
    /// With auto-commit on: the commit that followed the batch.
    pub auto_commit: Option<Outcome>,
    /// The transaction's state once the batch is done (none if the gem lost its stone).
    pub transaction: Option<TransactionStatus>,
}

/// What the tools hear besides their answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Transcript output.
    Transcript(String),
    /// Others committed: this gem's view is behind.
    Stale {
        /// The latest commit.
        latest: u64,
        /// How many commits behind.
        behind: u64,
    },
    /// Sessions logged in to or out of the stone.
    Sessions {
        /// Those that came.
        logged_in: Vec<u64>,
        /// Those that went.
        logged_out: Vec<u64>,
    },
    /// The gem lost its stone and logged in again, as this new session: its transaction was
    /// aborted and every handle is gone.
    Relogged {
        /// The new session.
        session: u64,
    },
    /// The processes a gem of the stone (this one or another) keeps suspended changed: these
    /// are they now.
    Suspended {
        /// The gem's session.
        session: u64,
        /// Its suspended processes, oldest first (none: it has none left, or it went).
        processes: Vec<onyx_record::Suspended>,
    },
    /// The stone's breakpoints changed, as this gem found.
    Breakpoints,
    /// How far an operation of a login's batch has come: told to that login alone.
    Progress {
        /// The login whose batch it is.
        login: u64,
        /// What is under way.
        step: String,
        /// How many of the step's things are done.
        done: u64,
        /// How many it has (0: the step has no count).
        total: u64,
    },
    /// A process of the gem was suspended (and is kept to debug), resumed, or terminated.
    Process {
        /// The process.
        process: u64,
        /// What happened.
        change: ProcessChange,
    },
}

/// What happened to a process of the gem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessChange {
    /// It stopped (an error, a halt, a step) while a tool ran it, and the gem keeps it.
    Suspended,
    /// It stopped (an error, a halt) where no tool looked (a forked process), and the gem
    /// keeps it.
    Failed,
    /// It runs again.
    Resumed,
    /// It ended.
    Terminated,
}
