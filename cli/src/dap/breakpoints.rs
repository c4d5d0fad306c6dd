//! Breakpoints set from the editor: on lines of Tonel files (`Foo.class.st`, a method per
//! `Foo >> selector [` ... `]`, the header being the method's line 1), on lines of a method
//! shown from a frame, and on methods by name (`Foo>>bar`, function breakpoints). Each is a
//! breakpoint of the stone, for every gem; an editor's list for a source replaces the one it
//! sent before, in one batch.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use dap::events::{BreakpointEventBody, Event};
use dap::types::{Breakpoint, BreakpointEventReason, Source};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

/// A method of a Tonel file: its class (`Foo` or `Foo class`), selector, and the lines of its
/// header and closing bracket.
#[derive(Clone, Debug, PartialEq)]
pub struct FileMethod {
    pub method: pb::MethodRef,
    pub header: u32,
    pub end: u32,
}

/// The methods of a Tonel file's text, in order.
pub fn tonel_methods(text: &str) -> Vec<FileMethod> {
    let mut methods: Vec<FileMethod> = Vec::new();
    let mut open: Option<FileMethod> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        match open.take() {
            None => open = header(line).map(|method| FileMethod { method, header: n, end: n }),
            Some(done) if line.starts_with(']') => methods.push(FileMethod { end: n, ..done }),
            Some(still) => open = Some(still),
        }
    }
    methods
}

/// `Foo >> bar: x baz: y [` (or `Foo class >> ...`): the method it opens.
fn header(line: &str) -> Option<pb::MethodRef> {
    let rest = line.trim_end().strip_suffix('[')?;
    let (class, pattern) = rest.split_once(">>")?;
    let class = class.trim();
    let (name, meta) = match class.strip_suffix(" class") {
        Some(name) => (name.trim(), true),
        None => (class, false),
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let selector = selector_of(pattern.trim())?;
    Some(pb::MethodRef { class: Some(pb::ClassRef { class_name: name.to_string(), meta }), selector })
}

/// The selector of a message pattern: `at: i put: v` is `at:put:`, `+ other` is `+`.
fn selector_of(pattern: &str) -> Option<String> {
    let words: Vec<&str> = pattern.split_whitespace().collect();
    let first = words.first()?;
    if first.ends_with(':') { Some(words.iter().step_by(2).copied().collect()) } else { Some(first.to_string()) }
}

/// `Foo>>bar`, `Foo class>>bar` or `[] in Foo>>bar` (a frame's label, or a function
/// breakpoint's name): the method.
pub fn method_named(name: &str) -> Option<pb::MethodRef> {
    let name = name.trim().trim_start_matches("[] in ").trim();
    let (class, selector) = name.split_once(">>")?;
    let class = class.trim();
    let (class, meta) = match class.strip_suffix(" class") {
        Some(instance) => (instance.trim(), true),
        None => (class, false),
    };
    let selector = selector.trim();
    if class.is_empty() || selector.is_empty() || class.contains(char::is_whitespace) {
        return None;
    }
    Some(pb::MethodRef {
        class: Some(pb::ClassRef { class_name: class.to_string(), meta }),
        selector: selector.to_string(),
    })
}

/// What a breakpoint does when its statement is reached, from the editor's condition, hit
/// condition and log message.
#[derive(Clone, Default)]
pub struct How {
    pub condition: String,
    /// A Smalltalk expression whose displayString is the log line (empty: it stops).
    pub log: String,
    pub hits: pb::BreakpointHits,
    pub hits_n: u64,
}

impl How {
    /// Reads the editor's fields: why not when the hit condition cannot be read.
    pub fn read(
        condition: Option<String>,
        hit_condition: Option<String>,
        log_message: Option<String>,
    ) -> Result<How, String> {
        let (hits, hits_n) = hit_rule(hit_condition.as_deref().unwrap_or_default())?;
        let log = log_message.as_deref().map(log_expression).unwrap_or_default();
        Ok(How { condition: condition.unwrap_or_default(), log, hits, hits_n })
    }
}

/// A hit condition as editors write them: `5` or `==5` (the 5th hit), `%5` (every 5th),
/// `>=5` (the 5th and every one after), `>4` (the same); empty, every hit.
pub fn hit_rule(text: &str) -> Result<(pb::BreakpointHits, u64), String> {
    use pb::BreakpointHits::{HitsAll, HitsEvery, HitsFrom, HitsNth};
    let text = text.trim();
    if text.is_empty() {
        return Ok((HitsAll, 0));
    }
    let (rule, number, after) = if let Some(n) = text.strip_prefix(">=") {
        (HitsFrom, n, 0)
    } else if let Some(n) = text.strip_prefix('>') {
        (HitsFrom, n, 1)
    } else if let Some(n) = text.strip_prefix('%') {
        (HitsEvery, n, 0)
    } else {
        (HitsNth, text.trim_start_matches('='), 0)
    };
    match number.trim().parse::<u64>() {
        Ok(n) if n + after > 0 => Ok((rule, n + after)),
        _ => Err(format!("hit condition {text:?}: write N or ==N (the Nth hit), %N (every Nth), >=N or >N")),
    }
}

/// A log message with `{expression}`s in it, as editors write them: the Smalltalk expression
/// whose displayString is the message (`'x is ' , (x) displayString`).
pub fn log_expression(message: &str) -> String {
    let literal = |text: &str| format!("'{}'", text.replace('\'', "''"));
    let mut parts = Vec::new();
    let mut rest = message;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else { break };
        if open > 0 {
            parts.push(literal(&rest[..open]));
        }
        let expression = rest[open + 1..close].trim();
        if !expression.is_empty() {
            parts.push(format!("({expression}) displayString"));
        }
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() || parts.is_empty() {
        parts.push(literal(rest));
    }
    parts.join(" , ")
}

/// One breakpoint asked for: in a method, at its line (from 1, the selector's line), with
/// where the editor shows that line.
pub struct Wanted {
    pub method: Option<pb::MethodRef>,
    pub line: u32,
    /// What the editor's line is to the method's (its header's line less one).
    pub shift: u32,
    pub how: How,
    /// Why it cannot be set, when it cannot.
    pub refused: String,
}

impl Wanted {
    /// A breakpoint at `line` of `method` (shown `shift` lines on), refused with the first
    /// reason there is.
    pub fn new(method: Result<pb::MethodRef, String>, line: u32, shift: u32, how: Result<How, String>) -> Wanted {
        let refused = [method.as_ref().err(), how.as_ref().err()].into_iter().flatten().next().cloned();
        Wanted { method: method.ok(), line, shift, how: how.unwrap_or_default(), refused: refused.unwrap_or_default() }
    }
}

/// The breakpoints this adapter set, by the source the editor set them in.
#[derive(Default)]
pub struct Placed {
    by_source: HashMap<String, Vec<u64>>,
    /// What the editor was told of each, to tell it when one moves or goes.
    pub told: Told,
    /// The Tonel files' methods seen, to show their frames in their files.
    in_files: HashMap<(String, bool, String), (String, u32)>,
}

impl Placed {
    /// Notes the methods of the Tonel file at `path`.
    pub fn learn_file(&mut self, path: &str, methods: &[FileMethod]) {
        for m in methods {
            let class = m.method.class.clone().unwrap_or_default();
            self.in_files
                .insert((class.class_name, class.meta, m.method.selector.clone()), (path.to_string(), m.header));
        }
    }

    /// The Tonel file holding `method`, and its header's line, if one was seen.
    pub fn file_of(&self, method: &pb::MethodRef) -> Option<(String, u32)> {
        let class = method.class.as_ref()?;
        self.in_files.get(&(class.class_name.clone(), class.meta, method.selector.clone())).cloned()
    }

    /// The batch that replaces the breakpoints of `source` with `wanted` (those refused are
    /// left out of it).
    pub fn replace(&mut self, source: &str, wanted: &[Wanted]) -> Vec<Op> {
        let old = self.by_source.remove(source).unwrap_or_default();
        if let Ok(mut told) = self.told.lock() {
            for id in &old {
                told.remove(id);
            }
        }
        let mut ops: Vec<Op> = old.into_iter().map(|id| Op::RemoveBreakpoint(pb::BreakpointRef { id })).collect();
        for w in wanted.iter().filter(|w| w.refused.is_empty()) {
            ops.push(Op::SetBreakpoint(pb::SetBreakpoint {
                method: w.method.clone(),
                at: Some(pb::set_breakpoint::At::Line(w.line)),
                condition: w.how.condition.clone(),
                log: w.how.log.clone(),
                hits: w.how.hits as i32,
                hits_n: w.how.hits_n,
                enabled: true,
                scope: pb::BreakpointScope::EveryGem as i32,
                ..Default::default()
            }));
        }
        ops
    }

    /// Reads the batch's answers (after `removed` removals): the editor's breakpoints, and
    /// notes the ones set as `source`'s.
    pub fn answered(
        &mut self,
        source: &str,
        wanted: &[Wanted],
        removed: usize,
        outcomes: Vec<Outcome>,
        shown: &Source,
    ) -> Vec<Breakpoint> {
        let mut answers = outcomes.into_iter().skip(removed);
        let mut ids = Vec::new();
        let breakpoints = wanted
            .iter()
            .map(|w| {
                let mut b = Breakpoint {
                    verified: false,
                    source: Some(shown.clone()),
                    line: Some(i64::from(w.line + w.shift)),
                    ..Default::default()
                };
                if !w.refused.is_empty() {
                    b.message = Some(w.refused.clone());
                    return b;
                }
                match answers.next() {
                    Some(Outcome::Breakpoints(list)) if !list.breakpoints.is_empty() => {
                        let info = &list.breakpoints[0];
                        ids.push(info.id);
                        b.id = Some(info.id as i64);
                        b.verified = info.line != 0;
                        if info.line != 0 {
                            b.line = Some(i64::from(info.line + w.shift));
                        }
                    }
                    Some(Outcome::Error(e)) => b.message = Some(e.message),
                    other => b.message = Some(format!("the gem answered out of turn: {other:?}")),
                }
                b
            })
            .collect::<Vec<_>>();
        if let Ok(mut told) = self.told.lock() {
            for (b, w) in breakpoints.iter().zip(wanted) {
                if let Some(id) = b.id {
                    told.insert(id as u64, (b.clone(), w.shift));
                }
            }
        }
        self.by_source.insert(source.to_string(), ids);
        breakpoints
    }
}

/// The breakpoints the editor was told of, by id, with the shift of their lines; shared
/// with the listener, which tells of their changes.
pub type Told = Arc<Mutex<HashMap<u64, (Breakpoint, u32)>>>;

/// What changed in the editor's breakpoints, now that the stone's are `now`: a `breakpoint`
/// event for each moved, orphaned (unverified, with why) or removed by someone else.
pub fn changes(told: &Told, now: &[pb::BreakpointInfo]) -> Vec<Event> {
    let Ok(mut told) = told.lock() else { return Vec::new() };
    let mut events = Vec::new();
    told.retain(|id, (shown, shift)| {
        let Some(info) = now.iter().find(|b| b.id == *id) else {
            let breakpoint = Breakpoint { verified: false, ..shown.clone() };
            events.push(Event::Breakpoint(BreakpointEventBody { reason: BreakpointEventReason::Removed, breakpoint }));
            return false;
        };
        let mut seen = shown.clone();
        seen.verified = info.line != 0 && !info.orphaned;
        if seen.verified {
            seen.line = Some(i64::from(info.line + *shift));
            seen.message = None;
        } else if info.orphaned {
            seen.message = Some("its statement went when the method changed: it is kept, disabled".into());
        }
        if seen.verified != shown.verified || seen.line != shown.line {
            *shown = seen.clone();
            events.push(Event::Breakpoint(BreakpointEventBody {
                reason: BreakpointEventReason::Changed,
                breakpoint: seen,
            }));
        }
        true
    });
    events
}
