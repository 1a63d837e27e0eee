//! `choreo sim`: the simulated robot served over qi messaging, so any qi client can drive it;
//! one robot or a fleet of them (`--count`), in the dialect of any NAOqi generation; every
//! call they receive written to a file as JSON Lines (`--calls`), a network's delay
//! simulated (`--latency`).

mod args;
mod served;

pub(crate) use args::SimArgs;

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use choreo_monitor::Command;

use crate::cli::error::{CliError, CliResult};
use crate::exit;

use served::{Fleet, Served};

/// Serves `args.count` simulated robots until Ctrl-C; prints what each does and every call
/// it receives.
pub fn run(args: &SimArgs) -> CliResult {
    // Ctrl-C is heard before anything is served: a client that reached a robot can stop it.
    let interrupts = Arc::new(AtomicUsize::new(0));
    {
        let interrupts = Arc::clone(&interrupts);
        let _ = ctrlc::set_handler(move || {
            interrupts.fetch_add(1, Ordering::SeqCst);
        });
    }
    let fleet = Fleet::new(args)?;
    let mut served = Vec::new();
    let mut watching = None;
    for index in 0..args.count {
        match fleet.serve(index, &mut watching) {
            Ok(one) => served.push(one),
            Err(e) => {
                stop_all(served);
                return Err(e);
            }
        }
    }
    if args.count > 1 {
        errln!("{} robots served; Ctrl-C stops", args.count);
    }
    let commands = watching.as_ref().and_then(|w| w.monitor.commands());
    let mut page_stop = false;
    while interrupts.load(Ordering::SeqCst) == 0 && !page_stop {
        std::thread::sleep(Duration::from_millis(100));
        fleet.live.tick(fleet.time.now());
        // The page may stop the robot; it has no box to stimulate.
        page_stop = commands
            .as_ref()
            .is_some_and(|c| c.try_iter().any(|c| c == Command::Stop));
    }
    let total: u64 = served
        .iter()
        .map(|s| s.robot.stats().per_service.values().sum::<u64>())
        .sum();
    stop_all(served);
    fleet.live.finish();
    if let Some(calls) = &fleet.calls
        && let Err(e) = calls.lock().map_or(Ok(()), |mut w| w.flush())
    {
        let path = args.calls.as_deref().unwrap_or(Path::new("calls"));
        return Err(CliError::Write(format!("{}: {e}", path.display())));
    }
    let report = format!("stopped after {total} call(s)");
    errln!("{report}");
    if let Some(w) = watching {
        drop(w.sampler);
        let keep = args.monitor.monitor_keep;
        crate::cli::args::monitor::linger(&w.monitor, "stopped", &report, keep, &interrupts);
    }
    Ok(exit::OK)
}

fn stop_all(served: Vec<Served>) {
    for s in served {
        s.server.stop();
    }
}
