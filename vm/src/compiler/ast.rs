//! The syntax tree the parser produces and the code generator consumes.
//!
//! Every node carries a [`Span`] of byte offsets into the source it came from, so that
//! compile errors, step points and the debugger can point back at the text.

use num_bigint::BigInt;

/// A half-open range `start..end` of byte offsets into a method's source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u32,
    /// Offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }

    /// The smallest span that covers both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// An integer literal: small ones stay machine words, the rest are big.
#[derive(Clone, Debug, PartialEq)]
pub enum IntLit {
    /// Fits an `i64` (the compiler decides whether it is a SmallInteger).
    Small(i64),
    /// Does not fit an `i64`.
    Large(BigInt),
}

/// A literal value, as written in source.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `nil`
    Nil,
    /// `true`
    True,
    /// `false`
    False,
    /// `42`, `16r1F`, `-7`, `1e10` (an exponent without a fraction stays an Integer).
    Integer(IntLit),
    /// `3.14`, `1.0e10`, `2r1.1`.
    Float(f64),
    /// `1.5s2`: the exact value `numerator / denominator` printed with `scale` digits.
    ScaledDecimal {
        /// Numerator of the exact value, reduced.
        numerator: BigInt,
        /// Denominator of the exact value, reduced, positive.
        denominator: BigInt,
        /// Digits after the decimal point when printed.
        scale: u32,
    },
    /// `$a`
    Character(char),
    /// `'it''s'` (quotes already undoubled).
    String(String),
    /// `#foo`, `#at:put:`, `#+`, `#'hello world'`, and bare words inside literal arrays.
    Symbol(String),
    /// `#(1 $a 'b' #c (nested) true)`.
    Array(Vec<Literal>),
    /// `#[1 2 3]`.
    ByteArray(Vec<u8>),
}

/// A name as it appears in source.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name (`self`, `super`, `thisContext`, `nil`, `true` and `false` are parsed as
    /// literals or as these reserved identifiers, never as ordinary variables).
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A literal constant.
    Literal(Literal, Span),
    /// A variable reference, including `self`, `super` and `thisContext`.
    Variable(Ident),
    /// `target := value`.
    Assign {
        /// The variable assigned to.
        target: Ident,
        /// The value expression.
        value: Box<Expr>,
        /// The whole assignment.
        span: Span,
    },
    /// A message send; a send to `super` has `Expr::Variable("super")` as receiver.
    Send(Box<Send>),
    /// `receiver msg1; msg2; msg3`: every message goes to the same receiver.
    Cascade {
        /// The receiver expression (evaluated once).
        receiver: Box<Expr>,
        /// The messages, in order; there are at least two.
        messages: Vec<Message>,
        /// The whole cascade.
        span: Span,
    },
    /// `[:a :b | | t | statements]`.
    Block(Box<Block>),
    /// `{ a. b. c }`: statements, as in Pharo, each an element (`{ a. ^ b }` returns).
    Brace(Vec<Stmt>, Span),
}

impl Expr {
    /// The source range this expression covers.
    pub fn span(&self) -> Span {
        match self {
            Expr::Literal(_, span) => *span,
            Expr::Variable(ident) => ident.span,
            Expr::Assign { span, .. } | Expr::Cascade { span, .. } | Expr::Brace(_, span) => *span,
            Expr::Send(send) => send.span,
            Expr::Block(block) => block.span,
        }
    }
}

/// One message: a selector and its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The full selector, e.g. `at:put:`.
    pub selector: String,
    /// The argument expressions (as many as the selector takes).
    pub args: Vec<Expr>,
    /// The span of the selector keywords/operator (for a keyword message, from the first
    /// keyword to the end of the last one).
    pub selector_span: Span,
    /// From the selector to the end of the last argument.
    pub span: Span,
}

/// A message sent to a receiver.
#[derive(Clone, Debug, PartialEq)]
pub struct Send {
    /// The receiver.
    pub receiver: Expr,
    /// The message.
    pub message: Message,
    /// The whole send, receiver included.
    pub span: Span,
}

/// A statement inside a method or block body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// An expression evaluated for its value or effect.
    Expr(Expr),
    /// `^ expr`
    Return(Expr, Span),
}

impl Stmt {
    /// The source range of the statement.
    pub fn span(&self) -> Span {
        match self {
            Stmt::Expr(e) => e.span(),
            Stmt::Return(_, span) => *span,
        }
    }
}

/// A block literal.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// `:a :b`
    pub params: Vec<Ident>,
    /// `| t u |`
    pub temps: Vec<Ident>,
    /// The statements.
    pub body: Vec<Stmt>,
    /// From `[` to `]`.
    pub span: Span,
}

/// A pragma such as `<primitive: 60>` or `<category: 'accessing'>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma {
    /// The selector, e.g. `primitive:` or `primitive:module:`.
    pub selector: String,
    /// The literal arguments; a bare identifier argument is a `Literal::Symbol`.
    pub args: Vec<Literal>,
    /// From `<` to `>`.
    pub span: Span,
}

/// A parsed method (or a doit, which is a method with the selector `DoIt`).
#[derive(Clone, Debug, PartialEq)]
pub struct MethodNode {
    /// The selector, e.g. `at:put:`.
    pub selector: String,
    /// The span of the message pattern (`at: i put: v`).
    pub pattern_span: Span,
    /// The parameters.
    pub params: Vec<Ident>,
    /// The method temporaries.
    pub temps: Vec<Ident>,
    /// The pragmas, in source order.
    pub pragmas: Vec<Pragma>,
    /// The statements.
    pub body: Vec<Stmt>,
}
