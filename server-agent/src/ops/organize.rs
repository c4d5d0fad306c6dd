//! Organising code, for a user who may change code: protocols named, renamed and removed,
//! methods moved from one protocol to another, class comments, and classes renamed (with the
//! methods that name them rewritten). Each is a message to the class
//! (`ClassDescription>>addProtocol:`, `renameProtocol:as:`, `removeProtocol:`,
//! `classify:under:`, `Class>>comment:`, `Class>>rename:`), so the tools and Smalltalk code do
//! the same thing.

use onyx_vm::Vm;
use onyx_vm::compiler::lexer::{Lexer, TokenKind};

use super::request::{Answer, ClassRef, ErrorKind, Failure, MethodRef, Outcome};
use super::{browse, class, may_change_code, search, send};

/// A protocol's name as the user gave it: something besides blanks.
fn protocol_name(name: &str) -> Result<&str, Failure> {
    if name.trim().is_empty() {
        return Err(Failure::new(ErrorKind::Invalid, "a protocol needs a name"));
    }
    Ok(name)
}

pub fn add_protocol(vm: &mut Vm, r: &ClassRef, protocol: &str) -> Outcome {
    may_change_code(vm)?;
    let class = class(vm, r)?;
    let name = vm.new_string(protocol_name(protocol)?);
    send(vm, class, "addProtocol:", &[name])?;
    Ok(Answer::Done)
}

pub fn rename_protocol(vm: &mut Vm, r: &ClassRef, from: &str, to: &str) -> Outcome {
    may_change_code(vm)?;
    let class = class(vm, r)?;
    let (from, to) = (vm.new_string(from), vm.new_string(protocol_name(to)?));
    send(vm, class, "renameProtocol:as:", &[from, to])?;
    Ok(Answer::Done)
}

pub fn remove_protocol(vm: &mut Vm, r: &ClassRef, protocol: &str) -> Outcome {
    may_change_code(vm)?;
    let class = class(vm, r)?;
    let name = vm.new_string(protocol);
    send(vm, class, "removeProtocol:", &[name])?;
    Ok(Answer::Done)
}

/// Puts each method named in `protocol`; a selector the class has no method for is an error
/// and moves nothing.
pub fn move_methods(vm: &mut Vm, r: &ClassRef, selectors: &[String], protocol: &str) -> Outcome {
    may_change_code(vm)?;
    let class = class(vm, r)?;
    let protocol = protocol_name(protocol)?;
    let mut symbols = Vec::with_capacity(selectors.len());
    for selector in selectors {
        let symbol = vm.intern(selector);
        if send(vm, class, "includesSelector:", &[symbol])? != onyx_vm::Value::TRUE {
            let message = format!("{} has no method #{selector}", vm.class_name(class));
            return Err(Failure::new(ErrorKind::NotFound, message));
        }
        symbols.push(symbol);
    }
    let protocol = vm.new_string(protocol);
    for symbol in symbols {
        send(vm, class, "classify:under:", &[symbol, protocol])?;
    }
    Ok(Answer::Done)
}

pub fn set_comment(vm: &mut Vm, name: &str, comment: &str) -> Outcome {
    may_change_code(vm)?;
    let class = class(vm, &ClassRef::instance(name))?;
    let comment = vm.new_string(comment);
    send(vm, class, "comment:", &[comment])?;
    Ok(Answer::Done)
}

/// Renames class `from` to `to`, and rewrites the methods that name it: in their source, each
/// mention of the class as a variable (not in strings, comments, symbols or literal arrays)
/// takes the new name, and they are compiled again in their protocols. A method that does
/// not compile so leaves everything as it was, and says which it is.
pub fn rename_class(vm: &mut Vm, from: &str, to: &str) -> Outcome {
    may_change_code(vm)?;
    let class = class(vm, &ClassRef::instance(from))?;
    let Answer::Methods(naming) = search::references(vm, from)? else {
        return Err(Failure::new(ErrorKind::Invalid, "the references to the class came back as something else"));
    };
    let mut rewritten = Vec::new();
    for m in naming.items {
        let method = MethodRef { class: ClassRef { name: m.class_name, meta: m.meta }, selector: m.selector };
        let Answer::MethodSource(source) = browse::method_source(vm, &method)? else { continue };
        let new = renamed(&source.source, from, to);
        if new != source.source {
            rewritten.push((method.class, source.protocol, source.source, new));
        }
    }
    let new_name = vm.new_string(to);
    send(vm, class, "rename:", &[new_name])?;
    // The class's own methods are in it under its new name.
    let in_class = |c: &ClassRef, name: &str| ClassRef {
        name: if c.name == from { name.into() } else { c.name.clone() },
        meta: c.meta,
    };
    for (done, (in_, protocol, _, new)) in rewritten.iter().enumerate() {
        if let Err(failure) = browse::compile(vm, &in_class(in_, to), Some(protocol), new) {
            // As it was: the old name, and the methods compiled from their old source.
            let old_name = vm.new_string(from);
            send(vm, class, "rename:", &[old_name])?;
            for (in_, protocol, old, _) in &rewritten[..done] {
                browse::compile(vm, &in_class(in_, from), Some(protocol), old)?;
            }
            let side = if in_.meta { " class" } else { "" };
            let message = format!("{}{side} does not compile with the new name: {}", in_.name, failure.message);
            return Err(Failure { message, ..failure });
        }
    }
    Ok(Answer::Done)
}

/// `source` with each mention of variable `from` (an identifier outside strings, comments,
/// symbols and literal arrays) made `to`.
fn renamed(source: &str, from: &str, to: &str) -> String {
    let mut lexer = Lexer::new(source);
    let (mut out, mut copied, mut literal) = (String::with_capacity(source.len()), 0, 0usize);
    loop {
        let token = lexer.next_token();
        match &token.kind {
            TokenKind::Eof | TokenKind::Error(_) => break,
            TokenKind::LiteralArrayStart | TokenKind::ByteArrayStart => literal += 1,
            TokenKind::LParen if literal > 0 => literal += 1,
            TokenKind::RParen | TokenKind::RBracket if literal > 0 => literal -= 1,
            TokenKind::Ident(name) if literal == 0 && name == from => {
                out.push_str(source.get(copied..token.start).unwrap_or_default());
                out.push_str(to);
                copied = token.end;
            }
            _ => {}
        }
    }
    out.push_str(source.get(copied..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use super::renamed;

    #[test]
    fn a_rename_rewrites_the_variable_and_nothing_else() {
        let source = "make\n\t\"A Probe.\"\n\t^ Probe new name: 'Probe'; tag: #Probe; all: #(Probe 1 (Probe)); of: Probe class; yourself";
        assert_eq!(
            renamed(source, "Probe", "Sensor"),
            "make\n\t\"A Probe.\"\n\t^ Sensor new name: 'Probe'; tag: #Probe; all: #(Probe 1 (Probe)); of: Sensor class; yourself"
        );
        assert_eq!(renamed("x ^ ProbeX + XProbe + Probe", "Probe", "S"), "x ^ ProbeX + XProbe + S");
        assert_eq!(renamed("x ^ 'unclosed", "Probe", "S"), "x ^ 'unclosed", "what does not lex is left as it is");
    }
}
