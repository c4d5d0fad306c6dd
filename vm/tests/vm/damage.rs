//! Records a gem cannot use, already in a repository (written there before the stone
//! checked commits, or by anything else): the gem logs in all the same, everything else
//! works, and touching such an object is an error that names it.

use std::sync::Arc;

use onyx_record::shape::{DICT, FLOAT, METHOD, SLOTS};
use onyx_record::{CHUNKED_HEADER, ObjectRecord};
use onyx_store::Stone;
use onyx_store::repo::{Durability, Repository};
use onyx_vm::{Vm, VmConfig};

use crate::util::{eval_in, vm};

/// The shapes no gem can load, each as a change of a committed Float's record.
fn hostile(float: &ObjectRecord, which: usize) -> ObjectRecord {
    let huge = [(1u64 << 58).to_le_bytes(), 0u64.to_le_bytes()].concat();
    let (kind, words, bytes) = match which {
        0 => (SLOTS | CHUNKED_HEADER, vec![], huge),
        1 => (FLOAT, vec![], vec![1, 2, 3]),
        2 => (9, vec![], vec![]),
        3 => (DICT, vec![(1 << 3) | 1], vec![]),
        4 => (METHOD, vec![(1 << 3) | 1], b"foo ^1".to_vec()),
        _ => (SLOTS, vec![0b111], vec![]),
    };
    ObjectRecord { kind, words, bytes, ..float.clone() }
}

const SHAPES: usize = 6;

/// The `i`th Float made fragile: too large to be immediate, so it has a record of its own.
fn fragile(i: usize) -> f64 {
    (i as f64 + 0.25) * 1e300
}

#[test]
fn a_gem_logs_in_past_records_it_cannot_use_and_names_them_when_touched() {
    let dir = tempfile::tempdir().expect("a temp dir");
    {
        let stone = Arc::new(crate::util::stone(dir.path()));
        let mut kernel = vm();
        kernel.create_repository(Box::new(crate::util::session(&stone)), &[]).expect("commits");
        let floats: Vec<String> =
            (0..SHAPES).map(|i| format!("Smalltalk at: #Fragile{i} put: {:e}", fragile(i))).collect();
        let source = format!("{}. System commitTransaction", floats.join(". "));
        assert_eq!(eval_in(&mut kernel, &source).expect("commits"), "true");
    }
    // The Floats' records (boxed: too large to be immediate), rewritten behind the stone's back.
    let repo = Repository::open(dir.path()).expect("opens");
    let snap = repo.snapshot().expect("a snapshot");
    let mut changed = Vec::new();
    for oop in snap.oops().expect("the objects") {
        let Some(r) = snap.get(oop).expect("reads") else { continue };
        if let Some(i) = (0..SHAPES).find(|&i| r.kind == FLOAT && r.bytes == fragile(i).to_le_bytes()) {
            changed.push(hostile(&r, i));
        }
    }
    assert_eq!(changed.len(), SHAPES, "every Float found");
    let meta = snap.meta().expect("meta");
    drop(snap);
    repo.write(&changed, meta, Durability::Now).expect("written");
    drop(repo);
    let stone = Arc::new(Stone::open(dir.path()).expect("opens"));
    let link = crate::util::session(&stone);
    let mut gem = Vm::login(Box::new(link), VmConfig::default()).expect("the gem logs in all the same");
    assert_eq!(eval_in(&mut gem, "3 + 4").expect("runs"), "7");
    assert_eq!(
        eval_in(&mut gem, "(Smalltalk at: #OrderedCollection) new add: 5; yourself").expect("runs"),
        "an OrderedCollection(5)"
    );
    for i in 0..SHAPES {
        let touched = eval_in(&mut gem, &format!("(Smalltalk at: #Fragile{i}) + 1"));
        let said = touched.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(said.contains("could not be faulted in: object "), "shape {i}: {said}");
    }
    // What the damage did not touch still commits.
    assert_eq!(eval_in(&mut gem, "Smalltalk at: #Sound put: 42. System commitTransaction").expect("commits"), "true");
}
