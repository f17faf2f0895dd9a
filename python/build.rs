//! The extension module `symalias/_native*.so` finds libz3 in the
//! `z3-solver` package it depends on: installed beside it in the same
//! `site-packages` (`z3/lib/libz3.so.<major.minor>`), whatever the venv's
//! path. No system libz3 is needed or used.
fn main() {
    println!("cargo:rustc-link-arg-cdylib=-Wl,-rpath,$ORIGIN/../z3/lib");
}
