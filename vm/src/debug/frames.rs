//! A process's frames as a debugger sees them: paged from the frame shown at the top, each
//! with its method (class and selector; a doit; a block with its home method and nesting),
//! its current step point as a source range, its receiver, and its arguments and
//! temporaries by name (those captured by blocks or held in temp vectors included).
//!
//! Only the frames asked for are read, so the first page of a deep recursion costs what a
//! shallow one does.

use std::rc::Rc;

use crate::bytecode::VarLoc;
use crate::compiler::ast::Span;
use crate::process::{Frame, ProcessState};
use crate::value::Value;
use crate::vm::Vm;

/// One activation of a process, as a debugger sees it.
#[derive(Clone, Debug)]
pub struct FrameView {
    /// Its index: 0 is the frame shown at the top.
    pub index: usize,
    /// `ReceiverClass(MethodClass)>>selector`, with `[] in ` for a block.
    pub label: String,
    /// The class the method is installed in (nil for a doit).
    pub method_class: Value,
    /// The selector of the (home) method.
    pub selector: String,
    /// 0 for a method's activation; for a block, how deep it is nested in its home method
    /// (1: a block of the method itself).
    pub block_depth: usize,
    /// Whether the frame runs a doit.
    pub doit: bool,
    /// The receiver (`self`).
    pub receiver: Value,
    /// Arguments, copied values and temporaries, by name.
    pub variables: Vec<(String, Value)>,
    /// The home CompiledMethod.
    pub method: Value,
    /// The source of the home method.
    pub source: Rc<str>,
    /// The byte range of the current step point (the next instruction in the top frame of a
    /// stepped process, the pending send in the others).
    pub span: Option<Span>,
    /// 1-based line and column of the current step point.
    pub line: usize,
    /// See `line`.
    pub column: usize,
    /// The frame's step points (instruction and byte range), for run to here.
    pub step_points: Vec<(u32, Span)>,
}

/// A part of a process's stack.
#[derive(Clone, Debug)]
pub struct StackPage {
    /// How many frames a debugger shows in all.
    pub total: usize,
    /// The frames asked for, the top one first.
    pub frames: Vec<FrameView>,
}

impl Vm {
    /// Frames `from..from + count` of a process (0 is the frame shown at the top), with
    /// their variables if `variables`; `None` for a process with no frames.
    pub fn stack_page(&self, process: Value, from: usize, count: usize, variables: bool) -> Option<StackPage> {
        let state = self.state_of(process)?;
        let shown = state.shown_top()?;
        let total = shown + 1;
        let frames = (from..total.min(from.saturating_add(count)))
            .filter_map(|index| {
                let at = shown - index;
                let frame = state.frames.get(at)?;
                // The top frame stands before its next instruction (where a step or an
                // interrupt stopped it); every other frame, the one shown at the top of a
                // process an error stopped included, stands at its pending send.
                let before = at + 1 == state.frames.len() && state.shown_top.is_none();
                Some(self.frame_view(state, frame, index, before, variables))
            })
            .collect();
        Some(StackPage { total, frames })
    }

    /// The view of one frame.
    fn frame_view(&self, state: &ProcessState, f: &Frame, index: usize, before: bool, variables: bool) -> FrameView {
        let reg = |k: usize| state.stack.get(f.base as usize + k).copied().unwrap_or(Value::NIL);
        let code = f.code();
        let vars = if variables {
            code.var_names
                .iter()
                .map(|(name, loc)| {
                    let v = match *loc {
                        VarLoc::Reg(r) => reg(usize::from(r)),
                        VarLoc::Vector { vec, index } => {
                            self.heap.slot(reg(usize::from(vec)), usize::from(index)).unwrap_or(Value::NIL)
                        }
                    };
                    (name.clone(), v)
                })
                .collect()
        } else {
            Vec::new()
        };
        let pc = if before { f.pc as usize } else { (f.pc as usize).saturating_sub(1) };
        let span = code.step_point_at(pc).map(|sp| sp.span);
        let (line, column) = crate::compiler::parser::line_col(&code.source, span.map_or(0, |s| s.start as usize));
        let receiver = reg(0);
        let block_depth = if code.is_block {
            let home = self.code_of(f.method);
            let enclosing = home.map_or(0, |h| {
                h.blocks.iter().filter(|b| b.span.start < code.span.start && code.span.end <= b.span.end).count()
            });
            enclosing + 1
        } else {
            0
        };
        FrameView {
            index,
            label: self.frame_label_for(f, receiver),
            method_class: code.method_class.get(),
            selector: self.string_of(code.selector).unwrap_or_default(),
            block_depth,
            doit: code.selector == self.known.sel_do_it,
            receiver,
            variables: vars,
            method: f.method,
            source: code.source.clone(),
            span,
            line,
            column,
            step_points: code.step_points.iter().map(|s| (s.pc, s.span)).collect(),
        }
    }

    /// Every frame of a process (running or not), top first, with their variables.
    pub fn frames(&self, process: Value) -> Vec<FrameView> {
        self.stack_page(process, 0, usize::MAX, true).map(|p| p.frames).unwrap_or_default()
    }
}
