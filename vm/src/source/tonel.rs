//! The Tonel package reader and writer.
//!
//! It owns Pharo's Tonel file format: a package directory holds `package.st`
//! (`Package { #name : #'Kernel-Numbers' }`), one `Foo.class.st` per class (an optional
//! class comment, a `Class { ... }` definition, then methods) and `Foo.extension.st` files
//! (`Extension { #name : #Foo }` then methods). Each method is an optional metadata map
//! (`{ #category : #accessing }`), a header `Foo >> at: i put: v [` or
//! `Foo class >> new [`, and a body up to the matching `]`, found with the Smalltalk lexer
//! so that brackets inside strings, comments and character literals do not count. The
//! metadata maps are parsed by a small STON subset reader. Traits are rejected.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::compiler::ast::Literal;
use crate::compiler::lexer::{Lexer, Token, TokenKind, negate_literal};
use crate::compiler::parser::parse_method;

/// A problem in a Tonel file; `line` is 1-based, or 0 when it concerns the whole file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{}: {}", .file.display(), .line, .message)]
pub struct TonelError {
    /// The file (or directory) concerned.
    pub file: PathBuf,
    /// The 1-based line, 0 for the whole file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The memory layout of a class's instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClassKind {
    /// Named instance variables only (no `#type`).
    #[default]
    Fixed,
    /// Indexable pointer slots (`#variable`).
    Variable,
    /// Indexable bytes (`#bytes`).
    Bytes,
    /// Indexable 32-bit words (`#words`).
    Words,
    /// Indexable weak pointer slots (`#weak`).
    Weak,
}

/// A class definition read from a `.class.st` file.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassDef {
    /// The class name.
    pub name: String,
    /// The superclass name; `None` for `#superclass : #nil`.
    pub superclass: Option<String>,
    /// The instance layout.
    pub kind: ClassKind,
    /// Instance variable names.
    pub inst_vars: Vec<String>,
    /// Class variable names.
    pub class_vars: Vec<String>,
    /// Class-side instance variable names.
    pub class_inst_vars: Vec<String>,
    /// Shared pool names.
    pub pools: Vec<String>,
    /// The category (`#category`, else `#package` and `#tag` joined by `-`).
    pub category: String,
    /// The class comment, undoubled and trimmed ("" when absent).
    pub comment: String,
    /// The file it was read from.
    pub file: PathBuf,
    /// The line of `Class {`.
    pub line: usize,
}

/// A method read from a class or extension file.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodDef {
    /// The class it belongs to (without ` class`).
    pub class_name: String,
    /// Whether it is defined on the metaclass (`Foo class >> ...`).
    pub class_side: bool,
    /// The method category ("" when the metadata has none).
    pub category: String,
    /// The source as a browser shows it: the message pattern, and when the body is not
    /// empty a newline and the body (one leading tab removed per line, blank lines at
    /// either end dropped).
    pub source: String,
    /// The file it was read from.
    pub file: PathBuf,
    /// The 1-based file line of the header `Foo >> pattern [` (source line 1).
    pub line: usize,
    /// The file line of the first body line (source line 2).
    pub body_first_line: usize,
}

impl MethodDef {
    /// The file line of 1-based line `source_line` of [`MethodDef::source`].
    pub fn file_line(&self, source_line: usize) -> usize {
        if source_line <= 1 { self.line } else { self.body_first_line.saturating_add(source_line - 2) }
    }
}

/// A Tonel package: its classes and all its methods (class and extension methods, in
/// file order, files sorted by name).
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// The package name from `package.st`.
    pub name: String,
    /// The classes defined.
    pub classes: Vec<ClassDef>,
    /// The methods.
    pub methods: Vec<MethodDef>,
}

/// How deeply metadata maps and lists may nest.
const MAX_META_DEPTH: usize = 64;

/// Reads the package in directory `dir`.
pub fn read_package(dir: &Path) -> Result<Package, TonelError> {
    let package_file = dir.join("package.st");
    let text = read_text(&package_file)?;
    let name = parse_package_file(&package_file, &text)?;
    let entries = std::fs::read_dir(dir).map_err(|e| whole_file(dir, format!("cannot list: {e}")))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| whole_file(dir, format!("cannot list: {e}")))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if !file_name.ends_with(".st") || file_name == "package.st" || path.is_dir() {
            continue;
        }
        if file_name.ends_with(".trait.st") {
            return Err(whole_file(&path, "traits are not supported"));
        }
        if !file_name.ends_with(".class.st") && !file_name.ends_with(".extension.st") {
            return Err(whole_file(&path, "unexpected file (expected *.class.st or *.extension.st)"));
        }
        files.push((file_name, path));
    }
    files.sort();
    let mut package = Package { name, classes: Vec::new(), methods: Vec::new() };
    for (_, path) in files {
        let text = read_text(&path)?;
        let (class, methods) = parse_class_file(&path, &text)?;
        package.classes.extend(class);
        package.methods.extend(methods);
    }
    Ok(package)
}

/// Reads every package under `root`: each subdirectory holding a `package.st`, in name order.
pub fn read_packages(root: &Path) -> Result<Vec<Package>, TonelError> {
    let entries = std::fs::read_dir(root).map_err(|e| whole_file(root, format!("cannot list: {e}")))?;
    let mut dirs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| whole_file(root, format!("cannot list: {e}")))?;
        let path = entry.path();
        if path.is_dir() && path.join("package.st").is_file() {
            dirs.push((entry.file_name(), path));
        }
    }
    dirs.sort();
    dirs.iter().map(|(_, dir)| read_package(dir)).collect()
}

fn read_text(path: &Path) -> Result<String, TonelError> {
    let bytes = std::fs::read(path).map_err(|e| whole_file(path, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|_| whole_file(path, "not valid UTF-8"))
}

fn whole_file(path: &Path, message: impl Into<String>) -> TonelError {
    TonelError { file: path.to_path_buf(), line: 0, message: message.into() }
}

/// Parses `package.st` and returns the package name.
pub fn parse_package_file(path: &Path, text: &str) -> Result<String, TonelError> {
    let mut r = Reader::new(path, text);
    r.skip_comment()?;
    let token = r.next();
    match &token.kind {
        TokenKind::Ident(word) if word == "Package" => {}
        _ => return Err(r.error_at(token.start, "expected 'Package { ... }'")),
    }
    let map = r.map_value()?;
    let name = map_name(&map, "name").ok_or_else(|| r.error_at(token.start, "package definition has no #name"))?;
    let after = r.next();
    if after.kind != TokenKind::Eof {
        return Err(r.error_at(after.start, "unexpected text after the package definition"));
    }
    Ok(name)
}

/// Parses the text of a `.class.st` or `.extension.st` file. The class is `None` for an
/// extension file.
pub fn parse_class_file(path: &Path, text: &str) -> Result<(Option<ClassDef>, Vec<MethodDef>), TonelError> {
    let mut r = Reader::new(path, text);
    let comment = r.skip_comment()?.unwrap_or_default();
    let token = r.next();
    let word = match &token.kind {
        TokenKind::Ident(word) => word.as_str(),
        _ => "",
    };
    let map = match word {
        "Class" | "Extension" => r.map_value()?,
        "Trait" | "ClassTrait" => return Err(r.error_at(token.start, "traits are not supported")),
        _ => return Err(r.error_at(token.start, "expected 'Class {' or 'Extension {'")),
    };
    let line = r.line(token.start);
    let (class, class_name) = if word == "Class" {
        let class = class_def(&r, &map, comment, line)?;
        let name = class.name.clone();
        (Some(class), name)
    } else {
        let name = map_name(&map, "name").ok_or_else(|| r.error_at(token.start, "extension has no #name"))?;
        (None, name)
    };
    let mut methods = Vec::new();
    while let Some(method) = r.method(&class_name)? {
        methods.push(method);
    }
    Ok((class, methods))
}

/// A value in a metadata map (a subset of STON).
#[derive(Debug, Clone, PartialEq)]
enum Ston {
    Map(Vec<(String, Ston)>),
    List(Vec<Ston>),
    Symbol(String),
    String(String),
    Number(Literal),
    Bool(bool),
    Nil,
}

impl Ston {
    /// The text of a symbol or string value.
    fn name(&self) -> Option<String> {
        match self {
            Ston::Symbol(s) | Ston::String(s) => Some(s.clone()),
            _ => None,
        }
    }
}

fn lookup<'m>(map: &'m [(String, Ston)], key: &str) -> Option<&'m Ston> {
    map.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn map_name(map: &[(String, Ston)], key: &str) -> Option<String> {
    lookup(map, key).and_then(Ston::name)
}

fn class_def(r: &Reader<'_>, map: &[(String, Ston)], comment: String, line: usize) -> Result<ClassDef, TonelError> {
    let err = |message: String| TonelError { file: r.path.to_path_buf(), line, message };
    let name = map_name(map, "name").ok_or_else(|| err("class definition has no #name".into()))?;
    let superclass = match lookup(map, "superclass") {
        None | Some(Ston::Nil) => None,
        Some(value) => match value.name() {
            Some(s) if s == "nil" => None,
            Some(s) => Some(s),
            None => return Err(err("#superclass must be a symbol".into())),
        },
    };
    let kind = match map_name(map, "type").as_deref() {
        None | Some("normal") => ClassKind::Fixed,
        Some("variable") => ClassKind::Variable,
        Some("bytes") => ClassKind::Bytes,
        Some("words") => ClassKind::Words,
        Some("weak") => ClassKind::Weak,
        Some(other) => return Err(err(format!("unsupported class #type #{other}"))),
    };
    let names = |key: &str| -> Result<Vec<String>, TonelError> {
        match lookup(map, key) {
            None => Ok(Vec::new()),
            Some(Ston::List(items)) => {
                items.iter().map(|item| item.name().ok_or_else(|| err(format!("#{key} must list names")))).collect()
            }
            Some(_) => Err(err(format!("#{key} must be a list"))),
        }
    };
    let mut inst_vars = names("instVars")?;
    for slot in names("slots")? {
        let slot = slot.trim().trim_start_matches('#');
        if slot.contains("=>") || slot.is_empty() {
            return Err(err(format!("unsupported slot definition '{slot}'")));
        }
        inst_vars.push(slot.to_string());
    }
    let category = match (map_name(map, "category"), map_name(map, "package")) {
        (Some(category), _) => category,
        (None, Some(package)) => match map_name(map, "tag") {
            Some(tag) if !tag.is_empty() => format!("{package}-{tag}"),
            _ => package,
        },
        (None, None) => String::new(),
    };
    Ok(ClassDef {
        name,
        superclass,
        kind,
        inst_vars,
        class_vars: names("classVars")?,
        class_inst_vars: names("classInstVars")?,
        pools: names("pools")?,
        category,
        comment,
        file: r.path.to_path_buf(),
        line,
    })
}

/// A cursor over one Tonel file.
struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    lexer: Lexer<'a>,
    peeked: Option<Token>,
    line_starts: Vec<usize>,
}

impl<'a> Reader<'a> {
    fn new(path: &'a Path, text: &'a str) -> Reader<'a> {
        let start = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Reader { path, text, lexer: Lexer::starting_at(text, start), peeked: None, line_starts }
    }

    fn line(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> TonelError {
        TonelError { file: self.path.to_path_buf(), line: self.line(offset), message: message.into() }
    }

    fn next(&mut self) -> Token {
        self.peeked.take().unwrap_or_else(|| self.lexer.next_token())
    }

    fn peek(&mut self) -> &Token {
        self.peeked.get_or_insert_with(|| self.lexer.next_token())
    }

    /// Skips whitespace and reads a leading `"comment"` (quotes doubled inside), returning
    /// its trimmed text.
    fn skip_comment(&mut self) -> Result<Option<String>, TonelError> {
        let mut pos = self.lexer.position();
        let rest = self.text.get(pos..).unwrap_or_default();
        pos += rest.len() - rest.trim_start().len();
        if !self.text.get(pos..).unwrap_or_default().starts_with('"') {
            return Ok(None);
        }
        let open = pos;
        let mut comment = String::new();
        pos += 1;
        loop {
            let rest = self.text.get(pos..).unwrap_or_default();
            let Some(i) = rest.find('"') else {
                return Err(self.error_at(open, "unterminated class comment"));
            };
            comment.push_str(rest.get(..i).unwrap_or_default());
            pos += i + 1;
            if self.text.get(pos..).unwrap_or_default().starts_with('"') {
                comment.push('"');
                pos += 1;
            } else {
                break;
            }
        }
        self.lexer = Lexer::starting_at(self.text, pos);
        self.peeked = None;
        Ok(Some(comment.trim().to_string()))
    }

    fn map_value(&mut self) -> Result<Vec<(String, Ston)>, TonelError> {
        let offset = self.peek().start;
        match self.value(0)? {
            Ston::Map(map) => Ok(map),
            _ => Err(self.error_at(offset, "expected a '{ ... }' map")),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Ston, TonelError> {
        let token = self.next();
        if depth > MAX_META_DEPTH {
            return Err(self.error_at(token.start, "metadata nested too deeply"));
        }
        match token.kind {
            TokenKind::LBrace => self.map_entries(depth),
            TokenKind::LBracket => {
                let mut items = Vec::new();
                if self.peek().kind == TokenKind::RBracket {
                    self.next();
                    return Ok(Ston::List(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.separator(&TokenKind::RBracket, "expected ',' or ']'")? {
                        return Ok(Ston::List(items));
                    }
                }
            }
            TokenKind::Symbol(s) => Ok(Ston::Symbol(s)),
            TokenKind::String(s) => Ok(Ston::String(s)),
            TokenKind::Number(n) => Ok(Ston::Number(n)),
            TokenKind::Ident(word) if word == "true" || word == "false" => Ok(Ston::Bool(word == "true")),
            TokenKind::Ident(word) if word == "nil" => Ok(Ston::Nil),
            TokenKind::Binary(op) if op == "-" => {
                let number = self.next();
                match number.kind {
                    TokenKind::Number(n) if number.start == token.end => Ok(Ston::Number(negate_literal(n))),
                    _ => Err(self.error_at(token.start, "expected a number after '-'")),
                }
            }
            TokenKind::Error(message) => Err(self.error_at(token.start, message)),
            _ => Err(self.error_at(token.start, "expected a metadata value")),
        }
    }

    /// The entries of a map whose `{` is consumed.
    fn map_entries(&mut self, depth: usize) -> Result<Ston, TonelError> {
        let mut entries = Vec::new();
        if self.peek().kind == TokenKind::RBrace {
            self.next();
            return Ok(Ston::Map(entries));
        }
        loop {
            let key_token = self.next();
            let key = match key_token.kind {
                // `#name:` written without a space before the colon.
                TokenKind::Symbol(s) if s.ends_with(':') && self.peek().kind != TokenKind::Colon => {
                    s.trim_end_matches(':').to_string()
                }
                TokenKind::Symbol(s) | TokenKind::String(s) => {
                    if self.next().kind != TokenKind::Colon {
                        return Err(self.error_at(key_token.start, "expected ':' after a map key"));
                    }
                    s
                }
                _ => return Err(self.error_at(key_token.start, "expected a map key such as #name")),
            };
            let value = self.value(depth + 1)?;
            entries.push((key, value));
            if self.separator(&TokenKind::RBrace, "expected ',' or '}'")? {
                return Ok(Ston::Map(entries));
            }
        }
    }

    /// Consumes `,` (returning false) or `close` (returning true).
    fn separator(&mut self, close: &TokenKind, message: &str) -> Result<bool, TonelError> {
        let token = self.next();
        match &token.kind {
            TokenKind::Binary(op) if op == "," => Ok(false),
            kind if kind == close => Ok(true),
            _ => Err(self.error_at(token.start, message)),
        }
    }

    /// The next method, or `None` at the end of the file.
    fn method(&mut self, class_name: &str) -> Result<Option<MethodDef>, TonelError> {
        let mut category = String::new();
        match self.peek().kind {
            TokenKind::Eof => return Ok(None),
            TokenKind::LBrace => {
                let metadata = self.map_value()?;
                category = map_name(&metadata, "category").unwrap_or_default();
            }
            _ => {}
        }
        let header = self.next();
        let TokenKind::Ident(name) = &header.kind else {
            return Err(self.error_at(header.start, "expected a method definition 'Class >> selector ['"));
        };
        if name != class_name {
            let message = format!("method of '{name}' in the file of '{class_name}'");
            return Err(self.error_at(header.start, message));
        }
        let mut class_side = false;
        if matches!(&self.peek().kind, TokenKind::Ident(word) if word == "class") {
            self.next();
            class_side = true;
        }
        if !matches!(&self.next().kind, TokenKind::Binary(op) if op == ">>") {
            return Err(self.error_at(header.start, "expected '>>' in the method header"));
        }
        let pattern = self.pattern(header.start)?;
        let open = self.next();
        if open.kind != TokenKind::LBracket {
            return Err(self.error_at(open.start, "expected '[' to start the method body"));
        }
        let close = self.body_end(header.start)?;
        let raw = self.text.get(open.end..close).unwrap_or_default();
        let (body, first) = normalize_body(raw);
        let line = self.line(header.start);
        let body_first_line = self.line(open.end) + first;
        let source = if body.is_empty() { pattern } else { format!("{pattern}\n{body}") };
        let file = self.path.to_path_buf();
        let class_name = class_name.to_string();
        Ok(Some(MethodDef { class_name, class_side, category, source, file, line, body_first_line }))
    }

    /// The message pattern of a header, normalized to single spaces.
    fn pattern(&mut self, header: usize) -> Result<String, TonelError> {
        let mut parts = Vec::new();
        let bad = |r: &Self| r.error_at(header, "expected a message pattern after '>>'");
        match self.next().kind {
            TokenKind::Ident(name) => parts.push(name),
            TokenKind::Binary(op) => {
                parts.push(op);
                match self.next().kind {
                    TokenKind::Ident(arg) => parts.push(arg),
                    _ => return Err(bad(self)),
                }
            }
            TokenKind::Keyword(keyword) => {
                parts.push(keyword);
                loop {
                    match self.next().kind {
                        TokenKind::Ident(arg) => parts.push(arg),
                        _ => return Err(bad(self)),
                    }
                    match &self.peek().kind {
                        TokenKind::Keyword(k) => {
                            parts.push(k.clone());
                            self.next();
                        }
                        _ => break,
                    }
                }
            }
            _ => return Err(bad(self)),
        }
        Ok(parts.join(" "))
    }

    /// Finds the `]` closing a method body whose `[` was just consumed; returns its offset
    /// and leaves the reader after it.
    fn body_end(&mut self, header: usize) -> Result<usize, TonelError> {
        let mut depth = 1usize;
        let mut problem: Option<(String, usize)> = None;
        loop {
            let token = self.next();
            match token.kind {
                TokenKind::LBracket | TokenKind::ByteArrayStart => depth += 1,
                TokenKind::RBracket => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(token.start);
                    }
                }
                TokenKind::Error(message) => {
                    problem.get_or_insert((message, token.start));
                }
                TokenKind::Eof => {
                    let mut message = "method body is not closed by ']'".to_string();
                    if let Some((detail, at)) = problem {
                        let _ = write!(message, " ({detail} at line {})", self.line(at));
                    }
                    return Err(self.error_at(header, message));
                }
                _ => {}
            }
        }
    }
}

/// Drops blank lines at both ends, removes one leading tab per line, and trims text that
/// shares a line with the brackets. Returns the body and the index of its first line
/// within `raw`.
fn normalize_body(raw: &str) -> (String, usize) {
    let lines: Vec<&str> = raw.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let blank = |l: &&str| l.trim().is_empty();
    let Some(first) = lines.iter().position(|l| !blank(l)) else {
        return (String::new(), 0);
    };
    let last = lines.iter().rposition(|l| !blank(l)).unwrap_or(first);
    let count = lines.len();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate().take(last + 1).skip(first) {
        let mut line = line.strip_prefix('\t').unwrap_or(line);
        if i == 0 {
            line = line.trim_start();
        }
        if i + 1 == count {
            line = line.trim_end();
        }
        out.push(line);
    }
    (out.join("\n"), first)
}

/// Writes a symbol literal: `#foo`, `#at:put:`, or `#'with spaces'`.
fn symbol(name: &str) -> String {
    let plain = !name.is_empty()
        && name.split_inclusive(':').all(|part| {
            let word = part.strip_suffix(':').unwrap_or(part);
            let mut chars = word.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        && (!name.contains(':') || name.ends_with(':'));
    if plain { format!("#{name}") } else { format!("#{}", string(name)) }
}

/// Writes a string literal with quotes doubled.
fn string(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn write_names(out: &mut String, key: &str, names: &[String]) {
    if names.is_empty() {
        return;
    }
    let _ = write!(out, ",\n\t#{key} : [\n");
    let items: Vec<String> = names.iter().map(|n| format!("\t\t{}", string(n))).collect();
    let _ = write!(out, "{}\n\t]", items.join(",\n"));
}

/// Writes a class file: comment, definition, then `methods` in order. Reading the result
/// gives back `class` and `methods` (apart from file and line fields) when their text is
/// normalized as the reader produces it.
pub fn write_class_file(class: &ClassDef, methods: &[MethodDef]) -> String {
    let mut out = String::new();
    if !class.comment.is_empty() {
        let _ = write!(out, "\"\n{}\n\"\n", class.comment.replace('"', "\"\""));
    }
    let _ = write!(out, "Class {{\n\t#name : {}", symbol(&class.name));
    let superclass = class.superclass.as_deref().unwrap_or("nil");
    let _ = write!(out, ",\n\t#superclass : {}", symbol(superclass));
    let kind = match class.kind {
        ClassKind::Fixed => None,
        ClassKind::Variable => Some("variable"),
        ClassKind::Bytes => Some("bytes"),
        ClassKind::Words => Some("words"),
        ClassKind::Weak => Some("weak"),
    };
    if let Some(kind) = kind {
        let _ = write!(out, ",\n\t#type : #{kind}");
    }
    write_names(&mut out, "instVars", &class.inst_vars);
    write_names(&mut out, "classVars", &class.class_vars);
    write_names(&mut out, "classInstVars", &class.class_inst_vars);
    write_names(&mut out, "pools", &class.pools);
    let _ = write!(out, ",\n\t#category : {}\n}}\n", symbol(&class.category));
    write_methods(&mut out, &class.name, methods);
    out
}

/// Writes an extension file for `class_name` holding `methods`.
pub fn write_extension_file(class_name: &str, methods: &[MethodDef]) -> String {
    let mut out = format!("Extension {{ #name : {} }}\n", symbol(class_name));
    write_methods(&mut out, class_name, methods);
    out
}

fn write_methods(out: &mut String, class_name: &str, methods: &[MethodDef]) {
    for method in methods {
        out.push('\n');
        if !method.category.is_empty() {
            let _ = writeln!(out, "{{ #category : {} }}", symbol(&method.category));
        }
        let side = if method.class_side { " class" } else { "" };
        let (pattern, body) = split_source(&method.source);
        let _ = writeln!(out, "{class_name}{side} >> {pattern} [");
        for line in body.lines() {
            if !line.is_empty() {
                out.push('\t');
            }
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("]\n");
    }
}

/// Splits method source into its pattern (on one line) and its body.
fn split_source(source: &str) -> (String, &str) {
    if let Ok(method) = parse_method(source) {
        let start = method.pattern_span.start as usize;
        let end = method.pattern_span.end as usize;
        if let (Some(pattern), Some(rest)) = (source.get(start..end), source.get(end..)) {
            let pattern = pattern.split_whitespace().collect::<Vec<_>>().join(" ");
            let rest = rest.trim_start_matches([' ', '\t']);
            let rest = rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n')).unwrap_or(rest);
            return (pattern, rest);
        }
    }
    match source.split_once('\n') {
        Some((pattern, body)) => (pattern.trim().to_string(), body),
        None => (source.trim().to_string(), ""),
    }
}

#[cfg(test)]
mod tests;
