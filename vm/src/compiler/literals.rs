//! Turns literal syntax into objects: numbers, strings, symbols, arrays, byte arrays.

use num_bigint::BigInt;

use super::ast::{IntLit, Literal};
use crate::heap::Body;
use crate::value::Value;
use crate::vm::Vm;

/// Makes the object a literal denotes. Fails only when a class it needs is missing.
pub(crate) fn literal_value(vm: &mut Vm, lit: &Literal) -> Result<Value, String> {
    Ok(match lit {
        Literal::Nil => Value::NIL,
        Literal::True => Value::TRUE,
        Literal::False => Value::FALSE,
        Literal::Integer(IntLit::Small(n)) => vm.new_integer(BigInt::from(*n)),
        Literal::Integer(IntLit::Large(n)) => vm.new_integer(n.clone()),
        Literal::Float(f) => vm.new_float(*f),
        Literal::ScaledDecimal { numerator, denominator, scale } => {
            let num = vm.new_integer(numerator.clone());
            let den = vm.new_integer(denominator.clone());
            let value = if den == Value::small(1) { num } else { fraction(vm, num, den)? };
            let class = vm.global("ScaledDecimal").ok_or("ScaledDecimal is not defined")?;
            vm.heap.alloc(class, 2, Body::Slots(vec![value, Value::small(i64::from(*scale))].into()))
        }
        Literal::Character(c) => Value::char(u32::from(*c)),
        Literal::String(s) => vm.new_string(s),
        Literal::Symbol(s) => vm.intern(s),
        Literal::Array(items) => {
            let mut values = Vec::with_capacity(items.len());
            for item in items {
                values.push(literal_value(vm, item)?);
            }
            vm.new_array(values)
        }
        Literal::ByteArray(bytes) => {
            let class = vm.known.byte_array;
            vm.heap.alloc(class, 0, Body::Bytes(bytes.clone().into()))
        }
    })
}

fn fraction(vm: &mut Vm, num: Value, den: Value) -> Result<Value, String> {
    let class = vm.global("Fraction").ok_or("Fraction is not defined")?;
    Ok(vm.heap.alloc(class, 2, Body::Slots(vec![num, den].into())))
}
