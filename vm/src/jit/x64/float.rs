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
    op: BinOp,
    x: u8,
    y: Src,
    out: FloatOut,
    /// Where anything but immediate floats and SmallIntegers goes: the message's send.
    slow: DynamicLabel,
}

/// Whether immediate floats take a native path for `op`.
pub(super) fn has_float_path(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

/// The largest SmallInteger magnitude a double holds exactly, 2^53.
const EXACT: i64 = 1 << 53;

/// In `r13`: what rebases a rotated double's exponent (`onyx_record::word::FLOAT_OFFSET`).
pub(super) const OFFSET: i64 = FLOAT_OFFSET as i64;
/// In `r14`: the smallest rotated double an immediate holds, but zero (exponent 897).
pub(super) const LOW: i64 = (897_u64 << 53) as i64;
/// In `r15`: how far above [`LOW`] the rotated doubles immediates hold go (255 exponents).
pub(super) const SPAN: i64 = (255_u64 << 53) as i64;

impl Gen<'_> {
    /// A label for `op` on operands `x` and `y` that are not both SmallIntegers; its
    /// code is emitted with the exits, after the body.
    pub(super) fn float_path(&mut self, op: BinOp, x: u8, y: Src, out: FloatOut, slow: DynamicLabel) -> DynamicLabel {
        let label = self.ops.new_dynamic_label();
        self.floats.push(FloatPath { label, op, x, y, out, slow });
        label
    }

    /// Emits every float path asked for.
    pub(super) fn finish_floats(&mut self) {
        for path in std::mem::take(&mut self.floats) {
            self.emit_float(path);
        }
    }

    fn emit_float(&mut self, p: FloatPath) {
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
        self.to_double(0, exec);
        asm!(self.ops; mov rax, rcx);
        self.to_double(1, exec);
        asm!(self.ops; operands:);
        match (p.op, p.out) {
            (BinOp::Add | BinOp::Sub | BinOp::Mul, FloatOut::Store { dst, done }) => {
                match p.op {
                    BinOp::Add => asm!(self.ops; addsd xmm0, xmm1),
                    BinOp::Sub => asm!(self.ops; subsd xmm0, xmm1),
                    _ => asm!(self.ops; mulsd xmm0, xmm1),
                }
                self.encode_xmm0(exec);
                asm!(self.ops; mov [rbx + reg(dst)], rax ; jmp =>done);
            }
            (_, FloatOut::Store { dst, done }) => {
                self.compare(p.op);
                asm!(self.ops; mov [rbx + reg(dst)], rdx ; jmp =>done);
            }
            (_, FloatOut::Branch { taken, skip, sense }) => {
                self.compare(p.op);
                let (on_true, on_false) = if sense { (taken, skip) } else { (skip, taken) };
                asm!(self.ops; cmp edx, TRUE ; je =>on_true ; jmp =>on_false);
            }
        }
    }

    /// The immediate float in `rdx` decoded into `xmm0` or `xmm1`.
    fn decode_rdx(&mut self, xmm: u8) {
        asm!(self.ops
            ; shr rdx, 3
            ; cmp rdx, 1
            ; jbe >zero
            ; add rdx, r13
            ; zero:
            ; ror rdx, 1
        );
        match xmm {
            0 => asm!(self.ops; movq xmm0, rdx),
            _ => asm!(self.ops; movq xmm1, rdx),
        }
    }

    /// The operand in `rax` as a double in `xmm0` or `xmm1`: an immediate float decoded, a
    /// SmallInteger within 2^53 converted; anything else goes to `exec`.
    fn to_double(&mut self, xmm: u8, exec: DynamicLabel) {
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
        match xmm {
            0 => asm!(self.ops; cvtsi2sd xmm0, rdx),
            _ => asm!(self.ops; cvtsi2sd xmm1, rdx),
        }
        asm!(self.ops; converted:);
    }

    /// `xmm0` as an immediate float in `rax`; goes to `exec` when it must be boxed.
    fn encode_xmm0(&mut self, exec: DynamicLabel) {
        asm!(self.ops
            ; movq rax, xmm0
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

    /// `true` or `false` in `rdx`: the comparison `op` of `xmm0` with `xmm1`, false whenever
    /// either is a NaN (except for `~=`).
    fn compare(&mut self, op: BinOp) {
        asm!(self.ops; mov edx, FALSE ; mov esi, TRUE ; mov edi, FALSE);
        match op {
            // ucomisd sets CF and ZF from "x below/equal y"; unordered sets ZF, PF and CF.
            BinOp::Lt => asm!(self.ops; ucomisd xmm1, xmm0 ; cmova edx, esi),
            BinOp::Le => asm!(self.ops; ucomisd xmm1, xmm0 ; cmovae edx, esi),
            BinOp::Gt => asm!(self.ops; ucomisd xmm0, xmm1 ; cmova edx, esi),
            BinOp::Ge => asm!(self.ops; ucomisd xmm0, xmm1 ; cmovae edx, esi),
            BinOp::Eq => asm!(self.ops; ucomisd xmm0, xmm1 ; cmove edx, esi ; cmovp edx, edi),
            _ => asm!(self.ops; ucomisd xmm0, xmm1 ; cmovne edx, esi ; cmovp edx, esi),
        }
    }
}
