//! The agent's operations, written against the VM in the gem's own types ([`request`]): the
//! VM thread runs each with what it keeps for its clients ([`State`]). They reach the image
//! through messages to it (`Smalltalk allClasses`, `Behavior>>protocols`, ...) sent under a
//! time limit, so they see what Smalltalk code sees, faulting included.
//!
//! - [`browse`]: packages, classes, definitions, protocols, methods, compiling and removing;
//! - [`search`]: cross-references (senders and implementors from an index) and hierarchies;
//! - [`inspect`]: handles on objects, and the inspector;
//! - [`transaction`]: commit, abort, begin, the transaction's state and the stone's sessions;
//! - [`debugger`]: the gem's processes, suspended processes' stacks and frames, and stepping;
//! - [`breakpoints`]: the stone's breakpoints, set, listed and removed through this gem;
//! - [`organize`]: protocols named, renamed and removed, methods moved, class comments,
//!   classes renamed;
//! - [`packages`]: packages loaded all or nothing, and taken from the image to be saved;
//! - [`tests`]: test classes, and tests run one by one for a test runner.
//!
//! Evaluations and interrupts run on the VM thread itself (`vm_thread`), in time slices.

pub mod breakpoints;
pub mod browse;
pub mod debugger;
pub mod inspect;
pub mod object_log;
pub mod organize;
pub mod packages;
pub mod request;
pub mod search;
pub mod tests;
pub mod transaction;
pub mod versions;

use std::time::Duration;

use onyx_record::StoneError;
use onyx_vm::persist::repository_exception;
use onyx_vm::{EvalError, Value, Vm};

use self::inspect::{Handles, LoginHandles};
use self::packages::Teller;
use self::request::{
    Answer, ErrorKind, Evaluated, Failure, Handle, Outcome, PRINT_PAGE, Page, Paged, Password, Request,
};
use self::search::CodeIndex;

/// How long a message the agent sends on a tool's behalf (a printString, a lookup) may run;
/// one still running then answers an interrupted error.
pub const LIMIT: Duration = Duration::from_secs(2);
/// How long a class definition or a transaction operation may run (instances migrate in the
/// one, a commit writes in the other).
pub const WORK_LIMIT: Duration = Duration::from_secs(600);

/// At most this many selectors answer a search for them (quick-open lists them as one types).
const FOUND_SELECTORS: usize = 200;

/// What the VM thread keeps for its clients between batches.
#[derive(Default)]
pub struct State {
    /// What Smalltalk code wrote to the Transcript.
    pub transcript: Transcript,
    /// The objects clients hold.
    pub handles: Handles,
    /// Every batch is followed by a commit.
    pub auto_commit: bool,
    /// Senders and implementors of every selector.
    pub index: CodeIndex,
    /// Logins that ended.
    pub ended: std::collections::HashSet<u64>,
    /// The longest an evaluation runs.
    pub eval_limit: std::time::Duration,
    /// Where events go (progress told as long operations run).
    pub events: Option<tokio::sync::broadcast::Sender<request::Event>>,
}

/// What Smalltalk code wrote to the Transcript: kept (the last [`Transcript::KEPT`] bytes)
/// until a client reads it, and handed to the listeners as it comes.
#[derive(Default)]
pub struct Transcript {
    unread: String,
    /// Taken from the VM and not handed to the listeners yet.
    pending: String,
}

impl Transcript {
    const KEPT: usize = 1 << 20;

    /// Takes what the VM has written since.
    pub fn collect(&mut self, vm: &mut Vm) {
        let text = vm.take_transcript();
        if text.is_empty() {
            return;
        }
        self.unread.push_str(&text);
        if self.unread.len() > Self::KEPT {
            let cut = self.unread.len() - Self::KEPT;
            let cut = (cut..self.unread.len()).find(|&i| self.unread.is_char_boundary(i)).unwrap_or(0);
            self.unread.drain(..cut);
        }
        self.pending.push_str(&text);
    }

    /// What was written since the listeners last heard.
    pub fn take_pending(&mut self) -> String {
        std::mem::take(&mut self.pending)
    }

    /// What was written since a client last read it.
    fn take_unread(&mut self) -> String {
        std::mem::take(&mut self.unread)
    }
}

/// Runs one operation (not an evaluation or an interrupt: the VM thread runs those), for
/// login `login`.
pub fn run(vm: &mut Vm, state: &mut State, login: u64, request: Request, page: Option<Page>) -> Outcome {
    match request {
        Request::Transcript => {
            state.transcript.collect(vm);
            Ok(Answer::Text(state.transcript.take_unread()))
        }
        Request::Inspect(r) => inspect::inspect(vm, &mut state.handles.of(login), r),
        Request::Release(handles) => {
            state.handles.of(login).release(vm, &handles);
            Ok(Answer::Done)
        }
        Request::AddUser { user, password, may_change_code, groups } => {
            add_user(vm, &user, &password, may_change_code, &groups)
        }
        Request::AutoCommit(on) => {
            state.auto_commit = on;
            Ok(Answer::Done)
        }
        Request::Sessions => transaction::sessions(vm),
        Request::AdministerSession { session, act } => transaction::administer(vm, session, act),
        Request::IssueTicket(session) => transaction::ticket(vm, session),
        Request::Breakpoint(r) => breakpoints::run(vm, r),
        Request::ObjectLog => object_log::list(vm, page),
        Request::ObjectLogEntry(id) => object_log::open(vm, &mut state.handles.of(login), id),
        Request::ReadText { handle, page } => read_text(vm, &mut state.handles.of(login), handle, page),
        Request::Packages => browse::packages(vm),
        Request::Classes(package) => browse::classes(vm, &package),
        Request::ClassDefinition(class) => browse::class_definition(vm, &class.name),
        Request::Protocols(class) => browse::protocols(vm, &class),
        Request::Methods { class, protocol } => browse::methods(vm, &class, protocol.as_deref()),
        Request::MethodSource(method) => browse::method_source(vm, &method),
        Request::CompileMethod { class, protocol, source } => browse::compile(vm, &class, protocol.as_deref(), &source),
        Request::RemoveMethod(method) => browse::remove_method(vm, &method),
        Request::Senders(selector) => state.index.senders(vm, &selector),
        Request::Implementors(selector) => state.index.implementors(vm, &selector),
        Request::References(name) => search::references(vm, &name),
        Request::Readers(var) => search::inst_var_users(vm, &var, false),
        Request::Writers(var) => search::inst_var_users(vm, &var, true),
        Request::Hierarchy(class) => search::hierarchy(vm, &class),
        Request::DefineClass(definition) => browse::define_class(vm, &definition),
        Request::RemoveClass(class) => browse::remove_class(vm, &class),
        Request::FindClass(fragment) => browse::find_class(vm, &fragment),
        Request::FindSelectors(fragment) => state.index.selectors(vm, &fragment, FOUND_SELECTORS),
        Request::AddProtocol { class, protocol } => organize::add_protocol(vm, &class, &protocol),
        Request::RenameProtocol { class, from, to } => organize::rename_protocol(vm, &class, &from, &to),
        Request::RemoveProtocol { class, protocol } => organize::remove_protocol(vm, &class, &protocol),
        Request::MoveMethods { class, selectors, protocol } => {
            organize::move_methods(vm, &class, &selectors, &protocol)
        }
        Request::SetComment { class, comment } => organize::set_comment(vm, &class, &comment),
        Request::RenameClass { from, to } => organize::rename_class(vm, &from, &to),
        Request::TestClasses(package) => tests::classes(vm, package.as_deref()),
        Request::LoadPackages(loaded) => packages::load(vm, loaded, &mut Teller::new(state, login)),
        Request::PackageContents(names) => packages::contents(vm, &names),
        Request::PackageStates(names) => packages::states(vm, &names),
        Request::RepositoryPackages(path) => versions::packages(vm, &path),
        Request::RepositoryVersions { path, package } => versions::versions(vm, &path, &package),
        Request::RepositoryLoad { path, package, version } => {
            versions::load_version(vm, &path, &package, &version, &mut Teller::new(state, login))
        }
        Request::RepositorySave { path, package, message, author } => {
            versions::save_version(vm, &path, &package, &message, &author, &mut Teller::new(state, login))
        }
        Request::ComparePackages(left, right) => versions::compare(vm, &left, &right),
        Request::RepositoryMerge(merge) => versions::merge(vm, merge, &mut Teller::new(state, login)),
        Request::RecordVersions(records) => packages::record(vm, &records),
        Request::TransactionStatus => transaction::status(vm, state.auto_commit),
        Request::BeginTransaction => transaction::system_done(vm, "beginTransaction"),
        Request::AbortTransaction => transaction::system_done(vm, "abortTransaction"),
        Request::CommitTransaction => transaction::commit(vm, &mut state.handles.of(login)),
        Request::Debug(debugger::DebugRequest::Processes) => debugger::processes(vm),
        Request::Debug(debugger::DebugRequest::Stack { process, frame }) => {
            debugger::show(vm, &mut state.handles.of(login), process, page.unwrap_or_default(), Some(frame))
        }
        Request::Debug(debugger::DebugRequest::Frame { process, frame }) => {
            let page = Page { from: u64::from(frame), size: 1 };
            debugger::show(vm, &mut state.handles.of(login), process, page, Some(frame))
        }
        Request::Evaluate(_) | Request::Interrupt { .. } | Request::Debug(_) | Request::RunTests { .. } => {
            Err(Failure::new(ErrorKind::Invalid, "an operation the VM thread runs itself"))
        }
    }
}

/// Adds a user through the stone, which checks that the session's user administers it, and
/// puts them in the groups given.
fn add_user(vm: &mut Vm, user: &str, password: &Password, may_change_code: bool, groups: &[String]) -> Outcome {
    vm.add_user(user, &password.0, may_change_code).map_err(stone_failure)?;
    if !groups.is_empty() {
        vm.set_groups(user, groups).map_err(stone_failure)?;
    }
    Ok(Answer::Done)
}

/// The failure for an evaluation (or message) that did not answer a value: an error
/// Smalltalk signalled for a failure of the repository says which kind it was.
pub fn eval_failure(vm: &mut Vm, error: EvalError) -> Failure {
    let (kind, report) = match error {
        EvalError::Compile(e) => return compile_failure(e),
        EvalError::Interrupted(r) => (ErrorKind::Interrupted, r),
        EvalError::Unhandled(r) => (repository_kind(vm, &r.class_name).unwrap_or(ErrorKind::SmalltalkError), r),
        EvalError::Deadlock(r) => (ErrorKind::SmalltalkError, r),
        other => return Failure::new(ErrorKind::SmalltalkError, other.to_string()),
    };
    let stack = report.stack.iter().map(|f| format!("{} (line {}:{})", f.label, f.line, f.column)).collect();
    Failure { kind, message: report.description, span: (0, 0), stack, process: 0 }
}

/// The failure for source that did not compile, with where.
pub fn compile_failure(e: onyx_vm::CompileError) -> Failure {
    let at = u32::try_from(e.offset).unwrap_or(u32::MAX);
    let mut f = Failure::new(ErrorKind::CompileError, format!("{}:{}: {}", e.line, e.column, e.message));
    f.span = (at, at.saturating_add(1));
    f
}

/// The kernel's exceptions for failures of the repository (see
/// `onyx_vm::persist::repository_exception`), and the kind of error each is to a client.
const REPOSITORY_EXCEPTIONS: [(&str, ErrorKind); 4] = [
    ("LockError", ErrorKind::LockDenied),
    ("StoneUnavailable", ErrorKind::Unavailable),
    ("SecurityError", ErrorKind::PermissionDenied),
    ("RepositoryError", ErrorKind::Repository),
];

/// The kind of repository failure an exception of class `class_name` (or of a subclass of
/// one of the kernel's) reports, if it is one.
fn repository_kind(vm: &mut Vm, class_name: &str) -> Option<ErrorKind> {
    let mut class = vm.global_class(class_name)?;
    for _ in 0..10_000 {
        if class.is_nil() {
            return None;
        }
        let name = vm.class_name(class);
        if let Some(&(_, kind)) = REPOSITORY_EXCEPTIONS.iter().find(|(n, _)| *n == name) {
            return Some(kind);
        }
        class = vm.superclass_of(class);
        vm.bring_in(&[class]);
    }
    None
}

/// The failure for a call of the stone the agent made itself: of the kind the kernel's
/// exception for it would give.
pub fn stone_failure(e: StoneError) -> Failure {
    let exception = repository_exception(&e);
    let kind = REPOSITORY_EXCEPTIONS.iter().find(|(n, _)| *n == exception).map_or(ErrorKind::Repository, |&(_, k)| k);
    Failure::new(kind, e.to_string())
}

/// An evaluation's value, with a handle on it if `keep`. A printString longer than
/// [`PRINT_PAGE`] comes as its start and a handle on the whole (kept whatever `keep` says).
pub fn evaluated(vm: &mut Vm, handles: &mut LoginHandles, keep: bool, value: Value) -> Outcome {
    let class_name = vm.class_name(vm.class_of(value));
    let handle = if keep { handles.handle(vm, value) } else { 0 };
    // A value whose printString fails is still there to inspect.
    let failed = |e: EvalError| {
        format!("a {class_name} (its printString failed: {})", e.to_string().lines().next().unwrap_or_default())
    };
    let printed = match vm.send_within(value, "printString", &[], LIMIT) {
        Ok(s) if vm.string_size(s).is_some() => s,
        Ok(_) => Value::NIL,
        Err(e) => {
            let print_string = failed(e);
            let print_size = print_string.chars().count() as u64;
            return Ok(Answer::Evaluated(Evaluated { print_string, class_name, handle, print_size, rest: 0 }));
        }
    };
    let chars = vm.string_size(printed).unwrap_or(0);
    let print_string = vm.string_part(printed, 0, PRINT_PAGE).unwrap_or_default();
    let rest = if chars > PRINT_PAGE { handles.handle(vm, printed) } else { 0 };
    Ok(Answer::Evaluated(Evaluated { print_string, class_name, handle, print_size: chars as u64, rest }))
}

/// A part of the text of the String behind `handle` (the rest of a long printString).
fn read_text(vm: &mut Vm, handles: &mut LoginHandles, handle: Handle, page: Page) -> Outcome {
    let s = handles.get(vm, handle)?;
    let Some(total) = vm.string_size(s) else {
        return Err(Failure::new(ErrorKind::Invalid, "the handle is not on a String"));
    };
    let from = usize::try_from(page.from).unwrap_or(usize::MAX).min(total);
    let size = if page.size == 0 { PRINT_PAGE } else { (page.size as usize).min(PRINT_PAGE) };
    let text = vm.string_part(s, from, size).unwrap_or_default();
    let end = from.saturating_add(size).min(total);
    let next = if end < total { end as u64 } else { 0 };
    Ok(Answer::TextPart(text, Paged { total: total as u64, next }))
}

/// Refuses a user who may not change code.
fn may_change_code(vm: &Vm) -> Result<(), Failure> {
    if vm.may_change_code() {
        return Ok(());
    }
    Err(Failure::new(ErrorKind::PermissionDenied, "permission denied: this user may not change code"))
}

/// Sends a message on a tool's behalf, under [`LIMIT`].
fn send(vm: &mut Vm, receiver: Value, selector: &str, args: &[Value]) -> Result<Value, Failure> {
    vm.send_within(receiver, selector, args, LIMIT).map_err(|e| eval_failure(vm, e))
}

fn global(vm: &Vm, name: &str) -> Result<Value, Failure> {
    vm.global(name).ok_or_else(|| Failure::new(ErrorKind::NotFound, format!("no global {name}")))
}

/// The class (or metaclass) a reference names.
fn class(vm: &mut Vm, r: &request::ClassRef) -> Result<Value, Failure> {
    let smalltalk = global(vm, "Smalltalk")?;
    let name = vm.new_string(&r.name);
    let class = send(vm, smalltalk, "classNamed:", &[name])?;
    bring_in_class(vm, class);
    if class.is_nil() || !vm.is_behavior(class) {
        return Err(Failure::new(ErrorKind::NotFound, format!("no class named {}", r.name)));
    }
    Ok(if r.meta { vm.class_of(class) } else { class })
}

/// The strings (or symbols) in a Smalltalk collection.
fn strings(vm: &mut Vm, collection: Value) -> Result<Vec<String>, Failure> {
    let array = send(vm, collection, "asArray", &[])?;
    let items = vm.array_items(array).unwrap_or_default();
    Ok(items.into_iter().filter_map(|v| vm.string_of(v)).collect())
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names.dedup();
    names
}

/// Brings in `class` and its metaclass: what a message answers may not be in memory yet,
/// and the agent reads classes directly.
fn bring_in_class(vm: &mut Vm, class: Value) {
    vm.bring_in(&[class]);
    let meta = vm.class_of(class);
    vm.bring_in(&[meta]);
}

/// A class and its superclass's name, as lists show them (the superclass brought in first).
fn entry(vm: &mut Vm, class: Value) -> request::ClassEntry {
    bring_in_class(vm, class);
    let superclass = vm.superclass_of(class);
    vm.bring_in(&[superclass]);
    let superclass = if superclass.is_nil() { String::new() } else { vm.class_name(superclass) };
    let package = category(vm, class).unwrap_or_default();
    request::ClassEntry { name: vm.class_name(class), superclass, package }
}

/// Every class (not metaclass) of the image, each brought in.
fn all_classes(vm: &mut Vm) -> Result<Vec<Value>, Failure> {
    let smalltalk = global(vm, "Smalltalk")?;
    let classes = send(vm, smalltalk, "allClasses", &[])?;
    let array = send(vm, classes, "asArray", &[])?;
    let classes = vm.array_items(array).unwrap_or_default();
    vm.bring_in(&classes);
    Ok(classes)
}

fn category(vm: &mut Vm, class: Value) -> Result<String, Failure> {
    let c = send(vm, class, "category", &[])?;
    Ok(vm.string_of(c).unwrap_or_default())
}
