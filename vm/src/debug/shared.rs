//! The stone's breakpoints in this gem. Breakpoints belong to the stone
//! ([`onyx_record::Breakpoint`]): a tool sets one through any gem, which places it in its own
//! VM at once and hands it to the stone; every gem asks the stone whether they changed (the
//! host does, every second: [`Vm::sync_breakpoints`]) and applies those meant for it, each at
//! the same place in the version of the method it holds. A breakpoint with a condition or
//! log expression applies only in the gems of the user who set it
//! ([`Breakpoint::applies_in_gem_of`]): those run with the gem's session's rights. The VM's breakpoint numbers are the
//! stone's. A breakpoint whose method this gem does not have (yet) waits until code changes
//! here; one set to stop once is removed from the stone by the gem it stopped a process of.

use std::collections::HashMap;
use std::rc::Rc;

use onyx_record::{Breakpoint, Scope, StoneError};

use super::breakpoints::{BreakpointEvent, BreakpointSpec, BreakpointView, Hits, Position};
use crate::value::Value;
use crate::vm::Vm;

/// What this gem applied of the stone's breakpoints.
#[derive(Debug, Default)]
pub(crate) struct FromStone {
    /// The generation of the stone's breakpoints last applied.
    generation: u64,
    /// The breakpoints applied, as the stone had them.
    applied: HashMap<u64, Breakpoint>,
    /// Those meant for this gem whose method is not here, and the code epoch they were last
    /// tried at.
    waiting: Vec<Breakpoint>,
    tried_at: u64,
}

/// Why a breakpoint could not be set through this gem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SharedBreakpointError {
    /// The VM could not place it.
    #[error("{0}")]
    Placed(#[from] super::breakpoints::BreakpointError),
    /// The stone refused it, or is gone.
    #[error("{0}")]
    Stone(#[from] StoneError),
}

/// A breakpoint to set through this gem for every gem of the stone.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedBreakpoint {
    /// Its number, to change an existing one; 0 for a new one.
    pub id: u64,
    /// The class (or metaclass) of the method.
    pub class: Value,
    /// The method's selector.
    pub selector: Value,
    /// Where in the method.
    pub at: Position,
    /// See [`BreakpointSpec`].
    pub condition: Option<String>,
    /// See [`BreakpointSpec`].
    pub log: Option<String>,
    /// See [`BreakpointSpec`].
    pub hits: Hits,
    /// See [`BreakpointSpec`].
    pub once: bool,
    /// See [`BreakpointSpec`].
    pub enabled: bool,
    /// Which processes of which gems it stops.
    pub scope: Scope,
}

impl Vm {
    /// Sets a breakpoint for the stone's gems: placed in this VM (which says where it lands
    /// or why it cannot), then kept by the stone (only a user who may change code sets
    /// breakpoints), whose number it takes.
    pub fn set_shared_breakpoint(
        &mut self,
        b: SharedBreakpoint,
    ) -> Result<(Breakpoint, Option<BreakpointView>), SharedBreakpointError> {
        let session = self.session_id().unwrap_or(0);
        let here = b.scope.includes_session(session);
        let process = match b.scope {
            Scope::Process { process, .. } => Some(process),
            _ => None,
        };
        // Placed first under a number no breakpoint of the stone has, to learn where it lands.
        let trial = BreakpointSpec {
            id: u64::MAX,
            class: b.class,
            selector: b.selector,
            at: b.at,
            condition: b.condition.clone(),
            log: b.log.clone(),
            hits: b.hits,
            once: b.once,
            enabled: b.enabled,
            process,
        };
        let placed = self.set_breakpoint(trial)?;
        self.remove_breakpoint(u64::MAX);
        let Position::Offset(offset) = placed.spec.at else {
            return Err(SharedBreakpointError::Stone(StoneError::Invalid("the breakpoint has no offset".into())));
        };
        let record = Breakpoint {
            id: b.id,
            class: self.class_name(b.class),
            selector: self.string_of(b.selector).unwrap_or_default(),
            source: placed.source.to_string(),
            offset,
            condition: b.condition.unwrap_or_default(),
            log: b.log.unwrap_or_default(),
            hits: b.hits,
            once: b.once,
            enabled: b.enabled,
            scope: b.scope,
            owner: String::new(),
        };
        let kept = self.stone_link()?.set_breakpoint(&record)?;
        let view = if here { self.apply_one(&kept).ok() } else { None };
        Ok((kept, view))
    }

    /// Every breakpoint of the stone.
    pub fn stone_breakpoints(&mut self) -> Result<Vec<Breakpoint>, StoneError> {
        Ok(self.stone_link()?.breakpoints(0)?.map(|(_, list)| list).unwrap_or_default())
    }

    /// Removes a breakpoint of the stone, here and in every gem.
    pub fn remove_shared_breakpoint(&mut self, id: u64) -> Result<bool, StoneError> {
        let removed = self.stone_link()?.remove_breakpoint(id, false)?;
        self.debug.from_stone.applied.remove(&id);
        self.debug.from_stone.waiting.retain(|b| b.id != id);
        self.remove_breakpoint(id);
        Ok(removed)
    }

    /// Where this VM's breakpoints stand: the stone's generation applied, and how many
    /// moved, were orphaned or went here. A host that remembers it learns whether anything
    /// changed since, whoever synced in between.
    pub fn breakpoint_changes(&self) -> (u64, u64) {
        (self.debug.from_stone.generation, self.debug.breakpoints.told)
    }

    /// Brings this VM's breakpoints up to date with the stone's, if they changed there (or
    /// code changed here while some waited for their method), and removes from the stone
    /// those set to stop once that stopped a process here. Answers what became of
    /// breakpoints here since the last call, for the host's tools.
    pub fn sync_breakpoints(&mut self) -> Result<Vec<BreakpointEvent>, StoneError> {
        let events = self.take_breakpoint_events();
        for e in &events {
            if let BreakpointEvent::Removed(id) = *e {
                self.debug.from_stone.applied.remove(&id);
                self.stone_link()?.remove_breakpoint(id, true)?;
            }
        }
        let since = self.debug.from_stone.generation;
        match self.stone_link()?.breakpoints(since)? {
            Some((generation, list)) => {
                self.debug.from_stone.generation = generation;
                self.apply_stone_breakpoints(list);
            }
            None if !self.debug.from_stone.waiting.is_empty() && self.debug.from_stone.tried_at != self.code_epoch => {
                let waiting = std::mem::take(&mut self.debug.from_stone.waiting);
                self.apply_listed(waiting);
            }
            None => {}
        }
        Ok(events)
    }

    /// Applies the stone's list: those meant for this gem set (anew where they changed),
    /// the others gone.
    fn apply_stone_breakpoints(&mut self, list: Vec<Breakpoint>) {
        let session = self.session_id().unwrap_or(0);
        let user = self.session_user().map(|u| u.name.clone()).unwrap_or_default();
        let wanted: Vec<Breakpoint> =
            list.into_iter().filter(|b| b.scope.includes_session(session) && b.applies_in_gem_of(&user)).collect();
        let gone: Vec<u64> =
            self.debug.from_stone.applied.keys().copied().filter(|id| !wanted.iter().any(|b| b.id == *id)).collect();
        for id in gone {
            self.debug.from_stone.applied.remove(&id);
            self.remove_breakpoint(id);
        }
        let changed: Vec<Breakpoint> =
            wanted.into_iter().filter(|b| self.debug.from_stone.applied.get(&b.id) != Some(b)).collect();
        self.debug.from_stone.waiting.clear();
        self.apply_listed(changed);
    }

    fn apply_listed(&mut self, list: Vec<Breakpoint>) {
        self.debug.from_stone.tried_at = self.code_epoch;
        for b in list {
            if self.apply_one(&b).is_err() {
                self.remove_breakpoint(b.id);
                self.debug.from_stone.applied.remove(&b.id);
                self.debug.from_stone.waiting.push(b);
            }
        }
    }

    /// Sets one of the stone's breakpoints in this VM.
    fn apply_one(&mut self, b: &Breakpoint) -> Result<BreakpointView, super::breakpoints::BreakpointError> {
        let missing = || super::breakpoints::BreakpointError::NoMethod(b.class.clone(), b.selector.clone());
        let class = match b.class.strip_suffix(" class") {
            Some(name) => self.global(name).map(|c| self.class_of(c)),
            None => self.global(&b.class),
        }
        .ok_or_else(missing)?;
        let spec = BreakpointSpec {
            id: b.id,
            class,
            selector: self.intern(&b.selector),
            at: Position::InSource { source: Rc::from(b.source.as_str()), offset: b.offset },
            condition: Some(b.condition.clone()).filter(|c| !c.is_empty()),
            log: Some(b.log.clone()).filter(|l| !l.is_empty()),
            hits: b.hits,
            once: b.once,
            enabled: b.enabled,
            process: match b.scope {
                Scope::Process { process, .. } => Some(process),
                _ => None,
            },
        };
        let view = self.set_breakpoint(spec)?;
        self.debug.from_stone.applied.insert(b.id, b.clone());
        Ok(view)
    }
}
