//! Reading a trace file (`choreo run --trace`, JSON Lines: docs/trace.md) for `plot --trace`
//! and `replay`: every line an event, a bad line an error at its line.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::exit;

/// The fields every event has.
#[derive(Deserialize)]
pub struct Head {
    /// What happened.
    pub event: String,
    /// Behavior time.
    #[serde(default)]
    pub time_ns: u64,
}

/// The trace's events, each with its head; [`exit::USAGE`] when the file does not exist,
/// [`exit::LOAD`] when it cannot be read or a line is not an event (said at its line).
pub fn events(path: &Path) -> Result<Vec<(Head, Value)>, u8> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            errln!("{}: cannot read the trace: {e}", path.display());
            return Err(if path.exists() {
                exit::LOAD
            } else {
                exit::USAGE
            });
        }
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed =
            serde_json::from_str::<Value>(line).and_then(|v| Head::deserialize(&v).map(|h| (h, v)));
        match parsed {
            Ok(e) => out.push(e),
            Err(e) => {
                errln!("{}:{}: not a trace event: {e}", path.display(), i + 1);
                return Err(exit::LOAD);
            }
        }
    }
    Ok(out)
}

/// Says that `event` of the trace at `path` is wrong (`why`), naming it by its `seq`; the
/// exit code.
pub fn bad_event(path: &Path, event: &Value, why: &str) -> u8 {
    errln!(
        "{}: event {}: {why}",
        path.display(),
        event.get("seq").cloned().unwrap_or(Value::Null)
    );
    exit::LOAD
}
