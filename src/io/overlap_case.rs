//! An overlap case (FORMATS.md §3) through the analysis layer: load the case
//! into a [`Scope`] and a [`Group`] (or, when every field is an integer,
//! straight into concrete views: the short road), ask the [`Analyzer`], and
//! write the result line.

use super::error::InputError;
use super::guard::GuardDoc;
use super::load::{load_env, load_layout, LayoutFields};
use super::types::{ExprField, OverlapCase, OverlapResult, PairDoc, SelfOverlapResult, WitnessDoc};
use crate::analysis::{Analyzer, Disjointness, Group, Member, OverlapReport, Scope};
use crate::expr::ExprPool;
use crate::layout::{Field, View};
use std::collections::BTreeMap;

/// Answers one overlap case: exact at the hints, then (for symbolic cases)
/// proved or refuted for all allowed shapes (see [`Analyzer::overlap`]).
/// `no_timing` writes `micros: 0`, so that output is reproducible.
///
/// ```
/// use symalias::analysis::Analyzer;
/// use symalias::io::{parse_line, run_overlap_case, OverlapCase};
/// let line = r#"{"id": "b0", "tensors": [
///     {"source": "L['a']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 0},
///     {"source": "L['b']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 9}]}"#;
/// let case: OverlapCase = parse_line(1, line).value.unwrap();
/// let result = run_overlap_case(&case, &mut Analyzer::default(), false).unwrap();
/// assert_eq!(result.overlapping, vec![0, 1]);
/// assert_eq!(result.invariant, Some(true));
/// ```
pub fn run_overlap_case(
    case: &OverlapCase,
    analyzer: &mut Analyzer,
    no_timing: bool,
) -> Result<OverlapResult, InputError> {
    let start = std::time::Instant::now();
    check_case_text(case)?;
    let mut scope = load_env(&case.symbols, &case.assumptions)?;
    let names = sources(case);
    let report = analyze_views(analyzer, &mut scope, &case.id, &case_views(case, &names))?;
    let mut result = overlap_result(case, &scope.pool, report, true);
    // The whole case, from loading to the result (as `micros` always meant).
    if !no_timing {
        result.micros = start.elapsed().as_micros() as u64;
    }
    Ok(result)
}

/// One view of a storage group as an embedder holds it: its source (its
/// name in guards) and its layout fields, borrowed.
pub type GroupView<'a> = (&'a str, LayoutFields<'a>);

/// The typed road every embedder takes to the engine -- the CLI's cases
/// ([`run_overlap_case`]), the C ABI, Python's `decide` -- for one storage
/// group: itemsizes checked; when every field is an integer, the views
/// straight to [`Analyzer::overlap_views`] (the short road, `scope`
/// untouched); else each layout loaded into `scope` (whose symbols are
/// declared) and the group to [`Analyzer::overlap`]. Errors name
/// `tensors[i]`'s field.
pub fn analyze_views(
    analyzer: &mut Analyzer,
    scope: &mut Scope,
    id: &str,
    views: &[GroupView<'_>],
) -> Result<OverlapReport, InputError> {
    check_itemsizes(views)?;
    if let Some(concrete) = concrete_views(views)? {
        let source = |i: usize| views[i].0.to_string();
        let mut report = analyzer.overlap_views(id, &concrete, &source);
        if !analyzer.options().guards.layouts_pinned {
            let group = Group {
                id: id.to_string(),
                members: concrete
                    .iter()
                    .zip(views)
                    .map(|(v, (source, _))| Member {
                        source: source.to_string(),
                        layout: crate::layout::Layout::concrete(&mut scope.pool, v.view_ref()),
                    })
                    .collect(),
            };
            analyzer.finish_guards(&mut scope.pool, &scope.env, &group, &mut report);
        }
        return Ok(report);
    }
    let group = group_of(scope, id, views)?;
    analyzer
        .overlap(scope, &group)
        .map_err(|e| tensor_error(e.member, e.error.field(), e.error.to_string()))
}

/// `views` as a group of `scope` (itemsizes checked, fields parsed and
/// checked against its symbols): what [`Analyzer::disjoint`] and
/// [`Analyzer::overlap`] take. Errors name `tensors[i]`'s field.
pub fn load_group_views(
    scope: &mut Scope,
    id: &str,
    views: &[GroupView<'_>],
) -> Result<Group, InputError> {
    check_itemsizes(views)?;
    group_of(scope, id, views)
}

fn check_itemsizes(views: &[GroupView<'_>]) -> Result<(), InputError> {
    for (i, (_, fields)) in views.iter().enumerate() {
        check_itemsize(i, fields.3)?;
    }
    Ok(())
}

fn group_of(scope: &mut Scope, id: &str, views: &[GroupView<'_>]) -> Result<Group, InputError> {
    let mut members = Vec::with_capacity(views.len());
    for (i, (source, fields)) in views.iter().enumerate() {
        let layout = load_layout(scope, &format!("tensors[{i}]"), *fields)?;
        members.push(Member {
            source: source.to_string(),
            layout,
        });
    }
    Ok(Group {
        id: id.to_string(),
        members,
    })
}

/// A case's tensors' sources (`tensors[i]` where none is given).
fn sources(case: &OverlapCase) -> Vec<String> {
    (0..case.tensors.len())
        .map(|i| {
            case.tensors[i]
                .source
                .clone()
                .unwrap_or_else(|| format!("tensors[{i}]"))
        })
        .collect()
}

/// A case's tensors as group views, named by `names` ([`sources`]).
fn case_views<'a>(case: &'a OverlapCase, names: &'a [String]) -> Vec<GroupView<'a>> {
    case.tensors
        .iter()
        .zip(names)
        .map(|(t, name)| {
            let fields = (&t.sizes[..], &t.strides[..], &t.storage_offset, t.itemsize);
            (name.as_str(), fields)
        })
        .collect()
}

/// Whether the views of one overlap case are pairwise disjoint for every
/// allowed shape ([`Analyzer::disjoint`]: cheapest reasoning first, no
/// proof spent on overlaps), loaded and checked as [`run_overlap_case`]
/// loads a case.
///
/// ```
/// use symalias::analysis::{Analyzer, Disjointness};
/// use symalias::io::{parse_line, run_disjoint_case, OverlapCase};
/// let line = r#"{"id": "halves", "symbols": {"s0": {"hint": 4, "min": 2}},
///   "tensors": [{"sizes": ["s0"], "strides": [1], "storage_offset": 0},
///               {"sizes": ["s0"], "strides": [1], "storage_offset": "s0"}]}"#;
/// let case: OverlapCase = parse_line(1, line).value.unwrap();
/// let answer = run_disjoint_case(&case, &mut Analyzer::default()).unwrap();
/// assert_eq!(answer, Disjointness::Proved);
/// ```
pub fn run_disjoint_case(
    case: &OverlapCase,
    analyzer: &mut Analyzer,
) -> Result<Disjointness, InputError> {
    check_case_text(case)?;
    let mut scope = load_env(&case.symbols, &case.assumptions)?;
    let names = sources(case);
    let group = load_group_views(&mut scope, &case.id, &case_views(case, &names))?;
    analyzer
        .disjoint(&mut scope, &group)
        .map_err(|e| tensor_error(e.member, e.error.field(), e.error.to_string()))
}

/// The most expression text one case may hold, all its fields and
/// assumptions together, in bytes (each field is also at most
/// [`crate::expr::MAX_TEXT`]): loading stays linear and well inside the
/// case's time limit (about 0.25 s for 1 MiB of `Max(...)` here).
pub const MAX_CASE_TEXT: usize = 1 << 20;

/// The case's expression text in bytes, or the error when past
/// [`MAX_CASE_TEXT`].
fn check_case_text(case: &OverlapCase) -> Result<(), InputError> {
    let fields = case
        .tensors
        .iter()
        .flat_map(|t| t.sizes.iter().chain(&t.strides).chain([&t.storage_offset]));
    check_text_total(text_bytes(fields, &case.assumptions))
}

/// The expression text of a case's layout `fields` and `assumptions`, in
/// bytes (what [`check_text_total`] holds to the limit).
pub fn text_bytes<'a>(
    fields: impl Iterator<Item = &'a ExprField>,
    assumptions: &[String],
) -> usize {
    let text = |f: &ExprField| match f {
        ExprField::Text(t) => t.len(),
        ExprField::Int(_) => 0,
    };
    fields.map(text).sum::<usize>() + assumptions.iter().map(String::len).sum::<usize>()
}

/// The error when a case's expressions hold `total` bytes of text, more
/// than [`MAX_CASE_TEXT`] (every embedder's case is held to it).
pub fn check_text_total(total: usize) -> Result<(), InputError> {
    if total > MAX_CASE_TEXT {
        return Err(InputError::field(
            "tensors",
            format!(
                "the case's expressions hold {total} bytes of text, more than the {MAX_CASE_TEXT} accepted"
            ),
        ));
    }
    Ok(())
}

/// Tensor `i`'s itemsize is at least 1 byte (else the error names
/// `tensors[i].itemsize`).
pub fn check_itemsize(i: usize, itemsize: i64) -> Result<(), InputError> {
    if itemsize < 1 {
        return Err(InputError::field(
            format!("tensors[{i}].itemsize"),
            format!("itemsize must be at least 1, found {itemsize}"),
        ));
    }
    Ok(())
}

/// The error of tensor `i`'s field, located (`tensors[0].sizes[1]`).
pub fn tensor_error(i: usize, field: Field, message: String) -> InputError {
    let name = field.name();
    let path = if name.is_empty() {
        format!("tensors[{i}]")
    } else {
        format!("tensors[{i}].{name}")
    };
    InputError::field(path, message)
}

/// The views of a group whose every field is an integer literal, validated
/// (`None` when some field is an expression).
fn concrete_views(views: &[GroupView<'_>]) -> Result<Option<Vec<View>>, InputError> {
    let mut out = Vec::with_capacity(views.len());
    for (i, (_, fields)) in views.iter().enumerate() {
        match concrete_view(i, *fields)? {
            Some(view) => out.push(view),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// Tensor `i`'s view when every layout field is an integer literal,
/// validated (errors name `tensors[i]`'s field); `None` when some field is
/// an expression. What an embedder's concrete short road loads.
pub fn concrete_view(i: usize, fields: LayoutFields) -> Result<Option<View>, InputError> {
    let (sizes, strides, offset, itemsize) = fields;
    let int = |f: &ExprField| match f {
        ExprField::Int(v) => Some(*v),
        ExprField::Text(_) => None,
    };
    let (Some(sizes), Some(strides), Some(offset)) = (
        sizes.iter().map(int).collect::<Option<Vec<i64>>>(),
        strides.iter().map(int).collect::<Option<Vec<i64>>>(),
        int(offset),
    ) else {
        return Ok(None);
    };
    let view = View {
        sizes,
        strides,
        offset,
        itemsize,
    };
    view.validate()
        .map_err(|e| tensor_error(i, crate::layout::field_of(&e), e.to_string()))?;
    Ok(Some(view))
}

/// The §3 result line of a report.
fn overlap_result(
    case: &OverlapCase,
    pool: &ExprPool,
    r: OverlapReport,
    no_timing: bool,
) -> OverlapResult {
    let symbols = || {
        case.symbols
            .iter()
            .filter_map(|(name, spec)| spec.source.clone().map(|src| (name.clone(), src)))
            .collect()
    };
    result_doc(&case.id, pool, &symbols, r, no_timing)
}

/// The §3 result of a report that an embedder made on a group it built
/// itself in `scope` (no case document): the guards printed from the
/// scope's pool, symbols' sources from its environment, `micros` the
/// report's own time.
///
/// ```
/// use symalias::{parse, Analyzer, Group, Layout, Member, Scope, SymbolDecl};
/// use symalias::io::overlap_result_of;
/// let mut scope = Scope::new();
/// let s = SymbolDecl::new("s").hint(4).min(2).source("L['x'].size()[0]");
/// scope.env.declare(&mut scope.pool, &s).unwrap();
/// let mut e = |t: &str| parse(&mut scope.pool, t).unwrap();
/// let (one, s, zero) = (e("1"), e("s"), e("0"));
/// let layout = |offset| Layout { sizes: vec![s], strides: vec![one], offset, itemsize: 4 };
/// let members = vec![
///     Member { source: "L['a']".into(), layout: layout(zero) },
///     Member { source: "L['b']".into(), layout: layout(s) },
/// ];
/// let group = Group { id: "halves".into(), members };
/// let report = Analyzer::default().overlap(&mut scope, &group).unwrap();
/// let doc = overlap_result_of("halves", &scope, report);
/// assert_eq!((doc.overlapping.len(), doc.invariant), (0, Some(true)));
/// ```
pub fn overlap_result_of(id: &str, scope: &Scope, report: OverlapReport) -> OverlapResult {
    result_doc(id, &scope.pool, &|| scope.sources(), report, false)
}

/// The §3 result of a report; `symbols` gives the symbols' sources (asked
/// only when a shape guard needs them).
fn result_doc(
    id: &str,
    pool: &ExprPool,
    symbols: &dyn Fn() -> BTreeMap<String, String>,
    r: OverlapReport,
    no_timing: bool,
) -> OverlapResult {
    let symbols = if r.has_shape_guards() {
        symbols()
    } else {
        BTreeMap::new()
    };
    let (self_overlapping, self_overlap) = (self_overlapping(&r), self_overlap_results(&r));
    OverlapResult {
        id: id.to_string(),
        invariant: r.invariance.as_option(),
        guards: r
            .guards
            .iter()
            .map(|g| GuardDoc::from_guard(pool, g))
            .collect(),
        pairs: pair_results(&r),
        pairs_left_out: r.pairs_left_out,
        counterexample: r.counterexample,
        symbols,
        micros: if no_timing {
            0
        } else {
            r.elapsed.as_micros() as u64
        },
        self_overlapping,
        self_overlap,
        time_limit_hit: r.time_limit_hit,
        overlapping: r.overlapping,
        non_overlapping: r.non_overlapping,
    }
}

/// The members that overlap themselves at the hints.
pub(crate) fn self_overlapping(r: &OverlapReport) -> Vec<usize> {
    r.self_overlap
        .iter()
        .filter(|s| s.overlap)
        .map(|s| s.member)
        .collect()
}

/// §3 `self_overlap` of a report.
pub(crate) fn self_overlap_results(r: &OverlapReport) -> Vec<SelfOverlapResult> {
    r.self_overlap
        .iter()
        .map(|s| SelfOverlapResult {
            tensor: s.member,
            overlap: s.overlap,
            proof: s.proof,
            witness: s.witness.as_ref().map(witness_doc),
            counterexample: s.counterexample.clone(),
        })
        .collect()
}

fn witness_doc(w: &crate::overlap::Witness) -> WitnessDoc {
    WitnessDoc {
        address: w.address,
        index_a: w.index_a.clone(),
        index_b: w.index_b.clone(),
    }
}

/// The §3 `pairs` of a report.
pub(crate) fn pair_results(r: &OverlapReport) -> Vec<PairDoc> {
    r.pairs
        .iter()
        .map(|p| PairDoc {
            a: p.a,
            b: p.b,
            overlap: p.overlap,
            proof: p.proof,
            witness: p.witness.as_ref().map(witness_doc),
        })
        .collect()
}

/// The concrete views of a case at an assignment of its symbols (`at`; a
/// symbol it leaves out takes its hint), validated as the case is loaded:
/// what a picture of the case draws.
pub fn case_views_at(
    case: &OverlapCase,
    at: Option<&BTreeMap<String, i64>>,
) -> Result<Vec<View>, InputError> {
    let names = sources(case);
    let views = case_views(case, &names);
    if at.is_none() {
        if let Some(concrete) = concrete_views(&views)? {
            return Ok(concrete);
        }
    }
    let mut scope = load_env(&case.symbols, &case.assumptions)?;
    let group = group_of(&mut scope, &case.id, &views)?;
    let Scope { pool, env } = &scope;
    let lookup = |s| {
        at.and_then(|a| a.get(pool.symbol_name(s)).copied())
            .or_else(|| env.hint(s))
    };
    let label = if at.is_some() {
        "the assignment"
    } else {
        "the hints"
    };
    group
        .members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.layout
                .at(pool, &lookup, label)
                .map_err(|e| tensor_error(i, e.field(), e.to_string()))
        })
        .collect()
}
