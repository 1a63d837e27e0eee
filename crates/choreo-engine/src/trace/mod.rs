//! The trace: every lifecycle step as an event with time, sequence number and box path
//! (vocabulary of docs/runtime-rules.md §0). Tests assert on it; `--trace out.jsonl` writes it.
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
//! a time, the *deliverer*, writes and announces the queue outside the lock; a thread that
//! records meanwhile waits until its events are delivered, and a listener that records only
//! queues its events for the delivery running below it.
//!
//! # Where
//!
//! - `event`: [`Event`] and [`Step`], what a trace is made of;
//! - `record`: the compact records the engine makes, and how their names are looked up;
//!   `stored`: what a record says (hooks and link ends by index); `packed`: in two words;
//! - `batch`: records with what they carry beside them (a value, a step in full);
//! - `buffer`: the control thread's buffer of records, and its handle;
//! - `ring`: the kept tail of records, numbered over the whole run;
//! - `listener`: [`Listener`]s, their ids, and announcing an event to them;
//! - `shared`: what the clones of a [`Trace`] share (its lock, the queue, the writer);
//! - `delivery`: the deliverer's loop, the writer's lines, a listener's own recordings;
//! - here: [`Trace`].
//!
//! With no listener and no writer, recording only keeps the record: no name is looked up
//! and nothing is allocated for a frequent event whose value is `None` (beyond the ring's
//! own growth).

mod batch;
mod buffer;
mod delivery;
mod event;
mod listener;
mod packed;
mod record;
mod ring;
mod robot_root;
mod shared;
mod stored;

pub(crate) use buffer::{Buffer, flush_thread_buffer};
pub use event::{Event, Step};
pub use listener::{Listener, ListenerId};
pub(crate) use record::Compact;
pub(crate) use stored::{End, HookRef};

use std::io::Write;
use std::sync::{Arc, MutexGuard};

use crate::clock::Time;
use crate::graph::{BoxId, Graph};
use crate::trace::record::{Payload, Record};
use crate::trace::shared::{Shared, TraceInner};

/// How many events [`Trace::new`] keeps: the last 262,144. A record takes 24 bytes, so a
/// full ring is 6 MiB (6,291,456 bytes, and at most two chunks of 4,096 records more:
/// 6,291,456 + 196,608), plus what the rarer events carry beside their records (a value
/// other than `None`, a step stored with its names).
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
        Trace {
            shared: Arc::new(Shared::new(keep, writer, String::new())),
        }
    }

    /// Calls `listener` with every event recorded from now on (perhaps also with a few
    /// recorded just before, still being delivered), until it is removed or panics.
    pub fn add_listener(&self, listener: Listener) -> ListenerId {
        self.lock().listeners.add(listener)
    }

    /// Stops calling listener `id` (nothing if it is already gone). A delivery under way
    /// may still call it with the events it already took.
    pub fn remove_listener(&self, id: ListenerId) {
        self.lock().listeners.remove(&[id]);
    }

    /// The same as [`Trace::add_listener`], for older callers: it adds `listener` beside
    /// the others, it does not replace them.
    pub fn set_listener(&self, listener: Listener) -> ListenerId {
        self.add_listener(listener)
    }

    fn lock(&self) -> MutexGuard<'_, TraceInner> {
        self.shared.lock()
    }

    /// A trace whose events go into this one, each path prefixed with `prefix`
    /// (`selfie:` makes `root/Say` `selfie:root/Say`, and a behavior event's empty path
    /// `selfie:`): for the engine of a nested behavior, which binds a graph of its own. Its
    /// events take their sequence numbers from this trace as they reach it; it keeps none.
    pub fn prefixed(&self, prefix: &str) -> Trace {
        let child = Trace {
            shared: Arc::new(Shared::new(
                0,
                None,
                format!("{}{prefix}", self.shared.prefix),
            )),
        };
        let parent = self.clone();
        let prefix = prefix.to_string();
        child.add_listener(Arc::new(move |e: &Event| {
            parent.record(
                Time(e.time_ns),
                &format!("{prefix}{}", e.path),
                e.step.clone(),
            );
        }));
        child
    }

    /// What the paths of this trace's events get in front of them where they are kept:
    /// every [`Trace::prefixed`] on the way (`selfie:`), empty for a trace of its own.
    pub fn path_prefix(&self) -> &str {
        &self.shared.prefix
    }

    /// Binds the graph the engine's compact records refer to. Records made against an
    /// earlier graph (a trace reused for another run) are resolved first.
    pub(crate) fn bind(&self, graph: Arc<Graph>) {
        let mut inner = self.lock();
        if let Some(old) = inner.graph.take() {
            inner.ring.detach(&old);
        }
        inner.graph = Some(graph);
    }

    /// Records an event.
    pub fn record(&self, time: Time, path: &str, step: Step) {
        let (record, payload) = Record::other(time.0, path.to_string(), step);
        self.push(record, payload);
    }

    /// Records an event of box `b` of the bound graph (the engine records its own through
    /// its [`Buffer`]).
    #[cfg(test)]
    pub(crate) fn record_box(&self, time: Time, b: BoxId, what: Compact<'_>) {
        let (record, payload) = Record::of(time.0, b, what);
        self.push(record, payload);
    }

    /// Records `step` of box `b` of the bound graph.
    pub(crate) fn record_step(&self, time: Time, b: BoxId, step: Step) {
        let (record, payload) = Record::step(time.0, b, step);
        self.push(record, payload);
    }

    /// Records into this thread's buffer if it buffers for this trace, else at once.
    fn push(&self, record: Record, payload: Option<Payload>) {
        if let Err((record, payload)) = buffer::buffer(&self.shared, record, payload) {
            buffer::append_now(&self.shared, record, payload);
        }
    }

    /// From now on, events this thread records into this trace are buffered (see
    /// [`buffer`]); the handle records into the same buffer.
    pub(crate) fn buffer_on_this_thread(&self) -> Buffer {
        buffer::buffer_on_this_thread(&self.shared)
    }

    /// The kept events (all of them but the [`Trace::dropped`] first ones), names looked up.
    pub fn events(&self) -> Vec<Event> {
        let inner = self.lock();
        let mut events = inner.ring.events(inner.graph.as_deref());
        if let Some(root) = &inner.robot_root {
            for e in &mut events {
                robot_root::robot_step(&mut e.step, root);
            }
        }
        events
    }

    /// Shows every path under `root` (the run's folder that holds the robot's folders) in
    /// the events' texts as the robot's own path (`<root>/home/nao/x` as `/home/nao/x`):
    /// the folder's name is new every run, the robot's paths are not, so the same run
    /// gives the same trace ([`robot_root`]).
    pub fn set_robot_root(&self, root: &std::path::Path) {
        self.lock().robot_root = Some(root.to_string_lossy().trim_end_matches('/').to_string());
    }

    /// `text` with the paths under the robot root as the robot's ([`Trace::set_robot_root`]).
    pub fn robot_view(&self, text: &str) -> String {
        let inner = self.lock();
        inner
            .robot_root
            .as_deref()
            .and_then(|root| robot_root::robot_view(text, root))
            .unwrap_or_else(|| text.to_string())
    }

    /// How many events were not kept (fell out of the ring, or were never kept): the
    /// sequence number of the first of [`Trace::events`]. Not 0: the trace was cut.
    pub fn dropped(&self) -> u64 {
        self.lock().ring.first_kept() as u64
    }

    /// Flushes the writer (see [`Trace::with_writer`]) once every event recorded so far is
    /// written to it (called by a listener: once those already written are); `Err` if
    /// writing failed.
    pub fn flush_writer(&self) -> std::io::Result<()> {
        delivery::flush_writer(&self.shared)
    }

    /// The run is over: what is recorded from now on is dropped. Box code can outlive a run
    /// (a thread that never ends, a hook blocked for good) and go on at a moment only the OS
    /// decides; the trace of a run ends with the run, the same every time.
    pub fn close(&self) {
        // What this thread buffered is appended and the trace closed under one lock: a box
        // thread appending in between would put its event after the run's last one at a
        // moment the OS decides.
        let appended = buffer::append_and_close(&self.shared);
        if let Some(end) = appended {
            delivery::deliver(&self.shared, end);
        }
        // A buffer for another trace is appended to that one.
        flush_thread_buffer();
    }

    /// Writes `header` as the JSON Lines output's first line, before any event: what a run
    /// is repeated from (docs/trace.md, "The first line"). No effect without a writer, or
    /// once an event was written.
    pub fn write_header(&self, header: &serde_json::Value) {
        let inner = self.lock();
        if !inner.has_writer || inner.queued > 0 {
            return;
        }
        let mut writer = choreo_base::lock(&self.shared.writer);
        drop(inner);
        if let Some(w) = writer.as_mut() {
            // A failing writer says so at the first event it fails on.
            let _ = writeln!(w, "{header}");
        }
    }

    /// Bytes the kept records take: the ring's capacity (a bounded ring never holds more
    /// than its size and two chunks of 4,096 records, or of its size if smaller) times the
    /// record size; the rare events stored with their names add a small heap part not
    /// counted here. For memory measurements.
    pub fn record_bytes(&self) -> usize {
        self.lock().ring.bytes()
    }

    /// How many events were recorded in all (kept or not).
    pub fn len(&self) -> usize {
        self.lock().ring.len()
    }

    /// Whether no event was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests;
