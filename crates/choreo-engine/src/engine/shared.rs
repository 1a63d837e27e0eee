//! What the control thread shares with workers and box contexts: the graph, the robot, the
//! clock, the trace, parameters and frame rates, and the control queue.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use crate::activity::Activity;
use crate::engine::command::Command;
use crate::engine::queue::Sender;
use crate::engine::sync::TimelineSync;
use crate::graph::{BoxId, Content, Graph};
use crate::robot::Robot;
use crate::trace::{Step as TraceStep, Trace};
use choreo_base::Value;

/// See [`crate::Options::on_frame`]: `(timeline box, frame)`.
pub type FrameObserver = Arc<dyn Fn(BoxId, i64) + Send + Sync>;

/// State shared by the control thread, the workers and box contexts.
pub(crate) struct Shared {
    pub graph: Arc<Graph>,
    pub robot: Option<Arc<dyn Robot>>,
    /// Each box's current frame rate (setFPS changes it; box code reads it any time).
    pub(crate) fps: Vec<AtomicU32>,
    /// Per box: loaded (set by the control thread). A worker taking an input hook of a box
    /// unloaded since the hook was handed out skips it (see `workers::run_job`).
    pub(crate) loaded: Vec<AtomicBool>,
    /// Told of every frame a timeline reaches (for whoever plays motion curves).
    pub(crate) on_frame: Option<FrameObserver>,
    /// Per box: its timeline's cursor (-1: stopped), set by the control thread, read by
    /// whoever asks which frame plays (`Engine::timeline_frames`: a fall says it).
    pub(crate) cursors: Vec<AtomicI64>,
    /// The clock, and the count of hooks and robot work running beside the control thread.
    pub time: Arc<Activity>,
    pub trace: Trace,
    pub(crate) queue: Sender,
    pub(crate) parameters: Mutex<Vec<Vec<Value>>>,
    /// Boxes are being constructed: virtual time may move while the constructor sleeps on
    /// the clock (cleared before the constructor stops counting as an activity, so time
    /// never moves between the end of construction and the start).
    pub(crate) constructing: std::sync::atomic::AtomicBool,
    /// An engine on another's time base (nested): its control thread counts as an activity
    /// while it has commands to act on (see [`Shared::post`]).
    pub(crate) accounted: Option<Mutex<Accounted>>,
    /// [`Accounted::counted`], readable without its lock: whether this engine's control
    /// thread counts as an activity now (see `Control::dispatch`).
    pub(crate) counting: Arc<std::sync::atomic::AtomicBool>,
    /// [`Shared::counting`] of the engines whose box code loaded this one, outermost first:
    /// they wait for it (a hook waits in `runBehavior`), so it never waits for them.
    pub(crate) ancestors: Vec<Arc<std::sync::atomic::AtomicBool>>,
    /// The engine is being dropped: its control thread quits without waiting for a turn
    /// (whoever drops it holds one, and waits for the thread to end).
    pub(crate) quitting: std::sync::atomic::AtomicBool,
    /// A nested run nobody waits for: its failure is told to the run that owns the time base
    /// (see [`crate::Engine::fails_its_owner`]).
    pub(crate) fails_owner: AtomicBool,
    /// Strict mode (see [`crate::Options::strict`]): box code's uncaught exceptions stop
    /// the behavior ([`crate::BoxContext::uncaught`]).
    pub(crate) strict: bool,
    /// When timelines start, kept in step with other runs (see [`Options::timeline_sync`]).
    pub(crate) sync: Option<Arc<dyn TimelineSync>>,
}

/// How a nested engine's control thread is counted on the time base it shares.
pub(crate) struct Accounted {
    /// The queue is open (the control thread closes it as it ends).
    pub(crate) open: bool,
    /// The control thread counts as an activity: something was posted since it last found
    /// its queue empty with nothing left to do.
    pub(crate) counted: bool,
    /// Virtual time: its place in the turns while counted (see `crate::turn`), enlisted by
    /// whoever posted the first command.
    pub(crate) turn: Option<crate::turn::TurnId>,
}

impl Shared {
    /// Tells the control thread. A nested engine's control thread is an activity of the
    /// time base it shares from the first command posted until it has acted on every one
    /// (the control thread ends the count then, `Control::settle`), so that the engine that
    /// moves virtual time never moves it while this one still has something to do at the
    /// current instant.
    #[inline]
    pub(crate) fn post(&self, c: Command) {
        match &self.accounted {
            // The control thread is gone only after the engine is dropped: nothing to tell
            // then.
            None => {
                let _ = self.queue.send(c);
            }
            Some(accounted) => self.post_nested(accounted, c),
        }
    }

    /// Posts output `output` of box `b` fired with `value`: a bang, the hop's usual case,
    /// as a word ([`Sender::send_bang`]).
    #[inline(always)]
    pub(crate) fn post_fire(&self, b: BoxId, output: u16, value: Value) {
        if self.accounted.is_none() && matches!(value, Value::None) {
            value.discard();
            let _ = self.queue.send_bang(b, output);
        } else {
            self.post(Command::Fire { b, output, value });
        }
    }

    /// [`Shared::post`] to a nested engine, counted.
    fn post_nested(&self, accounted: &Mutex<Accounted>, c: Command) {
        let mut accounted = choreo_base::lock(accounted);
        if accounted.open && self.queue.send(c).is_ok() && !accounted.counted {
            accounted.counted = true;
            self.counting
                .store(true, std::sync::atomic::Ordering::SeqCst);
            self.time.nested_begin();
            accounted.turn = self.time.enlist_turn();
        }
    }

    /// How many of the engines that loaded this one count as activities now.
    pub(crate) fn ancestors_counting(&self) -> usize {
        self.ancestors
            .iter()
            .filter(|c| c.load(std::sync::atomic::Ordering::SeqCst))
            .count()
    }

    /// 1 when this (nested) engine's control thread counts as an activity now, else 0.
    pub(crate) fn own_count(&self) -> usize {
        usize::from(self.counting.load(std::sync::atomic::Ordering::SeqCst))
    }

    fn params(&self) -> std::sync::MutexGuard<'_, Vec<Vec<Value>>> {
        choreo_base::lock(&self.parameters)
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

    /// Whether box `b` is loaded, as the control thread last said.
    pub(crate) fn is_loaded(&self, b: BoxId) -> bool {
        self.loaded
            .get(b.0 as usize)
            .is_some_and(|l| l.load(Ordering::Acquire))
    }

    pub(crate) fn set_loaded(&self, b: BoxId, loaded: bool) {
        if let Some(l) = self.loaded.get(b.0 as usize) {
            l.store(loaded, Ordering::Release);
        }
    }

    pub(crate) fn set_cursor(&self, b: BoxId, frame: i64) {
        if let Some(c) = self.cursors.get(b.0 as usize) {
            c.store(frame, Ordering::Release);
        }
    }

    /// Each timeline whose cursor stands on a frame (playing or paused): its box, the frame.
    pub(crate) fn cursors(&self) -> Vec<(BoxId, i64)> {
        self.cursors
            .iter()
            .enumerate()
            .filter_map(|(b, c)| {
                let frame = c.load(Ordering::Acquire);
                (frame >= 0).then_some((BoxId(b as u32), frame))
            })
            .collect()
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
