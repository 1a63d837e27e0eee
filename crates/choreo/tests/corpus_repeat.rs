//! The same behavior gives the same trace, whatever the machine's load: every behavior of
//! every corpus project and archive (`../shared/corpus`: `.pml`, `.crg`, `.cbl`, `.pkg`)
//! runs twice (`CHOREO_REPEAT_RUNS` to change) in virtual time on a fresh simulated robot,
//! for up to 20 virtual seconds, while busy loops in other processes keep every core loaded,
//! and the traces must be equal event for event (box path, event, fields and behavior time; temporary
//! folders masked). The runs of one behavior go side by side with the others', two at a
//! time, as the corpus run does.
//!
//! A behavior that cannot be loaded must fail the same way each time. One exception, the
//! world's: box code that blocks on real I/O (a server socket waiting for a client: a script
//! with one of [`REAL_IO`]'s signs, which the run reports as waiting "on something other than
//! the clock") goes on at a moment only the network decides, as on a robot; such behaviors
//! are listed, not failed.

use crate::support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use choreo::trace_file::comparable_line;
use choreo_engine::Outcome;
use choreo_testkit::corpus;
use support::{CorpusBehavior as Job, REAL_IO, Run, corpus_behaviors};

/// Virtual seconds a run may last.
const LIMIT: f64 = 20.0;
/// Real seconds a run may take to reach an outcome, and again to stop.
const CAP: Duration = Duration::from_secs(120);
/// Runs of each behavior when `CHOREO_REPEAT_RUNS` is not set. Two: what the test catches is
/// a trace that depends on the machine's timing, and each behavior's two runs are one more
/// draw of it among 160; the order bugs it was written for showed in a third of the projects
/// at once (docs/reliability.md, Stress tests). A third run cost a third of the test.
const RUNS: usize = 2;

/// Runs of each behavior: `CHOREO_REPEAT_RUNS`, else [`RUNS`].
fn runs() -> usize {
    std::env::var("CHOREO_REPEAT_RUNS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(RUNS)
        .max(2)
}
/// Behaviors in flight at once.
const PARALLEL: usize = 2;

/// One run's trace as compared: `time path event fields`, temporary folders masked (a load
/// that fails: its error); and whether box code with signs of real I/O waited on something
/// other than the clock.
fn trace_of(job: &Job) -> Result<(Vec<String>, bool), String> {
    let run = match Run::corpus(job, LIMIT) {
        Ok(run) => run,
        Err(e) => return Ok((vec![format!("load error: {e}")], false)),
    };
    run.engine.start();
    let outcome = run.engine.wait(CAP);
    if outcome == Outcome::TimedOut {
        return Err(format!(
            "no outcome within {} s of real time",
            CAP.as_secs()
        ));
    }
    if outcome != Outcome::Finished {
        run.engine.stop();
        let stopped = run.engine.wait(CAP);
        if !matches!(stopped, Outcome::Stopped | Outcome::Finished) {
            return Err(format!("the stop did not end: {stopped:?}"));
        }
    }
    let events = run.events();
    let graph = run.engine.graph();
    let real_io = events.iter().any(|e| {
        e.short().contains("on something other than the clock")
            && graph
                .boxes
                .iter()
                .any(|b| b.path == e.path && REAL_IO.iter().any(|sign| b.code.contains(sign)))
    });
    let lines = events
        .iter()
        .map(|e| comparable_line(&format!("{} {}", e.time_ns, e.short())))
        .collect();
    Ok((lines, real_io))
}

/// Where run `n`'s trace first differs from the first run's, if it does.
fn difference(first: &[String], other: &[String], n: usize) -> Option<String> {
    let len = first.len().max(other.len());
    (0..len).find_map(|i| {
        let (a, b) = (first.get(i), other.get(i));
        (a != b).then(|| {
            let show = |l: Option<&String>| l.cloned().unwrap_or_else(|| "(the end)".into());
            format!(
                "event {i}:\n      run 1: {}\n      run {n}: {}",
                show(a),
                show(b)
            )
        })
    })
}

/// How the runs of one behavior compared.
enum Verdict {
    Same,
    /// Differed, or failed (what).
    Differs(String),
    /// Differed after box code blocked on real I/O (the world's).
    RealIo(String),
}

/// Runs `job` [`runs`] times and compares the traces.
fn check(job: &Job) -> Verdict {
    let (first, mut real_io) = match trace_of(job) {
        Ok(t) => t,
        Err(e) => return Verdict::Differs(format!("run 1: {e}")),
    };
    for n in 2..=runs() {
        match trace_of(job) {
            Ok((t, io)) => {
                real_io |= io;
                if let Some(d) = difference(&first, &t, n) {
                    return if real_io {
                        Verdict::RealIo(d)
                    } else {
                        Verdict::Differs(d)
                    };
                }
            }
            Err(e) => return Verdict::Differs(format!("run {n}: {e}")),
        }
    }
    Verdict::Same
}

#[test]
fn every_corpus_project_gives_the_same_trace_twice_under_load() {
    let Some(root) = corpus("corpus repeat") else {
        return;
    };
    let (jobs, _) = corpus_behaviors(&root);
    let jobs: Vec<Job> = jobs.into_iter().filter(|j| j.project.is_some()).collect();
    let total = jobs.len();
    let started = Instant::now();
    let load = support::Hogs::every_core();
    let jobs = Arc::new(std::sync::Mutex::new(jobs.into_iter()));
    let found = Arc::new(std::sync::Mutex::new((Vec::new(), Vec::new())));
    let workers: Vec<_> = (0..PARALLEL)
        .map(|_| {
            let (jobs, found) = (Arc::clone(&jobs), Arc::clone(&found));
            std::thread::spawn(move || {
                loop {
                    let Some(job) = jobs.lock().unwrap().next() else {
                        return;
                    };
                    match check(&job) {
                        Verdict::Same => {}
                        Verdict::Differs(d) => {
                            found.lock().unwrap().0.push(format!("{}: {d}", job.name));
                        }
                        Verdict::RealIo(d) => {
                            found.lock().unwrap().1.push(format!("{}: {d}", job.name));
                        }
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    drop(load);
    let found = found.lock().unwrap();
    let (differ, real_io) = (&found.0, &found.1);
    println!(
        "corpus repeat: {total} project behaviors, {} runs each of up to {LIMIT} virtual \
         seconds under a busy loop on every core, in {:.1} s real time; {} differed, {} after \
         box code blocked on real I/O (the world's) (load average now {})",
        runs(),
        started.elapsed().as_secs_f64(),
        differ.len(),
        real_io.len(),
        choreo_testkit::load_average()
    );
    for d in real_io {
        println!("  real I/O: {d}");
    }
    assert!(
        differ.is_empty(),
        "traces differ:\n  {}",
        differ.join("\n  ")
    );
}
