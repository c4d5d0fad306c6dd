//! The Smalltalk parser: method and doit source text to the [`super::ast`] tree.
//!
//! It owns the grammar (message patterns, pragmas, temporaries, statements, cascades,
//! assignments, blocks, brace arrays, and literals including literal and byte arrays),
//! error reporting with byte offsets, and the offset-to-line/column mapping. Nesting of
//! parentheses, blocks, brace arrays, assignments and literal arrays is limited to
//! [`MAX_DEPTH`] levels and the height of expression trees to [`MAX_HEIGHT`], so that no
//! input can exhaust the stack, here or in code walking the tree.

use super::ast::{Block, Expr, Ident, IntLit, Literal, Message, MethodNode, Pragma, Send, Span, Stmt};
use super::lexer::{Lexer, Token, TokenKind, negate_literal};

/// How deeply expressions and literal arrays may nest syntactically (parentheses, blocks,
/// brace arrays, assignments, literal arrays).
pub const MAX_DEPTH: usize = 256;

/// The greatest height of an expression tree the parser builds (a variable or literal has
/// height 1, each send, assignment, block or brace array adds 1), so that long message
/// chains cannot make recursive consumers of the tree (or its drop) exhaust the stack.
pub const MAX_HEIGHT: usize = 1024;

/// A syntax error.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// Byte offset of the offending token in the source.
    pub offset: usize,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at offset {})", self.message, self.offset)
    }
}

impl std::error::Error for ParseError {}

/// Parses a method: message pattern, pragmas and temporaries in any order, statements.
pub fn parse_method(source: &str) -> Result<MethodNode, ParseError> {
    let mut p = Parser::new(source);
    let (selector, params, pattern_span) = p.pattern()?;
    let mut temps = None;
    let mut pragmas = Vec::new();
    loop {
        if p.at_binary("<")? {
            pragmas.push(p.pragma()?);
        } else if p.at_binary("|")? || p.at_binary("||")? {
            let offset = p.peek()?.start;
            let declared = p.temporaries()?;
            if temps.replace(declared).is_some() {
                return Err(error("duplicate temporaries declaration", offset));
            }
        } else {
            break;
        }
    }
    let (body, _) = p.statements(Context::Method)?;
    Ok(MethodNode { selector, pattern_span, params, temps: temps.unwrap_or_default(), pragmas, body })
}

/// Parses a doit: optional temporaries, then statements. The selector is `DoIt`.
pub fn parse_doit(source: &str) -> Result<MethodNode, ParseError> {
    let mut p = Parser::new(source);
    let temps = if p.at_binary("|")? || p.at_binary("||")? { p.temporaries()? } else { Vec::new() };
    let (body, _) = p.statements(Context::Method)?;
    Ok(MethodNode {
        selector: "DoIt".to_string(),
        pattern_span: Span::new(0, 0),
        params: Vec::new(),
        temps,
        pragmas: Vec::new(),
        body,
    })
}

/// The 1-based line and column (in characters) of byte `offset` in `source`. An offset past
/// the end maps to the end; one inside a character maps to that character.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(source.len());
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let before = source.get(..end).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).unwrap_or_default().chars().count() + 1;
    (line, column)
}

fn error(message: impl Into<String>, offset: usize) -> ParseError {
    ParseError { message: message.into(), offset }
}

/// Which construct a statement sequence belongs to (it decides the terminator).
#[derive(Clone, Copy, PartialEq)]
enum Context {
    Method,
    Block,
}

const RESERVED: [&str; 6] = ["self", "super", "thisContext", "nil", "true", "false"];

/// An expression together with the span it covers in the source including any enclosing
/// parentheses (used for the spans of the nodes built around it).
struct Parsed {
    expr: Expr,
    outer: Span,
    /// The height of the tree `expr` (a variable or literal is 1).
    height: usize,
}

struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    ahead: Vec<Token>,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Parser<'a> {
        Parser { src, lexer: Lexer::new(src), ahead: Vec::new(), depth: 0 }
    }

    /// The token `n` places ahead (0 is the next one); lexical errors become parse errors.
    fn peek_nth(&mut self, n: usize) -> Result<&Token, ParseError> {
        while self.ahead.len() <= n {
            let token = self.lexer.next_token();
            self.ahead.push(token);
        }
        match self.ahead.get(n) {
            Some(Token { kind: TokenKind::Error(message), start, .. }) => Err(error(message.clone(), *start)),
            Some(token) => Ok(token),
            None => Err(error("internal lexer error", self.src.len())),
        }
    }

    fn peek(&mut self) -> Result<&Token, ParseError> {
        self.peek_nth(0)
    }

    fn next(&mut self) -> Result<Token, ParseError> {
        self.peek()?;
        if self.ahead.is_empty() {
            return Err(error("internal lexer error", self.src.len()));
        }
        Ok(self.ahead.remove(0))
    }

    fn at(&mut self, kind: &TokenKind) -> Result<bool, ParseError> {
        Ok(&self.peek()?.kind == kind)
    }

    fn at_binary(&mut self, op: &str) -> Result<bool, ParseError> {
        Ok(matches!(&self.peek()?.kind, TokenKind::Binary(b) if b == op))
    }

    /// Consumes the next token if it is `kind`, else fails with `message` at it.
    fn expect(&mut self, kind: &TokenKind, message: &str) -> Result<Token, ParseError> {
        if self.at(kind)? { self.next() } else { Err(error(message, self.peek()?.start)) }
    }

    fn expect_binary(&mut self, op: &str, message: &str) -> Result<Token, ParseError> {
        if self.at_binary(op)? { self.next() } else { Err(error(message, self.peek()?.start)) }
    }

    /// A short description of a token for error messages.
    fn describe(&self, token: &Token) -> String {
        if token.kind == TokenKind::Eof {
            return "end of input".to_string();
        }
        let text = self.src.get(token.start..token.end).unwrap_or_default();
        let short: String = text.chars().take(24).collect();
        if short.len() < text.len() { format!("'{short}...'") } else { format!("'{short}'") }
    }

    fn enter(&mut self, offset: usize) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(error(format!("nesting too deep (more than {MAX_DEPTH} levels)"), offset));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// A declared name: an identifier that is not a reserved word.
    fn declared_name(&mut self, what: &str) -> Result<Ident, ParseError> {
        let token = self.next()?;
        match token.kind {
            TokenKind::Ident(name) if RESERVED.contains(&name.as_str()) => {
                Err(error(format!("cannot use reserved word '{name}' as a {what} name"), token.start))
            }
            TokenKind::Ident(name) => Ok(Ident { name, span: Span::new(token.start, token.end) }),
            _ => Err(error(format!("expected a {what} name"), token.start)),
        }
    }

    fn pattern(&mut self) -> Result<(String, Vec<Ident>, Span), ParseError> {
        let first = self.next()?;
        let start = first.start;
        match first.kind {
            TokenKind::Ident(name) => Ok((name, Vec::new(), Span::new(start, first.end))),
            TokenKind::Binary(op) => {
                let param = self.declared_name("parameter")?;
                let span = Span::new(start, param.span.end as usize);
                Ok((op, vec![param], span))
            }
            TokenKind::Keyword(keyword) => {
                let mut selector = keyword;
                let mut params = vec![self.declared_name("parameter")?];
                while let TokenKind::Keyword(k) = &self.peek()?.kind {
                    selector.push_str(k);
                    self.next()?;
                    params.push(self.declared_name("parameter")?);
                }
                let end = params.last().map_or(first.end, |p| p.span.end as usize);
                Ok((selector, params, Span::new(start, end)))
            }
            _ => Err(error("expected a message pattern", start)),
        }
    }

    fn pragma(&mut self) -> Result<Pragma, ParseError> {
        let open = self.next()?;
        let mut args = Vec::new();
        let token = self.next()?;
        let selector = match token.kind {
            TokenKind::Ident(name) => name,
            TokenKind::Keyword(keyword) => {
                let mut selector = keyword;
                args.push(self.pragma_argument()?);
                while let TokenKind::Keyword(k) = &self.peek()?.kind {
                    selector.push_str(k);
                    self.next()?;
                    args.push(self.pragma_argument()?);
                }
                selector
            }
            _ => return Err(error("expected a pragma selector after '<'", token.start)),
        };
        self.split_binary('>')?;
        let close = self.expect_binary(">", "expected '>' to close pragma")?;
        Ok(Pragma { selector, args, span: Span::new(open.start, close.end) })
    }

    fn pragma_argument(&mut self) -> Result<Literal, ParseError> {
        let token = self.peek()?.clone();
        match token.kind {
            TokenKind::Ident(name) if !matches!(name.as_str(), "true" | "false" | "nil") => {
                self.next()?;
                Ok(Literal::Symbol(name))
            }
            _ => match self.literal()? {
                Some((literal, _)) => Ok(literal),
                None => Err(error("expected a literal pragma argument", token.start)),
            },
        }
    }

    /// `| a b |` (the opening bar is next); `||` declares nothing.
    fn temporaries(&mut self) -> Result<Vec<Ident>, ParseError> {
        self.split_binary('|')?;
        self.expect_binary("|", "expected '|' to start the temporaries")?;
        let mut temps = Vec::new();
        while matches!(self.peek()?.kind, TokenKind::Ident(_)) {
            temps.push(self.declared_name("temporary")?);
        }
        self.split_binary('|')?;
        self.expect_binary("|", "expected '|' to end the temporaries")?;
        Ok(temps)
    }

    /// Splits the next token in two if it is a binary operator of several characters that
    /// starts with `first` (so `||` can end block parameters and start temporaries, and
    /// `><` can close one pragma and open the next).
    fn split_binary(&mut self, first: char) -> Result<(), ParseError> {
        let token = self.peek()?;
        if let TokenKind::Binary(op) = &token.kind
            && op.len() > 1
            && op.starts_with(first)
        {
            let rest = op.get(1..).unwrap_or_default().to_string();
            let (start, end) = (token.start, token.end);
            let head = Token { kind: TokenKind::Binary(first.to_string()), start, end: start + 1 };
            let tail = Token { kind: TokenKind::Binary(rest), start: start + 1, end };
            self.ahead.splice(0..1, [head, tail]);
        }
        Ok(())
    }

    /// Statements up to the terminator of `context` (which is not consumed), and the height
    /// of the tallest.
    fn statements(&mut self, context: Context) -> Result<(Vec<Stmt>, usize), ParseError> {
        let mut body = Vec::new();
        let mut height = 0;
        loop {
            while self.at(&TokenKind::Period)? {
                self.next()?;
            }
            if self.at_end_of(context)? {
                return Ok((body, height));
            }
            if context == Context::Block && self.at(&TokenKind::Eof)? {
                return Err(error("expected ']' to close block", self.peek()?.start));
            }
            let (statement, statement_height) = self.statement()?;
            body.push(statement);
            height = height.max(statement_height);
            if self.at(&TokenKind::Period)? || self.at_end_of(context)? {
                continue;
            }
            let token = self.peek()?.clone();
            let closer =
                matches!(token.kind, TokenKind::Eof | TokenKind::RParen | TokenKind::RBrace | TokenKind::RBracket);
            let message = if context == Context::Block && closer {
                "expected ']' to close block".to_string()
            } else {
                format!("unexpected {}", self.describe(&token))
            };
            return Err(error(message, token.start));
        }
    }

    fn at_end_of(&mut self, context: Context) -> Result<bool, ParseError> {
        Ok(match context {
            Context::Method => self.at(&TokenKind::Eof)?,
            Context::Block => self.at(&TokenKind::RBracket)?,
        })
    }

    fn statement(&mut self) -> Result<(Stmt, usize), ParseError> {
        if self.at(&TokenKind::Caret)? {
            let caret = self.next()?;
            let value = self.expression()?;
            let span = Span::new(caret.start, value.outer.end as usize);
            return Ok((Stmt::Return(value.expr, span), value.height));
        }
        let value = self.expression()?;
        Ok((Stmt::Expr(value.expr), value.height))
    }

    /// `height`, unless it exceeds [`MAX_HEIGHT`].
    fn check_height(&self, height: usize, offset: usize) -> Result<usize, ParseError> {
        if height > MAX_HEIGHT {
            let message = format!("expression too deeply nested (more than {MAX_HEIGHT} levels)");
            return Err(error(message, offset));
        }
        Ok(height)
    }

    /// A send of `message` (whose tallest argument has height `args_height`) to `receiver`.
    fn send(&self, receiver: Parsed, message: Message, args_height: usize) -> Result<Parsed, ParseError> {
        let offset = message.selector_span.start as usize;
        let height = self.check_height(receiver.height.max(args_height) + 1, offset)?;
        let span = receiver.outer.to(message.span);
        let expr = Expr::Send(Box::new(Send { receiver: receiver.expr, message, span }));
        Ok(Parsed { expr, outer: span, height })
    }

    /// An assignment or a cascade (or simpler expression).
    fn expression(&mut self) -> Result<Parsed, ParseError> {
        let offset = self.peek()?.start;
        self.enter(offset)?;
        let result = self.expression_inner();
        self.leave();
        result
    }

    fn expression_inner(&mut self) -> Result<Parsed, ParseError> {
        let assigning = matches!(self.peek()?.kind, TokenKind::Ident(_)) && self.peek_nth(1)?.kind == TokenKind::Assign;
        if !assigning {
            return self.cascade();
        }
        let token = self.next()?;
        let TokenKind::Ident(name) = token.kind else {
            return Err(error("expected a variable name", token.start));
        };
        if RESERVED.contains(&name.as_str()) {
            return Err(error(format!("cannot assign to '{name}'"), token.start));
        }
        self.next()?;
        let value = self.expression()?;
        let height = self.check_height(value.height + 1, token.start)?;
        let span = Span::new(token.start, value.outer.end as usize);
        let target = Ident { name, span: Span::new(token.start, token.end) };
        let expr = Expr::Assign { target, value: Box::new(value.expr), span };
        Ok(Parsed { expr, outer: span, height })
    }

    fn cascade(&mut self) -> Result<Parsed, ParseError> {
        let first = self.keyword_expression()?;
        if !self.at(&TokenKind::Semicolon)? {
            return Ok(first);
        }
        let Expr::Send(send) = first.expr else {
            return Err(error("a cascade must follow a message send", self.peek()?.start));
        };
        let Send { receiver, message, .. } = *send;
        let mut messages = vec![message];
        let mut end = first.outer.end as usize;
        let mut height = first.height;
        while self.at(&TokenKind::Semicolon)? {
            self.next()?;
            let (message, args_height) = self.cascade_message()?;
            height = self.check_height(height.max(args_height + 1), message.span.start as usize)?;
            end = message.span.end as usize;
            messages.push(message);
            let token = self.peek()?.clone();
            if matches!(token.kind, TokenKind::Ident(_) | TokenKind::Binary(_) | TokenKind::Keyword(_)) {
                return Err(error("a cascade part must be a single message (use parentheses)", token.start));
            }
        }
        let span = Span::new(first.outer.start as usize, end);
        let expr = Expr::Cascade { receiver: Box::new(receiver), messages, span };
        Ok(Parsed { expr, outer: span, height })
    }

    fn cascade_message(&mut self) -> Result<(Message, usize), ParseError> {
        let token = self.peek()?.clone();
        match token.kind {
            TokenKind::Ident(name) => {
                self.next()?;
                let span = Span::new(token.start, token.end);
                Ok((Message { selector: name, args: Vec::new(), selector_span: span, span }, 0))
            }
            TokenKind::Binary(_) => self.binary_message(),
            TokenKind::Keyword(_) => self.keyword_message(),
            _ => Err(error("expected a message after ';'", token.start)),
        }
    }

    fn keyword_expression(&mut self) -> Result<Parsed, ParseError> {
        let receiver = self.binary_expression()?;
        if !matches!(self.peek()?.kind, TokenKind::Keyword(_)) {
            return Ok(receiver);
        }
        let (message, args_height) = self.keyword_message()?;
        self.send(receiver, message, args_height)
    }

    /// `at: x put: y` with binary-expression arguments (the first keyword is next), and the
    /// height of the tallest argument.
    fn keyword_message(&mut self) -> Result<(Message, usize), ParseError> {
        let mut selector = String::new();
        let mut args = Vec::new();
        let mut selector_span: Option<Span> = None;
        let mut end = 0;
        let mut height = 0;
        while let TokenKind::Keyword(k) = &self.peek()?.kind {
            selector.push_str(k);
            let token = self.next()?;
            let keyword_span = Span::new(token.start, token.end);
            selector_span = Some(selector_span.map_or(keyword_span, |s| s.to(keyword_span)));
            let arg = self.binary_expression()?;
            end = arg.outer.end as usize;
            height = height.max(arg.height);
            args.push(arg.expr);
        }
        let selector_span = selector_span.unwrap_or_default();
        let span = Span::new(selector_span.start as usize, end);
        Ok((Message { selector, args, selector_span, span }, height))
    }

    fn binary_expression(&mut self) -> Result<Parsed, ParseError> {
        let mut receiver = self.unary_expression()?;
        while matches!(self.peek()?.kind, TokenKind::Binary(_)) {
            let (message, args_height) = self.binary_message()?;
            receiver = self.send(receiver, message, args_height)?;
        }
        Ok(receiver)
    }

    /// `+ x` with a unary-expression argument (the operator is next), and its height.
    fn binary_message(&mut self) -> Result<(Message, usize), ParseError> {
        let token = self.next()?;
        let TokenKind::Binary(op) = token.kind else {
            return Err(error("expected a binary operator", token.start));
        };
        let arg = self.unary_expression()?;
        let selector_span = Span::new(token.start, token.end);
        let span = Span::new(token.start, arg.outer.end as usize);
        Ok((Message { selector: op, args: vec![arg.expr], selector_span, span }, arg.height))
    }

    fn unary_expression(&mut self) -> Result<Parsed, ParseError> {
        let mut receiver = self.primary()?;
        loop {
            let token = self.peek()?.clone();
            let TokenKind::Ident(name) = token.kind else {
                return Ok(receiver);
            };
            if self.peek_nth(1)?.kind == TokenKind::Assign {
                return Err(error("unexpected assignment (missing '.'?)", token.start));
            }
            self.next()?;
            let span = Span::new(token.start, token.end);
            let message = Message { selector: name, args: Vec::new(), selector_span: span, span };
            receiver = self.send(receiver, message, 0)?;
        }
    }

    fn primary(&mut self) -> Result<Parsed, ParseError> {
        let token = self.peek()?.clone();
        let start = token.start;
        match token.kind {
            TokenKind::Ident(name) => {
                self.next()?;
                let span = Span::new(start, token.end);
                let expr = match name.as_str() {
                    "nil" => Expr::Literal(Literal::Nil, span),
                    "true" => Expr::Literal(Literal::True, span),
                    "false" => Expr::Literal(Literal::False, span),
                    _ => Expr::Variable(Ident { name, span }),
                };
                Ok(Parsed { expr, outer: span, height: 1 })
            }
            TokenKind::LParen => {
                self.next()?;
                let inner = self.expression()?;
                let close = self.expect(&TokenKind::RParen, "expected ')'")?;
                Ok(Parsed { outer: Span::new(start, close.end), ..inner })
            }
            TokenKind::LBracket => {
                let (block, body_height) = self.block()?;
                let height = self.check_height(body_height + 1, start)?;
                let outer = block.span;
                Ok(Parsed { expr: Expr::Block(Box::new(block)), outer, height })
            }
            TokenKind::LBrace => self.brace(),
            _ => match self.literal()? {
                Some((literal, span)) => Ok(Parsed { expr: Expr::Literal(literal, span), outer: span, height: 1 }),
                None => Err(error(self.unexpected_message(&token, "expected expression"), start)),
            },
        }
    }

    fn unexpected_message(&self, token: &Token, fallback: &str) -> String {
        match token.kind {
            TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                format!("unexpected {}", self.describe(token))
            }
            _ => fallback.to_string(),
        }
    }

    /// A block and the height of its tallest statement.
    fn block(&mut self) -> Result<(Block, usize), ParseError> {
        let open = self.next()?;
        let mut params = Vec::new();
        while self.at(&TokenKind::Colon)? {
            self.next()?;
            params.push(self.declared_name("block parameter")?);
        }
        if !params.is_empty() {
            self.split_binary('|')?;
            if self.at_binary("|")? {
                self.next()?;
            } else if !self.at(&TokenKind::RBracket)? {
                return Err(error("expected '|' after block parameters", self.peek()?.start));
            }
        }
        let temps = if self.at_binary("|")? || self.at_binary("||")? { self.temporaries()? } else { Vec::new() };
        let (body, height) = self.statements(Context::Block)?;
        let close = self.expect(&TokenKind::RBracket, "expected ']' to close block")?;
        Ok((Block { params, temps, body, span: Span::new(open.start, close.end) }, height))
    }

    fn brace(&mut self) -> Result<Parsed, ParseError> {
        let open = self.next()?;
        let mut elements = Vec::new();
        let mut height = 0;
        loop {
            while self.at(&TokenKind::Period)? {
                self.next()?;
            }
            if self.at(&TokenKind::RBrace)? {
                break;
            }
            if self.at(&TokenKind::Eof)? {
                return Err(error("expected '}' to close brace array", self.peek()?.start));
            }
            let (element, element_height) = self.statement()?;
            height = height.max(element_height);
            elements.push(element);
            if !self.at(&TokenKind::Period)? && !self.at(&TokenKind::RBrace)? {
                return Err(error("expected '}' to close brace array", self.peek()?.start));
            }
        }
        let close = self.next()?;
        let span = Span::new(open.start, close.end);
        let height = self.check_height(height + 1, open.start)?;
        Ok(Parsed { expr: Expr::Brace(elements, span), outer: span, height })
    }

    /// A literal if one is next (a number with an adjacent `-`, character, string, symbol,
    /// literal array, byte array, `nil`/`true`/`false`), with its span; `None` otherwise.
    fn literal(&mut self) -> Result<Option<(Literal, Span)>, ParseError> {
        let token = self.peek()?.clone();
        let span = Span::new(token.start, token.end);
        let literal = match token.kind {
            TokenKind::Number(n) => n,
            TokenKind::Character(c) => Literal::Character(c),
            TokenKind::String(s) => Literal::String(s),
            TokenKind::Symbol(s) => Literal::Symbol(s),
            TokenKind::Ident(name) => match name.as_str() {
                "nil" => Literal::Nil,
                "true" => Literal::True,
                "false" => Literal::False,
                _ => return Ok(None),
            },
            TokenKind::Binary(op) if op == "-" => {
                let next = self.peek_nth(1)?;
                let (TokenKind::Number(n), true) = (&next.kind, next.start == token.end) else {
                    return Ok(None);
                };
                let (literal, end) = (negate_literal(n.clone()), next.end);
                self.next()?;
                self.next()?;
                return Ok(Some((literal, Span::new(token.start, end))));
            }
            TokenKind::LiteralArrayStart => return self.literal_array().map(Some),
            TokenKind::ByteArrayStart => return self.byte_array().map(Some),
            _ => return Ok(None),
        };
        self.next()?;
        Ok(Some((literal, span)))
    }

    /// `#( ... )` or, nested inside one, `( ... )`; the opening token is next.
    fn literal_array(&mut self) -> Result<(Literal, Span), ParseError> {
        let open = self.next()?;
        self.enter(open.start)?;
        let result = self.literal_array_elements(open.start);
        self.leave();
        result
    }

    fn literal_array_elements(&mut self, start: usize) -> Result<(Literal, Span), ParseError> {
        let mut elements = Vec::new();
        loop {
            let token = self.peek()?.clone();
            match &token.kind {
                TokenKind::RParen => {
                    self.next()?;
                    return Ok((Literal::Array(elements), Span::new(start, token.end)));
                }
                TokenKind::LParen => elements.push(self.literal_array()?.0),
                TokenKind::Ident(name) if !matches!(name.as_str(), "nil" | "true" | "false") => {
                    self.next()?;
                    elements.push(Literal::Symbol(name.clone()));
                }
                TokenKind::Keyword(k) => {
                    self.next()?;
                    let mut symbol = k.clone();
                    let mut end = token.end;
                    loop {
                        let next = self.peek()?.clone();
                        match next.kind {
                            TokenKind::Keyword(k) | TokenKind::Ident(k) if next.start == end => {
                                symbol.push_str(&k);
                                end = next.end;
                                self.next()?;
                            }
                            _ => break,
                        }
                    }
                    elements.push(Literal::Symbol(symbol));
                }
                _ => {
                    if let Some((literal, _)) = self.literal()? {
                        elements.push(literal);
                    } else if let TokenKind::Binary(op) = &token.kind {
                        self.next()?;
                        elements.push(Literal::Symbol(op.clone()));
                    } else if let Some(symbol) = match token.kind {
                        // As in Pharo: #(a . b ; c) holds #'.' and #';'.
                        TokenKind::Period => Some("."),
                        TokenKind::Semicolon => Some(";"),
                        _ => None,
                    } {
                        self.next()?;
                        elements.push(Literal::Symbol(symbol.to_string()));
                    } else if token.kind == TokenKind::Eof {
                        return Err(error("expected ')' to close literal array", token.start));
                    } else {
                        let what = self.describe(&token);
                        return Err(error(format!("unexpected {what} in literal array"), token.start));
                    }
                }
            }
        }
    }

    fn byte_array(&mut self) -> Result<(Literal, Span), ParseError> {
        let open = self.next()?;
        let mut bytes = Vec::new();
        loop {
            let token = self.next()?;
            match token.kind {
                TokenKind::RBracket => {
                    return Ok((Literal::ByteArray(bytes), Span::new(open.start, token.end)));
                }
                TokenKind::Number(Literal::Integer(IntLit::Small(n))) if (0..=255).contains(&n) => {
                    bytes.push(n as u8);
                }
                TokenKind::Eof => {
                    return Err(error("expected ']' to close byte array", token.start));
                }
                _ => {
                    return Err(error("byte array elements must be integers 0-255", token.start));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
