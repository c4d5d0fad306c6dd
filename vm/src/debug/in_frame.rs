//! Evaluating code in a debugger's frame: the frame's receiver is `self`, and its arguments
//! and temporaries are in scope, assignments included. The doit reads and writes the
//! variables in an Array made for it (`compiler::compile_in_frame`); when it has run, what it
//! assigned is written back into the frame (its registers or temp vectors), so the frame
//! sees it when it goes on.

use crate::bytecode::VarLoc;
use crate::value::Value;
use crate::vm::Vm;

use super::step::DebugError;

/// What ties an evaluation to the frame it was evaluated in, until [`Vm::write_back`].
#[derive(Debug)]
pub struct FrameBinding {
    process: Value,
    frame: u64,
    holder: Value,
    locations: Vec<VarLoc>,
    before: Vec<Value>,
}

impl Vm {
    /// Compiles `source` in frame `index` of a kept, suspended process and makes a ready
    /// process that evaluates it; run it as any evaluation, then hand the binding to
    /// [`Vm::write_back`].
    pub fn spawn_in_frame(
        &mut self,
        serial: u64,
        index: usize,
        source: &str,
    ) -> Result<(Value, FrameBinding), DebugError> {
        let process = self.suspended(serial)?;
        let at = self.frame_position(process, index)?;
        let (frame, receiver, names, locations, values) = {
            let state = self.state_of(process).ok_or(DebugError::NoFrame(index))?;
            let frame = state.frames.get(at).cloned().ok_or(DebugError::NoFrame(index))?;
            let base = frame.base as usize;
            let reg = |k: usize| state.stack.get(base + k).copied().unwrap_or(Value::NIL);
            let mut names = Vec::new();
            let mut locations = Vec::new();
            let mut values = Vec::new();
            for (name, loc) in frame.code().var_names.iter() {
                let v = match *loc {
                    VarLoc::Reg(r) => reg(usize::from(r)),
                    VarLoc::Vector { vec, index } => {
                        self.heap.slot(reg(usize::from(vec)), usize::from(index)).unwrap_or(Value::NIL)
                    }
                };
                names.push(name.clone());
                locations.push(*loc);
                values.push(v);
            }
            let receiver = reg(0);
            (frame, receiver, names, locations, values)
        };
        let holder = self.new_array(values.clone());
        let class = self.class_of(receiver);
        let code =
            crate::compiler::compile_in_frame(self, source, class, &names, holder).map_err(DebugError::Compile)?;
        self.retain(holder);
        let evaluation = self.spawn_code(code, receiver, &[]);
        Ok((evaluation, FrameBinding { process, frame: frame.id, holder, locations, before: values }))
    }

    /// Writes what an evaluation in a frame assigned back into the frame (if it is still
    /// there), and lets go of the binding.
    pub fn write_back(&mut self, binding: FrameBinding) {
        let FrameBinding { process, frame, holder, locations, before } = binding;
        self.release(holder);
        let after: Vec<Value> = (0..before.len()).map(|i| self.heap.slot(holder, i).unwrap_or(Value::NIL)).collect();
        let Some(state) = self.idle_state_mut(process) else { return };
        let Some(at) = state.frame_index(frame) else { return };
        let base = state.frames.get(at).map_or(0, |f| f.base as usize);
        let mut vectors = Vec::new();
        for ((loc, old), new) in locations.iter().zip(&before).zip(after) {
            if *old == new {
                continue;
            }
            match *loc {
                VarLoc::Reg(r) => {
                    if let Some(slot) = state.stack.get_mut(base + usize::from(r)) {
                        *slot = new;
                    }
                }
                VarLoc::Vector { vec, index } => {
                    let v = state.stack.get(base + usize::from(vec)).copied().unwrap_or(Value::NIL);
                    vectors.push((v, usize::from(index), new));
                }
            }
        }
        for (vector, index, value) in vectors {
            self.heap.set_slot(vector, index, value);
        }
    }
}
