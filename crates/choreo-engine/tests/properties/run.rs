//! Running a case.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use choreo_engine::engine::LOUD_LINK;
use choreo_engine::trace::{Event, Step};
use choreo_engine::{Engine, Options, Outcome, Trace};
use proptest::prelude::*;

use crate::properties::case::Case;
use crate::properties::settings::{PEAK_STOP, POLL, REAL_WAIT, STANDING, TIME_LIMIT};
use crate::support::test_tree;

pub(crate) struct Run {
    /// How the run ended: Finished, Idle, TimeLimit, or `TimedOut` for a loop of links that
    /// was stopped while it ran (then `looped`).
    pub(crate) first: Outcome,
    /// A loop of links ran (the loud-link warning came, the operations in flight passed
    /// [`PEAK_STOP`], or virtual time stood still for [`STANDING`] while events came) and the
    /// run was stopped in real time while it did.
    pub(crate) looped: bool,
    /// [`Engine::peak_operations`] at the end.
    pub(crate) peak: usize,
    /// How long the run took, in real time, up to its first outcome (or its stop).
    pub(crate) took: Duration,
    pub(crate) events: Vec<Event>,
}

impl Run {
    /// The loud-link warning is in the trace: a loop of links ran.
    pub(crate) fn loud(&self) -> bool {
        self.events.iter().any(is_loud)
    }
}

/// Hooks entered and not returned.
pub(crate) fn unbalanced(events: &[Event]) -> i64 {
    events
        .iter()
        .map(|e| match e.step {
            Step::Call { .. } => 1,
            Step::Ret { .. } => -1,
            _ => 0,
        })
        .sum()
}

/// Whether `e` is the engine's warning about a loud link target (a loop of links).
pub(crate) fn is_loud(e: &Event) -> bool {
    matches!(&e.step, Step::Log { message, .. } if message.contains("signals per second"))
}

/// Runs `case` to its end (Finished, Idle or TimeLimit), stops it if needed, waits for the
/// hooks still running to return, and returns the whole trace. A run in which a loop of
/// links runs (its loud-link warning comes, the operations in flight pass [`PEAK_STOP`], or
/// virtual time stands still for [`STANDING`] while events come) is stopped then, in real
/// time: it might never end by itself, and would reach the time limit only after 2 s of
/// real time.
pub(crate) fn execute(case: &Case) -> Result<Run, TestCaseError> {
    let x = choreo_xar::read_xar("p.xar", case.xml.as_bytes())
        .map_err(|e| TestCaseError::fail(format!("generated XAR does not read: {e}")))?
        .value;
    let trace = Trace::keep_all();
    let loud = Arc::new(AtomicBool::new(false));
    let heard = Arc::clone(&loud);
    trace.add_listener(Arc::new(move |e: &Event| {
        if is_loud(e) {
            heard.store(true, Ordering::SeqCst);
        }
    }));
    let engine = Engine::load(
        &x,
        &case.host(),
        Options {
            virtual_time: true,
            trace: trace.clone(),
            time_limit: Some(TIME_LIMIT),
            resources: Some(test_tree()),
            ..Options::default()
        },
    )
    .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let since = Instant::now();
    engine.start();
    // A run that does not end is reported with the end of its trace; the engine is leaked,
    // not dropped, as dropping waits for a control thread that may be stuck.
    let stuck = |engine: Engine, what: String| {
        let events = trace.events();
        let lines: Vec<String> = events.iter().map(Event::short).collect();
        let peak = engine.peak_operations();
        // Perhaps it stops in the end, rather than spin beside the cases that follow.
        engine.stop();
        std::mem::forget(engine);
        let marks: Vec<String> = events
            .iter()
            .filter(|e| {
                matches!(
                    e.step,
                    Step::Log { .. } | Step::Behavior { .. } | Step::Err { .. }
                )
            })
            .take(20)
            .map(|e| format!("{} {}", e.seq, e.short()))
            .collect();
        Err(TestCaseError::fail(format!(
            "{what} (peak {peak} operations; {} events)\n{}\n...\n{}",
            lines.len(),
            marks.join("\n"),
            window(&lines, lines.len().saturating_sub(1))
        )))
    };
    let mut looped = false;
    // When virtual time last moved (real time), and the events then.
    let (mut time, mut moved, mut events) = (engine.now(), Instant::now(), trace.len());
    let first = loop {
        let outcome = engine.wait(POLL);
        if outcome != Outcome::TimedOut {
            break outcome;
        }
        if engine.now() != time {
            (time, moved, events) = (engine.now(), Instant::now(), trace.len());
        }
        // A loop through hooks on workers is slow: it may take seconds to get loud.
        let standing = moved.elapsed() > STANDING && trace.len() - events > LOUD_LINK as usize;
        if loud.load(Ordering::SeqCst) || engine.peak_operations() > PEAK_STOP || standing {
            looped = true;
            break outcome;
        }
        if since.elapsed() > REAL_WAIT {
            return stuck(engine, "the run did not end (and no loop of links)".into());
        }
    };
    let took = since.elapsed();
    if !matches!(
        first,
        Outcome::Finished | Outcome::Idle | Outcome::TimeLimit | Outcome::TimedOut
    ) {
        return stuck(engine, format!("the run did not end: {first:?}"));
    }
    if first != Outcome::Finished {
        engine.stop();
        // Once stopping, virtual time moves beside a loop at every turn: an onUnload that
        // sleeps gets its time at once. A loop may still reach the time limit before the
        // stop gets its turn.
        let mut stopped = engine.wait(REAL_WAIT);
        if looped && stopped == Outcome::TimeLimit {
            stopped = engine.wait(REAL_WAIT);
        }
        // A loop seen, the behavior may still end by itself before the stop gets its turn
        // (virtual time moving beside the loop lets what it waited for come): it ended, and
        // the stop found nothing left to stop.
        let ended_first = looped
            && stopped == Outcome::Finished
            && !trace.events().iter().any(|e| {
                e.step
                    == Step::Behavior {
                        what: "stop".into(),
                    }
            });
        if stopped != Outcome::Stopped && !ended_first {
            return stuck(engine, format!("the stop did not end: {stopped:?}"));
        }
    }
    let peak = engine.peak_operations();
    drop(engine);
    Ok(Run {
        first,
        looped,
        peak,
        took,
        events: trace.events(),
    })
}

pub(crate) fn window(lines: &[String], i: usize) -> String {
    let from = i.saturating_sub(25);
    let to = (i + 6).min(lines.len());
    (from..to)
        .map(|j| {
            let mark = if j == i { ">>" } else { "  " };
            format!("{mark}{j:5} {}", lines[j])
        })
        .collect::<Vec<_>>()
        .join("\n")
}
