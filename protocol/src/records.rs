//! The stone protocol's messages and what they carry, both ways: object records, users, what
//! a gem says of itself and the stone's list of sessions, what an administrator does to a
//! session and the locks it holds, breakpoints, and a failed request as the typed
//! [`StoneError`] (a gem makes the same error from a [`pb::Failure`] as the stone had).

use onyx_record::{
    About, Access, Breakpoint, Hits, LockKind, LogEntry, LogFrame, LogVariable, ObjectRecord, Oop, Policy, Scope,
    SessionAct, SessionInfo, StoneError, Suspended, UserInfo,
};

use crate::stone as pb;

/// A protocol object that no record can be: its kind or shape is out of range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Malformed(String);

/// A record as a protocol message.
pub fn to_wire(r: &ObjectRecord) -> pb::Object {
    pb::Object {
        oop: r.oop,
        class: r.class,
        kind: u32::from(r.kind),
        hash: r.hash,
        named: r.named,
        policy: r.policy,
        words: r.words.clone(),
        bytes: r.bytes.clone(),
    }
}

/// A user as a message.
pub fn user_to_wire(u: &UserInfo) -> pb::UserInfo {
    pb::UserInfo {
        name: u.name.clone(),
        may_change_code: u.may_change_code,
        default_policy: u.default_policy,
        profile: u.profile,
    }
}

/// A message of a user.
pub fn user_from_wire(u: pb::UserInfo) -> UserInfo {
    UserInfo { name: u.name, may_change_code: u.may_change_code, default_policy: u.default_policy, profile: u.profile }
}

/// A policy as the stone protocol carries it.
pub fn policy_to_wire(p: &Policy) -> pb::PolicyInfo {
    pb::PolicyInfo {
        owner: p.owner.clone(),
        owner_access: p.owner_access as u32,
        groups: p.groups.iter().map(|(g, a)| pb::GroupAccess { group: g.clone(), access: *a as u32 }).collect(),
        world: p.world as u32,
    }
}

/// The policy a message carries, or what is wrong with it.
pub fn policy_from_wire(p: pb::PolicyInfo) -> Result<Policy, StoneError> {
    let access = |a: u32| {
        u8::try_from(a)
            .ok()
            .and_then(Access::from_byte)
            .ok_or_else(|| StoneError::Invalid(format!("{a} is no access (0 none, 1 read, 2 write)")))
    };
    let groups = p.groups.into_iter().map(|g| Ok((g.group, access(g.access)?))).collect::<Result<_, StoneError>>()?;
    Ok(Policy { owner: p.owner, owner_access: access(p.owner_access)?, groups, world: access(p.world)? })
}

/// A protocol message as a record; a kind or shape no record can have is an error.
pub fn from_wire(o: pb::Object) -> Result<ObjectRecord, Malformed> {
    let kind =
        u8::try_from(o.kind).map_err(|_| Malformed(format!("object {}: kind {} out of range", o.oop, o.kind)))?;
    if o.named as usize > o.words.len() {
        return Err(Malformed(format!("object {}: {} named slots but {} slots", o.oop, o.named, o.words.len())));
    }
    Ok(ObjectRecord {
        oop: o.oop,
        class: o.class,
        kind,
        hash: o.hash,
        named: o.named,
        policy: o.policy,
        words: o.words,
        bytes: o.bytes,
    })
}

/// What a gem says of itself, as a message.
pub fn about_to_wire(a: &About) -> pb::About {
    let suspended = a
        .suspended
        .iter()
        .map(|s| pb::SuspendedProcess {
            process: s.process,
            kind: s.kind.clone(),
            reason: s.reason.clone(),
            method: s.method.clone(),
            since_micros: s.since_micros,
        })
        .collect();
    let hits = a.hits.iter().map(|&(breakpoint, hits)| pb::HitCount { breakpoint, hits }).collect();
    pb::About { user: a.user.clone(), host: a.host.clone(), pid: a.pid, agent: a.agent.clone(), suspended, hits }
}

/// A message of what a gem says of itself.
pub fn about_from_wire(a: pb::About) -> About {
    let suspended = a
        .suspended
        .into_iter()
        .map(|s| Suspended {
            process: s.process,
            kind: s.kind,
            reason: s.reason,
            method: s.method,
            since_micros: s.since_micros,
        })
        .collect();
    let hits = a.hits.into_iter().map(|h| (h.breakpoint, h.hits)).collect();
    About { user: a.user, host: a.host, pid: a.pid, agent: a.agent, suspended, hits }
}

/// One session of the stone's list, as a message.
pub fn session_to_wire(s: SessionInfo) -> pb::SessionEntry {
    pb::SessionEntry {
        session: s.session,
        user: s.user,
        about: Some(about_to_wire(&s.about)),
        view: s.view,
        behind: s.behind,
        locks: s.locks,
    }
}

/// A message of one session of the stone's list.
pub fn session_from_wire(s: pb::SessionEntry) -> SessionInfo {
    SessionInfo {
        session: s.session,
        user: s.user,
        about: about_from_wire(s.about.unwrap_or_default()),
        view: s.view,
        behind: s.behind,
        locks: s.locks,
    }
}

/// The gRPC status code that says what kind of error `e` is to a plain gRPC client.
pub fn code(e: &StoneError) -> tonic::Code {
    match e {
        StoneError::LockDenied { .. } => tonic::Code::FailedPrecondition,
        StoneError::Unavailable(_) => tonic::Code::Unavailable,
        StoneError::Invalid(_) => tonic::Code::InvalidArgument,
        StoneError::PermissionDenied(_) => tonic::Code::PermissionDenied,
        _ => tonic::Code::Internal,
    }
}

/// A failed request's reply.
pub fn failure(e: &StoneError) -> pb::Failure {
    let (kind, lock) = match *e {
        StoneError::LockDenied { oop, holder, kind } => {
            (pb::FailureKind::LockDenied, Some(pb::HeldLock { oop, holder, write: kind == LockKind::Write }))
        }
        StoneError::Unavailable(_) => (pb::FailureKind::Unavailable, None),
        StoneError::Invalid(_) => (pb::FailureKind::Invalid, None),
        StoneError::Damaged(_) => (pb::FailureKind::Damaged, None),
        StoneError::Storage(_) => (pb::FailureKind::Storage, None),
        StoneError::PermissionDenied(_) => (pb::FailureKind::PermissionDenied, None),
        _ => (pb::FailureKind::Unspecified, None),
    };
    pb::Failure { code: code(e) as i32, message: e.to_string(), kind: kind as i32, lock }
}

/// The error a failed request's reply stands for.
pub fn from_failure(f: pb::Failure) -> StoneError {
    let kind = pb::FailureKind::try_from(f.kind).unwrap_or(pb::FailureKind::Unspecified);
    match (kind, f.lock) {
        (pb::FailureKind::LockDenied, Some(l)) => StoneError::LockDenied {
            oop: l.oop,
            holder: l.holder,
            kind: if l.write { LockKind::Write } else { LockKind::Read },
        },
        (pb::FailureKind::Unavailable, _) => StoneError::Unavailable(f.message),
        (pb::FailureKind::Invalid, _) => StoneError::Invalid(f.message),
        (pb::FailureKind::Damaged, _) => StoneError::Damaged(f.message),
        (pb::FailureKind::Storage, _) => StoneError::Storage(f.message),
        (pb::FailureKind::PermissionDenied, _) => StoneError::PermissionDenied(f.message),
        // A stone that says no kind (another version) still says a gRPC code.
        _ => match tonic::Code::from(f.code) {
            tonic::Code::InvalidArgument => StoneError::Invalid(f.message),
            tonic::Code::Unavailable | tonic::Code::NotFound => StoneError::Unavailable(f.message),
            tonic::Code::PermissionDenied => StoneError::PermissionDenied(f.message),
            _ => StoneError::Protocol(format!("the stone failed in a way this gem does not know: {}", f.message)),
        },
    }
}

/// A breakpoint, as a message.
pub fn breakpoint_to_wire(b: &Breakpoint) -> pb::BreakpointWire {
    let (hits, hits_n) = match b.hits {
        Hits::All => (pb::HitRule::All, 0),
        Hits::Nth(n) => (pb::HitRule::Nth, n),
        Hits::Every(n) => (pb::HitRule::Every, n),
        Hits::From(n) => (pb::HitRule::From, n),
    };
    let (scope_session, scope_process) = b.scope.parts();
    pb::BreakpointWire {
        id: b.id,
        class_name: b.class.clone(),
        selector: b.selector.clone(),
        source: b.source.clone(),
        offset: b.offset,
        condition: b.condition.clone(),
        log: b.log.clone(),
        hits: hits as i32,
        hits_n,
        once: b.once,
        enabled: b.enabled,
        scope_session,
        scope_process,
        owner: b.owner.clone(),
    }
}

/// A breakpoint's message (checked by whoever keeps it: [`Breakpoint::check`]).
pub fn breakpoint_from_wire(b: pb::BreakpointWire) -> Result<Breakpoint, Malformed> {
    let hits = match pb::HitRule::try_from(b.hits) {
        Ok(pb::HitRule::All) => Hits::All,
        Ok(pb::HitRule::Nth) => Hits::Nth(b.hits_n),
        Ok(pb::HitRule::Every) => Hits::Every(b.hits_n),
        Ok(pb::HitRule::From) => Hits::From(b.hits_n),
        Err(_) => return Err(Malformed(format!("no hit rule {}", b.hits))),
    };
    let scope = Scope::from_parts(b.scope_session, b.scope_process)
        .ok_or_else(|| Malformed("a process scope names its gem's session".into()))?;
    Ok(Breakpoint {
        id: b.id,
        class: b.class_name,
        selector: b.selector,
        source: b.source,
        offset: b.offset,
        condition: b.condition,
        log: b.log,
        hits,
        once: b.once,
        enabled: b.enabled,
        scope,
        owner: b.owner,
    })
}

/// A post-mortem report, as a message.
pub fn log_entry_to_wire(e: &LogEntry) -> pb::LogEntry {
    let variable =
        |v: &LogVariable| pb::LogVariable { name: v.name.clone(), print_string: v.print_string.clone(), oop: v.oop };
    let frame = |f: &LogFrame| pb::LogFrame {
        label: f.label.clone(),
        line: f.line,
        column: f.column,
        step: f.step.clone(),
        variables: f.variables.iter().map(variable).collect(),
    };
    pb::LogEntry {
        id: e.id,
        time_micros: e.time_micros,
        session: e.session,
        gem: e.gem.clone(),
        user: e.user.clone(),
        error: e.error.clone(),
        process: e.process,
        frames: e.frames.iter().map(frame).collect(),
    }
}

/// A message of a post-mortem report (checked against the log's bounds by whoever keeps it).
pub fn log_entry_from_wire(e: pb::LogEntry) -> LogEntry {
    let variable = |v: pb::LogVariable| LogVariable { name: v.name, print_string: v.print_string, oop: v.oop };
    let frame = |f: pb::LogFrame| LogFrame {
        label: f.label,
        line: f.line,
        column: f.column,
        step: f.step,
        variables: f.variables.into_iter().map(variable).collect(),
    };
    LogEntry {
        id: e.id,
        time_micros: e.time_micros,
        session: e.session,
        gem: e.gem,
        user: e.user,
        error: e.error,
        process: e.process,
        frames: e.frames.into_iter().map(frame).collect(),
    }
}

/// What an administrator does to a session, as a message.
pub fn act_to_wire(act: SessionAct) -> pb::SessionAct {
    match act {
        SessionAct::ListLocks => pb::SessionAct::ListLocks,
        SessionAct::RemoveLocks => pb::SessionAct::RemoveLocks,
        SessionAct::Stop => pb::SessionAct::Stop,
    }
}

/// A message of what an administrator does to a session.
pub fn act_from_wire(act: i32) -> Result<SessionAct, StoneError> {
    match pb::SessionAct::try_from(act) {
        Ok(pb::SessionAct::ListLocks) => Ok(SessionAct::ListLocks),
        Ok(pb::SessionAct::RemoveLocks) => Ok(SessionAct::RemoveLocks),
        Ok(pb::SessionAct::Stop) => Ok(SessionAct::Stop),
        _ => Err(StoneError::Invalid(format!("{act} is no act on a session"))),
    }
}

/// A session's locks, as a message.
pub fn locks_to_wire(session: u64, locks: &[(Oop, LockKind)]) -> pb::LockList {
    let locks = locks
        .iter()
        .map(|&(oop, kind)| pb::HeldLock { oop, holder: session, write: kind == LockKind::Write })
        .collect();
    pb::LockList { locks }
}

/// A message of a session's locks.
pub fn locks_from_wire(list: pb::LockList) -> Vec<(Oop, LockKind)> {
    list.locks.into_iter().map(|l| (l.oop, if l.write { LockKind::Write } else { LockKind::Read })).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_stone_error_survives_the_wire() {
        let errors = [
            StoneError::LockDenied { oop: 40, holder: 3, kind: LockKind::Write },
            StoneError::LockDenied { oop: 41, holder: 4, kind: LockKind::Read },
            StoneError::Unavailable("the stone is shutting down".into()),
            StoneError::Invalid("no object 123".into()),
            StoneError::Damaged("the repository is damaged: object 9".into()),
            StoneError::Storage("storage error: disk full".into()),
            StoneError::PermissionDenied("permission denied: code".into()),
        ];
        for e in errors {
            assert_eq!(from_failure(failure(&e)), e);
        }
        let foreign = pb::Failure { code: 13, message: "what?".into(), kind: 99, lock: None };
        assert!(matches!(from_failure(foreign), StoneError::Protocol(m) if m.contains("what?")));
    }

    #[test]
    fn objects_no_record_can_be_are_refused() {
        let r =
            ObjectRecord { oop: 20, class: 16, kind: 3, hash: 7, named: 1, policy: 0, words: vec![1], bytes: vec![2] };
        assert_eq!(from_wire(to_wire(&r)), Ok(r));
        let wide = pb::Object { kind: 300, ..pb::Object::default() };
        assert!(from_wire(wide).is_err());
        let lying = pb::Object { named: 2, policy: 0, words: vec![1], ..pb::Object::default() };
        assert!(from_wire(lying).is_err());
    }

    #[test]
    fn policies_survive_the_wire_and_accesses_out_of_range_are_refused() {
        let p = Policy { groups: vec![("Payroll".into(), Access::Read)], ..Policy::own("bob") };
        assert_eq!(policy_from_wire(policy_to_wire(&p)), Ok(p.clone()));
        for bad in [3, 256, u32::MAX] {
            let world = pb::PolicyInfo { world: bad, ..policy_to_wire(&p) };
            assert!(matches!(policy_from_wire(world), Err(StoneError::Invalid(_))), "{bad}");
            let mut group = policy_to_wire(&p);
            group.groups[0].access = bad;
            assert!(matches!(policy_from_wire(group), Err(StoneError::Invalid(_))), "{bad}");
        }
    }
}
