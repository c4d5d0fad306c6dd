//! Breakpoints as the stone keeps them for every gem: they belong to the stone, not to a
//! transaction, and each gem applies them to its own VM.
//!
//! A breakpoint names its method by class name and selector and its step point by a byte
//! offset into the method's source as it was when the breakpoint was set (the source comes
//! with it): a gem holding another version of the method finds the same place in its own
//! source, as a gem does when the method is recompiled under a breakpoint.

/// Which hits of a breakpoint (those whose condition held) stop or log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Hits {
    /// Every one.
    #[default]
    All,
    /// Only the Nth.
    Nth(u64),
    /// The Nth, 2Nth, 3Nth ...
    Every(u64),
    /// The Nth and every one after it.
    From(u64),
}

impl Hits {
    /// Whether hit number `n` (from 1) is taken.
    pub fn takes(self, n: u64) -> bool {
        match self {
            Hits::All => true,
            Hits::Nth(k) => n == k,
            Hits::Every(k) => k != 0 && n.is_multiple_of(k),
            Hits::From(k) => n >= k,
        }
    }
}

/// Which processes a breakpoint stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// Every process of every gem of the stone.
    #[default]
    Everywhere,
    /// Every process of one gem (by its session).
    Session(u64),
    /// One process (by its serial) of one gem.
    Process {
        /// The gem's session.
        session: u64,
        /// The process's serial in that gem.
        process: u64,
    },
}

impl Scope {
    /// As the protocols carry it: the session (0: every gem) and the process (0: every one).
    pub fn parts(self) -> (u64, u64) {
        match self {
            Scope::Everywhere => (0, 0),
            Scope::Session(s) => (s, 0),
            Scope::Process { session, process } => (session, process),
        }
    }

    /// The scope of [`Scope::parts`]; `None` for a process without its gem's session.
    pub fn from_parts(session: u64, process: u64) -> Option<Scope> {
        match (session, process) {
            (0, 0) => Some(Scope::Everywhere),
            (0, _) => None,
            (session, 0) => Some(Scope::Session(session)),
            (session, process) => Some(Scope::Process { session, process }),
        }
    }

    /// Whether a gem of session `session` applies it.
    pub fn includes_session(self, session: u64) -> bool {
        match self {
            Scope::Everywhere => true,
            Scope::Session(s) | Scope::Process { session: s, .. } => s == session,
        }
    }
}

/// The longest source, condition or log expression a breakpoint may carry.
pub const MAX_BREAKPOINT_TEXT: usize = 1 << 20;

/// One breakpoint of the stone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakpoint {
    /// Its number (given by the stone; 0 asks for a new one).
    pub id: u64,
    /// The class the method is in: `Foo`, or `Foo class` for a class-side method.
    pub class: String,
    /// The method's selector.
    pub selector: String,
    /// The method's source as it was when the breakpoint was placed.
    pub source: String,
    /// Where the step point starts in `source` (a byte offset).
    pub offset: u32,
    /// An expression evaluated in the frame; the hit is taken only if it answers true
    /// (empty: none).
    pub condition: String,
    /// An expression whose displayString goes to the transcript instead of stopping (empty:
    /// none).
    pub log: String,
    /// Which hits are taken.
    pub hits: Hits,
    /// Removed once it stopped a process.
    pub once: bool,
    /// Whether it is in force.
    pub enabled: bool,
    /// Which processes it stops.
    pub scope: Scope,
    /// The user who set it (filled in by the stone).
    pub owner: String,
}

impl Breakpoint {
    /// Whether it applies in a gem whose session is `user`'s. A condition or log expression
    /// runs in the gem, with the rights of the gem's session: so a breakpoint with one applies
    /// only in the gems of the user who set it, and a plain one in every gem its scope names.
    pub fn applies_in_gem_of(&self, user: &str) -> bool {
        (self.condition.is_empty() && self.log.is_empty()) || self.owner == user
    }

    /// Checks what a stone takes from a gem: names present, texts bounded, the offset inside
    /// the source.
    pub fn check(&self) -> Result<(), String> {
        if self.class.is_empty() || self.selector.is_empty() {
            return Err("a breakpoint names a class and a selector".into());
        }
        let long = [&self.class, &self.selector, &self.source, &self.condition, &self.log]
            .iter()
            .any(|t| t.len() > MAX_BREAKPOINT_TEXT);
        if long {
            return Err(format!("a breakpoint's texts are at most {MAX_BREAKPOINT_TEXT} bytes each"));
        }
        if self.offset as usize >= self.source.len() || !self.source.is_char_boundary(self.offset as usize) {
            return Err(format!("offset {} is not inside the method's source", self.offset));
        }
        match self.hits {
            Hits::Nth(0) | Hits::Every(0) | Hits::From(0) => Err("hit counts start at 1".into()),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Scope;

    #[test]
    fn a_scope_goes_to_its_parts_and_back() {
        for scope in [Scope::Everywhere, Scope::Session(4), Scope::Process { session: 4, process: 9 }] {
            let (session, process) = scope.parts();
            assert_eq!(Scope::from_parts(session, process), Some(scope));
        }
        assert_eq!(Scope::from_parts(0, 9), None, "a process is named with its gem");
    }
}
