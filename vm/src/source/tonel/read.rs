//! Reading Tonel files: `package.st`, class and extension files, and the folder's
//! `.properties`. A method body ends at the `]` matching its `[`, found with the Smalltalk
//! lexer so that brackets inside strings, comments, character literals and literal arrays do
//! not count; the body's text is kept as written.

use std::path::Path;

use crate::compiler::lexer::{Lexer, TokenKind};
use crate::source::model::{ClassDef, ClassKind, MethodDef, SourceError, Spelling, Version};
use crate::source::ston::{self, Ston, lookup};
use crate::source::{message_pattern, read_text};

/// The version a repository's `.properties` names (`{ #format : #tonel, #version : '3.0' }`),
/// `None` when it names none or the file is absent.
pub fn read_properties(root: &Path) -> Result<Option<Version>, SourceError> {
    let path = root.join(".properties");
    if !path.is_file() {
        return Ok(None);
    }
    let text = read_text(&path)?;
    let mut r = Reader::new(&path, &text);
    let map = r.map()?;
    if let Some(format) = lookup(&map, "format").and_then(Ston::name)
        && format != "tonel"
    {
        return Err(r.error_at(0, format!("the format is {format}, not tonel")));
    }
    Ok(lookup(&map, "version").and_then(Ston::name).map(|v| match v {
        "2.0" => Version::V2,
        "3.0" => Version::V3,
        _ => Version::V1,
    }))
}

/// Parses `package.st`: the package name, and how it is written.
pub fn parse_package_file(path: &Path, text: &str) -> Result<(String, Spelling), SourceError> {
    let mut r = Reader::new(path, text);
    r.skip_space();
    let start = r.pos;
    if r.word() != "Package" {
        return Err(r.error_at(start, "expected 'Package { ... }'"));
    }
    let map = r.map()?;
    let name = match lookup(&map, "name") {
        Some(Ston::Symbol(name)) => (name.clone(), Spelling::Symbol),
        Some(Ston::String(name)) => (name.clone(), Spelling::String),
        _ => return Err(r.error_at(start, "package definition has no #name")),
    };
    r.skip_space();
    if r.pos < text.len() {
        return Err(r.error_at(r.pos, "unexpected text after the package definition"));
    }
    Ok(name)
}

/// Parses the text of a `.class.st` or `.extension.st` file. The class is `None` for an
/// extension file.
pub fn parse_class_file(path: &Path, text: &str) -> Result<(Option<ClassDef>, Vec<MethodDef>), SourceError> {
    let mut r = Reader::new(path, text);
    let comment = r.comment()?.unwrap_or_default();
    r.skip_space();
    let start = r.pos;
    let word = r.word();
    let map = match word.as_str() {
        "Class" | "Extension" => r.map()?,
        "Trait" | "ClassTrait" => return Err(r.error_at(start, "traits are not supported")),
        _ => return Err(r.error_at(start, "expected 'Class {' or 'Extension {'")),
    };
    let line = r.line(start);
    let (class, class_name) = if word == "Class" {
        let class = class_def(&r, &map, comment, line)?;
        let name = class.name.clone();
        (Some(class), name)
    } else {
        let name =
            lookup(&map, "name").and_then(Ston::name).ok_or_else(|| r.error_at(start, "extension has no #name"))?;
        (None, name.to_string())
    };
    let mut methods = Vec::new();
    while let Some(method) = r.method(&class_name)? {
        methods.push(method);
    }
    Ok((class, methods))
}

fn class_def(r: &Reader<'_>, map: &[(String, Ston)], comment: String, line: usize) -> Result<ClassDef, SourceError> {
    let err = |message: String| SourceError { file: r.path.to_path_buf(), line, message };
    let name = lookup(map, "name").and_then(Ston::name).ok_or_else(|| err("class definition has no #name".into()))?;
    let superclass = match lookup(map, "superclass") {
        None | Some(Ston::Nil) => None,
        Some(value) => match value.name() {
            Some("nil") => None,
            Some(s) => Some(s.to_string()),
            None => return Err(err("#superclass must be a symbol".into())),
        },
    };
    let kind = match lookup(map, "type").and_then(Ston::name) {
        None => ClassKind::Fixed,
        Some(name) => ClassKind::named(name).ok_or_else(|| err(format!("unsupported class #type #{name}")))?,
    };
    let names = |key: &str| ston::names(map, key).map_err(|why| err(format!("#{key} {why}")));
    for key in ["traits", "classTraits"] {
        if lookup(map, key).is_some_and(|t| t.name() != Some("")) {
            return Err(err(format!("traits are not supported (#{key})")));
        }
    }
    let mut inst_vars = names("instVars")?;
    for slot in names("slots")? {
        let slot = slot.trim().trim_start_matches('#');
        if slot.contains("=>") || slot.is_empty() {
            return Err(err(format!("unsupported slot definition '{slot}'")));
        }
        inst_vars.push(slot.to_string());
    }
    let text = |key: &str| lookup(map, key).and_then(Ston::name).map(str::to_string);
    let (package, tag) = (text("package"), text("tag"));
    let (category, category_spelling) = match (lookup(map, "category"), &package) {
        (Some(Ston::Symbol(category)), _) => (category.clone(), Spelling::Symbol),
        (Some(Ston::String(category)), _) => (category.clone(), Spelling::String),
        (Some(_), _) => return Err(err("#category must be a symbol or a string".into())),
        (None, Some(package)) => match &tag {
            Some(tag) if !tag.is_empty() => (format!("{package}-{tag}"), Spelling::String),
            _ => (package.clone(), Spelling::String),
        },
        (None, None) => (String::new(), Spelling::Symbol),
    };
    Ok(ClassDef {
        name: name.to_string(),
        superclass,
        kind,
        inst_vars,
        class_vars: names("classVars")?,
        class_inst_vars: names("classInstVars")?,
        pools: names("pools")?,
        category,
        category_spelling,
        package,
        tag,
        comment,
        comment_stamp: String::new(),
        file: r.path.to_path_buf(),
        line,
    })
}

/// A cursor over one Tonel file.
struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    pos: usize,
    line_starts: Vec<usize>,
}

impl<'a> Reader<'a> {
    fn new(path: &'a Path, text: &'a str) -> Reader<'a> {
        let pos = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Reader { path, text, pos, line_starts }
    }

    fn line(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> SourceError {
        SourceError { file: self.path.to_path_buf(), line: self.line(offset), message: message.into() }
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn word(&mut self) -> String {
        let rest = self.rest();
        let end = rest.find(|c: char| !c.is_alphanumeric()).unwrap_or(rest.len());
        self.pos += end;
        rest.get(..end).unwrap_or_default().to_string()
    }

    fn map(&mut self) -> Result<Vec<(String, Ston)>, SourceError> {
        self.skip_space();
        let at = self.pos;
        let (value, end) = ston::read(self.text, self.pos).map_err(|(at, message)| self.error_at(at, message))?;
        self.pos = end;
        match value {
            Ston::Map(map) => Ok(map),
            _ => Err(self.error_at(at, "expected a '{ ... }' map")),
        }
    }

    /// Reads a leading `"comment"`: quotes doubled inside are one, and one line break (with
    /// the spaces before it) after the opening quote and before the closing one are the
    /// file's, not the comment's.
    fn comment(&mut self) -> Result<Option<String>, SourceError> {
        self.skip_space();
        if !self.rest().starts_with('"') {
            return Ok(None);
        }
        let open = self.pos;
        let mut comment = String::new();
        self.pos += 1;
        loop {
            let rest = self.rest();
            let Some(i) = rest.find('"') else {
                return Err(self.error_at(open, "unterminated class comment"));
            };
            comment.push_str(rest.get(..i).unwrap_or_default());
            self.pos += i + 1;
            if self.rest().starts_with('"') {
                comment.push('"');
                self.pos += 1;
            } else {
                break;
            }
        }
        let start = comment.trim_start_matches([' ', '\t']);
        let comment = start.strip_prefix("\r\n").or_else(|| start.strip_prefix('\n')).unwrap_or(&comment);
        let end = comment.trim_end_matches([' ', '\t']);
        let comment = end.strip_suffix('\n').map(|c| c.strip_suffix('\r').unwrap_or(c)).unwrap_or(comment);
        Ok(Some(comment.to_string()))
    }

    /// The next method, or `None` at the end of the file.
    fn method(&mut self, class_name: &str) -> Result<Option<MethodDef>, SourceError> {
        self.skip_space();
        if self.pos >= self.text.len() {
            return Ok(None);
        }
        let mut category = String::new();
        if self.rest().starts_with('{') {
            let metadata = self.map()?;
            category = lookup(&metadata, "category").and_then(Ston::name).unwrap_or_default().to_string();
        }
        let mut lexer = Lexer::starting_at(self.text, self.pos);
        let header = lexer.next_token();
        let TokenKind::Ident(name) = &header.kind else {
            return Err(self.error_at(header.start, "expected a method definition 'Class >> selector ['"));
        };
        if name != class_name {
            return Err(self.error_at(header.start, format!("method of '{name}' in the file of '{class_name}'")));
        }
        let mut token = lexer.next_token();
        let class_side = matches!(&token.kind, TokenKind::Ident(word) if word == "class");
        if class_side {
            token = lexer.next_token();
        }
        if !matches!(&token.kind, TokenKind::Binary(op) if op == ">>") {
            return Err(self.error_at(header.start, "expected '>>' in the method header"));
        }
        let after_arrows = token.end;
        let (selector, open) = message_pattern(&mut lexer)
            .filter(|(_, open)| open.kind == TokenKind::LBracket)
            .map(|(selector, open)| (selector, (open.start, open.end)))
            .ok_or_else(|| self.error_at(header.start, "expected a message pattern after '>>' and '['"))?;
        let close = self.body_end(&mut lexer, header.start)?;
        let declaration = self.text.get(after_arrows..open.0).unwrap_or_default();
        let declaration = declaration.strip_suffix(' ').unwrap_or(declaration);
        let starts = after_arrows + declaration.len() - declaration.trim_start().len();
        let declaration = declaration.trim_start();
        let body = self.text.get(open.1..close).unwrap_or_default().trim_end_matches([' ', '\t']);
        let body = body.strip_suffix('\n').map(|b| b.strip_suffix('\r').unwrap_or(b)).unwrap_or(body);
        let line = self.line(starts);
        self.pos = lexer.position();
        Ok(Some(MethodDef {
            class_name: class_name.to_string(),
            class_side,
            selector,
            category,
            source: format!("{declaration}{body}"),
            stamp: String::new(),
            file: self.path.to_path_buf(),
            line,
        }))
    }

    /// Finds the `]` closing a method body whose `[` was just read; answers its offset.
    fn body_end(&self, lexer: &mut Lexer<'_>, header: usize) -> Result<usize, SourceError> {
        let mut depth = 1usize;
        let mut problem: Option<(String, usize)> = None;
        loop {
            let token = lexer.next_token();
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
                        message.push_str(&format!(" ({detail} at line {})", self.line(at)));
                    }
                    return Err(self.error_at(header, message));
                }
                _ => {}
            }
        }
    }
}
