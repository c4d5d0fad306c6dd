//! The chunk-format (`.st` fileout) reader.
//!
//! It owns the classic fileout format: text is cut into chunks ending with `!`, a doubled
//! `!!` standing for a literal `!`. A chunk such as `Foo methodsFor: 'cat'` or
//! `Foo class methodsFor: 'cat' stamp: '...'` (written `!Foo methodsFor: 'cat'!`) opens a
//! method section: the chunks after it are method sources until an empty chunk (`! !`).
//! A chunk `Foo commentStamp: '...' prior: 0` is followed by a chunk holding the class
//! comment. Every other non-blank chunk is a doit.

use crate::compiler::lexer::{Lexer, TokenKind};

/// One item of a chunk file, with the 1-based line where its text begins.
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkItem {
    /// Code to evaluate (e.g. a class definition).
    Doit {
        /// The chunk text, trimmed, `!!` undoubled.
        source: String,
        /// Line of its first non-blank character.
        line: usize,
    },
    /// A method of a method section.
    Method {
        /// The class (without ` class`).
        class_name: String,
        /// Whether the section is `Foo class methodsFor: ...`.
        class_side: bool,
        /// The category of the section.
        category: String,
        /// The method source, trimmed, `!!` undoubled.
        source: String,
        /// Line of its first non-blank character.
        line: usize,
    },
    /// A class comment following `Foo commentStamp: '...' prior: 0`.
    ClassComment {
        /// The class (without ` class`).
        class_name: String,
        /// The comment text, trimmed, `!!` undoubled.
        text: String,
        /// Line of its first non-blank character (of the stamp chunk if it is empty).
        line: usize,
    },
}

/// A malformed chunk file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ChunkError {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// One chunk: its undoubled text, the line of its first non-blank character, and whether
/// a `!` ended it.
pub(crate) struct Chunk {
    pub(crate) text: String,
    pub(crate) line: usize,
    pub(crate) terminated: bool,
}

/// Cuts `text` into chunks.
pub(crate) fn split_chunks(text: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut first_line: Option<usize> = None;
    let mut line = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '!' {
            if chars.peek() == Some(&'!') {
                chars.next();
            } else {
                let text = std::mem::take(&mut current);
                chunks.push(Chunk { text, line: first_line.take().unwrap_or(line), terminated: true });
                continue;
            }
        }
        if first_line.is_none() && !c.is_whitespace() {
            first_line = Some(line);
        }
        if c == '\n' {
            line += 1;
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        chunks.push(Chunk { text: current, line: first_line.unwrap_or(line), terminated: false });
    }
    chunks
}

/// The kinds of chunk that change how the following chunks are read.
enum Preamble {
    /// `Foo [class] methodsFor: 'cat' ...`
    Methods { class_name: String, class_side: bool, category: String },
    /// `Foo [class] commentStamp: ... prior: ...`
    Comment { class_name: String },
}

/// Recognizes `Foo [class] methodsFor: 'cat' [key: literal ...]` and
/// `Foo [class] commentStamp: literal [prior: literal]`.
fn preamble(chunk: &str) -> Option<Preamble> {
    let mut lexer = Lexer::new(chunk);
    let TokenKind::Ident(class_name) = lexer.next_token().kind else {
        return None;
    };
    let mut token = lexer.next_token();
    let mut class_side = false;
    if token.kind == TokenKind::Ident("class".into()) {
        class_side = true;
        token = lexer.next_token();
    }
    let TokenKind::Keyword(keyword) = token.kind else {
        return None;
    };
    let first_arg = lexer.next_token().kind;
    // The remaining keyword parts (e.g. `stamp: '...'`, `prior: 0`) must be literals.
    loop {
        match lexer.next_token().kind {
            TokenKind::Eof => break,
            TokenKind::Keyword(_) => match lexer.next_token().kind {
                TokenKind::String(_) | TokenKind::Number(_) | TokenKind::Symbol(_) => {}
                _ => return None,
            },
            _ => return None,
        }
    }
    match (keyword.as_str(), first_arg) {
        ("methodsFor:", TokenKind::String(category)) => Some(Preamble::Methods { class_name, class_side, category }),
        ("commentStamp:", TokenKind::String(_) | TokenKind::Number(_)) => Some(Preamble::Comment { class_name }),
        _ => None,
    }
}

/// Reads a chunk file into doits, methods and class comments, in file order.
pub fn read_chunks(text: &str) -> Result<Vec<ChunkItem>, ChunkError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut items = Vec::new();
    let mut section: Option<(String, bool, String)> = None;
    let mut comment_for: Option<(String, usize)> = None;
    for chunk in split_chunks(text) {
        if !chunk.terminated {
            return Err(ChunkError { line: chunk.line, message: "chunk is not terminated by '!'".into() });
        }
        let source = chunk.text.trim();
        if let Some((class_name, class_side, category)) = &section {
            if source.is_empty() {
                section = None;
            } else {
                items.push(ChunkItem::Method {
                    class_name: class_name.clone(),
                    class_side: *class_side,
                    category: category.clone(),
                    source: source.to_string(),
                    line: chunk.line,
                });
            }
            continue;
        }
        if let Some((class_name, stamp_line)) = comment_for.take() {
            let line = if source.is_empty() { stamp_line } else { chunk.line };
            items.push(ChunkItem::ClassComment { class_name, text: source.to_string(), line });
            continue;
        }
        if source.is_empty() {
            continue;
        }
        match preamble(source) {
            Some(Preamble::Methods { class_name, class_side, category }) => {
                section = Some((class_name, class_side, category));
            }
            Some(Preamble::Comment { class_name }) => comment_for = Some((class_name, chunk.line)),
            None => items.push(ChunkItem::Doit { source: source.to_string(), line: chunk.line }),
        }
    }
    if let Some((class_name, line)) = comment_for {
        let message = format!("the comment of {class_name} is missing after 'commentStamp:'");
        return Err(ChunkError { line, message });
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn doit(source: &str, line: usize) -> ChunkItem {
        ChunkItem::Doit { source: source.into(), line }
    }

    fn method(class: &str, side: bool, cat: &str, source: &str, line: usize) -> ChunkItem {
        ChunkItem::Method {
            class_name: class.into(),
            class_side: side,
            category: cat.into(),
            source: source.into(),
            line,
        }
    }

    const FILEOUT: &str = "'From Pharo 11 on 1 January 2024'!\n\
Object subclass: #Foo\n\
\tinstanceVariableNames: 'a'\n\
\tclassVariableNames: ''\n\
\tpackage: 'Demo'!\n\
Foo commentStamp: 'ab 1/1/2024' prior: 0!\n\
A comment with a bang!! in it.!\n\
\n\
!Foo methodsFor: 'accessing' stamp: 'ab 1/1/2024 10:00'!\n\
a\n\
\t^ a! !\n\
\n\
!Foo methodsFor: 'printing'!\n\
printOn: aStream\n\
\taStream nextPutAll: 'Foo!!'!\n\
\n\
shout\n\
\t^ 'hey!!!!'! !\n\
\n\
!Foo class methodsFor: 'instance creation'!\n\
new\n\
\t^ super new initialize! !\n\
Foo initialize!\n";

    #[test]
    fn reads_a_fileout() {
        let items = read_chunks(FILEOUT).unwrap();
        assert_eq!(
            items,
            vec![
                doit("'From Pharo 11 on 1 January 2024'", 1),
                doit(
                    "Object subclass: #Foo\n\tinstanceVariableNames: 'a'\n\tclassVariableNames: ''\n\tpackage: 'Demo'",
                    2
                ),
                ChunkItem::ClassComment {
                    class_name: "Foo".into(),
                    text: "A comment with a bang! in it.".into(),
                    line: 7
                },
                method("Foo", false, "accessing", "a\n\t^ a", 10),
                method("Foo", false, "printing", "printOn: aStream\n\taStream nextPutAll: 'Foo!'", 14),
                method("Foo", false, "printing", "shout\n\t^ 'hey!!'", 17),
                method("Foo", true, "instance creation", "new\n\t^ super new initialize", 21),
                doit("Foo initialize", 23),
            ]
        );
    }

    #[test]
    fn preambles() {
        assert!(matches!(preamble("Foo methodsFor: 'x'"), Some(Preamble::Methods { .. })));
        assert!(matches!(
            preamble("Foo class methodsFor: 'x' stamp: 'y'"),
            Some(Preamble::Methods { class_side: true, .. })
        ));
        assert!(matches!(preamble("Foo commentStamp: '' prior: 0"), Some(Preamble::Comment { .. })));
        assert!(preamble("Foo methodsFor: #x").is_none());
        assert!(preamble("Foo methodsFor: 'x' stamp: y").is_none());
        assert!(preamble("Foo methodsFor: 'x'. 3").is_none());
        assert!(preamble("Foo bar: 'x'").is_none());
        assert!(preamble("3 + 4").is_none());
    }

    #[test]
    fn blank_chunks_and_endings() {
        assert_eq!(read_chunks("").unwrap(), vec![]);
        assert_eq!(read_chunks("  \n ! !\n").unwrap(), vec![]);
        assert_eq!(read_chunks("\n\n  3 + 4 !").unwrap(), vec![doit("3 + 4", 3)]);
        // A method section may run to the end of the file.
        let items = read_chunks("!Foo methodsFor: 'x'!\nfoo ^ 1!").unwrap();
        assert_eq!(items, vec![method("Foo", false, "x", "foo ^ 1", 2)]);
        // Empty comment chunk.
        let items = read_chunks("Foo commentStamp: '' prior: 0!!\n").unwrap_err();
        assert_eq!(items.line, 1);
        let items = read_chunks("Foo commentStamp: '' prior: 0! !").unwrap();
        assert_eq!(items, vec![ChunkItem::ClassComment { class_name: "Foo".into(), text: String::new(), line: 1 }]);
    }

    #[test]
    fn errors() {
        let e = read_chunks("1!\n\n2 + 3").unwrap_err();
        assert_eq!(e, ChunkError { line: 3, message: "chunk is not terminated by '!'".into() });
        assert_eq!(e.to_string(), "line 3: chunk is not terminated by '!'");
        let e = read_chunks("x!\nFoo commentStamp: 'a' prior: 0!").unwrap_err();
        assert_eq!(e.line, 2);
        assert_eq!(e.message, "the comment of Foo is missing after 'commentStamp:'");
    }

    proptest! {
        #[test]
        fn random_text_never_panics(text in "\\PC{0,200}") {
            let _ = read_chunks(&text);
        }

        #[test]
        fn chunky_text_never_panics(text in "[!' \nFoclass methodsFor:commentStamp:prior0\"]{0,120}") {
            if let Ok(items) = read_chunks(&text) {
                for item in items {
                    let line = match item {
                        ChunkItem::Doit { line, .. } | ChunkItem::Method { line, .. } | ChunkItem::ClassComment { line, .. } => line,
                    };
                    prop_assert!(line >= 1 && line <= text.lines().count().max(1));
                }
            }
        }

        #[test]
        fn doubled_bangs_round_trip(body in "[a-z !'\n]{1,40}") {
            let body = body.trim().to_string();
            prop_assume!(!body.is_empty());
            let text = format!("{}!\n", body.replace('!', "!!"));
            prop_assert_eq!(read_chunks(&text).unwrap(), vec![doit(&body, 1 + text.chars().take_while(|c| c.is_whitespace()).filter(|&c| c == '\n').count())]);
        }
    }
}
