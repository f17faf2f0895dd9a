//! Concrete calls of §5 programs and the decisions a compiled graph depends
//! on: shared by the guard soundness harness and the bug scenarios.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use symalias::expr::{parse, ExprPool};

/// Evaluates a field (integer or expression) at the symbol values.
pub fn value(field: &Value, at: &BTreeMap<String, i64>) -> Option<i64> {
    match field {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => {
            let mut pool = ExprPool::new();
            let e = parse(&mut pool, s).ok()?;
            pool.eval_int(e, &|sym| at.get(pool.symbol_name(sym)).copied())
                .ok()
        }
        _ => Some(0),
    }
}

/// The program's hints.
pub fn hints(p: &Value) -> BTreeMap<String, i64> {
    p["symbols"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, s)| Some((k.clone(), s["hint"].as_i64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// A concrete call of program `p` at the symbol values `at`, after `edit`
/// changed input `i`'s concrete tensor (`object`, `storage`, `sizes`,
/// `strides`, `storage_offset`). Returns the §6 call and the same call as a
/// program without symbols (to re-run the whole analysis on it); `None` when
/// a field is negative or cannot be evaluated.
pub fn concrete_call(
    p: &Value,
    at: &BTreeMap<String, i64>,
    edit: &mut dyn FnMut(usize, &mut Value),
) -> Option<(Value, Value)> {
    let mut inputs = Vec::new();
    let mut concrete = p.clone();
    concrete["symbols"] = json!({});
    concrete["assumptions"] = json!([]);
    for (i, x) in p["inputs"].as_array().unwrap().iter().enumerate() {
        let src = x["source"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("inputs[{i}]"));
        let t = &x["tensor"];
        if t.is_null() {
            inputs.push(json!({"source": src, "value": 0}));
            continue;
        }
        let eval = |key: &str| -> Option<Vec<i64>> {
            t[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| value(f, at))
                .collect()
        };
        let mut ct = json!({
            "object": t["object"], "storage": t["storage"],
            "sizes": eval("sizes")?, "strides": eval("strides")?,
            "storage_offset": value(&t["storage_offset"], at)?,
            "itemsize": t["itemsize"].as_i64().unwrap_or(1),
        });
        edit(i, &mut ct);
        let fields = ct["sizes"]
            .as_array()
            .unwrap()
            .iter()
            .chain(ct["strides"].as_array().unwrap())
            .chain([&ct["storage_offset"]]);
        if fields.into_iter().any(|v| v.as_i64().is_none_or(|v| v < 0)) {
            return None;
        }
        inputs.push(json!({"source": src, "tensor": ct}));
        let pt = &mut concrete["inputs"][i]["tensor"];
        for key in ["object", "storage", "sizes", "strides", "storage_offset"] {
            pt[key] = ct[key].clone();
        }
        if !pt["base"].is_null() && pt["storage"] != t["storage"] {
            pt["base"] = Value::Null; // a split-off copy is not a view of the old base
        }
    }
    // Sources that symbols read (e.g. `L['x']`) but that are not inputs.
    for (name, s) in p["symbols"].as_object().cloned().unwrap_or_default() {
        if let Some(src) = s["source"].as_str() {
            if let Some(base) = src.strip_suffix(".size()[0]") {
                if !inputs.iter().any(|x| x["source"] == base) {
                    inputs.push(
                        json!({"source": base, "tensor": {"object": "extra", "storage": "extra",
                        "sizes": [at[&name]], "strides": [1], "storage_offset": 0}}),
                    );
                }
            }
        }
    }
    Some((json!({"inputs": inputs}), concrete))
}

/// The decisions a compiled graph depends on (dedupe, each asked group's
/// overlap partition, synthetic-base membership with the layouts of the
/// views regenerated from a base, inner metadata, errors), with expressions
/// evaluated at the call's symbol values `at`.
pub fn decisions(r: &Value, at: &BTreeMap<String, i64>) -> Value {
    let parts: Vec<Value> = r["overlap"]
        .as_array()
        .map(|gs| {
            gs.iter()
                .map(|g| json!([g["inputs"], g["result"]["overlapping"]]))
                .collect()
        })
        .unwrap_or_default();
    let vals = |f: &Value| -> Value {
        match f {
            Value::Array(xs) => xs.iter().map(|x| json!(value(x, at))).collect(),
            x => json!(value(x, at)),
        }
    };
    let sbi: Value = match &r["synthetic_bases"]["synthetic_base_info"] {
        Value::Array(a) => a
            .iter()
            .map(|e| {
                e.get("base").map_or(json!(["inner", e]), |b| {
                    json!([
                        "view",
                        b,
                        vals(&e["sizes"]),
                        vals(&e["strides"]),
                        vals(&e["storage_offset"])
                    ])
                })
            })
            .collect(),
        v => v.clone(),
    };
    let meta = &r["meta"];
    let inputs: Vec<Value> = meta["input_info"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| {
                    json!([
                        x["mutates_data"],
                        x["mutates_metadata"],
                        x["requires_grad"],
                        x["mutation_type"]
                    ])
                })
                .collect()
        })
        .unwrap_or_default();
    let outputs: Vec<Value> = meta["output_info"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|o| json!([o["output_type"], o["base_idx"]]))
                .collect()
        })
        .unwrap_or_default();
    // `leafify` changes neither the graph nor the metadata: same as `none`.
    let mut dedupe = r["dedupe"].clone();
    if dedupe["strategy"] == "leafify" {
        dedupe["strategy"] = "none".into();
    }
    json!({"dedupe": dedupe, "overlap": parts, "sbi": sbi, "inputs": inputs, "outputs": outputs, "errors": r["errors"]})
}
