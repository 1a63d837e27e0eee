//! One robot's run of `choreo run`: loaded, started, watched (its trace counted and shown
//! live), stopped, and its report made.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::engine::sync::TimelineSync;
use choreo_engine::graph::Graph;
use choreo_engine::trace::Event;
use choreo_engine::{Outcome, Trace};
use choreo_monitor::{Command, Monitor};
use choreo_naoqi::SimRobot;
use std::sync::mpsc::Receiver;

use crate::cli::args::monitor::Source;
use crate::cli::error::{CliError, CliResult};
use crate::joints::JointRecorder;
use crate::monitored::others;
use crate::report::Tally;

use super::invocation::{Invocation, Target, load_error, set_param, title};
use crate::report::{Report, Watch};
use crate::{Ending, StoppedBy};

/// One robot's run, loaded or running.
pub(super) struct One {
    pub(super) run: crate::Run,
    watch: Arc<Watch>,
    pub(super) target: Target,
    /// How it ended, once it did (or was stopped).
    pub(super) ending: Option<Ending>,
    started: Instant,
    /// The live web page, and what its pages ask.
    pub(super) monitor: Option<(Arc<Monitor>, Option<Receiver<Command>>)>,
    /// The simulated joints sampled for the page, whatever moves them.
    _sampler: Option<crate::looks::Sampler>,
}

impl One {
    /// Loads the behavior for `target`: the trace (to `trace_file`), the live lines (each
    /// starting with `who`), the engine (timelines started by `sync`, if any), through the
    /// API ([`crate::Setup`]).
    pub(super) fn load(
        setup: &Invocation<'_>,
        target: Target,
        trace_file: Option<&Path>,
        who: &str,
        sync: Option<Arc<dyn TimelineSync>>,
    ) -> CliResult<One> {
        let args = setup.args;
        // --timeout counts from the load; past it and a grace, the parent ends the run
        // whatever box code does (a constructor that never returns included).
        crate::cli::args::sandbox::hold_to(args.timeout);
        let trace = trace_to(trace_file)?;
        let live = setup.live.clone();
        let scenario = match &target {
            Target::Sim(_) => setup.scenario.clone(),
            Target::Remote(_) => None,
        };
        let watch = Arc::new(Watch {
            tally: Mutex::new(Tally::default()),
            live: live.clone(),
            scenario,
            remote: matches!(target, Target::Remote(_)),
            who: who.to_string(),
        });
        {
            let watch = Arc::clone(&watch);
            trace.set_listener(Arc::new(move |e: &Event| watch.see(e)));
        }
        let behavior = setup.behavior;
        // The page sees every event from the load on.
        // A real robot does not say which model it is: the one asked for (or the
        // manifest's), as for the resource groups.
        let model = Some(setup.model.name().to_lowercase());
        let monitor = crate::cli::args::monitor::start(
            &args.monitor,
            &Graph::new(&behavior.xar),
            &title(setup.base.project(), &behavior.name),
            model.as_deref(),
            // Only drawn by a monitor: no graph built for a run without one.
            Source::Run(match args.monitor.monitor {
                Some(_) => others(setup.base.project().files(), behavior),
                None => Vec::new(),
            }),
        )?;
        if let Some(m) = &monitor {
            crate::cli::args::monitor::feed(m, &trace);
        }
        let mut api = setup.base.clone().target(target.api()).trace(trace.clone());
        // The simulated joints at every frame, into the trace written (`choreo plot --trace`)
        // and to the monitor.
        let joints = match &target {
            Target::Sim(robot) if trace_file.is_some() || monitor.is_some() => {
                Some(JointRecorder::new(SimRobot::clone(robot), trace.clone()))
            }
            _ => None,
        };
        if let Some(joints) = &joints {
            api = api.on_frame(joints.observer());
        }
        if let Some(sync) = sync {
            api = api.timeline_sync(sync);
        }
        if let Target::Sim(_) = &target {
            api = api.on_robot_event(Arc::new(move |at, e| live.robot_event(at, e)));
        }
        let run = match api.load() {
            Ok(run) => run,
            Err(e) => return Err(load_error(format!("{who}{e}"), &e)),
        };
        if let Some(joints) = &joints {
            joints.bind(run.engine(), &behavior.xar);
        }
        for p in &args.params {
            if let Err(e) = set_param(&run, p) {
                return Err(CliError::Usage(format!("--param {p}: {e}")));
            }
        }
        let sampler = match &target {
            Target::Sim(sim) if monitor.is_some() => {
                crate::looks::Sampler::start(SimRobot::clone(sim), trace.clone())
            }
            _ => None,
        };
        Ok(One {
            run,
            watch,
            target,
            ending: None,
            started: Instant::now(),
            monitor: monitor.map(|m| {
                let commands = m.commands();
                (m, commands)
            }),
            _sampler: sampler,
        })
    }

    pub(super) fn start(&mut self) {
        self.started = Instant::now();
        // Through the run: the manifest's autorun services start first. A run just loaded
        // is open, so this cannot fail.
        let _ = self.run.start();
    }

    /// One look at the run, waiting up to `wait`: an interim outcome (idle, time limit) or
    /// `stop` (Ctrl-C, the fleet) becomes a clean stop. True once the run has ended.
    pub(super) fn poll(&mut self, wait: Duration, stop: Option<StoppedBy>) -> bool {
        let page_stop = match &self.monitor {
            Some((_, Some(commands))) => crate::cli::args::monitor::commands(
                commands,
                self.run.engine(),
                self.run.simulated_robot(),
            ),
            _ => false,
        };
        let stop = stop.or(page_stop.then_some(StoppedBy::Page));
        let engine = self.run.engine();
        let outcome = engine.wait(wait);
        self.watch.live.tick(engine.now());
        if outcome.is_final() {
            self.ending.get_or_insert(match Ending::of(outcome) {
                // A stop the command did not ask for came from outside it: an interruption.
                Ending::Stopped { .. } => Ending::Stopped {
                    by: StoppedBy::Interrupt,
                },
                ending => ending,
            });
            return true;
        }
        if self.ending.is_some() {
            return false;
        }
        let why = match (stop, outcome) {
            (Some(by), _) => Some(Ending::Stopped { by }),
            (None, Outcome::Idle) => Some(Ending::Idle {
                awaiting: self.run.awaited(),
            }),
            (None, Outcome::TimeLimit) => Some(Ending::TimeLimit),
            _ => None,
        };
        if let Some(why) = why {
            engine.stop();
            self.ending = Some(why);
        }
        false
    }

    /// After the end: what the report shows (the trace flushed first: every event
    /// delivered, the whole tally). Dropped after the report is printed: box code's
    /// process, killed here, is reaped then (its namespace ends meanwhile).
    pub(super) fn finish(&self, timeout: Option<f64>, implied: &[String]) -> Report {
        // Exact: when the run ended (a time limit, a stop, the end), not after the unload.
        let engine = self.run.engine();
        let behavior_time = engine.ended_at().unwrap_or_else(|| engine.now());
        // Behaviors the run started with ALBehaviorManager and left running end with it.
        self.run.close_for_report();
        if let Err(e) = self.run.trace().flush_writer() {
            errln!("{}cannot write the trace: {e}", self.watch.who);
        }
        crate::cli::args::sandbox::hold_to(None);
        let tally = choreo_base::lock(&self.watch.tally).clone();
        let unsupported = match &self.target {
            Target::Sim(robot) => robot.stats().unsupported,
            Target::Remote(_) => BTreeMap::new(),
        };
        Report {
            // Box code's process ended under the run: that is how the run ended.
            ending: self
                .run
                .box_host_ending()
                .or(self.ending.clone())
                .unwrap_or(Ending::Finished),
            implied: implied.to_vec(),
            timeout,
            behavior_time,
            real: self.started.elapsed(),
            tally,
            unsupported,
            seed: self.run.seed(),
            start_ms: self.run.start_time(),
            refused: self.run.refused(),
            left_running: self.run.left_running(),
        }
    }
}

/// A trace that keeps nothing in memory, written to `file` when there is one.
fn trace_to(file: Option<&Path>) -> CliResult<Trace> {
    Ok(match file {
        Some(file) => match std::fs::File::create(file) {
            Ok(f) => Trace::unkept(Some(Box::new(std::io::BufWriter::new(f)))),
            Err(e) => {
                return Err(CliError::Write(format!(
                    "{}: cannot write the trace: {e}",
                    file.display()
                )));
            }
        },
        None => Trace::unkept(None),
    })
}
