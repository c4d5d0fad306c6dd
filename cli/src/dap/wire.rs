//! DAP's framing: each message a `Content-Length` header, a blank line and a JSON body. A
//! request the adapter cannot read (an unknown command, arguments of the wrong shape) is
//! answered with an error naming it, and the session goes on.

use std::io::{self, BufRead, BufWriter, Read, Stdout, Write};

use dap::base_message::{BaseMessage, Sendable};
use dap::requests::Request;
use serde_json::Value;

/// The largest message read: anything longer is skipped as unreadable.
const MAX_MESSAGE: usize = 64 << 20;

/// What came from the client.
pub enum Incoming {
    Request(Request),
    /// A request that could not be read: its number and command (when those could), and why.
    Unreadable {
        seq: i64,
        command: String,
        why: String,
    },
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
    Ok(match serde_json::from_value::<Request>(value) {
        Ok(request) => Incoming::Request(request),
        Err(e) => Incoming::Unreadable { seq, command, why: e.to_string() },
    })
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

    pub fn send(&mut self, message: Sendable) -> io::Result<()> {
        self.seq += 1;
        let json = serde_json::to_string(&BaseMessage { seq: self.seq, message })?;
        write!(self.out, "Content-Length: {}\r\n\r\n{json}", json.len())?;
        self.out.flush()
    }
}
