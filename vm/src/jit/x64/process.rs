//! `Semaphore>>signal` and `Semaphore>>wait` in native code, the process switch included.
//!
//! A signal that finds no waiter counts an excess signal; one that wakes a process no higher
//! in priority than the running one moves it from the semaphore's list to its ready queue. A
//! wait that finds an excess signal takes it; one that must wait puts the running process on
//! the semaphore's list and switches to the first process of the highest ready queue: the
//! running process's frame count goes into its frame vector, its state into its body, the
//! next one's state into the scheduler and its vectors into the context, and native code
//! jumps to the next process's entry for its top frame's pc.
//!
//! This is what `Vm::signal_semaphore`, `Vm::wait_semaphore` and `Vm::switch_to_next` do, over
//! the `repr(C)` layouts of the bodies, the lists and the vectors (`heap::object`,
//! `heap::process_list`, `native_vec`). Whatever they would do differently (a switch to a
//! higher priority, a next process without native code at its pc, a change of privilege or
//! recursion limit, no process ready) goes through the primitive hook, before anything has
//! changed.

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};

use super::*;
use crate::heap::{ProcessBody, ProcessList, SemaphoreBody};
use crate::native_vec::NativeVec;
use crate::primitives::SEMAPHORE_WAIT;
use crate::process::{ProcessState, Status};
use crate::scheduler::{MAX_PRIORITY, Scheduler, process_slots};

const C_READY: i32 = d(offset_of!(JitCtx, ready));
const C_READY_MASK: i32 = d(offset_of!(JitCtx, ready_mask));
const C_SCHEDULER: i32 = d(offset_of!(JitCtx, scheduler));

const S_STATE: i32 = d(offset_of!(Scheduler, state));
const S_ACTIVE: i32 = d(offset_of!(Scheduler, active));
const S_ACTIVE_BODY: i32 = d(offset_of!(Scheduler, active_body));
const S_ACTIVE_PRIORITY: i32 = d(offset_of!(Scheduler, active_priority));

const O_PAYLOAD: i32 = O_BODY + d(Body::PAYLOAD_OFFSET);

const SB_EXCESS: i32 = d(offset_of!(SemaphoreBody, excess_signals));
const SB_FIRST: i32 = d(offset_of!(SemaphoreBody, waiting) + ProcessList::FIRST_OFFSET);
const SB_LAST: i32 = d(offset_of!(SemaphoreBody, waiting) + ProcessList::LAST_OFFSET);

const PL_SIZE: i32 = d(std::mem::size_of::<ProcessList>());
const PL_FIRST: i32 = d(ProcessList::FIRST_OFFSET);
const PL_LAST: i32 = d(ProcessList::LAST_OFFSET);

const PB_NEXT: i32 = d(offset_of!(ProcessBody, next));
const PB_QUEUED: i32 = d(offset_of!(ProcessBody, queued));
const PB_PRIORITY: i32 = d(offset_of!(ProcessBody, priority));
const PB_PROCESS: i32 = d(offset_of!(ProcessBody, process));
const PB_STATE: i32 = d(offset_of!(ProcessBody, state));
const PB_SLOTS_PTR: i32 = d(offset_of!(ProcessBody, slots) + Slots::PTR_OFFSET);
const PB_SLOTS_LEN: i32 = d(offset_of!(ProcessBody, slots) + Slots::LEN_OFFSET);

const PS_STATUS: i32 = d(offset_of!(ProcessState, status));
const PS_OVERFLOW: i32 = d(offset_of!(ProcessState, overflow_signalled));
const PS_MAY_CHANGE_CODE: i32 = d(offset_of!(ProcessState, may_change_code));
const PS_FRAMES_PTR: i32 = d(offset_of!(ProcessState, frames) + NativeVec::PTR_OFFSET);
const PS_FRAMES_LEN: i32 = d(offset_of!(ProcessState, frames) + NativeVec::LEN_OFFSET);
const PS_FRAMES_CAP: i32 = d(offset_of!(ProcessState, frames) + NativeVec::CAP_OFFSET);
const PS_STACK_PTR: i32 = d(offset_of!(ProcessState, stack) + NativeVec::PTR_OFFSET);
const PS_STACK_LEN: i32 = d(offset_of!(ProcessState, stack) + NativeVec::LEN_OFFSET);

const MY_LIST: i32 = process_slots::MY_LIST as i32;
const TOP_CODE: i32 = d(fl::CODE) - F_SIZE;
const TOP_PC: i32 = d(fl::PC) - F_SIZE;
const TOP_BASE: i32 = d(fl::BASE) - F_SIZE;

// A ready queue is found by scaling the priority; a saved state is one word, null exactly
// when it is `None`, and the running one a non-null word; the flags read here are bytes.
const _: () = assert!(std::mem::size_of::<ProcessList>() == 16);
const _: () = assert!(std::mem::size_of::<Option<Box<ProcessState>>>() == 8);
const _: () = assert!(std::mem::size_of::<Box<ProcessState>>() == 8);
const _: () = assert!(std::mem::size_of::<Status>() == 1 && std::mem::size_of::<bool>() == 1);

impl Gen<'_> {
    /// At send `pc` whose cached method's primitive (in `eax`) is `signal` or `wait`: to the
    /// semaphore in register `a`, answering it into register `ret`, here; a case left to the
    /// VM goes to `general` (the primitive hook) with nothing changed.
    pub(super) fn semaphore_inline(&mut self, pc: usize, a: i32, ret: i32, next: DynamicLabel, general: DynamicLabel) {
        asm!(self.ops
            ; mov r8d, eax
            ; mov rax, [rbx + 8 * a]
        );
        self.body_entry(Body::SEMAPHORE_TAG, NOT_LOADED, general);
        asm!(self.ops
            ; mov rdx, [rdx + O_PAYLOAD]
            ; cmp r8d, i32::from(SEMAPHORE_WAIT)
            ; je >wait
        );
        self.signal(a, ret, next, general);
        asm!(self.ops; wait:);
        self.wait(pc, a, ret, next, general);
    }

    /// `signal`, with the semaphore's body in `rdx`.
    fn signal(&mut self, a: i32, ret: i32, next: DynamicLabel, general: DynamicLabel) {
        asm!(self.ops
            ; mov rcx, [rdx + SB_FIRST]
            ; test rcx, rcx
            ; jz >excess
            // The first waiter: no higher than the running process (else a switch is due),
            // its state saved in its body, with a `myList` slot.
            ; mov rdi, [rcx + PB_PRIORITY]
            ; mov r8, [r12 + C_SCHEDULER]
            ; cmp rdi, [r8 + S_ACTIVE_PRIORITY]
            ; ja =>general
            ; cmp rdi, MAX_PRIORITY as i32
            ; ja =>general
            ; mov rsi, [rcx + PB_STATE]
            ; test rsi, rsi
            ; jz =>general
            ; cmp QWORD [rcx + PB_SLOTS_LEN], MY_LIST
            ; jbe =>general
            // Off the semaphore's list (it stays marked as queued: it goes on another).
            ; mov r8, [rcx + PB_NEXT]
            ; mov [rdx + SB_FIRST], r8
            ; test r8, r8
            ; jnz >unlinked
            ; mov [rdx + SB_LAST], r8
            ; unlinked:
            ; mov QWORD [rcx + PB_NEXT], 0
            ; mov BYTE [rsi + PS_STATUS], Status::Ready as i8
            ; mov rsi, [rcx + PB_SLOTS_PTR]
            ; mov QWORD [rsi + 8 * MY_LIST], NIL
            // At the end of the ready queue of its priority, whose bit is set if it was empty.
            ; imul rsi, rdi, PL_SIZE
            ; add rsi, [r12 + C_READY]
            ; mov r8, [rsi + PL_LAST]
            ; test r8, r8
            ; jz >was_empty
            ; mov [r8 + PB_NEXT], rcx
            ; jmp >linked
            ; was_empty:
            ; mov [rsi + PL_FIRST], rcx
        );
        self.mask_bit(true);
        asm!(self.ops
            ; linked:
            ; mov [rsi + PL_LAST], rcx
            ; jmp >answer
            // No waiter: one more excess signal.
            ; excess:
            ; mov r8, [rdx + SB_EXCESS]
            ; add r8, 1
            ; jo =>general
            ; mov [rdx + SB_EXCESS], r8
            ; answer:
            ; mov rax, [rbx + 8 * a]
            ; mov [rbx + 8 * ret], rax
            ; jmp =>next
        );
    }

    /// Sets (`set`) or clears the ready mask's bit for priority `rdi` (clobbers `rdi`, `r8`,
    /// `r9`, `r10`).
    fn mask_bit(&mut self, set: bool) {
        asm!(self.ops
            ; mov r8, rdi
            ; shr r8, 6
            ; shl r8, 3
            ; add r8, [r12 + C_READY_MASK]
            ; mov r9, [r8]
            ; and edi, 63
        );
        if set {
            asm!(self.ops; bts r9, rdi);
        } else {
            asm!(self.ops; btr r9, rdi);
        }
        asm!(self.ops; mov [r8], r9);
    }

    /// `wait` at send `pc`, with the semaphore's body in `rdx`.
    fn wait(&mut self, pc: usize, a: i32, ret: i32, next: DynamicLabel, general: DynamicLabel) {
        asm!(self.ops
            ; mov r8, [rdx + SB_EXCESS]
            ; test r8, r8
            ; jle >block
            ; sub r8, 1
            ; mov [rdx + SB_EXCESS], r8
            ; mov rax, [rbx + 8 * a]
            ; mov [rbx + 8 * ret], rax
            ; jmp =>next
            ; block:
            // The running process: in no queue, with a `myList` slot.
            ; mov rcx, [r12 + C_SCHEDULER]
            ; mov rcx, [rcx + S_ACTIVE_BODY]
            ; test rcx, rcx
            ; jz =>general
            ; cmp BYTE [rcx + PB_QUEUED], 0
            ; jne =>general
            ; cmp QWORD [rcx + PB_SLOTS_LEN], MY_LIST
            ; jbe =>general
            // The next process: the first of the highest non-empty ready queue (`r11`).
            ; mov r10, [r12 + C_READY_MASK]
            ; mov rax, [r10 + 8]
            ; test rax, rax
            ; jz >low
            ; bsr rax, rax
            ; add eax, 64
            ; jmp >found
            ; low:
            ; mov rax, [r10]
            ; test rax, rax
            ; jz =>general
            ; bsr rax, rax
            ; found:
            ; imul r11, rax, PL_SIZE
            ; add r11, [r12 + C_READY]
            ; mov rdi, [r11 + PL_FIRST]
            ; test rdi, rdi
            ; jz =>general
            // Its state (`rsi`), with the running one's privilege and recursion limit.
            ; mov rsi, [rdi + PB_STATE]
            ; test rsi, rsi
            ; jz =>general
            ; mov r8, [r12 + C_SCHEDULER]
            ; mov r9, [r8 + S_STATE]
            ; cmp BYTE [rsi + PS_OVERFLOW], 0
            ; jne =>general
            ; cmp BYTE [r9 + PS_OVERFLOW], 0
            ; jne =>general
            ; mov al, [rsi + PS_MAY_CHANGE_CODE]
            ; cmp al, [r9 + PS_MAY_CHANGE_CODE]
            ; jne =>general
            // Native code at its top frame's pc.
            ; mov r8, [rsi + PS_FRAMES_LEN]
            ; test r8, r8
            ; jz =>general
            ; imul r8, r8, F_SIZE
            ; add r8, [rsi + PS_FRAMES_PTR]
            ; mov r9, [r8 + TOP_CODE]
            ; mov r9, [r9 + CC_TABLE]
            ; test r9, r9
            ; jz =>general
            ; mov eax, DWORD [r8 + TOP_PC]
            ; cmp QWORD [r9 + rax * 8], 0
            ; je =>general
            // From here on the switch happens. The next process leaves its ready queue.
            ; mov r8, [rdi + PB_NEXT]
            ; mov [r11 + PL_FIRST], r8
            ; test r8, r8
            ; jnz >still_ready
            ; mov [r11 + PL_LAST], r8
            ; mov r11, rdi
            ; mov rdi, [rdi + PB_PRIORITY]
        );
        self.mask_bit(false);
        asm!(self.ops
            ; mov rdi, r11
            ; still_ready:
            ; mov QWORD [rdi + PB_NEXT], 0
            ; mov BYTE [rdi + PB_QUEUED], 0
            // The running process goes last on the semaphore's list, naming it in `myList`,
            // with the semaphore as the answer of its wait.
            ; mov BYTE [rcx + PB_QUEUED], 1
            ; mov QWORD [rcx + PB_NEXT], 0
            ; mov r8, [rdx + SB_LAST]
            ; test r8, r8
            ; jz >first_waiter
            ; mov [r8 + PB_NEXT], rcx
            ; jmp >appended
            ; first_waiter:
            ; mov [rdx + SB_FIRST], rcx
            ; appended:
            ; mov [rdx + SB_LAST], rcx
            ; mov rax, [rbx + 8 * a]
            ; mov r8, [rcx + PB_SLOTS_PTR]
            ; mov [r8 + 8 * MY_LIST], rax
            ; mov [rbx + 8 * ret], rax
            // Its state: the frames native code pushed, the pc after this send, waiting; into
            // its body, the next one's out of its body into the scheduler.
            ; mov r8, [r12 + C_SCHEDULER]
            ; mov r9, [r8 + S_STATE]
            ; mov r10, [r12 + C_FRAMES_LEN]
            ; mov [r9 + PS_FRAMES_LEN], r10
            ; imul r10, r10, F_SIZE
            ; add r10, [r12 + C_FRAMES]
            ; mov DWORD [r10 + TOP_PC], (pc + 1) as i32
            ; mov BYTE [r9 + PS_STATUS], Status::Waiting as i8
            ; mov [rcx + PB_STATE], r9
            ; mov [r8 + S_STATE], rsi
            ; mov QWORD [rdi + PB_STATE], 0
            ; mov BYTE [rsi + PS_STATUS], Status::Running as i8
            // The next process runs.
            ; mov rax, [rdi + PB_PROCESS]
            ; mov [r8 + S_ACTIVE], rax
            ; mov [r8 + S_ACTIVE_BODY], rdi
            ; mov rax, [rdi + PB_PRIORITY]
            ; mov [r8 + S_ACTIVE_PRIORITY], rax
            ; mov rax, [rsi + PS_FRAMES_PTR]
            ; mov [r12 + C_FRAMES], rax
            ; mov r8, [rsi + PS_FRAMES_LEN]
            ; mov [r12 + C_FRAMES_LEN], r8
            ; mov r10, [rsi + PS_FRAMES_CAP]
            ; mov [r12 + C_FRAMES_CAP], r10
            ; mov r10, [rsi + PS_STACK_PTR]
            ; mov [r12 + C_STACK], r10
            ; mov r11, [rsi + PS_STACK_LEN]
            ; lea r11, [r10 + r11 * 8]
            ; mov [r12 + C_STACK_END], r11
            // At its top frame's entry, with that frame's registers.
            ; imul r8, r8, F_SIZE
            ; add r8, rax
            ; mov r9, [r8 + TOP_CODE]
            ; mov r9, [r9 + CC_TABLE]
            ; mov eax, DWORD [r8 + TOP_PC]
            ; mov r9, [r9 + rax * 8]
            ; mov eax, DWORD [r8 + TOP_BASE]
            ; lea rbx, [r10 + rax * 8]
            ; jmp r9
        );
    }
}
