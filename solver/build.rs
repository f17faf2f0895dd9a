//! Finds libz3 at run time where the build linked it: an rpath to
//! `Z3_LIBRARY_PATH_OVERRIDE` (the `z3-solver` wheel's `lib/`, set in
//! `.cargo/config.toml`) on the package's own binaries, tests, examples and
//! benches. Also the build script of the `symalias` and `symalias-fuzz`
//! packages (their manifests' `build` key). The Python extension has its
//! own (`python/build.rs`: an rpath relative to the installed module).
fn main() {
    println!("cargo:rerun-if-env-changed=Z3_LIBRARY_PATH_OVERRIDE");
    if let Some(dir) = std::env::var_os("Z3_LIBRARY_PATH_OVERRIDE") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
    }
}
