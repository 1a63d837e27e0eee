//! One robot's run of `choreo run`: loaded, started, watched (its trace counted and shown
//! live), stopped, and its report made.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::clock::Time;
use choreo_engine::engine::sync::TimelineSync;
use choreo_engine::graph::Graph;
use choreo_engine::trace::{Event, Step};
use choreo_engine::{Outcome, Trace};
use choreo_monitor::{Command, Monitor};
use choreo_naoqi::{Scenario, SimRobot};
use std::sync::mpsc::Receiver;

use crate::cli::error::{CliError, CliResult};
use crate::cli::monitor::{Source, others};
use crate::joints::JointRecorder;
use crate::report::Tally;
use crate::report::fold::Line;
use crate::report::live::{Kind, Live};
use crate::report::{Failure, logged_error};

use super::invocation::{Invocation, Target, load_error, set_param, title};
use crate::report::Report;
use crate::{Ending, StoppedBy};

/// What the trace listener needs: the tally, the live output, the stubs to recognize.
struct Watch {
    pub(super) tally: Mutex<Tally>,
    pub(super) live: Live,
    /// The scenario loaded in the simulated robot (its stubs answer calls).
    pub(super) scenario: Option<Scenario>,
    /// Running on a real robot: its calls are shown.
    pub(super) remote: bool,
    /// What starts each live line: the robot of a fleet (`robot 2: `), or nothing.
    pub(super) who: String,
}

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
        crate::cli::supervised::hold_to(args.timeout);
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
            trace.set_listener(Arc::new(move |e: &Event| on_trace_event(e, &watch)));
        }
        let behavior = setup.behavior;
        // The page sees every event from the load on.
        // A real robot does not say which model it is: the one asked for (or the
        // manifest's), as for the resource groups.
        let model = Some(setup.model.name().to_lowercase());
        let monitor = crate::cli::monitor::start(
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
            crate::cli::monitor::feed(m, &trace);
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
            Some((_, Some(commands))) => crate::cli::monitor::commands(
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
        crate::cli::supervised::hold_to(None);
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

/// Shows what a box's code said live: an error escaping a hook, or a line it logged (`who`
/// before it); false for any other event.
pub(crate) fn show_box_event(live: &Live, who: &str, e: &Event) -> bool {
    let at = Time(e.time_ns);
    match &e.step {
        Step::Err { hook, text } => {
            let failure = Failure::new(&e.path, hook, text);
            let line = Line::plain(format!("{who}error in {failure}"));
            live.line(at, Kind::Error, line);
            live.details(text);
        }
        Step::Log { level, message } => {
            let kind = if logged_error(&e.path, &e.step).is_some() {
                Kind::Error
            } else {
                Kind::Info
            };
            // Different messages of a box say different things: only repeats fold. The run's
            // own messages have no box.
            let line = if e.path.is_empty() {
                Line::plain(format!("{who}{level}: {message}"))
            } else {
                Line::plain(format!("{who}{level} {}: {message}", e.path))
            };
            live.line(at, kind, line);
        }
        _ => return false,
    }
    true
}

/// Event `e` of the trace: counted, and shown as it happens.
fn on_trace_event(e: &Event, watch: &Watch) {
    let stub = match (&e.step, &watch.scenario) {
        (Step::RobotCall { method, args }, Some(scenario)) => {
            let service = method.split('.').next().unwrap_or_default();
            let name = method.rsplit('.').next().unwrap_or_default();
            scenario.reply_to(service, name, args)
        }
        _ => None,
    };
    let over = {
        let mut tally = choreo_base::lock(&watch.tally);
        let over = tally.is_over();
        tally.record(e, stub.is_some());
        over
    };
    if over {
        return;
    }
    let at = Time(e.time_ns);
    let live = &watch.live;
    let who = watch.who.as_str();
    let line = |mut line: Line| {
        line.head.insert_str(0, who);
        line
    };
    if show_box_event(live, who, e) {
        return;
    }
    match &e.step {
        Step::RobotCall { method, args } => {
            let args: Vec<String> = args.iter().map(ToString::to_string).collect();
            let args = args.join(", ");
            if let Some(reply) = stub {
                live.line(
                    at,
                    Kind::Info,
                    line(Line::call(
                        format!("stub: {method}"),
                        format!("({args}) -> {reply}"),
                    )),
                );
            } else if watch.remote {
                // The simulated robot says what it does; a real one is shown its calls.
                live.line(
                    at,
                    Kind::Info,
                    line(Line::call(format!("calls {method}"), format!("({args})"))),
                );
            }
            if let Some(logged) = logged_error(&e.path, &e.step) {
                live.line(
                    at,
                    Kind::Error,
                    line(Line::plain(format!("error {logged}"))),
                );
            }
        }
        Step::Frame { frame } => live.frame(&format!("{who}{}", e.path), *frame),
        _ => {}
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
