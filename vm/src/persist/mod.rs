//! The gem's side of the store: a session with a stone ([`StoneLink`]), the mapping between
//! local objects and persistent OOPs, loading the repository's objects, and committing and
//! aborting transactions.
//!
//! The repository's root (OOP [`ROOT`]) is an Array of the objects the VM knows by role
//! ([`crate::vm::Known::objects`]): the `Smalltalk` globals first, then the classes the
//! interpreter needs. Everything reachable from it persists; committing makes every new
//! object that a changed persistent object reaches persistent too.
//!
//! Objects come in lazily: a login brings in what lies within a budget of the root (breadth
//! first, so the globals, classes and methods), and every object it refers to beyond that is
//! a *stub* (an entry with no contents) until something touches it: a send to it, a
//! primitive given it, a method lookup through it, a compile reading it. A fault brings in
//! the object and, within a budget, what it refers to (the stone's traversal), so walking a
//! structure costs one round trip per many objects. A commit or abort reloads in place what
//! other sessions changed that is in memory here. A loaded or reloaded method is compiled
//! from its source; frames still running replaced code keep it (see
//! [`Persistence::retired`]).
//!
//! Every failure is a [`StoneError`] of the kind it is (a denied lock, a stone that is gone,
//! damage in what came in, a mistake of the caller's), kept in `System lastStoreError` when a
//! primitive fails, so that Smalltalk code signals the matching exception and the tools can
//! tell one from another.

mod chunks;
mod codec;
mod guard;
mod object_log;
mod profile;
mod reach;
mod security;

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;

use onyx_record::word::word_ref;
use onyx_record::{
    About, CommitOutcome, LockKind, ObjectRecord, Oop, ROOT, SessionInfo, StoneError, StoneLink, ViewChange,
};

use crate::bytecode::CompiledCode;
use crate::compiler::{self, Mode};
use crate::heap::Body;
use crate::value::Value;
use crate::vm::{Vm, VmConfig};

/// An error of this VM's own bookkeeping with the repository (not the stone's): the local
/// map lost track of an object.
pub(super) fn lost(what: &str) -> StoneError {
    StoneError::Invalid(format!("{what} (the gem's map of the repository lost track of it)"))
}

/// The error of an operation on a repository when none is attached.
pub(super) fn detached() -> StoneError {
    StoneError::Invalid("no repository is attached".into())
}

/// The kernel's exception class for a failure of the repository of `e`'s kind, which the
/// kernel signals (`System class>>signalStoreError`) and a report of a failed fault names: a
/// `LockError` for a lock another session holds, a `StoneUnavailable` for a stone that cannot
/// be reached or ended the session, a `SecurityError` for a change the user may not make, a
/// `RepositoryError` for the rest.
pub fn repository_exception(e: &StoneError) -> &'static str {
    match e {
        StoneError::LockDenied { .. } => "LockError",
        StoneError::Unavailable(_) => "StoneUnavailable",
        StoneError::PermissionDenied(_) => "SecurityError",
        _ => "RepositoryError",
    }
}

/// OOPs asked of the stone at a time.
const OOP_BATCH: u64 = 4096;
/// How far past a faulted object's OOP its fault looks for stubs to bring in with it.
const NEARBY: u64 = 2048;

/// A VM's link to its repository.
pub(crate) struct Persistence {
    link: Box<dyn StoneLink>,
    oop_of: HashMap<Value, Oop>,
    local_of: HashMap<Oop, Value>,
    symbol_id: HashMap<Value, u64>,
    symbol_of: HashMap<u64, Value>,
    /// OOPs allocated to this session and not used yet.
    fresh: Range<Oop>,
    /// Code replaced when its method was reloaded: frames may still be running it, and they
    /// point into it, so it lives as long as the VM.
    retired: Vec<Rc<CompiledCode>>,
    /// The policy of each persistent object that is not the session's default (as loaded, or
    /// as assigned).
    policy_of: HashMap<Oop, u32>,
    /// The policies new objects are to have that are not the session's default.
    assigned: HashMap<Value, u32>,
    /// The objects the last failed commit conflicted on.
    conflicts: Vec<Value>,
    /// Set when the view moved on without this transaction's changes being checked against
    /// what came in between (a refused continue, a reload that failed): no commit is taken
    /// until an abort.
    must_abort: bool,
    stats: StoreStats,
}

/// What a gem has asked of its stone so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Round trips that fetched objects (the login's, faults, reloads).
    pub fetches: u64,
    /// Objects brought into memory.
    pub objects_loaded: u64,
}

impl Persistence {
    fn new(link: Box<dyn StoneLink>) -> Persistence {
        Persistence {
            link,
            oop_of: HashMap::new(),
            local_of: HashMap::new(),
            symbol_id: HashMap::new(),
            symbol_of: HashMap::new(),
            fresh: 0..0,
            retired: Vec::new(),
            policy_of: HashMap::new(),
            assigned: HashMap::new(),
            conflicts: Vec::new(),
            must_abort: false,
            stats: StoreStats::default(),
        }
    }

    fn map(&mut self, v: Value, oop: Oop) {
        self.oop_of.insert(v, oop);
        self.local_of.insert(oop, v);
    }

    fn next_oop(&mut self) -> Result<Oop, StoneError> {
        if self.fresh.is_empty() {
            self.fresh = self.link.allocate(OOP_BATCH)?;
        }
        let oop = self.fresh.start;
        self.fresh.start += 1;
        Ok(oop)
    }

    /// Fetches `requested` (and, within `budget` bytes, what they reference) and installs
    /// them: the requested ones always (replacing what is in memory), the others only where
    /// they are stubs here. What the fetched objects reference beyond that stays a stub until
    /// touched.
    fn load(&mut self, vm: &mut Vm, requested: Vec<Oop>, nearby: &[Oop], budget: u64) -> Result<(), StoneError> {
        if requested.is_empty() {
            return Ok(());
        }
        let wanted: HashSet<Oop> = requested.iter().copied().collect();
        let guessed: HashSet<Oop> = nearby.iter().copied().collect();
        self.stats.fetches += 1;
        let fetched: Vec<ObjectRecord> = self
            .link
            .fetch(&requested, nearby, budget)?
            .into_iter()
            .filter(|r| {
                // A neighbour that came along stays a stub where it is a large string or the
                // like: bringing it in would cost its chunks' round trips for a guess.
                wanted.contains(&r.oop)
                    || (self.local_of.get(&r.oop).is_none_or(|&v| vm.heap.is_stub(v))
                        && !(guessed.contains(&r.oop) && codec::comes_in_whole(r)))
            })
            .collect();
        // A record this gem cannot use leaves its object a stub and the rest goes on: the
        // damage is reported when the object itself is asked for (here, or when it is touched).
        let mut failed: Option<StoneError> = None;
        let mut damaged = |oop: Oop, e: StoneError| {
            if wanted.contains(&oop) && failed.is_none() {
                failed = Some(e);
            }
        };
        let mut records = Vec::with_capacity(fetched.len());
        for r in fetched {
            let oop = r.oop;
            match codec::whole(r, self) {
                Ok(r) => records.push(r),
                Err(e) => damaged(oop, e),
            }
        }
        self.stats.objects_loaded += records.len() as u64;
        self.learn_symbols(vm, records.iter().flat_map(|r| r.symbols().collect::<Vec<_>>()).collect())?;
        let mut methods = Vec::new();
        for r in &records {
            let v = codec::Resolving::local_for(self, vm, r.oop);
            let class = codec::Resolving::local_for(self, vm, r.class);
            match codec::decode(vm, r, self) {
                Ok(Some(body)) => self.install(vm, v, class, r, body),
                Ok(None) => methods.push((v, class, r)),
                Err(e) => damaged(r.oop, e),
            }
        }
        for (v, class, r) in methods {
            let compiled = codec::method_parts(vm, r, self).and_then(|(method_class, protocol, source)| {
                let code = self
                    .compile_loaded(vm, &source, method_class)
                    .map_err(|e| e.context(&format!("object {}: its method does not compile", r.oop)))?;
                code.method_class.set(method_class);
                code.protocol.set(protocol);
                Ok(code)
            });
            match compiled {
                Ok(code) => self.install(vm, v, class, r, Body::Method(code)),
                Err(e) => damaged(r.oop, e),
            }
        }
        vm.flush_caches();
        failed.map_or(Ok(()), Err)
    }

    /// Brings in stub `v` (and, within the fault budget, what it references and its
    /// neighbours: see [`Persistence::nearby`]).
    fn fault(&mut self, vm: &mut Vm, v: Value) -> Result<(), StoneError> {
        let oop = self.oop_of.get(&v).copied().ok_or_else(|| lost("a stub without an OOP"))?;
        let nearby = self.nearby(vm, oop);
        self.load(vm, vec![oop], &nearby, vm.config.fault_budget)
    }

    /// Brings in whichever of `values` are stubs (with the neighbours of the last).
    fn fault_all(&mut self, vm: &mut Vm, values: &[Value]) -> Result<(), StoneError> {
        let stubs: Vec<Oop> =
            values.iter().filter(|&&v| vm.heap.is_stub(v)).filter_map(|v| self.oop_of.get(v).copied()).collect();
        let mut unique: Vec<Oop> = stubs.into_iter().collect::<HashSet<_>>().into_iter().collect();
        unique.sort_unstable();
        let nearby = unique.last().map(|&oop| self.nearby(vm, oop)).unwrap_or_default();
        self.load(vm, unique, &nearby, vm.config.fault_budget)
    }

    /// The stubs whose OOPs follow `oop`, which a fault of `oop` brings in too while its
    /// budget lasts. A commit numbers new objects in the order it reaches them, so these are
    /// mostly neighbours in a structure, such as the next elements of a collection being
    /// walked: walking a large collection costs a round trip per budget's worth of elements
    /// rather than one per element (as a fault in GemStone brings in the object's page).
    fn nearby(&self, vm: &Vm, oop: Oop) -> Vec<Oop> {
        (oop + 1..=oop.saturating_add(NEARBY))
            .filter(|n| self.local_of.get(n).is_some_and(|&s| vm.heap.is_stub(s)))
            .collect()
    }

    /// Compiles a loaded method's source in its class, with what the compiler reads of the
    /// class (and, after, the bindings the code refers to) brought in first.
    fn compile_loaded(&mut self, vm: &mut Vm, source: &str, class: Value) -> Result<Rc<CompiledCode>, StoneError> {
        self.fault_class_chain(vm, class)?;
        let code =
            compiler::compile(vm, source, class, Mode::Method).map_err(|e| StoneError::Damaged(e.to_string()))?;
        self.fault_literals(vm, &code)?;
        Ok(code)
    }

    /// Brings in `class`, its superclasses, and what each of them refers to directly
    /// (instance variable names, pools, method dictionary).
    fn fault_class_chain(&mut self, vm: &mut Vm, class: Value) -> Result<(), StoneError> {
        let mut c = class;
        let mut guard = 0;
        while c.is_object() && guard < 10_000 {
            if vm.heap.is_stub(c) {
                self.fault(vm, c)?;
            }
            let slots = vm.heap.get(c).and_then(|o| o.slots()).map(<[Value]>::to_vec).unwrap_or_default();
            self.fault_all(vm, &slots)?;
            c = vm.superclass_of(c);
            guard += 1;
        }
        Ok(())
    }

    /// Brings in the stubs among a compiled method's literals (global bindings, mostly).
    fn fault_literals(&mut self, vm: &mut Vm, code: &CompiledCode) -> Result<(), StoneError> {
        self.fault_all(vm, &code.literals)?;
        for block in code.blocks.iter() {
            self.fault_literals(vm, block)?;
        }
        Ok(())
    }

    /// Those of `oops` whose contents are in memory here (stubs need no reloading).
    fn loaded_among(&self, vm: &Vm, oops: Vec<Oop>) -> Vec<Oop> {
        oops.into_iter().filter(|oop| self.local_of.get(oop).is_some_and(|&v| !vm.heap.is_stub(v))).collect()
    }

    /// Reloads `stale` in place; if that fails, makes them stubs (they fault in fresh when
    /// touched) and answers the error.
    fn reload(&mut self, vm: &mut Vm, stale: Vec<Oop>) -> Result<(), StoneError> {
        let result = self.load(vm, stale.clone(), &[], 0);
        if result.is_err() {
            let locals: Vec<Value> = stale.iter().filter_map(|oop| self.local_of.get(oop).copied()).collect();
            vm.heap.forget_writes(&locals);
            for v in locals {
                if let Some(Body::Method(old)) = vm.heap.evict_any(v) {
                    self.retired.push(old);
                }
            }
            // What comes in for them later may be other code than what was indexed.
            vm.flush_caches();
            vm.code_changed();
        }
        result
    }

    fn install(&mut self, vm: &mut Vm, v: Value, class: Value, r: &ObjectRecord, body: Body) {
        self.note_policy(r.oop, r.policy);
        let named = u16::try_from(r.named).unwrap_or(u16::MAX);
        let code = matches!(body, Body::Method(_))
            || class == vm.known.method_dictionary
            || class == vm.known.system_dictionary
            || vm.is_behavior(v);
        let old = vm.heap.install(v, class, r.hash, named, body);
        // Code brought in for the first time was there all along; code reloaded changed.
        if code && !matches!(old, None | Some(Body::NotLoaded)) {
            vm.code_changed();
        }
        if let Some(Body::Method(old)) = old {
            self.retired.push(old);
        }
    }

    /// Makes sure every symbol id in `ids` has its local symbol.
    fn learn_symbols(&mut self, vm: &mut Vm, ids: Vec<u64>) -> Result<(), StoneError> {
        let unknown: Vec<u64> =
            ids.into_iter().filter(|id| !self.symbol_of.contains_key(id)).collect::<HashSet<_>>().into_iter().collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let names = self.link.symbol_names(&unknown)?;
        for (id, name) in unknown.into_iter().zip(names) {
            // A symbol's name is its text in UTF-8.
            let name = String::from_utf8(name)
                .map_err(|_| StoneError::Damaged(format!("symbol {id}: its name is not UTF-8")))?;
            let symbol = vm.intern(&name);
            self.symbol_of.insert(id, symbol);
            self.symbol_id.insert(symbol, id);
        }
        Ok(())
    }
}

impl Vm {
    /// Logs in to a repository through `link`: a VM whose classes, methods and globals are
    /// the repository's.
    pub fn login(link: Box<dyn StoneLink>, config: VmConfig) -> Result<Vm, StoneError> {
        let mut vm = Vm::empty();
        vm.set_config(config);
        let mut p = Persistence::new(link);
        let root_records = p.link.fetch(&[ROOT], &[], 0)?;
        let damaged = |what: &str| StoneError::Damaged(what.to_string());
        let root =
            root_records.first().ok_or_else(|| damaged("the repository has no root (was it made by `onyx init`?)"))?;
        let mut known = Vec::with_capacity(root.words.len());
        for &w in &root.words {
            let oop = word_ref(w).ok_or_else(|| damaged("the repository's root is damaged"))?;
            known.push(codec::Resolving::local_for(&mut p, &mut vm, oop));
        }
        if !vm.known.set_objects(&known) {
            return Err(damaged("the repository's root does not match this version of Onyx"));
        }
        let profile = p.link.user().profile;
        p.load_profile(&mut vm, profile);
        p.load(&mut vm, vec![ROOT], &[], config.login_budget)?;
        // What the interpreter uses by role must be in memory (and their classes' contents).
        p.fault_all(&mut vm, &known)?;
        for &k in &known {
            if vm.is_behavior(k) {
                p.fault_class_chain(&mut vm, k)?;
            }
        }
        vm.intern_known_selectors();
        vm.persist = Some(Box::new(p));
        vm.take_up_profile()?;
        Ok(vm)
    }

    /// Makes this VM's objects a new repository's contents through `link` (a session with a
    /// stone over an empty repository): commits the root and everything it reaches, in the
    /// session's user's policy but for `open`, which belong to none (everyone may change them).
    pub fn create_repository(&mut self, link: Box<dyn StoneLink>, open: &[Value]) -> Result<(), StoneError> {
        let mut p = Persistence::new(link);
        p.assigned.extend(open.iter().map(|&v| (v, onyx_record::NO_POLICY)));
        let known = self.known.objects();
        let root = self.new_array(known);
        p.map(root, ROOT);
        self.heap.set_persistent(root);
        self.heap.note_store(root);
        self.place_profile(&mut p);
        self.persist = Some(Box::new(p));
        match self.commit_transaction()? {
            true => Ok(()),
            false => Err(StoneError::Invalid("the new repository's first commit conflicted".into())),
        }
    }

    /// What this gem has asked of its stone so far (`None` without a repository).
    pub fn store_stats(&self) -> Option<StoreStats> {
        self.persist.as_ref().map(|p| p.stats)
    }

    /// Whether a repository is attached.
    pub fn has_repository(&self) -> bool {
        self.persist.is_some()
    }

    /// `System needsCommit`: whether a persistent object changed in this transaction (a
    /// commit would write something).
    pub fn needs_commit(&self) -> bool {
        self.persist.is_some() && self.heap.has_writes()
    }

    /// The session id, when a repository is attached.
    pub fn session_id(&self) -> Option<u64> {
        self.persist.as_ref().map(|p| p.link.session())
    }

    /// `System commitTransaction`: commits every persistent object changed since the last
    /// commit or abort, and every new object they reach. Answers false on a conflict (see
    /// [`Vm::transaction_conflicts`]); local changes are kept until an abort.
    pub fn commit_transaction(&mut self) -> Result<bool, StoneError> {
        let mut p = self.persist.take().ok_or_else(detached)?;
        let result = self.commit_with(&mut p);
        self.persist = Some(p);
        result
    }

    fn commit_with(&mut self, p: &mut Persistence) -> Result<bool, StoneError> {
        if p.must_abort {
            self.last_store_error = Some(StoneError::Invalid("this transaction must be aborted first".into()));
            return Ok(false);
        }
        let mut dirty = self.heap.take_write_set();
        dirty.sort_unstable_by_key(|v| v.bits());
        dirty.dedup();
        // A changed large object is written whole: its missing chunks come in first.
        for &v in &dirty {
            if self.is_chunked(v)
                && let Err(e) = p.load_all_chunks(self, v)
            {
                self.undo_commit(p, &dirty, &[]);
                return Err(e);
            }
        }
        let (new, symbols, inherited) = self.new_objects(p, &dirty);
        if !self.may_change_code() {
            let changed: Vec<Value> = dirty.iter().chain(&new).copied().collect();
            if let Some(v) = self.first_guarded(&changed) {
                let error = self.guarded_commit_error(v);
                self.undo_commit(p, &dirty, &new);
                return Err(error);
            }
        }
        let outcome = self.send_commit(p, &dirty, &new, &symbols, &inherited);
        match outcome {
            Ok(CommitOutcome::Committed(view)) => {
                for &v in &new {
                    self.heap.set_persistent(v);
                }
                p.conflicts.clear();
                if let Err(e) = self.apply_view(p, view) {
                    // The commit stands; what others changed could not be brought in.
                    p.must_abort = true;
                    self.last_store_error = Some(e.context("committed, but the new view could not be loaded"));
                }
                Ok(true)
            }
            Ok(CommitOutcome::Conflict(oops)) => {
                self.undo_commit(p, &dirty, &new);
                p.conflicts = oops.iter().filter_map(|o| p.local_of.get(o).copied()).collect();
                Ok(false)
            }
            Err(e) => {
                self.undo_commit(p, &dirty, &new);
                Err(e)
            }
        }
    }

    fn send_commit(
        &mut self,
        p: &mut Persistence,
        dirty: &[Value],
        new: &[Value],
        symbols: &[Value],
        inherited: &HashMap<Value, u32>,
    ) -> Result<CommitOutcome, StoneError> {
        if !symbols.is_empty() {
            let names: Vec<Vec<u8>> =
                symbols.iter().map(|&s| self.string_of(s).unwrap_or_default().into_bytes()).collect();
            let ids = p.link.intern(&names)?;
            for (&s, id) in symbols.iter().zip(ids) {
                p.symbol_id.insert(s, id);
                p.symbol_of.insert(id, s);
            }
        }
        for &v in new {
            let oop = p.next_oop()?;
            p.map(v, oop);
        }
        let mut records = Vec::with_capacity(dirty.len() + new.len());
        for &v in dirty.iter().chain(new) {
            let oop = p.oop_of.get(&v).copied().ok_or_else(|| lost("a changed object lost its OOP"))?;
            let record = codec::encode(self, v, oop, p)?;
            let policy = match inherited.get(&v) {
                Some(&policy) if !p.assigned.contains_key(&v) => policy,
                _ => p.policy_for(v, oop),
            };
            records.push(ObjectRecord { policy, ..record });
        }
        let outcome = p.link.commit(&records)?;
        if let CommitOutcome::Committed(_) = outcome {
            for (v, record) in new.iter().zip(&records[dirty.len()..]) {
                p.assigned.remove(v);
                p.note_policy(record.oop, record.policy);
            }
        }
        Ok(outcome)
    }

    /// After a refused commit: new objects are transient again and the changed ones stay
    /// changed.
    fn undo_commit(&mut self, p: &mut Persistence, dirty: &[Value], new: &[Value]) {
        for v in new {
            if let Some(oop) = p.oop_of.remove(v) {
                p.local_of.remove(&oop);
            }
        }
        for &v in dirty {
            self.heap.note_store(v);
        }
    }

    /// Installs a new view: reloads what other sessions changed that is in memory here.
    fn apply_view(&mut self, p: &mut Persistence, view: ViewChange) -> Result<(), StoneError> {
        let stale = p.loaded_among(self, view.changed);
        p.reload(self, stale)
    }

    /// After a commit that conflicted only on `refresh` (objects whose changes the caller can
    /// make again, as reduced-conflict classes replay theirs): takes a view of the latest
    /// commit keeping the transaction's locks and its other changes, and reloads `refresh`
    /// and whatever else others changed. Answers false, changing nothing local, if others
    /// changed an object this transaction changed that is not in `refresh`.
    pub fn continue_transaction_refreshing(&mut self, refresh: &[Value]) -> Result<bool, StoneError> {
        let mut p = self.persist.take().ok_or_else(detached)?;
        let result = self.continue_with(&mut p, refresh);
        self.persist = Some(p);
        result
    }

    fn continue_with(&mut self, p: &mut Persistence, refresh: &[Value]) -> Result<bool, StoneError> {
        if p.must_abort {
            return Ok(false);
        }
        let view = p.link.continue_transaction()?;
        let mut stale: Vec<Oop> = Vec::new();
        let mut refused = false;
        for oop in view.changed {
            let Some(&v) = p.local_of.get(&oop) else { continue };
            if self.heap.is_stub(v) {
                continue;
            }
            if self.heap.is_dirty(v) && !refresh.contains(&v) {
                refused = true;
            } else {
                stale.push(oop);
            }
        }
        if refused {
            // Another session changed something this transaction changed: the view has moved
            // past it, so this transaction can only be aborted. What was not changed here is
            // brought up to date.
            p.must_abort = true;
            let clean: Vec<Oop> =
                stale.into_iter().filter(|oop| p.local_of.get(oop).is_some_and(|&v| !refresh.contains(&v))).collect();
            p.reload(self, clean)?;
            return Ok(false);
        }
        stale.extend(refresh.iter().filter(|&&v| !self.heap.is_stub(v)).filter_map(|v| p.oop_of.get(v).copied()));
        stale.sort_unstable();
        stale.dedup();
        self.heap.forget_writes(refresh);
        p.conflicts.clear();
        p.reload(self, stale).map(|()| true)
    }

    /// `System abortTransaction`: drops local changes to persistent objects and takes a view
    /// of the latest commit.
    pub fn abort_transaction(&mut self) -> Result<(), StoneError> {
        let mut p = self.persist.take().ok_or_else(detached)?;
        let result = self.abort_with(&mut p);
        self.persist = Some(p);
        result
    }

    fn abort_with(&mut self, p: &mut Persistence) -> Result<(), StoneError> {
        // The write set is taken only once the stone has given the new view: a failed abort
        // leaves the transaction as it was.
        let view = p.link.abort()?;
        let dirty = self.heap.take_write_set();
        p.conflicts.clear();
        p.must_abort = false;
        let mut stale: Vec<Oop> = dirty.iter().filter_map(|v| p.oop_of.get(v).copied()).collect();
        stale.extend(p.loaded_among(self, view.changed));
        stale.sort_unstable();
        stale.dedup();
        p.reload(self, stale)
    }

    /// Whether `v` is a committed (persistent) object.
    pub fn is_persistent(&self, v: Value) -> bool {
        self.persist.as_ref().is_some_and(|p| p.oop_of.contains_key(&v))
    }

    /// `System readLock:` / `writeLock:`: locks a persistent object for this session until it
    /// commits or aborts.
    pub fn lock(&mut self, v: Value, kind: LockKind) -> Result<(), StoneError> {
        let p = self.persist.as_mut().ok_or_else(detached)?;
        let oop = p
            .oop_of
            .get(&v)
            .copied()
            .ok_or_else(|| StoneError::Invalid("only committed objects can be locked".into()))?;
        p.link.lock(oop, kind)
    }

    /// `System removeLock:`.
    pub fn unlock(&mut self, v: Value) -> Result<(), StoneError> {
        let p = self.persist.as_mut().ok_or_else(detached)?;
        match p.oop_of.get(&v).copied() {
            Some(oop) => p.link.unlock(oop),
            None => Ok(()),
        }
    }

    /// `System collectGarbage`: the repository's garbage collection (answers the objects
    /// reclaimed).
    pub fn collect_repository_garbage(&mut self) -> Result<u64, StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.collect_garbage()
    }

    /// Says what this gem is, for lists of the stone's sessions.
    pub fn describe_session(&mut self, about: &About) -> Result<(), StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.describe(about)
    }

    /// Every session of the stone, and the number of the latest commit.
    pub fn stone_sessions(&mut self) -> Result<(Vec<SessionInfo>, u64), StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.sessions()
    }

    /// Does `act` to another session of the stone (see [`StoneLink::administer`]).
    pub fn administer_session(
        &mut self,
        session: u64,
        act: onyx_record::SessionAct,
    ) -> Result<Vec<(Oop, onyx_record::LockKind)>, StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.administer(session, act)
    }

    /// The session with the stone, for calls that concern no object.
    pub(crate) fn stone_link(&mut self) -> Result<&mut dyn StoneLink, StoneError> {
        Ok(self.persist.as_mut().ok_or_else(detached)?.link.as_mut())
    }

    /// `System removeLocksForSession`.
    pub fn unlock_all(&mut self) -> Result<(), StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.unlock_all()
    }

    /// Brings in `v` if it is a stub (and, within a budget, what it refers to). A fault that
    /// fails (the stone is gone) leaves the stub, and says why in `System lastStoreError`.
    pub(crate) fn fault_in(&mut self, v: Value) -> bool {
        if !self.heap.is_stub(v) {
            return true;
        }
        let Some(mut p) = self.persist.take() else { return false };
        let result = p.fault(self, v);
        self.persist = Some(p);
        match result {
            Ok(()) => !self.heap.is_stub(v),
            Err(e) => {
                let why = e.context("an object could not be faulted in");
                self.fault_error = Some(why.clone());
                self.last_store_error = Some(why);
                false
            }
        }
    }

    /// Stops the running process because something it touched could not be brought in (see
    /// [`Vm::fault_in`]): its report names the exception of the failure's kind (see
    /// [`repository_exception`]), so a host tells a stone that is gone from damage; `what`
    /// says what was touched if the failure left no word.
    pub(crate) fn fault_failed(&mut self, what: &str) {
        match self.fault_error.take() {
            Some(e) => self.suspend_active_with_error(repository_exception(&e), e.to_string()),
            None => self.fatal_error(what),
        }
    }

    /// The class bound to global `name`, brought in if it is not in memory yet (the binding
    /// and the class); `None` if there is no such class.
    pub fn global_class(&mut self, name: &str) -> Option<Value> {
        let symbol = self.existing_symbol(name)?;
        let binding = self.dict(self.known.smalltalk)?.get(symbol)?;
        self.fault_in(binding);
        let class = self.heap.slot(binding, 1)?;
        self.fault_in(class);
        self.is_behavior(class).then_some(class)
    }

    /// Brings in whichever of `values` are stubs, together: a host that reads objects
    /// directly (a cross-reference search reading methods' code) calls this first.
    pub fn bring_in(&mut self, values: &[Value]) {
        self.fault_in_all(values);
    }

    /// Brings in whichever of `values` are stubs, together.
    pub(crate) fn fault_in_all(&mut self, values: &[Value]) {
        if !values.iter().any(|&v| self.heap.is_stub(v)) {
            return;
        }
        let Some(mut p) = self.persist.take() else { return };
        if let Err(e) = p.fault_all(self, values) {
            self.last_store_error = Some(e.context("objects could not be faulted in"));
        }
        self.persist = Some(p);
    }

    /// Before compiling in `class`: brings in what the compiler reads of it.
    pub(crate) fn fault_for_compile(&mut self, class: Value) {
        let Some(mut p) = self.persist.take() else { return };
        if let Err(e) = p.fault_class_chain(self, class) {
            self.last_store_error = Some(e.context("a class could not be faulted in"));
        }
        self.persist = Some(p);
    }

    /// After compiling: brings in the stubs the code refers to.
    pub(crate) fn fault_code_literals(&mut self, code: &CompiledCode) {
        let Some(mut p) = self.persist.take() else { return };
        if let Err(e) = p.fault_literals(self, code) {
            self.last_store_error = Some(e.context("a binding could not be faulted in"));
        }
        self.persist = Some(p);
    }

    /// After a collection: if the objects take more than the memory budget, drops the
    /// contents of clean persistent objects until they take three quarters of it. Classes,
    /// method dictionaries, methods, global bindings and what the VM knows by role stay
    /// (frames run methods' code, code reads bindings directly, lookups want the rest at
    /// hand); everything else comes back when touched.
    pub(crate) fn evict_over_budget(&mut self) {
        let Some(budget) = self.config.memory_budget.into_iter().chain(self.config.memory_limit).min() else { return };
        let Some(p) = self.persist.as_ref() else { return };
        // Called right after a collection, which measured what is live.
        let mut used = self.heap.live_bytes();
        if used <= budget {
            return;
        }
        let target = budget / 4 * 3;
        let known: HashSet<Value> = self.known.objects().into_iter().collect();
        let candidates: Vec<Value> = p.local_of.values().copied().collect();
        for v in candidates {
            if used <= target {
                break;
            }
            let keep = known.contains(&v)
                || self.is_behavior(v)
                || self.heap.class_of_object(v) == Some(self.known.association)
                || matches!(
                    self.heap.get(v).map(|o| &o.body),
                    Some(Body::Method(_) | Body::Dict(_) | Body::Semaphore(_))
                );
            if !keep {
                used = used.saturating_sub(self.heap.evict(v));
            }
        }
    }

    /// The objects the last refused commit conflicted on.
    pub fn transaction_conflicts(&self) -> Vec<Value> {
        self.persist.as_ref().map(|p| p.conflicts.clone()).unwrap_or_default()
    }

    /// The persistent objects in memory (the collector keeps them: they are found by OOP).
    pub(crate) fn persistent_roots(&self, out: &mut Vec<Value>) {
        if let Some(p) = &self.persist {
            out.extend(p.local_of.values().copied());
            out.extend(p.conflicts.iter().copied());
        }
    }
}
