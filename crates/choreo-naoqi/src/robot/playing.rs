//! Playing the loaded scenarios (`scenario.rs`) on the robot: timed entries on a
//! background activity from the engine's attach, call triggers as calls start and end,
//! stubs answering calls in the robot's stead, and the actions performed.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use choreo_engine::Value;
use choreo_engine::clock::Time;

use crate::robot::core::Sim;
use crate::robot::scenario::{Action, Run, Scenario, Trigger, When};
use crate::robot::trajectory::after;

/// Loads `scenario` into `sim`; its timed entries start now if an engine is attached.
pub(crate) fn load(sim: &Sim, scenario: Scenario) {
    let run = Arc::new(Run {
        fired: Mutex::new(vec![false; scenario.entries.len()]),
        scenario,
    });
    choreo_base::lock(&sim.scenarios).push(Arc::clone(&run));
    if sim.attached.load(Ordering::SeqCst) {
        start_timed(sim, &run);
    }
}

/// An engine attached the robot: timed entries start counting.
pub(crate) fn attached(sim: &Sim) {
    for run in runs(sim) {
        start_timed(sim, &run);
    }
}

/// Runs the timed entries of `run` on one background activity, in time order (ties in file
/// order); a touch's release is queued like an entry.
fn start_timed(sim: &Sim, run: &Run) {
    let base = sim.attached_at();
    let mut due: Vec<(Time, usize, Action)> = run
        .scenario
        .entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e.trigger {
            Trigger::At(at) => Some((after(base, at), i, e.action.clone())),
            Trigger::OnCall { .. } => None,
        })
        .collect();
    if due.is_empty() {
        return;
    }
    let (Some(me), Ok(time)) = (sim.arc(), sim.time()) else {
        return;
    };
    // What is due at the attachment itself (`at: 0`) happens now, before the engine can
    // start: a box that reads it at its start finds it, whatever the scheduling of the
    // runner thread (the stock Get Data box's test read `Test/Name` before it was written
    // on a loaded machine).
    due.sort_by_key(|(t, i, _)| (*t, *i));
    let mut seq = due.len();
    while due.first().is_some_and(|(t, _, _)| *t <= base) {
        let (at, _, action) = due.remove(0);
        if let Some((hold, release)) = perform(&me, &action) {
            due.push((after(at, hold), seq, release));
            seq += 1;
        }
    }
    if due.is_empty() {
        return;
    }
    let generation = sim.generation.load(Ordering::SeqCst);
    let name = format!("scenario {}", run.scenario.name);
    let spawned = time.clone().spawn(&name, move || {
        while !due.is_empty() {
            due.sort_by_key(|(t, i, _)| (*t, *i));
            let (at, _, action) = due.remove(0);
            time.sleep_until(at);
            if me.generation.load(Ordering::SeqCst) != generation {
                return; // another engine attached: its own runner plays the scenario
            }
            if let Some((hold, release)) = perform(&me, &action) {
                due.push((after(at, hold), seq, release));
                seq += 1;
            }
        }
    });
    if let Err(e) = spawned {
        sim.script_error(format!("scenario {}: cannot start: {e}", run.scenario.name));
    }
}

/// The scenarios loaded into `sim`.
fn runs(sim: &Sim) -> Vec<Arc<Run>> {
    choreo_base::lock(&sim.scenarios).clone()
}

/// The answer of the first stub (scenarios in load order) to `service.method(args)`.
pub(crate) fn stub(sim: &Sim, service: &str, method: &str, args: &[Value]) -> Option<Value> {
    runs(sim)
        .iter()
        .find_map(|run| run.scenario.reply_to(service, method, args).cloned())
}

/// Whether a loaded stub answers some method of `service`.
pub(crate) fn stubs_service(sim: &Sim, service: &str) -> bool {
    runs(sim)
        .iter()
        .any(|run| run.scenario.stubs_service(service))
}

/// The behavior called `service.method(args)` (at `when`): runs the matching entries.
pub(crate) fn on_call(sim: &Sim, service: &str, method: &str, args: &[Value], when: When) {
    let runs = runs(sim);
    if runs.is_empty() {
        return;
    }
    let name = format!("{service}.{method}");
    let mut matched = Vec::new();
    for run in runs {
        let mut fired = choreo_base::lock(&run.fired);
        for (i, entry) in run.scenario.entries.iter().enumerate() {
            let Trigger::OnCall {
                when: w,
                delay,
                repeat,
                ..
            } = &entry.trigger
            else {
                continue;
            };
            // A stub answered the call already (`stub`): it is not an action to perform.
            let hit = !matches!(entry.action, Action::Reply { .. })
                && *w == when
                && entry.trigger.matches_call(&name, args)
                && (*repeat || !fired.get(i).copied().unwrap_or(true));
            if hit {
                if let Some(f) = fired.get_mut(i) {
                    *f = true;
                }
                matched.push((*delay, entry.action.clone()));
            }
        }
    }
    for (delay, action) in matched {
        if delay == 0.0 {
            if let Some((hold, release)) = perform(sim, &action) {
                later(sim, hold, release);
            }
        } else {
            later(sim, delay, action);
        }
    }
}

/// Performs `action` after `delay` seconds, on a background activity.
pub(crate) fn later(sim: &Sim, delay: f64, action: Action) {
    let (Some(me), Ok(time)) = (sim.arc(), sim.time()) else {
        return;
    };
    let at = after(time.now(), delay);
    let spawned = time.clone().spawn("scenario action", move || {
        time.sleep_until(at);
        if let Some((hold, release)) = perform(&me, &action) {
            time.sleep_until(after(at, hold));
            perform(&me, &release);
        }
    });
    if let Err(e) = spawned {
        sim.script_error(format!("scenario action: cannot start: {e}"));
    }
}

/// Performs `action` now; a follow-up to perform `hold` seconds later (a touch's release).
pub(crate) fn perform(sim: &Sim, action: &Action) -> Option<(f64, Action)> {
    crate::listening::acted(sim);
    match action {
        Action::RaiseEvent { key, value } => sim.raise(key, value.clone()),
        Action::InsertData { key, value } => sim.insert(key, value.clone()),
        Action::Recognize { word, confidence } => sim.services.recognize(sim, word, *confidence),
        Action::Touch { sensor, hold } => {
            sim.raise(sensor, Value::Float(1.0));
            return Some((
                *hold,
                Action::RaiseEvent {
                    key: sensor.clone(),
                    value: Value::Float(0.0),
                },
            ));
        }
        // Answers a call (`stub`); nothing to do on its own.
        Action::Reply { .. } => {}
    }
    None
}
