//! The object log in the stone: reports are stamped by the stone (not by what the gem says),
//! kept across a restart, read newest first in pages, bounded in size and in number, and
//! read only by their own user.

use onyx_record::log::MAX_LOG_TEXT;
use onyx_record::{About, LogEntry, LogFrame, LogVariable};
use onyx_store::repo::USER_LOG_LIMIT;
use onyx_store::{Stone, StoreError};

fn report(error: &str) -> LogEntry {
    LogEntry {
        // What a gem says of these is not taken.
        id: 99,
        time_micros: 1,
        session: 12345,
        gem: "a gem that lies".into(),
        user: "SomeoneElse".into(),
        error: error.into(),
        process: 7,
        frames: vec![LogFrame {
            label: "Probe>>fail".into(),
            line: 2,
            column: 4,
            step: "1 / 0".into(),
            variables: vec![LogVariable { name: "self".into(), print_string: "a Probe".into(), oop: 4242 }],
        }],
    }
}

#[test]
fn reports_are_stamped_by_the_stone_kept_read_newest_first_and_bounded() -> Result<(), StoreError> {
    let dir = tempfile::tempdir().map_err(|e| StoreError::Storage(e.to_string()))?;
    {
        let stone = Stone::create(dir.path())?;
        stone.add_user(None, "admin", "pw", true, None)?;
        stone.add_user(None, "bob", "pw", false, None)?;
        let (admin, _) = stone.login("admin", "pw")?;
        let about = About {
            user: "admin".into(),
            host: "box".into(),
            pid: 77,
            agent: "127.0.0.1:9".into(),
            suspended: Vec::new(),
            hits: Vec::new(),
        };
        stone.describe(admin, about)?;
        let first = stone.log_failure(admin, report("ZeroDivide: first"))?;
        let second = stone.log_failure(admin, report("ZeroDivide: second"))?;
        assert_eq!((first, second), (1, 2));
        let (entries, total) = stone.object_log(admin, 0, 10)?;
        assert_eq!(total, 2);
        let e = &entries[0];
        assert_eq!((e.id, e.error.as_str()), (2, "ZeroDivide: second"), "the newest first");
        assert_eq!((e.session, e.user.as_str(), e.gem.as_str()), (admin, "admin", "box pid 77 127.0.0.1:9"));
        assert!(e.time_micros > 1_700_000_000_000_000, "the stone's clock: {}", e.time_micros);
        assert_eq!(e.frames, report("").frames, "frames as sent");
        assert_eq!(stone.object_log(admin, 1, 10)?.0.iter().map(|e| e.id).collect::<Vec<_>>(), vec![1]);
        // Past the bounds: refused, and nothing written.
        let mut big = report("x");
        big.frames[0].variables[0].print_string = "y".repeat(MAX_LOG_TEXT + 1);
        assert!(matches!(stone.log_failure(admin, big), Err(StoreError::Invalid(_))));
        assert_eq!(stone.object_log(admin, 0, 10)?.1, 2);
        // Another user reads only their own reports.
        let (bob, _) = stone.login("bob", "pw")?;
        assert_eq!(stone.object_log(bob, 0, 10)?.1, 0);
        assert_eq!(stone.object_log_entry(bob, 1)?, None, "another user's is as absent as none");
        let mine = stone.log_failure(bob, report("Error: bob's"))?;
        let (entries, total) = stone.object_log(bob, 0, 10)?;
        assert_eq!((total, entries[0].id), (1, mine));
        assert_eq!(stone.object_log(admin, 0, 10)?.1, 2, "even one who may change code reads only their own");
        assert_eq!(stone.object_log_entry(admin, mine)?, None);
        assert_eq!(stone.object_log_entry(admin, 404)?, None);
    }
    // Kept across a restart.
    let stone = Stone::open(dir.path())?;
    let (admin, _) = stone.login("admin", "pw")?;
    assert_eq!(stone.object_log_entry(admin, 2)?.map(|e| e.error), Some("ZeroDivide: second".into()));
    // The log keeps each user's newest USER_LOG_LIMIT reports: one user's flood of reports
    // pushes out only their own.
    let (bob, _) = stone.login("bob", "pw")?;
    for i in 0..USER_LOG_LIMIT + 5 {
        stone.log_failure(bob, report(&format!("Error: {i}")))?;
    }
    let (entries, total) = stone.object_log(bob, 0, 1)?;
    assert_eq!(total, USER_LOG_LIMIT);
    assert_eq!(entries[0].error, format!("Error: {}", USER_LOG_LIMIT + 4));
    let (entries, total) = stone.object_log(bob, USER_LOG_LIMIT - 1, 5)?;
    assert_eq!((entries.len(), total), (1, USER_LOG_LIMIT), "paged from the newest");
    assert_eq!(entries[0].error, "Error: 5", "bob's oldest went");
    assert_eq!(stone.object_log(admin, 0, 10)?.1, 2, "the administrator's reports are all there");
    assert_eq!(stone.object_log_entry(admin, 2)?.map(|e| e.error), Some("ZeroDivide: second".into()));
    Ok(())
}
