//! A gem's `UserProfile` (see `crate::profile`): the repository's object at the OOP the stone
//! reserved for the session's user, found at login, or made there and committed at once by
//! the user's first session. The stone lets only a session of that user create the object
//! there, and the profile and its `UserGlobals` belong to the user's default policy.

use onyx_record::{Oop, StoneError};

use super::{Persistence, detached};
use crate::value::Value;
use crate::vm::Vm;

impl Persistence {
    /// At login, before anything else comes in (the methods compiled as they come in look
    /// globals up through it): brings in the profile at `oop`, if there is one this gem can
    /// use, with its symbol list and the list's dictionaries.
    pub(super) fn load_profile(&mut self, vm: &mut Vm, oop: Oop) {
        if oop == 0 {
            return;
        }
        // Each object alone (budget 0), so that no method comes in before the profile is
        // taken up; `Smalltalk` comes in with the root.
        let loaded = self.load(vm, vec![oop], &[], 0).and_then(|()| {
            let Some(profile) = self.local_of.get(&oop).copied().filter(|&v| !vm.heap.is_stub(v)) else {
                return Ok(());
            };
            let list = vm.heap.slot(profile, 1).unwrap_or(Value::NIL);
            self.load(vm, self.stub_oops(vm, &[list]), &[], 0)?;
            let items = vm.heap.get(list).and_then(|o| o.slots()).map(<[Value]>::to_vec).unwrap_or_default();
            let items: Vec<Value> = items.into_iter().filter(|&d| d != vm.known.smalltalk).collect();
            self.load(vm, self.stub_oops(vm, &items), &[], 0)?;
            vm.profile = profile;
            Ok(())
        });
        if let Err(e) = loaded {
            vm.last_store_error = Some(e.context("the user's profile could not be loaded"));
        }
    }

    /// The OOPs of those of `values` that are stubs.
    fn stub_oops(&self, vm: &Vm, values: &[Value]) -> Vec<Oop> {
        values.iter().filter(|&&v| vm.heap.is_stub(v)).filter_map(|v| self.oop_of.get(v).copied()).collect()
    }
}

impl Vm {
    /// After login: takes up the user's profile, making it if this is their first session.
    pub(super) fn take_up_profile(&mut self) -> Result<(), StoneError> {
        let user = self.persist.as_ref().ok_or_else(detached)?.link.user().clone();
        if !self.profile.is_nil() {
            return Ok(());
        }
        if user.profile == 0 {
            // A stone that reserves no profile: one for this session only.
            self.profile = self.new_profile(&user.name);
            return Ok(());
        }
        let mut p = self.persist.take().ok_or_else(detached)?;
        self.profile = self.new_profile(&user.name);
        // No record came: none is there, or one this gem cannot use, which stays as it is
        // (this session gets one of its own, and `System lastStoreError` says why).
        let there = p.link.fetch(&[user.profile], &[], 0).map(|r| !r.is_empty());
        let placed = match there {
            Ok(false) => {
                self.place_profile(&mut p);
                true
            }
            Ok(true) => {
                let what = format!("the profile of user {} (object {}) is damaged", user.name, user.profile);
                self.last_store_error = Some(StoneError::Damaged(what));
                false
            }
            Err(e) => {
                self.persist = Some(p);
                return Err(e);
            }
        };
        self.persist = Some(p);
        if !placed {
            return Ok(());
        }
        if self.commit_transaction()? {
            return Ok(());
        }
        // Another session of the same user made it first: take theirs.
        self.abort_transaction()?;
        let v = self.profile;
        if self.fault_in(v) && self.heap.slot(v, 1).is_some() {
            return Ok(());
        }
        Err(StoneError::Invalid(format!("the profile of user {} could not be made; log in again", user.name)))
    }

    /// Makes the VM's profile the object at the OOP the stone reserved for the session's
    /// user (committed with the next commit).
    pub(super) fn place_profile(&mut self, p: &mut Persistence) {
        let oop = p.link.user().profile;
        let profile = self.profile;
        if oop == 0 || profile.is_nil() || p.oop_of.contains_key(&profile) {
            return;
        }
        p.map(profile, oop);
        self.heap.set_persistent(profile);
        self.heap.note_store(profile);
    }
}
