//! Security primitives (300-309): the session's user's profile, and object security
//! policies: the policy an object is in, putting it in another from its next commit, and
//! reading and defining policies at the stone. An access is 0 (none), 1 (read) or 2 (read and
//! write); a policy travels as an Array: owner, owner's access, everyone's access, and its
//! groups as an Array of name, access, name, access, ... The policy primitives fail without a
//! repository, on arguments that are none of these, or when the stone refuses; `System
//! lastStoreError` then says why.

use onyx_record::{Access, Policy, StoneError};

use super::{Args, Prim, PrimResult, table};
use crate::value::Value;
use crate::vm::Vm;

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let (r, x) = (a.recv(vm), a.arg(vm, 0));
    let outcome = match index {
        table::SYSTEM_MY_USER_PROFILE => return Ok(vm.profile),
        table::OBJECT_POLICY_ID => {
            let id = vm.object_policy(r).filter(|_| r.is_object()).ok_or(Prim::Fail)?;
            return Value::int(i64::from(id)).ok_or(Prim::Fail);
        }
        table::OBJECT_SET_POLICY_ID => match policy_id(x) {
            // An immediate (a SmallInteger, nil, ...) belongs to no policy.
            Ok(_) if !r.is_object() => return Err(Prim::Fail),
            id => id.and_then(|id| vm.set_object_policy(r, id)).map(|()| r),
        },
        table::POLICY_AT => match policy_id(x).and_then(|id| vm.policy(id)) {
            Ok(p) => return Ok(policy_array(vm, &p)),
            Err(e) => Err(e),
        },
        table::POLICY_DEFINE => {
            let id = if x.is_nil() { Ok(None) } else { policy_id(x).map(Some) };
            let policy = policy_of(vm, [1, 2, 3, 4].map(|i| a.arg(vm, i)));
            id.and_then(|id| Ok((id, policy?)))
                .and_then(|(id, policy)| vm.define_policy(id, &policy))
                .map(|id| Value::int(i64::from(id)).unwrap_or(Value::NIL))
        }
        _ => return Err(Prim::Fail),
    };
    outcome.map_err(|error: StoneError| {
        vm.last_store_error = Some(error);
        Prim::Fail
    })
}

fn invalid(what: &str) -> StoneError {
    StoneError::Invalid(what.to_string())
}

fn policy_id(v: Value) -> Result<u32, StoneError> {
    v.as_int().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| invalid("a policy's id is a SmallInteger from 0"))
}

fn access(v: Value) -> Result<Access, StoneError> {
    v.as_int()
        .and_then(|n| u8::try_from(n).ok())
        .and_then(Access::from_byte)
        .ok_or_else(|| invalid("an access is 0 (none), 1 (read) or 2 (write)"))
}

fn access_value(a: Access) -> Value {
    Value::int(a as i64).unwrap_or(Value::NIL)
}

/// A policy as an Array (see the module's comment).
fn policy_array(vm: &mut Vm, p: &Policy) -> Value {
    let mut groups = Vec::with_capacity(p.groups.len() * 2);
    for (name, a) in &p.groups {
        groups.push(vm.new_string(name));
        groups.push(access_value(*a));
    }
    let groups = vm.new_array(groups);
    let owner = vm.new_string(&p.owner);
    vm.new_array(vec![owner, access_value(p.owner_access), access_value(p.world), groups])
}

/// The policy that owner, owner's access, everyone's access and groups say.
fn policy_of(vm: &Vm, [owner, owner_access, world, groups]: [Value; 4]) -> Result<Policy, StoneError> {
    let owner = vm.string_of(owner).ok_or_else(|| invalid("a policy's owner is a String"))?;
    let groups_error = || invalid("a policy's groups are an Array of names (Strings) and accesses, alternately");
    let items = vm.heap.get(groups).and_then(|o| o.slots()).filter(|s| s.len() % 2 == 0).ok_or_else(groups_error)?;
    let groups = items
        .chunks(2)
        .map(|pair| Ok((vm.string_of(pair[0]).ok_or_else(groups_error)?, access(pair[1])?)))
        .collect::<Result<Vec<_>, StoneError>>()?;
    Ok(Policy { owner, owner_access: access(owner_access)?, groups, world: access(world)? })
}
