//! Behaviors defined in JSON (behavior-stack.md §10.3): one file per behavior id, named after
//! it, `//` comments allowed; `behaviorClass` picks the class, whose keys are read through a
//! [`Spec`] that remembers which it read, so that any other key is an error naming the file,
//! the line and the key (the original only flagged them in dev builds).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value as Json};

/// A definition that cannot be used, located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", file.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct DefinitionError {
    /// The file.
    pub file: PathBuf,
    /// The line (1-based), where it is known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// One behavior's definition: its file's keys, read through [`Spec`].
#[derive(Debug, Clone)]
pub struct Definition {
    /// The file it came from.
    pub file: PathBuf,
    /// `behaviorID` (or `behaviorName` for an anonymous behavior).
    pub id: String,
    /// `behaviorClass`.
    pub class: String,
    /// The owner, for an anonymous behavior.
    pub owner: Option<String>,
    /// Every key of its object.
    pub keys: Map<String, Json>,
    /// The file's text (to find a key's line).
    text: std::sync::Arc<str>,
}

/// Reads every `*.json` file of `dir` (sorted by name): each must define one behavior whose
/// `behaviorID`, lower-cased, is its file name's stem, lower-cased. Anonymous behaviors come
/// right after their owner.
pub fn load_dir(dir: &Path) -> Result<Vec<Definition>, DefinitionError> {
    let at = |message: String| DefinitionError {
        file: dir.to_path_buf(),
        line: None,
        message,
    };
    let entries = std::fs::read_dir(dir).map_err(|e| at(format!("cannot read the folder: {e}")))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("json"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(at("no behavior definitions (*.json) here".into()));
    }
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(|e| DefinitionError {
            file: file.clone(),
            line: None,
            message: format!("cannot read: {e}"),
        })?;
        out.extend(parse(&file, &text)?);
    }
    Ok(out)
}

/// The definitions in one file's text (the behavior, then its anonymous behaviors).
pub fn parse(file: &Path, text: &str) -> Result<Vec<Definition>, DefinitionError> {
    let text: std::sync::Arc<str> = std::sync::Arc::from(strip_comments(text));
    let json: Json = serde_json::from_str(&text).map_err(|e| DefinitionError {
        file: file.to_path_buf(),
        line: Some(e.line()),
        message: format!("not JSON: {e}"),
    })?;
    let Json::Object(keys) = json else {
        return Err(DefinitionError {
            file: file.to_path_buf(),
            line: None,
            message: "a behavior definition is a JSON object".into(),
        });
    };
    let mut def = Definition::new(file, &text, keys, None)?;
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if def.id.to_lowercase() != stem {
        return Err(def.error(
            Some("behaviorID"),
            format!(
                "behaviorID {:?} does not match the file name (expected {stem:?}, lower-cased)",
                def.id
            ),
        ));
    }
    let mut out = Vec::new();
    let anonymous = match def.keys.remove("anonymousBehaviors") {
        None => Vec::new(),
        Some(Json::Array(items)) => items,
        Some(_) => {
            return Err(def.error(Some("anonymousBehaviors"), "must be a list".into()));
        }
    };
    let owner = def.id.clone();
    out.push(def);
    for item in anonymous {
        let Json::Object(keys) = item else {
            return Err(out[0].error(
                Some("anonymousBehaviors"),
                "each anonymous behavior is an object".into(),
            ));
        };
        out.push(Definition::new(file, &text, keys, Some(owner.clone()))?);
    }
    Ok(out)
}

impl Definition {
    fn new(
        file: &Path,
        text: &std::sync::Arc<str>,
        mut keys: Map<String, Json>,
        owner: Option<String>,
    ) -> Result<Definition, DefinitionError> {
        let id_key = if owner.is_some() {
            "behaviorName"
        } else {
            "behaviorID"
        };
        let mut def = Definition {
            file: file.to_path_buf(),
            id: String::new(),
            class: String::new(),
            owner,
            keys: Map::new(),
            text: text.clone(),
        };
        let take_str =
            |keys: &mut Map<String, Json>, key: &str, def: &Definition| match keys.remove(key) {
                Some(Json::String(s)) if !s.is_empty() => Ok(s),
                Some(_) => Err(def.error(Some(key), format!("{key} must be a non-empty string"))),
                None => Err(def.error(None, format!("{key} is missing"))),
            };
        def.id = take_str(&mut keys, id_key, &def)?;
        def.class = take_str(&mut keys, "behaviorClass", &def)?;
        def.keys = keys;
        Ok(def)
    }

    /// An error about this definition, at `key`'s line if given and found.
    pub fn error(&self, key: Option<&str>, message: String) -> DefinitionError {
        DefinitionError {
            file: self.file.clone(),
            line: key.and_then(|k| line_of(&self.text, k)),
            message: match &self.owner {
                Some(owner) => format!("anonymous behavior {:?} of {owner}: {message}", self.id),
                None => message,
            },
        }
    }

    /// A reader of its keys.
    pub fn spec(&self) -> Spec<'_> {
        Spec {
            def: self,
            used: RefCell::new(BTreeSet::new()),
        }
    }
}

/// Reads a definition's keys with their types checked, remembering which were read:
/// [`Spec::finish`] then refuses the others.
pub struct Spec<'a> {
    def: &'a Definition,
    used: RefCell<BTreeSet<String>>,
}

impl Spec<'_> {
    /// The definition.
    pub fn definition(&self) -> &Definition {
        self.def
    }

    /// The raw value of `key`, if present (marked read).
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.used.borrow_mut().insert(key.to_string());
        self.def.keys.get(key)
    }

    /// An error at `key`.
    pub fn error(&self, key: &str, message: impl Into<String>) -> DefinitionError {
        self.def
            .error(Some(key), format!("{key}: {}", message.into()))
    }

    /// A required string.
    pub fn string(&self, key: &str) -> Result<String, DefinitionError> {
        match self.get(key) {
            Some(Json::String(s)) => Ok(s.clone()),
            Some(_) => Err(self.error(key, "must be a string")),
            None => Err(self.def.error(None, format!("{key} is missing"))),
        }
    }

    /// An optional boolean.
    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool, DefinitionError> {
        match self.get(key) {
            None => Ok(default),
            Some(Json::Bool(b)) => Ok(*b),
            Some(_) => Err(self.error(key, "must be true or false")),
        }
    }

    /// An optional number.
    pub fn f64_or(&self, key: &str, default: f64) -> Result<f64, DefinitionError> {
        match self.get(key) {
            None => Ok(default),
            Some(Json::Number(n)) => n
                .as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| self.error(key, "must be a finite number")),
            Some(_) => Err(self.error(key, "must be a number")),
        }
    }

    /// An optional integer.
    pub fn i64_or(&self, key: &str, default: i64) -> Result<i64, DefinitionError> {
        match self.get(key) {
            None => Ok(default),
            Some(Json::Number(n)) => n
                .as_i64()
                .ok_or_else(|| self.error(key, "must be an integer")),
            Some(_) => Err(self.error(key, "must be an integer")),
        }
    }

    /// A required list.
    pub fn list(&self, key: &str) -> Result<&Vec<Json>, DefinitionError> {
        match self.get(key) {
            Some(Json::Array(v)) => Ok(v),
            Some(_) => Err(self.error(key, "must be a list")),
            None => Err(self.def.error(None, format!("{key} is missing"))),
        }
    }

    /// Every key that was not read: an error naming the first.
    pub fn finish(&self) -> Result<(), DefinitionError> {
        let used = self.used.borrow();
        match self.def.keys.keys().find(|k| !used.contains(*k)) {
            None => Ok(()),
            Some(k) => Err(self.def.error(
                Some(k),
                format!("unknown key {k:?} for a {}", self.def.class),
            )),
        }
    }
}

/// The line (1-based) of the first `"key"` in `text`.
fn line_of(text: &str, key: &str) -> Option<usize> {
    let needle = format!("\"{key}\"");
    let at = text.find(&needle)?;
    Some(text[..at].matches('\n').count() + 1)
}

/// `text` with `//` comments blanked out (outside strings), lines kept.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if c == '/' && chars.peek() == Some(&'/') {
            for rest in chars.by_ref() {
                if rest == '\n' {
                    out.push('\n');
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
