//! Every XAR file of the shared corpus: reads (or fails with the documented error for the one
//! broken file), and XAR -> model -> XAR gives an equal model and equivalent XML.
#![allow(clippy::expect_used)]

mod common;

use choreo_xar::{ErrorKind, read_xar, write_xar};

#[test]
fn every_corpus_xar_round_trips() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let files = common::files_under(&corpus, &|p| p.extension().is_some_and(|e| e == "xar"));
    assert!(
        files.len() > 200,
        "expected the corpus's ~260 XAR files, found {}",
        files.len()
    );
    let (mut ok, mut conflict, mut warnings) = (0, 0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).expect("corpus file readable");
        let parsed = match read_xar(&name, &bytes) {
            Ok(p) => p,
            Err(e) if e.kind() == ErrorKind::MergeConflict => {
                conflict += 1;
                continue;
            }
            Err(e) => {
                failures.push(format!("read: {e}"));
                continue;
            }
        };
        warnings += parsed.warnings.len();
        let written = write_xar(&parsed.value);
        match read_xar(&name, written.as_bytes()) {
            Ok(again) if again.value == parsed.value => {}
            Ok(_) => failures.push(format!("{name}: model differs after write/read")),
            Err(e) => failures.push(format!("{name}: rereading the written XML: {e}")),
        }
        let original = String::from_utf8_lossy(&bytes);
        let original = original.trim_start_matches('\u{feff}');
        if let Err(d) = common::xml_equivalent(original, &written) {
            failures.push(format!("{name}: XML differs: {d}"));
        }
        ok += 1;
    }
    println!(
        "XAR corpus: {} files, {ok} round-tripped, {conflict} merge-conflict file(s) rejected as documented, {warnings} warnings",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        conflict, 1,
        "the corpus has exactly one merge-conflict file"
    );
}
