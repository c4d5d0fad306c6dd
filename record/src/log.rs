//! The object log: post-mortem reports of processes that failed where no tool looked (a
//! forked process), as GemStone keeps them. A gem sends one
//! ([`LogEntry`]) to its stone, which stamps it with its own clock, the session, the gem and
//! the user, and keeps it outside every transaction: writing one commits nothing of the gem's
//! work, and any gem of the stone reads it later, after the gem that wrote it is gone.
//!
//! An entry is bounded ([`LogEntry::check`]: frames, variables, texts, and at most
//! [`MAX_LOG_BYTES`] in all), and it has an encoding the stone stores and reads back whole or
//! not at all.

use crate::fields::{Reader, put_count, put_text};
use crate::record::Oop;

/// Frames an entry holds at most (the top ones).
pub const MAX_LOG_FRAMES: usize = 40;
/// Variables a frame holds at most (`self` first).
pub const MAX_LOG_VARIABLES: usize = 32;
/// Bytes of any one text of an entry at most (a printString, a label).
pub const MAX_LOG_TEXT: usize = 400;
/// Bytes of an entry, encoded, at most.
pub const MAX_LOG_BYTES: usize = 64 * 1024;

/// One post-mortem report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogEntry {
    /// Its number in the stone's log (the stone gives it).
    pub id: u64,
    /// When the stone took it: microseconds since the Unix epoch, by the stone's clock.
    pub time_micros: u64,
    /// The session of the gem that wrote it.
    pub session: u64,
    /// The gem: its host, process id and agent, as it describes itself.
    pub gem: String,
    /// The session's user.
    pub user: String,
    /// What stopped the process: the error's class and description, or a halt.
    pub error: String,
    /// The process's number in its gem.
    pub process: u64,
    /// The frames, the top one first.
    pub frames: Vec<LogFrame>,
}

/// A frame of a report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogFrame {
    /// `Class(MethodClass)>>selector`, with `[] in` for a block.
    pub label: String,
    /// The 1-based line and column of its step point.
    pub line: u32,
    /// See `line`.
    pub column: u32,
    /// The source of its step point (the send it was in).
    pub step: String,
    /// `self`, then its arguments and temporaries.
    pub variables: Vec<LogVariable>,
}

/// A variable of a frame: its printString, and the object if it is persistent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogVariable {
    /// Its name.
    pub name: String,
    /// Its printString, cut to [`MAX_LOG_TEXT`] bytes.
    pub print_string: String,
    /// The object's OOP if it was committed (0: none), to inspect it later.
    pub oop: Oop,
}

/// `text` cut to at most [`MAX_LOG_TEXT`] bytes, at a character boundary.
pub fn log_text(text: &str) -> String {
    let mut end = text.len().min(MAX_LOG_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

impl LogEntry {
    /// Whether the entry keeps within the log's bounds (what a stone checks of every entry a
    /// gem sends).
    pub fn check(&self) -> Result<(), String> {
        let texts = [&self.gem, &self.user, &self.error].into_iter().chain(self.frames.iter().flat_map(|f| {
            [&f.label, &f.step].into_iter().chain(f.variables.iter().flat_map(|v| [&v.name, &v.print_string]))
        }));
        if self.frames.len() > MAX_LOG_FRAMES {
            return Err(format!("a report holds at most {MAX_LOG_FRAMES} frames, not {}", self.frames.len()));
        }
        if let Some(f) = self.frames.iter().find(|f| f.variables.len() > MAX_LOG_VARIABLES) {
            return Err(format!("a frame of a report holds at most {MAX_LOG_VARIABLES} variables: {}", f.label));
        }
        if let Some(t) = texts.into_iter().find(|t| t.len() > MAX_LOG_TEXT) {
            return Err(format!("a text of a report is at most {MAX_LOG_TEXT} bytes, not {}", t.len()));
        }
        match self.encode().len() {
            n if n > MAX_LOG_BYTES => Err(format!("a report is at most {MAX_LOG_BYTES} bytes, not {n}")),
            _ => Ok(()),
        }
    }

    /// The entry as stored.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for n in [self.id, self.time_micros, self.session, self.process] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for t in [&self.gem, &self.user, &self.error] {
            put_text(&mut out, t);
        }
        put_count(&mut out, self.frames.len());
        for f in &self.frames {
            put_text(&mut out, &f.label);
            out.extend_from_slice(&f.line.to_le_bytes());
            out.extend_from_slice(&f.column.to_le_bytes());
            put_text(&mut out, &f.step);
            put_count(&mut out, f.variables.len());
            for v in &f.variables {
                put_text(&mut out, &v.name);
                put_text(&mut out, &v.print_string);
                out.extend_from_slice(&v.oop.to_le_bytes());
            }
        }
        out
    }

    /// An entry as [`LogEntry::encode`] stored it; `None` for bytes that are no such entry
    /// (or one past the log's bounds).
    pub fn decode(data: &[u8]) -> Option<LogEntry> {
        let mut r = Reader(data);
        let (id, time_micros, session, process) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
        fn text(r: &mut Reader) -> Option<String> {
            r.text(MAX_LOG_TEXT)
        }
        let (gem, user, error) = (text(&mut r)?, text(&mut r)?, text(&mut r)?);
        let frames = (0..r.count(MAX_LOG_FRAMES)?)
            .map(|_| {
                let (label, line, column) = (text(&mut r)?, r.u32()?, r.u32()?);
                let step = text(&mut r)?;
                let variables = (0..r.count(MAX_LOG_VARIABLES)?)
                    .map(|_| Some(LogVariable { name: text(&mut r)?, print_string: text(&mut r)?, oop: r.u64()? }))
                    .collect::<Option<Vec<_>>>()?;
                Some(LogFrame { label, line, column, step, variables })
            })
            .collect::<Option<Vec<_>>>()?;
        let entry = LogEntry { id, time_micros, session, gem, user, error, process, frames };
        (r.is_done() && entry.check().is_ok()).then_some(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> LogEntry {
        LogEntry {
            id: 7,
            time_micros: 1_700_000_000_000_000,
            session: 3,
            gem: "host 42 127.0.0.1:9000".into(),
            user: "DataCurator".into(),
            error: "ZeroDivide: Division by zero".into(),
            process: 12,
            frames: vec![LogFrame {
                label: "SmallInteger>>/".into(),
                line: 5,
                column: 22,
                step: "self zeroDivide".into(),
                variables: vec![
                    LogVariable { name: "self".into(), print_string: "12".into(), oop: 0 },
                    LogVariable { name: "aNumber".into(), print_string: "an Account".into(), oop: 5000 },
                ],
            }],
        }
    }

    #[test]
    fn an_entry_reads_back_as_written_and_damage_is_no_entry() {
        let stored = entry().encode();
        assert_eq!(LogEntry::decode(&stored), Some(entry()));
        for cut in 0..stored.len() {
            assert_eq!(LogEntry::decode(&stored[..cut]), None, "cut at {cut}");
        }
        let mut longer = stored.clone();
        longer.push(0);
        assert_eq!(LogEntry::decode(&longer), None);
    }

    #[test]
    fn an_entry_past_the_bounds_is_refused() {
        let mut big = entry();
        big.error = "x".repeat(MAX_LOG_TEXT + 1);
        assert!(big.check().is_err());
        assert_eq!(LogEntry::decode(&big.encode()), None);
        let mut deep = entry();
        deep.frames = vec![LogFrame::default(); MAX_LOG_FRAMES + 1];
        assert!(deep.check().is_err());
        assert_eq!(log_text(&"é".repeat(MAX_LOG_TEXT)).len(), MAX_LOG_TEXT);
        // Every part within its bounds, and the whole past its own.
        let variable = LogVariable { name: "v".into(), print_string: "p".repeat(MAX_LOG_TEXT), oop: 0 };
        let frame = LogFrame { variables: vec![variable; MAX_LOG_VARIABLES], ..LogFrame::default() };
        let wide = LogEntry { frames: vec![frame; MAX_LOG_FRAMES], ..entry() };
        assert!(wide.encode().len() > MAX_LOG_BYTES);
        assert!(wide.check().is_err());
        assert_eq!(LogEntry::decode(&wide.encode()), None);
    }
}
