//! The object log, as the agent offers it: when a process of the gem fails where no tool
//! looks (a forked process), its report goes to the stone's object log ([`report`]): the
//! error, and the top frames with their step points and variables (printStrings, and the
//! OOPs of persistent objects). Any gem's tools list the log ([`list`]) and open an entry
//! ([`open`]), with a handle on each persistent object the session's view still holds.

use onyx_record::log::{MAX_LOG_BYTES, MAX_LOG_FRAMES, MAX_LOG_VARIABLES, log_text};
use onyx_record::{LogEntry, LogFrame, LogVariable};
use onyx_vm::{Reason, Vm};

use super::inspect::{LoginHandles, field_print};
use super::request::{Answer, ErrorKind, Failure, Field, Outcome, Page, Paged};
use super::stone_failure;

/// Entries a page of the log holds unless asked otherwise.
const LOG_PAGE: u32 = 20;

/// An entry of the object log as a tool sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoggedFailure {
    /// Its id in the log.
    pub id: u64,
    /// When the stone took it (microseconds since the Unix epoch).
    pub time_micros: u64,
    /// The gem that wrote it.
    pub gem: String,
    /// The user of that gem's session.
    pub user: String,
    /// What stopped the process.
    pub error: String,
    /// The process's number in its gem.
    pub process: u64,
    /// How many frames it holds.
    pub depth: u32,
    /// Its frames (in an opened entry; none in a list).
    pub frames: Vec<LoggedFrame>,
}

/// A frame of an entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoggedFrame {
    /// Its label.
    pub label: String,
    /// The line and column of its step point.
    pub line: u32,
    /// See `line`.
    pub column: u32,
    /// The source of its step point.
    pub step: String,
    /// `self`, its arguments and temporaries: a handle on each persistent one still there.
    pub variables: Vec<Field>,
}

/// Writes the report of kept process `serial` to the stone's object log; answers why it
/// could not be written, if it could not (the process stays kept either way).
pub fn report(vm: &mut Vm, serial: u64) -> Result<(), String> {
    let Ok(process) = vm.suspended(serial) else { return Ok(()) };
    let error = match vm.stop_reason(process) {
        Some(Reason::Error { class_name, description }) => format!("{class_name}: {description}"),
        Some(Reason::Halt(d)) => format!("Halt: {d}"),
        Some(Reason::Breakpoint(d)) => format!("Breakpoint: {d}"),
        Some(other) => format!("{other:?}"),
        None => "suspended".into(),
    };
    let frames = vm.stack_page(process, 0, MAX_LOG_FRAMES, true).map(|p| p.frames).unwrap_or_default();
    let frames = frames
        .into_iter()
        .map(|f| {
            let step = f.span.and_then(|s| f.source.get(s.start as usize..s.end as usize)).unwrap_or_default();
            let variables = std::iter::once(("self".to_string(), f.receiver))
                .chain(f.variables)
                .take(MAX_LOG_VARIABLES)
                .map(|(name, v)| LogVariable {
                    name: log_text(&name),
                    print_string: log_text(&field_print(vm, v)),
                    oop: vm.oop_of(v).unwrap_or(0),
                })
                .collect();
            LogFrame {
                label: log_text(&f.label),
                line: u32::try_from(f.line).unwrap_or(0),
                column: u32::try_from(f.column).unwrap_or(0),
                step: log_text(step),
                variables,
            }
        })
        .collect();
    let mut entry = LogEntry { error: log_text(&error), process: serial, frames, ..LogEntry::default() };
    // The stone stamps gem and user into it: room for them, and the frames that fit.
    while entry.encode().len() > MAX_LOG_BYTES - 4 * onyx_record::log::MAX_LOG_TEXT && !entry.frames.is_empty() {
        entry.frames.pop();
    }
    vm.log_failure(&entry).map(drop).map_err(|e| e.to_string())
}

/// A page of the object log, the newest entry first, without frames.
pub fn list(vm: &mut Vm, page: Option<Page>) -> Outcome {
    let page = page.unwrap_or(Page { from: 0, size: LOG_PAGE });
    let size = if page.size == 0 { LOG_PAGE } else { page.size };
    let (entries, total) = vm.object_log(page.from, size).map_err(stone_failure)?;
    let next = page.from + entries.len() as u64;
    let entries = entries.into_iter().map(|e| summary(&e)).collect();
    Ok(Answer::ObjectLog { entries, paged: Paged { total, next: if next < total { next } else { 0 } } })
}

/// Entry `id` of the object log, whole.
pub fn open(vm: &mut Vm, handles: &mut LoginHandles, id: u64) -> Outcome {
    let entry = vm
        .object_log_entry(id)
        .map_err(stone_failure)?
        .ok_or_else(|| Failure::new(ErrorKind::NotFound, format!("the object log holds no entry {id}")))?;
    let mut logged = summary(&entry);
    logged.frames = entry
        .frames
        .into_iter()
        .map(|f| {
            let variables = f
                .variables
                .into_iter()
                .map(|v| {
                    let object = if v.oop == 0 { None } else { vm.object_with_oop(v.oop) };
                    let handle = object.map_or(0, |o| handles.handle(vm, o));
                    Field { name: v.name, print_string: v.print_string, handle }
                })
                .collect();
            LoggedFrame { label: f.label, line: f.line, column: f.column, step: f.step, variables }
        })
        .collect();
    Ok(Answer::ObjectLogEntry(Box::new(logged)))
}

fn summary(e: &LogEntry) -> LoggedFailure {
    LoggedFailure {
        id: e.id,
        time_micros: e.time_micros,
        gem: e.gem.clone(),
        user: e.user.clone(),
        error: e.error.clone(),
        process: e.process,
        depth: u32::try_from(e.frames.len()).unwrap_or(u32::MAX),
        frames: Vec::new(),
    }
}
