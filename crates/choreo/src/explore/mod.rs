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
mod journal;
pub mod path;
mod report;
mod tablet;
mod why;

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

pub use inputs::{Input, Step};
pub use journal::Journal;
pub use path::{Finding, Ran};
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
    /// Real time spent searching at most (the paths under way finish; shrinking the faults
    /// found then has as long again).
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
            time: Duration::from_secs(30),
            horizon: Duration::from_secs(60),
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
        }
    }
}

/// What runs a batch of paths (each given by its inputs) and gives what each showed, in
/// order: [`explore`]'s runs them on this machine's threads; a caller may send them to other
/// processes or machines (the Python API's `executor`), each a [`path::run`] there.
pub type Runner<'a> = dyn Fn(&[Vec<Step>]) -> Vec<crate::Result<Ran>> + Sync + 'a;

/// Explores `setup`'s behavior (on the simulated robot) within `options`, `options.jobs`
/// paths at once on this machine.
pub fn explore(setup: &Setup, options: &Options) -> crate::Result<Exploration> {
    let horizon = options.horizon;
    explore_with(setup, options, &|batch| run_all(setup, batch, horizon))
}

/// [`explore`] that answers the paths `journal` holds from it and writes down the others:
/// an exploration resumed ([`Journal`]).
pub fn explore_resuming(
    setup: &Setup,
    options: &Options,
    journal: &Journal,
) -> crate::Result<Exploration> {
    let horizon = options.horizon;
    let local = |batch: &[Vec<Step>]| run_all(setup, batch, horizon);
    explore_with(setup, options, &|batch| journal.run(batch, local))
}

/// [`explore`] with the paths run by `runner`, `options.jobs` in each batch; the search, its
/// order and its report are the same whoever runs them.
pub fn explore_with(
    setup: &Setup,
    options: &Options,
    runner: &Runner<'_>,
) -> crate::Result<Exploration> {
    let started = Instant::now();
    let mut found = Found::default();
    let mut seen: HashSet<u64> = HashSet::new();
    let tablet = tablet::tablet_events(&setup.project().files().files);
    let model = setup.chosen_model();
    // Breadth first, a level (paths of as many inputs) at a time; within a level, the
    // children of paths that entered something new come first (coverage-guided), so a
    // bound cuts what looked like more of the same. The order depends only on the results,
    // never on how many paths run at once.
    let mut level: Vec<Vec<Step>> = vec![Vec::new()];
    let mut complete = true;
    'levels: while !level.is_empty() {
        let (mut fresh, mut stale) = (Vec::new(), Vec::new());
        for batch in level.chunks(options.jobs.max(1)) {
            let room = options.max_paths.saturating_sub(found.paths);
            if room == 0 || started.elapsed() >= options.time {
                complete = false;
                break 'levels;
            }
            let batch = &batch[..batch.len().min(room)];
            let ran = runner(batch);
            for (steps, ran) in batch.iter().zip(ran) {
                let before = found.progress();
                let Some(ran) = found.take(steps, ran)? else {
                    continue;
                };
                let children = if found.progress() == before {
                    &mut stale
                } else {
                    &mut fresh
                };
                // Still busy at its horizon: time passing is a child of its own.
                let waited = steps.last().is_some_and(|s| s.input == Input::Wait);
                if ran.busy && !waited && steps.len() < options.depth {
                    let mut longer = steps.clone();
                    longer.push(Step {
                        at: round(ran.time),
                        input: Input::Wait,
                    });
                    children.push(longer);
                }
                // What chance could have drawn instead, the robot put down otherwise, another face.
                if steps.len() < options.depth {
                    for step in inputs::other_draws(steps, &ran.draws) {
                        let mut child = steps.clone();
                        child.push(step);
                        children.push(child);
                    }
                    children.extend(inputs::other_postures(steps, ran.posture_read, model));
                    children.extend(inputs::other_faces(steps, ran.face_read));
                }
                for wait in &ran.waits {
                    found
                        .unproduced
                        .extend(inputs::unproduced(&wait.listening, &tablet));
                    if steps.len() >= options.depth || !seen.insert(fingerprint(wait)) {
                        continue;
                    }
                    let at = round(wait.time + path::REPLY_SECONDS);
                    for input in inputs::candidates(&wait.listening, &tablet) {
                        let mut child = steps.clone();
                        child.push(Step { at, input });
                        children.push(child);
                    }
                }
            }
        }
        fresh.append(&mut stale);
        level = fresh;
    }
    let faults = shrink_all(runner, &found.faults, options);
    Ok(report::report(found, faults, complete, started.elapsed()))
}

/// Runs each path of `batch`, up to `batch.len()` at once, results in order.
fn run_all(setup: &Setup, batch: &[Vec<Step>], horizon: Duration) -> Vec<crate::Result<Ran>> {
    if let [steps] = batch {
        return vec![path::run(setup, steps, horizon)];
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = batch
            .iter()
            .map(|steps| scope.spawn(move || path::run(setup, steps, horizon)))
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
/// fault still shows (as Hypothesis shrinks a failing example), within `options.time` of
/// its own (a search stopped by its time still shrinks what it found).
fn shrink_all(
    runner: &Runner<'_>,
    faults: &BTreeMap<Finding, Vec<Step>>,
    options: &Options,
) -> Vec<Fault> {
    let started = Instant::now();
    let mut out = Vec::new();
    for (finding, steps) in faults {
        let mut steps = steps.clone();
        let mut i = 0;
        while i < steps.len() && started.elapsed() < options.time {
            let mut fewer = steps.clone();
            fewer.remove(i);
            let ran = runner(std::slice::from_ref(&fewer)).pop();
            if ran.is_some_and(|r| r.is_ok_and(|r| r.findings.contains(finding))) {
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

/// A state's fingerprint: what the robot listens for, what it said last and the boxes
/// under way (the same menu after the same words, in the same boxes, is the same point of
/// the conversation).
fn fingerprint(wait: &path::Wait) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    wait.listening.hash(&mut h);
    wait.said.hash(&mut h);
    wait.running.hash(&mut h);
    h.finish()
}

/// Seconds to the millisecond: a scenario's times read back the same.
fn round(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}
