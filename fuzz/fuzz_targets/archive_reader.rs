//! Fuzz target: `archive::unpack`, `source::check_file` and `source::load_bytes` on arbitrary
//! bytes (seed with the real `.crg` / `.cbl` files).
//!
//! Properties checked on every input:
//! - nothing panics, and nothing allocates what the archive only claims (libFuzzer's memory
//!   limit catches that);
//! - unpacked files have safe relative paths and stay within the size cap;
//! - errors name the archive (`fuzz.crg`, `fuzz.crg!data.tar.gz`) and can be displayed;
//! - check reports name every member inside the archive and count their errors.
#![no_main]

use choreo_xar::archive::{MAX_ENTRIES, MAX_TOTAL_SIZE, unpack};
use choreo_xar::source::{check_file, load_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match unpack("fuzz.crg", data) {
        Ok(u) => {
            let files = &u.value.files;
            assert!(files.len() <= MAX_ENTRIES);
            let total: usize = files.values().map(Vec::len).sum();
            assert!(total as u64 <= MAX_TOTAL_SIZE);
            for path in files.keys() {
                assert!(
                    !path.is_empty() && !path.starts_with('/'),
                    "unsafe path {path:?}"
                );
                assert!(
                    path.split('/')
                        .all(|c| !c.is_empty() && c != "." && c != ".."),
                    "unsafe path {path:?}"
                );
            }
            for w in &u.warnings {
                assert!(w.file.starts_with("fuzz.crg"), "{w}");
            }
        }
        Err(e) => {
            assert!(e.diagnostic().file.starts_with("fuzz.crg"), "{e}");
            assert!(!e.to_string().is_empty());
        }
    }
    // By extension (the archive reader) and by content (any reader the bytes call for).
    for name in ["fuzz.crg", "fuzz"] {
        let report = check_file(name, data);
        assert!(!report.summary.is_empty() || report.error.is_some());
        for r in report.all() {
            assert!(r.file.starts_with(name), "{} outside {name}", r.file);
            if let Some(e) = &r.error {
                assert!(!e.to_string().is_empty());
            }
        }
        assert!(report.error_count() >= usize::from(report.error.is_some()));
    }
    if let Ok(project) = load_bytes("fuzz", data) {
        for b in &project.behaviors {
            assert!(
                project.files.contains_key(&b.path),
                "{} not in the files",
                b.path
            );
        }
    }
});
