//! Tests of the per-definition diff and the three-way merge, among them the cases where
//! Iceberg's users lost code.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::*;
use crate::source::diff::{ChangeKind, diff};
use crate::source::model::{ClassDef, ClassKind, Spelling};

fn class(name: &str, inst_vars: &[&str], comment: &str) -> ClassDef {
    ClassDef {
        name: name.into(),
        superclass: Some("Object".into()),
        kind: ClassKind::Fixed,
        inst_vars: inst_vars.iter().map(|v| v.to_string()).collect(),
        class_vars: vec![],
        class_inst_vars: vec![],
        pools: vec![],
        category: "Shop".into(),
        category_spelling: Spelling::Symbol,
        package: None,
        tag: None,
        comment: comment.into(),
        comment_stamp: String::new(),
        file: PathBuf::new(),
        line: 0,
    }
}

/// A method of `Shop`: `selector` with the body `body`, in `category`.
fn method(selector: &str, category: &str, body: &str) -> MethodDef {
    MethodDef {
        class_name: "Shop".into(),
        class_side: false,
        selector: selector.into(),
        category: category.into(),
        source: format!("{selector}\n\t{body}"),
        stamp: String::new(),
        file: PathBuf::new(),
        line: 0,
    }
}

fn package(classes: Vec<ClassDef>, methods: Vec<MethodDef>) -> Package {
    Package { name: "Shop".into(), classes, methods, ..Package::default() }
}

fn base() -> Package {
    package(
        vec![class("Shop", &["items"], "A shop.")],
        vec![
            method("open", "actions", "^ true"),
            method("close", "actions", "^ false"),
            method("size", "accessing", "^ items size"),
        ],
    )
}

fn key(selector: &str) -> Key {
    Key::Method { class: "Shop".into(), class_side: false, selector: selector.into() }
}

fn without(p: &Package, selector: &str) -> Package {
    Package { methods: p.methods.iter().filter(|m| m.selector != selector).cloned().collect(), ..p.clone() }
}

fn with(p: &Package, m: MethodDef) -> Package {
    let mut out = without(p, &m.selector);
    out.methods.push(m);
    out
}

fn selectors(p: &Package) -> Vec<String> {
    let mut s: Vec<String> = p.methods.iter().map(|m| m.selector.clone()).collect();
    s.sort();
    s
}

fn source_of<'a>(p: &'a Package, selector: &str) -> Option<&'a MethodDef> {
    p.methods.iter().find(|m| m.selector == selector)
}

#[test]
fn a_diff_names_each_definition_added_removed_or_changed() {
    let before = base();
    let mut after = with(&without(&before, "close"), method("open", "actions", "^ self isOpen"));
    after.methods.push(method("reset", "actions", "items := nil"));
    after.classes[0].inst_vars.push("owner".into());
    after.classes[0].comment = "A shop, with an owner.".into();
    let changes = diff(&before, &after);
    let summary: Vec<(String, ChangeKind)> = changes.iter().map(|c| (c.key.to_string(), c.kind)).collect();
    assert_eq!(
        summary,
        [
            ("Shop (definition)".to_string(), ChangeKind::Changed),
            ("Shop (comment)".into(), ChangeKind::Changed),
            ("Shop>>close".into(), ChangeKind::Removed),
            ("Shop>>open".into(), ChangeKind::Changed),
            ("Shop>>reset".into(), ChangeKind::Added),
        ]
    );
    let open = &changes[3];
    assert_eq!(
        open.lines(),
        [
            (' ', "\"actions\"".to_string()),
            (' ', "open".into()),
            ('-', "\t^ true".into()),
            ('+', "\t^ self isOpen".into())
        ]
    );
    assert!(changes[0].after.as_deref().unwrap().contains("instanceVariableNames: 'items owner'"));
    assert!(diff(&before, &before.clone()).is_empty());
    // Where a definition was read from is not a difference.
    let mut moved = before.clone();
    moved.methods[0].file = PathBuf::from("elsewhere.st");
    moved.methods[0].line = 40;
    assert!(diff(&before, &moved).is_empty());
}

#[test]
fn what_changed_on_one_side_only_is_taken() {
    let base = base();
    let ours = with(&base, method("open", "actions", "^ self isOpen"));
    let mut theirs = with(&base, method("close", "actions", "^ self isClosed"));
    theirs.methods.push(method("reset", "actions", "items := nil"));
    let merge = merge(&base, &ours, &theirs);
    assert!(merge.conflicts.is_empty(), "{:?}", merge.conflicts);
    let merged = merge.resolve(&BTreeMap::new()).unwrap();
    assert_eq!(selectors(&merged), ["close", "open", "reset", "size"]);
    assert_eq!(source_of(&merged, "open").unwrap().source, "open\n\t^ self isOpen");
    assert_eq!(source_of(&merged, "close").unwrap().source, "close\n\t^ self isClosed");
    assert_eq!(merged.classes[0].comment, "A shop.");
}

#[test]
fn a_method_removed_on_one_side_and_untouched_on_the_other_is_removed() {
    let base = base();
    for (ours, theirs) in [(without(&base, "close"), base.clone()), (base.clone(), without(&base, "close"))] {
        let merge = merge(&base, &ours, &theirs);
        assert!(merge.conflicts.is_empty());
        assert_eq!(selectors(&merge.resolve(&BTreeMap::new()).unwrap()), ["open", "size"]);
    }
}

#[test]
fn a_method_removed_on_one_side_and_changed_on_the_other_is_a_conflict() {
    let base = base();
    let ours = without(&base, "close");
    let theirs = with(&base, method("close", "actions", "^ self isClosed"));
    let merge = merge(&base, &ours, &theirs);
    assert_eq!(merge.conflicts.len(), 1);
    let conflict = &merge.conflicts[0];
    assert_eq!((conflict.key.clone(), conflict.ours.is_none()), (key("close"), true));
    assert!(matches!(&conflict.theirs, Some(Definition::Method(m)) if m.source.contains("isClosed")));
    assert_eq!(merge.resolve(&BTreeMap::new()), Err(MergeError::Unresolved(vec![key("close")])));
    let kept = merge.resolve(&BTreeMap::from([(key("close"), Resolution::Theirs)])).unwrap();
    assert_eq!(selectors(&kept), ["close", "open", "size"]);
    let removed = merge.resolve(&BTreeMap::from([(key("close"), Resolution::Ours)])).unwrap();
    assert_eq!(selectors(&removed), ["open", "size"]);
}

#[test]
fn a_removal_is_never_applied_as_an_addition() {
    // Both sides removed it: it stays removed; one side added what the ancestor lacked: added.
    let base = base();
    let ours = without(&base, "size");
    let theirs = without(&base, "size");
    assert_eq!(selectors(&merge(&base, &ours, &theirs).resolve(&BTreeMap::new()).unwrap()), ["close", "open"]);
    let older = without(&base, "size");
    let merged = merge(&older, &older, &base).resolve(&BTreeMap::new()).unwrap();
    assert_eq!(selectors(&merged), ["close", "open", "size"]);
    let merged = merge(&base, &base, &older).resolve(&BTreeMap::new()).unwrap();
    assert_eq!(selectors(&merged), ["close", "open"]);
}

#[test]
fn a_method_moved_to_another_category_on_one_side_and_edited_on_the_other_keeps_both() {
    let base = base();
    let ours = with(&base, method("open", "opening", "^ true"));
    let theirs = with(&base, method("open", "actions", "^ self isOpen"));
    for (a, b) in [(&ours, &theirs), (&theirs, &ours)] {
        let merge = merge(&base, a, b);
        assert!(merge.conflicts.is_empty(), "{:?}", merge.conflicts);
        let open = source_of(&merge.resolve(&BTreeMap::new()).unwrap(), "open").unwrap().clone();
        assert_eq!((open.category.as_str(), open.source.as_str()), ("opening", "open\n\t^ self isOpen"));
    }
}

#[test]
fn a_conflict_is_resolved_by_text_edited_by_hand() {
    let base = base();
    let ours = with(&base, method("open", "actions", "^ self isOpen"));
    let mut theirs = with(&base, method("open", "actions", "^ self isReady"));
    theirs.classes[0].comment = "Their shop.".into();
    let mut ours = ours;
    ours.classes[0].comment = "Our shop.".into();
    let merge = merge(&base, &ours, &theirs);
    let keys: Vec<Key> = merge.conflicts.iter().map(|c| c.key.clone()).collect();
    assert_eq!(keys, [Key::Comment("Shop".into()), key("open")]);
    let resolutions = BTreeMap::from([
        (key("open"), Resolution::Edited("open\n\t^ self isOpen and: [ self isReady ]".into())),
        (Key::Comment("Shop".into()), Resolution::Edited("Our and their shop.".into())),
    ]);
    let merged = merge.resolve(&resolutions).unwrap();
    assert_eq!(source_of(&merged, "open").unwrap().source, "open\n\t^ self isOpen and: [ self isReady ]");
    assert_eq!(merged.classes[0].comment, "Our and their shop.");
    // An edit that is another method, or does not parse, is refused and nothing is applied.
    let mut bad = resolutions.clone();
    bad.insert(key("open"), Resolution::Edited("shut\n\t^ 1".into()));
    assert_eq!(
        merge.resolve(&bad),
        Err(MergeError::Invalid(key("open"), "the edited method is shut, not open".into()))
    );
    bad.insert(key("open"), Resolution::Edited("open\n\t^ (".into()));
    assert!(
        matches!(merge.resolve(&bad), Err(MergeError::Invalid(_, m)) if m.starts_with("the edited method does not parse"))
    );
}

#[test]
fn class_definitions_conflict_as_a_whole() {
    let base = base();
    let mut ours = base.clone();
    ours.classes[0].inst_vars.push("owner".into());
    let mut theirs = base.clone();
    theirs.classes[0].inst_vars.push("till".into());
    let merge = merge(&base, &ours, &theirs);
    assert_eq!(merge.conflicts.iter().map(|c| c.key.clone()).collect::<Vec<_>>(), [Key::Class("Shop".into())]);
    let edit = BTreeMap::from([(Key::Class("Shop".into()), Resolution::Edited("x".into()))]);
    assert!(matches!(merge.resolve(&edit), Err(MergeError::Invalid(..))));
    let merged = merge.resolve(&BTreeMap::from([(Key::Class("Shop".into()), Resolution::Theirs)])).unwrap();
    assert_eq!(
        (merged.classes[0].inst_vars.clone(), merged.classes[0].comment.as_str()),
        (vec!["items".to_string(), "till".into()], "A shop.")
    );
}
