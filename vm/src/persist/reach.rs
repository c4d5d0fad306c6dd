//! What a commit makes persistent: every new object that a changed persistent object reaches
//! (and the symbols they name that the stone does not know yet), and the security policy each
//! new object is to belong to. A new object belongs to the policy it was put in
//! (`objectSecurityPolicy:`), or else to the policy of the object that refers to it (the
//! first found, breadth first from the changed objects): what is kept in a user's
//! `UserGlobals` is theirs, what is kept in `Published` is everyone's, and the parts of a
//! collection (an OrderedCollection's array, a Dictionary's associations) are where the
//! collection is. Classes are reached through their instances only after everything reached
//! through slots, so that a new class takes the policy of the dictionary that names it.

use std::collections::{HashMap, HashSet, VecDeque};

use super::{Persistence, codec};
use crate::value::Value;
use crate::vm::Vm;

/// The new objects a commit writes, the new symbols they name, and the policy each new object
/// inherits.
pub(super) type Reached = (Vec<Value>, Vec<Value>, HashMap<Value, u32>);

impl Vm {
    /// The new objects `dirty` (changed persistent objects) reach, the symbols the stone does
    /// not know yet that they name, and the policy each new object inherits.
    pub(super) fn new_objects(&self, p: &Persistence, dirty: &[Value]) -> Reached {
        let mut new: Vec<Value> = Vec::new();
        let mut symbols: Vec<Value> = Vec::new();
        let mut inherited: HashMap<Value, u32> = HashMap::new();
        let mut seen: HashSet<Value> = HashSet::new();
        let mut queue: VecDeque<Value> = dirty.iter().copied().collect();
        let mut classes: Vec<Value> = Vec::new();
        let default = p.link.user().default_policy;
        loop {
            while let Some(v) = queue.pop_front() {
                let policy = match p.oop_of.get(&v) {
                    Some(&oop) => p.policy_for(v, oop),
                    None => p.assigned.get(&v).or(inherited.get(&v)).copied().unwrap_or(default),
                };
                let class = self.heap.class_of_object(v).unwrap_or(Value::NIL);
                if class.is_object() && !p.oop_of.contains_key(&class) && !seen.contains(&class) {
                    classes.push(class);
                }
                for r in codec::references(self, v) {
                    if !r.is_object() {
                        continue;
                    }
                    let symbol = self.is_symbol(r);
                    if !symbol && !p.oop_of.contains_key(&r) {
                        inherited.entry(r).or_insert(policy);
                    }
                    if !seen.insert(r) {
                        continue;
                    }
                    if symbol {
                        if !p.symbol_id.contains_key(&r) {
                            symbols.push(r);
                        }
                    } else if !p.oop_of.contains_key(&r) {
                        new.push(r);
                        queue.push_back(r);
                    }
                }
            }
            let pending: Vec<Value> = classes.drain(..).filter(|&c| seen.insert(c)).collect();
            if pending.is_empty() {
                break;
            }
            for c in pending {
                if self.is_symbol(c) {
                    continue;
                }
                new.push(c);
                queue.push_back(c);
            }
        }
        (new, symbols, inherited)
    }
}
