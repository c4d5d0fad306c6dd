//! Tests of the parser: every syntax form, precedence, spans, errors, and robustness.

use super::*;
use num_bigint::BigInt;
use proptest::prelude::*;

/// A compact rendering of a tree: sends are parenthesized, literals written back.
fn lit(l: &Literal) -> String {
    match l {
        Literal::Nil => "nil".into(),
        Literal::True => "true".into(),
        Literal::False => "false".into(),
        Literal::Integer(IntLit::Small(i)) => i.to_string(),
        Literal::Integer(IntLit::Large(b)) => format!("{b}L"),
        Literal::Float(f) => format!("{f:?}f"),
        Literal::ScaledDecimal { numerator, denominator, scale } => {
            format!("{numerator}/{denominator}s{scale}")
        }
        Literal::Character(c) => format!("${c}"),
        Literal::String(s) => format!("'{s}'"),
        Literal::Symbol(s) => format!("#{s}"),
        Literal::Array(items) => {
            format!("#({})", items.iter().map(lit).collect::<Vec<_>>().join(" "))
        }
        Literal::ByteArray(bytes) => {
            format!("#[{}]", bytes.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(" "))
        }
    }
}

fn msg(m: &Message) -> String {
    if m.args.is_empty() {
        return m.selector.clone();
    }
    if !m.selector.ends_with(':') {
        return format!("{} {}", m.selector, expr(&m.args[0]));
    }
    let keywords: Vec<&str> = m.selector.split_inclusive(':').collect();
    keywords.iter().zip(&m.args).map(|(k, a)| format!("{k} {}", expr(a))).collect::<Vec<_>>().join(" ")
}

fn expr(e: &Expr) -> String {
    match e {
        Expr::Literal(l, _) => lit(l),
        Expr::Variable(v) => v.name.clone(),
        Expr::Assign { target, value, .. } => format!("({} := {})", target.name, expr(value)),
        Expr::Send(s) => format!("({} {})", expr(&s.receiver), msg(&s.message)),
        Expr::Cascade { receiver, messages, .. } => {
            let parts: Vec<String> = messages.iter().map(msg).collect();
            format!("({}; {})", expr(receiver), parts.join("; "))
        }
        Expr::Block(b) => {
            let mut out = String::from("[");
            for p in &b.params {
                out.push_str(&format!(":{} ", p.name));
            }
            if !b.params.is_empty() {
                out.push_str("| ");
            }
            if !b.temps.is_empty() {
                let names: Vec<&str> = b.temps.iter().map(|t| t.name.as_str()).collect();
                out.push_str(&format!("|{}| ", names.join(" ")));
            }
            out.push_str(&stmts(&b.body));
            out.push(']');
            out
        }
        Expr::Brace(items, _) => {
            format!("{{{}}}", stmts(items).trim_end_matches('.'))
        }
    }
}

fn stmts(body: &[Stmt]) -> String {
    body.iter()
        .map(|s| match s {
            Stmt::Expr(e) => expr(e),
            Stmt::Return(e, _) => format!("^{}", expr(e)),
        })
        .collect::<Vec<_>>()
        .join(". ")
}

fn doit(src: &str) -> String {
    match parse_doit(src) {
        Ok(m) => stmts(&m.body),
        Err(e) => panic!("{src:?}: {e:?}"),
    }
}

fn first_expr(src: &str) -> Expr {
    match parse_doit(src).unwrap().body.into_iter().next() {
        Some(Stmt::Expr(e)) => e,
        other => panic!("{other:?}"),
    }
}

fn doit_err(src: &str) -> (String, usize) {
    match parse_doit(src) {
        Ok(m) => panic!("{src:?} parsed as {:?}", stmts(&m.body)),
        Err(e) => (e.message, e.offset),
    }
}

fn method_err(src: &str) -> (String, usize) {
    match parse_method(src) {
        Ok(m) => panic!("{src:?} parsed as {:?}", stmts(&m.body)),
        Err(e) => (e.message, e.offset),
    }
}

fn text(src: &str, span: Span) -> &str {
    &src[span.start as usize..span.end as usize]
}

#[test]
fn primaries_and_reserved_words() {
    assert_eq!(
        doit("self. super. thisContext. nil. true. false. x. _y"),
        "self. super. thisContext. nil. true. false. x. _y"
    );
    assert!(matches!(first_expr("super"), Expr::Variable(Ident { ref name, .. }) if name == "super"));
    assert!(matches!(first_expr("thisContext"), Expr::Variable(_)));
    assert!(matches!(first_expr("nil"), Expr::Literal(Literal::Nil, _)));
    assert!(matches!(first_expr("true"), Expr::Literal(Literal::True, _)));
}

#[test]
fn literal_values() {
    assert_eq!(doit("42. -7. 16r1F. -16rFF. 2r1010. 36rZZ"), "42. -7. 31. -255. 10. 1295");
    assert_eq!(doit("3.25. 1.0e10. 1.5e-3. 2r1.1. 1e-2"), "3.25f. 10000000000.0f. 0.0015f. 1.5f. 0.01f");
    assert_eq!(doit("1e10. 1.5s2. 1.5s. 3s2. -1.5s2"), "10000000000. 3/2s2. 3/2s1. 3/1s2. -3/2s2");
    assert_eq!(doit("$a. $ . $'. $$. 'it''s'"), "$a. $ . $'. $$. 'it's'");
    assert_eq!(
        doit("#foo. #foo:bar:. #+. #'hello world'. #Foo. ##foo"),
        "#foo. #foo:bar:. #+. #hello world. #Foo. #foo"
    );
    assert_eq!(doit("123456789012345678901234567890"), "123456789012345678901234567890L");
    assert!(matches!(first_expr("1e10"), Expr::Literal(Literal::Integer(IntLit::Small(10_000_000_000)), _)));
    assert!(matches!(first_expr("1.0e10"), Expr::Literal(Literal::Float(_), _)));
    let scaled = first_expr("1.5s2");
    let expected = Literal::ScaledDecimal { numerator: BigInt::from(3), denominator: BigInt::from(2), scale: 2 };
    assert_eq!(scaled, Expr::Literal(expected, Span::new(0, 5)));
}

#[test]
fn literal_arrays() {
    assert_eq!(
        doit("#(1 2.0 $a 'str' #sym sym foo:bar: + #(nested) (nested too) true false nil #[1 2] -3)"),
        "#(1 2.0f $a 'str' #sym #sym #foo:bar: #+ #(#nested) #(#nested #too) true false nil #[1 2] -3)"
    );
    assert_eq!(doit("#(1 $a 'b' #c foo: #(x) true)"), "#(1 $a 'b' #c #foo: #(#x) true)");
    assert_eq!(doit("#(foo: bar at:put: - 1 1 - 2 #( ) ())"), "#(#foo: #bar #at:put: #- 1 1 #- 2 #() #())");
    assert_eq!(doit("#()"), "#()");
    assert_eq!(doit("#(#+ -> #at:put: ##x)"), "#(#+ #-> #at:put: #x)");
    // As Pharo's parser reads them: a semicolon and a period are symbols there.
    assert_eq!(doit("#(1 ; 2 . 3)"), "#(1 #; 2 #. 3)");
    assert_eq!(doit_err("#(1 ^ )"), ("unexpected '^' in literal array".into(), 4));
}

#[test]
fn byte_and_brace_arrays() {
    assert_eq!(doit("#[1 2 255]. #[]"), "#[1 2 255]. #[]");
    assert_eq!(doit_err("#[1 256]"), ("byte array elements must be integers 0-255".into(), 4));
    assert_eq!(doit_err("#[1 -1]").1, 4);
    assert_eq!(doit_err("#[1 2").0, "expected ']' to close byte array");
    assert_eq!(doit("{1. 2+3. x}. {}. {1.}"), "{1. (2 + 3). x}. {}. {1}");
    assert_eq!(doit_err("{1 2}"), ("expected '}' to close brace array".into(), 3));
    assert_eq!(doit_err("{1. 2"), ("expected '}' to close brace array".into(), 5));
}

#[test]
fn precedence() {
    assert_eq!(doit("1 + 2 * 3"), "((1 + 2) * 3)");
    assert_eq!(doit("a foo: b bar + 2 baz: c"), "(a foo: ((b bar) + 2) baz: c)");
    assert_eq!(doit("a b c"), "((a b) c)");
    assert_eq!(doit("a + b c"), "(a + (b c))");
    assert_eq!(doit("(a foo: b) bar: c"), "((a foo: b) bar: c)");
    assert_eq!(doit("x at: 1 put: (y at: 2)"), "(x at: 1 put: (y at: 2))");
    assert_eq!(doit("a -> b ==> c"), "((a -> b) ==> c)");
    assert!(matches!(first_expr("a foo: b bar + 2 baz: c"), Expr::Send(s) if s.message.selector == "foo:baz:"));
    assert_eq!(doit("2 ** 3"), "(2 ** 3)");
}

#[test]
fn negative_literals_versus_minus() {
    assert_eq!(doit("3-4"), "(3 - 4)");
    assert_eq!(doit("3 - -4"), "(3 - -4)");
    assert_eq!(doit("3--4"), "(3 - -4)");
    assert_eq!(doit("3+-4"), "(3 + -4)");
    assert_eq!(doit("x-1"), "(x - 1)");
    assert_eq!(doit("x - 1"), "(x - 1)");
    assert_eq!(doit("-1 abs"), "(-1 abs)");
    assert_eq!(doit_err("- 1"), ("expected expression".into(), 0));
    assert_eq!(doit("#(1 -2 - 3)"), "#(1 -2 #- 3)");
}

#[test]
fn cascades() {
    let src = "Transcript show: 'a'; cr; yourself";
    assert_eq!(doit(src), "(Transcript; show: 'a'; cr; yourself)");
    let Expr::Cascade { receiver, messages, span } = first_expr(src) else { panic!() };
    assert_eq!(expr(&receiver), "Transcript");
    assert_eq!(messages.len(), 3);
    assert_eq!(text(src, span), src);
    assert_eq!(text(src, messages[0].span), "show: 'a'");
    assert_eq!(text(src, messages[2].span), "yourself");
    assert_eq!(
        doit("OrderedCollection new add: 1; add: 2 + 3; yourself"),
        "((OrderedCollection new); add: 1; add: (2 + 3); yourself)"
    );
    assert_eq!(doit("3 + 4; * 10"), "(3; + 4; * 10)");
    assert_eq!(doit("a b c; d"), "((a b); c; d)");
    assert_eq!(doit("s nextPutAll: x printString; + 1 foo"), "(s; nextPutAll: (x printString); + (1 foo))");
    assert_eq!(doit_err("x; foo"), ("a cascade must follow a message send".into(), 1));
    assert_eq!(doit_err("a foo; bar baz").1, 11);
    assert_eq!(doit_err("a foo; 3").0, "expected a message after ';'");
}

#[test]
fn assignments_and_returns() {
    assert_eq!(doit("a := b := 3"), "(a := (b := 3))");
    assert_eq!(doit("x:=1. y := x + 1"), "(x := 1). (y := (x + 1))");
    assert_eq!(doit("^ a := 3"), "^(a := 3)");
    assert_eq!(doit("^ 1. 2"), "^1. 2");
    assert_eq!(doit_err("self := 3"), ("cannot assign to 'self'".into(), 0));
    assert_eq!(doit_err("x := 3 y := 4"), ("unexpected assignment (missing '.'?)".into(), 7));
    let src = "x := (3)";
    let Expr::Assign { span, target, .. } = first_expr(src) else { panic!() };
    assert_eq!(span, Span::new(0, 8));
    assert_eq!(target.span, Span::new(0, 1));
    let m = parse_doit("  ^ x foo").unwrap();
    assert_eq!(m.body[0].span(), Span::new(2, 9));
}

#[test]
fn blocks() {
    assert_eq!(doit("[:x :y | | t | x + y]"), "[:x :y | |t| (x + y)]");
    assert_eq!(doit("[:x | ]. []. [ :x | x ]. [:x]"), "[:x | ]. []. [:x | x]. [:x | ]");
    assert_eq!(doit("[:x || t | t]. [ || ]. [:a|a]. [|t|t]"), "[:x | |t| t]. []. [:a | a]. [|t| t]");
    assert_eq!(doit("[:x | [:y | [x + y]]]"), "[:x | [:y | [(x + y)]]]");
    assert_eq!(doit("[^1]. [:x | ^x. 2]"), "[^1]. [:x | ^x. 2]");
    assert_eq!(doit("[1. . 2.]"), "[1. 2]");
    let src = "x := [:a | a] value: 3";
    let Expr::Assign { value, .. } = first_expr(src) else { panic!() };
    let Expr::Send(send) = *value else { panic!() };
    let Expr::Block(block) = &send.receiver else { panic!() };
    assert_eq!(text(src, block.span), "[:a | a]");
    assert_eq!(text(src, block.params[0].span), "a");
    assert_eq!(text(src, send.span), "[:a | a] value: 3");
    assert_eq!(doit_err("[:x x]"), ("expected '|' after block parameters".into(), 4));
    assert_eq!(doit_err("[:self | 1]"), ("cannot use reserved word 'self' as a block parameter name".into(), 2));
    assert_eq!(doit_err("[1 + 2"), ("expected ']' to close block".into(), 6));
    assert_eq!(doit_err("["), ("expected ']' to close block".into(), 1));
    assert_eq!(doit_err("[1 )"), ("expected ']' to close block".into(), 3));
    assert_eq!(doit_err("[ | a ]"), ("expected '|' to end the temporaries".into(), 6));
}

#[test]
fn message_spans() {
    let src = "(a foo: 1 bar: 2) + b baz";
    let Expr::Send(outer) = first_expr(src) else { panic!() };
    assert_eq!(text(src, outer.span), src);
    assert_eq!(text(src, outer.message.selector_span), "+");
    assert_eq!(text(src, outer.message.span), "+ b baz");
    let Expr::Send(inner) = &outer.receiver else { panic!() };
    assert_eq!(text(src, inner.span), "a foo: 1 bar: 2");
    assert_eq!(text(src, inner.message.selector_span), "foo: 1 bar:");
    assert_eq!(text(src, inner.message.span), "foo: 1 bar: 2");
    let src = "x at: (y)";
    let Expr::Send(s) = first_expr(src) else { panic!() };
    assert_eq!(text(src, s.span), "x at: (y)");
    assert_eq!(text(src, s.message.args[0].span()), "y");
    let src = "#(1 2) size. -3 abs";
    let m = parse_doit(src).unwrap();
    let Stmt::Expr(Expr::Send(s)) = &m.body[1] else { panic!() };
    assert_eq!(text(src, s.receiver.span()), "-3");
}

#[test]
fn methods() {
    let src = "at: i put: v\n\t<primitive: 61>\n\t| a b |\n\t^ super at: i put: v";
    let m = parse_method(src).unwrap();
    assert_eq!(m.selector, "at:put:");
    assert_eq!(text(src, m.pattern_span), "at: i put: v");
    assert_eq!(m.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["i", "v"]);
    assert_eq!(m.temps.len(), 2);
    assert_eq!(m.pragmas[0].selector, "primitive:");
    assert_eq!(m.pragmas[0].args, vec![Literal::Integer(IntLit::Small(61))]);
    assert_eq!(text(src, m.pragmas[0].span), "<primitive: 61>");
    assert_eq!(stmts(&m.body), "^(super at: i put: v)");

    let m = parse_method("+ other ^ self add: other").unwrap();
    assert_eq!((m.selector.as_str(), m.params.len()), ("+", 1));
    let m = parse_method("size").unwrap();
    assert_eq!((m.selector.as_str(), m.body.len()), ("size", 0));
    let m = parse_method("foo | t | <script> <category: 'x'> t := 1. ^t.").unwrap();
    assert_eq!(m.pragmas.len(), 2);
    assert_eq!(m.pragmas[0].selector, "script");
    assert_eq!(m.pragmas[1].args, vec![Literal::String("x".into())]);
    assert_eq!(stmts(&m.body), "(t := 1). ^t");
    let m = parse_method("foo ||").unwrap();
    assert!(m.temps.is_empty());
}

#[test]
fn pragmas() {
    let m = parse_method("foo <primitive: 60 error: ec> <primitive: 'name' module: 'mod'><bar: #sym baz: -1 q: #(1 $a) r: true s: nil t: $x>").unwrap();
    let shapes: Vec<(String, Vec<String>)> =
        m.pragmas.iter().map(|p| (p.selector.clone(), p.args.iter().map(lit).collect())).collect();
    assert_eq!(
        shapes,
        vec![
            ("primitive:error:".to_string(), vec!["60".to_string(), "#ec".to_string()]),
            ("primitive:module:".to_string(), vec!["'name'".to_string(), "'mod'".to_string()]),
            ("bar:baz:q:r:s:t:".to_string(), ["#sym", "-1", "#(1 $a)", "true", "nil", "$x"].map(String::from).to_vec()),
        ]
    );
    assert_eq!(method_err("foo <primitive: 60"), ("expected '>' to close pragma".into(), 18));
    assert_eq!(method_err("foo <primitive: (1)>"), ("expected a literal pragma argument".into(), 16));
    assert_eq!(method_err("foo <3>"), ("expected a pragma selector after '<'".into(), 5));
}

#[test]
fn statement_separators_and_comments() {
    assert_eq!(doit(". 1. . 2 .."), "1. 2");
    assert_eq!(doit("\"c\" 1 \"c\" + \"c\" 2 \"c\"."), "(1 + 2)");
    assert_eq!(doit(""), "");
    assert_eq!(doit("| a b | a := 1"), "(a := 1)");
    assert_eq!(parse_doit("| a b | a").unwrap().temps.len(), 2);
    assert_eq!(parse_doit("x").unwrap().selector, "DoIt");
}

#[test]
fn errors_with_offsets() {
    assert_eq!(doit_err("x foo: 'abc"), ("unterminated string".into(), 7));
    assert_eq!(doit_err("x \"abc"), ("unterminated comment".into(), 2));
    assert_eq!(doit_err("x foo: "), ("expected expression".into(), 7));
    assert_eq!(doit_err("x := 40r1"), ("invalid radix 40".into(), 5));
    assert_eq!(doit_err("1 + 2)"), ("unexpected ')'".into(), 5));
    assert_eq!(doit_err(")"), ("unexpected ')'".into(), 0));
    assert_eq!(doit_err("(1 + 2"), ("expected ')'".into(), 6));
    assert_eq!(doit_err("1 2"), ("unexpected '2'".into(), 2));
    assert_eq!(doit_err("#(1 ]"), ("unexpected ']' in literal array".into(), 4));
    assert_eq!(doit_err("#(1 2"), ("expected ')' to close literal array".into(), 5));
    assert_eq!(doit_err("x := "), ("expected expression".into(), 5));
    assert_eq!(doit_err("^"), ("expected expression".into(), 1));
    assert_eq!(method_err(""), ("expected a message pattern".into(), 0));
    assert_eq!(method_err("at: 3"), ("expected a parameter name".into(), 4));
    assert_eq!(method_err("foo | a | | b | ^a"), ("duplicate temporaries declaration".into(), 10));
    assert_eq!(method_err("foo: self"), ("cannot use reserved word 'self' as a parameter name".into(), 5));
    let src = "foo\n\t^ 'abc' , (x bar: ]";
    let e = parse_method(src).unwrap_err();
    assert_eq!(e.message, "unexpected ']'");
    assert_eq!(line_col(src, e.offset), (2, 20));
    assert_eq!(e.to_string(), "unexpected ']' (at offset 23)");
}

#[test]
fn line_and_column() {
    let src = "ab\ncdé\nf";
    assert_eq!(line_col(src, 0), (1, 1));
    assert_eq!(line_col(src, 2), (1, 3));
    assert_eq!(line_col(src, 3), (2, 1));
    assert_eq!(line_col(src, 7), (2, 4)); // after 'é' (2 bytes)
    assert_eq!(line_col(src, 6), (2, 3)); // inside 'é'
    assert_eq!(line_col(src, 8), (3, 1));
    assert_eq!(line_col(src, 100), (3, 2));
    assert_eq!(line_col("", 0), (1, 1));
}

fn nested(open: &str, close: &str, depth: usize) -> String {
    format!("{}1{}", open.repeat(depth), close.repeat(depth))
}

#[test]
fn nesting_limit() {
    // Run on a thread with the default test stack size to prove the limit is safe.
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            assert!(parse_doit(&nested("(", ")", 255)).is_ok());
            assert!(parse_doit(&nested("[", "]", 255)).is_ok());
            assert!(parse_doit(&nested("{", "}", 255)).is_ok());
            assert!(parse_doit(&nested("#(", ")", 255)).is_ok());
            assert!(parse_doit(&nested("[:x | x foo: (", ")]", 120)).is_ok());
            for (open, close) in [("(", ")"), ("[", "]"), ("{", "}"), ("#(", ")"), ("x := ", "")] {
                let e = parse_doit(&nested(open, close, 100_000)).unwrap_err();
                assert!(e.message.starts_with("nesting too deep"), "{open}: {e:?}");
            }
            let e = parse_doit(&nested("(", ")", 300)).unwrap_err();
            assert_eq!(e.offset, 256);
            // Long flat chains are bounded by the tree height instead.
            assert!(parse_doit(&format!("a{}", " b".repeat(MAX_HEIGHT - 1))).is_ok());
            assert!(parse_doit(&format!("1{}", " + 1".repeat(MAX_HEIGHT - 1))).is_ok());
            for src in [
                format!("a{}", " b".repeat(100_000)),
                format!("1{}", " + 1".repeat(100_000)),
                format!("x foo: 1{}", " bar".repeat(2000)),
                format!("{}1{}{}", "(".repeat(200), " + 1)".repeat(200), " + 1".repeat(900)),
                format!("{}x{}", "[".repeat(200), " a b c d e]".repeat(200)),
            ] {
                let e = parse_doit(&src).unwrap_err();
                assert!(e.message.starts_with("expression too deeply nested"), "{e:?}");
            }
            let cascade = format!("x foo{}", "; bar: 1".repeat(100_000));
            assert!(parse_doit(&cascade).is_ok());
        })
        .unwrap();
    handle.join().unwrap();
}

const VALID_METHODS: &[&str] = &[
    "at: i put: v <primitive: 61> | a | a := i + 1. ^ super at: a put: v",
    "printOn: aStream aStream nextPutAll: 'a'; print: self size; nextPut: $). ^ self",
    "foo ^ #(1 2.5 $a 'b' #c d: #[1 2] (3 -4)) , {1. 2 + 3. [:x | x * 2]}",
    "do: aBlock 1 to: self size do: [:i | | e | e := self at: i. aBlock value: e]",
    "+ other ^ (x + other x) @ (y - -1.5e3)",
    "test \"comment\" ^ thisContext sender isNil ifTrue: [16r1F] ifFalse: [2r1.1s2]",
];

fn mutate(src: &str, edits: &[(usize, u8, char)]) -> String {
    let mut chars: Vec<char> = src.chars().collect();
    for &(pos, op, c) in edits {
        let at = if chars.is_empty() { 0 } else { pos % (chars.len() + 1) };
        match op % 3 {
            0 => chars.insert(at, c),
            1 if at < chars.len() => {
                chars.remove(at);
            }
            _ if at < chars.len() => chars[at] = c,
            _ => {}
        }
    }
    chars.into_iter().collect()
}

#[test]
fn valid_methods_parse() {
    for src in VALID_METHODS {
        assert!(parse_method(src).is_ok(), "{src}: {:?}", parse_method(src));
    }
}

proptest! {
    #[test]
    fn random_text_never_panics(src in "\\PC{0,80}") {
        let _ = parse_method(&src);
        let _ = parse_doit(&src);
        let _ = line_col(&src, src.len() / 2);
    }

    #[test]
    fn smalltalk_ish_text_never_panics(src in "[a-z0-9 :=#$'\"()\\[\\]{}<>|^.;+\\-*/rsex]{0,60}") {
        let _ = parse_method(&src);
        let _ = parse_doit(&src);
    }

    #[test]
    fn mutated_methods_never_panic(
        which in 0..VALID_METHODS.len(),
        edits in proptest::collection::vec((0usize..200, 0u8..3, proptest::char::any()), 1..6),
    ) {
        let src = mutate(VALID_METHODS[which], &edits);
        let _ = parse_method(&src);
        let _ = parse_doit(&src);
    }

    #[test]
    fn mutated_with_syntax_chars_never_panic(
        which in 0..VALID_METHODS.len(),
        edits in proptest::collection::vec((0usize..200, 0u8..3, proptest::sample::select("()[]{}#$'\":|^.;-<>".chars().collect::<Vec<_>>())), 1..6),
    ) {
        let src = mutate(VALID_METHODS[which], &edits);
        if let Err(e) = parse_method(&src) {
            prop_assert!(e.offset <= src.len());
        }
        let _ = parse_doit(&src);
    }
}
