//! `choreo run --repeat N`.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use choreo_naoqi::SimRobot;

use crate::cli::error::{CliError, CliResult};
use crate::report::live::{Live, Verbosity};

use super::invocation::print_report;
use super::invocation::{Invocation, POLL, Target, count_interrupts, interrupted};
use super::one::One;
use crate::StoppedBy;
use crate::exit;
use crate::report::Report;

/// `--repeat N` (virtual time): the behavior runs `n` times, each on a new simulated robot,
/// its trace written to a file (`--trace`'s, numbered, or a temporary one); each trace is
/// compared with the first, event by event, temporary folders masked. Run 1 shows its lines
/// as asked (`-q`, `-v`), the others only their errors; the first run's report follows.
/// Exit 1 when a run differs, else the first run's code.
pub(super) fn repeat(setup: &Invocation<'_>, n: u32) -> CliResult {
    let args = setup.args;
    let quiet = Invocation {
        args: setup.args,
        implied: setup.implied.clone(),
        robots: setup.robots,
        verbosity: Verbosity::Quiet,
        base: setup.base,
        behavior: setup.behavior,
        model: setup.model,
        scenario: setup.scenario.clone(),
        live: Live::new(Verbosity::Quiet, true),
    };
    let mut first: Option<(Vec<String>, Report)> = None;
    let mut differs = false;
    let interrupts = count_interrupts();
    for i in 1..=n {
        let file = match &args.trace {
            Some(t) => crate::trace_file::numbered(t, i as usize),
            None => {
                std::env::temp_dir().join(format!("choreo-repeat-{}-{i}.jsonl", std::process::id()))
            }
        };
        let this = if i == 1 { setup } else { &quiet };
        let target = Target::Sim(Arc::new(SimRobot::new(setup.model)));
        let mut one = One::load(this, target, Some(&file), "", None)?;
        one.start();
        while !one.poll(
            POLL,
            (interrupts.load(Ordering::SeqCst) > 0).then_some(StoppedBy::Interrupt),
        ) {}
        let report = one.finish(args.timeout, &setup.implied);
        this.live.finish();
        let text = std::fs::read_to_string(&file);
        if args.trace.is_none() {
            let _ = std::fs::remove_file(&file);
        }
        let lines = match text {
            Ok(text) => crate::trace_file::comparable_lines(&text),
            Err(e) => {
                return Err(CliError::Write(format!(
                    "{}: cannot read the trace back: {e}",
                    file.display()
                )));
            }
        };
        if report.ending == interrupted() {
            return Ok(report.ending.exit_code());
        }
        match &first {
            None => first = Some((lines, report)),
            Some((first_lines, _)) => {
                if let Some((line, a, b)) = crate::trace_file::first_difference(first_lines, &lines)
                {
                    differs = true;
                    let show = |l: Option<String>| l.unwrap_or_else(|| "(the end)".to_string());
                    outln!(
                        "run {i} differs from run 1 at line {line} of the trace:\n  run 1: {}\n  \
                         run {i}: {}",
                        show(a),
                        show(b)
                    );
                }
            }
        }
    }
    let Some((lines, report)) = first else {
        return Ok(exit::OK);
    };
    if !differs {
        outln!("{n} runs, the same trace: {} lines each", lines.len());
    }
    print_report("run report (run 1)", &report);
    Ok(if differs {
        exit::NO
    } else {
        report.ending.exit_code()
    })
}
