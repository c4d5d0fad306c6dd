//! String, Symbol and Character primitives (130-159). Strings are Latin-1 byte strings.

use super::{Args, Prim, PrimResult, boolean, size_arg, table};
use crate::compiler::ast::Literal;
use crate::compiler::lexer::{Lexer, TokenKind, negate_literal};
use crate::compiler::literals::literal_value;
use crate::heap::Body;
use crate::memory::LARGE_ALLOCATION;
use crate::value::Value;
use crate::vm::Vm;

/// The content hash of a byte string: stable across sessions (persisted hashed collections
/// depend on it), a SmallInteger of 30 bits.
pub(crate) fn bytes_hash(bytes: &[u8]) -> i64 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    i64::from(h & 0x3FFF_FFFF)
}

fn is_stringish(vm: &Vm, v: Value) -> bool {
    let c = vm.class_of(v);
    c == vm.known.string || c == vm.known.symbol || vm.inherits_from(c, vm.known.string)
}

fn bytes(vm: &Vm, v: Value) -> Result<Vec<u8>, Prim> {
    vm.heap.bytes(v).map(<[u8]>::to_vec).ok_or(Prim::Fail)
}

fn string_bytes(vm: &Vm, v: Value) -> Result<&[u8], Prim> {
    if !is_stringish(vm, v) {
        return Err(Prim::Fail);
    }
    vm.heap.bytes(v).ok_or(Prim::Fail)
}

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let r = a.recv(vm);
    let x = a.arg(vm, 0);
    match index {
        table::STRING_EQUAL => {
            let p = string_bytes(vm, r)?;
            if !is_stringish(vm, x) {
                return boolean(false);
            }
            boolean(vm.heap.bytes(x).is_some_and(|q| q == p))
        }
        table::STRING_HASH => Ok(Value::small(bytes_hash(vm.heap.bytes(r).ok_or(Prim::Fail)?))),
        table::STRING_AS_SYMBOL => {
            let b = bytes(vm, r)?;
            Ok(vm.intern_bytes(&b))
        }
        table::SYMBOL_AS_STRING => {
            let b = bytes(vm, r)?;
            let class = vm.known.string;
            Ok(vm.heap.alloc(class, 0, Body::Bytes(b)))
        }
        table::STRING_COMPARE => {
            let p = string_bytes(vm, r)?;
            let q = string_bytes(vm, x)?;
            Ok(Value::small(match p.cmp(q) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            }))
        }
        table::STRING_CONCATENATE => {
            let mut p = string_bytes(vm, r)?.to_vec();
            p.extend_from_slice(string_bytes(vm, x)?);
            let class = if vm.class_of(r) == vm.known.symbol { vm.known.string } else { vm.class_of(r) };
            Ok(vm.heap.alloc(class, 0, Body::Bytes(p)))
        }
        table::STRING_FIND_STRING => {
            // findString: sub startingAt: start  -> index or 0
            let p = string_bytes(vm, r)?;
            let q = string_bytes(vm, x)?;
            let start = size_arg(a.arg(vm, 1))?.max(1) - 1;
            if q.is_empty() {
                return Ok(Value::small(0));
            }
            let found = p.get(start..).and_then(|hay| hay.windows(q.len()).position(|w| w == q));
            Ok(Value::small(found.map_or(0, |i| (start + i + 1) as i64)))
        }
        table::STRING_AS_UPPERCASE | table::STRING_AS_LOWERCASE => {
            let mut p = string_bytes(vm, r)?.to_vec();
            for b in &mut p {
                *b = latin1_case(*b, index == table::STRING_AS_UPPERCASE);
            }
            let class = if vm.class_of(r) == vm.known.symbol { vm.known.string } else { vm.class_of(r) };
            let s = vm.heap.alloc(class, 0, Body::Bytes(p));
            if vm.class_of(r) == vm.known.symbol {
                let b = bytes(vm, s)?;
                return Ok(vm.intern_bytes(&b));
            }
            Ok(s)
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
            let b = bytes(vm, r)?;
            let class = if index == table::STRING_AS_BYTE_ARRAY { vm.known.byte_array } else { vm.known.string };
            Ok(vm.heap.alloc(class, 0, Body::Bytes(b)))
        }
        table::STRING_QUOTED => {
            let size = string_bytes(vm, r)?.len() + 2;
            if size >= LARGE_ALLOCATION {
                // Every quote doubled at worst.
                vm.reserve(size * 2)?;
            }
            let b = string_bytes(vm, r)?;
            let mut quoted = Vec::with_capacity(b.len() + 2);
            quoted.push(b'\'');
            for &c in b {
                if c == b'\'' {
                    quoted.push(c);
                }
                quoted.push(c);
            }
            quoted.push(b'\'');
            let class = vm.known.string;
            Ok(vm.heap.alloc(class, 0, Body::Bytes(quoted)))
        }
        table::STRING_NUM_ARGS => {
            let s = vm.string_of(r).ok_or(Prim::Fail)?;
            Ok(Value::small(super::block::selector_arity(&s) as i64))
        }
        table::STRING_SUBSTRINGS => {
            // substrings: separators (a String of separator characters, or nil for whitespace)
            let p = string_bytes(vm, r)?.to_vec();
            let seps: Vec<u8> = if x.is_nil() { b" \t\r\n\x0c".to_vec() } else { string_bytes(vm, x)?.to_vec() };
            let parts: Vec<Vec<u8>> =
                p.split(|b| seps.contains(b)).filter(|s| !s.is_empty()).map(<[u8]>::to_vec).collect();
            let class = vm.known.string;
            let items = parts.into_iter().map(|b| vm.heap.alloc(class, 0, Body::Bytes(b))).collect();
            Ok(vm.new_array(items))
        }
        table::STRING_SAME_AS => {
            let p = string_bytes(vm, r)?;
            let q = string_bytes(vm, x)?;
            boolean(
                p.len() == q.len() && p.iter().zip(q).all(|(a, b)| latin1_case(*a, false) == latin1_case(*b, false)),
            )
        }
        table::STRING_INDEX_OF => {
            // indexOf: aCharacter startingAt: start -> index or 0
            let p = vm.heap.bytes(r).ok_or(Prim::Fail)?;
            let start = size_arg(a.arg(vm, 1))?.max(1) - 1;
            let Some(c) = x.as_char().and_then(|c| u8::try_from(c).ok()) else { return Ok(Value::small(0)) };
            let found = p.get(start..).and_then(|s| s.iter().position(|&b| b == c));
            Ok(Value::small(found.map_or(0, |i| (start + i + 1) as i64)))
        }
        _ => Err(Prim::Fail),
    }
}

fn latin1_case(b: u8, upper: bool) -> u8 {
    u8::try_from(u32::from(char_case(char::from(b), upper))).unwrap_or(b)
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
