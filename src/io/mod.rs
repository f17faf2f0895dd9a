//! The edge: the JSON formats of FORMATS.md §2–§6 (serde), JSON Lines
//! reading with errors that name the line and the field, loading documents
//! into the analysis layer's typed values ([`Scope`](crate::analysis::Scope),
//! [`Group`](crate::analysis::Group), [`Program`](crate::analysis::Program)),
//! and writing reports back as documents. `io` only converts: the passes
//! live in [`analysis`](crate::analysis).
//!
//! `io` is the boundary: it may use every other module; no other module uses it.

mod error;
mod guard;
mod jsonl;
mod load;
mod overlap_case;
mod program_doc;
pub mod strict;
mod types;

pub use error::InputError;
pub use error::{abbrev, cap_message};
pub use guard::{
    guard_json, guard_set_docs, load_guards, prepare_guards, GuardDoc, GuardKindDoc, OutcomeDoc,
};
pub use jsonl::{parse_line, JsonLine};
pub use load::{load_env, load_expr, load_layout, LayoutFields};
pub use overlap_case::{
    analyze_views, case_views_at, check_itemsize, check_text_total, concrete_view,
    load_group_views, overlap_result_of, run_disjoint_case, run_overlap_case, tensor_error,
    text_bytes, GroupView, MAX_CASE_TEXT,
};
pub use program_doc::{
    load_program, run_program, BaseDoc, BaseInfoDoc, DedupeDoc, GroupDoc, InputDoc, InputInfoDoc,
    MetaDoc, OutputInfoDoc, ProgramDoc, ProgramResult, SyntheticDoc, TangentDoc, TensorDoc,
};
pub use types::{
    ErrorLine, Expect, ExprCase, ExprField, ExprResult, OverlapCase, OverlapResult, PairDoc,
    SelfOverlapResult, SymbolSpec, TensorSpec, WitnessDoc,
};
