//! The `choreo` command as the CLI tests run it: in the workspace, output captured.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace's folder (relative paths in the tests start there).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `choreo stack run` of the example stack in virtual time with its scenario (a head touch
/// at 6 s): the arguments, to which a test adds its own.
pub const STACK_EXAMPLE: &[&str] = &[
    "stack",
    "run",
    "examples/stack",
    "--fast",
    "--events",
    "examples/stack/touch.yaml",
];

/// `choreo ARGS` in the workspace, run to its end.
pub fn choreo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("choreo runs")
}

/// Its standard output, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Its standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Its standard output and standard error, as text.
pub fn text(o: &Output) -> (String, String) {
    (stdout(o), stderr(o))
}

/// The events of a trace file (JSON Lines) as JSON values.
pub fn trace_events(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Per box path of the trace: how many `new`, `del`, `onLoad` calls and `onUnload` calls.
pub fn lifecycle(events: &[serde_json::Value]) -> BTreeMap<String, [usize; 4]> {
    let mut out: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for e in events {
        let slot = match (e["event"].as_str(), e["hook"].as_str()) {
            (Some("new"), _) => 0,
            (Some("del"), _) => 1,
            (Some("call"), Some("onLoad")) => 2,
            (Some("call"), Some("onUnload")) => 3,
            _ => continue,
        };
        let path = e["path"].as_str().unwrap_or_default().to_string();
        out.entry(path).or_default()[slot] += 1;
    }
    out
}
