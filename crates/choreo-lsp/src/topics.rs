//! What the server knows of QiChat topics: the names they define and use
//! ([`choreo_qichat::names`]) across the project's topics (static concepts and variables
//! are global, the syntax page says; tags and `def:` functions belong to their topic), for
//! going to definitions, finding references, renaming, hovering, completing, outlining, and
//! the warnings a typo earns (a concept no topic defines, a `^goto` to no tag).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use choreo_qichat::names::{NameKind, Occurrence, occurrences};
use lsp_types::{
    CompletionItem, CompletionItemKind, Diagnostic, DiagnosticSeverity, DocumentSymbol, Location,
    Position, Range, SymbolKind, TextEdit, Url, WorkspaceEdit,
};

use crate::documents::{Documents, byte_of_column, line_of, range};

/// The topics of a project, each with its names.
pub struct Project {
    topics: Vec<(PathBuf, String, Vec<Occurrence>)>,
}

impl Project {
    /// The project around `path` (its text as typed).
    pub fn around(docs: &Documents, path: &Path) -> Project {
        let topics = docs
            .project_topics(path)
            .into_iter()
            .map(|(p, text)| {
                let names = occurrences(&text);
                (p, text, names)
            })
            .collect();
        Project { topics }
    }

    fn topic(&self, path: &Path) -> Option<&(PathBuf, String, Vec<Occurrence>)> {
        self.topics.iter().find(|(p, _, _)| p == path)
    }

    /// The name under `position` of topic `path`.
    pub fn at(&self, path: &Path, position: Position) -> Option<&Occurrence> {
        let (_, text, names) = self.topic(path)?;
        let n = usize::try_from(position.line).ok()?;
        let byte = byte_of_column(line_of(text, n), position.character);
        names
            .iter()
            .find(|o| o.line == n && o.start <= byte && byte <= o.end)
    }

    /// Every place named like `o` where it means the same thing: in every topic for
    /// concepts, variables and the topic's name, in `path` only for tags and functions.
    pub fn same(&self, path: &Path, o: &Occurrence) -> Vec<Location> {
        self.places(path, o, false)
    }

    /// Where the name under `position` is defined (an `include:` line: the file it names).
    pub fn definition(&self, path: &Path, position: Position) -> Vec<Location> {
        let Some(o) = self.at(path, position) else {
            return Vec::new();
        };
        if o.kind == NameKind::Include {
            let file = path.parent().map(|d| d.join(&o.name));
            return file
                .filter(|f| f.is_file())
                .and_then(|f| Url::from_file_path(f).ok())
                .map(|uri| Location::new(uri, Range::default()))
                .into_iter()
                .collect();
        }
        self.places(path, o, true)
    }

    /// The places of `o`'s name and kind (only those defining it, if `defining`), in the
    /// topics where it means the same.
    fn places(&self, path: &Path, o: &Occurrence, defining: bool) -> Vec<Location> {
        let mut out = Vec::new();
        for (p, text, names) in &self.topics {
            if !global(o.kind) && p != path {
                continue;
            }
            let Ok(uri) = Url::from_file_path(p) else {
                continue;
            };
            for other in names {
                if other.kind == o.kind && other.name == o.name && (other.defines || !defining) {
                    let r = range(text, other.line, other.start, other.end);
                    out.push(Location::new(uri.clone(), r));
                }
            }
        }
        out
    }

    /// A rename of the concept, tag, variable or function under `position` to `new_name`
    /// in every place it means the same; `Err` says why not.
    pub(crate) fn rename(
        &self,
        path: &Path,
        position: Position,
        new_name: &str,
    ) -> Result<WorkspaceEdit, String> {
        let o = self
            .at(path, position)
            .ok_or("no concept, tag, variable or function here")?;
        if matches!(o.kind, NameKind::Include | NameKind::Topic) {
            return Err(format!("a {} is not renamed here", o.kind.words()));
        }
        let variable = o.kind == NameKind::Variable;
        let valid = !new_name.is_empty()
            && new_name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || (variable && matches!(c, '/' | '-')));
        if !valid {
            return Err(format!(
                "{new_name:?} is not a QiChat {} name",
                o.kind.words()
            ));
        }
        let mut changes: HashMap<Url, Vec<TextEdit>> = HashMap::new();
        for l in self.same(path, o) {
            changes
                .entry(l.uri)
                .or_default()
                .push(TextEdit::new(l.range, new_name.to_string()));
        }
        Ok(WorkspaceEdit::new(changes))
    }

    /// The warnings of topic `path` that its names earn: a concept no topic of the project
    /// defines (`~x` would match nothing: NAOqi refuses to load the topic), a tag that a
    /// `^goto`, `^activate` or `^deactivate` names and no rule of the topic carries; and, as
    /// information, a variable no topic sets (the syntax page: a cleared variable "cannot be
    /// said", "a condition with cleared variable is always false").
    pub fn diagnostics(&self, path: &Path) -> Vec<Diagnostic> {
        let Some((_, text, names)) = self.topic(path) else {
            return Vec::new();
        };
        let defined = |kind: NameKind, name: &str, anywhere: bool| {
            self.topics
                .iter()
                .filter(|(p, _, _)| anywhere || p == path)
                .any(|(_, _, ns)| {
                    ns.iter()
                        .any(|d| d.defines && d.kind == kind && d.name == name)
                })
        };
        let mut out = Vec::new();
        for o in names.iter().filter(|o| !o.defines) {
            let message = match o.kind {
                NameKind::Concept if !defined(NameKind::Concept, &o.name, true) => format!(
                    "concept ~{} is defined by no topic of this project (concept:({}) or \
                     dynamic: {})",
                    o.name, o.name, o.name
                ),
                NameKind::Tag if !defined(NameKind::Tag, &o.name, false) => {
                    format!("no rule of this topic carries the tag %{}", o.name)
                }
                // An ALMemory key (`$Dialog/Answered`) is NAOqi's to set.
                NameKind::Variable
                    if !o.name.contains('/') && !defined(NameKind::Variable, &o.name, true) =>
                {
                    format!(
                        "no topic of this project sets ${}: until a box or a script does, an \
                         output saying it is not said and a condition on it is false",
                        o.name
                    )
                }
                _ => continue,
            };
            let severity = if o.kind == NameKind::Variable {
                DiagnosticSeverity::INFORMATION
            } else {
                DiagnosticSeverity::WARNING
            };
            out.push(Diagnostic {
                range: range(text, o.line, o.start, o.end),
                severity: Some(severity),
                source: Some("choreo".into()),
                message,
                ..Diagnostic::default()
            });
        }
        out
    }

    /// Hover text for the name under `position`: a concept's definitions (their lines), a
    /// tag's rule, a variable's assignments.
    pub fn hover(&self, path: &Path, position: Position) -> Option<String> {
        let o = self.at(path, position)?;
        let mut lines = Vec::new();
        for l in self.definition(path, position) {
            let Ok(p) = l.uri.to_file_path() else {
                continue;
            };
            let Some((_, text, _)) = self.topic(&p) else {
                continue;
            };
            let n = usize::try_from(l.range.start.line).unwrap_or(usize::MAX);
            let file = p.file_name().map(|f| f.to_string_lossy().into_owned());
            lines.push(format!(
                "{}:{}: `{}`",
                file.unwrap_or_default(),
                n + 1,
                line_of(text, n).trim()
            ));
        }
        let head = format!("**{}** `{}`", o.kind.words(), o.name);
        if lines.is_empty() {
            return Some(format!("{head}: defined nowhere in this project"));
        }
        Some(format!("{head}\n\n{}", lines.join("\n\n")))
    }

    /// The names of `kind` that the project (for tags and functions: topic `path`) defines,
    /// once each.
    pub fn defined_names(&self, path: &Path, kind: NameKind) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (p, _, names) in &self.topics {
            if !global(kind) && p != path {
                continue;
            }
            for o in names.iter().filter(|o| o.kind == kind && o.defines) {
                if !out.contains(&o.name) {
                    out.push(o.name.clone());
                }
            }
        }
        out.sort();
        out
    }
}

/// Whether names of `kind` mean the same in every topic of a project (static concepts and
/// variables are global, the syntax page says; tags and `def:` functions are the topic's).
fn global(kind: NameKind) -> bool {
    matches!(
        kind,
        NameKind::Concept | NameKind::Variable | NameKind::Topic
    )
}

/// The header keywords and rule types a line starts with.
const KEYWORDS: &[(&str, &str)] = &[
    ("topic:", "topic: ~name()"),
    ("language:", "language: enu"),
    ("concept:", "concept:(name) [words]"),
    ("dynamic:", "dynamic: name"),
    ("include:", "include: file.top"),
    ("def:", "def:name($a) output"),
    ("u:", "u:(what the human says) what the robot answers"),
    ("proposal:", "proposal: what the robot says first"),
    ("u1:", "u1:(answer) subrule, after its parent"),
    ("e:", "u:(e:Event/Name) answer to an ALMemory event"),
    ("recover:", "recover: rules answering when no other does"),
];

/// What may be typed at `position` of topic `path`: after `~` the project's concepts,
/// after `%` or in `^goto(` the topic's tags, after `$` the variables, after `^` QiChat's
/// functions, at a line's start the keywords, elsewhere the concepts and variables with
/// their sigils.
pub fn completion(
    project: &Project,
    path: &Path,
    text: &str,
    position: Position,
) -> Vec<CompletionItem> {
    let n = usize::try_from(position.line).unwrap_or(usize::MAX);
    let line = line_of(text, n);
    let before = &line[..byte_of_column(line, position.character)];
    let word_start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '/'))
        .map_or(0, |i| {
            i + before[i..].chars().next().map_or(1, char::len_utf8)
        });
    let sigil = before[..word_start].chars().last();
    let item = |label: String, kind: CompletionItemKind, detail: &str| CompletionItem {
        label,
        kind: Some(kind),
        detail: Some(detail.to_string()),
        ..CompletionItem::default()
    };
    let names = |kind: NameKind, k: CompletionItemKind| {
        project
            .defined_names(path, kind)
            .into_iter()
            .map(|n| item(n, k, kind.words()))
            .collect::<Vec<_>>()
    };
    let in_goto = ["^goto(", "^gotoReactivate(", "^activate(", "^deactivate("]
        .iter()
        .any(|f| before[..word_start].ends_with(f));
    match sigil {
        Some('~') => names(NameKind::Concept, CompletionItemKind::ENUM),
        Some('%') => names(NameKind::Tag, CompletionItemKind::REFERENCE),
        Some('(') if in_goto => names(NameKind::Tag, CompletionItemKind::REFERENCE),
        Some('$') => names(NameKind::Variable, CompletionItemKind::VARIABLE),
        Some('^') => {
            let mut out: Vec<CompletionItem> = choreo_qichat::Builtin::ALL
                .iter()
                .map(|(_, name)| {
                    item(
                        (*name).to_string(),
                        CompletionItemKind::FUNCTION,
                        "QiChat function",
                    )
                })
                .collect();
            out.extend(names(NameKind::Function, CompletionItemKind::FUNCTION));
            out
        }
        _ if before.trim().is_empty() || before.trim() == &before[word_start..] => KEYWORDS
            .iter()
            .map(|(k, example)| item((*k).to_string(), CompletionItemKind::KEYWORD, example))
            .collect(),
        // Elsewhere in a rule, nothing typed to say which (Ctrl+Space): the concepts and
        // the variables, each with its sigil.
        _ => [
            (NameKind::Concept, CompletionItemKind::ENUM, '~'),
            (NameKind::Variable, CompletionItemKind::VARIABLE, '$'),
        ]
        .into_iter()
        .flat_map(|(kind, k, sigil)| {
            names(kind, k).into_iter().map(move |mut i| {
                i.label = format!("{sigil}{}", i.label);
                i
            })
        })
        .collect(),
    }
}

/// The outline of a topic: its name, concepts, functions and rules (subrules inside their
/// parent), from its lines.
#[allow(deprecated)] // DocumentSymbol's `deprecated` field must be written.
pub fn symbols(text: &str) -> Vec<DocumentSymbol> {
    let mut out: Vec<DocumentSymbol> = Vec::new();
    // The open rules by level: a `uN:` goes under the last rule of level N - 1.
    let mut open: Vec<usize> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = choreo_qichat::names::code_part(raw);
        let Some((word, after)) = choreo_qichat::names::keyword(line) else {
            continue;
        };
        let digits = word.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let letters = &word[..word.len() - digits.len()];
        let kind = match (letters, digits.is_empty()) {
            ("topic", true) => SymbolKind::MODULE,
            ("concept" | "dynamic", true) => SymbolKind::ENUM,
            ("def", true) => SymbolKind::FUNCTION,
            ("u" | "proposal" | "e" | "l" | "s", true) | ("u" | "c" | "e", false) => {
                SymbolKind::EVENT
            }
            _ => continue,
        };
        let start = line.len() - line.trim_start().len();
        let end = line.trim_end().len().max(start);
        let whole = range(text, n, start, end);
        let detail = line[after..].trim();
        let symbol = DocumentSymbol {
            name: format!("{word}: {}", shorten(detail)),
            detail: None,
            kind,
            tags: None,
            deprecated: None,
            range: whole,
            selection_range: whole,
            children: None,
        };
        let level: usize = digits.parse().unwrap_or(0);
        if kind == SymbolKind::EVENT && level > 0 {
            open.truncate(level);
            if let Some(parent) = parent_of(&mut out, &open) {
                let children = parent.children.get_or_insert_with(Vec::new);
                children.push(symbol);
                open.push(children.len() - 1);
                continue;
            }
        }
        out.push(symbol);
        open.clear();
        if kind == SymbolKind::EVENT {
            open.push(out.len() - 1);
        }
    }
    out
}

/// The symbol at the path of child indices `open` (`None` if the path is broken: a `u2:`
/// without a `u1:`).
fn parent_of<'a>(top: &'a mut [DocumentSymbol], open: &[usize]) -> Option<&'a mut DocumentSymbol> {
    let (first, rest) = open.split_first()?;
    let mut at = top.get_mut(*first)?;
    for i in rest {
        at = at.children.as_mut()?.get_mut(*i)?;
    }
    Some(at)
}

/// At most 60 characters of a rule, for an outline.
fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        out.push('…');
    }
    out
}
