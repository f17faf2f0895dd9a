//! serde types of the interchange formats (FORMATS.md §2–§4).
//!
//! Unknown keys are ignored everywhere, so that formats can grow by optional keys.

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// One symbol of `symbols` (§2).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolSpec {
    /// Example value seen while tracing (required for symbols that tensors use).
    #[serde(default)]
    pub hint: Option<i64>,
    /// Inclusive minimum; `null`/absent = unbounded.
    #[serde(default)]
    pub min: Option<i64>,
    /// Inclusive maximum; `null`/absent = unbounded.
    #[serde(default)]
    pub max: Option<i64>,
    /// Run-time source of the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// A field that holds an integer or an expression string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprField {
    /// A JSON integer.
    Int(i64),
    /// An expression in the text form of §1.
    Text(String),
}

impl fmt::Display for ExprField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExprField::Int(v) => write!(f, "{v}"),
            ExprField::Text(t) => f.write_str(t),
        }
    }
}

impl Default for ExprField {
    fn default() -> Self {
        ExprField::Int(0)
    }
}

impl<'de> Deserialize<'de> for ExprField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ExprField;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or an expression string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ExprField, E> {
                Ok(ExprField::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ExprField, E> {
                i64::try_from(v)
                    .map(ExprField::Int)
                    .map_err(|_| E::custom(format!("integer {v} does not fit in 64 bits")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ExprField, E> {
                Err(E::custom(format!(
                    "expected an integer or an expression string, found the number {v}"
                )))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ExprField, E> {
                Ok(ExprField::Text(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for ExprField {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ExprField::Int(v) => s.serialize_i64(*v),
            ExprField::Text(t) => s.serialize_str(t),
        }
    }
}

use crate::layout::default_itemsize;

/// One tensor of an overlap case (§3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorSpec {
    /// Run-time source, e.g. `L['a']`.
    #[serde(default)]
    pub source: Option<String>,
    /// Sizes, one per dimension.
    pub sizes: Vec<ExprField>,
    /// Strides in elements, one per dimension (non-negative).
    pub strides: Vec<ExprField>,
    /// Storage offset in elements.
    #[serde(default)]
    pub storage_offset: ExprField,
    /// Bytes per element (default 1).
    #[serde(default = "default_itemsize")]
    pub itemsize: i64,
}

/// What a corpus expects (only the keys the engine checks; others are ignored).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expect {
    /// The exact overlapping set at the hints.
    #[serde(default)]
    pub overlapping: Option<Vec<usize>>,
    /// `false` when a counterexample to invariance is known.
    #[serde(default)]
    pub invariant: Option<bool>,
}

/// An overlap case (§3): views of one storage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverlapCase {
    /// Case id.
    #[serde(default)]
    pub id: String,
    /// Symbol table.
    #[serde(default)]
    pub symbols: BTreeMap<String, SymbolSpec>,
    /// Assumptions (boolean expressions).
    #[serde(default)]
    pub assumptions: Vec<String>,
    /// The views.
    pub tensors: Vec<TensorSpec>,
    /// Expected answers (corpora only).
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// An expression case (§4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExprCase {
    /// Case id.
    #[serde(default)]
    pub id: String,
    /// Symbol table.
    #[serde(default)]
    pub symbols: BTreeMap<String, SymbolSpec>,
    /// Assumptions.
    #[serde(default)]
    pub assumptions: Vec<String>,
    /// The expression.
    pub expr: ExprField,
}

/// The result line of `parse`/`simplify` on an expression case (§4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExprResult {
    /// Case id.
    pub id: String,
    /// The resulting expression text.
    pub expr: String,
    /// Tree size of the input.
    pub size_in: usize,
    /// Tree size of the output.
    pub size_out: usize,
    /// Wall time in microseconds.
    pub micros: u64,
    /// The rewrite chain, one step per entry (`simplify --explain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<Vec<String>>,
}

use super::guard::GuardDoc;
use crate::overlap::Proof;

/// Per-pair detail of an overlap result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairDoc {
    /// First tensor index.
    pub a: usize,
    /// Second tensor index.
    pub b: usize,
    /// Whether the two footprints intersect at the hints.
    pub overlap: bool,
    /// `proved`, `refuted`, `hint_only` or `unknown`.
    pub proof: Proof,
    /// A shared byte address and the indices of both tensors reaching it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<WitnessDoc>,
}

/// The evidence of an overlap: one shared byte and the element indices reaching it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessDoc {
    /// The shared byte address (storage offset in bytes).
    pub address: i64,
    /// Index into tensor `a`.
    pub index_a: Vec<i64>,
    /// Index into tensor `b`.
    pub index_b: Vec<i64>,
}

/// The result line of an overlap case (§3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverlapResult {
    /// Case id.
    pub id: String,
    /// Tensor indices that overlap some other tensor, at the hints (sorted).
    pub overlapping: Vec<usize>,
    /// The others (sorted).
    pub non_overlapping: Vec<usize>,
    /// `true` proved for all shapes, `false` refuted, `null` undecided.
    pub invariant: Option<bool>,
    /// Guards that keep the classification true.
    pub guards: Vec<GuardDoc>,
    /// Per-pair detail: every overlapping (or undecided) pair; pairs not
    /// listed are disjoint.
    #[serde(default)]
    pub pairs: Vec<PairDoc>,
    /// Candidate pairs of a degenerate group (many views over one place)
    /// that were neither decided nor listed, past the listing cap: they lie
    /// inside an already connected component of the overlap graph, so they
    /// change neither `overlapping` nor the components. Absent when zero
    /// (then every unlisted pair is disjoint).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pairs_left_out: usize,
    /// With `invariant: false`: an allowed assignment of the symbols at which the
    /// exact classification differs (checked concretely).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<std::collections::BTreeMap<String, i64>>,
    /// Symbol → run-time source, for the symbols of shape guards (so that a
    /// checker can bind them from a call).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub symbols: BTreeMap<String, String>,
    /// Tensors that overlap themselves at the hints (two of their own indices
    /// reach one byte), sorted. Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub self_overlapping: Vec<usize>,
    /// Per-tensor detail of self-overlap: every tensor that overlaps itself at
    /// the hints, or (when proofs were asked for) whose verdict is not proved
    /// for all shapes; a tensor not listed overlaps itself at no allowed
    /// shape (with proofs off: not at the hints). Absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub self_overlap: Vec<SelfOverlapResult>,
    /// `true` when the time limit (the wall-clock backstop) stopped some of
    /// the work: the answer is sound, but an idler or faster machine may
    /// decide more. Absent when false: then the answer is a function of the
    /// input and the options alone, whatever the machine and its load.
    #[serde(default, skip_serializing_if = "is_false")]
    pub time_limit_hit: bool,
    /// Wall time in microseconds.
    pub micros: u64,
}

/// One tensor's overlap with itself (§3 `self_overlap`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfOverlapResult {
    /// The tensor index.
    pub tensor: usize,
    /// Whether it overlaps itself at the hints.
    pub overlap: bool,
    /// `proved`, `refuted`, `hint_only` or `unknown`: whether `overlap`
    /// holds for all allowed shapes.
    pub proof: Proof,
    /// A byte it reaches from two indices (`index_a != index_b`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<WitnessDoc>,
    /// With `refuted`: an allowed assignment at which the verdict differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<std::collections::BTreeMap<String, i64>>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The line written in place of a result when a case is bad input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorLine {
    /// Case id, when it could be read.
    pub id: Option<String>,
    /// Input line (1-based).
    pub line: usize,
    /// The error, naming the field.
    pub error: String,
}
