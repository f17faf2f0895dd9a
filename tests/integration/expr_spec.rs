//! The expression layer as a specification: `input => canonical print`, and
//! `bad input => error at column`.

use symalias::expr::{parse, ExprPool};

macro_rules! canon {
    ($($name:ident: $start:expr => $goal:expr;)*) => {$(
        #[test]
        fn $name() {
            let mut pool = ExprPool::new();
            let e = parse(&mut pool, $start).unwrap_or_else(|err| panic!("`{}`: {err}", $start));
            assert_eq!(pool.display(e).to_string(), $goal, "`{}`", $start);
        }
    )*};
}

canon! {
    like_terms_collect: "s0 + s0" => "2*s0";
    numeric_coefficient_distributes: "2*(s0 + 1)" => "2*s0 + 2";
    negation_distributes: "-(s0 - 1)" => "1 - s0";
    equal_factors_become_powers: "s0*s1*s0" => "s0**2*s1";
    powers_of_powers: "(s0**2)**3" => "s0**6";
    cancellation: "s0 - s0 + 3" => "3";
    terms_ordered_like_sympy: "x2 + 3*s69**2*x0 + s69**2*x1" => "3*s69**2*x0 + s69**2*x1 + x2";
    constant_last: "1 + s0" => "s0 + 1";
    subtraction_printed: "-s0 + 2*s1 - 1" => "-s0 + 2*s1 - 1";
    max_flattens_and_folds: "Max(1, Max(s0, 3), 2)" => "Max(3, s0)";
    min_dedupes: "Min(s0, s0)" => "s0";
    floordiv_prints_torch_style: "FloorDiv(s1 + 1, 2)" => "((s1 + 1)//2)";
    floordiv_in_sum_is_parenthesised: "s0 - (s1 + 1)//2" => "s0 - (((s1 + 1)//2))";
    floordiv_of_power: "s69**2//s69" => "((s69**2)//s69)";
    cleandiv_prints_as_floordiv: "CleanDiv(4*s0, 4)" => "((4*s0)//4)";
    mod_in_sum_is_parenthesised: "Mod(s0, 2) + 1" => "(Mod(s0, 2)) + 1";
    modular_indexing_kept: "ModularIndexing(s0*s1 + x0, 1, s1)" => "ModularIndexing(s0*s1 + x0, 1, s1)";
    python_floor_division_folds: "(-7)//2" => "-4";
    python_modulo_folds: "Mod(-7, 2) + PythonMod(7, -2)" => "0";
    ceil_division_folds: "CeilDiv(-7, 2)" => "-3";
    modular_indexing_folds: "ModularIndexing(13, 2, 4)" => "2";
    division_by_zero_is_not_folded: "5//0" => "(5//0)";
    overflow_is_not_folded: "9223372036854775807 + 1" => "1 + 9223372036854775807";
    in_range_sums_fold: "9223372036854775807 + 1 - 1" => "9223372036854775807";
    most_negative_literal: "-9223372036854775808" => "-9223372036854775808";
    unary_minus_binds_looser_than_power: "-2**2" => "-4";
    where_with_constant_condition: "Where(3 > 2, s0, s1)" => "s0";
    where_in_product_is_parenthesised: "2*Where(s0 < 3, s0, s1)" => "2*(Where(s0 < 3, s0, s1))";
    relations_print_infix: "Gt(s0, 3)" => "s0 > 3";
    eq_prints_as_function: "Eq(Mod(s1, 2), 0)" => "Eq(Mod(s1, 2), 0)";
    connectives_parenthesise_relations: "And(s0 > 1, Or(s1 < 2, Eq(s0, s1)))" => "(s0 > 1) & (Eq(s0, s1) | (s1 < 2))";
    connectives_fold: "And(True, s0 > 1) | False" => "s0 > 1";
    double_negation: "~~(s0 > 1)" => "s0 > 1";
    not_prints_with_tilde: "Not(s0 > 1)" => "~(s0 > 1)";
    float_literals_print_like_python: "FloatPow(ToFloat(s77), -0.5)" => "FloatPow(ToFloat(s77), -0.5)";
    small_floats_use_exponents: "0.00001*ToFloat(s0)" => "1e-05*ToFloat(s0)";
    float_folding: "FloatTrueDiv(1.0, 4)" => "0.25";
    int_to_float: "ToFloat(3)" => "3.0";
    trunc_folds: "TruncToInt(-2.5)" => "-2";
    float_sums_keep_their_shape: "ToFloat(s0) - 1.0 + 2.0" => "ToFloat(s0) - 1.0 + 2.0";
}

macro_rules! rejects {
    ($($name:ident: $text:expr => ($col:expr, $msg:expr);)*) => {$(
        #[test]
        fn $name() {
            let mut pool = ExprPool::new();
            let err = parse(&mut pool, $text).expect_err($text);
            assert_eq!(err.offset + 1, $col, "`{}`: {err}", $text);
            assert!(err.message.contains($msg), "`{}`: {err} lacks {:?}", $text, $msg);
        }
    )*};
}

rejects! {
    empty: "" => (1, "empty expression");
    dangling_operator: "s0 +" => (5, "expected an operand");
    unclosed_call: "Max(s0," => (8, "expected an operand");
    unclosed_paren: "(s0 + 1" => (8, "expected `)`");
    unknown_function: "s0 + Frob(s1)" => (6, "unknown function `Frob`");
    wrong_arity: "Mod(s0)" => (1, "`Mod` takes 2 arguments, found 1");
    empty_max: "Max()" => (1, "needs at least one argument");
    true_division: "s0 / 2" => (4, "true division");
    python_equality: "s0 == 1" => (4, "Eq(a, b)");
    chained_comparison: "s0 < s1 < s2" => (9, "chained comparisons");
    boolean_operator_on_integers: "s0 & s1" => (1, "`&` expects a boolean");
    arithmetic_on_booleans: "(s0 > 1) + 1" => (2, "`+` expects a number");
    symbolic_exponent: "s0**s1" => (5, "non-negative integer literal");
    negative_exponent: "s0**-1" => (5, "non-negative integer literal");
    huge_exponent: "1**99999999999999" => (4, "too large");
    float_floor_division: "1.5//2" => (1, "`//` expects an integer");
    function_without_call: "Max + 1" => (1, "`Max` is a function");
    huge_literal: "s0 + 99999999999999999999" => (6, "does not fit in 64 bits");
    literal_glued_to_name: "2x" => (2, "invalid number literal");
    float_out_of_range: "1e999*ToFloat(s0)" => (1, "out of range");
    stray_character: "s0 $ 1" => (4, "unexpected character `$`");
    trailing_tokens: "s0 s1" => (4, "unexpected name `s1`");
    mixed_eq: "Eq(s0 > 1, 2)" => (1, "compares a boolean with a number");
    where_condition: "Where(s0, 1, 2)" => (7, "condition of `Where`");
}

/// Deep and long inputs: linear chains parse flat; nesting beyond the depth
/// limit is a located error, never a stack overflow; and what the printer
/// writes for the deepest accepted expression parses back to it.
#[test]
fn depth_limits_are_errors_and_printed_forms_read_back() {
    use symalias::expr::{parse, ExprPool, MAX_DEPTH};
    // Runs on a thread with the CLI workers' stack (64 MB).
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let mut pool = ExprPool::new();
            // A 40,000-term sum and a 20,000-factor product.
            let sum: Vec<String> = (0..40_000).map(|i| format!("s{}", i % 7)).collect();
            let e = parse(&mut pool, &sum.join(" + ")).unwrap();
            assert_eq!(pool.display(e).to_string().matches('+').count(), 6);
            let prod = vec!["s0"; 20_000].join("*");
            assert!(parse(&mut pool, &prod).is_ok());
            // Too deep: parentheses, unary signs, a left-nested `//` chain.
            let parens = format!("{}s0{}", "(".repeat(5_000), ")".repeat(5_000));
            let msg = parse(&mut pool, &parens).unwrap_err().to_string();
            assert!(msg.contains("nested deeper than"), "{msg}");
            let negs = format!("{}s0", "-".repeat(5_000));
            assert!(parse(&mut pool, &negs).is_err());
            let chain = format!("s0{}", "//2".repeat(MAX_DEPTH + 10));
            assert!(parse(&mut pool, &chain).is_err());
            // The deepest accepted chain: printed, it parses back to itself.
            let chain = format!("s0{}", "//2".repeat(MAX_DEPTH - 1));
            let e = parse(&mut pool, &chain).unwrap();
            let printed = pool.display(e).to_string();
            assert_eq!(parse(&mut pool, &printed).unwrap(), e);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Found by the `expr_roundtrip` fuzz target: a float product whose printed
/// form groups an integer product in parentheses must parse back to itself
/// (the parser kept flattening the parenthesised product).
#[test]
fn fuzz_regressions_round_trip() {
    use symalias::expr::{parse, ExprPool};
    for text in [
        "0*0.*Min(35*s*e2)",
        "s22*s23*s45*45*.77",
        "2.5*(s0*s1)*3",
        "-(s0*1.5)*(2*s1)",
        "s0*1.5*s1*s2",
        "Eq(TruncToInt(1----q*s25 + ---.5*ToFloat(s53)), -1)",
        "s0 - (0.5*ToFloat(s1))",
        "- 7258*0720747758*0725807258*07208*02*4747747758*0725807258*0720747758*0725807258*07208*07204 + 1",
        "-(4611686018427387904*4*s0)",
    ] {
        let mut pool = ExprPool::new();
        let e = parse(&mut pool, text).unwrap();
        let printed = pool.display(e).to_string();
        let back = parse(&mut pool, &printed).unwrap();
        assert_eq!(back, e, "{text} printed as {printed}");
    }
}

/// Fifth expr_roundtrip fuzz find: in a sum, like terms that are products
/// of constants beyond i64 combine into a rebuilt product, whose order in
/// the sum must be the one a re-parse of the printed text gives it.
#[test]
fn fuzz_find_overflowing_products_in_sums() {
    let minimal = "2*_m - s37747758*07258780052*720747758*0725807858*ttttttt_merge_test*_merge_ter2*s25*s55 - s37747758*0725807258*0720747758*0725807858*ttttttt_merge_test*_merge_ter2*s25*s55 - s37747758*07258780052*720747758*0725807858*ttttttt_merge_test*_merge_ter2*s25*s55";
    assert_print_reads_back(minimal);
    let text = "_tttttttGtttttttttttttttpG1 - s37747758*0725807258*0720747758*0725807858*------------ttttttttttttttttt*s25 + 2*_merge_tester2*s23 + 2*_merge_tester2*s25 + 4*_meer1*s23*s55 + 2*_merge_teste_merge_testester1*s23*s55 + 2*_merge_test++++++++++++++++er1*s25*s55 + 4*_merge_tester2*s10 + tGtttttttttttttttpG1 - s37747758*0725807258*0720747758*0725807858*------------ttttttttttttttttt*s25 + 2*_merge_tester2*s23 + 2*_merge_tester2*s25 + 4*_meer1*s23*s55 + 2*_mes55 + 2*_merge_tester2*s23*s15 + 2*858*------------ttttttttttttttttt*s25 + 2*_merge_tester2*s23 + 2*_merge_tester2*s25 + 4*_meer1*s23*s55 + 2*_mter1*s23*s55 + 2*_merge_test++++++++++++++++er1*s25*s55 + 4*_merge_tester2*s10 + tGtttttttttttttttpG1 - s37747758*0725807258*0720747758*0725807858*------------ttttttttttttttttt*s25 + 2*_merge_tester2*s23 + 2*_m- s37747758*07258780052*720747758*0725807858*------------ttttttt_merge_test*_merge_ter2*s25*s55 + 4*_+ _merge_temgrge_tester2*s77 + 4*p0*s77 + q255 + 2*_merge_tttttpG1 - s37747758*0725807258*0720747758*0725807858*------------ttttttttttttterge_tester2*s25 + 4*_meer1*s23*s55 + 2*_mes55 + 2*_merge_tester2*s23*s15 + 2*858*------------ttttttttttttttttt*s25 + 2*_merge_tester2*s23 + 2*_merge_tester2*s25 + 4*_meer1*s23*s55 + 2*_merge_teste_merge_testester1*s23*s55 + 2*_merge_test++++++++++++++++er1*s25*s55 + 4*_merge_tester2*s10 + tGtttttttttttttttpG1 - s37747758*0725807258*0720747758*0725807858*------------ttttttt_merge_test*_merge_ter2*s25*s55 + 4*_+ _merge_temgrge_tester2*s77 + 4*p0*s77 + q255 + 2*_merge_tttttpG1 - serge_teste_merge_testester1*s23*s55 + 2*_merge_test++++++++++++++++er1*s25*s55 + 4*_merge_tester2*s10 + tGtttttttttttttttpG1 - s37747758*07258780052*720747758*0725807858*------------ttttttt_merge_test*_merge_ter2*s25*s55 + 4*_+ _merge_temgrge_tester2*s77 + 4*p0*s77 + q255 + 2*_merge_tttttpG1 - s37747758*0725807258*0720747758*0725807858*------------tttttttttttttester2*s23*s55 + 2*_merge_mgrge_tester2*s77 + 4*q0*s77 + q2*s25 + 2*q2";
    assert_print_reads_back(text);
}

/// Sixth expr_roundtrip find: a subtracted float product with a negated
/// factor, `- c*(-x)`, printed in a form that read back as another expression.
/// A float product's sign now lives in its constant alone (`c*(-x)` is
/// `(-c)*x`, exact in IEEE arithmetic).
#[test]
fn fuzz_find_negated_factor_in_a_float_product() {
    let text = "- 758*0725807258*14.75*3*(s15*- 1)";
    assert_print_reads_back(text);
}

/// Seventh expr_roundtrip find: a product of constants beyond i64 reached a
/// sum as a coefficient times a constant rest, and took another place among
/// the terms than the same product read back.
#[test]
fn fuzz_find_constant_rest_of_a_scaled_term() {
    let text = "s---1-----------------12*(s77 + No-(s76 - 1) + No---------------------1-------------(-----------------1-------12*-------------12*(s77 - 1) + No-(s76 - 1) + No---------------2-----1-------------------------------(s87 - 1) + No-(s76 - 1) + No------ + No------12*(s77 - 1) + No-(s76 - 1) + No---------------------1------s693336-01446875051*600609946995-01451465078*600609946927*612736-01451465078*600609946995-01451465078*600609946927*61-------------------------2-----------t1) + No--------- +1) + No--12*(s77 - 1) + No-(s76 - 1-----12*(s77 - 1) + No-(s76 - 1) + No------1) + No-(s76 - 1-----12*-------------12*(s77 - 1) + No-(s76 - 1) + No---------------2-----1-------------------------------(s87 - 1) + No-(s76 - 1) + No------ + No------12*(s270377 - 1) + No-(s76 - 1) + No---------------------1-------------------------------2-----------t1) + No---------------------1----------------_merge_tester2---------------1-----------t1";
    assert_print_reads_back(text);
}

/// Eighth expr_roundtrip find: a float product of constants that overflows
/// folded to `inf`, printed as `inf`, and read back as a symbol. Constants
/// that are not finite are not folded (the lexer rejects them too).
#[test]
fn fuzz_find_float_fold_to_infinity() {
    let text = "s051+4*65078*77685*000000015451*77685.01*000101465078*6854775614954*65078*7754775614954*65078*77685*000005015451*77685*01*000001465078*68549565078*6854778*685477561414954*65078*77685*000000015451*77685*01*000001465078*68549565078*6854778*685477561495265078*686895265078*68685*000000015451*77685*01*000001465078*68549565078*6854778*685477561490015451*77685*01*000001465078*68549565078*6854778*685477561495265078*686895265078*68685*000000015451*77685*01*000001465078*68549565078*68545265078*6854778*FloorDiv6854775614952";
    let printed = assert_print_reads_back(text);
    assert!(!printed.contains("inf"), "{printed}");
}

/// Ninth expr_roundtrip find (under ASan): 2,000 levels of parentheses and
/// signs, within the nesting limit, overflowed the fuzzer's 8 MB stack — the
/// descent takes several frames per level. The parser now continues on a
/// heap segment when the stack runs low: it answers on a 256 KB thread.
#[test]
fn fuzz_find_parser_depth_on_a_small_stack() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/repro/f_fuzz_parser_stack.txt"
    ))
    .unwrap();
    let deepest = format!("{}s0{}", "(".repeat(2000), ")".repeat(2000));
    let answers = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let mut pool = symalias::ExprPool::new();
            let crash = symalias::parse(&mut pool, &text).map_err(|e| e.to_string());
            let deep = symalias::parse(&mut pool, &deepest).map(|e| pool.display(e).to_string());
            (crash, deep)
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(answers.0.unwrap_err().contains("at column"));
    assert_eq!(answers.1.unwrap(), "s0");
}

/// The deepest expressions the parser accepts (tree depth 1000) go through
/// the whole overlap pipeline — simplification, decision, proof — on a
/// thread with Rust's default 2 MB stack.
#[test]
fn deepest_accepted_expression_on_a_default_thread_stack() {
    use symalias::analysis::Analyzer;
    use symalias::io::{parse_line, run_overlap_case, OverlapCase};
    let mut e = "s0".to_string();
    for i in 0..499 {
        e = if i % 2 == 0 {
            format!("FloorDiv({e} + 1, 2)")
        } else {
            format!("Max({e}, 1)*1")
        };
    }
    let case = format!(
        r#"{{"id":"deep","symbols":{{"s0":{{"hint":8,"min":2,"max":64}}}},"tensors":[{{"sizes":["{e}"],"strides":[1]}},{{"sizes":[4],"strides":[1],"storage_offset":100}}]}}"#
    );
    let r = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let c: OverlapCase = parse_line(1, &case).value.unwrap();
            run_overlap_case(&c, &mut Analyzer::default(), true).unwrap()
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(r.overlapping.is_empty());
    assert_eq!(r.invariant, Some(true));
}

/// Tenth expr_roundtrip find (minimised): `-a*b - a*b` (a product of
/// constants beyond i64) combines to `-2*(a*b)`, rebuilt as `-1*2*a*b`; a
/// third term `- 2*a*b` has that rest only after the rebuild. Both now
/// combine in one sum, as a re-parse of the printed form does.
#[test]
fn fuzz_find_rebuilt_constant_product_meets_another_term() {
    for text in [
        "- 1451465078*600609499469 - 1451465078*600609499469 - 2*1451465078*600609499469",
        "x - 1451465078*600609499469 - 2*1451465078*600609499469 - 1451465078*600609499469",
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/repro/f_fuzz_rebuilt_product.txt"
        ))
        .unwrap(),
    ] {
        assert_print_reads_back(text);
    }
}

/// What `expr_roundtrip` checks: `text` parses, its print reads back to the
/// same print. Returns the print.
fn assert_print_reads_back(text: &str) -> String {
    let mut pool = ExprPool::new();
    let e = parse(&mut pool, text).unwrap();
    let printed = pool.display(e).to_string();
    let back = parse(&mut pool, &printed).unwrap();
    assert_eq!(pool.display(back).to_string(), printed, "{text}");
    printed
}
