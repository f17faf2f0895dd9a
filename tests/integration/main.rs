//! The integration tests: one test binary, one module per topic (linking
//! egg and z3 once instead of once per file). Run one topic with
//! `cargo test --test integration golden::` (module path as the filter).

mod common;

mod aot_props;
mod aot_scenarios;
mod cli;
mod docs_formats;
mod expr_corpus;
mod expr_props;
mod expr_spec;
mod fuzz_corpus;
mod golden;
mod guards_bugs;
mod guards_scenarios;
mod guards_soundness;
mod guards_standalone;
mod internal_props;
mod layers;
mod overlap_corpus;
mod overlap_differential;
mod overlap_hard;
mod overlap_pytorch;
mod proof_props;
mod proof_scale;
mod repro;
mod simplify_corpus;
mod simplify_rules;
mod simplify_spec;
mod symbolic_completeness;
mod work_bounds;
