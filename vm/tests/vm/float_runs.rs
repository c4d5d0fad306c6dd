//! Runs of float arithmetic that native code keeps in SSE registers: the answers are the
//! interpreter's whether the run's inputs are immediate floats (the run), or SmallIntegers,
//! boxed Floats and other objects (the instructions' own code from the run's start), when
//! an intermediate result is beyond the immediate range, when a result the run leaves must
//! be boxed after it has overwritten one of its inputs, with zero divisors, NaNs and
//! comparisons that branch or are stored, and past the machine registers a run may use;
//! with `sqrt` and getter sends in runs, while their caches hold those methods and after.

use onyx_vm::JitConfig;

use crate::util::check_each_way;

/// Methods whose bodies are runs: compiled at first entry, and after a few calls.
const PROBE: &[&str] = &[
    "Object subclass: #RunProbe instanceVariableNames: '' classVariableNames: '' package: 'Tests-FloatRuns'",
    "RunProbe compile: 'step: zr with: zi c: c ^ zr * zr - (zi * zi) + c'",
    "RunProbe compile: 'update: a with: b | x y | x := a. y := b. x := x * y + 1.0. y := x * y - x. ^ {x. y}'",
    "RunProbe compile: 'wide: a with: b ^ a * 1.0e100 * b / 1.0e100'",
    "RunProbe compile: 'grow: a | x y | x := a yourself. x := x * 3.0. y := x * 1.0e38. ^ {x. y}'",
    "RunProbe compile: 'compare: a with: b ^ {a * b < 1.0. a + b >= a. a - b = 0.0. a / b ~= 2.0. a * a <= (b * b). a - 1.0 > b}'",
    "RunProbe compile: 'count: f | n x | n := 0. x := f. [x * x + 1.0 < 100.0] whileTrue: [x := x + 1.5. n := n + 1]. ^ n'",
    "RunProbe compile: 'pick: a with: b ^ a * b > (a + b) ifTrue: [#more] ifFalse: [#less]'",
    "RunProbe compile: 'notPick: a with: b ^ a * b <= (a + b) ifFalse: [#more] ifTrue: [#less]'",
    "RunProbe compile: 'nan: x ^ {(x * 1.0e300 * 1.0e300) - (x * 1.0e300 * 1.0e300) < 1.0. ((x * 1.0e300 * 1.0e300) - (x * 1.0e300 * 1.0e300)) isNaN}'",
    "RunProbe compile: 'poly: n ^ n * n + (3 * n) - 1'",
    "RunProbe compile: 'mix: f ^ f * 2 + 1'",
    "RunProbe compile: 'quot: a by: b ^ a * 2.0 / b + 1.0'",
    "RunProbe compile: 'below: a by: b ^ a * 2.0 / b < 1.0'",
    "RunProbe compile: 'hyp: a with: b ^ (a * a + (b * b)) sqrt * 2.0'",
    "RunProbe compile: 'root: a with: b ^ {(a - b) sqrt + 1.0. (a - b) sqrt * 0.0 < 1.0}'",
    "RunProbe compile: 'many: a ^ {a + 1.0. a + 2.0. a + 3.0. a + 4.0. a + 5.0. a + 6.0. a + 7.0. a + 8.0. a + 9.0. a + 10.0}'",
    "RunProbe compile: 'flag: a with: b | t | t := a * b > 1.0. ^ t & (a + b > 0.0)'",
    "RunProbe compile: 'negz: a ^ a * -1.0 * 1.0'",
    "RunProbe compile: 'orbit: n | x y vx vy d | x := 1.0. y := 0.0. vx := 0.0. vy := 1.0. n timesRepeat: [d := (x * x) + (y * y). d := d * d sqrt. vx := vx - (x / d * 0.01). vy := vy - (y / d * 0.01). x := x + (vx * 0.01). y := y + (vy * 0.01)]. ^ {x. y}'",
    "Object subclass: #RunPoint instanceVariableNames: 'x y' classVariableNames: '' package: 'Tests-FloatRuns'",
    "RunPoint class compile: 'x: ax y: ay ^ self new setX: ax y: ay'",
    "RunPoint compile: 'setX: ax y: ay x := ax. y := ay'",
    "RunPoint compile: 'x ^ x'",
    "RunPoint compile: 'y ^ y'",
    "RunPoint compile: 'x: ax x := ax'",
    // Another class at the same sends: `x` computed, `y` a getter of another slot.
    "Object subclass: #RunPolar instanceVariableNames: 'r other' classVariableNames: '' package: 'Tests-FloatRuns'",
    "RunPolar compile: 'r: ar r := ar. other := 100.0'",
    "RunPolar compile: 'x ^ r * 2.0'",
    "RunPolar compile: 'y ^ r'",
    "RunProbe compile: 'dot: p with: q ^ p x * q x + (p y * q y)'",
    "RunProbe compile: 'push: p by: d p x: p x + (d * 2.0) * 1.0. ^ p x'",
    "RunProbe compile: 'dist: p with: q | dx dy | dx := p x - q x. dy := p y - q y. ^ {(dx * dx + (dy * dy)) sqrt. dx. dy}'",
];

/// Each doit and its printString, with and without native code; most are asked twice so
/// that warm code meets them too.
const CASES: &[(&str, &str)] = &[
    ("RunProbe new step: 0.5 with: 0.25 c: -0.75", "-0.5625"),
    ("RunProbe new step: 3 with: 2 c: 1", "6"),
    ("RunProbe new step: 0.5 with: 2 c: 1/4", "-3.5"),
    ("RunProbe new step: 1.0e300 with: 0.0 c: 0.0", "Float infinity"),
    ("RunProbe new update: 1.5 with: 2.0", "#(4.0 4.0)"),
    ("RunProbe new update: 2 with: 3", "#(7.0 14.0)"),
    // An intermediate result beyond the immediate range, the result within it.
    ("{RunProbe new wide: 3.0 with: 2.0. (RunProbe new wide: 3.0 with: 2.0) class}", "{6.0. SmallFloat64}"),
    ("RunProbe new wide: 0.1 with: 0.3", "0.030000000000000002"),
    // A result that must be boxed, after the run overwrote `x`, which it reads.
    ("RunProbe new grow: 3.0", "#(9.0 9.0e38)"),
    ("RunProbe new grow: 2.5e10", "#(75000000000.0 7.499999999999999e48)"),
    ("RunProbe new compare: 0.5 with: 2.0", "#(false true false true true false)"),
    ("RunProbe new compare: 4.0 with: 2.0", "#(false true false false false true)"),
    ("RunProbe new compare: 3 with: 1.5", "#(false true false false false true)"),
    ("RunProbe new count: 0.5", "7"),
    ("RunProbe new count: 2", "6"),
    ("RunProbe new count: 20.0", "0"),
    (
        "{RunProbe new pick: 3.0 with: 2.5. RunProbe new pick: 1.0 with: 1.5. RunProbe new pick: 3 with: 3}",
        "#(#more #less #more)",
    ),
    (
        "{RunProbe new notPick: 3.0 with: 2.5. RunProbe new notPick: 1.0 with: 1.5. RunProbe new notPick: 2 with: 2}",
        "#(#more #less #less)",
    ),
    // NaN made inside a run from immediate floats compares false (and ~= true).
    ("RunProbe new nan: 1.5", "#(false true)"),
    ("RunProbe new nan: 0.0", "#(true false)"),
    (
        "{RunProbe new poly: 5. RunProbe new poly: 2.5. (RunProbe new poly: 1 << 40) class}",
        "{39. 12.75. LargePositiveInteger}",
    ),
    ("[RunProbe new poly: nil] on: MessageNotUnderstood do: [:e | e message selector]", "#*"),
    ("{RunProbe new mix: 1.5. RunProbe new mix: 3. RunProbe new mix: 1.0e300}", "#(4.0 7 2.0e300)"),
    ("{RunProbe new quot: 3.0 by: 4.0. RunProbe new quot: 3 by: 4}", "#(2.5 2.5)"),
    (
        "#(0.0 -0.0 0) collect: [:z | [RunProbe new quot: 1.5 by: z] on: ZeroDivide do: [:e | e class name]]",
        "#(#ZeroDivide #ZeroDivide #ZeroDivide)",
    ),
    // Infinity compared, never encoded: the zero divisor is still the method's.
    (
        "#(0.0 -0.0 0 4.0) collect: [:z | [RunProbe new below: 1.5 by: z] on: ZeroDivide do: [:e | e class name]]",
        "#(#ZeroDivide #ZeroDivide #ZeroDivide true)",
    ),
    // `sqrt` in a run while its send finds `Float>>sqrt`; another method once there is one.
    (
        "{RunProbe new hyp: 3.0 with: 4.0. RunProbe new hyp: 3 with: 4. RunProbe new hyp: 1.0e30 with: 0.0}",
        "#(10.0 10.0 2.0e30)",
    ),
    ("RunProbe new root: 5.0 with: 1.0", "#(3.0 true)"),
    ("RunProbe new root: 1.0 with: 5.0", "{Float nan. false}"),
    ("RunProbe new root: 1.0e38 with: -1.0e38", "#(1.414213562373095e19 true)"),
    ("RunProbe new many: 0.5", "#(1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5 9.5 10.5)"),
    ("RunProbe new many: 1", "#(2.0 3.0 4.0 5.0 6.0 7.0 8.0 9.0 10.0 11.0)"),
    (
        "{RunProbe new flag: 1.5 with: 1.0. RunProbe new flag: 0.5 with: 1.0. RunProbe new flag: 2 with: -3}",
        "#(true false false)",
    ),
    ("{RunProbe new negz: 0.0. RunProbe new negz: -0.0. RunProbe new negz: 2.5}", "#(-0.0 0.0 -2.5)"),
    ("RunProbe new orbit: 1000", "#(-0.831744787390245 -0.5602720970302766)"),
    // Getters in runs (the methods compiled after one call, in one doit: its caches are
    // current): immediate floats, SmallIntegers, boxed floats and nil in the slots,
    // receivers of another class and no object at all.
    (
        "(1 to: 3) collect: [:i | RunProbe new dot: (RunPoint x: 1.5 y: 2.0) with: (RunPoint x: 4.0 y: -0.5)]",
        "#(5.0 5.0 5.0)",
    ),
    (
        "(1 to: 2) collect: [:i | RunProbe new dist: (RunPoint x: 1.0 y: 1.0) with: (RunPoint x: 4.0 y: 5.0)]",
        "#(#(5.0 -3.0 -4.0) #(5.0 -3.0 -4.0))",
    ),
    ("RunProbe new dot: (RunPoint x: 3 y: 2) with: (RunPoint x: 4 y: 5)", "22"),
    // The run ends at a setter whose receiver it copied into the send's register.
    ("(1 to: 3) collect: [:i | RunProbe new push: (RunPoint x: 1.5 y: 0.0) by: 0.25]", "#(2.0 2.0 2.0)"),
    ("RunProbe new push: (RunPoint x: 1 y: 0.0) by: 1", "3.0"),
    ("RunProbe new dot: (RunPoint x: 1.5 y: 2) with: (RunPoint x: 2 y: 0.25)", "3.5"),
    ("RunProbe new dot: (RunPoint x: 3 y: 2.0) with: (RunPoint x: 1.0 y: 4.0)", "11.0"),
    ("RunProbe new dist: (RunPoint x: 0 y: 0) with: (RunPoint x: 3 y: 4)", "#(5 -3 -4)"),
    ("RunProbe new dot: (RunPoint x: 1.0e300 y: 0.0) with: (RunPoint x: 2.0 y: 1.0)", "2.0e300"),
    ("RunProbe new dot: (RunPolar new r: 1.5) with: (RunPoint x: 2.0 y: 4.0)", "12.0"),
    ("RunProbe new dot: (RunPoint x: 2.0 y: 4.0) with: (RunPolar new r: 1.5)", "12.0"),
    (
        "[RunProbe new dot: RunPoint new with: (RunPoint x: 1.0 y: 1.0)] on: MessageNotUnderstood do: [:e | e message selector]",
        "#*",
    ),
    (
        "[RunProbe new dot: 3.0 with: (RunPoint x: 1.0 y: 1.0)] on: MessageNotUnderstood do: [:e | e message selector]",
        "#x",
    ),
];

/// `sqrt` redefined for immediate floats after runs were compiled on it, then removed again.
const REDEFINED: &[(&str, &str)] = &[
    ("RunProbe new hyp: 3.0 with: 4.0", "10.0"),
    (
        "SmallFloat64 compile: 'sqrt ^ 21.0'. (1 to: 3) collect: [:i | RunProbe new hyp: 3.0 with: 4.0]",
        "#(42.0 42.0 42.0)",
    ),
    (
        "SmallFloat64 removeSelector: #sqrt. (1 to: 3) collect: [:i | RunProbe new hyp: 3.0 with: 4.0]",
        "#(10.0 10.0 10.0)",
    ),
    // A getter redefined as the getter of another slot, then as it was.
    ("RunProbe new dot: (RunPoint x: 1.5 y: 2.0) with: (RunPoint x: 4.0 y: -0.5)", "5.0"),
    (
        "RunPoint compile: 'x ^ y'. (1 to: 3) collect: [:i | RunProbe new dot: (RunPoint x: 1.5 y: 2.0) with: (RunPoint x: 4.0 y: -0.5)]",
        "#(-2.0 -2.0 -2.0)",
    ),
    (
        "RunPoint compile: 'x ^ x'. (1 to: 3) collect: [:i | RunProbe new dot: (RunPoint x: 1.5 y: 2.0) with: (RunPoint x: 4.0 y: -0.5)]",
        "#(5.0 5.0 5.0)",
    ),
];

#[test]
fn float_runs_answer_as_the_interpreter_does() {
    let cases: Vec<(&str, &str)> = CASES.iter().chain(CASES).chain(REDEFINED).copied().collect();
    // A method is entered again each time a send returns into it: compiled after eight
    // entries, the getter sends' caches are warm (their methods compiled in the second call).
    let jits = [JitConfig::Off, JitConfig::After(0), JitConfig::After(1), JitConfig::After(8)];
    check_each_way(&jits, PROBE, &cases);
}
