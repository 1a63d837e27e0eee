//! Waiting for a stack run's end ([`crate::stack_driver`]).

use std::sync::atomic::Ordering;
use std::time::Duration;

use choreo_engine::{Engine, Outcome};

use crate::exit;
use crate::report::live::Live;

/// Waits for the engine's end, stopping it at Ctrl-C, the page's stop, the time limit or
/// idleness: the final outcome, and the exit code of the stop, if one was made.
pub(super) fn drive(
    engine: &Engine,
    live: &Live,
    commands: Option<&std::sync::mpsc::Receiver<choreo_monitor::Command>>,
    interrupts: &std::sync::atomic::AtomicUsize,
) -> (Outcome, Option<u8>) {
    let mut stopped_for = None;
    let outcome = loop {
        let outcome = engine.wait(Duration::from_millis(100));
        live.tick(engine.now());
        if outcome.is_final() {
            break outcome;
        }
        if stopped_for.is_some() {
            continue;
        }
        let page_stop =
            commands.is_some_and(|c| crate::cli::args::monitor::commands(c, engine, None));
        stopped_for = if interrupts.load(Ordering::SeqCst) > 0 || page_stop {
            Some(exit::INTERRUPTED)
        } else if matches!(outcome, Outcome::TimeLimit | Outcome::Idle) {
            Some(exit::TIMEOUT)
        } else {
            None
        };
        if stopped_for.is_some() {
            engine.stop();
        }
    };
    (outcome, stopped_for)
}
