//! Handles and the inspector: a handle names an object a client holds (kept alive in the VM
//! until released; a persistent object keeps its handle across aborts, as it keeps its place
//! in memory), and inspecting a handle answers the object's class, printString, named fields
//! and one page of its indexed fields, each field with a handle to drill into.

use std::collections::HashMap;

use onyx_vm::{Value, Vm};

use super::request::{Answer, ErrorKind, Failure, Field, Handle, InspectRequest, Inspection, Outcome};
use super::{LIMIT, eval_failure, send};

/// The longest printString a field shows (an ellipsis marks the cut).
pub(crate) const FIELD_PRINT: usize = 1000;
/// Indexed fields per page unless the client asks for another size.
const PAGE: u32 = 100;
/// The most indexed fields one page may hold.
const MAX_PAGE: u32 = 10_000;

/// The objects clients hold, by handle; each handle belongs to the login that made it.
#[derive(Default)]
pub struct Handles {
    next: u64,
    by_id: HashMap<u64, (u64, Value)>,
    by_value: HashMap<(u64, Value), u64>,
}

impl Handles {
    /// Forgets every handle (the VM they were in is gone); numbers are not given again.
    pub fn forget_all(&mut self) {
        self.by_id.clear();
        self.by_value.clear();
    }

    /// The handles of login `login`.
    pub fn of(&mut self, login: u64) -> LoginHandles<'_> {
        LoginHandles { handles: self, login }
    }

    /// Releases every handle of a login that ended.
    pub fn forget_login(&mut self, vm: &mut Vm, login: u64) {
        let ids: Vec<u64> = self.by_id.iter().filter(|(_, (owner, _))| *owner == login).map(|(&id, _)| id).collect();
        self.of(login).release(vm, &ids);
    }
}

/// One login's handles.
pub struct LoginHandles<'a> {
    handles: &'a mut Handles,
    login: u64,
}

impl LoginHandles<'_> {
    /// A handle on `v` (the one it has, or a new one); 0 for what is not an object (nil,
    /// true, false, SmallIntegers, Characters), which its printString shows whole.
    pub fn handle(&mut self, vm: &mut Vm, v: Value) -> Handle {
        if !v.is_object() {
            return 0;
        }
        let h = &mut *self.handles;
        if let Some(&id) = h.by_value.get(&(self.login, v)) {
            return id;
        }
        h.next += 1;
        vm.retain(v);
        h.by_id.insert(h.next, (self.login, v));
        h.by_value.insert((self.login, v), h.next);
        h.next
    }

    /// The object behind handle `id`, brought in if it was evicted.
    pub fn get(&self, vm: &mut Vm, id: Handle) -> Result<Value, Failure> {
        let v = match self.handles.by_id.get(&id) {
            Some(&(owner, v)) if owner == self.login => v,
            _ => return Err(Failure::new(ErrorKind::NotFound, format!("no handle {id}"))),
        };
        vm.bring_in(&[v]);
        Ok(v)
    }

    /// Forgets handles `ids` (unknown ones are ignored: releasing twice is harmless).
    pub fn release(&mut self, vm: &mut Vm, ids: &[Handle]) {
        let h = &mut *self.handles;
        for id in ids {
            if let Some(&(owner, v)) = h.by_id.get(id)
                && owner == self.login
            {
                h.by_id.remove(id);
                h.by_value.remove(&(owner, v));
                vm.release(v);
            }
        }
    }
}

/// A value's printString as a field shows it, cut at [`FIELD_PRINT`] characters; an error
/// in it is shown as such rather than failing the inspection.
pub(crate) fn field_print(vm: &mut Vm, v: Value) -> String {
    match vm.print_string_within(v, LIMIT) {
        Ok(s) if s.chars().count() > FIELD_PRINT => s.chars().take(FIELD_PRINT).chain("…".chars()).collect(),
        Ok(s) => s,
        Err(e) => format!("<printString failed: {}>", e.to_string().lines().next().unwrap_or_default()),
    }
}

pub(crate) fn field(vm: &mut Vm, handles: &mut LoginHandles, name: String, v: Value) -> Field {
    let print_string = field_print(vm, v);
    Field { name, print_string, handle: handles.handle(vm, v) }
}

/// Inspects the object behind a handle.
pub fn inspect(vm: &mut Vm, handles: &mut LoginHandles, r: InspectRequest) -> Outcome {
    let object = handles.get(vm, r.handle)?;
    let class = vm.class_of(object);
    let print_string = vm.print_string_within(object, LIMIT).map_err(|e| eval_failure(vm, e))?;
    let names = send(vm, class, "allInstVarNames", &[])?;
    let names = send(vm, names, "asArray", &[])?;
    let names: Vec<String> =
        vm.array_items(names).unwrap_or_default().iter().filter_map(|&n| vm.string_of(n)).collect();
    let mut named = Vec::with_capacity(names.len());
    for (i, name) in names.into_iter().enumerate() {
        let v = send(vm, object, "instVarAt:", &[Value::small(i as i64 + 1)])?;
        named.push(field(vm, handles, name, v));
    }
    let size = send(vm, object, "basicSize", &[])?.as_int().unwrap_or(0).max(0) as u64;
    let page = u64::from(if r.page_size == 0 { PAGE } else { r.page_size.min(MAX_PAGE) });
    let from = r.from.max(1);
    let to = size.min(from.saturating_add(page - 1));
    let mut indexed = Vec::new();
    for i in from..=to {
        let index = i64::try_from(i).map_err(|_| Failure::new(ErrorKind::Invalid, "an index out of range"))?;
        let v = send(vm, object, "basicAt:", &[Value::small(index)])?;
        indexed.push(field(vm, handles, i.to_string(), v));
    }
    let next = if to < size { to + 1 } else { 0 };
    Ok(Answer::Inspection(Inspection {
        class_name: vm.class_name(class),
        print_string,
        named,
        indexed_size: size,
        indexed,
        next,
        handle: r.handle,
    }))
}
