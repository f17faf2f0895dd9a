//! The extension module links libz3 by name (`libz3.so.<major.minor>`, the
//! z3-solver wheel `.ci/setup` unpacks into `.deps/`); the wheel that ships
//! carries that library itself: `.ci/wheel` runs `auditwheel repair`, which
//! copies it into `symalias.libs/` under a hashed name and points the
//! module's rpath there. No z3-solver package and no system libz3 is used.
//!
//! An editable install (`maturin develop`, the quick loop `.ci/quick`)
//! leaves the module in the checkout (`python/symalias/`):
//! `SYMALIAS_DEV_Z3_LIB`, when set, adds that directory (a z3-solver's
//! `z3/lib` of the same version) as the rpath. Wheels are built without it.
fn main() {
    println!("cargo:rerun-if-env-changed=SYMALIAS_DEV_Z3_LIB");
    if let Some(dir) = std::env::var_os("SYMALIAS_DEV_Z3_LIB") {
        println!(
            "cargo:rustc-link-arg-cdylib=-Wl,-rpath,{}",
            dir.to_string_lossy()
        );
    }
}
