//! What the stone holds every commit to besides object security policies, whatever client
//! sends it: a user who may not change code commits no code (a compiled method, a method
//! dictionary, a class or a metaclass, as the root names their classes:
//! `onyx_record::kernel`), and a user's profile names its user.
//!
//! A gem refuses such commits first (its guard says why in Smalltalk's words); these rules
//! make the stone refuse them from a client that is no gem.

use std::collections::HashMap;

use onyx_record::kernel::{CodeClasses, PROFILE_USER};
use onyx_record::shape::METHOD;
use onyx_record::word::word_symbol;
use onyx_record::{ObjectRecord, Oop, ROOT};

use crate::error::StoreError;
use crate::repo::Snapshot;
use crate::users::User;

/// Refuses the commit of `records` by `user` if it writes code and `user` may not change code.
pub(crate) fn refuse_code(snap: &Snapshot, records: &[ObjectRecord], user: &User) -> Result<(), StoreError> {
    if user.may_change_code {
        return Ok(());
    }
    let refuse = |oop: Oop, what: &str| {
        Err(StoreError::PermissionDenied(format!(
            "user {} may not change code, and the commit writes {what} (object {oop})",
            user.name
        )))
    };
    if let Some(r) = records.iter().find(|r| r.kind & !onyx_record::CHUNKED_HEADER == METHOD) {
        return refuse(r.oop, "a compiled method");
    }
    // A repository whose root names no classes of code has no code to protect but methods.
    let Some(code) = snap.get_for_fetch(ROOT)?.as_ref().and_then(CodeClasses::of_root) else {
        return Ok(());
    };
    let in_commit: HashMap<Oop, Oop> = records.iter().map(|r| (r.oop, r.class)).collect();
    let mut class_of: HashMap<Oop, Option<Oop>> = HashMap::new();
    for r in records {
        if r.class == code.compiled_method {
            return refuse(r.oop, "a compiled method");
        }
        if r.class == code.method_dictionary {
            return refuse(r.oop, "a method dictionary");
        }
        if r.class == code.metaclass {
            return refuse(r.oop, "a metaclass");
        }
        // A class is an instance of a metaclass.
        let meta = match class_of.get(&r.class) {
            Some(&c) => c,
            None => {
                let c = match in_commit.get(&r.class) {
                    Some(&c) => Some(c),
                    None => snap.head(r.class)?.map(|h| h.class),
                };
                class_of.insert(r.class, c);
                c
            }
        };
        if meta == Some(code.metaclass) {
            return refuse(r.oop, "a class");
        }
    }
    Ok(())
}

/// Refuses the commit of `records` by `user` if it writes their profile with another user's
/// name, or as an object of another class than it was.
pub(crate) fn check_profile(snap: &Snapshot, records: &[ObjectRecord], user: &User) -> Result<(), StoreError> {
    let Some(profile) = records.iter().find(|r| r.oop == user.profile && user.profile != 0) else {
        return Ok(());
    };
    let refuse = |what: &str| {
        Err(StoreError::PermissionDenied(format!(
            "user {}'s profile (object {}) {what}: a profile is written by the stone's rules only",
            user.name, profile.oop
        )))
    };
    let named = profile.words.get(PROFILE_USER).copied().and_then(word_symbol);
    let names = match named {
        Some(id) => snap.symbol_name(id)?.is_some_and(|n| n == user.name.as_bytes()),
        None => false,
    };
    if !names {
        return refuse(&format!("must name its user, #{}, in its first slot", user.name));
    }
    if let Some(stored) = snap.head(profile.oop)?
        && stored.class != profile.class
    {
        return refuse("keeps its class");
    }
    Ok(())
}
