//! Immediate float arithmetic and comparisons in native code: the out-of-line paths that
//! `+ - * < > <= >= = ~=` take when an operand is not a SmallInteger. Each operand is an
//! immediate float (decoded into an SSE register) or a SmallInteger a double holds exactly;
//! a result is stored as an immediate float when its exponent fits. Anything else (a boxed
//! Float, a result that must be boxed, another class) is the message's send, from the
//! unchanged registers.

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};
use onyx_record::word::{FLOAT_OFFSET, TAG_FLOAT, TAG_INT};

use super::*;

/// Where a float path's result goes.
#[derive(Clone, Copy)]
pub(super) enum FloatOut {
    /// Into register `dst`; then on at `done`.
    Store { dst: u8, done: DynamicLabel },
    /// A compare-and-branch: to `taken` when the comparison is `sense`, else to `skip`.
    Branch { taken: DynamicLabel, skip: DynamicLabel, sense: bool },
}

/// A float path to emit after the method's body.
#[derive(Clone, Copy)]
pub(super) struct FloatPath {
    label: DynamicLabel,
    /// The instruction's pc.
    pc: usize,
    op: BinOp,
    x: u8,
    y: Src,
    out: FloatOut,
    /// Where anything but immediate floats and SmallIntegers goes: the message's send.
    slow: DynamicLabel,
}

/// Which operands of a float path the previous instruction's float result (still in
/// `xmm0`) is: the path is entered there without decoding it again.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fed {
    X,
    Y,
    Both,
}

/// The largest SmallInteger magnitude a double holds exactly, 2^53.
pub(super) const EXACT: i64 = 1 << 53;

/// In `r13`: what rebases a rotated double's exponent (`onyx_record::word::FLOAT_OFFSET`).
pub(super) const OFFSET: i64 = FLOAT_OFFSET as i64;
/// In `r14`: the smallest rotated double an immediate holds, but zero (exponent 897).
pub(super) const LOW: i64 = (897_u64 << 53) as i64;
/// In `r15`: how far above [`LOW`] the rotated doubles immediates hold go (255 exponents).
pub(super) const SPAN: i64 = (255_u64 << 53) as i64;

impl Gen<'_> {
    /// A label for `op` on operands `x` and `y` that are not both SmallIntegers; its
    /// code is emitted with the exits, after the body.
    pub(super) fn float_path(
        &mut self,
        pc: usize,
        op: BinOp,
        x: u8,
        y: Src,
        out: FloatOut,
        slow: DynamicLabel,
    ) -> DynamicLabel {
        let label = self.ops.new_dynamic_label();
        self.floats.push(FloatPath { label, pc, op, x, y, out, slow });
        label
    }

    /// Emits every float path asked for. A path whose float result the next instruction's
    /// path takes as an operand goes straight on into that path with the double in `xmm0`
    /// (the result is stored all the same): a chain of float arithmetic decodes each
    /// intermediate result once, not at every step.
    pub(super) fn finish_floats(&mut self) {
        let paths = std::mem::take(&mut self.floats);
        let mut fed: Vec<Option<(Fed, DynamicLabel)>> = vec![None; paths.len()];
        let mut feeds: Vec<Option<DynamicLabel>> = vec![None; paths.len()];
        for (i, p) in paths.iter().enumerate() {
            let (FloatOut::Store { dst, .. }, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Slash) = (p.out, p.op)
            else {
                continue;
            };
            let Some(j) = paths.iter().position(|q| q.pc == p.pc + 1) else { continue };
            let q = paths[j];
            let how = match (q.x == dst, q.y == Src::Reg(dst)) {
                (true, true) => Fed::Both,
                (true, false) => Fed::X,
                (false, true) => Fed::Y,
                (false, false) => continue,
            };
            let label = self.ops.new_dynamic_label();
            fed[j] = Some((how, label));
            feeds[i] = Some(label);
        }
        for ((path, fed), feeds) in paths.into_iter().zip(fed).zip(feeds) {
            self.emit_float(path, fed, feeds);
        }
    }

    fn emit_float(&mut self, p: FloatPath, fed: Option<(Fed, DynamicLabel)>, feeds: Option<DynamicLabel>) {
        let exec = p.slow;
        asm!(self.ops
            ; =>p.label
            ; mov rax, [rbx + reg(p.x)]
        );
        self.load_rcx(p.y);
        // Two immediate floats (tags 101 and 101: no other pair of tags ands to 101).
        asm!(self.ops
            ; mov edx, eax
            ; and edx, ecx
            ; and edx, 7
            ; cmp edx, TAG_FLOAT as i32
            ; jne >mixed
            ; mov rdx, rax
        );
        self.decode_rdx(0);
        asm!(self.ops; mov rdx, rcx);
        self.decode_rdx(1);
        asm!(self.ops
            ; jmp >operands
            ; mixed:
        );
        self.operand_double(0, exec);
        asm!(self.ops; mov rax, rcx);
        self.operand_double(1, exec);
        if let Some((how, label)) = fed {
            asm!(self.ops; jmp >operands ; =>label);
            match how {
                Fed::Both => asm!(self.ops; movapd xmm1, xmm0),
                Fed::X => {
                    asm!(self.ops; movapd xmm2, xmm0);
                    self.load_rcx(p.y);
                    asm!(self.ops; mov rax, rcx);
                    self.operand_double(1, exec);
                    asm!(self.ops; movapd xmm0, xmm2);
                }
                Fed::Y => {
                    asm!(self.ops; movapd xmm1, xmm0 ; mov rax, [rbx + reg(p.x)]);
                    self.operand_double(0, exec);
                }
            }
        }
        asm!(self.ops; operands:);
        match (p.op, p.out) {
            (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Slash, FloatOut::Store { dst, done }) => {
                match p.op {
                    BinOp::Add => asm!(self.ops; addsd xmm0, xmm1),
                    BinOp::Sub => asm!(self.ops; subsd xmm0, xmm1),
                    BinOp::Mul => asm!(self.ops; mulsd xmm0, xmm1),
                    // A zero (or NaN) divisor is the method's: ZeroDivide.
                    _ => asm!(self.ops
                        ; xorpd xmm2, xmm2
                        ; ucomisd xmm1, xmm2
                        ; je =>exec
                        ; divsd xmm0, xmm1
                    ),
                }
                self.encode(0, exec);
                let next = feeds.unwrap_or(done);
                asm!(self.ops; mov [rbx + reg(dst)], rax ; jmp =>next);
            }
            (_, FloatOut::Store { dst, done }) => {
                self.compare(p.op, 0, 1);
                asm!(self.ops; mov [rbx + reg(dst)], rdx ; jmp =>done);
            }
            (_, FloatOut::Branch { taken, skip, sense }) => {
                self.compare(p.op, 0, 1);
                let (on_true, on_false) = if sense { (taken, skip) } else { (skip, taken) };
                asm!(self.ops; cmp edx, TRUE ; je =>on_true ; jmp =>on_false);
            }
        }
    }

    /// `Float>>sqrt` sent to register `a`, answered into register `ret`, when the receiver
    /// is an immediate float with an immediate root; otherwise to `general`.
    pub(super) fn sqrt_inline(&mut self, a: i32, ret: i32, next: DynamicLabel, general: DynamicLabel) {
        asm!(self.ops
            ; mov rdx, [rbx + 8 * a]
            ; mov eax, edx
            ; and eax, 7
            ; cmp eax, TAG_FLOAT as i32
            ; jne =>general
        );
        self.decode_rdx(0);
        asm!(self.ops; sqrtsd xmm0, xmm0);
        self.encode(0, general);
        asm!(self.ops; mov [rbx + 8 * ret], rax ; jmp =>next);
    }

    /// The immediate float in `rdx` decoded into register `xmm`.
    pub(super) fn decode_rdx(&mut self, xmm: u8) {
        asm!(self.ops
            ; shr rdx, 3
            ; cmp rdx, 1
            ; jbe >zero
            ; add rdx, r13
            ; zero:
            ; ror rdx, 1
            ; movq Rx(xmm), rdx
        );
    }

    /// The operand in `rax` as a double in `xmm0` or `xmm1`: an immediate float decoded, a
    /// SmallInteger within 2^53 converted; anything else goes to `exec`.
    fn operand_double(&mut self, xmm: u8, exec: DynamicLabel) {
        asm!(self.ops
            ; mov edx, eax
            ; and edx, 7
            ; cmp edx, TAG_FLOAT as i32
            ; jne >not_float
            ; mov rdx, rax
        );
        self.decode_rdx(xmm);
        asm!(self.ops
            ; jmp >converted
            ; not_float:
            ; cmp edx, TAG_INT as i32
            ; jne =>exec
            ; mov rdx, rax
            ; sar rdx, 3
            ; mov rsi, QWORD EXACT
            ; add rsi, rdx
            ; mov rdi, QWORD 2 * EXACT
            ; cmp rsi, rdi
            ; ja =>exec
        );
        asm!(self.ops; cvtsi2sd Rx(xmm), rdx ; converted:);
    }

    /// Register `xmm` as an immediate float in `rax`; goes to `exec` when it must be boxed.
    pub(super) fn encode(&mut self, xmm: u8, exec: DynamicLabel) {
        asm!(self.ops
            ; movq rax, Rx(xmm)
            ; rol rax, 1
            ; mov rdx, rax
            ; sub rdx, r14
            ; cmp rdx, r15
            ; jb >rebase
            // Zero and negative zero are immediate too; everything else out of range is boxed.
            ; cmp rax, 1
            ; ja =>exec
            ; jmp >tag
            ; rebase:
            ; sub rax, r13
            ; tag:
            ; shl rax, 3
            ; or rax, TAG_FLOAT as i32
        );
    }

    /// `true` or `false` in `rdx`: the comparison `op` of registers `x` and `y`, false
    /// whenever either is a NaN (except for `~=`).
    pub(super) fn compare(&mut self, op: BinOp, x: u8, y: u8) {
        asm!(self.ops; mov edx, FALSE ; mov esi, TRUE ; mov edi, FALSE);
        match op {
            // ucomisd sets CF and ZF from "x below/equal y"; unordered sets ZF, PF and CF.
            BinOp::Lt => asm!(self.ops; ucomisd Rx(y), Rx(x) ; cmova edx, esi),
            BinOp::Le => asm!(self.ops; ucomisd Rx(y), Rx(x) ; cmovae edx, esi),
            BinOp::Gt => asm!(self.ops; ucomisd Rx(x), Rx(y) ; cmova edx, esi),
            BinOp::Ge => asm!(self.ops; ucomisd Rx(x), Rx(y) ; cmovae edx, esi),
            BinOp::Eq => asm!(self.ops; ucomisd Rx(x), Rx(y) ; cmove edx, esi ; cmovp edx, edi),
            _ => asm!(self.ops; ucomisd Rx(x), Rx(y) ; cmovne edx, esi ; cmovp edx, esi),
        }
    }
}
