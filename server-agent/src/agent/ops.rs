//! The agent's operations other than evaluation: browsing classes and methods, defining
//! classes, compiling and removing methods, and the transaction (`search.rs` has the
//! cross-references). They run on the VM thread
//! between time slices and reach the image through messages to it (`Smalltalk allClasses`,
//! `Behavior>>protocols`, ...), so they see what Smalltalk code sees, faulting included.

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use std::time::Duration;

use onyx_vm::{EvalError, Value, Vm};

use super::inspect::{self, LoginHandles};
use super::search;
use super::worker::State;
use crate::users;

/// An operation's error, as the client gets it.
pub struct Failure {
    code: pb::Code,
    message: String,
    span: (u32, u32),
    stack: Vec<String>,
}

impl Failure {
    pub fn new(code: pb::Code, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into(), span: (0, 0), stack: Vec::new() }
    }

    pub fn into_error(self) -> pb::Error {
        pb::Error {
            code: self.code as i32,
            message: self.message,
            start: self.span.0,
            end: self.span.1,
            stack: self.stack,
        }
    }
}

type Answer = Result<Outcome, Failure>;

/// The failure for an evaluation (or message) that did not answer a value.
pub fn eval_failure(error: EvalError) -> Failure {
    let (code, report) = match error {
        EvalError::Compile(e) => {
            let at = u32::try_from(e.offset).unwrap_or(u32::MAX);
            let mut f = Failure::new(pb::Code::CompileError, format!("{}:{}: {}", e.line, e.column, e.message));
            f.span = (at, at.saturating_add(1));
            return f;
        }
        EvalError::Interrupted(r) => (pb::Code::Interrupted, r),
        EvalError::Unhandled(r) | EvalError::Deadlock(r) => (pb::Code::SmalltalkError, r),
        other => return Failure::new(pb::Code::SmalltalkError, other.to_string()),
    };
    let stack = report.stack.iter().map(|f| format!("{} (line {}:{})", f.label, f.line, f.column)).collect();
    Failure { code, message: report.description, span: (0, 0), stack }
}

/// How long a message the agent sends on a tool's behalf (a printString, a lookup) may run;
/// one still running then answers an interrupted error.
pub const LIMIT: Duration = Duration::from_secs(2);
/// How long a class definition or a transaction operation may run (instances migrate in the
/// one, a commit writes in the other).
const WORK_LIMIT: Duration = Duration::from_secs(600);

/// An evaluation's value (with a handle on it, if `handles` are given), as the client gets it.
pub fn evaluated(vm: &mut Vm, handles: Option<&mut LoginHandles>, value: Value) -> Answer {
    let class_name = vm.class_name(vm.class_of(value));
    // A value whose printString fails is still there to inspect.
    let print_string = vm.print_string_within(value, LIMIT).unwrap_or_else(|e| {
        format!("a {class_name} (its printString failed: {})", e.to_string().lines().next().unwrap_or_default())
    });
    Ok(Outcome::Evaluated(pb::Evaluated {
        print_string,
        class_name,
        handle: handles.map_or(0, |h| h.handle(vm, value)),
    }))
}

/// Runs one operation (not an evaluation or an interrupt: the VM thread runs those), with
/// what the VM thread keeps for its clients.
pub fn run(vm: &mut Vm, state: &mut State, login: u64, op: Op) -> Answer {
    match op {
        Op::Transcript(_) => {
            state.transcript.collect_quietly(vm);
            Ok(Outcome::Text(pb::Text { text: std::mem::take(&mut state.transcript.unread) }))
        }
        Op::Inspect(r) => inspect::inspect(vm, &mut state.handles.of(login), &r),
        Op::Release(r) => {
            state.handles.of(login).release(vm, &r.handles);
            Ok(Outcome::Done(pb::Empty {}))
        }
        Op::AddUser(r) => {
            if !vm.may_change_code {
                return Err(Failure::new(pb::Code::PermissionDenied, "only a user who may change code adds users"));
            }
            users::add(vm, &r.user, &r.password, r.may_change_code).map_err(|e| Failure::new(pb::Code::Invalid, e))?;
            Ok(Outcome::Done(pb::Empty {}))
        }
        Op::AutoCommit(r) => {
            state.auto_commit = r.on;
            Ok(Outcome::Done(pb::Empty {}))
        }
        Op::Sessions(_) => {
            let (list, latest) = vm.stone_sessions().map_err(|e| Failure::new(pb::Code::Repository, e))?;
            let own = vm.session_id();
            let sessions = list
                .into_iter()
                .map(|s| pb::GemSession {
                    session: s.session,
                    user: s.about.user,
                    host: s.about.host,
                    pid: s.about.pid,
                    agent: s.about.agent,
                    view: s.view,
                    behind: s.behind,
                    locks: s.locks,
                    this_gem: Some(s.session) == own,
                })
                .collect();
            Ok(Outcome::Sessions(pb::Sessions { sessions, latest }))
        }
        Op::Packages(_) => packages(vm),
        Op::Classes(r) => classes(vm, &r),
        Op::ClassDefinition(r) => class_definition(vm, &r),
        Op::Protocols(r) => {
            let class = class(vm, &r)?;
            let protocols = send(vm, class, "protocols", &[])?;
            Ok(Outcome::Names(pb::Names { names: sorted(strings(vm, protocols)?), paged: None }))
        }
        Op::Methods(r) => methods(vm, &r),
        Op::MethodSource(r) => method_source(vm, &r),
        Op::CompileMethod(r) => compile(vm, &r),
        Op::RemoveMethod(r) => {
            may_change_code(vm)?;
            let class = class(vm, &r.class.unwrap_or_default())?;
            let selector = vm.intern(&r.selector);
            if send(vm, class, "includesSelector:", &[selector])? != Value::TRUE {
                return Err(Failure::new(pb::Code::NotFound, format!("no method #{}", r.selector)));
            }
            send(vm, class, "removeSelector:", &[selector])?;
            Ok(Outcome::Done(pb::Empty {}))
        }
        Op::Senders(r) => state.index.senders(vm, &r.selector),
        Op::Implementors(r) => state.index.implementors(vm, &r.selector),
        Op::References(r) => search::references(vm, &r.name),
        Op::Readers(r) => search::inst_var_users(vm, &r, false),
        Op::Writers(r) => search::inst_var_users(vm, &r, true),
        Op::Hierarchy(r) => search::hierarchy(vm, &r),
        Op::DefineClass(r) => define_class(vm, &r.definition),
        Op::RemoveClass(r) => {
            may_change_code(vm)?;
            let class = class(vm, &pb::ClassRef { meta: false, ..r })?;
            send(vm, class, "removeFromSystem", &[])?;
            Ok(Outcome::Done(pb::Empty {}))
        }
        Op::FindClass(r) => find_class(vm, &r.fragment),
        Op::TransactionStatus(_) => {
            let system = global(vm, "System")?;
            let in_transaction = send(vm, system, "inTransaction", &[])? == Value::TRUE;
            let mode = send(vm, system, "transactionMode", &[])?;
            let mode = vm.string_of(mode).unwrap_or_default();
            Ok(Outcome::Transaction(pb::TransactionStatus { in_transaction, mode, auto_commit: state.auto_commit }))
        }
        Op::BeginTransaction(_) => system_done(vm, "beginTransaction"),
        Op::AbortTransaction(_) => system_done(vm, "abortTransaction"),
        Op::CommitTransaction(_) => commit(vm, &mut state.handles.of(login)),
        Op::Evaluate(_) | Op::Interrupt(_) => {
            Err(Failure::new(pb::Code::Invalid, "an operation the VM thread runs itself"))
        }
    }
}

/// Refuses a user who may not change code.
fn may_change_code(vm: &Vm) -> Result<(), Failure> {
    if vm.may_change_code {
        return Ok(());
    }
    Err(Failure::new(pb::Code::PermissionDenied, "permission denied: this user may not change code"))
}

pub(super) fn send(vm: &mut Vm, receiver: Value, selector: &str, args: &[Value]) -> Result<Value, Failure> {
    vm.send_within(receiver, selector, args, LIMIT).map_err(eval_failure)
}

fn global(vm: &Vm, name: &str) -> Result<Value, Failure> {
    vm.global(name).ok_or_else(|| Failure::new(pb::Code::NotFound, format!("no global {name}")))
}

/// The class (or metaclass) a reference names.
pub(super) fn class(vm: &mut Vm, r: &pb::ClassRef) -> Result<Value, Failure> {
    let smalltalk = global(vm, "Smalltalk")?;
    let name = vm.new_string(&r.class_name);
    let class = send(vm, smalltalk, "classNamed:", &[name])?;
    bring_in_class(vm, class);
    if class.is_nil() || !vm.is_behavior(class) {
        return Err(Failure::new(pb::Code::NotFound, format!("no class named {}", r.class_name)));
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
pub(super) fn bring_in_class(vm: &mut Vm, class: Value) {
    vm.bring_in(&[class]);
    let meta = vm.class_of(class);
    vm.bring_in(&[meta]);
}

/// A class and its superclass's name, as lists show them (the superclass brought in first).
pub(super) fn entry(vm: &mut Vm, class: Value) -> pb::ClassEntry {
    bring_in_class(vm, class);
    let superclass = vm.superclass_of(class);
    vm.bring_in(&[superclass]);
    let superclass = if superclass.is_nil() { String::new() } else { vm.class_name(superclass) };
    let package = category(vm, class).unwrap_or_default();
    pb::ClassEntry { name: vm.class_name(class), superclass, package }
}

/// Every class (not metaclass) of the image, each brought in.
pub(super) fn all_classes(vm: &mut Vm) -> Result<Vec<Value>, Failure> {
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

fn packages(vm: &mut Vm) -> Answer {
    let mut names = Vec::new();
    for class in all_classes(vm)? {
        names.push(category(vm, class)?);
    }
    names.retain(|n| !n.is_empty());
    Ok(Outcome::Names(pb::Names { names: sorted(names), paged: None }))
}

fn classes(vm: &mut Vm, r: &pb::PackageRef) -> Answer {
    let package = if r.of_class.is_empty() {
        r.package.clone()
    } else {
        let class = class(vm, &pb::ClassRef { class_name: r.of_class.clone(), meta: false })?;
        category(vm, class)?
    };
    let mut classes = Vec::new();
    for class in all_classes(vm)? {
        if category(vm, class)? == package {
            classes.push(entry(vm, class));
        }
    }
    classes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Outcome::Classes(pb::ClassList { classes, paged: None }))
}

/// Evaluates a class definition; answers the class's definition as it now stands.
fn define_class(vm: &mut Vm, definition: &str) -> Answer {
    may_change_code(vm)?;
    let class = vm.evaluate_within(definition, WORK_LIMIT).map_err(eval_failure)?;
    if !vm.is_behavior(class) || vm.is_metaclass(class) {
        return Err(Failure::new(pb::Code::Invalid, "the definition did not answer a class"));
    }
    let class_name = vm.class_name(class);
    class_definition(vm, &pb::ClassRef { class_name, meta: false })
}

fn class_definition(vm: &mut Vm, r: &pb::ClassRef) -> Answer {
    let class = class(vm, &pb::ClassRef { meta: false, ..r.clone() })?;
    let definition = send(vm, class, "definitionString", &[])?;
    let comment = send(vm, class, "comment", &[])?;
    Ok(Outcome::ClassDefinition(pb::ClassDefinition {
        definition: vm.string_of(definition).unwrap_or_default(),
        comment: vm.string_of(comment).unwrap_or_default(),
        package: category(vm, class)?,
        name: vm.class_name(class),
    }))
}

fn methods(vm: &mut Vm, r: &pb::ProtocolRef) -> Answer {
    let class = class(vm, &r.class.clone().unwrap_or_default())?;
    let selectors = if r.protocol.is_empty() {
        send(vm, class, "selectors", &[])?
    } else {
        let protocol = vm.intern(&r.protocol);
        send(vm, class, "selectorsInProtocol:", &[protocol])?
    };
    Ok(Outcome::Names(pb::Names { names: sorted(strings(vm, selectors)?), paged: None }))
}

fn method_source(vm: &mut Vm, r: &pb::MethodRef) -> Answer {
    let class = class(vm, &r.class.clone().unwrap_or_default())?;
    let selector = vm.intern(&r.selector);
    if send(vm, class, "includesSelector:", &[selector])? != Value::TRUE {
        return Err(Failure::new(
            pb::Code::NotFound,
            format!("{} has no method #{}", vm.class_name(class), r.selector),
        ));
    }
    let method = send(vm, class, "compiledMethodAt:", &[selector])?;
    vm.bring_in(&[method]);
    let code = vm.code_of(method).ok_or_else(|| Failure::new(pb::Code::NotFound, "not a compiled method"))?;
    let protocol = vm.string_of(code.protocol.get()).unwrap_or_default();
    let step_points = code.step_points.iter().map(|s| pb::StepPoint { start: s.span.start, end: s.span.end }).collect();
    Ok(Outcome::MethodSource(pb::MethodSource { source: code.source.to_string(), protocol, step_points }))
}

fn compile(vm: &mut Vm, r: &pb::CompileMethod) -> Answer {
    may_change_code(vm)?;
    let class = class(vm, &r.class.clone().unwrap_or_default())?;
    // No protocol: the replaced method's (or, for a new one, "as yet unclassified").
    let protocol = if r.protocol.is_empty() { Value::NIL } else { vm.intern(&r.protocol) };
    vm.take_warnings();
    let method = vm.compile_and_install(class, &r.source, protocol).map_err(|e| eval_failure(EvalError::Compile(e)))?;
    let selector = vm.code_of(method).and_then(|c| vm.string_of(c.selector)).unwrap_or_default();
    let warnings = vm
        .take_warnings()
        .into_iter()
        .map(|w| pb::Warning {
            message: w.message,
            start: u32::try_from(w.offset).unwrap_or(u32::MAX),
            line: u32::try_from(w.line).unwrap_or(u32::MAX),
            column: u32::try_from(w.column).unwrap_or(u32::MAX),
        })
        .collect();
    Ok(Outcome::Compiled(pb::Compiled { selector, warnings }))
}

fn find_class(vm: &mut Vm, fragment: &str) -> Answer {
    let wanted = fragment.to_lowercase();
    let mut classes = Vec::new();
    for class in all_classes(vm)? {
        let name = vm.class_name(class);
        if name.to_lowercase().contains(&wanted) {
            classes.push(entry(vm, class));
        }
    }
    classes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Outcome::Classes(pb::ClassList { classes, paged: None }))
}

fn system_done(vm: &mut Vm, selector: &str) -> Answer {
    let system = global(vm, "System")?;
    vm.send_within(system, selector, &[], WORK_LIMIT).map_err(eval_failure)?;
    Ok(Outcome::Done(pb::Empty {}))
}

/// `System commitTransaction`; on a conflict, the conflicting objects with handles.
pub fn commit(vm: &mut Vm, handles: &mut LoginHandles) -> Answer {
    let system = global(vm, "System")?;
    let committed = vm.send_within(system, "commitTransaction", &[], WORK_LIMIT).map_err(eval_failure)? == Value::TRUE;
    let mut conflicts = Vec::new();
    if !committed {
        let objects = send(vm, system, "transactionConflicts", &[])?;
        let array = send(vm, objects, "asArray", &[])?;
        for v in vm.array_items(array).unwrap_or_default() {
            let print_string = vm.print_string_within(v, LIMIT).map_err(eval_failure)?;
            conflicts.push(pb::Field { name: String::new(), print_string, handle: handles.handle(vm, v) });
        }
    }
    Ok(Outcome::Committed(pb::Committed { committed, conflicts }))
}
