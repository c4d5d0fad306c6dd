//! The agent's messages and the gem's own terms, both ways: each operation of a batch is
//! validated into an [`Operation`] once, here, at the edge (one that cannot be answers its
//! failure in its place), and what the VM thread answers becomes the protocol's reply.

use std::time::Duration;

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome as PbOutcome};

use onyx_record::Hits;

use crate::ops::breakpoints::{At, BreakpointEntry, BreakpointRequest, SetBreakpoint, Within};
use crate::ops::debugger::{DebugRequest, Debugged, Step};
use crate::ops::packages::{LoadSummary, Loadable};
use crate::ops::request::{
    Answer, BatchAnswer, ClassRef, Done, ErrorKind, Evaluate, Event, Failure, InspectRequest, InstVarRef, Listed,
    MethodRef, Operation, Outcome, Package, Page, Paged, Password, ProcessChange, Request, TestRef, TestStatus,
    TransactionStatus,
};
use crate::ops::versions::{DefinitionDiff, MergeRequest, PackageSide, Take};
use onyx_vm::source::diff::ChangeKind;

/// A protocol operation as the gem's: the request and its page.
pub fn operation(o: pb::Operation) -> Result<Operation, Failure> {
    let op = o.op.ok_or_else(|| Failure::new(ErrorKind::Invalid, "an empty operation"))?;
    let page = o.page.map(|p| Page { from: p.from, size: p.size });
    let request = match op {
        Op::ReadText(r) => Request::ReadText { handle: r.handle, page: page.unwrap_or_default() },
        op => request(op)?,
    };
    Ok(Operation { request, page })
}

fn class(r: Option<pb::ClassRef>) -> ClassRef {
    // A missing class names none: it is not found, as an empty name is not.
    r.map(|c| ClassRef { name: c.class_name, meta: c.meta }).unwrap_or_default()
}

fn method(r: pb::MethodRef) -> MethodRef {
    MethodRef { class: class(r.class), selector: r.selector }
}

fn set_breakpoint(r: pb::SetBreakpoint) -> Result<SetBreakpoint, Failure> {
    let invalid = |m: &str| Failure::new(ErrorKind::Invalid, m);
    let at = match r.at {
        Some(pb::set_breakpoint::At::Line(l)) => At::Line(l),
        Some(pb::set_breakpoint::At::Offset(o)) => At::Offset(o),
        None => return Err(invalid("a breakpoint needs a line or an offset")),
    };
    let hits = match (pb::BreakpointHits::try_from(r.hits), r.hits_n) {
        (Ok(pb::BreakpointHits::HitsAll), _) => Hits::All,
        (Ok(_), 0) => return Err(invalid("hit counts start at 1")),
        (Ok(pb::BreakpointHits::HitsNth), n) => Hits::Nth(n),
        (Ok(pb::BreakpointHits::HitsEvery), n) => Hits::Every(n),
        (Ok(pb::BreakpointHits::HitsFrom), n) => Hits::From(n),
        (Err(_), _) => return Err(invalid("no such hit rule")),
    };
    let within = match pb::BreakpointScope::try_from(r.scope) {
        Ok(pb::BreakpointScope::EveryGem) => Within::EveryGem,
        Ok(pb::BreakpointScope::ThisGem) => Within::ThisGem,
        Ok(pb::BreakpointScope::OneProcess) if r.process != 0 => Within::Process(r.process),
        _ => return Err(invalid("a breakpoint's scope is every gem, this gem, or one process of it")),
    };
    let method = r.method.map(method).ok_or_else(|| invalid("a breakpoint names its method"))?;
    Ok(SetBreakpoint {
        id: r.id,
        method,
        at,
        condition: r.condition,
        log: r.log,
        hits,
        once: r.once,
        enabled: r.enabled,
        within,
    })
}

/// A process a gem keeps suspended, as the tools' message.
fn suspended_process(p: onyx_record::Suspended) -> pb::SuspendedProcess {
    pb::SuspendedProcess {
        process: p.process,
        kind: p.kind,
        reason: p.reason,
        method: p.method,
        since_micros: p.since_micros,
    }
}

/// A breakpoint as the tools' message.
fn breakpoint_info(e: BreakpointEntry) -> pb::BreakpointInfo {
    let b = e.breakpoint;
    let (hits, hits_n) = match b.hits {
        Hits::All => (pb::BreakpointHits::HitsAll, 0),
        Hits::Nth(n) => (pb::BreakpointHits::HitsNth, n),
        Hits::Every(n) => (pb::BreakpointHits::HitsEvery, n),
        Hits::From(n) => (pb::BreakpointHits::HitsFrom, n),
    };
    let (scope_session, scope_process) = b.scope.parts();
    pb::BreakpointInfo {
        id: b.id,
        class_name: b.class,
        selector: b.selector,
        line: e.line,
        offset: b.offset,
        condition: b.condition,
        log: b.log,
        hits: hits as i32,
        hits_n,
        once: b.once,
        enabled: b.enabled,
        scope_session,
        scope_process,
        owner: b.owner,
        hits_here: e.hits_here,
        placed: e.placed,
        hits_by_gem: (e.by_gem.into_iter())
            .map(|(session, agent, hits)| pb::GemHits { session, agent, hits })
            .collect(),
        orphaned: e.orphaned,
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

fn request(op: Op) -> Result<Request, Failure> {
    Ok(match op {
        Op::Evaluate(e) => Request::Evaluate(Evaluate {
            source: e.source,
            time_limit: (e.time_limit_ms > 0).then(|| Duration::from_millis(e.time_limit_ms)),
            receiver: (e.receiver != 0).then_some(e.receiver),
            inspect: e.inspect,
            forget: e.forget,
            tag: e.tag,
        }),
        Op::Interrupt(i) => Request::Interrupt { tag: i.tag, process: i.process },
        Op::LoadPackages(r) => Request::LoadPackages(
            r.packages
                .into_iter()
                .map(|c| {
                    let (version, from, ancestors) = (c.version.clone(), c.from.clone(), c.ancestors.clone());
                    crate::packages::package(c).map(|package| Loadable { package, version, from, ancestors })
                })
                .collect::<Result<_, _>>()
                .map_err(|m| Failure::new(ErrorKind::Invalid, m))?,
        ),
        Op::PackageContents(r) => Request::PackageContents(r.names),
        Op::PackageStates(r) => Request::PackageStates(r.names),
        Op::RepositoryPackages(r) => Request::RepositoryPackages(r.path.into()),
        Op::RepositoryVersions(r) => Request::RepositoryVersions { path: r.path.into(), package: r.package },
        Op::RepositoryLoad(r) => {
            Request::RepositoryLoad { path: r.path.into(), package: r.package, version: r.version }
        }
        Op::RepositorySave(r) => {
            Request::RepositorySave { path: r.path.into(), package: r.package, message: r.message, author: r.author }
        }
        Op::ComparePackages(r) => Request::ComparePackages(side(r.left), side(r.right)),
        Op::RepositoryMerge(r) => Request::RepositoryMerge(MergeRequest {
            path: r.path.into(),
            package: r.package,
            version: r.version,
            resolutions: r
                .resolutions
                .into_iter()
                .map(|r| {
                    let take = match r.take {
                        Some(pb::merge_resolution::Take::Ours(_)) => Take::Ours,
                        Some(pb::merge_resolution::Take::Theirs(_)) => Take::Theirs,
                        Some(pb::merge_resolution::Take::Edited(text)) => Take::Edited(text),
                        None => {
                            let message = format!("{}: a resolution takes ours, theirs or edited text", r.definition);
                            return Err(Failure::new(ErrorKind::Invalid, message));
                        }
                    };
                    Ok((r.definition, take))
                })
                .collect::<Result<_, _>>()?,
            apply: r.apply,
        }),
        Op::RecordVersions(r) => Request::RecordVersions(
            r.records
                .into_iter()
                .map(|r| onyx_vm::source::Record {
                    name: r.package,
                    version: r.version,
                    from: r.from,
                    ancestors: r.ancestors,
                })
                .collect(),
        ),
        Op::Packages(_) => Request::Packages,
        Op::Classes(r) if r.of_class.is_empty() => Request::Classes(Package::Named(r.package)),
        Op::Classes(r) => Request::Classes(Package::OfClass(r.of_class)),
        Op::ClassDefinition(r) => Request::ClassDefinition(class(Some(r))),
        Op::Protocols(r) => Request::Protocols(class(Some(r))),
        Op::Methods(r) => Request::Methods { class: class(r.class), protocol: non_empty(r.protocol) },
        Op::MethodSource(r) => Request::MethodSource(method(r)),
        Op::CompileMethod(r) => {
            Request::CompileMethod { class: class(r.class), protocol: non_empty(r.protocol), source: r.source }
        }
        Op::RemoveMethod(r) => Request::RemoveMethod(method(r)),
        Op::Senders(r) => Request::Senders(r.selector),
        Op::Implementors(r) => Request::Implementors(r.selector),
        Op::FindClass(r) => Request::FindClass(r.fragment),
        Op::TransactionStatus(_) => Request::TransactionStatus,
        Op::BeginTransaction(_) => Request::BeginTransaction,
        Op::CommitTransaction(_) => Request::CommitTransaction,
        Op::AbortTransaction(_) => Request::AbortTransaction,
        Op::Transcript(_) => Request::Transcript,
        Op::Inspect(r) => Request::Inspect(InspectRequest { handle: r.handle, from: r.from, page_size: r.page_size }),
        Op::Release(r) => Request::Release(r.handles),
        Op::AddUser(r) => Request::AddUser {
            user: r.user,
            password: Password(r.password),
            may_change_code: r.may_change_code,
            groups: r.groups,
        },
        Op::DefineClass(r) => Request::DefineClass(r.definition),
        Op::RemoveClass(r) => Request::RemoveClass(r.class_name),
        Op::References(r) => Request::References(r.name),
        Op::Readers(r) => Request::Readers(InstVarRef { class: class(r.class), name: r.name }),
        Op::Writers(r) => Request::Writers(InstVarRef { class: class(r.class), name: r.name }),
        Op::Hierarchy(r) => Request::Hierarchy(r.class_name),
        Op::AutoCommit(r) => Request::AutoCommit(r.on),
        Op::Sessions(_) => Request::Sessions,
        Op::AdministerSession(r) => {
            use pb::administer_session::Act;
            let act = match Act::try_from(r.act) {
                Ok(Act::ListLocks) => onyx_record::SessionAct::ListLocks,
                Ok(Act::RemoveLocks) => onyx_record::SessionAct::RemoveLocks,
                Ok(Act::Stop) => onyx_record::SessionAct::Stop,
                _ => {
                    return Err(Failure::new(
                        ErrorKind::Invalid,
                        "say what to do to the session: list or remove its locks, or stop it",
                    ));
                }
            };
            Request::AdministerSession { session: r.session, act }
        }
        Op::IssueTicket(r) => Request::IssueTicket(r.session),
        Op::ObjectLog(_) => Request::ObjectLog,
        Op::ObjectLogEntry(r) => Request::ObjectLogEntry(r.id),
        Op::ReadText(r) => Request::ReadText { handle: r.handle, page: Page::default() },
        Op::Processes(_) => Request::Debug(DebugRequest::Processes),
        Op::Stack(r) => Request::Debug(DebugRequest::Stack { process: r.process, frame: r.frame }),
        Op::Frame(r) => Request::Debug(DebugRequest::Frame { process: r.process, frame: r.frame }),
        Op::Step(r) => {
            let step = match pb::StepKind::try_from(r.kind) {
                Ok(pb::StepKind::StepInto) => Step::Into,
                Ok(pb::StepKind::StepThrough) => Step::Through,
                Ok(pb::StepKind::StepOut) => Step::Out,
                Ok(pb::StepKind::StepRunTo) => Step::RunTo(r.offset),
                // Over is what a step is unless said otherwise.
                _ => Step::Over,
            };
            Request::Debug(DebugRequest::Step { process: r.process, frame: r.frame, step })
        }
        Op::Restart(r) => Request::Debug(DebugRequest::Restart { process: r.process, frame: r.frame }),
        Op::ReturnValue(r) => {
            Request::Debug(DebugRequest::Return { process: r.process, frame: r.frame, source: r.source })
        }
        Op::Proceed(r) => Request::Debug(DebugRequest::Proceed(r.process)),
        Op::Pause(r) => Request::Debug(DebugRequest::Pause(r.process)),
        Op::Terminate(r) => Request::Debug(DebugRequest::Terminate(r.process)),
        Op::EvaluateInFrame(r) => {
            Request::Debug(DebugRequest::Evaluate { process: r.process, frame: r.frame, source: r.source })
        }
        Op::Accept(r) => Request::Debug(DebugRequest::Accept { process: r.process, frame: r.frame, source: r.source }),
        Op::AddProtocol(r) => Request::AddProtocol { class: class(r.class), protocol: r.protocol },
        Op::RenameProtocol(r) => Request::RenameProtocol { class: class(r.class), from: r.from, to: r.to },
        Op::RemoveProtocol(r) => Request::RemoveProtocol { class: class(r.class), protocol: r.protocol },
        Op::MoveMethods(r) => {
            Request::MoveMethods { class: class(r.class), selectors: r.selectors, protocol: r.protocol }
        }
        Op::SetComment(r) => Request::SetComment { class: r.class_name, comment: r.comment },
        Op::RenameClass(r) => Request::RenameClass { from: r.from, to: r.to },
        Op::SetBreakpoint(r) => Request::Breakpoint(BreakpointRequest::Set(Box::new(set_breakpoint(r)?))),
        Op::RemoveBreakpoint(r) => Request::Breakpoint(BreakpointRequest::Remove(r.id)),
        Op::Breakpoints(_) => Request::Breakpoint(BreakpointRequest::List),
        Op::FindSelectors(r) => Request::FindSelectors(r.fragment),
        Op::TestClasses(r) => Request::TestClasses(non_empty(r.package)),
        Op::RunTests(r) => Request::RunTests {
            tests: r.tests.into_iter().map(|t| TestRef { class: t.class_name, selector: t.selector }).collect(),
            package: non_empty(r.package),
        },
    })
}

/// A batch's answer as the protocol's reply.
pub fn batch_result(answer: BatchAnswer) -> pb::BatchResult {
    pb::BatchResult {
        results: answer.results.into_iter().map(done).collect(),
        server_micros: micros(answer.server_time),
        auto_commit: answer
            .auto_commit
            .map(|outcome| pb::Result { server_micros: 0, outcome: Some(outcome_of(outcome)) }),
        transaction: answer.transaction.map(transaction),
    }
}

fn transaction(t: TransactionStatus) -> pb::TransactionStatus {
    pb::TransactionStatus {
        in_transaction: t.in_transaction,
        mode: t.mode,
        auto_commit: t.auto_commit,
        needs_commit: t.needs_commit,
    }
}

/// How many bytes an operation's answer takes in a batch's reply.
pub fn encoded_len(d: &Done) -> usize {
    let len = prost::Message::encoded_len(&done(d.clone()));
    // Its field's tag and length.
    1 + prost::length_delimiter_len(len) + len
}

fn done(d: Done) -> pb::Result {
    pb::Result { server_micros: micros(d.server_time), outcome: Some(outcome_of(d.outcome)) }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn outcome_of(outcome: Outcome) -> PbOutcome {
    match outcome {
        Ok(answer) => answer_of(answer),
        Err(f) => PbOutcome::Error(error(f)),
    }
}

/// An operation's failure as the protocol's error.
pub fn error(f: Failure) -> pb::Error {
    let code = match f.kind {
        ErrorKind::Invalid => pb::Code::Invalid,
        ErrorKind::NotFound => pb::Code::NotFound,
        ErrorKind::CompileError => pb::Code::CompileError,
        ErrorKind::SmalltalkError => pb::Code::SmalltalkError,
        ErrorKind::Interrupted => pb::Code::Interrupted,
        ErrorKind::Repository => pb::Code::Repository,
        ErrorKind::PermissionDenied => pb::Code::PermissionDenied,
        ErrorKind::LockDenied => pb::Code::LockDenied,
        ErrorKind::Unavailable => pb::Code::Unavailable,
        ErrorKind::TooLarge => pb::Code::TooLarge,
    };
    pb::Error {
        code: code as i32,
        message: f.message,
        start: f.span.0,
        end: f.span.1,
        stack: f.stack,
        process: f.process,
    }
}

fn paged(p: Option<Paged>) -> Option<pb::Paged> {
    p.map(|p| pb::Paged { total: p.total, next: p.next })
}

fn field(f: crate::ops::request::Field) -> pb::Field {
    pb::Field { name: f.name, print_string: f.print_string, handle: f.handle }
}

fn evaluated(e: crate::ops::request::Evaluated) -> pb::Evaluated {
    pb::Evaluated {
        print_string: e.print_string,
        class_name: e.class_name,
        handle: e.handle,
        print_size: e.print_size,
        rest: e.rest,
    }
}

fn debugged(d: Debugged) -> pb::Debugged {
    pb::Debugged {
        process: d.process,
        kind: d.kind,
        reason: d.reason,
        total: d.total,
        frames: d
            .frames
            .into_iter()
            .map(|f| pb::FrameEntry { index: f.index, label: f.label, line: f.line, column: f.column })
            .collect(),
        frame: d.frame.map(|f| pb::FrameDetail {
            index: f.index,
            label: f.label,
            method: f.method.map(|m| pb::MethodRef {
                class: Some(pb::ClassRef { class_name: m.class.name, meta: m.class.meta }),
                selector: m.selector,
            }),
            source: f.source,
            start: f.span.0,
            end: f.span.1,
            variables: f.variables.into_iter().map(field).collect(),
            step_points: f.step_points.into_iter().map(|(start, end)| pb::StepPoint { start, end }).collect(),
        }),
        ended: d.ended.map(evaluated),
    }
}

fn answer_of(answer: Answer) -> PbOutcome {
    match answer {
        Answer::Evaluated(e) => PbOutcome::Evaluated(evaluated(e)),
        Answer::Processes(list) => PbOutcome::Processes(pb::ProcessList {
            processes: list
                .into_iter()
                .map(|p| pb::ProcessEntry {
                    process: p.process,
                    status: p.status,
                    priority: p.priority,
                    reason: p.reason,
                    kept: p.kept,
                    top: p.top,
                    depth: p.depth,
                })
                .collect(),
        }),
        Answer::Debugged(d) => PbOutcome::Debugged(debugged(*d)),
        Answer::Done => PbOutcome::Done(pb::Empty {}),
        Answer::Names(Listed { items, paged: p }) => PbOutcome::Names(pb::Names { names: items, paged: paged(p) }),
        Answer::Classes(Listed { items, paged: p }) => PbOutcome::Classes(pb::ClassList {
            classes: items
                .into_iter()
                .map(|c| pb::ClassEntry { name: c.name, superclass: c.superclass, package: c.package })
                .collect(),
            paged: paged(p),
        }),
        Answer::ClassDefinition(d) => PbOutcome::ClassDefinition(pb::ClassDefinition {
            definition: d.definition,
            comment: d.comment,
            package: d.package,
            name: d.name,
        }),
        Answer::MethodSource(m) => PbOutcome::MethodSource(pb::MethodSource {
            source: m.source,
            protocol: m.protocol,
            step_points: m.step_points.into_iter().map(|(start, end)| pb::StepPoint { start, end }).collect(),
        }),
        Answer::Compiled(c) => PbOutcome::Compiled(pb::Compiled {
            selector: c.selector,
            warnings: c
                .warnings
                .into_iter()
                .map(|w| pb::Warning { message: w.message, start: w.start, line: w.line, column: w.column })
                .collect(),
        }),
        Answer::Methods(Listed { items, paged: p }) => PbOutcome::Methods(pb::MethodList {
            methods: items
                .into_iter()
                .map(|m| pb::MethodEntry { class_name: m.class_name, meta: m.meta, selector: m.selector })
                .collect(),
            paged: paged(p),
        }),
        Answer::Transaction(t) => PbOutcome::Transaction(transaction(t)),
        Answer::Committed(c) => PbOutcome::Committed(pb::Committed {
            committed: c.committed,
            conflicts: c.conflicts.into_iter().map(field).collect(),
            conflict_count: c.conflict_count,
        }),
        Answer::Text(text) => PbOutcome::Text(pb::Text { text, paged: None }),
        Answer::TextPart(text, p) => PbOutcome::Text(pb::Text { text, paged: paged(Some(p)) }),
        Answer::Inspection(i) => PbOutcome::Inspection(pb::Inspection {
            class_name: i.class_name,
            print_string: i.print_string,
            named: i.named.into_iter().map(field).collect(),
            indexed_size: i.indexed_size,
            indexed: i.indexed.into_iter().map(field).collect(),
            next: i.next,
            handle: i.handle,
        }),
        Answer::Ticket(session, secret) => PbOutcome::Ticket(pb::AttachTicket { session, secret: secret.0 }),
        Answer::SessionLocks { session, locks } => PbOutcome::SessionLocks(pb::SessionLocks {
            session,
            locks: locks
                .into_iter()
                .map(|(oop, kind)| pb::SessionLock { oop, write: kind == onyx_record::LockKind::Write })
                .collect(),
        }),
        Answer::Sessions { sessions, latest } => PbOutcome::Sessions(pb::Sessions {
            sessions: sessions
                .into_iter()
                .map(|s| pb::GemSession {
                    session: s.session,
                    user: s.user,
                    agent_users: s.agent_users,
                    host: s.host,
                    pid: s.pid,
                    agent: s.agent,
                    view: s.view,
                    behind: s.behind,
                    locks: s.locks,
                    this_gem: s.this_gem,
                    suspended: s.suspended.into_iter().map(suspended_process).collect(),
                })
                .collect(),
            latest,
        }),
        Answer::ObjectLog { entries, paged: p } => PbOutcome::ObjectLog(pb::ObjectLog {
            entries: entries.into_iter().map(logged_failure).collect(),
            paged: paged(Some(p)),
        }),
        Answer::ObjectLogEntry(e) => PbOutcome::LoggedFailure(logged_failure(*e)),
        Answer::TestClasses(classes) => PbOutcome::TestClasses(pb::TestClassList {
            classes: classes
                .into_iter()
                .map(|c| pb::TestClass { name: c.name, package: c.package, selectors: c.selectors })
                .collect(),
        }),
        Answer::Loaded(l) => PbOutcome::Loaded(loaded(l)),
        Answer::Packages(list) => {
            PbOutcome::Packages(pb::PackageList { packages: list.iter().map(crate::packages::contents).collect() })
        }
        Answer::Versions(Listed { items, paged: p }) => PbOutcome::Versions(pb::VersionList {
            versions: items
                .into_iter()
                .map(|v| pb::VersionEntry {
                    id: v.id,
                    name: v.name,
                    author: v.author,
                    time: v.time,
                    message: v.message,
                    ancestors: v.ancestors,
                })
                .collect(),
            paged: paged(p),
        }),
        Answer::PackageStates(states) => PbOutcome::PackageStates(pb::PackageStates {
            states: states
                .into_iter()
                .map(|s| pb::PackageState {
                    name: s.name,
                    version: s.version,
                    from: s.from,
                    ancestors: s.ancestors,
                    changes: s
                        .changes
                        .into_iter()
                        .map(|(definition, kind)| pb::DefinitionChange { definition, kind: change_kind(kind) as i32 })
                        .collect(),
                })
                .collect(),
        }),
        Answer::Changes(changes) => {
            PbOutcome::Changes(pb::Changes { changes: changes.into_iter().map(definition_diff).collect() })
        }
        Answer::Merged(m) => PbOutcome::Merged(pb::Merged {
            ours: m.ours,
            theirs: m.theirs,
            base: m.base,
            incoming: m.incoming.into_iter().map(definition_diff).collect(),
            conflicts: m
                .conflicts
                .into_iter()
                .map(|c| pb::MergeConflict {
                    definition: c.definition,
                    base: c.base,
                    ours: c.ours,
                    theirs: c.theirs,
                    editable: c.editable,
                })
                .collect(),
            loaded: m.loaded.map(loaded),
        }),
        Answer::Breakpoints(list) => {
            PbOutcome::Breakpoints(pb::BreakpointList { breakpoints: list.into_iter().map(breakpoint_info).collect() })
        }
        Answer::TestResults(outcomes) => PbOutcome::TestResults(pb::TestResults {
            outcomes: outcomes
                .into_iter()
                .map(|o| pb::TestOutcome {
                    test: Some(pb::TestRef { class_name: o.test.class, selector: o.test.selector }),
                    status: match o.status {
                        TestStatus::Passed => pb::TestStatus::TestPassed,
                        TestStatus::Failed => pb::TestStatus::TestFailed,
                        TestStatus::Error => pb::TestStatus::TestError,
                    } as i32,
                    micros: micros(o.time),
                    message: o.message,
                })
                .collect(),
        }),
    }
}

fn logged_failure(e: crate::ops::object_log::LoggedFailure) -> pb::LoggedFailure {
    pb::LoggedFailure {
        id: e.id,
        time_micros: e.time_micros,
        gem: e.gem,
        user: e.user,
        error: e.error,
        process: e.process,
        depth: e.depth,
        frames: e
            .frames
            .into_iter()
            .map(|f| pb::LoggedFrame {
                label: f.label,
                line: f.line,
                column: f.column,
                step: f.step,
                variables: f.variables.into_iter().map(field).collect(),
            })
            .collect(),
    }
}

/// An event as the protocol's.
pub fn event(e: Event) -> pb::Event {
    let event = match e {
        Event::Transcript(text) => pb::event::Event::Transcript(text),
        Event::Stale { latest, behind } => pb::event::Event::Stale(pb::ViewStale { latest, behind }),
        Event::Sessions { logged_in, logged_out } => {
            pb::event::Event::Sessions(pb::SessionsChanged { logged_in, logged_out })
        }
        Event::Relogged { session } => pb::event::Event::Relogged(pb::Relogged { session }),
        Event::Suspended { session, processes } => pb::event::Event::Suspended(pb::GemSuspended {
            session,
            processes: processes.into_iter().map(suspended_process).collect(),
        }),
        Event::Breakpoints => pb::event::Event::Breakpoints(pb::Empty {}),
        Event::Progress { step, done, total, .. } => pb::event::Event::Progress(pb::Progress { step, done, total }),
        Event::Process { process, change } => {
            let change = match change {
                ProcessChange::Suspended => "suspended",
                ProcessChange::Failed => "failed",
                ProcessChange::Resumed => "resumed",
                ProcessChange::Terminated => "terminated",
            };
            pb::event::Event::Process(pb::ProcessChanged { process, change: change.into() })
        }
    };
    pb::Event { event: Some(event) }
}

fn loaded(l: LoadSummary) -> pb::Loaded {
    pb::Loaded {
        classes_defined: count(l.loaded.classes_defined),
        methods_compiled: count(l.loaded.methods_compiled),
        unchanged: count(l.loaded.unchanged),
        classes_removed: count(l.loaded.classes_removed),
        methods_removed: count(l.loaded.methods_removed),
        warnings: l.loaded.warnings,
        initialized: l.initialized,
        initialize_errors: l.initialize_errors,
    }
}

fn change_kind(kind: ChangeKind) -> pb::ChangeKind {
    match kind {
        ChangeKind::Changed => pb::ChangeKind::Changed,
        ChangeKind::Added => pb::ChangeKind::Added,
        ChangeKind::Removed => pb::ChangeKind::Removed,
    }
}

fn definition_diff(d: DefinitionDiff) -> pb::DefinitionDiff {
    pb::DefinitionDiff { definition: d.definition, kind: change_kind(d.kind) as i32, before: d.before, after: d.after }
}

/// A package's state as a request names it: the image's code without a repository.
fn side(side: Option<pb::PackageSide>) -> PackageSide {
    let side = side.unwrap_or_default();
    if side.path.is_empty() {
        PackageSide::Image(side.package)
    } else {
        PackageSide::Version { path: side.path.into(), package: side.package, version: side.version }
    }
}
