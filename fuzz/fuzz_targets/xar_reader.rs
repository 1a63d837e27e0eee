//! Fuzz target: `read_xar` on arbitrary bytes.
//!
//! Properties checked on every input:
//! - reading never panics, overflows the stack or loops: it returns a model or an error;
//! - an error's position lies inside the text, and the error can be displayed;
//! - a model that was read writes to XML that reads back without error, to an equal model,
//!   and writing that model again gives the same text (the writer is stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = match choreo_xar::read_xar("fuzz.xar", data) {
        Ok(parsed) => parsed,
        Err(e) => {
            let d = e.diagnostic();
            if let Some(p) = d.position {
                let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
                assert!(p.line >= 1 && p.column >= 1, "position {p:?} for {e}");
                assert!(
                    p.line as usize <= lines,
                    "line {} past the end: {e}",
                    p.line
                );
            }
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    for w in &parsed.warnings {
        assert!(!w.to_string().is_empty());
    }
    let written = choreo_xar::write_xar(&parsed.value);
    let again = match choreo_xar::read_xar("rewritten.xar", written.as_bytes()) {
        Ok(again) => again,
        Err(e) => panic!("the written XML does not read back: {e}\n--- written:\n{written}"),
    };
    assert!(
        again.value == parsed.value,
        "model differs after write/read\n--- first: {:?}\n--- again: {:?}\n--- written:\n{written}",
        parsed.value,
        again.value
    );
    let rewritten = choreo_xar::write_xar(&again.value);
    assert!(
        rewritten == written,
        "writer not stable\n--- first:\n{written}\n--- second:\n{rewritten}"
    );
});
