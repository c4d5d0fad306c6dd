//! What a stone knows of the kernel, and no more: where the repository's root names the
//! classes of code, and how a user's profile names its user. Both are facts the gem and the
//! stone share, so that the stone can hold users to its rules whatever client commits.
//!
//! The root ([`crate::ROOT`]) is an Array of the objects a VM knows by role, in a fixed order
//! (the VM's `Known::objects`, checked against these places by its tests). From it the stone
//! reads which records are code: a compiled method, a method dictionary, a metaclass, or a
//! class (an object whose class is a metaclass). A user who may not change code commits none.
//!
//! A `UserProfile`'s first slot is its user's name as a Symbol, which the stone checks at
//! every commit of a profile: a user cannot rename themself, nor write another's name there.

use crate::record::ObjectRecord;
use crate::word::word_ref;

/// The root's slot holding `Metaclass`.
pub const ROOT_METACLASS: usize = 7;
/// The root's slot holding `CompiledMethod`.
pub const ROOT_COMPILED_METHOD: usize = 24;
/// The root's slot holding `MethodDictionary`.
pub const ROOT_METHOD_DICTIONARY: usize = 30;

/// The profile's slot holding its user's name, a Symbol.
pub const PROFILE_USER: usize = 0;

/// The classes whose instances are code, as the root names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeClasses {
    /// `Metaclass`: its instances are metaclasses, and their instances classes.
    pub metaclass: u64,
    /// `CompiledMethod`.
    pub compiled_method: u64,
    /// `MethodDictionary`.
    pub method_dictionary: u64,
}

impl CodeClasses {
    /// The classes of code the root names, if it is a root that names them.
    pub fn of_root(root: &ObjectRecord) -> Option<CodeClasses> {
        let at = |i: usize| root.words.get(i).copied().and_then(word_ref);
        Some(CodeClasses {
            metaclass: at(ROOT_METACLASS)?,
            compiled_method: at(ROOT_COMPILED_METHOD)?,
            method_dictionary: at(ROOT_METHOD_DICTIONARY)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::ref_word;

    #[test]
    fn the_root_names_the_classes_of_code_at_their_places() {
        let mut words: Vec<u64> = (0..40).map(|i| ref_word(100 + i)).collect();
        let root = ObjectRecord {
            oop: crate::ROOT,
            class: 5,
            kind: 0,
            hash: 0,
            named: 0,
            policy: 1,
            words: words.clone(),
            bytes: vec![],
        };
        let code = CodeClasses::of_root(&root);
        assert_eq!(code, Some(CodeClasses { metaclass: 107, compiled_method: 124, method_dictionary: 130 }));
        words.truncate(ROOT_METHOD_DICTIONARY);
        assert_eq!(CodeClasses::of_root(&ObjectRecord { words, ..root }), None, "a short root names none");
    }
}
