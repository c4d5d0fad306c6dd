//! A process meeting a breakpoint: its conditions and log expressions evaluated in the
//! frame, its hits counted, and the process suspended there, all before the covered
//! instruction runs.
//!
//! The dispatch loop hands every [`crate::bytecode::Instr::Break`] to [`Vm::break_hit`],
//! which answers the covered instruction to run when nothing stops. A condition or log
//! expression runs as Smalltalk in the same process: its frame is pushed above the
//! breakpoint's frame (whose pc stays at the breakpoint), with the frame's variables in an
//! Array it reads them from (as a debugger's evaluation in a frame), inside `on: Error do:` so
//! that an error in it comes back as a `BreakpointFailure` rather than reaching the
//! program's own handlers. When it returns, its answer lands just above the frame's
//! registers, the loop meets the same breakpoint again, and this goes on from where it was
//! (`ProcessState::break_check`). Breakpoints inside a condition do not fire. A process that
//! stopped at a breakpoint passes it when it goes on (`ProcessState::break_passing`).

use std::rc::Rc;

use crate::bytecode::{CompiledCode, Instr, VarLoc};
use crate::error::CompileError;
use crate::value::Value;
use crate::vm::Vm;

use super::breakpoints::{BreakpointEvent, BreakpointSpec, line_of};

/// Which expression of a breakpoint a process is evaluating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CheckKind {
    Condition,
    Log,
}

/// A condition or log expression running above the frame of a breakpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BreakCheck {
    /// The breakpoint's frame and pc.
    pub frame: u64,
    pub pc: u32,
    /// Which breakpoint of the patch, and which of its expressions.
    pub index: usize,
    pub kind: CheckKind,
    /// Where the answer lands.
    pub ret: usize,
}

/// One expression, compiled for the code a breakpoint is patched into.
#[derive(Debug)]
struct Expr {
    /// A CompiledMethod holding `code`, for its frames.
    method: Value,
    code: Rc<CompiledCode>,
    /// The Array the expression reads the frame's variables from.
    holder: Value,
    locations: Vec<VarLoc>,
}

/// A breakpoint's condition and log expression, compiled.
#[derive(Debug)]
pub(crate) struct Checks {
    condition: Option<Expr>,
    log: Option<Expr>,
}

impl Checks {
    /// Compiles `spec`'s expressions for `code` (the method or block the breakpoint is in).
    pub fn compile(vm: &mut Vm, spec: &BreakpointSpec, code: &CompiledCode) -> Result<Checks, CompileError> {
        let mut one = |source: &Option<String>, kind| match source {
            Some(s) => Expr::compile(vm, s, kind, code).map(Some),
            None => Ok(None),
        };
        Ok(Checks { condition: one(&spec.condition, CheckKind::Condition)?, log: one(&spec.log, CheckKind::Log)? })
    }

    pub fn roots(&self, out: &mut Vec<Value>) {
        for e in self.condition.iter().chain(&self.log) {
            out.push(e.method);
            out.push(e.holder);
        }
    }
}

impl Expr {
    fn compile(vm: &mut Vm, source: &str, kind: CheckKind, code: &CompiledCode) -> Result<Expr, CompileError> {
        let names: Vec<String> = code.var_names.iter().map(|(n, _)| n.clone()).collect();
        let locations = code.var_names.iter().map(|(_, l)| *l).collect();
        let holder = vm.new_array(vec![Value::NIL; names.len()]);
        let class = code.method_class.get();
        // Compiled alone first, so a mistake is reported where the user made it.
        crate::compiler::compile_in_frame(vm, source, class, &names, holder)?;
        let body = match kind {
            CheckKind::Condition => format!("[\n{source}\n]"),
            CheckKind::Log => format!("[[\n{source}\n] value displayString]"),
        };
        let wrapped = format!("^ {body} on: Error do: [:ex | ex return: (BreakpointFailure on: ex)]");
        let code = crate::compiler::compile_in_frame(vm, &wrapped, class, &names, holder)?;
        let method = vm.new_method(code.clone());
        Ok(Expr { method, code, holder, locations })
    }
}

/// How a condition's answer or a log's came out.
enum Outcome {
    Text(String),
    True,
    False,
    /// An error: its class name and description.
    Failed(String, String),
    /// Something the expression may not answer: the class of what it answered.
    Other(String),
}

impl Vm {
    /// A process met the breakpoint patch `slot` at `pc` of its top frame: answers the
    /// instruction the patch covers when it goes on, or `None` when it stopped (or began a
    /// condition or log expression; the loop reloads the top frame).
    pub(crate) fn break_hit(&mut self, slot: u32, pc: usize) -> Option<Instr> {
        let Some((covered, ids)) = self.patch_at(slot) else {
            self.fatal_error("a breakpoint instruction without its breakpoint");
            return None;
        };
        let state = &mut self.scheduler.state;
        let Some(top) = state.frames.last() else { return Some(covered) };
        let (frame, ret, pc32) = (top.id, top.top(), pc as u32);
        if state.break_passing.take() == Some((frame, pc32)) {
            return Some(covered);
        }
        let resumed = match state.break_check.take() {
            Some(c) if c.frame == frame && c.pc == pc32 => Some(c),
            // Inside a condition or log expression breakpoints do not fire.
            Some(c) => {
                state.break_check = Some(c);
                return Some(covered);
            }
            None => None,
        };
        let serial = state.serial;
        let (mut k, mut answer) = match resumed {
            Some(c) => (c.index, Some((c.kind, state.stack.get(c.ret).copied().unwrap_or(Value::NIL)))),
            None => (0, None),
        };
        while let Some(&id) = ids.get(k) {
            match answer.take() {
                Some((CheckKind::Log, v)) => {
                    match self.outcome(v, CheckKind::Log) {
                        Outcome::Text(text) => {
                            self.transcript.push_str(&text);
                            self.transcript.push('\n');
                        }
                        other => return self.stop_failed(id, "log expression", other, frame, pc32),
                    }
                    k += 1;
                    continue;
                }
                Some((CheckKind::Condition, v)) => match self.outcome(v, CheckKind::Condition) {
                    Outcome::True => {}
                    Outcome::False => {
                        k += 1;
                        continue;
                    }
                    other => return self.stop_failed(id, "condition", other, frame, pc32),
                },
                None => {
                    let Some(e) = self.debug.breakpoints.entry(id) else {
                        k += 1;
                        continue;
                    };
                    if !e.spec.enabled || e.spec.process.is_some_and(|p| p != serial) {
                        k += 1;
                        continue;
                    }
                    if e.spec.condition.is_some() {
                        let check = BreakCheck { frame, pc: pc32, index: k, kind: CheckKind::Condition, ret };
                        return self.begin_check(id, check);
                    }
                }
            }
            let Some(e) = self.debug.breakpoints.entry_mut(id) else {
                k += 1;
                continue;
            };
            e.hit_count += 1;
            if !e.spec.hits.takes(e.hit_count) {
                k += 1;
                continue;
            }
            if e.spec.log.is_some() {
                return self.begin_check(id, BreakCheck { frame, pc: pc32, index: k, kind: CheckKind::Log, ret });
            }
            return self.stop_at_breakpoint(id, frame, pc32);
        }
        Some(covered)
    }

    /// What an expression's answer says.
    fn outcome(&self, v: Value, kind: CheckKind) -> Outcome {
        let class = self.class_name(self.class_of(v));
        if class == "BreakpointFailure" {
            let text = |i| self.heap.slot(v, i).and_then(|s| self.string_of(s)).unwrap_or_default();
            return Outcome::Failed(text(0), text(1));
        }
        match (kind, v) {
            (CheckKind::Condition, Value::TRUE) => Outcome::True,
            (CheckKind::Condition, Value::FALSE) => Outcome::False,
            (CheckKind::Log, _) if v.is_object() => self.string_of(v).map_or(Outcome::Other(class), Outcome::Text),
            _ => Outcome::Other(class),
        }
    }

    /// Pushes the frame of a breakpoint's condition or log expression; `None` to the loop
    /// (or the process stopped, if the expression no longer compiles).
    fn begin_check(&mut self, id: u64, check: BreakCheck) -> Option<Instr> {
        let kind_name = if check.kind == CheckKind::Condition { "condition" } else { "log expression" };
        if let Err(e) = self.ensure_checks(id) {
            let failed = Outcome::Failed("CompileError".into(), e.to_string());
            return self.stop_failed(id, kind_name, failed, check.frame, check.pc);
        }
        let checks = self.debug.breakpoints.entry(id).and_then(|e| e.checks.as_ref());
        let expr = checks.and_then(|c| match check.kind {
            CheckKind::Condition => c.condition.as_ref(),
            CheckKind::Log => c.log.as_ref(),
        });
        // The process stops or goes on here: it never meets the breakpoint again unchanged.
        let Some(expr) = expr else {
            let failed = Outcome::Failed("Error".into(), "it could not be compiled".into());
            return self.stop_failed(id, kind_name, failed, check.frame, check.pc);
        };
        let (method, code, holder, locations) = (expr.method, expr.code.clone(), expr.holder, expr.locations.clone());
        let state = &self.scheduler.state;
        let base = state.frames.last().map_or(0, |f| f.base as usize);
        let reg = |r: u8| state.stack.get(base + usize::from(r)).copied().unwrap_or(Value::NIL);
        let values: Vec<Value> = locations
            .iter()
            .map(|loc| match *loc {
                VarLoc::Reg(r) => reg(r),
                VarLoc::Vector { vec, index } => self.heap.slot(reg(vec), usize::from(index)).unwrap_or(Value::NIL),
            })
            .collect();
        let receiver = reg(0);
        for (i, v) in values.into_iter().enumerate() {
            self.heap.set_slot(holder, i, v);
        }
        let id_frame = self.new_frame_id();
        let state = &mut self.scheduler.state;
        if let Some(top) = state.frames.last_mut() {
            top.pc = check.pc;
        }
        let at = check.ret;
        let end = at + usize::from(code.frame_size).max(1);
        if state.stack.len() < end {
            state.stack.resize(end, Value::NIL);
        }
        state.stack[at] = receiver;
        state.stack[at + 1..end].fill(Value::NIL);
        crate::process::push_frame(
            &mut state.frames,
            Rc::as_ptr(&code),
            method,
            Value::NIL,
            at as u32,
            at as u32,
            id_frame,
            id_frame,
        );
        state.break_check = Some(check);
        None
    }

    /// Compiles a breakpoint's expressions for the code it is patched into, if they are not.
    fn ensure_checks(&mut self, id: u64) -> Result<(), CompileError> {
        let Some(e) = self.debug.breakpoints.entry(id) else { return Ok(()) };
        if e.checks.is_some() {
            return Ok(());
        }
        let spec = e.spec.clone();
        let Some(code) = e.placed.as_ref().and_then(|p| self.debug.breakpoints.patches.get(p.slot as usize)) else {
            return Ok(());
        };
        let Some(code) = code.as_ref().map(|p| p.code.clone()) else { return Ok(()) };
        let checks = super::hit::Checks::compile(self, &spec, &code)?;
        if let Some(e) = self.debug.breakpoints.entry_mut(id) {
            e.checks = Some(checks);
        }
        Ok(())
    }

    /// Suspends the running process at breakpoint `id` (at `pc` of frame `frame`, the top).
    fn stop_at_breakpoint(&mut self, id: u64, frame: u64, pc: u32) -> Option<Instr> {
        let (line, once) = match self.debug.breakpoints.entry(id) {
            Some(e) => (line_of(&e.source, e.offset), e.spec.once),
            None => (0, false),
        };
        if once {
            self.remove_breakpoint(id);
            self.debug.breakpoints.tell(BreakpointEvent::Removed(id));
        }
        self.stop_here(frame, pc, "Breakpoint", format!("breakpoint {id} at line {line}"));
        None
    }

    /// Suspends the running process at breakpoint `id` because its condition or log
    /// expression failed.
    fn stop_failed(&mut self, id: u64, what: &str, outcome: Outcome, frame: u64, pc: u32) -> Option<Instr> {
        let (class_name, description) = match outcome {
            Outcome::Failed(class, text) if text.is_empty() => (class, String::new()),
            Outcome::Failed(class, text) => (class, format!(": {text}")),
            Outcome::Other(class) => {
                let wanted = if what == "condition" { "Boolean" } else { "String" };
                ("Error".into(), format!(": it answered a {class}, not a {wanted}"))
            }
            Outcome::Text(_) | Outcome::True | Outcome::False => ("Error".into(), String::new()),
        };
        let description = format!("the {what} of breakpoint {id} failed{description}");
        self.stop_here(frame, pc, &class_name, description);
        None
    }

    /// Suspends the running process before the instruction at `pc` of its top frame `frame`,
    /// with an error report of `class_name`; it passes the breakpoint there when it goes on.
    pub(crate) fn stop_here(&mut self, frame: u64, pc: u32, class_name: &str, description: String) {
        let state = &mut self.scheduler.state;
        if let Some(top) = state.frames.last_mut() {
            top.pc = pc;
        }
        state.break_passing = Some((frame, pc));
        self.suspend_active_with_error(class_name, description);
    }
}
