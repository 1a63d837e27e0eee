//! Every XAR file of the shared corpus: reads (or fails with the documented error for the one
//! broken file), and XAR -> model -> XAR gives an equal model and equivalent XML.

use crate::support;

use choreo_xar::{read_xar, write_xar};

#[test]
fn every_corpus_xar_round_trips() {
    let (mut ok, mut warnings) = (0, 0);
    let Some(files) = support::check_corpus_xars(|name, bytes, parsed, failures| {
        warnings += parsed.warnings.len();
        let written = write_xar(&parsed.value);
        match read_xar(name, written.as_bytes()) {
            Ok(again) if again.value == parsed.value => {}
            Ok(_) => failures.push(format!("{name}: model differs after write/read")),
            Err(e) => failures.push(format!("{name}: rereading the written XML: {e}")),
        }
        let original = String::from_utf8_lossy(bytes);
        let original = original.trim_start_matches('\u{feff}');
        if let Err(d) = support::xml_equivalent(original, &written) {
            failures.push(format!("{name}: XML differs: {d}"));
        }
        ok += 1;
    }) else {
        return;
    };
    println!(
        "XAR corpus: {files} files, {ok} round-tripped, the merge-conflict file rejected as documented, {warnings} warnings"
    );
}
