//! Primitives native code answers itself at a send whose cached method has one, instead of
//! calling the primitive hook: `signal` and `wait` (`process.rs`), `Float>>sqrt` of an
//! immediate float (`float.rs`) and `=` between byte strings and symbols (here). Each goes to
//! the hook, having changed nothing, whenever its operands are not the ones it handles.

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};

use super::*;
use crate::interpreter::closure_slots as cl;
use crate::primitives::{BLOCK_VALUE, FLOAT_SQRT, SEMAPHORE_SIGNAL, SEMAPHORE_WAIT, STRING_EQUAL};

const C_SYMBOL: i32 = d(offset_of!(JitCtx, symbol));
const C_BLOCK_CLOSURE: i32 = d(offset_of!(JitCtx, block_closure));

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
        let not_block = self.ops.new_dynamic_label();
        asm!(self.ops
            ; cmp eax, i32::from(BLOCK_VALUE)
            ; jne =>not_block
        );
        self.block_value_inline(pc, a, nargs, ret, general);
        asm!(self.ops; =>not_block);
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

    /// `value`, `value:`, ... (`nargs` arguments) sent to the BlockClosure in register `a`
    /// whose block takes as many and has native code: the block's frame pushed here as
    /// `activate_closure` pushes it (the closure's receiver, then its copied values after the
    /// arguments, then nil temporaries), its answer going to register `ret`, and on at its
    /// first instruction; anything else to `general`, having changed nothing.
    fn block_value_inline(&mut self, pc: usize, a: i32, nargs: u8, ret: i32, general: DynamicLabel) {
        let rc = rc_code();
        let copied_at = 8 * (a + 1 + i32::from(nargs));
        let (caller_pc, caller_base) = (d(fl::PC) - F_SIZE, d(fl::BASE) - F_SIZE);
        asm!(self.ops; mov rax, [rbx + 8 * a]);
        self.body_entry(Body::SLOTS_TAG, NOT_LOADED, general);
        asm!(self.ops
            ; mov rcx, [rdx + O_CLASS]
            ; cmp rcx, [r12 + C_BLOCK_CLOSURE]
            ; jne =>general
            // The closure's slots in r11, its copied values' count in r9.
            ; mov r11, [rdx + O_SLOTS_PTR]
            ; mov r9, [rdx + O_SLOTS_LEN]
            ; sub r9, cl::SIZE as i32
            ; jb =>general
            ; mov rax, [r11 + 8 * cl::HOME as i32]
            ; sub eax, 1
            ; test al, 7
            ; jnz =>general
            ; mov r10, [r11 + 8 * cl::INDEX as i32]
            ; lea rax, [r10 - 1]
            ; test al, 7
            ; jnz =>general
            ; sar r10, 3
            ; mov rax, [r11 + 8 * cl::METHOD as i32]
        );
        // The block's code in rsi: the closure's method's blocks at the closure's index.
        self.body_entry(Body::METHOD_TAG, NOT_LOADED, general);
        asm!(self.ops
            ; mov rsi, [rdx + O_METHOD_RC]
            ; cmp r10, [rsi + rc + CC_BLOCKS_LEN]
            ; jae =>general
            ; mov rsi, [rsi + rc + CC_BLOCKS_PTR]
            ; mov rsi, [rsi + r10 * 8]
            ; add rsi, rc
            ; cmp BYTE [rsi + CC_NUM_ARGS], nargs as i8
            ; jne =>general
            ; movzx eax, BYTE [rsi + CC_NUM_COPIED]
            ; cmp rax, r9
            ; jne =>general
            ; mov rdi, [rsi + CC_TABLE]
            ; test rdi, rdi
            ; jz =>general
            ; mov rdi, [rdi]
            ; test rdi, rdi
            ; jz =>general
        );
        // Below the depth limit, room for a frame, room on the value stack for the block's
        // registers and for its copied values and temporaries.
        self.frame_room(general);
        asm!(self.ops
            ; movzx eax, WORD [rsi + CC_FRAME_SIZE]
            ; lea rcx, [rbx + 8 * a]
            ; lea rcx, [rcx + rax * 8]
            ; cmp rcx, [r12 + C_STACK_END]
            ; ja =>general
            ; movzx eax, BYTE [rsi + CC_NUM_TEMPS]
            ; add rax, r9
            ; lea rcx, [rbx + copied_at]
            ; lea rcx, [rcx + rax * 8]
            ; cmp rcx, [r12 + C_STACK_END]
            ; ja =>general
            // Nothing can fail now. The receiver, the copied values, nil temporaries.
            ; mov r10, [rbx + 8 * a]
            ; mov rax, [r11 + 8 * cl::RECEIVER as i32]
            ; mov [rbx + 8 * a], rax
            ; lea rcx, [rbx + copied_at]
            ; lea rdx, [r11 + 8 * cl::SIZE as i32]
            ; test r9, r9
            ; jz >copied
            ; copy:
            ; mov rax, [rdx]
            ; mov [rcx], rax
            ; add rdx, 8
            ; add rcx, 8
            ; sub r9, 1
            ; jnz <copy
            ; copied:
            ; movzx eax, BYTE [rsi + CC_NUM_TEMPS]
            ; test eax, eax
            ; jz >temps
            ; nil:
            ; mov QWORD [rcx], NIL
            ; add rcx, 8
            ; sub eax, 1
            ; jnz <nil
            ; temps:
            // The caller continues after the send; the block's frame goes on top.
            ; imul rdx, r8, F_SIZE
            ; add rdx, [r12 + C_FRAMES]
            ; mov DWORD [rdx + caller_pc], (pc + 1) as i32
            ; mov eax, DWORD [rdx + caller_base]
            ; lea ecx, [rax + ret]
            ; mov [rdx + d(fl::RET)], ecx
            ; add eax, a
            ; mov [rdx + d(fl::BASE)], eax
            ; mov [rdx + d(fl::CODE)], rsi
            ; mov rax, [r11 + 8 * cl::METHOD as i32]
            ; mov [rdx + d(fl::METHOD)], rax
            ; mov [rdx + d(fl::CLOSURE)], r10
            ; mov DWORD [rdx + d(fl::PC)], 0
            ; mov rax, [r12 + C_NEXT_ID]
            ; mov [rdx + d(fl::ID)], rax
            ; add rax, 1
            ; mov [r12 + C_NEXT_ID], rax
            ; mov rax, [r11 + 8 * cl::HOME as i32]
            ; sar rax, 3
            ; mov [rdx + d(fl::HOME)], rax
            ; mov QWORD [rdx + d(fl::CONTEXT)], NIL
            ; add r8, 1
            ; mov [r12 + C_FRAMES_LEN], r8
            ; lea rbx, [rbx + 8 * a]
            ; jmp rdi
        );
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
