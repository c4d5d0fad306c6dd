//! What the editor shows of a stopped process: its stack (a page at a time, each frame in its
//! Tonel file when the adapter has seen it, else in the method's source by reference), the
//! frame's variables and the objects inside them (a page of indexed fields at a time), an
//! evaluation in a frame, and the steps: continue, next, step in, step out, restart frame,
//! pause and terminate. Frame, variable and source ids hold while the process stays stopped.

use dap::events::{Event, StoppedEventBody, ThreadEventBody};
use dap::prelude::{Command, ResponseBody};
use dap::responses::{
    ContinueResponse, EvaluateResponse, ScopesResponse, SourceResponse, StackTraceResponse, VariablesResponse,
};
use dap::types::{Scope, Source, StackFrame, ThreadEventReason, Variable, VariablesArgumentsFilter};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use super::threads::{self, Process};
use super::{Adapter, Handled, breakpoints, process_of, unknown};

/// Frames a stack trace answers when the editor names no number.
const FRAMES: u32 = 20;
/// Indexed fields a variables request answers when the editor names no number.
const FIELDS: u32 = 100;

/// A frame the editor was given.
#[derive(Clone)]
struct FrameId {
    thread: i64,
    process: Process,
    frame: u32,
    method: Option<pb::MethodRef>,
}

/// What a variables reference shows.
#[derive(Clone)]
enum Shown {
    Frame(FrameId),
    Object { agent: String, handle: u64 },
}

/// The ids given to the editor: frames, variables references and sources (each from 1).
#[derive(Default)]
pub struct Tables {
    frames: Vec<FrameId>,
    shown: Vec<Shown>,
    sources: Vec<FrameId>,
}

impl Tables {
    /// The method a source reference shows (none for a doit's).
    pub fn method_of_source(&self, reference: i32) -> Option<pb::MethodRef> {
        self.sources.get(usize::try_from(reference - 1).ok()?)?.method.clone()
    }

    fn frame(&self, id: i64) -> Result<FrameId, String> {
        usize::try_from(id - 1).ok().and_then(|i| self.frames.get(i)).cloned().ok_or_else(|| unknown("frame", id))
    }

    fn shown(&self, id: i64) -> Result<Shown, String> {
        usize::try_from(id - 1).ok().and_then(|i| self.shown.get(i)).cloned().ok_or_else(|| unknown("reference", id))
    }

    fn show(&mut self, shown: Shown) -> i64 {
        self.shown.push(shown);
        self.shown.len() as i64
    }
}

/// The object behind `field`, to open (0 when it has nothing inside).
fn reference(tables: &mut Tables, agent: &str, handle: u64) -> i64 {
    if handle == 0 { 0 } else { tables.show(Shown::Object { agent: agent.to_string(), handle }) }
}

fn variable(tables: &mut Tables, agent: &str, f: pb::Field) -> Variable {
    let variables_reference = reference(tables, agent, f.handle);
    Variable { name: f.name, value: f.print_string, variables_reference, ..Default::default() }
}

impl Adapter {
    /// Answers a request about a stopped process.
    pub(super) async fn debug(&mut self, command: Command) -> Handled {
        match command {
            Command::StackTrace(a) => (self.stack(a.thread_id, a.start_frame, a.levels).await, Vec::new()),
            Command::Scopes(a) => (
                self.tables.frame(a.frame_id).map(|f| {
                    let variables_reference = self.tables.show(Shown::Frame(f));
                    let scope = Scope { name: "Locals".into(), variables_reference, ..Default::default() };
                    ResponseBody::Scopes(ScopesResponse { scopes: vec![scope] })
                }),
                Vec::new(),
            ),
            Command::Variables(a) => {
                (self.variables(a.variables_reference, a.filter, a.start, a.count).await, Vec::new())
            }
            Command::Source(a) => (self.source(a.source_reference).await, Vec::new()),
            Command::Evaluate(a) => (self.evaluate(&a.expression, a.frame_id).await, Vec::new()),
            Command::Continue(a) => {
                let body = ResponseBody::Continue(ContinueResponse { all_threads_continued: Some(false) });
                self.go(a.thread_id, |process| Op::Proceed(pb::ProcessRef { process }), body).await
            }
            Command::Next(a) => self.step(a.thread_id, pb::StepKind::StepOver, ResponseBody::Next).await,
            Command::StepIn(a) => self.step(a.thread_id, pb::StepKind::StepInto, ResponseBody::StepIn).await,
            Command::StepOut(a) => self.step(a.thread_id, pb::StepKind::StepOut, ResponseBody::StepOut).await,
            Command::Pause(a) => {
                self.go(a.thread_id, |process| Op::Pause(pb::ProcessRef { process }), ResponseBody::Pause).await
            }
            Command::RestartFrame(a) => match self.tables.frame(a.frame_id) {
                Ok(f) => {
                    let op = Op::Restart(pb::FrameRef { process: f.process.process, frame: f.frame });
                    self.go(f.thread, move |_| op, ResponseBody::RestartFrame).await
                }
                Err(e) => (Err(e), Vec::new()),
            },
            Command::TerminateThreads(a) => {
                let mut events = Vec::new();
                for id in a.thread_ids.unwrap_or_default() {
                    let terminate = |process| Op::Terminate(pb::ProcessRef { process });
                    let (answer, told) = self.go(id, terminate, ResponseBody::TerminateThreads).await;
                    if let Err(e) = answer {
                        return (Err(e), events);
                    }
                    events.extend(told);
                }
                (Ok(ResponseBody::TerminateThreads), events)
            }
            other => (Err(format!("onyx dap does not answer {other:?}")), Vec::new()),
        }
    }

    async fn stack(&mut self, thread: i64, start: Option<i64>, levels: Option<i64>) -> Result<ResponseBody, String> {
        let process = process_of(&self.threads, thread)?;
        let from = start.unwrap_or(0).max(0) as u64;
        let size = levels.filter(|l| *l > 0).map_or(FRAMES, |l| l.min(i64::from(u32::MAX)) as u32);
        let stack = pb::Operation {
            op: Some(Op::Stack(pb::FrameRef { process: process.process, frame: 0 })),
            page: Some(pb::Page { from, size }),
        };
        let session = self.session(&process.agent).await?;
        let reply =
            session.execute(pb::Batch { operations: vec![stack] }).await.map_err(|s| s.message().to_string())?;
        let d = match reply.results.into_iter().next().and_then(|r| r.outcome) {
            Some(Outcome::Debugged(d)) => d,
            Some(Outcome::Error(e)) => return Err(e.message),
            other => return Err(format!("the gem answered out of turn: {other:?}")),
        };
        let mut frames = Vec::new();
        for entry in d.frames {
            let method = breakpoints::method_named(&entry.label);
            let at = FrameId { thread, process: process.clone(), frame: entry.index, method: method.clone() };
            self.tables.frames.push(at.clone());
            let id = self.tables.frames.len() as i64;
            let (source, line) = match method.as_ref().and_then(|m| self.placed.file_of(m)) {
                Some((path, header)) => (Source { path: Some(path), ..Default::default() }, entry.line + header - 1),
                None => {
                    self.tables.sources.push(at);
                    let reference = self.tables.sources.len() as i32;
                    (
                        Source {
                            name: Some(entry.label.clone()),
                            source_reference: Some(reference),
                            ..Default::default()
                        },
                        entry.line,
                    )
                }
            };
            frames.push(StackFrame {
                id,
                name: entry.label,
                source: Some(source),
                line: i64::from(line),
                column: i64::from(entry.column),
                can_restart: Some(true),
                ..Default::default()
            });
        }
        Ok(ResponseBody::StackTrace(StackTraceResponse { stack_frames: frames, total_frames: Some(d.total as i64) }))
    }

    async fn source(&mut self, reference: i64) -> Result<ResponseBody, String> {
        let at = usize::try_from(reference - 1).ok().and_then(|i| self.tables.sources.get(i)).cloned();
        let at = at.ok_or_else(|| unknown("source", reference))?;
        let op = Op::Frame(pb::FrameRef { process: at.process.process, frame: at.frame });
        match self.one(&at.process.agent, op).await? {
            Outcome::Debugged(pb::Debugged { frame: Some(frame), .. }) => {
                Ok(ResponseBody::Source(SourceResponse { content: frame.source, mime_type: None }))
            }
            other => Err(format!("the gem answered out of turn: {other:?}")),
        }
    }

    async fn variables(
        &mut self,
        reference: i64,
        filter: Option<VariablesArgumentsFilter>,
        start: Option<i64>,
        count: Option<i64>,
    ) -> Result<ResponseBody, String> {
        let variables = match self.tables.shown(reference)? {
            Shown::Frame(f) => {
                let op = Op::Frame(pb::FrameRef { process: f.process.process, frame: f.frame });
                match self.one(&f.process.agent, op).await? {
                    Outcome::Debugged(pb::Debugged { frame: Some(frame), .. }) => {
                        let tables = &mut self.tables;
                        frame.variables.into_iter().map(|v| variable(tables, &f.process.agent, v)).collect()
                    }
                    other => return Err(format!("the gem answered out of turn: {other:?}")),
                }
            }
            Shown::Object { agent, handle } => {
                let from = start.unwrap_or(0).max(0) as u64 + 1;
                let page_size = count.filter(|c| *c > 0).map_or(FIELDS, |c| c.min(i64::from(u32::MAX)) as u32);
                let i = match self.one(&agent, Op::Inspect(pb::Inspect { handle, from, page_size })).await? {
                    Outcome::Inspection(i) => i,
                    other => return Err(format!("the gem answered out of turn: {other:?}")),
                };
                let named = !matches!(filter, Some(VariablesArgumentsFilter::Indexed));
                let indexed = !matches!(filter, Some(VariablesArgumentsFilter::Named));
                let tables = &mut self.tables;
                let mut shown: Vec<Variable> =
                    i.named.into_iter().filter(|_| named).map(|f| variable(tables, &agent, f)).collect();
                shown.extend(i.indexed.into_iter().filter(|_| indexed).map(|f| variable(tables, &agent, f)));
                shown
            }
        };
        Ok(ResponseBody::Variables(VariablesResponse { variables }))
    }

    async fn evaluate(&mut self, expression: &str, frame: Option<i64>) -> Result<ResponseBody, String> {
        let frame = frame.ok_or("select a stack frame: an expression is evaluated in a frame of a stopped process")?;
        let f = self.tables.frame(frame)?;
        let op = Op::EvaluateInFrame(pb::FrameSource {
            process: f.process.process,
            frame: f.frame,
            source: expression.to_string(),
        });
        match self.one(&f.process.agent, op).await? {
            Outcome::Evaluated(e) => {
                let variables_reference = reference(&mut self.tables, &f.process.agent, e.handle);
                Ok(ResponseBody::Evaluate(EvaluateResponse {
                    result: e.print_string,
                    type_field: Some(e.class_name),
                    presentation_hint: None,
                    variables_reference,
                    named_variables: None,
                    indexed_variables: None,
                    memory_reference: None,
                }))
            }
            other => Err(format!("the gem answered out of turn: {other:?}")),
        }
    }

    async fn step(&mut self, thread: i64, kind: pb::StepKind, body: ResponseBody) -> Handled {
        let step = move |process| Op::Step(pb::Step { process, frame: 0, kind: kind as i32, offset: 0 });
        self.go(thread, step, body).await
    }

    /// Sends `op` for thread `thread`'s process, and answers what became of it: stopped again
    /// (a step, a pause, a restart), gone on, or ended. `body` is the request's answer.
    async fn go(&mut self, thread: i64, op: impl FnOnce(u64) -> Op, body: ResponseBody) -> Handled {
        let process = match process_of(&self.threads, thread) {
            Ok(p) => p,
            Err(e) => return (Err(e), Vec::new()),
        };
        let d = match self.one(&process.agent, op(process.process)).await {
            Ok(Outcome::Debugged(d)) => d,
            Ok(Outcome::Done(_)) => pb::Debugged::default(),
            Ok(other) => return (Err(format!("the gem answered out of turn: {other:?}")), Vec::new()),
            Err(e) => return (Err(e), Vec::new()),
        };
        // The ids given for what it showed are stale once it moves.
        self.tables = Tables::default();
        // A process pausing is told of when it stops (by its gem's list).
        if d.kind != "pausing"
            && let Ok(mut t) = self.threads.lock()
        {
            t.set_stopped(thread, !matches!(d.kind.as_str(), "" | "running"));
        }
        let event = match d.kind.as_str() {
            "" => Some(Event::Thread(ThreadEventBody { reason: ThreadEventReason::Exited, thread_id: thread })),
            "running" | "pausing" => None,
            why => Some(Event::Stopped(StoppedEventBody {
                reason: threads::reason(why),
                description: Some(d.reason.clone()),
                thread_id: Some(thread),
                preserve_focus_hint: None,
                text: None,
                all_threads_stopped: Some(false),
                hit_breakpoint_ids: None,
            })),
        };
        (Ok(body), event.into_iter().collect())
    }
}
