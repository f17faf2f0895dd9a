//! Random §5 programs, shared by the metadata property test and the guard
//! soundness harness.

use super::Rng;
use hashbrown::HashSet;
use serde_json::{json, Value};

pub const TYPES: [&str; 8] = [
    "non_alias",
    "alias_of_input",
    "is_input",
    "alias_of_intermediate_save_as_output",
    "alias_of_intermediate",
    "alias_of_intermediate_base_is_user_output",
    "unsafe_view_alias",
    "custom_function_view",
];

/// A random program and, per input, (object, storage, byte set at the hints)
/// for tensors.
pub struct Gen {
    pub program: Value,
    pub tensors: Vec<Option<(String, String, HashSet<i64>)>>,
}

/// A random program: inputs of up to 7 positions over a few objects in two
/// storages (2-D strided views), duplicates, data and metadata mutations,
/// grad flags, outputs of every type, both merge modes. With `symbolic`, the
/// row count of storage `S0`'s views is the symbol `s0` (hint: the drawn
/// row count of S0's first object, range 1..=6, read from `L['n']`); the
/// byte sets are those of the concrete program.
pub fn generate(seed: u64, symbolic: bool) -> Gen {
    let mut r = Rng(seed);
    let n = r.range(1, 7) as usize;
    let num_objects = r.range(1, n as i64) as usize;
    let mut inputs = Vec::new();
    let mut tensors = Vec::new();
    // Per object: storage, sizes, strides, offset (identical for every occurrence).
    let objects: Vec<(String, i64, i64, i64, i64, i64)> = (0..num_objects)
        .map(|o| {
            let storage = r.range(0, 1);
            (
                format!("o{o}"),
                storage,
                r.range(1, 3),
                r.range(1, 4),
                r.range(1, 3),
                r.range(0, 8),
            )
        })
        .collect();
    let train = r.range(0, 1) == 1;
    for i in 0..n {
        if r.range(0, 9) == 0 {
            inputs.push(json!({"name": format!("arg{i}_1"), "source": format!("L['i{i}']"), "kind": "other", "tensor": null}));
            tensors.push(None);
            continue;
        }
        let (obj, st, rows, cols, stride, off) =
            objects[r.range(0, num_objects as i64 - 1) as usize].clone();
        let storage = format!("S{st}");
        let mut bytes = HashSet::new();
        for a in 0..rows {
            for b in 0..cols {
                bytes.insert(off + a * (cols * stride) + b * stride);
            }
        }
        inputs.push(json!({
            "name": format!("arg{i}_1"), "source": format!("L['i{i}']"),
            "tensor": {"object": obj, "storage": storage, "base": format!("base{st}"),
                       "sizes": [rows, cols], "strides": [cols * stride, stride], "storage_offset": off,
                       "itemsize": 1, "dtype": "float32"},
            "is_leaf": false,
            "requires_grad": r.range(0, 1) == 1,
            "mutates_data": r.range(0, 2) == 0,
            "mutates_metadata": r.range(0, 5) == 0,
        }));
        tensors.push(Some((obj, storage, bytes)));
    }
    let num_bases = r.range(0, 2) as usize;
    let num_outputs = r.range(0, 4) as usize;
    let mut outputs = Vec::new();
    for _ in 0..num_outputs {
        let t = TYPES[r.range(0, 7) as usize];
        let base = match t {
            "alias_of_input" | "is_input" => Some(r.range(0, n as i64 - 1)),
            "alias_of_intermediate_save_as_output" | "alias_of_intermediate" if num_bases > 0 => {
                Some(r.range(0, num_bases as i64 - 1))
            }
            "alias_of_intermediate_base_is_user_output" => Some(r.range(0, num_outputs as i64 - 1)),
            _ => None,
        };
        let t = if base.is_none()
            && !matches!(
                t,
                "non_alias" | "unsafe_view_alias" | "custom_function_view"
            ) {
            "non_alias"
        } else {
            t
        };
        outputs.push(json!({"output_type": t, "base_idx": base, "requires_grad": r.range(0, 1) == 1,
                            "dynamic_dims": if r.range(0, 5) == 0 { Value::Null } else { json!([]) }}));
    }
    let merge = if r.range(0, 1) == 0 {
        "group"
    } else {
        "components"
    };
    let mut program = json!({
        "id": format!("random-{seed}"),
        "options": {"is_train": train, "keep_input_mutations": !train && r.range(0, 1) == 1, "merge": merge},
        "inputs": inputs, "outputs": outputs, "num_intermediate_bases": num_bases,
    });
    if symbolic {
        // Every view of S0 has the same row count as its object: one symbol
        // per program keeps it simple, so S0's objects share theirs.
        let rows0 = objects.iter().find(|o| o.1 == 0).map_or(1, |o| o.2);
        program["symbols"] = json!({"s0": {"hint": rows0, "min": 1, "max": 6, "source": "L['n']"}});
        for x in program["inputs"].as_array_mut().unwrap() {
            if x["tensor"]["storage"] == "S0" {
                x["tensor"]["sizes"][0] = json!("s0");
            }
        }
    }
    Gen { program, tensors }
}
