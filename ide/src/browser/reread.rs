//! The browser reading again everything it shows (after a commit, an abort or a doit, or at
//! a restart): what the batch answered is taken for what is still chosen, code with edits is
//! left alone, and a class or method that is gone is said to be.

use onyx_protocol::agent::result::Outcome;

use super::{Browser, Chosen, Part};
use crate::link::Reply;
use crate::panes::outcomes;

impl Browser {
    /// Takes what a re-reading batch answered, for what is still chosen; code with edits is
    /// left as it is, and a class or method that is gone is said to be.
    pub(super) fn reread_arrived(&mut self, reply: Reply, parts: &[Part], then: &Chosen) {
        let Ok(outcomes) = outcomes(reply) else { return };
        let now = self.chosen();
        let same_list = now.package == then.package && now.hierarchy_of == then.hierarchy_of;
        let same_class = same_list && now.class == then.class;
        for (part, outcome) in parts.iter().zip(outcomes) {
            match (part, outcome) {
                (Part::Packages, Outcome::Names(n)) => self.packages = n.names,
                (Part::Classes, Outcome::Classes(c)) if same_list => self.set_classes(c.classes),
                (Part::Definition, Outcome::ClassDefinition(d)) if same_class => self.take_definition(d),
                (Part::Definition, Outcome::Error(e)) if same_class => {
                    self.message = e.message;
                    if !self.definition.is_dirty() && !self.source.is_dirty() && !self.comment.is_dirty() {
                        self.class = None;
                        self.clear_class();
                        return;
                    }
                }
                (Part::Protocols, Outcome::Names(n)) if same_class => self.protocols = n.names,
                (Part::Methods, Outcome::Names(n)) if same_class && now.protocol == then.protocol => {
                    self.methods = n.names;
                }
                (Part::Source, Outcome::MethodSource(m))
                    if same_class
                        && now.method == then.method
                        && !self.source.is_dirty()
                        && self.source.text != m.source =>
                {
                    self.source.load_method(&m.source, self.method_ref());
                }
                // The method is gone (removed in another session, or the abort undid it).
                (Part::Source, Outcome::Error(e))
                    if same_class && now.method == then.method && !self.source.is_dirty() =>
                {
                    self.message = e.message;
                    self.method = None;
                    self.source.load("");
                }
                (_, Outcome::Error(e)) => self.message = e.message,
                _ => {}
            }
        }
    }
}
