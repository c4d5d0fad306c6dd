//! Sends compiled after their inline caches are warm are specialised on what the cache held
//! then: a quick method (a getter, a setter, `^ self`, `^ nil`/`true`/`false`) is answered
//! at the send site, another method activated with its frame size and temporaries known.
//! The answers stay right when the site later meets other classes, when the method is
//! compiled again into another form or another method, and at the recursion limit.

use onyx_vm::JitConfig;

use crate::util::check_each_way;

/// A class of quick methods, and senders that are compiled after a few calls.
const METHODS: &[&str] = &[
    "Object subclass: #QuickProbe instanceVariableNames: 'x y' classVariableNames: '' package: 'Tests-Quick'",
    "QuickProbe compile: 'x ^ x'",
    "QuickProbe compile: 'x: v x := v'",
    "QuickProbe compile: 'y: v y := v'",
    "QuickProbe compile: 'flag ^ true'",
    "QuickProbe compile: 'me ^ self'",
    "QuickProbe subclass: #QuickChild instanceVariableNames: 'z' classVariableNames: '' package: 'Tests-Quick'",
    "QuickChild compile: 'x ^ super x'",
    "QuickChild compile: 'x: v super x: v'",
    "Object subclass: #QuickOther instanceVariableNames: 'a b c' classVariableNames: '' package: 'Tests-Quick'",
    "QuickOther compile: 'x ^ c'",
    "QuickOther compile: 'x: v c := v'",
    "QuickOther compile: 'flag ^ nil'",
    "QuickOther compile: 'me ^ #other'",
    "Object subclass: #QuickSender instanceVariableNames: '' classVariableNames: '' package: 'Tests-Quick'",
    "QuickSender compile: 'read: p ^ p x'",
    "QuickSender compile: 'write: p with: v ^ (p x: v) x'",
    "QuickSender compile: 'flag: p ^ p flag'",
    "QuickSender compile: 'me: p ^ p me'",
    "QuickProbe compile: 'sum: n | t u | t := 0. 1 to: n do: [:i | t := t + i]. ^ {t. u}'",
    "QuickOther compile: 'sum: n ^ n * 2'",
    "QuickSender compile: 'sum: p to: n ^ p sum: n'",
    "QuickSender compile: 'down: n ^ n = 0 ifTrue: [0] ifFalse: [1 + (self down: n - 1)]'",
    // Leaves numbers in the stack above its caller, where a callee's temporaries go next.
    "QuickSender compile: 'litter: n | a b c d e f g h | a := b := c := d := e := f := g := h := 7. \
       ^ n = 0 ifTrue: [a + b + c + d + e + f + g + h] ifFalse: [self litter: n - 1]'",
    // Warm the caches on QuickProbe, then have the senders compiled.
    "| s p | s := QuickSender new. p := QuickProbe new x: 7; y: 8; yourself. \
     1 to: 10 do: [:i | s read: p. s write: p with: 7. s flag: p. s me: p. s sum: p to: 3. s down: 3. \
     (QuickChild new x: i; yourself) x]. #warm",
];

/// Each doit with the answer it must give, whichever way it runs.
const CASES: &[(&str, &str)] = &[
    ("QuickSender new read: (QuickProbe new x: 5; yourself)", "5"),
    // Super sends of a getter and a setter.
    ("(QuickChild new x: 5; yourself) x", "5"),
    ("QuickSender new read: (QuickChild new x: 6; yourself)", "6"),
    ("QuickSender new write: QuickProbe new with: 6", "6"),
    ("QuickSender new flag: QuickProbe new", "true"),
    ("(QuickSender new me: QuickProbe new) class name", "#QuickProbe"),
    // Another class at the same sites: its own quick methods, through the cache.
    ("QuickSender new read: (QuickOther new x: 9; yourself)", "9"),
    ("QuickSender new write: QuickOther new with: 10", "10"),
    ("QuickSender new flag: QuickOther new", "nil"),
    ("QuickSender new me: QuickOther new", "#other"),
    ("QuickSender new sum: QuickProbe new to: 10", "#(55 nil)"),
    ("| s | s := QuickSender new. s litter: 5. s sum: QuickProbe new to: 10", "#(55 nil)"),
    ("QuickSender new sum: QuickOther new to: 3", "6"),
    ("QuickSender new down: 1000", "1000"),
    ("[QuickSender new down: 1000000] on: Error do: [:e | e class name]", "#StackOverflow"),
    ("QuickSender new read: 3 @ 4", "3"),
    ("[QuickSender new read: 3] on: MessageNotUnderstood do: [:e | e message selector]", "#x"),
    // The method compiled again: another getter, a full method, a constant of another value.
    ("QuickProbe compile: 'x ^ y'. QuickSender new read: (QuickProbe new x: 1; y: 2; yourself)", "2"),
    ("QuickProbe compile: 'x ^ y + 100'. QuickSender new read: (QuickProbe new y: 2; yourself)", "102"),
    (
        "QuickProbe compile: 'x: v y := v'. QuickProbe compile: 'x ^ y'. QuickSender new write: QuickProbe new with: 11",
        "11",
    ),
    ("QuickProbe compile: 'flag ^ false'. QuickSender new flag: QuickProbe new", "false"),
    ("QuickProbe compile: 'me ^ 42'. QuickSender new me: QuickProbe new", "42"),
    (
        "QuickProbe compile: 'sum: n | a b c | ^ {n. a. b. c}'. QuickSender new sum: QuickProbe new to: 4",
        "#(4 nil nil nil)",
    ),
    ("QuickProbe compile: 'sum: n ^ y'. QuickSender new sum: (QuickProbe new y: 3; yourself) to: 4", "3"),
    (
        "QuickProbe compile: 'x ^ x'. QuickProbe compile: 'x: v x := v'. QuickSender new write: QuickProbe new with: 12",
        "12",
    ),
];

#[test]
fn quick_methods_answer_the_same_at_specialised_sends() {
    check_each_way(&[JitConfig::Off, JitConfig::After(3)], METHODS, CASES);
}
