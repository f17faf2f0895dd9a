//! The C example (`capi/examples/split.c`) compiled with the system `cc`
//! against the built library and run: what a C compiler embedding symalias
//! sees.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn the_c_example_builds_and_answers() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // target/<profile>/deps/<this test> -> target/<profile>, where the
    // library's cdylib is.
    let exe = std::env::current_exe().unwrap();
    let lib_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    // `cargo test` builds the rlib the tests link, not the cdylib: built
    // here, in the same profile (a no-op when it is fresh).
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
    let out = std::env::temp_dir().join(format!("symalias-split-{}", std::process::id()));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("examples/split.c"))
        .arg("-L")
        .arg(&lib_dir)
        .arg("-lsymalias_capi")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("a C compiler (cc)");
    assert!(status.success(), "the C example does not build");
    // Under valgrind where there is one: no byte definitely lost, no error.
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
        eprintln!("no valgrind: the C example runs without a leak check");
        Command::new(&out).output().unwrap()
    };
    let _ = std::fs::remove_file(&out);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
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
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
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
    let out = std::env::temp_dir().join(format!("symalias-bufferize-{}", std::process::id()));
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let status = Command::new(cxx)
        .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("examples/bufferize.cpp"))
        .arg("-L")
        .arg(&lib_dir)
        .arg("-lsymalias_capi")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("a C++ compiler (c++)");
    assert!(status.success(), "the C++ example does not build");
    let run = Command::new(&out).output().unwrap();
    let _ = std::fs::remove_file(&out);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    assert!(
        stdout.contains("write row p, read rows [0, p): in place"),
        "{stdout}"
    );
    assert!(
        stdout.contains("write row p, read rows [0, p + 1): copy"),
        "{stdout}"
    );
}
