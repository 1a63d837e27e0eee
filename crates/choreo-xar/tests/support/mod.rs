//! Helpers shared by the integration tests: the corpus files of a kind (the corpus is found
//! by `choreo_testkit`), and an XML comparison that ignores insignificant whitespace and
//! attribute order; [`arbitrary`] models for the property tests.

pub mod arbitrary;

use std::path::{Path, PathBuf};

use choreo_xar::{ErrorKind, Parsed, XarFile, read_xar};

/// The corpus files for which `keep` holds, sorted; there must be at least `at_least` of
/// them (`what`, in the message otherwise). `None` when the corpus is absent.
pub fn corpus_files(
    what: &str,
    at_least: usize,
    keep: &dyn Fn(&Path) -> bool,
) -> Option<Vec<PathBuf>> {
    let files = choreo_testkit::files_under(
        &choreo_testkit::corpus(&format!("the tests of the corpus's {what}"))?,
        keep,
    );
    assert!(
        files.len() >= at_least,
        "expected at least {at_least} {what} in the corpus, found {}",
        files.len()
    );
    Some(files)
}

/// Fails listing `failures`, if there are any.
pub fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Reads every XAR file of the corpus and hands each model read to `check` with the file's
/// name and bytes; `check` pushes what is wrong to the failures. The one merge-conflict file
/// must be refused as documented; any other error is a failure. Returns how many files there
/// are (`None` when the corpus is absent).
pub fn check_corpus_xars(
    mut check: impl FnMut(&str, &[u8], Parsed<XarFile>, &mut Vec<String>),
) -> Option<usize> {
    let files = corpus_files("XAR files", 201, &|p| {
        p.extension().is_some_and(|e| e == "xar")
    })?;
    let mut conflict = 0;
    let mut failures = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).expect("corpus file readable");
        match read_xar(&name, &bytes) {
            Ok(parsed) => check(&name, &bytes, parsed, &mut failures),
            Err(e) if e.kind() == ErrorKind::MergeConflict => conflict += 1,
            Err(e) => failures.push(format!("read: {e}")),
        }
    }
    assert_no_failures(&failures);
    assert_eq!(
        conflict, 1,
        "the corpus has exactly one merge-conflict file"
    );
    Some(files.len())
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
