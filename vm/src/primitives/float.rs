//! Float primitives (30-59): IEEE double arithmetic, the elementary functions, conversion to
//! integers, and printing (the shortest text that reads back to the same double, laid out as
//! Pharo prints Floats).

use num_bigint::BigInt;
use num_traits::FromPrimitive;

use super::{Args, Prim, PrimResult, boolean, table};
use crate::value::Value;
use crate::vm::Vm;

/// A Float receiver or argument; integers are converted.
fn num(vm: &Vm, v: Value) -> Result<f64, Prim> {
    if let Some(f) = vm.float_of(v) {
        return Ok(f);
    }
    if let Some(n) = v.as_int() {
        return Ok(n as f64);
    }
    use num_traits::ToPrimitive;
    vm.integer_of(v).and_then(|n| n.to_f64()).ok_or(Prim::Fail)
}

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let x = vm.float_of(a.recv(vm));
    if index == table::FLOAT_CONSTANT {
        // Float class constants.
        let k = a.arg(vm, 0).as_int().ok_or(Prim::Fail)?;
        let f = match k {
            0 => f64::INFINITY,
            1 => f64::NAN,
            2 => std::f64::consts::PI,
            3 => std::f64::consts::E,
            4 => f64::MAX,
            5 => f64::MIN_POSITIVE,
            6 => f64::EPSILON,
            7 => 0.0_f64.next_up(),
            _ => return Err(Prim::Fail),
        };
        return Ok(vm.new_float(f));
    }
    let x = x.ok_or(Prim::Fail)?;
    if a.nargs == 1
        && let Some(answer) = binary(vm, index, x, a.arg(vm, 0))
    {
        return answer;
    }
    let f = match index {
        table::FLOAT_TRUNCATED => {
            // truncated
            if !x.is_finite() {
                return Err(Prim::Fail);
            }
            let t = x.trunc();
            if t.abs() < 1e18 {
                return Ok(vm.new_integer_i128(t as i128));
            }
            let n = BigInt::from_f64(t).ok_or(Prim::Fail)?;
            return Ok(vm.new_integer(n));
        }
        table::FLOAT_EXPONENT => {
            if x == 0.0 || !x.is_finite() {
                return Ok(Value::small(0));
            }
            let (_, e) = frexp(x);
            return Ok(Value::small(i64::from(e - 1)));
        }
        table::FLOAT_TIMES_TWO_POWER => {
            let e = a.arg(vm, 0).as_int().ok_or(Prim::Fail)?;
            ldexp(x, e.clamp(-5000, 5000) as i32)
        }
        table::FLOAT_PRINT_STRING => {
            let s = print_float(x);
            return Ok(vm.new_string(&s));
        }
        table::FLOAT_HASH => {
            // A hash consistent with =: an integral Float hashes like the equal Integer.
            if x.is_finite() && x.fract() == 0.0 {
                if x.abs() < 2f64.powi(60) {
                    return Ok(Value::small(x as i64));
                }
                let n = BigInt::from_f64(x).ok_or(Prim::Fail)?;
                return Ok(Value::small(super::integer::large_hash(&n)));
            }
            let bits = x.to_bits();
            return Ok(Value::small(((bits ^ (bits >> 29)) & (Value::MAX_INT as u64)) as i64));
        }
        table::FLOAT_RAISED_TO => {
            let y = num(vm, a.arg(vm, 0))?;
            x.powf(y)
        }
        table::FLOAT_ARC_TAN2 => {
            let y = num(vm, a.arg(vm, 0))?;
            x.atan2(y)
        }
        _ => elementary(index, x).ok_or(Prim::Fail)?,
    };
    Ok(vm.new_float(f))
}

/// The Float primitive `index` that is a function of the receiver alone (`sqrt`, `sin`,
/// `floor`, ...), applied to `x`; `None` for any other primitive.
pub(crate) fn elementary(index: u16, x: f64) -> Option<f64> {
    Some(match index {
        table::FLOAT_SQRT => x.sqrt(),
        table::FLOAT_SIN => x.sin(),
        table::FLOAT_COS => x.cos(),
        table::FLOAT_TAN => x.tan(),
        table::FLOAT_ARC_SIN => x.asin(),
        table::FLOAT_ARC_COS => x.acos(),
        table::FLOAT_ARC_TAN => x.atan(),
        table::FLOAT_LN => x.ln(),
        table::FLOAT_LOG10 => x.log10(),
        table::FLOAT_EXP => x.exp(),
        table::FLOAT_FLOOR => x.floor(),
        table::FLOAT_FRACTION_PART => x.fract(),
        _ => return None,
    })
}

/// `x * 2^e` without overflowing or underflowing in the intermediate power of two.
fn ldexp(mut x: f64, mut e: i32) -> f64 {
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e)
}

/// Compares a Float with an Integer exactly (no rounding of the integer to a double).
pub(crate) fn compare_float_integer(x: f64, n: &BigInt) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if x.is_nan() {
        return None;
    }
    if x.is_infinite() {
        return Some(if x > 0.0 { Ordering::Greater } else { Ordering::Less });
    }
    let floor = x.floor();
    let f = BigInt::from_f64(floor)?;
    Some(match f.cmp(n) {
        Ordering::Equal if x > floor => Ordering::Greater,
        other => other,
    })
}

/// Splits a finite non-zero double into mantissa in [0.5, 1) and exponent.
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

/// Pharo's layout of a Float: the shortest digits that read back exactly, in fixed notation
/// when the decimal exponent is between -3 and 16 (`0.001`, `100.0`), else scientific
/// (`1.0e-5`, `1.0e17`); `Float infinity`, `Float negativeInfinity`, `Float nan`.
pub fn print_float(x: f64) -> String {
    if x.is_nan() {
        return "Float nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Float infinity".to_string() } else { "Float negativeInfinity".to_string() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0".to_string() } else { "0.0".to_string() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "d.ddde±x".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // value = 0.d1d2d3... * 10^k
    let k = exp + 1;
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    if (-3..=16).contains(&k) {
        if k <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-k) as usize));
            out.push_str(&digits);
        } else {
            let k = k as usize;
            if digits.len() > k {
                out.push_str(&digits[..k]);
                out.push('.');
                out.push_str(&digits[k..]);
            } else {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', k - digits.len()));
                out.push_str(".0");
            }
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        if digits.len() > 1 {
            out.push_str(&digits[1..]);
        } else {
            out.push('0');
        }
        out.push('e');
        out.push_str(&(k - 1).to_string());
    }
    out
}

/// The Float comparison or arithmetic primitive `index` of `x` and the argument `y`; `None`
/// for any other primitive.
pub(crate) fn binary(vm: &mut Vm, index: u16, x: f64, y: Value) -> Option<PrimResult> {
    if (table::FLOAT_LESS..=table::FLOAT_NOT_EQUAL).contains(&index) {
        // Comparisons with integers are exact, whatever their size.
        let ord = match vm.float_of(y) {
            Some(f) => x.partial_cmp(&f),
            None => match vm.integer_of(y) {
                Some(n) => compare_float_integer(x, &n),
                None => return Some(Err(Prim::Fail)),
            },
        };
        use std::cmp::Ordering::{Equal, Greater, Less};
        return Some(boolean(match index {
            table::FLOAT_LESS => ord == Some(Less),
            table::FLOAT_GREATER => ord == Some(Greater),
            table::FLOAT_LESS_OR_EQUAL => matches!(ord, Some(Less | Equal)),
            table::FLOAT_GREATER_OR_EQUAL => matches!(ord, Some(Greater | Equal)),
            table::FLOAT_EQUAL => ord == Some(Equal),
            _ => ord != Some(Equal), // FLOAT_NOT_EQUAL
        }));
    }
    if !(table::FLOAT_ADD..=table::FLOAT_DIVIDE).contains(&index) {
        return None;
    }
    let y = match num(vm, y) {
        Ok(y) => y,
        Err(e) => return Some(Err(e)),
    };
    Some(match index {
        table::FLOAT_ADD => Ok(vm.new_float(x + y)),
        table::FLOAT_SUBTRACT => Ok(vm.new_float(x - y)),
        table::FLOAT_MULTIPLY => Ok(vm.new_float(x * y)),
        _ if y == 0.0 => Err(Prim::Fail),
        _ => Ok(vm.new_float(x / y)), // FLOAT_DIVIDE
    })
}

#[cfg(test)]
mod tests {
    use super::print_float;

    #[test]
    fn floats_print_as_pharo_does() {
        assert_eq!(print_float(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(print_float(1.0), "1.0");
        assert_eq!(print_float(3.7), "3.7");
        assert_eq!(print_float(100.0), "100.0");
        assert_eq!(print_float(0.001), "0.001");
        assert_eq!(print_float(1.0e-5), "1.0e-5");
        assert_eq!(print_float(1.0e10), "10000000000.0");
        assert_eq!(print_float(1.0e100), "1.0e100");
        assert_eq!(print_float(-2.5), "-2.5");
        assert_eq!(print_float(f64::INFINITY), "Float infinity");
        assert_eq!(print_float(f64::NAN), "Float nan");
        assert_eq!(print_float(1.2345678901234567e17), "1.2345678901234566e17");
        assert_eq!(print_float(1.0e16), "1.0e16");
        assert_eq!(print_float(1.0e15), "1000000000000000.0");
        assert_eq!(print_float(0.0001), "0.0001");
    }
}
