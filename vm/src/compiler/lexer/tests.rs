//! Tests of the lexer: token kinds, spans, number values and error tokens.

use super::*;
use proptest::prelude::*;

fn kinds(src: &str) -> Vec<TokenKind> {
    let mut lexer = Lexer::new(src);
    let mut out = Vec::new();
    loop {
        let token = lexer.next_token();
        if token.kind == TokenKind::Eof {
            return out;
        }
        out.push(token.kind);
    }
}

fn one(src: &str) -> TokenKind {
    let all = kinds(src);
    assert_eq!(all.len(), 1, "{src:?} gave {all:?}");
    all.into_iter().next().unwrap()
}

fn number(src: &str) -> Literal {
    match one(src) {
        TokenKind::Number(n) => n,
        other => panic!("{src:?} gave {other:?}"),
    }
}

fn small(i: i64) -> Literal {
    Literal::Integer(IntLit::Small(i))
}

fn error_of(src: &str) -> (String, usize) {
    let mut lexer = Lexer::new(src);
    loop {
        let token = lexer.next_token();
        match token.kind {
            TokenKind::Error(m) => return (m, token.start),
            TokenKind::Eof => panic!("no error in {src:?}"),
            _ => {}
        }
    }
}

fn scaled(n: i64, d: i64, scale: u32) -> Literal {
    Literal::ScaledDecimal { numerator: BigInt::from(n), denominator: BigInt::from(d), scale }
}

#[test]
fn identifiers_keywords_and_punctuation() {
    use TokenKind::*;
    assert_eq!(
        kinds("foo _bar x1 at: put:x a:=b ^ . ; ( ) [ ] { } :x"),
        vec![
            Ident("foo".into()),
            Ident("_bar".into()),
            Ident("x1".into()),
            Keyword("at:".into()),
            Keyword("put:".into()),
            Ident("x".into()),
            Ident("a".into()),
            Assign,
            Ident("b".into()),
            Caret,
            Period,
            Semicolon,
            LParen,
            RParen,
            LBracket,
            RBracket,
            LBrace,
            RBrace,
            Colon,
            Ident("x".into()),
        ]
    );
}

#[test]
fn spans_are_byte_offsets() {
    let mut lexer = Lexer::new("  \"é\" héllo 'x'");
    let t = lexer.next_token();
    assert_eq!((t.kind, t.start, t.end), (TokenKind::Ident("héllo".into()), 7, 13));
    let t = lexer.next_token();
    assert_eq!((t.start, t.end), (14, 17));
    assert_eq!(lexer.next_token().kind, TokenKind::Eof);
    assert_eq!(lexer.next_token().kind, TokenKind::Eof);
}

#[test]
fn binary_operators() {
    use TokenKind::*;
    assert_eq!(
        kinds("-> <= ~= ==> , | || \\\\ @"),
        ["->", "<=", "~=", "==>", ",", "|", "||", "\\\\", "@"]
            .iter()
            .map(|s| Binary(s.to_string()))
            .collect::<Vec<_>>()
    );
    // A trailing minus before a digit is left for a negative number.
    assert_eq!(kinds("3--4"), vec![Number(small(3)), Binary("-".into()), Binary("-".into()), Number(small(4))]);
    assert_eq!(kinds("3+-4"), vec![Number(small(3)), Binary("+".into()), Binary("-".into()), Number(small(4))]);
    assert_eq!(kinds("a-b"), vec![Ident("a".into()), Binary("-".into()), Ident("b".into())]);
}

#[test]
fn strings_characters_comments() {
    use TokenKind::*;
    assert_eq!(one("'it''s'"), String("it's".into()));
    assert_eq!(one("''"), String("".into()));
    assert_eq!(one("''''"), String("'".into()));
    assert_eq!(
        kinds("$a $  $' $$ $\""),
        vec![Character('a'), Character(' '), Character('\''), Character('$'), Character('"')]
    );
    assert_eq!(kinds("\"a comment\" x \"another\""), vec![Ident("x".into())]);
    assert_eq!(kinds("'a \"not a comment\"'"), vec![String("a \"not a comment\"".into())]);
    assert_eq!(error_of("x 'abc"), ("unterminated string".into(), 2));
    assert_eq!(error_of("x \"abc"), ("unterminated comment".into(), 2));
    assert_eq!(error_of("x $"), ("expected a character after '$'".into(), 2));
    assert_eq!(error_of("a ` b"), ("unexpected character '`'".into(), 2));
}

#[test]
fn symbols() {
    use TokenKind::*;
    for (src, name) in [
        ("#foo", "foo"),
        ("#foo:bar:", "foo:bar:"),
        ("#at:", "at:"),
        ("#+", "+"),
        ("#->", "->"),
        ("#'hello world'", "hello world"),
        ("#Foo", "Foo"),
        ("##foo", "foo"),
        ("#'it''s'", "it's"),
    ] {
        assert_eq!(one(src), Symbol(name.into()), "{src}");
    }
    assert_eq!(kinds("#( #[ ##("), vec![LiteralArrayStart, ByteArrayStart, LiteralArrayStart]);
    assert_eq!(error_of("# foo").1, 0);
    assert_eq!(error_of("#{Foo}").0, "binding literals '#{...}' are not supported");
}

#[test]
fn integers() {
    assert_eq!(number("42"), small(42));
    assert_eq!(number("0"), small(0));
    assert_eq!(number("16r1F"), small(31));
    assert_eq!(number("16r1f"), small(31));
    assert_eq!(number("2r1010"), small(10));
    assert_eq!(number("36rZZ"), small(36 * 36 - 1));
    assert_eq!(number("1e10"), small(10_000_000_000));
    assert_eq!(number("2r1e4"), small(16));
    assert_eq!(number("16r1e4"), small(0x1e4));
    assert_eq!(number("9223372036854775807"), small(i64::MAX));
    let big: BigInt = "9223372036854775808".parse().unwrap();
    assert_eq!(number("9223372036854775808"), Literal::Integer(IntLit::Large(big.clone())));
    assert_eq!(negate_literal(number("9223372036854775808")), Literal::Integer(IntLit::Small(i64::MIN)));
    assert_eq!(negate_literal(small(7)), small(-7));
    let huge: BigInt = "100000000000000000000".parse().unwrap();
    assert_eq!(number("1e20"), Literal::Integer(IntLit::Large(huge.clone())));
    assert_eq!(negate_literal(number("1e20")), Literal::Integer(IntLit::Large(-huge)));
}

#[test]
fn floats() {
    assert_eq!(number("3.25"), Literal::Float(3.25));
    assert_eq!(number("1.0e10"), Literal::Float(1.0e10));
    assert_eq!(number("1.5e-3"), Literal::Float(1.5e-3));
    assert_eq!(number("1e-2"), Literal::Float(0.01));
    assert_eq!(number("2r1.1"), Literal::Float(1.5));
    assert_eq!(number("16r1.8"), Literal::Float(1.5));
    assert_eq!(number("2r1e-2"), Literal::Float(0.25));
    assert_eq!(number("1.0d0"), Literal::Float(1.0));
    assert_eq!(number("1d2"), Literal::Float(100.0));
    assert_eq!(number("0.1"), Literal::Float(0.1));
    assert_eq!(number("1.7976931348623157e308"), Literal::Float(f64::MAX));
    assert_eq!(number("4.9e-324"), Literal::Float(f64::from_bits(1)));
    assert_eq!(number("1.0e-400"), Literal::Float(0.0));
    assert_eq!(negate_literal(number("2.5")), Literal::Float(-2.5));
    assert_eq!(error_of("1.0e400"), ("float out of range".into(), 0));
    assert_eq!(error_of("1e99999"), ("exponent too large".into(), 0));
}

#[test]
fn radix_floats_are_correctly_rounded() {
    // 0.1 in base 3 and 1/3 in base 3 compared against correctly rounded values.
    assert_eq!(number("3r0.1"), Literal::Float(1.0 / 3.0));
    assert_eq!(number("16r0.1999999999999A"), Literal::Float(0.1));
    // A halfway case: 2^53 + 1 rounds to even.
    assert_eq!(
        number("2r100000000000000000000000000000000000000000000000000001.0"),
        Literal::Float(9007199254740992.0)
    );
    assert_eq!(
        number("2r100000000000000000000000000000000000000000000000000011.0"),
        Literal::Float(9007199254740996.0)
    );
    // Subnormals and the smallest normal.
    assert_eq!(number("2r1.0e-1074"), Literal::Float(f64::from_bits(1)));
    assert_eq!(number("2r1.0e-1022"), Literal::Float(f64::MIN_POSITIVE));
    assert_eq!(number("2r1.1e-1075"), Literal::Float(f64::from_bits(1)));
    assert_eq!(number("2r1.0e-1076"), Literal::Float(0.0));
    assert_eq!(error_of("2r1.0e1024").0, "float out of range");
    assert_eq!(number("2r1.0e1023"), Literal::Float(2f64.powi(1023)));
}

#[test]
fn ratio_conversion_matches_std_for_decimals() {
    for (n, d) in [(1u64, 10u64), (2, 3), (123456789, 1000), (1, 7), (22, 7), (u64::MAX, 3)] {
        let expected: f64 = n as f64 / d as f64;
        let got = ratio_to_f64(&BigUint::from(n), &BigUint::from(d));
        // Division of exactly representable integers is correctly rounded in IEEE arithmetic.
        if n < (1 << 53) {
            assert_eq!(got, expected, "{n}/{d}");
        } else {
            assert!((got - expected).abs() <= expected * 1e-15);
        }
    }
}

#[test]
fn scaled_decimals() {
    assert_eq!(number("1.5s2"), scaled(3, 2, 2));
    assert_eq!(number("1.5s"), scaled(3, 2, 1));
    assert_eq!(number("3s2"), scaled(3, 1, 2));
    assert_eq!(number("3s"), scaled(3, 1, 0));
    assert_eq!(number("0.25s4"), scaled(1, 4, 4));
    assert_eq!(negate_literal(number("1.5s2")), scaled(-3, 2, 2));
    // `s` followed by a letter is a unary message, not a scale.
    assert_eq!(kinds("3sqrt"), vec![TokenKind::Number(small(3)), TokenKind::Ident("sqrt".into())]);
}

#[test]
fn number_boundaries() {
    use TokenKind::*;
    // A dot not followed by a digit ends the statement.
    assert_eq!(kinds("1."), vec![Number(small(1)), Period]);
    assert_eq!(kinds("1.foo"), vec![Number(small(1)), Period, Ident("foo".into())]);
    assert_eq!(kinds("2 even"), vec![Number(small(2)), Ident("even".into())]);
    assert_eq!(kinds("2e"), vec![Number(small(2)), Ident("e".into())]);
    assert_eq!(kinds("1e-x"), vec![Number(small(1)), Ident("e".into()), Binary("-".into()), Ident("x".into())]);
}

#[test]
fn number_errors() {
    assert_eq!(error_of("40r1"), ("invalid radix 40".into(), 0));
    assert_eq!(error_of("x := 1r0"), ("invalid radix 1".into(), 5));
    assert_eq!(error_of("99999999999999999999r1").0, "invalid radix 99999999999999999999");
    assert_eq!(error_of("2r102"), ("digit '2' is not valid in radix 2".into(), 0));
    assert_eq!(error_of("16rFG"), ("digit 'G' is not valid in radix 16".into(), 0));
    assert_eq!(error_of("16r-FF").0, "expected a digit in radix 16 after 'r'");
    assert_eq!(error_of("1.5s99999999999").0, "scale too large");
    // Lexing resumes after a malformed number.
    let mut lexer = Lexer::new("40rZZ foo");
    assert!(matches!(lexer.next_token().kind, TokenKind::Error(_)));
    assert_eq!(lexer.next_token().kind, TokenKind::Ident("foo".into()));
}

#[test]
fn starting_at_an_offset() {
    let src = "abc é def";
    let mut lexer = Lexer::starting_at(src, 5); // inside 'é'
    assert_eq!(lexer.next_token().kind, TokenKind::Ident("def".into()));
    let mut lexer = Lexer::starting_at(src, 1000);
    assert_eq!(lexer.next_token().kind, TokenKind::Eof);
}

proptest! {
    #[test]
    fn lexing_never_panics_and_always_progresses(src in "\\PC{0,60}") {
        let mut lexer = Lexer::new(&src);
        let mut last = 0;
        for _ in 0..200 {
            let token = lexer.next_token();
            prop_assert!(token.start <= token.end && token.end <= src.len());
            prop_assert!(token.start >= last);
            if token.kind == TokenKind::Eof {
                break;
            }
            prop_assert!(token.end > token.start);
            last = token.end;
        }
        prop_assert_eq!(lexer.next_token().kind, TokenKind::Eof);
    }

    #[test]
    fn decimal_floats_match_std(int in 0u32..100000, frac in 0u32..100000, exp in -30i32..30) {
        let text = format!("{int}.{frac}e{exp}");
        let expected: f64 = text.parse().unwrap();
        prop_assert_eq!(number(&text), Literal::Float(expected));
    }

    #[test]
    fn radix_integers_match_std(value in 0u64..u64::MAX / 2, radix in 2u32..=36) {
        let digits = BigUint::from(value).to_str_radix(radix).to_uppercase();
        let lit = number(&format!("{radix}r{digits}"));
        prop_assert_eq!(lit, Literal::Integer(int_lit(BigInt::from(value))));
    }

    #[test]
    fn binary_fractions_are_exact(mantissa in 0u64..(1u64 << 53), shift in 0u32..60) {
        let digits = format!("{mantissa:b}");
        let frac_len = shift as usize;
        let padded = format!("{digits:0>width$}", width = frac_len + 1);
        let split = padded.len() - frac_len;
        let text = if frac_len == 0 {
            format!("2r{padded}.0")
        } else {
            format!("2r{}.{}", &padded[..split], &padded[split..])
        };
        let expected = mantissa as f64 / 2f64.powi(shift as i32);
        prop_assert_eq!(number(&text), Literal::Float(expected));
    }
}
