//! What only a process that may change code may commit: code (classes and metaclasses, method
//! dictionaries, compiled methods, the system dictionary and its bindings) and the users'
//! directory (the global [`USERS`] and everything it reaches: profiles, their names and
//! password hashes). A commit from any other process that changed one of them is refused
//! whole, so a user cannot raise their own rights in the repository. (A gem is one user's
//! session: the server agent lets no other user in, so what a user changes in the gem's
//! memory only ever reaches their own work.)

use std::collections::HashSet;

use onyx_record::StoneError;

use crate::value::Value;
use crate::vm::Vm;

/// The global that holds the users' profiles by name.
pub const USERS: &str = "AllUsers";

/// How many objects of the users' directory are looked at, at most (a directory larger than
/// this is not one `onyx` made, and the excess is not guarded).
const DIRECTORY_LIMIT: usize = 1_000_000;

impl Vm {
    /// The first of `objects` (the changed and the new objects of a commit) a process without
    /// the right to change code may not commit.
    pub(super) fn first_guarded(&mut self, objects: &[Value]) -> Option<Value> {
        let mut directory: Option<HashSet<Value>> = None;
        for &v in objects {
            if self.is_code(v) {
                return Some(v);
            }
            if directory.get_or_insert_with(|| self.users_directory()).contains(&v) {
                return Some(v);
            }
        }
        None
    }

    /// Whether `v` is code, or a binding of the system dictionary (by identity: whatever its
    /// key now says).
    fn is_code(&self, v: Value) -> bool {
        let class = self.class_of(v);
        if v == self.known.smalltalk
            || class == self.known.method_dictionary
            || class == self.known.compiled_method
            || self.is_behavior(v)
        {
            return true;
        }
        class == self.known.association
            && self.dict(self.known.smalltalk).is_some_and(|d| d.entries().iter().any(|&(_, binding)| binding == v))
    }

    /// The binding of [`USERS`] and every object it reaches, brought in; classes and symbols
    /// (guarded as code, or immutable) are not followed.
    fn users_directory(&mut self) -> HashSet<Value> {
        let mut seen = HashSet::new();
        let binding = self.existing_symbol(USERS).and_then(|sym| self.dict(self.known.smalltalk)?.get(sym));
        let mut level: Vec<Value> = binding.into_iter().collect();
        while !level.is_empty() && seen.len() < DIRECTORY_LIMIT {
            self.bring_in(&level);
            let mut next = Vec::new();
            for v in level {
                if !v.is_object() || self.is_symbol(v) || self.is_behavior(v) || !seen.insert(v) {
                    continue;
                }
                next.extend(super::codec::references(self, v));
            }
            level = next;
        }
        seen
    }

    /// The error of a commit refused by the guard.
    pub(super) fn guarded_commit_error(&self, v: Value) -> StoneError {
        let what = if self.is_behavior(v) {
            format!("the class {}", self.class_name(v))
        } else {
            format!("a {}", self.class_name(self.class_of(v)))
        };
        StoneError::PermissionDenied(format!(
            "permission denied: this user may not change code or users, and the transaction changed {what}"
        ))
    }
}
