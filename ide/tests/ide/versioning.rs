//! The package-version browser: a folder of Monticello versions added, a package saved as
//! versions with a message, the versions listed with their ancestry and the loaded one marked
//! changed when the code changes, two versions compared and a version compared with the loaded
//! code (side by side), a version loaded, a version merged with its conflict settled by text
//! edited by hand, and a repository of many versions paged; each gesture one round trip.

use super::*;

/// The version browser on a new folder of versions, added: one round trip.
fn versions_of(h: &mut Harness<'static, Ide>, dir: &std::path::Path) -> String {
    let mcz = dir.join("mcz");
    std::fs::create_dir_all(&mcz).unwrap();
    let path = mcz.display().to_string();
    local(h, |h| h.get_by_label("Versions").click());
    local(h, |h| h.get_by_label("Repository folder").set_text_value_accesskit(&path));
    gesture(h, "add a repository", |h| h.get_by_label("Add repository").click());
    path
}

fn save(h: &mut Harness<'static, Ide>, message: &str) {
    h.get_by_label("message").set_text_value_accesskit(message);
    h.run_steps(2);
    gesture(h, "save a version", |h| h.get_by_label("Save a new version").click());
}

#[test]
fn versions_are_saved_compared_loaded_and_merged_with_a_conflict_settled_by_hand() {
    let (dir, server) = server();
    let mut h = harness(&server.gem);
    versions_of(&mut h, dir.path());
    h.get_by_label_contains("No package in this repository yet");
    local(&mut h, |h| h.get_by_label("Save package").set_text_value_accesskit("Probes"));
    local(&mut h, |h| h.get_by_label("author").set_text_value_accesskit("ab"));
    save(&mut h, "The first");
    h.get_by_label("Saved Probes-ab.1");
    h.get_by_label("Probes (loaded Probes-ab.1)");
    run(&server.gem, "Probe compile: 'answer\n\t^ 43' classified: #accessing");
    gesture(&mut h, "choose the package", |h| h.get_by_label("Probes (loaded Probes-ab.1)").click());
    h.get_by_label("Probes (loaded Probes-ab.1, changed)");
    save(&mut h, "The second");
    h.get_by_label("Probes (loaded Probes-ab.2)");
    h.get_by_label_contains("Probes-ab.2  ab  ");
    assert!(h.query_by_label_contains("from Probes-ab.1").is_some(), "the ancestry shows");

    // Two versions compared, side by side; then a version and the loaded code.
    local(&mut h, |h| h.get_by_label_contains("Probes-ab.1  ab").click());
    local_click(&mut h, "Mark for comparison");
    local(&mut h, |h| h.get_by_label_contains("Probes-ab.2  ab").click());
    gesture(&mut h, "compare", |h| h.get_by_label("Compare marked with selected").click());
    h.get_by_label("Changes from Probes-ab.1 to Probes-ab.2");
    h.get_by_label("Probe>>answer (changed)");
    h.get_by_label("\t^ 42");
    h.get_by_label("\t^ 43");
    gesture(&mut h, "compare with the code", |h| h.get_by_label("Compare with the loaded code").click());
    h.get_by_label("Changes from Probes-ab.2 to loaded code");
    h.get_by_label("No difference");

    // The first version loaded.
    local(&mut h, |h| h.get_by_label_contains("Probes-ab.1  ab").click());
    gesture(&mut h, "load", |h| h.get_by_label("Load selected").click());
    h.get_by_label_contains("Loaded Probes-ab.1: 0 classes defined, 1 methods compiled");
    assert_eq!(run(&server.gem, "Probe new answer"), "42");

    // Changed here, and the second merged in: a conflict, settled by hand.
    run(&server.gem, "Probe compile: 'answer\n\t^ 44' classified: #accessing");
    local(&mut h, |h| h.get_by_label_contains("Probes-ab.2  ab").click());
    gesture(&mut h, "tell the merge", |h| h.get_by_label("Merge selected").click());
    h.get_by_label("Merging Probes-ab.2 into Probes-ab.1 (common ancestor Probes-ab.1)");
    h.get_by_label("Conflict: Probe>>answer (not settled)");
    assert!(h.get_by_label("Apply merge").accesskit_node().is_disabled(), "nothing applies while a conflict is open");
    local_click(&mut h, "Edit: Probe>>answer");
    let by_hand = "answer\n\t\"Both.\"\n\t^ 43 + 1";
    local(&mut h, |h| h.get_by_label("Merged Probe>>answer").set_text_value_accesskit(by_hand));
    local_click(&mut h, "Accept (Ctrl+S)");
    h.get_by_label("Conflict: Probe>>answer (edited by hand)");
    gesture(&mut h, "apply the merge", |h| h.get_by_label("Apply merge").click());
    h.get_by_label_contains("Merged Probes-ab.2 into Probes-ab.1: 1 conflicts settled");
    assert_eq!(run(&server.gem, "Probe new answer"), "44");
    let source = run(&server.gem, "(Probe >> #answer) sourceCode");
    assert_eq!(source, format!("'{by_hand}'"));
    save(&mut h, "Merged");
    h.get_by_label_contains("Probes-ab.3  ab  ");
    assert!(h.query_by_label_contains("from Probes-ab.1, Probes-ab.2").is_some(), "a merge has two ancestors");
}

#[test]
fn a_repository_of_many_versions_pages() {
    let (dir, server) = server();
    let mut h = harness(&server.gem);
    let path = dir.path().join("mcz").display().to_string();
    std::fs::create_dir_all(&path).unwrap();
    let save = || {
        Op::RepositorySave(pb::SaveVersion {
            path: path.clone(),
            package: "Probes".into(),
            message: String::new(),
            author: "ab".into(),
        })
    };
    let saved = execute(&mut link(&server.gem), (0..60).map(|_| save()).collect());
    assert!(saved.iter().all(|o| matches!(o, Outcome::Versions(_))), "{:?}", saved.last());
    versions_of(&mut h, dir.path());
    gesture(&mut h, "choose the package", |h| h.get_by_label("Probes (loaded Probes-ab.60)").click());
    h.get_by_label("Versions (50 of 60)");
    h.get_by_label_contains("Probes-ab.60  ab");
    assert!(h.query_by_label_contains("Probes-ab.10  ab").is_none());
    gesture(&mut h, "more versions", |h| h.get_by_label("More versions").click());
    h.get_by_label("Versions (60 of 60)");
    h.get_by_label_contains("Probes-ab.1  ab");
    assert!(h.query_by_label("More versions").is_none());
}
