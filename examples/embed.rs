//! Embedding symalias: build a symbolic storage group in code, get the
//! answer and its guards, then check later calls against the guards.
//!
//! `cargo run --example embed` (CI runs it). The group is PyTorch's #29:
//! `x = ones(s0)` with views `a = x[:5]`, `b = x[7:13]`, `c = x[9:]`.

use symalias::{
    parse, Analyzer, AnalyzerOptions, Call, CallTensor, Group, GuardOptions, GuardSet, Invariance,
    Layout, Member, Scope, SymbolDecl, View,
};

/// The #29 group for `s0 >= min_s0` (hint 20).
fn group(min_s0: i64) -> (Scope, Group) {
    let mut scope = Scope::new();
    let s0 = SymbolDecl::new("s0")
        .hint(20)
        .min(min_s0)
        .source("L['x'].size()[0]");
    scope
        .env
        .declare(&mut scope.pool, &s0)
        .expect("a valid symbol");
    let mut e = |text: &str| parse(&mut scope.pool, text).expect("a valid expression");
    let one = e("1");
    let views = [
        ("L['a']", "5", "0"),
        ("L['b']", "6", "7"),
        ("L['c']", "s0 - 9", "9"),
    ];
    let members = views
        .iter()
        .map(|(source, size, offset)| Member {
            source: source.to_string(),
            layout: Layout {
                sizes: vec![e(size)],
                strides: vec![one],
                offset: e(offset),
                itemsize: 4,
            },
        })
        .collect();
    let group = Group {
        id: "x".into(),
        members,
    };
    (scope, group)
}

/// A call with `x` of size `n` and the three views as the graph slices them.
fn call(n: i64) -> Call {
    let t = |object: &str, size: i64, offset: i64| {
        let view = View {
            sizes: vec![size],
            strides: vec![1],
            offset,
            itemsize: 4,
        };
        CallTensor::new(object, "X", view)
    };
    Call::new()
        .tensor("L['x']", t("x", n, 0))
        .tensor("L['a']", t("a", 5, 0))
        .tensor("L['b']", t("b", 6, 7))
        .tensor("L['c']", t("c", n - 9, 9))
}

fn main() {
    let mut analyzer = Analyzer::default();

    // With s0 >= 10, c = x[9:] is never empty: b and c always overlap.
    let (mut scope, g) = group(10);
    let report = analyzer.overlap(&mut scope, &g).expect("valid at the hint");
    println!(
        "s0 >= 10: overlapping {:?}, {:?}, {} guard(s)",
        report.overlapping,
        report.invariance,
        report.guards.len()
    );
    assert_eq!(report.overlapping, vec![1, 2]);
    assert_eq!(report.invariance, Invariance::Proved);
    // The list stands alone: a fast path pinning the members' layouts and
    // the domain, then the exact check. Every call it passes has the
    // proved partition.
    let sources = scope.sources();
    for guard in &report.guards {
        println!("  guard: {}", guard.kind.render(&scope.pool, &sources));
    }
    assert!(report.guards.first().is_some_and(|g| g.fast_path));
    let set = GuardSet::prepare(&scope.pool, &report.guards, &sources).expect("guards prepare");
    assert!(set.check(&call(20)).unwrap().passed());
    // An embedder that pins the layouts itself (torch's guards do) gets
    // the proof's own list: nothing is left to check.
    let mut pinned = Analyzer::new(AnalyzerOptions {
        guards: GuardOptions {
            layouts_pinned: true,
        },
        ..AnalyzerOptions::default()
    });
    let (mut scope, g) = group(10);
    let report = pinned.overlap(&mut scope, &g).expect("valid at the hint");
    assert!(report.guards.is_empty());

    // With s0 >= 9, s0 = 9 makes c empty: refuted, and guarded.
    let (mut scope, g) = group(9);
    let report = analyzer.overlap(&mut scope, &g).expect("valid at the hint");
    println!(
        "s0 >= 9: overlapping {:?}, {:?}, counterexample {:?}",
        report.overlapping, report.invariance, report.counterexample
    );
    assert_eq!(report.invariance, Invariance::Refuted);
    let sources = scope.sources();
    for guard in &report.guards {
        println!("  guard: {}", guard.kind.render(&scope.pool, &sources));
    }

    // Check calls against the guards (prepared once).
    let set = GuardSet::prepare(&scope.pool, &report.guards, &sources).expect("guards prepare");
    for n in [20, 64, 9] {
        match set.check(&call(n)).expect("a well-formed call").failure() {
            None => println!("call with x of size {n}: pass"),
            Some(f) => println!("call with x of size {n}: fails `{}`: {}", f.guard, f.reason),
        }
    }
    assert!(set.check(&call(20)).unwrap().passed());
    assert!(!set.check(&call(9)).unwrap().passed(), "c is empty at 9");
}
