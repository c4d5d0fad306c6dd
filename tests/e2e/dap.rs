//! `onyx dap` driven as VS Code drives it: a scripted client speaks the Debug Adapter
//! Protocol to the adapter's stdin and stdout. Gem A runs a forked loop that calls
//! `Ticker>>tick:` every 10 ms; the adapter attaches to gem B, sets a breakpoint on a line of
//! the method's Tonel file, and A's loop stops there: the client sees the thread stop, its
//! stack in the file, its variables, steps over, opens an Array, evaluates in the frame,
//! removes the breakpoint and continues, and A's counter goes on rising. Attached to gem A,
//! its loop is paused and continued. What the adapter cannot do is answered as an error, and
//! the session goes on. Log points and hit conditions map to the stone's kinds (gem A's
//! transcript comes to the editor); a breakpoint moved by an edit in B or removed through A is
//! told; the filter of all errors stops a handled error where it is signalled; with the
//! unhandled filter off, a failed process is a thread but no stop is told; gem B gone ends
//! the session.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::agent::{Agent, GemProcess, client, evaluate, execute, op, printed, repository, runtime, within_5s};
use crate::attach::{TICKER, rising};
use crate::stone::StoneProcess;

/// `Ticker>>tick:` as a Tonel file holds it: the method's header is line 8, its statement
/// `next := ...` line 10.
const TONEL: &str = "Class {
\t#name : #Ticker,
\t#superclass : #Object,
\t#category : #'Tests-Attach'
}

{ #category : #demo }
Ticker >> tick: n [
\t| next |
\tnext := Array with: n with: n + 1.
\t^ next last
]
";

/// The adapter, and what it sent (responses and events, in order).
pub(crate) struct Adapter {
    child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Value>,
    seq: i64,
    /// Events read while waiting for a response.
    events: Vec<Value>,
}

impl Adapter {
    pub(crate) fn start() -> Adapter {
        let mut child = Command::new(onyx_tests::onyx())
            .arg("dap")
            .env_remove("ONYX_GEM")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("onyx dap starts");
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            loop {
                let mut length = 0;
                let mut line = String::new();
                loop {
                    line.clear();
                    if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    match line.trim_end().strip_prefix("Content-Length:") {
                        Some(n) => length = n.trim().parse().expect("a length"),
                        None if line.trim_end().is_empty() && length > 0 => break,
                        None => {}
                    }
                }
                let mut body = vec![0; length];
                stdout.read_exact(&mut body).expect("the body");
                if tx.send(serde_json::from_slice(&body).expect("JSON")).is_err() {
                    return;
                }
            }
        });
        Adapter { child, stdin, messages, seq: 0, events: Vec::new() }
    }

    /// Sends a request and answers its response (events that come first are kept).
    pub(crate) fn request(&mut self, command: &str, arguments: Value) -> Value {
        self.seq += 1;
        let body = json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
        loop {
            let message = self.messages.recv_timeout(Duration::from_secs(20)).expect("a response");
            if message["type"] == "response" && message["request_seq"] == self.seq {
                return message;
            }
            self.events.push(message);
        }
    }

    /// A request that must succeed: its body.
    pub(crate) fn ok(&mut self, command: &str, arguments: Value) -> Value {
        let response = self.request(command, arguments);
        assert_eq!(response["success"], true, "{command}: {response}");
        response["body"].clone()
    }

    /// Waits for event `name` (that `matches`), kept or to come.
    fn event(&mut self, name: &str, matches: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.events.iter().position(|e| e["event"] == name && matches(e)) {
            return self.events.remove(at);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message =
                self.messages.recv_timeout(left).unwrap_or_else(|_| panic!("no {name} event: {:?}", self.events));
            if message["event"] == name && matches(&message) {
                return message;
            }
            self.events.push(message);
        }
    }

    /// The top frame of `thread`: its id and the frame.
    fn top(&mut self, thread: &Value) -> Value {
        let stack = self.ok("stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 5}));
        stack["stackFrames"][0].clone()
    }

    /// The variables of `frame`'s scope, by name.
    fn locals(&mut self, frame: &Value) -> Vec<Value> {
        let scopes = self.ok("scopes", json!({"frameId": frame["id"]}));
        let reference = scopes["scopes"][0]["variablesReference"].clone();
        self.ok("variables", json!({"variablesReference": reference}))["variables"].as_array().expect("a list").clone()
    }
}

/// Waits until the gem of `agent` lists breakpoints that are `as_wanted`: they as it lists them.
async fn until_listed(
    agent: &mut crate::agent::Agent,
    what: &str,
    as_wanted: impl Fn(&[pb::BreakpointInfo]) -> bool,
) -> Vec<pb::BreakpointInfo> {
    within_5s(what, async || match execute(agent, vec![op(Op::Breakpoints(pb::Empty {}))]).await.remove(0) {
        Outcome::Breakpoints(l) if as_wanted(&l.breakpoints) => Some(l.breakpoints),
        _ => None,
    })
    .await
}

/// What both scenarios start from: a stone, gem A and gem B, and `Ticker>>tick:`'s Tonel file
/// on disk. Fields drop in order: the gems end before their stone, the folder last.
struct Scene {
    b: GemProcess,
    a: GemProcess,
    path: String,
    _stone: StoneProcess,
    _dir: tempfile::TempDir,
}

impl Scene {
    fn start() -> Scene {
        let (dir, stone) = repository();
        let a = GemProcess::start(&stone);
        let b = GemProcess::start(&stone);
        let file = dir.path().join("Ticker.class.st");
        std::fs::write(&file, TONEL).expect("the Tonel file");
        let path = file.to_string_lossy().to_string();
        Scene { b, a, path, _stone: stone, _dir: dir }
    }
}

/// Starts gem A's ticking loop and waits until gem B sees its counter rise; the agents of A
/// and B.
async fn ticking(a: &GemProcess, b: &GemProcess) -> (Agent, Agent) {
    let mut in_a = client(a).await;
    assert_eq!(printed(&execute(&mut in_a, vec![evaluate(TICKER)]).await[0]), "nil");
    let mut in_b = client(b).await;
    rising(&mut in_b).await;
    (in_a, in_b)
}

fn named<'a>(variables: &'a [Value], name: &str) -> &'a Value {
    variables.iter().find(|v| v["name"] == name).unwrap_or_else(|| panic!("no {name} in {variables:?}"))
}

#[test]
fn vs_code_attaches_sets_a_breakpoint_in_a_tonel_file_and_debugs_another_gems_process() {
    let Scene { b, a, path, .. } = &Scene::start();
    runtime().block_on(async {
        let (mut in_a, mut in_b) = ticking(a, b).await;

        let mut dap = Adapter::start();
        let capabilities = dap.ok("initialize", json!({"adapterID": "onyx", "clientID": "vscode"}));
        assert_eq!(capabilities["supportsConfigurationDoneRequest"], true);
        dap.event("initialized", |_| true);
        let refused = dap.request("launch", json!({}));
        assert_eq!(
            (refused["success"].clone(), refused["command"].clone()),
            (json!(false), json!("launch")),
            "{refused}"
        );
        // A body that is not JSON is answered with an error, and the session goes on.
        write!(dap.stdin, "Content-Length: 5\r\n\r\n{{bad}}").expect("write");
        dap.stdin.flush().expect("flush");
        let bad = dap.messages.recv_timeout(Duration::from_secs(20)).expect("an answer");
        assert_eq!((bad["type"].clone(), bad["success"].clone()), (json!("response"), json!(false)), "{bad}");
        // So is a message longer than the adapter reads (64 MiB), which it skips whole.
        let huge = 64 << 20 | 1;
        write!(dap.stdin, "Content-Length: {huge}\r\n\r\n").expect("write");
        dap.stdin.write_all(&vec![b' '; huge]).expect("write");
        dap.stdin.flush().expect("flush");
        let skipped = dap.messages.recv_timeout(Duration::from_secs(20)).expect("an answer");
        assert_eq!(skipped["success"], false, "{skipped}");
        assert!(skipped["message"].as_str().is_some_and(|m| m.contains("bytes")), "{skipped}");
        let unknown = dap.request("frobnicate", json!({"x": 1}));
        assert_eq!(unknown["success"], false, "{unknown}");
        assert!(unknown["message"].as_str().expect("why").contains("frobnicate"), "{unknown}");
        dap.ok("attach", json!({"gem": b.addr}));

        // A line in no method is refused; the statement's line is set, for every gem.
        let set =
            dap.ok("setBreakpoints", json!({"source": {"path": path}, "breakpoints": [{"line": 3}, {"line": 10}]}));
        let [outside, inside] = set["breakpoints"].as_array().expect("two").as_slice() else { panic!("{set}") };
        assert_eq!(outside["verified"], false);
        assert!(outside["message"].as_str().expect("why").contains("in no method"), "{outside}");
        assert_eq!((inside["verified"].clone(), inside["line"].clone()), (json!(true), json!(10)), "{inside}");
        let functions = dap.ok("setFunctionBreakpoints", json!({"breakpoints": [{"name": "no method here"}]}));
        assert_eq!(functions["breakpoints"][0]["verified"], false, "{functions}");
        dap.ok("setExceptionBreakpoints", json!({"filters": []}));
        dap.ok("configurationDone", json!({}));

        // Gem A's loop stops there: a thread of gem A.
        let stopped = dap.event("stopped", |e| e["body"]["reason"] == "breakpoint");
        let thread = stopped["body"]["threadId"].clone();
        let threads = dap.ok("threads", json!({}));
        let listed = threads["threads"].as_array().expect("threads").iter().find(|t| t["id"] == thread).cloned();
        let name = listed.expect("the stopped thread is listed")["name"].as_str().expect("a name").to_string();
        assert!(name.contains(&a.addr) && name.contains("stopped"), "{name}");

        // Its stack, in the Tonel file, at the line of the breakpoint; its variables.
        let top = dap.top(&thread);
        assert_eq!(top["name"], "Ticker>>tick:");
        assert_eq!((top["source"]["path"].clone(), top["line"].clone()), (json!(path), json!(10)), "{top}");
        let locals = dap.locals(&top);
        assert_eq!(named(&locals, "next")["value"], "nil");
        let n: u64 = named(&locals, "n")["value"].as_str().expect("n").parse().expect("a number");

        // Step over: the thread stops again, a line on, and `next` is an Array to open.
        dap.ok("next", json!({"threadId": thread}));
        let stepped = dap.event("stopped", |e| e["body"]["reason"] == "step");
        assert_eq!(stepped["body"]["threadId"], thread);
        let top = dap.top(&thread);
        assert_eq!(top["line"], 11, "{top}");
        let locals = dap.locals(&top);
        let next = named(&locals, "next").clone();
        assert_eq!(next["value"], format!("#({n} {})", n + 1));
        let fields = dap.ok("variables", json!({"variablesReference": next["variablesReference"]}));
        let values: Vec<&str> = fields["variables"]
            .as_array()
            .expect("fields")
            .iter()
            .map(|f| f["value"].as_str().expect("a value"))
            .collect();
        assert_eq!(values, [n.to_string(), (n + 1).to_string()]);

        // Evaluate in the frame; without a frame, or in a frame not given, it is refused.
        let value =
            dap.ok("evaluate", json!({"expression": "next last * 10", "frameId": top["id"], "context": "repl"}));
        assert_eq!(value["result"], ((n + 1) * 10).to_string());
        let no_frame = dap.request("evaluate", json!({"expression": "3 + 4", "context": "repl"}));
        assert_eq!(no_frame["success"], false, "{no_frame}");
        let stale = dap.request("stackTrace", json!({"threadId": 999}));
        assert_eq!(stale["success"], false, "{stale}");

        // The breakpoint goes, the thread continues, and A's counter goes on rising.
        let cleared = dap.ok("setBreakpoints", json!({"source": {"path": path}, "breakpoints": []}));
        assert_eq!(cleared["breakpoints"], json!([]));
        // (Gem A drops it within a second: continued before, the loop would stop there again.)
        until_listed(&mut in_a, "gem A drops the breakpoint", |l| l.is_empty()).await;
        dap.ok("continue", json!({"threadId": thread}));
        rising(&mut in_b).await;
        // No longer a thread (once every gem's list says so: within a second or so).
        within_5s("the thread goes", async || {
            let threads = dap.ok("threads", json!({}));
            threads["threads"].as_array().expect("threads").iter().all(|t| t["id"] != thread).then_some(())
        })
        .await;
        dap.ok("disconnect", json!({}));
        let status = dap.child.wait().expect("the adapter ends");
        assert!(status.success(), "{status}");

        // Attached to gem A, its loop is a running thread: paused, it stops; continued, it goes on.
        let mut dap = Adapter::start();
        dap.ok("initialize", json!({"adapterID": "onyx"}));
        dap.ok("attach", json!({"gem": a.addr}));
        dap.ok("configurationDone", json!({}));
        let threads = dap.ok("threads", json!({}));
        let running = threads["threads"]
            .as_array()
            .expect("threads")
            .iter()
            .find(|t| t["name"].as_str().is_some_and(|n| n.ends_with("(running)")));
        let thread = running.unwrap_or_else(|| panic!("the loop runs: {threads}"))["id"].clone();
        dap.ok("pause", json!({"threadId": thread}));
        let paused = dap.event("stopped", |e| e["body"]["reason"] == "pause");
        assert_eq!(paused["body"]["threadId"], thread);
        assert_eq!(dap.top(&thread)["name"].as_str().map(|n| n.contains("Ticker") || n.contains("[]")), Some(true));
        dap.ok("continue", json!({"threadId": thread}));
        rising(&mut in_b).await;
        dap.ok("disconnect", json!({}));
        assert!(dap.child.wait().expect("the adapter ends").success());
    });
}

#[test]
fn vs_code_log_points_hit_conditions_exception_filters_and_breakpoints_changed_elsewhere() {
    let Scene { b, a, path, .. } = &mut Scene::start();
    runtime().block_on(async {
        let (mut in_a, mut in_b) = ticking(a, b).await;

        let mut dap = Adapter::start();
        let capabilities = dap.ok("initialize", json!({"adapterID": "onyx"}));
        assert_eq!((capabilities["supportsLogPoints"].clone(), capabilities["supportsHitConditionalBreakpoints"].clone()), (json!(true), json!(true)));
        let filters: Vec<&Value> = capabilities["exceptionBreakpointFilters"].as_array().expect("filters").iter().map(|f| &f["filter"]).collect();
        assert_eq!(filters, [&json!("errors"), &json!("unhandled")]);
        dap.ok("attach", json!({"gem": b.addr}));

        // A log point on every 5th hit; a hit condition that cannot be read is refused.
        let set = dap.ok(
            "setBreakpoints",
            json!({"source": {"path": path}, "breakpoints": [
                {"line": 10, "logMessage": "tick {n} isn't {n + 1}", "hitCondition": "%5"},
                {"line": 11, "hitCondition": "<3"}]}),
        );
        let [log, unread] = set["breakpoints"].as_array().expect("two").as_slice() else { panic!("{set}") };
        assert_eq!(log["verified"], true, "{log}");
        assert_eq!(unread["verified"], false, "{unread}");
        assert!(unread["message"].as_str().expect("why").contains("hit condition"), "{unread}");
        let id = log["id"].as_u64().expect("an id");
        dap.ok("setExceptionBreakpoints", json!({"filters": ["unhandled"]}));
        dap.ok("configurationDone", json!({}));
        let in_a_list = until_listed(&mut in_a, "gem A applies the log point", |l| l.iter().any(|b| b.id == id && b.placed)).await;
        let applied = in_a_list.iter().find(|b| b.id == id).expect("the log point");
        assert_eq!((applied.hits, applied.hits_n), (pb::BreakpointHits::HitsEvery as i32, 5));

        // Gem A logs and goes on; its transcript comes to the editor marked with the gem.
        let logged = dap.event("output", |e| e["body"]["output"].as_str().is_some_and(|o| o.contains("] tick ")));
        let line = logged["body"]["output"].as_str().expect("text");
        assert!(line.starts_with(&format!("[{}] tick ", a.addr)) && line.contains(" isn't "), "{line}");
        rising(&mut in_b).await;
        // The transcript of the gem attached to comes unmarked.
        execute(&mut in_b, vec![evaluate("Transcript show: 'from gem B'; cr. nil")]).await;
        let from_b = dap.event("output", |e| e["body"]["output"].as_str().is_some_and(|o| o.contains("from gem B")));
        assert_eq!(from_b["body"]["output"], "from gem B\n");

        // The method edited in gem B: the breakpoint moves a line down there, and the editor is told.
        let edit = "Ticker compile: 'tick: n
\t| next |
\t\"a line more\"
\tnext := Array with: n with: n + 1.
\t^ next last'. nil";
        execute(&mut in_b, vec![evaluate(edit)]).await;
        let moved = dap.event("breakpoint", |e| e["body"]["breakpoint"]["id"] == id);
        assert_eq!((moved["body"]["reason"].clone(), moved["body"]["breakpoint"]["line"].clone()), (json!("changed"), json!(11)), "{moved}");
        // Removed through gem A: the editor is told it went.
        execute(&mut in_a, vec![op(Op::RemoveBreakpoint(pb::BreakpointRef { id }))]).await;
        let removed = dap.event("breakpoint", |e| e["body"]["reason"] == "removed");
        assert_eq!(removed["body"]["breakpoint"]["id"], id, "{removed}");

        // All errors: a handled error signalled in a process of gem A stops it where it is signalled.
        let on = dap.ok("setExceptionBreakpoints", json!({"filters": ["errors", "unhandled"]}));
        assert_eq!(on["breakpoints"][0]["verified"], true, "{on}");
        let signal = on["breakpoints"][0]["id"].clone();
        until_listed(&mut in_a, "gem A applies the breakpoint on errors", |l| l.iter().any(|b| b.placed && b.selector == "signal")).await;
        let fork = "[Smalltalk at: #Handled put: ([1 / 0] on: ZeroDivide do: [:e | e return: -1])] forkAt: Processor userBackgroundPriority. nil";
        execute(&mut in_a, vec![evaluate(fork)]).await;
        let stopped = dap.event("stopped", |e| e["body"]["reason"] == "exception");
        assert_eq!(stopped["body"]["hitBreakpointIds"], json!([signal]), "{stopped}");
        let thread = stopped["body"]["threadId"].clone();
        let top = dap.top(&thread);
        assert!(top["name"].as_str().expect("a name").ends_with(">>signal"), "{top}");
        // A method of no Tonel file seen is shown by reference.
        let reference = top["source"]["sourceReference"].clone();
        assert!(reference.as_i64().is_some_and(|r| r > 0), "{top}");
        let text = dap.ok("source", json!({"source": {"sourceReference": reference}, "sourceReference": reference}));
        assert!(text["content"].as_str().expect("the source").starts_with("signal"), "{text}");
        // Cleared, gem A drops it; continued, the error is handled.
        dap.ok("setExceptionBreakpoints", json!({"filters": []}));
        until_listed(&mut in_a, "gem A drops the breakpoint on errors", |l| l.is_empty()).await;
        dap.ok("continue", json!({"threadId": thread}));
        within_5s("the handler runs", async || {
            let handled = execute(&mut in_a, vec![evaluate("Smalltalk at: #Handled ifAbsent: [nil]")]).await;
            (printed(&handled[0]) == "-1").then_some(())
        })
        .await;

        // Unhandled errors untold: the process an error stops is a stopped thread, but no stop is told.
        execute(&mut in_a, vec![evaluate("[1 / 0] fork. nil")]).await;
        let failed = within_5s("the failed process is a stopped thread", async || {
            let threads = dap.ok("threads", json!({}));
            let mut list = threads["threads"].as_array().expect("threads").clone().into_iter();
            let of_a = |n: &str| n.contains(&a.addr) && n.ends_with("(stopped)");
            list.find(|t| t["id"] != thread && t["name"].as_str().is_some_and(of_a)).map(|t| t["id"].clone())
        })
        .await;
        assert!(!dap.events.iter().any(|e| e["event"] == "stopped" && e["body"]["threadId"] == failed), "{:?}", dap.events);
        dap.ok("terminateThreads", json!({"threadIds": [failed]}));

        // Gem B goes: the session is over.
        assert!(b.terminate(Duration::from_secs(10)).is_some(), "gem B ends");
        dap.event("terminated", |_| true);
        dap.ok("disconnect", json!({}));
        assert!(dap.child.wait().expect("the adapter ends").success());
    });
}
