//! `choreo explore`: every branch a person could take. The behavior runs in virtual time;
//! at each point where it waits, each thing a person or the world could do next — taken
//! from what the simulated robot listens for then ([`inputs`]) — starts a path of its own.
//! Each path is a scenario (the `--events` format) that `choreo run --events` replays to
//! the same trace. What it reports: box and dialog coverage, and every fault found with
//! the shortest scenario that reaches it (docs/explore.md).
//!
//! The search is breadth-first, so the first path to reach a fault has the fewest inputs;
//! each fault's scenario is then shrunk (an input left out at a time while the fault stays).
//! A wait is expanded once per state seen — what the robot listens for and the last thing
//! it said — so a menu that comes back after each answer is tried once. Bounds: the number
//! of paths run, the number of inputs on a path, the real time spent.

pub mod inputs;
pub mod path;
mod report;
mod why;

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

pub use inputs::{Input, Step};
pub use path::Finding;
pub use report::{BoxCoverage, Exploration, Fault, NeverEntered};

use report::Found;

use crate::Setup;

/// How far the search goes.
#[derive(Debug, Clone)]
pub struct Options {
    /// Paths run at most (the first, with no input, included).
    pub max_paths: usize,
    /// Inputs on a path at most.
    pub depth: usize,
    /// Real time spent at most (the paths under way finish).
    pub time: Duration,
    /// Behavior time a path runs past its last input at most (as `run --timeout`).
    pub horizon: Duration,
    /// Paths run at once.
    pub jobs: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_paths: 200,
            depth: 6,
            time: Duration::from_secs(600),
            horizon: Duration::from_secs(60),
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
        }
    }
}

/// A path waiting to be run: its inputs.
struct Todo {
    steps: Vec<Step>,
}

/// Explores `setup`'s behavior (on the simulated robot) within `options`.
pub fn explore(setup: &Setup, options: &Options) -> crate::Result<Exploration> {
    let started = Instant::now();
    let mut found = Found::default();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut queue: VecDeque<Todo> = VecDeque::from([Todo { steps: Vec::new() }]);
    let mut complete = true;
    while !queue.is_empty() {
        if found.paths >= options.max_paths || started.elapsed() >= options.time {
            complete = false;
            break;
        }
        let room = options.max_paths - found.paths;
        let batch: Vec<Todo> = (0..options.jobs.max(1).min(room))
            .filter_map(|_| queue.pop_front())
            .collect();
        let ran = run_all(setup, &batch, options.horizon);
        for (todo, ran) in batch.into_iter().zip(ran) {
            let ran = match ran {
                Ok(ran) => ran,
                // The plain run failing is the behavior not loading: nothing to explore.
                Err(e) if todo.steps.is_empty() => return Err(e),
                // A path that could not run to its end (box code holding it past the real
                // time bound) is a fault of that path; the others go on.
                Err(e) => {
                    found.paths += 1;
                    let finding = Finding {
                        kind: "ended".into(),
                        path: String::new(),
                        text: e.to_string(),
                    };
                    found.faults.entry(finding).or_insert(todo.steps);
                    continue;
                }
            };
            found.paths += 1;
            found.behavior_seconds += ran.time;
            found.loaded.extend(ran.loaded.iter().cloned());
            found.entered.extend(ran.entered.iter().cloned());
            found.rules.extend(ran.dialog.rules.iter().cloned());
            found.matched.extend(ran.dialog.matched.iter().cloned());
            found.leads.extend(&ran.leads);
            for finding in &ran.findings {
                let shorter = found
                    .faults
                    .get(finding)
                    .is_none_or(|s| s.len() > todo.steps.len());
                if shorter {
                    found.faults.insert(finding.clone(), todo.steps.clone());
                }
            }
            for wait in &ran.waits {
                found.unproduced.extend(inputs::unproduced(&wait.listening));
                if todo.steps.len() >= options.depth || !seen.insert(fingerprint(wait)) {
                    continue;
                }
                let at = round(wait.time + path::REPLY_SECONDS);
                for input in inputs::candidates(&wait.listening) {
                    let mut steps = todo.steps.clone();
                    steps.push(Step { at, input });
                    queue.push_back(Todo { steps });
                }
            }
        }
    }
    let faults = shrink_all(setup, &found.faults, options, started);
    Ok(report::report(found, faults, complete, started.elapsed()))
}

/// Runs each path of `batch`, up to `batch.len()` at once, results in order.
fn run_all(setup: &Setup, batch: &[Todo], horizon: Duration) -> Vec<crate::Result<path::Ran>> {
    if batch.len() == 1 {
        return vec![path::run(setup, &batch[0].steps, horizon)];
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = batch
            .iter()
            .map(|todo| scope.spawn(move || path::run(setup, &todo.steps, horizon)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// Shrinks each fault's path: leaves inputs out, one at a time from the first, while the
/// fault still shows (as Hypothesis shrinks a failing example), within the time left.
fn shrink_all(
    setup: &Setup,
    faults: &BTreeMap<Finding, Vec<Step>>,
    options: &Options,
    started: Instant,
) -> Vec<Fault> {
    let mut out = Vec::new();
    for (finding, steps) in faults {
        let mut steps = steps.clone();
        let mut i = 0;
        while i < steps.len() && started.elapsed() < options.time {
            let mut fewer = steps.clone();
            fewer.remove(i);
            let ran = path::run(setup, &fewer, options.horizon);
            if ran.is_ok_and(|r| r.findings.contains(finding)) {
                steps = fewer;
            } else {
                i += 1;
            }
        }
        out.push(Fault {
            finding: finding.clone(),
            steps,
        });
    }
    out
}

/// A state's fingerprint: what the robot listens for and what it said last (the same menu
/// after the same words is the same point of the conversation).
fn fingerprint(wait: &path::Wait) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    wait.listening.hash(&mut h);
    wait.said.hash(&mut h);
    h.finish()
}

/// Seconds to the millisecond: a scenario's times read back the same.
fn round(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}
