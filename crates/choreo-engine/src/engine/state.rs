//! The control thread's state, `Control`, each concern in a type that owns its state:
//! `Diagrams` (phases, active links, who waits for a load), `Work` (operations in flight and
//! the ready stack), `Watch` (loops, stalls, the workers' cap), `PendingHooks`, `Wakeups`
//! (clock tokens), `ResourceState` (holdings and waiters) and `Life` (started, stopping,
//! ended); beside them the boxes' and timelines' state, and the few helpers every part of the
//! control thread uses.
//!
//! What a parked operation waits for is an `Awaited`: a diagram's load or unload, or the root's
//! load.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use choreo_motion::Motion;
use std::time::Duration;

use crate::activity::Route;
use crate::clock::{Time, TimerToken};
use crate::context::BoxContext;
use crate::engine::holdings::Holdings;
use crate::engine::op::{OpId, Ops};
use crate::engine::outcome::{Outcome, Reported};
use crate::engine::rate::LinkRates;
use crate::engine::shared::Shared;
use crate::engine::workers::Workers;
use crate::graph::{BoxId, Content, DiagramId};
use crate::hook::PortName;
use crate::host::BoxCode;
use crate::resource::ResourceTree;
use crate::trace::{Buffer, Compact, End, HookRef, Step as TraceStep};
use choreo_base::Value;
use choreo_base::pool::{Pool, PoolOptions};

/// Where a diagram is in its lifecycle. Loads and unloads take several hooks; a second
/// operation on a diagram that is loading or unloading waits for the first to finish.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Phase {
    Unloaded,
    /// Its boxes are being loaded; `cancelled`: an unload came, load no more boxes.
    Loading {
        cancelled: bool,
    },
    Loaded,
    Unloading,
}

/// What a parked operation waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Awaited {
    /// The load or unload of a diagram in progress (R14, R15).
    Diagram(DiagramId),
    /// The root box's load (its onLoad hook, R3): a stop waits for it to return, as the
    /// unload of a diagram waits for the diagram's load.
    RootLoad,
}

/// A hook in flight: the op waiting for it, the box and the hook's name, and the token of
/// its "still stopping" warning (R13).
pub(super) struct Pending {
    pub(super) op: OpId,
    pub(super) b: BoxId,
    pub(super) hook: HookRef,
    pub(super) slow_stop: Option<TimerToken>,
    /// Virtual time: the hook's place in the turns (see `crate::turn`).
    pub(super) turn: Option<crate::turn::TurnId>,
}

/// What a clock token is for.
#[derive(Debug, Clone, Copy)]
pub(super) enum Timer {
    /// The next frame of a timeline.
    Frame(BoxId),
    /// A timeline's start, at the time a [`crate::engine::sync::TimelineSync`] said; the
    /// timeline's stop count when it was asked.
    SyncedPlay(BoxId, u64),
    /// The box's wait for resources times out (Q2, R9).
    ResourceDeadline(BoxId),
    /// A hook that stops something (onUnload, an onStop input) still runs after
    /// [`SLOW_STOP`]: warn and keep waiting (R13). The hook's ticket.
    SlowStop(u64),
    /// Real time: [`crate::engine::Options::time_limit`] is reached.
    Limit,
}

/// Virtual time: how long, in real time, counted activities that take no turns (none
/// should) may keep running without returning or sleeping on the clock before time moves on
/// without them (see [`Control::quiet_or_stalled`]).
pub(super) const STALL: Duration = Duration::from_secs(2);

/// Virtual time: how many steps (operations run, commands handled) a loop of links may take
/// without a pause before time moves on beside it, and again after as many (see
/// `Control::time_beside_loop`). Counted, not timed, so that where time moves in the loop
/// is the same on every run.
pub(super) const LOOP_STEPS: u64 = 20_000;

/// The most operations in flight (running, ready or waiting); past it, new ones are dropped
/// (see [`Control::spawn_op`]). Only a loop of links that multiplies signals gets there.
pub(super) const MAX_OPS: usize = 100_000;

/// How many steps the control thread runs before it looks at its queue again.
pub(super) const STEP_BUDGET: usize = 4096;

/// R13: how long a stopping hook may run before a warning.
pub(super) const SLOW_STOP: Duration = Duration::from_secs(10);

/// A box waiting for its resources: the op that starts it (parked), or for a box paused on
/// demand, nothing to run but its timeline to resume.
pub(super) struct ResourceWaiter {
    pub(super) b: BoxId,
    pub(super) op: Option<OpId>,
    pub(super) deadline: Option<TimerToken>,
}

/// The start/stop memory of a box (G1, G2, G4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum LastCommand {
    None,
    Start,
    Stop,
}

#[derive(Debug, Clone)]
pub(super) struct BoxState {
    pub(super) loaded: bool,
    pub(super) last: LastCommand,
    /// Its code runs inline (`BoxCode::runs_inline`, asked once its code is constructed:
    /// not a call through the code per signal).
    pub(super) inline: bool,
    /// It runs inline and takes no resources: an onStart input along a link starts it as
    /// a [`Ready::Start`] (kept here, beside `inline`, so that a signal hop does not read
    /// the graph's resources of the box, on a line of memory of their own).
    pub(super) starts_inline: bool,
    /// It holds diagrams or a timeline, to load once it started (read from the graph once,
    /// for the same reason as `starts_inline`).
    pub(super) holds: bool,
}

/// A timeline's motion and its order in flight.
#[derive(Debug, Clone)]
pub(super) struct MotionState {
    pub(super) motion: Arc<Motion>,
    /// An order was sent (or is being checked and sent) since the last kill.
    pub(super) in_flight: bool,
    /// Waiting mode: the frame holds since then, until the order is sent.
    pub(super) holding: Option<Time>,
    /// A Waiting check is on the robot thread.
    pub(super) checking: bool,
    /// Bumped by each kill: a reply about an older order is void.
    pub(super) epoch: u64,
    /// The order's task id, set by the robot thread, taken by the kill.
    pub(super) task: Arc<Mutex<Option<i64>>>,
    /// The posture read when a sync said when the timeline starts, taken by its order.
    pub(super) early: Arc<Mutex<Option<EarlyPosture>>>,
}

/// Angles read ahead of an order (`ALMotion.getAngles(joints, True)`), for the play asked at
/// stop count `stops`.
#[derive(Debug)]
pub(super) struct EarlyPosture {
    pub(super) stops: u64,
    pub(super) joints: Vec<String>,
    pub(super) posture: Vec<Option<f64>>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct TimelineState {
    /// -1 when stopped.
    pub(super) cursor: i64,
    /// How many times it was stopped: a play asked by an earlier load is then void.
    pub(super) stops: u64,
    pub(super) playing: bool,
    pub(super) fps: u32,
    pub(super) origin: Time,
    pub(super) origin_frame: i64,
    pub(super) token: Option<TimerToken>,
    /// Per layer: the index of the active keyframe.
    pub(super) active: Vec<Option<usize>>,
    /// Its motion, built at its first load (None: no curves, or no robot).
    pub(super) motion: Option<MotionState>,
    /// How many times it started playing (for a [`crate::engine::sync::TimelineSync`]).
    pub(super) plays: u32,
    /// Started by a sync: the run's lead its frames follow ([`crate::engine::sync::Start`]).
    pub(super) lead: Option<std::time::Duration>,
    /// The sync said when: the next `Step::Play` plays at once.
    pub(super) released: bool,
}

/// What is ready to run.
#[derive(Debug, PartialEq)]
pub(super) enum Ready {
    /// An operation.
    Op(OpId),
    /// An inline box's input of nature onStart stimulated along a link, the box without
    /// resources (`Control::spawn_start`): the operation it would make (its start, its
    /// hook, what follows the hook) runs without one (`Control::run_start`) unless it
    /// must wait or yield, the hop of a chain of signals made cheap (issue 33, part 4).
    /// Its value waits in [`Work::start_values`], at the slot given.
    Start(BoxId, u16, u32),
}

/// The values of the starts on the ready stack, by slot. A start is moved on the stack
/// (and in and out of it) several times per hop: without its value it is 12 bytes, and its
/// value is moved once in and once out. A bang (`None`, what most signals carry) takes no
/// slot. A `None` made anew is stored as its tag alone, and a copy of the whole value read
/// right after waits for that store to land: so a bang is taken whole out of
/// [`StartValues::bang`], whose tag was stored a hop ago.
#[derive(Default)]
pub(super) struct StartValues {
    /// Always `None`: what a bang is moved out of.
    bang: Value,
    /// A free slot holds `Value::None`: a plain `Value`, not an `Option`, so a value is
    /// moved out whole (an `Option`'s tag stored apart from the value made the next read of
    /// it wait for both stores to land).
    values: Vec<Value>,
    free: Vec<u32>,
}

impl StartValues {
    /// The slot of a bang: none.
    const BANG: u32 = u32::MAX;

    /// Keeps `value`; the slot to take it back from.
    #[inline(always)]
    pub(super) fn put(&mut self, value: Value) -> u32 {
        if matches!(value, Value::None) {
            value.discard();
            return Self::BANG;
        }
        match self.free.pop() {
            Some(slot) if (slot as usize) < self.values.len() => {
                // A free slot holds `None`.
                std::mem::replace(&mut self.values[slot as usize], value).discard();
                slot
            }
            _ => {
                self.values.push(value);
                // At most `MAX_OPS` starts are in flight, far fewer than `BANG`.
                (self.values.len() - 1) as u32
            }
        }
    }

    /// The value kept at `slot`, which is free again.
    #[inline(always)]
    pub(super) fn take(&mut self, slot: u32) -> Value {
        if slot == Self::BANG {
            return std::mem::take(&mut self.bang);
        }
        let value = self
            .values
            .get_mut(slot as usize)
            .map(std::mem::take)
            .unwrap_or_default();
        self.free.push(slot);
        value
    }
}

/// The control thread's state.
pub(super) struct Control {
    pub(super) shared: Arc<Shared>,
    pub(super) code: Vec<Arc<dyn BoxCode>>,
    /// The context inline hooks get, its box set before each call: no count of the shared
    /// state is taken per call.
    pub(super) inline: BoxContext,
    /// The trace's buffer on this thread, through which the engine records its frequent
    /// events (which is why a `Control` is made on its own thread: the handle stays there).
    pub(super) log: Buffer,
    pub(super) boxes: Vec<BoxState>,
    /// Where each diagram is in its lifecycle, and who waits for it.
    pub(super) diagrams: Diagrams,
    pub(super) timelines: HashMap<BoxId, TimelineState>,
    /// The operations in flight and the ready stack the step interpreter runs.
    pub(super) work: Work,
    /// What the control thread watches for the trace: loops of links, stalled hooks, the
    /// workers' cap.
    pub(super) watch: Watch,
    /// Hooks running on workers, by ticket, until they return.
    pub(super) pending: PendingHooks,
    /// The clock tokens this engine scheduled, and what each is for.
    pub(super) wakeups: Wakeups,
    /// Who holds which resources, and who waits for them (§6).
    pub(super) resources: ResourceState,
    pub(super) workers: Workers,
    /// The robot thread: robot calls the control thread needs (memory subscriptions), in
    /// order, off the control thread.
    pub(super) robot_calls: Pool,
    pub(super) outcome: Arc<Reported>,
    /// This engine's clock tokens: delivered until the control thread ends (dropped then).
    pub(super) _route: Route,
    /// The engine owns its time base (see [`crate::engine::Options::time_base`]): it moves
    /// virtual time, reports idleness and the time limit.
    pub(super) owns_time: bool,
    /// Where the run is in its own lifecycle: started, stopping, ended, destroyed.
    pub(super) life: Life,
    /// See [`Options::time_limit`].
    pub(super) time_limit: Option<Duration>,
    /// See [`crate::engine::Options::strict`].
    pub(super) strict: bool,
    /// An operation that must not be lost is being made (the start, a stop): it bypasses
    /// the cap on operations.
    pub(super) uncapped: bool,
    /// See [`crate::engine::Engine::ended_at`].
    pub(super) ended_at: Arc<AtomicU64>,
    /// Where the load puts the boxes' code for the control thread to take.
    pub(super) code_slot: CodeSlot,
}

/// Who holds which resources, and who waits for them (§6).
pub(super) struct ResourceState {
    /// Who holds which resources (§6).
    pub(super) holdings: Holdings,
    /// Boxes waiting for resources, in arrival order.
    pub(super) waiters: Vec<ResourceWaiter>,
    /// Holders being stopped because another box wants their resources (R12).
    pub(super) losing: std::collections::HashSet<BoxId>,
}

/// The clock tokens this engine scheduled, and what each is for.
pub(super) struct Wakeups {
    pub(super) next_token: TimerToken,
    /// What each scheduled clock token is for.
    pub(super) timers: HashMap<TimerToken, Timer>,
}

/// Hooks running on workers, by ticket, until they return.
pub(super) struct PendingHooks {
    pub(super) waiting: HashMap<u64, Pending>,
    pub(super) next_ticket: u64,
}

/// The operations in flight and the ready stack the step interpreter runs.
pub(super) struct Work {
    pub(super) ops: Ops,
    /// Operations ready to run, as a stack: the top runs next. An operation that starts
    /// others waits under them until they have run or wait themselves, which keeps the
    /// reference's depth-first order without recursion (C2: loops never grow the stack).
    pub(super) ready: Vec<Ready>,
    /// How many [`Ready::Start`] are in `ready`: they count as operations in flight.
    pub(super) starts: usize,
    /// Their values.
    pub(super) start_values: StartValues,
    /// The input name the last inline start's hook was given, back from it: the next start
    /// of an input of that name (a chain's `onStart`, interned by the graph) takes it
    /// rather than a count of the graph's, which costs two atomic operations a hop.
    pub(super) spare_name: Option<PortName>,
    /// Operations dropped because [`MAX_OPS`] were in flight.
    pub(super) dropped_ops: u64,
    /// The most operations in flight at once so far (see [`crate::Engine::peak_operations`]).
    pub(super) peak: Arc<std::sync::atomic::AtomicUsize>,
}

impl Work {
    /// How many operations are in flight: made, or ready as a start.
    pub(super) fn in_flight(&self) -> usize {
        self.ops.len() + self.starts
    }

    /// Keeps the most operations ever in flight.
    pub(super) fn count_peak(&self) {
        let live = self.in_flight();
        if live > self.peak.load(std::sync::atomic::Ordering::Relaxed) {
            self.peak.store(live, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Op `id`, which waited, may go on.
    pub(super) fn resume(&mut self, id: OpId) {
        if let Some(op) = self.ops.get_mut(id) {
            op.waiting = false;
            self.ready.push(Ready::Op(id));
        }
    }

    /// Op `op` goes on with its hook's result (G1).
    pub(super) fn hook_result(&mut self, op: OpId, ok: bool) {
        if let Some(o) = self.ops.get_mut(op) {
            o.last_ok = ok;
            o.waiting = false;
        }
    }
}

/// What the control thread watches for the trace: loops of links, stalled hooks, the
/// workers' cap.
pub(super) struct Watch {
    /// Steps ready operations and commands have kept the control thread busy without a
    /// pause, since time last moved beside them; `None` when not looping.
    pub(super) looped: Option<u64>,
    /// The trace said that virtual time goes on beside a loop of links.
    pub(super) loop_reported: bool,
    /// Signals per link target, for the loop warning.
    pub(super) rates: LinkRates,
    /// Since when nothing happened while a hook kept running outside the clock (virtual time).
    pub(super) stalled_since: Option<std::time::Instant>,
    /// The hooks (tickets) already named in the trace as stalled.
    pub(super) stall_reported: std::collections::HashSet<u64>,
    /// The trace said that hooks wait for a worker (the pool's cap).
    pub(super) cap_reported: bool,
}

/// Where each diagram is in its lifecycle, and who waits for it.
pub(super) struct Diagrams {
    /// Per diagram: its links are active (between `links_on` and `links_off`).
    pub(super) links_on: Vec<bool>,
    /// Per diagram: see [`Phase`].
    pub(super) phases: Vec<Phase>,
    /// Ops waiting for a diagram's load or unload, or the root's load, to finish.
    pub(super) parked: HashMap<Awaited, Vec<OpId>>,
    /// Per diagram being loaded: the operation loading it (a cancelled load is run to its
    /// end at once, see `Step::UnloadDiagram`).
    pub(super) load_ops: HashMap<DiagramId, OpId>,
    /// The root box's load is under way (between the start and its onLoad's return).
    pub(super) root_loading: bool,
}

/// Where the run is in its own lifecycle: started, stopping, ended, destroyed.
pub(super) struct Life {
    /// Opened (dropped) once the start has been acted on, see [`crate::Engine::start_parked`].
    pub(super) start_gate: Option<crate::engine::command::StartGate>,
    pub(super) destroyed: bool,
    /// Idle was reported and nothing happened since (report it once per quiet period).
    pub(super) idle_reported: bool,
    /// The behavior was started: before that, being quiet is not being idle.
    pub(super) started: bool,
    /// The root fired a Stopped output (R5): the run finished by itself.
    pub(super) ended: bool,
    /// Why the behavior is being stopped when it is not [`Outcome::Stopped`]: strict mode,
    /// the robot lost, a crash. Reported once it is unloaded.
    pub(super) stop_reason: Option<Outcome>,
    /// A stop is under way.
    pub(super) stopping: bool,
}

/// See [`Control::code_slot`].
pub(super) type CodeSlot = Arc<Mutex<Vec<Arc<dyn BoxCode>>>>;

/// What the control thread keeps of [`crate::engine::Options`].
pub(super) struct ControlOptions {
    pub(super) time_limit: Option<Duration>,
    pub(super) route: Route,
    pub(super) strict: bool,
    pub(super) resources: Arc<ResourceTree>,
}

impl Control {
    /// The state of a behavior nothing of which is loaded; its code comes later
    /// ([`crate::engine::command::Command::Constructed`]).
    pub(super) fn new(
        shared: Arc<Shared>,
        outcome: Arc<Reported>,
        ended_at: Arc<AtomicU64>,
        code_slot: CodeSlot,
        peak_ops: Arc<std::sync::atomic::AtomicUsize>,
        options: ControlOptions,
    ) -> Control {
        let boxes = shared
            .graph
            .boxes
            .iter()
            .map(|node| BoxState {
                loaded: false,
                last: LastCommand::None,
                inline: false,
                starts_inline: false,
                holds: !matches!(node.content, Content::None),
            })
            .collect();
        let diagrams = shared.graph.diagrams.len();
        let rates = LinkRates::new(&shared.graph);
        let owns_time = shared.accounted.is_none();
        let inline = BoxContext {
            shared: Arc::clone(&shared),
            id: BoxId(0),
        };
        let log = shared.trace.buffer_on_this_thread();
        Control {
            shared,
            code: Vec::new(),
            inline,
            log,
            boxes,
            diagrams: Diagrams {
                links_on: vec![false; diagrams],
                phases: vec![Phase::Unloaded; diagrams],
                parked: HashMap::new(),
                load_ops: HashMap::new(),
                root_loading: false,
            },
            timelines: HashMap::new(),
            work: Work {
                ops: Ops::default(),
                ready: Vec::new(),
                starts: 0,
                start_values: StartValues::default(),
                spare_name: None,
                dropped_ops: 0,
                peak: peak_ops,
            },
            watch: Watch {
                looped: None,
                loop_reported: false,
                rates,
                stalled_since: None,
                stall_reported: std::collections::HashSet::new(),
                cap_reported: false,
            },
            pending: PendingHooks {
                waiting: HashMap::new(),
                next_ticket: 0,
            },
            wakeups: Wakeups {
                next_token: options.route.first_token(),
                timers: HashMap::new(),
            },
            resources: ResourceState {
                holdings: Holdings::new(Arc::clone(&options.resources)),
                waiters: Vec::new(),
                losing: std::collections::HashSet::new(),
            },
            workers: Workers::new(),
            robot_calls: Pool::new(
                "choreo-robot",
                PoolOptions {
                    max_threads: 1,
                    ..PoolOptions::default()
                },
            ),
            outcome,
            owns_time,
            _route: options.route,
            life: Life {
                start_gate: None,
                destroyed: false,
                idle_reported: false,
                started: false,
                ended: false,
                stop_reason: None,
                stopping: false,
            },
            time_limit: options.time_limit,
            strict: options.strict,
            uncapped: false,
            ended_at,
            code_slot,
        }
    }
}

impl Control {
    pub(super) fn now(&self) -> Time {
        self.shared.time.now()
    }

    /// Records a behavior-level event (`beh start`, `beh stop`, `beh end`).
    pub(super) fn record_behavior(&self, what: &str) {
        self.shared.trace.record(
            self.now(),
            "",
            TraceStep::Behavior {
                what: what.to_string(),
            },
        );
    }

    /// Logs `message` at `level` for the whole run (no box).
    pub(super) fn log_run(&self, level: &str, message: String) {
        self.shared.trace.record(
            self.now(),
            "",
            TraceStep::Log {
                level: level.to_string(),
                message,
            },
        );
    }

    pub(super) fn record(&self, b: BoxId, step: TraceStep) {
        self.shared.trace.record_step(self.now(), b, step);
    }

    /// Records a frequent event by indices (no allocation for a `None` value), inlined
    /// (see `Buffer::record_box`).
    #[inline(always)]
    pub(super) fn compact(&self, b: BoxId, what: Compact<'_>) {
        self.log.record_box(self.now(), b, what);
    }

    /// Records a link carrying a value from `from` to `to` (inlined, as `compact`).
    #[inline(always)]
    pub(super) fn record_delivery(&self, from: End, to: End) {
        self.log.record_delivery(self.now(), from, to);
    }

    /// Schedules a clock token for `timer`.
    pub(super) fn schedule(&mut self, deadline: Time, timer: Timer) -> TimerToken {
        let token = self.wakeups.next_token;
        self.wakeups.next_token += 1;
        self.wakeups.timers.insert(token, timer);
        self.shared.time.clock().schedule(deadline, token);
        token
    }

    pub(super) fn cancel_timer(&mut self, token: TimerToken) {
        self.shared.time.clock().cancel(token);
        self.wakeups.timers.remove(&token);
    }
}
