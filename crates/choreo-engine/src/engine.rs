//! The engine: one control thread owns the graph state and runs the lifecycle as small
//! programs of steps; box hooks run on worker threads and report back through the
//! control queue, so a blocked hook never blocks anything else and output loops never grow
//! the stack.

use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};

use choreo_xar::model::{InputNature, OutputNature, XarFile};

use crate::activity::{Activity, ON_CONTROL_THREAD};
use crate::clock::{Clock, RealClock, Time, TimerToken, VirtualClock, WakeSink};
use crate::graph::{BoxId, Content, DiagramId, Graph, Target};
use crate::host::{BoxCode, BoxContext, Hook, ScriptHost, TimelineCommand};
use crate::resource::{Holdings, LockType, ResourceNode};
use crate::robot::{MemorySink, Robot};
use crate::trace::{Compact, End, HookRef, Step as TraceStep, Trace};
use crate::value::Value;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The root box fired a Stopped output (R5).
    Finished,
    /// [`Engine::stop`] was called and the behavior is unloaded.
    Stopped,
    /// Virtual time only: nothing is running and nothing is scheduled, so nothing will ever
    /// happen again (the behavior waits for the world).
    Idle,
    /// Virtual time only: [`Options::time_limit`] was reached with the behavior still going
    /// (a timeline that never ends, say). Time stops moving; stop the behavior to unload it.
    TimeLimit,
    /// The wait timed out.
    TimedOut,
}

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

/// See [`Options::on_frame`]: `(timeline box, frame)`.
pub type FrameObserver = Arc<dyn Fn(BoxId, i64) + Send + Sync>;

/// A message to the control thread.
pub(crate) enum Command {
    Start,
    Stop,
    Stimulate {
        b: BoxId,
        input: u16,
        value: Value,
    },
    Fire {
        b: BoxId,
        output: u16,
        value: Value,
    },
    HookDone {
        ticket: u64,
        ok: bool,
        text: String,
    },
    Wake(TimerToken),
    Timeline {
        b: BoxId,
        command: TimelineCommand,
    },
    /// An ALMemory update for memory input `input` of the owner of diagram `d` (P3).
    Memory {
        d: DiagramId,
        input: u16,
        value: Value,
    },
    Quit,
}

/// State shared by the control thread, the workers and box contexts.
pub(crate) struct Shared {
    pub graph: Arc<Graph>,
    pub robot: Option<Arc<dyn Robot>>,
    /// Each box's current frame rate (setFPS changes it; box code reads it any time).
    fps: Vec<AtomicU32>,
    /// Told of every frame a timeline reaches (for whoever plays motion curves).
    on_frame: Option<FrameObserver>,
    /// The clock, and the count of hooks and robot work running beside the control thread.
    pub time: Arc<Activity>,
    pub trace: Trace,
    queue: Sender<Command>,
    parameters: Mutex<Vec<Vec<Value>>>,
}

impl Shared {
    pub(crate) fn post(&self, c: Command) {
        // The control thread is gone only after the engine is dropped: nothing to tell then.
        let _ = self.queue.send(c);
    }

    fn params(&self) -> std::sync::MutexGuard<'_, Vec<Vec<Value>>> {
        self.parameters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// S3: a parameter that does not inherit has its own value; one that inherits takes
    /// the effective value of the nearest ancestor with a parameter of that name (its own
    /// value when there is none); a name the box does not declare is looked up the same way.
    pub(crate) fn parameter(&self, b: BoxId, name: &str) -> Option<Value> {
        let params = self.params();
        let mut inherited = None;
        let mut at = Some(b);
        while let Some(id) = at {
            let node = self.graph.node(id);
            if let Some(i) = node.parameters.iter().position(|p| p.name == name) {
                let value = params[id.0 as usize].get(i).cloned();
                if !node.parameters[i].inherits {
                    return value;
                }
                // Inherits: the outermost inheriting value stands if nothing above has one.
                inherited = value;
            }
            at = node.parent.map(|(p, _)| p);
        }
        inherited
    }

    pub(crate) fn set_parameter(&self, b: BoxId, name: &str, value: Value) -> bool {
        let node = self.graph.node(b);
        let Some(i) = node.parameters.iter().position(|p| p.name == name) else {
            return false;
        };
        self.params()[b.0 as usize][i] = value.clone();
        self.trace.record_step(
            self.time.now(),
            b,
            TraceStep::Param {
                name: name.to_string(),
                value,
            },
        );
        true
    }

    pub(crate) fn fps(&self, b: BoxId) -> u32 {
        self.fps
            .get(b.0 as usize)
            .map_or(0, |f| f.load(Ordering::SeqCst))
    }

    pub(crate) fn timeline_parent(&self, b: BoxId) -> Option<BoxId> {
        let (parent, _) = self.graph.node(b).parent?;
        matches!(self.graph.node(parent).content, Content::Timeline(_)).then_some(parent)
    }
}

/// What the control thread does next for one operation.
#[derive(Debug, Clone)]
enum Step {
    /// Call a hook and wait for it to return.
    Hook(BoxId, Hook),
    /// G1: after an onStart hook, load and forward if it succeeded and no stop came.
    AfterStart(BoxId, u16, Value),
    /// Load the diagram(s) or timeline of a box (R8 step 3).
    LoadContent(BoxId),
    /// Unload the diagram(s) or timeline of a box.
    UnloadContent(BoxId),
    /// R14 (with the keyframe's layer and name for a keyframe diagram). Waits for a load or
    /// unload of the same diagram in progress to finish first.
    LoadDiagram(DiagramId, Option<(String, String)>),
    /// R15. Waits for a load or unload of the same diagram in progress to finish first (a
    /// load in progress is told to load no more boxes).
    UnloadDiagram(DiagramId, Option<(String, String)>),
    /// R6 for a box of a diagram being loaded, unless that load was cancelled.
    LoadBoxIn(DiagramId, BoxId),
    /// The end of a diagram's load: it counts as loaded; operations waiting for it go on.
    LoadDone(DiagramId),
    /// The end of a diagram's unload: it counts as unloaded; operations waiting for it go on.
    UnloadDone(DiagramId),
    /// R6, if not loaded.
    LoadBox(BoxId),
    /// R7, if loaded.
    UnloadBox(BoxId),
    LinksOn(DiagramId),
    LinksOff(DiagramId),
    /// Deliver from owner input `u16` into the loaded diagram `DiagramId`.
    ForwardInto(DiagramId, u16, Value),
    /// Deliver from a box's input into each of its loaded diagrams (R8 step 4, P1).
    Forward(BoxId, u16, Value),
    /// Deliver an output along its links in the parent diagram (R11 step 2).
    Deliver(BoxId, u16, Value),
    /// Start a timeline's cursor (R8 step 4), unless it was stopped since the load that
    /// asked for it (the stop count it had then).
    Play(BoxId, u64),
    /// Stimulate the root's onStart (R3).
    StartRoot,
    /// Q1, Q2: take the box's resources, or wait for them (the op parks), or give up (R9).
    Acquire(BoxId),
    /// G1: remember "last command = start" (once the resources are held).
    Started(BoxId),
    /// Q5: release what the box holds.
    Release(BoxId),
    /// R9: the resources never came: `onResourceError` if defined, else `onStopped`.
    ResourceError(BoxId),
    /// Fire the box's `onStopped` output, if it has one (R9, R12).
    FireStopped(BoxId),
    /// `beh(end)` (R5).
    EndBehavior,
    /// Destroy every box (R4 step 2).
    Destroy,
}

/// A running operation: the steps left, and whether its last hook succeeded.
struct Op {
    steps: VecDeque<Step>,
    last_ok: bool,
    /// Waiting for a hook to return, or for a diagram's load or unload to finish.
    waiting: bool,
}

/// Where a diagram is in its lifecycle. Loads and unloads take several hooks; a second
/// operation on a diagram that is loading or unloading waits for the first to finish.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Unloaded,
    /// Its boxes are being loaded; `cancelled`: an unload came, load no more boxes.
    Loading {
        cancelled: bool,
    },
    Loaded,
    Unloading,
}

/// A hook in flight: the op waiting for it, the box and the hook's name, and the token of
/// its "still stopping" warning (R13).
struct Pending {
    op: usize,
    b: BoxId,
    hook: HookRef,
    slow_stop: Option<TimerToken>,
}

/// What a clock token is for.
#[derive(Debug, Clone, Copy)]
enum Timer {
    /// The next frame of a timeline.
    Frame(BoxId),
    /// The box's wait for resources times out (Q2, R9).
    ResourceDeadline(BoxId),
    /// A hook that stops something (onUnload, an onStop input) still runs after
    /// [`SLOW_STOP`]: warn and keep waiting (R13). The hook's ticket.
    SlowStop(u64),
}

/// How many step queues of finished ops are kept for reuse.
const MAX_SPARE_QUEUES: usize = 64;

/// Virtual time: how long, in real time, hooks may keep running without returning or
/// sleeping on the clock before time moves on without them (see [`Control::quiet_or_stalled`]).
const STALL: Duration = Duration::from_secs(2);

/// R13: how long a stopping hook may run before a warning.
const SLOW_STOP: Duration = Duration::from_secs(10);

/// A box waiting for its resources: the op that starts it (parked), or for a box paused on
/// demand, nothing to run but its timeline to resume.
struct ResourceWaiter {
    b: BoxId,
    op: Option<usize>,
    deadline: Option<TimerToken>,
}

/// The start/stop memory of a box (G1, G2, G4).
#[derive(Debug, Clone, Copy, PartialEq)]
enum LastCommand {
    None,
    Start,
    Stop,
}

#[derive(Debug, Clone)]
struct BoxState {
    loaded: bool,
    last: LastCommand,
}

#[derive(Debug, Clone, Default)]
struct TimelineState {
    /// -1 when stopped.
    cursor: i64,
    /// How many times it was stopped: a play asked by an earlier load is then void.
    stops: u64,
    playing: bool,
    fps: u32,
    origin: Time,
    origin_frame: i64,
    token: Option<TimerToken>,
    /// Per layer: the index of the active keyframe.
    active: Vec<Option<usize>>,
}

/// The control thread's state.
struct Control {
    shared: Arc<Shared>,
    code: Vec<Arc<dyn BoxCode>>,
    boxes: Vec<BoxState>,
    /// Per diagram: its links are active (between `links_on` and `links_off`).
    links_on: Vec<bool>,
    /// Per diagram: see [`Phase`].
    phases: Vec<Phase>,
    /// Step queues of finished ops, for reuse.
    spare_steps: Vec<VecDeque<Step>>,
    /// Ops waiting for a diagram's load or unload to finish.
    parked: HashMap<DiagramId, Vec<usize>>,
    timelines: HashMap<BoxId, TimelineState>,
    ops: Vec<Option<Op>>,
    waiting: HashMap<u64, Pending>,
    next_ticket: u64,
    next_token: TimerToken,
    /// What each scheduled clock token is for.
    timers: HashMap<TimerToken, Timer>,
    /// Who holds which resources (§6).
    holdings: Holdings,
    /// Boxes waiting for resources, in arrival order.
    resource_waiters: Vec<ResourceWaiter>,
    /// Since when nothing happened while a hook kept running outside the clock (virtual time).
    stalled_since: Option<std::time::Instant>,
    /// The hooks (tickets) already named in the trace as stalled.
    stall_reported: std::collections::HashSet<u64>,
    /// Holders being stopped because another box wants their resources (R12).
    losing: std::collections::HashSet<BoxId>,
    workers: Workers,
    outcome: Arc<(Mutex<Option<Outcome>>, Condvar)>,
    destroyed: bool,
    /// Idle was reported and nothing happened since (report it once per quiet period).
    idle_reported: bool,
    /// The behavior was started: before that, being quiet is not being idle.
    started: bool,
    /// See [`Options::time_limit`].
    time_limit: Option<Duration>,
    /// The root fired a Stopped output (R5): the run finished by itself.
    ended: bool,
}

/// A pool of worker threads that grows when every worker is busy (a blocked hook never
/// stops another one from running, C1).
struct Workers {
    jobs: Sender<Job>,
    receiver: Receiver<Job>,
    idle: Arc<AtomicUsize>,
    threads: Vec<JoinHandle<()>>,
}

struct Job {
    code: Arc<dyn BoxCode>,
    hook: Hook,
    ctx: BoxContext,
    ticket: u64,
}

impl Workers {
    fn new() -> Workers {
        let (jobs, receiver) = crossbeam_channel::unbounded();
        Workers {
            jobs,
            receiver,
            idle: Arc::new(AtomicUsize::new(0)),
            threads: Vec::new(),
        }
    }

    fn run(&mut self, job: Job) {
        if self.idle.load(Ordering::SeqCst) == 0 {
            let receiver = self.receiver.clone();
            let idle = Arc::clone(&self.idle);
            self.threads.push(std::thread::spawn(move || {
                while let Ok(job) = receiver.recv() {
                    idle.fetch_sub(1, Ordering::SeqCst);
                    run_job(job, &idle);
                }
            }));
            self.idle.fetch_add(1, Ordering::SeqCst);
        }
        let _ = self.jobs.send(job);
    }
}

/// The subscription id of memory input `input` for diagram `d` (unique per pair).
fn memory_subscription(d: DiagramId, input: usize) -> u64 {
    (u64::from(d.0) << 16) | input as u64
}

/// Calls a hook, turning a panic into an error; returns (ok, error text).
fn call_guarded(code: &dyn BoxCode, hook: &Hook, ctx: &BoxContext) -> (bool, String) {
    match std::panic::catch_unwind(AssertUnwindSafe(|| code.call(hook, ctx))) {
        Ok(Ok(())) => (true, String::new()),
        Ok(Err(e)) => (false, e),
        Err(panic) => {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "box code panicked".to_string());
            (false, format!("panic: {text}"))
        }
    }
}

/// Runs a job on a worker; the worker counts as idle again before the control thread hears
/// of the result, so the next job reuses it instead of starting a new thread.
fn run_job(job: Job, idle: &AtomicUsize) {
    let (ok, text) = call_guarded(job.code.as_ref(), &job.hook, &job.ctx);
    idle.fetch_add(1, Ordering::SeqCst);
    let shared = &job.ctx.shared;
    // Posted before the count drops, so "nothing in flight" implies "its result is queued".
    shared.post(Command::HookDone {
        ticket: job.ticket,
        ok,
        text,
    });
    shared.time.end();
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
    pub fn load(x: &XarFile, host: &dyn ScriptHost, options: Options) -> Result<Engine, String> {
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
            RealClock::new(sink).map_err(|e| format!("cannot start the frame clock: {e}"))?
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
                .map_err(|e| format!("{}: cannot construct the box: {e}", node.path))?;
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
            spare_steps: Vec::new(),
            timelines: HashMap::new(),
            ops: Vec::new(),
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
            .map_err(|e| format!("cannot start the control thread: {e}"))?;
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
    pub fn stimulate(&self, path: &str, input: &str, value: Value) -> Result<(), String> {
        let g = &self.shared.graph;
        let b = g.find(path).ok_or_else(|| format!("no box {path:?}"))?;
        let input = g
            .input_index(b, input)
            .ok_or_else(|| format!("box {path:?} has no input {input:?}"))?;
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
    pub fn set_parameter(&self, path: &str, name: &str, text: &str) -> Result<(), String> {
        let g = &self.shared.graph;
        let b = g.find(path).ok_or_else(|| format!("no box {path:?}"))?;
        let node = g.node(b);
        let p = node
            .parameters
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("box {path:?} has no parameter {name:?}"))?;
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

impl Control {
    fn run(&mut self, commands: &Receiver<Command>) {
        ON_CONTROL_THREAD.with(|c| c.set(true));
        self.shared.trace.buffer_on_this_thread();
        loop {
            let command = match commands.try_recv() {
                Ok(c) => c,
                Err(_) => {
                    // Virtual time stands still until the behavior starts: a scenario event due
                    // at 1.5 s must not fire between the load and the start.
                    if self.shared.time.is_virtual() && self.started && self.quiet_or_stalled() {
                        let limit = self.time_limit.map(|l| Time(l.as_nanos() as u64));
                        let clock = self.shared.time.clock();
                        if let Some(l) = limit
                            && self.now() < l
                            && clock.next_due().is_some_and(|next| next > l)
                        {
                            // Nothing is due before the limit: time stops exactly there.
                            clock.advance_to(l);
                        }
                        if limit.is_some_and(|l| self.now() >= l) {
                            if !self.idle_reported {
                                self.idle_reported = true;
                                self.finish(Outcome::TimeLimit);
                            }
                        } else if clock.on_idle() {
                            // A woken hook runs until it yields before anything else happens.
                            self.shared.time.wait_for_yield(0);
                            continue;
                        }
                        // Idle: nothing runs, nothing is due, nothing is queued (a hook that
                        // just returned posts its result before it stops counting as running).
                        // Operations may still wait: for resources that nobody will release,
                        // say; only the world (or a stop) can move them now.
                        if self.started && commands.is_empty() && !self.idle_reported {
                            self.idle_reported = true;
                            self.finish(Outcome::Idle);
                        }
                    }
                    // A hook about to sleep on the virtual clock is polled for soon.
                    let busy = self.shared.time.any_in_flight();
                    let poll = if self.shared.time.is_virtual() && busy {
                        1
                    } else {
                        50
                    };
                    crate::trace::flush_thread_buffer();
                    match commands.recv_timeout(Duration::from_millis(poll)) {
                        Ok(c) => c,
                        Err(crossbeam_channel::RecvTimeoutError::Timeout) => continue,
                        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                            crate::trace::flush_thread_buffer();
                            return;
                        }
                    }
                }
            };
            self.idle_reported = false;
            self.stalled_since = None;
            match command {
                Command::Quit => {
                    crate::trace::flush_thread_buffer();
                    return;
                }
                Command::Start => {
                    self.started = true;
                    self.shared.trace.record(
                        self.now(),
                        "",
                        TraceStep::Behavior {
                            what: "start".into(),
                        },
                    );
                    self.spawn_op(vec![Step::LoadBox(Graph::ROOT), Step::StartRoot]);
                }
                Command::Stop => {
                    // Unloading may need time to move (an onUnload that sleeps).
                    self.time_limit = None;
                    self.shared.trace.record(
                        self.now(),
                        "",
                        TraceStep::Behavior {
                            what: "stop".into(),
                        },
                    );
                    self.spawn_op(vec![Step::UnloadBox(Graph::ROOT), Step::Destroy]);
                }
                Command::Stimulate { b, input, value } => self.stimulate(b, input, value),
                Command::Fire { b, output, value } => self.fire(b, output, value),
                Command::HookDone { ticket, ok, text } => self.hook_done(ticket, ok, text),
                Command::Wake(token) => self.wake(token),
                Command::Timeline { b, command } => self.timeline_command(b, command),
                Command::Memory { d, input, value } => {
                    if self.links_on[d.0 as usize] {
                        let owner = self.shared.graph.diagram(d).owner;
                        self.compact(owner, Compact::In(input, value.clone()));
                        self.spawn_op(vec![Step::ForwardInto(d, input, value)]);
                    }
                }
            }
        }
    }

    /// Virtual time may move: no hook is running except those sleeping on the clock.
    fn quiet(&self) -> bool {
        self.shared.time.busy() == 0
    }

    /// [`Control::quiet`], or nothing has happened for [`STALL`] of real time while some
    /// hook neither returns nor sleeps on the clock: it is blocked on something else (a
    /// lock, a queue, real I/O) and virtual time goes on without it, or a run would hang. The
    /// hooks still running are named in the trace, once each.
    fn quiet_or_stalled(&mut self) -> bool {
        if self.quiet() {
            self.stalled_since = None;
            return true;
        }
        let since = *self
            .stalled_since
            .get_or_insert_with(std::time::Instant::now);
        if since.elapsed() < STALL {
            return false;
        }
        let mut running: Vec<(u64, BoxId, HookRef)> = self
            .waiting
            .iter()
            .filter(|(ticket, _)| !self.stall_reported.contains(*ticket))
            .map(|(ticket, p)| (*ticket, p.b, p.hook))
            .collect();
        running.sort_by_key(|(ticket, _, _)| *ticket);
        if self.waiting.is_empty() && !self.stall_reported.contains(&u64::MAX) {
            // No hook: background work (a robot task, a thread of box code) is what waits.
            // Said once per run (the key `u64::MAX` is no hook's ticket).
            self.stall_reported.insert(u64::MAX);
            self.shared.trace.record(
                self.now(),
                "",
                TraceStep::Log {
                    level: "warning".into(),
                    message: format!(
                        "background work (a robot task or a thread of box code) has neither \
                         finished nor slept for {} s of real time: virtual time goes on",
                        STALL.as_secs()
                    ),
                },
            );
        }
        {
            for (ticket, b, hook) in running {
                self.stall_reported.insert(ticket);
                let hook = hook.name(&self.shared.graph, b);
                self.record(
                    b,
                    TraceStep::Log {
                        level: "warning".into(),
                        message: format!(
                            "{hook} has neither returned nor slept for {} s of real time: it \
                             waits on something other than the clock; virtual time goes on",
                            STALL.as_secs()
                        ),
                    },
                );
            }
        }
        true
    }

    fn now(&self) -> Time {
        self.shared.time.now()
    }

    fn record(&self, b: BoxId, step: TraceStep) {
        self.shared.trace.record_step(self.now(), b, step);
    }

    /// Records a frequent event by indices (no allocation).
    fn compact(&self, b: BoxId, what: Compact) {
        self.shared.trace.record_box(self.now(), b, what);
    }

    /// Reports an outcome: Finished and Stopped are final; Idle only until then.
    fn finish(&mut self, outcome: Outcome) {
        crate::trace::flush_thread_buffer();
        let (lock, cv) = &*self.outcome;
        let mut o = lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !matches!(*o, Some(Outcome::Finished | Outcome::Stopped)) {
            *o = Some(outcome);
            cv.notify_all();
        }
    }

    fn spawn_op(&mut self, steps: impl IntoIterator<Item = Step>) {
        let mut queue = self.spare_steps.pop().unwrap_or_default();
        queue.extend(steps);
        let id = match self.ops.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                self.ops.push(None);
                self.ops.len() - 1
            }
        };
        self.ops[id] = Some(Op {
            steps: queue,
            last_ok: true,
            waiting: false,
        });
        self.advance(id);
    }

    /// Op `id` is over; its step queue is kept for the next op (no allocation per op).
    fn end_op(&mut self, id: usize) {
        if let Some(op) = self.ops[id].take()
            && self.spare_steps.len() < MAX_SPARE_QUEUES
        {
            let mut queue = op.steps;
            queue.clear();
            self.spare_steps.push(queue);
        }
    }

    /// Runs op `id` until it waits for a hook or ends.
    fn advance(&mut self, id: usize) {
        loop {
            let Some(step) = self.ops[id].as_mut().and_then(|op| op.steps.pop_front()) else {
                self.end_op(id);
                return;
            };
            let more = self.execute(id, step);
            if let Some(op) = self.ops[id].as_mut() {
                for s in more.into_iter().rev() {
                    op.steps.push_front(s);
                }
            }
            if self.ops[id].as_ref().is_some_and(|op| op.waiting) {
                return;
            }
        }
    }

    /// Executes one step of op `id`; returns the steps it expands into.
    fn execute(&mut self, id: usize, step: Step) -> Vec<Step> {
        let g = &self.shared.graph;
        match step {
            Step::Hook(b, hook) => {
                self.dispatch(id, b, hook);
                Vec::new()
            }
            Step::AfterStart(b, input, value) => {
                let ok = self.ops[id].as_ref().is_some_and(|op| op.last_ok);
                if !ok {
                    // G1 step 4: a failed hook releases and stops there.
                    vec![Step::Release(b)]
                } else if self.boxes[b.0 as usize].last == LastCommand::Start
                    && !matches!(g.node(b).content, Content::None)
                {
                    vec![Step::LoadContent(b), Step::Forward(b, input, value)]
                } else {
                    Vec::new()
                }
            }
            Step::Acquire(b) => self.acquire(id, b),
            Step::Started(b) => {
                self.boxes[b.0 as usize].last = LastCommand::Start;
                Vec::new()
            }
            Step::Release(b) => {
                self.release(b);
                Vec::new()
            }
            Step::ResourceError(b) => {
                if self.code[b.0 as usize].defines(&Hook::ResourceError) {
                    vec![Step::Hook(b, Hook::ResourceError)]
                } else {
                    vec![Step::FireStopped(b)]
                }
            }
            Step::FireStopped(b) => {
                if let Some(o) = g.node(b).outputs.iter().position(|o| o.name == "onStopped") {
                    self.fire(b, o as u16, Value::None);
                }
                Vec::new()
            }
            Step::LoadContent(b) => match &g.node(b).content {
                Content::None => Vec::new(),
                Content::Holder(ds) => ds.iter().map(|d| Step::LoadDiagram(*d, None)).collect(),
                Content::Timeline(_) => self.timeline_load_and_play(b),
            },
            Step::UnloadContent(b) => {
                let mut steps = match &g.node(b).content {
                    Content::Timeline(_) => self.timeline_stop(b),
                    _ => Vec::new(),
                };
                // Every diagram of b that is not unloaded yet, also those another op is
                // unloading right now (waiting for it, so b counts as unloaded only then).
                steps.extend(
                    self.content_diagrams(b)
                        .into_iter()
                        .filter(|(d, _)| self.phases[d.0 as usize] != Phase::Unloaded)
                        .map(|(d, kf)| Step::UnloadDiagram(d, kf)),
                );
                steps
            }
            Step::LoadDiagram(d, kf) => match self.phases[d.0 as usize] {
                Phase::Loaded => Vec::new(),
                Phase::Loading { .. } | Phase::Unloading => {
                    self.park(id, d, Step::LoadDiagram(d, kf))
                }
                // Stopped since this load was asked for: nothing to load.
                Phase::Unloaded if !self.wants_loaded(d) => Vec::new(),
                Phase::Unloaded => {
                    self.phases[d.0 as usize] = Phase::Loading { cancelled: false };
                    let owner = g.diagram(d).owner;
                    if let Some((layer, keyframe)) = kf {
                        self.record(owner, TraceStep::KfOn { layer, keyframe });
                    }
                    let mut steps: Vec<Step> = g
                        .diagram(d)
                        .boxes
                        .iter()
                        .map(|b| Step::LoadBoxIn(d, *b))
                        .collect();
                    steps.push(Step::LinksOn(d));
                    for (i, input) in g.node(owner).inputs.iter().enumerate() {
                        if input.nature == InputNature::OnLoad {
                            steps.push(Step::ForwardInto(d, i as u16, Value::None));
                        }
                    }
                    steps.push(Step::LoadDone(d));
                    steps
                }
            },
            Step::UnloadDiagram(d, kf) => match self.phases[d.0 as usize] {
                Phase::Unloaded => Vec::new(),
                Phase::Loading { .. } => {
                    self.phases[d.0 as usize] = Phase::Loading { cancelled: true };
                    self.park(id, d, Step::UnloadDiagram(d, kf))
                }
                Phase::Unloading => self.park(id, d, Step::UnloadDiagram(d, kf)),
                Phase::Loaded => {
                    self.phases[d.0 as usize] = Phase::Unloading;
                    let owner = g.diagram(d).owner;
                    if let Some((layer, keyframe)) = kf {
                        self.record(owner, TraceStep::KfOff { layer, keyframe });
                    }
                    let mut steps = vec![Step::LinksOff(d)];
                    steps.extend(g.diagram(d).boxes.iter().map(|b| Step::UnloadBox(*b)));
                    steps.push(Step::UnloadDone(d));
                    steps
                }
            },
            Step::LoadBoxIn(d, b) => {
                if self.phases[d.0 as usize] == (Phase::Loading { cancelled: true }) {
                    Vec::new()
                } else {
                    vec![Step::LoadBox(b)]
                }
            }
            Step::LoadDone(d) => {
                self.phases[d.0 as usize] = Phase::Loaded;
                self.unpark(d);
                Vec::new()
            }
            Step::UnloadDone(d) => {
                self.phases[d.0 as usize] = Phase::Unloaded;
                self.unpark(d);
                Vec::new()
            }
            Step::LoadBox(b) => {
                let state = &mut self.boxes[b.0 as usize];
                if state.loaded {
                    return Vec::new();
                }
                state.loaded = true;
                state.last = LastCommand::None;
                vec![Step::Hook(b, Hook::Load)]
            }
            Step::UnloadBox(b) => {
                let state = &mut self.boxes[b.0 as usize];
                if !state.loaded {
                    return Vec::new();
                }
                state.loaded = false;
                state.last = LastCommand::Stop;
                self.forget_resource_waits(b);
                // G6: resources are released before onUnload.
                vec![
                    Step::Release(b),
                    Step::Hook(b, Hook::Unload),
                    Step::UnloadContent(b),
                ]
            }
            Step::LinksOn(d) => {
                if self.phases[d.0 as usize] != (Phase::Loading { cancelled: false }) {
                    return Vec::new();
                }
                self.links_on[d.0 as usize] = true;
                self.record(g.diagram(d).owner, TraceStep::LinksOn);
                self.subscribe_memory(d);
                Vec::new()
            }
            Step::LinksOff(d) => {
                if !self.links_on[d.0 as usize] {
                    // A cancelled load never turned them on.
                    return Vec::new();
                }
                self.links_on[d.0 as usize] = false;
                self.record(g.diagram(d).owner, TraceStep::LinksOff);
                self.unsubscribe_memory(d);
                Vec::new()
            }
            Step::ForwardInto(d, input, value) => {
                if self.links_on[d.0 as usize] {
                    let owner = g.diagram(d).owner;
                    let g = Arc::clone(g);
                    for &t in &g.diagram(d).from_owner[usize::from(input)] {
                        if !self.links_on[d.0 as usize] {
                            break;
                        }
                        self.deliver(End::OwnerInput(owner, input), t, value.clone());
                    }
                }
                Vec::new()
            }
            Step::Forward(b, input, value) => self
                .loaded_diagrams(b)
                .into_iter()
                .map(|d| Step::ForwardInto(d, input, value.clone()))
                .collect(),
            Step::Deliver(b, output, value) => {
                self.deliver_output(b, output, value);
                Vec::new()
            }
            Step::Play(b, stops) => {
                let state = self.timeline_state(b);
                if state.stops == stops && state.cursor >= 0 && !state.playing {
                    self.play(b);
                }
                Vec::new()
            }
            Step::StartRoot => {
                if let Some(i) = g
                    .node(Graph::ROOT)
                    .inputs
                    .iter()
                    .position(|p| p.nature == InputNature::OnStart)
                {
                    self.stimulate(Graph::ROOT, i as u16, Value::None);
                }
                Vec::new()
            }
            Step::EndBehavior => {
                self.ended = true;
                self.shared.trace.record(
                    self.now(),
                    "",
                    TraceStep::Behavior { what: "end".into() },
                );
                vec![Step::UnloadBox(Graph::ROOT), Step::Destroy]
            }
            Step::Destroy => {
                if !self.destroyed {
                    self.destroyed = true;
                    for b in 0..g.boxes.len() {
                        self.record(BoxId(b as u32), TraceStep::Del);
                    }
                    let outcome = if self.ended {
                        Outcome::Finished
                    } else {
                        Outcome::Stopped
                    };
                    self.finish(outcome);
                }
                Vec::new()
            }
        }
    }

    /// Op `id` waits for the load or unload of `d` in progress; `step` runs again after it.
    fn park(&mut self, id: usize, d: DiagramId, step: Step) -> Vec<Step> {
        if let Some(op) = self.ops[id].as_mut() {
            op.waiting = true;
        }
        self.parked.entry(d).or_default().push(id);
        vec![step]
    }

    /// The load or unload of `d` finished: the ops waiting for it go on, in arrival order.
    fn unpark(&mut self, d: DiagramId) {
        for id in self.parked.remove(&d).unwrap_or_default() {
            if let Some(op) = self.ops[id].as_mut() {
                op.waiting = false;
                self.advance(id);
            }
        }
    }

    /// P3: while diagram `d` is loaded, each memory input of its owner that links into it
    /// is subscribed to its ALMemory key; each update is delivered from that input.
    fn subscribe_memory(&mut self, d: DiagramId) {
        let Some(robot) = self.shared.robot.clone() else {
            return;
        };
        let g = &self.shared.graph;
        let owner = g.diagram(d).owner;
        for (i, input) in g.node(owner).inputs.iter().enumerate() {
            let Some(key) = input.memory_key.as_deref() else {
                continue;
            };
            if input.nature != InputNature::Memory || g.diagram(d).from_owner[i].is_empty() {
                continue;
            }
            let id = memory_subscription(d, i);
            let queue = self.shared.queue.clone();
            let index = i as u16;
            let sink: MemorySink = Arc::new(move |_key, value| {
                let _ = queue.send(Command::Memory {
                    d,
                    input: index,
                    value,
                });
            });
            if let Err(e) = robot.subscribe(key, id, sink) {
                self.record(
                    owner,
                    TraceStep::Err {
                        hook: format!("subscribe {key}"),
                        text: e,
                    },
                );
            }
        }
    }

    fn unsubscribe_memory(&mut self, d: DiagramId) {
        let Some(robot) = self.shared.robot.clone() else {
            return;
        };
        let g = &self.shared.graph;
        let owner = g.diagram(d).owner;
        for (i, input) in g.node(owner).inputs.iter().enumerate() {
            if input.nature == InputNature::Memory && input.memory_key.is_some() {
                robot.unsubscribe(memory_subscription(d, i));
            }
        }
    }

    /// Every diagram of box `b`, with its layer and keyframe names for a timeline's.
    fn content_diagrams(&self, b: BoxId) -> Vec<(DiagramId, Option<(String, String)>)> {
        match &self.shared.graph.node(b).content {
            Content::None => Vec::new(),
            Content::Holder(ds) => ds.iter().map(|d| (*d, None)).collect(),
            Content::Timeline(t) => t
                .layers
                .iter()
                .flat_map(|l| {
                    l.keyframes
                        .iter()
                        .map(|k| (k.diagram, Some((l.name.clone(), k.name.clone()))))
                })
                .collect(),
        }
    }

    /// The diagrams of box `b` whose links are on.
    fn loaded_diagrams(&self, b: BoxId) -> Vec<DiagramId> {
        self.content_diagrams(b)
            .into_iter()
            .map(|(d, _)| d)
            .filter(|d| self.links_on[d.0 as usize])
            .collect()
    }

    /// Whether diagram `d` should still be loaded when a load asked earlier gets its turn:
    /// its owner is loaded and still started (a holder, G1), or the keyframe is still
    /// active in its timeline (T1). A stop in between makes the pending load void.
    fn wants_loaded(&self, d: DiagramId) -> bool {
        let owner = self.shared.graph.diagram(d).owner;
        let state = &self.boxes[owner.0 as usize];
        if !state.loaded {
            return false;
        }
        match &self.shared.graph.node(owner).content {
            Content::None => false,
            Content::Holder(_) => state.last == LastCommand::Start,
            Content::Timeline(t) => {
                let active = self.timelines.get(&owner).map(|s| s.active.as_slice());
                t.layers.iter().enumerate().any(|(li, l)| {
                    l.keyframes.iter().enumerate().any(|(ki, k)| {
                        k.diagram == d
                            && active.and_then(|a| a.get(li)).copied().flatten() == Some(ki)
                    })
                })
            }
        }
    }

    fn dispatch(&mut self, op: usize, b: BoxId, hook: Hook) {
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        let name = HookRef::of(&self.shared.graph, b, &hook);
        self.compact(b, Compact::Call(name));
        let code = Arc::clone(&self.code[b.0 as usize]);
        if code.runs_inline() {
            let ctx = BoxContext {
                shared: Arc::clone(&self.shared),
                id: b,
            };
            let (ok, text) = call_guarded(code.as_ref(), &hook, &ctx);
            self.finish_hook(op, b, name, ok, text);
            return;
        }
        let stops = match &hook {
            Hook::Unload => true,
            Hook::Input { name: input, .. } => self
                .shared
                .graph
                .node(b)
                .inputs
                .iter()
                .any(|p| p.name == *input && p.nature == InputNature::OnStop),
            _ => false,
        };
        let slow_stop = stops.then(|| {
            let at = Time(self.now().0.saturating_add(SLOW_STOP.as_nanos() as u64));
            self.schedule(at, Timer::SlowStop(ticket))
        });
        self.waiting.insert(
            ticket,
            Pending {
                op,
                b,
                hook: name,
                slow_stop,
            },
        );
        if let Some(o) = self.ops[op].as_mut() {
            o.waiting = true;
        }
        let shared = Arc::clone(&self.shared);
        let base = shared.time.busy();
        shared.time.begin();
        crate::trace::flush_thread_buffer();
        self.workers.run(Job {
            code,
            hook,
            ctx: BoxContext {
                shared: Arc::clone(&shared),
                id: b,
            },
            ticket,
        });
        if shared.time.is_virtual() {
            // Determinism: let the hook run until it returns or sleeps on the clock.
            shared.time.wait_for_yield(base);
            if shared.time.busy() > base && self.waiting.contains_key(&ticket) {
                // It waits on something else (a lock, a queue, real I/O): the run goes on,
                // but its order is now up to the OS; say so.
                let hook = name.name(&self.shared.graph, b);
                self.record(
                    b,
                    TraceStep::Log {
                        level: "warning".into(),
                        message: format!(
                            "{hook} neither returned nor slept on the clock within 2 s of real \
                             time (it waits on something else); the run goes on without \
                             waiting for it"
                        ),
                    },
                );
            }
        }
    }

    fn hook_done(&mut self, ticket: u64, ok: bool, text: String) {
        let Some(Pending {
            op,
            b,
            hook,
            slow_stop,
        }) = self.waiting.remove(&ticket)
        else {
            return;
        };
        if let Some(token) = slow_stop {
            self.cancel_timer(token);
        }
        self.finish_hook(op, b, hook, ok, text);
        self.advance(op);
    }

    /// Records a hook's return and lets its op go on with the result (G1).
    fn finish_hook(&mut self, op: usize, b: BoxId, hook: HookRef, ok: bool, text: String) {
        self.compact(b, Compact::Ret(hook, ok));
        if !ok {
            let hook = hook.name(&self.shared.graph, b);
            self.record(b, TraceStep::Err { hook, text });
        }
        if let Some(o) = self.ops[op].as_mut() {
            o.last_ok = ok;
            o.waiting = false;
        }
    }

    /// An input of box `b` is stimulated: what happens depends on its nature (R8, R10, P1).
    fn stimulate(&mut self, b: BoxId, input: u16, value: Value) {
        let g = &self.shared.graph;
        let port = &g.node(b).inputs[usize::from(input)];
        let (name, nature) = (port.name.clone(), port.nature);
        self.compact(b, Compact::In(input, value.clone()));
        let hook = Hook::Input {
            name,
            value: value.clone(),
        };
        match nature {
            InputNature::OnStart => {
                let acquire = (!g.node(b).resources.is_empty()).then_some(Step::Acquire(b));
                self.spawn_op(acquire.into_iter().chain([
                    Step::Started(b),
                    Step::Hook(b, hook),
                    Step::AfterStart(b, input, value),
                ]));
            }
            InputNature::OnStop => {
                // G2.
                self.boxes[b.0 as usize].last = LastCommand::Stop;
                self.spawn_op([
                    Step::Hook(b, hook),
                    Step::UnloadContent(b),
                    Step::Release(b),
                ]);
            }
            InputNature::OnEvent | InputNature::OnLoad | InputNature::Memory => {
                self.spawn_op([Step::Hook(b, hook), Step::Forward(b, input, value)]);
            }
        }
    }

    /// Output `output` of box `b` is stimulated (by its code, or by a link to a parent
    /// output): a Stopped output unloads the box's content first (R11, G4).
    fn fire(&mut self, b: BoxId, output: u16, value: Value) {
        let nature = self.shared.graph.node(b).outputs[usize::from(output)].nature;
        self.compact(b, Compact::Out(output, value.clone()));
        if nature != OutputNature::Stopped {
            // P5, P6: Punctual, unDef and Recurrent outputs only deliver.
            self.deliver_output(b, output, value);
            return;
        }
        // G4: release, stop the content, then deliver.
        self.release(b);
        self.boxes[b.0 as usize].last = LastCommand::Stop;
        if b == Graph::ROOT {
            self.spawn_op(vec![Step::UnloadContent(b), Step::EndBehavior]);
        } else {
            self.spawn_op(vec![
                Step::UnloadContent(b),
                Step::Deliver(b, output, value),
            ]);
        }
    }

    /// Delivers an output along its links in the parent diagram, if they are on.
    fn deliver_output(&mut self, b: BoxId, output: u16, value: Value) {
        let g = &self.shared.graph;
        let node = g.node(b);
        let Some((_, d)) = node.parent else { return };
        if !self.links_on[d.0 as usize] {
            self.compact(b, Compact::Dropped(output));
            return;
        }
        let g = Arc::clone(g);
        for &t in &g.node(b).outputs[usize::from(output)].targets {
            // An earlier link may have unloaded the diagram (a parent's Stopped output).
            if !self.links_on[d.0 as usize] {
                break;
            }
            self.deliver(End::Output(b, output), t, value.clone());
        }
    }

    /// One link carries `value` to `target`.
    fn deliver(&mut self, from: End, target: Target, value: Value) {
        let g = &self.shared.graph;
        let (owner_of_link, to) = match target {
            Target::Input(c, i) => (g.node(c).parent.map_or(c, |(p, _)| p), End::Input(c, i)),
            Target::Parameter(c, i) => {
                (g.node(c).parent.map_or(c, |(p, _)| p), End::Parameter(c, i))
            }
            Target::OwnerOutput(o, i) => (o, End::OwnerOutput(o, i)),
        };
        self.compact(owner_of_link, Compact::Deliver(from, to));
        match target {
            Target::Input(c, i) => self.stimulate(c, i, value),
            Target::Parameter(c, i) => {
                let name = g.node(c).parameters[usize::from(i)].name.clone();
                self.shared.set_parameter(c, &name, value);
            }
            Target::OwnerOutput(o, i) => self.fire(o, i, value),
        }
    }
}

/// Timelines (R16, R17, T1–T7).
impl Control {
    fn timeline(&self, b: BoxId) -> Option<&crate::graph::TimelineNode> {
        match &self.shared.graph.node(b).content {
            Content::Timeline(t) => Some(t),
            _ => None,
        }
    }

    fn timeline_state(&mut self, b: BoxId) -> &mut TimelineState {
        let (fps, layers) = self.timeline(b).map_or((0, 0), |t| (t.fps, t.layers.len()));
        self.timelines.entry(b).or_insert_with(|| TimelineState {
            cursor: -1,
            fps,
            active: vec![None; layers],
            ..TimelineState::default()
        })
    }

    /// The keyframe of each layer active at `frame` (T1).
    fn active_at(&self, b: BoxId, frame: i64) -> Vec<Option<usize>> {
        self.timeline(b).map_or_else(Vec::new, |t| {
            t.layers
                .iter()
                .map(|l| l.keyframes.iter().rposition(|k| k.index <= frame))
                .collect()
        })
    }

    /// Steps that move the layers of `b` from their active keyframes to those active at
    /// `frame`: unload the old, then load the new (T2).
    fn switch_keyframes(&mut self, b: BoxId, frame: i64) -> Vec<Step> {
        let wanted = self.active_at(b, frame);
        let Some(t) = self.timeline(b).cloned() else {
            return Vec::new();
        };
        let state = self.timeline_state(b);
        let mut steps = Vec::new();
        for (li, layer) in t.layers.iter().enumerate() {
            let (old, new) = (state.active[li], wanted[li]);
            if old == new {
                continue;
            }
            if let Some(k) = old {
                let kf = &layer.keyframes[k];
                steps.push(Step::UnloadDiagram(
                    kf.diagram,
                    Some((layer.name.clone(), kf.name.clone())),
                ));
            }
            if let Some(k) = new {
                let kf = &layer.keyframes[k];
                steps.push(Step::LoadDiagram(
                    kf.diagram,
                    Some((layer.name.clone(), kf.name.clone())),
                ));
            }
            state.active[li] = new;
        }
        steps
    }

    /// R16 (cursor to the start frame, its keyframes loaded), then play (R8 step 4).
    fn timeline_load_and_play(&mut self, b: BoxId) -> Vec<Step> {
        let start = self.timeline(b).map_or(0, |t| t.start_frame);
        self.timeline_state(b).cursor = start;
        self.frame_reached(b, start);
        let mut steps = self.switch_keyframes(b, start);
        let stops = self.timeline_state(b).stops;
        steps.push(Step::Play(b, stops));
        steps
    }

    /// Starts the cursor moving from where it is; frame deadlines count from now.
    fn play(&mut self, b: BoxId) {
        self.record(
            b,
            TraceStep::Timeline {
                command: "play".into(),
                frame: None,
            },
        );
        let now = self.now();
        let state = self.timeline_state(b);
        state.playing = true;
        state.origin = now;
        state.origin_frame = state.cursor;
        self.schedule_next_frame(b);
    }

    fn schedule_next_frame(&mut self, b: BoxId) {
        let state = self.timeline_state(b);
        if !state.playing || state.fps == 0 {
            // fps 0: the timeline cannot play; no frame ever comes (and nothing divides by 0).
            return;
        }
        let n = (state.cursor + 1 - state.origin_frame).max(1) as u64;
        let deadline = Time::frame_deadline(state.origin, n, state.fps);
        let token = self.schedule(deadline, Timer::Frame(b));
        self.timeline_state(b).token = Some(token);
    }

    fn cancel_frames(&mut self, b: BoxId) {
        if let Some(token) = self.timeline_state(b).token.take() {
            self.cancel_timer(token);
        }
    }

    /// Schedules a clock token for `timer`.
    fn schedule(&mut self, deadline: Time, timer: Timer) -> TimerToken {
        let token = self.next_token;
        self.next_token += 1;
        self.timers.insert(token, timer);
        self.shared.time.clock().schedule(deadline, token);
        token
    }

    fn cancel_timer(&mut self, token: TimerToken) {
        self.shared.time.clock().cancel(token);
        self.timers.remove(&token);
    }

    /// A clock token came due.
    fn wake(&mut self, token: TimerToken) {
        match self.timers.remove(&token) {
            Some(Timer::Frame(b)) => self.next_frame(b, token),
            Some(Timer::ResourceDeadline(b)) => self.resource_timeout(b, token),
            Some(Timer::SlowStop(ticket)) => {
                if let Some(p) = self.waiting.get(&ticket) {
                    let (b, hook) = (p.b, p.hook.name(&self.shared.graph, p.b));
                    self.record(
                        b,
                        TraceStep::Log {
                            level: "warning".into(),
                            message: format!(
                                "{hook} still running after {} s; waiting for it (R13)",
                                SLOW_STOP.as_secs()
                            ),
                        },
                    );
                }
            }
            None => {}
        }
    }

    /// A frame deadline came: move the cursor, switch keyframes, end past the end (T6, G5).
    fn next_frame(&mut self, b: BoxId, token: TimerToken) {
        let state = self.timeline_state(b);
        if state.token != Some(token) || !state.playing {
            return;
        }
        state.token = None;
        state.cursor += 1;
        let frame = state.cursor;
        let end = self.timeline(b).and_then(|t| t.end_frame);
        if end.is_some_and(|e| frame > e) {
            // G5: the Stopped output fires; as for any Stopped output (R11, G4) the timeline
            // is then stopped and unloaded, and only then the signal leaves the box.
            match self.stopped_output(b) {
                Some(o) => self.fire(b, o, Value::None),
                None => {
                    let steps = self.timeline_stop(b);
                    self.spawn_op(steps);
                }
            }
            return;
        }
        self.frame_reached(b, frame);
        let steps = self.switch_keyframes(b, frame);
        self.schedule_next_frame(b);
        if !steps.is_empty() {
            self.spawn_op(steps);
        }
    }

    fn frame_reached(&self, b: BoxId, frame: i64) {
        self.record(b, TraceStep::Frame { frame });
        if let Some(f) = &self.shared.on_frame {
            f(b, frame);
        }
    }

    /// G5: `onStopped` if the box has it, else its first Stopped output.
    fn stopped_output(&self, b: BoxId) -> Option<u16> {
        let outputs = &self.shared.graph.node(b).outputs;
        let i = outputs
            .iter()
            .position(|o| o.name == "onStopped" && o.nature == OutputNature::Stopped)
            .or_else(|| {
                outputs
                    .iter()
                    .position(|o| o.nature == OutputNature::Stopped)
            })?;
        u16::try_from(i).ok()
    }

    /// R17: pause, unload the active keyframes, cursor to -1.
    fn timeline_stop(&mut self, b: BoxId) -> Vec<Step> {
        if self.timeline_state(b).cursor < 0 {
            return Vec::new();
        }
        self.cancel_frames(b);
        self.record(
            b,
            TraceStep::Timeline {
                command: "stop".into(),
                frame: None,
            },
        );
        let steps = self.switch_keyframes(b, i64::MIN);
        let state = self.timeline_state(b);
        state.playing = false;
        state.cursor = -1;
        state.stops += 1;
        steps
    }

    /// A timeline command from box code (T4).
    fn timeline_command(&mut self, b: BoxId, command: TimelineCommand) {
        if let TimelineCommand::SetFps(fps) = command
            && let Some(f) = self.shared.fps.get(b.0 as usize)
        {
            // Holders too: their getFPS reports it (T7).
            f.store(fps, Ordering::SeqCst);
        }
        if self.timeline(b).is_none() || !self.boxes[b.0 as usize].loaded {
            // A box that is not loaded has no timeline to command.
            return;
        }
        let steps = match command {
            TimelineCommand::Play => {
                if self.timeline_state(b).cursor < 0 {
                    self.timeline_load_and_play(b)
                } else {
                    if !self.timeline_state(b).playing {
                        self.play(b);
                    }
                    Vec::new()
                }
            }
            TimelineCommand::Pause => {
                self.cancel_frames(b);
                self.timeline_state(b).playing = false;
                self.record(
                    b,
                    TraceStep::Timeline {
                        command: "pause".into(),
                        frame: None,
                    },
                );
                Vec::new()
            }
            TimelineCommand::Stop => self.timeline_stop(b),
            TimelineCommand::GoToFrame(f) => self.goto(b, f),
            TimelineCommand::GoToLabel(label) => {
                let frame = self.timeline(b).and_then(|t| {
                    t.layers
                        .iter()
                        .flat_map(|l| l.keyframes.iter())
                        .find(|k| k.name == label)
                        .map(|k| k.index)
                });
                match frame {
                    Some(f) => self.goto(b, f),
                    None => {
                        self.record(
                            b,
                            TraceStep::Err {
                                hook: "goTo".into(),
                                text: format!("no behavior keyframe named {label:?}"),
                            },
                        );
                        Vec::new()
                    }
                }
            }
            TimelineCommand::SetFps(fps) => {
                let state = self.timeline_state(b);
                state.fps = fps;
                if state.playing {
                    self.cancel_frames(b);
                    self.play(b);
                }
                Vec::new()
            }
        };
        if !steps.is_empty() {
            self.spawn_op(steps);
        }
    }

    /// T4 goTo: move the cursor, switch keyframes, keep playing or paused.
    fn goto(&mut self, b: BoxId, frame: i64) -> Vec<Step> {
        self.record(
            b,
            TraceStep::Timeline {
                command: "goto".into(),
                frame: Some(frame),
            },
        );
        let steps = self.switch_keyframes(b, frame);
        let playing = {
            let state = self.timeline_state(b);
            state.cursor = frame;
            state.playing
        };
        if playing {
            self.cancel_frames(b);
            let now = self.now();
            let state = self.timeline_state(b);
            state.origin = now;
            state.origin_frame = frame;
            self.schedule_next_frame(b);
        }
        steps
    }
}

/// Resources (§6).
impl Control {
    fn names(resources: &[ResourceNode]) -> Vec<String> {
        resources.iter().map(|r| r.name.clone()).collect()
    }

    /// Q1–Q3 for box `b` starting in op `id`: take the resources if free; otherwise act on
    /// each holder in the way by its lock type, and wait (parking the op) or give up (R9).
    fn acquire(&mut self, id: usize, b: BoxId) -> Vec<Step> {
        let wanted = self.shared.graph.node(b).resources.clone();
        self.record(
            b,
            TraceStep::Resource {
                what: "ask".into(),
                names: Self::names(&wanted),
            },
        );
        let conflicts: Vec<(BoxId, LockType, String)> = self
            .holdings
            .conflicts(&wanted, |h| self.encloses(h, b))
            .into_iter()
            .map(|(holder, rs)| {
                // The holder's strongest hold decides (the reference's generated code let
                // the last resource decide, a bug: runtime-semantics.md §9, bug 6).
                let strongest = rs
                    .iter()
                    .map(|r| r.lock)
                    .max_by_key(|l| match l {
                        LockType::StopOnDemand => 0,
                        LockType::PauseOnDemand => 1,
                        LockType::CallbackOnDemand => 2,
                        LockType::Lock => 3,
                    })
                    .unwrap_or(LockType::Lock);
                (holder, strongest, rs[0].name.clone())
            })
            .collect();
        let mut blocked = false;
        for (holder, lock, name) in conflicts {
            match lock {
                LockType::Lock => blocked = true,
                LockType::CallbackOnDemand => {
                    blocked = true;
                    if self.code[holder.0 as usize].defines(&Hook::Resource { name: name.clone() })
                    {
                        self.spawn_op(vec![Step::Hook(holder, Hook::Resource { name })]);
                    }
                }
                LockType::StopOnDemand => self.lose(holder),
                LockType::PauseOnDemand => self.pause_for_resources(holder),
            }
        }
        // Stopping a holder may have unloaded this box too (its Stopped output reaching
        // the diagram that holds it): then it does not start at all.
        if !self.boxes[b.0 as usize].loaded {
            if let Some(op) = self.ops[id].as_mut() {
                op.steps.clear();
            }
            return Vec::new();
        }
        // Stopped or paused holders may have released at once.
        if self
            .holdings
            .conflicts(&wanted, |h| self.encloses(h, b))
            .is_empty()
        {
            self.grant(b, &wanted);
            return Vec::new();
        }
        // Q2: a Lock or Callback holder makes the asker wait up to its timeout (the longest
        // of its resources'); holders being stopped or paused release soon, so waiting for
        // them alone has no deadline.
        let timeout = wanted
            .iter()
            .map(|r| r.timeout)
            .max_by_key(|t| t.map_or(u128::MAX, |d| d.as_nanos()))
            .flatten();
        if blocked && timeout == Some(Duration::ZERO) {
            return self.resource_failed(id, b);
        }
        let deadline = match timeout {
            Some(t) if blocked => {
                let at = Time(self.now().0.saturating_add(t.as_nanos() as u64));
                Some(self.schedule(at, Timer::ResourceDeadline(b)))
            }
            _ => None,
        };
        if let Some(op) = self.ops[id].as_mut() {
            op.waiting = true;
        }
        self.resource_waiters.push(ResourceWaiter {
            b,
            op: Some(id),
            deadline,
        });
        // Step again is not needed: the op resumes after this step once granted.
        Vec::new()
    }

    /// Whether `outer` is `b` or a box enclosing it (their resources are shared with it).
    fn encloses(&self, outer: BoxId, b: BoxId) -> bool {
        let mut at = Some(b);
        while let Some(x) = at {
            if x == outer {
                return true;
            }
            at = self.shared.graph.node(x).parent.map(|(p, _)| p);
        }
        false
    }

    fn grant(&mut self, b: BoxId, resources: &[ResourceNode]) {
        self.holdings.grant(b, resources);
        self.record(
            b,
            TraceStep::Resource {
                what: "got".into(),
                names: Self::names(resources),
            },
        );
    }

    /// Q5: `b` releases what it holds (traced), and waiting boxes that can now go, go.
    fn release(&mut self, b: BoxId) {
        let Some(held) = self.holdings.release(b) else {
            return;
        };
        self.losing.remove(&b);
        self.record(
            b,
            TraceStep::Resource {
                what: "free".into(),
                names: Self::names(&held),
            },
        );
        self.grant_waiters();
    }

    /// Grants resources to the waiting boxes that can have them, in arrival order.
    fn grant_waiters(&mut self) {
        let mut i = 0;
        while i < self.resource_waiters.len() {
            let b = self.resource_waiters[i].b;
            let wanted = self.shared.graph.node(b).resources.clone();
            if !self
                .holdings
                .conflicts(&wanted, |h| self.encloses(h, b))
                .is_empty()
            {
                i += 1;
                continue;
            }
            let w = self.resource_waiters.remove(i);
            if let Some(token) = w.deadline {
                self.cancel_timer(token);
            }
            self.grant(b, &wanted);
            match w.op {
                Some(op) => {
                    if let Some(o) = self.ops[op].as_mut() {
                        o.waiting = false;
                        self.advance(op);
                    }
                }
                // Paused on demand (Q3): it plays again.
                None => self.timeline_command(b, TimelineCommand::Play),
            }
            // Granting may have started and stopped boxes: look again from the start.
            i = 0;
        }
    }

    /// Box `b` is unloaded: its waits for resources end, and the starts waiting on them are
    /// dropped (no hook of an unloaded box runs).
    fn forget_resource_waits(&mut self, b: BoxId) {
        let mut i = 0;
        while i < self.resource_waiters.len() {
            if self.resource_waiters[i].b != b {
                i += 1;
                continue;
            }
            let w = self.resource_waiters.remove(i);
            if let Some(token) = w.deadline {
                self.cancel_timer(token);
            }
            if let Some(op) = w.op {
                self.ops[op] = None;
            }
        }
    }

    /// Q2, R9: box `b` waited for its resources until the deadline.
    fn resource_timeout(&mut self, b: BoxId, token: TimerToken) {
        let Some(i) = self
            .resource_waiters
            .iter()
            .position(|w| w.b == b && w.deadline == Some(token))
        else {
            return;
        };
        let w = self.resource_waiters.remove(i);
        if let Some(op) = w.op {
            let steps = self.resource_failed(op, b);
            if let Some(o) = self.ops[op].as_mut() {
                o.steps.extend(steps);
                o.waiting = false;
                self.advance(op);
            }
        }
    }

    /// R9 for the start op `id` of box `b`: no hook, no load; `onResourceError` or
    /// `onStopped` instead. Returns the steps that replace the rest of the op.
    fn resource_failed(&mut self, id: usize, b: BoxId) -> Vec<Step> {
        let names = Self::names(&self.shared.graph.node(b).resources);
        self.record(
            b,
            TraceStep::Resource {
                what: "timeout".into(),
                names,
            },
        );
        if let Some(op) = self.ops[id].as_mut() {
            op.steps.clear();
        }
        vec![Step::ResourceError(b)]
    }

    /// R12: the holder `a` of a "Stop on demand" resource is stopped for another box:
    /// `onResourceLost` if defined, its content unloaded, its resources released, then
    /// `onStopped` if there was no `onResourceLost`.
    fn lose(&mut self, a: BoxId) {
        if !self.losing.insert(a) {
            return; // Already being stopped.
        }
        let held = self.shared.graph.node(a).resources.clone();
        self.record(
            a,
            TraceStep::Resource {
                what: "lost".into(),
                names: Self::names(&held),
            },
        );
        self.boxes[a.0 as usize].last = LastCommand::Stop;
        let steps = if self.code[a.0 as usize].defines(&Hook::ResourceLost) {
            vec![
                Step::Hook(a, Hook::ResourceLost),
                Step::UnloadContent(a),
                Step::Release(a),
            ]
        } else {
            vec![
                Step::UnloadContent(a),
                Step::Release(a),
                Step::FireStopped(a),
            ]
        };
        self.spawn_op(steps);
    }

    /// Q3 "Pause on demand": the holder's timeline pauses, it releases, and it waits (with
    /// no deadline) to take its resources again and play on.
    fn pause_for_resources(&mut self, a: BoxId) {
        let held = self.shared.graph.node(a).resources.clone();
        self.record(
            a,
            TraceStep::Resource {
                what: "lost".into(),
                names: Self::names(&held),
            },
        );
        self.timeline_command(a, TimelineCommand::Pause);
        if let Some(held) = self.holdings.release(a) {
            self.record(
                a,
                TraceStep::Resource {
                    what: "free".into(),
                    names: Self::names(&held),
                },
            );
        }
        self.resource_waiters.push(ResourceWaiter {
            b: a,
            op: None,
            deadline: None,
        });
    }
}
