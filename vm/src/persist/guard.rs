//! What only a process that may change code may commit: code (classes and metaclasses, method
//! dictionaries, compiled methods, the system dictionary and its bindings). A commit from any
//! other process that changed one of them is refused whole, here, before it goes to the stone,
//! which refuses it too (the kernel's objects belong to a policy only code changers write):
//! the gem says which object and why in Smalltalk's words. (A gem is one user's session: the
//! server agent lets no other user in, so what a user changes in the gem's memory only ever
//! reaches their own work.)

use onyx_record::StoneError;

use crate::value::Value;
use crate::vm::Vm;

impl Vm {
    /// The first of `objects` (the changed and the new objects of a commit) a process without
    /// the right to change code may not commit.
    pub(super) fn first_guarded(&mut self, objects: &[Value]) -> Option<Value> {
        objects.iter().copied().find(|&v| self.is_code(v))
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

    /// The error of a commit refused by the guard.
    pub(super) fn guarded_commit_error(&self, v: Value) -> StoneError {
        let what = if self.is_behavior(v) {
            format!("the class {}", self.class_name(v))
        } else {
            format!("a {}", self.class_name(self.class_of(v)))
        };
        StoneError::PermissionDenied(format!(
            "permission denied: this user may not change code, and the transaction changed {what}"
        ))
    }
}
