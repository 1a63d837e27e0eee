//! Reading a trace file (`choreo run --trace`, JSON Lines: docs/trace.md), as `plot --trace`
//! and `replay` do: every line an event, a bad line an error at its line; and two runs'
//! traces compared as `run --repeat` compares them.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

/// Why a trace file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceFileError {
    /// There is no such file.
    #[error("{0}")]
    Missing(String),
    /// It cannot be read, or a line is not an event (said at its line).
    #[error("{0}")]
    Unreadable(String),
}

/// Why a line is not an event of the trace.
#[derive(Debug)]
pub struct NotAnEvent(pub String);

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
/// the event's line), the run's header (the first line, docs/trace.md) left out. Lines are
/// judged in order: the first bad one is the one said.
pub fn events(
    path: &Path,
    check: impl Fn(&Head, &Value) -> Result<(), NotAnEvent>,
) -> Result<Vec<(Head, Value)>, TraceFileError> {
    Ok(read(path, check)?.1)
}

/// A trace file read: its run's header when it has one, and its events.
pub type Read = (Option<Value>, Vec<(Head, Value)>);

/// The same as [`events`], with the run's header when the file has one.
pub fn read(
    path: &Path,
    check: impl Fn(&Head, &Value) -> Result<(), NotAnEvent>,
) -> Result<Read, TraceFileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            let message = format!("{}: cannot read the trace: {e}", path.display());
            return Err(if path.exists() {
                TraceFileError::Unreadable(message)
            } else {
                TraceFileError::Missing(message)
            });
        }
    };
    let mut out = Vec::new();
    let mut header = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<Value>(line)
            .map_err(|e| e.to_string())
            .and_then(|v| {
                if i == 0 && v["event"] == "run" && v.get("seq").is_none() {
                    header = Some(v);
                    return Ok(None);
                }
                let head = Head::deserialize(&v).map_err(|e| e.to_string())?;
                check(&head, &v).map_err(|e| e.0)?;
                Ok(Some((head, v)))
            });
        match parsed {
            Ok(Some(e)) => out.push(e),
            Ok(None) => {}
            Err(e) => {
                return Err(TraceFileError::Unreadable(format!(
                    "{}:{}: not a trace event: {e}",
                    path.display(),
                    i + 1
                )));
            }
        }
    }
    Ok((header, out))
}

/// The robot whose joints the trace's `joints` events move, if they tell.
pub fn model_of_joints(events: &[serde_json::Value]) -> Option<choreo_robot::Model> {
    let joints = events
        .iter()
        .filter(|e| e["event"] == "joints")
        .flat_map(|e| e["names"].as_array().into_iter().flatten())
        .filter_map(serde_json::Value::as_str);
    choreo_robot::Model::from_joints(joints)
}

/// The trace file of run `n` (robot `n` of a fleet, run `n` of `--repeat`): `t.jsonl` →
/// `t.3.jsonl`.
pub fn numbered(file: &Path, n: usize) -> std::path::PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let name = match file.extension() {
        Some(ext) => format!("{stem}.{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{n}"),
    };
    file.with_file_name(name)
}

/// The lines of a trace file with the temporary folders of the machine (where an archive's
/// behavior is unpacked for a run, or a simulated robot keeps its files: a new one each run)
/// written `<tmp>`: what two runs of the same behavior are compared on.
pub fn comparable_lines(text: &str) -> Vec<String> {
    text.lines().map(comparable_line).collect()
}

/// One line (or any text of a run) with its temporary folders written `<tmp>` (see
/// [`comparable_lines`]).
pub fn comparable_line(line: &str) -> String {
    let tmp = std::env::temp_dir();
    let tmp = tmp.to_string_lossy();
    mask_temp(line, tmp.trim_end_matches('/'))
}

/// `line` with every `<tmp>/.tmpXXXXXX` or `<tmp>/choreo-XXXXXX` folder (names the
/// `tempfile` crate makes) as `<tmp>`.
fn mask_temp(line: &str, tmp: &str) -> String {
    let markers = [format!("{tmp}/.tmp"), format!("{tmp}/choreo-")];
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some((i, marker)) = markers
        .iter()
        .filter_map(|m| rest.find(m.as_str()).map(|i| (i, m)))
        .min_by_key(|(i, _)| *i)
    {
        out.push_str(&rest[..i]);
        out.push_str("<tmp>");
        let after = &rest[i + marker.len()..];
        let end = after
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Where two traces first differ: the line number (from 1) and the two lines (`None` past
/// the end of one); `None` when they are the same.
pub fn first_difference(
    a: &[String],
    b: &[String],
) -> Option<(usize, Option<String>, Option<String>)> {
    let n = a.len().max(b.len());
    (0..n).find_map(|i| {
        let (x, y) = (a.get(i), b.get(i));
        (x != y).then(|| (i + 1, x.cloned(), y.cloned()))
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn temporary_folders_are_masked_and_the_first_difference_found() {
        let tmp = std::env::temp_dir();
        let tmp = tmp.to_string_lossy();
        let tmp = tmp.trim_end_matches('/');
        let a = comparable_lines(&format!(
            "{{\"p\":\"{tmp}/.tmpAb12Cd/behavior_1\"}}\nsame\nx"
        ));
        let b = comparable_lines(&format!(
            "{{\"p\":\"{tmp}/choreo-Zz99Yy/behavior_1\"}}\nsame\ny"
        ));
        assert_eq!(a[0], "{\"p\":\"<tmp>/behavior_1\"}");
        assert_eq!(
            first_difference(&a, &b),
            Some((3, Some("x".to_string()), Some("y".to_string())))
        );
        assert_eq!(first_difference(&a, &a), None);
        assert_eq!(
            first_difference(&a[..2], &a),
            Some((3, None, Some("x".to_string())))
        );
    }
}
