//! Pictures of decisions: an overlap case's memory as SVG (issue 53).
//!
//! [`overlap_svg`] draws a case and its result: the storage's bytes as an
//! axis, one lane per view with its footprint in its own colour and its
//! source name, the bytes two views share in a lane of their own, each
//! witness byte marked with both index tuples, bytes a view reaches twice,
//! the verdict and the guards. A symbolic case is drawn at its hints, and
//! at its counterexample too when it has one. Large storages stay readable
//! (runs closer than a pixel merged, a scale with ticks) and small (a lane
//! is at most one rectangle per pixel column).
//!
//! Nothing here runs unless a picture is asked for.

mod footprint;
mod grid;
mod svg;

use std::collections::BTreeMap;

use crate::io::{
    case_views_at, InputError, OverlapCase, OverlapResult, ProgramDoc, ProgramResult, TensorSpec,
};

/// The picture of `case` answered by `result`, as an SVG document. An error
/// only when the case's views cannot be evaluated (the same error its
/// analysis gives).
///
/// ```
/// use symalias::analysis::Analyzer;
/// use symalias::io::{parse_line, run_overlap_case, OverlapCase};
/// let line = r#"{"id": "b0", "tensors": [
///     {"source": "L['a']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 0},
///     {"source": "L['b']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 9}]}"#;
/// let case: OverlapCase = parse_line(1, line).value.unwrap();
/// let result = run_overlap_case(&case, &mut Analyzer::default(), true).unwrap();
/// let svg = symalias::picture::overlap_svg(&case, &result).unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains("witness byte 9"));
/// ```
pub fn overlap_svg(case: &OverlapCase, result: &OverlapResult) -> Result<String, InputError> {
    let mut panels = vec![svg::Panel {
        title: at_title("at the hints", &hints(case)),
        views: case_views_at(case, None)?,
        witnesses: true,
    }];
    if let Some(cx) = &result.counterexample {
        panels.push(svg::Panel {
            title: at_title("at the counterexample", cx),
            views: case_views_at(case, Some(cx))?,
            witnesses: false,
        });
    }
    let sources: Vec<String> = (0..case.tensors.len())
        .map(|i| {
            case.tensors[i]
                .source
                .clone()
                .unwrap_or_else(|| format!("tensors[{i}]"))
        })
        .collect();
    Ok(svg::draw(&case.id, &sources, result, &panels))
}

/// The pictures of a program's storage groups (FORMATS §5 `overlap`): per
/// group, its storage and its picture, the group drawn as the §3 case of
/// its member inputs (named by source, else placeholder name, else
/// `inputs[i]`).
pub fn program_svgs(
    doc: &ProgramDoc,
    result: &ProgramResult,
) -> Result<Vec<(String, String)>, InputError> {
    result
        .overlap
        .iter()
        .map(|g| {
            let tensors = g
                .inputs
                .iter()
                .filter_map(|&i| {
                    let input = doc.inputs.get(i)?;
                    let t = input.tensor.as_ref()?;
                    let source = input
                        .source
                        .clone()
                        .or_else(|| input.name.clone())
                        .unwrap_or_else(|| format!("inputs[{i}]"));
                    Some(TensorSpec {
                        source: Some(source),
                        sizes: t.sizes.clone(),
                        strides: t.strides.clone(),
                        storage_offset: t.storage_offset.clone(),
                        itemsize: t.itemsize,
                    })
                })
                .collect();
            let case = OverlapCase {
                id: format!("{} storage {}", doc.id, g.storage),
                symbols: doc.symbols.clone(),
                assumptions: doc.assumptions.clone(),
                tensors,
                expect: None,
            };
            Ok((g.storage.clone(), overlap_svg(&case, &g.result)?))
        })
        .collect()
}

/// The pictures of a program's storage groups (`program_svgs`) as one
/// HTML fragment, each under its storage's name: what a notebook shows.
/// Empty when no group was asked.
pub fn program_html(doc: &ProgramDoc, result: &ProgramResult) -> Result<String, InputError> {
    Ok(program_svgs(doc, result)?
        .into_iter()
        .map(|(storage, svg)| {
            format!(
                "<div><p>storage <code>{}</code></p>{svg}</div>",
                svg::escape(&storage)
            )
        })
        .collect())
}

fn hints(case: &OverlapCase) -> BTreeMap<String, i64> {
    case.symbols
        .iter()
        .filter_map(|(n, s)| Some((n.clone(), s.hint?)))
        .collect()
}

fn at_title(what: &str, values: &BTreeMap<String, i64>) -> String {
    if values.is_empty() {
        return what.to_string();
    }
    let vs: Vec<String> = values.iter().map(|(n, v)| format!("{n}={v}")).collect();
    format!("{what}: {}", vs.join(", "))
}

/// The verdict in words.
pub(crate) fn verdict(result: &OverlapResult) -> String {
    let n = result.overlapping.len();
    let now = if n == 0 {
        "all disjoint".to_string()
    } else {
        format!("{n} overlapping")
    };
    let all = match result.invariant {
        Some(true) => "proved for all shapes",
        Some(false) => "refuted: another allowed shape answers otherwise",
        None => "undecided for all shapes (kept by guards)",
    };
    format!("{now} at the hints; {all}")
}
