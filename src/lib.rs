//! # symalias
//!
//! An exact, symbolic-shape-aware alias analysis for dynamic-shape ML compilers:
//! which of a compiled graph's inputs overlap in memory, now and for every shape
//! the compiled code will see, and which guards keep that answer true.
//!
//! ```
//! use symalias::{parse, Analyzer, Call, CallTensor, Group, GuardSet, Invariance, Layout, Member, Scope, SymbolDecl, View};
//! // x = ones(s0), s0 >= 9 (hint 20); b = x[7:13], c = x[9:].
//! let mut scope = Scope::new();
//! let s0 = SymbolDecl::new("s0").hint(20).min(9).source("L['x'].size()[0]");
//! scope.env.declare(&mut scope.pool, &s0).unwrap();
//! let mut e = |t: &str| parse(&mut scope.pool, t).unwrap();
//! let (one, six, seven, nine, rest) = (e("1"), e("6"), e("7"), e("9"), e("s0 - 9"));
//! let view = |source: &str, size, offset| Member {
//!     source: source.into(),
//!     layout: Layout { sizes: vec![size], strides: vec![one], offset, itemsize: 4 },
//! };
//! let group = Group { id: "x".into(), members: vec![view("L['b']", six, seven), view("L['c']", rest, nine)] };
//!
//! let report = Analyzer::default().overlap(&mut scope, &group).unwrap();
//! assert_eq!(report.overlapping, vec![0, 1]);           // exact at the hint
//! assert_eq!(report.invariance, Invariance::Refuted);   // s0 = 9 empties c
//! let text: Vec<String> = report.guards.iter()
//!     .map(|g| g.kind.render(&scope.pool, &scope.sources())).collect();
//! assert!(text[0].starts_with("same_storage_and_layout(")); // the layouts first,
//! assert_eq!(text[1], "10 <= L['x'].size()[0]");        // then the cheap guard
//!
//! // The guards, prepared once, decide later calls.
//! let set = GuardSet::prepare(&scope.pool, &report.guards, &scope.sources()).unwrap();
//! let t = |object: &str, size: i64, offset: i64| CallTensor::new(object, "X", View::new(&[size], &[1], offset));
//! let call = |n: i64| Call::new()
//!     .tensor("L['x']", t("x", n, 0))
//!     .tensor("L['b']", t("b", 6, 7))
//!     .tensor("L['c']", t("c", n - 9, 9));
//! assert!(set.check(&call(20)).unwrap().passed());
//! assert!(!set.check(&call(9)).unwrap().passed());
//! ```
//!
//! Layers (see `ARCHITECTURE.md`); data flows one way:
//! `io` (formats at the edge) → `analysis` (typed passes) → `expr`/`env`/`layout` →
//! `simplify` → `overlap` (→ `symalias-solver`) → `aot` → `guards`.

//! The `symalias` command lives behind the default `cli` feature; with
//! `default-features = false` the library builds without clap, indicatif,
//! tracing-subscriber and rayon.

#![warn(missing_docs)]

/// The README's and the guide's Rust blocks, run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
#[doc = include_str!("../docs/rust.md")]
pub struct GuideExamples;

/// Declares an item the integration tests, benches and fuzz targets reach
/// into but an embedder does not: `pub` (and hidden from the docs) with the
/// `internals` feature, which carries no stability promise and is off by
/// default; `pub(crate)` without it. The public API is everything declared
/// plain `pub` and reachable from the crate root.
macro_rules! internal {
    ($(#[$m:meta])* pub $($item:tt)*) => {
        $(#[$m])* #[cfg(feature = "internals")] #[doc(hidden)] pub $($item)*
        $(#[$m])* #[cfg(not(feature = "internals"))] #[allow(unused_imports)] pub(crate) $($item)*
    };
}

pub use analysis::{
    Analyzer, AnalyzerOptions, Group, GroupError, GuardOptions, Invariance, Member, OverlapReport,
    PairReport, Program, ProgramError, ProgramReport, Scope,
};
pub use env::SymbolDecl;
pub use expr::{parse, ExprId, ExprPool, SymbolId};
pub use guards::check::{Call, CallInput, CallTensor, CheckError, Failure, GuardSet, Outcome};
pub use guards::{Guard, GuardKind};
pub use layout::{Layout, View};
pub use overlap::{Proof, ProofOptions};
pub use symalias_solver::{z3_version, Solver};

pub mod analysis;
pub mod aot;
/// The `symalias` command (`main` only; the binary's entry point).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
pub mod env;
pub mod expr;
pub mod guards;
pub mod io;
pub mod layout;
pub mod overlap;
pub mod picture;
pub mod simplify;
