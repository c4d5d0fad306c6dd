//! Native code: every program answers the same with methods compiled at first entry as in
//! the interpreter alone (hand-picked cases, and seeded random arithmetic and method bodies),
//! native code really runs, and what native code leaves to the interpreter (write barrier,
//! interrupts, frames) still happens.

use std::time::{Duration, Instant};

use onyx_vm::{JitConfig, Poll};

use crate::util::{eval_in, vm_with};

/// Methods whose bodies exercise each instruction native code handles and each of its exits.
const PROBE: &[&str] = &[
    "Object subclass: #JitProbe instanceVariableNames: 'a b' classVariableNames: 'Shared' package: 'Tests-Native'",
    "JitProbe compile: 'a ^ a'",
    "JitProbe compile: 'a: x a := x'",
    "JitProbe compile: 'shared ^ Shared'",
    "JitProbe compile: 'shared: x Shared := x'",
    "JitProbe compile: 'sumTo: n | s | s := 0. 1 to: n do: [:i | s := s + i]. ^ s'",
    "JitProbe compile: 'fib: n ^ n < 2 ifTrue: [n] ifFalse: [(self fib: n - 1) + (self fib: n - 2)]'",
    "JitProbe compile: 'count: n | k | k := 0. [k < n] whileTrue: [a := (a ifNil: [0]) + 1. k := k + 1]. ^ a'",
    "JitProbe compile: 'deep: n ^ n = 0 ifTrue: [0] ifFalse: [1 + (self deep: n - 1)]'",
    "JitProbe compile: 'mixed: x ^ (x + 1) * 2 - 3'",
    "JitProbe compile: 'at: i in: c ^ c at: i'",
    "JitProbe compile: 'at: i in: c put: v ^ c at: i put: v'",
    "JitProbe compile: 'double: arr | out | out := Array new: arr size. 1 to: arr size do: [:i | out at: i put: (arr at: i) * 2]. ^ out'",
    "JitProbe compile: 'cmp: x with: y ^ {x < y. x > y. x <= y. x >= y. x = y. x ~= y. x == y. x ~~ y. x isNil. x notNil}'",
    "JitProbe compile: 'ops: x with: y ^ {x + y. x - y. x * y. x bitAnd: y. x bitOr: y. x bitXor: y. x // y. x \\\\ y}'",
    "JitProbe compile: 'branch: x ^ x ifTrue: [1] ifFalse: [2]'",
    "JitProbe compile: 'shift: x by: n ^ x bitShift: n'",
    "JitProbe subclass: #JitProbeChild instanceVariableNames: '' classVariableNames: '' package: 'Tests-Native'",
    "JitProbeChild compile: 'a ^ (super a ifNil: [0]) + 1'",
    "JitProbeChild compile: 'fib: n ^ (super fib: n) * 2'",
    "JitProbeChild compile: 'hash ^ super hash'",
    "JitProbeChild compile: 'printOn: aStream super printOn: aStream. aStream nextPutAll: ''!'''",
    "JitProbe compile: 'divide: x by: y ^ {x // y. x \\\\ y}'",
    "JitProbe compile: 'firstOver: n in: c c do: [:x | x > n ifTrue: [^ x]]. ^ nil'",
    "JitProbe compile: 'kindsOf: c ^ c collect: [:x | x probeKind]'",
    "Object compile: 'probeKind ^ #object'",
    "Number compile: 'probeKind ^ #number'",
    "String compile: 'probeKind ^ self size'",
    "JitProbe compile: 'probeKind ^ a'",
    "JitProbe compile: 'same: x as: y ^ {x = y. y = x}'",
    "JitProbe compile: 'sieve: size | flags count | flags := Array new: size withAll: true. count := 0. 1 to: size do: [:i | (flags at: i) ifTrue: [| k | k := i + i + 1. [k <= size] whileTrue: [flags at: k put: false. k := k + i + 1]. count := count + 1]]. ^ count'",
];

/// Doits whose answers must not depend on native code.
const CASES: &[&str] = &[
    "JitProbe new sumTo: 100000",
    "JitProbe new fib: 22",
    "(JitProbe new a: 5; yourself) a",
    "JitProbe new count: 1000",
    "JitProbe new shared: 42; shared",
    "JitProbe new deep: 5000",
    "{JitProbe new mixed: 3. JitProbe new mixed: 1.5. JitProbe new mixed: SmallInteger maxVal. JitProbe new mixed: 1/3}",
    "JitProbe new ops: 12345 with: 678",
    "JitProbe new ops: -7 with: 2",
    "JitProbe new ops: SmallInteger maxVal with: SmallInteger maxVal",
    "JitProbe new ops: SmallInteger minVal with: -1",
    "JitProbe new ops: 1000000007 with: 1000000009",
    "JitProbe new ops: 7 with: -2",
    "JitProbe new ops: -7 with: -2",
    "[JitProbe new ops: 5 with: 0] on: ZeroDivide do: [:e | e class name]",
    "(-70 to: 70) collect: [:n | JitProbe new shift: 12345 by: n]",
    "(-70 to: 70) collect: [:n | JitProbe new shift: -3 by: n]",
    "(-5 to: 5) collect: [:d | d = 0 ifTrue: [nil] ifFalse: [{JitProbe new divide: 17 by: d. JitProbe new divide: -17 by: d}]]",
    "JitProbe new divide: SmallInteger minVal by: -1",
    "(1 to: 100) inject: 0 into: [:acc :i | acc + (JitProbeChild new a: i; a)]",
    "JitProbeChild new fib: 12",
    "(1 to: 50) collect: [:i | (JitProbeChild new a: i; yourself) printString]",
    "(1 to: 50) allSatisfy: [:i | | p | p := JitProbeChild new. p hash = p identityHash]",
    "JitProbe new cmp: 3 with: 4",
    "JitProbe new cmp: 4 with: 3",
    "JitProbe new cmp: 2 with: 2.0",
    "JitProbe new cmp: 1/2 with: 0.5",
    "JitProbe new cmp: SmallInteger maxVal + 1 with: SmallInteger maxVal",
    "JitProbe new at: 2 in: #(10 20 30)",
    "JitProbe new at: 2 in: 'abc'",
    "JitProbe new at: 2 in: (OrderedCollection with: 5 with: 6)",
    "JitProbe new at: 2 in: #[7 8 9]",
    "JitProbe new at: 2 in: #abc",
    "{JitProbe new same: 'abc' as: 'abc'. JitProbe new same: 'abc' as: 'abd'. JitProbe new same: 'abc' as: 'ab'. JitProbe new same: '' as: ''}",
    "{JitProbe new same: #abc as: 'abc'. JitProbe new same: #abc as: #abc. JitProbe new same: 'abc' as: #abd}",
    "{JitProbe new same: 'abc' as: 3. JitProbe new same: 'abc' as: nil. JitProbe new same: 'abc' as: #[97 98 99]}",
    "{JitProbe new same: 'déjà' as: 'déjà'. JitProbe new same: (String new: 3) as: (String new: 3)}",
    "{JitProbe new same: 'abc' as: 'abc' asWideString. JitProbe new same: (String with: (Character value: 955)) as: (String with: (Character value: 955))}",
    "(1 to: 40) collect: [:n | JitProbe new same: (String new: n withAll: $x) as: ((String new: n withAll: $x) at: n put: $y; yourself)]",
    "JitProbe new at: 3 in: 'ab' , (String with: (Character value: 960))",
    "| s | s := String new: 2. JitProbe new at: 1 in: s put: $x. s",
    "| s | s := String new: 2. JitProbe new at: 2 in: s put: (Character value: 960). s",
    "| b | b := ByteArray new: 2. JitProbe new at: 2 in: b put: 255. b",
    "[JitProbe new at: 1 in: (ByteArray new: 2) put: 256] on: Error do: [:e | e class name]",
    "[JitProbe new at: 1 in: (ByteArray new: 2) put: $a] on: Error do: [:e | e class name]",
    "[JitProbe new at: 1 in: (String new: 2) put: 65] on: Error do: [:e | e class name]",
    "[JitProbe new at: 3 in: 'ab'] on: Error do: [:e | e class name]",
    "[JitProbe new at: 0 in: #(1 2 3)] on: Error do: [:e | e class name]",
    "[JitProbe new at: 4 in: (Array new: 3)] on: Error do: [:e | e class name]",
    "[JitProbe new at: nil in: (Array new: 3)] on: Error do: [:e | e class name]",
    "JitProbe new at: 3 in: (Array new: 3) put: #x",
    "[JitProbe new at: 4 in: (Array new: 3) put: #x] on: Error do: [:e | e class name]",
    "[JitProbe new at: 1 in: #sym put: $x] on: Error do: [:e | e class name]",
    "JitProbe new double: #(1 2 3 4)",
    "[JitProbe new double: #(1 $a)] on: Error do: [:e | e class name]",
    "[JitProbe new branch: 3] on: Error do: [:e | e class name]",
    "JitProbe new branch: false",
    "JitProbe new firstOver: 3 in: #(1 2 5 7)",
    "JitProbe new sieve: 8190",
    "[JitProbe new deep: 200000] on: Error do: [:e | e class name]",
    "| x | x := 0. 1 to: 100 do: [:i | x := x + i]. x",
    "(1 to: 10) inject: 0 into: [:acc :each | acc + each]",
    "((1 to: 20) collect: [:i | i * i]) asArray reverse",
    "1000 factorial printString size",
    "| s r | s := Semaphore forMutualExclusion. r := 0. 1 to: 100 do: [:i | s critical: [r := r + i]]. r",
    "| s | s := Semaphore new. s signal; signal. s wait; wait. s signal. s excessSignals",
    "| q out | q := SharedQueue new. out := OrderedCollection new. [1 to: 50 do: [:i | q nextPut: i * i]] fork. 50 timesRepeat: [out add: q next]. out asArray",
    "| s1 s2 done log | s1 := Semaphore new. s2 := Semaphore new. done := Semaphore new. log := OrderedCollection new. \
     [1 to: 20 do: [:i | s1 wait. log add: i. s2 signal]] fork. \
     [1 to: 20 do: [:i | s1 signal. s2 wait. log add: i negated]. done signal] fork. done wait. log asArray",
    "| s log | s := Semaphore new. log := OrderedCollection new. \
     [s wait. log add: #woken] forkAt: Processor activePriority + 2. \
     [log add: #signalling. s signal. log add: #signalled] forkAt: Processor activePriority + 1. log asArray",
    "(1 to: 30) inject: 0 into: [:acc :i | acc + (i bitShift: 40)]",
    // Primitives native code answers without handing the process back, at their edges.
    "(1 to: 20) collect: [:i | {i & 7. i | 8. (SmallInteger maxVal - i) & -1. i / 4. (i * SmallInteger maxVal) & 255}]",
    "(1 to: 8) collect: [:i | {i asFloat / 3. i asFloat sqrt. (i * 1.0e200) / 1.0e-100. (i * 1.0e300) sqrt. i asFloat ln. 0.5 / i}]",
    "{[2.0 / 0] on: ZeroDivide do: [:e | #zeroDivide]. -4.0 sqrt isNaN. 1.0 / 3 = (1/3) asFloat. 2.5 / (1/2). 3.0 / (2 raisedTo: 70)}",
    "{Object basicNew class. Array basicNew size. (Array new: 5) size. (String new: 3) size. (Array new: 2000) size. 'abc' = #abc. #abc = 'abc'. 'ab' = 'abc'}",
    // One send site, many receiver classes: each miss refills the inline cache.
    "(1 to: 3) collect: [:i | JitProbe new kindsOf: {1. 2.5. 'abc'. #sym. nil. 3/4. JitProbe new a: i; yourself. $a. true}]",
    "[JitProbe new kindsOf: {1. Object new. ProtoObject new}] on: MessageNotUnderstood do: [:e | e message selector]",
    "(1 to: 4) collect: [:i | | k | k := JitProbe new kindsOf: {i. 'ab'. i / 7}. \
     Number compile: 'probeKind ^ #number' , i printString. k]",
];

fn answers(jit: JitConfig) -> (Vec<String>, usize) {
    let mut vm = vm_with(jit);
    for source in PROBE {
        eval_in(&mut vm, source).unwrap_or_else(|e| panic!("{source}: {e}"));
    }
    let answers =
        CASES.iter().map(|source| eval_in(&mut vm, source).unwrap_or_else(|e| format!("error: {e}"))).collect();
    (answers, vm.native_code_count())
}

#[test]
fn native_code_answers_as_the_interpreter_does() {
    let (interpreted, none) = answers(JitConfig::Off);
    let (native, compiled) = answers(JitConfig::After(0));
    assert_eq!(none, 0, "nothing is compiled with the JIT off");
    assert!(compiled > 20, "only {compiled} methods were compiled");
    let mut differences = Vec::new();
    for ((source, i), n) in CASES.iter().zip(&interpreted).zip(&native) {
        if i != n {
            differences.push(format!("{source}\n  interpreter: {i}\n  native:      {n}"));
        }
        assert!(!i.starts_with("error"), "{source}: {i}");
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

#[test]
fn hot_methods_are_compiled_and_cold_ones_are_not() {
    let mut vm = vm_with(JitConfig::After(50));
    let before = vm.native_code_count();
    eval_in(&mut vm, "3 + 4").expect("evaluates");
    assert_eq!(vm.native_code_count(), before, "a doit run once is not compiled");
    assert_eq!(eval_in(&mut vm, "20 benchFib").expect("evaluates"), "21891");
    assert!(vm.native_code_count() > before, "benchFib, run thousands of times, is compiled");
}

#[test]
fn stores_from_native_code_reach_the_write_barrier() {
    let mut vm = vm_with(JitConfig::After(0));
    for source in PROBE {
        eval_in(&mut vm, source).unwrap_or_else(|e| panic!("{source}: {e}"));
    }
    let array = vm.evaluate("Smalltalk at: #JitTarget put: (Array new: 3)").expect("evaluates");
    let probe = vm.evaluate("Smalltalk at: #JitProbeTarget put: JitProbe new").expect("evaluates");
    let string = vm.evaluate("Smalltalk at: #JitString put: (String new: 3)").expect("evaluates");
    let bytes = vm.evaluate("Smalltalk at: #JitBytes put: (ByteArray new: 3)").expect("evaluates");
    for object in [array, probe, string, bytes] {
        vm.heap.set_persistent(object);
    }
    vm.heap.take_write_set();
    eval_in(&mut vm, "1 to: 100 do: [:i | JitProbe new at: 1 in: JitTarget put: i]").expect("runs");
    eval_in(&mut vm, "JitProbeTarget count: 100").expect("runs");
    eval_in(&mut vm, "1 to: 100 do: [:i | JitProbe new at: 2 in: JitString put: $q]").expect("runs");
    eval_in(&mut vm, "1 to: 100 do: [:i | JitProbe new at: 3 in: JitBytes put: i]").expect("runs");
    let written = vm.heap.take_write_set();
    assert!(written.contains(&array), "at:put: on a persistent Array");
    assert!(written.contains(&probe), "an instance variable of a persistent object");
    assert!(written.contains(&string) && written.contains(&bytes), "at:put: on a persistent String and ByteArray");
    assert_eq!(eval_in(&mut vm, "JitTarget first").expect("evaluates"), "100");
    assert_eq!(eval_in(&mut vm, "{JitString at: 2. JitBytes at: 3}").expect("evaluates"), "#($q 100)");
}

#[test]
fn an_endless_loop_in_native_code_is_interrupted() {
    let mut vm = vm_with(JitConfig::After(0));
    let process = vm.spawn_doit("| n | n := 0. [true] whileTrue: [n := n + 1]", onyx_vm::Value::NIL).expect("compiles");
    for _ in 0..3 {
        let t = Instant::now();
        assert!(matches!(vm.poll(process, Duration::from_millis(5)), Poll::Running));
        assert!(t.elapsed() < Duration::from_millis(50), "the host waited {:?}", t.elapsed());
    }
    assert!(vm.native_code_count() > 0);
    let report = vm.interrupt_process(process);
    assert_eq!(report.class_name, "Interrupt");
    assert!(report.stack.iter().any(|f| f.label.contains("DoIt")), "{report:?}");
}

/// A small deterministic generator (xorshift), so that a failure names a reproducible case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random SmallInteger expression over `x` and `y`, `depth` operators deep at most.
fn expression(rng: &mut Rng, depth: u32) -> String {
    expression_over(rng, depth, &["x", "y"])
}

/// A random SmallInteger expression over the variables `vars`.
fn expression_over(rng: &mut Rng, depth: u32, vars: &[&str]) -> String {
    const LEAVES: &[&str] = &[
        "0",
        "1",
        "-1",
        "7",
        "-13",
        "1073741824",
        "576460752303423487",
        "SmallInteger maxVal",
        "SmallInteger minVal",
        "(SmallInteger maxVal - 1)",
        "(SmallInteger minVal + 1)",
    ];
    const OPS: &[&str] = &["+", "-", "*", "//", "\\\\", "bitAnd:", "bitOr:", "bitXor:", "max:", "min:"];
    if depth == 0 || rng.below(4) == 0 {
        let leaf = rng.below(LEAVES.len() + vars.len());
        return vars.get(leaf).map_or_else(|| LEAVES[leaf - vars.len()].to_string(), |v| v.to_string());
    }
    let a = expression_over(rng, depth - 1, vars);
    let b = expression_over(rng, depth - 1, vars);
    match rng.below(6) {
        0 => format!("({a} bitShift: ({b} \\\\ 70) - 35)"),
        1 => {
            let cmp = ["<", ">", "<=", ">=", "=", "~="][rng.below(6)];
            format!("({a} {cmp} {b} ifTrue: [{a}] ifFalse: [{b}])")
        }
        _ => format!("({a} {} {b})", OPS[rng.below(OPS.len())]),
    }
}

/// Compiles `methods` (each `NAME: x with: y ...`, named by `selector(i)`) into a fresh class
/// in a VM with the JIT off and one compiling at first entry, calls each with every pair of
/// `inputs` (a ZeroDivide answers `#zd`), and requires the same answers from both.
fn same_answers_both_ways(methods: &[String], selector: impl Fn(usize) -> String, inputs: &[&str]) {
    let run = |jit: JitConfig| -> Vec<String> {
        let mut vm = vm_with(jit);
        let define =
            "Object subclass: #JitRandom instanceVariableNames: '' classVariableNames: '' package: 'Tests-Native'";
        eval_in(&mut vm, define).expect("defines the class");
        let mut answers = Vec::new();
        for (i, method) in methods.iter().enumerate() {
            let source = method.replace('\'', "''");
            eval_in(&mut vm, &format!("JitRandom compile: '{source}'")).unwrap_or_else(|e| panic!("{method}: {e}"));
            let selector = selector(i);
            let calls = inputs
                .iter()
                .flat_map(|x| {
                    let selector = &selector;
                    inputs
                        .iter()
                        .map(move |y| format!("[JitRandom new {selector} {x} with: {y}] on: ZeroDivide do: [:e | #zd]"))
                })
                .collect::<Vec<_>>()
                .join(". ");
            // Each method runs many times in one doit, so with `After(0)` it runs natively.
            answers.push(eval_in(&mut vm, &format!("{{{calls}}}")).unwrap_or_else(|e| format!("error: {e}")));
        }
        answers
    };
    let interpreted = run(JitConfig::Off);
    let native = run(JitConfig::After(0));
    for ((method, i), n) in methods.iter().zip(&interpreted).zip(&native) {
        assert!(!i.starts_with("error"), "{method}\n{i}");
        assert_eq!(i, n, "{method}");
    }
}

#[test]
fn random_integer_arithmetic_answers_as_the_interpreter_does() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let methods: Vec<String> = (0..300).map(|i| format!("f{i}: x with: y ^ {}", expression(&mut rng, 4))).collect();
    let inputs =
        ["0", "1", "-1", "12345", "-99991", "SmallInteger maxVal", "SmallInteger minVal", "1152921504606846976"];
    same_answers_both_ways(&methods, |i| format!("f{i}:"), &inputs);
}

/// A random method body over `x`, `y` and temporaries: assignments, loops, blocks with copied
/// values, Array stores, conditionals, handled errors and non-local returns.
fn random_method(rng: &mut Rng, name: &str) -> String {
    let mut body = vec![
        format!("a := {}", expression(rng, 2)),
        format!("b := {}", expression(rng, 2)),
        "c := 0".to_string(),
        "arr := Array new: 5".to_string(),
    ];
    for _ in 0..(3 + rng.below(5)) {
        let e1 = expression_over(rng, 2, &["x", "a", "c"]);
        let e2 = expression_over(rng, 2, &["y", "b", "a"]);
        body.push(match rng.below(9) {
            0 => format!("c := c + ({e1} \\\\ 1000)"),
            1 => format!("1 to: (x \\\\ 7) do: [:i | a := a + i. arr at: (i \\\\ 5) + 1 put: {e2}]"),
            2 => format!("[c < 4] whileTrue: [c := c + 1. b := b - ({e1} bitAnd: 255)]"),
            3 => format!("b := [:v | v * 2 + a] value: ({e2} \\\\ 100000)"),
            4 => format!("{e1} > {e2} ifTrue: [a := {e2}] ifFalse: [b := {e1}]"),
            5 => format!("arr at: ({e1} \\\\ 5) + 1 put: {e2}"),
            6 => format!("[a := a // ({e2} \\\\ 3)] on: ZeroDivide do: [:e | a := 0]"),
            7 => "#(1 2 3) do: [:e | e = (x \\\\ 4) ifTrue: [^ {#early. e. a. b}]]".to_string(),
            _ => "c := (arr inject: 0 into: [:acc :v | acc + (v ifNil: [1] ifNotNil: [:w | w \\\\ 97])])".to_string(),
        });
    }
    format!("{name}: x with: y\n\t| a b c arr |\n\t{}.\n\t^ {{a. b. c. arr}}", body.join(".\n\t"))
}

#[test]
fn random_methods_answer_as_the_interpreter_does() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let methods: Vec<String> = (0..300).map(|i| random_method(&mut rng, &format!("g{i}"))).collect();
    let inputs = ["0", "1", "-5", "12345", "SmallInteger maxVal", "SmallInteger minVal"];
    same_answers_both_ways(&methods, |i| format!("g{i}:"), &inputs);
}

/// A random expression of nested handlers, unwind blocks, signals, retries, resumptions and
/// non-local returns over `x`, logging what runs to `log`.
fn control(rng: &mut Rng, depth: u32, tag: &mut u32) -> String {
    *tag += 1;
    let n = *tag;
    if depth == 0 {
        return match rng.below(5) {
            0 => format!("(x > {} ifTrue: [log add: {n}. 1 // 0] ifFalse: [{n}])", rng.below(5)),
            1 => format!("[log add: {n}. (Warning signal: 'w{n}') ifNil: [{n}] ifNotNil: [:r | r]] value"),
            2 => format!("[#(1 2 3) do: [:k | k = x ifTrue: [^ {{#nlr. {n}. log asArray}}]]. {n}] value"),
            3 => format!("[log add: {n}. log size < 6 ifTrue: [1 // 0]. log size] value"),
            _ => format!("{n}"),
        };
    }
    let inner = control(rng, depth - 1, tag);
    let other = control(rng, depth - 1, tag);
    match rng.below(8) {
        0 => format!("([log add: {n}. {inner}] ensure: [log add: {}])", n + 1000),
        1 => format!("([log add: {n}. {inner}] ifCurtailed: [log add: {}])", n + 1000),
        2 => format!("([{inner}] on: ZeroDivide do: [:e | log add: {n}. e return: {other}])"),
        3 => format!("([{inner}] on: ZeroDivide do: [:e | log add: {n}. {other}])"),
        4 => format!("([{inner}] on: Warning do: [:e | log add: {n}. e resume: {n}])"),
        5 => format!("([[{inner}] on: ZeroDivide do: [:e | log add: {n}. e pass]] on: Error do: [:e | {other}])"),
        6 => format!("([{inner}] on: ZeroDivide do: [:e | log add: {n}. log size < 12 ifTrue: [e retry]. {n}])"),
        _ => format!("([:k | log add: k. {inner}] value: {n})"),
    }
}

#[test]
fn random_exception_handling_answers_as_the_interpreter_does() {
    let mut rng = Rng(0x5851_F42D_4C95_7F2D);
    let methods: Vec<String> = (0..300)
        .map(|i| {
            let mut tag = 0;
            // Every Warning is resumed by an outer handler; every ZeroDivide that escapes is
            // answered by the caller's.
            let body = control(&mut rng, 4, &mut tag);
            format!(
                "h{i}: x with: y\n\t| log r |\n\tlog := OrderedCollection new.\n\t\
                 r := [{body}] on: Warning do: [:e | log add: #warning. e resume: nil].\n\t^ {{r. log asArray}}"
            )
        })
        .collect();
    let inputs = ["0", "1", "2", "3"];
    same_answers_both_ways(&methods, |i| format!("h{i}:"), &inputs);
}

#[test]
fn native_code_keeps_its_objects_through_collections() {
    let mut vm = vm_with(JitConfig::After(0));
    let before = vm.heap.stats().collections;
    let source = "| keep | keep := OrderedCollection new. \
                  1 to: 2000000 do: [:i | | a | a := Array new: 3. a at: 1 put: i; at: 2 put: a. \
                  i \\\\ 1000 = 0 ifTrue: [keep add: a]]. \
                  keep inject: 0 into: [:sum :a | sum + (a at: 1) + ((a at: 2) == a ifTrue: [0] ifFalse: [1])]";
    assert_eq!(eval_in(&mut vm, source).expect("runs"), "2001000000");
    assert!(vm.heap.stats().collections > before, "the loop allocates enough to collect");
    assert!(vm.native_code_count() > 0);
}

/// A random program of three processes at neighbouring priorities that log, signal, wait on
/// and yield to three semaphores, while the main process keeps signalling them all (more
/// often than anything can wait), so every run ends; answers the log.
fn random_processes(rng: &mut Rng) -> String {
    let workers: Vec<String> = (1..=3)
        .map(|w| {
            let ops: Vec<String> = (0..(3 + rng.below(5)))
                .map(|k| {
                    let s = 1 + rng.below(3);
                    match rng.below(5) {
                        0 => format!("s{s} signal"),
                        1 | 2 => format!("s{s} wait. log add: #w{w}x{k}"),
                        3 => format!("Processor yield. log add: #y{w}x{k}"),
                        _ => format!("log add: #l{w}x{k}"),
                    }
                })
                .collect();
            let priority = ["Processor activePriority - 1", "Processor activePriority", "Processor activePriority + 1"]
                [rng.below(3)];
            format!("[{}. done signal] forkAt: {priority}", ops.join(". "))
        })
        .collect();
    format!(
        "| s1 s2 s3 done log | s1 := Semaphore new. s2 := Semaphore new. s3 := Semaphore new. \
         done := Semaphore new. log := OrderedCollection new. {}. \
         30 timesRepeat: [s1 signal. s2 signal. s3 signal. Processor yield]. \
         3 timesRepeat: [done wait]. log asArray",
        workers.join(". ")
    )
}

#[test]
fn random_process_interleavings_are_the_same_in_native_code() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let programs: Vec<String> = (0..400).map(|_| random_processes(&mut rng)).collect();
    let run = |jit: JitConfig| -> Vec<String> {
        let mut vm = vm_with(jit);
        programs.iter().map(|p| eval_in(&mut vm, p).unwrap_or_else(|e| format!("error: {e}"))).collect()
    };
    let interpreted = run(JitConfig::Off);
    let native = run(JitConfig::After(0));
    for ((program, i), n) in programs.iter().zip(&interpreted).zip(&native) {
        assert!(!i.starts_with("error"), "{program}\n{i}");
        assert_eq!(i, n, "{program}");
    }
}
