//! Helpers shared by the integration tests: the corpus location and an XML comparison
//! that ignores insignificant whitespace and attribute order.
#![allow(dead_code)] // each test binary uses a part

use std::path::{Path, PathBuf};

/// `../shared/corpus` relative to the workspace, if present.
pub fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "NOTICE: {} is absent: corpus tests skipped (they need the shared corpus)",
            dir.display()
        );
        None
    }
}

/// Every file under `dir` whose name satisfies `keep`, sorted.
pub fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if keep(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Compares two XML documents: same elements (namespace and local name), same attribute
/// sets, same comments and text (whitespace around text ignored, whitespace-only text
/// ignored). Returns the first difference.
pub fn xml_equivalent(a: &str, b: &str) -> Result<(), String> {
    let opt = || roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let da = roxmltree::Document::parse_with_options(a, opt()).map_err(|e| format!("left: {e}"))?;
    let db =
        roxmltree::Document::parse_with_options(b, opt()).map_err(|e| format!("right: {e}"))?;
    compare(da.root_element(), db.root_element(), "")
}

fn significant(n: &roxmltree::Node) -> bool {
    match n.node_type() {
        roxmltree::NodeType::Text => !n.text().unwrap_or("").trim().is_empty(),
        roxmltree::NodeType::Element | roxmltree::NodeType::Comment => true,
        _ => false,
    }
}

fn compare(a: roxmltree::Node, b: roxmltree::Node, path: &str) -> Result<(), String> {
    let here = format!("{path}/{}", a.tag_name().name());
    if a.node_type() != b.node_type() {
        return Err(format!(
            "{here}: node type {:?} vs {:?}",
            a.node_type(),
            b.node_type()
        ));
    }
    match a.node_type() {
        roxmltree::NodeType::Text | roxmltree::NodeType::Comment => {
            let (ta, tb) = (a.text().unwrap_or("").trim(), b.text().unwrap_or("").trim());
            return if ta == tb {
                Ok(())
            } else {
                Err(format!("{here}: text {ta:?} vs {tb:?}"))
            };
        }
        _ => {}
    }
    if a.tag_name() != b.tag_name() {
        return Err(format!(
            "{here}: element {:?} vs {:?}",
            a.tag_name(),
            b.tag_name()
        ));
    }
    let attrs = |n: roxmltree::Node| {
        let mut v: Vec<(String, String)> = n
            .attributes()
            .map(|x| (x.name().to_string(), x.value().to_string()))
            .collect();
        v.sort();
        v
    };
    let (aa, ab) = (attrs(a), attrs(b));
    if aa != ab {
        return Err(format!("{here}: attributes {aa:?} vs {ab:?}"));
    }
    let ca: Vec<_> = a.children().filter(significant).collect();
    let cb: Vec<_> = b.children().filter(significant).collect();
    if ca.len() != cb.len() {
        return Err(format!("{here}: {} children vs {}", ca.len(), cb.len()));
    }
    for (x, y) in ca.into_iter().zip(cb) {
        compare(x, y, &here)?;
    }
    Ok(())
}
