//! What one user cannot do to another, whatever client they use: Carol, who may not change
//! code, with a raw stone session (no gem to refuse anything first) cannot commit code, move
//! `Published` into a policy of her own, lock what she may not use, or rename herself; failed
//! logins lock out only the name that failed, at its address, and a storm of them costs the
//! stone a queue, not its memory.

use onyx_record::word::{ref_word, symbol_word, word_ref};
use onyx_record::{LockKind, ObjectRecord, Oop, ROOT, StoneError, StoneLink as _};
use onyx_server_agent::stone_client::StoneSession;

use crate::agent::{GemProcess, login, runtime};
use crate::profiles::{ok_as, password, stone_with_users};

fn raw(addr: &str, user: &str) -> StoneSession {
    StoneSession::connect(addr, user, &password(user)).unwrap_or_else(|e| panic!("{user} logs in: {e}"))
}

/// The object `dict` (a SymbolDictionary, `Smalltalk` or `Published`) binds `name` to.
fn bound(raw: &mut StoneSession, dict: Oop, name: &str) -> Oop {
    let id = raw.intern(&[name.as_bytes().to_vec()]).expect("interned")[0];
    let d = raw.fetch(&[dict], &[], 0).expect("the dictionary is readable").remove(0);
    let binding = d.words.chunks(2).find(|kv| kv[0] == symbol_word(id)).unwrap_or_else(|| panic!("no {name}"))[1];
    let binding = raw.fetch(&[word_ref(binding).expect("a binding")], &[], 0).expect("readable").remove(0);
    word_ref(binding.words[1]).expect("an object")
}

fn refused(r: Result<impl std::fmt::Debug, StoneError>, what: &str) -> String {
    match r {
        Err(StoneError::PermissionDenied(why)) => why,
        other => panic!("{what}: not refused: {other:?}"),
    }
}

#[test]
fn a_raw_session_commits_no_code_moves_no_published_and_locks_nothing_it_may_not_use() {
    let (_dir, stone) = stone_with_users();
    let bobs = "| secret | secret := Array with: 'bob''s secret'. \
                secret objectSecurityPolicy: GsObjectSecurityPolicy new. \
                Published at: #BobsSecret put: secret; at: #BobsGlobals put: UserGlobals. System commitTransaction";
    assert_eq!(ok_as(&stone, "bob", bobs), "true");
    let mut carol = raw(&stone.addr, "carol");
    let root = carol.fetch(&[ROOT], &[], 0).expect("the kernel is readable").remove(0);
    let smalltalk = word_ref(root.words[0]).expect("Smalltalk");
    let published = bound(&mut carol, smalltalk, "Published");
    let bobs_globals = bound(&mut carol, published, "BobsGlobals");
    let secret = bound(&mut carol, published, "BobsSecret");
    // Locks: none on what she may not read, no write lock on what she may not change.
    assert!(refused(carol.lock(secret, LockKind::Read), "a read lock on bob's secret").contains("may not read-lock"));
    assert!(refused(carol.lock(bobs_globals, LockKind::Write), "bob's globals").contains("may not write-lock"));
    assert!(refused(carol.lock(ROOT, LockKind::Write), "the root").contains("may not write-lock"));
    assert!(refused(carol.lock(smalltalk, LockKind::Write), "Smalltalk").contains("may not write-lock"));
    // Code: a compiled method, a class (an instance of a metaclass), a metaclass.
    let mine = carol.user().default_policy;
    let at = carol.allocate(3).expect("OOPs").start;
    let object = word_ref(root.words[3]).expect("Object");
    let object_class = carol.fetch(&[object], &[], 0).expect("Object is readable").remove(0).class;
    let selector = carol.intern(&[b"trap".to_vec()]).expect("interned")[0];
    let method = ObjectRecord {
        oop: at,
        class: word_ref(root.words[onyx_record::kernel::ROOT_COMPILED_METHOD]).expect("CompiledMethod"),
        kind: onyx_record::shape::METHOD,
        hash: 1,
        named: 0,
        policy: mine,
        words: vec![ref_word(object), symbol_word(selector), symbol_word(selector)],
        bytes: b"trap ^ Published at: #Leak put: self".to_vec(),
    };
    let class = ObjectRecord {
        oop: at + 1,
        class: object_class,
        kind: 0,
        named: 0,
        words: Vec::new(),
        bytes: Vec::new(),
        ..method.clone()
    };
    let metaclass = ObjectRecord { oop: at + 2, class: word_ref(root.words[7]).expect("Metaclass"), ..class.clone() };
    for (record, what) in [(method, "a compiled method"), (class, "a class"), (metaclass, "a metaclass")] {
        let why = refused(carol.commit(&[record]), what);
        assert!(why.contains(&format!("may not change code, and the commit writes {what}")), "{why}");
    }
    // Published is no one's to move into a policy of their own.
    let mut grabbed = carol.fetch(&[published], &[], 0).expect("Published is readable").remove(0);
    grabbed.policy = mine;
    assert!(refused(carol.commit(&[grabbed]), "Published moved").contains("may not move object"));
    drop(carol);
    // Everyone else goes on as before.
    assert_eq!(ok_as(&stone, "bob", "UserGlobals at: #After put: 1. System commitTransaction"), "true");
    assert_eq!(ok_as(&stone, "dave", "(Published at: #BobsGlobals) at: #After"), "1");
    let leak = "(Published includesKey: #Leak) | (Object includesSelector: #trap)";
    assert_eq!(ok_as(&stone, "bob", leak), "false");
}

#[test]
fn a_user_cannot_rename_themself() {
    let (_dir, stone) = stone_with_users();
    for name in ["'DataCurator'", "#DataCurator", "#bob"] {
        let rename = format!(
            "System myUserProfile instVarAt: 1 put: {name}. [System commitTransaction] on: SecurityError do: [:e | e messageText]"
        );
        let said = ok_as(&stone, "bob", &rename);
        assert!(said.contains("must name its user, #bob") || name == "#bob", "{name}: {said}");
    }
    assert_eq!(ok_as(&stone, "bob", "System myUserProfile userId"), "'bob'");
    let policy = "GsObjectSecurityPolicy new owner";
    assert_eq!(ok_as(&stone, "bob", policy), "'bob'");
}

/// The most memory the stone process has used so far, in bytes.
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().strip_suffix("kB"));
    kb.and_then(|v| v.trim().parse::<u64>().ok()).map_or(0, |kb| kb * 1024)
}

#[test]
fn failed_logins_lock_out_the_name_that_failed_alone_in_bounded_memory() {
    let (_dir, stone) = stone_with_users();
    let before = peak_memory(stone.pid());
    // A storm of logins for names that do not exist, all at once.
    let storm: Vec<_> = (0..100)
        .map(|i| {
            let addr = stone.addr.clone();
            std::thread::spawn(move || StoneSession::connect(&addr, &format!("nobody{i}"), "guess").err())
        })
        .collect();
    for t in storm {
        assert!(matches!(t.join().expect("a login"), Some(StoneError::PermissionDenied(_))));
    }
    let grown = peak_memory(stone.pid()).saturating_sub(before);
    assert!(grown < 200 << 20, "100 password checks at once took the stone {} MB more", grown >> 20);
    // Carol guessing at DataCurator's password locks out her guesses, not DataCurator, nor
    // anyone else here.
    let mut last = String::new();
    for _ in 0..7 {
        last = StoneSession::connect(&stone.addr, "carol", "guess").err().map(|e| e.to_string()).unwrap_or_default();
    }
    assert!(last.contains("too many failed logins for user carol"), "{last}");
    StoneSession::connect(&stone.addr, "DataCurator", "swordfish").expect("DataCurator is not locked out");
    raw(&stone.addr, "bob");
    // A gem's agent relays its logins from the gem's address: failures there lock out the
    // name that failed, not the gem's own user.
    let bobs_gem = GemProcess::start_as(&stone, "bob", &password("bob"));
    runtime().block_on(async {
        for _ in 0..7 {
            assert!(login(&bobs_gem, "DataCurator", "guess").await.is_err());
        }
        login(&bobs_gem, "bob", &password("bob")).await.expect("bob still logs in to his gem");
    });
}

/// `onyx CMD ARGS --gem GEM` as `user`; whether it succeeded, and what it printed.
fn onyx_as(gem: &GemProcess, user: &str, password: &str, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(onyx_tests::onyx())
        .args(args)
        .args(["--gem", &gem.addr])
        .env("ONYX_USER", user)
        .env("ONYX_PASSWORD", password)
        .output()
        .expect("onyx runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn an_administrator_lists_and_removes_any_sessions_locks_and_stops_sessions() {
    let (_dir, stone) = stone_with_users();
    assert_eq!(ok_as(&stone, "bob", "UserGlobals at: #Account put: (Array with: 0). System commitTransaction"), "true");
    // Carol's raw session says it is DataCurator's and read-locks Bob's account.
    let mut carol = raw(&stone.addr, "carol");
    carol.describe(&onyx_record::About { user: "DataCurator".into(), ..Default::default() }).expect("described");
    let bobs_profile = raw(&stone.addr, "bob").user().profile;
    carol.lock(bobs_profile, LockKind::Read).expect("she may read it");
    let carols = carol.session();
    let curators_gem = GemProcess::start(&stone);
    let bobs_gem = GemProcess::start_as(&stone, "bob", &password("bob"));
    // The list says who each session is as the stone checked it, not as it says itself.
    let (ok, out, err) = onyx_as(&curators_gem, "DataCurator", "swordfish", &["sessions", "--locks"]);
    assert!(ok, "{err}");
    let line = out.lines().find(|l| l.starts_with(&format!("{carols} "))).unwrap_or_else(|| panic!("{out}"));
    assert!(line.starts_with(&format!("{carols} carol ")) && line.contains("1 locks"), "{out}");
    assert!(out.contains(&format!("session {carols}: read lock on object {bobs_profile}")), "{out}");
    // Bob may not do it; DataCurator (an administrator) may.
    let (ok, _, err) = onyx_as(&bobs_gem, "bob", &password("bob"), &["remove-locks", &carols.to_string()]);
    assert!(!ok && err.contains("only an administrator"), "{err}");
    let (ok, _, err) = onyx_as(&bobs_gem, "bob", &password("bob"), &["stop-session", &carols.to_string()]);
    assert!(!ok && err.contains("only an administrator"), "{err}");
    let (ok, out, err) = onyx_as(&curators_gem, "DataCurator", "swordfish", &["remove-locks", &carols.to_string()]);
    assert!(ok && out.contains("held 1 locks"), "{out}{err}");
    carol.lock(bobs_profile, LockKind::Read).expect("locked again");
    let (ok, out, err) = onyx_as(&curators_gem, "DataCurator", "swordfish", &["stop-session", &carols.to_string()]);
    assert!(ok && out.contains("stopped"), "{out}{err}");
    // Her session is gone, its locks with it: Bob commits his profile again.
    let gone = carol.sessions();
    assert!(gone.is_err(), "the stopped session still answers: {gone:?}");
    let changed = "System myUserProfile symbolList: System myUserProfile symbolList copy. System commitTransaction";
    assert_eq!(ok_as(&stone, "bob", changed), "true");
    let (ok, _, err) = onyx_as(&curators_gem, "DataCurator", "swordfish", &["stop-session", "999999"]);
    assert!(!ok && err.contains("no session 999999"), "{err}");
}
