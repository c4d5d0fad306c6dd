//! Users and object security policies, kept by the stone in tables of the repository file
//! where no Smalltalk code reads them: each user's argon2 password hash, whether they may
//! change code, their groups and the policy their new objects belong to; each policy's
//! owner and who may read or write its objects (GemStone's object security policies).
//!
//! Every object record names its policy (`ObjectRecord::policy`); the stone checks read
//! access on every fetch and write access on every commit, for the object's stored policy and
//! for the one the commit gives it. [`NO_POLICY`] lets everyone read and write;
//! [`SYSTEM_POLICY`] (the kernel's) lets everyone read and code changers write.

use std::collections::HashMap;
use std::sync::OnceLock;

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier as _, SaltString};
pub use onyx_record::policy::{ADMINISTRATORS, Access, CODE_CHANGERS, DEBUGGERS, Policy, SYSTEM_USER};
use onyx_record::{NO_POLICY, Oop, UserInfo};

use crate::error::StoreError;

/// The longest user name.
pub const MAX_NAME: usize = 256;
/// The longest password.
pub const MAX_PASSWORD: usize = 1024;
/// The most groups a policy names.
pub const MAX_GROUPS: usize = 64;

/// A user as the stone keeps them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    /// Their name.
    pub name: String,
    /// The argon2 hash of their password, in PHC string form.
    pub hash: String,
    /// Whether they may change code (and add users).
    pub may_change_code: bool,
    /// The groups they are in (besides [`CODE_CHANGERS`], which code changers are in).
    pub groups: Vec<String>,
    /// The policy their new objects belong to.
    pub default_policy: u32,
    /// The OOP reserved for their `UserProfile` (0: none yet; the stone reserves one when it
    /// starts). Only a session of theirs may create the object there.
    pub profile: Oop,
}

impl User {
    /// Whether they are in `group`.
    pub fn in_group(&self, group: &str) -> bool {
        (group == CODE_CHANGERS && self.may_change_code) || self.groups.iter().any(|g| g == group)
    }

    /// Whether they may log in to the agent of a gem whose session is `owner`'s: their own, or
    /// anyone's if they may debug others' gems ([`DEBUGGERS`]).
    pub fn may_attach_to(&self, owner: &str) -> Result<(), StoreError> {
        if self.name == owner || self.in_group(DEBUGGERS) {
            return Ok(());
        }
        Err(StoreError::PermissionDenied(format!(
            "user {} may not debug {owner}'s gem: only users in the group {DEBUGGERS} may debug others' gems \
             (onyx add-user {} --may-debug-others)",
            self.name, self.name
        )))
    }

    /// Whether they administer the stone ([`SYSTEM_USER`], or in [`ADMINISTRATORS`]).
    pub fn may_administer(&self) -> bool {
        self.name == SYSTEM_USER || self.in_group(ADMINISTRATORS)
    }

    /// What their session knows of them.
    pub fn info(&self) -> UserInfo {
        UserInfo {
            name: self.name.clone(),
            may_change_code: self.may_change_code,
            default_policy: self.default_policy,
            profile: self.profile,
        }
    }
}

/// The policies by id.
pub type Policies = HashMap<u32, Policy>;

/// What `user` may do with the objects of policy `id`.
pub fn access(policies: &Policies, user: &User, id: u32) -> Access {
    if id == NO_POLICY {
        return Access::Write;
    }
    let Some(p) = policies.get(&id) else { return Access::None };
    let mut access = p.world;
    if p.owner == user.name {
        access = access.max(p.owner_access);
    }
    for (group, granted) in &p.groups {
        if user.in_group(group) {
            access = access.max(*granted);
        }
    }
    access
}

/// Whether `user` may move objects of policy `id` to another: its owner may, and an
/// administrator; an object of [`NO_POLICY`] (no owner) only an administrator moves.
pub fn may_move(policies: &Policies, user: &User, id: u32) -> bool {
    user.may_administer() || (id != NO_POLICY && policies.get(&id).is_some_and(|p| p.owner == user.name))
}

/// The argon2 hash of `password` with a fresh salt, in PHC string form.
pub fn hash(password: &str) -> Result<String, StoreError> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| StoreError::Invalid(format!("cannot hash a password: {e}")))
}

/// Whether `password` is the one `user`'s hash was made from. An unknown user (`None`) is
/// checked against a hash of no one's password, so that a login takes as long whether or not
/// the user exists: names cannot be found by timing.
pub fn verify(user: Option<&User>, password: &str) -> bool {
    static NO_ONE: OnceLock<String> = OnceLock::new();
    let no_one = NO_ONE.get_or_init(|| hash(&random_password()).unwrap_or_default());
    let (hash, known) = match user {
        Some(u) => (u.hash.as_str(), true),
        None => (no_one.as_str(), false),
    };
    let matches =
        PasswordHash::new(hash).is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok());
    matches && known
}

fn random_password() -> String {
    use argon2::password_hash::rand_core::RngCore as _;
    let mut bytes = [0u8; 16];
    OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether a login's `name` and `password` could be some user's at all (checked before the
/// password, which costs tens of milliseconds and megabytes).
pub fn plausible(name: &str, password: &str) -> bool {
    name.len() <= MAX_NAME && password.len() <= MAX_PASSWORD
}

/// Whether `name` may name a user or a group: 1 to [`MAX_NAME`] bytes, no control characters.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME && !name.chars().any(char::is_control)
}

/// The id a new policy gets: one past the highest.
pub fn next_policy_id(policies: &Policies) -> u32 {
    policies.keys().max().copied().unwrap_or(onyx_record::SYSTEM_POLICY) + 1
}

/// Checks a new user's name and password.
pub fn check_new(name: &str, password: &str) -> Result<(), StoreError> {
    if !valid_name(name) {
        return Err(StoreError::Invalid(format!("a user name has 1 to {MAX_NAME} bytes and no control characters")));
    }
    if password.is_empty() || password.len() > MAX_PASSWORD {
        return Err(StoreError::Invalid(format!("a password has 1 to {MAX_PASSWORD} bytes")));
    }
    Ok(())
}

/// The encodings of users and policies as their tables hold them.
pub(crate) mod encoding {
    use super::{Access, Policy, User};
    use onyx_record::fields::{Reader, put_count, put_text};

    /// Any length a stored text may have (names are checked where they are made).
    const ANY: usize = u32::MAX as usize;

    fn access(r: &mut Reader) -> Option<Access> {
        Access::from_byte(r.u8()?)
    }

    pub fn user(u: &User) -> Vec<u8> {
        let mut out = Vec::new();
        put_text(&mut out, &u.name);
        put_text(&mut out, &u.hash);
        out.push(u8::from(u.may_change_code));
        out.extend_from_slice(&u.default_policy.to_le_bytes());
        put_count(&mut out, u.groups.len());
        for g in &u.groups {
            put_text(&mut out, g);
        }
        out.extend_from_slice(&u.profile.to_le_bytes());
        out
    }

    pub fn decode_user(data: &[u8]) -> Option<User> {
        let mut r = Reader(data);
        let (name, hash, may_change_code, default_policy) = (r.text(ANY)?, r.text(ANY)?, r.u8()? == 1, r.u32()?);
        let groups = (0..r.u32()?).map(|_| r.text(ANY)).collect::<Option<Vec<String>>>()?;
        // A user written before profiles were reserved has none yet.
        let profile = if r.is_done() { 0 } else { r.u64()? };
        r.is_done().then_some(User { name, hash, may_change_code, groups, default_policy, profile })
    }

    pub fn policy(p: &Policy) -> Vec<u8> {
        let mut out = Vec::new();
        put_text(&mut out, &p.owner);
        out.push(p.owner_access as u8);
        out.push(p.world as u8);
        put_count(&mut out, p.groups.len());
        for (g, a) in &p.groups {
            put_text(&mut out, g);
            out.push(*a as u8);
        }
        out
    }

    pub fn decode_policy(data: &[u8]) -> Option<Policy> {
        let mut r = Reader(data);
        let (owner, owner_access, world) = (r.text(ANY)?, access(&mut r)?, access(&mut r)?);
        let groups = (0..r.u32()?).map(|_| Some((r.text(ANY)?, access(&mut r)?))).collect::<Option<Vec<_>>>()?;
        r.is_done().then_some(Policy { owner, owner_access, groups, world })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onyx_record::SYSTEM_POLICY;

    fn user(name: &str, may_change_code: bool, default_policy: u32) -> User {
        User {
            name: name.into(),
            hash: hash("pw").unwrap_or_default(),
            may_change_code,
            groups: Vec::new(),
            default_policy,
            profile: 40,
        }
    }

    #[test]
    fn access_is_the_most_of_world_owner_and_groups() {
        let mut policies = Policies::new();
        policies.insert(SYSTEM_POLICY, Policy::system());
        policies.insert(5, Policy::own("bob"));
        policies.insert(6, Policy { world: Access::None, ..Policy::own("carol") });
        let (bob, curator) = (user("bob", false, 5), user("DataCurator", true, 7));
        assert_eq!(access(&policies, &bob, SYSTEM_POLICY), Access::Read);
        assert_eq!(access(&policies, &curator, SYSTEM_POLICY), Access::Write);
        assert_eq!(access(&policies, &bob, 5), Access::Write);
        assert_eq!(access(&policies, &curator, 5), Access::Read);
        assert_eq!(access(&policies, &bob, 6), Access::None);
        assert_eq!(access(&policies, &bob, NO_POLICY), Access::Write);
        assert_eq!(access(&policies, &bob, 99), Access::None, "an unknown policy grants nothing");
    }

    #[test]
    fn passwords_match_their_hash_only_and_unknown_users_match_nothing() {
        let bob = user("bob", false, 5);
        assert!(bob.hash.starts_with("$argon2"));
        assert!(verify(Some(&bob), "pw"));
        assert!(!verify(Some(&bob), "pw!"));
        assert!(!verify(None, "pw"));
        let broken = User { hash: "not a hash".into(), ..bob.clone() };
        assert!(!verify(Some(&broken), "pw"));
    }

    #[test]
    fn users_and_policies_round_trip_and_damage_does_not_decode() {
        let u = User { groups: vec!["Payroll".into()], ..user("bob", true, 9) };
        assert_eq!(encoding::decode_user(&encoding::user(&u)), Some(u.clone()));
        let p = Policy { groups: vec![("Payroll".into(), Access::Read)], ..Policy::own("bob") };
        assert_eq!(encoding::decode_policy(&encoding::policy(&p)), Some(p.clone()));
        let bytes = encoding::user(&u);
        let without_profile = bytes.len() - 8;
        let old = encoding::decode_user(&bytes[..without_profile]);
        assert_eq!(old, Some(User { profile: 0, ..u.clone() }), "a user written before profiles has none yet");
        for cut in (0..bytes.len()).filter(|&cut| cut != without_profile) {
            assert_eq!(encoding::decode_user(&bytes[..cut]), None);
        }
        assert!(check_new("", "pw").is_err() && check_new("bob", "").is_err() && check_new("bob", "pw").is_ok());
    }
}
