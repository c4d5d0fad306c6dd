//! String, Symbol and Character primitives (130-159). A String holds Latin-1 bytes; a
//! WideString (and WideSymbol) holds code points; both answer the same to these primitives.

use super::{Args, Prim, PrimResult, boolean, size_arg, table};
use crate::compiler::ast::Literal;
use crate::compiler::lexer::{Lexer, TokenKind, negate_literal};
use crate::compiler::literals::literal_value;
use crate::heap::Body;
use crate::memory::LARGE_ALLOCATION;
use crate::value::Value;
use crate::vm::Vm;

/// The content hash of a string's characters: stable across sessions (persisted hashed
/// collections depend on it), a SmallInteger of 30 bits; a String and a WideString of the
/// same characters hash alike.
pub(crate) fn text_hash(codes: impl Iterator<Item = u32>) -> i64 {
    let mut h: u32 = 0x811c_9dc5;
    for c in codes {
        h ^= c;
        h = h.wrapping_mul(0x0100_0193);
    }
    i64::from(h & 0x3FFF_FFFF)
}

/// The content hash of a byte string (see [`text_hash`]).
pub(crate) fn bytes_hash(bytes: &[u8]) -> i64 {
    text_hash(bytes.iter().map(|&b| u32::from(b)))
}

/// A string's characters: a byte string's bytes (Latin-1) or a WideString's code points.
#[derive(Clone, Copy)]
pub(super) enum Text<'a> {
    Narrow(&'a [u8]),
    Wide(&'a [u32]),
}

impl<'a> Text<'a> {
    pub(super) fn len(self) -> usize {
        match self {
            Text::Narrow(b) => b.len(),
            Text::Wide(w) => w.len(),
        }
    }

    pub(super) fn codes(self) -> impl Iterator<Item = u32> + 'a {
        let (narrow, wide) = match self {
            Text::Narrow(b) => (b, &[][..]),
            Text::Wide(w) => (&[][..], w),
        };
        narrow.iter().map(|&b| u32::from(b)).chain(wide.iter().copied())
    }

    fn to_codes(self) -> Vec<u32> {
        self.codes().collect()
    }
}

/// The characters of `v`, a String (of any kind) or Symbol.
pub(super) fn text(vm: &Vm, v: Value) -> Result<Text<'_>, Prim> {
    if !vm.is_string(v) {
        return Err(Prim::Fail);
    }
    let obj = vm.heap.get(v).ok_or(Prim::Fail)?;
    match &obj.body {
        Body::Bytes(b) => Ok(Text::Narrow(b)),
        Body::Words(w) => Ok(Text::Wide(w)),
        _ => Err(Prim::Fail),
    }
}

/// The class of a string made from `r`'s characters: its own (a Symbol's is String), or
/// WideString when the result needs one.
fn result_class(vm: &Vm, r: Value, wide: bool) -> Value {
    let class = vm.class_of(r);
    if wide {
        vm.known.wide_string
    } else if class == vm.known.symbol || class == vm.known.wide_symbol || class == vm.known.wide_string {
        vm.known.string
    } else {
        class
    }
}

/// A new string of `codes`, of (like) `r`'s class: bytes when each fits in one.
fn new_like(vm: &mut Vm, r: Value, codes: Vec<u32>) -> Value {
    match codes.iter().map(|&c| u8::try_from(c)).collect::<Result<Vec<u8>, _>>() {
        Ok(bytes) => {
            let class = result_class(vm, r, false);
            vm.heap.alloc(class, 0, Body::Bytes(bytes.into()))
        }
        Err(_) => {
            let class = result_class(vm, r, true);
            vm.heap.alloc(class, 0, Body::Words(codes))
        }
    }
}

/// `=` between two byte Strings or Symbols, as [`table::STRING_EQUAL`] answers it; `None` for
/// any other operands (native code's quick path: the general one answers those).
#[inline]
pub(crate) fn narrow_equal(vm: &Vm, receiver: Value, argument: Value) -> Option<bool> {
    let (r, x) = (vm.heap.get(receiver)?, vm.heap.get(argument)?);
    let narrow = |c: Value| c == vm.known.string || c == vm.known.symbol;
    match (&r.body, &x.body) {
        (Body::Bytes(p), Body::Bytes(q)) if narrow(r.class) && narrow(x.class) => {
            // Byte by byte: the strings compared are mostly short, where a call of memcmp
            // costs more than the comparison.
            Some(p.len() == q.len() && p.iter().zip(q.iter()).all(|(a, b)| a == b))
        }
        _ => None,
    }
}

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let r = a.recv(vm);
    let x = a.arg(vm, 0);
    match index {
        table::STRING_EQUAL => {
            let p = text(vm, r)?;
            let Ok(q) = text(vm, x) else { return boolean(false) };
            boolean(match (p, q) {
                (Text::Narrow(p), Text::Narrow(q)) => p == q,
                _ => p.len() == q.len() && p.codes().eq(q.codes()),
            })
        }
        table::STRING_HASH => {
            let hash = match text(vm, r)? {
                Text::Narrow(b) => bytes_hash(b),
                t @ Text::Wide(_) => text_hash(t.codes()),
            };
            Ok(Value::small(hash))
        }
        table::STRING_AS_SYMBOL => {
            let name = vm.string_of(r).ok_or(Prim::Fail)?;
            Ok(vm.intern(&name))
        }
        table::SYMBOL_AS_STRING => {
            let codes = text(vm, r)?.to_codes();
            Ok(vm.new_string_of_codes(codes))
        }
        table::STRING_COMPARE => {
            let (p, q) = (text(vm, r)?, text(vm, x)?);
            let order = match (p, q) {
                (Text::Narrow(p), Text::Narrow(q)) => p.cmp(q),
                _ => p.codes().cmp(q.codes()),
            };
            Ok(Value::small(match order {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            }))
        }
        table::STRING_CONCATENATE => {
            let (p, q) = (text(vm, r)?, text(vm, x)?);
            if let (Text::Narrow(p), Text::Narrow(q)) = (p, q) {
                let joined = [p, q].concat();
                let class = result_class(vm, r, false);
                return Ok(vm.heap.alloc(class, 0, Body::Bytes(joined.into())));
            }
            let codes: Vec<u32> = p.codes().chain(q.codes()).collect();
            Ok(new_like(vm, r, codes))
        }
        table::STRING_FIND_STRING => {
            // findString: sub startingAt: start  -> index or 0
            let (p, q) = (text(vm, r)?, text(vm, x)?);
            let start = size_arg(a.arg(vm, 1))?.max(1) - 1;
            if q.len() == 0 {
                return Ok(Value::small(0));
            }
            let found = match (p, q) {
                (Text::Narrow(p), Text::Narrow(q)) => {
                    p.get(start..).and_then(|h| h.windows(q.len()).position(|w| w == q))
                }
                _ => {
                    let (p, q) = (p.to_codes(), q.to_codes());
                    p.get(start..).and_then(|h| h.windows(q.len()).position(|w| w == q.as_slice()))
                }
            };
            Ok(Value::small(found.map_or(0, |i| (start + i + 1) as i64)))
        }
        table::STRING_AS_UPPERCASE | table::STRING_AS_LOWERCASE => {
            let upper = index == table::STRING_AS_UPPERCASE;
            let codes: Vec<u32> = text(vm, r)?
                .codes()
                .map(|c| char::from_u32(c).map_or(c, |ch| u32::from(char_case(ch, upper))))
                .collect();
            if vm.is_symbol(r) {
                let name: String = codes.iter().filter_map(|&c| char::from_u32(c)).collect();
                return Ok(vm.intern(&name));
            }
            Ok(new_like(vm, r, codes))
        }
        table::STRING_AS_NUMBER => parse_number(vm, r),
        table::CHARACTER_FROM_CODE_POINT => {
            let n = x.as_int().ok_or(Prim::Fail)?;
            if !(0..=0x10FFFF).contains(&n) {
                return Err(Prim::Fail);
            }
            Ok(Value::char(n as u32))
        }
        table::CHARACTER_CODE_POINT => Ok(Value::small(i64::from(r.as_char().ok_or(Prim::Fail)?))),
        table::CHARACTER_CASE_CONVERT => {
            let c = r.as_char().ok_or(Prim::Fail)?;
            let ch = char::from_u32(c).ok_or(Prim::Fail)?;
            Ok(Value::char(u32::from(char_case(ch, a.arg(vm, 0) == Value::TRUE))))
        }
        table::CHARACTER_CLASSIFY => {
            // Character classification: 0 letter, 1 digit, 2 separator, 3 uppercase, 4 lowercase
            let c = char::from_u32(r.as_char().ok_or(Prim::Fail)?).ok_or(Prim::Fail)?;
            let k = x.as_int().ok_or(Prim::Fail)?;
            boolean(match k {
                0 => c.is_alphabetic(),
                1 => c.is_ascii_digit(),
                2 => c.is_whitespace(),
                3 => c.is_uppercase(),
                4 => c.is_lowercase(),
                5 => c.is_alphanumeric(),
                _ => return Err(Prim::Fail),
            })
        }
        table::STRING_AS_BYTE_ARRAY | table::BYTE_ARRAY_AS_STRING => {
            // asByteArray / asString between byte classes
            let b = vm.heap.bytes(r).map(<[u8]>::to_vec).ok_or(Prim::Fail)?;
            let class = if index == table::STRING_AS_BYTE_ARRAY { vm.known.byte_array } else { vm.known.string };
            Ok(vm.heap.alloc(class, 0, Body::Bytes(b.into())))
        }
        table::STRING_QUOTED => {
            let size = text(vm, r)?.len() + 2;
            if size >= LARGE_ALLOCATION {
                // Every quote doubled at worst.
                vm.reserve(size * 2)?;
            }
            let quote = u32::from('\'');
            let mut quoted = Vec::with_capacity(size);
            quoted.push(quote);
            for c in text(vm, r)?.codes() {
                if c == quote {
                    quoted.push(c);
                }
                quoted.push(c);
            }
            quoted.push(quote);
            Ok(vm.new_string_of_codes(quoted))
        }
        table::STRING_NUM_ARGS => {
            let s = vm.string_of(r).ok_or(Prim::Fail)?;
            Ok(Value::small(super::block::selector_arity(&s) as i64))
        }
        table::STRING_SUBSTRINGS => {
            // substrings: separators (a String of separator characters, or nil for whitespace)
            let p = text(vm, r)?.to_codes();
            let seps: Vec<u32> =
                if x.is_nil() { " \t\r\n\x0c".chars().map(u32::from).collect() } else { text(vm, x)?.to_codes() };
            let parts: Vec<Vec<u32>> =
                p.split(|c| seps.contains(c)).filter(|s| !s.is_empty()).map(<[u32]>::to_vec).collect();
            let items = parts.into_iter().map(|codes| vm.new_string_of_codes(codes)).collect();
            Ok(vm.new_array(items))
        }
        table::STRING_SAME_AS => {
            let (p, q) = (text(vm, r)?, text(vm, x)?);
            let lower = |c: u32| char::from_u32(c).map_or(c, |ch| u32::from(char_case(ch, false)));
            boolean(p.len() == q.len() && p.codes().map(lower).eq(q.codes().map(lower)))
        }
        table::STRING_INDEX_OF => {
            // indexOf: aCharacter startingAt: start -> index or 0; a start before the first
            // index fails to the method's code, which says it is out of bounds.
            let start = size_arg(a.arg(vm, 1))?.checked_sub(1).ok_or(Prim::Fail)?;
            if vm.class_of(r) == vm.known.byte_array {
                // ByteArray>>indexOf:startingAt: of a byte.
                let bytes = vm.heap.bytes(r).ok_or(Prim::Fail)?;
                let Some(b) = x.as_int().and_then(|b| u8::try_from(b).ok()) else { return Ok(Value::small(0)) };
                let found = bytes.get(start..).and_then(|s| s.iter().position(|&c| c == b));
                return Ok(Value::small(found.map_or(0, |i| (start + i + 1) as i64)));
            }
            let Some(c) = x.as_char() else { return Ok(Value::small(0)) };
            let found = match text(vm, r)? {
                Text::Narrow(p) => u8::try_from(c).ok().and_then(|c| p.get(start..)?.iter().position(|&b| b == c)),
                Text::Wide(p) => p.get(start..).and_then(|s| s.iter().position(|&w| w == c)),
            };
            Ok(Value::small(found.map_or(0, |i| (start + i + 1) as i64)))
        }
        _ => Err(Prim::Fail),
    }
}

/// The other case of a character when it is a single character (`ß` has no one-character
/// uppercase and stays as it is, as in Pharo).
fn char_case(c: char, upper: bool) -> char {
    let mut mapped =
        if upper { c.to_uppercase().collect::<Vec<char>>() } else { c.to_lowercase().collect::<Vec<char>>() };
    match (mapped.pop(), mapped.is_empty()) {
        (Some(m), true) => m,
        _ => c,
    }
}

/// `String>>asNumber`: the number a Smalltalk number literal denotes (`-3`, `16r1F`, `2.5e3`,
/// `1.5s2`), or nil.
fn parse_number(vm: &mut Vm, r: Value) -> PrimResult {
    let text = vm.string_of(r).ok_or(Prim::Fail)?;
    let trimmed = text.trim();
    let (negative, digits) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed),
    };
    let mut lexer = Lexer::new(digits);
    let token = lexer.next_token();
    if !matches!(lexer.next_token().kind, TokenKind::Eof) {
        return Ok(Value::NIL);
    }
    let TokenKind::Number(lit) = token.kind else { return Ok(Value::NIL) };
    let lit = if negative { negate_literal(lit) } else { lit };
    if !matches!(lit, Literal::Integer(_) | Literal::Float(_) | Literal::ScaledDecimal { .. }) {
        return Ok(Value::NIL);
    }
    literal_value(vm, &lit).map_err(|_| Prim::Fail)
}
