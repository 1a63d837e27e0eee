//! The trace: every lifecycle step as an event with time, sequence number and box path
//! (vocabulary of runtime-semantics.md §0). Tests assert on it; `--trace out.jsonl` writes it.
//!
//! # What is kept
//!
//! A trace keeps only its last events, in a ring, so that a long run does not grow without
//! bound: [`DEFAULT_KEEP`] for [`Trace::new`] and [`Trace::with_writer`], `n` for
//! [`Trace::keeping`], none for [`Trace::unkept`], every one for [`Trace::keep_all`].
//! Sequence numbers count the whole run, gap-free: [`Trace::events`] returns the kept tail,
//! whose first `seq` is [`Trace::dropped`] (how many events fell out of the ring), and
//! [`Trace::len`] counts every event recorded.
//!
//! # Listeners and the writer
//!
//! Any number of [`Listener`]s ([`Trace::add_listener`]) are told of every event, and the
//! JSON Lines writer ([`Trace::with_writer`]) writes every event. Both happen
//!
//! - in sequence order, each event once, one event at a time (never two listener calls at
//!   once), even when several threads record;
//! - outside the trace's lock: a listener may read the trace (`events`, `len`, ...) and may
//!   record into it; what it records is delivered by the same delivery, after the events
//!   already waiting (so after the one it is being told of);
//! - before recording returns: once `record` has returned (for the engine's control
//!   thread, which buffers its events: once its buffer is flushed), every listener has
//!   seen the event and the writer has written it, unless a listener recorded it (above);
//! - safely: a listener that panics is removed, and the others still get the event.
//!
//! How. Recording takes the trace's lock, gives each event its sequence number, keeps it in
//! the ring and, when someone listens or writes, resolves its names into a queue of pending
//! events, in sequence order since numbers are given under the same lock. Then one thread at
//! a time, the *deliverer* (a flag under the lock says whether there is one), takes the
//! whole queue, lets the lock go, writes and announces those events, takes the lock again
//! and goes on until the queue is empty. A thread that records while another one delivers
//! leaves its events in the queue and waits (on a condition variable) until the deliverer
//! has announced them. A listener that records runs on the deliverer's thread, which a
//! thread-local mark tells: its event is only queued, and the loop below it delivers it
//! next. The writer is written by the deliverer, outside the trace's lock, under a lock of
//! its own.
//!
//! With no listener and no writer, recording only keeps the record: no name is looked up
//! and nothing is allocated (beyond the ring's own growth).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use serde::Serialize;

use crate::clock::Time;
use crate::graph::{BoxId, Graph};
use crate::value::Value;

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Step {
    /// The box was constructed (`new(B)`).
    New,
    /// The box was destroyed (`del(B)`).
    Del,
    /// A script hook was entered: `onLoad`, `onUnload` or `onInput_<name>`.
    Call {
        /// The hook.
        hook: String,
    },
    /// A script hook returned (`ok` false: it raised or panicked).
    Ret {
        /// The hook.
        hook: String,
        /// Whether it returned normally.
        ok: bool,
    },
    /// An input was stimulated, before any hook ran.
    In {
        /// Input name.
        port: String,
        /// The value.
        value: Value,
    },
    /// An output was stimulated.
    Out {
        /// Output name.
        port: String,
        /// The value.
        value: Value,
    },
    /// A link carried a value from `from` to `to` (paths with port names).
    Deliver {
        /// Source, `box.port` (`(parent).port` for the enclosing box).
        from: String,
        /// Destination, `box.port`.
        to: String,
    },
    /// An output was fired while its links were off: nothing was delivered (R14, R15).
    Dropped {
        /// The output.
        port: String,
    },
    /// A parameter received a value (link into a parameter, or setParameter).
    Param {
        /// Parameter name.
        name: String,
        /// The new value.
        value: Value,
    },
    /// The links of the box's diagram were activated.
    LinksOn,
    /// The links of the box's diagram were broken.
    LinksOff,
    /// A timeline command: `play`, `pause`, `stop`, `goto`.
    Timeline {
        /// The command.
        command: String,
        /// The frame for `goto`.
        frame: Option<i64>,
    },
    /// The time cursor reached a frame.
    Frame {
        /// The frame.
        frame: i64,
    },
    /// A behavior keyframe's diagram was loaded.
    KfOn {
        /// Layer name.
        layer: String,
        /// Keyframe name.
        keyframe: String,
    },
    /// A behavior keyframe's diagram was unloaded.
    KfOff {
        /// Layer name.
        layer: String,
        /// Keyframe name.
        keyframe: String,
    },
    /// An error escaped a hook, or box code failed in another way.
    Err {
        /// The hook (or what failed).
        hook: String,
        /// The message.
        text: String,
    },
    /// Box code called the robot (`svc`).
    RobotCall {
        /// `ALTextToSpeech.say`.
        method: String,
        /// The arguments.
        args: Vec<Value>,
    },
    /// That robot call returned (`svc_ret`); `ok` false: the robot raised an error.
    RobotReturn {
        /// `ALTextToSpeech.say`.
        method: String,
        /// Whether it succeeded.
        ok: bool,
    },
    /// Resource traffic (§6): `ask` (the box starts and wants them), `got`, `timeout` (R9),
    /// `lost` (taken by another box, R12, or paused for it), `free` (released, Q5).
    Resource {
        /// What happened.
        what: String,
        /// The resource names.
        names: Vec<String>,
    },
    /// Box code logged a message (`self.logger.info(...)`, `self.log(...)`, `print`).
    Log {
        /// `debug`, `info`, `warning`, `error` or `fatal`.
        level: String,
        /// The message.
        message: String,
    },
    /// A behavior-level event: `start`, `end` (the root fired a Stopped output), `stop`.
    Behavior {
        /// What happened.
        what: String,
    },
}

/// One trace event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// Sequence number, from 0, gap-free.
    pub seq: u64,
    /// Behavior time in nanoseconds.
    pub time_ns: u64,
    /// The box path (`root/Dance/Say`), empty for behavior-level events.
    pub path: String,
    /// What happened.
    #[serde(flatten)]
    pub step: Step,
}

/// How many events [`Trace::new`] keeps: the last 262,144. A record takes 56 bytes, so a
/// full ring is about 14 MiB (14,680,064 bytes), plus the text of the rare events stored
/// with their names.
pub const DEFAULT_KEEP: usize = 1 << 18;

/// Collects events in order, keeps the last ones, and optionally writes them as JSON Lines
/// and tells listeners of them (see the [module](self) doc).
///
/// The engine records its frequent events (hooks, inputs, outputs, deliveries) compactly,
/// as box and port indices, and names are looked up only when events are read, written or
/// listened to: recording a signal hop allocates nothing.
#[derive(Clone)]
pub struct Trace {
    shared: Arc<Shared>,
}

impl Default for Trace {
    /// The same as [`Trace::new`].
    fn default() -> Trace {
        Trace::keeping(DEFAULT_KEEP)
    }
}

/// What the clones of a trace share.
struct Shared {
    /// The trace's lock: records, counters, listeners, the pending queue.
    inner: Mutex<TraceInner>,
    /// Signalled each time a deliverer is done with a batch (see the module doc).
    delivered: Condvar,
    /// The JSON Lines output. Only the deliverer writes to it, outside the trace's lock;
    /// never held while a listener runs.
    writer: Mutex<Option<Box<dyn Write + Send>>>,
}

struct TraceInner {
    /// The kept tail of the trace: at most `keep` records, the oldest first.
    records: VecDeque<Record>,
    /// How many records to keep (`usize::MAX`: all of them).
    keep: usize,
    /// Events recorded so far (kept or not): the next sequence number.
    count: usize,
    /// The graph the compact records refer to.
    graph: Option<Arc<Graph>>,
    /// Whether [`Shared::writer`] holds a writer (it is only set when the trace is made).
    has_writer: bool,
    /// The listeners, replaced whole when one comes or goes, so that a deliverer takes
    /// them all with one reference count.
    listeners: Arc<[(ListenerId, Listener)]>,
    /// The id the next listener gets.
    next_listener: u64,
    /// Events resolved for the writer and the listeners, not yet taken by the deliverer,
    /// in sequence order.
    pending: Vec<Event>,
    /// The end (last sequence number + 1) of the events queued in `pending` so far.
    queued: usize,
    /// The end of the events delivered so far.
    delivered: usize,
    /// Whether a thread is delivering; it does until `pending` is empty.
    delivering: bool,
}

impl TraceInner {
    /// Keeps `record` as the newest one, dropping the oldest when the ring is full.
    fn keep(&mut self, record: Record) {
        let len = self.records.len();
        if len >= self.keep {
            if self.keep == 0 {
                return;
            }
            self.records.pop_front();
        } else if len == self.records.capacity() {
            // Doubling, but never past the ring's size: a full ring holds no spare room.
            let want = len.saturating_mul(2).max(8).min(self.keep);
            self.records.reserve_exact(want - len);
        }
        self.records.push_back(record);
    }

    /// The sequence number of the first kept record.
    fn first_kept(&self) -> usize {
        self.count - self.records.len()
    }
}

/// What this thread does with traces.
struct Local {
    /// See [`Trace::buffer_on_this_thread`].
    buffer: Option<(Trace, Vec<Record>)>,
    /// The traces whose events this thread is delivering now (a listener of one may record
    /// into another): empty but while a listener runs.
    delivering: Vec<*const Shared>,
}

thread_local! {
    /// This thread's [`Local`]. It is never borrowed while a listener runs.
    static LOCAL: RefCell<Local> = const {
        RefCell::new(Local {
            buffer: None,
            delivering: Vec::new(),
        })
    };
}

/// The most records a thread buffers before it appends them to the trace.
const BUFFER_LIMIT: usize = 4096;

/// Appends what this thread buffered (see [`Trace::buffer_on_this_thread`]) to its trace.
/// The control thread calls it before anything another thread could record or read: before
/// it hands a hook to a worker, waits, or reports an outcome.
pub(crate) fn flush_thread_buffer() {
    // Appended with the buffer borrowed, delivered once it is not: a listener may record,
    // and recording looks at the buffer.
    let appended = LOCAL.with(|l| {
        let mut l = l.try_borrow_mut().ok()?;
        let (trace, records) = l.buffer.as_mut()?;
        if records.is_empty() {
            return None;
        }
        let end = trace.append(records.drain(..))?;
        Some((trace.clone(), end))
    });
    if let Some((trace, end)) = appended {
        trace.deliver(end);
    }
}

/// Told of every event (live output), in sequence order: see the [module](self) doc.
/// Called outside the trace's lock, from whichever thread delivers (not always the one
/// that recorded the event). It may read the trace and record into it, but every recording
/// thread waits while it runs, so it should be short, and it must not wait for another
/// thread that records into the trace.
pub type Listener = Arc<dyn Fn(&Event) + Send + Sync>;

/// Names a listener of a trace, to remove it with [`Trace::remove_listener`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListenerId(u64);

/// This thread delivering events of a trace: set up by [`Trace::deliver`] before it takes
/// the trace's lock (so it is dropped after that lock when unwinding).
struct Delivery<'a> {
    shared: &'a Arc<Shared>,
    /// Whether this thread's mark is in [`Local::delivering`].
    marked: bool,
    /// Whether this thread is the deliverer and has not said it stopped: dropped so, it
    /// panicked, and lets the others go.
    delivering: bool,
}

impl Delivery<'_> {
    /// Makes this thread the deliverer (the trace's `delivering` flag is already set).
    fn begin(&mut self) {
        self.delivering = true;
        self.marked = LOCAL.with(|l| match l.try_borrow_mut() {
            Ok(mut l) => {
                l.delivering.push(Arc::as_ptr(self.shared));
                true
            }
            Err(_) => false,
        });
    }
}

impl Drop for Delivery<'_> {
    fn drop(&mut self) {
        if self.marked {
            let me = Arc::as_ptr(self.shared);
            LOCAL.with(|l| {
                if let Ok(mut l) = l.try_borrow_mut()
                    && let Some(i) = l.delivering.iter().rposition(|p| *p == me)
                {
                    l.delivering.remove(i);
                }
            });
        }
        if self.delivering {
            // Unwinding out of a delivery: what was pending is lost, but nobody waits for
            // it forever and the next recording thread delivers again.
            let mut inner = self
                .shared
                .inner
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            inner.pending.clear();
            inner.delivered = inner.queued;
            inner.delivering = false;
            self.shared.delivered.notify_all();
        }
    }
}

/// Calls every listener with every event, event after event; returns the listeners that
/// panicked (not called again after that).
fn announce(listeners: &[(ListenerId, Listener)], events: &[Event]) -> Vec<ListenerId> {
    let mut failed = Vec::new();
    for event in events {
        for (id, listener) in listeners {
            if failed.contains(id) {
                continue;
            }
            if catch_unwind(AssertUnwindSafe(|| listener(event))).is_err() {
                failed.push(*id);
            }
        }
    }
    failed
}

/// One recorded event, before names are looked up: 56 bytes, so that moving records
/// around costs little.
#[derive(Debug, Clone)]
struct Record {
    time_ns: u64,
    /// The box of the bound graph, or [`NO_BOX`] for an event given with a path as text
    /// ([`Compact::Other`]).
    b: u32,
    what: Compact,
}

/// See [`Record::b`].
const NO_BOX: u32 = u32::MAX;

/// A hook, by what the graph knows of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum HookRef {
    Load,
    Unload,
    /// `onInput_<name of input i>`.
    Input(u16),
    ResourceLost,
    ResourceError,
    Resource,
}

impl HookRef {
    /// The reference of `hook` for box `b` (inputs found by name).
    pub(crate) fn of(graph: &Graph, b: BoxId, hook: &crate::hook::Hook) -> HookRef {
        use crate::hook::Hook;
        match hook {
            Hook::Load => HookRef::Load,
            Hook::Unload => HookRef::Unload,
            Hook::Input { name, .. } => HookRef::Input(graph.input_index(b, name).unwrap_or(0)),
            Hook::ResourceLost => HookRef::ResourceLost,
            Hook::ResourceError => HookRef::ResourceError,
            Hook::Resource { .. } => HookRef::Resource,
        }
    }

    pub(crate) fn name(self, graph: &Graph, b: BoxId) -> String {
        match self {
            HookRef::Load => "onLoad".into(),
            HookRef::Unload => "onUnload".into(),
            HookRef::Input(i) => graph
                .node(b)
                .inputs
                .get(usize::from(i))
                .map_or_else(|| "onInput_?".into(), |p| format!("onInput_{}", p.name)),
            HookRef::ResourceLost => "onResourceLost".into(),
            HookRef::ResourceError => "onResourceError".into(),
            HookRef::Resource => "onResource".into(),
        }
    }
}

/// One end of a delivery.
#[derive(Debug, Clone, Copy)]
pub(crate) enum End {
    /// Output `u16` of a box: `Box.port`.
    Output(BoxId, u16),
    /// Input `u16` of a box: `Box.port`.
    Input(BoxId, u16),
    /// Parameter `u16` of a box: `Box.name`.
    Parameter(BoxId, u16),
    /// Input `u16` of the diagram's owner, seen from inside: `(parent).port`.
    OwnerInput(BoxId, u16),
    /// Output `u16` of the diagram's owner, seen from inside: `(parent).port`.
    OwnerOutput(BoxId, u16),
}

impl End {
    pub(crate) fn name(self, graph: &Graph) -> String {
        let port = |names: Option<&String>| names.map_or("?", String::as_str).to_string();
        match self {
            End::Output(b, i) => {
                let n = graph.node(b);
                format!(
                    "{}.{}",
                    n.name,
                    port(n.outputs.get(usize::from(i)).map(|p| &p.name))
                )
            }
            End::Input(b, i) => {
                let n = graph.node(b);
                format!(
                    "{}.{}",
                    n.name,
                    port(n.inputs.get(usize::from(i)).map(|p| &p.name))
                )
            }
            End::Parameter(b, i) => {
                let n = graph.node(b);
                format!(
                    "{}.{}",
                    n.name,
                    port(n.parameters.get(usize::from(i)).map(|p| &p.name))
                )
            }
            End::OwnerInput(b, i) => format!(
                "(parent).{}",
                port(graph.node(b).inputs.get(usize::from(i)).map(|p| &p.name))
            ),
            End::OwnerOutput(b, i) => format!(
                "(parent).{}",
                port(graph.node(b).outputs.get(usize::from(i)).map(|p| &p.name))
            ),
        }
    }
}

/// The frequent steps by index (see [`Trace`]); anything else as a full [`Step`].
#[derive(Debug, Clone)]
pub(crate) enum Compact {
    Call(HookRef),
    Ret(HookRef, bool),
    In(u16, Value),
    Out(u16, Value),
    Deliver(End, End),
    Dropped(u16),
    /// Any other step of the box.
    Full(Box<Step>),
    /// A step with its path as text (events not of a box of the bound graph).
    Other(Box<(String, Step)>),
}

impl Record {
    fn resolve(&self, seq: usize, graph: Option<&Graph>) -> Event {
        let (path, b) = match (&self.what, graph) {
            (Compact::Other(other), _) => (other.0.clone(), None),
            (_, Some(g)) => (g.node(BoxId(self.b)).path.clone(), Some(BoxId(self.b))),
            (_, None) => (format!("#{}", self.b), None),
        };
        let step = match (&self.what, graph, b) {
            (Compact::Other(other), _, _) => other.1.clone(),
            (Compact::Full(step), _, _) => (**step).clone(),
            (what, Some(g), Some(b)) => {
                let node = g.node(b);
                let input = |i: u16| {
                    node.inputs
                        .get(usize::from(i))
                        .map(|p| p.name.clone())
                        .unwrap_or_default()
                };
                let output = |i: u16| {
                    node.outputs
                        .get(usize::from(i))
                        .map(|p| p.name.clone())
                        .unwrap_or_default()
                };
                match what {
                    Compact::Call(h) => Step::Call { hook: h.name(g, b) },
                    Compact::Ret(h, ok) => Step::Ret {
                        hook: h.name(g, b),
                        ok: *ok,
                    },
                    Compact::In(i, value) => Step::In {
                        port: input(*i),
                        value: value.clone(),
                    },
                    Compact::Out(i, value) => Step::Out {
                        port: output(*i),
                        value: value.clone(),
                    },
                    Compact::Deliver(from, to) => Step::Deliver {
                        from: from.name(g),
                        to: to.name(g),
                    },
                    Compact::Dropped(i) => Step::Dropped { port: output(*i) },
                    Compact::Full(step) => (**step).clone(),
                    Compact::Other(other) => other.1.clone(),
                }
            }
            // Compact records only come with a bound graph.
            (_, _, _) => Step::Behavior { what: "?".into() },
        };
        Event {
            seq: seq as u64,
            time_ns: self.time_ns,
            path,
            step,
        }
    }
}

impl Trace {
    /// An empty trace keeping the last [`DEFAULT_KEEP`] events.
    pub fn new() -> Trace {
        Trace::default()
    }

    /// An empty trace keeping every event, however many: for tests and tools that need the
    /// whole trace of a long run.
    pub fn keep_all() -> Trace {
        Trace::keeping(usize::MAX)
    }

    /// An empty trace keeping the last `n` events (`0`: none; listeners and the writer
    /// still get every event).
    pub fn keeping(n: usize) -> Trace {
        Trace::make(n, None)
    }

    /// A trace keeping the last [`DEFAULT_KEEP`] events that also writes each event as one
    /// JSON line to `writer` (in sequence order, outside the trace's lock).
    pub fn with_writer(writer: Box<dyn Write + Send>) -> Trace {
        Trace::make(DEFAULT_KEEP, Some(writer))
    }

    /// A trace that keeps no event: each one is only written (if `writer`) and announced
    /// to the listeners. A long run then uses no memory for its trace; [`Trace::events`]
    /// is empty.
    pub fn unkept(writer: Option<Box<dyn Write + Send>>) -> Trace {
        Trace::make(0, writer)
    }

    fn make(keep: usize, writer: Option<Box<dyn Write + Send>>) -> Trace {
        let inner = TraceInner {
            records: VecDeque::new(),
            keep,
            count: 0,
            graph: None,
            has_writer: writer.is_some(),
            listeners: Arc::new([]),
            next_listener: 0,
            pending: Vec::new(),
            queued: 0,
            delivered: 0,
            delivering: false,
        };
        Trace {
            shared: Arc::new(Shared {
                inner: Mutex::new(inner),
                delivered: Condvar::new(),
                writer: Mutex::new(writer),
            }),
        }
    }

    /// Calls `listener` with every event recorded from now on (perhaps also with a few
    /// recorded just before, still being delivered), until it is removed or panics.
    pub fn add_listener(&self, listener: Listener) -> ListenerId {
        let mut inner = self.lock();
        let id = ListenerId(inner.next_listener);
        inner.next_listener += 1;
        inner.listeners = inner
            .listeners
            .iter()
            .cloned()
            .chain(std::iter::once((id, listener)))
            .collect();
        id
    }

    /// Stops calling listener `id` (nothing if it is already gone). A delivery under way
    /// may still call it with the events it already took.
    pub fn remove_listener(&self, id: ListenerId) {
        let mut inner = self.lock();
        if inner.listeners.iter().any(|(l, _)| *l == id) {
            inner.listeners = inner
                .listeners
                .iter()
                .filter(|(l, _)| *l != id)
                .cloned()
                .collect();
        }
    }

    /// The same as [`Trace::add_listener`], for older callers: it adds `listener` beside
    /// the others, it does not replace them.
    pub fn set_listener(&self, listener: Listener) -> ListenerId {
        self.add_listener(listener)
    }

    fn lock(&self) -> MutexGuard<'_, TraceInner> {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Binds the graph the engine's compact records refer to. Records made against an
    /// earlier graph (a trace reused for another run) are resolved first.
    pub(crate) fn bind(&self, graph: Arc<Graph>) {
        let mut inner = self.lock();
        if let Some(old) = inner.graph.take() {
            let first = inner.first_kept();
            for (i, r) in inner.records.iter_mut().enumerate() {
                let e = r.resolve(first + i, Some(&old));
                r.b = NO_BOX;
                r.what = Compact::Other(Box::new((e.path, e.step)));
            }
        }
        inner.graph = Some(graph);
    }

    /// Records an event.
    pub fn record(&self, time: Time, path: &str, step: Step) {
        self.push(
            time,
            NO_BOX,
            Compact::Other(Box::new((path.to_string(), step))),
        );
    }

    /// Records an event of box `b` of the bound graph.
    pub(crate) fn record_box(&self, time: Time, b: BoxId, what: Compact) {
        self.push(time, b.0, what);
    }

    /// Records `step` of box `b` of the bound graph.
    pub(crate) fn record_step(&self, time: Time, b: BoxId, step: Step) {
        self.push(time, b.0, Compact::Full(Box::new(step)));
    }

    fn push(&self, time: Time, b: u32, what: Compact) {
        let record = Record {
            time_ns: time.0,
            b,
            what,
        };
        let me = Arc::as_ptr(&self.shared);
        // Ok: buffered (and the end to deliver if the buffer was appended); Err: to append
        // now. A listener's records are not buffered: the delivery running below it on
        // this thread is to deliver them.
        let buffered = LOCAL.with(|l| {
            let Ok(mut l) = l.try_borrow_mut() else {
                return Err(record);
            };
            let l = &mut *l;
            match l.buffer.as_mut() {
                Some((trace, records))
                    if Arc::ptr_eq(&trace.shared, &self.shared) && !l.delivering.contains(&me) =>
                {
                    records.push(record);
                    Ok(if records.len() >= BUFFER_LIMIT {
                        trace.append(records.drain(..))
                    } else {
                        None
                    })
                }
                _ => Err(record),
            }
        });
        let end = match buffered {
            Ok(end) => end,
            Err(record) => self.append(std::iter::once(record)),
        };
        if let Some(end) = end {
            self.deliver(end);
        }
    }

    /// Takes records in order: numbers and keeps them and, if anyone listens or writes,
    /// queues them resolved. Returns the end of the queue then, for [`Trace::deliver`].
    fn append(&self, records: impl Iterator<Item = Record>) -> Option<usize> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let announce = inner.has_writer || !inner.listeners.is_empty();
        for record in records {
            let seq = inner.count;
            inner.count += 1;
            if announce {
                inner
                    .pending
                    .push(record.resolve(seq, inner.graph.as_deref()));
            }
            inner.keep(record);
        }
        if announce && inner.queued < inner.count {
            inner.queued = inner.count;
            Some(inner.queued)
        } else {
            None
        }
    }

    /// Returns once the queued events before `end` are written and announced: delivers
    /// them if no other thread does, waits for the one that does otherwise. Called by a
    /// listener (on the deliverer's thread), returns at once: the delivery under way takes
    /// them next. See the [module](self) doc.
    fn deliver(&self, end: usize) {
        let me = Arc::as_ptr(&self.shared);
        let reentrant = LOCAL.with(|l| l.try_borrow().is_ok_and(|l| l.delivering.contains(&me)));
        if reentrant {
            return;
        }
        // Before the lock, to be dropped after it.
        let mut delivery = Delivery {
            shared: &self.shared,
            marked: false,
            delivering: false,
        };
        let mut inner = self.lock();
        loop {
            if inner.delivered >= end {
                return;
            }
            if !inner.delivering {
                break;
            }
            inner = self
                .shared
                .delivered
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
        }
        inner.delivering = true;
        delivery.begin();
        let mut batch = Vec::new();
        loop {
            std::mem::swap(&mut inner.pending, &mut batch);
            if batch.is_empty() {
                break;
            }
            let batch_end = inner.queued;
            let listeners = Arc::clone(&inner.listeners);
            let write = inner.has_writer;
            drop(inner);
            if write {
                self.write(&batch);
            }
            let failed = announce(&listeners, &batch);
            batch.clear();
            inner = self.lock();
            if !failed.is_empty() {
                inner.listeners = inner
                    .listeners
                    .iter()
                    .filter(|(id, _)| !failed.contains(id))
                    .cloned()
                    .collect();
            }
            inner.delivered = batch_end;
            self.shared.delivered.notify_all();
        }
        inner.delivering = false;
        delivery.delivering = false;
    }

    /// Writes `events` as JSON Lines, in order.
    fn write(&self, events: &[Event]) {
        let mut writer = self
            .shared
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(w) = writer.as_mut() {
            for event in events {
                // A trace file that cannot be written must not stop the behavior.
                if let Ok(line) = serde_json::to_string(event) {
                    let _ = writeln!(w, "{line}");
                }
            }
        }
    }

    /// From now on, events this thread records into this trace are kept in a thread-local
    /// buffer until [`flush_thread_buffer`]: the engine's control thread records most
    /// events, and taking the trace's lock once per batch instead of once per event is what
    /// makes a signal hop cheap.
    pub(crate) fn buffer_on_this_thread(&self) {
        LOCAL.with(|l| {
            if let Ok(mut l) = l.try_borrow_mut() {
                l.buffer = Some((self.clone(), Vec::with_capacity(BUFFER_LIMIT)));
            }
        });
    }

    /// The kept events (all of them but the [`Trace::dropped`] first ones), names looked up.
    pub fn events(&self) -> Vec<Event> {
        let inner = self.lock();
        let graph = inner.graph.as_deref();
        let first = inner.first_kept();
        inner
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| r.resolve(first + i, graph))
            .collect()
    }

    /// How many events were not kept (fell out of the ring, or were never kept): the
    /// sequence number of the first of [`Trace::events`]. Not 0: the trace was cut.
    pub fn dropped(&self) -> u64 {
        self.lock().first_kept() as u64
    }

    /// Flushes the writer (see [`Trace::with_writer`]) once every event recorded so far is
    /// written to it (called by a listener: once those already written are); `Err` if
    /// writing failed.
    pub fn flush_writer(&self) -> std::io::Result<()> {
        let end = self.lock().queued;
        self.deliver(end);
        match self
            .shared
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }

    /// Bytes the kept records take: the ring's capacity (a bounded ring never grows past
    /// its size) times the record size; the rare events stored with their names add a
    /// small heap part not counted here. For memory measurements.
    pub fn record_bytes(&self) -> usize {
        self.lock().records.capacity() * std::mem::size_of::<Record>()
    }

    /// How many events were recorded in all (kept or not).
    pub fn len(&self) -> usize {
        self.lock().count
    }

    /// Whether no event was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Event {
    /// A compact one-line form for tests: `path step` (e.g. `root/Say call onInput_onStart`).
    pub fn short(&self) -> String {
        let what = match &self.step {
            Step::New => "new".to_string(),
            Step::Del => "del".to_string(),
            Step::Call { hook } => format!("call {hook}"),
            Step::Ret { hook, ok } => format!("ret {hook}{}", if *ok { "" } else { " err" }),
            Step::In { port, value } => format!("in {port} {value}"),
            Step::Out { port, value } => format!("out {port} {value}"),
            Step::Deliver { from, to } => format!("deliver {from} -> {to}"),
            Step::Dropped { port } => format!("dropped {port}"),
            Step::Param { name, value } => format!("param {name} = {value}"),
            Step::LinksOn => "links_on".to_string(),
            Step::LinksOff => "links_off".to_string(),
            Step::Timeline { command, frame } => match frame {
                Some(f) => format!("tl {command} {f}"),
                None => format!("tl {command}"),
            },
            Step::Frame { frame } => format!("frame {frame}"),
            Step::KfOn { layer, keyframe } => format!("kf_on {layer}/{keyframe}"),
            Step::KfOff { layer, keyframe } => format!("kf_off {layer}/{keyframe}"),
            Step::Err { hook, text } => format!("err {hook}: {text}"),
            Step::RobotCall { method, args } => {
                let args: Vec<String> = args.iter().map(ToString::to_string).collect();
                format!("svc {method}({})", args.join(", "))
            }
            Step::RobotReturn { method, ok } => {
                format!("svc_ret {method}{}", if *ok { "" } else { " err" })
            }
            Step::Resource { what, names } => format!("res {what} {}", names.join(",")),
            Step::Log { level, message } => format!("log {level}: {message}"),
            Step::Behavior { what } => format!("beh {what}"),
        };
        if self.path.is_empty() {
            what
        } else {
            format!("{} {what}", self.path)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;

    type Seen = Arc<Mutex<Vec<(u64, String)>>>;

    /// A listener noting `(seq, short form)` of every event, and what it noted.
    fn collector() -> (Listener, Seen) {
        let seen: Seen = Arc::default();
        let s = Arc::clone(&seen);
        let listener: Listener = Arc::new(move |e: &Event| {
            s.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((e.seq, e.short()));
        });
        (listener, seen)
    }

    fn seen(s: &Seen) -> Vec<(u64, String)> {
        s.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn seqs(s: &Seen) -> Vec<u64> {
        seen(s).into_iter().map(|(seq, _)| seq).collect()
    }

    /// Records frames `from..to` as behavior-level events (no allocation for the path).
    fn frames(t: &Trace, from: usize, to: usize) {
        for i in from..to {
            t.record(
                Time(i as u64),
                "",
                Step::Frame {
                    frame: i64::try_from(i).unwrap_or(i64::MAX),
                },
            );
        }
    }

    /// A writer into memory that the test can still read.
    #[derive(Clone, Default)]
    struct Memory(Arc<Mutex<Vec<u8>>>);

    impl Write for Memory {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Memory {
        /// The `seq` of each line written, and the lines.
        fn lines(&self) -> Vec<(u64, String)> {
            let bytes = self
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            String::from_utf8_lossy(&bytes)
                .lines()
                .map(|line| {
                    let seq = serde_json::from_str::<serde_json::Value>(line)
                        .ok()
                        .and_then(|v| v.get("seq").and_then(serde_json::Value::as_u64))
                        .unwrap_or(u64::MAX);
                    (seq, line.to_string())
                })
                .collect()
        }
    }

    #[test]
    fn a_record_is_56_bytes_as_documented() {
        assert_eq!(std::mem::size_of::<Record>(), 56);
    }

    #[test]
    fn an_unkept_trace_announces_every_event_in_order_and_keeps_none() {
        let t = Trace::unkept(None);
        let (listener, s) = collector();
        t.set_listener(listener);
        t.record(Time(1), "a", Step::New);
        t.record(Time(2), "b", Step::Del);
        assert!(t.events().is_empty());
        assert_eq!(t.len(), 2);
        assert_eq!(t.dropped(), 2);
        assert_eq!(
            seen(&s),
            vec![(0, "a new".to_string()), (1, "b del".to_string())]
        );
    }

    #[test]
    fn a_small_ring_keeps_the_last_events_with_their_numbers() {
        let t = Trace::keeping(3);
        frames(&t, 0, 10);
        let events = t.events();
        let kept: Vec<(u64, String)> = events.iter().map(|e| (e.seq, e.short())).collect();
        assert_eq!(
            kept,
            vec![
                (7, "frame 7".to_string()),
                (8, "frame 8".to_string()),
                (9, "frame 9".to_string())
            ]
        );
        assert_eq!(t.len(), 10);
        assert_eq!(t.dropped(), 7);
        assert_eq!(t.record_bytes(), 3 * std::mem::size_of::<Record>());
    }

    #[test]
    fn the_default_ring_keeps_the_last_default_keep_events() {
        let t = Trace::new();
        frames(&t, 0, 100);
        assert_eq!((t.events().len(), t.dropped()), (100, 0));
        frames(&t, 100, DEFAULT_KEEP + 5);
        let events = t.events();
        assert_eq!(events.len(), DEFAULT_KEEP);
        assert_eq!(t.len(), DEFAULT_KEEP + 5);
        assert_eq!(t.dropped(), 5);
        assert_eq!(
            events.first().map(|e| (e.seq, e.short())),
            Some((5, "frame 5".into()))
        );
        let last = (DEFAULT_KEEP + 4) as u64;
        assert_eq!(events.last().map(|e| e.seq), Some(last));
        assert!(events.windows(2).all(|w| w[1].seq == w[0].seq + 1));
        assert!(events.iter().all(|e| e.step
            == Step::Frame {
                frame: e.seq as i64
            }));
        // The ring grew to its size and no further.
        assert_eq!(
            t.record_bytes(),
            DEFAULT_KEEP * std::mem::size_of::<Record>()
        );
        let d = Trace::default();
        frames(&d, 0, DEFAULT_KEEP + 1);
        assert_eq!(d.dropped(), 1);
    }

    #[test]
    fn keep_all_keeps_every_event() {
        let t = Trace::keep_all();
        frames(&t, 0, DEFAULT_KEEP + 10);
        let events = t.events();
        assert_eq!(events.len(), DEFAULT_KEEP + 10);
        assert_eq!(t.dropped(), 0);
        assert!(events.iter().enumerate().all(|(i, e)| e.seq == i as u64));
    }

    #[test]
    fn keeping_nothing_still_tells_every_listener_everything() {
        let t = Trace::keeping(0);
        let (listener, s) = collector();
        t.add_listener(listener);
        frames(&t, 0, 5);
        assert!(t.events().is_empty());
        assert_eq!((t.len(), t.dropped(), t.record_bytes()), (5, 5, 0));
        assert_eq!(seqs(&s), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn every_listener_gets_every_event_until_it_is_removed() {
        let t = Trace::new();
        let (la, a) = collector();
        let (lb, b) = collector();
        let (lc, c) = collector();
        t.add_listener(la);
        let idb = t.add_listener(lb);
        let idc = t.set_listener(lc);
        assert_ne!(idb, idc);
        frames(&t, 0, 2);
        t.remove_listener(idb);
        frames(&t, 2, 4);
        // Removing it again, or removing nothing, changes nothing.
        t.remove_listener(idb);
        frames(&t, 4, 5);
        assert_eq!(seqs(&a), vec![0, 1, 2, 3, 4]);
        assert_eq!(seqs(&b), vec![0, 1]);
        assert_eq!(seqs(&c), vec![0, 1, 2, 3, 4]);
        assert_eq!(seen(&a).get(3).map(|e| e.1.clone()), Some("frame 3".into()));
    }

    #[test]
    fn a_listener_may_read_the_trace_and_record_into_it() {
        let out = Memory::default();
        let t = Trace::with_writer(Box::new(out.clone()));
        let read = Arc::new(Mutex::new(Vec::new()));
        let id = {
            let t2 = t.clone();
            let read = Arc::clone(&read);
            t.add_listener(Arc::new(move |e: &Event| {
                if e.path == "a" {
                    let flushed = t2.flush_writer().is_ok();
                    read.lock().unwrap_or_else(PoisonError::into_inner).push((
                        t2.len(),
                        t2.events().len(),
                        flushed,
                    ));
                    t2.record(Time(e.time_ns), "echo", Step::New);
                }
            }))
        };
        let (listener, s) = collector();
        t.add_listener(listener);
        t.record(Time(1), "a", Step::New);
        t.record(Time(2), "b", Step::New);
        t.remove_listener(id);
        let expected = vec![
            (0, "a new".to_string()),
            (1, "echo new".to_string()),
            (2, "b new".to_string()),
        ];
        assert_eq!(seen(&s), expected);
        assert_eq!(
            *read.lock().unwrap_or_else(PoisonError::into_inner),
            vec![(1, 1, true)]
        );
        assert_eq!(t.events().len(), 3);
        let written: Vec<u64> = out.lines().into_iter().map(|(seq, _)| seq).collect();
        assert_eq!(written, vec![0, 1, 2]);
    }

    #[test]
    fn a_listener_recording_on_a_buffering_thread_is_delivered_too() {
        let t = Trace::new();
        let id = {
            let t2 = t.clone();
            t.add_listener(Arc::new(move |e: &Event| {
                if e.path == "a" {
                    t2.record(Time(e.time_ns), "echo", Step::New);
                }
            }))
        };
        let (listener, s) = collector();
        t.add_listener(listener);
        t.buffer_on_this_thread();
        t.record(Time(1), "a", Step::New);
        t.record(Time(2), "b", Step::New);
        // Buffered: nothing appended yet.
        assert_eq!(t.len(), 0);
        flush_thread_buffer();
        assert_eq!(
            seen(&s),
            vec![
                (0, "a new".to_string()),
                (1, "b new".to_string()),
                (2, "echo new".to_string())
            ]
        );
        assert_eq!(t.len(), 3);
        LOCAL.with(|l| l.borrow_mut().buffer = None);
        t.remove_listener(id);
    }

    #[test]
    fn threads_recording_at_once_are_announced_in_order_one_at_a_time() {
        const THREADS: usize = 4;
        const EACH: usize = 10_000;
        const PATHS: [&str; THREADS] = ["t0", "t1", "t2", "t3"];
        struct Check {
            next: u64,
            last: [i64; THREADS],
            wrong: Vec<String>,
        }
        let out = Memory::default();
        let t = Trace::with_writer(Box::new(out.clone()));
        let check = Arc::new(Mutex::new(Check {
            next: 0,
            last: [-1; THREADS],
            wrong: Vec::new(),
        }));
        let inside = Arc::new(AtomicBool::new(false));
        {
            let check = Arc::clone(&check);
            let inside = Arc::clone(&inside);
            t.add_listener(Arc::new(move |e: &Event| {
                let mut c = check.lock().unwrap_or_else(PoisonError::into_inner);
                if inside.swap(true, Ordering::SeqCst) {
                    c.wrong
                        .push(format!("{}: two listener calls at once", e.seq));
                }
                if e.seq != c.next {
                    let msg = format!("got seq {} for {}", e.seq, c.next);
                    c.wrong.push(msg);
                }
                c.next = e.seq + 1;
                let k = PATHS.iter().position(|p| *p == e.path);
                match (k, &e.step) {
                    (Some(k), Step::Frame { frame }) if *frame == c.last[k] + 1 => {
                        c.last[k] = *frame;
                    }
                    _ => {
                        let msg = format!("{}: out of order {}", e.seq, e.short());
                        c.wrong.push(msg);
                    }
                }
                if e.seq.is_multiple_of(500) {
                    std::thread::yield_now();
                }
                inside.store(false, Ordering::SeqCst);
            }));
        }
        let (listener, s) = collector();
        t.add_listener(listener);
        std::thread::scope(|scope| {
            for path in PATHS {
                let t = t.clone();
                scope.spawn(move || {
                    for i in 0..EACH {
                        t.record(
                            Time(i as u64),
                            path,
                            Step::Frame {
                                frame: i64::try_from(i).unwrap_or(i64::MAX),
                            },
                        );
                    }
                });
            }
        });
        let total = (THREADS * EACH) as u64;
        // Every thread returned from `record` only once its events were announced.
        let c = check.lock().unwrap_or_else(PoisonError::into_inner);
        assert_eq!(c.wrong, Vec::<String>::new());
        assert_eq!(c.next, total);
        assert_eq!(c.last, [EACH as i64 - 1; THREADS]);
        drop(c);
        assert_eq!(seqs(&s), (0..total).collect::<Vec<u64>>());
        let written: Vec<u64> = out.lines().into_iter().map(|(seq, _)| seq).collect();
        assert_eq!(written, (0..total).collect::<Vec<u64>>());
        assert_eq!(t.len(), THREADS * EACH);
        assert_eq!(t.events().len(), THREADS * EACH);
    }

    #[test]
    fn a_panicking_listener_is_removed_and_the_others_still_hear() {
        let t = Trace::new();
        let (la, a) = collector();
        let (lc, c) = collector();
        let calls = Arc::new(AtomicUsize::new(0));
        t.add_listener(la);
        {
            let calls = Arc::clone(&calls);
            t.add_listener(Arc::new(move |e: &Event| {
                calls.fetch_add(1, Ordering::SeqCst);
                assert!(e.seq != 1, "this listener fails on event 1");
            }));
        }
        t.add_listener(lc);
        frames(&t, 0, 4);
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert_eq!(seqs(&a), vec![0, 1, 2, 3]);
        assert_eq!(seqs(&c), vec![0, 1, 2, 3]);
        assert!(!t.shared.inner.is_poisoned());
        assert_eq!(t.lock().listeners.len(), 2);
        // Still usable from another thread.
        std::thread::scope(|scope| {
            scope.spawn(|| frames(&t, 4, 6));
        });
        assert_eq!(seqs(&c), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(t.events().len(), 6);
    }

    fn graph(root: &str, input: &str) -> Arc<Graph> {
        let xml = format!(
            r#"<ChoregrapheProject xar_version="3"><Box name="{root}" id="-1"><Input name="{input}" type="1" type_size="1" nature="2" inner="0" id="1"/></Box></ChoregrapheProject>"#
        );
        match choreo_xar::read_xar("t.xar", xml.as_bytes()) {
            Ok(x) => Arc::new(Graph::new(&x.value)),
            Err(e) => panic!("test behavior does not read: {e}"),
        }
    }

    #[test]
    fn rebinding_resolves_the_kept_tail_with_its_own_numbers() {
        let t = Trace::keeping(2);
        t.bind(graph("first", "go"));
        for i in 0..3 {
            t.record_box(Time(i), Graph::ROOT, Compact::Call(HookRef::Input(0)));
        }
        t.bind(graph("second", "run"));
        t.record_box(Time(3), Graph::ROOT, Compact::Call(HookRef::Input(0)));
        let kept: Vec<(u64, String)> = t.events().iter().map(|e| (e.seq, e.short())).collect();
        assert_eq!(
            kept,
            vec![
                (2, "first call onInput_go".into()),
                (3, "second call onInput_run".into())
            ]
        );
        assert_eq!(t.dropped(), 2);
    }
}
