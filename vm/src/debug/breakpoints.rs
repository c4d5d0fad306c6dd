//! Breakpoints: where they are asked for, where they land, and the patches that make code
//! meet them.
//!
//! A breakpoint names a method (class and selector) and a step point in it by where its
//! source starts. While it is enabled, an [`Instr::Break`] is patched in place over the step
//! point's instruction (in the method's code or a block's), the instruction kept aside in
//! the code ([`crate::bytecode::Instrs`]), so frames already running the code meet it too and
//! nothing of the method object changes: no transaction sees a breakpoint. Code with a patch
//! runs in the interpreter (its native code is set aside until the last patch goes); code
//! without one runs exactly as before. `hit.rs` is what happens when a process meets one.
//!
//! Whenever methods may have changed (a compile, a removal, methods loaded or reloaded from
//! the repository: every [`Vm::flush_caches`]) each breakpoint looks up its method again;
//! when the method's code is new it moves to the step point at the same place in the new
//! source (the sources are diffed), or, if its statement is gone, is kept disabled and
//! orphaned.

use std::rc::Rc;

use crate::bytecode::{CompiledCode, Instr, StepPoint};
use crate::error::CompileError;
use crate::value::Value;
use crate::vm::{Vm, class_slots as cs};

pub use onyx_record::Hits;

/// Where in its method a breakpoint is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Position {
    /// The first step point on this line of the method's source (from 1), or on the next
    /// line that has one.
    Line(u32),
    /// The innermost step point whose source covers this byte offset (the statement at a
    /// cursor), or the next one after it.
    Offset(u32),
    /// The step point starting at `offset` of `source`, a version of the method's source
    /// (another gem's, or an older one): the same place in the source the method has here.
    InSource {
        /// The version of the source.
        source: Rc<str>,
        /// Where the step point starts in it.
        offset: u32,
    },
}

/// A breakpoint as whoever sets it describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakpointSpec {
    /// Its number, given by the setter (setting a number again replaces that breakpoint).
    pub id: u64,
    /// The class (or metaclass) the method is in.
    pub class: Value,
    /// The method's selector (a Symbol).
    pub selector: Value,
    /// Where in the method.
    pub at: Position,
    /// An expression evaluated in the frame: the breakpoint takes the hit only if it answers
    /// true.
    pub condition: Option<String>,
    /// An expression whose displayString goes to the transcript instead of stopping.
    pub log: Option<String>,
    /// Which hits are taken.
    pub hits: Hits,
    /// Removed after it first stops.
    pub once: bool,
    /// Whether it is in force.
    pub enabled: bool,
    /// Only this process (by serial) stops at it; `None` for every process.
    pub process: Option<u64>,
}

/// A breakpoint as the VM holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakpointView {
    /// As it was set, with `at` where it landed (an offset) and `enabled` as it stands.
    pub spec: BreakpointSpec,
    /// The line (from 1) of the step point in the method's source.
    pub line: u32,
    /// The method's source the offset is into.
    pub source: Rc<str>,
    /// The hits counted so far (those whose condition held).
    pub hit_count: u64,
    /// Its statement went when the method changed: it is disabled.
    pub orphaned: bool,
    /// Patched into the method's code now (enabled, and the method is in memory).
    pub placed: bool,
}

/// What became of a breakpoint without anyone asking, for the host to tell its tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BreakpointEvent {
    /// It stopped a process once and was removed.
    Removed(u64),
    /// Its method changed and it moved to this line of the new source.
    Moved(u64, u32),
    /// Its method changed and its statement is gone: it is disabled.
    Orphaned(u64),
}

/// Why a breakpoint could not be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BreakpointError {
    /// The class has no such method.
    #[error("{0} has no method {1}")]
    NoMethod(String, String),
    /// The method has no step point there.
    #[error("{0} has no statement at or after {1}")]
    NoStepPoint(String, String),
    /// The condition or log expression does not compile.
    #[error("{0}")]
    Compile(CompileError),
}

/// One breakpoint.
#[derive(Debug)]
pub(crate) struct Entry {
    pub spec: BreakpointSpec,
    /// The source `offset` is into (the method's, as last placed).
    pub source: Rc<str>,
    pub offset: u32,
    pub hit_count: u64,
    pub orphaned: bool,
    /// Where it is patched in, while it is.
    pub placed: Option<Placed>,
    /// Its condition and log expression, compiled for the code it is patched into.
    pub checks: Option<super::hit::Checks>,
}

/// Where a breakpoint is patched in.
#[derive(Debug)]
pub(crate) struct Placed {
    /// The method's code (by which a change to the method is seen).
    pub method: Rc<CompiledCode>,
    /// The patch slot.
    pub slot: u32,
}

/// One patched instruction, shared by the breakpoints at it.
#[derive(Debug)]
pub(crate) struct Patch {
    /// The code patched (the method's or one of its blocks').
    pub code: Rc<CompiledCode>,
    pub pc: u32,
    /// The breakpoints at it, in the order they were set.
    pub ids: Vec<u64>,
}

/// Every breakpoint of the VM and the patches.
#[derive(Debug, Default)]
pub(crate) struct Breakpoints {
    pub entries: Vec<Entry>,
    pub patches: Vec<Option<Patch>>,
    pub events: Vec<BreakpointEvent>,
    /// How many events were ever told (see [`Vm::breakpoint_changes`]).
    pub told: u64,
}

impl Breakpoints {
    /// Notes what became of a breakpoint, for the host's tools.
    pub fn tell(&mut self, event: BreakpointEvent) {
        self.events.push(event);
        self.told += 1;
    }

    pub fn entry(&self, id: u64) -> Option<&Entry> {
        self.entries.iter().find(|e| e.spec.id == id)
    }

    pub fn entry_mut(&mut self, id: u64) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.spec.id == id)
    }

    /// Values the breakpoints hold (for the collector).
    pub fn roots(&self, out: &mut Vec<Value>) {
        for e in &self.entries {
            out.push(e.spec.class);
            out.push(e.spec.selector);
            if let Some(checks) = &e.checks {
                checks.roots(out);
            }
        }
    }

    /// Patches breakpoint `id` in at `pc` of `code`.
    fn patch(&mut self, id: u64, code: &Rc<CompiledCode>, pc: u32) -> u32 {
        let existing =
            self.patches.iter().position(|p| p.as_ref().is_some_and(|p| Rc::ptr_eq(&p.code, code) && p.pc == pc));
        let slot = match existing {
            Some(slot) => slot,
            None => {
                let patch = Some(Patch { code: code.clone(), pc, ids: Vec::new() });
                match self.patches.iter().position(Option::is_none) {
                    Some(free) => {
                        self.patches[free] = patch;
                        free
                    }
                    None => {
                        self.patches.push(patch);
                        self.patches.len() - 1
                    }
                }
            }
        };
        if let Some(p) = self.patches[slot].as_mut() {
            p.ids.push(id);
            if p.ids.len() == 1 && code.instrs.patch(pc as usize, slot as u32) {
                code.native.set_aside();
            }
        }
        slot as u32
    }

    /// Takes breakpoint `id` out of patch `slot`; the last one out puts the instruction back.
    fn unpatch(&mut self, id: u64, slot: u32) {
        let Some(entry) = self.patches.get_mut(slot as usize) else { return };
        let Some(p) = entry.as_mut() else { return };
        p.ids.retain(|&i| i != id);
        if p.ids.is_empty() {
            p.code.instrs.unpatch(p.pc as usize);
            if !p.code.instrs.is_patched() {
                p.code.native.take_back();
            }
            *entry = None;
        }
    }

    /// Takes a breakpoint out of the code it is patched into.
    pub fn unplace(&mut self, id: u64) {
        let Some(placed) = self.entry_mut(id).and_then(|e| e.placed.take()) else { return };
        self.unpatch(id, placed.slot);
    }

    /// Patches breakpoint `id` in at its offset in `method` (which holds that source).
    fn place(&mut self, id: u64, method: &Rc<CompiledCode>) -> bool {
        let Some(offset) = self.entry(id).map(|e| e.offset) else { return false };
        let Some((code, pc)) = locate(method, offset) else { return false };
        let slot = self.patch(id, &code, pc);
        if let Some(e) = self.entry_mut(id) {
            e.placed = Some(Placed { method: method.clone(), slot });
        }
        true
    }
}

/// The code (the method's or a block's) and pc of the step point starting at `offset`.
fn locate(method: &Rc<CompiledCode>, offset: u32) -> Option<(Rc<CompiledCode>, u32)> {
    if let Some(sp) = method.step_points.iter().find(|s| s.span.start == offset) {
        return Some((method.clone(), sp.pc));
    }
    method.blocks.iter().find_map(|b| locate(b, offset))
}

/// Every step point of a method and its blocks.
fn step_points(code: &CompiledCode, out: &mut Vec<StepPoint>) {
    out.extend(code.step_points.iter().copied());
    for b in code.blocks.iter() {
        step_points(b, out);
    }
}

/// The line (from 1) of a byte offset.
pub(crate) fn line_of(source: &str, offset: u32) -> u32 {
    let upto = source.get(..offset as usize).unwrap_or(source);
    1 + upto.bytes().filter(|&b| b == b'\n').count() as u32
}

/// Where a step point for `at` starts in `method`'s source.
fn resolve(method: &Rc<CompiledCode>, at: &Position) -> Option<u32> {
    let mut points = Vec::new();
    step_points(method, &mut points);
    let source = &method.source;
    match *at {
        Position::InSource { ref source, offset } => {
            relocate(source, &method.source, offset).filter(|&o| locate(method, o).is_some())
        }
        Position::Line(line) => {
            let mut starts: Vec<(u32, u32)> =
                points.iter().map(|s| (line_of(source, s.span.start), s.span.start)).collect();
            starts.sort_unstable();
            starts.into_iter().find(|&(l, _)| l >= line).map(|(_, start)| start)
        }
        Position::Offset(offset) => {
            let covering =
                points.iter().filter(|s| s.span.start <= offset && offset < s.span.end).map(|s| s.span.start).max();
            covering.or_else(|| points.iter().map(|s| s.span.start).filter(|&s| s >= offset).min())
        }
    }
}

/// Where `offset` of `old` is in `new`, if the text there survived.
fn relocate(old: &str, new: &str, offset: u32) -> Option<u32> {
    if old == new {
        return Some(offset);
    }
    let o = offset as usize;
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, old.as_bytes(), new.as_bytes());
    ops.iter().find_map(|op| match *op {
        similar::DiffOp::Equal { old_index, new_index, len } if (old_index..old_index + len).contains(&o) => {
            u32::try_from(o - old_index + new_index).ok()
        }
        _ => None,
    })
}

/// What a method lookup that brings nothing in finds.
enum Current {
    Code(Rc<CompiledCode>),
    /// The class or its methods are not in memory: nothing of it can run.
    NotLoaded,
    /// The class has no such method (now).
    Missing,
}

impl Vm {
    /// Sets a breakpoint (or replaces the one with its id), answering where it landed.
    pub fn set_breakpoint(&mut self, spec: BreakpointSpec) -> Result<BreakpointView, BreakpointError> {
        self.fault_in(spec.class);
        let name = format!("{}>>{}", self.class_name(spec.class), self.string_of(spec.selector).unwrap_or_default());
        let dict = self.heap.slot(spec.class, cs::METHOD_DICT).unwrap_or(Value::NIL);
        self.fault_in(dict);
        let method = self.dict(dict).and_then(|d| d.get(spec.selector));
        let code = method.and_then(|m| {
            self.fault_in(m);
            self.code_of(m)
        });
        let Some(code) = code else {
            let selector = self.string_of(spec.selector).unwrap_or_default();
            return Err(BreakpointError::NoMethod(self.class_name(spec.class), selector));
        };
        let name = || name.clone();
        let offset = resolve(&code, &spec.at).ok_or_else(|| {
            let at = match &spec.at {
                Position::Line(l) => format!("line {l}"),
                Position::Offset(o) => format!("offset {o}"),
                Position::InSource { .. } => "the place it was set at".into(),
            };
            BreakpointError::NoStepPoint(name(), at)
        })?;
        let (at_code, _) = locate(&code, offset).ok_or_else(|| BreakpointError::NoStepPoint(name(), String::new()))?;
        let checks = super::hit::Checks::compile(self, &spec, &at_code).map_err(BreakpointError::Compile)?;
        self.remove_breakpoint(spec.id);
        let id = spec.id;
        let mut spec = spec;
        spec.at = Position::Offset(offset);
        let enabled = spec.enabled;
        let source = code.source.clone();
        self.debug.breakpoints.entries.push(Entry {
            spec,
            source,
            offset,
            hit_count: 0,
            orphaned: false,
            placed: None,
            checks: Some(checks),
        });
        if enabled {
            self.debug.breakpoints.place(id, &code);
        }
        self.breakpoint(id).ok_or_else(|| BreakpointError::NoStepPoint(name(), String::new()))
    }

    /// Removes a breakpoint; answers whether there was one.
    pub fn remove_breakpoint(&mut self, id: u64) -> bool {
        let b = &mut self.debug.breakpoints;
        b.unplace(id);
        let before = b.entries.len();
        b.entries.retain(|e| e.spec.id != id);
        b.entries.len() != before
    }

    /// Enables or disables a breakpoint (an orphaned one stays disabled); answers whether
    /// there is one.
    pub fn enable_breakpoint(&mut self, id: u64, enabled: bool) -> bool {
        let Some(e) = self.debug.breakpoints.entry_mut(id) else { return false };
        e.spec.enabled = enabled && !e.orphaned;
        if !e.spec.enabled {
            self.debug.breakpoints.unplace(id);
        }
        self.apply_breakpoints();
        true
    }

    /// One breakpoint.
    pub fn breakpoint(&self, id: u64) -> Option<BreakpointView> {
        let e = self.debug.breakpoints.entry(id)?;
        Some(BreakpointView {
            spec: e.spec.clone(),
            line: line_of(&e.source, e.offset),
            source: e.source.clone(),
            hit_count: e.hit_count,
            orphaned: e.orphaned,
            placed: e.placed.is_some(),
        })
    }

    /// Every breakpoint, in the order they were set.
    pub fn breakpoints(&self) -> Vec<BreakpointView> {
        let ids: Vec<u64> = self.debug.breakpoints.entries.iter().map(|e| e.spec.id).collect();
        ids.into_iter().filter_map(|id| self.breakpoint(id)).collect()
    }

    /// Takes what became of breakpoints since the last call.
    pub fn take_breakpoint_events(&mut self) -> Vec<BreakpointEvent> {
        std::mem::take(&mut self.debug.breakpoints.events)
    }

    /// The code of `class`'s own method for `selector`, bringing nothing in.
    fn current_code(&self, class: Value, selector: Value) -> Current {
        if self.heap.is_stub(class) {
            return Current::NotLoaded;
        }
        let dict = self.heap.slot(class, cs::METHOD_DICT).unwrap_or(Value::NIL);
        if self.heap.is_stub(dict) {
            return Current::NotLoaded;
        }
        match self.dict(dict).and_then(|d| d.get(selector)) {
            Some(m) if self.heap.is_stub(m) => Current::NotLoaded,
            Some(m) => self.code_of(m).map_or(Current::Missing, Current::Code),
            None => Current::Missing,
        }
    }

    /// Brings every enabled breakpoint up to date with the methods as they are now: patched
    /// into its method's current code, moved into a new version of it, or orphaned. Brings
    /// nothing in from the repository (a method that comes in later is seen then).
    pub(crate) fn apply_breakpoints(&mut self) {
        let ids: Vec<u64> = self
            .debug
            .breakpoints
            .entries
            .iter()
            .filter(|e| e.spec.enabled && !e.orphaned)
            .map(|e| e.spec.id)
            .collect();
        for id in ids {
            let Some(e) = self.debug.breakpoints.entry(id) else { continue };
            let code = match self.current_code(e.spec.class, e.spec.selector) {
                Current::Code(code) => code,
                // Not in memory, or not there now: it is placed again when it is.
                Current::NotLoaded | Current::Missing => {
                    self.debug.breakpoints.unplace(id);
                    continue;
                }
            };
            if e.placed.as_ref().is_some_and(|p| Rc::ptr_eq(&p.method, &code)) {
                continue;
            }
            let same = Rc::ptr_eq(&e.source, &code.source) || *e.source == *code.source;
            let offset = relocate(&e.source, &code.source, e.offset).filter(|&o| locate(&code, o).is_some());
            self.debug.breakpoints.unplace(id);
            let b = &mut self.debug.breakpoints;
            let Some(e) = b.entry_mut(id) else { continue };
            match offset {
                Some(offset) => {
                    e.offset = offset;
                    e.source = code.source.clone();
                    e.checks = None;
                    if !same {
                        let line = line_of(&e.source, offset);
                        b.tell(BreakpointEvent::Moved(id, line));
                    }
                    b.place(id, &code);
                }
                None => {
                    e.orphaned = true;
                    e.spec.enabled = false;
                    e.checks = None;
                    b.tell(BreakpointEvent::Orphaned(id));
                }
            }
        }
    }

    /// The instruction a breakpoint's patch covers, and the patch's breakpoints.
    pub(crate) fn patch_at(&self, slot: u32) -> Option<(Instr, Vec<u64>)> {
        let p = self.debug.breakpoints.patches.get(slot as usize)?.as_ref()?;
        Some((p.code.instrs.get(p.pc as usize)?, p.ids.clone()))
    }
}
