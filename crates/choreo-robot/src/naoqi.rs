//! NAOqi's API as data: every module, its methods with their qi signatures (overloads as
//! separate entries) and which NAOqi versions have them, read once from `data/naoqi.txt`
//! ([`Catalogue::naoqi`]): some 90 modules and 2,000 overloads.
//!
//! The file: a module line, then one indented line per overload, `name (params) return` in qi
//! signature letters, and four marks for NAOqi 2.1, 2.5, 2.8 and 2.9 (`y`, `n`, or `?` when no
//! source says); a method line repeats them only where they differ from its module's, and a
//! fifth word, `nao` or `pepper`, ends the line of a module only that robot has. Its header
//! names the sources: Choregraphe 2.1's stock boxes, the NAO V5 and V6 metaObject scans and a
//! Pepper ALTabletService scan published in lugu/qiloop, jnaoqi's 2.3 proxies, the project's
//! first survey of NAOqi's services, and NAOqi 1.x's C++ proxy headers for the 1.x modules
//! Choregraphe 2.1's boxes still call (ALVisionToolbox, ALFaceTracker, ALInfrared). Parsing
//! checks every signature's shape, that no module or overload comes twice, and that a method's
//! marks agree with its module's.
//!
//! Its users keep no copy. choreo-qi's `serve_robot` builds each MetaObject from it (the
//! ALModule base at uids 100–112, then the catalogue's overloads in order) for the modules the
//! robot says it has (`Robot::has_service`), and choreo-qi's tests parse every signature. The
//! simulated robot (choreo-naoqi) takes each module's method set from it (`getMethodList`),
//! refuses a method no NAOqi version has before dispatch, and words the error for one it does
//! not serve (`RobotError::UnknownMethod`: NAOqi has it and the simulated robot does not serve
//! it yet, or no NAOqi version has it; the closest names by edit distance). The test
//! `tests/corpus_scan.rs` checks that every module and method the corpus's box scripts call is
//! here, but for a short list of exceptions, each with its reason.
//!
//! ```
//! use choreo_robot::naoqi::{Catalogue, Presence, Version};
//! let motion = Catalogue::naoqi().module("ALMotion");
//! assert!(motion.is_some_and(|m| m.has_method("moveTo")));
//! let say = Catalogue::naoqi().module("ALTextToSpeech").and_then(|m| m.overloads("say").next());
//! assert_eq!(say.map(|m| m.versions.get(Version::V2_8)), Some(Presence::Yes));
//! ```

use std::fmt;
use std::sync::OnceLock;

use crate::model::Model;

/// The catalogue's text (see its header for the format).
const TEXT: &str = include_str!("../data/naoqi.txt");

/// The ALModule base methods every classic module carries at uids 100–112 (qi-protocol.md
/// §11), in uid order: `(name, parameters, return)`.
pub const MODULE_BASE: [(&str, &str, &str); 13] = [
    ("exit", "()", "v"),
    ("__pCall", "(I[m])", "i"),
    ("pCall", "(m)", "m"),
    ("version", "()", "s"),
    ("ping", "()", "b"),
    ("getMethodList", "()", "[s]"),
    ("getMethodHelp", "(s)", "m"),
    ("getModuleHelp", "()", "m"),
    ("wait", "(ii)", "b"),
    ("isRunning", "(i)", "b"),
    ("stop", "(i)", "v"),
    ("getBrokerName", "()", "s"),
    ("getUsage", "(s)", "s"),
];

/// A NAOqi version the catalogue tells about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// NAOqi 2.1: NAO (V4, V5), Choregraphe 2.1.
    V2_1,
    /// NAOqi 2.5: Pepper, and NAO V5.
    V2_5,
    /// NAOqi 2.8: NAO V6.
    V2_8,
    /// NAOqi 2.9: Pepper with the Android tablet (QiSDK).
    V2_9,
}

impl Version {
    /// Every version, in the order of the catalogue's columns.
    pub const ALL: [Version; 4] = [Version::V2_1, Version::V2_5, Version::V2_8, Version::V2_9];

    /// How the version is written: `2.1`.
    pub fn name(self) -> &'static str {
        match self {
            Version::V2_1 => "2.1",
            Version::V2_5 => "2.5",
            Version::V2_8 => "2.8",
            Version::V2_9 => "2.9",
        }
    }

    /// The full version a robot of this generation reports (`ALSystem.systemVersion`,
    /// `version()`): 2.1.4.13 and 2.8.7.4 are the releases whose documentation and
    /// Choregraphe suite the project reads, 2.5.10.7 a Pepper 2.5 system; 2.8.5.10 is a NAO V6
    /// system (kept: behaviors compare it), 2.9.5.172 a Pepper QiSDK system (**inference**:
    /// no source here states it).
    pub fn release(self) -> &'static str {
        match self {
            Version::V2_1 => "2.1.4.13",
            Version::V2_5 => "2.5.10.7",
            Version::V2_8 => "2.8.5.10",
            Version::V2_9 => "2.9.5.172",
        }
    }

    /// The version written `name` (`2.1`, `2.5`, `2.8`, `2.9`).
    pub fn from_name(name: &str) -> Option<Version> {
        Version::ALL.into_iter().find(|v| v.name() == name)
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a version has a module or a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Presence {
    /// A source shows it there (`y`).
    Yes,
    /// A source shows it absent (`n`).
    No,
    /// No source says (`?`).
    Unknown,
}

impl Presence {
    fn from_mark(mark: &str) -> Option<Presence> {
        match mark {
            "y" => Some(Presence::Yes),
            "n" => Some(Presence::No),
            "?" => Some(Presence::Unknown),
            _ => None,
        }
    }
}

/// Which versions have a module or a method: one [`Presence`] per [`Version`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Versions([Presence; 4]);

impl Versions {
    /// What `version` is known to have.
    pub fn get(&self, version: Version) -> Presence {
        self.0[version.index()]
    }

    /// The versions known to have it.
    pub fn known(&self) -> Vec<Version> {
        Version::ALL
            .into_iter()
            .filter(|v| self.get(*v) == Presence::Yes)
            .collect()
    }
}

/// One overload of a module's method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Method {
    /// The method's name.
    pub name: &'static str,
    /// The parameters' tuple signature, such as `(sf)`.
    pub params: &'static str,
    /// The return signature, such as `v`.
    pub returns: &'static str,
    /// Which versions have this method (by name: the sources do not tell overloads apart).
    pub versions: Versions,
}

/// A NAOqi module and its own methods (the [`MODULE_BASE`] methods come on top).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// The module's name, such as `ALMotion`.
    pub name: &'static str,
    /// Which versions have the module.
    pub versions: Versions,
    /// The one robot that has the module (`pepper` or `nao` after its marks); `None`: both.
    pub only_on: Option<Model>,
    /// Its methods, one entry per overload, in the order they are served.
    pub methods: Vec<Method>,
}

impl Module {
    /// The overloads of method `name` (none if the module has no such method).
    pub fn overloads<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Method> + 'a {
        self.methods.iter().filter(move |m| m.name == name)
    }

    /// Whether the module has method `name` (one of its own, or an ALModule base method).
    pub fn has_method(&self, name: &str) -> bool {
        self.overloads(name).next().is_some() || MODULE_BASE.iter().any(|(n, _, _)| *n == name)
    }

    /// Its own method names, each once, in the order of the catalogue.
    pub fn method_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for m in &self.methods {
            if !names.contains(&m.name) {
                names.push(m.name);
            }
        }
        names
    }

    /// Up to `count` method names (its own and the base ones) closest to `name` by edit
    /// distance, nearest first, none further than half of `name`'s length (at least 2).
    pub fn closest(&self, name: &str, count: usize) -> Vec<&'static str> {
        let limit = (name.chars().count() / 2).max(2);
        let mut scored: Vec<(usize, &'static str)> = self
            .method_names()
            .into_iter()
            .chain(MODULE_BASE.iter().map(|(n, _, _)| *n))
            .map(|candidate| (edit_distance(name, candidate), candidate))
            .filter(|(d, c)| *d <= limit && *c != name)
            .collect();
        scored.sort();
        scored.dedup();
        scored.into_iter().take(count).map(|(_, c)| c).collect()
    }
}

/// The catalogue: NAOqi's modules in the order of the data file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Catalogue {
    modules: Vec<Module>,
}

/// A line of the catalogue's text that is not well formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogueError {
    /// The line (from 1).
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for CatalogueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "naoqi catalogue line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for CatalogueError {}

impl Catalogue {
    /// NAOqi's catalogue, parsed once from `data/naoqi.txt` (a test keeps it well formed; were
    /// it not, this would be the empty catalogue).
    pub fn naoqi() -> &'static Catalogue {
        static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
        CATALOGUE.get_or_init(|| Catalogue::parse(TEXT).unwrap_or_default())
    }

    /// Reads a catalogue in the format of `data/naoqi.txt`: module lines, indented method
    /// lines `name (params) return [marks]`, four version marks (`y`, `n`, `?`) ending module
    /// lines and optionally method lines, `#` comments. Checks the shape of every signature,
    /// that no overload and no module comes twice, and that a method's marks agree with its
    /// module's (a method cannot be in a version its module is not).
    pub fn parse(text: &'static str) -> Result<Catalogue, CatalogueError> {
        let mut modules: Vec<Module> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let fail = |message: String| CatalogueError { line, message };
            let content = raw.split('#').next().unwrap_or("");
            if content.trim().is_empty() {
                continue;
            }
            let words: Vec<&'static str> = content.split_whitespace().collect();
            if !raw.starts_with(' ') {
                let (name, marks) = words
                    .split_first()
                    .ok_or_else(|| fail("empty module line".into()))?;
                let (marks, only_on) = match marks {
                    [v @ .., "pepper"] => (v, Some(Model::Pepper)),
                    [v @ .., "nao"] => (v, Some(Model::Nao)),
                    v => (v, None),
                };
                let versions = versions(marks).map_err(fail)?;
                if modules.iter().any(|m| m.name == *name) {
                    return Err(fail(format!("module {name} comes twice")));
                }
                if !is_name(name) {
                    return Err(fail(format!("{name:?} is not a module name")));
                }
                modules.push(Module {
                    name,
                    versions,
                    only_on,
                    methods: Vec::new(),
                });
                continue;
            }
            let module = modules
                .last_mut()
                .ok_or_else(|| fail("a method before any module".into()))?;
            let [name, params, returns, marks @ ..] = words.as_slice() else {
                return Err(fail("a method needs `name (params) return`".into()));
            };
            let versions = if marks.is_empty() {
                module.versions
            } else {
                versions(marks).map_err(fail)?
            };
            if !is_name(name) {
                return Err(fail(format!("{name:?} is not a method name")));
            }
            check_signature(params, true).map_err(fail)?;
            check_signature(returns, false).map_err(fail)?;
            if module.overloads(name).any(|m| m.params == *params) {
                return Err(fail(format!("{}.{name}{params} comes twice", module.name)));
            }
            for v in Version::ALL {
                let (of_module, of_method) = (module.versions.get(v), versions.get(v));
                let agrees = match of_method {
                    Presence::Yes => of_module == Presence::Yes,
                    Presence::Unknown => of_module != Presence::No,
                    Presence::No => true,
                };
                if !agrees {
                    return Err(fail(format!(
                        "{}.{name}: {v} marked {of_method:?} but the module {of_module:?}",
                        module.name
                    )));
                }
            }
            module.methods.push(Method {
                name,
                params,
                returns,
                versions,
            });
        }
        if let Some(empty) = modules.iter().find(|m| m.methods.is_empty()) {
            return Err(CatalogueError {
                line: text.lines().count(),
                message: format!("module {} has no method", empty.name),
            });
        }
        Ok(Catalogue { modules })
    }

    /// Every module.
    pub fn modules(&self) -> &[Module] {
        &self.modules
    }

    /// Module `name`, if NAOqi has it.
    pub fn module(&self, name: &str) -> Option<&Module> {
        self.modules.iter().find(|m| m.name == name)
    }

    /// Whether robot `model` has module `name` (true for a module the catalogue lacks: it
    /// does not know).
    pub fn on_robot(&self, name: &str, model: Model) -> bool {
        self.module(name)
            .and_then(|m| m.only_on)
            .is_none_or(|only| only == model)
    }

    /// The modules named in `code` (a box script, a Python file) that only one robot has,
    /// each once, in the order first named: what tells a project made for that robot.
    pub fn only_on_one(&self, code: &str) -> Vec<(Model, &'static str)> {
        let mut out: Vec<(Model, &'static str)> = Vec::new();
        let words = code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        for word in words.filter(|w| w.starts_with("AL")) {
            if let Some(m) = self.module(word)
                && let Some(only) = m.only_on
                && !out.iter().any(|(_, n)| *n == m.name)
            {
                out.push((only, m.name));
            }
        }
        out
    }

    /// How many method overloads the catalogue holds.
    pub fn method_count(&self) -> usize {
        self.modules.iter().map(|m| m.methods.len()).sum()
    }
}

fn versions(marks: &[&str]) -> Result<Versions, String> {
    let presences: Vec<Presence> = marks
        .iter()
        .map(|m| Presence::from_mark(m).ok_or_else(|| format!("{m:?} is not a version mark")))
        .collect::<Result<_, _>>()?;
    <[Presence; 4]>::try_from(presences)
        .map(Versions)
        .map_err(|p| format!("{} version marks, 4 expected", p.len()))
}

/// A module or method name: a letter or `_` first (NAOqi's private methods, such as
/// `ALMotion._relaxMotorsWhenSitting`, start with one), then letters, digits and `_`.
fn is_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The shape of a qi signature: its letters and balanced brackets (a tuple when `tuple`).
/// choreo-qi's tests also read every one with its signature parser.
fn check_signature(sig: &str, tuple: bool) -> Result<(), String> {
    const LETTERS: &str = "vbcCwWiIlLfdsmor";
    let mut open: Vec<char> = Vec::new();
    for c in sig.chars() {
        match c {
            '(' | '[' | '{' => open.push(c),
            ')' | ']' | '}' => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if open.pop() != Some(want) {
                    return Err(format!("{sig:?}: unbalanced {c}"));
                }
            }
            c if LETTERS.contains(c) => {}
            c => return Err(format!("{sig:?}: {c:?} is not a qi signature letter")),
        }
    }
    if !open.is_empty() || sig.is_empty() {
        return Err(format!("{sig:?}: incomplete signature"));
    }
    if tuple && !(sig.starts_with('(') && sig.ends_with(')')) {
        return Err(format!("{sig:?}: parameters must be a tuple"));
    }
    Ok(())
}

/// The Levenshtein distance between two names, by characters, ignoring ASCII case.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_file_is_well_formed() {
        let parsed = Catalogue::parse(TEXT);
        assert!(parsed.is_ok(), "{:?}", parsed.err());
        let catalogue = Catalogue::naoqi();
        assert!(
            catalogue.modules().len() >= 80,
            "{}",
            catalogue.modules().len()
        );
        assert!(
            catalogue.method_count() >= 1500,
            "{}",
            catalogue.method_count()
        );
    }

    #[test]
    fn it_keeps_what_naoqi_services_lists() {
        let c = Catalogue::naoqi();
        let sigs = |module: &str, method: &str| -> Vec<&str> {
            c.module(module)
                .map(|m| m.overloads(method).map(|o| o.params).collect())
                .unwrap_or_default()
        };
        for sig in ["(sffff)", "(ssf)", "(sif)"] {
            assert!(sigs("ALLeds", "fadeRGB").contains(&sig), "fadeRGB{sig}");
        }
        for sig in ["(si)", "(sf)", "(ss)", "(sm)"] {
            assert!(
                sigs("ALMemory", "insertData").contains(&sig),
                "insertData{sig}"
            );
        }
        assert_eq!(sigs("ALTextToSpeech", "say")[..2], ["(s)", "(ss)"]);
        // The served order starts with the methods first surveyed (their uids follow 112).
        let posture = c.module("ALRobotPosture").map(|m| m.methods[0].name);
        assert_eq!(posture, Some("goToPosture"));
        assert!(c.module("ALNoSuchModule").is_none());
    }

    #[test]
    fn versions_agree_with_their_modules() {
        for module in Catalogue::naoqi().modules() {
            for m in &module.methods {
                for v in Version::ALL {
                    if m.versions.get(v) == Presence::Yes {
                        assert_eq!(
                            module.versions.get(v),
                            Presence::Yes,
                            "{}.{}",
                            module.name,
                            m.name
                        );
                    }
                }
            }
        }
        let c = Catalogue::naoqi();
        let tablet = c.module("ALTabletService").map(|m| m.versions);
        assert_eq!(
            tablet.map(|v| v.get(Version::V2_9)),
            Some(Presence::Unknown)
        );
        let motion = c.module("ALMotion").map(|m| m.versions.known());
        assert_eq!(
            motion,
            Some(vec![Version::V2_1, Version::V2_5, Version::V2_8])
        );
    }

    #[test]
    fn malformed_catalogues_are_refused_with_their_line() {
        let cases: [(&'static str, usize, &str); 7] = [
            ("ALA y y y ?\n  f (s) v\n  f (s) i\n", 3, "comes twice"),
            ("ALA y y y ?\n  f (s v\n", 2, "incomplete"),
            ("ALA y y y ?\n  f s v\n", 2, "tuple"),
            ("ALA y y y\n  f (s) v\n", 1, "4 expected"),
            ("ALA n y y ?\n  f (s) v y y y ?\n", 2, "marked Yes"),
            ("  f (s) v\n", 1, "before any module"),
            (
                "ALA y y y ?\nALB y y y ?\n  f (q) v\n",
                3,
                "not a qi signature letter",
            ),
        ];
        for (text, line, says) in cases {
            let err = Catalogue::parse(text).err();
            assert_eq!(err.as_ref().map(|e| e.line), Some(line), "{text}");
            assert!(err.is_some_and(|e| e.message.contains(says)), "{text}");
        }
        let empty = Catalogue::parse("ALA y y y ?\n").err();
        assert!(empty.is_some_and(|e| e.message.contains("no method")));
    }

    #[test]
    fn closest_names_come_by_edit_distance() {
        assert_eq!(edit_distance("moveTo", "moveTo"), 0);
        assert_eq!(edit_distance("moveToo", "moveTo"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        let motion = Catalogue::naoqi().module("ALMotion");
        let near = motion.map(|m| m.closest("moveToo", 3)).unwrap_or_default();
        assert_eq!(near.first(), Some(&"moveTo"), "{near:?}");
        assert!(near.len() <= 3);
        let far = motion.map(|m| m.closest("qqqqqqqqqqqqqqqq", 3));
        assert_eq!(far, Some(vec![]));
        let base = motion.map(|m| m.closest("isRuning", 1));
        assert_eq!(base, Some(vec!["isRunning"]));
    }
}
