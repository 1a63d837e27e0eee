//! The control thread's state: operations and their steps, diagram phases, box and timeline
//! state, pending hooks and timers, and the few helpers every part of the control thread uses.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::clock::{Time, TimerToken};
use crate::engine::holdings::Holdings;
use crate::engine::outcome::Outcome;
use crate::engine::shared::Shared;
use crate::engine::workers::Workers;
use crate::graph::{BoxId, DiagramId};
use crate::hook::Hook;
use crate::host::BoxCode;
use crate::trace::{Compact, HookRef, Step as TraceStep};
use crate::value::Value;

/// What the control thread does next for one operation.
#[derive(Debug, Clone)]
pub(super) enum Step {
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
pub(super) struct Op {
    pub(super) steps: VecDeque<Step>,
    pub(super) last_ok: bool,
    /// Waiting for a hook to return, or for a diagram's load or unload to finish.
    pub(super) waiting: bool,
}

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

/// A hook in flight: the op waiting for it, the box and the hook's name, and the token of
/// its "still stopping" warning (R13).
pub(super) struct Pending {
    pub(super) op: usize,
    pub(super) b: BoxId,
    pub(super) hook: HookRef,
    pub(super) slow_stop: Option<TimerToken>,
}

/// What a clock token is for.
#[derive(Debug, Clone, Copy)]
pub(super) enum Timer {
    /// The next frame of a timeline.
    Frame(BoxId),
    /// The box's wait for resources times out (Q2, R9).
    ResourceDeadline(BoxId),
    /// A hook that stops something (onUnload, an onStop input) still runs after
    /// [`SLOW_STOP`]: warn and keep waiting (R13). The hook's ticket.
    SlowStop(u64),
}

/// How many step queues of finished ops are kept for reuse.
pub(super) const MAX_SPARE_QUEUES: usize = 64;

/// Virtual time: how long, in real time, hooks may keep running without returning or
/// sleeping on the clock before time moves on without them (see [`Control::quiet_or_stalled`]).
pub(super) const STALL: Duration = Duration::from_secs(2);

/// R13: how long a stopping hook may run before a warning.
pub(super) const SLOW_STOP: Duration = Duration::from_secs(10);

/// A box waiting for its resources: the op that starts it (parked), or for a box paused on
/// demand, nothing to run but its timeline to resume.
pub(super) struct ResourceWaiter {
    pub(super) b: BoxId,
    pub(super) op: Option<usize>,
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
}

/// The control thread's state.
pub(super) struct Control {
    pub(super) shared: Arc<Shared>,
    pub(super) code: Vec<Arc<dyn BoxCode>>,
    pub(super) boxes: Vec<BoxState>,
    /// Per diagram: its links are active (between `links_on` and `links_off`).
    pub(super) links_on: Vec<bool>,
    /// Per diagram: see [`Phase`].
    pub(super) phases: Vec<Phase>,
    /// Step queues of finished ops, for reuse.
    pub(super) spare_steps: Vec<VecDeque<Step>>,
    /// Ops waiting for a diagram's load or unload to finish.
    pub(super) parked: HashMap<DiagramId, Vec<usize>>,
    pub(super) timelines: HashMap<BoxId, TimelineState>,
    pub(super) ops: Vec<Option<Op>>,
    pub(super) waiting: HashMap<u64, Pending>,
    pub(super) next_ticket: u64,
    pub(super) next_token: TimerToken,
    /// What each scheduled clock token is for.
    pub(super) timers: HashMap<TimerToken, Timer>,
    /// Who holds which resources (§6).
    pub(super) holdings: Holdings,
    /// Boxes waiting for resources, in arrival order.
    pub(super) resource_waiters: Vec<ResourceWaiter>,
    /// Since when nothing happened while a hook kept running outside the clock (virtual time).
    pub(super) stalled_since: Option<std::time::Instant>,
    /// The hooks (tickets) already named in the trace as stalled.
    pub(super) stall_reported: std::collections::HashSet<u64>,
    /// Holders being stopped because another box wants their resources (R12).
    pub(super) losing: std::collections::HashSet<BoxId>,
    pub(super) workers: Workers,
    pub(super) outcome: Arc<(Mutex<Option<Outcome>>, Condvar)>,
    pub(super) destroyed: bool,
    /// Idle was reported and nothing happened since (report it once per quiet period).
    pub(super) idle_reported: bool,
    /// The behavior was started: before that, being quiet is not being idle.
    pub(super) started: bool,
    /// See [`Options::time_limit`].
    pub(super) time_limit: Option<Duration>,
    /// The root fired a Stopped output (R5): the run finished by itself.
    pub(super) ended: bool,
}

impl Control {
    pub(super) fn now(&self) -> Time {
        self.shared.time.now()
    }

    pub(super) fn record(&self, b: BoxId, step: TraceStep) {
        self.shared.trace.record_step(self.now(), b, step);
    }

    /// Records a frequent event by indices (no allocation).
    pub(super) fn compact(&self, b: BoxId, what: Compact) {
        self.shared.trace.record_box(self.now(), b, what);
    }

    /// Schedules a clock token for `timer`.
    pub(super) fn schedule(&mut self, deadline: Time, timer: Timer) -> TimerToken {
        let token = self.next_token;
        self.next_token += 1;
        self.timers.insert(token, timer);
        self.shared.time.clock().schedule(deadline, token);
        token
    }

    pub(super) fn cancel_timer(&mut self, token: TimerToken) {
        self.shared.time.clock().cancel(token);
        self.timers.remove(&token);
    }
}
