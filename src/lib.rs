//! # symalias
//!
//! An exact, symbolic-shape-aware alias analysis for dynamic-shape ML compilers:
//! which of a compiled graph's inputs overlap in memory, now and for every shape
//! the compiled code will see, and which guards keep that answer true.
//!
//! Modules follow `ARCHITECTURE.md`; data flows one way:
//! `io` → `expr`/`env` → (`simplify`) → (`overlap`) → (`aot`) → (`guards`) → `io`.

//! The `symalias` command lives behind the default `cli` feature; with
//! `default-features = false` the library builds without clap, indicatif,
//! tracing-subscriber and rayon.

#![warn(missing_docs)]

pub mod analysis;
pub mod aot;
#[cfg(feature = "cli")]
pub mod cli;
pub mod env;
pub mod expr;
pub mod guards;
pub mod io;
pub mod layout;
pub mod overlap;
pub mod simplify;
