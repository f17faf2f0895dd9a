//! The examples compiled with the system's C and C++ compilers against the
//! built library and run: what a compiler embedding symalias sees. The C
//! and C++ programs answer the golden overlap cases of `tests/data/` and
//! their answers are held against the Rust API's.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{case_file, expected_pair, expected_self, for_all, golden_cases, letter, rust_api};
use symalias_capi::SymaliasAnswer;

/// How an example runs: its source, compiler, standard, arguments.
struct Example<'a> {
    source: &'a str,
    compiler_var: &'a str,
    default: &'a str,
    std: &'a str,
    args: Vec<String>,
    /// Under valgrind where there is one (a definitely lost byte is an
    /// error); the corpus runs go without, for time.
    valgrind: bool,
}

fn c11(source: &str) -> Example<'_> {
    Example {
        source,
        compiler_var: "CC",
        default: "cc",
        std: "c11",
        args: vec![],
        valgrind: true,
    }
}

fn cxx17(source: &str) -> Example<'_> {
    Example {
        source,
        compiler_var: "CXX",
        default: "c++",
        std: "c++17",
        args: vec![],
        valgrind: true,
    }
}

/// Builds `capi/examples/<source>` with its compiler (`$CC`/`$CXX` or the
/// default) and standard, links the library, and runs it. Its stdout.
fn build_and_run(example: Example<'_>) -> String {
    let Example {
        source,
        compiler_var,
        default,
        std,
        args,
        valgrind,
    } = example;
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
    let src = if Path::new(source).is_absolute() {
        PathBuf::from(source)
    } else {
        crate_dir.join("examples").join(source)
    };
    let name = src.file_name().unwrap().to_string_lossy().into_owned();
    // One file per build: two tests build the same example at once (one
    // writing it while the other runs it gave "Text file busy").
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let nth = BUILDS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let out = std::env::temp_dir().join(format!("symalias-{name}-{}-{nth}", std::process::id()));
    let compiler = std::env::var(compiler_var).unwrap_or_else(|_| default.into());
    let status = Command::new(&compiler)
        .args([&format!("-std={std}"), "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir.join("include"))
        .arg(&src)
        .arg("-L")
        .arg(&lib_dir)
        .arg("-lsymalias_capi")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(status.success(), "{source} does not build");
    let valgrind = valgrind && Command::new("valgrind").arg("--version").output().is_ok();
    let run = if valgrind {
        Command::new("valgrind")
            .args([
                "-q",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite",
                "--error-exitcode=9",
            ])
            .arg(&out)
            .args(&args)
            .output()
            .unwrap()
    } else {
        Command::new(&out).args(&args).output().unwrap()
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
    let stdout = build_and_run(c11("split.c"));
    assert!(
        stdout.contains("split: at the hints disjoint, for all n disjoint, guards 6"),
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
    let stdout = build_and_run(cxx17("bufferize.cpp"));
    assert!(
        stdout.contains("write row p, read rows [0, p): in place"),
        "{stdout}"
    );
    assert!(
        stdout.contains("write row p, read rows [0, p + 1): copy"),
        "{stdout}"
    );
}

/// The golden cases in the examples' format, in a file of its own.
fn golden_file(name: &str) -> (PathBuf, Vec<symalias::io::OverlapCase>) {
    let (cases, _) = golden_cases();
    let path = std::env::temp_dir().join(format!("symalias-{name}-{}.tsv", std::process::id()));
    std::fs::write(&path, case_file(&cases)).unwrap();
    (path, cases)
}

/// `want` and `got` line by line: the first difference, named.
fn same_lines(want: &str, got: &str, file: &Path) {
    let _ = std::fs::remove_file(file);
    for (k, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        assert_eq!(
            g, w,
            "line {k}: the example (left) and the Rust API (right) differ"
        );
    }
    assert_eq!(
        got.lines().count(),
        want.lines().count(),
        "line counts differ"
    );
}

#[test]
fn the_c_program_answers_the_golden_cases_as_the_rust_api() {
    let (file, cases) = golden_file("corpus-c");
    let mut want = String::new();
    let (mut views, mut pairs) = (0, 0);
    for case in &cases {
        let id = &case.id;
        let Some(r) = rust_api(case) else {
            want += &format!("{id}\terror\t2\n");
            continue;
        };
        let n = case.tensors.len();
        for a in 0..n {
            let over = r.overlapping.contains(&a);
            let side = if over {
                SymaliasAnswer::SymaliasOverlap
            } else {
                SymaliasAnswer::SymaliasDisjoint
            };
            let (h, all) = expected_self(&r, a);
            want += &format!(
                "{id}\tview\t{a}\t{}\t{}\n",
                i32::from(over),
                letter(for_all(&r, side))
            );
            want += &format!("{id}\tself\t{a}\t{}\t{}\n", letter(h), letter(all));
            views += 1;
        }
        for a in 0..n {
            for b in (a + 1..n).filter(|_| n <= 12) {
                let (h, all, at) = expected_pair(&r, a, b);
                want += &format!(
                    "{id}\tpair\t{a}\t{b}\t{}\t{}\t{at}\n",
                    letter(h),
                    letter(all)
                );
                pairs += 1;
            }
        }
        want += &format!("{id}\tguards\t{}\n", r.guards.len());
    }
    let mut example = c11("corpus.c");
    example.args = vec![file.display().to_string()];
    example.valgrind = false;
    let got = build_and_run(example);
    same_lines(&want, &got, &file);
    eprintln!(
        "{} cases, {views} views, {pairs} pairs: the C program = the Rust API",
        cases.len()
    );
    assert!(
        cases.len() >= 500 && pairs >= 5_000,
        "{} cases, {pairs} pairs",
        cases.len()
    );
}

#[test]
fn the_cpp_pass_answers_the_golden_pairs_as_the_rust_api() {
    let (file, cases) = golden_file("pairs-cpp");
    let mut want = String::new();
    let mut answers = BTreeMap::new();
    for case in &cases {
        let [v, w] = &case.tensors[..] else { continue };
        if v.itemsize != w.itemsize {
            continue;
        }
        // A conflict for all shapes, as the pass reads it: the pair's answer
        // for every allowed shape (a refused case: unknown).
        let all = rust_api(case).map_or(SymaliasAnswer::SymaliasUnknown, |r| {
            expected_pair(&r, 0, 1).1
        });
        want += &format!("{}\tsubset\t{}\n", case.id, letter(all));
        *answers.entry(letter(all)).or_insert(0) += 1;
    }
    let mut example = cxx17("bufferize.cpp");
    example.args = vec!["--pairs".into(), file.display().to_string()];
    example.valgrind = false;
    let got = build_and_run(example);
    same_lines(&want, &got, &file);
    eprintln!("subset conflicts from C++ = the Rust API's pairs: {answers:?}");
    assert!(
        answers.len() == 3 && answers.values().sum::<i32>() >= 150,
        "{answers:?}"
    );
}

/// The guide's and the README's `c` blocks: each, inside a `main` with
/// `<stdint.h>`, `<stdio.h>` and `"symalias.h"` included, builds
/// warning-free, runs without a leak, and prints the `text` block that
/// follows it on its page.
#[test]
fn the_guides_c_blocks_build_and_print_what_the_page_says() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut built = 0;
    for page in ["README.md", "docs/c.md"] {
        let text = std::fs::read_to_string(root.join(page)).unwrap();
        for (k, (code, shown)) in c_blocks(&text).into_iter().enumerate() {
            let src = std::env::temp_dir().join(format!(
                "symalias-guide-{}-{k}-{}.c",
                page.replace('/', "-"),
                std::process::id()
            ));
            let program = format!(
                "#include <stdint.h>\n#include <stdio.h>\n#include \"symalias.h\"\n\nint main(void) {{\n{code}  return 0;\n}}\n"
            );
            std::fs::write(&src, program).unwrap();
            let stdout = build_and_run(c11(src.to_str().unwrap()));
            let _ = std::fs::remove_file(&src);
            if let Some(shown) = shown {
                assert_eq!(stdout.trim_end(), shown.trim_end(), "{page} block {k}");
            }
            built += 1;
        }
    }
    assert!(built >= 1, "no c block found");
}

/// A page's ```` ```c ```` blocks, each with the ```` ```text ```` block
/// right after it (blank lines between), if any.
fn c_blocks(text: &str) -> Vec<(String, Option<String>)> {
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((lang.trim().to_string(), body.join("\n") + "\n"));
        } else if !line.trim().is_empty() {
            blocks.push(("".into(), String::new()));
        }
    }
    let mut out = Vec::new();
    for (i, (lang, body)) in blocks.iter().enumerate() {
        if lang == "c" {
            let shown = blocks
                .get(i + 1)
                .filter(|(l, _)| l == "text")
                .map(|(_, b)| b.clone());
            out.push((body.clone(), shown));
        }
    }
    out
}
