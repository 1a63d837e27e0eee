//! The engine: one control thread owns the graph state and runs the lifecycle as small
//! programs of steps; box hooks run on worker threads and report back through the
//! control queue, so a blocked hook never blocks anything else.
//!
//! - [`command`]: what the control thread is told; `queue`: the commands posted to it;
//!   `control`: its loop.
//! - `state`: its state; `op`: operations; `step`: the step interpreter; `signal`: inputs,
//!   outputs, links; `rate`: the loop warning.
//! - `hooks`: calling box code; `workers`: the threads it runs on.
//! - `timeline`, `motion`, [`sync`]: timelines, their motion orders, a fleet's start;
//!   `resources`, `holdings`: resources and who holds them; `memory`: memory inputs.
//! - `shared`: what workers and box contexts share with the control thread; `outcome`: how a
//!   run ended.
//! - Here: [`Engine`] (its load counts box construction as an activity while the control thread
//!   runs; `start_parked` and `wait_end_parked` for box code of another run) and [`Options`]
//!   (among them the time base a nested run shares, the run's seed and start time, a resource
//!   tree).

pub mod command;
mod control;
mod holdings;
mod hooks;
mod memory;
mod motion;
mod op;
mod outcome;
mod queue;
mod rate;
mod resources;
pub(crate) mod shared;
mod signal;
mod state;
mod step;
pub mod sync;
mod timeline;
mod workers;

pub use holdings::Holdings;
pub use motion::{MOTION_WAIT_LIMIT, order_args};
pub use outcome::Outcome;
pub use rate::LOUD_LINK;
pub use shared::FrameObserver;

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use choreo_xar::model::XarFile;

use crate::activity::{Activity, Route};
use crate::clock::{Time, WakeSink};
use crate::context::BoxContext;
use crate::engine::command::{Command, TimelineCommand};
use crate::engine::outcome::Reported;
use crate::engine::shared::{Accounted, Shared};
use crate::engine::state::{CodeSlot, Control, ControlOptions};
use crate::error::EngineError;
use crate::graph::{BoxId, Content, Graph};
use crate::host::{BoxCode, ScriptHost};
use crate::resource::ResourceTree;
use crate::robot::Robot;
use crate::trace::{Step as TraceStep, Trace};
use choreo_base::Value;

/// Engine options.
#[derive(Clone, Default)]
pub struct Options {
    /// Virtual time (discrete-event, deterministic) instead of real time.
    pub virtual_time: bool,
    /// Where events go (a fresh in-memory trace by default).
    pub trace: Trace,
    /// Behavior time the run may last, box construction included, in real and in virtual
    /// time: then [`Outcome::TimeLimit`] (virtual time stops exactly there). Reached while
    /// boxes are still being constructed, the load fails (box code sleeping then is woken).
    pub time_limit: Option<Duration>,
    /// The robot: memory inputs subscribe through it, box code calls it. None: memory
    /// inputs never fire and box code has no robot.
    pub robot: Option<Arc<dyn Robot>>,
    /// Called on the control thread each time a timeline reaches a frame (and with the start
    /// frame when it loads): the hook for whoever plays motion curves. Must be short.
    pub on_frame: Option<FrameObserver>,
    /// E3: an error escaping a box hook stops the behavior at once (in virtual time at the
    /// very instant of the failing hook, whatever the machine's load); the run ends with
    /// [`Outcome::Failed`]. So does an exception no box code can catch
    /// ([`BoxContext::uncaught`]), and the failure of a nested run nobody waits for
    /// ([`Engine::fails_its_owner`]).
    pub strict: bool,
    /// The robot's resource tree (which joints a group such as `All motors` covers, Q4).
    /// `None`: the robot's own ([`Robot::resource_tree`]), else none (every name a leaf).
    pub resources: Option<Arc<ResourceTree>>,
    /// A nested run: the time base of the engine whose box code starts this one
    /// ([`Engine::time`], [`BoxContext::activity`], or what the robot was attached to), used
    /// instead of a clock of its own. Its hooks, robot work and sleepers are then counted and
    /// scheduled with the other engine's, behavior time is one, and in virtual time only the
    /// engine that owns the clock moves it (this one counts as busy while it has work, and
    /// never reports [`Outcome::Idle`] or [`Outcome::TimeLimit`] itself): `virtual_time` and
    /// `time_limit` are the owner's. The robot is not attached again.
    pub time_base: Option<Arc<Activity>>,
    /// Timelines kept in step with other runs (a fleet): each timeline's start is asked of
    /// it ([`sync::TimelineSync`]). Real time only.
    pub timeline_sync: Option<Arc<dyn sync::TimelineSync>>,
    /// The seed of everything random in the run (box code's `random`, the dialog's
    /// `^rand` and random outputs), so that a run is repeatable ([`Activity::seed`]). `None`:
    /// [`crate::activity::DEFAULT_SEED`] in virtual time, a random one in real time. A nested
    /// run has its owner's.
    pub seed: Option<u64>,
    /// The outcomes of box code's draws the run sets, by draw number (the first is 1):
    /// the rest are the seed's ([`crate::chance`]). A nested run's are its owner's.
    pub chance: std::collections::BTreeMap<u64, u64>,
    /// The wall clock at behavior time 0, in milliseconds since the Unix epoch (UTC): what
    /// box code's `time.time()` and `datetime.now()` and QiChat's date functions read
    /// ([`Activity::wall_ms`]). `None`: [`crate::activity::DEFAULT_START`] in virtual time,
    /// now in real time. A nested run has its owner's.
    pub start_time: Option<u64>,
}

/// A loaded behavior, ready to start.
pub struct Engine {
    shared: Arc<Shared>,
    outcome: Arc<Reported>,
    /// See [`Engine::ended_at`]; [`NOT_ENDED`] until then.
    ended_at: Arc<AtomicU64>,
    /// See [`Engine::peak_operations`].
    peak_ops: Arc<AtomicUsize>,
    control: Option<JoinHandle<()>>,
    /// The engine owns its clock (not nested, see [`Options::time_base`]).
    owns_time: bool,
}

/// [`Engine::ended_at`] before the end.
const NOT_ENDED: u64 = u64::MAX;

/// What a load constructed (each box's code, in order), and the error that ended it early.
type Constructed = (Vec<Arc<dyn BoxCode>>, Option<EngineError>);

/// What the control thread is told of the options (a nested run has no time limit of its
/// own: the run it is nested in keeps time).
fn control_options(options: &Options, nested: bool, route: Route) -> ControlOptions {
    ControlOptions {
        time_limit: if nested { None } else { options.time_limit },
        route,
        strict: options.strict,
        resources: options
            .resources
            .clone()
            .or_else(|| options.robot.as_ref().and_then(|r| r.resource_tree()))
            .unwrap_or_default(),
    }
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
        let (queue, commands) = queue::queue();
        let nested = options.time_base.is_some();
        let time = Self::run_time(&options)?;
        let shared = Self::shared(graph, time, queue, &options);
        let route = Self::wake_route(&shared, nested)?;
        if !nested {
            let weak = Arc::downgrade(&shared);
            shared.time.set_owner(Arc::new(move |path, hook, message| {
                if let Some(shared) = weak.upgrade() {
                    shared.post(Command::NestedFailed(Box::new(Outcome::Failed {
                        path,
                        hook,
                        message,
                    })));
                }
            }));
        }
        // Construction counts as an activity from here (see below), so that nothing the robot
        // starts when attached makes time move before the first box is constructed.
        shared.time.begin();
        if !nested && let Some(robot) = &shared.robot {
            robot.attach(Arc::clone(&shared.time));
        }
        host.prepare(&shared.graph);
        let outcome = Arc::new(Reported::new());
        let ended_at = Arc::new(AtomicU64::new(NOT_ENDED));
        let code_slot: CodeSlot = Arc::new(Mutex::new(Vec::new()));
        let peak_ops = Arc::new(AtomicUsize::new(0));
        let parts = (
            Arc::clone(&shared),
            Arc::clone(&outcome),
            Arc::clone(&ended_at),
            Arc::clone(&code_slot),
            Arc::clone(&peak_ops),
            control_options(&options, nested, route),
        );
        let handle = std::thread::Builder::new()
            .name("choreo-control".to_string())
            .spawn(move || {
                // Its hand-overs to workers and sleepers make a run's pace (slice.rs).
                choreo_base::slice::ask_short_slice();
                // Made here: they keep this thread's own lists (the queue's, the trace's).
                let commands = commands.reader();
                let (shared, outcome, ended_at, code_slot, peak_ops, options) = parts;
                Control::new(shared, outcome, ended_at, code_slot, peak_ops, options)
                    .supervise(&commands)
            })
            .map_err(|error| {
                // The construction's count ends: a time base shared with another engine
                // goes on.
                shared.time.end();
                EngineError::Thread {
                    what: "control thread",
                    error,
                }
            })?;
        let engine = Engine {
            shared: Arc::clone(&shared),
            outcome,
            ended_at,
            peak_ops,
            control: Some(handle),
            owns_time: !nested,
        };
        let (code, mut failed) = Self::construct_on_own_thread(&shared, host, nested)?;
        if failed.is_none() && engine.outcome_now() == Some(Outcome::TimeLimit) {
            failed = Some(EngineError::LoadTimeLimit {
                limit: options.time_limit.unwrap_or_default(),
            });
        }
        if let Some(e) = failed {
            // Every box constructed is destroyed again (`del` for each `new`).
            for i in 0..code.len() {
                shared
                    .trace
                    .record_step(shared.time.now(), BoxId(i as u32), TraceStep::Del);
            }
            drop(code);
            drop(engine);
            return Err(e);
        }
        *choreo_base::lock(&code_slot) = code;
        shared.post(Command::Constructed);
        Ok(engine)
    }

    /// The run's time base: the owner's for a nested run; else a clock of its own, whose
    /// clock kind, seed and start open the trace (what repeats the run, docs/trace.md).
    fn run_time(options: &Options) -> Result<Arc<Activity>, EngineError> {
        let Some(base) = &options.time_base else {
            let time = Activity::owned(options.virtual_time, options.seed, options.start_time)
                .map_err(|error| EngineError::Thread {
                    what: "frame clock",
                    error,
                })?;
            time.chance().set(options.chance.clone());
            // What repeats this run, and the robot it ran on when it says (a replay draws
            // it), first in the file (docs/trace.md).
            let model = options.robot.as_ref().and_then(|r| r.model());
            options.trace.write_header(&serde_json::json!({
                "event": "run",
                "time_ns": 0,
                "path": "",
                "clock": if time.is_virtual() { "virtual" } else { "real" },
                "seed": time.seed(),
                "start": choreo_robot::calendar::format_utc(time.start_ms()),
                "model": model.map(|m| m.name().to_lowercase()),
            }));
            return Ok(time);
        };
        Ok(Arc::clone(base))
    }

    /// What the control thread, the workers and the box contexts share: the graph, the
    /// boxes' parameters, frame rates and loaded flags, the time base and the trace.
    fn shared(
        graph: Arc<Graph>,
        time: Arc<Activity>,
        queue: queue::Sender,
        options: &Options,
    ) -> Arc<Shared> {
        let nested = options.time_base.is_some();
        let parameters = graph
            .boxes
            .iter()
            .map(|b| b.parameters.iter().map(|p| p.value.clone()).collect())
            .collect();
        let fps = graph.boxes.iter().map(|b| AtomicU32::new(b.fps)).collect();
        let loaded = graph.boxes.iter().map(|_| AtomicBool::new(false)).collect();
        let cursors = graph.boxes.iter().map(|_| AtomicI64::new(-1)).collect();
        Arc::new(Shared {
            graph,
            robot: options.robot.clone(),
            fps,
            loaded,
            on_frame: options.on_frame.clone(),
            cursors,
            time,
            trace: options.trace.clone(),
            queue,
            parameters: Mutex::new(parameters),
            constructing: AtomicBool::new(true),
            sync: options.timeline_sync.clone(),
            counting: Arc::new(AtomicBool::new(false)),
            ancestors: if nested {
                workers::hook_lineage()
            } else {
                Vec::new()
            },
            quitting: AtomicBool::new(false),
            fails_owner: AtomicBool::new(false),
            strict: options.strict,
            accounted: nested.then(|| {
                Mutex::new(Accounted {
                    open: true,
                    counted: false,
                    turn: None,
                })
            }),
        })
    }

    /// The clock's tokens for this engine: posted to its queue (through `post`, so that a
    /// nested engine counts them).
    fn wake_route(shared: &Arc<Shared>, nested: bool) -> Result<Route, EngineError> {
        let weak = Arc::downgrade(shared);
        let sink: WakeSink = Arc::new(move |token| {
            if let Some(shared) = weak.upgrade() {
                shared.post(Command::Wake(token));
            }
        });
        shared
            .time
            .route(sink, nested)
            .ok_or_else(|| EngineError::Thread {
                what: "clock route",
                error: std::io::Error::other("too many engines share this clock"),
            })
    }

    /// [`Self::construct`] on a thread of the run's own ("choreo-load"), never the caller's:
    /// box code runs only on its run's threads, which the kernel's confinement of box code
    /// binds for the rest of their lives (docs/security.md), while the caller goes on with
    /// other work (writing the trace and the report; a stack's runner loading its next
    /// leaf). The caller waits meanwhile, and lends the load its turn and its hook (a nested
    /// load, from box code's `runBehavior`): the constructors run in them as they would
    /// have on the caller's thread.
    fn construct_on_own_thread(
        shared: &Arc<Shared>,
        host: &dyn ScriptHost,
        nested: bool,
    ) -> Result<Constructed, EngineError> {
        let lent = crate::activity::lend();
        std::thread::scope(|scope| {
            let loading = std::thread::Builder::new()
                .name("choreo-load".to_string())
                .spawn_scoped(scope, move || {
                    crate::activity::borrow(lent);
                    Self::construct(shared, host, nested)
                })
                .map_err(|error| {
                    shared.time.end();
                    EngineError::Thread {
                        what: "load thread",
                        error,
                    }
                })?;
            // A panic in a constructor is the caller's, as if it had run here.
            Ok(loading
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        })
    }

    /// R1: every box is constructed on this thread, counted as an activity while the
    /// control thread already runs: box code that sleeps, waits on a timer or calls the
    /// robot in its constructor follows the engine's clock, which moves (virtual time
    /// included), and the time limit holds. Stops at the first box whose construction
    /// fails: the code constructed so far, and the error.
    fn construct(shared: &Arc<Shared>, host: &dyn ScriptHost, nested: bool) -> Constructed {
        let mut code = Vec::with_capacity(shared.graph.boxes.len());
        let mut failed = None;
        // Virtual time: constructors run in a turn (crate::turn), this thread's own if it has
        // none (box code loading a nested behavior runs in its hook's).
        let turn = shared.time.turn_here();
        // A nested load runs in box code of another run, which is not stalled meanwhile.
        let nested_load = nested.then(|| shared.time.at_work());
        for (i, node) in shared.graph.boxes.iter().enumerate() {
            let ctx = BoxContext {
                shared: Arc::clone(shared),
                id: BoxId(i as u32),
            };
            match host.construct(node, &ctx) {
                Ok(c) => {
                    shared
                        .trace
                        .record_step(shared.time.now(), BoxId(i as u32), TraceStep::New);
                    code.push(c);
                }
                Err(error) => {
                    failed = Some(EngineError::Construct {
                        path: node.path.clone(),
                        error,
                    });
                    break;
                }
            }
        }
        shared.constructing.store(false, Ordering::SeqCst);
        drop(turn);
        drop(nested_load);
        shared.time.end();
        (code, failed)
    }

    /// The most lifecycle operations that were in flight at once (running, ready or waiting
    /// for a hook, a diagram or resources): what the engine's queues held at their fullest.
    /// A loop of links keeps it constant; it never exceeds 100,000 (beyond that, signals are
    /// dropped and the trace says so).
    pub fn peak_operations(&self) -> usize {
        self.peak_ops.load(Ordering::Relaxed)
    }

    /// The outcome reported so far, without waiting or consuming it.
    fn outcome_now(&self) -> Option<Outcome> {
        self.outcome.now()
    }

    /// Whether the run is over: a final outcome was reported (finished, stopped, failed...).
    pub fn is_over(&self) -> bool {
        self.outcome_now().is_some_and(|o| o.is_final())
    }

    /// When the run ended, in behavior time: the root finished (R5), or a stop began (asked,
    /// strict, robot lost, crash). The unload that follows may take behavior time of its
    /// own (an onUnload that sleeps); a run report gives this time as the run's duration.
    pub fn ended_at(&self) -> Option<Time> {
        match self.ended_at.load(Ordering::SeqCst) {
            NOT_ENDED => None,
            t => Some(Time(t)),
        }
    }

    /// Starts the behavior (R3).
    pub fn start(&self) {
        self.shared.post(Command::Start(None));
    }

    /// Starts the behavior and waits until it has started: its control thread has acted on
    /// the start and on everything that followed at that instant (hooks returned or sleep).
    /// For box code of another run on this engine's time base (`startBehavior`): it does not
    /// count as running while it waits, and what it does next comes after the start in the
    /// trace, every time.
    pub fn start_parked(&self) {
        let (gate, opener) = command::Gate::parked(&self.shared.time);
        self.shared.post(Command::Start(Some(opener)));
        gate.wait();
    }

    /// Nobody waits for this nested run's end (`ALBehaviorManager.startBehavior`, a posted
    /// `runBehavior`): if it fails ([`Outcome::Failed`], strict mode), the run that owns its
    /// time base is told, and stops there too when it is strict. Its failure would otherwise
    /// reach no box code, and a strict run would go on as if nothing had failed. Call it
    /// before the start.
    pub fn fails_its_owner(&self) {
        self.shared.fails_owner.store(true, Ordering::SeqCst);
    }

    /// Stops the behavior (R4): everything is unloaded, then destroyed.
    pub fn stop(&self) {
        self.shared.post(Command::Stop);
    }

    /// Stimulates input `input` of the box at `path` from outside (tests, tools).
    pub fn stimulate(&self, path: &str, input: &str, value: Value) -> Result<(), EngineError> {
        let g = &self.shared.graph;
        let b = self.box_at(path)?;
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
        self.outcome.wait(timeout)
    }

    /// Waits, however long it takes, for the run to be over (a final outcome). For a thread
    /// that is not an activity of this engine's time base (the engine's user); box code of
    /// another run on the same time base calls [`Engine::wait_end_parked`].
    pub fn wait_end(&self) -> Outcome {
        self.outcome.wait_final(None)
    }

    /// [`Engine::wait_end`] for box code (a hook, a robot call made from one) of a run on
    /// this engine's time base, as `ALBehaviorManager.runBehavior`: while it waits it does
    /// not count as running, so virtual time moves for this run; it counts again before the
    /// end wakes it, so that nothing happens at the instant of the end before it returns.
    pub fn wait_end_parked(&self) -> Outcome {
        self.outcome.wait_final(Some(&self.shared.time))
    }

    /// Whether the calling thread runs a hook of this engine (its box code, or box code it
    /// calls): such a thread must not wait for this run's end, which a stop may not reach
    /// before the hook returns.
    pub fn runs_on_this_thread(&self) -> bool {
        workers::runs_hook_of(&self.shared)
    }

    /// Whether the calling thread runs box code of any engine (a hook, or what it calls): a
    /// robot call made there hands its failure to that code, which may catch it
    /// (`runBehavior` raising), where a call made on a thread of its own (a `post`) has
    /// nobody to hand it to.
    pub fn runs_box_code_here() -> bool {
        workers::runs_any_hook()
    }

    /// The time base: the clock and the count of activities (give it as
    /// [`Options::time_base`] to run another behavior on the same time).
    pub fn time(&self) -> &Arc<Activity> {
        &self.shared.time
    }

    /// Sets parameter `name` of the box at `path` from its text, typed by the parameter's
    /// content type (`--param` on the command line); traced as a `param` event.
    pub fn set_parameter(&self, path: &str, name: &str, text: &str) -> Result<(), EngineError> {
        let b = self.box_at(path)?;
        let node = self.shared.graph.node(b);
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

    /// Sets parameter `name` of the box at `path` to `value` as given (the API's typed
    /// setter; [`Engine::set_parameter`] reads a text by the parameter's type); traced as a
    /// `param` event.
    pub fn set_parameter_value(
        &self,
        path: &str,
        name: &str,
        value: Value,
    ) -> Result<(), EngineError> {
        let b = self.box_at(path)?;
        if self.shared.set_parameter(b, name, value) {
            Ok(())
        } else {
            Err(EngineError::NoParameter {
                path: path.to_string(),
                name: name.to_string(),
            })
        }
    }

    /// The value parameter `name` of the box at `path` has now, as its box code reads it
    /// (S3: an inheriting parameter takes the nearest ancestor's value). A name neither the
    /// box nor an ancestor declares is an error.
    pub fn parameter(&self, path: &str, name: &str) -> Result<Value, EngineError> {
        let b = self.box_at(path)?;
        self.shared
            .parameter(b, name)
            .ok_or_else(|| EngineError::NoParameter {
                path: path.to_string(),
                name: name.to_string(),
            })
    }

    /// Sends `command` to the timeline of the box at `path`, as its own box code would
    /// (`getTimeline()`): play, pause, stop, go to a frame or label, set the frame rate. A
    /// box without a playing timeline is an error.
    pub fn timeline(&self, path: &str, command: TimelineCommand) -> Result<(), EngineError> {
        let b = self.box_at(path)?;
        if !matches!(self.shared.graph.node(b).content, Content::Timeline(_)) {
            return Err(EngineError::NoTimeline {
                path: path.to_string(),
            });
        }
        self.shared.post(Command::Timeline { b, command });
        Ok(())
    }

    /// The box at `path`, or the error naming it.
    fn box_at(&self, path: &str) -> Result<BoxId, EngineError> {
        self.shared
            .graph
            .find(path)
            .ok_or_else(|| EngineError::NoBox {
                path: path.to_string(),
            })
    }

    /// Each timeline whose cursor stands on a frame now (playing, or paused there): its box
    /// path and that frame, in box order.
    pub fn timeline_frames(&self) -> Vec<(String, i64)> {
        self.shared
            .cursors()
            .into_iter()
            .map(|(b, frame)| (self.shared.graph.node(b).path.clone(), frame))
            .collect()
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
        self.shared.quitting.store(true, Ordering::SeqCst);
        self.shared.time.turns().nudge();
        self.shared.post(Command::Quit);
        // Box code still sleeping on the clock (a hook never unloaded, a thread of its own)
        // wakes up instead of sleeping on a clock that no longer moves; its later sleeps
        // take real time. A nested engine's clock is its owner's, and still moves.
        if self.owns_time {
            self.shared
                .time
                .release_sleepers(crate::clock::Later::RealTime);
        }
        if let Some(h) = self.control.take() {
            let _ = h.join();
        }
    }
}
