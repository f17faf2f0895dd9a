//! Random programs (random inputs, duplicates, views of shared storages,
//! mutations, outputs of every type) through the metadata passes. Checked:
//! every input-alias `base_idx` points into the new input list; intermediate
//! aliases are untouched; traced tangents match their definition; derived
//! counts are consistent; duplicates and synthetic bases are consistent with
//! object identity and with brute-force byte overlap.

use crate::common::random_programs::{generate, Gen};
use proptest::prelude::*;
use serde_json::{json, Value};
use symalias::analysis::Analyzer;
use symalias::io::ProgramDoc;

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default()
}

fn check(g: &Gen, analyzer: &mut Analyzer) -> Result<(), String> {
    let p: ProgramDoc = serde_json::from_value(g.program.clone()).map_err(|e| e.to_string())?;
    let r = crate::common::analyze_json(&g.program, analyzer)?;
    let kept = check_dedupe(g, &p, &r)?;
    let errors = r["errors"].as_array().cloned().unwrap_or_default();
    if !errors.is_empty() {
        return Ok(()); // a compiler error: the passes stopped; nothing more to check
    }
    check_meta(&p, &r)?;
    check_synthetic_bases(g, &p, &r, &kept)
}

/// Dedupe: kept = first occurrence of each object; the map points at it.
/// The kept inputs.
fn check_dedupe(g: &Gen, p: &ProgramDoc, r: &Value) -> Result<Vec<usize>, String> {
    let n = p.inputs.len();
    let keep: Vec<bool> = r["dedupe"]["keep_arg_mask"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_bool().unwrap())
        .collect();
    let map = ints(&r["dedupe"]["add_dupe_map"]);
    let strategy = r["dedupe"]["strategy"].as_str().unwrap();
    let kept: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
    for i in 0..n {
        let kept_at = kept[map[i] as usize];
        match (&g.tensors[i], &g.tensors[kept_at]) {
            (Some(a), Some(b)) if a.0 != b.0 => {
                return Err(format!("input {i} mapped to a different object"))
            }
            (None, _) if kept_at != i => return Err(format!("non-tensor {i} was deduped")),
            _ => {}
        }
        if strategy == "remove"
            && !keep[i]
            && (0..i)
                .all(|j| g.tensors[j].as_ref().map(|t| &t.0) != g.tensors[i].as_ref().map(|t| &t.0))
        {
            return Err(format!("first occurrence {i} removed"));
        }
    }
    Ok(kept)
}

/// The metadata: output aliases, tangents from the definition, counts.
fn check_meta(p: &ProgramDoc, r: &Value) -> Result<(), String> {
    let meta = &r["meta"];
    let num_inner = meta["input_info"].as_array().unwrap().len();
    let outer_outputs = p.outputs.clone();
    let outs = meta["output_info"].as_array().unwrap();
    for (j, o) in outs.iter().enumerate() {
        let t = o["output_type"].as_str().unwrap();
        let b = o["base_idx"].as_u64();
        if matches!(t, "alias_of_input" | "is_input") && b.is_none_or(|b| b as usize >= num_inner) {
            return Err(format!(
                "output {j}: input alias base {b:?} outside {num_inner} inputs"
            ));
        }
        if j < outer_outputs.len() {
            let orig = &outer_outputs[j];
            let ot = serde_json::to_value(orig.output_type).unwrap();
            if t.starts_with("alias_of_intermediate")
                && (ot.as_str() != Some(t) || b.map(|b| b as usize) != orig.base_idx)
            {
                return Err(format!("intermediate alias {j} changed"));
            }
        }
    }
    // Tangents from the definition.
    let infos = meta["input_info"].as_array().unwrap();
    let mut want = Vec::new();
    for (i, x) in infos.iter().enumerate() {
        if x["mutation_type"] == "MUTATED_OUT_GRAPH"
            && x["mutates_data"] == true
            && x["requires_grad"] == true
        {
            want.push(json!({"kind": "input_mutation", "input": i}));
        }
    }
    for (j, o) in outs.iter().enumerate() {
        let t = o["output_type"].as_str().unwrap();
        if matches!(
            t,
            "non_alias" | "unsafe_view_alias" | "custom_function_view"
        ) && o["requires_grad"] == true
            && !o["dynamic_dims"].is_null()
        {
            want.push(json!({"kind": "user_output", "output": j}));
        }
    }
    for k in 0..p.num_intermediate_bases {
        want.push(json!({"kind": "intermediate_base", "base": k}));
    }
    if meta["traced_tangents"] != Value::from(want.clone()) {
        return Err(format!(
            "tangents {} != {}",
            meta["traced_tangents"],
            Value::from(want)
        ));
    }
    // Counts.
    let mutated = ints(&meta["mutated_inp_runtime_indices"]);
    let by_type: Vec<usize> = infos
        .iter()
        .enumerate()
        .filter(|(_, x)| x["mutation_type"] == "MUTATED_OUT_GRAPH")
        .map(|(i, _)| i)
        .collect();
    if mutated.iter().map(|&x| x as usize).collect::<Vec<_>>() != by_type {
        return Err("mutated_inp_runtime_indices".into());
    }
    let c = |k: &str| meta[k].as_u64().unwrap() as usize;
    if c("num_forward_returns") != mutated.len() + outs.len() + p.num_intermediate_bases
        || c("num_outputs") != outs.len()
        || c("num_outputs_aliased")
            != c("num_outputs_aliased_to_inputs") + c("num_outputs_aliased_to_intermediates")
        || c("num_outputs_non_aliased") + c("num_outputs_aliased") != outs.len()
        || c("num_traced_tangents") != want.len()
    {
        return Err(format!("derived counts inconsistent: {meta}"));
    }
    Ok(())
}

/// Synthetic bases: deduped inputs that share bytes, where one of their
/// storage group mutates data, end up in one base.
fn check_synthetic_bases(g: &Gen, p: &ProgramDoc, r: &Value, kept: &[usize]) -> Result<(), String> {
    let info = r["synthetic_bases"]["synthetic_base_info"].clone();
    let inner_of = |d: usize| -> (bool, i64) {
        match &info {
            Value::Array(a) => match &a[d] {
                Value::Object(o) => (true, o["base"].as_i64().unwrap()),
                v => (false, v.as_i64().unwrap()),
            },
            _ => (false, d as i64),
        }
    };
    for (da, &a) in kept.iter().enumerate() {
        for (db, &b) in kept.iter().enumerate().skip(da + 1) {
            let (Some(ta), Some(tb)) = (&g.tensors[a], &g.tensors[b]) else {
                continue;
            };
            if ta.1 != tb.1 || ta.2.is_disjoint(&tb.2) {
                continue;
            }
            let data_mut = |i: usize| p.inputs[i].mutates_data;
            if !(data_mut(a) || data_mut(b)) {
                continue;
            }
            let (ma, ba) = inner_of(da);
            let (mb, bb) = inner_of(db);
            if !(ma && mb && ba == bb) {
                return Err(format!("inputs {a} and {b} share bytes and one is mutated, but are not one synthetic base"));
            }
        }
    }
    Ok(())
}

fn cases() -> u32 {
    crate::common::env_count("SYMALIAS_AOT_CASES", 1000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_programs_keep_the_metadata_invariants(seed in any::<u64>()) {
        let g = generate(seed, false);
        let mut analyzer = Analyzer::default();
        if let Err(e) = check(&g, &mut analyzer) {
            prop_assert!(false, "{e}\\n{}", serde_json::to_string(&g.program).unwrap());
        }
    }
}
