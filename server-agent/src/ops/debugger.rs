//! The debugger's operations: the gem's processes, a suspended process's stack and frames,
//! and what a debugger does to one (step, restart, return, proceed, terminate, evaluate in
//! a frame, accept an edited method and continue), in the gem's own terms.
//!
//! What lets a process run (a step, a restart, ...) starts it here ([`start`]) and the VM
//! thread runs it in time slices as it runs a doit; when it stops or ends, [`stopped`] makes
//! the answer: what the debugger then shows (the top frames, the selected frame's source
//! range and variables), in the same round trip.

use onyx_vm::{EvalError, FrameBinding, FrameView, StepKind, Value, Vm};

use super::inspect::{LoginHandles, field};
use super::request::{Answer, ErrorKind, Evaluated, Failure, Field, MethodRef, Outcome, Page};
use super::{browse, eval_failure, evaluated};

/// How many frames a step's answer carries unless a page says otherwise.
pub const TOP_FRAMES: u32 = 20;

/// A step, as a client asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Into the next send's method or block.
    Into,
    /// To the frame's next step point.
    Over,
    /// As over, stopping in the frame's method's blocks.
    Through,
    /// Back in the sender.
    Out,
    /// To the step point at this byte offset of the frame's source.
    RunTo(u32),
}

/// What a debugger asks of the gem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DebugRequest {
    /// The gem's processes.
    Processes,
    /// A suspended process's stack (the operation's page), with frame `frame`'s detail.
    Stack {
        /// The process.
        process: u64,
        /// The frame whose detail comes with it.
        frame: u32,
    },
    /// One frame's detail.
    Frame {
        /// The process.
        process: u64,
        /// The frame (0: the top one).
        frame: u32,
    },
    /// A step of a frame.
    Step {
        /// The process.
        process: u64,
        /// The frame.
        frame: u32,
        /// How far.
        step: Step,
    },
    /// Restarts a frame.
    Restart {
        /// The process.
        process: u64,
        /// The frame.
        frame: u32,
    },
    /// Returns the value of an expression (evaluated in the frame) from a frame.
    Return {
        /// The process.
        process: u64,
        /// The frame.
        frame: u32,
        /// The expression.
        source: String,
    },
    /// Lets the process go on.
    Proceed(u64),
    /// Stops a process that runs or waits at its next step point.
    Pause(u64),
    /// Terminates it (its unwind blocks run).
    Terminate(u64),
    /// Evaluates code in a frame.
    Evaluate {
        /// The process.
        process: u64,
        /// The frame.
        frame: u32,
        /// The code.
        source: String,
    },
    /// Compiles an edited method of a frame in its class and restarts the frames that ran
    /// the old one in the new one (edit and continue).
    Accept {
        /// The process.
        process: u64,
        /// The frame whose method was edited.
        frame: u32,
        /// The method's new source.
        source: String,
    },
}

/// A process, as a process browser lists it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcessEntry {
    /// Its number in the gem.
    pub process: u64,
    /// `running`, `ready`, `waiting`, `suspended`.
    pub status: String,
    /// Its priority.
    pub priority: u32,
    /// Why a suspended one stopped (an error's description, `Halt`, ...).
    pub reason: String,
    /// Whether the gem keeps it for a debugger.
    pub kept: bool,
    /// The label of its top frame.
    pub top: String,
    /// How many frames a debugger shows.
    pub depth: u32,
}

/// A frame in a stack.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameEntry {
    /// Its index (0: the top one).
    pub index: u32,
    /// `Class(MethodClass)>>selector`, with `[] in` for a block.
    pub label: String,
    /// The 1-based line and column of its current step point.
    pub line: u32,
    /// See `line`.
    pub column: u32,
}

/// One frame, whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameDetail {
    /// Its index.
    pub index: u32,
    /// Its label.
    pub label: String,
    /// The method it runs (`None` for a doit).
    pub method: Option<MethodRef>,
    /// The method's source.
    pub source: String,
    /// The byte range of the current step point.
    pub span: (u32, u32),
    /// `self`, then its arguments and temporaries, each with a handle.
    pub variables: Vec<Field>,
    /// Its step points, as byte ranges.
    pub step_points: Vec<(u32, u32)>,
}

/// What a debugger shows of a process after an operation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Debugged {
    /// The process.
    pub process: u64,
    /// Why it is stopped: `error`, `halt`, `breakpoint`, `step`, `interrupt`, `pause`,
    /// `suspended`; `running` for a forked process proceeded, which goes on in the background;
    /// `pausing` for one asked to pause that has not reached a step point yet; empty once it
    /// ended.
    pub kind: String,
    /// What stopped it (an error's description).
    pub reason: String,
    /// How many frames it has in all.
    pub total: u64,
    /// A page of its frames.
    pub frames: Vec<FrameEntry>,
    /// The frame asked for (the top one after a step), whole.
    pub frame: Option<FrameDetail>,
    /// Once it ended: its value.
    pub ended: Option<Evaluated>,
}

fn debug_failure(e: onyx_vm::DebugError) -> Failure {
    match e {
        onyx_vm::DebugError::NoProcess(_) | onyx_vm::DebugError::NoFrame(_) => {
            Failure::new(ErrorKind::NotFound, e.to_string())
        }
        onyx_vm::DebugError::Refused(m) => Failure::new(ErrorKind::Invalid, m),
        onyx_vm::DebugError::Compile(c) => super::compile_failure(c),
    }
}

/// The class side's instance side (the class itself for an instance side).
fn instance_side(vm: &Vm, class: Value) -> Value {
    if vm.is_metaclass(class) { vm.heap.slot(class, onyx_vm::class_slots::THIS_CLASS).unwrap_or(class) } else { class }
}

/// The gem's processes.
pub fn processes(vm: &Vm) -> Outcome {
    let items = vm
        .processes()
        .into_iter()
        .map(|p| ProcessEntry {
            process: p.serial,
            status: format!("{:?}", p.status).to_lowercase(),
            priority: u32::try_from(p.priority).unwrap_or(0),
            reason: p.reason.as_ref().map(|r| reason_text(r).1).unwrap_or_default(),
            kept: p.kept,
            top: p.top,
            depth: u32::try_from(p.depth).unwrap_or(u32::MAX),
        })
        .collect();
    Ok(Answer::Processes(items))
}

pub(crate) fn reason_text(r: &onyx_vm::Reason) -> (&'static str, String) {
    match r {
        onyx_vm::Reason::Error { description, .. } => ("error", description.clone()),
        onyx_vm::Reason::Halt(d) => ("halt", d.clone()),
        onyx_vm::Reason::Breakpoint(d) => ("breakpoint", d.clone()),
        onyx_vm::Reason::Interrupt => ("interrupt", "interrupted".into()),
        onyx_vm::Reason::Pause => ("pause", "paused".into()),
        onyx_vm::Reason::Step => ("step", String::new()),
        onyx_vm::Reason::Suspended => ("suspended", "suspended".into()),
    }
}

/// What a debugger shows of a suspended process: a page of its stack and frame `frame`.
pub fn show(vm: &mut Vm, handles: &mut LoginHandles, serial: u64, page: Page, frame: Option<u32>) -> Outcome {
    let process = vm.suspended(serial).map_err(debug_failure)?;
    let (kind, reason) = vm.stop_reason(process).as_ref().map(reason_text).unwrap_or(("suspended", String::new()));
    let size = if page.size == 0 { TOP_FRAMES } else { page.size };
    let from = usize::try_from(page.from).unwrap_or(usize::MAX);
    let stack = vm
        .stack_page(process, from, size as usize, false)
        .ok_or_else(|| Failure::new(ErrorKind::NotFound, format!("the process {serial} has no frames")))?;
    let frames = stack
        .frames
        .iter()
        .map(|f| FrameEntry {
            index: u32::try_from(f.index).unwrap_or(u32::MAX),
            label: f.label.clone(),
            line: u32::try_from(f.line).unwrap_or(0),
            column: u32::try_from(f.column).unwrap_or(0),
        })
        .collect();
    let frame = match frame {
        Some(i) => {
            let view = vm
                .stack_page(process, i as usize, 1, true)
                .and_then(|mut p| (!p.frames.is_empty()).then(|| p.frames.remove(0)))
                .ok_or_else(|| Failure::new(ErrorKind::NotFound, format!("the process has no frame {i}")))?;
            Some(detail(vm, handles, view))
        }
        None => None,
    };
    Ok(Answer::Debugged(Box::new(Debugged {
        process: serial,
        kind: kind.into(),
        reason,
        total: stack.total as u64,
        frames,
        frame,
        ended: None,
    })))
}

fn detail(vm: &mut Vm, handles: &mut LoginHandles, f: FrameView) -> FrameDetail {
    let mut variables = vec![field(vm, handles, "self".into(), f.receiver)];
    for (name, v) in f.variables {
        variables.push(field(vm, handles, name, v));
    }
    let method = (!f.doit && !f.method_class.is_nil()).then(|| {
        let meta = vm.is_metaclass(f.method_class);
        let class = instance_side(vm, f.method_class);
        MethodRef { class: super::request::ClassRef { name: vm.class_name(class), meta }, selector: f.selector.clone() }
    });
    let range = |s: onyx_vm::compiler::ast::Span| (s.start, s.end);
    FrameDetail {
        index: u32::try_from(f.index).unwrap_or(u32::MAX),
        label: f.label,
        method,
        source: f.source.to_string(),
        span: f.span.map_or((0, 0), range),
        variables,
        step_points: f.step_points.iter().map(|&(_, s)| range(s)).collect(),
    }
}

/// What the VM thread runs for a debugger's operation that lets a process run, and what it
/// does with the outcome.
pub enum Running {
    /// The debugged process itself.
    Process(u64),
    /// An evaluation in a frame, whose assignments go back into it.
    InFrame(FrameBinding),
    /// The expression a frame is to return: then the return.
    Returning {
        /// The binding of the expression's evaluation.
        binding: FrameBinding,
        /// The process.
        process: u64,
        /// The frame.
        frame: u32,
    },
}

impl Running {
    /// Whether this runs debugged process `serial` itself (a step, a restart, a proceed; not
    /// an expression evaluated in one of its frames).
    pub fn runs(&self, serial: u64) -> bool {
        matches!(*self, Running::Process(s) if s == serial)
    }
}

/// Proceeds a forked process, which goes on with its work in the background as before it
/// stopped (nobody waits for it: it may never end); `None` for a process a host waits for.
pub fn proceed_forked(vm: &mut Vm, request: &DebugRequest) -> Option<Outcome> {
    let DebugRequest::Proceed(serial) = *request else { return None };
    if !vm.is_forked(serial) {
        return None;
    }
    Some(vm.proceed(serial).map_err(debug_failure).map(|_| {
        Answer::Debugged(Box::new(Debugged { process: serial, kind: "running".into(), ..Debugged::default() }))
    }))
}

/// Asks process `serial` to pause (see [`Pausing`]).
pub fn pause(vm: &mut Vm, serial: u64) -> Result<Value, Failure> {
    vm.pause(serial).map_err(debug_failure)
}

/// A pause asked for, which its batch waits for a moment: the answer is the stack once the
/// process stopped, or that it is still pausing.
pub struct Pausing {
    /// The process.
    pub serial: u64,
    /// The Process object.
    pub process: Value,
    /// How long the batch waits.
    pub until: std::time::Instant,
}

impl Pausing {
    /// The answer, once there is one: the process stopped (for the pause or anything else),
    /// ended, or the wait is over.
    pub fn answer(&self, vm: &mut Vm, handles: &mut LoginHandles) -> Option<Outcome> {
        if vm.stop_reason(self.process).is_some() {
            return Some(show(vm, handles, self.serial, Page::default(), Some(0)));
        }
        if vm.is_pausing(self.process) && std::time::Instant::now() < self.until {
            return None;
        }
        let kind = if vm.is_pausing(self.process) { "pausing" } else { "" };
        Some(Ok(Answer::Debugged(Box::new(Debugged {
            process: self.serial,
            kind: kind.into(),
            ..Debugged::default()
        }))))
    }
}

/// Starts what `request` lets run: the process to run, and what it is.
pub fn start(vm: &mut Vm, request: &DebugRequest) -> Result<(Value, Running), Failure> {
    let debugged = |serial: u64, r: Result<Value, onyx_vm::DebugError>| {
        r.map(|p| (p, Running::Process(serial))).map_err(debug_failure)
    };
    match *request {
        DebugRequest::Step { process, frame, step } => {
            let kind = match step {
                Step::Into => StepKind::Into,
                Step::Over => StepKind::Over,
                Step::Through => StepKind::Through,
                Step::Out => StepKind::Out,
                Step::RunTo(offset) => StepKind::RunTo(step_point_at(vm, process, frame, offset)?),
            };
            debugged(process, vm.step(process, frame as usize, kind))
        }
        DebugRequest::Restart { process, frame } => debugged(process, vm.restart(process, frame as usize, None)),
        DebugRequest::Proceed(process) => debugged(process, vm.proceed(process)),
        DebugRequest::Terminate(process) => debugged(process, vm.terminate(process)),
        DebugRequest::Evaluate { process, frame, ref source } => {
            let (p, binding) = vm.spawn_in_frame(process, frame as usize, source).map_err(debug_failure)?;
            Ok((p, Running::InFrame(binding)))
        }
        DebugRequest::Return { process, frame, ref source } => {
            let (p, binding) = vm.spawn_in_frame(process, frame as usize, source).map_err(debug_failure)?;
            Ok((p, Running::Returning { binding, process, frame }))
        }
        DebugRequest::Accept { process, frame, ref source } => accept(vm, process, frame, source),
        DebugRequest::Processes | DebugRequest::Stack { .. } | DebugRequest::Frame { .. } | DebugRequest::Pause(_) => {
            Err(Failure::new(ErrorKind::Invalid, "an operation that runs no process of its own"))
        }
    }
}

/// The instruction of the step point a byte offset of a frame's source stands in: the
/// innermost whose range holds it, else the first after it.
fn step_point_at(vm: &Vm, serial: u64, frame: u32, offset: u32) -> Result<u32, Failure> {
    let process = vm.suspended(serial).map_err(debug_failure)?;
    let view = vm
        .stack_page(process, frame as usize, 1, false)
        .and_then(|p| p.frames.into_iter().next())
        .ok_or_else(|| Failure::new(ErrorKind::NotFound, format!("the process has no frame {frame}")))?;
    let holding = view
        .step_points
        .iter()
        .filter(|(_, s)| s.start <= offset && offset < s.end)
        .min_by_key(|(_, s)| s.end - s.start);
    let after = view.step_points.iter().filter(|(_, s)| s.start >= offset).min_by_key(|(_, s)| s.start);
    holding.or(after).map(|&(pc, _)| pc).ok_or_else(|| Failure::new(ErrorKind::Invalid, "no step point there"))
}

/// Edit and continue: compiles the frame's method anew in its class (as the browser does)
/// and restarts, in the new method, the bottom-most frame that ran the old one.
fn accept(vm: &mut Vm, serial: u64, frame: u32, source: &str) -> Result<(Value, Running), Failure> {
    let process = vm.suspended(serial).map_err(debug_failure)?;
    let page = vm.stack_page(process, 0, usize::MAX, false).unwrap_or(onyx_vm::StackPage { total: 0, frames: vec![] });
    let edited = page
        .frames
        .get(frame as usize)
        .ok_or_else(|| Failure::new(ErrorKind::NotFound, format!("the process has no frame {frame}")))?;
    if edited.doit || edited.method_class.is_nil() {
        return Err(Failure::new(ErrorKind::Invalid, "a doit's frame has no method to change"));
    }
    let (class, selector) = (edited.method_class, edited.selector.clone());
    let meta = vm.is_metaclass(class);
    let name = vm.class_name(instance_side(vm, class));
    let compiled = browse::compile(vm, &super::request::ClassRef { name, meta }, None, source)?;
    let Answer::Compiled(c) = compiled else { return Err(Failure::new(ErrorKind::Invalid, "not compiled")) };
    let new_selector = vm.intern(&c.selector);
    let method = vm.lookup(class, new_selector);
    // The method's own activations (not its blocks') that ran it, the bottom-most first.
    let target = page
        .frames
        .iter()
        .rev()
        .find(|f| f.method_class == class && f.selector == selector && f.block_depth == 0 && !f.doit);
    match (method, target, c.selector == selector) {
        (Some(method), Some(target), true) => {
            let p = vm.restart(serial, target.index, Some(method)).map_err(debug_failure)?;
            Ok((p, Running::Process(serial)))
        }
        // Another selector, or only blocks of the method on the stack: the new method is in
        // the class, and the frame restarts as it is.
        _ => {
            let p = vm.restart(serial, frame as usize, None).map_err(debug_failure)?;
            Ok((p, Running::Process(serial)))
        }
    }
}

/// The answer once what [`start`] ran stopped or ended (the process kept if it stopped), or
/// the next process to run (a return, after its expression).
pub fn stopped(
    vm: &mut Vm,
    handles: &mut LoginHandles,
    running: Running,
    process: Value,
    result: Result<Value, EvalError>,
) -> Result<Outcome, (Value, Running)> {
    if matches!(result, Err(EvalError::Stopped | EvalError::Unhandled(_) | EvalError::Interrupted(_))) {
        vm.keep_suspended(process);
    }
    match running {
        Running::Process(serial) => Ok(match result {
            Ok(value) => match evaluated(vm, handles, true, value) {
                Ok(Answer::Evaluated(e)) => {
                    Ok(Answer::Debugged(Box::new(Debugged { process: serial, ended: Some(e), ..Debugged::default() })))
                }
                other => other,
            },
            Err(EvalError::Stopped | EvalError::Unhandled(_) | EvalError::Interrupted(_)) => {
                show(vm, handles, serial, Page::default(), Some(0))
            }
            Err(e) => Err(eval_failure(vm, e)),
        }),
        Running::InFrame(binding) => {
            vm.write_back(binding);
            Ok(match result {
                Ok(value) => evaluated(vm, handles, true, value),
                Err(e) => {
                    let failure = eval_failure(vm, e);
                    Err(with_process(vm, process, failure))
                }
            })
        }
        Running::Returning { binding, process: serial, frame } => {
            vm.write_back(binding);
            match result {
                Ok(value) => match vm.return_from(serial, frame as usize, value) {
                    Ok(p) => Err((p, Running::Process(serial))),
                    Err(e) => Ok(Err(debug_failure(e))),
                },
                Err(e) => {
                    let failure = eval_failure(vm, e);
                    Ok(Err(with_process(vm, process, failure)))
                }
            }
        }
    }
}

/// A failure of an evaluation whose process stopped: it names the kept process, to debug.
pub fn with_process(vm: &Vm, process: Value, mut failure: Failure) -> Failure {
    if vm.kept_process(vm.process_serial(process)).is_some() {
        failure.process = vm.process_serial(process);
    }
    failure
}
