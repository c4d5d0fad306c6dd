//! The `Vm`: object memory plus the classes and objects the interpreter knows by name,
//! symbols, method lookup and its caches, and helpers to make and read common objects.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use num_bigint::BigInt;
use num_traits::ToPrimitive;
use rustc_hash::FxHashMap;

use crate::bytecode::CompiledCode;
use crate::heap::{Body, Dict, Heap, Kind, object};
use crate::scheduler::Scheduler;
use crate::value::Value;

/// Slot indices of class objects (Behavior, ClassDescription, Class / Metaclass).
pub mod class_slots {
    /// `superclass`
    pub const SUPERCLASS: usize = 0;
    /// `methodDict` (a MethodDictionary)
    pub const METHOD_DICT: usize = 1;
    /// `format`: `kind << 16 | named slot count`
    pub const FORMAT: usize = 2;
    /// `instanceVariables`: an Array of Symbols, this class's own.
    pub const INST_VARS: usize = 3;
    /// Class: `name` (a Symbol); Metaclass: `thisClass`.
    pub const NAME: usize = 4;
    /// Metaclass: `thisClass`.
    pub const THIS_CLASS: usize = 4;
    /// `subclasses` (an Array)
    pub const SUBCLASSES: usize = 5;
    /// `classPool` (a native dictionary of Associations)
    pub const CLASS_POOL: usize = 6;
    /// `sharedPools` (an Array of pool names)
    pub const SHARED_POOLS: usize = 7;
    /// `category` (a String: the package)
    pub const CATEGORY: usize = 8;
    /// `comment` (a String)
    pub const COMMENT: usize = 9;
    /// Class: `organization` (the protocols named by hand that hold no method yet, an Array
    /// of Symbols, or nil); only Smalltalk reads it. (A Metaclass's is its slot 5.)
    pub const ORGANIZATION: usize = 10;
    /// Named slots of a Class instance.
    pub const CLASS_SIZE: usize = 11;
    /// Named slots of a Metaclass instance: `thisClass`, then `organization`.
    pub const METACLASS_SIZE: usize = 6;
}

use class_slots as cs;

/// Classes and objects the VM refers to directly; filled in at boot.
#[derive(Default, Clone, Debug)]
#[allow(missing_docs)]
pub struct Known {
    pub object: Value,
    pub behavior: Value,
    pub class_description: Value,
    pub class: Value,
    pub metaclass: Value,
    pub undefined_object: Value,
    pub boolean: Value,
    pub true_class: Value,
    pub false_class: Value,
    pub small_integer: Value,
    pub large_positive: Value,
    pub large_negative: Value,
    pub float: Value,
    /// The class of immediate floats.
    pub small_float: Value,
    pub character: Value,
    pub string: Value,
    pub symbol: Value,
    pub wide_string: Value,
    pub wide_symbol: Value,
    pub byte_array: Value,
    pub array: Value,
    pub compiled_method: Value,
    pub block_closure: Value,
    pub context: Value,
    pub process: Value,
    pub semaphore: Value,
    pub association: Value,
    pub method_dictionary: Value,
    pub symbol_dictionary: Value,
    pub system_dictionary: Value,
    pub message: Value,
    pub processor_scheduler: Value,
    /// The `Smalltalk` SystemDictionary (global bindings, native Dict of Associations).
    pub smalltalk: Value,
    /// Bindings of variables referenced before they were defined.
    pub undeclared: Value,
    /// The `Processor` object.
    pub processor: Value,
    pub sel_does_not_understand: Value,
    pub sel_must_be_boolean: Value,
    pub sel_cannot_return: Value,
    pub sel_about_to_return: Value,
    pub sel_stack_overflow: Value,
    pub sel_out_of_memory: Value,
    pub sel_do_it: Value,
    pub sel_at_put: Value,
    /// Selectors of the [`crate::bytecode::BinOp`]s, by discriminant.
    pub bin_selectors: Vec<Value>,
}

/// The identity hash of the symbol named `bytes` (FNV-1a, in the range of identity hashes).
fn symbol_hash(bytes: &[u8]) -> u32 {
    let h = bytes.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    h & 0x3FFF_FFFF
}

/// Lists the classes and objects of [`Known`] once, in the order the repository's root keeps
/// them.
macro_rules! known_objects {
    ($($field:ident),* $(,)?) => {
        impl Known {
            /// The classes and objects the VM knows by role (not the selectors), in a fixed
            /// order.
            pub fn objects(&self) -> Vec<Value> {
                vec![$(self.$field),*]
            }

            /// Sets what [`Known::objects`] answers, from a list in the same order; answers
            /// false (changing nothing) when the list has the wrong length.
            pub fn set_objects(&mut self, values: &[Value]) -> bool {
                let fields = [$(&mut self.$field),*];
                if values.len() != fields.len() {
                    return false;
                }
                for (field, &v) in fields.into_iter().zip(values) {
                    *field = v;
                }
                true
            }
        }
    };
}

known_objects!(
    smalltalk,
    undeclared,
    processor,
    object,
    behavior,
    class_description,
    class,
    metaclass,
    undefined_object,
    boolean,
    true_class,
    false_class,
    small_integer,
    large_positive,
    large_negative,
    float,
    small_float,
    character,
    string,
    symbol,
    wide_string,
    wide_symbol,
    byte_array,
    array,
    compiled_method,
    block_closure,
    context,
    process,
    semaphore,
    association,
    method_dictionary,
    symbol_dictionary,
    system_dictionary,
    message,
    processor_scheduler,
);

impl Known {
    /// Every value held here (for the collector).
    pub fn all(&self) -> Vec<Value> {
        let mut v = self.objects();
        v.extend(self.bin_selectors.iter().copied());
        v
    }
}

/// Settings of a VM.
#[derive(Clone, Copy, Debug)]
pub struct VmConfig {
    /// The frame depth at which a process gets a recursion error.
    pub max_depth: usize,
    /// When methods are compiled to native code.
    pub jit: crate::jit::JitConfig,
    /// A gem's login brings in this many bytes of objects, breadth first from the root
    /// (the globals, classes and methods first); the rest is faulted in when touched.
    pub login_budget: u64,
    /// A fault brings in this many bytes of what the touched object refers to, besides it.
    pub fault_budget: u64,
    /// A gem whose objects take more memory than this (in bytes) after a collection drops
    /// the contents of clean persistent objects (they come back when touched); `None` keeps
    /// everything.
    pub memory_budget: Option<usize>,
    /// The gem's objects may take at most this many bytes (`None`: no limit). An allocation
    /// that would pass it, after a collection, is refused with an `OutOfMemory` error, and a
    /// process whose objects grow past it little by little gets the same error at the next
    /// collection. Clean persistent objects are dropped first, as under `memory_budget`.
    pub memory_limit: Option<usize>,
    /// How many suspended processes (stopped by an error, a halt or a step) the VM keeps for
    /// a debugger; past it the oldest is terminated (see `crate::debug`).
    pub kept_suspended: usize,
}

/// The memory limit of a VM made with the default configuration: 2 GiB.
pub const DEFAULT_MEMORY_LIMIT: usize = 2 << 30;

impl Default for VmConfig {
    fn default() -> Self {
        VmConfig {
            max_depth: 100_000,
            jit: crate::jit::JitConfig::default(),
            login_budget: 32 << 20,
            fault_budget: 64 << 10,
            memory_budget: None,
            memory_limit: Some(DEFAULT_MEMORY_LIMIT),
            kept_suspended: crate::debug::DEFAULT_KEPT,
        }
    }
}

/// One Smalltalk virtual machine: heap, classes, processes.
pub struct Vm {
    /// Object memory.
    pub heap: Heap,
    /// Classes and objects known by name.
    pub known: Known,
    /// Settings.
    pub config: VmConfig,
    pub(crate) symbols: HashMap<Vec<u8>, Value>,
    pub(crate) method_cache: FxHashMap<(Value, Value), Value>,
    /// Bumped whenever cached lookups may be stale (method changes, collections).
    pub(crate) cache_epoch: u32,
    pub(crate) scheduler: Scheduler,
    pub(crate) next_frame_id: u64,
    /// How many methods and blocks have been compiled to native code.
    pub(crate) native_compiled: usize,
    /// Set from any thread to make the running evaluation stop at its next interrupt check.
    pub interrupt: Arc<AtomicBool>,
    /// Whether code may be changed now (methods compiled or removed, classes defined, code
    /// committed): the host clears it for a user without that privilege
    /// ([`Vm::set_may_change_code`]). A process takes it from its creator and puts it back in
    /// force whenever it runs, so no Smalltalk code can raise it.
    pub(crate) may_change_code: bool,
    /// Counts changes to code: methods compiled or removed, classes defined or removed, and
    /// code objects reloaded after others changed them (see [`Vm::code_epoch`]).
    pub(crate) code_epoch: u64,
    /// Objects the host holds (kept alive across collections).
    pub(crate) handles: Vec<Value>,
    /// Transcript output not yet taken by the host.
    pub(crate) transcript: String,
    /// Warnings from the compiler (undeclared variables), not yet taken.
    pub(crate) warnings: Vec<crate::error::CompileError>,
    /// While a load defines its classes: the (superclass, class) pairs whose subclass entries
    /// are made together at the end (`Vm::with_subclasses_gathered`), one Array per superclass
    /// rather than one per class.
    pub(crate) gathered_subclasses: Option<Vec<(Value, Value)>>,
    /// The process whose end makes [`Vm::run`] return.
    pub(crate) watch: Option<Value>,
    /// Set when the watched process finished or was suspended.
    pub(crate) watch_stopped: bool,
    /// The process the host's last [`Vm::poll`] ran, until it is done: polling it again goes
    /// on from where its slice left the scheduler (see `Vm::poll`).
    pub(crate) host_turn: Value,
    /// The frame depth at which the running process's next activation is refused
    /// (`config.max_depth`, raised while a recursion error is being handled).
    pub(crate) depth_limit: usize,
    /// When the VM started (the millisecond clock counts from here).
    pub(crate) started: std::time::Instant,
    /// The message of the last failed compile (for `Compiler evaluate:` and `compile:`).
    pub(crate) last_compile_error: Option<crate::error::CompileError>,
    /// The repository this VM is a gem of, if any.
    pub(crate) persist: Option<Box<crate::persist::Persistence>>,
    /// Why the last transaction or lock primitive (or fault) failed.
    pub(crate) last_store_error: Option<onyx_record::StoneError>,
    /// `System sessionTemps`: what the session keeps and never commits (nil until made).
    pub(crate) session_temps: Value,
    /// The session's user's `UserProfile` (see `profile.rs`), nil when the kernel has none.
    pub(crate) profile: Value,
    /// Set while a process handles the `OutOfMemory` error the VM signalled at a collection
    /// (the limit is raised by an eighth meanwhile, so the handler can run).
    pub(crate) memory_signalled: bool,
    /// Integer operations running off the VM thread, each with the process waiting for it.
    pub(crate) long_ops: Vec<crate::primitives::offload::LongOp>,
    /// Told whenever a long operation has its answer, so that an idle VM waits on it.
    pub(crate) long_ops_done: crate::primitives::offload::Doorbell,
    /// Why the last fault failed, until a failed send reports it (a lookup through an object
    /// that could not be faulted in finds nothing: that is this error, not a
    /// doesNotUnderstand:).
    pub(crate) fault_error: Option<onyx_record::StoneError>,
    /// The suspended processes kept for a debugger, and the step under way.
    pub(crate) debug: crate::debug::Registry,
    /// The files Smalltalk code has open.
    pub(crate) files: crate::primitives::files::Files,
    /// The sockets Smalltalk code has open.
    pub(crate) sockets: crate::primitives::sockets::Sockets,
}

impl Vm {
    /// An empty VM: no classes yet (see [`crate::bootstrap`]).
    pub(crate) fn empty() -> Vm {
        Vm {
            heap: Heap::new(),
            known: Known::default(),
            config: VmConfig::default(),
            symbols: HashMap::new(),
            method_cache: FxHashMap::default(),
            cache_epoch: 0,
            scheduler: Scheduler::default(),
            next_frame_id: 1,
            native_compiled: 0,
            interrupt: Arc::new(AtomicBool::new(false)),
            may_change_code: true,
            code_epoch: 0,
            handles: Vec::new(),
            transcript: String::new(),
            warnings: Vec::new(),
            gathered_subclasses: None,
            watch: None,
            watch_stopped: false,
            host_turn: Value::NIL,
            started: std::time::Instant::now(),
            depth_limit: VmConfig::default().max_depth,
            last_compile_error: None,
            persist: None,
            last_store_error: None,
            session_temps: Value::NIL,
            profile: Value::NIL,
            memory_signalled: false,
            long_ops: Vec::new(),
            long_ops_done: Default::default(),
            fault_error: None,
            debug: crate::debug::Registry::default(),
            files: Default::default(),
            sockets: Default::default(),
        }
    }

    /// Puts `config` in force (its recursion and memory limits included).
    pub(crate) fn set_config(&mut self, config: VmConfig) {
        self.config = config;
        self.depth_limit = config.max_depth;
        self.heap.set_limit(config.memory_limit);
        self.debug.limit = config.kept_suspended.max(1);
    }

    /// Whether the code running now may change code (compile or remove methods, define or
    /// remove classes, commit code or the users' directory).
    pub fn may_change_code(&self) -> bool {
        self.may_change_code
    }

    /// The host's word on whether the code it runs next may change code: a server sets it
    /// for each user's work. It is in force from now on, and processes made from now on
    /// take it; processes made before keep their own (a process puts its own back in force
    /// whenever it runs).
    pub fn set_may_change_code(&mut self, allowed: bool) {
        self.may_change_code = allowed;
    }

    /// How many methods and blocks have been compiled to native code so far.
    pub fn native_code_count(&self) -> usize {
        self.native_compiled
    }

    // ----------------------------------------------------------------- making objects

    /// Whether `v` is a String of any kind (a Symbol included).
    pub fn is_string(&self, v: Value) -> bool {
        let c = self.class_of(v);
        c == self.known.string || c == self.known.symbol || self.inherits_from(c, self.known.string)
    }

    /// Whether `v` is a Symbol (a WideSymbol included).
    pub fn is_symbol(&self, v: Value) -> bool {
        v.is_object()
            && self.heap.class_of_object(v).is_some_and(|c| c == self.known.symbol || c == self.known.wide_symbol)
    }

    /// The Symbol for `name`, created on first use: a WideSymbol when a character is beyond
    /// Latin-1.
    pub fn intern(&mut self, name: &str) -> Value {
        if let Some(&v) = self.symbols.get(name.as_bytes()) {
            return v;
        }
        let body = text_body(name);
        let class = if matches!(body, Body::Bytes(_)) { self.known.symbol } else { self.known.wide_symbol };
        let v = self.heap.alloc(class, 0, body);
        // A symbol's identity hash comes from its name, so that every gem of a repository
        // (each interning its own copy) agrees on it.
        if let Some(obj) = self.heap.get_mut(v) {
            obj.hash = symbol_hash(name.as_bytes());
        }
        self.symbols.insert(name.as_bytes().to_vec(), v);
        v
    }

    /// The Symbol for `name` if it exists.
    pub fn existing_symbol(&self, name: &str) -> Option<Value> {
        self.symbols.get(name.as_bytes()).copied()
    }

    /// A new String: a WideString when a character is beyond Latin-1.
    pub fn new_string(&mut self, s: &str) -> Value {
        let body = text_body(s);
        let class = if matches!(body, Body::Bytes(_)) { self.known.string } else { self.known.wide_string };
        self.heap.alloc(class, 0, body)
    }

    /// A new String of these code points: a byte String when each fits in a byte, else a
    /// WideString.
    pub fn new_string_of_codes(&mut self, codes: Vec<u32>) -> Value {
        match codes.iter().map(|&c| u8::try_from(c)).collect::<Result<Vec<u8>, _>>() {
            Ok(bytes) => self.heap.alloc(self.known.string, 0, Body::Bytes(bytes.into())),
            Err(_) => self.heap.alloc(self.known.wide_string, 0, Body::Words(codes)),
        }
    }

    /// A new Array holding `items`.
    pub fn new_array(&mut self, items: Vec<Value>) -> Value {
        self.heap.alloc(self.known.array, 0, Body::Slots(items.into()))
    }

    /// A Float: immediate when its exponent fits, else a new boxed Float.
    #[inline]
    pub fn new_float(&mut self, f: f64) -> Value {
        match Value::float(f) {
            Some(v) => v,
            None => self.heap.alloc(self.known.float, 0, Body::Float(f)),
        }
    }

    /// An Integer: a SmallInteger when it fits, else a Large(Positive|Negative)Integer.
    pub fn new_integer(&mut self, n: BigInt) -> Value {
        if let Some(v) = n.to_i64().and_then(Value::int) {
            return v;
        }
        let class =
            if n.sign() == num_bigint::Sign::Minus { self.known.large_negative } else { self.known.large_positive };
        self.heap.alloc(class, 0, Body::Large(Box::new(n)))
    }

    /// An Integer from an `i128` (results of SmallInteger arithmetic).
    pub fn new_integer_i128(&mut self, n: i128) -> Value {
        match i64::try_from(n).ok().and_then(Value::int) {
            Some(v) => v,
            None => self.new_integer(BigInt::from(n)),
        }
    }

    /// A new Association `key -> value`.
    pub fn new_association(&mut self, key: Value, value: Value) -> Value {
        self.heap.alloc(self.known.association, 2, Body::Slots(vec![key, value].into()))
    }

    /// A new native dictionary of the given class.
    pub fn new_dict(&mut self, class: Value) -> Value {
        self.heap.alloc(class, 0, Body::Dict(Box::default()))
    }

    // ----------------------------------------------------------------- reading objects

    /// The String or Symbol `v` as Rust text (a byte string's bytes are Latin-1; a code point
    /// of a WideString that is no character, such as a lone surrogate, becomes U+FFFD).
    pub fn string_of(&self, v: Value) -> Option<String> {
        self.string_part(v, 0, usize::MAX)
    }

    /// Characters `from..from + size` of the String or Symbol `v` (as [`Vm::string_of`]), as
    /// many as there are.
    pub fn string_part(&self, v: Value, from: usize, size: usize) -> Option<String> {
        let obj = self.heap.get(v)?;
        let range = |len: usize| from.min(len)..from.saturating_add(size).min(len);
        match &obj.body {
            Body::Bytes(b) => Some(b.get(range(b.len()))?.iter().map(|&c| char::from(c)).collect()),
            Body::Words(w) if obj.class == self.known.wide_string || obj.class == self.known.wide_symbol => {
                let chars = w.get(range(w.len()))?.iter();
                Some(chars.map(|&c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER)).collect())
            }
            _ => None,
        }
    }

    /// How many characters the String or Symbol `v` has.
    pub fn string_size(&self, v: Value) -> Option<usize> {
        let obj = self.heap.get(v)?;
        match &obj.body {
            Body::Bytes(b) => Some(b.len()),
            Body::Words(w) if obj.class == self.known.wide_string || obj.class == self.known.wide_symbol => {
                Some(w.len())
            }
            _ => None,
        }
    }

    /// The double of a Float, immediate or boxed.
    #[inline]
    pub fn float_of(&self, v: Value) -> Option<f64> {
        if let Some(f) = v.as_float() {
            return Some(f);
        }
        match self.heap.get(v)?.body {
            Body::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The integer value of a SmallInteger or Large integer.
    pub fn integer_of(&self, v: Value) -> Option<BigInt> {
        if let Some(n) = v.as_int() {
            return Some(BigInt::from(n));
        }
        match &self.heap.get(v)?.body {
            Body::Large(n) => Some((**n).clone()),
            _ => None,
        }
    }

    /// The elements of an Array (or any pointer object's indexed part).
    pub fn array_items(&self, v: Value) -> Option<Vec<Value>> {
        let obj = self.heap.get(v)?;
        obj.slots().map(|s| s.get(obj.named as usize..).unwrap_or(&[]).to_vec())
    }

    /// The native dictionary of a Dict-bodied object.
    pub fn dict(&self, v: Value) -> Option<&Dict> {
        match &self.heap.get(v)?.body {
            Body::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The native dictionary, mutably (no write barrier: callers use [`Heap::note_store`]).
    pub fn dict_mut(&mut self, v: Value) -> Option<&mut Dict> {
        match &mut self.heap.get_mut(v)?.body {
            Body::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The compiled code of a CompiledMethod.
    pub fn code_of(&self, method: Value) -> Option<Rc<CompiledCode>> {
        match &self.heap.get(method)?.body {
            Body::Method(code) => Some(code.clone()),
            _ => None,
        }
    }

    // ----------------------------------------------------------------- classes

    /// The class of any value.
    #[inline(always)]
    pub fn class_of(&self, v: Value) -> Value {
        if v.is_object() {
            self.heap.class_of_object(v).unwrap_or(self.known.undefined_object)
        } else if v.is_int() {
            self.known.small_integer
        } else if v.is_char() {
            self.known.character
        } else if v.is_float() {
            self.known.small_float
        } else if v == Value::NIL {
            self.known.undefined_object
        } else if v == Value::TRUE {
            self.known.true_class
        } else {
            self.known.false_class
        }
    }

    /// Whether `class` is a metaclass.
    pub fn is_metaclass(&self, class: Value) -> bool {
        self.heap.class_of_object(class) == Some(self.known.metaclass)
    }

    /// Whether `v` is a class or metaclass.
    pub fn is_behavior(&self, v: Value) -> bool {
        if !v.is_object() {
            return false;
        }
        let class = self.class_of(v);
        class == self.known.metaclass || self.heap.class_of_object(class) == Some(self.known.metaclass)
    }

    /// The superclass of a class (nil for the root).
    pub fn superclass_of(&self, class: Value) -> Value {
        self.heap.slot(class, cs::SUPERCLASS).unwrap_or(Value::NIL)
    }

    /// The instance kind and named slot count of a class.
    pub fn format_of(&self, class: Value) -> Option<(Kind, usize)> {
        self.heap.slot(class, cs::FORMAT)?.as_int().and_then(object::decode_format)
    }

    /// The name of a class, `Foo class` for a metaclass.
    pub fn class_name(&self, class: Value) -> String {
        if self.is_metaclass(class) {
            let this = self.heap.slot(class, cs::THIS_CLASS).unwrap_or(Value::NIL);
            return format!("{} class", self.class_name(this));
        }
        self.heap.slot(class, cs::NAME).and_then(|n| self.string_of(n)).unwrap_or_else(|| "?".to_string())
    }

    /// Whether `class` is `ancestor` or inherits from it.
    pub fn inherits_from(&self, mut class: Value, ancestor: Value) -> bool {
        let mut guard = 0;
        while !class.is_nil() && guard < 10_000 {
            if class == ancestor {
                return true;
            }
            class = self.superclass_of(class);
            guard += 1;
        }
        false
    }

    /// Finds the method for `selector` starting at `class`, through the cache.
    pub fn lookup(&mut self, class: Value, selector: Value) -> Option<Value> {
        if let Some(&m) = self.method_cache.get(&(class, selector)) {
            return Some(m);
        }
        let mut c = class;
        let mut guard = 0;
        while !c.is_nil() && guard < 10_000 {
            // Classes and method dictionaries of a repository come in when a lookup needs them.
            self.fault_in(c);
            let dict = self.heap.slot(c, cs::METHOD_DICT).unwrap_or(Value::NIL);
            self.fault_in(dict);
            if let Some(m) = self.dict(dict).and_then(|d| d.get(selector)) {
                self.fault_in(m);
                self.method_cache.insert((class, selector), m);
                return Some(m);
            }
            c = self.superclass_of(c);
            guard += 1;
        }
        None
    }

    /// Finds the method for `selector` starting at `class`, with a pointer to its code.
    #[inline]
    pub(crate) fn lookup_code(&mut self, class: Value, selector: Value) -> Option<(Value, *const CompiledCode)> {
        let m = self.lookup(class, selector)?;
        match &self.heap.get(m)?.body {
            Body::Method(code) => Some((m, Rc::as_ptr(code))),
            _ => None,
        }
    }

    /// Forgets every cached lookup (after a method or class change, or a collection).
    pub fn flush_caches(&mut self) {
        self.method_cache.clear();
        self.cache_epoch = self.cache_epoch.wrapping_add(1);
        if self.cache_epoch == u32::MAX {
            self.cache_epoch = 0;
        }
        // Methods may have changed: breakpoints follow them.
        if !self.debug.breakpoints.entries.is_empty() {
            self.apply_breakpoints();
        }
    }

    /// The global named `name`, if defined.
    pub fn global(&self, name: &str) -> Option<Value> {
        let sym = self.existing_symbol(name)?;
        let assoc = self.dict(self.known.smalltalk)?.get(sym)?;
        self.heap.slot(assoc, 1)
    }

    /// Defines or replaces the global `name`.
    pub fn set_global(&mut self, name: &str, value: Value) {
        let sym = self.intern(name);
        let existing = self.dict(self.known.smalltalk).and_then(|d| d.get(sym));
        match existing {
            Some(assoc) => {
                self.heap.set_slot(assoc, 1, value);
            }
            None => {
                let assoc = self.undeclared_binding_for(sym).unwrap_or_else(|| self.new_association(sym, value));
                self.heap.set_slot(assoc, 1, value);
                if let Some(d) = self.dict_mut(self.known.smalltalk) {
                    d.insert(sym, assoc);
                }
                self.heap.note_store(self.known.smalltalk);
            }
        }
    }

    /// Takes the binding of `sym` out of Undeclared (it is being defined for real).
    fn undeclared_binding_for(&mut self, sym: Value) -> Option<Value> {
        let undeclared = self.known.undeclared;
        self.dict_mut(undeclared).and_then(|d| d.remove(sym))
    }

    /// A number that changes whenever code does (a method compiled or removed, a class
    /// defined or removed, code another session changed reloaded): a host that keeps an
    /// index of the code rebuilds it when this moves.
    pub fn code_epoch(&self) -> u64 {
        self.code_epoch
    }

    /// Notes a change to code (see [`Vm::code_epoch`]).
    pub(crate) fn code_changed(&mut self) {
        self.code_epoch += 1;
    }

    /// Takes the Transcript output written since the last call.
    pub fn take_transcript(&mut self) -> String {
        std::mem::take(&mut self.transcript)
    }

    /// Takes the compiler warnings issued since the last call.
    pub fn take_warnings(&mut self) -> Vec<crate::error::CompileError> {
        std::mem::take(&mut self.warnings)
    }

    /// A fresh activation id.
    pub(crate) fn new_frame_id(&mut self) -> u64 {
        let id = self.next_frame_id;
        self.next_frame_id += 1;
        id
    }
}

/// The body of a String holding `s`: Latin-1 bytes when every character fits in one, else
/// its code points.
pub(crate) fn text_body(s: &str) -> Body {
    match s.chars().map(|c| u8::try_from(u32::from(c))).collect::<Result<Vec<u8>, _>>() {
        Ok(bytes) => Body::Bytes(bytes.into()),
        Err(_) => Body::Words(s.chars().map(u32::from).collect()),
    }
}
