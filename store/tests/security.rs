//! The stone's users and object security policies, enforced by the stone itself whatever
//! the client: logins checked against the stone's own password hashes, reads checked on
//! every fetch, writes on every commit, users added only by users who may change code, and
//! each user's profile at an OOP the stone reserves for them.

use onyx_record::word::ref_word;
use onyx_record::{Access, CommitOutcome, ObjectRecord, Oop, Policy, ROOT, SYSTEM_POLICY};
use onyx_store::{Stone, StoreError};

fn ok<T>(r: Result<T, StoreError>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn object(oop: Oop, class: Oop, policy: u32, n: u64) -> ObjectRecord {
    ObjectRecord { oop, class, kind: 0, hash: 1, named: 0, policy, words: vec![(n << 3) | 1], bytes: Vec::new() }
}

fn denied<T: std::fmt::Debug>(r: Result<T, StoreError>) -> String {
    match r {
        Err(StoreError::PermissionDenied(why)) => why,
        other => panic!("not denied: {other:?}"),
    }
}

/// The password of each user of [`with_users`].
fn password(user: &str) -> String {
    format!("{user}'s")
}

/// A new stone with `SystemUser` (whose objects are the kernel's) and `bob` and `carol`, who
/// may not change code.
fn with_users() -> (tempfile::TempDir, Stone) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let stone = ok(Stone::create(dir.path()));
    ok(stone.add_user(None, "SystemUser", &password("SystemUser"), true, Some(SYSTEM_POLICY)));
    for user in ["bob", "carol"] {
        ok(stone.add_user(None, user, &password(user), false, None));
    }
    (dir, stone)
}

#[test]
fn the_stone_enforces_policies_on_fetch_and_commit_whatever_the_client() {
    let (_dir, stone) = with_users();
    let [admin, bob, carol] = ["SystemUser", "bob", "carol"].map(|u| ok(stone.login(u, &password(u))).0);
    let (bobs, carols) = (ok(stone.user_of(bob)).default_policy, ok(stone.user_of(carol)).default_policy);
    assert!(bobs != carols && bobs > SYSTEM_POLICY);
    // The kernel's objects: the root and a class, in the system policy.
    let r = ok(stone.allocate(admin, 2));
    let (class, code) = (r.start, r.start + 1);
    let root = ObjectRecord { words: vec![ref_word(code)], ..object(ROOT, class, SYSTEM_POLICY, 0) };
    let kernel = vec![root, object(class, class, SYSTEM_POLICY, 0), object(code, class, SYSTEM_POLICY, 1)];
    assert!(matches!(ok(stone.commit(admin, kernel)), CommitOutcome::Committed(_)));
    ok(stone.abort(bob));
    ok(stone.abort(carol));
    // Bob reads the kernel and changes none of it, however his client builds the record.
    assert_eq!(ok(stone.fetch(bob, &[code], &[], 0))[0].words, vec![(1 << 3) | 1]);
    assert!(denied(stone.commit(bob, vec![object(code, class, SYSTEM_POLICY, 2)])).contains("may not change object"));
    assert!(denied(stone.commit(bob, vec![object(code, class, bobs, 2)])).contains("may not change object"));
    // His own objects are his to change, and everyone's to read.
    let mine = ok(stone.allocate(bob, 1)).start;
    assert!(denied(stone.commit(bob, vec![object(mine, class, SYSTEM_POLICY, 3)])).contains("policy 1"));
    assert!(matches!(ok(stone.commit(bob, vec![object(mine, class, bobs, 3)])), CommitOutcome::Committed(_)));
    ok(stone.abort(carol));
    assert_eq!(ok(stone.fetch(carol, &[mine], &[], 0)).len(), 1);
    assert!(denied(stone.commit(carol, vec![object(mine, class, carols, 4)])).contains("may not change object"));
    // What a policy lets no one else read is neither sent along nor sent when asked for.
    ok(stone.abort(bob));
    assert_eq!(ok(stone.fetch(bob, &[mine], &[], 0)).len(), 1, "a new user's policy lets the world read");
}

#[test]
fn logins_are_checked_by_the_stone_and_only_administrators_add_users() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let stone = ok(Stone::create(dir.path()));
    ok(stone.add_user(None, "DataCurator", "curator", true, None));
    ok(stone.set_groups(None, "DataCurator", &["Administrators".into()]));
    ok(stone.add_user(None, "bob", "bob's", false, None));
    // The right to change code is no right over other users: a code changer who does not
    // administer the stone gives nobody a password or a group, nor redefines their policy.
    ok(stone.add_user(None, "dave", "dave's", true, None));
    let (dave, _) = ok(stone.login("dave", "dave's"));
    assert!(denied(stone.add_user(Some(dave), "bob", "mine now", false, None)).contains("only an administrator"));
    assert!(denied(stone.set_groups(Some(dave), "dave", &["Administrators".into()])).contains("only an administrator"));
    let bobs = ok(stone.login("bob", "bob's")).0;
    let bobs = ok(stone.user_of(bobs)).default_policy;
    let open = Policy { world: Access::Write, ..Policy::own("bob") };
    assert!(denied(stone.define_policy(dave, Some(bobs), open)).contains("dave may not change policy"));
    let wrong = denied(stone.login("bob", "guess"));
    let unknown = denied(stone.login("mallory", "guess"));
    assert_eq!(wrong.replace("bob", "X"), unknown.replace("mallory", "X"), "refusals say the same either way");
    let (bob, _) = ok(stone.login("bob", "bob's"));
    assert!(denied(stone.add_user(Some(bob), "bob", "new", true, None)).contains("may not add users"));
    assert!(denied(stone.admit(bob, "bob", "guess")).contains("password"));
    assert_eq!(ok(stone.admit(bob, "bob", "bob's")).name, "bob");
    let (curator, _) = ok(stone.login("DataCurator", "curator"));
    ok(stone.add_user(Some(curator), "bob", "new", false, None));
    assert!(stone.login("bob", "bob's").is_err());
    ok(stone.login("bob", "new"));
    assert!(matches!(stone.add_user(Some(curator), "", "x", false, None), Err(StoreError::Invalid(_))));
    // Groups are given by users who may change code, and the right to change code is no group.
    assert!(denied(stone.set_groups(Some(bob), "bob", &["Payroll".into()])).contains("may not put users in groups"));
    let code_changers = stone.set_groups(Some(curator), "bob", &["CodeChangers".into()]);
    assert!(matches!(code_changers, Err(StoreError::Invalid(_))), "{code_changers:?}");
    ok(stone.set_groups(Some(curator), "bob", &["Payroll".into()]));
    // Into the agent of bob's gem come bob, and users in Debuggers, with their rights.
    let (bob, _) = ok(stone.login("bob", "new"));
    assert!(denied(stone.admit(bob, "DataCurator", "curator")).contains("Debuggers"));
    ok(stone.set_groups(Some(curator), "DataCurator", &["Debuggers".into(), "Administrators".into()]));
    assert!(ok(stone.admit(bob, "DataCurator", "curator")).may_change_code);
    let (wrong, unknown) = (denied(stone.admit(bob, "DataCurator", "x")), denied(stone.admit(bob, "mallory", "x")));
    assert_eq!(wrong.replace("DataCurator", "X"), unknown.replace("mallory", "X"), "refusals say the same either way");
    // The users are the repository's: a reopened stone knows them.
    drop(stone);
    let stone = ok(Stone::open(dir.path()));
    let (again, _) = ok(stone.login("bob", "new"));
    assert!(!ok(stone.user_of(again)).may_change_code);
}

#[test]
fn each_user_has_a_profile_only_their_sessions_may_make_and_it_outlives_collections() {
    let (dir, stone) = with_users();
    let [admin, bob, carol] = ["SystemUser", "bob", "carol"].map(|u| ok(stone.login(u, &password(u))).0);
    let (bobs, carols) = (ok(stone.user_of(bob)), ok(stone.user_of(carol)));
    assert!(bobs.profile > ROOT && carols.profile > ROOT && bobs.profile != carols.profile);
    // The root, and a class for the profiles.
    let class = ok(stone.allocate(admin, 1)).start;
    assert!(class > bobs.profile.max(carols.profile), "reserved OOPs are not handed out again");
    let root = object(ROOT, class, SYSTEM_POLICY, 0);
    let kernel = vec![root, object(class, class, SYSTEM_POLICY, 0)];
    assert!(matches!(ok(stone.commit(admin, kernel)), CommitOutcome::Committed(_)));
    ok(stone.abort(bob));
    ok(stone.abort(carol));
    // Carol cannot make Bob's profile, in her policy or in his; Bob can, in his.
    for policy in [carols.default_policy, bobs.default_policy] {
        let refused = stone.commit(carol, vec![object(bobs.profile, class, policy, 1)]);
        assert!(refused.is_err(), "carol made bob's profile in policy {policy}");
    }
    // A profile names its user in its first slot, as a Symbol: Bob's names bob, and only
    // him, for good, as an object of the class it was made with.
    let [named_bob, named_curator] = ok(stone.intern(&[b"bob".to_vec(), b"DataCurator".to_vec()]))[..] else {
        panic!("two symbols")
    };
    let profile = |user: u64, class: Oop| ObjectRecord {
        words: vec![onyx_record::word::symbol_word(user), onyx_record::word::NIL],
        ..object(bobs.profile, class, bobs.default_policy, 0)
    };
    let unnamed = stone.commit(bob, vec![object(bobs.profile, class, bobs.default_policy, 1)]);
    assert!(denied(unnamed).contains("must name its user, #bob"));
    assert!(denied(stone.commit(bob, vec![profile(named_curator, class)])).contains("must name its user"));
    let made = ok(stone.commit(bob, vec![profile(named_bob, class)]));
    assert!(matches!(made, CommitOutcome::Committed(_)));
    assert!(denied(stone.commit(bob, vec![profile(named_curator, class)])).contains("must name its user"));
    let other_class = ok(stone.allocate(bob, 1)).start;
    let renamed = vec![object(other_class, class, bobs.default_policy, 0), profile(named_bob, other_class)];
    assert!(denied(stone.commit(bob, renamed)).contains("keeps its class"));
    assert!(matches!(ok(stone.commit(bob, vec![profile(named_bob, class)])), CommitOutcome::Committed(_)));
    ok(stone.abort(carol));
    assert!(
        denied(stone.commit(carol, vec![object(bobs.profile, class, carols.default_policy, 2)])).contains("change")
    );
    // Nothing refers to it, and a collection keeps it all the same.
    ok(stone.collect_garbage());
    ok(stone.abort(bob));
    assert_eq!(ok(stone.fetch(bob, &[bobs.profile], &[], 0)).len(), 1);
    // A reopened stone reserves the same OOPs, and hands out none of them.
    drop(stone);
    let stone = ok(Stone::open(dir.path()));
    let (carol, _) = ok(stone.login("carol", &password("carol")));
    assert_eq!(ok(stone.user_of(carol)).profile, carols.profile);
    assert!(ok(stone.allocate(carol, 1)).start > carols.profile.max(bobs.profile));
}

#[test]
fn policies_are_defined_by_their_owners_and_malformed_ones_are_refused() {
    let (dir, stone) = with_users();
    let [admin, bob, carol] = ["SystemUser", "bob", "carol"].map(|u| ok(stone.login(u, &password(u))).0);
    let bobs = Policy { world: Access::None, ..Policy::own("bob") };
    let id = ok(stone.define_policy(bob, None, bobs.clone()));
    assert_eq!(ok(stone.policy(carol, id)), bobs, "every user reads every policy");
    // Only its owner (or a user who may change code) changes it, and nobody gives one away
    // but a user who may change code.
    let open = Policy { world: Access::Write, ..bobs.clone() };
    assert!(denied(stone.define_policy(carol, Some(id), open.clone())).contains("which is bob's"));
    assert!(denied(stone.define_policy(carol, None, bobs.clone())).contains("give a policy to user bob"));
    assert_eq!(ok(stone.define_policy(bob, Some(id), open.clone())), id);
    assert_eq!(ok(stone.define_policy(admin, Some(id), bobs.clone())), id);
    // Malformed: no owner, a group with no name, too many groups, no such policy, none.
    let invalid = |r: Result<u32, StoreError>| matches!(r, Err(StoreError::Invalid(_)));
    assert!(invalid(stone.define_policy(bob, None, Policy { owner: String::new(), ..bobs.clone() })));
    let unnamed = Policy { groups: vec![(String::new(), Access::Read)], ..bobs.clone() };
    assert!(invalid(stone.define_policy(bob, None, unnamed)));
    let many = Policy { groups: (0..100).map(|i| (format!("g{i}"), Access::Read)).collect(), ..bobs.clone() };
    assert!(invalid(stone.define_policy(bob, None, many)));
    assert!(invalid(stone.define_policy(bob, Some(999), bobs.clone())));
    assert!(invalid(stone.define_policy(admin, Some(onyx_record::NO_POLICY), bobs.clone())));
    assert!(matches!(stone.policy(bob, 999), Err(StoreError::Invalid(_))));
    // Groups: no unnamed one, and users who exist.
    assert!(matches!(stone.set_groups(Some(admin), "bob", &[String::new()]), Err(StoreError::Invalid(_))));
    assert!(matches!(stone.set_groups(Some(admin), "nobody", &["Payroll".into()]), Err(StoreError::Invalid(_))));
    // A reopened stone has the policy as last defined.
    drop(stone);
    let stone = ok(Stone::open(dir.path()));
    let (bob, _) = ok(stone.login("bob", &password("bob")));
    assert_eq!(ok(stone.policy(bob, id)), bobs);
}

#[test]
fn locks_need_access_and_only_owners_move_objects_between_policies() {
    use onyx_record::{LockKind, NO_POLICY};
    let (_dir, stone) = with_users();
    let [admin, bob, carol] = ["SystemUser", "bob", "carol"].map(|u| ok(stone.login(u, &password(u))).0);
    let (bobs, carols) = (ok(stone.user_of(bob)).default_policy, ok(stone.user_of(carol)).default_policy);
    let r = ok(stone.allocate(admin, 2));
    let (class, published) = (r.start, r.start + 1);
    let kernel = vec![
        object(ROOT, class, SYSTEM_POLICY, 0),
        object(class, class, SYSTEM_POLICY, 0),
        object(published, class, NO_POLICY, 0),
    ];
    assert!(matches!(ok(stone.commit(admin, kernel)), CommitOutcome::Committed(_)));
    let private = ok(stone.define_policy(bob, None, Policy { world: Access::None, ..Policy::own("bob") }));
    ok(stone.abort(bob));
    let r = ok(stone.allocate(bob, 2));
    let (mine, secret) = (r.start, r.start + 1);
    let bobs_objects = vec![object(mine, class, bobs, 1), object(secret, class, private, 2)];
    assert!(matches!(ok(stone.commit(bob, bobs_objects)), CommitOutcome::Committed(_)));
    ok(stone.abort(carol));
    // Carol locks nothing she may not use herself: no read lock on what she may not read, no
    // write lock on what she may not change, no lock on what is not committed.
    assert!(denied(stone.lock(carol, secret, LockKind::Read)).contains("may not read-lock object"));
    assert!(denied(stone.lock(carol, mine, LockKind::Write)).contains("may not write-lock object"));
    assert!(denied(stone.lock(carol, ROOT, LockKind::Write)).contains("may not write-lock"));
    assert!(matches!(stone.lock(carol, 1 << 40, LockKind::Read), Err(StoreError::Invalid(_))));
    ok(stone.lock(carol, mine, LockKind::Read));
    ok(stone.lock(carol, published, LockKind::Write));
    stone.unlock_all(carol);
    ok(stone.lock(bob, secret, LockKind::Write));
    // An object changes policy by its policy's owner alone (or an administrator's hand); one
    // of no policy, such as Published, has no owner to move it.
    let grab = stone.commit(carol, vec![object(published, class, carols, 0)]);
    assert!(denied(grab).contains("may not move object"), "carol took Published");
    let moved = stone.commit(bob, vec![object(mine, class, private, 1)]);
    assert!(matches!(ok(moved), CommitOutcome::Committed(_)), "bob moves his own");
    assert!(matches!(
        ok(stone.commit(admin, vec![object(published, class, SYSTEM_POLICY, 0)])),
        CommitOutcome::Committed(_)
    ));
}

#[test]
fn users_who_may_not_change_code_commit_no_code_whatever_the_client() {
    use onyx_record::kernel::{ROOT_COMPILED_METHOD, ROOT_METACLASS, ROOT_METHOD_DICTIONARY};
    let (_dir, stone) = with_users();
    ok(stone.add_user(None, "dave", &password("dave"), true, None));
    let [admin, carol, dave] = ["SystemUser", "carol", "dave"].map(|u| ok(stone.login(u, &password(u))).0);
    let carols = ok(stone.user_of(carol)).default_policy;
    // A kernel whose root names Metaclass, CompiledMethod and MethodDictionary, a metaclass
    // (an instance of Metaclass) and its one instance, a class.
    let r = ok(stone.allocate(admin, 5));
    let [metaclass, compiled_method, method_dictionary, thing_class, thing] = [0, 1, 2, 3, 4].map(|i| r.start + i);
    let mut root = object(ROOT, metaclass, SYSTEM_POLICY, 0);
    root.words = vec![onyx_record::word::NIL; ROOT_METHOD_DICTIONARY + 1];
    root.words[ROOT_METACLASS] = ref_word(metaclass);
    root.words[ROOT_COMPILED_METHOD] = ref_word(compiled_method);
    root.words[ROOT_METHOD_DICTIONARY] = ref_word(method_dictionary);
    let kernel = vec![
        root,
        object(metaclass, thing_class, SYSTEM_POLICY, 0),
        object(compiled_method, thing_class, SYSTEM_POLICY, 0),
        object(method_dictionary, thing_class, SYSTEM_POLICY, 0),
        object(thing_class, metaclass, SYSTEM_POLICY, 0),
        object(thing, thing_class, SYSTEM_POLICY, 0),
    ];
    assert!(matches!(ok(stone.commit(admin, kernel)), CommitOutcome::Committed(_)));
    ok(stone.abort(carol));
    ok(stone.abort(dave));
    let fresh = |session| ok(stone.allocate(session, 2));
    let source = ObjectRecord {
        kind: onyx_record::shape::METHOD,
        words: vec![ref_word(thing), onyx_record::word::NIL, onyx_record::word::NIL],
        bytes: b"foo ^ 1".to_vec(),
        ..object(0, compiled_method, carols, 0)
    };
    let r = fresh(carol);
    let attempts = [
        (ObjectRecord { oop: r.start, ..source.clone() }, "a compiled method"),
        (object(r.start, compiled_method, carols, 0), "a compiled method"),
        (object(r.start, method_dictionary, carols, 0), "a method dictionary"),
        (object(r.start, metaclass, carols, 0), "a metaclass"),
        (object(r.start, thing_class, carols, 0), "a class"),
    ];
    for (record, what) in attempts {
        let why = denied(stone.commit(carol, vec![record]));
        assert!(why.contains(&format!("may not change code, and the commit writes {what}")), "{why}");
    }
    // A class whose metaclass comes in the same commit is a class too.
    let made = vec![object(r.start, metaclass, carols, 0), object(r.start + 1, r.start, carols, 0)];
    assert!(denied(stone.commit(carol, made)).contains("may not change code"));
    // Instances of a class are data, hers to commit; code is a code changer's.
    assert!(matches!(ok(stone.commit(carol, vec![object(r.start, thing, carols, 0)])), CommitOutcome::Committed(_)));
    let r = fresh(dave);
    let daves = ok(stone.user_of(dave)).default_policy;
    let code = vec![object(r.start, metaclass, daves, 0), ObjectRecord { oop: r.start + 1, policy: daves, ..source }];
    assert!(matches!(ok(stone.commit(dave, code)), CommitOutcome::Committed(_)));
}
