//! The agent's version operations over gRPC, as the IDE's package-version browser uses them:
//! a package saved as a new `.mcz` version (made from the version the code came from), a
//! version loaded into another gem, two states compared (a version and a gem's code), and a
//! version merged into a gem's code: told first (what comes in, every conflict with its three
//! texts), refused while a conflict is unsettled or settled by text that does not fit, then
//! applied with a conflict settled by text edited by hand, the result made from both versions;
//! and a load telling its own login, and no other, how far it has come.

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::agent::{GemProcess, client, error, execute, op, repository, runtime};
use crate::packages::{data, eval, onyx};

const PACKAGE: &str = "Shop-Core";

/// The operations on the repository at `path`.
struct Ops {
    path: String,
}

impl Ops {
    fn save(&self, author: &str, message: &str) -> pb::Operation {
        op(Op::RepositorySave(pb::SaveVersion {
            path: self.path.clone(),
            package: PACKAGE.into(),
            message: message.into(),
            author: author.into(),
        }))
    }

    fn load(&self, version: &str) -> pb::Operation {
        op(Op::RepositoryLoad(pb::RepositoryVersion {
            path: self.path.clone(),
            package: PACKAGE.into(),
            version: version.into(),
        }))
    }

    /// A version of the repository, or the gem's code with no version.
    fn side(&self, version: &str) -> Option<pb::PackageSide> {
        let path = if version.is_empty() { String::new() } else { self.path.clone() };
        Some(pb::PackageSide { path, package: PACKAGE.into(), version: version.into() })
    }

    fn compare(&self, left: &str, right: &str) -> pb::Operation {
        op(Op::ComparePackages(pb::ComparePackages { left: self.side(left), right: self.side(right) }))
    }

    fn merge(&self, resolutions: Vec<pb::MergeResolution>, apply: bool) -> pb::Operation {
        op(Op::RepositoryMerge(pb::MergeVersion {
            path: self.path.clone(),
            package: PACKAGE.into(),
            version: "Shop-Core-cd.3".into(),
            resolutions,
            apply,
        }))
    }
}

fn names(outcome: &Outcome) -> Vec<String> {
    match outcome {
        Outcome::Versions(list) => list.versions.iter().map(|v| v.name.clone()).collect(),
        other => panic!("{other:?}"),
    }
}

fn merged(outcome: &Outcome) -> &pb::Merged {
    match outcome {
        Outcome::Merged(m) => m,
        other => panic!("{other:?}"),
    }
}

fn edited(text: &str) -> Vec<pb::MergeResolution> {
    let take = Some(pb::merge_resolution::Take::Edited(text.into()));
    vec![pb::MergeResolution { definition: "Shop>>total".into(), take }]
}

#[test]
fn the_agent_saves_loads_compares_and_merges_versions_with_conflicts_settled_by_hand() {
    let (dir, stone) = repository();
    let ours = GemProcess::start(&stone);
    let (ok, _, err) = onyx(Some(&ours), &["load", &data().join(PACKAGE).display().to_string()]);
    assert!(ok, "{err}");
    let mcz = dir.path().join("mcz");
    std::fs::create_dir_all(&mcz).unwrap();
    let ops = Ops { path: mcz.display().to_string() };
    let rt = runtime();
    let mut agent = rt.block_on(client(&ours));
    let out = rt.block_on(execute(&mut agent, vec![ops.save("ab", "first"), ops.save("", "by nobody")]));
    assert_eq!(names(&out[0]), ["Shop-Core-ab.1"]);
    assert_eq!(error(&out[1]).code, pb::Code::Invalid as i32, "{:?}", out[1]);
    eval(&ours, "Shop compile: 'total ^ 1' classified: 'accessing'");
    let out = rt.block_on(execute(&mut agent, vec![ops.save("ab", "second"), ops.compare("Shop-Core-ab.2", "")]));
    assert_eq!(names(&out[0]), ["Shop-Core-ab.2"]);
    let Outcome::Changes(changes) = &out[1] else { panic!("{:?}", out[1]) };
    assert_eq!(changes.changes.len(), 0, "the gem's code is the version just saved: {changes:?}");
    let out = rt.block_on(execute(&mut agent, vec![ops.compare("Shop-Core-ab.1", "Shop-Core-ab.2")]));
    let Outcome::Changes(changes) = &out[0] else { panic!("{:?}", out[0]) };
    assert_eq!(changes.changes.len(), 1, "{changes:?}");
    let total = &changes.changes[0];
    assert_eq!(total.definition, "Shop>>total");
    assert!(total.after.as_deref().is_some_and(|t| t.ends_with("total ^ 1")), "{total:?}");

    // Another repository's gem loads the first version and changes it its own way.
    let (_their_dir, their_stone) = repository();
    let theirs = GemProcess::start(&their_stone);
    let mut their_agent = rt.block_on(client(&theirs));
    let out = rt.block_on(execute(&mut their_agent, vec![ops.load("Shop-Core-ab.1"), ops.load("Shop-Core-zz.9")]));
    assert!(matches!(&out[0], Outcome::Loaded(l) if l.unchanged == 0 && l.methods_compiled > 0), "{:?}", out[0]);
    assert_eq!(error(&out[1]).code, pb::Code::NotFound as i32, "{:?}", out[1]);
    eval(
        &theirs,
        "Shop compile: 'total ^ 7' classified: 'accessing'. Item compile: 'printOn: aStream aStream nextPutAll: name' classified: 'printing'. Shop removeSelector: #owner",
    );
    let out = rt.block_on(execute(&mut their_agent, vec![ops.save("cd", "theirs")]));
    assert_eq!(names(&out[0]), ["Shop-Core-cd.3"]);

    // Told: what comes in, and the conflict with its three texts; nothing changes.
    let out = rt.block_on(execute(&mut agent, vec![ops.merge(Vec::new(), false)]));
    let told = merged(&out[0]);
    assert_eq!(
        (told.ours.as_str(), told.theirs.as_str(), told.base.as_str()),
        ("Shop-Core-ab.2", "Shop-Core-cd.3", "Shop-Core-ab.1")
    );
    let incoming: Vec<(&str, i32)> = told.incoming.iter().map(|c| (c.definition.as_str(), c.kind)).collect();
    assert!(incoming.contains(&("Shop>>owner", pb::ChangeKind::Removed as i32)), "{incoming:?}");
    assert!(incoming.iter().any(|(d, _)| *d == "Item>>printOn:"), "{incoming:?}");
    assert_eq!(told.conflicts.len(), 1, "{told:?}");
    let conflict = &told.conflicts[0];
    assert_eq!(conflict.definition, "Shop>>total");
    assert!(conflict.editable && conflict.base.is_some(), "{conflict:?}");
    assert!(conflict.ours.as_deref().is_some_and(|t| t.ends_with("^ 1")), "{conflict:?}");
    assert!(conflict.theirs.as_deref().is_some_and(|t| t.ends_with("^ 7")), "{conflict:?}");
    assert!(told.loaded.is_none());

    // Refused while unsettled, or settled by text that is another method: nothing changes.
    let out = rt.block_on(execute(&mut agent, vec![ops.merge(Vec::new(), true), ops.merge(edited("sum ^ 8"), true)]));
    assert!(error(&out[0]).message.contains("Shop>>total"), "{:?}", out[0]);
    assert!(error(&out[1]).message.contains("the edited method is sum, not total"), "{:?}", out[1]);
    assert_eq!(eval(&ours, "Shop new total"), "1");
    assert_eq!(eval(&ours, "Shop includesSelector: #owner"), "true");

    // Settled by hand: the edited text, byte for byte, with what came in from their side.
    let by_hand = "total\n\t\"Ours and theirs.\"\n\t^ 1 + 7";
    let out = rt.block_on(execute(&mut agent, vec![ops.merge(edited(by_hand), true)]));
    let applied = merged(&out[0]);
    assert!(applied.loaded.as_ref().is_some_and(|l| l.methods_removed == 1), "{applied:?}");
    assert_eq!(eval(&ours, "Shop new total"), "8");
    assert_eq!(
        eval(
            &ours,
            "(Shop >> #total) sourceCode = ('total' , (String with: Character lf with: Character tab) , '\"Ours and theirs.\"' , (String with: Character lf with: Character tab) , '^ 1 + 7')"
        ),
        "true"
    );
    assert_eq!(eval(&ours, "Shop includesSelector: #owner"), "false");
    assert_eq!(eval(&ours, "(Item named: 'pen' price: 3) printString"), "'pen'");

    // The next version is made from both.
    let versions = pb::Operation {
        op: Some(Op::RepositoryVersions(pb::RepositoryRef { path: ops.path.clone(), package: PACKAGE.into() })),
        page: Some(pb::Page { from: 0, size: 1 }),
    };
    let out = rt.block_on(execute(&mut agent, vec![ops.save("ab", "merged"), versions]));
    assert_eq!(names(&out[0]), ["Shop-Core-ab.4"]);
    let Outcome::Versions(list) = &out[1] else { panic!("{:?}", out[1]) };
    assert_eq!(list.versions[0].ancestors.len(), 2, "{list:?}");
}

/// The steps a stream of events told, up to the transcript's `done`: each progress event as
/// (step, done, total).
async fn progress_until_done(events: &mut tonic::Streaming<pb::Event>) -> Vec<(String, u64, u64)> {
    let mut told = Vec::new();
    loop {
        let next = tokio::time::timeout(std::time::Duration::from_secs(10), events.message()).await;
        match next.expect("an event in time").expect("the stream is open").and_then(|e| e.event) {
            Some(pb::event::Event::Progress(p)) => told.push((p.step, p.done, p.total)),
            Some(pb::event::Event::Transcript(text)) if text.contains("done") => return told,
            _ => {}
        }
    }
}

#[test]
fn a_load_tells_its_own_login_how_far_it_has_come_and_no_other() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let read = onyx_vm::source::read_packages(&data()).expect("the fixture reads");
    let packages = read.iter().map(|p| onyx_server_agent::packages::loadable(p, "", "shop", &[])).collect();
    runtime().block_on(async {
        let mut loader = client(&gem).await;
        let mut bystander = client(&gem).await;
        let mut told = loader.events(pb::EventsRequest {}).await.expect("events").into_inner();
        let mut overheard = bystander.events(pb::EventsRequest {}).await.expect("events").into_inner();
        let out = execute(&mut loader, vec![op(Op::LoadPackages(pb::LoadPackages { packages }))]).await;
        assert!(matches!(out[0], Outcome::Loaded(_)), "{:?}", out[0]);
        execute(&mut loader, vec![crate::agent::evaluate("Transcript show: 'done'. 1")]).await;

        let told = progress_until_done(&mut told).await;
        assert_eq!(told.first(), Some(&("checking methods".to_string(), 0, 15)), "{told:?}");
        let mut steps: Vec<&str> = told.iter().map(|(step, ..)| step.as_str()).collect();
        steps.dedup();
        let expected =
            ["checking methods", "installing methods", "recording the packages", "running class-side initializers"];
        assert_eq!(steps, expected);
        assert!(told.iter().all(|(_, done, total)| done < total || *total == 0), "{told:?}");
        assert_eq!(progress_until_done(&mut overheard).await, vec![], "another login hears none of it");
    });
}
