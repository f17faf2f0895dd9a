//! The layer order ARCHITECTURE.md states ("Data flow") is the order the
//! imports have: a module of `src/` uses only modules of lower layers
//! (`crate::<module>` paths, read from the sources).

use std::path::{Path, PathBuf};

/// The library's modules, lowest layer first; modules of one layer do not
/// use each other.
const LAYERS: &[&[&str]] = &[
    &["expr"],
    &["env"],
    &["layout", "simplify"],
    &["overlap"],
    &["aot", "guards"],
    &["analysis"],
    &["io"],
    &["picture"],
    &["cli"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The modules `text` names as `crate::<module>`.
fn uses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        out.push(name);
    }
    out
}

/// The layer violations in the sources under `src`.
fn violations(src: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    for (i, layer) in LAYERS.iter().enumerate() {
        for module in *layer {
            let mut files = Vec::new();
            rust_files(&src.join(module), &mut files);
            assert!(!files.is_empty(), "src/{module} has no sources");
            for f in files {
                let text = std::fs::read_to_string(&f).expect("read source");
                for used in uses(&text) {
                    match layer_of(&used) {
                        Some(j) if j >= i && used != *module => bad.push(format!(
                            "{} uses crate::{used} (layer {j}, not below {i})",
                            f.display()
                        )),
                        _ => {}
                    }
                }
            }
        }
    }
    bad
}

#[test]
fn every_module_uses_only_lower_layers() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    assert_eq!(violations(&src), Vec::<String>::new());
}

#[test]
fn every_module_of_src_has_a_layer() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    for entry in std::fs::read_dir(src).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            assert!(layer_of(&name).is_some(), "src/{name} is in no layer");
        }
    }
}

#[test]
fn an_upward_use_is_found() {
    // The scan itself: a module that uses a higher layer is reported.
    let dir = std::env::temp_dir().join(format!("symalias-layers-{}", std::process::id()));
    for module in LAYERS.iter().flat_map(|l| l.iter()) {
        std::fs::create_dir_all(dir.join(module)).unwrap();
        std::fs::write(
            dir.join(module).join("mod.rs"),
            "use crate::expr::ExprPool;\n",
        )
        .unwrap();
    }
    assert!(violations(&dir).is_empty());
    std::fs::write(
        dir.join("overlap").join("mod.rs"),
        "use crate::analysis::Scope;\n",
    )
    .unwrap();
    let found = violations(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("crate::analysis"));
}
