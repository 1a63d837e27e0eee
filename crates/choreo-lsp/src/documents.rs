//! The files the editor has open (their text as typed, not as saved), the files of the
//! project around them, and positions: the protocol counts columns in UTF-16 code units,
//! choreo's readers in bytes or characters.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::{Position, Range, Url};

/// How many `.top` files of a project are read at most (a folder opened by mistake, `/`,
/// must not make the server read the disk for minutes).
const MAX_PROJECT_FILES: usize = 2000;

/// How deep below the project's root its topics are looked for.
const MAX_DEPTH: usize = 12;

/// The open documents, by URI.
#[derive(Debug, Default)]
pub struct Documents {
    open: HashMap<Url, String>,
}

impl Documents {
    /// The editor opened or changed a document: its whole text.
    pub fn set(&mut self, uri: Url, text: String) {
        self.open.insert(uri, text);
    }

    /// The editor closed it: the disk's copy counts again.
    pub fn close(&mut self, uri: &Url) {
        self.open.remove(uri);
    }

    /// The text of an open document.
    pub fn text(&self, uri: &Url) -> Option<&str> {
        self.open.get(uri).map(String::as_str)
    }

    /// The text of `path`: the open document's if it is open, else the disk's as the QiChat
    /// parser reads it (a byte-order mark skipped, Latin-1 when not UTF-8); `None` if it
    /// cannot be read.
    pub fn read(&self, path: &Path) -> Option<String> {
        if let Ok(uri) = Url::from_file_path(path)
            && let Some(text) = self.open.get(&uri)
        {
            return Some(text.clone());
        }
        let bytes = std::fs::read(path).ok()?;
        Some(choreo_qichat::decode(&path.display().to_string(), &bytes).0)
    }

    /// Every `.top` of the project holding `path` (see [`project_root`]), open ones with
    /// their typed text, sorted by path; `path` itself among them.
    pub fn project_topics(&self, path: &Path) -> Vec<(PathBuf, String)> {
        let mut files = Vec::new();
        if let Some(root) = project_root(path) {
            walk(&root, 0, &mut files);
        }
        if !files.iter().any(|f| f == path) {
            files.push(path.to_path_buf());
        }
        for uri in self.open.keys() {
            if let Ok(p) = uri.to_file_path()
                && is_topic(&p)
                && !files.contains(&p)
                && project_root(&p) == project_root(path)
            {
                files.push(p);
            }
        }
        files.sort();
        files
            .into_iter()
            .filter_map(|f| {
                let text = self.read(&f)?;
                Some((f, text))
            })
            .collect()
    }
}

/// Whether `path` names a QiChat topic.
pub fn is_topic(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("top"))
}

/// The project a file belongs to: the nearest folder above it holding a `manifest.xml` or a
/// `.pml` (a Choregraphe project), else the file's own folder.
pub fn project_root(path: &Path) -> Option<PathBuf> {
    let folder = path.parent()?;
    for dir in folder.ancestors().take(MAX_DEPTH) {
        let marks = std::fs::read_dir(dir).ok().is_some_and(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name == "manifest.xml" || name.ends_with(".pml")
            })
        });
        if marks {
            return Some(dir.to_path_buf());
        }
    }
    Some(folder.to_path_buf())
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH || out.len() >= MAX_PROJECT_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() && !e.file_name().to_string_lossy().starts_with('.') {
            walk(&path, depth + 1, out);
        } else if kind.is_file() && is_topic(&path) && out.len() < MAX_PROJECT_FILES {
            out.push(path);
        }
    }
}

/// The UTF-16 column of byte `byte` of `line`.
pub fn utf16_column(line: &str, byte: usize) -> u32 {
    let byte = byte.min(line.len());
    let units: usize = line
        .char_indices()
        .take_while(|(i, _)| *i < byte)
        .map(|(_, c)| c.len_utf16())
        .sum();
    u32::try_from(units).unwrap_or(u32::MAX)
}

/// The byte of `line` at UTF-16 column `column` (its end when past it).
pub fn byte_of_column(line: &str, column: u32) -> usize {
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= column {
            return i;
        }
        units += u32::try_from(c.len_utf16()).unwrap_or(2);
    }
    line.len()
}

/// Line `n` (from 0) of `text`, without its line ending; empty past the end.
pub fn line_of(text: &str, n: usize) -> &str {
    text.lines().nth(n).unwrap_or("")
}

/// The range of bytes `start..end` of line `n` of `text`.
pub fn range(text: &str, n: usize, start: usize, end: usize) -> Range {
    let line = line_of(text, n);
    let n = u32::try_from(n).unwrap_or(u32::MAX);
    Range::new(
        Position::new(n, utf16_column(line, start)),
        Position::new(n, utf16_column(line, end)),
    )
}

/// The range of the whole of `text`.
pub fn whole(text: &str) -> Range {
    let lines = text.lines().count();
    let last = text.lines().last().unwrap_or("");
    let (line, column) = if text.ends_with('\n') || lines == 0 {
        (lines, 0)
    } else {
        (lines - 1, utf16_column(last, last.len()))
    };
    Range::new(
        Position::new(0, 0),
        Position::new(u32::try_from(line).unwrap_or(u32::MAX), column),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_utf16_units() {
        // 'é' is 2 bytes, 1 unit; '😀' 4 bytes, 2 units.
        let line = "é😀x";
        assert_eq!(utf16_column(line, 6), 3);
        assert_eq!(byte_of_column(line, 3), 6);
        assert_eq!(byte_of_column(line, 99), line.len());
    }
}
