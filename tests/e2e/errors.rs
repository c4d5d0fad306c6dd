//! A caller tells the stone's failures apart. Through a gem's session with its stone (the
//! VM's `StoneLink`) each comes as the `StoneError` of its kind: a denied lock naming the
//! lock, a request the stone refused, damaged data, a stone that is gone. Through a gem's
//! agent each comes with an error code of its own (LOCK_DENIED, UNAVAILABLE,
//! PERMISSION_DENIED, REPOSITORY), where once they all read as a repository error.

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_record::{LockKind, StoneError, StoneLink as _};

use crate::agent::{GemProcess, client, error, evaluate, execute, login, op, repository, runtime};
use crate::stone::{StoneProcess, int, record, seed};

#[test]
fn a_gems_session_tells_a_denied_lock_a_refused_request_damage_and_a_gone_stone_apart() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    let stone = StoneProcess::start(&repo);
    let (class, counter) = seed(&stone);
    let mut a = crate::stone::connect(&stone.addr).expect("session a");
    let mut b = crate::stone::connect(&stone.addr).expect("session b");
    a.lock(counter, LockKind::Write).expect("a locks");
    let denied = b.lock(counter, LockKind::Read).expect_err("b is denied");
    assert_eq!(denied, StoneError::LockDenied { oop: counter, holder: a.session(), kind: LockKind::Write });
    let refused = b.commit(&[record(123_456_789, class, vec![int(1)])]).expect_err("an unknown object");
    assert!(matches!(refused, StoneError::Invalid(ref m) if m.contains("123456789")), "{refused:?}");
    drop((a, b));
    assert!(stone.stop(), "the stone stops cleanly");

    // A record damaged on disk is reported as damage, not absorbed.
    {
        let db = redb::Database::open(repo.join(onyx_store::repo::FILE)).expect("the repository opens");
        let txn = db.begin_write().expect("a write");
        {
            let table: redb::TableDefinition<u64, &[u8]> = redb::TableDefinition::new("objects");
            let mut objects = txn.open_table(table).expect("the object table");
            objects.insert(counter, [9u8, 9, 9].as_slice()).expect("a damaged record");
        }
        txn.commit().expect("committed");
    }
    let mut stone = StoneProcess::serve(&repo);
    let mut c = crate::stone::connect(&stone.addr).expect("session c");
    let damaged = c.fetch(&[counter], &[], 0).expect_err("a damaged record");
    assert!(matches!(damaged, StoneError::Damaged(ref m) if m.contains("damaged")), "{damaged:?}");

    // A stone that is gone is unavailable, whatever was asked.
    stone.kill();
    let gone = c.lock(counter, LockKind::Write).expect_err("no stone");
    assert!(matches!(gone, StoneError::Unavailable(_)), "{gone:?}");
    let unreachable = crate::stone::connect(&stone.addr).err().expect("nothing listens");
    assert!(matches!(unreachable, StoneError::Unavailable(_)), "{unreachable:?}");
}

fn code(outcome: &Outcome) -> pb::Code {
    pb::Code::try_from(error(outcome).code).unwrap_or(pb::Code::Unspecified)
}

#[test]
fn a_gems_agent_answers_each_kind_of_repository_failure_with_a_code_of_its_own() {
    let (_dir, mut stone) = repository();
    let (holders_gem, gem) = (GemProcess::start(&stone), GemProcess::start(&stone));
    runtime().block_on(async {
        let mut holder = client(&holders_gem).await;
        crate::agent::add_reader(&mut holder).await;
        // #Far is a list longer than a fault brings in at once: the other gem will not have
        // all of it in memory when the stone goes.
        let far = "| list | list := nil. 1 to: 20000 do: [:i | list := Array with: i with: list]. \
                   UserGlobals at: #Far put: list. System commitTransaction";
        let locked = "UserGlobals at: #Locked put: (Array new: 1). System commitTransaction";
        let out = execute(&mut holder, vec![evaluate(far), evaluate(locked)]).await;
        for made in &out {
            assert!(matches!(made, Outcome::Evaluated(e) if e.print_string == "true"), "{made:?}");
        }
        // Held until the holder commits or aborts.
        let out = execute(&mut holder, vec![evaluate("System writeLock: (UserGlobals at: #Locked)")]).await;
        assert!(matches!(&out[0], Outcome::Evaluated(_)), "{:?}", out[0]);

        let mut agent = client(&gem).await;
        let out = execute(
            &mut agent,
            vec![
                op(Op::AbortTransaction(pb::Empty {})),
                evaluate("System writeLock: (UserGlobals at: #Locked)"),
                evaluate("System readLock: Object new"),
                evaluate("1 / 0"),
                evaluate("[System writeLock: (UserGlobals at: #Locked)] on: LockError do: [:e | e class name]"),
            ],
        )
        .await;
        assert_eq!(code(&out[1]), pb::Code::LockDenied, "{:?}", out[1]);
        assert!(error(&out[1]).message.contains("denied"), "{:?}", out[1]);
        assert_eq!(code(&out[2]), pb::Code::Repository, "{:?}", out[2]);
        assert_eq!(code(&out[3]), pb::Code::SmalltalkError, "{:?}", out[3]);
        assert!(matches!(&out[4], Outcome::Evaluated(e) if e.print_string == "#LockError"), "{:?}", out[4]);

        // A user who may not change code, committing code.
        let readers_gem = GemProcess::start_as(&stone, "reader", "secret");
        let mut reader = login(&readers_gem, "reader", "secret").await.expect("the reader logs in");
        let made = "UserGlobals at: #Made put: MethodDictionary new. System commitTransaction";
        let out = execute(&mut reader, vec![evaluate(made), op(Op::CommitTransaction(pb::Empty {}))]).await;
        assert_eq!(code(&out[0]), pb::Code::PermissionDenied, "{:?}", out[0]);
        assert_eq!(code(&out[1]), pb::Code::PermissionDenied, "{:?}", out[1]);

        // The stone gone: an object not brought in yet cannot be, and the gem's commit cannot
        // happen; both say so.
        stone.kill();
        let out = execute(
            &mut agent,
            vec![
                evaluate("| n | n := UserGlobals at: #Far. [n notNil] whileTrue: [n := n at: 2]. n"),
                evaluate("UserGlobals at: #After put: 1. System commitTransaction"),
            ],
        )
        .await;
        assert_eq!(code(&out[0]), pb::Code::Unavailable, "{:?}", out[0]);
        assert!(error(&out[0]).message.contains("could not be faulted in"), "{:?}", out[0]);
        assert_eq!(code(&out[1]), pb::Code::Unavailable, "{:?}", out[1]);
    });
}
