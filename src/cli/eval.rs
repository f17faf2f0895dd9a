//! `symalias eval`: evaluate one expression at given symbol values.

use super::EXIT_BAD_INPUT;
use crate::expr::{parse, ExprPool};
use hashbrown::HashMap;

/// Arguments of `symalias eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The expression, e.g. `Mod(s0, 3) + (s1//2)`.
    pub expr: String,
    /// Symbol values, e.g. `s0=4,s1=8`.
    #[arg(long, default_value = "")]
    pub at: String,
}

fn parse_bindings(text: &str) -> Result<HashMap<String, i64>, String> {
    let mut out = HashMap::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part
            .split_once('=')
            .ok_or_else(|| format!("--at: `{part}` is not of the form name=value"))?;
        let (name, value) = (name.trim(), value.trim());
        let v: i64 = value
            .parse()
            .map_err(|_| format!("--at: value of `{name}` (`{value}`) is not a 64-bit integer"))?;
        if out.insert(name.to_string(), v).is_some() {
            return Err(format!("--at: `{name}` is given twice"));
        }
    }
    Ok(out)
}

/// Runs `symalias eval`; returns the exit code.
pub fn run(args: EvalArgs) -> u8 {
    let bindings = match parse_bindings(&args.at) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let mut pool = ExprPool::new();
    let e = match parse(&mut pool, &args.expr) {
        Ok(e) => e,
        Err(err) => {
            eprintln!(
                "error: expression `{}`: {err}",
                crate::io::abbrev(&args.expr)
            );
            return EXIT_BAD_INPUT;
        }
    };
    match pool.eval(e, &|s| bindings.get(pool.symbol_name(s)).copied()) {
        Ok(v) => {
            println!("{v}");
            0
        }
        Err(err) => {
            eprintln!("error: {err}");
            EXIT_BAD_INPUT
        }
    }
}
