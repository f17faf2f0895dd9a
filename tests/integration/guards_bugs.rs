//! The holes in PyTorch's guard promise (docs/PYTORCH.md §4.4, §7.2) as
//! scenarios: for each, a family of later calls around the compiled one, and
//! the guard list must fail on exactly the calls whose analysis decisions
//! differ (re-running the whole analysis on the concrete call), in
//! particular on the call where PyTorch 2.9.1 silently reuses a wrong graph.

use crate::common::calls::{concrete_call, decisions, hints};
use crate::common::programs;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use symalias::analysis::Analyzer as Solver;
use symalias::guards::check::{Call, GuardSet};

/// Changes input `i`'s concrete tensor.
type Edit = Box<dyn FnMut(usize, &mut Value)>;
/// A later call: name, symbol values, edit.
type Later = (String, BTreeMap<String, i64>, Edit);

struct Compiled {
    doc: Value,
    guards: GuardSet,
    result: Value,
}

fn compile(doc: Value, solver: &mut Solver) -> Compiled {
    let result = crate::common::analyze_json(&doc, solver).unwrap();
    assert_eq!(result["errors"], json!([]), "{}", result["errors"]);
    Compiled {
        doc,
        guards: crate::common::guard_set(&result),
        result,
    }
}

fn program(file: &str) -> Value {
    programs().into_iter().find(|(f, _)| f == file).unwrap().1
}

/// For a later call (the program at `at`, input tensors edited): do the
/// guards pass, and are the decisions the compiled ones? Also the failing
/// guard's text.
fn call(
    c: &Compiled,
    at: &BTreeMap<String, i64>,
    edit: &mut dyn FnMut(usize, &mut Value),
    solver: &mut Solver,
) -> (bool, bool, String) {
    let (call, concrete) = concrete_call(&c.doc, at, edit).expect("a valid call");
    let call: Call = serde_json::from_value(call).unwrap();
    let outcome = c.guards.check(&call).unwrap();
    let now = crate::common::analyze_json(&concrete, solver).unwrap();
    let same = decisions(&now, at) == decisions(&c.result, at);
    let failed = outcome
        .failure()
        .map(|f| f.guard.clone())
        .unwrap_or_default();
    (outcome.passed(), same, failed)
}

/// Asserts `pass == same` on every call of a family; returns how many passed.
fn exactly(c: &Compiled, family: Vec<Later>, solver: &mut Solver) -> usize {
    let mut passed = 0;
    for (name, at, mut edit) in family {
        let (pass, same, failed) = call(c, &at, &mut *edit, solver);
        assert_eq!(
            pass,
            same,
            "{name}: guards {} but the decisions {} ({failed})",
            if pass { "pass" } else { "fail" },
            if same { "stay" } else { "change" }
        );
        passed += pass as usize;
    }
    passed
}

fn set_offset(input: usize, off: i64) -> Edit {
    Box::new(move |i, t| {
        if i == input {
            t["storage_offset"] = off.into();
        }
    })
}

/// B4 (§6 #30 with static shapes): call 1 `(x[:5], x[4:9], x[10:15], x[15:])`,
/// call 2 moves c to `x[8:13]`, so the overlapping set becomes {a, b, c}.
/// PyTorch 2.9.1 emits no guard for static shapes and reuses the graph
/// (wrong result); here the layouts of the synthetic base's members are
/// guarded and call 2 fails. Every offset of c from 0 to 20: the guards
/// fail exactly where the decisions change.
#[test]
fn b4_static_overlap_partition_change_is_caught() {
    let mut solver = Solver::default();
    let c = compile(
        program("30-different-overlapping-set-static.json"),
        &mut solver,
    );
    let at = BTreeMap::new();
    let (pass, same, _) = call(&c, &at, &mut |_, _| {}, &mut solver);
    assert!(pass && same, "call 1 again");
    let (pass, same, failed) = call(&c, &at, &mut *set_offset(2, 8), &mut solver);
    assert!(!pass && !same, "call 2 must fail");
    assert!(failed.starts_with("same_storage_and_layout("), "{failed}");
    let family = (0..=20)
        .map(|off| (format!("c at {off}"), at.clone(), set_offset(2, off)))
        .collect();
    assert_eq!(exactly(&c, family, &mut solver), 1, "only offset 10 passes");
}

/// B6 (§7.2): a synthetic base regenerates its members with the layouts baked
/// into the graph. #41's b = (4,4),(9,1) at offset 9 overlaps a; at offsets
/// 10..=12 the overlap partition is the same (PyTorch's StorageOverlap guard
/// passes) but the regenerated view would be the old one: wrong result.
#[test]
fn b6_same_partition_other_offset_is_caught() {
    let mut solver = Solver::default();
    let c = compile(program("41-b0-overlap-missed-by-pytorch.json"), &mut solver);
    let at = BTreeMap::new();
    let (pass, same, failed) = call(&c, &at, &mut *set_offset(1, 10), &mut solver);
    assert!(!pass && !same, "same partition, other offset");
    assert!(failed.starts_with("same_storage_and_layout("), "{failed}");
    let family = (0..=40)
        .map(|off| (format!("b at {off}"), at.clone(), set_offset(1, off)))
        .collect();
    assert_eq!(exactly(&c, family, &mut solver), 1, "only offset 9 passes");
}

/// B7 (§7.2): compiled with a and b sharing one storage, called with b in a
/// storage of its own (a copy): no group, no synthetic base. PyTorch 2.9.1's
/// runtime wrapper asserts; here the storage partition guard fails.
#[test]
fn b7_storage_identity_change_is_caught() {
    let mut solver = Solver::default();
    let c = compile(program("41-b0-overlap-missed-by-pytorch.json"), &mut solver);
    let at = BTreeMap::new();
    let mut split = |i: usize, t: &mut Value| {
        if i == 1 {
            t["storage"] = "copy".into();
        }
    };
    let (pass, same, failed) = call(&c, &at, &mut split, &mut solver);
    assert!(!pass && !same);
    assert!(failed.starts_with("storage_partition("), "{failed}");

    // #29 with a dynamic size: each input split off in turn.
    let c = compile(
        program("29-overlapping-with-mutation-recompile.json"),
        &mut solver,
    );
    let at = hints(&c.doc);
    let family = (0..3)
        .map(|k| -> Later {
            (
                format!("args[{k}] split off"),
                at.clone(),
                Box::new(move |i, t| {
                    if i == k {
                        t["storage"] = "copy".into();
                    }
                }),
            )
        })
        .collect();
    assert_eq!(exactly(&c, family, &mut solver), 0);
}

/// #139789 / B8: compiled with two mutated inputs in distinct storages, called
/// with b a view of a's storage. PyTorch 2.9.1 has no guard (wrong result);
/// here the storage partition fails for every such call, and passes for
/// fresh distinct storages and objects.
#[test]
fn b8_distinct_then_aliased_is_caught() {
    let mut solver = Solver::default();
    let doc = json!({
        "id": "139789",
        "symbols": {"s0": {"hint": 10, "min": 2, "source": "L['a'].size()[0]"}},
        "options": {"is_train": false},
        "inputs": [
            {"source": "L['a']", "tensor": {"object": "a", "storage": "X", "sizes": ["s0"], "strides": [1]}, "mutates_data": true},
            {"source": "L['b']", "tensor": {"object": "b", "storage": "Y", "sizes": ["s0"], "strides": [1]}, "mutates_data": true}
        ],
        "outputs": []
    });
    let c = compile(doc, &mut solver);
    let at = hints(&c.doc);
    let mut aliased = |i: usize, t: &mut Value| {
        if i == 1 {
            t["storage"] = "X".into();
            t["storage_offset"] = 5.into();
        }
    };
    let (pass, same, failed) = call(&c, &at, &mut aliased, &mut solver);
    assert!(!pass && !same, "b now overlaps a");
    assert!(failed.starts_with("storage_partition("), "{failed}");
    let mut family: Vec<Later> = Vec::new();
    for n in [2, 10, 50] {
        let at = BTreeMap::from([("s0".to_string(), n)]);
        for off in [0, 5, n, n + 3] {
            family.push((
                format!("s0={n}, b in X at {off}"),
                at.clone(),
                Box::new(move |i, t| {
                    if i == 1 {
                        t["storage"] = "X".into();
                        t["storage_offset"] = off.into();
                    }
                }),
            ));
        }
        family.push((
            format!("s0={n}, fresh objects and storages"),
            at.clone(),
            Box::new(|i, t| {
                t["object"] = format!("new{i}").into();
                t["storage"] = format!("S{i}").into();
            }),
        ));
        family.push((
            format!("s0={n}, b is a"),
            at.clone(),
            Box::new(|i, t| {
                if i == 1 {
                    t["object"] = "a".into();
                    t["storage"] = "X".into();
                }
            }),
        ));
    }
    assert_eq!(
        exactly(&c, family, &mut solver),
        3,
        "only fresh storages pass"
    );
}

/// Merging by components (`"merge": "components"`) depends on how the
/// overlapping inputs connect, not only on which overlap: with a = x[:s0]
/// mutated, d = x[:2], b = x[4:6], c = x[5:7], every input overlaps another
/// for every s0, but b and c join a's component only when s0 >= 5. Found by
/// the random-program harness; the components are part of the guard. With
/// whole-group merging the same family passes everywhere (same decisions).
#[test]
fn components_merge_is_guarded_by_the_overlap_graph() {
    let mut solver = Solver::default();
    let view = |o: &str, size: Value, off: i64, mutated: bool| {
        json!({"source": format!("L['{o}']"), "tensor": {"object": o, "storage": "X", "base": "x",
               "sizes": [size], "strides": [1], "storage_offset": off}, "mutates_data": mutated})
    };
    for (merge, passing) in [("components", 6), ("group", 9)] {
        let doc = json!({
            "id": format!("components-{merge}"),
            "symbols": {"s0": {"hint": 8, "min": 2, "max": 10, "source": "L['a'].size()[0]"}},
            "options": {"is_train": false, "merge": merge},
            "inputs": [view("a", json!("s0"), 0, true), view("d", json!(2), 0, false),
                       view("b", json!(2), 4, false), view("c", json!(2), 5, false)],
            "outputs": []
        });
        let c = compile(doc, &mut solver);
        let family = (2..=10)
            .map(|n| -> Later {
                (
                    format!("{merge}, s0 = {n}"),
                    BTreeMap::from([("s0".to_string(), n)]),
                    Box::new(|_, _| {}),
                )
            })
            .collect();
        assert_eq!(exactly(&c, family, &mut solver), passing, "{merge}");
    }
}
