//! Packages in and out of the gem's image: loading them all or nothing (`Vm::load`), then
//! running new classes' class-side `initialize` as any code runs, and taking packages as the
//! image holds them (`Vm::package_snapshot`) for a save; and what the image remembers of their
//! versions. Version repositories are `versions.rs`'s.

use onyx_vm::Vm;
use onyx_vm::source::{Loaded, Package, Record};

use super::request::{Answer, ErrorKind, Failure, Outcome};
use super::{WORK_LIMIT, may_change_code};

/// A package to load, with the version its files hold and where they came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loadable {
    /// The package.
    pub package: Package,
    /// The version's name ("" when the files name none).
    pub version: String,
    /// Where it came from.
    pub from: String,
    /// The versions it was made from (two for a merge; none: the version itself).
    pub ancestors: Vec<String>,
}

/// What a load changed, and the initializers it ran.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadSummary {
    /// What the load changed (its classes to initialize, run since, left out).
    pub loaded: Loaded,
    /// The classes whose class-side `initialize` ran.
    pub initialized: Vec<String>,
    /// Initializers that failed, as `Class class>>initialize: error`.
    pub initialize_errors: Vec<String>,
}

/// Loads `packages`: every problem, a line each, and nothing changed; or what changed, each
/// package then remembered as its version.
pub fn load(vm: &mut Vm, loadables: Vec<Loadable>) -> Outcome {
    may_change_code(vm)?;
    // What the load compares against must be in memory.
    vm.image_classes();
    let (packages, records): (Vec<Package>, Vec<Record>) = loadables
        .into_iter()
        .map(|l| {
            let record =
                Record { name: l.package.name.clone(), version: l.version, from: l.from, ancestors: l.ancestors };
            (l.package, record)
        })
        .unzip();
    let mut loaded = vm.load(&packages).map_err(|problems| {
        let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        Failure::new(ErrorKind::CompileError, lines.join("\n"))
    })?;
    drop(packages);
    let to_initialize = std::mem::take(&mut loaded.to_initialize);
    let mut summary = LoadSummary { loaded, ..LoadSummary::default() };
    vm.record_packages(&records);
    for class in to_initialize {
        let name = vm.class_name(class);
        match vm.send_within(class, "initialize", &[], WORK_LIMIT) {
            Ok(_) => summary.initialized.push(name),
            Err(e) => summary.initialize_errors.push(format!("{name} class>>initialize: {e}")),
        }
    }
    Ok(Answer::Loaded(summary))
}

/// The packages named, as the image holds them; a name no class or method of the image
/// belongs to is not found.
pub fn contents(vm: &mut Vm, names: &[String]) -> Outcome {
    let packages = vm.package_snapshots(names);
    if let Some(empty) = packages.iter().find(|p| p.classes.is_empty() && p.methods.is_empty()) {
        return Err(Failure::new(ErrorKind::NotFound, format!("no package named {}", empty.name)));
    }
    Ok(Answer::Packages(packages))
}

/// Packages as the image remembers them, with what changed since.
pub fn states(vm: &mut Vm, names: &[String]) -> Outcome {
    vm.image_classes();
    Ok(Answer::PackageStates(vm.package_states(names)))
}

/// Remembers packages as the image holds them, each as the version saved.
pub fn record(vm: &mut Vm, records: &[Record]) -> Outcome {
    vm.image_classes();
    vm.record_packages(records);
    Ok(Answer::Done)
}
