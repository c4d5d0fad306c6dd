//! Integer primitives (1-29): SmallInteger fast paths, LargeInteger arithmetic through
//! `num-bigint`, results normalised back to SmallInteger when they fit.

use num_bigint::{BigInt, Sign};
use num_integer::Integer as _;
use num_traits::{Signed, ToPrimitive, Zero};

use super::offload::{Answer, LONG_BITS, run_long};
use super::{Args, Prim, PrimResult, boolean, table};
use crate::value::Value;
use crate::vm::Vm;

fn big(vm: &Vm, v: Value) -> Result<BigInt, Prim> {
    vm.integer_of(v).ok_or(Prim::Fail)
}

/// Floor division and modulo on big integers (Smalltalk's `//` and `\\`).
fn floor_div_mod(a: &BigInt, b: &BigInt) -> (BigInt, BigInt) {
    a.div_mod_floor(b)
}

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let x = a.recv(vm);
    let y = a.arg(vm, 0);
    // SmallInteger fast paths.
    if let (Some(p), Some(q)) = (x.as_int(), y.as_int())
        && a.nargs == 1
        && let Some(answer) = small(vm, index, p, q)
    {
        return answer;
    }
    slow(vm, index, a, x, y)
}

/// The primitive `index` of the SmallIntegers `p` and `q` (arithmetic, comparison, bit
/// operations): `None` when it needs the general path (another primitive, a fraction, a
/// division by zero).
pub(crate) fn small(vm: &mut Vm, index: u16, p: i64, q: i64) -> Option<PrimResult> {
    let x = Value::small(p);
    let (p, q) = (i128::from(p), i128::from(q));
    let r = match index {
        table::INTEGER_ADD => p + q,
        table::INTEGER_SUBTRACT => p - q,
        table::INTEGER_LESS => return Some(boolean(p < q)),
        table::INTEGER_GREATER => return Some(boolean(p > q)),
        table::INTEGER_LESS_OR_EQUAL => return Some(boolean(p <= q)),
        table::INTEGER_GREATER_OR_EQUAL => return Some(boolean(p >= q)),
        table::INTEGER_EQUAL => return Some(boolean(p == q)),
        table::INTEGER_NOT_EQUAL => return Some(boolean(p != q)),
        table::INTEGER_MULTIPLY => p * q,
        table::INTEGER_DIVIDE if q != 0 && p % q == 0 => p / q,
        table::INTEGER_MODULO if q != 0 => p.rem_euclid(q) + if q < 0 && p.rem_euclid(q) != 0 { q } else { 0 },
        table::INTEGER_FLOOR_DIVIDE if q != 0 => p.div_euclid(q) - i128::from(q < 0 && p.rem_euclid(q) != 0),
        table::INTEGER_QUOTIENT if q != 0 => p / q,
        table::INTEGER_BIT_AND => p & q,
        table::INTEGER_BIT_OR => p | q,
        table::INTEGER_BIT_XOR => p ^ q,
        table::INTEGER_REMAINDER if q != 0 => p % q,
        table::INTEGER_GCD => gcd_i128(p, q),
        table::INTEGER_BIT_SHIFT if (-128..128).contains(&q) => {
            if (0..64).contains(&q) {
                let r = p << q;
                if r >> q == p {
                    return Some(Ok(vm.new_integer_i128(r)));
                }
                return Some(shift_big(vm, x, q as i64));
            } else if q < 0 {
                p >> (-q).min(127)
            } else {
                return Some(shift_big(vm, x, q as i64));
            }
        }
        _ => return None,
    };
    Some(Ok(vm.new_integer_i128(r)))
}

/// The hash of an integer beyond SmallInteger range (also used by integral Floats).
pub(crate) fn large_hash(n: &BigInt) -> i64 {
    let (sign, bytes) = n.to_bytes_le();
    let mut h: u64 = if sign == Sign::Minus { 0x9e37_79b9_7f4a_7c15 } else { 0xcbf2_9ce4_8422_2325 };
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    (h >> 4) as i64
}

fn gcd_i128(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

fn shift_big(vm: &mut Vm, x: Value, q: i64) -> PrimResult {
    let n = big(vm, x)?;
    if q > (1 << 24) {
        return Err(Prim::Fail);
    }
    let r = if q >= 0 { n << (q as usize) } else { n >> ((-q) as usize) };
    Ok(vm.new_integer(r))
}

fn slow(vm: &mut Vm, index: u16, a: Args, x: Value, y: Value) -> PrimResult {
    match index {
        table::INTEGER_PRINT_STRING => {
            let base = if a.nargs == 0 { 10 } else { y.as_int().ok_or(Prim::Fail)? };
            if !(2..=36).contains(&base) {
                return Err(Prim::Fail);
            }
            let n = big(vm, x)?;
            let long = n.bits() >= LONG_BITS;
            let print = move || n.to_str_radix(base as u32).to_uppercase();
            if long {
                return run_long(vm, a, move || Answer::Text(print()));
            }
            return Ok(vm.new_string(&print()));
        }
        table::INTEGER_AS_FLOAT => {
            let n = big(vm, x)?;
            return Ok(vm.new_float(n.to_f64().unwrap_or(f64::NAN)));
        }
        table::INTEGER_HIGH_BIT => {
            let n = big(vm, x)?;
            if n.sign() == Sign::Minus {
                return Err(Prim::Fail);
            }
            return Ok(Value::small(n.bits() as i64));
        }
        table::INTEGER_HASH => {
            // A hash that agrees with = (equal integers hash alike, SmallInteger or not).
            if let Some(n) = x.as_int() {
                return Ok(Value::small(n));
            }
            let n = big(vm, x)?;
            return Ok(Value::small(large_hash(&n)));
        }
        table::INTEGER_SQRT_FLOOR => {
            let n = big(vm, x)?;
            if n.is_negative() {
                return Err(Prim::Fail);
            }
            if n.bits() >= LONG_BITS {
                return run_long(vm, a, move || Answer::Integer(n.sqrt()));
            }
            return Ok(vm.new_integer(n.sqrt()));
        }
        table::INTEGER_RAISED_TO_INTEGER => {
            let n = big(vm, x)?;
            let e = y.as_int().ok_or(Prim::Fail)?;
            let bits = (n.bits() as i64).saturating_mul(e);
            if !(0..=1 << 20).contains(&e) || bits > 1 << 26 {
                return Err(Prim::Fail);
            }
            if bits >= LONG_BITS as i64 {
                return run_long(vm, a, move || Answer::Integer(num_traits::pow(n, e as usize)));
            }
            return Ok(vm.new_integer(num_traits::pow(n, e as usize)));
        }
        table::INTEGER_LOW_BIT => {
            let n = big(vm, x)?;
            return Ok(Value::small(n.trailing_zeros().map_or(0, |z| z as i64 + 1)));
        }
        _ => {}
    }
    if a.nargs != 1 {
        return Err(Prim::Fail);
    }
    let p = big(vm, x)?;
    let q = big(vm, y)?;
    if p.bits().max(q.bits()) >= LONG_BITS {
        return long(vm, index, a, x, p, q);
    }
    inline(vm, index, x, p, q)
}

/// A binary operation on integers, at once.
fn inline(vm: &mut Vm, index: u16, x: Value, p: BigInt, q: BigInt) -> PrimResult {
    let r = match index {
        table::INTEGER_ADD => p + q,
        table::INTEGER_SUBTRACT => p - q,
        table::INTEGER_LESS => return boolean(p < q),
        table::INTEGER_GREATER => return boolean(p > q),
        table::INTEGER_LESS_OR_EQUAL => return boolean(p <= q),
        table::INTEGER_GREATER_OR_EQUAL => return boolean(p >= q),
        table::INTEGER_EQUAL => return boolean(p == q),
        table::INTEGER_NOT_EQUAL => return boolean(p != q),
        table::INTEGER_MULTIPLY => p * q,
        table::INTEGER_DIVIDE => {
            if q.is_zero() {
                return Err(Prim::Fail);
            }
            let (d, m) = p.div_rem(&q);
            if !m.is_zero() {
                return Err(Prim::Fail);
            }
            d
        }
        table::INTEGER_MODULO | table::INTEGER_FLOOR_DIVIDE => {
            if q.is_zero() {
                return Err(Prim::Fail);
            }
            let (d, m) = floor_div_mod(&p, &q);
            if index == table::INTEGER_MODULO { m } else { d }
        }
        table::INTEGER_QUOTIENT | table::INTEGER_REMAINDER => {
            if q.is_zero() {
                return Err(Prim::Fail);
            }
            let (d, m) = p.div_rem(&q);
            if index == table::INTEGER_QUOTIENT { d } else { m }
        }
        table::INTEGER_BIT_AND => p & q,
        table::INTEGER_BIT_OR => p | q,
        table::INTEGER_BIT_XOR => p ^ q,
        table::INTEGER_BIT_SHIFT => {
            let s = q.to_i64().ok_or(Prim::Fail)?;
            return shift_big(vm, x, s);
        }
        table::INTEGER_GCD => p.gcd(&q),
        _ => return Err(Prim::Fail),
    };
    Ok(vm.new_integer(r))
}

/// A binary operation on integers of [`LONG_BITS`] or more: those whose time grows faster
/// than their size run off the VM thread; the rest (sums, comparisons, bits) here.
fn long(vm: &mut Vm, index: u16, a: Args, x: Value, p: BigInt, q: BigInt) -> PrimResult {
    let work: Box<dyn FnOnce() -> BigInt + Send> = match index {
        table::INTEGER_MULTIPLY => Box::new(move || p * q),
        // Exact division fails unless the divisor divides: the kernel's fallback finds out
        // with `gcd:` and `//`, which run off the VM thread.
        table::INTEGER_DIVIDE => return Err(Prim::Fail),
        table::INTEGER_MODULO | table::INTEGER_FLOOR_DIVIDE | table::INTEGER_QUOTIENT | table::INTEGER_REMAINDER
            if q.is_zero() =>
        {
            return Err(Prim::Fail);
        }
        table::INTEGER_MODULO => Box::new(move || floor_div_mod(&p, &q).1),
        table::INTEGER_FLOOR_DIVIDE => Box::new(move || floor_div_mod(&p, &q).0),
        table::INTEGER_QUOTIENT => Box::new(move || p.div_rem(&q).0),
        table::INTEGER_REMAINDER => Box::new(move || p.div_rem(&q).1),
        table::INTEGER_GCD => Box::new(move || p.gcd(&q)),
        _ => return inline(vm, index, x, p, q),
    };
    run_long(vm, a, move || Answer::Integer(work()))
}
