//! Transaction primitives (280-299): `System commitTransaction`, `abortTransaction`,
//! `transactionConflicts`, `session`, object locks, continuing a transaction after a
//! reduced-conflict replay, and the session's transient objects (`SessionTemps`). They fail
//! without a repository, or when the stone refuses; `System lastStoreError` (288) then says
//! why, and `System lastStoreErrorClass` (295) names the exception of its kind, which the
//! kernel signals (a `LockError`, a `StoneUnavailable`, a `SecurityError`, or else a
//! `RepositoryError`). A breakpoint's condition or log expression changes no transaction: in
//! one, those that would fail with a `SecurityError`.

use onyx_record::LockKind;

use super::{Args, Prim, PrimResult, boolean, table};
use crate::persist::repository_exception;
use crate::value::Value;
use crate::vm::Vm;

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let x = a.arg(vm, 0);
    if vm.scheduler.state.break_check.is_some() && changes_the_transaction(index) {
        let why = "a breakpoint's condition or log expression commits, aborts and locks nothing";
        vm.last_store_error = Some(onyx_record::StoneError::PermissionDenied(why.into()));
        return Err(Prim::Fail);
    }
    let outcome = match index {
        table::SYSTEM_COMMIT_TRANSACTION => vm.commit_transaction().map(Value::boolean),
        table::SYSTEM_ABORT_TRANSACTION => vm.abort_transaction().map(|()| Value::NIL),
        table::SYSTEM_TRANSACTION_CONFLICTS => {
            let conflicts = vm.transaction_conflicts();
            return Ok(vm.new_array(conflicts));
        }
        table::SYSTEM_SESSION => return Ok(vm.session_id().and_then(|s| Value::int(s as i64)).unwrap_or(Value::NIL)),
        table::SYSTEM_READ_LOCK => vm.lock(x, LockKind::Read).map(|()| Value::TRUE),
        table::SYSTEM_WRITE_LOCK => vm.lock(x, LockKind::Write).map(|()| Value::TRUE),
        table::SYSTEM_REMOVE_LOCK => vm.unlock(x).map(|()| Value::TRUE),
        table::SYSTEM_REMOVE_LOCKS_FOR_SESSION => vm.unlock_all().map(|()| Value::TRUE),
        table::SYSTEM_LAST_STORE_ERROR => {
            let message = vm.last_store_error.as_ref().map(ToString::to_string).unwrap_or_default();
            return Ok(vm.new_string(&message));
        }
        table::SYSTEM_HAS_REPOSITORY => return boolean(vm.has_repository()),
        table::SYSTEM_CONTINUE_TRANSACTION_REFRESHING => {
            let refresh = vm.heap.get(x).and_then(|o| o.slots()).map(<[Value]>::to_vec).ok_or(Prim::Fail)?;
            vm.continue_transaction_refreshing(&refresh).map(Value::boolean)
        }
        table::SYSTEM_SESSION_TEMPS => return Ok(vm.session_temps),
        table::SYSTEM_IS_PERSISTENT => return boolean(vm.is_persistent(x)),
        table::SYSTEM_NEEDS_COMMIT => return boolean(vm.needs_commit()),
        table::SYSTEM_COLLECT_GARBAGE => {
            vm.collect_repository_garbage().map(|n| Value::int(n as i64).unwrap_or(Value::NIL))
        }
        table::SYSTEM_SET_SESSION_TEMPS => {
            vm.session_temps = x;
            return Ok(x);
        }
        table::SYSTEM_LAST_STORE_ERROR_CLASS => {
            let class = vm.last_store_error.as_ref().map_or("RepositoryError", repository_exception);
            return vm.global_class(class).ok_or(Prim::Fail);
        }
        _ => return Err(Prim::Fail),
    };
    outcome.map_err(|error| {
        vm.last_store_error = Some(error);
        Prim::Fail
    })
}

/// Whether primitive `index` commits, aborts, continues the transaction, locks or collects:
/// what a breakpoint's condition or log expression, which looks at a process in the middle
/// of its work, may not do to that work.
fn changes_the_transaction(index: u16) -> bool {
    matches!(
        index,
        table::SYSTEM_COMMIT_TRANSACTION
            | table::SYSTEM_ABORT_TRANSACTION
            | table::SYSTEM_READ_LOCK
            | table::SYSTEM_WRITE_LOCK
            | table::SYSTEM_REMOVE_LOCK
            | table::SYSTEM_REMOVE_LOCKS_FOR_SESSION
            | table::SYSTEM_CONTINUE_TRANSACTION_REFRESHING
            | table::SYSTEM_COLLECT_GARBAGE
    )
}
