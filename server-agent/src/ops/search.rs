//! Cross-references over the methods of the image (senders and implementors from an index,
//! references to a global, readers and writers of an instance variable) and class
//! hierarchies. Methods are
//! found through the classes' method dictionaries, brought in together, and their compiled
//! code is read directly.

use std::collections::HashMap;

use onyx_vm::bytecode::{CompiledCode, Instr};
use onyx_vm::{Value, Vm};

use super::request::{Answer, ClassRef, ErrorKind, Failure, InstVarRef, Listed, MethodEntry, Outcome};
use super::{all_classes, class, entry, send};

/// A method found, with where it is.
struct Found {
    class: Value,
    meta: bool,
    method: Value,
}

/// The methods of `classes` (both sides), brought in.
fn methods_of(vm: &mut Vm, classes: &[Value]) -> Result<Vec<Found>, Failure> {
    let mut out = Vec::new();
    for &class in classes {
        for (side, meta) in [(class, false), (vm.class_of(class), true)] {
            let methods = send(vm, side, "methods", &[])?;
            let methods = send(vm, methods, "asArray", &[])?;
            let methods = vm.array_items(methods).unwrap_or_default();
            vm.bring_in(&methods);
            out.extend(methods.into_iter().map(|method| Found { class, meta, method }));
        }
    }
    Ok(out)
}

/// The entries of the methods whose code (or a block's) satisfies `test`, sorted.
fn listed(vm: &Vm, found: Vec<Found>, test: impl Fn(&CompiledCode) -> bool) -> Answer {
    let mut methods: Vec<MethodEntry> = found
        .into_iter()
        .filter_map(|f| {
            let code = vm.code_of(f.method)?;
            let hit = test(&code) || code.blocks.iter().any(|b| test(b));
            hit.then(|| MethodEntry {
                class_name: vm.class_name(f.class),
                meta: f.meta,
                selector: vm.string_of(code.selector).unwrap_or_default(),
            })
        })
        .collect();
    methods.sort_by(|a, b| (&a.class_name, a.meta, &a.selector).cmp(&(&b.class_name, b.meta, &b.selector)));
    Answer::Methods(Listed::whole(methods))
}

/// Who sends and who implements each selector, over every method of the image: built by
/// one pass over the code, and built again when the code has changed since
/// ([`Vm::code_epoch`]).
#[derive(Default)]
pub struct CodeIndex {
    /// The code epoch it was built at (`None`: not built).
    epoch: Option<u64>,
    senders: HashMap<Value, Vec<MethodEntry>>,
    implementors: HashMap<Value, Vec<MethodEntry>>,
}

impl CodeIndex {
    /// Builds the index if the code changed since it was built.
    fn refresh(&mut self, vm: &mut Vm) -> Result<(), Failure> {
        if self.epoch == Some(vm.code_epoch()) {
            return Ok(());
        }
        // Read first: a change made while the index is built makes it stale.
        let epoch = vm.code_epoch();
        let classes = all_classes(vm)?;
        let found = methods_of(vm, &classes)?;
        let (mut senders, mut implementors): (HashMap<Value, Vec<_>>, HashMap<Value, Vec<_>>) = Default::default();
        for f in found {
            let Some(code) = vm.code_of(f.method) else { continue };
            let entry = MethodEntry {
                class_name: vm.class_name(f.class),
                meta: f.meta,
                selector: vm.string_of(code.selector).unwrap_or_default(),
            };
            // The compiler lists what the method sends without naming it among the literals.
            let mut sent: Vec<Value> = code
                .literals
                .iter()
                .chain(code.blocks.iter().flat_map(|b| b.literals.iter()))
                .chain(code.special_selectors.iter())
                .copied()
                .filter(|&l| vm.is_symbol(l))
                .collect();
            sent.sort_unstable();
            sent.dedup();
            for selector in sent {
                senders.entry(selector).or_default().push(entry.clone());
            }
            implementors.entry(code.selector).or_default().push(entry);
        }
        for list in senders.values_mut().chain(implementors.values_mut()) {
            list.sort_by(|a, b| (&a.class_name, a.meta, &a.selector).cmp(&(&b.class_name, b.meta, &b.selector)));
        }
        *self = CodeIndex { epoch: Some(epoch), senders, implementors };
        Ok(())
    }

    /// Methods that send `selector`: name it among their literals, or send it without naming
    /// it (see `CompiledCode::special_selectors`).
    pub fn senders(&mut self, vm: &mut Vm, selector: &str) -> Outcome {
        self.refresh(vm)?;
        let methods = vm.existing_symbol(selector).and_then(|s| self.senders.get(&s)).cloned().unwrap_or_default();
        Ok(Answer::Methods(Listed::whole(methods)))
    }

    /// The selectors some method implements whose names contain `fragment` (letters in any
    /// case), sorted, at most `limit` of them.
    pub fn selectors(&mut self, vm: &mut Vm, fragment: &str, limit: usize) -> Outcome {
        self.refresh(vm)?;
        let wanted = fragment.to_lowercase();
        let mut names: Vec<String> = self
            .implementors
            .keys()
            .filter_map(|&s| vm.string_of(s))
            .filter(|name| name.to_lowercase().contains(&wanted))
            .collect();
        // The selectors that start with the fragment first, then the shorter ones.
        names.sort_by_cached_key(|n| (!n.to_lowercase().starts_with(&wanted), n.len(), n.clone()));
        names.truncate(limit);
        Ok(Answer::Names(Listed::whole(names)))
    }

    /// Methods that implement `selector`.
    pub fn implementors(&mut self, vm: &mut Vm, selector: &str) -> Outcome {
        self.refresh(vm)?;
        let methods = vm.existing_symbol(selector).and_then(|s| self.implementors.get(&s)).cloned().unwrap_or_default();
        Ok(Answer::Methods(Listed::whole(methods)))
    }
}

/// Methods that read or write global `name` (a class is a global).
pub fn references(vm: &mut Vm, name: &str) -> Outcome {
    let Some(key) = vm.existing_symbol(name) else { return Ok(Answer::Methods(Listed::default())) };
    let classes = all_classes(vm)?;
    let found = methods_of(vm, &classes)?;
    let names = |c: &CompiledCode, lit: u16| {
        c.literals.get(usize::from(lit)).is_some_and(|&binding| vm.heap.slot(binding, 0) == Some(key))
    };
    Ok(listed(vm, found, |c| {
        c.instrs.iter().any(|i| match i {
            Instr::GetGlobal { lit, .. } | Instr::SetGlobal { lit, .. } => names(c, lit),
            _ => false,
        })
    }))
}

/// Methods of a class and its subclasses that read (`writes` false) or write an instance
/// variable.
pub fn inst_var_users(vm: &mut Vm, r: &InstVarRef, writes: bool) -> Outcome {
    let class = class(vm, &r.class)?;
    let names = send(vm, class, "allInstVarNames", &[])?;
    let names = send(vm, names, "asArray", &[])?;
    let names: Vec<String> =
        vm.array_items(names).unwrap_or_default().iter().filter_map(|&n| vm.string_of(n)).collect();
    let Some(index) = names.iter().position(|n| *n == r.name) else {
        let name = vm.class_name(class);
        return Err(Failure::new(ErrorKind::NotFound, format!("{name} has no instance variable {}", r.name)));
    };
    let index = u16::try_from(index).map_err(|_| Failure::new(ErrorKind::Invalid, "too many instance variables"))?;
    let all = send(vm, class, "withAllSubclasses", &[])?;
    let all = send(vm, all, "asArray", &[])?;
    let classes = vm.array_items(all).unwrap_or_default();
    // Only the instance side: a class-side method cannot see an instance's variables.
    let found: Vec<Found> = methods_of(vm, &classes)?.into_iter().filter(|f| !f.meta).collect();
    Ok(listed(vm, found, |c| {
        c.instrs.iter().any(|i| match i {
            Instr::GetIvar { index: k, .. } => !writes && k == index,
            Instr::SetIvar { index: k, .. } => writes && k == index,
            _ => false,
        })
    }))
}

/// A class's superclasses, itself and its subclasses, root first, each after its superclass
/// (the subclasses level by level).
pub fn hierarchy(vm: &mut Vm, name: &str) -> Outcome {
    let class = class(vm, &ClassRef::instance(name))?;
    let mut chain = vec![class];
    let mut up = vm.superclass_of(class);
    while !up.is_nil() && chain.len() < 10_000 {
        chain.push(up);
        vm.bring_in(&[up]);
        up = vm.superclass_of(up);
    }
    chain.reverse();
    let mut classes: Vec<Value> = chain;
    // Below the class, level by level, each level's classes sorted by name.
    let mut below = std::collections::VecDeque::from([class]);
    while let Some(c) = below.pop_front() {
        let subs = send(vm, c, "subclasses", &[])?;
        let subs = send(vm, subs, "asArray", &[])?;
        let mut subs = vm.array_items(subs).unwrap_or_default();
        vm.bring_in(&subs);
        subs.sort_by_cached_key(|&s| vm.class_name(s));
        classes.extend(subs.iter().copied());
        below.extend(subs);
    }
    let entries = classes.into_iter().map(|c| entry(vm, c)).collect();
    Ok(Answer::Classes(Listed::whole(entries)))
}
