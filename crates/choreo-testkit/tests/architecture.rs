//! The rules of the house for every crate of the workspace (docs/architecture.md, "Rules
//! kept by the suite"): no import circle between the files of a crate, arrows between
//! crates pointing down the layers, and no source file or function longer than the limits
//! unless listed below with its reason. A new crate, file or function is covered without
//! being named here.

use std::path::Path;

use choreo_testkit::architecture::{
    LONG_FILE, LONG_FUNCTION, arrow_faults, circles, crates, doc_paths, file_lengths, functions,
    module_graph, string_errors, unused_dependencies, workspace_root,
};

/// Files allowed over [`LONG_FILE`] lines (path from the workspace root), each with its
/// reason.
const LONG_FILES: &[(&str, &str)] = &[];

/// Functions allowed over [`LONG_FUNCTION`] lines (`path:name`), each with its reason.
const LONG_FUNCTIONS: &[(&str, &str)] = &[];

fn relative(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn every_crate_keeps_the_rules() {
    let root = workspace_root().canonicalize().expect("the workspace root");
    let all = crates(&root);
    assert!(all.len() >= 10, "found only {all:?}");
    let mut faults = Vec::new();
    for krate in &all {
        faults.extend(arrow_faults(krate));
        for dep in unused_dependencies(krate) {
            faults.push(format!(
                "{}: depends on {dep}, which its code never names",
                krate.name
            ));
        }
        for circle in circles(&module_graph(&krate.dir.join("src"))) {
            faults.push(format!(
                "{}: an import circle between {} files: {}",
                krate.name,
                circle.len(),
                circle.join(", ")
            ));
        }
        for (path, lines) in file_lengths(&krate.dir) {
            let rel = relative(&root, &path);
            if lines > LONG_FILE && !LONG_FILES.iter().any(|(p, _)| *p == rel) {
                faults.push(format!(
                    "{rel}: {lines} lines (over {LONG_FILE}, not listed)"
                ));
            }
        }
        for (path, _) in file_lengths(&krate.dir.join("src")) {
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = relative(&root, &path);
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for (line, name) in string_errors(&text) {
                faults.push(format!(
                    "{rel}:{line}: {name} gives a public error as a String (give it a type)"
                ));
            }
            for (name, line, len) in functions(&text) {
                let key = format!("{rel}:{name}");
                if len > LONG_FUNCTION && !LONG_FUNCTIONS.iter().any(|(k, _)| *k == key) {
                    faults.push(format!(
                        "{rel}:{line}: fn {name} is {len} lines (over {LONG_FUNCTION}, not listed)"
                    ));
                }
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = workspace_root().canonicalize().expect("the workspace root");
    let mut docs = vec![root.join("README.md")];
    docs.extend(choreo_testkit::files_under(&root.join("docs"), &|p| {
        choreo_testkit::has_extension(p, &["md"])
    }));
    let mut missing = Vec::new();
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap_or_default();
        for (line, path) in doc_paths(&text) {
            if !root.join(&path).exists() {
                missing.push(format!("{}:{line}: {path}", relative(&root, &doc)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_listed_exception_still_exists_and_is_still_long() {
    let root = workspace_root().canonicalize().expect("the workspace root");
    for (path, why) in LONG_FILES {
        assert!(!why.is_empty());
        let lines = std::fs::read_to_string(root.join(path))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        assert!(
            lines > LONG_FILE,
            "{path} is listed as long but has {lines} lines"
        );
    }
    for (key, why) in LONG_FUNCTIONS {
        assert!(!why.is_empty());
        let (path, name) = key.rsplit_once(':').expect("path:name");
        let text = std::fs::read_to_string(root.join(path)).unwrap_or_default();
        assert!(
            functions(&text)
                .iter()
                .any(|(n, _, len)| n == name && *len > LONG_FUNCTION),
            "{key} is listed as long but is not"
        );
    }
}
