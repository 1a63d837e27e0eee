//! Reading a trace file (`choreo run --trace`, JSON Lines: docs/trace.md) for `plot --trace`
//! and `replay`: every line an event, a bad line an error at its line.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::cli::exit;

/// The fields every event has.
#[derive(Deserialize)]
pub struct Head {
    /// What happened.
    pub event: String,
    /// Behavior time.
    #[serde(default)]
    pub time_ns: u64,
}

/// The trace's events, each with its head, after `check` accepted it (its error is said at
/// the event's line); [`exit::USAGE`] when the file does not exist, [`exit::LOAD`] when it
/// cannot be read or a line is not an event. Lines are judged in order: the first bad one
/// is the one said.
pub fn events(
    path: &Path,
    check: impl Fn(&Head, &Value) -> Result<(), String>,
) -> Result<Vec<(Head, Value)>, u8> {
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
        let parsed = serde_json::from_str::<Value>(line)
            .map_err(|e| e.to_string())
            .and_then(|v| {
                let head = Head::deserialize(&v).map_err(|e| e.to_string())?;
                check(&head, &v)?;
                Ok((head, v))
            });
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
