//! Expression text: parsing never panics; whatever parses prints to text
//! that parses back to the same expression, and printing is a fixpoint.
#![no_main]

use libfuzzer_sys::fuzz_target;
use symalias::expr::{parse, ExprPool};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut pool = ExprPool::new();
    let Ok(e) = parse(&mut pool, text) else {
        return;
    };
    let printed = pool.display(e).to_string();
    let back = parse(&mut pool, &printed)
        .unwrap_or_else(|err| panic!("printed form does not parse: {printed:?}: {err}"));
    let again = pool.display(back).to_string();
    assert_eq!(printed, again, "print is not a fixpoint for {text:?}");
    // Evaluation at small values never panics.
    let _ = pool.eval(e, &|_| Some(3));
});
