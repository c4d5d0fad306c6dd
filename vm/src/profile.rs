//! The session's user's `UserProfile`, GemStone's: their name and their *symbol list*, the
//! dictionaries the compiler looks a global up in (after class variables), first to last.
//! A new profile's list is the user's own `UserGlobals` (which holds itself under that name),
//! `Smalltalk` (the kernel's globals) and `Published` (what every user may keep and change).
//!
//! A doit looks its globals up through the list; a method in `Smalltalk` first, then through
//! the list (see `compiler::variables`).
//!
//! A VM with no repository has a profile of its own, made when it boots. A gem's is the
//! repository's object at the OOP the stone reserved for its user: the user's first session
//! makes it there and commits it at once (see `persist::profile`).

use crate::heap::Body;
use crate::value::Value;
use crate::vm::Vm;

/// `UserProfile`'s instance variables: the user's name (a Symbol) ...
const USER_ID: usize = onyx_record::kernel::PROFILE_USER;
/// ... and the symbol list (an Array of SymbolDictionaries).
const SYMBOL_LIST: usize = 1;
/// The user every VM without a repository runs as.
pub(crate) const BOOT_USER: &str = "SystemUser";

impl Vm {
    /// A new `UserProfile` for `user`, with a `UserGlobals` of its own; nil if the kernel
    /// defines no `UserProfile` of that shape.
    pub(crate) fn new_profile(&mut self, user: &str) -> Value {
        let Some(class) = self.global("UserProfile").filter(|&c| self.format_of(c).is_some_and(|(_, n)| n == 2)) else {
            return Value::NIL;
        };
        let globals = self.new_dict(self.known.symbol_dictionary);
        let name = self.intern("UserGlobals");
        let binding = self.new_association(name, globals);
        if let Some(d) = self.dict_mut(globals) {
            d.insert(name, binding);
        }
        let mut list = vec![globals, self.known.smalltalk];
        list.extend(self.global("Published").filter(|&p| self.dict(p).is_some()));
        let list = self.new_array(list);
        // A Symbol, which the stone checks names the session's user (`onyx_record::kernel`).
        let id = self.intern(user);
        let mut slots = vec![Value::NIL; 2];
        (slots[USER_ID], slots[SYMBOL_LIST]) = (id, list);
        self.heap.alloc(class, 2, Body::Slots(slots.into()))
    }

    /// A VM without a repository runs as [`BOOT_USER`]: its profile is made as soon as the
    /// kernel defines `UserProfile` (while the kernel loads, before methods are compiled, so
    /// that every method and doit looks globals up through it).
    pub(crate) fn make_boot_profile(&mut self) {
        if self.profile.is_nil() && !self.has_repository() {
            self.profile = self.new_profile(BOOT_USER);
        }
    }

    /// The dictionaries a global is looked up in, first to last: the profile's symbol list
    /// (its SymbolDictionaries, brought in if they are not in memory), or `Smalltalk` alone.
    pub(crate) fn symbol_list(&mut self) -> Vec<Value> {
        let profile = self.profile;
        self.fault_in(profile);
        let list = self.heap.slot(profile, SYMBOL_LIST).unwrap_or(Value::NIL);
        self.fault_in(list);
        let items = self.heap.get(list).and_then(|o| o.slots()).map(<[Value]>::to_vec).unwrap_or_default();
        self.fault_in_all(&items);
        let dicts: Vec<Value> = items.into_iter().filter(|&d| self.dict(d).is_some()).collect();
        if dicts.is_empty() { vec![self.known.smalltalk] } else { dicts }
    }
}
