//! Packages in and out of a real gem with `onyx load` and `onyx save`: Tonel packages in
//! Pharo's own layout load, commit (another gem sees them) and save back the same bytes; the
//! FileTree and Monticello forms of what the gem holds read back to the same definitions; a
//! load with problems reports each with its file and line and loads nothing; an update
//! removes what the package no longer holds; the gem remembers versions and what changed
//! since; versions saved as git commits and as `.mcz` files are listed with their ancestry;
//! a version merges into a gem's code three ways, its conflicts listed or settled.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::agent::{GemProcess, repository};

pub(crate) fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("e2e/data/shop")
}

/// Runs `onyx ARGS` (with `--gem ADDR` when a gem is given): (success, stdout, stderr).
pub(crate) fn onyx(gem: Option<&GemProcess>, args: &[&str]) -> (bool, String, String) {
    let mut command = Command::new(onyx_tests::onyx());
    command.args(args);
    if let Some(gem) = gem {
        command.args(["--gem", &gem.addr]);
    }
    let out = command.output().expect("onyx runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

pub(crate) fn eval(gem: &GemProcess, code: &str) -> String {
    let (ok, out, err) = onyx(Some(gem), &["eval", code]);
    assert!(ok, "{code}: {err}");
    out.trim().to_string()
}

/// Every file under `dir`, as (path inside it, bytes), sorted.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).expect("a folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("a file");
                out.push((path.strip_prefix(dir).expect("inside").to_path_buf(), bytes));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn tonel_packages_load_commit_and_save_back_the_same_bytes() {
    let (dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let shop = data();
    let (ok, out, err) = onyx(Some(&gem), &["load", &shop.display().to_string(), "--commit"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("loaded Shop-Core, Shop-Tests: 3 classes defined, 15 methods compiled"), "{out}");
    assert!(out.contains("committed"), "{out}");
    // The class-side initialize ran; the code runs; another gem sees it all.
    assert_eq!(eval(&gem, "Shop opened"), "0");
    assert_eq!(eval(&gem, "(Shop owner: 'ann') add: (Item named: 'pen' price: 3); total"), "3");
    let other = GemProcess::start(&stone);
    assert_eq!(
        eval(&other, "((Shop owner: 'bo') add: 2 items first; yourself) items first printString"),
        "'item 1 at 1'"
    );
    assert_eq!(
        eval(&other, "(ShopTest selector: #testTotal) run printString"),
        "'1 run, 1 passes, 0 failures, 0 errors'"
    );

    // Saved back as Tonel: the same bytes as the files loaded.
    let out_dir = dir.path().join("saved");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::copy(shop.join(".properties"), out_dir.join(".properties")).unwrap();
    let to = out_dir.display().to_string();
    let (ok, out, err) = onyx(Some(&gem), &["save", "Shop-Core", "Shop-Tests", "--to", &to]);
    assert!(ok, "{out}{err}");
    assert_eq!(files(&out_dir), files(&shop));

    // FileTree and Monticello: written, then read back to the same definitions.
    for format in ["filetree", "mcz"] {
        let (ok, out, err) =
            onyx(Some(&gem), &["save", "Shop-Core", "--to", &to, "--format", format, "--author", "ab"]);
        assert!(ok, "{out}{err}");
    }
    let core = out_dir.join("Shop-Core");
    for written in [out_dir.join("Shop-Core.package"), out_dir.join("Shop-Core-ab.1.mcz")] {
        let (same, out, err) = onyx(None, &["diff", &core.display().to_string(), &written.display().to_string()]);
        assert!(same, "{}: {out}{err}", written.display());
    }
    // A second Monticello version has the first as its ancestor.
    let (ok, _, err) = onyx(Some(&gem), &["save", "Shop-Core", "--to", &to, "--format", "mcz", "--author", "ab"]);
    assert!(ok, "{err}");
    let second = onyx_vm::source::monticello::read(&out_dir.join("Shop-Core-ab.2.mcz")).unwrap();
    assert_eq!(second.info.ancestors.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["Shop-Core-ab.1"]);
}

#[test]
fn a_load_with_problems_loads_nothing_and_names_each() {
    let (dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let broken = dir.path().join("broken");
    copy_tree(&data(), &broken);
    let shop = broken.join("Shop-Core/Shop.class.st");
    let text = std::fs::read_to_string(&shop).unwrap().replace("^ self items add: anItem", "^ self items add:");
    std::fs::write(&shop, text).unwrap();
    let item = broken.join("Shop-Core/Item.class.st");
    let text = std::fs::read_to_string(&item).unwrap().replace("#superclass : #Object", "#superclass : #Thing");
    std::fs::write(&item, text).unwrap();
    let (ok, out, err) = onyx(Some(&gem), &["load", &broken.display().to_string()]);
    assert!(!ok, "{out}");
    let item_at = format!("{}:1: superclass Thing of Item is not defined", item.display());
    let shop_at = format!("{}:39: ", shop.display());
    assert!(err.contains(&item_at) && err.contains(&shop_at) && err.contains("nothing was loaded"), "{err}");
    assert_eq!(eval(&gem, "Smalltalk includesKey: #Shop"), "false");
    assert_eq!(eval(&gem, "3 respondsTo: #items"), "false");
}

#[test]
fn an_update_removes_what_the_package_no_longer_holds() {
    let (dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let (ok, _, err) = onyx(Some(&gem), &["load", &data().join("Shop-Core").display().to_string()]);
    assert!(ok, "{err}");
    let next = dir.path().join("next");
    copy_tree(&data().join("Shop-Core"), &next.join("Shop-Core"));
    std::fs::remove_file(next.join("Shop-Core/Integer.extension.st")).unwrap();
    let shop = next.join("Shop-Core/Shop.class.st");
    let text = std::fs::read_to_string(&shop).unwrap().replace("sum + each price", "sum + (each price * 2)");
    std::fs::write(&shop, text).unwrap();
    let (ok, out, err) = onyx(Some(&gem), &["load", &next.join("Shop-Core").display().to_string()]);
    assert!(ok, "{err}");
    assert!(
        out.contains("0 classes defined, 1 methods compiled, 14 unchanged, 0 classes and 1 methods removed"),
        "{out}"
    );
    assert_eq!(eval(&gem, "3 respondsTo: #items"), "false");
    assert_eq!(eval(&gem, "(Shop new add: (Item named: 'x' price: 4); yourself) total"), "8");
}

#[test]
fn the_gem_remembers_each_version_and_what_changed_since() {
    let (dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let core = data().join("Shop-Core");
    let (ok, _, err) = onyx(Some(&gem), &["load", &core.display().to_string(), "--commit"]);
    assert!(ok, "{err}");
    let (_, out, _) = onyx(Some(&gem), &["status"]);
    let from = std::fs::canonicalize(&core).unwrap();
    assert_eq!(out.trim(), format!("Shop-Core: no version from {}, clean", from.display()));
    // Changed in the gem: dirty, definition by definition; a new gem sees the same (committed).
    eval(&gem, "Shop compile: 'total ^ 0' classified: 'accessing'. Shop comment: 'Changed.'. System commitTransaction");
    let other = GemProcess::start(&stone);
    let (_, out, _) = onyx(Some(&other), &["status", "Shop-Core"]);
    assert_eq!(
        out,
        format!(
            "Shop-Core: no version from {}, dirty (2 changed)\n  changed Shop (comment)\n  changed Shop>>total\n",
            from.display()
        )
    );
    // Saved as a Monticello version: clean, as that version; loaded from it elsewhere, likewise.
    let mcz = dir.path().join("mcz");
    let to = mcz.display().to_string();
    let (ok, _, err) = onyx(Some(&other), &["save", "Shop-Core", "--to", &to, "--format", "mcz", "--author", "cd"]);
    assert!(ok, "{err}");
    let (_, out, _) = onyx(Some(&other), &["status"]);
    assert!(
        out.starts_with("Shop-Core: Shop-Core-cd.1 from ") && out.trim().ends_with("Shop-Core-cd.1.mcz, clean"),
        "{out}"
    );
    let (_fresh_dir, fresh) = repository();
    let third = GemProcess::start(&fresh);
    let version = mcz.join("Shop-Core-cd.1.mcz");
    let (ok, _, err) = onyx(Some(&third), &["load", &version.display().to_string()]);
    assert!(ok, "{err}");
    assert_eq!(eval(&third, "Shop new total"), "0");
    let (_, out, _) = onyx(Some(&third), &["status", "Shop-Core"]);
    assert!(out.starts_with("Shop-Core: Shop-Core-cd.1 from ") && out.trim().ends_with("clean"), "{out}");
}

#[test]
fn versions_in_git_and_in_a_folder_of_monticello_versions() {
    let (dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let (ok, _, err) = onyx(Some(&gem), &["load", &data().join("Shop-Core").display().to_string()]);
    assert!(ok, "{err}");
    // Saved into a git work tree with a message: a commit each.
    let work = dir.path().join("work");
    git2::Repository::init(&work).unwrap();
    std::fs::create_dir_all(work.join("src")).unwrap();
    let src = work.join("src").display().to_string();
    let save = |message: &str| {
        let (ok, out, err) =
            onyx(Some(&gem), &["save", "Shop-Core", "--to", &src, "--message", message, "--author", "ab"]);
        assert!(ok && out.starts_with("committed Shop-Core as "), "{out}{err}");
    };
    save("First");
    eval(&gem, "Shop compile: 'total ^ 42' classified: 'accessing'");
    save("Second");
    let (ok, out, err) = onyx(None, &["versions", &src, "Shop-Core"]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].ends_with("  Second") && lines[1].ends_with("  First"), "{out}");
    let first = lines[1].split(' ').next().unwrap();
    assert!(lines[0].contains(&format!("[{first}]")), "{out}");
    let (_, status, _) = onyx(Some(&gem), &["status"]);
    let second = lines[0].split(' ').next().unwrap();
    assert!(status.starts_with(&format!("Shop-Core: {second} from ")) && status.trim().ends_with("clean"), "{status}");
    // A folder of Monticello versions, paged.
    let mcz = dir.path().join("mcz").display().to_string();
    for _ in 0..3 {
        let (ok, _, err) = onyx(Some(&gem), &["save", "Shop-Core", "--to", &mcz, "--format", "mcz", "--author", "ab"]);
        assert!(ok, "{err}");
    }
    assert_eq!(onyx(None, &["versions", &mcz]).1, "Shop-Core\n");
    let (_, out, _) = onyx(None, &["versions", &mcz, "Shop-Core", "--from", "1", "--size", "1"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("Shop-Core-ab.2  ") && lines[0].contains("[Shop-Core-ab.1]"), "{out}");
    assert_eq!(lines[1], "... 1 more (--from 2)");
}

#[test]
fn a_version_merges_into_a_gems_code_from_their_common_ancestor() {
    let (dir, stone) = repository();
    let ours = GemProcess::start(&stone);
    let mcz = dir.path().join("mcz").display().to_string();
    let save = |gem: &GemProcess, author: &str| {
        let (ok, out, err) =
            onyx(Some(gem), &["save", "Shop-Core", "--to", &mcz, "--format", "mcz", "--author", author]);
        assert!(ok, "{out}{err}");
    };
    let (ok, _, err) = onyx(Some(&ours), &["load", &data().join("Shop-Core").display().to_string()]);
    assert!(ok, "{err}");
    save(&ours, "ab");
    eval(&ours, "Shop compile: 'total ^ 1' classified: 'accessing'");
    save(&ours, "ab");
    // Another repository's gem takes the first version and changes it its own way.
    let (_their_dir, their_stone) = repository();
    let theirs = GemProcess::start(&their_stone);
    let (ok, out, err) = onyx(Some(&theirs), &["load", "--repository", &mcz, "Shop-Core@Shop-Core-ab.1"]);
    assert!(ok, "{out}{err}");
    eval(
        &theirs,
        "Shop compile: 'total ^ 7' classified: 'accessing'. Item compile: 'printOn: aStream aStream nextPutAll: name' classified: 'printing'. Shop removeSelector: #owner",
    );
    save(&theirs, "cd");
    let (_, out, _) = onyx(None, &["versions", &mcz, "Shop-Core"]);
    assert!(out.starts_with("Shop-Core-cd.3  ") && out.contains("[Shop-Core-ab.1]"), "{out}");
    // Compared: a version against the gem's code.
    let (same, out, _) =
        onyx(None, &["diff", "Shop-Core@Shop-Core-ab.1", "Shop-Core", "--repository", &mcz, "--gem", &ours.addr]);
    assert!(
        !same && out.contains("Shop>>total (changed)") && out.ends_with("1 changed, 0 added, 0 removed\n"),
        "{out}"
    );
    // Both changed total: a conflict, listed, and nothing merged.
    let merge = |take: &[&str]| {
        let mut args = vec!["merge", "Shop-Core@Shop-Core-cd.3", "--repository", mcz.as_str()];
        args.extend(take);
        onyx(Some(&ours), &args)
    };
    let (ok, out, err) = merge(&[]);
    assert!(
        !ok && out.starts_with("conflict: Shop>>total") && err.contains("1 conflicts: nothing merged"),
        "{out}{err}"
    );
    assert_eq!(eval(&ours, "Shop new total"), "1");
    assert_eq!(eval(&ours, "Shop includesSelector: #owner"), "true");
    // Settled with our side: our total, their printOn: and their removal of owner.
    let (ok, out, err) = merge(&["--take", "ours"]);
    assert!(ok, "{out}{err}");
    assert_eq!(eval(&ours, "Shop new total"), "1");
    assert_eq!(eval(&ours, "(Item named: 'pen' price: 3) printString"), "'pen'");
    assert_eq!(eval(&ours, "Shop includesSelector: #owner"), "false");
    // The next version saved is made from both.
    save(&ours, "ab");
    let (_, out, _) = onyx(None, &["versions", &mcz, "Shop-Core", "--size", "1"]);
    assert!(out.starts_with("Shop-Core-ab.4  ") && out.contains("[Shop-Core-ab.2, Shop-Core-cd.3]"), "{out}");
}

#[test]
fn the_agent_lists_a_repositorys_packages_and_pages_its_versions() {
    use crate::agent::{add_reader, client, error, execute, op, runtime};
    use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
    let (dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let (ok, _, err) = onyx(Some(&gem), &["load", &data().join("Shop-Core").display().to_string()]);
    assert!(ok, "{err}");
    let mcz = dir.path().join("mcz");
    for _ in 0..3 {
        let to = mcz.display().to_string();
        let (ok, _, err) = onyx(Some(&gem), &["save", "Shop-Core", "--to", &to, "--format", "mcz", "--author", "ab"]);
        assert!(ok, "{err}");
    }
    let path = mcz.display().to_string();
    let packages = || op(Op::RepositoryPackages(pb::RepositoryRef { path: path.clone(), package: String::new() }));
    let versions = |from: u64, size: u32| pb::Operation {
        op: Some(Op::RepositoryVersions(pb::RepositoryRef { path: path.clone(), package: "Shop-Core".into() })),
        page: Some(pb::Page { from, size }),
    };
    runtime().block_on(async {
        let mut curator = client(&gem).await;
        let missing = op(Op::RepositoryPackages(pb::RepositoryRef {
            path: dir.path().join("nowhere").display().to_string(),
            package: String::new(),
        }));
        let out = execute(&mut curator, vec![packages(), versions(1, 1), missing]).await;
        assert!(matches!(&out[0], Outcome::Names(n) if n.names == ["Shop-Core"]), "{:?}", out[0]);
        let Outcome::Versions(list) = &out[1] else { panic!("{:?}", out[1]) };
        let names: Vec<&str> = list.versions.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["Shop-Core-ab.2"]);
        assert_eq!(list.versions[0].ancestors.len(), 1);
        assert_eq!(list.paged.as_ref().map(|p| (p.total, p.next)), Some((3, 2)));
        assert_eq!(error(&out[2]).code, pb::Code::NotFound as i32);
        // Packages that cannot be: refused with a clear error, the gem answering on.
        let class = pb::PackageClass { name: "Odd".into(), layout: "triangle".into(), ..Default::default() };
        let odd = pb::PackageContents { name: "Odd".into(), classes: vec![class], ..Default::default() };
        let method = pb::PackageMethod { class_name: "Nowhere".into(), selector: "x".into(), ..Default::default() };
        let stray = pb::PackageContents { name: "Stray".into(), methods: vec![method], ..Default::default() };
        let load = |p: pb::PackageContents| op(Op::LoadPackages(pb::LoadPackages { packages: vec![p] }));
        let out = execute(&mut curator, vec![load(odd), load(stray), packages()]).await;
        assert_eq!(error(&out[0]).code, pb::Code::Invalid as i32, "{:?}", out[0]);
        assert!(error(&out[0]).message.contains("triangle"), "{:?}", out[0]);
        assert!(error(&out[1]).message.contains("class Nowhere is not defined"), "{:?}", out[1]);
        assert!(matches!(&out[2], Outcome::Names(_)));
        add_reader(&mut curator).await;
    });
    // A user who may not change code reaches no file of the gem's host.
    let reader = GemProcess::start_as(&stone, "reader", "secret");
    runtime().block_on(async {
        let mut agent = crate::agent::login(&reader, "reader", "secret").await.expect("reader logs in");
        let out = execute(&mut agent, vec![packages(), versions(0, 0)]).await;
        for outcome in &out {
            assert_eq!(error(outcome).code, pb::Code::PermissionDenied as i32, "{outcome:?}");
        }
    });
}

fn copy_tree(from: &Path, to: &Path) {
    for (path, bytes) in files(from) {
        let target = to.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}
