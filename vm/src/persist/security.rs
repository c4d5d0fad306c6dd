//! The session's user and the policies of its objects: every record a commit sends names the
//! object security policy its object belongs to (as loaded, as assigned, or the session's
//! default for a new object), and the stone, which alone knows the users and their passwords,
//! checks each against what the session's user may do.

use onyx_record::{Oop, StoneError, UserInfo};

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

    /// Has the stone check `password` against the session's user's.
    pub fn authenticate(&mut self, password: &str) -> Result<(), StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.authenticate(password)
    }

    /// Has the stone add user `name` (or give them a new password and privilege).
    pub fn add_user(&mut self, name: &str, password: &str, may_change_code: bool) -> Result<(), StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.add_user(name, password, may_change_code)
    }
}
