//! Every XAR file of the shared corpus survives XAR -> split tree -> model unchanged, and
//! the model written again as XAR is equivalent to the original file.

use crate::support;

use choreo_xar::split::{from_tree, is_split_tree, to_tree};
use choreo_xar::write_xar;

#[test]
fn every_corpus_xar_round_trips_through_the_split_format() {
    let (mut covered, mut tree_files, mut boxes) = (0, 0, 0);
    let Some(files) = support::check_corpus_xars(|name, bytes, parsed, failures| {
        let (original, xar_warnings) = (parsed.value, parsed.warnings.len());
        let tree = to_tree(&original);
        tree_files += tree.len();
        boxes += tree.keys().filter(|k| k.ends_with("box.toml")).count();
        if !is_split_tree(&tree) {
            failures.push(format!("{name}: not recognised as a split tree"));
        }
        let back = match from_tree(name, &tree) {
            Ok(p) => {
                // The same warnings as the XAR reader's (from_tree runs its checks), no more.
                if p.warnings.len() != xar_warnings {
                    failures.push(format!("{name}: warnings {:?}", p.warnings));
                }
                p.value
            }
            Err(e) => {
                failures.push(format!("{name}: from_tree: {e}"));
                return;
            }
        };
        if back != original {
            failures.push(format!("{name}: model differs after the split round trip"));
            return;
        }
        let original_text = String::from_utf8_lossy(bytes);
        if let Err(d) = support::xml_equivalent(
            original_text.trim_start_matches('\u{feff}'),
            &write_xar(&back),
        ) {
            failures.push(format!("{name}: XML differs: {d}"));
        }
        covered += 1;
    }) else {
        return;
    };
    println!(
        "split corpus: {files} XAR files, {covered} round-tripped through {tree_files} split files ({boxes} boxes), the merge-conflict file skipped"
    );
}
