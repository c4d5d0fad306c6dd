//! The transaction, as the tools drive it: its state, begin, commit (answering the objects a
//! commit conflicted on, with handles, the first thousand) and abort, through `System` as Smalltalk code would;
//! and the stone's list of sessions.

use onyx_vm::{Value, Vm};

use super::inspect::{self, LoginHandles};
use super::request::{Answer, Committed, Failure, GemSession, Outcome, TransactionStatus};
use super::{WORK_LIMIT, eval_failure, global, send, stone_failure};

/// The most conflicting objects a commit's answer names.
pub const CONFLICTS_SHOWN: usize = 1000;

pub fn status(vm: &mut Vm, auto_commit: bool) -> Outcome {
    Ok(Answer::Transaction(state(vm, auto_commit)?))
}

/// The transaction's state, as the bar shows it (and every batch's answer carries).
pub fn state(vm: &mut Vm, auto_commit: bool) -> Result<TransactionStatus, Failure> {
    let system = global(vm, "System")?;
    let in_transaction = send(vm, system, "inTransaction", &[])? == Value::TRUE;
    let mode = send(vm, system, "transactionMode", &[])?;
    let mode = vm.string_of(mode).unwrap_or_default();
    Ok(TransactionStatus { in_transaction, mode, auto_commit, needs_commit: vm.needs_commit() })
}

/// `System beginTransaction` or `abortTransaction` (`selector`).
pub fn system_done(vm: &mut Vm, selector: &str) -> Outcome {
    let system = global(vm, "System")?;
    vm.send_within(system, selector, &[], WORK_LIMIT).map_err(|e| eval_failure(vm, e))?;
    Ok(Answer::Done)
}

/// `System commitTransaction`; on a conflict, the conflicting objects with handles.
pub fn commit(vm: &mut Vm, handles: &mut LoginHandles) -> Outcome {
    let system = global(vm, "System")?;
    let committed =
        vm.send_within(system, "commitTransaction", &[], WORK_LIMIT).map_err(|e| eval_failure(vm, e))? == Value::TRUE;
    let mut conflicts = Vec::new();
    let mut conflict_count = 0;
    if !committed {
        let objects = send(vm, system, "transactionConflicts", &[])?;
        let array = send(vm, objects, "asArray", &[])?;
        let objects = vm.array_items(array).unwrap_or_default();
        conflict_count = objects.len() as u64;
        for v in objects.into_iter().take(CONFLICTS_SHOWN) {
            conflicts.push(inspect::field(vm, handles, String::new(), v));
        }
    }
    Ok(Answer::Committed(Committed { committed, conflicts, conflict_count }))
}

/// The stone's sessions, this gem's marked.
pub fn sessions(vm: &mut Vm) -> Outcome {
    let (list, latest) = vm.stone_sessions().map_err(stone_failure)?;
    let own = vm.session_id();
    let sessions = list
        .into_iter()
        .map(|s| GemSession {
            session: s.session,
            user: s.user,
            agent_users: s.about.user,
            host: s.about.host,
            pid: s.about.pid,
            agent: s.about.agent,
            view: s.view,
            behind: s.behind,
            locks: s.locks,
            this_gem: Some(s.session) == own,
            suspended: s.about.suspended,
        })
        .collect();
    Ok(Answer::Sessions { sessions, latest })
}

/// A one-time ticket of the session's user to the agent of session `session`'s gem.
pub fn ticket(vm: &mut Vm, session: u64) -> Outcome {
    let secret = vm.issue_ticket(session).map_err(stone_failure)?;
    Ok(Answer::Ticket(session, super::request::Password(secret)))
}

/// Another session's locks listed or removed, or the session stopped, as the stone lets the
/// session's user (an administrator, or a session listing its own).
pub fn administer(vm: &mut Vm, session: u64, act: onyx_record::SessionAct) -> Outcome {
    let locks = vm.administer_session(session, act).map_err(stone_failure)?;
    Ok(Answer::SessionLocks { session, locks })
}
