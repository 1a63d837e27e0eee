//! The rules of the house, checked rather than remembered (docs/architecture.md): no import
//! circle between the files of a crate, every arrow between crates pointing down the layers,
//! no source file over [`LONG_FILE`] lines and no function over [`LONG_FUNCTION`] lines
//! unless listed with its reason.
//!
//! Imports are read from the code's own paths: `crate::a::b`, `super::a`, `self::a`, grouped
//! (`use crate::{a, b::{c, d}}`) or not, and a module root's paths to its own children
//! (`use child::Item` in a `mod.rs`). Comments and `#[cfg(test)]` modules are left out. The
//! crate root (`lib.rs`, `main.rs`) is the crate's front door: what it re-exports is not an
//! arrow of its own, and paths through it (`crate::Item`) are not followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A source file longer than this many lines must be listed with a reason.
pub const LONG_FILE: usize = 1200;

/// A function longer than this many lines (signature to closing brace) must be listed with a
/// reason.
pub const LONG_FUNCTION: usize = 100;

/// The crates from the bottom up: a crate may depend only on crates of lower layers (its
/// tests, on lower or equal ones). A crate missing here fails the check, so that a new crate
/// is placed on purpose.
pub const LAYERS: &[&[&str]] = &[
    &[
        "choreo-base",
        "choreo-robot",
        "choreo-sandbox",
        "choreo-testkit",
    ],
    &["choreo-qichat"],
    &["choreo-xar"],
    &["choreo-motion"],
    &["choreo-body"],
    &["choreo-engine"],
    &[
        "choreo-naoqi",
        "choreo-qi",
        "choreo-stack",
        "choreo-monitor",
    ],
    &["choreo-python"],
    &["choreo-lsp"],
    &["choreo-editor"],
    &["choreo"],
    &["choreo-py"],
];

/// A crate of the workspace: its package name and folder.
#[derive(Debug, Clone)]
pub struct Crate {
    /// Its package name (`choreo-engine`).
    pub name: String,
    /// Its folder (holding `Cargo.toml`).
    pub dir: PathBuf,
}

/// The workspace's root folder: two levels above the crate whose test runs (read when the
/// test runs, as cargo sets it, so that a binary built from another copy of the repository
/// still checks this one), else above this crate.
pub fn workspace_root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .join("../..")
}

/// Every crate of the workspace (`crates/*`) and the Python package's (`python`).
pub fn crates(root: &Path) -> Vec<Crate> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.push(root.join("python"));
    dirs.sort();
    dirs.into_iter()
        .filter_map(|dir| {
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
            let name = package_name(&manifest)?;
            Some(Crate { name, dir })
        })
        .collect()
}

/// The `name` of a manifest's `[package]`.
fn package_name(manifest: &str) -> Option<String> {
    section(manifest, "package")
        .into_iter()
        .find_map(|l| l.strip_prefix("name"))
        .and_then(|rest| rest.split('"').nth(1))
        .map(str::to_string)
}

/// The lines of a manifest's `[name]` table.
fn section<'a>(manifest: &'a str, name: &str) -> Vec<&'a str> {
    let header = format!("[{name}]");
    manifest
        .lines()
        .skip_while(|l| l.trim() != header)
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .map(str::trim)
        .collect()
}

/// The workspace crates a manifest's `[name]` table depends on.
pub fn choreo_dependencies(manifest: &str, table: &str) -> Vec<String> {
    section(manifest, table)
        .into_iter()
        .filter(|l| l.starts_with("choreo"))
        .filter_map(|l| l.split(['=', '.', ' ']).next())
        .map(str::to_string)
        .collect()
}

/// Every crate a manifest's `[name]` table depends on (the key, as written: `serde_json`,
/// `thread-priority`).
pub fn dependencies(manifest: &str, table: &str) -> Vec<String> {
    section(manifest, table)
        .into_iter()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split(['=', '.', ' ']).next())
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect()
}

/// The `[dependencies]` of a crate that none of its code names (`src/`, `build.rs`, as
/// `name_with_underscores`): a dependency left behind by a move.
pub fn unused_dependencies(krate: &Crate) -> Vec<String> {
    let manifest = std::fs::read_to_string(krate.dir.join("Cargo.toml")).unwrap_or_default();
    let mut code = String::new();
    let mut files = crate::files_under(&krate.dir.join("src"), &|p| {
        crate::has_extension(p, &["rs"])
    });
    files.push(krate.dir.join("build.rs"));
    for f in files {
        code.push_str(&std::fs::read_to_string(f).unwrap_or_default());
    }
    dependencies(&manifest, "dependencies")
        .into_iter()
        .filter(|d| !code.contains(&d.replace('-', "_")))
        .collect()
}

/// A crate's layer in [`LAYERS`].
pub fn layer(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&name))
}

/// What is wrong with a crate's arrows to other crates: a crate outside [`LAYERS`], a
/// dependency on its own layer or above, a dev-dependency above.
pub fn arrow_faults(krate: &Crate) -> Vec<String> {
    let Some(mine) = layer(&krate.name) else {
        return vec![format!("{} has no place in LAYERS", krate.name)];
    };
    let manifest = std::fs::read_to_string(krate.dir.join("Cargo.toml")).unwrap_or_default();
    let mut faults = Vec::new();
    for (table, allowed) in [("dependencies", mine), ("dev-dependencies", mine + 1)] {
        for dep in choreo_dependencies(&manifest, table) {
            match layer(&dep) {
                Some(l) if l < allowed => {}
                Some(_) => faults.push(format!("{} -> {dep} ({table}) points up", krate.name)),
                None => faults.push(format!("{dep} has no place in LAYERS")),
            }
        }
    }
    faults
}

/// Every `.rs` file under `src`, by module path (`engine::state`; `""` for the root).
pub fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for path in crate::files_under(src, &|p| p.extension().is_some_and(|e| e == "rs")) {
        let rel = path.strip_prefix(src).unwrap_or(&path).with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.last().is_some_and(|p| p == "mod")
            || (parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main"))
        {
            parts.pop();
        }
        out.insert(parts.join("::"), path);
    }
    out
}

/// The code of a source text: `#[cfg(test)]` modules (from the first one on, as they end
/// files) and comments left out.
fn code_of(text: &str) -> String {
    text.split("#[cfg(test)]")
        .next()
        .unwrap_or(text)
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path the code names, grouped imports expanded: `use a::{b, c::{d}}` gives `a::b`
/// and `a::c::d`. Paths outside `use` items are read as they stand.
pub fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts = (c.is_alphabetic() || c == '_')
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'));
        if !starts {
            i += 1;
            continue;
        }
        let (prefix, end) = path_at(&chars, i);
        if chars.get(end) == Some(&'{') && prefix.ends_with("::") {
            let (inner, close) = group_at(&chars, end);
            for item in expand_group(&inner) {
                out.push(format!("{prefix}{item}"));
            }
            i = close + 1;
        } else {
            out.push(prefix.trim_end_matches("::").to_string());
            i = end.max(i + 1);
        }
    }
    out.retain(|p| p.contains("::"));
    out
}

/// The path starting at `i` (identifiers joined by `::`, spaces allowed around `::`), and
/// where it ends.
fn path_at(chars: &[char], mut i: usize) -> (String, usize) {
    let mut path = String::new();
    loop {
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            path.push(chars[i]);
            i += 1;
        }
        let mut j = i;
        while j < chars.len() && chars[j].is_whitespace() {
            j += 1;
        }
        if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
            path.push_str("::");
            j += 2;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            i = j;
            if !chars.get(i).is_some_and(|c| c.is_alphabetic() || *c == '_') {
                return (path, i);
            }
        } else {
            return (path, i);
        }
    }
}

/// The text inside the braces opening at `open`, and where they close.
fn group_at(chars: &[char], open: usize) -> (String, usize) {
    let mut depth = 0usize;
    for (k, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return (chars[open + 1..k].iter().collect(), k);
                }
            }
            _ => {}
        }
    }
    (chars[open + 1..].iter().collect(), chars.len())
}

/// The items of a `{...}` group, nested groups expanded (`b, c::{d, e}` gives `b`, `c::d`,
/// `c::e`).
fn expand_group(inner: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in inner.chars().chain(std::iter::once(',')) {
        match c {
            '{' => {
                depth += 1;
                current.push(c);
            }
            '}' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ',' if depth == 0 => {
                let item: String = current.split_whitespace().collect::<Vec<_>>().join(" ");
                let item = item.split(" as ").next().unwrap_or_default().to_string();
                if let Some((head, rest)) = item.split_once('{') {
                    let head = head.replace(' ', "");
                    let rest = rest.strip_suffix('}').unwrap_or(rest);
                    items.extend(expand_group(rest).into_iter().map(|i| format!("{head}{i}")));
                } else if !item.is_empty() {
                    items.push(item.replace(' ', ""));
                }
                current.clear();
            }
            _ => current.push(c),
        }
    }
    items
}

/// The modules (of `known`) that the file of module `me` names: `crate::`, `super::` and
/// `self::` paths, and a module root's paths to its children, each to the longest prefix
/// that is a module, or, when that module only re-exports the item named, to the module the
/// item comes from (see [`reexports`]). The crate root is never one (see the module's doc).
pub fn imports(
    text: &str,
    me: &str,
    known: &BTreeMap<String, PathBuf>,
    reexported: &Reexports,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for path in paths(&code_of(text)) {
        if let Some(m) = target(&path, me, known, reexported) {
            out.insert(m);
        }
    }
    out.remove(me);
    out.remove("");
    out
}

/// The module a path from module `me` leads to, if one of `known`.
fn target(
    path: &str,
    me: &str,
    known: &BTreeMap<String, PathBuf>,
    reexported: &Reexports,
) -> Option<String> {
    let here: Vec<&str> = me.split("::").filter(|p| !p.is_empty()).collect();
    let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
    let absolute = resolve(&parts, &here, known)?;
    let n = (0..=absolute.len())
        .rev()
        .find(|n| known.contains_key(&absolute[..*n].join("::")))?;
    let mut module = absolute[..n].join("::");
    // Through re-exports, a few steps at most (a chain longer than that is not followed).
    if let Some(item) = absolute.get(n) {
        for _ in 0..4 {
            match reexported
                .get(&module)
                .and_then(|r| r.get(item.as_str()).or(r.get("*")))
            {
                Some(from) if from != &module => module = from.clone(),
                _ => break,
            }
        }
    }
    Some(module)
}

/// What each module re-exports (`pub use a::Item`): item name to the module it comes from
/// (`*` for a glob).
pub type Reexports = BTreeMap<String, BTreeMap<String, String>>;

/// The re-exports of every module of `known` (see [`Reexports`]).
pub fn reexports(known: &BTreeMap<String, PathBuf>) -> Reexports {
    let none = Reexports::new();
    known
        .iter()
        .map(|(m, path)| {
            let code = code_of(&std::fs::read_to_string(path).unwrap_or_default());
            let mut items = BTreeMap::new();
            for statement in code.split(';') {
                let s = statement.trim_start();
                let Some(rest) = s.strip_prefix("pub") else {
                    continue;
                };
                let rest = rest.trim_start();
                let rest = if rest.starts_with('(') {
                    rest.split_once(')').map_or("", |(_, r)| r).trim_start()
                } else {
                    rest
                };
                let Some(used) = rest.strip_prefix("use ") else {
                    continue;
                };
                for path in paths(used) {
                    let name = path.rsplit("::").next().unwrap_or_default().to_string();
                    if let Some(from) = target(&path, m, known, &none) {
                        items.insert(name, from);
                    }
                }
            }
            (m.clone(), items)
        })
        .collect()
}

/// A path's parts from the crate root, if it names something of this crate.
fn resolve(
    parts: &[&str],
    here: &[&str],
    known: &BTreeMap<String, PathBuf>,
) -> Option<Vec<String>> {
    let owned = |v: &[&str]| v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
    match parts.first().copied()? {
        "crate" => Some(owned(&parts[1..])),
        "self" => Some(owned(&[here, &parts[1..]].concat())),
        "super" => {
            let ups = parts.iter().take_while(|p| **p == "super").count();
            let base = here.len().checked_sub(ups)?;
            Some(owned(&[&here[..base], &parts[ups..]].concat()))
        }
        child => {
            let mut m = owned(here);
            m.push(child.to_string());
            known
                .contains_key(&m.join("::"))
                .then(|| owned(&[here, parts].concat()))
        }
    }
}

/// The arrows between a crate's files: module to the modules it names.
pub fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = modules(src);
    let reexported = reexports(&files);
    files
        .iter()
        .map(|(m, path)| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            (m.clone(), imports(&text, m, &files, &reexported))
        })
        .filter(|(m, _)| !m.is_empty())
        .collect()
}

/// A circle of arrows, if any: the modules along it, the first repeated at the end.
pub fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search with an explicit stack; a grey node met again closes a circle.
    let mut colour: BTreeMap<&str, u8> = BTreeMap::new();
    for start in edges.keys() {
        if colour.contains_key(start.as_str()) {
            continue;
        }
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(
            start,
            edges[start].iter().rev().map(String::as_str).collect(),
        )];
        colour.insert(start, 1);
        while let Some((node, next)) = stack.last_mut() {
            match next.pop() {
                Some(n) => match colour.get(n) {
                    Some(1) => {
                        let from = stack.iter().position(|(m, _)| *m == n).unwrap_or(0);
                        let mut circle: Vec<String> = stack[from..]
                            .iter()
                            .map(|(m, _)| (*m).to_string())
                            .collect();
                        circle.push(n.to_string());
                        return Some(circle);
                    }
                    Some(_) => {}
                    None => {
                        colour.insert(n, 1);
                        let more = edges
                            .get(n)
                            .map(|s| s.iter().rev().map(String::as_str).collect())
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
    None
}

/// Every circle's modules: the groups of modules that reach each other, for a report that
/// names them all at once.
pub fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = edges.clone();
    while let Some(circle) = find_cycle(&rest) {
        // Everything that reaches and is reached from the circle's first module.
        let first = &circle[0];
        let reach = |from: &str, graph: &BTreeMap<String, BTreeSet<String>>| {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from.to_string()];
            while let Some(m) = todo.pop() {
                for n in graph.get(&m).into_iter().flatten() {
                    if seen.insert(n.clone()) {
                        todo.push(n.clone());
                    }
                }
            }
            seen
        };
        let forward = reach(first, &rest);
        let mut reversed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, to) in &rest {
            for n in to {
                reversed.entry(n.clone()).or_default().insert(m.clone());
            }
        }
        let backward = reach(first, &reversed);
        let group: Vec<String> = forward.intersection(&backward).cloned().collect();
        for m in &group {
            rest.remove(m);
        }
        for to in rest.values_mut() {
            to.retain(|n| !group.contains(n));
        }
        out.push(group);
    }
    out
}

/// Source files of a crate (`.rs` anywhere but `target`, and the monitor's `.js` and
/// `.css` assets) and their lengths in lines.
pub fn file_lengths(dir: &Path) -> Vec<(PathBuf, usize)> {
    crate::files_under(dir, &|p| {
        !p.components().any(|c| c.as_os_str() == "target")
            && p.extension()
                .is_some_and(|e| e == "rs" || e == "js" || e == "css")
    })
    .into_iter()
    .filter_map(|p| {
        let n = std::fs::read_to_string(&p).ok()?.lines().count();
        Some((p, n))
    })
    .collect()
}

/// The functions of a source text with a body (rustfmt's layout: the closing brace at the
/// indentation of `fn`): name, first line (from 1), length in lines.
pub fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else {
            continue;
        };
        let indent = line.len() - line.trim_start().len();
        // A declaration without a body (in a trait) ends with `;` before any `{`.
        let body = lines[i..].iter().enumerate().find_map(|(k, l)| {
            let l = l.split("//").next().unwrap_or_default().trim_end();
            if l.ends_with('{') || l.ends_with('}') {
                // Opened and closed on one line (`fn name(self) -> u8 { 1 }`): that long.
                let one_line = l.contains('{') && l.matches('{').count() == l.matches('}').count();
                Some(Some(one_line.then_some(k + 1)))
            } else if l.ends_with(';') {
                Some(None)
            } else {
                None
            }
        });
        let Some(Some(short)) = body else {
            continue;
        };
        if let Some(len) = short {
            out.push((name, i + 1, len));
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        if let Some(end) = lines[i..].iter().position(|l| l.trim_end() == close) {
            out.push((name, i + 1, end + 1));
        }
    }
    out
}

/// Where the public interface of a source text gives an error as a bare `String`: a `pub fn`
/// or `pub type` whose signature holds `Result<_, String>`, or a method of a `pub trait`
/// that does (line, name). Test modules and comments are left out; `pub(crate)` and the like
/// are not public.
pub fn string_errors(text: &str) -> Vec<(usize, String)> {
    let code = code_of(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    // The brace depth at which the current `pub trait`'s body sits, while inside one.
    let mut in_trait: Option<usize> = None;
    let mut depth = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let public = words.first() == Some(&"pub");
        let item = |kw: &str| words.iter().take(4).any(|w| *w == kw);
        let signature = |from: usize| -> String {
            let mut s = String::new();
            for l in &lines[from..] {
                let cut = l.find(['{', ';']);
                s.push_str(&l[..cut.unwrap_or(l.len())]);
                s.push(' ');
                if cut.is_some() {
                    break;
                }
            }
            s
        };
        let declares =
            (public && (item("fn") || item("type"))) || (in_trait.is_some() && item("fn"));
        if declares && result_with_string_error(&signature(i)) {
            let name = fn_name(line).unwrap_or_else(|| line.trim().to_string());
            out.push((i + 1, name));
        }
        if public && item("trait") && in_trait.is_none() {
            in_trait = Some(depth + 1);
        }
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if in_trait.is_some_and(|d| depth < d) {
                        in_trait = None;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Whether `signature` names `Result<T, String>` (its second argument exactly `String`).
fn result_with_string_error(signature: &str) -> bool {
    let mut rest = signature;
    while let Some(at) = rest.find("Result<") {
        let inner = &rest[at + "Result<".len()..];
        let mut level = 0i32;
        let mut args = vec![String::new()];
        for c in inner.chars() {
            match c {
                '<' | '(' | '[' => level += 1,
                '>' | ')' | ']' if level == 0 => break,
                '>' | ')' | ']' => level -= 1,
                ',' if level == 0 => {
                    args.push(String::new());
                    continue;
                }
                _ => {}
            }
            if let Some(last) = args.last_mut() {
                last.push(c);
            }
        }
        if args.len() == 2 && args[1].trim() == "String" {
            return true;
        }
        rest = inner;
    }
    false
}

/// The paths into the workspace's crates a document names (`crates/choreo-xar/src/xml.rs`),
/// with their lines: every run of path characters starting `crates/`, trailing punctuation
/// left out. A pattern (`crates/*/tests`) or a placeholder (`crates/<name>`) is not a path.
pub fn doc_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("crates/") {
            let before = rest[..at].chars().next_back();
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_-./*<>".contains(c)))
                .unwrap_or(tail.len());
            let path = tail[..end].trim_end_matches(['.', '/']);
            rest = &tail[end..];
            // `…/crates/x` inside a longer path or URL is not the workspace's.
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || "_-./".contains(c)) {
                continue;
            }
            if path.contains(['*', '<', '>']) || path == "crates" {
                continue;
            }
            out.push((i + 1, path.to_string()));
        }
    }
    out
}

/// The name of the function a line opens, if it does.
fn fn_name(line: &str) -> Option<String> {
    let code = line.trim_start();
    let mut words = code.split_whitespace().peekable();
    while let Some(w) = words.peek() {
        let qualifier = w.starts_with("pub")
            || matches!(
                *w,
                "const" | "async" | "unsafe" | "extern" | "\"C\"" | "default"
            );
        if !qualifier {
            break;
        }
        words.next();
    }
    if words.next()? != "fn" {
        return None;
    }
    let rest = words.next()?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn known(names: &[&str]) -> BTreeMap<String, PathBuf> {
        names
            .iter()
            .map(|n| ((*n).to_string(), PathBuf::new()))
            .collect()
    }

    #[test]
    fn grouped_imports_are_read_to_their_leaves() {
        let p = paths("use crate::{a, b::{c, d as e}, f::g};\nfn x() { crate::h::i(); }");
        assert_eq!(
            p,
            vec![
                "crate::a",
                "crate::b::c",
                "crate::b::d",
                "crate::f::g",
                "crate::h::i"
            ]
        );
    }

    #[test]
    fn super_self_and_children_resolve_from_the_file() {
        let k = known(&["", "engine", "engine::hooks", "engine::shared", "trace"]);
        let text = "use super::shared::Shared;\nuse crate::{trace::Trace, Value};\n";
        assert_eq!(
            imports(text, "engine::hooks", &k, &Reexports::new()),
            ["engine::shared", "trace"]
                .iter()
                .map(|s| s.to_string())
                .collect()
        );
        let root = "mod hooks;\nuse hooks::Job;\nuse self::shared::S;\n";
        assert_eq!(
            imports(root, "engine", &k, &Reexports::new()),
            ["engine::hooks", "engine::shared"]
                .iter()
                .map(|s| s.to_string())
                .collect()
        );
    }

    #[test]
    fn a_path_through_a_reexport_points_at_where_the_item_lives() {
        let k = known(&["", "cli", "cli::args", "cli::run"]);
        let mut r = Reexports::new();
        r.insert(
            "cli".into(),
            BTreeMap::from([("RunArgs".into(), "cli::args".into())]),
        );
        assert_eq!(
            imports("use super::RunArgs;\n", "cli::run", &k, &r),
            BTreeSet::from(["cli::args".to_string()])
        );
        assert_eq!(
            imports("use super::Other;\n", "cli::run", &k, &r),
            BTreeSet::from(["cli".to_string()])
        );
    }

    #[test]
    fn comments_and_test_modules_are_not_imports() {
        let k = known(&["a", "b", "c"]);
        let text = "// see crate::b\nuse crate::c::X;\n#[cfg(test)]\nmod tests { use crate::b; }";
        assert_eq!(
            imports(text, "a", &k, &Reexports::new()),
            BTreeSet::from(["c".to_string()])
        );
    }

    #[test]
    fn a_new_circle_is_found_and_named() {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        edges.insert("a".into(), BTreeSet::from(["b".to_string()]));
        edges.insert("b".into(), BTreeSet::from(["c".to_string()]));
        edges.insert("c".into(), BTreeSet::new());
        assert_eq!(find_cycle(&edges), None);
        // c now needs a: a -> b -> c -> a.
        edges.get_mut("c").unwrap().insert("a".into());
        assert_eq!(
            find_cycle(&edges),
            Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
        );
        assert_eq!(
            circles(&edges),
            vec![vec!["a".to_string(), "b".into(), "c".into()]]
        );
    }

    #[test]
    fn functions_are_measured_from_signature_to_closing_brace() {
        let text = "fn one(self) -> u8 { 1 }\ntrait T {\n    fn decl(&self);\n    fn with_default(&self) {\n        1;\n    }\n}\npub(crate) fn f(\n    a: u8,\n) -> u8 {\n    a\n}\n";
        assert_eq!(
            functions(text),
            vec![
                ("one".to_string(), 1, 1),
                ("with_default".to_string(), 4, 3),
                ("f".to_string(), 8, 5)
            ]
        );
    }

    #[test]
    fn an_arrow_up_the_layers_is_a_fault() {
        assert!(layer("choreo-engine") < layer("choreo-naoqi"));
        let m = "[package]\nname = \"x\"\n[dependencies]\nchoreo-naoqi = { path = \"..\" }\nchoreo-robot.workspace = true\n[dev-dependencies]\nchoreo-testkit.workspace = true\n";
        assert_eq!(
            choreo_dependencies(m, "dependencies"),
            vec!["choreo-naoqi", "choreo-robot"]
        );
        assert_eq!(package_name(m).as_deref(), Some("x"));
    }

    #[test]
    fn public_string_errors_are_found_and_others_are_not() {
        let text = "pub fn a() -> Result<u8, String> {\n}\n\
            pub(crate) fn b() -> Result<u8, String> {\n}\n\
            fn c() -> Result<u8, String> {\n}\n\
            pub fn d(\n    f: impl Fn() -> Result<Vec<u8>, String>,\n) -> u8 {\n}\n\
            pub fn e() -> Result<String> {\n}\n\
            pub fn f() -> Result<Option<(u8, String)>, MyError> {\n}\n\
            pub type G = Box<dyn Fn() -> Result<(), String>>;\n\
            pub trait H {\n    fn h(&self) -> Result<(), String>;\n    fn i(&self) -> u8 {\n        0\n    }\n}\n\
            trait J {\n    fn j(&self) -> Result<(), String>;\n}\n\
            // pub fn k() -> Result<u8, String>\n\
            #[cfg(test)]\nmod tests {\n    pub fn l() -> Result<u8, String> {\n    }\n}\n";
        let found: Vec<String> = string_errors(text).into_iter().map(|(_, n)| n).collect();
        assert_eq!(
            found,
            [
                "a",
                "d",
                "pub type G = Box<dyn Fn() -> Result<(), String>>;",
                "h"
            ]
        );
    }

    #[test]
    fn doc_paths_are_read_without_punctuation_patterns_or_longer_paths() {
        let text = "See `crates/choreo-xar/src/xml.rs`, and crates/choreo/.\n\
            Not crates/*/tests nor crates/<name> nor /work/crates/x nor a/crates/y.";
        assert_eq!(
            doc_paths(text),
            [
                (1, "crates/choreo-xar/src/xml.rs".to_string()),
                (1, "crates/choreo".to_string())
            ]
        );
    }

    #[test]
    fn dependencies_are_read_by_their_keys() {
        let manifest = "[package]\nname = \"x\"\n\n[dependencies]\n# why\nserde.workspace = true\n\
            thread-priority = \"3\"\nchoreo-xar = { path = \"../choreo-xar\" }\n\n[dev-dependencies]\nproptest = \"1\"\n";
        assert_eq!(
            dependencies(manifest, "dependencies"),
            ["serde", "thread-priority", "choreo-xar"]
        );
    }
}
