//! The distinct box scripts of the shared corpus, for the fixer's corpus test
//! (`tests/fixer.rs`) and the fixer part of the bench (`benches/python.rs`), which include
//! this file by path.

use std::collections::BTreeMap;
use std::path::Path;

use choreo_xar::BoxDef;

/// Every box with a script below `b`, with its path (`file:root/Box/Inner`).
fn collect(b: &BoxDef, path: &str, out: &mut BTreeMap<String, String>) {
    let path = format!("{path}/{}", b.name);
    let code = b.code();
    if !code.trim().is_empty() {
        out.entry(code.to_string()).or_insert_with(|| path.clone());
    }
    for d in b.diagrams() {
        for child in &d.boxes {
            collect(child, &path, out);
        }
    }
}

/// Distinct box scripts of the corpus (script → first box path), and the files that could
/// not be read.
pub fn corpus_scripts(dir: &Path) -> (BTreeMap<String, String>, Vec<String>) {
    let files = choreo_testkit::files_under(dir, &|p| {
        choreo_testkit::has_extension(p, &["xar", "crg", "cbl", "pkg"])
    });
    let mut scripts = BTreeMap::new();
    let mut unreadable = Vec::new();
    for f in &files {
        let shown = f.strip_prefix(dir).unwrap_or(f).display().to_string();
        match choreo_xar::source::load_path(f) {
            Ok(project) => {
                for b in &project.behaviors {
                    collect(
                        &b.xar.root_box,
                        &format!("{shown}:{}", b.path),
                        &mut scripts,
                    );
                }
            }
            Err(_) => unreadable.push(shown),
        }
    }
    (scripts, unreadable)
}
