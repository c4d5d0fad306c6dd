//! Loading packages into a running image, all or nothing.
//!
//! A load is planned before anything changes: every class definition is checked against the
//! shape its superclass will have (defined in the load or in the image), every method is
//! compiled against the instance variables its class will have (`compiler::check_method`,
//! which changes nothing), and every problem is reported, with its file and line. Only a load
//! without a problem is applied: classes defined or redefined (superclasses first; instances
//! migrate), methods compiled, then what the packages held in the image and hold no more
//! removed. A package already in the image is updated: what did not change is left as it is.
//! The kernel's packages and classes are left to the kernel: a load extends them, never
//! replaces, moves or removes them.

use std::collections::{HashMap, HashSet};

use super::image::owner;
use super::loader::{core_mismatch, spec_of};
use super::message_pattern;
use super::model::{ClassDef, MethodDef, Package, SourceError};
use crate::compiler::lexer::Lexer;
use crate::compiler::{CheckedMethod, all_ivar_names, bind_checked, check_method};
use crate::heap::Kind;
use crate::primitives::{layout, remove_class, remove_method};
use crate::value::Value;
use crate::vm::{Vm, class_slots as cs};

/// What a load changed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// Classes defined or redefined.
    pub classes_defined: usize,
    /// Methods compiled (new or changed).
    pub methods_compiled: usize,
    /// Definitions found as they were.
    pub unchanged: usize,
    /// Classes removed (the package held them and holds them no more).
    pub classes_removed: usize,
    /// Methods removed, likewise.
    pub methods_removed: usize,
    /// Warnings (undeclared variables), as `file:line: message`.
    pub warnings: Vec<String>,
    /// The classes whose class-side `initialize` is to run (new classes, and those whose
    /// `initialize` the load changed), in load order.
    pub to_initialize: Vec<Value>,
}

/// How far a load has come, told as it goes: `done` of the `total` methods of its `step`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// What is under way.
    pub step: &'static str,
    /// How many of the step's methods are done.
    pub done: usize,
    /// How many the step has.
    pub total: usize,
}

/// The step that checks every method (nothing has changed yet).
pub const CHECKING: &str = "checking methods";
/// The step that installs the methods that changed.
pub const INSTALLING: &str = "installing methods";

/// A class's shape once the load is done: its layout, and the instance variable names of its
/// instances and of the class itself (inherited ones first).
#[derive(Clone)]
struct Shape {
    layout: (Kind, usize),
    ivars: Vec<String>,
    class_ivars: Vec<String>,
}

/// The classes of a load while their shapes are worked out.
struct Classes<'a, 'p> {
    /// The definitions in the load, by name.
    defs: &'a HashMap<&'p str, &'p ClassDef>,
    /// Each class's shape once loaded (none for a definition in error).
    shapes: HashMap<String, Option<Shape>>,
    /// The definitions that define or change a class, superclasses first.
    define: Vec<&'p ClassDef>,
    /// The classes whose superclasses are being worked out (a cycle comes back to one).
    visiting: Vec<String>,
}

/// What a load will do, worked out before anything changes.
struct Plan<'p> {
    /// Class definitions that define or change a class, superclasses first.
    define: Vec<&'p ClassDef>,
    /// Methods to install: compiled by the check where the class's shape is final (only
    /// their names are left to bind), else compiled again once the classes are defined.
    compile: Vec<(&'p MethodDef, Option<CheckedMethod>)>,
    unchanged: usize,
    remove_classes: Vec<Value>,
    remove_methods: Vec<(Value, Value)>,
}

/// What a plan makes of the kernel's own packages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kernel {
    /// A load: they are refused, as any definition of their classes.
    Kept,
    /// A check: they may be checked as sources against the kernel.
    Checked,
}

fn error_at(file: &std::path::Path, line: usize, message: impl Into<String>) -> SourceError {
    SourceError { file: file.to_path_buf(), line, message: message.into() }
}

impl Vm {
    /// Loads `packages` all or nothing: answers what changed, or every problem found, and
    /// then nothing has changed. Class-side initializers are left to the caller
    /// ([`Loaded::to_initialize`]), who runs them as it runs code. `progress` is told after
    /// each method checked and each installed.
    pub fn load(
        &mut self,
        packages: &[Package],
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Loaded, Vec<SourceError>> {
        let plan = self.plan(packages, progress, Kernel::Kept)?;
        self.apply(packages, plan, progress)
    }

    /// Every problem loading `packages` would meet; changes nothing. The kernel's own
    /// packages may be checked too (their sources against the kernel), which no load takes.
    pub fn check_load(&mut self, packages: &[Package]) -> Vec<SourceError> {
        self.plan(packages, &mut |_| {}, Kernel::Checked).err().unwrap_or_default()
    }

    fn plan<'p>(
        &mut self,
        packages: &'p [Package],
        progress: &mut dyn FnMut(Progress),
        kernel: Kernel,
    ) -> Result<Plan<'p>, Vec<SourceError>> {
        let mut errors = Vec::new();
        if !self.may_change_code {
            let file = std::path::PathBuf::from(packages.first().map(|p| p.name.as_str()).unwrap_or_default());
            return Err(vec![error_at(&file, 0, crate::primitives::class::NO_CODE_CHANGES)]);
        }
        // Each class and each method once.
        let mut defs: HashMap<&str, &ClassDef> = HashMap::new();
        for def in packages.iter().flat_map(|p| &p.classes) {
            if let Some(first) = defs.insert(&def.name, def) {
                let at = format!("{}:{}", first.file.display(), first.line);
                errors.push(error_at(&def.file, def.line, format!("{} is defined twice (also at {at})", def.name)));
            }
        }
        self.check_kernel_kept(packages, kernel, &mut errors);
        let mut seen = HashSet::new();
        for m in packages.iter().flat_map(|p| &p.methods) {
            if !seen.insert((&m.class_name, m.class_side, &m.selector)) {
                let side = if m.class_side { " class" } else { "" };
                errors.push(error_at(
                    &m.file,
                    m.line,
                    format!("{}{side}>>{} is defined twice", m.class_name, m.selector),
                ));
            }
            // The selector a definition names is the one its source defines (removals and the
            // record go by it).
            let defined = message_pattern(&mut Lexer::new(&m.source)).map(|(s, _)| s);
            if defined.as_deref().is_some_and(|d| d != m.selector) {
                let message = format!("the source defines {}, not {}", defined.unwrap_or_default(), m.selector);
                errors.push(error_at(&m.file, m.line, message));
            }
        }
        // Every class's shape, superclasses first.
        let mut names: Vec<&str> = defs.keys().copied().collect();
        names.sort_unstable();
        let mut classes = Classes { defs: &defs, shapes: HashMap::new(), define: Vec::new(), visiting: Vec::new() };
        for name in names {
            self.plan_class(name, &mut classes, &mut errors);
        }
        let Classes { shapes, define, .. } = classes;
        let redefined: HashSet<&str> = define.iter().map(|d| d.name.as_str()).collect();
        // Methods, compiled against the shapes to come.
        let mut compile = Vec::new();
        let mut unchanged = defs.len().saturating_sub(define.len());
        let mut finals = HashMap::new();
        let total = packages.iter().map(|p| p.methods.len()).sum();
        for (done, m) in packages.iter().flat_map(|p| &p.methods).enumerate() {
            progress(Progress { step: CHECKING, done, total });
            let existing = self.class_named(&m.class_name);
            let (shape, is_final) = match shapes.get(&m.class_name) {
                Some(Some(shape)) => (shape.clone(), true),
                Some(None) => continue,
                None => match existing {
                    Some(class) => {
                        let is_final = *finals
                            .entry(m.class_name.as_str())
                            .or_insert_with(|| !self.image_inherits_any(class, &redefined));
                        (self.shape_in_image(class), is_final)
                    }
                    None => {
                        errors.push(error_at(&m.file, m.line, format!("class {} is not defined", m.class_name)));
                        continue;
                    }
                },
            };
            let behavior = existing.map(|c| if m.class_side { self.class_of(c) } else { c });
            // The same method stays (a redefined class recompiles its methods itself).
            if let Some(b) = behavior
                && self.same_method(b, m)
            {
                unchanged += 1;
                continue;
            }
            let ivars = if m.class_side { shape.class_ivars } else { shape.ivars };
            match check_method(self, &m.source, behavior.unwrap_or(Value::NIL), ivars) {
                Ok(checked) => compile.push((m, is_final.then_some(checked))),
                Err(e) => errors.push(error_at(&m.file, m.file_line(e.line), e.message)),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let (remove_classes, remove_methods) = self.removals(packages);
        Ok(Plan { define, compile, unchanged, remove_classes, remove_methods })
    }

    /// The kernel's packages and classes are the kernel's: a load may extend its classes
    /// (methods in an extension) but not replace a package of the kernel's, add a class to
    /// one, or define one of its classes (which would move it out of the kernel, and a later
    /// load could remove it). Adds an error for each such package or definition.
    fn check_kernel_kept(&mut self, packages: &[Package], rule: Kernel, errors: &mut Vec<SourceError>) {
        let kernel = self.kernel_packages();
        for package in packages {
            let owned = owner(&package.name, &kernel);
            if owned.is_some() && rule == Kernel::Checked {
                continue;
            }
            if let Some(k) = owned {
                let file = package.classes.first().map_or_else(|| package.name.clone().into(), |c| c.file.clone());
                let message = format!(
                    "package {} is the kernel's ({k}): a load does not replace it (extend its classes from a package \
                     of your own)",
                    package.name
                );
                errors.push(error_at(&file, 0, message));
                continue;
            }
            for def in &package.classes {
                let held = self.class_named(&def.name).map(|c| self.category_of(c));
                let message = match (held.as_deref().and_then(|c| owner(c, &kernel)), owner(&def.category, &kernel)) {
                    (Some(k), _) => format!(
                        "{} is the kernel's (package {k}): a package may extend it with methods, not define it",
                        def.name
                    ),
                    (None, Some(k)) => {
                        format!("{} would join the kernel's package {k}: give it a category of your own", def.name)
                    }
                    (None, None) => continue,
                };
                errors.push(error_at(&def.file, def.line, message));
            }
        }
    }

    /// Works out the shape of class `name` (and of its superclasses first), defined in the
    /// load (`defs`) or in the image; records definitions that change something in `define`,
    /// and the shape (none for a definition in error) in `shapes`.
    fn plan_class(&mut self, name: &str, c: &mut Classes<'_, '_>, errors: &mut Vec<SourceError>) -> Option<Shape> {
        if let Some(shape) = c.shapes.get(name) {
            return shape.clone();
        }
        let shape = self.plan_definition(name, c, errors);
        if c.defs.contains_key(name) {
            c.shapes.insert(name.to_string(), shape.clone());
        }
        shape
    }

    fn plan_definition(&mut self, name: &str, c: &mut Classes<'_, '_>, errors: &mut Vec<SourceError>) -> Option<Shape> {
        let Some(&def) = c.defs.get(name) else {
            let class = self.class_named(name)?;
            return Some(self.shape_in_image(class));
        };
        if c.visiting.iter().any(|v| v == name) {
            errors.push(error_at(&def.file, def.line, format!("{name} would inherit from itself")));
            return None;
        }
        c.visiting.push(name.to_string());
        let superclass = match def.superclass.as_deref() {
            None => None,
            Some(s) => match self.plan_class(s, c, errors) {
                Some(shape) => {
                    if !c.defs.contains_key(s) && self.image_inherits(s, name) {
                        errors.push(error_at(&def.file, def.line, format!("{name} would inherit from itself")));
                        c.visiting.pop();
                        return None;
                    }
                    Some(shape)
                }
                None => {
                    // A superclass in the load has its own error; one nowhere is this one's.
                    if !c.defs.contains_key(s) {
                        errors.push(error_at(&def.file, def.line, format!("superclass {s} of {name} is not defined")));
                    }
                    c.visiting.pop();
                    return None;
                }
            },
        };
        c.visiting.pop();
        if let Some(message) = core_mismatch(def) {
            errors.push(error_at(&def.file, def.line, message));
            return None;
        }
        let spec = spec_of(def);
        let inherited = superclass.as_ref().map(|s| s.ivars.clone()).unwrap_or_default();
        let existing = self.class_named(name);
        let mut layout = match layout(&spec, superclass.as_ref().map(|s| s.layout), &inherited) {
            Ok(layout) => layout,
            Err(message) => {
                errors.push(error_at(&def.file, def.line, message));
                return None;
            }
        };
        // A VM class keeps its special layout, as `define_class` keeps it.
        if let Some((k, _)) = existing.and_then(|c| self.format_of(c))
            && !k.is_indexable()
            && k != Kind::Fixed
            && matches!(spec.kind, None | Some(Kind::Fixed))
        {
            layout.0 = k;
        }
        let mut ivars = inherited;
        ivars.extend(def.inst_vars.iter().cloned());
        let mut class_ivars = match &superclass {
            Some(s) => s.class_ivars.clone(),
            None => all_ivar_names(self, self.known.class),
        };
        class_ivars.extend(def.class_inst_vars.iter().cloned());
        let shape = Shape { layout, ivars, class_ivars };
        if existing.is_none_or(|c| !self.same_class(c, def)) {
            c.define.push(def);
        }
        Some(shape)
    }

    /// Whether the image's class `class` is `ancestor` or inherits from it.
    fn image_inherits(&mut self, class: &str, ancestor: &str) -> bool {
        let mut c = self.class_named(class).unwrap_or(Value::NIL);
        let mut guard = 0;
        while c.is_object() && guard < 10_000 {
            self.bring_in(&[c]);
            if self.class_name(c) == ancestor {
                return true;
            }
            c = self.superclass_of(c);
            guard += 1;
        }
        false
    }

    /// Whether the image's `class` or one of its superclasses is named in `names`.
    fn image_inherits_any(&mut self, class: Value, names: &HashSet<&str>) -> bool {
        let mut c = class;
        let mut guard = 0;
        while c.is_object() && guard < 10_000 {
            self.bring_in(&[c]);
            if names.contains(self.class_name(c).as_str()) {
                return true;
            }
            c = self.superclass_of(c);
            guard += 1;
        }
        false
    }

    /// The shape of a class of the image, as it stands.
    fn shape_in_image(&mut self, class: Value) -> Shape {
        self.bring_in(&[class]);
        let meta = self.class_of(class);
        Shape {
            layout: self.format_of(class).unwrap_or((Kind::Fixed, 0)),
            ivars: all_ivar_names(self, class),
            class_ivars: all_ivar_names(self, meta),
        }
    }

    /// Whether the image's `class` is already what `def` defines (its comment aside).
    fn same_class(&mut self, class: Value, def: &ClassDef) -> bool {
        let mut held = self.class_def(class, self.category_of(class));
        held.class_vars.retain(|v| def.class_vars.contains(v));
        let sup = |c: &ClassDef| c.superclass.clone();
        sup(&held) == sup(def)
            && held.kind == def.kind
            && held.inst_vars == def.inst_vars
            && held.class_vars == def.class_vars
            && held.class_inst_vars == def.class_inst_vars
            && held.category == def.category
    }

    /// Whether `behavior` holds a method `m` with the same source and protocol.
    fn same_method(&mut self, behavior: Value, m: &MethodDef) -> bool {
        let dict = self.heap.slot(behavior, cs::METHOD_DICT).unwrap_or(Value::NIL);
        let Some(selector) = self.existing_symbol(&m.selector) else { return false };
        let Some(method) = self.dict(dict).and_then(|d| d.get(selector)) else { return false };
        self.bring_in(&[method]);
        self.code_of(method).is_some_and(|c| *c.source == *m.source) && self.protocol_of(method) == m.category
    }

    /// What the packages hold in the image that the loaded ones no longer hold: classes, and
    /// methods of the classes that stay.
    fn removals(&mut self, packages: &[Package]) -> (Vec<Value>, Vec<(Value, Value)>) {
        let names: Vec<String> = packages.iter().map(|p| p.name.clone()).collect();
        let loaded_classes: HashSet<&str> = packages.iter().flat_map(|p| &p.classes).map(|c| c.name.as_str()).collect();
        let loaded: HashSet<(&str, bool, &str)> = packages
            .iter()
            .flat_map(|p| &p.methods)
            .map(|m| (m.class_name.as_str(), m.class_side, m.selector.as_str()))
            .collect();
        let mut classes = Vec::new();
        let mut methods = Vec::new();
        for held in self.package_snapshots(&names) {
            for class in &held.classes {
                if !loaded_classes.contains(class.name.as_str())
                    && let Some(c) = self.class_named(&class.name)
                {
                    classes.push(c);
                }
            }
            for m in &held.methods {
                if loaded.contains(&(m.class_name.as_str(), m.class_side, m.selector.as_str())) {
                    continue;
                }
                let Some(class) = self.class_named(&m.class_name) else { continue };
                if classes.contains(&class) {
                    continue;
                }
                let behavior = if m.class_side { self.class_of(class) } else { class };
                let selector = self.intern(&m.selector);
                methods.push((behavior, selector));
            }
        }
        (classes, methods)
    }

    fn apply(
        &mut self,
        packages: &[Package],
        plan: Plan<'_>,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Loaded, Vec<SourceError>> {
        let mut loaded = Loaded { unchanged: plan.unchanged, ..Loaded::default() };
        let mut errors = Vec::new();
        let mut new_classes = Vec::new();
        self.with_subclasses_gathered(|vm| {
            for def in &plan.define {
                let existed = vm.class_named(&def.name).is_some();
                match vm.define_from(def) {
                    Ok(class) => {
                        loaded.classes_defined += 1;
                        if !existed {
                            new_classes.push(class);
                        }
                    }
                    Err(e) => errors.push(error_at(&def.file, def.line, e.to_string())),
                }
            }
        });
        // Comments of classes whose definition stays.
        for def in packages.iter().flat_map(|p| &p.classes) {
            if plan.define.iter().any(|d| d.name == def.name) {
                continue;
            }
            let Some(class) = self.class_named(&def.name) else { continue };
            let had = self.heap.slot(class, cs::COMMENT).and_then(|c| self.string_of(c)).unwrap_or_default();
            if had != def.comment {
                let comment = self.new_string(&def.comment);
                self.heap.set_slot(class, cs::COMMENT, comment);
            }
        }
        let mut initialize = Vec::new();
        let total = plan.compile.len();
        for (done, (m, checked)) in plan.compile.into_iter().enumerate() {
            progress(Progress { step: INSTALLING, done, total });
            let Some(class) = self.class_named(&m.class_name) else { continue };
            let behavior = if m.class_side { self.class_of(class) } else { class };
            let protocol = self.intern(&m.category);
            // The warnings taken after are this method's alone (those left by code compiled
            // before, such as a doit's, are no one's here).
            self.take_warnings();
            let code = checked.and_then(|checked| bind_checked(self, checked, behavior));
            let installed = match code {
                Some(code) => Ok(self.install_code(behavior, code, protocol)),
                None => self.compile_and_install(behavior, &m.source, protocol),
            };
            match installed {
                Ok(_) => loaded.methods_compiled += 1,
                Err(e) => errors.push(error_at(&m.file, m.file_line(e.line), e.message)),
            }
            for w in self.take_warnings() {
                loaded.warnings.push(format!("{}:{}: {}", m.file.display(), m.file_line(w.line), w.message));
            }
            if m.class_side && m.selector == "initialize" {
                initialize.push(class);
            }
        }
        for (behavior, selector) in plan.remove_methods {
            if let Ok(Some(_)) = remove_method(self, behavior, selector) {
                loaded.methods_removed += 1;
            }
        }
        for class in plan.remove_classes {
            if remove_class(self, class).is_ok() {
                loaded.classes_removed += 1;
            }
        }
        let init = self.intern("initialize");
        for def in packages.iter().flat_map(|p| &p.classes) {
            let Some(class) = self.class_named(&def.name) else { continue };
            if !new_classes.contains(&class) && !initialize.contains(&class) {
                continue;
            }
            let meta = self.class_of(class);
            let dict = self.heap.slot(meta, cs::METHOD_DICT).unwrap_or(Value::NIL);
            if self.dict(dict).is_some_and(|d| d.get(init).is_some()) && !loaded.to_initialize.contains(&class) {
                loaded.to_initialize.push(class);
            }
        }
        // A problem the plan did not foresee: reported, though the rest is applied.
        if errors.is_empty() { Ok(loaded) } else { Err(errors) }
    }
}

#[cfg(test)]
mod tests;
