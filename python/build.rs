//! The extension module `symalias/_native*.so` finds libz3 in the
//! `z3-solver` package it depends on: installed beside it in the same
//! `site-packages` (`z3/lib/libz3.so.<major.minor>`), whatever the venv's
//! path. No system libz3 is needed or used.
//!
//! An editable install (`maturin develop`, the quick loop `.ci/quick`)
//! leaves the module in the checkout (`python/symalias/`), where no `z3/`
//! is beside it: `SYMALIAS_DEV_Z3_LIB`, when set, adds that directory (the
//! venv's `z3/lib`) after the relative rpath. Wheels are built without it.
fn main() {
    println!("cargo:rustc-link-arg-cdylib=-Wl,-rpath,$ORIGIN/../z3/lib");
    println!("cargo:rerun-if-env-changed=SYMALIAS_DEV_Z3_LIB");
    if let Some(dir) = std::env::var_os("SYMALIAS_DEV_Z3_LIB") {
        println!(
            "cargo:rustc-link-arg-cdylib=-Wl,-rpath,{}",
            dir.to_string_lossy()
        );
    }
}
