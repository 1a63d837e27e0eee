//! The Python packages NAOqi OS ships beside the SDK (the legal notices of the NAOqi 2.1 and
//! 2.8 documentation), and what box code gets for each in choreo's Python 3: a pinned
//! release installed once, the standard library, or nothing, with the reason. Read once from
//! `data/python.txt`, whose header gives its format and sources.
//!
//! ```
//! use choreo_robot::python::{Install, packages_for};
//! let requests = packages_for("requests");
//! assert_eq!(requests[0].version_2_8, Some("2.19.1"));
//! assert!(matches!(&requests[0].install, Install::Pins(p) if p[0] == "requests==2.32.5"));
//! ```

use std::fmt;
use std::sync::OnceLock;

/// The table's text (see its header for the format).
const TEXT: &str = include_str!("../data/python.txt");

/// What choreo gives box code for a package NAOqi OS ships.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Install {
    /// These pinned releases (`dist==version`), installed together without resolving more.
    Pins(Vec<&'static str>),
    /// Python 3's standard library has it.
    Stdlib,
    /// Nothing can be installed; why.
    Unavailable(&'static str),
}

/// One package of NAOqi OS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// Its name in the notices (`requests`).
    pub name: &'static str,
    /// Its version in NAOqi OS 2.1, if that OS ships it.
    pub version_2_1: Option<&'static str>,
    /// Its version in NAOqi OS 2.8, if that OS ships it.
    pub version_2_8: Option<&'static str>,
    /// The top-level names box code imports it by.
    pub imports: Vec<&'static str>,
    /// What box code gets in choreo.
    pub install: Install,
}

impl Package {
    /// Which NAOqi OS ships which version: `2.1: requests 2.2.1-r1, 2.8: requests 2.19.1`.
    pub fn shipped(&self) -> String {
        [("2.1", self.version_2_1), ("2.8", self.version_2_8)]
            .iter()
            .filter_map(|(os, v)| v.map(|v| format!("{os}: {} {v}", self.name)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A line of the table that is not well formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    /// The line (from 1).
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "python.txt line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TableError {}

/// Every package, in the table's order (a test keeps the table well formed; were it not,
/// this would be empty).
pub fn packages() -> &'static [Package] {
    static PACKAGES: OnceLock<Vec<Package>> = OnceLock::new();
    PACKAGES.get_or_init(|| parse(TEXT).unwrap_or_default())
}

/// The packages box code imports by top-level name `name` (several notices' packages may
/// give one name: `Crypto` is pycrypto in 2.1 and pycryptodome in 2.8).
pub fn packages_for(name: &str) -> Vec<&'static Package> {
    packages()
        .iter()
        .filter(|p| p.imports.contains(&name))
        .collect()
}

/// Reads a table in the format of `data/python.txt`.
pub fn parse(text: &'static str) -> Result<Vec<Package>, TableError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let fail = |message: &str| TableError {
            line,
            message: message.to_string(),
        };
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let words: Vec<&'static str> = content.split_whitespace().collect();
        let [name, v21, v28, imports, first, rest @ ..] = words.as_slice() else {
            return Err(fail(
                "expected: name, 2.1 version, 2.8 version, imports, Python 3",
            ));
        };
        let version = |v: &'static str| (v != "-").then_some(v);
        let (version_2_1, version_2_8) = (version(v21), version(v28));
        if version_2_1.is_none() && version_2_8.is_none() {
            return Err(fail("shipped by neither NAOqi OS"));
        }
        let install = match *first {
            "stdlib" if rest.is_empty() => Install::Stdlib,
            "none" => {
                // The reason is the rest of the line, as written.
                let at = content.find(" none ").map_or(content.len(), |i| i + 6);
                let why = content[at..].trim();
                if why.is_empty() {
                    return Err(fail("`none` needs a reason"));
                }
                Install::Unavailable(why)
            }
            _ => {
                let pins: Vec<&'static str> = std::iter::once(*first)
                    .chain(rest.iter().copied())
                    .collect();
                if let Some(bad) = pins.iter().find(|p| {
                    p.split_once("==")
                        .is_none_or(|(d, v)| d.is_empty() || v.is_empty())
                }) {
                    return Err(fail(&format!("{bad:?} is not `dist==version`")));
                }
                Install::Pins(pins)
            }
        };
        out.push(Package {
            name,
            version_2_1,
            version_2_8,
            imports: imports.split(',').collect(),
            install,
        });
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_and_names_what_the_notices_list() {
        let all = parse(TEXT).unwrap();
        assert_eq!(all.len(), packages().len());
        // From the 2.1 notice: dev-python/requests 2.2.1-r1; from 2.8's: python-requests
        // 2.19.1 and python-urllib3 1.23.
        let requests = packages_for("requests");
        assert_eq!(requests.len(), 1);
        assert_eq!(
            requests[0].shipped(),
            "2.1: requests 2.2.1-r1, 2.8: requests 2.19.1"
        );
        assert_eq!(packages_for("urllib3")[0].version_2_8, Some("1.23"));
        assert_eq!(packages_for("urllib3")[0].version_2_1, None);
        let crypto: Vec<&str> = packages_for("Crypto").iter().map(|p| p.name).collect();
        assert_eq!(crypto, ["pycrypto", "pycryptodome"]);
        assert!(
            matches!(packages_for("gst")[0].install, Install::Unavailable(why) if why.contains("0.10"))
        );
        assert_eq!(packages_for("enum")[0].install, Install::Stdlib);
        // Every pinned set holds each dist once, and a dist has one version in the whole
        // table (all share one folder).
        let mut versions = std::collections::BTreeMap::new();
        for p in &all {
            if let Install::Pins(pins) = &p.install {
                let mut dists: Vec<&str> =
                    pins.iter().map(|x| x.split("==").next().unwrap()).collect();
                dists.sort_unstable();
                dists.dedup();
                assert_eq!(dists.len(), pins.len(), "{}", p.name);
                for pin in pins {
                    let (dist, version) = pin.split_once("==").unwrap();
                    let first = versions.entry(dist.to_ascii_lowercase()).or_insert(version);
                    assert_eq!(*first, version, "{dist} pinned twice ({})", p.name);
                }
            }
        }
    }

    #[test]
    fn bad_lines_are_refused_with_their_number() {
        assert_eq!(parse("x 1 - x\n").unwrap_err().line, 1);
        assert_eq!(parse("# c\nx - - x y==1\n").unwrap_err().line, 2);
        assert!(parse("x 1 - x none\n").is_err());
        assert!(parse("x 1 - x y=1\n").is_err());
        assert_eq!(
            parse("x 1 - x none why not\n").unwrap()[0].install,
            Install::Unavailable("why not")
        );
    }
}
