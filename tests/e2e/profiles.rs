//! Users' own globals and object security policies, with a real stone and real gems: each
//! user has a `UserGlobals` of their own (their `UserProfile`'s, at an OOP the stone reserves
//! for them, made by their first session even when several start at once); `Published` is
//! everyone's, and so is what is kept in it; policies made in Smalltalk say who reads and
//! writes what, and the stone holds to them.

use std::process::{Child, Command, Output, Stdio};

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::agent::{GemProcess, client, execute, op, repository, runtime};
use crate::stone::StoneProcess;

/// Starts `onyx eval --stone` on `code` as `user` (whose password is their name reversed).
fn spawn_as(stone: &StoneProcess, user: &str, code: &str) -> Child {
    Command::new(onyx_tests::onyx())
        .args(["eval", "--stone", &stone.addr, code])
        .env_remove("ONYX_KERNEL")
        .env("ONYX_USER", user)
        .env("ONYX_PASSWORD", password(user))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("onyx eval starts")
}

pub(crate) fn password(user: &str) -> String {
    user.chars().rev().collect()
}

/// What `code` printed as `user`, and whether it ran without an error (with what it said).
fn eval_as(stone: &StoneProcess, user: &str, code: &str) -> (bool, String, String) {
    let Output { status, stdout, stderr } = spawn_as(stone, user, code).wait_with_output().expect("onyx eval ends");
    (status.success(), String::from_utf8_lossy(&stdout).trim().to_string(), String::from_utf8_lossy(&stderr).into())
}

/// What `code` printed as `user`, failing on an error.
pub(crate) fn ok_as(stone: &StoneProcess, user: &str, code: &str) -> String {
    let (ok, out, err) = eval_as(stone, user, code);
    assert!(ok, "{user}: {code}\nfailed: {err}");
    out
}

/// A stone with users `bob`, `carol` (in the group Payroll) and `dave`, who may not change
/// code.
pub(crate) fn stone_with_users() -> (tempfile::TempDir, StoneProcess) {
    let (dir, stone) = repository();
    let curators_gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut curator = client(&curators_gem).await;
        for user in ["bob", "carol", "dave"] {
            let groups = if user == "carol" { vec!["Payroll".to_string()] } else { Vec::new() };
            let add = pb::AddUser { user: user.into(), password: password(user), may_change_code: false, groups };
            let out = execute(&mut curator, vec![op(Op::AddUser(add))]).await;
            assert!(matches!(out[0], Outcome::Done(_)), "{:?}", out[0]);
        }
    });
    (dir, stone)
}

#[test]
fn each_user_keeps_their_own_user_globals_and_shares_through_published() {
    let (_dir, stone) = stone_with_users();
    let bobs = "UserGlobals at: #Mine put: 'bob''s'. Published at: #Notes put: (OrderedCollection with: 'from bob'). \
                Published at: #BobsGlobals put: UserGlobals. System commitTransaction";
    assert_eq!(ok_as(&stone, "bob", bobs), "true");
    assert_eq!(ok_as(&stone, "carol", "UserGlobals at: #Mine ifAbsent: [#none]"), "#none");
    assert_eq!(ok_as(&stone, "carol", "System myUserProfile printString"), "'a UserProfile(carol)'");
    // What is kept in Published is everyone's to change, its parts too (the collection's
    // array grows into a new one).
    let carols = "UserGlobals at: #Mine put: 'carol''s'. 1 to: 40 do: [:i | (Published at: #Notes) add: i]. \
                  System commitTransaction";
    assert_eq!(ok_as(&stone, "carol", carols), "true");
    // A doit finds a name in the user's own UserGlobals, then in Smalltalk, then in Published.
    assert_eq!(ok_as(&stone, "bob", "Mine , ' ' , Notes size printString"), "'bob''s 41'");
    assert_eq!(ok_as(&stone, "carol", "Mine"), "'carol''s'");
    // Bob's own globals are everyone's to read and his alone to change.
    let meddle = "(Published at: #BobsGlobals) at: #Mine put: 'carol was here'. \
                  [System commitTransaction] on: SecurityError do: [:e | e messageText]";
    let said = ok_as(&stone, "carol", meddle);
    assert!(said.contains("may not change object"), "{said}");
    assert_eq!(ok_as(&stone, "carol", "(Published at: #BobsGlobals) at: #Mine"), "'bob''s'");
    assert_eq!(ok_as(&stone, "bob", "Mine"), "'bob''s'");
}

#[test]
fn policies_made_in_smalltalk_say_who_reads_and_writes_and_the_stone_holds_to_them() {
    let (_dir, stone) = stone_with_users();
    let made = "| board secret | board := OrderedCollection new. board objectSecurityPolicy: GsObjectSecurityPolicy new. \
                board objectSecurityPolicy worldAuthorization: #write. \
                secret := Array with: 42. secret objectSecurityPolicy: GsObjectSecurityPolicy new. \
                Published at: #Board put: board; at: #Secret put: secret. System commitTransaction. \
                {board objectSecurityPolicy owner. board objectSecurityPolicy worldAuthorization. \
                secret objectSecurityPolicy worldAuthorization}";
    assert_eq!(ok_as(&stone, "bob", made), "#('bob' #write #none)");
    // Carol writes the board, growing it, and Bob takes from it.
    let add = "1 to: 100 do: [:i | (Published at: #Board) add: i]. System commitTransaction";
    assert_eq!(ok_as(&stone, "carol", add), "true");
    let take = "(Published at: #Board) removeFirst. System commitTransaction. (Published at: #Board) size";
    assert_eq!(ok_as(&stone, "bob", take), "99");
    // Carol may not change Bob's policy, nor give a policy to him.
    let change = "[(Published at: #Board) objectSecurityPolicy worldAuthorization: #read] \
                  on: SecurityError do: [:e | e messageText]";
    assert!(ok_as(&stone, "carol", change).contains("may not change policy"));
    // What she may not read never reaches her gem, until Bob lets her group read it.
    let (ok, _, err) = eval_as(&stone, "carol", "(Published at: #Secret) first");
    assert!(!ok && err.contains("may not read"), "{err}");
    let payroll = "(Published at: #Secret) objectSecurityPolicy group: 'Payroll' authorization: #read. \
                   (Published at: #Secret) objectSecurityPolicy authorizationForGroup: 'Payroll'";
    assert_eq!(ok_as(&stone, "bob", payroll), "#read");
    assert_eq!(ok_as(&stone, "carol", "(Published at: #Secret) first"), "42");
    let (ok, _, err) = eval_as(&stone, "dave", "(Published at: #Secret) first");
    assert!(!ok && err.contains("may not read"), "dave is in no group: {err}");
    // Once Bob lets the world only read the board, her change is refused at commit.
    assert_eq!(ok_as(&stone, "bob", "(Published at: #Board) objectSecurityPolicy worldAuthorization: #read. 1"), "1");
    let refused =
        "(Published at: #Board) add: 0. [System commitTransaction] on: SecurityError do: [:e | e messageText]";
    assert!(ok_as(&stone, "carol", refused).contains("may not change object"));
    // Nor can she move his object into her own policy, or his policy's objects into it.
    let moved = "(Published at: #Board) objectSecurityPolicy: System myUserProfile objectSecurityPolicy. \
                 [System commitTransaction] on: SecurityError do: [:e | e messageText]";
    assert!(ok_as(&stone, "carol", moved).contains("may not change object"));
    assert_eq!(ok_as(&stone, "bob", "(Published at: #Board) size"), "99");
    // Policies that are not, and arguments that are none, are clear errors.
    let bad = [
        ("(GsObjectSecurityPolicy id: 999) owner", "there is no policy 999"),
        ("(GsObjectSecurityPolicy id: 'x') owner", "id is a SmallInteger"),
        ("Object new primObjectSecurityPolicyId: -1", "id is a SmallInteger"),
        ("GsObjectSecurityPolicy new worldAuthorization: #everything", "is no authorization"),
        ("GsObjectSecurityPolicy primDefine: nil owner: 'bob' ownerAccess: 2 worldAccess: 9 groups: #()", "an access"),
        ("GsObjectSecurityPolicy primDefine: nil owner: 'bob' ownerAccess: 2 worldAccess: 0 groups: #(1)", "groups"),
        ("GsObjectSecurityPolicy primDefine: nil owner: 3 ownerAccess: 2 worldAccess: 0 groups: #()", "owner"),
        ("3 objectSecurityPolicy: nil", "belongs to no security policy"),
    ];
    for (code, expected) in bad {
        let said = ok_as(&stone, "bob", &format!("[{code}] on: Error do: [:e | e messageText]"));
        assert!(said.contains(expected), "{code}: {said}");
    }
}

#[test]
fn a_new_users_first_sessions_make_one_profile_between_them() {
    let (_dir, stone) = stone_with_users();
    let first: Vec<Child> =
        (0..4).map(|i| spawn_as(&stone, "dave", &format!("UserGlobals at: #Seen{i} put: {i}. 0"))).collect();
    for child in first {
        let out = child.wait_with_output().expect("onyx eval ends");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let kept = "UserGlobals at: #Kept put: 7. System commitTransaction";
    assert_eq!(ok_as(&stone, "dave", kept), "true");
    assert_eq!(ok_as(&stone, "dave", "Kept + (UserGlobals size)"), "9", "Kept and UserGlobals itself");
}
