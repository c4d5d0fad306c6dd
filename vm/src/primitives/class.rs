//! Class primitives (250-279): defining and redefining classes (instances migrate, methods
//! recompile), compiling and removing methods, lookup, and CompiledMethod accessors.

use std::rc::Rc;

use super::{Args, Prim, PrimResult, table};
use crate::bytecode::CompiledCode;
use crate::compiler::{self, Mode};
use crate::heap::{Body, Kind, object::format};
use crate::value::Value;
use crate::vm::{Vm, class_slots as cs};

/// What a class definition asks for.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClassSpec {
    pub name: String,
    pub superclass: Option<String>,
    pub kind: Option<Kind>,
    pub ivars: Vec<String>,
    pub class_vars: Vec<String>,
    pub class_ivars: Vec<String>,
    pub category: String,
}

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let r = a.recv(vm);
    match index {
        table::CLASS_DEFINE => {
            let strings = |vm: &Vm, v: Value| -> Result<Vec<String>, Prim> {
                if v.is_nil() {
                    return Ok(Vec::new());
                }
                let items = vm.array_items(v).ok_or(Prim::Fail)?;
                items.iter().map(|&i| vm.string_of(i).ok_or(Prim::Fail)).collect()
            };
            let name = vm.string_of(a.arg(vm, 0)).ok_or(Prim::Fail)?;
            let sup = a.arg(vm, 1);
            let superclass = if sup.is_nil() {
                None
            } else if vm.is_behavior(sup) && !vm.is_metaclass(sup) {
                Some(vm.class_name(sup))
            } else {
                return Err(Prim::Fail);
            };
            let kind = match vm.string_of(a.arg(vm, 5)).as_deref() {
                Some("variable") => Some(Kind::Variable),
                Some("bytes") => Some(Kind::Bytes),
                Some("words") => Some(Kind::Words),
                Some("weak") => Some(Kind::Weak),
                Some("fixed") => Some(Kind::Fixed),
                None => None,
                _ => return Err(Prim::Fail),
            };
            let spec = ClassSpec {
                name,
                superclass,
                kind,
                ivars: strings(vm, a.arg(vm, 2))?,
                class_vars: strings(vm, a.arg(vm, 3))?,
                class_ivars: strings(vm, a.arg(vm, 4))?,
                category: vm.string_of(a.arg(vm, 6)).unwrap_or_default(),
            };
            match define_class(vm, &spec) {
                Ok(c) => Ok(c),
                Err(message) => {
                    vm.last_compile_error = Some(crate::error::CompileError { message, offset: 0, line: 0, column: 0 });
                    Err(Prim::Fail)
                }
            }
        }
        table::BEHAVIOR_COMPILE => {
            // compile: source classified: protocol  -> selector, or fail (see lastCompileError)
            if !vm.is_behavior(r) {
                return Err(Prim::Fail);
            }
            let source = vm.string_of(a.arg(vm, 0)).ok_or(Prim::Fail)?;
            // nil: the replaced method's protocol, or "as yet unclassified".
            let protocol = a.arg(vm, 1);
            match vm.compile_and_install(r, &source, protocol) {
                Ok(method) => vm.code_of(method).map(|c| c.selector).ok_or(Prim::Fail),
                Err(e) => {
                    vm.last_compile_error = Some(e);
                    Err(Prim::Fail)
                }
            }
        }
        table::BEHAVIOR_REMOVE_SELECTOR => {
            if !vm.may_change_code {
                return Err(Prim::Fail);
            }
            let selector = a.arg(vm, 0);
            Ok(remove_method(vm, r, selector)?.unwrap_or(Value::NIL))
        }
        table::BEHAVIOR_LOOKUP_SELECTOR => {
            if !vm.is_behavior(r) {
                return Err(Prim::Fail);
            }
            Ok(vm.lookup(r, a.arg(vm, 0)).unwrap_or(Value::NIL))
        }
        table::COMPILED_METHOD_FIELD => {
            let code = vm.code_of(r).ok_or(Prim::Fail)?;
            let k = a.arg(vm, 0).as_int().ok_or(Prim::Fail)?;
            Ok(match k {
                0 => code.selector,
                1 => code.method_class.get(),
                2 => {
                    let s = code.source.to_string();
                    vm.new_string(&s)
                }
                3 => Value::small(i64::from(code.num_args)),
                4 => code.protocol.get(),
                5 => {
                    let mut lits: Vec<Value> = code.literals.to_vec();
                    for b in code.blocks.iter() {
                        lits.extend(b.literals.iter().copied());
                    }
                    vm.new_array(lits)
                }
                6 => code.pragmas,
                7 => Value::small(i64::from(code.primitive)),
                8 => {
                    let text =
                        crate::bytecode::disassemble(&code, &|v| vm.string_of(v).unwrap_or_else(|| format!("{v:?}")));
                    vm.new_string(&text)
                }
                _ => return Err(Prim::Fail),
            })
        }
        table::COMPILED_METHOD_SET_PROTOCOL => {
            if !vm.may_change_code {
                return Err(Prim::Fail);
            }
            let code = vm.code_of(r).ok_or(Prim::Fail)?;
            code.protocol.set(a.arg(vm, 0));
            vm.heap.note_store(r);
            Ok(r)
        }
        table::CLASS_RENAME => {
            rename_class(vm, r, a.arg(vm, 0))?;
            Ok(r)
        }
        table::CLASS_REMOVE_FROM_SYSTEM => {
            remove_class(vm, r)?;
            Ok(r)
        }
        _ => Err(Prim::Fail),
    }
}

pub(crate) fn remove_class(vm: &mut Vm, class: Value) -> Result<(), Prim> {
    if !vm.may_change_code || !vm.is_behavior(class) || vm.is_metaclass(class) {
        return Err(Prim::Fail);
    }
    let name = vm.heap.slot(class, cs::NAME).ok_or(Prim::Fail)?;
    let sup = vm.superclass_of(class);
    remove_subclass(vm, sup, class);
    if let Some(d) = vm.dict_mut(vm.known.smalltalk) {
        d.remove(name);
    }
    vm.heap.note_store(vm.known.smalltalk);
    vm.flush_caches();
    vm.code_changed();
    Ok(())
}

/// Names `class` `name` (a Symbol that names no global yet): its binding in `Smalltalk` (the
/// Association methods compiled against it hold) takes the new key, so those methods go on
/// working until their source is rewritten.
fn rename_class(vm: &mut Vm, class: Value, name: Value) -> Result<(), Prim> {
    if !vm.may_change_code || !vm.is_behavior(class) || vm.is_metaclass(class) || !vm.is_symbol(name) {
        return Err(Prim::Fail);
    }
    let text = vm.string_of(name).ok_or(Prim::Fail)?;
    let mut chars = text.chars();
    let named = chars.next().is_some_and(char::is_uppercase) && chars.all(|c| c.is_alphanumeric() || c == '_');
    let smalltalk = vm.known.smalltalk;
    let old = vm.heap.slot(class, cs::NAME).ok_or(Prim::Fail)?;
    let dict = vm.dict(smalltalk).ok_or(Prim::Fail)?;
    let binding = dict.get(old).ok_or(Prim::Fail)?;
    if !named || dict.get(name).is_some() || !vm.fault_in(binding) {
        return Err(Prim::Fail);
    }
    // Nothing is changed until everything it needs is in memory.
    let dict = vm.dict_mut(smalltalk).ok_or(Prim::Fail)?;
    dict.remove(old);
    dict.insert(name, binding);
    vm.heap.note_store(smalltalk);
    vm.heap.set_slot(binding, 0, name);
    vm.heap.set_slot(class, cs::NAME, name);
    vm.flush_caches();
    vm.code_changed();
    Ok(())
}

/// Removes the method `selector` of `behavior`; answers it, if there was one.
pub(crate) fn remove_method(vm: &mut Vm, behavior: Value, selector: Value) -> Result<Option<Value>, Prim> {
    let dict = vm.heap.slot(behavior, cs::METHOD_DICT).ok_or(Prim::Fail)?;
    let removed = vm.dict_mut(dict).ok_or(Prim::Fail)?.remove(selector);
    vm.heap.note_store(dict);
    vm.flush_caches();
    vm.code_changed();
    Ok(removed)
}

fn remove_subclass(vm: &mut Vm, sup: Value, class: Value) {
    let subs = vm.heap.slot(sup, cs::SUBCLASSES).and_then(|s| vm.array_items(s)).unwrap_or_default();
    let kept: Vec<Value> = subs.into_iter().filter(|&c| c != class).collect();
    let arr = vm.new_array(kept);
    vm.heap.set_slot(sup, cs::SUBCLASSES, arr);
}

fn add_subclass(vm: &mut Vm, sup: Value, class: Value) {
    if sup.is_nil() {
        return;
    }
    if let Some(gathered) = vm.gathered_subclasses.as_mut() {
        gathered.push((sup, class));
        return;
    }
    add_subclasses(vm, sup, &[class]);
}

/// Adds `classes` (those not there yet) to the subclasses of `sup`, in one new Array.
fn add_subclasses(vm: &mut Vm, sup: Value, classes: &[Value]) {
    let mut subs = vm.heap.slot(sup, cs::SUBCLASSES).and_then(|s| vm.array_items(s)).unwrap_or_default();
    let held: std::collections::HashSet<Value> = subs.iter().copied().collect();
    let mut added = std::collections::HashSet::new();
    subs.extend(classes.iter().copied().filter(|c| !held.contains(c) && added.insert(*c)));
    let arr = vm.new_array(subs);
    vm.heap.set_slot(sup, cs::SUBCLASSES, arr);
}

impl Vm {
    /// Runs `f`, which defines classes, entering the new subclasses of each superclass at the
    /// end, together (defining thousands of subclasses of one class one at a time would copy
    /// its subclasses Array thousands of times). A class removed meanwhile is not entered.
    pub(crate) fn with_subclasses_gathered<T>(&mut self, f: impl FnOnce(&mut Vm) -> T) -> T {
        let outer = self.gathered_subclasses.replace(Vec::new());
        let result = f(self);
        let gathered = std::mem::replace(&mut self.gathered_subclasses, outer).unwrap_or_default();
        let mut by_superclass: Vec<(Value, Vec<Value>)> = Vec::new();
        for (sup, class) in gathered {
            // Entered only if `sup` is still its superclass (a later redefinition may have moved it).
            if self.superclass_of(class) != sup {
                continue;
            }
            match by_superclass.iter_mut().find(|(s, _)| *s == sup) {
                Some((_, classes)) => classes.push(class),
                None => by_superclass.push((sup, vec![class])),
            }
        }
        for (sup, classes) in by_superclass {
            add_subclasses(self, sup, &classes);
        }
        result
    }
}

fn symbols(vm: &mut Vm, names: &[String]) -> Value {
    let items = names.iter().map(|n| vm.intern(n)).collect();
    vm.new_array(items)
}

fn names_of(vm: &Vm, arr: Value) -> Vec<String> {
    vm.array_items(arr).unwrap_or_default().iter().filter_map(|&v| vm.string_of(v)).collect()
}

/// Why a user without the privilege cannot change code.
pub const NO_CODE_CHANGES: &str = "permission denied: this user may not change code";

/// Defines a class, or redefines an existing one: a changed shape migrates its instances
/// (and those of its subclasses) by instance variable name and recompiles their methods.
/// A failed definition changes nothing.
pub(crate) fn define_class(vm: &mut Vm, spec: &ClassSpec) -> Result<Value, String> {
    if !vm.may_change_code {
        return Err(NO_CODE_CHANGES.into());
    }
    let superclass = match &spec.superclass {
        None => Value::NIL,
        Some(s) => match vm.global(s) {
            Some(c) if vm.is_behavior(c) && !vm.is_metaclass(c) => c,
            _ => return Err(format!("superclass {s} of {} is not defined", spec.name)),
        },
    };
    let sup = if superclass.is_nil() { None } else { Some(vm.format_of(superclass).ok_or("bad superclass format")?) };
    let inherited = if superclass.is_nil() { Vec::new() } else { crate::compiler::all_ivar_names(vm, superclass) };
    let (kind, named) = layout(spec, sup, &inherited)?;
    let existing = vm.global(&spec.name).filter(|&c| vm.is_behavior(c) && !vm.is_metaclass(c));
    // A VM class keeps its special layout when the definition does not ask for another.
    let kind = match existing.and_then(|c| vm.format_of(c)) {
        Some((k, _)) if !k.is_indexable() && k != Kind::Fixed && matches!(spec.kind, None | Some(Kind::Fixed)) => k,
        _ => kind,
    };
    if let Some(c) = existing
        && !superclass.is_nil()
        && vm.inherits_from(superclass, c)
    {
        return Err(format!("{} cannot inherit from itself", spec.name));
    }
    let class = match existing {
        Some(c) => {
            redefine(vm, c, superclass, kind, named, spec)?;
            c
        }
        None => {
            let meta_sup = if superclass.is_nil() { vm.known.class } else { vm.class_of(superclass) };
            let c = new_class(vm, &spec.name, superclass, meta_sup, kind, named, &spec.ivars, &spec.class_ivars);
            vm.set_global(&spec.name, c);
            c
        }
    };
    let pool = vm.heap.slot(class, cs::CLASS_POOL).unwrap_or(Value::NIL);
    for cv in &spec.class_vars {
        let sym = vm.intern(cv);
        if vm.dict(pool).is_some_and(|d| d.get(sym).is_none()) {
            let assoc = vm.new_association(sym, Value::NIL);
            if let Some(d) = vm.dict_mut(pool) {
                d.insert(sym, assoc);
            }
        }
    }
    let cat = vm.new_string(&spec.category);
    vm.heap.set_slot(class, cs::CATEGORY, cat);
    vm.flush_caches();
    vm.code_changed();
    Ok(class)
}

/// The layout (kind, named slot count) of a class defined as `spec` under a superclass of
/// layout `sup` (none without a superclass) whose instance variables are `inherited`, or why
/// it cannot be so defined.
pub(crate) fn layout(
    spec: &ClassSpec,
    sup: Option<(Kind, usize)>,
    inherited: &[String],
) -> Result<(Kind, usize), String> {
    let mut chars = spec.name.chars();
    let named_well = chars.next().is_some_and(char::is_uppercase) && chars.all(|c| c.is_alphanumeric() || c == '_');
    if !named_well {
        return Err(format!("invalid class name '{}'", spec.name));
    }
    let (sup_kind, sup_named) = sup.unwrap_or((Kind::Fixed, 0));
    let kind = match (sup_kind, spec.kind) {
        (Kind::Fixed, k) => k.unwrap_or(Kind::Fixed),
        (Kind::Variable, None | Some(Kind::Fixed | Kind::Variable)) => Kind::Variable,
        // A weak subclass of a pointer class: WeakArray of Array, as in Pharo.
        (Kind::Variable | Kind::Weak, Some(Kind::Weak)) => Kind::Weak,
        (Kind::Bytes, None | Some(Kind::Bytes | Kind::Fixed)) => Kind::Bytes,
        (Kind::Words, None | Some(Kind::Words | Kind::Fixed)) => Kind::Words,
        // A word subclass of a byte class: WideString of String, as in Pharo.
        (Kind::Bytes, Some(Kind::Words)) => Kind::Words,
        (special, None | Some(Kind::Fixed)) => special,
        (s, Some(k)) => return Err(format!("{} cannot be {k:?}: its superclass is {s:?}", spec.name)),
    };
    for (i, n) in spec.ivars.iter().enumerate() {
        if inherited.contains(n) || spec.ivars[..i].contains(n) {
            return Err(format!("instance variable {n} is defined twice in {}", spec.name));
        }
    }
    if matches!(kind, Kind::Bytes | Kind::Words) && sup_named + spec.ivars.len() > 0 {
        return Err(format!("byte or word class {} cannot have instance variables", spec.name));
    }
    Ok((kind, sup_named + spec.ivars.len()))
}

/// Allocates a class and its metaclass.
#[allow(clippy::too_many_arguments)]
pub(crate) fn new_class(
    vm: &mut Vm,
    name: &str,
    superclass: Value,
    meta_superclass: Value,
    kind: Kind,
    named: usize,
    ivars: &[String],
    class_ivars: &[String],
) -> Value {
    let meta_named = vm.format_of(meta_superclass).map_or(cs::CLASS_SIZE, |(_, n)| n) + class_ivars.len();
    let meta_ivars = symbols(vm, class_ivars);
    let md = vm.new_dict(vm.known.method_dictionary);
    let metaclass = vm.heap.alloc(
        vm.known.metaclass,
        cs::METACLASS_SIZE,
        Body::Slots(
            vec![
                meta_superclass,
                md,
                Value::small(format(Kind::Fixed, meta_named)),
                meta_ivars,
                Value::NIL,
                Value::NIL,
            ]
            .into(),
        ),
    );
    let md = vm.new_dict(vm.known.method_dictionary);
    let ivar_syms = symbols(vm, ivars);
    let name_sym = vm.intern(name);
    let subclasses = vm.new_array(Vec::new());
    let pool = vm.new_dict(vm.known.symbol_dictionary);
    let pools = vm.new_array(Vec::new());
    let empty = vm.new_string("");
    let mut slots = vec![
        superclass,
        md,
        Value::small(format(kind, named)),
        ivar_syms,
        name_sym,
        subclasses,
        pool,
        pools,
        empty,
        Value::NIL,
        Value::NIL,
    ];
    slots.resize(meta_named.max(cs::CLASS_SIZE), Value::NIL);
    let class = vm.heap.alloc(metaclass, meta_named.max(cs::CLASS_SIZE), Body::Slots(slots.into()));
    vm.heap.set_slot(metaclass, cs::THIS_CLASS, class);
    add_subclass(vm, superclass, class);
    class
}

fn redefine(
    vm: &mut Vm,
    class: Value,
    superclass: Value,
    kind: Kind,
    named: usize,
    spec: &ClassSpec,
) -> Result<(), String> {
    let old_sup = vm.superclass_of(class);
    let old_format = vm.format_of(class).ok_or("bad class format")?;
    let old_ivars = names_of(vm, vm.heap.slot(class, cs::INST_VARS).unwrap_or(Value::NIL));
    let metaclass = vm.class_of(class);
    let old_class_ivars = names_of(vm, vm.heap.slot(metaclass, cs::INST_VARS).unwrap_or(Value::NIL));
    let same = old_sup == superclass
        && old_format == (kind, named)
        && old_ivars == spec.ivars
        && old_class_ivars == spec.class_ivars;
    if same {
        return Ok(());
    }
    if old_format.0 != kind && !(old_format.0.is_indexable() || kind.is_indexable()) && old_format.0 != Kind::Fixed {
        return Err(format!("{} is a VM class whose layout cannot change", spec.name));
    }
    // Every class whose layout depends on this one: itself and its subclasses.
    let mut affected = vec![class];
    let mut i = 0;
    while let Some(&c) = affected.get(i) {
        let subs = vm.heap.slot(c, cs::SUBCLASSES).and_then(|s| vm.array_items(s)).unwrap_or_default();
        affected.extend(subs);
        i += 1;
        if affected.len() > 100_000 {
            return Err("class hierarchy too large".into());
        }
    }
    let old_names: Vec<Vec<String>> = affected.iter().map(|&c| crate::compiler::all_ivar_names(vm, c)).collect();
    let metas: Vec<Value> = affected.iter().map(|&c| vm.class_of(c)).collect();
    let old_meta_names: Vec<Vec<String>> = metas.iter().map(|&m| crate::compiler::all_ivar_names(vm, m)).collect();
    // Apply the new shape.
    if old_sup != superclass {
        remove_subclass(vm, old_sup, class);
        add_subclass(vm, superclass, class);
        let meta_sup = if superclass.is_nil() { vm.known.class } else { vm.class_of(superclass) };
        vm.heap.set_slot(metaclass, cs::SUPERCLASS, meta_sup);
        vm.heap.set_slot(class, cs::SUPERCLASS, superclass);
    }
    let ivar_syms = symbols(vm, &spec.ivars);
    vm.heap.set_slot(class, cs::INST_VARS, ivar_syms);
    vm.heap.set_slot(class, cs::FORMAT, Value::small(format(kind, named)));
    let civars = symbols(vm, &spec.class_ivars);
    vm.heap.set_slot(metaclass, cs::INST_VARS, civars);
    // Subclasses' formats follow.
    for &c in affected.iter().skip(1) {
        let own = vm.heap.slot(c, cs::INST_VARS).map(|a| names_of(vm, a).len()).unwrap_or(0);
        let sup = vm.superclass_of(c);
        let (_, sup_named) = vm.format_of(sup).unwrap_or((Kind::Fixed, 0));
        let (k, _) = vm.format_of(c).unwrap_or((Kind::Fixed, 0));
        vm.heap.set_slot(c, cs::FORMAT, Value::small(format(k, sup_named + own)));
    }
    // Metaclass formats follow (class-side instance variables), and the class objects
    // themselves, instances of the metaclasses, migrate.
    for &m in &metas {
        let own = vm.heap.slot(m, cs::INST_VARS).map(|a| names_of(vm, a).len()).unwrap_or(0);
        let sup = vm.superclass_of(m);
        let (_, sup_named) = vm.format_of(sup).unwrap_or((Kind::Fixed, cs::CLASS_SIZE));
        vm.heap.set_slot(m, cs::FORMAT, Value::small(format(Kind::Fixed, sup_named + own)));
    }
    for (idx, &c) in affected.iter().enumerate() {
        let Some(&m) = metas.get(idx) else { continue };
        let new_names = crate::compiler::all_ivar_names(vm, m);
        let old = old_meta_names.get(idx).cloned().unwrap_or_default();
        if new_names != old {
            migrate(vm, c, &old, &new_names);
        }
    }
    // Migrate instances by instance variable name.
    for (idx, &c) in affected.iter().enumerate() {
        let new_names = crate::compiler::all_ivar_names(vm, c);
        let old = old_names.get(idx).cloned().unwrap_or_default();
        if new_names == old {
            continue;
        }
        let instances: Vec<Value> = vm.heap.all_objects().filter(|(_, o)| o.class == c).map(|(v, _)| v).collect();
        for inst in instances {
            migrate(vm, inst, &old, &new_names);
        }
    }
    // Recompile methods of the affected classes (instance variable indices may have moved).
    for &c in &affected {
        recompile_all(vm, c);
        let meta = vm.class_of(c);
        recompile_all(vm, meta);
    }
    Ok(())
}

/// Rebuilds an object's named slots for a new list of instance variable names, keeping the
/// values of the names that remain.
fn migrate(vm: &mut Vm, inst: Value, old: &[String], new_names: &[String]) {
    let Some(obj) = vm.heap.get_mut(inst) else { return };
    let old_named = obj.named as usize;
    let Some(slots) = obj.slots() else { return };
    let indexed: Vec<Value> = slots.get(old_named..).unwrap_or(&[]).to_vec();
    let mut fresh: Vec<Value> = new_names
        .iter()
        .map(|n| old.iter().position(|o| o == n).and_then(|p| slots.get(p).copied()).unwrap_or(Value::NIL))
        .collect();
    fresh.extend(indexed);
    match &mut obj.body {
        Body::Slots(s) => *s = fresh.into(),
        Body::Process(p) => p.slots = fresh.into(),
        _ => return,
    }
    obj.named = new_names.len() as u16;
    vm.heap.note_store(inst);
}

fn recompile_all(vm: &mut Vm, class: Value) {
    let dict = vm.heap.slot(class, cs::METHOD_DICT).unwrap_or(Value::NIL);
    let methods: Vec<Value> = vm.dict(dict).map(|d| d.entries().iter().map(|&(_, m)| m).collect()).unwrap_or_default();
    for m in methods {
        let Some(code) = vm.code_of(m) else { continue };
        let source = code.source.to_string();
        let protocol = code.protocol.get();
        if let Err(e) = vm.compile_and_install(class, &source, protocol) {
            let message = format!("{}>>{}: {e}", vm.class_name(class), vm.string_of(code.selector).unwrap_or_default());
            // About another method than any source compiled: no position.
            vm.warnings.push(crate::error::CompileError { message, offset: 0, line: 0, column: 0 });
        }
    }
}

impl Vm {
    /// Wraps compiled code in a CompiledMethod object.
    pub fn new_method(&mut self, code: Rc<CompiledCode>) -> Value {
        let class = self.known.compiled_method;
        self.heap.alloc(class, 0, Body::Method(code))
    }

    /// Compiles `source` in `class` and installs it under its selector with `protocol` (nil:
    /// the protocol of the method it replaces, or "as yet unclassified" for a new one).
    pub fn compile_and_install(
        &mut self,
        class: Value,
        source: &str,
        protocol: Value,
    ) -> Result<Value, crate::error::CompileError> {
        if !self.may_change_code {
            return Err(crate::error::CompileError { message: NO_CODE_CHANGES.into(), offset: 0, line: 1, column: 1 });
        }
        let code = compiler::compile(self, source, class, Mode::Method)?;
        Ok(self.install_code(class, code, protocol))
    }

    /// Installs compiled `code` as a method of `class`, in `protocol` (nil: the protocol of
    /// the method it replaces, or the one new methods go in), and answers the method.
    pub(crate) fn install_code(&mut self, class: Value, code: Rc<CompiledCode>, protocol: Value) -> Value {
        // Its blocks' super sends start above the same class (code checked before its class
        // existed was compiled against another).
        for c in std::iter::once(&code).chain(code.blocks.iter()) {
            c.method_class.set(class);
        }
        let selector = code.selector;
        let dict = self.heap.slot(class, cs::METHOD_DICT).unwrap_or(Value::NIL);
        let protocol = if protocol.is_nil() {
            // The protocol of the method it replaces, or the one new methods go in.
            let replaced = self.dict(dict).and_then(|d| d.get(selector));
            match replaced.and_then(|m| self.code_of(m)).map(|c| c.protocol.get()) {
                Some(p) if !p.is_nil() => p,
                _ => self.intern("as yet unclassified"),
            }
        } else {
            protocol
        };
        code.protocol.set(protocol);
        let method = self.new_method(code);
        if let Some(d) = self.dict_mut(dict) {
            d.insert(selector, method);
        }
        self.heap.note_store(dict);
        self.flush_caches();
        self.code_changed();
        method
    }
}
