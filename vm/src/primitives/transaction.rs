//! Transaction primitives (280-299): `System commitTransaction`, `abortTransaction`,
//! `transactionConflicts`, `session`, object locks, continuing a transaction after a
//! reduced-conflict replay, and the session's transient objects (`SessionTemps`). They fail without a repository, or when
//! the stone refuses; `System lastStoreError` (288) then says why.

use super::{Args, Prim, PrimResult, boolean};
use crate::value::Value;
use crate::vm::Vm;

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let x = a.arg(vm, 0);
    let outcome = match index {
        280 => vm.commit_transaction().map(Value::boolean),
        281 => vm.abort_transaction().map(|()| Value::NIL),
        282 => {
            let conflicts = vm.transaction_conflicts();
            return Ok(vm.new_array(conflicts));
        }
        283 => return Ok(vm.session_id().and_then(|s| Value::int(s as i64)).unwrap_or(Value::NIL)),
        284 | 285 => vm.lock(x, index == 285).map(|()| Value::TRUE),
        286 => vm.unlock(x).map(|()| Value::TRUE),
        287 => vm.unlock_all().map(|()| Value::TRUE),
        288 => {
            let message = vm.last_store_error.clone().unwrap_or_default();
            return Ok(vm.new_string(&message));
        }
        289 => return boolean(vm.has_repository()),
        290 => {
            let refresh = vm.heap.get(x).and_then(|o| o.slots()).map(<[Value]>::to_vec).ok_or(Prim::Fail)?;
            vm.continue_transaction_refreshing(&refresh).map(Value::boolean)
        }
        291 => return Ok(vm.session_temps),
        294 => return boolean(vm.is_persistent(x)),
        293 => vm.collect_repository_garbage().map(|n| Value::int(n as i64).unwrap_or(Value::NIL)),
        292 => {
            vm.session_temps = x;
            return Ok(x);
        }
        _ => return Err(Prim::Fail),
    };
    outcome.map_err(|message| {
        vm.last_store_error = Some(message);
        Prim::Fail
    })
}
