use std::time::Instant;
use symalias::io::{load_env, load_expr, ExprCase};
use symalias::simplify::{simplify, Limits, SimplifyOptions};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let iters: usize = std::env::args().nth(2).map_or(8, |v| v.parse().unwrap());
    let text = std::fs::read_to_string(path).unwrap();
    let mut ratios = vec![];
    let mut times = vec![];
    let (mut smaller, mut lt_torch, mut gt_sympy) = (0, 0, 0);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let case: ExprCase = serde_json::from_value(v.clone()).unwrap();
        let mut loaded = load_env(&case.symbols, &case.assumptions).unwrap();
        let e = load_expr(&mut loaded, "expr", &case.expr, false).unwrap();
        let env = loaded.env.clone();
        let opts = SimplifyOptions {
            limits: Limits {
                iterations: iters,
                ..Limits::default()
            },
            explain: false,
        };
        let out = simplify(&mut loaded.pool, &env, e, &opts);
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            simplify(&mut loaded.pool, &env, e, &opts);
            best = best.min(t.elapsed().as_secs_f64() * 1e6);
        }
        times.push(best);
        if out.size_out < out.size_in {
            smaller += 1;
        }
        if (out.size_out as i64) < v["ref"]["torch"]["size"].as_i64().unwrap() {
            lt_torch += 1;
        }
        if let Some(s) = v["ref"]["sympy"]["size"].as_i64() {
            if out.size_out as i64 > s {
                gt_sympy += 1;
            }
        }
        if let Some(m) = v["ref"]["sympy"]["micros"].as_f64() {
            ratios.push(m / best);
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    ratios.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("iters {iters}: median {:.1} us, p90 {:.1}; ratio vs sympy median {:.1}; smaller {smaller}, < torch {lt_torch}, > sympy {gt_sympy}", times[times.len() / 2], times[times.len() * 9 / 10], ratios[ratios.len()/2]);
}
