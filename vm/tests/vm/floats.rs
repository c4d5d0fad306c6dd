//! Immediate floats (SmallFloat64) at the edges of their range, beside boxed Floats: which
//! doubles are immediate, arithmetic that crosses the boundary, printing, equality and
//! hashing, in the interpreter and in native code alike, and persistence across gems.

use std::sync::Arc;

use onyx_vm::{JitConfig, Vm, VmConfig};

use crate::util::{check_each_way, eval_in, vm};

/// Methods native code compiles at first entry: float arithmetic and comparisons in loops.
const PROBE: &[&str] = &[
    "Object subclass: #FloatProbe instanceVariableNames: 'x' classVariableNames: '' package: 'Tests-Floats'",
    "FloatProbe compile: 'x ^ x'",
    "FloatProbe compile: 'x: f x := f'",
    "FloatProbe compile: 'sum: n of: f | s | s := 0.0. 1 to: n do: [:i | s := s + f]. ^ s'",
    "FloatProbe compile: 'scale: f by: k times: n | y | y := f. n timesRepeat: [y := y * k]. ^ y'",
    "FloatProbe compile: 'ops: a with: b ^ {a + b. a - b. a * b. a < b. a > b. a <= b. a >= b. a = b. a ~= b}'",
    "FloatProbe compile: 'countBelow: limit from: f step: d | n y | n := 0. y := f. [y < limit] whileTrue: [y := y + d. n := n + 1]. ^ n'",
    "FloatProbe compile: 'mandel: c | zr zi t k | zr := 0.0. zi := 0.0. k := 0. [k < 50 and: [(zr * zr) + (zi * zi) <= 4.0]] whileTrue: [t := (zr * zr) - (zi * zi) + c. zi := 2.0 * zr * zi. zr := t. k := k + 1]. ^ k'",
    "FloatProbe compile: 'chain: a with: b and: c ^ {a * b + c. c + (a * b). a * b * (a * b). a * b < c}'",
    "FloatProbe compile: 'accumulate: n | p | p := FloatProbe new x: 0.0; yourself. 1 to: n do: [:i | p x: p x + 0.25]. ^ p x'",
    "FloatProbe compile: 'over: a by: b ^ a / b'",
    "FloatProbe compile: 'root: f ^ f sqrt'",
    "FloatProbe compile: 'ratio: a with: b ^ (a * b + 1.0) / (a - b) * 2.0'",
];

/// Each doit and the printString it must answer, with and without native code.
const CASES: &[(&str, &str)] = &[
    ("1.5 class", "SmallFloat64"),
    ("1.5 isFloat & (1.5 isKindOf: Float)", "true"),
    // The smallest immediate magnitude is 2^-126; the double below it is boxed.
    ("1.1754943508222875e-38 class", "SmallFloat64"),
    ("1.1754943508222874e-38 class", "Float"),
    ("-1.1754943508222875e-38 class", "SmallFloat64"),
    // The largest is the double below 2^129.
    ("6.8056473384187685e38 class", "SmallFloat64"),
    ("6.80564733841877e38 class", "Float"),
    (
        "{5.0e-324 class. Float fmin class. 1.0e300 class. Float infinity class. Float nan class}",
        "{Float. Float. Float. Float. Float}",
    ),
    (
        "{0.0 class. -0.0 class. -0.0 printString. 0.0 = -0.0. 0.0 == -0.0. -0.0 sign. 0.0 sign}",
        "{SmallFloat64. SmallFloat64. '-0.0'. true. false. 0. 0}",
    ),
    (
        "{1.0e38 * 10.0. (1.0e38 * 10.0) class. (1.0e38 * 10.0) / 10.0. ((1.0e38 * 10.0) / 10.0) class}",
        "{1.0e39. Float. 1.0e38. SmallFloat64}",
    ),
    (
        "{1.0e-37 / 1.0e10. (1.0e-37 / 1.0e10) class. (1.0e-37 / 1.0e10) * 1.0e10. ((1.0e-37 / 1.0e10) * 1.0e10) class}",
        "{1.0000000000000001e-47. Float. 1.0e-37. SmallFloat64}",
    ),
    (
        "#(0.1 1.1754943508222875e-38 6.8056473384187685e38 5.0e-324 1.0e300 -0.0 2.5) allSatisfy: [:f | (Float readFrom: f printString) = f]",
        "true",
    ),
    (
        "| big | big := 1.0e300. {1.5 == 1.5. (0.5 + 1.0) == 1.5. big == big copy. (big / 2.0) == (big / 2.0)}",
        "#(true true true false)",
    ),
    // A boxed Float of a value an immediate holds (as an older repository may have) is equal and hashes alike.
    (
        "{Float basicNew = 0.0. Float basicNew hash = 0.0 hash. ((Set with: 0.0) includes: Float basicNew). Float basicNew class}",
        "{true. true. true. Float}",
    ),
    ("{1.0 hash = 1 hash. 2.5 hash = 2.5 hash. (Set withAll: #(1.5 1.5 2.5)) size}", "#(true true 2)"),
    (
        "{3 + 0.5. 0.5 + 3. 3 < 3.5. 3.5 < 3. 2 = 2.0. (2 raisedTo: 60) + 0.5. (2 raisedTo: 60) < 0.5}",
        "#(3.5 3.5 true false true 1.152921504606847e18 false)",
    ),
    (
        "{Float nan < 1.0. Float nan = Float nan. Float nan ~= Float nan. Float infinity > 1.0e300}",
        "#(false false true true)",
    ),
    ("FloatProbe new sum: 100000 of: 0.5", "50000.0"),
    ("FloatProbe new sum: 1000 of: 0.1", "99.9999999999986"),
    (
        "{FloatProbe new scale: 1.0 by: 10.0 times: 300. FloatProbe new scale: 1.0 by: 0.1 times: 300}",
        "#(1.0000000000000002e300 1.0000000000000168e-300)",
    ),
    (
        "(FloatProbe new scale: (FloatProbe new scale: 1.0 by: 1.0e10 times: 20) by: 1.0e-10 times: 20) class",
        "SmallFloat64",
    ),
    ("FloatProbe new ops: 1.5 with: 2.25", "#(3.75 -0.75 3.375 true false true false false true)"),
    ("FloatProbe new ops: 2.25 with: 2", "#(4.25 0.25 4.5 false true false true false true)"),
    ("FloatProbe new ops: 3 with: 0.5", "#(3.5 2.5 1.5 false true false true false true)"),
    ("FloatProbe new ops: 1.0e30 with: 1.0e30", "#(2.0e30 0.0 1.0000000000000001e60 false false true true true false)"),
    ("FloatProbe new ops: -0.0 with: 0.0", "#(0.0 -0.0 -0.0 false false true true true false)"),
    (
        "FloatProbe new ops: Float infinity with: 1.0",
        "{Float infinity. Float infinity. Float infinity. false. true. false. true. false. true}",
    ),
    (
        "FloatProbe new ops: Float nan with: 1.0",
        "{Float nan. Float nan. Float nan. false. false. false. false. false. true}",
    ),
    ("FloatProbe new ops: 1.5 with: 1/2", "#(2.0 1.0 0.75 false true false true false true)"),
    ("FloatProbe new countBelow: 10.0 from: 0.0 step: 0.5", "20"),
    (
        "(-20 to: 20) collect: [:i | FloatProbe new mandel: i / 10.0]",
        "#(50 50 50 50 50 50 50 50 50 50 50 50 50 50 50 50 50 50 50 50 50 50 50 12 7 5 4 3 3 3 3 2 2 2 2 2 2 2 2 2 2)",
    ),
    ("FloatProbe new accumulate: 1000", "250.0"),
    // A float result the next instruction takes straight from the register it was made in,
    // beside operands that are not immediate floats.
    ("FloatProbe new chain: 1.5 with: 2.0 and: 0.25", "#(3.25 3.25 9.0 false)"),
    ("FloatProbe new chain: 1.5 with: 2.0 and: 3", "#(6.0 6.0 9.0 false)"),
    ("FloatProbe new chain: 1.5 with: 2.0 and: 1/2", "#(3.5 3.5 9.0 false)"),
    (
        "FloatProbe new chain: 1.0e30 with: 1.0e30 and: 1.0",
        "#(1.0000000000000001e60 1.0000000000000001e60 1.0000000000000003e120 false)",
    ),
    (
        "[FloatProbe new chain: 1.5 with: 2.0 and: nil] on: MessageNotUnderstood do: [:e | e message selector]",
        "#adaptToNumber:andSend:",
    ),
    // `/`: floats inline, an exact SmallInteger quotient, anything else (a Fraction, a zero
    // divisor) the method's.
    (
        "{FloatProbe new over: 7.5 by: 2.5. FloatProbe new over: 1 by: 4.0. FloatProbe new over: 1.0 by: 4. FloatProbe new over: -0.0 by: 2.0. FloatProbe new over: 3.0 by: 1/2}",
        "#(3.0 0.25 0.25 -0.0 6.0)",
    ),
    (
        "{FloatProbe new over: 7 by: 2. FloatProbe new over: 8 by: 2. FloatProbe new over: -9 by: 3. (FloatProbe new over: SmallInteger minVal by: -1) = (SmallInteger maxVal + 1)}",
        "{(7/2). 4. -3. true}",
    ),
    (
        "{FloatProbe new over: 1.0e-37 by: 1.0e10. (FloatProbe new over: 1.0e-37 by: 1.0e10) class. FloatProbe new over: 1.0e300 by: 1.0e-300}",
        "{1.0000000000000001e-47. Float. Float infinity}",
    ),
    (
        "#(0.0 -0.0 0) collect: [:z | [FloatProbe new over: 1.5 by: z] on: ZeroDivide do: [:e | e class name]]",
        "#(#ZeroDivide #ZeroDivide #ZeroDivide)",
    ),
    ("[FloatProbe new over: 3 by: 0] on: ZeroDivide do: [:e | e class name]", "#ZeroDivide"),
    (
        "{FloatProbe new over: Float nan by: 2.0. FloatProbe new over: Float infinity by: 2.0. (FloatProbe new over: 1.0 by: Float nan) isNaN}",
        "{Float nan. Float infinity. true}",
    ),
    ("{FloatProbe new ratio: 3.0 with: 1.0. FloatProbe new ratio: 3 with: 1/2}", "#(4.0 2.0)"),
    ("[FloatProbe new ratio: 2.0 with: 2.0] on: ZeroDivide do: [:e | #zero]", "#zero"),
    // A divisor that is no number is the method's: a clear error, not a crash.
    (
        "#(nil 'abc' #sym) collect: [:x | [FloatProbe new over: 1.5 by: x] on: Error do: [:e | e class name]]",
        "#(#MessageNotUnderstood #MessageNotUnderstood #MessageNotUnderstood)",
    ),
    // `sqrt` of an immediate float inline; of a boxed one, of a negative one (NaN, boxed) and
    // of an Integer, the method's.
    (
        "#(2.0 4 0.0 -0.0 1.0e300 1.0e-300 6.8056473384187685e38) collect: [:f | FloatProbe new root: f]",
        "#(1.4142135623730951 2 0.0 -0.0 1.0e150 1.0e-150 2.6087635650665562e19)",
    ),
    ("{(FloatProbe new root: -1.0) isNaN. FloatProbe new root: Float infinity}", "{true. Float infinity}"),
];

#[test]
fn immediate_floats_at_the_edges_answer_alike_in_the_interpreter_and_in_native_code() {
    check_each_way(&[JitConfig::Off, JitConfig::After(0)], PROBE, CASES);
}

#[test]
fn immediate_and_boxed_floats_persist_and_read_back_in_another_gem() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = Arc::new(crate::util::stone(dir.path()));
    vm().create_repository(Box::new(crate::util::session(&stone)), &[]).expect("the kernel commits");
    let gem = || Vm::login(Box::new(crate::util::session(&stone)), VmConfig::default()).expect("logs in");
    let floats = "{1.5. -0.0. 0.0. 1.1754943508222875e-38. 6.8056473384187685e38. 5.0e-324. 1.0e300. Float infinity. Float nan. 0.1}";
    let mut a = gem();
    let source = format!("Smalltalk at: #Floats put: {floats}. System commitTransaction");
    assert_eq!(eval_in(&mut a, &source).expect("commits"), "true");
    let mut b = gem();
    let read = "(Smalltalk at: #Floats) collect: [:f | {f class name. f printString}]";
    let expected = "#(#(#SmallFloat64 '1.5') #(#SmallFloat64 '-0.0') #(#SmallFloat64 '0.0') \
                    #(#SmallFloat64 '1.1754943508222875e-38') #(#SmallFloat64 '6.8056473384187685e38') \
                    #(#Float '5.0e-324') #(#Float '1.0e300') #(#Float 'Float infinity') #(#Float 'Float nan') \
                    #(#SmallFloat64 '0.1'))";
    assert_eq!(eval_in(&mut b, read).expect("reads"), expected);
    let same = format!("(Smalltalk at: #Floats) first == 1.5 and: [((Smalltalk at: #Floats) = {floats}) not]");
    // NaN is not equal to itself, so the whole arrays differ; the immediate ones are identical.
    assert_eq!(eval_in(&mut b, &same).expect("compares"), "true");
}
