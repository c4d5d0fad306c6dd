//! Users and their passwords: profiles live in the repository (the global `AllUsers`, a
//! Dictionary of `UserProfile`s by name) with argon2 hashes of their passwords, made and
//! checked here. `onyx init` makes `SystemUser` and `DataCurator`.

use argon2::Argon2;
use argon2::password_hash::rand_core::{OsRng, RngCore as _};
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier as _, SaltString};
use onyx_vm::persist::USERS;
use onyx_vm::{Value, Vm};

/// GemStone's well-known initial password, used when `onyx init` is given none.
pub const DEFAULT_PASSWORD: &str = "swordfish";

/// A user's profile as the repository holds it.
pub struct Profile {
    /// The argon2 hash of their password, in PHC string form.
    pub password_hash: String,
    /// Whether they may change code.
    pub may_change_code: bool,
}

/// The argon2 hash of `password` with a fresh salt, in PHC string form.
pub fn hash(password: &str) -> Result<String, String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| format!("cannot hash a password: {e}"))
}

/// Whether `password` is the one `hash` was made from (a malformed hash matches nothing).
pub fn verify(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok())
}

/// A random token of 128 bits, in hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// How long a message to the users' directory may run.
const LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

fn send(vm: &mut Vm, receiver: Value, selector: &str, args: &[Value]) -> Result<Value, String> {
    vm.send_within(receiver, selector, args, LIMIT).map_err(|e| e.to_string())
}

/// `AllUsers`, made if the repository has none yet.
fn all_users(vm: &mut Vm) -> Result<Value, String> {
    if let Some(users) = vm.global(USERS).filter(|v| !v.is_nil()) {
        return Ok(users);
    }
    let dictionary = vm.global("Dictionary").ok_or("no class Dictionary")?;
    let users = send(vm, dictionary, "new", &[])?;
    vm.set_global(USERS, users);
    Ok(users)
}

/// Adds user `name` with a password's hash (see [`hash`]), or replaces its hash and
/// privilege; committed with the next commit.
pub fn add(vm: &mut Vm, name: &str, hashed: &str, may_change_code: bool) -> Result<(), String> {
    if name.is_empty() {
        return Err("a user needs a name".into());
    }
    if hashed.is_empty() {
        return Err("the password could not be hashed".into());
    }
    let users = all_users(vm)?;
    let class = vm.global("UserProfile").ok_or("no class UserProfile")?;
    let (name_v, hash_v) = (vm.new_string(name), vm.new_string(hashed));
    let privilege = Value::boolean(may_change_code);
    let profile = send(vm, class, "userId:passwordHash:mayChangeCode:", &[name_v, hash_v, privilege])?;
    send(vm, users, "at:put:", &[name_v, profile])?;
    Ok(())
}

/// The profile of user `name`, if there is one.
pub fn profile(vm: &mut Vm, name: &str) -> Result<Option<Profile>, String> {
    let Some(users) = vm.global(USERS).filter(|v| !v.is_nil()) else { return Ok(None) };
    let key = vm.new_string(name);
    if send(vm, users, "includesKey:", &[key])? != Value::TRUE {
        return Ok(None);
    }
    let profile = send(vm, users, "at:", &[key])?;
    let hash = send(vm, profile, "passwordHash", &[])?;
    let may_change_code = send(vm, profile, "mayChangeCode", &[])? == Value::TRUE;
    Ok(Some(Profile { password_hash: vm.string_of(hash).unwrap_or_default(), may_change_code }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_matches_its_hash_only() {
        let h = hash("swordfish").unwrap_or_default();
        assert!(h.starts_with("$argon2"));
        assert!(verify("swordfish", &h));
        assert!(!verify("swordfish!", &h));
        assert!(!verify("swordfish", "not a hash"));
        assert_ne!(hash("swordfish").unwrap_or_default(), h, "salted");
        assert_eq!(new_token().len(), 32);
    }
}
