//! The stone's breakpoints: set and removed by sessions whose user may change code, read by
//! every gem, which applies them to its own VM. They belong to the stone, not to a
//! transaction (setting one commits nothing and aborts nobody), and live as long as the stone
//! runs. Each change moves the table's generation on, so a gem asks for them only when they
//! changed.

use onyx_record::Breakpoint;

use crate::error::StoreError;

/// Breakpoints the stone keeps at most.
pub const MAX_BREAKPOINTS: usize = 10_000;

/// Every breakpoint of the stone.
#[derive(Debug, Default)]
pub(crate) struct BreakpointTable {
    /// Moves on at every change (0: none ever set).
    generation: u64,
    next_id: u64,
    list: Vec<Breakpoint>,
}

impl BreakpointTable {
    /// The breakpoints and their generation, unless it is still `since`.
    pub fn since(&self, since: u64) -> Option<(u64, Vec<Breakpoint>)> {
        (self.generation != since).then(|| (self.generation, self.list.clone()))
    }

    /// Sets (`id` 0: adds) a breakpoint for `owner`, who may change code.
    pub fn set(&mut self, mut breakpoint: Breakpoint, owner: &str) -> Result<Breakpoint, StoreError> {
        breakpoint.check().map_err(StoreError::Invalid)?;
        breakpoint.owner = owner.to_string();
        if breakpoint.id == 0 {
            if self.list.len() >= MAX_BREAKPOINTS {
                return Err(StoreError::Invalid(format!("the stone keeps at most {MAX_BREAKPOINTS} breakpoints")));
            }
            self.next_id += 1;
            breakpoint.id = self.next_id;
            self.list.push(breakpoint.clone());
        } else {
            let slot = self
                .list
                .iter_mut()
                .find(|b| b.id == breakpoint.id)
                .ok_or_else(|| StoreError::Invalid(format!("no breakpoint {}", breakpoint.id)))?;
            *slot = breakpoint.clone();
        }
        self.generation += 1;
        Ok(breakpoint)
    }

    /// Removes breakpoint `id`: for a user who may change code, or, for a breakpoint set to
    /// stop once, for any session it applies to (the gem it stopped a process of).
    pub fn remove(&mut self, id: u64, may_change_code: bool, fired_once_in: Option<u64>) -> Result<bool, StoreError> {
        let Some(at) = self.list.iter().position(|b| b.id == id) else { return Ok(false) };
        let fired = fired_once_in.is_some_and(|session| {
            let b = &self.list[at];
            b.once && b.scope.includes_session(session)
        });
        if !may_change_code && !fired {
            return Err(StoreError::PermissionDenied("only a user who may change code removes breakpoints".into()));
        }
        self.list.remove(at);
        self.generation += 1;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use onyx_record::{Breakpoint, Hits, Scope};

    use super::BreakpointTable;
    use crate::error::StoreError;

    fn at_work() -> Breakpoint {
        Breakpoint {
            class: "Foo".into(),
            selector: "work".into(),
            source: "work\n\t^ 3 + 4".into(),
            offset: 7,
            enabled: true,
            ..Breakpoint::default()
        }
    }

    #[test]
    fn each_change_moves_the_generation_and_ids_are_the_stones() {
        let mut t = BreakpointTable::default();
        assert_eq!(t.since(0), None);
        let a = t.set(at_work(), "alice").expect("set");
        let b = t.set(at_work(), "bob").expect("set");
        assert_eq!((a.id, b.id, a.owner.as_str()), (1, 2, "alice"));
        let (generation, list) = t.since(0).expect("changed");
        assert_eq!((generation, list.len()), (2, 2));
        assert_eq!(t.since(generation), None);
        let changed = t.set(Breakpoint { id: 1, enabled: false, ..at_work() }, "alice").expect("changed");
        assert!(!changed.enabled);
        assert!(t.remove(2, true, None).expect("removed"));
        assert!(!t.remove(2, true, None).expect("answered"));
        assert_eq!(t.since(generation).map(|(g, l)| (g, l.len())), Some((4, 1)));
    }

    #[test]
    fn what_a_gem_sends_is_checked() {
        let mut t = BreakpointTable::default();
        let refused = [
            Breakpoint { offset: 400, ..at_work() },
            Breakpoint { class: String::new(), ..at_work() },
            Breakpoint { hits: Hits::Every(0), ..at_work() },
            Breakpoint { id: 9, ..at_work() },
        ];
        for b in refused {
            assert!(matches!(t.set(b.clone(), "alice"), Err(StoreError::Invalid(_))), "{b:?}");
        }
        assert_eq!(t.since(0), None, "nothing was set");
    }

    #[test]
    fn only_a_code_changer_removes_one_but_a_fired_once_goes_from_the_gem_it_stopped() {
        let mut t = BreakpointTable::default();
        let plain = t.set(at_work(), "alice").expect("set");
        let once = t.set(Breakpoint { once: true, scope: Scope::Session(5), ..at_work() }, "alice").expect("set");
        assert!(matches!(t.remove(plain.id, false, Some(5)), Err(StoreError::PermissionDenied(_))));
        assert!(matches!(t.remove(once.id, false, Some(6)), Err(StoreError::PermissionDenied(_))));
        assert!(t.remove(once.id, false, Some(5)).expect("the gem it stopped removes it"));
    }
}
