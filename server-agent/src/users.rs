//! What the gem keeps of users: nothing but the tokens of its agent's logins. Users, their
//! passwords and their rights are the stone's (`onyx_store::users`): a gem logs in to its stone
//! as one user, and its agent lets only that user in, checking each password with the stone.

use argon2::password_hash::rand_core::{OsRng, RngCore as _};

/// GemStone's well-known initial password, used when `onyx init` is given none.
pub const DEFAULT_PASSWORD: &str = "swordfish";

/// A random token of 128 bits, in hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_random_and_128_bits() {
        let (a, b) = (super::new_token(), super::new_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
