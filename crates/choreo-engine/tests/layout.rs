//! The crate's files form no import cycle: each file's `crate::...` paths point only at files
//! that do not, through their own paths, lead back to it (architecture.md: arrows point down).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `src`, by module path (`engine::state`, `trace`, `lib` for the root).
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for path in choreo_testkit::files_under(src, &|p| p.extension().is_some_and(|e| e == "rs")) {
        let rel = path.strip_prefix(src).unwrap_or(&path).with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        out.insert(parts.join("::"), path);
    }
    out
}

/// The module files a source text names through `crate::a::b::...` paths (the longest
/// prefix that is a module), test modules and comments (doc links) left out.
fn imports(text: &str, known: &BTreeMap<String, PathBuf>) -> BTreeSet<String> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or(text)
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let path: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        for n in (1..=parts.len()).rev() {
            let m = parts[..n].join("::");
            if known.contains_key(&m) {
                out.insert(m);
                break;
            }
        }
    }
    out
}

#[test]
fn the_crate_has_no_file_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = modules(&src);
    assert!(files.len() > 10, "found only {:?}", files.keys());
    let edges: BTreeMap<String, BTreeSet<String>> = files
        .iter()
        .map(|(m, path)| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            let mut to = imports(&text, &files);
            to.remove(m);
            (m.clone(), to)
        })
        .collect();
    // Depth-first search with an explicit stack; a grey node met again is a cycle.
    let mut colour: BTreeMap<&str, u8> = BTreeMap::new();
    for start in edges.keys() {
        if colour.contains_key(start.as_str()) {
            continue;
        }
        let mut stack: Vec<(&str, Vec<&str>)> =
            vec![(start, edges[start].iter().map(String::as_str).collect())];
        colour.insert(start, 1);
        while let Some((node, next)) = stack.last_mut() {
            match next.pop() {
                Some(n) => match colour.get(n) {
                    Some(1) => {
                        let path: Vec<&str> = stack.iter().map(|(m, _)| *m).collect();
                        panic!("import cycle: {} -> {n}", path.join(" -> "));
                    }
                    Some(_) => {}
                    None => {
                        colour.insert(n, 1);
                        let more = edges
                            .get(n)
                            .map(|s| s.iter().map(String::as_str).collect())
                            .unwrap_or_default();
                        stack.push((n, more));
                    }
                },
                None => {
                    colour.insert(node, 2);
                    stack.pop();
                }
            }
        }
    }
}
