//! Helpers shared by choreo's tests and benchmarks (a dev-dependency only, never published;
//! std only).
//!
//! The shared corpus of real behavior files lives next to the workspace, in
//! `../shared/corpus`. A test that needs it calls [`corpus`]: when the folder is absent, the
//! test is skipped with a `NOTICE` on stderr, except under `CI=true`, where the absence is a
//! failure (a CI run must never pass by skipping).

pub mod architecture;
pub mod generated;
pub mod naoqi_calls;
pub mod xar_text;

use std::io::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Choregraphe 2.1's stock box library, relative to the corpus.
pub const LIBRARY: &str = "chiarasabaini__3CI_assignments/INI/nao/choregraphe-suite-2.1.4.13-win32-vs2010/share/choregraphe/libraries/box";

/// Where the shared corpus is expected: `../shared/corpus` beside the workspace, whether or
/// not it is there.
pub fn corpus_dir() -> PathBuf {
    // Every crate of the workspace sits at `crates/<name>`, this one too.
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// True when the environment variable `CI` is `true`: absent inputs then fail the tests.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The shared corpus, or `None` after a `NOTICE` naming `what` is skipped. Panics when the
/// corpus is absent under `CI=true`.
pub fn corpus(what: &str) -> Option<PathBuf> {
    required(&corpus_dir(), what, under_ci())
}

/// The stock box library inside the corpus ([`LIBRARY`]), or `None` after a `NOTICE` naming
/// `what` is skipped. Panics when it is absent under `CI=true`.
pub fn library(what: &str) -> Option<PathBuf> {
    required(&corpus(what)?.join(LIBRARY), what, under_ci())
}

/// `dir` when it is a folder, else [`absent`]`(what, "<dir> is absent", ci)`.
pub fn required(dir: &Path, what: &str, ci: bool) -> Option<PathBuf> {
    if dir.is_dir() {
        return Some(dir.to_path_buf());
    }
    absent(what, &format!("{} is absent", dir.display()), ci)
}

/// The one rule for a test whose input is missing (`why`: what is missing, and how to get
/// it). With `ci` true, panics: a CI run must have every input. With `ci` false, writes
/// `NOTICE: <why>: <what> skipped` to stderr (past the test harness's capture, so that a
/// skip is never silent) and returns `None`.
pub fn absent<T>(what: &str, why: &str, ci: bool) -> Option<T> {
    assert!(
        !ci,
        "{why}: {what} cannot run, and under CI=true it must (skips are for local runs)"
    );
    let notice = format!("NOTICE: {why}: {what} skipped\n");
    // Written straight to the process's stderr: `eprintln!` would be captured by the harness
    // and shown only for a failing test. A failed write leaves nothing better to do.
    let _ = std::io::stderr().write_all(notice.as_bytes());
    None
}

/// The python of the venv with PyPI `qi` 3.1.5 (`CHOREO_QI_PYTHON`; `scripts/test` creates
/// `target/qi-venv`), or [`absent`] when it is not there.
pub fn qi_python(what: &str) -> Option<PathBuf> {
    match std::env::var_os("CHOREO_QI_PYTHON").map(PathBuf::from) {
        Some(p) if p.exists() => Some(p),
        other => {
            let why = match other {
                Some(p) => format!("CHOREO_QI_PYTHON={} does not exist", p.display()),
                None => "CHOREO_QI_PYTHON is not set".to_string(),
            };
            let why = format!("{why} (scripts/test creates target/qi-venv with qi==3.1.5)");
            absent(what, &why, under_ci())
        }
    }
}

/// A free loopback port (bound, read, released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free loopback port: {e}"))
}

/// Polls `done` every 5 ms until it holds (true) or `limit` passed (false): for what another
/// thread or process makes true. Give `limit` a margin that holds with every core busy.
pub fn wait_until(limit: Duration, done: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

/// Debian's `chromium` for the browser tests: `CHOREO_CHROMIUM` when set, else `chromium`
/// on `PATH` (`scripts/test` installs it). When there is none: `None` after a `NOTICE`
/// naming `what` is skipped, or a panic under `CI=true`.
pub fn chromium(what: &str) -> Option<PathBuf> {
    let found = std::env::var_os("CHOREO_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join("chromium"))
                    .find(|p| p.is_file())
            })
        });
    match found {
        Some(p) if p.is_file() => Some(p),
        _ => absent(
            what,
            "chromium is missing (scripts/test installs it)",
            under_ci(),
        ),
    }
}

/// Every file below `dir` (at any depth) for which `keep` holds, sorted (folders before the
/// files that follow them by name: the order of a depth-first walk with sorted entries).
/// Folders that cannot be read are passed over.
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

/// True when the file's extension is one of `exts` (compared without case).
pub fn has_extension(p: &Path, exts: &[&str]) -> bool {
    p.extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| exts.iter().any(|e| x.eq_ignore_ascii_case(e)))
}

/// The first three fields of `/proc/loadavg` (the 1, 5 and 15 minute load averages), for
/// benches to print beside their numbers on a shared machine; empty where there is none.
pub fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The median of `v` (NaN if empty): what benches report of their rounds.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn absent() -> PathBuf {
        std::env::temp_dir().join("choreo-testkit-absent/nowhere")
    }

    #[test]
    fn an_absent_folder_is_skipped_outside_ci() {
        assert_eq!(required(&absent(), "this test", false), None);
    }

    #[test]
    fn an_absent_folder_fails_under_ci() {
        let panic = std::panic::catch_unwind(|| required(&absent(), "this test", true))
            .expect_err("an absent folder must fail under CI=true");
        let text = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.contains("choreo-testkit-absent"), "{text}");
        assert!(text.contains("this test cannot run"), "{text}");
        assert!(text.contains("CI=true"), "{text}");
    }

    #[test]
    fn a_present_folder_is_returned_whatever_the_flag() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(required(here, "x", true).as_deref(), Some(here));
        assert_eq!(required(here, "x", false).as_deref(), Some(here));
    }

    #[test]
    fn files_under_walks_every_level_in_sorted_order() {
        let root = std::env::temp_dir().join(format!("choreo-testkit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for f in ["b.XAR", "a/z.xar", "a.xar", "a/skip.txt", "c/d/e.pml"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "").unwrap();
        }
        let found = files_under(&root, &|p| has_extension(p, &["xar", "pml"]));
        std::fs::remove_dir_all(&root).unwrap();
        let names: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["a/z.xar", "a.xar", "b.XAR", "c/d/e.pml"]);
    }
}
