//! The session's user and the policies of its objects: every record a commit sends names the
//! object security policy its object belongs to (as loaded, as assigned, or the session's
//! default for a new object), and the stone, which alone knows the users and their passwords,
//! checks each against what the session's user may do.

use onyx_record::{Oop, Policy, StoneError, UserInfo};

use super::{Persistence, detached};
use crate::value::Value;
use crate::vm::Vm;

impl Persistence {
    /// The policy object `oop` (local `v`) belongs to: as loaded or assigned, or the
    /// session's default.
    pub(super) fn policy_for(&self, v: Value, oop: Oop) -> u32 {
        let default = self.link.user().default_policy;
        self.policy_of.get(&oop).or_else(|| self.assigned.get(&v)).copied().unwrap_or(default)
    }

    /// Notes the policy loaded object `oop` belongs to.
    pub(super) fn note_policy(&mut self, oop: Oop, policy: u32) {
        if policy == self.link.user().default_policy {
            self.policy_of.remove(&oop);
        } else {
            self.policy_of.insert(oop, policy);
        }
    }
}

impl Vm {
    /// The session's user, as the stone knows them, when a repository is attached.
    pub fn session_user(&self) -> Option<&UserInfo> {
        self.persist.as_ref().map(|p| p.link.user())
    }

    /// Has the stone check a login to this gem's agent (see [`onyx_record::StoneLink::admit`]).
    pub fn admit(&mut self, name: &str, password: &str) -> Result<UserInfo, StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.admit(name, password)
    }

    /// A one-time ticket of the session's user to the gem of session `session` (see
    /// [`onyx_record::StoneLink::issue_ticket`]).
    pub fn issue_ticket(&mut self, session: u64) -> Result<String, StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.issue_ticket(session)
    }

    /// Has the stone redeem a ticket handed to this gem's agent (see
    /// [`onyx_record::StoneLink::redeem_ticket`]).
    pub fn redeem_ticket(&mut self, ticket: &str) -> Result<UserInfo, StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.redeem_ticket(ticket)
    }

    /// The policy `v` belongs to (or will, when committed); `None` without a repository.
    pub fn object_policy(&self, v: Value) -> Option<u32> {
        let p = self.persist.as_ref()?;
        Some(match p.oop_of.get(&v) {
            Some(&oop) => p.policy_for(v, oop),
            None => p.assigned.get(&v).copied().unwrap_or(p.link.user().default_policy),
        })
    }

    /// Puts `v` in policy `id` from its next commit (the stone checks then that the user may
    /// write both the policy it is in and `id`). An abort puts a persistent object back in
    /// the policy it is in.
    pub fn set_object_policy(&mut self, v: Value, id: u32) -> Result<(), StoneError> {
        let p = self.persist.as_mut().ok_or_else(detached)?;
        match p.oop_of.get(&v).copied() {
            Some(oop) => {
                p.assigned.remove(&v);
                p.policy_of.insert(oop, id);
                self.heap.note_store(v);
            }
            None => {
                p.assigned.insert(v, id);
            }
        }
        Ok(())
    }

    /// Forgets the policies assigned to new objects the collector found dead (their entries
    /// may be reused by other objects).
    pub(crate) fn forget_dead_assignments(&mut self) {
        let Some(p) = self.persist.as_mut() else { return };
        let heap = &self.heap;
        p.assigned.retain(|&v, _| heap.get(v).is_some());
    }

    /// Policy `id` as the stone keeps it.
    pub fn policy(&mut self, id: u32) -> Result<Policy, StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.policy(id)
    }

    /// Has the stone define a policy (a new one, or `id` anew), answering its id.
    pub fn define_policy(&mut self, id: Option<u32>, policy: &Policy) -> Result<u32, StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.define_policy(id, policy)
    }

    /// Has the stone put user `name` in `groups` (replacing those they were in).
    pub fn set_groups(&mut self, name: &str, groups: &[String]) -> Result<(), StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.set_groups(name, groups)
    }

    /// Has the stone add user `name` (or give them a new password and privilege).
    pub fn add_user(&mut self, name: &str, password: &str, may_change_code: bool) -> Result<(), StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.add_user(name, password, may_change_code)
    }
}
