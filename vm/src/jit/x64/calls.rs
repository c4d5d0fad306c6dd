//! Sends and returns in native code: pushing and popping the interpreter's frames and jumping
//! between methods' native code, and the call into the VM for methods with primitives.

use std::cell::Cell;
use std::rc::Rc;

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};

use super::float_run::{CachedSend, RunSend};
use super::*;
use crate::bytecode::quick;
use crate::primitives::FLOAT_SQRT;

/// A method a send is specialised on: its code's address, and what its activation needs.
#[derive(Clone, Copy)]
pub(super) struct Callee {
    code: *const CompiledCode,
    frame_size: i32,
    num_temps: i32,
}

/// What a send's inline cache held when the send was compiled.
#[derive(Clone, Copy)]
pub(super) struct Seen {
    /// The method's quick form (see [`crate::bytecode::quick`]), or 0.
    quick: u32,
    /// The method's code, when it is no quick method and has no primitive: the callers keep
    /// it from being freed (see `Native`), so that its address names it.
    callee: Option<Callee>,
    /// Whether finding the receiver's class left an object receiver's table entry in `r11`.
    kept: bool,
}

impl Seen {
    /// Whether the method seen is a getter or a setter: the receiver is then an object, whose
    /// table entry the send keeps from finding its class (see [`Gen::quick_first`]).
    fn accessor(&self) -> bool {
        matches!(self.quick & !0xffff, quick::GETTER | quick::SETTER)
    }
}

/// A special send to emit after the body: the message an arithmetic, comparison, `at:` or
/// `at:put:` instruction stands for when its fast path does not apply.
#[derive(Clone, Copy)]
pub(super) struct SpecialSend {
    label: DynamicLabel,
    pc: usize,
    receiver: u8,
    args: [Src; 2],
    nargs: u8,
    ret: u8,
}

impl<'a> Gen<'a> {
    /// A send (`sup`: a super send, whose lookup starts at the superclass of the method's
    /// class). When it hits its inline cache and activates a method with native code, it
    /// pushes the callee's frame as the interpreter would and jumps to its first instruction;
    /// a method with a primitive goes through the VM's primitive hook.
    pub(super) fn send(&mut self, pc: usize, a: u8, nargs: u8, cache: u16, sup: bool) {
        let exec = self.exec(pc);
        let Some(entry) = self.code.caches.get(cache as usize) else {
            asm!(self.ops; jmp =>exec);
            return;
        };
        let (mut seen, entry) = (self.seen(entry, nargs), entry.as_ptr() as i64);
        if sup {
            // The class the cache is keyed on: the superclass of the method's class.
            let code = self.code as *const CompiledCode as i64;
            asm!(self.ops; mov rax, QWORD code ; mov rax, [rax + CC_METHOD_CLASS]);
            self.slots_of(pc, false);
            asm!(self.ops; test rcx, rcx ; jz =>exec ; mov rcx, [rsi + d(SUPERCLASS_SLOT * 8)]);
        } else {
            asm!(self.ops; mov rax, [rbx + reg(a)]);
            seen.kept = seen.accessor();
            self.class_of_rax(exec, seen.kept);
        }
        self.send_cached(pc, i32::from(a), nargs, entry, i32::from(a), !sup, seen);
    }

    /// What the inline cache `cache` of a send with `nargs` arguments holds now, when it is
    /// current: the send is compiled to answer that first.
    fn seen(&mut self, cache: &Cell<CacheEntry>, nargs: u8) -> Seen {
        let none = Seen { quick: 0, callee: None, kept: false };
        let Some(code) = self.cached(cache).filter(|code| code.primitive == 0) else { return none };
        match code.instrs.quick() {
            0 if code.num_args == nargs => {
                self.callees.push(Rc::downgrade(code));
                let (frame_size, num_temps) = (i32::from(code.frame_size), i32::from(code.num_temps));
                let callee = Callee { code: Rc::as_ptr(code), frame_size, num_temps };
                Seen { quick: 0, callee: Some(callee), kept: false }
            }
            0 => none,
            quick => Seen { quick, callee: None, kept: false },
        }
    }

    /// What a float run (see `float_run`) may compute itself of the send without arguments
    /// through inline cache `cache`, by the method the cache holds now: `Float>>sqrt` (the
    /// primitive) or a getter. The run keeps the method's code.
    pub(super) fn run_send(&mut self, cache: u16) -> Option<RunSend> {
        let cell = self.code.caches.get(usize::from(cache))?;
        let code = self.cached(cell).filter(|code| code.num_args == 0)?;
        let quick = code.instrs.quick();
        let send = CachedSend { entry: cell.as_ptr() as i64, code: Rc::as_ptr(code) as i64 };
        let run_send = match code.primitive {
            FLOAT_SQRT => RunSend::Sqrt(send),
            0 if quick & !0xffff == quick::GETTER => RunSend::Getter(send, (quick & 0xffff) as i32),
            _ => return None,
        };
        self.callees.push(Rc::downgrade(code));
        Some(run_send)
    }

    /// The method inline cache `cache` holds, when the entry is of the current epoch (its
    /// code pointer is then the method's).
    fn cached(&self, cache: &Cell<CacheEntry>) -> Option<&'a Rc<CompiledCode>> {
        let entry = cache.get();
        if entry.epoch != self.epoch || entry.code.is_null() {
            return None;
        }
        let heap: &'a Heap = self.heap;
        let Some(Body::Method(code)) = heap.get(entry.method).map(|m| &m.body) else { return None };
        (Rc::as_ptr(code) == entry.code).then_some(code)
    }

    /// With a receiver's class in `rcx`: to `miss` unless the inline cache entry at `entry`
    /// (left in `rdx`) is for that class and of the current epoch.
    pub(super) fn cache_hit(&mut self, entry: i64, miss: DynamicLabel) {
        asm!(self.ops
            ; mov rdx, QWORD entry
            ; cmp rcx, [rdx + E_CLASS]
            ; jne =>miss
            ; mov r8d, [r12 + C_EPOCH]
            ; cmp r8d, [rdx + E_EPOCH]
            ; jne =>miss
        );
    }

    /// A label for the special send of instruction `pc` (receiver and arguments in registers
    /// or constants, the answer into `ret`); its code is emitted after the body.
    pub(super) fn special_send(&mut self, pc: usize, receiver: u8, args: [Src; 2], nargs: u8, ret: u8) -> DynamicLabel {
        let label = self.ops.new_dynamic_label();
        self.specials.push(SpecialSend { label, pc, receiver, args, nargs, ret });
        label
    }

    /// Emits every special send asked for.
    pub(super) fn finish_specials(&mut self) {
        for s in std::mem::take(&mut self.specials) {
            self.emit_special(s);
        }
    }

    /// Copies the receiver and arguments above the frame's registers, where the interpreter
    /// sends special selectors from too, and sends through the instruction's inline cache.
    fn emit_special(&mut self, s: SpecialSend) {
        let exec = self.exec(s.pc);
        asm!(self.ops; =>s.label);
        let Some(cache) = self.code.special_cache(s.pc) else {
            asm!(self.ops; jmp =>exec);
            return;
        };
        let (mut seen, entry) = (self.seen(cache, s.nargs), cache.as_ptr() as i64);
        let top = i32::from(self.code.frame_size);
        asm!(self.ops
            ; lea r10, [rbx + 8 * (top + 1 + i32::from(s.nargs))]
            ; cmp r10, [r12 + C_STACK_END]
            ; ja =>exec
            ; mov rax, [rbx + reg(s.receiver)]
            ; mov [rbx + 8 * top], rax
        );
        for (i, &arg) in s.args.iter().take(usize::from(s.nargs)).enumerate() {
            self.load_rcx(arg);
            asm!(self.ops; mov [rbx + 8 * (top + 1 + i as i32)], rcx);
        }
        seen.kept = seen.accessor();
        self.class_of_rax(exec, seen.kept);
        self.send_cached(s.pc, top, s.nargs, entry, i32::from(s.ret), true, seen);
    }

    /// The class of the value in `rax` into `rcx`, whatever it is (exits for an object
    /// beyond the object table); with `keep`, an object's table entry in `r11` too.
    fn class_of_rax(&mut self, exec: DynamicLabel, keep: bool) {
        asm!(self.ops
            ; mov ecx, eax
            ; and ecx, 7
            ; jz >object
            ; cmp ecx, 1
            ; jne >not_int
            ; mov rcx, [r12 + C_SMALL_INTEGER]
            ; jmp >have_class
            ; not_int:
            ; cmp ecx, 5
            ; jne >not_float
            ; mov rcx, [r12 + C_SMALL_FLOAT]
            ; jmp >have_class
            ; not_float:
            ; cmp ecx, 2
            ; jne >not_char
            ; mov rcx, [r12 + C_CHARACTER]
            ; jmp >have_class
            ; not_char:
            ; mov rcx, [r12 + C_UNDEFINED_OBJECT]
            ; cmp rax, NIL
            ; je >have_class
            ; mov rcx, [r12 + C_TRUE_CLASS]
            ; cmp rax, TRUE
            ; je >have_class
            ; mov rcx, [r12 + C_FALSE_CLASS]
            ; cmp rax, FALSE
            ; je >have_class
            ; jmp =>exec
            ; object:
        );
        self.object_entry(exec);
        if keep {
            asm!(self.ops; mov r11, rdx);
        }
        asm!(self.ops
            ; mov rcx, [rdx + O_CLASS]
            ; have_class:
        );
    }

    /// With the receiver's class in `rcx`: the send of instruction `pc` through the cache
    /// `entry`, the receiver and its `nargs` arguments in registers `a` on (which may be
    /// above the frame's own), the answer into register `ret`. A miss refills the cache
    /// through the VM (`refill`) and goes on natively; without `refill` (a super send, keyed
    /// on another class than the receiver's) the interpreter sends. With `seen`, what the
    /// cache held when this was compiled, a method of that quick form is answered first,
    /// without decoding the form, and that callee is activated first, with what is known of
    /// it now.
    #[allow(clippy::too_many_arguments)]
    fn send_cached(&mut self, pc: usize, a: i32, nargs: u8, entry: i64, ret: i32, refill: bool, seen: Seen) {
        let exec = self.exec(pc);
        let miss = if refill { self.ops.new_dynamic_label() } else { exec };
        let check = self.stub(REASON_CHECK, pc);
        let first_temp = 8 * (a + 1 + i32::from(nargs));
        let (caller_pc, caller_base) = (d(fl::PC) - F_SIZE, d(fl::BASE) - F_SIZE);
        let next = self.target(pc, 0);
        // The inline cache: this class, this epoch, a method (not a primitive) taking nargs
        // arguments, with native code.
        self.cache_hit(entry, miss);
        asm!(self.ops; mov rsi, [rdx + E_CODE]);
        // (A refilled cache comes back below, without the receiver's entry in `r11`.)
        if seen.quick != 0 {
            self.quick_first(pc, a, ret, seen, next);
        }
        asm!(self.ops
            ; hit:
            ; mov rsi, [rdx + E_CODE]
        );
        let activate = self.ops.new_dynamic_label();
        if let Some(callee) = seen.callee {
            self.known_callee(pc, a, nargs, callee, activate);
        }
        asm!(self.ops
            ; cmp WORD [rsi + CC_PRIMITIVE], 0
            ; jne >primitive
            ; mov eax, DWORD [rsi + CC_QUICK]
            ; test eax, eax
            ; jnz >quick
            ; cmp BYTE [rsi + CC_NUM_ARGS], nargs as i8
            ; jne =>exec
            ; mov rdi, [rsi + CC_TABLE]
            ; test rdi, rdi
            ; jz =>exec
        );
        // Below the depth limit, room for a frame, room on the value stack.
        self.frame_room(exec);
        asm!(self.ops
            ; movzx eax, WORD [rsi + CC_FRAME_SIZE]
            ; lea r9, [rbx + 8 * a]
            ; lea r10, [r9 + rax * 8]
            ; cmp r10, [r12 + C_STACK_END]
            ; ja =>exec
            // The send counts toward the interrupt check once nothing can exit any more (an
            // exit leaves the send to the interpreter, which counts it).
            ; sub QWORD [r12 + C_COUNTDOWN], 1
            ; jle =>check
            // Temporaries start nil.
            ; movzx ecx, BYTE [rsi + CC_NUM_TEMPS]
            ; lea r10, [rbx + first_temp]
            ; test ecx, ecx
            ; jz >temps_done
            ; temps:
            ; mov QWORD [r10], NIL
            ; add r10, 8
            ; sub ecx, 1
            ; jnz <temps
            ; temps_done:
            // The caller continues after the send; the callee's frame goes on top.
            ; =>activate
            ; imul r11, r8, F_SIZE
            ; add r11, [r12 + C_FRAMES]
            ; mov DWORD [r11 + caller_pc], (pc + 1) as i32
            ; mov eax, DWORD [r11 + caller_base]
            ; mov r10d, eax
            ; add r10d, ret
            ; add eax, a
            ; mov rcx, [r12 + C_NEXT_ID]
            ; mov [r11 + d(fl::RET)], r10d
            ; lea r10, [rcx + 1]
            ; mov [r12 + C_NEXT_ID], r10
            ; mov [r11 + d(fl::CODE)], rsi
            ; mov r10, [rdx + E_METHOD]
            ; mov [r11 + d(fl::METHOD)], r10
            ; mov QWORD [r11 + d(fl::CLOSURE)], NIL
            ; mov DWORD [r11 + d(fl::PC)], 0
            ; mov DWORD [r11 + d(fl::BASE)], eax
            ; mov [r11 + d(fl::ID)], rcx
            ; mov [r11 + d(fl::HOME)], rcx
            ; mov QWORD [r11 + d(fl::CONTEXT)], NIL
            ; add r8, 1
            ; mov [r12 + C_FRAMES_LEN], r8
            ; mov rbx, r9
            ; mov rax, [rdi]
            ; test rax, rax
            ; jz ->resume
            ; jmp rax
            // A primitive: the VM runs it (or its method, if it fails) with the caller's pc
            // saved, then says where to go on.
            ; primitive:
            ; sub QWORD [r12 + C_COUNTDOWN], 1
            ; jle =>check
        );
        let general = self.ops.new_dynamic_label();
        self.primitive_inline(pc, a, nargs, ret, next, general);
        asm!(self.ops
            // (The primitives answered inline use `rdx`: the cache entry again.)
            ; =>general
            ; mov rdx, QWORD entry
            ; mov rcx, [r12 + C_FRAMES_LEN]
            ; imul rcx, rcx, F_SIZE
            ; add rcx, [r12 + C_FRAMES]
            ; mov DWORD [rcx + caller_pc], (pc + 1) as i32
            ; mov rdi, r12
            ; mov rsi, rdx
            ; mov rdx, rbx
            ; mov ecx, a
            ; mov r8d, i32::from(nargs)
            ; mov r9d, ret
            ; call QWORD [r12 + C_PRIMITIVE]
            ; mov rbx, rdx
            ; test rax, rax
            ; jz =>next
            ; cmp rax, 1
            ; je ->resume
            ; jmp rax
        );
        self.quick_send(pc, a, ret, next);
        if refill {
            let code = self.code as *const CompiledCode as i64;
            asm!(self.ops
                ; =>miss
                ; mov rdi, r12
                ; mov rsi, rdx
                ; mov rdx, rcx
                ; mov rcx, QWORD code
                ; mov r8d, pc as i32
                ; call QWORD [r12 + C_REFILL]
                ; test rax, rax
                ; jz =>exec
                ; mov rdx, QWORD entry
                ; jmp <hit
            );
        }
    }

    /// Goes to `exit` unless another frame fits: below the depth limit, within the frame
    /// vector's capacity. Leaves the frames in use in `r8`.
    pub(super) fn frame_room(&mut self, exit: DynamicLabel) {
        asm!(self.ops
            ; mov r8, [r12 + C_FRAMES_LEN]
            ; cmp r8, [r12 + C_DEPTH_LIMIT]
            ; jae =>exit
            ; cmp r8, [r12 + C_FRAMES_CAP]
            ; jae =>exit
        );
    }

    /// With the cached method's code in `rsi`: when it is `callee` (which takes `nargs`
    /// arguments, has no primitive and no quick form), the checks before its activation made
    /// with its frame size and temporaries known now, then on at `activate` (frames in use in
    /// `r8`, the callee's registers in `r9`, its entry table in `rdi`); otherwise on after
    /// this code.
    fn known_callee(&mut self, pc: usize, a: i32, nargs: u8, callee: Callee, activate: DynamicLabel) {
        let exec = self.exec(pc);
        let check = self.stub(REASON_CHECK, pc);
        let Callee { code: callee, frame_size, num_temps } = callee;
        let first_temp = 8 * (a + 1 + i32::from(nargs));
        asm!(self.ops
            ; mov rdi, QWORD callee as i64
            ; cmp rsi, rdi
            ; jne >other
            ; mov rdi, [rsi + CC_TABLE]
            ; test rdi, rdi
            ; jz =>exec
        );
        self.frame_room(exec);
        asm!(self.ops
            ; lea r9, [rbx + 8 * a]
            ; lea r10, [rbx + 8 * (a + frame_size)]
            ; cmp r10, [r12 + C_STACK_END]
            ; ja =>exec
            ; sub QWORD [r12 + C_COUNTDOWN], 1
            ; jle =>check
        );
        for i in 0..num_temps {
            asm!(self.ops; mov QWORD [rbx + first_temp + 8 * i], NIL);
        }
        asm!(self.ops
            ; jmp =>activate
            ; other:
        );
    }

    /// With the cached method's code in `rsi`: when it has no primitive and its quick form is
    /// `seen` (a getter, a setter, `^ self` or a constant), the send answered here with what
    /// the form says, known now, into register `ret`; otherwise on after this code.
    /// A getter or setter reaches an object receiver's slots through the table entry finding
    /// its class left in `r11` (`seen.kept`).
    fn quick_first(&mut self, pc: usize, a: i32, ret: i32, seen: Seen, next: DynamicLabel) {
        let exec = self.exec(pc);
        let Seen { quick: seen, kept, .. } = seen;
        let (kind, low) = (seen & !0xffff, (seen & 0xffff) as i32);
        asm!(self.ops
            ; cmp WORD [rsi + CC_PRIMITIVE], 0
            ; jne >other
            ; cmp DWORD [rsi + CC_QUICK], seen as i32
            ; jne >other
        );
        match kind {
            quick::GETTER => {
                self.receiver_slots(pc, a, kept, false);
                asm!(self.ops
                    ; cmp QWORD [r11 + O_SLOTS_LEN], low
                    ; jbe =>exec
                    ; mov rax, [rsi + 8 * low]
                    ; mov [rbx + 8 * ret], rax
                );
            }
            quick::SETTER => {
                self.receiver_slots(pc, a, kept, true);
                asm!(self.ops
                    ; cmp QWORD [r11 + O_SLOTS_LEN], low
                    ; jbe =>exec
                    ; mov r8, [rbx + 8 * (a + 1)]
                    ; mov [rsi + 8 * low], r8
                    ; mov rax, [rbx + 8 * a]
                    ; mov [rbx + 8 * ret], rax
                );
            }
            // A constant's bits are those of nil, true or false: small enough to sign-extend.
            quick::CONSTANT => asm!(self.ops; mov QWORD [rbx + 8 * ret], low),
            _ => asm!(self.ops; mov rax, [rbx + 8 * a] ; mov [rbx + 8 * ret], rax),
        }
        asm!(self.ops
            ; jmp =>next
            ; other:
        );
    }

    /// The slots of the receiver in register `a` in `rsi`, its table entry in `r11`, unless it
    /// is no object, is not loaded, has no slots, or (for a `store`) is persistent, when the
    /// interpreter runs send `pc`. With `kept`, `r11` holds its entry already if it is an
    /// object.
    fn receiver_slots(&mut self, pc: usize, a: i32, kept: bool, store: bool) {
        let exec = self.exec(pc);
        let flags = if store { NOT_LOADED | PERSISTENT } else { NOT_LOADED };
        asm!(self.ops
            ; mov rax, [rbx + 8 * a]
            ; test al, 7
            ; jnz =>exec
        );
        if !kept {
            self.object_entry(exec);
            asm!(self.ops; mov r11, rdx);
        }
        asm!(self.ops
            ; test WORD [r11 + O_FLAGS], flags as i16
            ; jnz =>exec
            ; cmp BYTE [r11 + O_BODY], Body::SLOTS_TAG as i8
            ; jne =>exec
            ; mov rsi, [r11 + O_SLOTS_PTR]
        );
    }

    /// A send whose cached method is quick (`quick` in `eax`): answered here, with no frame
    /// (see [`crate::bytecode::quick`]), into register `ret`.
    fn quick_send(&mut self, pc: usize, a: i32, ret: i32, next: DynamicLabel) {
        let exec = self.exec(pc);
        asm!(self.ops
            ; quick:
            ; mov edi, eax
            ; and edi, 0xffff
            ; shr eax, 16
            ; cmp eax, (quick::GETTER >> 16) as i32
            ; je >getter
            ; cmp eax, (quick::SETTER >> 16) as i32
            ; je >setter
            ; cmp eax, (quick::CONSTANT >> 16) as i32
            ; je >constant
            // ^ self
            ; mov rax, [rbx + 8 * a]
            ; mov [rbx + 8 * ret], rax
            ; jmp =>next
            ; constant:
            ; mov [rbx + 8 * ret], rdi
            ; jmp =>next
            ; getter:
            ; mov rax, [rbx + 8 * a]
        );
        self.slots_of(pc, false);
        asm!(self.ops
            ; cmp rdi, rcx
            ; jae =>exec
            ; mov rax, [rsi + rdi * 8]
            ; mov [rbx + 8 * ret], rax
            ; jmp =>next
            ; setter:
            ; mov rax, [rbx + 8 * a]
        );
        self.slots_of(pc, true);
        asm!(self.ops
            ; cmp rdi, rcx
            ; jae =>exec
            ; mov r8, [rbx + 8 * (a + 1)]
            ; mov [rsi + rdi * 8], r8
            ; mov rax, [rbx + 8 * a]
            ; mov [rbx + 8 * ret], rax
            ; jmp =>next
        );
    }

    /// Return `R[r]` to the caller: pop the frame, store the answer, continue the caller
    /// natively if it has native code at its saved pc.
    pub(super) fn ret(&mut self, pc: usize, r: u8) {
        let exec = self.exec(pc);
        let top_ret = d(fl::RET) - F_SIZE;
        let (caller_code, caller_pc, caller_base) =
            (d(fl::CODE) - 2 * F_SIZE, d(fl::PC) - 2 * F_SIZE, d(fl::BASE) - 2 * F_SIZE);
        asm!(self.ops
            ; mov rax, [rbx + reg(r)]
            ; mov rcx, [r12 + C_FRAMES_LEN]
            ; cmp rcx, 2
            ; jb =>exec
            ; imul rdx, rcx, F_SIZE
            ; add rdx, [r12 + C_FRAMES]
            ; mov esi, DWORD [rdx + top_ret]
            ; mov rdi, [r12 + C_STACK]
            ; mov [rdi + rsi * 8], rax
            ; sub rcx, 1
            ; mov [r12 + C_FRAMES_LEN], rcx
            ; mov r8, [rdx + caller_code]
            ; mov r9, [r8 + CC_TABLE]
            ; test r9, r9
            ; jz ->resume
            ; mov r10d, DWORD [rdx + caller_pc]
            ; mov r9, [r9 + r10 * 8]
            ; test r9, r9
            ; jz ->resume
            ; mov r11d, DWORD [rdx + caller_base]
            ; lea rbx, [rdi + r11 * 8]
            ; jmp r9
        );
    }
}
