//! The trace: every lifecycle step as an event with time, sequence number and box path
//! (vocabulary of runtime-semantics.md §0). Tests assert on it; `--trace out.jsonl` writes it.

use std::io::Write;
use std::sync::{Arc, Mutex};

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

/// Collects events in order, and optionally writes them as JSON Lines.
///
/// The engine records its frequent events (hooks, inputs, outputs, deliveries) compactly,
/// as box and port indices, and names are looked up only when events are read, written or
/// listened to: recording a signal hop allocates nothing.
#[derive(Clone, Default)]
pub struct Trace {
    inner: Arc<Mutex<TraceInner>>,
}

#[derive(Default)]
struct TraceInner {
    records: Vec<Record>,
    /// Events are only written and announced, not kept (see [`Trace::unkept`]).
    unkept: bool,
    /// Events recorded so far (kept or not): the next sequence number.
    count: usize,
    /// The graph the compact records refer to.
    graph: Option<Arc<Graph>>,
    writer: Option<Box<dyn Write + Send>>,
    listener: Option<Listener>,
}

thread_local! {
    /// See [`Trace::buffer_on_this_thread`].
    static BUFFER: std::cell::RefCell<Option<(Trace, Vec<Record>)>> =
        const { std::cell::RefCell::new(None) };
}

/// The most records a thread buffers before it appends them to the trace.
const BUFFER_LIMIT: usize = 4096;

/// Appends what this thread buffered (see [`Trace::buffer_on_this_thread`]) to its trace.
/// The control thread calls it before anything another thread could record or read: before
/// it hands a hook to a worker, waits, or reports an outcome.
pub(crate) fn flush_thread_buffer() {
    BUFFER.with(|b| {
        if let Some((trace, records)) = b.borrow_mut().as_mut()
            && !records.is_empty()
        {
            trace.append(records.drain(..));
        }
    });
}

/// Told of every event as it is recorded (live output). Called with the trace locked, from
/// whatever thread recorded the event: it must be short and must not record events itself.
pub type Listener = Arc<dyn Fn(&Event) + Send + Sync>;

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
    /// An empty trace kept in memory.
    pub fn new() -> Trace {
        Trace::default()
    }

    /// A trace that also writes each event as one JSON line to `writer`.
    pub fn with_writer(writer: Box<dyn Write + Send>) -> Trace {
        let t = Trace::default();
        t.lock().writer = Some(writer);
        t
    }

    /// A trace that keeps no event: each one is only written (if `writer`) and announced
    /// to the listener. A long run then uses no memory for its trace; [`Trace::events`]
    /// is empty.
    pub fn unkept(writer: Option<Box<dyn Write + Send>>) -> Trace {
        let t = Trace::default();
        {
            let mut inner = t.lock();
            inner.writer = writer;
            inner.unkept = true;
        }
        t
    }

    /// Calls `listener` with every event from now on.
    pub fn set_listener(&self, listener: Listener) {
        self.lock().listener = Some(listener);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TraceInner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Binds the graph the engine's compact records refer to. Records made against an
    /// earlier graph (a trace reused for another run) are resolved first.
    pub(crate) fn bind(&self, graph: Arc<Graph>) {
        let mut inner = self.lock();
        if let Some(old) = inner.graph.take() {
            for (seq, r) in inner.records.iter_mut().enumerate() {
                let e = r.resolve(seq, Some(&old));
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
        let unbuffered = BUFFER.with(|buffer| match buffer.borrow_mut().as_mut() {
            Some((trace, records)) if Arc::ptr_eq(&trace.inner, &self.inner) => {
                records.push(record);
                if records.len() >= BUFFER_LIMIT {
                    trace.append(records.drain(..));
                }
                None
            }
            _ => Some(record),
        });
        if let Some(record) = unbuffered {
            self.append(std::iter::once(record));
        }
    }

    /// Takes records in order: writes and announces them, keeps them.
    fn append(&self, records: impl Iterator<Item = Record>) {
        let mut inner = self.lock();
        for record in records {
            let seq = inner.count;
            inner.count += 1;
            if inner.writer.is_some() || inner.listener.is_some() {
                let event = record.resolve(seq, inner.graph.as_deref());
                if let Some(w) = inner.writer.as_mut()
                    && let Ok(line) = serde_json::to_string(&event)
                {
                    // A trace file that cannot be written must not stop the behavior.
                    let _ = writeln!(w, "{line}");
                }
                if let Some(l) = &inner.listener {
                    l(&event);
                }
            }
            if !inner.unkept {
                inner.records.push(record);
            }
        }
    }

    /// From now on, events this thread records into this trace are kept in a thread-local
    /// buffer until [`flush_thread_buffer`]: the engine's control thread records most
    /// events, and taking the trace's lock once per batch instead of once per event is what
    /// makes a signal hop cheap.
    pub(crate) fn buffer_on_this_thread(&self) {
        BUFFER.with(|b| *b.borrow_mut() = Some((self.clone(), Vec::with_capacity(BUFFER_LIMIT))));
    }

    /// Every event so far, names looked up.
    pub fn events(&self) -> Vec<Event> {
        let inner = self.lock();
        let graph = inner.graph.as_deref();
        inner
            .records
            .iter()
            .enumerate()
            .map(|(seq, r)| r.resolve(seq, graph))
            .collect()
    }

    /// Flushes the writer (see [`Trace::with_writer`]); `Err` if writing failed.
    pub fn flush_writer(&self) -> std::io::Result<()> {
        match self.lock().writer.as_mut() {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }

    /// Bytes the kept records take (their vector's capacity; the rare events stored with
    /// their names add a small heap part not counted here). For memory measurements.
    pub fn record_bytes(&self) -> usize {
        self.lock().records.capacity() * std::mem::size_of::<Record>()
    }

    /// How many events were recorded (kept or not).
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
    use super::*;

    #[test]
    fn an_unkept_trace_announces_every_event_in_order_and_keeps_none() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let t = Trace::unkept(None);
        let s = Arc::clone(&seen);
        t.set_listener(Arc::new(move |e: &Event| {
            if let Ok(mut v) = s.lock() {
                v.push((e.seq, e.short()));
            }
        }));
        t.record(Time(1), "a", Step::New);
        t.record(Time(2), "b", Step::Del);
        assert!(t.events().is_empty());
        assert_eq!(t.len(), 2);
        let seen = seen.lock().map(|v| v.clone()).unwrap_or_default();
        assert_eq!(
            seen,
            vec![(0, "a new".to_string()), (1, "b del".to_string())]
        );
    }
}
