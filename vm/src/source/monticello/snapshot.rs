//! A Monticello snapshot (`snapshot/source.st`): a package's definitions in chunk format,
//! read with each method's source exactly as written, and written as Monticello's
//! `MCStWriter` writes them: the categories, each class definition (superclasses first) with
//! its class-side instance variables and its comment, each method in a
//! `methodsFor:stamp:` section of its own, then the class-side initializers.
//!
//! The text here has line feeds; the `.mcz` holds carriage returns (see `monticello`).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::compiler::lexer::{Lexer, TokenKind};
use crate::source::chunk::split_chunks;
use crate::source::message_pattern;
use crate::source::model::{ClassDef, ClassKind, MethodDef, Package, SourceError};

/// Reads the definitions of a snapshot's text into `package`; `file` names it in errors.
pub fn read(file: &Path, text: &str, package: &mut Package) -> Result<(), SourceError> {
    let error = |line: usize, message: String| SourceError { file: file.to_path_buf(), line, message };
    let mut section: Option<(String, bool, String, String)> = None;
    let mut comment_for: Option<(String, String)> = None;
    for chunk in split_chunks(text) {
        if !chunk.terminated {
            return Err(error(chunk.line, "chunk is not terminated by '!'".into()));
        }
        let exact = chunk.text.trim_start();
        if let Some((class_name, class_side, category, stamp)) = &section {
            if exact.trim().is_empty() {
                section = None;
                continue;
            }
            let Some((selector, _)) = message_pattern(&mut Lexer::new(exact)) else {
                return Err(error(chunk.line, "expected a method's message pattern".into()));
            };
            package.methods.push(MethodDef {
                class_name: class_name.clone(),
                class_side: *class_side,
                selector,
                category: category.clone(),
                source: exact.to_string(),
                stamp: stamp.clone(),
                file: file.to_path_buf(),
                line: chunk.line,
            });
            continue;
        }
        if let Some((class_name, stamp)) = comment_for.take() {
            let Some(class) = package.classes.iter_mut().find(|c| c.name == class_name) else {
                return Err(error(chunk.line, format!("a comment of {class_name}, which is not defined before it")));
            };
            class.comment = exact.to_string();
            class.comment_stamp = stamp;
            continue;
        }
        if exact.trim().is_empty() {
            continue;
        }
        if exact.starts_with("Trait ") {
            return Err(error(chunk.line, "traits are not supported".into()));
        }
        let message = Message::parse(exact).ok_or_else(|| error(chunk.line, unknown(exact)))?;
        match (message.receiver.as_slice(), message.keywords().as_slice()) {
            ([class, side @ ..], ["methodsFor:", rest @ ..])
                if side.iter().all(|s| s == "class") && side.len() <= 1 && rest.iter().all(|k| *k == "stamp:") =>
            {
                let category = message.text(0).unwrap_or_default();
                let stamp = message.text(1).unwrap_or_default();
                section = Some((class.clone(), side.len() == 1, category, stamp));
            }
            ([class], ["commentStamp:", "prior:"]) => {
                comment_for = Some((class.clone(), message.text(0).unwrap_or_default()));
            }
            ([class, side], ["instanceVariableNames:"]) if side == "class" => {
                let Some(def) = package.classes.iter_mut().find(|c| &c.name == class) else {
                    let text = format!("class-side variables of {class}, which is not defined before them");
                    return Err(error(chunk.line, text));
                };
                def.class_inst_vars = names(&message.text(0).unwrap_or_default());
            }
            ([_, side], [..]) if side == "class" => {
                return Err(error(chunk.line, "traits (a class side that uses one) are not supported".into()));
            }
            ([organization], _) if organization == "SystemOrganization" => {}
            ([_, unary], []) if unary == "initialize" => {}
            ([superclass], [kind, ..]) => {
                let mut def = class_definition(&message, superclass, kind).map_err(|m| error(chunk.line, m))?;
                def.file = file.to_path_buf();
                def.line = chunk.line;
                package.classes.push(def);
            }
            _ => return Err(error(chunk.line, unknown(exact))),
        }
    }
    if let Some((class_name, _)) = comment_for {
        let message = format!("the comment of {class_name} is missing after 'commentStamp:'");
        return Err(error(text.lines().count().max(1), message));
    }
    Ok(())
}

fn unknown(chunk: &str) -> String {
    let first = chunk.lines().next().unwrap_or_default();
    format!("a chunk Monticello does not write: {first}")
}

/// The class that `Super subclass: #Name instanceVariableNames: ... category: ...` defines.
fn class_definition(message: &Message, superclass: &str, kind: &str) -> Result<ClassDef, String> {
    let kind = match kind {
        "subclass:" => ClassKind::Fixed,
        "variableSubclass:" => ClassKind::Variable,
        "variableByteSubclass:" => ClassKind::Bytes,
        "variableWordSubclass:" => ClassKind::Words,
        "weakSubclass:" => ClassKind::Weak,
        other => return Err(format!("'{other}' defines a kind of class Onyx does not have")),
    };
    let name = message.text(0).filter(|n| !n.is_empty()).ok_or("expected the class name as a symbol")?;
    let mut def = ClassDef {
        name,
        superclass: (superclass != "nil").then(|| superclass.to_string()),
        kind,
        inst_vars: Vec::new(),
        class_vars: Vec::new(),
        class_inst_vars: Vec::new(),
        pools: Vec::new(),
        category: String::new(),
        category_spelling: Default::default(),
        package: None,
        tag: None,
        comment: String::new(),
        comment_stamp: String::new(),
        file: Default::default(),
        line: 0,
    };
    let mut tag = None;
    for (i, keyword) in message.keywords().iter().enumerate().skip(1) {
        let text = message.text(i).ok_or_else(|| format!("'{keyword}' expects a string"))?;
        match *keyword {
            "instanceVariableNames:" => def.inst_vars = names(&text),
            "classVariableNames:" => def.class_vars = names(&text),
            "poolDictionaries:" => def.pools = names(&text),
            "category:" | "package:" => def.category = text,
            "tag:" => tag = Some(text),
            other => return Err(format!("'{other}' in a class definition is not supported")),
        }
    }
    if let Some(tag) = tag.filter(|t| !t.is_empty()) {
        def.category = format!("{}-{tag}", def.category);
    }
    Ok(def)
}

fn names(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// A chunk that is one message: receiver words (`Foo`, `Foo class`, `Foo initialize`), then
/// keywords, each with one literal argument.
struct Message {
    receiver: Vec<String>,
    parts: Vec<(String, Option<String>)>,
}

impl Message {
    fn parse(chunk: &str) -> Option<Message> {
        let mut lexer = Lexer::new(chunk);
        let mut message = Message { receiver: Vec::new(), parts: Vec::new() };
        loop {
            match lexer.next_token().kind {
                TokenKind::Ident(word) if message.parts.is_empty() => message.receiver.push(word),
                TokenKind::Keyword(keyword) if !message.receiver.is_empty() => {
                    let argument = match lexer.next_token().kind {
                        TokenKind::String(s) | TokenKind::Symbol(s) => Some(s),
                        TokenKind::Number(_) | TokenKind::Ident(_) => None,
                        _ => return None,
                    };
                    message.parts.push((keyword, argument));
                }
                TokenKind::Eof => return Some(message),
                _ => return None,
            }
        }
    }

    fn keywords(&self) -> Vec<&str> {
        self.parts.iter().map(|(k, _)| k.as_str()).collect()
    }

    /// The `i`th argument, if it is a string or a symbol.
    fn text(&self, i: usize) -> Option<String> {
        self.parts.get(i).and_then(|(_, a)| a.clone())
    }
}

/// The snapshot of `package` as Monticello writes it (with line feeds).
pub fn write(package: &Package) -> String {
    let mut out = String::new();
    let mut categories: Vec<&str> = Vec::new();
    for class in &package.classes {
        if !categories.contains(&class.category.as_str()) {
            categories.push(&class.category);
        }
    }
    for category in &categories {
        out.push_str(&format!("SystemOrganization addCategory: {}!\n", symbol(category)));
    }
    for class in superclasses_first(&package.classes) {
        out.push('\n');
        chunk(&mut out, &definition(class));
        out.push('\n');
        if !class.class_inst_vars.is_empty() {
            out.push('\n');
            let text =
                format!("{} class\n\tinstanceVariableNames: {}", class.name, quote(&class.class_inst_vars.join(" ")));
            chunk(&mut out, &text);
            out.push('\n');
        }
        if !class.comment.is_empty() {
            out.push_str(&format!("\n!{} commentStamp: {} prior: 0!\n", class.name, quote(&class.comment_stamp)));
            chunk(&mut out, &class.comment);
            out.push('\n');
        }
    }
    let mut methods: Vec<&MethodDef> = package.methods.iter().collect();
    methods.sort_by(|a, b| (&a.class_name, a.class_side, &a.selector).cmp(&(&b.class_name, b.class_side, &b.selector)));
    for m in &methods {
        let class = if m.class_side { format!("{} class", m.class_name) } else { m.class_name.clone() };
        out.push_str(&format!("\n!{class} methodsFor: {} stamp: {}!\n", quote(&m.category), quote(&m.stamp)));
        chunk(&mut out, &m.source);
        out.push_str(" !\n");
    }
    for m in methods.iter().filter(|m| m.class_side && m.selector == "initialize") {
        chunk(&mut out, &format!("{} initialize", m.class_name));
        out.push('\n');
    }
    out
}

/// `text` as one chunk: every `!` doubled, then the `!` that ends it.
fn chunk(out: &mut String, text: &str) {
    out.push_str(&text.replace('!', "!!"));
    out.push('!');
}

/// A category as a Symbol prints: `#Shop` or `#'Shop-Core'`.
fn symbol(text: &str) -> String {
    let mut chars = text.chars();
    let simple = chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.all(|c| c.is_ascii_alphanumeric());
    if simple { format!("#{text}") } else { format!("#{}", quote(text)) }
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn definition(class: &ClassDef) -> String {
    let kind = match class.kind {
        ClassKind::Fixed => "subclass:",
        ClassKind::Variable => "variableSubclass:",
        ClassKind::Bytes => "variableByteSubclass:",
        ClassKind::Words => "variableWordSubclass:",
        ClassKind::Weak => "weakSubclass:",
    };
    format!(
        "{} {kind} #{}\n\tinstanceVariableNames: {}\n\tclassVariableNames: {}\n\tpoolDictionaries: {}\n\tcategory: {}",
        class.superclass.as_deref().unwrap_or("nil"),
        class.name,
        quote(&class.inst_vars.join(" ")),
        quote(&class.class_vars.join(" ")),
        quote(&class.pools.join(" ")),
        quote(&class.category)
    )
}

/// The classes as Monticello's dependency sorter orders them: by name, except that a class
/// whose superclass the package defines waits for it and follows it.
fn superclasses_first(classes: &[ClassDef]) -> Vec<&ClassDef> {
    let mut sorted: Vec<&ClassDef> = classes.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let defined: HashSet<&str> = sorted.iter().map(|c| c.name.as_str()).collect();
    let mut waiting: HashMap<&str, Vec<&ClassDef>> = HashMap::new();
    let mut out: Vec<&ClassDef> = Vec::with_capacity(sorted.len());
    let mut done: HashSet<&str> = HashSet::new();
    for class in sorted {
        match class.superclass.as_deref() {
            Some(s) if s != class.name && defined.contains(s) && !done.contains(s) => {
                waiting.entry(s).or_default().push(class);
            }
            _ => {
                let mut ready = vec![class];
                while let Some(c) = ready.pop() {
                    out.push(c);
                    done.insert(&c.name);
                    ready.extend(waiting.remove(c.name.as_str()).unwrap_or_default().into_iter().rev());
                }
            }
        }
    }
    // Classes whose superclasses form a cycle, by name.
    let mut rest: Vec<&ClassDef> = waiting.into_values().flatten().collect();
    rest.sort_by(|a, b| a.name.cmp(&b.name));
    out.extend(rest);
    out
}
