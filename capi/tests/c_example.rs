//! The examples compiled with the system's C and C++ compilers against the
//! built library and run: what a compiler embedding symalias sees.

use std::path::PathBuf;
use std::process::Command;

/// Builds `capi/examples/<source>` with `compiler` (`$CC`/`$CXX` or the
/// default) and `std`, links the library, and runs it -- under valgrind
/// where there is one (a definitely lost byte is an error). Its stdout.
fn build_and_run(source: &str, compiler_var: &str, default: &str, std: &str) -> String {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // target/<profile>/deps/<this test> -> target/<profile>, where the
    // library's cdylib is. `cargo test` builds the rlib the tests link, not
    // the cdylib: built here, in the same profile (a no-op when fresh).
    let exe = std::env::current_exe().unwrap();
    let lib_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    let mut build = Command::new(env!("CARGO"));
    build.args(["build", "--quiet", "-p", "symalias-capi", "--lib"]);
    if !cfg!(debug_assertions) {
        build.arg("--release");
    }
    assert!(
        build.status().expect("cargo").success(),
        "the library does not build"
    );
    assert!(lib_dir.join("libsymalias_capi.so").exists(), "{lib_dir:?}");
    let out = std::env::temp_dir().join(format!("symalias-{source}-{}", std::process::id()));
    let compiler = std::env::var(compiler_var).unwrap_or_else(|_| default.into());
    let status = Command::new(&compiler)
        .args([&format!("-std={std}"), "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("examples").join(source))
        .arg("-L")
        .arg(&lib_dir)
        .arg("-lsymalias_capi")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(status.success(), "{source} does not build");
    let valgrind = Command::new("valgrind").arg("--version").output().is_ok();
    let run = if valgrind {
        Command::new("valgrind")
            .args([
                "-q",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite",
                "--error-exitcode=9",
            ])
            .arg(&out)
            .output()
            .unwrap()
    } else {
        eprintln!("no valgrind: {source} runs without a leak check");
        Command::new(&out).output().unwrap()
    };
    let _ = std::fs::remove_file(&out);
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

#[test]
fn the_c_example_builds_and_answers() {
    let stdout = build_and_run("split.c", "CC", "cc", "c11");
    assert!(
        stdout.contains("split: at the hints disjoint, for all n disjoint, guards 0"),
        "{stdout}"
    );
    assert!(stdout.contains("rows: overlap at byte 36"), "{stdout}");
    assert!(
        stdout.contains("bad input: status 2, ") && stdout.contains("tensors[2]"),
        "{stdout}"
    );
}

#[test]
fn the_cpp_bufferization_example_builds_and_decides() {
    let stdout = build_and_run("bufferize.cpp", "CXX", "c++", "c++17");
    assert!(
        stdout.contains("write row p, read rows [0, p): in place"),
        "{stdout}"
    );
    assert!(
        stdout.contains("write row p, read rows [0, p + 1): copy"),
        "{stdout}"
    );
}
