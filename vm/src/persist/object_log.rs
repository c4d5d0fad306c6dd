//! The object log as the VM reaches it: post-mortem reports written to the stone's log and
//! read back, and the persistent objects a report refers to (by OOP), brought in again.

use onyx_record::{LogEntry, Oop, StoneError};

use super::detached;
use crate::value::Value;
use crate::vm::Vm;

impl Vm {
    /// The OOP of a persistent object (`None` for one that is not committed).
    pub fn oop_of(&self, v: Value) -> Option<Oop> {
        self.persist.as_ref().and_then(|p| p.oop_of.get(&v).copied())
    }

    /// The object with `oop` as this session's view has it, brought in; `None` if the view
    /// holds no such object (or it cannot be read).
    pub fn object_with_oop(&mut self, oop: Oop) -> Option<Value> {
        let mut p = self.persist.take()?;
        let known = p.local_of.get(&oop).copied();
        let found = match known {
            Some(v) => Some(v),
            // Only an object the view holds gets a stub.
            None => match p.link.fetch(&[oop], &[], 0) {
                Ok(records) if records.iter().any(|r| r.oop == oop) => {
                    use super::codec::Resolving as _;
                    Some(p.local_for(self, oop))
                }
                _ => None,
            },
        };
        self.persist = Some(p);
        let v = found?;
        self.fault_in(v).then_some(v)
    }

    /// Writes a post-mortem report to the stone's object log; answers its id.
    pub fn log_failure(&mut self, entry: &LogEntry) -> Result<u64, StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.log_failure(entry)
    }

    /// `count` entries of the object log from the `from`th newest, and how many it holds.
    pub fn object_log(&mut self, from: u64, count: u32) -> Result<(Vec<LogEntry>, u64), StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.object_log(from, count)
    }

    /// Entry `id` of the object log, if the stone holds it still.
    pub fn object_log_entry(&mut self, id: u64) -> Result<Option<LogEntry>, StoneError> {
        self.persist.as_mut().ok_or_else(detached)?.link.object_log_entry(id)
    }
}
