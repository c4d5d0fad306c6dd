//! The Smalltalk lexer: turns source text into tokens with byte-offset spans.
//!
//! It owns the token-level syntax: comments, identifiers, keywords, binary operators,
//! number literals (radix, fractions, exponents, scaled decimals, exact values), character,
//! string and symbol literals, and the punctuation. It never fails hard: a malformed token
//! becomes a [`TokenKind::Error`] token covering the bad text and lexing goes on after it,
//! so tools that only skip over code (the Tonel reader) can keep going.
//!
//! A leading `-` is never part of a number token: the parser joins a `-` token with an
//! adjacent number where a literal is expected (`3 - -4`, `#(-1)`), and a `-` that ends a
//! longer operator and is directly followed by a digit is split off (`3--4` is `3 - -4`).

use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};

use super::ast::{IntLit, Literal};

/// The largest exponent magnitude accepted in a number literal.
pub const MAX_EXPONENT: i64 = 10_000;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// `foo`, `Foo`, `_x`, and the reserved words (`self`, `nil`, ...).
    Ident(String),
    /// `at:` (the colon included).
    Keyword(String),
    /// A binary operator such as `+`, `->`, `<=` or `|`.
    Binary(String),
    /// A number literal, always non-negative.
    Number(Literal),
    /// `$a`
    Character(char),
    /// `'it''s'`, quotes undoubled.
    String(String),
    /// `#foo`, `#at:put:`, `#+`, `#'a b'` (without the `#`).
    Symbol(String),
    /// `#(`
    LiteralArrayStart,
    /// `#[`
    ByteArrayStart,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `:` (block parameters)
    Colon,
    /// `:=`
    Assign,
    /// `^`
    Caret,
    /// `.`
    Period,
    /// `;`
    Semicolon,
    /// The end of the source.
    Eof,
    /// Malformed text; the message says what is wrong.
    Error(String),
}

/// A token and the byte range `start..end` it covers.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Offset of its first byte.
    pub start: usize,
    /// Offset one past its last byte.
    pub end: usize,
}

/// Whether `c` may appear in a binary selector: ASCII's operator characters, and beyond ASCII
/// every symbol or punctuation mark (`±`, `×`, `→`, `≤`), as Pharo reads them.
pub fn is_binary_char(c: char) -> bool {
    "+-*/\\<>=~@%|&?,!".contains(c) || (!c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace() && !c.is_control())
}

/// Whether `c` may start an identifier.
pub fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// Whether `c` may continue an identifier.
pub fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Negates a number literal (for `-` joined to a number); other literals are returned as is.
pub fn negate_literal(literal: Literal) -> Literal {
    match literal {
        Literal::Integer(IntLit::Small(i)) => match i.checked_neg() {
            Some(n) => Literal::Integer(IntLit::Small(n)),
            None => Literal::Integer(int_lit(-BigInt::from(i))),
        },
        Literal::Integer(IntLit::Large(b)) => Literal::Integer(int_lit(-b)),
        Literal::Float(f) => Literal::Float(-f),
        Literal::ScaledDecimal { numerator, denominator, scale } => {
            Literal::ScaledDecimal { numerator: -numerator, denominator, scale }
        }
        other => other,
    }
}

/// An integer literal, small when it fits an `i64`.
pub fn int_lit(value: BigInt) -> IntLit {
    match value.to_i64() {
        Some(i) => IntLit::Small(i),
        None => IntLit::Large(value),
    }
}

/// A lexer over one source text.
#[derive(Clone, Debug)]
pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, pos: 0 }
    }

    /// A lexer starting at byte `offset` of `src` (moved forward to a character boundary
    /// and clamped to the end).
    pub fn starting_at(src: &'a str, offset: usize) -> Lexer<'a> {
        let mut pos = offset.min(src.len());
        while !src.is_char_boundary(pos) {
            pos += 1;
        }
        Lexer { src, pos }
    }

    /// The byte offset the next token search starts from.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn char_at(&self, pos: usize) -> Option<char> {
        self.src.get(pos..).and_then(|s| s.chars().next())
    }

    fn peek(&self) -> Option<char> {
        self.char_at(self.pos)
    }

    fn token(&self, kind: TokenKind, start: usize) -> Token {
        Token { kind, start, end: self.pos }
    }

    fn error(&self, message: impl Into<String>, start: usize) -> Token {
        self.token(TokenKind::Error(message.into()), start)
    }

    /// Skips whitespace and comments; an unterminated comment becomes an error token.
    fn skip_trivia(&mut self) -> Option<Token> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => self.pos += c.len_utf8(),
                Some('"') => {
                    let start = self.pos;
                    match self.src.get(start + 1..).and_then(|rest| rest.find('"')) {
                        Some(i) => self.pos = start + 1 + i + 1,
                        None => {
                            self.pos = self.src.len();
                            return Some(self.error("unterminated comment", start));
                        }
                    }
                }
                _ => return None,
            }
        }
    }

    /// The next token; [`TokenKind::Eof`] at (and after) the end.
    pub fn next_token(&mut self) -> Token {
        if let Some(error) = self.skip_trivia() {
            return error;
        }
        let start = self.pos;
        let Some(c) = self.peek() else {
            return self.token(TokenKind::Eof, start);
        };
        if is_ident_start(c) {
            return self.identifier(start);
        }
        if c.is_ascii_digit() {
            return self.number(start);
        }
        let simple = match c {
            '(' => Some(TokenKind::LParen),
            ')' => Some(TokenKind::RParen),
            '[' => Some(TokenKind::LBracket),
            ']' => Some(TokenKind::RBracket),
            '{' => Some(TokenKind::LBrace),
            '}' => Some(TokenKind::RBrace),
            '^' => Some(TokenKind::Caret),
            '.' => Some(TokenKind::Period),
            ';' => Some(TokenKind::Semicolon),
            _ => None,
        };
        if let Some(kind) = simple {
            self.pos += 1;
            return self.token(kind, start);
        }
        match c {
            ':' => {
                self.pos += 1;
                if self.peek() == Some('=') {
                    self.pos += 1;
                    self.token(TokenKind::Assign, start)
                } else {
                    self.token(TokenKind::Colon, start)
                }
            }
            '\'' => match self.string_body() {
                Some(s) => self.token(TokenKind::String(s), start),
                None => self.error("unterminated string", start),
            },
            '$' => {
                self.pos += 1;
                match self.peek() {
                    Some(ch) => {
                        self.pos += ch.len_utf8();
                        self.token(TokenKind::Character(ch), start)
                    }
                    None => self.error("expected a character after '$'", start),
                }
            }
            '#' => self.hash(start),
            c if is_binary_char(c) => {
                let op = self.binary_operator();
                self.token(TokenKind::Binary(op), start)
            }
            other => {
                self.pos += other.len_utf8();
                self.error(format!("unexpected character {other:?}"), start)
            }
        }
    }

    fn scan_ident_chars(&mut self) {
        while let Some(c) = self.peek().filter(|&c| is_ident_char(c)) {
            self.pos += c.len_utf8();
        }
    }

    fn identifier(&mut self, start: usize) -> Token {
        self.scan_ident_chars();
        let name = self.src.get(start..self.pos).unwrap_or_default().to_string();
        if self.peek() == Some(':') && self.char_at(self.pos + 1) != Some('=') {
            self.pos += 1;
            return self.token(TokenKind::Keyword(name + ":"), start);
        }
        self.token(TokenKind::Ident(name), start)
    }

    /// Scans a binary operator at the current position. A `-` after the first character
    /// that is directly followed by a digit is left for a negative number.
    fn binary_operator(&mut self) -> String {
        let mut op = String::new();
        while let Some(c) = self.peek().filter(|&c| is_binary_char(c)) {
            let digit_follows = self.char_at(self.pos + 1).is_some_and(|d| d.is_ascii_digit());
            if c == '-' && !op.is_empty() && digit_follows {
                break;
            }
            op.push(c);
            self.pos += c.len_utf8();
        }
        op
    }

    /// Scans a quoted string whose opening quote is at the current position; `None` (with
    /// the position at the end) when it is not closed.
    fn string_body(&mut self) -> Option<String> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = self.src.get(self.pos..).unwrap_or_default();
            let Some(i) = rest.find('\'') else {
                self.pos = self.src.len();
                return None;
            };
            out.push_str(rest.get(..i).unwrap_or_default());
            self.pos += i + 1;
            if self.peek() == Some('\'') {
                out.push('\'');
                self.pos += 1;
            } else {
                return Some(out);
            }
        }
    }

    fn hash(&mut self, start: usize) -> Token {
        while self.peek() == Some('#') {
            self.pos += 1;
        }
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                self.token(TokenKind::LiteralArrayStart, start)
            }
            Some('[') => {
                self.pos += 1;
                self.token(TokenKind::ByteArrayStart, start)
            }
            Some('\'') => match self.string_body() {
                Some(s) => self.token(TokenKind::Symbol(s), start),
                None => self.error("unterminated string", start),
            },
            Some('{') => {
                self.pos += 1;
                self.error("binding literals '#{...}' are not supported", start)
            }
            Some(c) if is_ident_start(c) => {
                let name_start = self.pos;
                loop {
                    self.scan_ident_chars();
                    if self.peek() != Some(':') {
                        break;
                    }
                    self.pos += 1;
                    if !self.peek().is_some_and(is_ident_start) {
                        break;
                    }
                }
                let name = self.src.get(name_start..self.pos).unwrap_or_default().to_string();
                self.token(TokenKind::Symbol(name), start)
            }
            Some(c) if is_binary_char(c) => {
                let op_start = self.pos;
                while let Some(c) = self.peek().filter(|&c| is_binary_char(c)) {
                    self.pos += c.len_utf8();
                }
                let op = self.src.get(op_start..self.pos).unwrap_or_default().to_string();
                self.token(TokenKind::Symbol(op), start)
            }
            _ => self.error("expected a symbol after '#'", start),
        }
    }

    /// Scans digits valid in `radix` (letters either case) and returns them.
    fn scan_digits(&mut self, radix: u32) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_digit(radix)) {
            self.pos += 1;
        }
        self.src.get(start..self.pos).unwrap_or_default()
    }

    /// Skips the rest of a malformed number so lexing resumes after it.
    fn skip_number_junk(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            self.pos += 1;
        }
    }

    fn number(&mut self, start: usize) -> Token {
        let mut digits = self.scan_digits(10);
        let mut radix = 10;
        if self.peek() == Some('r') {
            radix = match digits.parse::<u32>() {
                Ok(r) if (2..=36).contains(&r) => r,
                _ => {
                    self.skip_number_junk();
                    return self.error(format!("invalid radix {digits}"), start);
                }
            };
            self.pos += 1;
            digits = self.scan_digits(radix);
            if digits.is_empty() {
                self.skip_number_junk();
                return self.error(format!("expected a digit in radix {radix} after 'r'"), start);
            }
        }
        let mut fraction = "";
        let digit_after_dot = self.char_at(self.pos + 1).is_some_and(|c| c.is_digit(radix));
        if self.peek() == Some('.') && digit_after_dot {
            self.pos += 1;
            fraction = self.scan_digits(radix);
        }
        if radix != 10
            && let Some(bad) = self.peek().filter(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
        {
            self.skip_number_junk();
            return self.error(format!("digit '{bad}' is not valid in radix {radix}"), start);
        }
        let mut parts = NumberParts { radix, digits, fraction, exponent: 0, force_float: false, scale: None };
        if let Some(letter) = self.peek().filter(|c| matches!(c, 'e' | 'd' | 'q')) {
            let after = self.pos + 1;
            let negative = self.char_at(after) == Some('-');
            let first_digit = if negative { after + 1 } else { after };
            if self.char_at(first_digit).is_some_and(|c| c.is_ascii_digit()) {
                self.pos = first_digit;
                let text = self.scan_digits(10);
                let Some(exponent) = text.parse::<i64>().ok().filter(|e| *e <= MAX_EXPONENT) else {
                    self.skip_number_junk();
                    return self.error("exponent too large", start);
                };
                parts.exponent = if negative { -exponent } else { exponent };
                parts.force_float = letter != 'e';
            }
        } else if self.peek() == Some('s') && !self.char_at(self.pos + 1).is_some_and(is_ident_start) {
            self.pos += 1;
            let text = self.scan_digits(10);
            parts.scale = Some(if text.is_empty() {
                u32::try_from(fraction.len()).unwrap_or(u32::MAX)
            } else {
                match text.parse::<u32>() {
                    Ok(s) => s,
                    Err(_) => return self.error("scale too large", start),
                }
            });
        }
        match parts.value() {
            Ok(literal) => self.token(TokenKind::Number(literal), start),
            Err(message) => self.error(message, start),
        }
    }
}

/// The pieces of a number literal, before its value is computed.
struct NumberParts<'a> {
    radix: u32,
    digits: &'a str,
    fraction: &'a str,
    exponent: i64,
    force_float: bool,
    scale: Option<u32>,
}

impl NumberParts<'_> {
    fn value(&self) -> Result<Literal, String> {
        let all: String = [self.digits, self.fraction].concat();
        let mantissa = BigUint::parse_bytes(all.as_bytes(), self.radix).ok_or("malformed number")?;
        let frac_len = i64::try_from(self.fraction.len()).map_err(|_| "number too long")?;
        let radix = BigUint::from(self.radix);
        if let Some(scale) = self.scale {
            let denominator = pow(&radix, frac_len)?;
            let numerator = BigInt::from_biguint(Sign::Plus, mantissa);
            let denominator = BigInt::from_biguint(Sign::Plus, denominator);
            let g = numerator.gcd(&denominator);
            return Ok(Literal::ScaledDecimal { numerator: numerator / &g, denominator: denominator / &g, scale });
        }
        if self.fraction.is_empty() && !self.force_float && self.exponent >= 0 {
            let value = mantissa * pow(&radix, self.exponent)?;
            return Ok(Literal::Integer(int_lit(BigInt::from_biguint(Sign::Plus, value))));
        }
        let float = if self.radix == 10 {
            let text = format!("{}.{}e{}", self.digits, self.fraction, self.exponent);
            text.parse::<f64>().map_err(|_| "malformed float")?
        } else {
            let shift = self.exponent - frac_len;
            if shift >= 0 {
                ratio_to_f64(&(mantissa * pow(&radix, shift)?), &BigUint::from(1u32))
            } else {
                ratio_to_f64(&mantissa, &pow(&radix, -shift)?)
            }
        };
        if float.is_finite() { Ok(Literal::Float(float)) } else { Err("float out of range".into()) }
    }
}

fn pow(base: &BigUint, exponent: i64) -> Result<BigUint, String> {
    let e = u32::try_from(exponent).map_err(|_| "exponent too large".to_string())?;
    Ok(base.pow(e))
}

/// `2^k` as a float, for `k` in the range of finite non-zero powers of two.
fn pow2(k: i64) -> f64 {
    if k > 1023 {
        f64::INFINITY
    } else if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else if k >= -1074 {
        f64::from_bits(1u64 << (k + 1074))
    } else {
        0.0
    }
}

/// The float nearest to `num / den` (round half to even); `den` must be non-zero.
pub fn ratio_to_f64(num: &BigUint, den: &BigUint) -> f64 {
    if num.is_zero() || den.is_zero() {
        return 0.0;
    }
    let estimate = num.bits() as i64 - den.bits() as i64;
    // Choose `shift` so that the quotient has exactly 53 bits, unless that would be finer
    // than the smallest subnormal, in which case the granularity is 2^-1074.
    let mut shift = 53 - estimate;
    let (mut q, mut r, mut d) = scaled_div(num, den, shift);
    if q.bits() > 53 {
        shift -= 1;
        (q, r, d) = scaled_div(num, den, shift);
    } else if q.bits() < 53 {
        shift += 1;
        (q, r, d) = scaled_div(num, den, shift);
    }
    if shift > 1074 {
        shift = 1074;
        (q, r, d) = scaled_div(num, den, shift);
    }
    let twice = r << 1u32;
    if twice > d || (twice == d && q.bit(0)) {
        q += 1u32;
    }
    let mantissa = q.to_u64().unwrap_or(u64::MAX) as f64;
    if shift > 1022 {
        // Two steps keep the intermediate power of two representable.
        mantissa * pow2(-1022) * pow2(1022 - shift)
    } else {
        mantissa * pow2(-shift)
    }
}

/// `floor(num * 2^shift / den)`, the remainder, and the divisor used.
fn scaled_div(num: &BigUint, den: &BigUint, shift: i64) -> (BigUint, BigUint, BigUint) {
    let amount = shift.unsigned_abs();
    let (n, d) = if shift >= 0 { (num << amount, den.clone()) } else { (num.clone(), den << amount) };
    let (q, r) = n.div_rem(&d);
    (q, r, d)
}

#[cfg(test)]
mod tests;
