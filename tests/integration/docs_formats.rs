//! The examples of `docs/FORMATS.md` are true: every ```` ```json case ````
//! block, answered by `symalias overlap --no-timing`, gives the ```` ```json
//! output ```` block after it; every ```` ```json call ```` block, checked by
//! `symalias check-guards` against the last overlap output, gives its output
//! (and the exit code 0 for a pass, 1 for a fail).

/// The CLI's standard output and exit code.
fn run(args: &[&str], stdin: &str) -> (String, i32) {
    let out = crate::common::cli::run(args, stdin);
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// The fenced blocks of the document: (info string, body).
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_string(), String::new())),
            (Some(_), Some(_)) => out.push(open.take().unwrap()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

#[test]
fn every_example_of_formats_md_gives_its_output() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/FORMATS.md");
    let text = std::fs::read_to_string(path).expect("docs/FORMATS.md");
    let blocks = blocks(&text);
    let dir = std::env::temp_dir().join(format!("symalias-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let result_path = dir.join("result.json");
    let (mut cases, mut calls) = (0, 0);
    for (k, (info, body)) in blocks.iter().enumerate() {
        let (got, code) = match info.as_str() {
            "json case" => {
                cases += 1;
                let (out, code) = run(&["overlap", "--no-timing", "-"], body);
                std::fs::write(&result_path, &out).unwrap();
                (out, code)
            }
            "json call" => {
                calls += 1;
                let r = result_path.to_str().unwrap();
                run(&["check-guards", r, "-"], body)
            }
            _ => continue,
        };
        let (next, want) = blocks.get(k + 1).expect("an output block follows");
        assert_eq!(
            next, "json output",
            "block {k} ({info}) has no output after it"
        );
        let got: serde_json::Value = serde_json::from_str(got.trim()).expect("one JSON answer");
        let want: serde_json::Value = serde_json::from_str(want.trim()).expect("output is JSON");
        assert_eq!(got, want, "block {k} ({info}):\n{body}");
        let pass = got.get("pass").and_then(|p| p.as_bool());
        let expected_code = if pass == Some(false) { 1 } else { 0 };
        assert_eq!(code, expected_code, "exit code of block {k}");
    }
    assert!(cases >= 2 && calls >= 2, "{cases} cases, {calls} calls run");
}
