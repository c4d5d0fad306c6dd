//! Primitives native code answers itself at a send whose cached method has one, instead of
//! calling the primitive hook: `signal` and `wait` (`process.rs`), `Float>>sqrt` of an
//! immediate float (`float.rs`) and `=` between byte strings and symbols (here). Each goes to
//! the hook, having changed nothing, whenever its operands are not the ones it handles.

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};

use super::*;
use crate::primitives::{FLOAT_SQRT, SEMAPHORE_SIGNAL, SEMAPHORE_WAIT, STRING_EQUAL};

const C_SYMBOL: i32 = d(offset_of!(JitCtx, symbol));

impl Gen<'_> {
    /// At send `pc` with `nargs` arguments whose cached method has a primitive (its code in
    /// `rsi`): the primitive answered here when it is one of this module's, its receiver in
    /// register `a` and its answer going to register `ret`, then on at `next`; otherwise to
    /// `general` (the primitive hook).
    pub(super) fn primitive_inline(
        &mut self,
        pc: usize,
        a: i32,
        nargs: u8,
        ret: i32,
        next: DynamicLabel,
        general: DynamicLabel,
    ) {
        asm!(self.ops; movzx eax, WORD [rsi + CC_PRIMITIVE]);
        match nargs {
            0 => {
                let semaphore = self.ops.new_dynamic_label();
                asm!(self.ops
                    ; cmp eax, i32::from(SEMAPHORE_SIGNAL)
                    ; je =>semaphore
                    ; cmp eax, i32::from(SEMAPHORE_WAIT)
                    ; je =>semaphore
                    ; cmp eax, i32::from(FLOAT_SQRT)
                    ; jne =>general
                );
                self.sqrt_inline(a, ret, next, general);
                asm!(self.ops; =>semaphore);
                self.semaphore_inline(pc, a, ret, next, general);
            }
            1 => {
                asm!(self.ops
                    ; cmp eax, i32::from(STRING_EQUAL)
                    ; jne =>general
                );
                self.string_equal_inline(a, ret, next, general);
            }
            _ => asm!(self.ops; jmp =>general),
        }
    }

    /// `=` with the receiver in register `a` and the argument in the next: both byte Strings
    /// or Symbols (loaded), compared byte by byte, the answer into register `ret`.
    fn string_equal_inline(&mut self, a: i32, ret: i32, next: DynamicLabel, general: DynamicLabel) {
        asm!(self.ops; mov rax, [rbx + 8 * a]);
        self.narrow_bytes(general);
        asm!(self.ops
            ; mov r8, rsi
            ; mov r9, rcx
            ; mov rax, [rbx + 8 * (a + 1)]
        );
        self.narrow_bytes(general);
        asm!(self.ops
            ; cmp rcx, r9
            ; jne >unequal
            ; compare:
            ; test rcx, rcx
            ; jz >equal
            ; movzx eax, BYTE [rsi]
            ; cmp al, BYTE [r8]
            ; jne >unequal
            ; add rsi, 1
            ; add r8, 1
            ; sub rcx, 1
            ; jmp <compare
            ; equal:
            ; mov QWORD [rbx + 8 * ret], TRUE
            ; jmp =>next
            ; unequal:
            ; mov QWORD [rbx + 8 * ret], FALSE
            ; jmp =>next
        );
    }

    /// With an object reference in `rax`: its bytes in `rsi` and their count in `rcx` when
    /// it is a loaded String or Symbol; otherwise to `general`.
    fn narrow_bytes(&mut self, general: DynamicLabel) {
        self.body_entry(Body::BYTES_TAG, NOT_LOADED, general);
        asm!(self.ops
            ; mov rcx, [rdx + O_CLASS]
            ; cmp rcx, [r12 + C_STRING]
            ; je >narrow
            ; cmp rcx, [r12 + C_SYMBOL]
            ; jne =>general
            ; narrow:
            ; mov rsi, [rdx + O_SLOTS_PTR]
            ; mov rcx, [rdx + O_SLOTS_LEN]
        );
    }
}
