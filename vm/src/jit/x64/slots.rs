//! Object slots in native code: the receiver's instance variables (a run of them sharing
//! one look-up of the receiver), temp vectors and globals by fixed index, Array, String and
//! ByteArray `at:` and `at:put:`, and finding an object's table entry.

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};

use super::*;

impl Gen<'_> {
    /// With an object reference in `rax`: exits unless it is a loaded object whose body is
    /// pointer slots; leaves the slots in `rsi` and their count in `rcx`. A store also exits
    /// for persistent objects (the write barrier is the interpreter's).
    pub(super) fn slots_of(&mut self, pc: usize, store: bool) {
        let exec = self.exec(pc);
        let flags = if store { NOT_LOADED | PERSISTENT } else { NOT_LOADED };
        self.body_entry(Body::SLOTS_TAG, flags, exec);
        asm!(self.ops
            ; mov rsi, [rdx + O_SLOTS_PTR]
            ; mov rcx, [rdx + O_SLOTS_LEN]
        );
    }

    /// With a value in `rax`: goes to `exit` unless it is an object whose body has tag `tag`
    /// and none of whose `flags` are set; leaves its object table entry in `rdx`.
    pub(super) fn body_entry(&mut self, tag: u8, flags: u16, exit: DynamicLabel) {
        asm!(self.ops; test al, 7 ; jnz =>exit);
        self.object_entry(exit);
        asm!(self.ops
            ; test WORD [rdx + O_FLAGS], flags as i16
            ; jnz =>exit
            ; cmp BYTE [rdx + O_BODY], tag as i8
            ; jne =>exit
        );
    }

    /// With an object reference in `rax`: its object table entry in `rdx` (exits if the
    /// index is beyond the table).
    pub(super) fn object_entry(&mut self, exec: DynamicLabel) {
        asm!(self.ops
            ; mov rdx, rax
            ; shr rdx, 3
            ; cmp rdx, [r12 + C_OBJECTS_LEN]
            ; jae =>exec
            ; imul rdx, rdx, O_SIZE
            ; add rdx, [r12 + C_OBJECTS]
        );
    }

    /// Slot `index` of the object in `rax`.
    pub(super) fn fixed_slot(&mut self, pc: usize, index: i32, access: Access) {
        self.slots_of(pc, matches!(access, Access::Store(..)));
        self.slot_access(pc, index, access);
    }

    /// Instance variable `index` of the receiver. An instance variable instruction right
    /// before this one (and not jumped to) hands over the receiver's slots, their count and its
    /// table entry in `rsi`, `rcx` and `rdx`, and goes past this one's own look-up, which
    /// only entries from elsewhere run; this one hands them over to the next likewise.
    pub(super) fn receiver_slot(&mut self, pc: usize, index: i32, access: Access) {
        let store = matches!(access, Access::Store(..));
        asm!(self.ops; mov rax, [rbx]);
        self.slots_of(pc, store);
        if let Some((_, past)) = self.handover.take_if(|&mut (to, _)| to == pc) {
            asm!(self.ops; =>past);
        }
        self.slot_access(pc, index, access);
        let next = pc + 1;
        let next_store = match self.code.instrs.get(next) {
            Some(Instr::GetIvar { .. }) => false,
            Some(Instr::SetIvar { .. }) => true,
            _ => return,
        };
        if self.targets.get(next).copied().unwrap_or(true) {
            return;
        }
        if next_store && !store {
            let exec = self.exec(next);
            asm!(self.ops; test WORD [rdx + O_FLAGS], PERSISTENT as i16 ; jnz =>exec);
        }
        let past = self.ops.new_dynamic_label();
        asm!(self.ops; jmp =>past);
        self.handover = Some((next, past));
    }

    /// Slot `index` of the slots in `rsi` (`rcx` of them).
    fn slot_access(&mut self, pc: usize, index: i32, access: Access) {
        let exec = self.exec(pc);
        asm!(self.ops; cmp rcx, index ; jbe =>exec);
        match access {
            Access::Load(dst) => asm!(self.ops; mov rax, [rsi + index * 8] ; mov [rbx + reg(dst)], rax),
            Access::Store(src) => {
                self.load_r8(src);
                asm!(self.ops; mov [rsi + index * 8], r8);
            }
        }
    }

    pub(super) fn load_r8(&mut self, src: Src) {
        match src {
            Src::Reg(r) => asm!(self.ops; mov r8, [rbx + reg(r)]),
            Src::Const(v) => asm!(self.ops; mov r8, QWORD v.bits() as i64),
        }
    }

    pub(super) fn load_r9(&mut self, src: Src) {
        match src {
            Src::Reg(r) => asm!(self.ops; mov r9, [rbx + reg(r)]),
            Src::Const(v) => asm!(self.ops; mov r9, QWORD v.bits() as i64),
        }
    }

    /// Goes to `slow` unless `rdi` holds a SmallInteger; turns it into a 0-based index.
    pub(super) fn index_in_rdi(&mut self, slow: DynamicLabel) {
        asm!(self.ops
            ; lea rdx, [rdi - 1]
            ; test dl, 7
            ; jnz =>slow
            ; sar rdi, 3
            ; sub rdi, 1
        );
    }

    /// `R[dst] := R[x] at: y` for Arrays, Strings and ByteArrays; anything else goes to
    /// `slow`.
    pub(super) fn at(&mut self, slow: DynamicLabel, dst: u8, x: u8, y: Src) {
        match y {
            Src::Reg(r) => asm!(self.ops; mov rdi, [rbx + reg(r)]),
            Src::Const(v) => asm!(self.ops; mov rdi, QWORD v.bits() as i64),
        }
        self.index_in_rdi(slow);
        asm!(self.ops; mov rax, [rbx + reg(x)]);
        self.indexed_body(slow, false);
        asm!(self.ops
            ; cmp rdi, rcx
            ; jae =>slow
            ; test r8d, r8d
            ; jnz >bytes
            ; mov rax, [rsi + rdi * 8]
            ; jmp >loaded
            ; bytes:
            ; movzx eax, BYTE [rsi + rdi]
            ; shl rax, 3
            ; or rax, r8
            ; loaded:
            ; mov [rbx + reg(dst)], rax
        );
    }

    /// With an object reference in `rax`: goes to `slow` unless it is a loaded Array, String
    /// or ByteArray (not persistent, for a store); leaves its elements in `rsi`, their count
    /// in `rcx`, and in `r8` 0 for an Array or the tag its bytes are read with (Character or
    /// SmallInteger).
    pub(super) fn indexed_body(&mut self, slow: DynamicLabel, store: bool) {
        let flags = i32::from(if store { NOT_LOADED | PERSISTENT } else { NOT_LOADED });
        asm!(self.ops; test al, 7 ; jnz =>slow);
        self.object_entry(slow);
        asm!(self.ops
            ; test WORD [rdx + O_FLAGS], flags as i16
            ; jnz =>slow
            ; mov rcx, [rdx + O_CLASS]
            ; xor r8d, r8d
            ; cmp rcx, [r12 + C_ARRAY]
            ; je >slots
            ; mov r8d, TAG_CHAR as i32
            ; cmp rcx, [r12 + C_STRING]
            ; je >bytes
            ; mov r8d, TAG_INT as i32
            ; cmp rcx, [r12 + C_BYTE_ARRAY]
            ; jne =>slow
            ; bytes:
            ; cmp BYTE [rdx + O_BODY], Body::BYTES_TAG as i8
            ; jne =>slow
            ; jmp >body
            ; slots:
            ; cmp BYTE [rdx + O_BODY], Body::SLOTS_TAG as i8
            ; jne =>slow
            ; body:
            ; mov rsi, [rdx + O_SLOTS_PTR]
            ; mov rcx, [rdx + O_SLOTS_LEN]
        );
    }

    /// `R[dst] := R[r] at: R[i] put: v` for Arrays, Strings (a Character of a byte) and
    /// ByteArrays (a SmallInteger of a byte); anything else is the message's send.
    pub(super) fn at_put(&mut self, pc: usize, dst: u8, r: u8, i: u8, v: Src) {
        let slow = self.special_send(pc, r, [Src::Reg(i), v], 2, dst);
        asm!(self.ops; mov rdi, [rbx + reg(i)]);
        self.index_in_rdi(slow);
        asm!(self.ops; mov rax, [rbx + reg(r)]);
        self.indexed_body(slow, true);
        asm!(self.ops; cmp rdi, rcx ; jae =>slow);
        self.load_r9(v);
        asm!(self.ops
            ; test r8d, r8d
            ; jnz >bytes
            ; mov [rsi + rdi * 8], r9
            ; jmp >stored
            // A byte: the value's tag must be the body's, its payload below 256.
            ; bytes:
            ; mov eax, r9d
            ; and eax, 7
            ; cmp eax, r8d
            ; jne =>slow
            ; mov rax, r9
            ; shr rax, 3
            ; cmp rax, 255
            ; ja =>slow
            ; mov [rsi + rdi], al
            ; stored:
            ; mov [rbx + reg(dst)], r9
        );
    }
}
