//! What administrators and owners do at the stone: users added and given passwords, groups
//! and rights (by an administrator, `users::User::may_administer`), object security policies
//! defined (by their owner or an administrator), and other sessions' locks listed and removed
//! and sessions stopped (by an administrator). The right to change code is no right over
//! other users: it gives no password, group or policy.

use std::sync::Arc;

use onyx_record::word::MAX_OOP;
use onyx_record::{LockKind, NO_POLICY, Oop, SessionAct};

use crate::error::StoreError;
use crate::stone::{Stone, out_of_oops, prune_log};
use crate::users::{self, Access, Policy, User};

impl Stone {
    /// Adds user `name` with `password`, or gives an existing one a new password and
    /// privilege, durably. `by` is the session asking, whose user must administer the stone
    /// ([`User::may_administer`]: changing another's password would let them act as that
    /// user); `None` is the holder of this stone itself (`onyx init`, which adds the first
    /// users). A new user gets a policy of their own for their objects (`default_policy`
    /// names another, as `SystemUser`'s is the kernel's).
    pub fn add_user(
        &self,
        by: Option<u64>,
        name: &str,
        password: &str,
        may_change_code: bool,
        default_policy: Option<u32>,
    ) -> Result<(), StoreError> {
        users::check_new(name, password)?;
        if let Some(session) = by {
            let st = self.shared.state();
            let asking = &st.sessions.get(&session).ok_or(StoreError::NoSession(session))?.user;
            if !asking.may_administer() {
                return Err(StoreError::PermissionDenied(format!(
                    "user {} may not add users or change their passwords: only an administrator may",
                    asking.name
                )));
            }
        }
        let hash = users::hash(password)?;
        // One writer of users at a time: under the lock (the hash is made before it).
        let mut st = self.shared.state();
        let existing = st.users.get(name).cloned();
        let (default_policy, new_policy) = match (&existing, default_policy) {
            (Some(u), None) => (u.default_policy, None),
            (_, Some(id)) => (id, None),
            (None, None) => {
                let id = users::next_policy_id(&st.policies);
                (id, Some((id, Policy::own(name))))
            }
        };
        let groups = existing.as_ref().map(|u| u.groups.clone()).unwrap_or_default();
        let profile = match existing {
            Some(u) => u.profile,
            None => {
                let oop = st.oop_high;
                st.oop_high = oop.checked_add(1).filter(|&e| e <= MAX_OOP).ok_or_else(out_of_oops)?;
                oop
            }
        };
        let user = User { name: name.to_string(), hash, may_change_code, groups, default_policy, profile };
        self.shared.repo.put_user(&user, new_policy.as_ref().map(|(id, p)| (*id, p)))?;
        if let Some((id, p)) = new_policy {
            let mut policies = (*st.policies).clone();
            policies.insert(id, p);
            st.policies = Arc::new(policies);
        }
        st.users.insert(name.to_string(), Arc::new(user));
        Ok(())
    }

    /// Puts user `name` in `groups` (replacing the groups they were in), durably, for their
    /// sessions from the next login on. Only an administrator may (`by`; `None` is the
    /// holder of this stone itself); the group of those who may change code,
    /// [`users::CODE_CHANGERS`], is theirs by that right alone.
    pub fn set_groups(&self, by: Option<u64>, name: &str, groups: &[String]) -> Result<(), StoreError> {
        if groups.len() > users::MAX_GROUPS || !groups.iter().all(|g| users::valid_name(g)) {
            return Err(StoreError::Invalid(format!(
                "a user is in at most {} groups, each named in 1 to {} bytes without control characters",
                users::MAX_GROUPS,
                users::MAX_NAME
            )));
        }
        if groups.iter().any(|g| g == users::CODE_CHANGERS) {
            return Err(StoreError::Invalid(format!(
                "{} are the users who may change code: give that right instead",
                users::CODE_CHANGERS
            )));
        }
        let mut st = self.shared.state();
        if let Some(by) = by {
            let asking = &st.sessions.get(&by).ok_or(StoreError::NoSession(by))?.user;
            if !asking.may_administer() {
                return Err(StoreError::PermissionDenied(format!(
                    "user {} may not put users in groups: only an administrator may",
                    asking.name
                )));
            }
        }
        let user = st.users.get(name).ok_or_else(|| StoreError::Invalid(format!("there is no user {name}")))?;
        let user = User { groups: groups.to_vec(), ..User::clone(user) };
        self.shared.repo.put_user(&user, None)?;
        st.users.insert(name.to_string(), Arc::new(user));
        Ok(())
    }

    /// Object security policy `id` (every session may read every policy).
    pub fn policy(&self, session: u64, id: u32) -> Result<Policy, StoreError> {
        let (_, _, policies) = self.view_of(session)?;
        if id == NO_POLICY {
            return Ok(Policy {
                owner: String::new(),
                owner_access: Access::Write,
                groups: Vec::new(),
                world: Access::Write,
            });
        }
        policies.get(&id).cloned().ok_or_else(|| StoreError::Invalid(format!("there is no policy {id}")))
    }

    /// Defines a policy, durably: a new one (`id` `None`), which a session's user may make
    /// for themself and an administrator for anyone, or policy `id` anew, which only its
    /// owner or an administrator may do (a right to change code is no right over others'
    /// objects). Answers its id. (The policy of no
    /// policy, [`NO_POLICY`], is no stored policy and cannot be defined.)
    pub fn define_policy(&self, session: u64, id: Option<u32>, policy: Policy) -> Result<u32, StoreError> {
        if !users::valid_name(&policy.owner)
            || policy.groups.len() > users::MAX_GROUPS
            || !policy.groups.iter().all(|(g, _)| users::valid_name(g))
        {
            return Err(StoreError::Invalid(format!(
                "a policy names its owner and at most {} groups, each name of 1 to {} bytes without control characters",
                users::MAX_GROUPS,
                users::MAX_NAME
            )));
        }
        let mut st = self.shared.state();
        let user = Arc::clone(&st.sessions.get(&session).ok_or(StoreError::NoSession(session))?.user);
        let refuse = |what: String| Err(StoreError::PermissionDenied(format!("user {} may not {what}", user.name)));
        let id = match id {
            None => users::next_policy_id(&st.policies),
            Some(NO_POLICY) => return Err(StoreError::Invalid("the policy of no policy cannot be defined".into())),
            Some(id) => match st.policies.get(&id) {
                None => return Err(StoreError::Invalid(format!("there is no policy {id}"))),
                Some(old) if old.owner != user.name && !user.may_administer() => {
                    return refuse(format!("change policy {id}, which is {}'s", old.owner));
                }
                Some(_) => id,
            },
        };
        if !user.may_administer() && policy.owner != user.name {
            return refuse(format!("give a policy to user {}", policy.owner));
        }
        self.shared.repo.put_policy(id, &policy)?;
        let mut policies = (*st.policies).clone();
        policies.insert(id, policy);
        st.policies = Arc::new(policies);
        Ok(id)
    }

    /// Does `act` to session `of` for session `by`, whose user must administer the stone
    /// (a session may list its own locks); answers the locks `of` holds, or held before.
    pub fn administer(&self, by: u64, of: u64, act: SessionAct) -> Result<Vec<(Oop, LockKind)>, StoreError> {
        let mut st = self.shared.state();
        let asking = Arc::clone(&st.sessions.get(&by).ok_or(StoreError::NoSession(by))?.user);
        let own_locks = by == of && act == SessionAct::ListLocks;
        if !(asking.may_administer() || own_locks) {
            return Err(StoreError::PermissionDenied(format!(
                "user {} may not list or remove another session's locks, nor stop sessions: only an administrator may",
                asking.name
            )));
        }
        if !st.sessions.contains_key(&of) {
            return Err(StoreError::Invalid(format!("there is no session {of}")));
        }
        let locks = st.locks.locks_of(of);
        match act {
            SessionAct::ListLocks => {}
            SessionAct::RemoveLocks => st.locks.unlock_all(of),
            SessionAct::Stop => {
                st.sessions.remove(&of);
                st.locks.unlock_all(of);
                prune_log(&mut st);
            }
        }
        Ok(locks)
    }
}
