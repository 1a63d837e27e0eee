//! qiChat's silence events: `Dialog/NoOneSpeakN` ("Nobody (neither the robot nor the
//! human) has spoken for N seconds") and `Dialog/NotSpeakingN` ("Human hasn't said anything
//! for N seconds"), N = 5, 10, 15, 20, raised for the rules of the active topics while the
//! dialog runs. A watcher activity sleeps until the next one is due; it runs only while
//! such a rule is active (so a run with none still ends when nothing else happens), and
//! each event is raised once per silence.

use std::sync::atomic::Ordering;

use choreo_engine::clock::Time;

use super::state::{Dialog, NAME};
use crate::robot::core::Sim;

/// How the dialog takes a silence event (the engine answers it as a memory event); given
/// by the engine, which this file does not know.
pub(crate) type Raise = fn(&Sim, &'static str);

/// The silence events: name, seconds, whether the robot's own speech breaks the silence.
const SILENCES: [(&str, u64, bool); 8] = [
    ("Dialog/NoOneSpeak5", 5, true),
    ("Dialog/NoOneSpeak10", 10, true),
    ("Dialog/NoOneSpeak15", 15, true),
    ("Dialog/NoOneSpeak20", 20, true),
    ("Dialog/NotSpeaking5", 5, false),
    ("Dialog/NotSpeaking10", 10, false),
    ("Dialog/NotSpeaking15", 15, false),
    ("Dialog/NotSpeaking20", 20, false),
];

/// The human spoke: every silence starts again.
pub(crate) fn human_spoke(sim: &Sim, raise: Raise) {
    let now = sim.now();
    {
        let mut state = sim.state();
        let s = &mut state.part::<Dialog>().silence;
        s.human = now;
        s.anyone = now;
        s.raised.clear();
    }
    watch(sim, raise);
}

/// The robot spoke: the silences of nobody speaking start again.
pub(crate) fn robot_spoke(sim: &Sim, raise: Raise) {
    let now = sim.now();
    {
        let mut state = sim.state();
        let s = &mut state.part::<Dialog>().silence;
        s.anyone = now;
        s.raised.retain(|name| {
            SILENCES
                .iter()
                .any(|(n, _, robot_breaks)| n == name && !robot_breaks)
        });
    }
    watch(sim, raise);
}

/// The next silence event due (its name and when), among those the active topics answer,
/// while the dialog runs.
fn next_due(sim: &Sim) -> Option<(&'static str, Time)> {
    let mut state = sim.state();
    let d = &state.part::<Dialog>();
    if d.subscribers.is_empty() {
        return None;
    }
    SILENCES
        .iter()
        .filter(|(name, _, _)| d.watched.contains(*name) && !d.silence.raised.contains(name))
        .map(|&(name, seconds, robot_breaks)| {
            let since = if robot_breaks {
                d.silence.anyone
            } else {
                d.silence.human
            };
            (name, Time(since.0.saturating_add(seconds * 1_000_000_000)))
        })
        .min_by_key(|(_, at)| *at)
}

/// Starts the watcher, unless one runs or nothing is due; it raises each event with
/// `raise`.
pub(crate) fn watch(sim: &Sim, raise: Raise) {
    {
        let mut state = sim.state();
        if state.part::<Dialog>().silence.watching {
            return;
        }
        state.part::<Dialog>().silence.watching = true;
    }
    if next_due(sim).is_none() {
        sim.state().part::<Dialog>().silence.watching = false;
        return;
    }
    let (Some(me), Ok(time)) = (sim.arc(), sim.time()) else {
        sim.state().part::<Dialog>().silence.watching = false;
        return;
    };
    // The watcher holds the robot weakly and stops when another engine attaches: a robot
    // dropped, or run again, leaves no watcher behind.
    let robot = std::sync::Arc::downgrade(&me);
    let generation = me.generation.load(Ordering::SeqCst);
    drop(me);
    let clock = std::sync::Arc::clone(&time);
    let spawned = time.spawn("ALDialog silences", move || {
        loop {
            let Some(me) = robot.upgrade() else {
                return;
            };
            if me.generation.load(Ordering::SeqCst) != generation {
                break;
            }
            let Some((name, at)) = next_due(&me) else {
                break;
            };
            if clock.now() < at {
                drop(me);
                clock.sleep_until(at);
                continue;
            }
            me.state().part::<Dialog>().silence.raised.insert(name);
            raise(&me, name);
        }
        if let Some(me) = robot.upgrade() {
            me.state().part::<Dialog>().silence.watching = false;
        }
    });
    if let Err(e) = spawned {
        sim.state().part::<Dialog>().silence.watching = false;
        sim.notice(NAME, format!("cannot time silences: {e}"));
    }
}
