//! `capi/include/symalias.h` is what cbindgen makes of the code: a change to
//! the ABI that is not in the checked-in header fails here (refresh with
//! `SYMALIAS_BLESS=1 cargo test -p symalias-capi --test header`).

use std::path::PathBuf;

#[test]
fn the_header_matches_the_code() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let mut made = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut made);
    let made = String::from_utf8(made).unwrap();
    let path = crate_dir.join("include/symalias.h");
    if std::env::var_os("SYMALIAS_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &made).unwrap();
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == made,
        "capi/include/symalias.h drifted from the code: refresh with SYMALIAS_BLESS=1"
    );
}
