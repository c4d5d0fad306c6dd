//! Installing packages into a VM, and booting a VM from the kernel packages.
//!
//! Loading is in three passes so that order within and across packages does not matter:
//! every class definition (superclasses first), then every method, then each new class's
//! class-side `initialize`.

use std::path::{Path, PathBuf};

use super::model::{ClassDef, ClassKind, MethodDef, Package};
use super::tonel;
use crate::bootstrap::core_class;
use crate::error::BootError;
use crate::heap::Kind;
use crate::primitives::class::ClassSpec;
use crate::primitives::define_class;
use crate::value::Value;
use crate::vm::{Vm, VmConfig, class_slots as cs};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/kernel_files.rs"));
}

/// The text of a set of Tonel packages: (path relative to the root, contents).
#[derive(Clone, Debug, Default)]
pub struct KernelSource {
    /// Files as `Package-Name/Foo.class.st`, with their text.
    pub files: Vec<(PathBuf, String)>,
}

impl KernelSource {
    /// The kernel compiled into this binary.
    pub fn embedded() -> KernelSource {
        KernelSource { files: embedded::KERNEL.iter().map(|(p, t)| (PathBuf::from(p), (*t).to_string())).collect() }
    }

    /// Every package under `root` (directories holding a `package.st`).
    pub fn from_dir(root: &Path) -> Result<KernelSource, BootError> {
        let mut files = Vec::new();
        let dirs = std::fs::read_dir(root).map_err(|e| BootError::Source(format!("{}: {e}", root.display())))?;
        for dir in dirs.flatten() {
            let path = dir.path();
            if !path.join("package.st").is_file() {
                continue;
            }
            let entries =
                std::fs::read_dir(&path).map_err(|e| BootError::Source(format!("{}: {e}", path.display())))?;
            for f in entries.flatten() {
                let p = f.path();
                if p.extension().is_some_and(|e| e == "st") {
                    let text =
                        std::fs::read_to_string(&p).map_err(|e| BootError::Source(format!("{}: {e}", p.display())))?;
                    let rel = p.strip_prefix(root).unwrap_or(&p).to_path_buf();
                    files.push((rel, text));
                }
            }
        }
        files.sort();
        Ok(KernelSource { files })
    }

    /// Whether a package directory holds tests (`Kernel-Tests-Numbers`, `Foo-Tests`).
    fn is_test_package(dir: &Path) -> bool {
        dir.components().next().is_some_and(|c| {
            let name = c.as_os_str().to_string_lossy();
            name.ends_with("-Tests") || name.contains("-Tests-")
        })
    }

    /// The same packages without the test packages.
    pub fn without_tests(&self) -> KernelSource {
        KernelSource { files: self.files.iter().filter(|(p, _)| !Self::is_test_package(p)).cloned().collect() }
    }

    /// The names of the test packages (their directory names).
    pub fn test_package_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .files
            .iter()
            .filter(|(p, _)| Self::is_test_package(p))
            .filter_map(|(p, _)| p.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned()))
            .collect();
        names.dedup();
        names
    }

    /// Parses the files into packages, in package-name order.
    pub fn packages(&self) -> Result<Vec<Package>, BootError> {
        let mut packages: Vec<(PathBuf, Package)> = Vec::new();
        for (path, text) in &self.files {
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let index = match packages.iter().position(|(d, _)| *d == dir) {
                Some(i) => i,
                None => {
                    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    packages.push((dir.clone(), Package { name, ..Package::default() }));
                    packages.len() - 1
                }
            };
            let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let Some((_, package)) = packages.get_mut(index) else { continue };
            if file_name == "package.st" {
                package.name = tonel::parse_package_file(path, text).map_err(|e| BootError::Source(e.to_string()))?.0;
                continue;
            }
            let (class, methods) = tonel::parse_class_file(path, text).map_err(|e| BootError::Source(e.to_string()))?;
            package.classes.extend(class);
            package.methods.extend(methods);
        }
        packages.sort_by(|a, b| a.1.name.cmp(&b.1.name));
        Ok(packages.into_iter().map(|(_, p)| p).collect())
    }
}

/// What loading packages did.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Classes defined or redefined.
    pub classes: usize,
    /// Methods compiled.
    pub methods: usize,
    /// Compile errors, as `file:line: message`.
    pub errors: Vec<String>,
    /// Warnings (undeclared variables), as `file:line: message`.
    pub warnings: Vec<String>,
    /// New classes with a class-side `initialize`, in load order.
    pub to_initialize: Vec<Value>,
}

pub(super) fn kind_of(k: ClassKind) -> Option<Kind> {
    match k {
        ClassKind::Fixed => None,
        ClassKind::Variable => Some(Kind::Variable),
        ClassKind::Weak => Some(Kind::Weak),
        ClassKind::Bytes => Some(Kind::Bytes),
        ClassKind::Words => Some(Kind::Words),
    }
}

/// What a definition of one of the VM's own classes (`core_class`) gets wrong, if anything:
/// its superclass and instance variables are the VM's.
pub(super) fn core_mismatch(def: &ClassDef) -> Option<String> {
    let core = core_class(&def.name)?;
    let ivars: Vec<&str> = def.inst_vars.iter().map(String::as_str).collect();
    (ivars != core.ivars || def.superclass.as_deref() != core.superclass).then(|| {
        format!(
            "{} is a VM class: it must be a subclass of {} with instance variables '{}'",
            def.name,
            core.superclass.unwrap_or("nil"),
            core.ivars.join(" ")
        )
    })
}

/// The class definition the VM takes for `def`.
pub(super) fn spec_of(def: &ClassDef) -> ClassSpec {
    ClassSpec {
        name: def.name.clone(),
        superclass: def.superclass.clone(),
        kind: kind_of(def.kind),
        ivars: def.inst_vars.clone(),
        class_vars: def.class_vars.clone(),
        class_ivars: def.class_inst_vars.clone(),
        category: def.category.clone(),
    }
}

fn definition_error(def: &ClassDef, message: String) -> BootError {
    BootError::Definition { file: def.file.display().to_string(), line: def.line, message }
}

impl Vm {
    /// Boots a VM: core classes, then the kernel packages, then their class initializers.
    pub fn boot(kernel: &KernelSource) -> Result<Vm, BootError> {
        Vm::boot_with(kernel, VmConfig::default())
    }

    /// Boots a VM with `config` in effect from the start.
    pub fn boot_with(kernel: &KernelSource, config: VmConfig) -> Result<Vm, BootError> {
        let mut vm = Vm::with_core_classes();
        vm.set_config(config);
        let packages = kernel.packages()?;
        let report = vm.load_packages(&packages)?;
        vm.remember_kernel_packages(&packages.iter().map(|p| p.name.clone()).collect::<Vec<_>>());
        if let Some(first) = report.errors.first() {
            return Err(BootError::Compile(
                vec![first.clone()].into_iter().chain(report.errors.iter().skip(1).cloned()).collect(),
            ));
        }
        vm.initialize_classes(&report.to_initialize).map_err(BootError::Startup)?;
        vm.take_transcript();
        Ok(vm)
    }

    /// Defines the packages' classes and compiles their methods. Class definition problems
    /// stop the load; method compile errors are collected in the report.
    pub fn load_packages(&mut self, packages: &[Package]) -> Result<LoadReport, BootError> {
        let mut report = LoadReport::default();
        let mut pending: Vec<&ClassDef> = packages.iter().flat_map(|p| p.classes.iter()).collect();
        let mut new_classes = Vec::new();
        // Superclasses first: define whatever has its superclass defined, until done.
        while !pending.is_empty() {
            let before = pending.len();
            let mut rest = Vec::new();
            for def in pending {
                let ready =
                    def.superclass.as_deref().is_none_or(|s| self.global(s).is_some_and(|c| self.is_behavior(c)));
                if !ready {
                    rest.push(def);
                    continue;
                }
                let existed = self.global(&def.name).is_some();
                let class = self.define_from(def)?;
                if !existed {
                    new_classes.push(class);
                }
                report.classes += 1;
            }
            pending = rest;
            self.make_boot_profile();
            if pending.len() == before {
                let def = pending[0];
                return Err(definition_error(
                    def,
                    format!("superclass {} is not defined", def.superclass.as_deref().unwrap_or("?")),
                ));
            }
        }
        let mut initialized_here: Vec<String> = Vec::new();
        for method in packages.iter().flat_map(|p| p.methods.iter()) {
            match self.install(method) {
                Ok(()) => {
                    report.methods += 1;
                    if method.class_side && method.selector == "initialize" {
                        initialized_here.push(method.class_name.clone());
                    }
                }
                Err(e) => report.errors.push(e),
            }
            for w in self.take_warnings() {
                report.warnings.push(format!("{}:{}: {w}", method.file.display(), method.line));
            }
        }
        // Class-side initialize runs for new classes and for classes whose initialize was loaded
        // now, in the order the classes were defined.
        let init = self.intern("initialize");
        let defined: Vec<Value> =
            packages.iter().flat_map(|p| p.classes.iter()).filter_map(|d| self.global(&d.name)).collect();
        for c in defined {
            let name = self.class_name(c);
            if !new_classes.contains(&c) && !initialized_here.contains(&name) {
                continue;
            }
            let meta = self.class_of(c);
            let dict = self.heap.slot(meta, cs::METHOD_DICT).unwrap_or(Value::NIL);
            if self.dict(dict).is_some_and(|d| d.get(init).is_some()) && !report.to_initialize.contains(&c) {
                report.to_initialize.push(c);
            }
        }
        Ok(report)
    }

    /// Sends `initialize` to each class, in order.
    pub fn initialize_classes(&mut self, classes: &[Value]) -> Result<(), String> {
        for &c in classes {
            self.send(c, "initialize", &[]).map_err(|e| format!("{} class>>initialize: {e}", self.class_name(c)))?;
        }
        Ok(())
    }

    pub(super) fn define_from(&mut self, def: &ClassDef) -> Result<Value, BootError> {
        if let Some(message) = core_mismatch(def) {
            return Err(definition_error(def, message));
        }
        let spec = spec_of(def);
        let class = define_class(self, &spec).map_err(|m| definition_error(def, m))?;
        let had = self.heap.slot(class, cs::COMMENT).and_then(|c| self.string_of(c)).unwrap_or_default();
        if had != def.comment {
            let comment = self.new_string(&def.comment);
            self.heap.set_slot(class, cs::COMMENT, comment);
        }
        Ok(class)
    }

    fn install(&mut self, m: &MethodDef) -> Result<(), String> {
        let where_ = |line: usize| format!("{}:{}", m.file.display(), line);
        let Some(class) = self.global(&m.class_name).filter(|&c| self.is_behavior(c)) else {
            return Err(format!("{}: class {} is not defined", where_(m.line), m.class_name));
        };
        let class = if m.class_side { self.class_of(class) } else { class };
        let protocol = self.intern(&m.category);
        self.compile_and_install(class, &m.source, protocol)
            .map(|_| ())
            .map_err(|e| format!("{}: {}", where_(m.file_line(e.line)), e.message))
    }
}
