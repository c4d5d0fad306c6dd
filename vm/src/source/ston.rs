//! The part of STON that Tonel's metadata uses: maps `{ #key : value, ... }`, lists
//! `[ ... ]`, symbols (`#foo`, `#'quoted'`), strings with STON's backslash escapes, numbers,
//! `true`, `false` and `nil`; and names written as Pharo's Tonel writer spells them. It reads
//! FileTree's JSON too (`"strings"`, `null`), as leniently as FileTree's writers need: a quote
//! escaped as `\'`, control characters unescaped.

use std::fmt::Write as _;

/// How deeply maps and lists may nest.
const MAX_DEPTH: usize = 64;

/// A metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum Ston {
    Map(Vec<(String, Ston)>),
    List(Vec<Ston>),
    Symbol(String),
    String(String),
    /// A number, as written.
    Number(String),
    Bool(bool),
    Nil,
}

impl Ston {
    /// The text of a symbol or string value.
    pub fn name(&self) -> Option<&str> {
        match self {
            Ston::Symbol(s) | Ston::String(s) => Some(s),
            _ => None,
        }
    }
}

/// The value of `key` in a map's entries.
pub fn lookup<'m>(map: &'m [(String, Ston)], key: &str) -> Option<&'m Ston> {
    map.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The names listed under `key` (none when absent or nil), or what is wrong with them.
pub fn names(map: &[(String, Ston)], key: &str) -> Result<Vec<String>, &'static str> {
    match lookup(map, key) {
        None | Some(Ston::Nil) => Ok(Vec::new()),
        Some(Ston::List(items)) => {
            items.iter().map(|i| i.name().map(str::to_string).ok_or("must list names")).collect()
        }
        Some(_) => Err("must be a list"),
    }
}

/// Why a value could not be read, and the offset where.
pub type Problem = (usize, String);

/// Reads the value starting at or after `pos` (whitespace skipped); answers it and the offset
/// just after it.
pub fn read(text: &str, pos: usize) -> Result<(Ston, usize), Problem> {
    let mut r = Cursor { text, pos };
    let value = r.value(0)?;
    Ok((value, r.pos))
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn rest(&self) -> &str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn peek(&mut self) -> Option<char> {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
        self.rest().chars().next()
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, Problem> {
        Err((self.pos, message.into()))
    }

    fn value(&mut self, depth: usize) -> Result<Ston, Problem> {
        if depth > MAX_DEPTH {
            return self.fail("metadata nested too deeply");
        }
        match self.peek() {
            Some('{') => {
                self.pos += 1;
                self.map(depth)
            }
            Some('[') => {
                self.pos += 1;
                let mut items = Vec::new();
                if self.peek() == Some(']') {
                    self.pos += 1;
                    return Ok(Ston::List(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.separator(']', "expected ',' or ']'")? {
                        return Ok(Ston::List(items));
                    }
                }
            }
            Some('#') => {
                self.pos += 1;
                if self.rest().starts_with('\'') {
                    self.quoted().map(Ston::Symbol)
                } else {
                    let word = self.word(|c| c.is_alphanumeric() || "_:./".contains(c));
                    if word.is_empty() { self.fail("expected a symbol after '#'") } else { Ok(Ston::Symbol(word)) }
                }
            }
            Some('\'' | '"') => self.quoted().map(Ston::String),
            Some(c) if c.is_ascii_digit() || c == '-' => {
                let number = self.word(|c| c.is_ascii_alphanumeric() || "-+.".contains(c));
                Ok(Ston::Number(number))
            }
            Some(c) if c.is_alphabetic() => match self.word(char::is_alphanumeric).as_str() {
                "true" => Ok(Ston::Bool(true)),
                "false" => Ok(Ston::Bool(false)),
                "nil" | "null" => Ok(Ston::Nil),
                _ => self.fail("expected a metadata value"),
            },
            Some(_) => self.fail("expected a metadata value"),
            None => self.fail("expected a metadata value, found the end of the file"),
        }
    }

    /// The entries of a map whose `{` is consumed.
    fn map(&mut self, depth: usize) -> Result<Ston, Problem> {
        let mut entries = Vec::new();
        if self.peek() == Some('}') {
            self.pos += 1;
            return Ok(Ston::Map(entries));
        }
        loop {
            let at = self.pos;
            let key = match self.value(depth + 1)? {
                // `#name:` written without a space before the colon.
                Ston::Symbol(s) if s.ends_with(':') && self.peek() != Some(':') => s.trim_end_matches(':').to_string(),
                Ston::Symbol(s) | Ston::String(s) => {
                    if self.peek() != Some(':') {
                        return self.fail("expected ':' after a map key");
                    }
                    self.pos += 1;
                    s
                }
                _ => return Err((at, "expected a map key such as #name".into())),
            };
            let value = self.value(depth + 1)?;
            entries.push((key, value));
            if self.separator('}', "expected ',' or '}'")? {
                return Ok(Ston::Map(entries));
            }
        }
    }

    /// Consumes `,` (answering false) or `close` (answering true).
    fn separator(&mut self, close: char, message: &str) -> Result<bool, Problem> {
        match self.peek() {
            Some(',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(true)
            }
            _ => self.fail(message),
        }
    }

    fn word(&mut self, part: impl Fn(char) -> bool) -> String {
        let rest = self.rest();
        let end = rest.find(|c: char| !part(c)).unwrap_or(rest.len());
        let word = rest.get(..end).unwrap_or_default().to_string();
        self.pos += end;
        word
    }

    /// A `'...'` (or JSON's `"..."`) string with STON's escapes; the cursor is on its opening
    /// quote.
    fn quoted(&mut self) -> Result<String, Problem> {
        let open = self.pos;
        let quote = if self.rest().starts_with('"') { '"' } else { '\'' };
        self.pos += 1;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                c if c == quote => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => {
                    let escaped = match chars.next().map(|(_, e)| e) {
                        Some('b') => '\u{8}',
                        Some('t') => '\t',
                        Some('n') => '\n',
                        Some('f') => '\u{c}',
                        Some('r') => '\r',
                        Some('u') => {
                            let hex: String = chars.by_ref().take(4).map(|(_, h)| h).collect();
                            match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                                Some(c) if hex.len() == 4 => c,
                                _ => return Err((self.pos + i, format!("bad escape \\u{hex}"))),
                            }
                        }
                        Some(c @ ('\'' | '\\' | '"' | '/')) => c,
                        Some(other) => return Err((self.pos + i, format!("unknown escape \\{other}"))),
                        None => break,
                    };
                    out.push(escaped);
                }
                c => out.push(c),
            }
        }
        Err((open, format!("string not closed by {quote}")))
    }
}

/// Whether Pharo's Tonel writer writes `name` as a bare symbol (`#accessing`) rather than a
/// quoted one (`#'instance creation'`).
fn is_simple_symbol(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// Writes `name` as a symbol: `#foo` or `#'with spaces'`.
pub fn symbol(name: &str) -> String {
    if is_simple_symbol(name) { format!("#{name}") } else { format!("#{}", string(name)) }
}

/// Writes `text` as a STON string, with STON's escapes.
pub fn string(text: &str) -> String {
    quoted(text, '\'')
}

/// Writes `text` as a JSON string, as Pharo's STON writer writes JSON.
pub fn json_string(text: &str) -> String {
    quoted(text, '"')
}

fn quoted(text: &str, quote: char) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 32 || (127..160).contains(&(c as u32)) => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}
