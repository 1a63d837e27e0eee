//! Every XAR file of the shared corpus survives XAR -> split tree -> model unchanged, and
//! the model written again as XAR is equivalent to the original file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use choreo_xar::split::{from_tree, is_split_tree, to_tree};
use choreo_xar::{ErrorKind, read_xar, write_xar};

#[test]
fn every_corpus_xar_round_trips_through_the_split_format() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let files = common::files_under(&corpus, &|p| p.extension().is_some_and(|e| e == "xar"));
    assert!(
        files.len() > 200,
        "expected the corpus's ~260 XAR files, found {}",
        files.len()
    );
    let (mut covered, mut conflict, mut tree_files, mut boxes) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).expect("corpus file readable");
        let (original, xar_warnings) = match read_xar(&name, &bytes) {
            Ok(p) => (p.value, p.warnings.len()),
            Err(e) if e.kind() == ErrorKind::MergeConflict => {
                conflict += 1;
                continue;
            }
            Err(e) => {
                failures.push(format!("read: {e}"));
                continue;
            }
        };
        let tree = to_tree(&original);
        tree_files += tree.len();
        boxes += tree.keys().filter(|k| k.ends_with("box.toml")).count();
        if !is_split_tree(&tree) {
            failures.push(format!("{name}: not recognised as a split tree"));
        }
        let back = match from_tree(&name, &tree) {
            Ok(p) => {
                // The same warnings as the XAR reader's (from_tree runs its checks), no more.
                if p.warnings.len() != xar_warnings {
                    failures.push(format!("{name}: warnings {:?}", p.warnings));
                }
                p.value
            }
            Err(e) => {
                failures.push(format!("{name}: from_tree: {e}"));
                continue;
            }
        };
        if back != original {
            failures.push(format!("{name}: model differs after the split round trip"));
            continue;
        }
        let original_text = String::from_utf8_lossy(&bytes);
        if let Err(d) = common::xml_equivalent(
            original_text.trim_start_matches('\u{feff}'),
            &write_xar(&back),
        ) {
            failures.push(format!("{name}: XML differs: {d}"));
        }
        covered += 1;
    }
    println!(
        "split corpus: {} XAR files, {covered} round-tripped through {tree_files} split files ({boxes} boxes), {conflict} merge-conflict file skipped",
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
