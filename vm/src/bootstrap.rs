//! Bootstrap: the classes the VM itself knows, made by hand before any Smalltalk runs, and
//! the objects and selectors it refers to. The kernel's Tonel definitions of these classes
//! must agree with [`CORE`] (the loader checks).

use crate::heap::{Body, Kind, object::format};
use crate::value::Value;
use crate::vm::{Vm, class_slots as cs};

/// A class the VM depends on: name, superclass, instance layout, own instance variables.
pub(crate) struct CoreClass {
    pub name: &'static str,
    pub superclass: Option<&'static str>,
    pub kind: Kind,
    pub ivars: &'static [&'static str],
}

const fn core(
    name: &'static str,
    superclass: Option<&'static str>,
    kind: Kind,
    ivars: &'static [&'static str],
) -> CoreClass {
    CoreClass { name, superclass, kind, ivars }
}

/// The VM's classes, superclasses first.
pub(crate) const CORE: &[CoreClass] = &[
    core("Object", None, Kind::Fixed, &[]),
    core("Behavior", Some("Object"), Kind::Fixed, &["superclass", "methodDict", "format"]),
    core("ClassDescription", Some("Behavior"), Kind::Fixed, &["instanceVariables"]),
    core(
        "Class",
        Some("ClassDescription"),
        Kind::Fixed,
        &["name", "subclasses", "classPool", "sharedPools", "category", "comment", "organization"],
    ),
    core("Metaclass", Some("ClassDescription"), Kind::Fixed, &["thisClass", "organization"]),
    core("UndefinedObject", Some("Object"), Kind::Immediate, &[]),
    core("Boolean", Some("Object"), Kind::Immediate, &[]),
    core("True", Some("Boolean"), Kind::Immediate, &[]),
    core("False", Some("Boolean"), Kind::Immediate, &[]),
    core("Magnitude", Some("Object"), Kind::Fixed, &[]),
    core("Character", Some("Magnitude"), Kind::Immediate, &[]),
    core("Number", Some("Magnitude"), Kind::Fixed, &[]),
    core("Integer", Some("Number"), Kind::Fixed, &[]),
    core("SmallInteger", Some("Integer"), Kind::Immediate, &[]),
    core("LargeInteger", Some("Integer"), Kind::Fixed, &[]),
    core("LargePositiveInteger", Some("LargeInteger"), Kind::Large, &[]),
    core("LargeNegativeInteger", Some("LargePositiveInteger"), Kind::Large, &[]),
    core("Float", Some("Number"), Kind::Float, &[]),
    core("SmallFloat64", Some("Float"), Kind::Immediate, &[]),
    core("Collection", Some("Object"), Kind::Fixed, &[]),
    core("SequenceableCollection", Some("Collection"), Kind::Fixed, &[]),
    core("ArrayedCollection", Some("SequenceableCollection"), Kind::Fixed, &[]),
    core("Array", Some("ArrayedCollection"), Kind::Variable, &[]),
    core("String", Some("ArrayedCollection"), Kind::Bytes, &[]),
    core("Symbol", Some("String"), Kind::Bytes, &[]),
    core("WideString", Some("String"), Kind::Words, &[]),
    core("WideSymbol", Some("Symbol"), Kind::Words, &[]),
    core("ByteArray", Some("ArrayedCollection"), Kind::Bytes, &[]),
    core("CompiledMethod", Some("Object"), Kind::Method, &[]),
    core(
        "BlockClosure",
        Some("Object"),
        Kind::Variable,
        &["outerFrame", "method", "blockIndex", "receiver", "homeFrame"],
    ),
    core("Context", Some("Object"), Kind::Fixed, &["process", "frameId", "receiver", "method"]),
    core("Process", Some("Object"), Kind::Process, &["priority", "name", "myList", "env"]),
    core("Semaphore", Some("Object"), Kind::Semaphore, &[]),
    core("Association", Some("Magnitude"), Kind::Fixed, &["key", "value"]),
    core("MethodDictionary", Some("Collection"), Kind::Dict, &[]),
    core("SymbolDictionary", Some("Collection"), Kind::Dict, &[]),
    core("SystemDictionary", Some("SymbolDictionary"), Kind::Dict, &[]),
    core("Message", Some("Object"), Kind::Fixed, &["selector", "arguments", "lookupClass"]),
    core("ProcessorScheduler", Some("Object"), Kind::Fixed, &[]),
];

/// The core class named `name`.
pub(crate) fn core_class(name: &str) -> Option<&'static CoreClass> {
    CORE.iter().find(|c| c.name == name)
}

impl Vm {
    /// A VM holding the core classes, `Smalltalk`, `Undeclared` and `Processor`; no methods.
    pub(crate) fn with_core_classes() -> Vm {
        let mut vm = Vm::empty();
        // 1. Placeholders, so classes can refer to each other.
        let mut classes = Vec::with_capacity(CORE.len());
        let mut metas = Vec::with_capacity(CORE.len());
        for _ in CORE {
            metas.push(vm.heap.alloc(
                Value::NIL,
                cs::METACLASS_SIZE,
                Body::Slots(vec![Value::NIL; cs::METACLASS_SIZE].into()),
            ));
            classes.push(vm.heap.alloc(
                Value::NIL,
                cs::CLASS_SIZE,
                Body::Slots(vec![Value::NIL; cs::CLASS_SIZE].into()),
            ));
        }
        let by_name = |name: &str| CORE.iter().position(|c| c.name == name);
        let class_named = |name: &str| by_name(name).and_then(|i| classes.get(i).copied()).unwrap_or(Value::NIL);
        let k = &mut vm.known;
        k.object = class_named("Object");
        k.behavior = class_named("Behavior");
        k.class_description = class_named("ClassDescription");
        k.class = class_named("Class");
        k.metaclass = class_named("Metaclass");
        k.undefined_object = class_named("UndefinedObject");
        k.boolean = class_named("Boolean");
        k.true_class = class_named("True");
        k.false_class = class_named("False");
        k.character = class_named("Character");
        k.small_integer = class_named("SmallInteger");
        k.large_positive = class_named("LargePositiveInteger");
        k.large_negative = class_named("LargeNegativeInteger");
        k.float = class_named("Float");
        k.small_float = class_named("SmallFloat64");
        k.array = class_named("Array");
        k.string = class_named("String");
        k.symbol = class_named("Symbol");
        k.wide_string = class_named("WideString");
        k.wide_symbol = class_named("WideSymbol");
        k.byte_array = class_named("ByteArray");
        k.compiled_method = class_named("CompiledMethod");
        k.block_closure = class_named("BlockClosure");
        k.context = class_named("Context");
        k.process = class_named("Process");
        k.semaphore = class_named("Semaphore");
        k.association = class_named("Association");
        k.method_dictionary = class_named("MethodDictionary");
        k.symbol_dictionary = class_named("SymbolDictionary");
        k.system_dictionary = class_named("SystemDictionary");
        k.message = class_named("Message");
        k.processor_scheduler = class_named("ProcessorScheduler");
        // 2. Headers: each class is an instance of its metaclass, each metaclass of Metaclass.
        let metaclass = vm.known.metaclass;
        for (i, _) in CORE.iter().enumerate() {
            let (c, m) = (classes[i], metas[i]);
            if let Some(o) = vm.heap.get_mut(c) {
                o.class = m;
            }
            if let Some(o) = vm.heap.get_mut(m) {
                o.class = metaclass;
            }
        }
        // 3. Slots.
        let mut named_of = vec![0usize; CORE.len()];
        for (i, def) in CORE.iter().enumerate() {
            let sup_index = def.superclass.and_then(by_name);
            let sup_named = sup_index.and_then(|s| named_of.get(s).copied()).unwrap_or(0);
            named_of[i] = sup_named + def.ivars.len();
            let superclass = sup_index.map_or(Value::NIL, |s| classes[s]);
            let meta_super = sup_index.map_or(vm.known.class, |s| metas[s]);
            let md = vm.new_dict(vm.known.method_dictionary);
            let ivars: Vec<Value> = def.ivars.iter().map(|n| vm.intern(n)).collect();
            let ivars = vm.new_array(ivars);
            let name = vm.intern(def.name);
            let pool = vm.new_dict(vm.known.symbol_dictionary);
            let pools = vm.new_array(Vec::new());
            let category = vm.new_string("");
            let slots = vec![
                superclass,
                md,
                Value::small(format(def.kind, named_of[i])),
                ivars,
                name,
                Value::NIL,
                pool,
                pools,
                category,
                Value::NIL,
                Value::NIL,
            ];
            if let Some(o) = vm.heap.get_mut(classes[i]) {
                o.body = Body::Slots(slots.into());
            }
            let md = vm.new_dict(vm.known.method_dictionary);
            let no_ivars = vm.new_array(Vec::new());
            let meta_slots = vec![
                meta_super,
                md,
                Value::small(format(Kind::Fixed, cs::CLASS_SIZE)),
                no_ivars,
                classes[i],
                Value::NIL,
            ];
            if let Some(o) = vm.heap.get_mut(metas[i]) {
                o.body = Body::Slots(meta_slots.into());
            }
        }
        // Subclass lists (metaclasses included; Object class's superclass is Class).
        for (i, _) in CORE.iter().enumerate() {
            let subs: Vec<Value> = CORE
                .iter()
                .enumerate()
                .filter(|(_, d)| d.superclass == Some(CORE[i].name))
                .map(|(j, _)| classes[j])
                .collect();
            let subs = vm.new_array(subs);
            vm.heap.set_slot(classes[i], cs::SUBCLASSES, subs);
        }
        // 4. Globals.
        let smalltalk = vm.new_dict(vm.known.system_dictionary);
        vm.known.smalltalk = smalltalk;
        vm.known.undeclared = vm.new_dict(vm.known.symbol_dictionary);
        for (i, def) in CORE.iter().enumerate() {
            vm.set_global(def.name, classes[i]);
        }
        vm.set_global("Smalltalk", smalltalk);
        let undeclared = vm.known.undeclared;
        vm.set_global("Undeclared", undeclared);
        // What every user may keep and change, as GemStone's (each user's own `UserGlobals`
        // is in their `UserProfile`: see `profile.rs`).
        let published = vm.new_dict(vm.known.symbol_dictionary);
        vm.set_global("Published", published);
        let processor_class = vm.known.processor_scheduler;
        vm.known.processor = vm.heap.alloc(processor_class, 0, Body::Slots(Vec::new().into()));
        let processor = vm.known.processor;
        vm.set_global("Processor", processor);
        // 5. Selectors the interpreter sends on its own.
        vm.intern_known_selectors();
        vm
    }

    /// Interns the selectors the interpreter sends on its own (once the Symbol class is
    /// known).
    pub(crate) fn intern_known_selectors(&mut self) {
        self.known.sel_does_not_understand = self.intern("doesNotUnderstand:");
        self.known.sel_must_be_boolean = self.intern("mustBeBoolean");
        self.known.sel_cannot_return = self.intern("cannotReturn:");
        self.known.sel_about_to_return = self.intern("aboutToReturn:through:");
        self.known.sel_stack_overflow = self.intern("stackOverflow");
        self.known.sel_out_of_memory = self.intern("outOfMemory");
        self.known.sel_do_it = self.intern("DoIt");
        self.known.sel_at_put = self.intern("at:put:");
        self.known.bin_selectors = crate::bytecode::BinOp::ALL.iter().map(|op| self.intern(op.selector())).collect();
    }

    /// Every value the VM keeps alive by itself (for the collector).
    pub(crate) fn roots(&self) -> Vec<Value> {
        let mut out = self.known.all();
        out.extend(self.symbols.values().copied());
        out.extend(self.handles.iter().copied());
        out.extend(self.watch);
        self.debug.roots(&mut out);
        self.scheduler_roots(&mut out);
        self.persistent_roots(&mut out);
        out.push(self.session_temps);
        out.push(self.profile);
        out
    }

    /// Runs the collector now (the interpreter calls this at safepoints only).
    pub(crate) fn collect_garbage(&mut self) -> usize {
        let roots = self.roots();
        let freed = self.heap.collect(&roots);
        self.forget_dead_assignments();
        self.evict_over_budget();
        self.flush_caches();
        freed
    }
}
