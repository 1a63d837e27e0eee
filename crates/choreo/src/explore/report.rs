//! What an exploration found: box coverage per diagram, dialog coverage, each fault with
//! its shortest scenario; as JSON (a stable schema: docs/explore.md) and as one screen.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use choreo_qichat::dialog::listening::RuleAt;
use serde::Serialize;

use super::inputs::{Step, scenario_file};
use super::path::{Finding, Ran};
use super::why::{Leads, Why};

/// What the runs found so far.
#[derive(Default)]
pub(super) struct Found {
    /// Boxes constructed on some path.
    pub(super) loaded: BTreeSet<String>,
    /// Boxes one of whose inputs was stimulated on some path.
    pub(super) entered: BTreeSet<String>,
    /// The loaded topics' user rules.
    pub(super) rules: BTreeSet<RuleAt>,
    /// Those that answered on some path.
    pub(super) matched: BTreeSet<RuleAt>,
    /// Each fault, with the shortest path that showed it.
    pub(super) faults: BTreeMap<Finding, Vec<Step>>,
    /// Keys waited for that explore cannot produce.
    pub(super) unproduced: BTreeSet<String>,
    /// The ways into each box, to tell why one was never entered.
    pub(super) leads: Leads,
    /// Paths run.
    pub(super) paths: usize,
    /// Behavior time of the runs, summed, in seconds.
    pub(super) behavior_seconds: f64,
}

impl Found {
    /// What the runs have reached so far: boxes entered, rules answered, faults.
    pub(super) fn progress(&self) -> (usize, usize, usize) {
        (self.entered.len(), self.matched.len(), self.faults.len())
    }

    /// Adds what the path of `steps` showed; `None` for a path that could not run to its end (box
    /// code holding it past the real time bound), a fault of that path. The plain run
    /// failing is the behavior not loading: nothing to explore.
    pub(super) fn take(
        &mut self,
        steps: &[Step],
        ran: crate::Result<Ran>,
    ) -> crate::Result<Option<Ran>> {
        self.paths += 1;
        let ran = match ran {
            Ok(ran) => ran,
            Err(e) if steps.is_empty() => return Err(e),
            Err(e) => {
                let finding = Finding {
                    kind: "ended".into(),
                    path: String::new(),
                    text: e.to_string(),
                };
                self.faults.entry(finding).or_insert(steps.to_vec());
                return Ok(None);
            }
        };
        self.behavior_seconds += ran.time;
        self.loaded.extend(ran.loaded.iter().cloned());
        self.entered.extend(ran.entered.iter().cloned());
        self.rules.extend(ran.dialog.rules.iter().cloned());
        self.matched.extend(ran.dialog.matched.iter().cloned());
        self.leads.extend(&ran.leads);
        for finding in &ran.findings {
            let shorter = self
                .faults
                .get(finding)
                .is_none_or(|s| s.len() > steps.len());
            if shorter {
                self.faults.insert(finding.clone(), steps.to_vec());
            }
        }
        Ok(Some(ran))
    }
}

/// How many causes of boxes never entered the summary lists (the JSON has every box).
const SHOWN: usize = 12;

/// The version of the JSON's schema: raised when a field changes meaning or goes.
pub const SCHEMA: u32 = 1;

/// What an exploration found.
#[derive(Debug, Clone, Serialize)]
pub struct Exploration {
    /// [`SCHEMA`].
    pub schema: u32,
    /// Paths run.
    pub paths: usize,
    /// Whether every path found was run (no bound was reached).
    pub complete: bool,
    /// Real time spent, in seconds.
    pub seconds: f64,
    /// Behavior time the paths ran, summed, in seconds.
    pub behavior_seconds: f64,
    /// Boxes entered and loaded, per diagram (the box owning it: `root`, `root/Menu`).
    pub boxes: Vec<BoxCoverage>,
    /// Boxes entered, all diagrams.
    pub entered: usize,
    /// Boxes loaded, all diagrams.
    pub loaded: usize,
    /// The dialog's user rules that answered, of all the loaded topics' (`topic:line`).
    pub rules_matched: Vec<String>,
    /// The rules that never answered.
    pub rules_unmatched: Vec<String>,
    /// ALMemory keys the behavior waited for that explore cannot produce (the robot's own,
    /// the behavior's, the world's without a documented value).
    pub unproduced: Vec<String>,
    /// What went wrong, each with the shortest scenario found.
    pub faults: Vec<Fault>,
}

/// One diagram's boxes.
#[derive(Debug, Clone, Serialize)]
pub struct BoxCoverage {
    /// The box owning the diagram.
    pub diagram: String,
    /// Its boxes entered (an input stimulated) on some path.
    pub entered: Vec<String>,
    /// Its boxes loaded but never entered, each with why.
    pub never_entered: Vec<NeverEntered>,
}

/// A box loaded on some path and entered on none.
#[derive(Debug, Clone, Serialize)]
pub struct NeverEntered {
    /// The box.
    pub path: String,
    /// Why: where what leads to it stops (docs/explore.md, "The report"): `no link leads
    /// to it`, `it waits for ALMemory KEY`, `BOX was entered; its output OUT never fired`,
    /// `BOX was entered; its input IN never was`, `BOX was entered; its diagram never
    /// loaded`, `TIMELINE was entered; its frame N never came`, `no link leads to BOX`,
    /// `nothing that leads to it was entered`, `it is in a behavior the run started, whose
    /// links are not read`.
    pub why: String,
    /// The box it is directly behind when the cause is further back (never entered either).
    pub behind: Option<String>,
}

/// A fault and the shortest scenario found that shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Fault {
    /// What went wrong.
    #[serde(flatten)]
    pub finding: Finding,
    /// The inputs that lead there.
    pub steps: Vec<Step>,
}

impl Fault {
    /// Its scenario file (`choreo run --events` replays it).
    pub fn scenario(&self) -> String {
        let what = match self.finding.path.as_str() {
            "" => format!("{}: {}", self.finding.kind, self.finding.text),
            path => format!("{} in {path}: {}", self.finding.kind, self.finding.text),
        };
        scenario_file(&self.steps, &format!("choreo explore: {what}"))
    }
}

pub(super) fn report(
    found: Found,
    faults: Vec<Fault>,
    complete: bool,
    spent: Duration,
) -> Exploration {
    let mut diagrams: BTreeMap<String, BoxCoverage> = BTreeMap::new();
    for b in &found.loaded {
        // The root itself is the behavior, not a box of a diagram.
        let Some((diagram, _)) = b.rsplit_once('/') else {
            continue;
        };
        let entry = diagrams
            .entry(diagram.to_string())
            .or_insert_with(|| BoxCoverage {
                diagram: diagram.to_string(),
                entered: Vec::new(),
                never_entered: Vec::new(),
            });
        if found.entered.contains(b) {
            entry.entered.push(b.clone());
        } else {
            // A box of a behavior the run started (`greet:root/Say`) is not in the run's
            // own links.
            let why = if found.leads.knows(b) {
                found.leads.why(b, &found.entered)
            } else {
                Why {
                    cause: "it is in a behavior the run started, whose links are not read".into(),
                    behind: None,
                }
            };
            entry.never_entered.push(NeverEntered {
                path: b.clone(),
                why: why.cause,
                behind: why.behind,
            });
        }
    }
    let boxes: Vec<BoxCoverage> = diagrams.into_values().collect();
    let rule = |r: &RuleAt| format!("{}:{}", r.topic, r.line);
    Exploration {
        schema: SCHEMA,
        paths: found.paths,
        complete,
        seconds: spent.as_secs_f64(),
        behavior_seconds: found.behavior_seconds,
        entered: boxes.iter().map(|d| d.entered.len()).sum(),
        loaded: boxes
            .iter()
            .map(|d| d.entered.len() + d.never_entered.len())
            .sum(),
        boxes,
        rules_matched: found.matched.iter().map(rule).collect(),
        rules_unmatched: found
            .rules
            .iter()
            .filter(|r| !found.matched.contains(r))
            .map(rule)
            .collect(),
        unproduced: found.unproduced.into_iter().collect(),
        faults,
    }
}

impl Exploration {
    /// The monitor's `coverage` message (docs/monitor.md): every box some path entered, and
    /// each box never entered with why.
    pub fn coverage_message(&self) -> serde_json::Value {
        let entered: Vec<&str> = self
            .boxes
            .iter()
            .flat_map(|d| d.entered.iter().map(String::as_str))
            .collect();
        let never: Vec<serde_json::Value> = self
            .boxes
            .iter()
            .flat_map(|d| &d.never_entered)
            .map(|n| serde_json::json!({"path": n.path, "why": n.why}))
            .collect();
        serde_json::json!({
            "type": "coverage",
            "paths": self.paths,
            "entered": entered,
            "never_entered": never,
        })
    }

    /// One screen: the counts, coverage, and each fault with its inputs.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let percent = |a: usize, b: usize| {
            if b == 0 {
                100.0
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        out.push_str(&format!(
            "explored {} paths in {:.1} s ({:.0} s of behavior time){}\n",
            self.paths,
            self.seconds,
            self.behavior_seconds,
            if self.complete {
                ""
            } else {
                ", stopped at a bound"
            }
        ));
        out.push_str(&format!(
            "boxes entered  {} of {} ({:.0}%)\n",
            self.entered,
            self.loaded,
            percent(self.entered, self.loaded)
        ));
        let rules = self.rules_matched.len() + self.rules_unmatched.len();
        if rules > 0 {
            out.push_str(&format!(
                "dialog rules   {} of {} answered ({:.0}%)\n",
                self.rules_matched.len(),
                rules,
                percent(self.rules_matched.len(), rules)
            ));
        }
        // Grouped by cause: the boxes behind one box that stopped are one line.
        let mut causes: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for b in self.boxes.iter().flat_map(|d| &d.never_entered) {
            causes.entry(&b.why).or_default().push(&b.path);
        }
        let mut causes: Vec<(&str, Vec<&str>)> = causes.into_iter().collect();
        causes.sort_by_key(|(_, boxes)| std::cmp::Reverse(boxes.len()));
        for (cause, boxes) in causes.iter().take(SHOWN) {
            match boxes.as_slice() {
                [one] => out.push_str(&format!("  never entered  {one}: {cause}\n")),
                [first, ..] => out.push_str(&format!(
                    "  never entered  {} boxes ({first}, ...): {cause}\n",
                    boxes.len()
                )),
                [] => {}
            }
        }
        if causes.len() > SHOWN {
            out.push_str(&format!(
                "  ... and {} more causes (the JSON lists every box)\n",
                causes.len() - SHOWN
            ));
        }
        if !self.unproduced.is_empty() {
            out.push_str(&format!(
                "waited for, not produced: {}\n",
                self.unproduced.join(", ")
            ));
        }
        out.push_str(&format!("faults         {}\n", self.faults.len()));
        for f in &self.faults {
            let inputs: Vec<String> = f
                .steps
                .iter()
                .map(|s| format!("{} at {} s", s.input.describe(), s.at))
                .collect();
            let place = match f.finding.path.as_str() {
                "" => String::new(),
                p => format!(" {p}"),
            };
            out.push_str(&format!(
                "  {}{place}: {}\n    after: {}\n",
                f.finding.kind,
                f.finding.text,
                if inputs.is_empty() {
                    "nothing (a plain run)".to_string()
                } else {
                    inputs.join(", ")
                }
            ));
        }
        out
    }
}
