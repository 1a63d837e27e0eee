//! `choreo run` on a fleet of robots.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::cli::error::{CliError, CliResult};
use crate::report::live::Verbosity;

use super::invocation::print_report;
use super::invocation::{Invocation, Target, count_interrupts};
use super::one::One;
use crate::exit;
use crate::fleet::FleetSync;
use crate::report::Report;
use crate::{Ending, StoppedBy};

/// The behavior on every robot of a fleet: one engine each, all loaded, then started at one
/// instant; timelines started together through a [`FleetSync`]; a robot that ends (lost,
/// failed) ends alone unless `--all-or-nothing`; a report per robot.
pub(super) fn run_fleet(setup: &Invocation<'_>) -> CliResult {
    let args = setup.args;
    let sync = FleetSync::new(setup.robots.len());
    let mut ones = load_all(setup, &sync)?;
    sync.wait_measured(crate::fleet::MEASURED_WITHIN);
    let interrupts = count_interrupts();
    if setup.verbosity != Verbosity::Quiet {
        errln!(
            "running {} on {} robots (real time, timelines started together); Ctrl-C stops them",
            setup.behavior.name,
            ones.len()
        );
    }
    for one in &mut ones {
        one.start();
    }
    let mut ended = vec![false; ones.len()];
    let mut stop_all: Option<StoppedBy> = None;
    while ended.iter().any(|e| !e) {
        if interrupts.load(Ordering::SeqCst) > 0 {
            stop_all = Some(StoppedBy::Interrupt);
        }
        for (i, one) in ones.iter_mut().enumerate() {
            if ended[i] {
                continue;
            }
            if one.poll(Duration::ZERO, stop_all) {
                ended[i] = true;
                sync.leave(i);
                if args.all_or_nothing && one.ending != Some(Ending::Finished) && stop_all.is_none()
                {
                    errln!(
                        "robot {} did not finish: stopping the fleet (--all-or-nothing)",
                        i + 1
                    );
                    stop_all = Some(StoppedBy::Fleet);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let reports: Vec<Report> = ones
        .iter()
        .map(|o| o.finish(args.timeout, &setup.implied))
        .collect();
    setup.live.finish();
    for (i, (report, robot)) in reports.iter().zip(setup.robots).enumerate() {
        print_report(
            &format!("run report: robot {} at {}", i + 1, robot.url),
            report,
        );
    }
    let finished = reports
        .iter()
        .filter(|r| r.ending == Ending::Finished)
        .count();
    let (together, partial) = sync.counts();
    outln!("fleet");
    outln!("  robots         {} ({finished} finished)", reports.len());
    outln!("  timelines      {together} started together, {partial} without every robot");
    for line in sync.report() {
        outln!("  {line}");
    }
    // The first robot that did not finish by itself names the exit code; robots stopped by
    // `--all-or-nothing` only if there is no other.
    let code = |stopped: bool| {
        reports
            .iter()
            .filter(|r| {
                (r.ending
                    == Ending::Stopped {
                        by: StoppedBy::Fleet,
                    })
                    == stopped
            })
            .map(|r| r.ending.exit_code())
            .find(|c| *c != exit::OK)
    };
    Ok(code(false).or_else(|| code(true)).unwrap_or(exit::OK))
}

/// Every robot's run loaded (each robot's delay measured meanwhile), each on a thread of its
/// own: their box hosts set their interpreters up at once, not one after the other. The
/// first robot (in order) that cannot be loaded ends it.
fn load_all(setup: &Invocation<'_>, sync: &Arc<FleetSync>) -> CliResult<Vec<One>> {
    let args = setup.args;
    let mut targets = Vec::new();
    for (i, robot) in setup.robots.iter().enumerate() {
        let target = robot.connect()?;
        if let Target::Remote(remote) = &target {
            sync.follow(i, remote);
        }
        targets.push(target);
    }
    let loaded: Vec<CliResult<One>> = std::thread::scope(|scope| {
        let loading: Vec<_> = targets
            .into_iter()
            .enumerate()
            .map(|(i, target)| {
                scope.spawn(move || {
                    let trace = args
                        .trace
                        .as_deref()
                        .map(|f| crate::trace_file::numbered(f, i + 1));
                    let who = format!("robot {}: ", i + 1);
                    One::load(setup, target, trace.as_deref(), &who, Some(sync.member(i)))
                })
            })
            .collect();
        loading
            .into_iter()
            .map(|l| {
                l.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut ones = Vec::new();
    for one in loaded {
        match one {
            Ok(one) => ones.push(one),
            Err(e) => {
                // Told before the robots already loaded unload (what their boxes say then
                // comes after it, as it happens).
                e.print();
                return Err(CliError::Shown(e.code()));
            }
        }
    }
    Ok(ones)
}
