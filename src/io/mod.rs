//! The JSON formats of FORMATS.md §2–§4 (serde), JSON Lines reading with errors
//! that name the line and the field, and the loading of a case's symbols,
//! assumptions and expression fields into an [`ExprPool`](crate::expr::ExprPool)
//! and an [`Env`](crate::env::Env).
//!
//! `io` is the boundary: it may use every other module; no other module uses it.

mod error;
mod jsonl;
mod load;
mod overlap_case;
pub mod program;
mod types;

pub use error::InputError;
pub use jsonl::{parse_line, read_jsonl, JsonLine};
pub use load::{load_env, load_env_simplified, load_expr, Loaded};
pub use overlap_case::{run_overlap_case, OverlapOptions};
pub use program::{run_program, Program};
pub use types::{
    ErrorLine, Expect, ExprCase, ExprField, ExprResult, Guard, OverlapCase, OverlapResult,
    PairResult, PairWitness, SymbolSpec, TensorSpec,
};
