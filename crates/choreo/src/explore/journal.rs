//! The journal of an exploration, so that a later one resumes it: a header line naming what
//! was explored, then a line per path run, its inputs and what it showed ([`Ran`]). A
//! resumed exploration answers each path the journal holds from it and runs only the
//! others. The search's order depends only on the paths' results, never on timing or on
//! how many run at once, so a resumed search retraces the first one at once and goes on
//! where its bounds stopped it, with the same report as one search with larger bounds.
//!
//! What was explored is a digest of the project's files, the behavior's path and the
//! horizon: a journal of another behavior, or of the same one changed, is refused, since
//! its paths would not show what they showed.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use sha1::{Digest, Sha1};

use super::inputs::Step;
use super::path::Ran;
use crate::{Error, Setup};

/// The journal's format, in its header.
const FORMAT: u32 = 1;

/// A journal, open to be added to.
pub struct Journal {
    path: PathBuf,
    file: Mutex<std::fs::File>,
    /// The paths it holds: their inputs (as JSON) and what they showed.
    known: Mutex<HashMap<String, Ran>>,
    /// How many it held when opened.
    resumed: usize,
    /// The first failure to write a path down.
    failed: Mutex<Option<String>>,
}

/// The header line.
#[derive(serde::Serialize, serde::Deserialize, PartialEq)]
struct Header {
    journal: u32,
    explored: String,
}

/// A path's line.
#[derive(serde::Serialize, serde::Deserialize)]
struct Line {
    steps: Vec<Step>,
    ran: Ran,
}

impl Journal {
    /// Opens the journal at `path` for an exploration of `setup` with paths of `horizon`:
    /// with `resume`, what it holds is kept (a missing file is a new journal); without, it
    /// starts anew. A journal of anything else is refused.
    pub fn open(
        path: &Path,
        setup: &Setup,
        horizon: Duration,
        resume: bool,
    ) -> crate::Result<Journal> {
        let fail = |why: String| Error::Journal {
            path: path.to_path_buf(),
            why,
        };
        let header = Header {
            journal: FORMAT,
            explored: explored(setup, horizon),
        };
        let mut known = HashMap::new();
        // The lines kept: what a resumed journal held, up to a line an interruption cut
        // (that path runs again); written back whole, so that no cut line stays in it.
        let mut kept = Vec::new();
        if resume && path.exists() {
            let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
            let mut lines = std::io::BufReader::new(file).lines();
            let first = lines.next().transpose().map_err(|e| fail(e.to_string()))?;
            let read: Option<Header> = first.and_then(|l| serde_json::from_str(&l).ok());
            if read.as_ref() != Some(&header) {
                return Err(fail(
                    "it is the journal of another behavior, another version of it, or another \
                     --timeout"
                        .into(),
                ));
            }
            for line in lines {
                let line = line.map_err(|e| fail(e.to_string()))?;
                let Ok(Line { steps, ran }) = serde_json::from_str::<Line>(&line) else {
                    break;
                };
                known.insert(key(&steps), ran);
                kept.push(line);
            }
        }
        let mut file = std::fs::File::create(path).map_err(|e| fail(e.to_string()))?;
        let text = serde_json::to_string(&header).map_err(|e| fail(e.to_string()))?;
        let mut all = format!("{text}\n");
        for line in kept {
            all.push_str(&line);
            all.push('\n');
        }
        file.write_all(all.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| fail(e.to_string()))?;
        Ok(Journal {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            resumed: known.len(),
            known: Mutex::new(known),
            failed: Mutex::new(None),
        })
    }

    /// How many paths it held when opened.
    pub fn paths(&self) -> usize {
        self.resumed
    }

    /// Runs a batch as `inner` would, answering the paths the journal holds from it (those
    /// this exploration ran too: a fault's shrinking tries its own path again) and writing
    /// down each other one once run.
    pub fn run(
        &self,
        batch: &[Vec<Step>],
        inner: impl Fn(&[Vec<Step>]) -> Vec<crate::Result<Ran>>,
    ) -> Vec<crate::Result<Ran>> {
        let held = |s: &[Step]| choreo_base::lock(&self.known).get(&key(s)).cloned();
        let todo: Vec<Vec<Step>> = batch
            .iter()
            .filter(|s| held(s).is_none())
            .cloned()
            .collect();
        let mut fresh = if todo.is_empty() {
            Vec::new()
        } else {
            inner(&todo)
        }
        .into_iter();
        let mut out = Vec::with_capacity(batch.len());
        for steps in batch {
            if let Some(ran) = held(steps) {
                out.push(Ok(ran));
                continue;
            }
            let ran = fresh.next().unwrap_or_else(|| {
                Err(Error::Executor(
                    "the runner gave fewer results than paths".into(),
                ))
            });
            if let Ok(r) = &ran {
                self.write(steps, r);
                choreo_base::lock(&self.known).insert(key(steps), r.clone());
            }
            out.push(ran);
        }
        out
    }

    /// Why a path could not be written down, the first time it happened: the exploration
    /// went on, only its resumption would run that path again.
    pub fn failed(&self) -> Option<String> {
        choreo_base::lock(&self.failed).clone()
    }

    /// Writes down one path (a failure is kept for [`Journal::failed`]).
    fn write(&self, steps: &[Step], ran: &Ran) {
        let line = Line {
            steps: steps.to_vec(),
            ran: ran.clone(),
        };
        let Ok(text) = serde_json::to_string(&line) else {
            return;
        };
        let mut file = choreo_base::lock(&self.file);
        if let Err(e) = writeln!(file, "{text}").and_then(|()| file.flush()) {
            choreo_base::lock(&self.failed)
                .get_or_insert_with(|| format!("{}: {e}", self.path.display()));
        }
    }
}

/// A path's key: its inputs as JSON.
fn key(steps: &[Step]) -> String {
    serde_json::to_string(steps).unwrap_or_default()
}

/// What `setup`'s exploration with paths of `horizon` explores, as a digest: the project's
/// files (names and bytes, in order), the behavior's path and the horizon.
fn explored(setup: &Setup, horizon: Duration) -> String {
    let mut hash = Sha1::new();
    let project = setup.project().files();
    for (name, bytes) in &project.files {
        hash.update(name.as_bytes());
        hash.update([0]);
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    }
    hash.update(setup.behavior().path.as_bytes());
    hash.update(horizon.as_nanos().to_le_bytes());
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
