//! The engine: one control thread owns the graph state and runs the lifecycle as small
//! programs of steps; box hooks run on worker threads and report back through the
//! control queue, so a blocked hook never blocks anything else.
//!
//! - [`command`]: what the control thread is told; `control`: its loop.
//! - `state`: its state; `step`: the step interpreter; `signal`: inputs, outputs, links.
//! - `hooks`: calling box code; `workers`: the threads it runs on.
//! - `timeline`, `resources`, `memory`: timelines, resources, memory inputs.
//! - [`shared`]: what workers and box contexts share with the control thread.

pub mod command;
mod control;
mod holdings;
mod hooks;
mod memory;
mod op;
mod outcome;
mod rate;
mod resources;
pub(crate) mod shared;
mod signal;
mod state;
mod step;
mod timeline;
mod workers;

pub use holdings::Holdings;
pub use outcome::Outcome;
pub use rate::LOUD_LINK;
pub use shared::FrameObserver;

use std::collections::HashMap;
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use choreo_xar::model::XarFile;

use crate::activity::Activity;
use crate::clock::{Clock, RealClock, Time, VirtualClock, WakeSink};
use crate::context::BoxContext;
use crate::engine::command::Command;
use crate::engine::op::Ops;
use crate::engine::rate::LinkRates;
use crate::engine::shared::Shared;
use crate::engine::state::{BoxState, Control, LastCommand, Phase};
use crate::engine::workers::Workers;
use crate::error::EngineError;
use crate::graph::{BoxId, Graph};
use crate::host::ScriptHost;
use crate::robot::Robot;
use crate::trace::{Step as TraceStep, Trace};
use crate::value::Value;

/// Engine options.
#[derive(Clone, Default)]
pub struct Options {
    /// Virtual time (discrete-event, deterministic) instead of real time.
    pub virtual_time: bool,
    /// Where events go (a fresh in-memory trace by default).
    pub trace: Trace,
    /// Virtual time only: time does not move past this (see [`Outcome::TimeLimit`]).
    pub time_limit: Option<Duration>,
    /// The robot: memory inputs subscribe through it, box code calls it. None: memory
    /// inputs never fire and box code has no robot.
    pub robot: Option<Arc<dyn Robot>>,
    /// Called on the control thread each time a timeline reaches a frame (and with the start
    /// frame when it loads): the hook for whoever plays motion curves. Must be short.
    pub on_frame: Option<FrameObserver>,
}

/// A loaded behavior, ready to start.
pub struct Engine {
    shared: Arc<Shared>,
    outcome: Arc<(Mutex<Option<Outcome>>, Condvar)>,
    control: Option<JoinHandle<()>>,
}

impl Engine {
    /// Loads a behavior (R1): instantiates it and constructs the code of every box.
    /// Construction errors name the box (E3).
    pub fn load(
        x: &XarFile,
        host: &dyn ScriptHost,
        options: Options,
    ) -> Result<Engine, EngineError> {
        let graph = Arc::new(Graph::with_generated_code(x, &|def| {
            host.generated_code(def)
        }));
        options.trace.bind(Arc::clone(&graph));
        let (queue, commands) = crossbeam_channel::unbounded();
        let sink_queue = queue.clone();
        let sink: WakeSink = Arc::new(move |token| {
            let _ = sink_queue.send(Command::Wake(token));
        });
        let clock: Arc<dyn Clock> = if options.virtual_time {
            VirtualClock::new(sink)
        } else {
            RealClock::new(sink).map_err(|error| EngineError::Thread {
                what: "frame clock",
                error,
            })?
        };
        let parameters = graph
            .boxes
            .iter()
            .map(|b| b.parameters.iter().map(|p| p.value.clone()).collect())
            .collect();
        let fps = graph.boxes.iter().map(|b| AtomicU32::new(b.fps)).collect();
        let shared = Arc::new(Shared {
            graph,
            robot: options.robot.clone(),
            fps,
            on_frame: options.on_frame.clone(),
            time: Activity::new(clock, options.virtual_time),
            trace: options.trace,
            queue,
            parameters: Mutex::new(parameters),
        });
        if let Some(robot) = &shared.robot {
            robot.attach(Arc::clone(&shared.time));
        }
        host.prepare(&shared.graph);
        let mut code = Vec::with_capacity(shared.graph.boxes.len());
        for (i, node) in shared.graph.boxes.iter().enumerate() {
            let ctx = BoxContext {
                shared: Arc::clone(&shared),
                id: BoxId(i as u32),
            };
            let c = host
                .construct(node, &ctx)
                .map_err(|error| EngineError::Construct {
                    path: node.path.clone(),
                    error,
                })?;
            shared
                .trace
                .record_step(shared.time.now(), BoxId(i as u32), TraceStep::New);
            code.push(c);
        }
        let outcome = Arc::new((Mutex::new(None), Condvar::new()));
        let n = shared.graph.boxes.len();
        let mut control = Control {
            shared: Arc::clone(&shared),
            code,
            boxes: vec![
                BoxState {
                    loaded: false,
                    last: LastCommand::None,
                };
                n
            ],
            links_on: vec![false; shared.graph.diagrams.len()],
            phases: vec![Phase::Unloaded; shared.graph.diagrams.len()],
            parked: HashMap::new(),
            timelines: HashMap::new(),
            ops: Ops::default(),
            ready: Vec::new(),
            dropped_ops: 0,
            looping_since: None,
            loop_reported: false,
            rates: LinkRates::new(&shared.graph),
            waiting: HashMap::new(),
            next_ticket: 0,
            next_token: 0,
            timers: HashMap::new(),
            holdings: Holdings::default(),
            resource_waiters: Vec::new(),
            losing: std::collections::HashSet::new(),
            stalled_since: None,
            stall_reported: std::collections::HashSet::new(),
            workers: Workers::new(),
            outcome: Arc::clone(&outcome),
            destroyed: false,
            idle_reported: false,
            started: false,
            time_limit: options.time_limit,
            ended: false,
        };
        let handle = std::thread::Builder::new()
            .name("choreo-control".to_string())
            .spawn(move || control.run(&commands))
            .map_err(|error| EngineError::Thread {
                what: "control thread",
                error,
            })?;
        Ok(Engine {
            shared,
            outcome,
            control: Some(handle),
        })
    }

    /// Starts the behavior (R3).
    pub fn start(&self) {
        self.shared.post(Command::Start);
    }

    /// Stops the behavior (R4): everything is unloaded, then destroyed.
    pub fn stop(&self) {
        self.shared.post(Command::Stop);
    }

    /// Stimulates input `input` of the box at `path` from outside (tests, tools).
    pub fn stimulate(&self, path: &str, input: &str, value: Value) -> Result<(), EngineError> {
        let g = &self.shared.graph;
        let b = g.find(path).ok_or_else(|| EngineError::NoBox {
            path: path.to_string(),
        })?;
        let input = g
            .input_index(b, input)
            .ok_or_else(|| EngineError::NoInput {
                path: path.to_string(),
                input: input.to_string(),
            })?;
        self.shared.post(Command::Stimulate { b, input, value });
        Ok(())
    }

    /// Waits until the behavior finishes, is stopped, or (virtual time) goes idle; gives up
    /// after `timeout` of real time. [`Outcome::Idle`] is reported once: a later wait (after
    /// a stop, say) waits for what comes next.
    pub fn wait(&self, timeout: Duration) -> Outcome {
        let (lock, cv) = &*self.outcome;
        let guard = lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (mut guard, _) = cv
            .wait_timeout_while(guard, timeout, |o| o.is_none())
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let outcome = guard.unwrap_or(Outcome::TimedOut);
        if matches!(outcome, Outcome::Idle | Outcome::TimeLimit) {
            *guard = None;
        }
        outcome
    }

    /// Sets parameter `name` of the box at `path` from its text, typed by the parameter's
    /// content type (`--param` on the command line); traced as a `param` event.
    pub fn set_parameter(&self, path: &str, name: &str, text: &str) -> Result<(), EngineError> {
        let g = &self.shared.graph;
        let b = g.find(path).ok_or_else(|| EngineError::NoBox {
            path: path.to_string(),
        })?;
        let node = g.node(b);
        let p = node
            .parameters
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| EngineError::NoParameter {
                path: path.to_string(),
                name: name.to_string(),
            })?;
        let value = crate::graph::typed_value(p.content_type, text);
        self.shared.set_parameter(b, name, value);
        Ok(())
    }

    /// Now, in behavior time.
    pub fn now(&self) -> Time {
        self.shared.time.now()
    }

    /// The trace so far.
    pub fn trace(&self) -> &Trace {
        &self.shared.trace
    }

    /// The instantiated graph.
    pub fn graph(&self) -> &Graph {
        &self.shared.graph
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.shared.post(Command::Quit);
        if let Some(h) = self.control.take() {
            let _ = h.join();
        }
    }
}
