//! Breakpoints, as the tools set, list and remove them through a gem. They are the stone's
//! (every gem of it applies them within a second; see `onyx_vm::SharedBreakpoint`): setting
//! one places it in this gem's VM at once, which says where it lands (or why it cannot: no
//! such method, no statement there, a condition that does not compile), then hands it to the
//! stone. Only a user who may change code sets or removes breakpoints.

use onyx_record::{Breakpoint, Hits, Scope};
use onyx_vm::{Position, SharedBreakpoint, SharedBreakpointError, Vm};

use super::request::{Answer, ErrorKind, Failure, MethodRef, Outcome};
use super::{class, may_change_code, stone_failure};

/// Where in a method a breakpoint goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// The first statement on this line of the method (from 1), or on the next line that has
    /// one.
    Line(u32),
    /// The statement around this byte offset of the method's source.
    Offset(u32),
}

/// Which processes a breakpoint stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Within {
    /// Every process of every gem of the stone.
    EveryGem,
    /// Every process of this gem.
    ThisGem,
    /// One process of this gem (by its number).
    Process(u64),
}

/// A breakpoint to set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetBreakpoint {
    /// 0 for a new breakpoint; else the one to change.
    pub id: u64,
    /// The method.
    pub method: MethodRef,
    /// Where in it.
    pub at: At,
    /// An expression evaluated in the frame; the hit stops only if it answers true.
    pub condition: String,
    /// An expression whose displayString goes to the transcript instead of stopping.
    pub log: String,
    /// Which hits are taken.
    pub hits: Hits,
    /// Removed once it stopped a process.
    pub once: bool,
    /// Whether it is in force.
    pub enabled: bool,
    /// Which processes it stops.
    pub within: Within,
}

/// What the tools ask of breakpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BreakpointRequest {
    /// Set one (answers the list with it alone).
    Set(Box<SetBreakpoint>),
    /// Remove one (answers done).
    Remove(u64),
    /// Every breakpoint of the stone, as this gem has it.
    List,
}

/// One breakpoint as the tools show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BreakpointEntry {
    /// As the stone keeps it.
    pub breakpoint: Breakpoint,
    /// The line of its statement in the method as this gem has it (0: not placed here).
    pub line: u32,
    /// Hits counted in this gem.
    pub hits_here: u64,
    /// Patched into the method in this gem now.
    pub placed: bool,
    /// Its statement went when the method changed here: it is disabled.
    pub orphaned: bool,
    /// The hits each other gem that counted some told the stone of: its session, its
    /// agent's address, the hits.
    pub by_gem: Vec<(u64, String, u64)>,
}

/// Runs a breakpoint request.
pub fn run(vm: &mut Vm, request: BreakpointRequest) -> Outcome {
    match request {
        BreakpointRequest::Set(set) => {
            may_change_code(vm)?;
            let breakpoint = shared(vm, &set)?;
            let (kept, _) = vm.set_shared_breakpoint(breakpoint).map_err(|e| match e {
                SharedBreakpointError::Stone(e) => stone_failure(e),
                SharedBreakpointError::Placed(e) => Failure::new(ErrorKind::Invalid, e.to_string()),
            })?;
            Ok(Answer::Breakpoints(vec![entry(vm, kept)]))
        }
        BreakpointRequest::Remove(id) => {
            may_change_code(vm)?;
            match vm.remove_shared_breakpoint(id).map_err(stone_failure)? {
                true => Ok(Answer::Done),
                false => Err(Failure::new(ErrorKind::NotFound, format!("no breakpoint {id}"))),
            }
        }
        BreakpointRequest::List => {
            // Whatever changed elsewhere is seen now rather than within the second.
            vm.sync_breakpoints().map_err(stone_failure)?;
            let all = vm.stone_breakpoints().map_err(stone_failure)?;
            let (mut sessions, _) = vm.stone_sessions().map_err(stone_failure)?;
            // This gem's own are its hits here.
            let own = vm.session_id();
            sessions.retain(|s| Some(s.session) != own);
            let entries = all.into_iter().map(|b| {
                let by_gem = (sessions.iter())
                    .filter_map(|s| {
                        let (_, hits) = s.about.hits.iter().find(|(id, _)| *id == b.id)?;
                        Some((s.session, s.about.agent.clone(), *hits))
                    })
                    .collect();
                BreakpointEntry { by_gem, ..entry(vm, b) }
            });
            Ok(Answer::Breakpoints(entries.collect()))
        }
    }
}

/// The VM's request for `set`.
fn shared(vm: &mut Vm, set: &SetBreakpoint) -> Result<SharedBreakpoint, Failure> {
    let class = class(vm, &set.method.class)?;
    let session = vm.session_id().unwrap_or(0);
    let scope = match set.within {
        Within::EveryGem => Scope::Everywhere,
        Within::ThisGem => Scope::Session(session),
        Within::Process(process) => Scope::Process { session, process },
    };
    let text = |s: &str| Some(s.to_string()).filter(|s| !s.trim().is_empty());
    Ok(SharedBreakpoint {
        id: set.id,
        class,
        selector: vm.intern(&set.method.selector),
        at: match set.at {
            At::Line(l) => Position::Line(l),
            At::Offset(o) => Position::Offset(o),
        },
        condition: text(&set.condition),
        log: text(&set.log),
        hits: set.hits,
        once: set.once,
        enabled: set.enabled,
        scope,
    })
}

/// A breakpoint of the stone with what this gem knows of it.
fn entry(vm: &Vm, breakpoint: Breakpoint) -> BreakpointEntry {
    let here = vm.breakpoint(breakpoint.id);
    BreakpointEntry {
        line: here.as_ref().map_or(0, |v| v.line),
        hits_here: here.as_ref().map_or(0, |v| v.hit_count),
        placed: here.as_ref().is_some_and(|v| v.placed),
        orphaned: here.as_ref().is_some_and(|v| v.orphaned),
        by_gem: Vec::new(),
        breakpoint,
    }
}
