//! Packages in and out of the gem's image: loading them all or nothing (`Vm::load`), then
//! running new classes' class-side `initialize` as any code runs, and taking packages as the
//! image holds them (`Vm::package_snapshot`) for a save; and what the image remembers of their
//! versions. Version repositories are `versions.rs`'s.

use std::time::{Duration, Instant};

use onyx_vm::Vm;
use onyx_vm::source::{Loaded, Package, Record};
use tokio::sync::broadcast;

use super::request::{Answer, ErrorKind, Event, Failure, Outcome};
use super::{State, WORK_LIMIT, may_change_code};

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

/// Tells the login whose batch runs how far a long operation has come, as events: at most
/// every [`Teller::EVERY`], and whenever the step changes.
pub struct Teller {
    events: Option<broadcast::Sender<Event>>,
    login: u64,
    step: String,
    last: Option<Instant>,
}

impl Teller {
    const EVERY: Duration = Duration::from_millis(50);

    /// A teller to `login` through the events of `state`.
    pub fn new(state: &State, login: u64) -> Teller {
        Teller { events: state.events.clone(), login, step: String::new(), last: None }
    }

    /// `done` of `total` things of `step` are done (a `total` of 0: the step has no count).
    pub fn tell(&mut self, step: &str, done: usize, total: usize) {
        let Some(events) = &self.events else { return };
        let now = Instant::now();
        if step == self.step && self.last.is_some_and(|at| now.duration_since(at) < Self::EVERY) {
            return;
        }
        self.step.clear();
        self.step.push_str(step);
        self.last = Some(now);
        let (done, total) = (done as u64, total as u64);
        // Nobody listening is no reason to stop.
        let _ = events.send(Event::Progress { login: self.login, step: step.to_string(), done, total });
    }
}

/// Loads `packages`: every problem, a line each, and nothing changed; or what changed, each
/// package then remembered as its version. `teller` hears how far it has come.
pub fn load(vm: &mut Vm, loadables: Vec<Loadable>, teller: &mut Teller) -> Outcome {
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
    let mut loaded = vm.load(&packages, &mut |p| teller.tell(p.step, p.done, p.total)).map_err(|problems| {
        let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        Failure::new(ErrorKind::CompileError, lines.join("\n"))
    })?;
    drop(packages);
    let to_initialize = std::mem::take(&mut loaded.to_initialize);
    let mut summary = LoadSummary { loaded, ..LoadSummary::default() };
    teller.tell("recording the packages", 0, 0);
    vm.record_packages(&records);
    let total = to_initialize.len();
    for (done, class) in to_initialize.into_iter().enumerate() {
        teller.tell("running class-side initializers", done, total);
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
