//! Packages in and out of the gem's image: loading them all or nothing (`Vm::load`), then
//! running new classes' class-side `initialize` as any code runs, and taking packages as the
//! image holds them (`Vm::package_snapshot`) for a save.

use onyx_vm::Vm;
use onyx_vm::source::Package;

use super::request::{Answer, ErrorKind, Failure, Outcome};
use super::{WORK_LIMIT, may_change_code};

/// What a load changed, and the initializers it ran.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadSummary {
    /// Classes defined or redefined.
    pub classes_defined: usize,
    /// Methods compiled.
    pub methods_compiled: usize,
    /// Definitions found as they were.
    pub unchanged: usize,
    /// Classes removed.
    pub classes_removed: usize,
    /// Methods removed.
    pub methods_removed: usize,
    /// Undeclared variables, as `file:line: message`.
    pub warnings: Vec<String>,
    /// The classes whose class-side `initialize` ran.
    pub initialized: Vec<String>,
    /// Initializers that failed, as `Class class>>initialize: error`.
    pub initialize_errors: Vec<String>,
}

/// Loads `packages`: every problem, a line each, and nothing changed; or what changed.
pub fn load(vm: &mut Vm, packages: &[Package]) -> Outcome {
    may_change_code(vm)?;
    // What the load compares against must be in memory.
    vm.image_classes();
    let loaded = vm.load(packages).map_err(|problems| {
        let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        Failure::new(ErrorKind::CompileError, lines.join("\n"))
    })?;
    let mut summary = LoadSummary {
        classes_defined: loaded.classes_defined,
        methods_compiled: loaded.methods_compiled,
        unchanged: loaded.unchanged,
        classes_removed: loaded.classes_removed,
        methods_removed: loaded.methods_removed,
        warnings: loaded.warnings,
        ..LoadSummary::default()
    };
    for class in loaded.to_initialize {
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
    let mut packages = Vec::with_capacity(names.len());
    for name in names {
        let others: Vec<String> = names.iter().filter(|n| *n != name).cloned().collect();
        let package = vm.package_snapshot(name, &others);
        if package.classes.is_empty() && package.methods.is_empty() {
            return Err(Failure::new(ErrorKind::NotFound, format!("no package named {name}")));
        }
        packages.push(package);
    }
    Ok(Answer::Packages(packages))
}
