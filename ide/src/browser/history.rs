//! Where a browser has been: each selection (a package, a class, a side, a protocol, a method)
//! is a place, and Back and Forward (Alt+Left, Alt+Right) go through them as a web browser's
//! buttons do. Going to a place reads everything it shows in one batch.

/// What a browser showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub package: Option<String>,
    pub hierarchy_of: Option<String>,
    pub class: Option<String>,
    pub meta: bool,
    pub protocol: Option<String>,
    pub method: Option<String>,
}

/// The places before and after the one shown.
#[derive(Default)]
pub struct History {
    back: Vec<Place>,
    forward: Vec<Place>,
}

/// At most this many places are kept each way.
const KEPT: usize = 100;

impl History {
    /// The browser left `from` for another place: Back returns to it, and what was ahead is
    /// forgotten.
    pub fn left(&mut self, from: Place) {
        if self.back.last() != Some(&from) {
            self.back.push(from);
            let over = self.back.len().saturating_sub(KEPT);
            self.back.drain(..over);
        }
        self.forward.clear();
    }

    /// The place before `now` (which Forward returns to), if any.
    pub fn back(&mut self, now: Place) -> Option<Place> {
        let to = self.back.pop()?;
        self.forward.push(now);
        Some(to)
    }

    /// The place after `now` (which Back returns to), if any.
    pub fn forward(&mut self, now: Place) -> Option<Place> {
        let to = self.forward.pop()?;
        self.back.push(now);
        Some(to)
    }

    pub fn can_go_back(&self) -> bool {
        !self.back.is_empty()
    }

    pub fn can_go_forward(&self) -> bool {
        !self.forward.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(class: &str) -> Place {
        Place { class: Some(class.into()), ..Place::default() }
    }

    #[test]
    fn back_and_forward_go_through_the_places_left() {
        let mut h = History::default();
        h.left(at("A"));
        h.left(at("B"));
        assert_eq!(h.back(at("C")), Some(at("B")));
        assert_eq!(h.back(at("B")), Some(at("A")));
        assert_eq!(h.back(at("A")), None);
        assert_eq!(h.forward(at("A")), Some(at("B")));
        assert_eq!(h.forward(at("B")), Some(at("C")));
        assert_eq!(h.forward(at("C")), None);
        // Going somewhere new forgets what was ahead.
        h.back(at("C"));
        h.left(at("B"));
        assert!(!h.can_go_forward());
    }
}
