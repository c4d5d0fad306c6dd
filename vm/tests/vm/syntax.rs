//! Every syntax form of the language, compiled and run.

use onyx_vm::{EvalError, Vm};

use crate::util::{check_all, eval_in, vm};

#[test]
fn literals() {
    check_all(&[
        ("42", "42"),
        ("-7", "-7"),
        ("16r1F", "31"),
        ("2r1010", "10"),
        ("36rZZ", "1295"),
        ("1e10", "10000000000"),
        ("1e10 class", "SmallInteger"),
        ("1.0e10 class", "SmallFloat64"),
        ("1.0e300 class", "Float"),
        ("1.5e-3", "0.0015"),
        ("2r1.1", "1.5"),
        ("1.5s2", "1.50s2"),
        ("3s2", "3.00s2"),
        ("1.5s2 class", "ScaledDecimal"),
        ("$a", "$a"),
        ("$ ", "Character space"),
        ("$'", "$'"),
        ("'it''s'", "'it''s'"),
        ("'it''s' size", "4"),
        ("#foo", "#foo"),
        ("#at:put:", "#at:put:"),
        ("#+", "#+"),
        ("#'hello world'", "#'hello world'"),
        ("#foo == #foo", "true"),
        ("#(1 $a 'b' #c)", "#(1 $a 'b' #c)"),
        ("#(1 #(2 3) (4 5) true false nil foo bar: #+)", "#(1 #(2 3) #(4 5) true false nil #foo #bar: #+)"),
        ("#(foo:bar: #baz)", "#(#foo:bar: #baz)"),
        // As Pharo's parser reads them: a period and a semicolon are symbols there.
        ("#(1 ; 2 . 3)", "#(1 #';' 2 #'.' 3)"),
        // Beyond ASCII, a symbol or punctuation mark is a binary selector's character; a
        // literal keeps every character.
        ("#±", "#±"),
        ("#± numArgs", "1"),
        ("#(± → foo)", "#(#± #→ #foo)"),
        ("'€' size", "1"),
        ("'a€' last value", "8364"),
        ("#Ωhm size", "3"),
        ("#[1 2 255]", "#[1 2 255]"),
        ("#[1 2 3] class", "ByteArray"),
        ("{1. 2 + 3. #x}", "#(1 5 #x)"),
        ("{}", "#()"),
        ("SmallInteger maxVal", "1152921504606846975"),
        ("SmallInteger maxVal + 1", "1152921504606846976"),
        ("(SmallInteger maxVal + 1) class", "LargePositiveInteger"),
        ("(SmallInteger maxVal + 1 - 1) class", "SmallInteger"),
        ("123456789012345678901234567890", "123456789012345678901234567890"),
        ("-123456789012345678901234567890 class", "LargeNegativeInteger"),
        ("nil", "nil"),
        ("true & false", "false"),
    ]);
}

#[test]
fn precedence_and_cascades() {
    check_all(&[
        ("1 + 2 * 3", "9"),
        ("1 + (2 * 3)", "7"),
        ("2 raisedTo: 3 + 1", "16"),
        ("#(3 1 2) asSortedCollection asArray first: 2", "#(1 2)"),
        ("3 - -4", "7"),
        ("3-4", "-1"),
        ("OrderedCollection new add: 1; add: 2; yourself", "an OrderedCollection(1 2)"),
        ("(OrderedCollection new) add: 3; add: 4; size", "2"),
        ("| a b | a := b := 5. a + b", "10"),
        ("| s | s := WriteStream on: String new. s nextPutAll: 'a'; nextPutAll: 'b'. s contents", "'ab'"),
    ]);
}

#[test]
fn blocks_and_closures() {
    check_all(&[
        ("[:a :b | a + b] value: 1 value: 2", "3"),
        ("[] value", "nil"),
        ("[:x | ] value: 3", "nil"),
        ("[:x | | t | t := x * 2. t] value: 21", "42"),
        ("| adder | adder := [:n | [:x | x + n]]. (adder value: 10) value: 5", "15"),
        ("| count inc | count := 0. inc := [count := count + 1]. inc value. inc value. count", "2"),
        ("| blocks | blocks := (1 to: 3) collect: [:i | [i * 10]]. blocks collect: [:b | b value]", "#(10 20 30)"),
        (
            "| bs | bs := OrderedCollection new. 1 to: 3 do: [:i | bs add: [i]]. (bs collect: [:b | b value]) asArray",
            "#(1 2 3)",
        ),
        ("[:a :b :c :d | a + b + c + d] value: 1 value: 2 value: 3 value: 4", "10"),
        ("[:a | a] valueWithArguments: #(7)", "7"),
        ("[:a | a] numArgs", "1"),
        ("#(1 2 3) inject: 0 into: [:sum :each | sum + each]", "6"),
        ("| x | x := 1. [:y | x := x + y] value: 5. x", "6"),
        ("| outer | outer := [:a | [:b | [:c | a + b + c]]]. ((outer value: 1) value: 2) value: 3", "6"),
    ]);
}

#[test]
fn non_local_return() {
    let mut vm = vm();
    for src in [
        "Object subclass: #NlrTest instanceVariableNames: '' classVariableNames: '' package: 'Tests-Syntax'",
        "NlrTest compile: 'find: x in: c c do: [:e | e = x ifTrue: [^ #found]]. ^ #missing'",
        "NlrTest compile: 'escaper ^ [:x | ^ x]'",
        "NlrTest compile: 'early #(1 2 3) do: [:e | e > 1 ifTrue: [^ e]]. ^ 0'",
        // A brace array's elements are statements, as in Pharo: one may return.
        "NlrTest compile: 'braced: x ^ { 1. x > 2 ifTrue: [ #big ]. ^ x. 4 }'",
        "NlrTest compile: 'braceInBlock: x #(1) do: [:e | { e. ^ x + e } ]. ^ 0'",
        "NlrTest compile: '± x ^ { x - 1. x + 1 }'",
    ] {
        eval_in(&mut vm, src).expect("defines");
    }
    assert_eq!(eval_in(&mut vm, "NlrTest new find: 2 in: #(1 2 3)").expect("runs"), "#found");
    assert_eq!(eval_in(&mut vm, "NlrTest new find: 9 in: #(1 2 3)").expect("runs"), "#missing");
    assert_eq!(eval_in(&mut vm, "NlrTest new early").expect("runs"), "2");
    assert_eq!(eval_in(&mut vm, "NlrTest new braced: 3").expect("runs"), "3");
    assert_eq!(eval_in(&mut vm, "NlrTest new braceInBlock: 5").expect("runs"), "6");
    assert_eq!(eval_in(&mut vm, "{ 1. ^ 2. 3 }").expect("runs"), "2");
    assert_eq!(eval_in(&mut vm, "NlrTest new ± 10").expect("runs"), "#(9 11)");
    // A ^ from a block whose method has returned cannot return.
    assert_eq!(
        eval_in(&mut vm, "[NlrTest new escaper value: 3] on: BlockCannotReturn do: [:e | e class name]").expect("runs"),
        "#BlockCannotReturn"
    );
}

#[test]
fn inlined_control_structures() {
    check_all(&[
        ("3 > 2 ifTrue: ['yes'] ifFalse: ['no']", "'yes'"),
        ("3 < 2 ifTrue: ['yes'] ifFalse: ['no']", "'no'"),
        ("3 < 2 ifTrue: ['yes']", "nil"),
        ("3 < 2 ifFalse: ['no'] ifTrue: ['yes']", "'no'"),
        ("true and: [false]", "false"),
        ("false or: [true]", "true"),
        ("nil ifNil: [1]", "1"),
        ("5 ifNil: [1]", "5"),
        ("5 ifNotNil: [:x | x + 1]", "6"),
        ("nil ifNotNil: [:x | x + 1]", "nil"),
        ("nil ifNil: [0] ifNotNil: [:x | x]", "0"),
        ("7 ifNotNil: [:x | x * 2] ifNil: [0]", "14"),
        ("| i s | i := 0. s := 0. [i < 5] whileTrue: [i := i + 1. s := s + i]. s", "15"),
        ("| i | i := 10. [i <= 0] whileFalse: [i := i - 3]. i", "-2"),
        ("| i | i := 0. [i := i + 1. i < 7] whileTrue. i", "7"),
        ("| s | s := 0. 1 to: 10 do: [:i | s := s + i]. s", "55"),
        ("| s | s := 0. 10 to: 1 by: -2 do: [:i | s := s + i]. s", "30"),
        ("| s | s := 0. 1 to: 0 do: [:i | s := s + 1]. s", "0"),
        ("| n | n := 0. 4 timesRepeat: [n := n + 2]. n", "8"),
        ("| x | x := 3. x == 3", "true"),
        ("3 ~~ 4", "true"),
        ("nil isNil", "true"),
        ("3 notNil", "true"),
        ("3 class", "SmallInteger"),
        ("| b | b := [:x | x > 2]. (b value: 3) ifTrue: [1] ifFalse: [2]", "1"),
        ("| c | c := true. c ifTrue: [1] ifFalse: [2]", "1"),
    ]);
}

#[test]
fn non_boolean_receiver_is_an_error() {
    let mut vm = vm();
    let r = eval_in(&mut vm, "[3 ifTrue: [1]] on: NonBooleanReceiver do: [:e | #caught]").expect("runs");
    assert_eq!(r, "#caught");
}

#[test]
fn this_context_and_pragmas() {
    let mut vm = vm();
    for src in [
        "Object subclass: #CtxTest instanceVariableNames: 'a' classVariableNames: 'Shared' package: 'Tests-Syntax'",
        "CtxTest compile: 'selectorOfSender ^ thisContext sender method selector'",
        "CtxTest compile: 'caller ^ self selectorOfSender'",
        "CtxTest compile: 'prim: x <primitive: 60> ^ #fallback'",
        "CtxTest compile: 'named <primitive: ''primitiveNothing'' module: ''NoPlugin''> ^ #fallback'",
        "CtxTest compile: 'namedAlone <primitive: ''primitiveNothing''> ^ #alone'",
        "CtxTest compile: 'tagged <onyxTag: 42> ^ 1'",
        "CtxTest compile: 'here ^ thisContext'",
    ] {
        eval_in(&mut vm, src).expect("defines");
    }
    assert_eq!(eval_in(&mut vm, "CtxTest new caller").expect("runs"), "#caller");
    // <primitive: 60> fails on a non-indexable receiver: the fallback code runs.
    assert_eq!(eval_in(&mut vm, "CtxTest new prim: 1").expect("runs"), "#fallback");
    // Named primitives compile; Onyx provides none, so each fails and its code runs.
    assert_eq!(eval_in(&mut vm, "CtxTest new named").expect("runs"), "#fallback");
    assert_eq!(eval_in(&mut vm, "CtxTest new namedAlone").expect("runs"), "#alone");
    let pragma = "(CtxTest >> #named) pragmas first";
    assert_eq!(eval_in(&mut vm, pragma).expect("runs"), "#(#primitive:module: 'primitiveNothing' 'NoPlugin')");
    assert_eq!(eval_in(&mut vm, "(CtxTest >> #tagged) pragmas first").expect("runs"), "#(#onyxTag: 42)");
    assert_eq!(eval_in(&mut vm, "CtxTest new here isDead").expect("runs"), "true");
    assert_eq!(eval_in(&mut vm, "thisContext isDead").expect("runs"), "false");
    assert_eq!(eval_in(&mut vm, "thisContext method selector").expect("runs"), "#DoIt");
}

#[test]
fn class_definitions_by_message() {
    let mut vm = vm();
    for src in [
        "Object subclass: #Animal instanceVariableNames: 'name' classVariableNames: 'Count' package: 'Tests-Zoo'",
        "Animal subclass: #Dog instanceVariableNames: 'tricks' classVariableNames: '' category: 'Tests-Zoo'",
        "Animal subclass: #Cat instVarNames: #(lives) classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Smalltalk",
        "Object variableSubclass: #Bucket instanceVariableNames: 'label' classVariableNames: '' package: 'Tests-Zoo'",
        "Object variableByteSubclass: #Blob instanceVariableNames: '' classVariableNames: '' package: 'Tests-Zoo'",
        "Animal compile: 'name ^ name' classified: 'accessing'",
        "Animal compile: 'name: aString name := aString'",
        "Animal compile: 'speak ^ ''...'''",
        "Dog compile: 'speak ^ ''Woof'' , super speak'",
        "Animal class compile: 'named: aString Count := (Count ifNil: [0]) + 1. ^ self new name: aString'",
        "Animal class compile: 'count ^ Count'",
        "Animal class instanceVariableNames: 'registry'",
        "Animal class compile: 'registry ^ registry ifNil: [registry := OrderedCollection new]'",
    ] {
        eval_in(&mut vm, src).unwrap_or_else(|e| panic!("{src}: {e}"));
    }
    let cases = [
        ("(Dog named: 'Rex') name", "'Rex'"),
        ("(Dog named: 'Rex') speak", "'Woof...'"),
        ("Dog superclass", "Animal"),
        ("Dog class", "Dog class"),
        ("Dog class class", "Metaclass"),
        ("Dog class superclass", "Animal class"),
        ("Object class superclass", "Class"),
        ("Animal count", "2"),
        ("Dog registry add: 1; yourself", "an OrderedCollection(1)"),
        ("Animal registry == Dog registry", "false"),
        ("Cat new respondsTo: #speak", "true"),
        ("Cat instVarNames", "#(#lives)"),
        ("(Bucket new: 3) size", "3"),
        ("(Bucket new: 3) at: 2 put: 9; at: 2", "9"),
        ("(Blob new: 2) at: 1 put: 200; at: 1", "200"),
        ("Animal category", "'Tests-Zoo'"),
        ("Dog allInstVarNames", "#(#name #tricks)"),
    ];
    for (src, expected) in cases {
        assert_eq!(eval_in(&mut vm, src).unwrap_or_else(|e| panic!("{src}: {e}")), expected, "{src}");
    }
}

#[test]
fn redefining_a_class_migrates_instances() {
    let mut vm = vm();
    for src in [
        "Object subclass: #Shape instanceVariableNames: 'x y' classVariableNames: '' package: 'Tests-Shapes'",
        "Shape compile: 'x: ax y: ay x := ax. y := ay'",
        "Shape compile: 'sum ^ x + y'",
        "Smalltalk at: #TheShape put: (Shape new x: 3 y: 4)",
        "Object subclass: #Shape instanceVariableNames: 'z y x' classVariableNames: '' package: 'Tests-Shapes'",
    ] {
        eval_in(&mut vm, src).unwrap_or_else(|e| panic!("{src}: {e}"));
    }
    assert_eq!(eval_in(&mut vm, "TheShape sum").expect("runs"), "7");
    assert_eq!(eval_in(&mut vm, "(TheShape instVarAt: 3)").expect("runs"), "3");
    assert_eq!(eval_in(&mut vm, "Shape instVarNames").expect("runs"), "#(#z #y #x)");
}

fn compile_error(vm: &mut Vm, src: &str) -> onyx_vm::CompileError {
    match vm.evaluate(src) {
        Err(EvalError::Compile(e)) => e,
        other => panic!("{src}: expected a compile error, got {other:?}"),
    }
}

#[test]
fn compile_errors_have_positions() {
    let mut vm = vm();
    let e = compile_error(&mut vm, "| a |\na := (3 + 4.");
    assert_eq!((e.line, e.column > 1), (2, true), "{e}");
    let e = compile_error(&mut vm, "self := 3");
    assert!(e.message.contains("self"), "{e}");
    let e = compile_error(&mut vm, "[:x | x := 1] value: 2");
    assert!(e.message.contains("argument"), "{e}");
    let e = compile_error(&mut vm, "'unterminated");
    assert_eq!(e.line, 1);
    // The VM stays usable after compile errors.
    assert_eq!(eval_in(&mut vm, "1 + 1").expect("runs"), "2");
}

#[test]
fn undeclared_variables_are_warnings() {
    let mut vm = vm();
    vm.take_warnings();
    let r = eval_in(&mut vm, "zork := 3. zork + 1").expect("compiles with a warning");
    assert_eq!(r, "4");
    let warnings = vm.take_warnings();
    assert!(warnings.iter().any(|w| w.to_string().contains("undeclared variable zork")), "{warnings:?}");
    assert_eq!(eval_in(&mut vm, "(Undeclared includesKey: #zork)").expect("runs"), "true");
}

#[test]
fn step_points_map_pcs_to_source() {
    let mut vm = vm();
    eval_in(
        &mut vm,
        "Object subclass: #StepTest instanceVariableNames: '' classVariableNames: '' package: 'Tests-Syntax'",
    )
    .expect("defines");
    eval_in(&mut vm, "StepTest compile: 'where\n\t| a |\n\ta := 1.\n\t^ thisContext stepPoint'").expect("compiles");
    // {line. column. start. end} of the send `thisContext stepPoint` on line 4.
    let r = eval_in(&mut vm, "StepTest new where").expect("runs");
    assert!(r.starts_with("#(4 4 "), "{r}");
}

#[test]
fn a_brace_array_has_no_length_limit() {
    let mut vm = vm();
    for n in [200, 201, 1000, 5000] {
        let items: Vec<String> = (1..=n).map(|i| format!("{i} * 2")).collect();
        let source = format!("| a | a := {{ {} }}. {{ a size. a first. a last. a class name }}", items.join(". "));
        let expected = format!("#({n} 2 {} #Array)", 2 * n);
        assert_eq!(eval_in(&mut vm, &source).expect("runs"), expected);
    }
}
