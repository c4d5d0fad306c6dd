//! DAP's framing: each message a `Content-Length` header, a blank line and a JSON body. A
//! request the adapter cannot read (an unknown command, arguments of the wrong shape) is
//! answered with an error naming it, and the session goes on.
//!
//! The `dap` crate's types name a few fields in snake case where the protocol's are camel
//! case (`Source`, `SourceBreakpoint`, `Breakpoint`, `ExceptionBreakpointsFilter`,
//! `ContinueResponse`): what is read has those renamed to the crate's names, and what is
//! written has every key in camel case, as the protocol spells all of them but a response's
//! `request_seq`. An error response names its request's command, as the protocol asks (the
//! crate's has none).

use std::io::{self, BufRead, BufWriter, Read, Stdout, Write};

use dap::base_message::{BaseMessage, Sendable};
use dap::requests::Request;
use dap::responses::Response;
use serde_json::Value;

/// The largest message read: anything longer is skipped as unreadable.
const MAX_MESSAGE: usize = 64 << 20;

/// What came from the client.
pub enum Incoming {
    /// A request, and its command's name as the client wrote it.
    Request(Box<Request>, String),
    /// A request that could not be read: its number and command (when those could), and why.
    Unreadable { seq: i64, command: String, why: String },
    /// The client closed its end.
    End,
}

/// Reads the next message.
pub fn read(input: &mut impl BufRead) -> io::Result<Incoming> {
    let mut length: Option<usize> = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(Incoming::End);
        }
        let header = line.trim_end();
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("Content-Length")
        {
            length = value.trim().parse().ok();
        }
    }
    let length = length.unwrap_or(0);
    if length > MAX_MESSAGE {
        io::copy(&mut input.take(length as u64), &mut io::sink())?;
        let why = format!("a message of {length} bytes (at most {MAX_MESSAGE})");
        return Ok(Incoming::Unreadable { seq: 0, command: String::new(), why });
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    let mut value: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(e) => return Ok(Incoming::Unreadable { seq: 0, command: String::new(), why: e.to_string() }),
    };
    let seq = value.get("seq").and_then(Value::as_i64).unwrap_or(0);
    let command = value.get("command").and_then(Value::as_str).unwrap_or_default().to_string();
    // Requests without arguments arrive with `{}` from some clients, and none from others.
    if value.get("arguments").is_some_and(|a| a.as_object().is_some_and(|o| o.is_empty()))
        && serde_json::from_value::<Request>(value.clone()).is_err()
        && let Some(object) = value.as_object_mut()
    {
        object.remove("arguments");
    }
    if let Some(arguments) = value.get_mut("arguments") {
        to_crate_names(arguments);
    }
    Ok(match serde_json::from_value::<Request>(value) {
        Ok(request) => Incoming::Request(Box::new(request), command),
        Err(e) => Incoming::Unreadable { seq, command, why: e.to_string() },
    })
}

/// Renames the protocol's names of the fields the crate spells in snake case: those of every
/// `source` (a `Source`), and of each of `breakpoints` (a `SourceBreakpoint`).
fn to_crate_names(arguments: &mut Value) {
    const SOURCE: [(&str, &str); 3] = [
        ("sourceReference", "source_reference"),
        ("presentationHint", "presentation_hint"),
        ("adapterData", "adapter_data"),
    ];
    const BREAKPOINT: [(&str, &str); 2] = [("hitCondition", "hit_condition"), ("logMessage", "log_message")];
    let rename = |object: &mut serde_json::Map<String, Value>, names: &[(&str, &str)]| {
        for (theirs, ours) in names {
            if let Some(v) = object.remove(*theirs) {
                object.insert((*ours).to_string(), v);
            }
        }
    };
    if let Some(source) = arguments.get_mut("source").and_then(Value::as_object_mut) {
        rename(source, &SOURCE);
    }
    if let Some(list) = arguments.get_mut("breakpoints").and_then(Value::as_array_mut) {
        for b in list.iter_mut().filter_map(Value::as_object_mut) {
            rename(b, &BREAKPOINT);
        }
    }
}

/// `value` with every object key in camel case (`source_reference` is `sourceReference`), but
/// `request_seq`.
fn camel_keys(value: Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .into_iter()
                .map(|(key, v)| {
                    if key == "request_seq" {
                        return (key, camel_keys(v));
                    }
                    let mut camel = String::with_capacity(key.len());
                    let mut upper = false;
                    for c in key.chars() {
                        match c {
                            '_' if !camel.is_empty() => upper = true,
                            c if upper => {
                                camel.extend(c.to_uppercase());
                                upper = false;
                            }
                            c => camel.push(c),
                        }
                    }
                    (camel, camel_keys(v))
                })
                .collect(),
        ),
        Value::Array(list) => Value::Array(list.into_iter().map(camel_keys).collect()),
        other => other,
    }
}

/// Writes messages to the client, numbering them.
pub struct Writer {
    seq: i64,
    out: BufWriter<Stdout>,
}

impl Writer {
    pub fn stdout() -> Writer {
        Writer { seq: 0, out: BufWriter::new(io::stdout()) }
    }

    /// Sends an event (or anything that needs nothing added).
    pub fn send(&mut self, message: Sendable) -> io::Result<()> {
        self.seq += 1;
        let value = serde_json::to_value(BaseMessage { seq: self.seq, message })?;
        self.write(value)
    }

    /// Answers the request `command`: an error, which the crate writes without it, names it.
    pub fn respond(&mut self, response: Response, command: &str) -> io::Result<()> {
        self.seq += 1;
        let mut value = serde_json::to_value(BaseMessage { seq: self.seq, message: Sendable::Response(response) })?;
        if let Some(object) = value.as_object_mut()
            && !object.contains_key("command")
        {
            object.insert("command".into(), Value::from(command));
        }
        self.write(value)
    }

    fn write(&mut self, value: Value) -> io::Result<()> {
        let json = camel_keys(value).to_string();
        write!(self.out, "Content-Length: {}\r\n\r\n{json}", json.len())?;
        self.out.flush()
    }
}
