//! Projects made on Windows or macOS read and run here as they do there (issue: platforms):
//! Windows line ends in every text file (`.pml`, `.top`, `.dlg`, `.py`, `manifest.xml`),
//! backslashes in the `.pml`'s paths, a behavior folder named with letters outside ASCII;
//! and a path the `.pml` writes in other letters than the folder's (a file system that does
//! not tell case apart found it there) is missing, as on a robot, and said so.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::cli::{choreo, stderr, stdout};

/// The corpus's project folders (those holding a `.pml`), none inside another.
fn corpus_projects(corpus: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![corpus.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        if entries
            .iter()
            .any(|p| p.extension().is_some_and(|e| e == "pml"))
        {
            out.push(dir);
            continue;
        }
        todo.extend(
            entries
                .into_iter()
                .filter(|p| p.is_dir() && !p.is_symlink()),
        );
    }
    out.sort();
    out
}

/// `from` copied to `to` as Windows would have it: every text file's line ends `\r\n`, the
/// `.pml`'s `src` paths with backslashes.
fn made_on_windows(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (path, into) = (entry.path(), to.join(entry.file_name()));
        if path.is_symlink() {
            continue;
        }
        if path.is_dir() {
            made_on_windows(&path, &into);
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let text = ["pml", "top", "dlg", "py", "xml"].contains(&ext);
        match (text, String::from_utf8(bytes.clone())) {
            (true, Ok(t)) => {
                let mut t = t.replace("\r\n", "\n").replace('\n', "\r\n");
                if ext == "pml" {
                    t = backslashed(&t);
                }
                std::fs::write(&into, t).unwrap();
            }
            _ => std::fs::write(&into, bytes).unwrap(),
        }
    }
}

/// Every `src="a/b"` of a `.pml` as `src="a\b"`.
fn backslashed(pml: &str) -> String {
    let mut out = String::new();
    let mut rest = pml;
    while let Some(at) = rest.find("src=\"") {
        let (head, tail) = rest.split_at(at + 5);
        out.push_str(head);
        let end = tail.find('"').unwrap_or(tail.len());
        out.push_str(&tail[..end].replace('/', "\\"));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// `choreo check --json` of `dir`, its own path taken out.
fn checked(dir: &Path) -> (Option<i32>, String) {
    let o = choreo(&["check", "--json", dir.to_str().unwrap()]);
    (
        o.status.code(),
        stdout(&o).replace(dir.to_str().unwrap(), "PROJECT"),
    )
}

#[test]
fn every_corpus_project_made_on_windows_checks_the_same() {
    let Some(corpus) = choreo_testkit::corpus("the corpus's projects") else {
        return;
    };
    let projects = corpus_projects(&corpus);
    assert!(projects.len() >= 40, "{} projects", projects.len());
    let dir = tempfile::tempdir().unwrap();
    for (i, project) in projects.iter().enumerate() {
        let windows = dir.path().join(format!("p{i}"));
        made_on_windows(project, &windows);
        assert_eq!(checked(&windows), checked(project), "{}", project.display());
    }
}

/// The `said` events of `choreo run --fast` of `project` (seeded).
fn said(project: &Path) -> Vec<String> {
    let trace = project.with_extension("trace.jsonl");
    let o = choreo(&[
        "run",
        project.to_str().unwrap(),
        "--fast",
        "--seed",
        "7",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["event"] == "said")
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .collect()
}

/// The corpus's `PepperIHTE__JokeGenerator` (`original`) made on Windows in `dir`, its
/// behavior's folder named `Connecté`: the project's folder.
pub fn jokes_made_on_windows(original: &Path, dir: &Path) -> PathBuf {
    let windows = dir.join("jokes");
    made_on_windows(original, &windows);
    std::fs::rename(windows.join("behavior_1"), windows.join("Connecté")).unwrap();
    let pml = windows.join("jokegenerator.pml");
    let text = std::fs::read_to_string(&pml).unwrap();
    std::fs::write(&pml, text.replace("src=\"behavior_1\"", "src=\"Connecté\"")).unwrap();
    windows
}

/// A corpus project with a dialog (its topic's `^gotoRandom` joke), made on Windows and
/// with its behavior's folder named `Connecté`: the same joke.
#[test]
fn a_project_made_on_windows_with_a_non_ascii_folder_runs_the_same() {
    let Some(corpus) = choreo_testkit::corpus("a project with a dialog") else {
        return;
    };
    let original = corpus.join("PepperIHTE__JokeGenerator");
    let dir = tempfile::tempdir().unwrap();
    let windows = jokes_made_on_windows(&original, dir.path());
    let before = said(&original);
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(said(&windows), before);
}

/// `Behavior_1` in the `.pml`, `behavior_1` on disk: Windows found it, a robot does not;
/// choreo does not either, on every platform, and says why.
#[test]
fn a_path_written_in_other_letters_is_missing_as_on_a_robot_and_said_so() {
    let Some(corpus) = choreo_testkit::corpus("a project") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("jokes");
    made_on_windows(&corpus.join("PepperIHTE__JokeGenerator"), &project);
    let pml = project.join("jokegenerator.pml");
    let text = std::fs::read_to_string(&pml).unwrap();
    std::fs::write(
        &pml,
        text.replace("src=\"behavior_1\"", "src=\"Behavior_1\""),
    )
    .unwrap();
    let o = choreo(&["run", project.to_str().unwrap(), "--fast"]);
    assert_ne!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        err.contains("behavior_1/behavior.xar differs only in case"),
        "{err}"
    );
    assert!(err.contains("no behavior (it has: none)"), "{err}");
}
