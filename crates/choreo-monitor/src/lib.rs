//! choreo-monitor: a local web page that shows a behavior running, fed over a WebSocket.
//!
//! [`Monitor::start`] serves the page (its files are in the binary) on a thread of its own;
//! the run hands it every trace event with [`Monitor::publish`] (a push under a short lock:
//! the run never waits for a page) and its end with [`Monitor::ended`]. Pages get the
//! behavior's structure, the robot's kinematic chain when its model is known ([`robot`]:
//! the 3D view draws it), a snapshot of the state, then batches of events and what they
//! changed; a page that cannot keep up loses batches and gets a new snapshot. What a page
//! may ask (stop the run, stimulate an input) arrives on [`Monitor::commands`]. A recorded
//! trace is served with [`Monitor::replay`] instead. The protocol: `docs/monitor.md`.
//!
//! ```no_run
//! use choreo_engine::graph::Graph;
//! use choreo_monitor::{Monitor, MonitorOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read("examples/dance/behavior.xar")?;
//! let xar = choreo_xar::read_xar("dance", &bytes)?.value;
//! let monitor = Monitor::start(&Graph::new(&xar), MonitorOptions::default())?;
//! println!("open {}", monitor.url());
//! // ... hand each trace event to `monitor.publish(&event)`, then `monitor.ended(..)`.
//! # Ok(()) }
//! ```

pub mod balance;
pub mod hub;
pub mod replay;
pub mod robot;
mod server;
pub mod stack;
pub mod state;
pub mod structure;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;

use choreo_engine::graph::Graph;
use choreo_engine::trace::Event;
use serde_json::{Value, json};

use crate::hub::{Hub, Queued};
use crate::replay::Replay;
use crate::stack::StackShape;
use crate::state::{Natures, State};
use choreo_base::lock;

/// What went wrong starting the monitor.
#[derive(Debug, thiserror::Error)]
pub enum MonitorError {
    /// The address could not be listened on.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The monitor's thread or runtime could not be made.
    #[error("cannot start the monitor: {0}")]
    Runtime(std::io::Error),
    /// No random token could be made for a non-loopback address.
    #[error("cannot make a random token: {0}")]
    Token(String),
}

/// How the monitor serves.
#[derive(Debug, Clone)]
pub struct MonitorOptions {
    /// Where to listen: `127.0.0.1:0` (a free port) by default. Any address that is not
    /// loopback requires a random token in the URL.
    pub addr: SocketAddr,
    /// The page's title (the behavior's name).
    pub title: String,
    /// The robot: `nao`, `pepper`, or `None` when unknown (a known one gets pages its
    /// `robot` message: [`robot::robot`]).
    pub model: Option<String>,
    /// Whether a page may stimulate inputs (`--monitor-control`).
    pub control: bool,
    /// Whether pages may edit the behavior (`choreo edit`): their `edit`, `undo` and `redo`
    /// arrive as [`Command::Edit`], [`Command::Undo`], [`Command::Redo`].
    pub edit: bool,
    /// For a behavior stack's run: its behaviors (pages get the `stack` message and the
    /// Stack view; the run publishes the stack's events with [`Monitor::publish_stack`]).
    pub stack: Option<StackShape>,
    /// Behaviors the run plays beside its own, each with the prefix of its events' paths
    /// (a stack's Choregraphe leaves: `Dance:` for `Dance:root/Say`): drawn as roots of
    /// their own, so that their boxes light up as the behavior's do.
    pub played: Vec<(String, Arc<Graph>)>,
}

impl Default for MonitorOptions {
    fn default() -> MonitorOptions {
        MonitorOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            title: String::new(),
            model: None,
            control: false,
            edit: false,
            stack: None,
            played: Vec::new(),
        }
    }
}

/// What a page asked the run.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Stop the behavior (as Ctrl-C).
    Stop,
    /// Stimulate input `input` of box `path` with `value` (JSON; `null` is a bang).
    Stimulate {
        /// The box path, as in the trace.
        path: String,
        /// The input's name.
        input: String,
        /// The value.
        value: Value,
    },
    /// Do what a person would, now (`{"type": "world", "step": {...}}`: one scenario action,
    /// docs/scenarios.md; or `"event": KEY`, a world event with its documented value).
    World(Value),
    /// Make this edit (its JSON as the page sent it: docs/monitor.md).
    Edit(Value),
    /// Undo the last edit.
    Undo,
    /// Redo the last edit undone.
    Redo,
    /// Any other request of an editor's page, as it sent it (`inspect`, `reload`,
    /// `library`, `problems`, `play`, `check`: docs/editor.md): the editor's to answer.
    Editor(Value),
}

/// What the server's handlers share.
pub(crate) struct Shared {
    pub(crate) hub: Arc<Mutex<Hub>>,
    pub(crate) pending: Arc<Mutex<Vec<Queued>>>,
    pub(crate) replay: Option<Arc<Mutex<Replay>>>,
    pub(crate) token: Option<String>,
    pub(crate) control: bool,
    pub(crate) edit: bool,
    pub(crate) commands: Mutex<mpsc::Sender<Command>>,
    /// Set when the monitor stops: pages send what is queued, then close.
    pub(crate) closing: tokio::sync::watch::Sender<bool>,
}

/// A running monitor; dropping it stops the server.
pub struct Monitor {
    url: String,
    shared: Arc<Shared>,
    commands: Mutex<Option<mpsc::Receiver<Command>>>,
    shutdown: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Monitor {
    /// Serves the monitor of a live run of the behavior instantiated as `graph`.
    pub fn start(graph: &Graph, options: MonitorOptions) -> Result<Monitor, MonitorError> {
        Monitor::serve(graph, options, None)
    }

    /// Serves the replay of `events` (a trace's, in order) of the behavior `graph`; with
    /// `options.stack`, of a behavior stack's events (its `--trace`, with `time_ns`).
    pub fn replay(
        graph: &Graph,
        events: Vec<Value>,
        options: MonitorOptions,
    ) -> Result<Monitor, MonitorError> {
        let stack = options.stack.is_some();
        Monitor::serve(graph, options, Some(Replay::new(events, stack)))
    }

    fn serve(
        graph: &Graph,
        options: MonitorOptions,
        replay: Option<Replay>,
    ) -> Result<Monitor, MonitorError> {
        let token = if options.addr.ip().is_loopback() {
            None
        } else {
            let mut bytes = [0u8; 16];
            getrandom::fill(&mut bytes).map_err(|e| MonitorError::Token(e.to_string()))?;
            Some(bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
        };
        let mode = if replay.is_some() { "replay" } else { "live" };
        let hello = json!({
            "type": "hello", "protocol": 1, "mode": mode, "title": options.title,
            "model": options.model, "control": options.control && replay.is_none(),
            "edit": options.edit && replay.is_none(),
        });
        let model = options.model.as_deref().and_then(robot::model);
        let mut greeting = vec![hello, structure::structure(graph, &options.played, model)];
        if let Some(model) = model {
            greeting.push(robot::robot(model));
        }
        let natures = Natures::of(graph, &options.played);
        let state = match &options.stack {
            Some(shape) => {
                greeting.push(shape.message());
                State::with_stack(natures)
            }
            None => State::new(natures),
        }
        .on(model);
        let hub = Hub::new(state, &greeting);
        let (tx, rx) = mpsc::channel();
        let shared = Arc::new(Shared {
            hub: Arc::new(Mutex::new(hub)),
            pending: Arc::new(Mutex::new(Vec::new())),
            replay: replay.map(|r| Arc::new(Mutex::new(r))),
            token,
            control: options.control,
            edit: options.edit,
            commands: Mutex::new(tx),
            closing: tokio::sync::watch::Sender::new(false),
        });
        let listener =
            std::net::TcpListener::bind(options.addr).map_err(|source| MonitorError::Listen {
                addr: options.addr,
                source,
            })?;
        let addr = listener.local_addr().map_err(MonitorError::Runtime)?;
        listener
            .set_nonblocking(true)
            .map_err(MonitorError::Runtime)?;
        let host = if addr.ip().is_unspecified() {
            "127.0.0.1".to_string()
        } else {
            addr.ip().to_string()
        };
        let url = match &shared.token {
            Some(t) => format!("http://{host}:{}/?token={t}", addr.port()),
            None => format!("http://{host}:{}/", addr.port()),
        };
        let (shutdown, stopped) = tokio::sync::oneshot::channel();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(MonitorError::Runtime)?;
        let served = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("choreo-monitor".into())
            .spawn(move || {
                runtime.block_on(server::run(listener, served, stopped));
            })
            .map_err(MonitorError::Runtime)?;
        Ok(Monitor {
            url,
            shared,
            commands: Mutex::new(Some(rx)),
            shutdown: Mutex::new(Some(shutdown)),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// The page's URL (with its token when one is required).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Queues a trace event for the pages (called by the trace's listener, perhaps on the
    /// engine's control thread: a clone pushed under a short lock; the monitor's thread makes
    /// it JSON).
    pub fn publish(&self, event: &Event) {
        lock(&self.shared.pending).push(Queued::Event(event.clone()));
    }

    /// Queues an event already in its JSON form.
    pub fn publish_json(&self, event: Value) {
        lock(&self.shared.pending).push(Queued::Json(event));
    }

    /// Queues an event of the behavior stack (its JSON line as `choreo stack run --trace`
    /// writes it, behaviors named, with the `time_ns` of its tick).
    pub fn publish_stack(&self, event: Value) {
        lock(&self.shared.pending).push(Queued::Stack(event));
    }

    /// The run ended with `outcome` (`finished`, `stopped`, ...); `report` is what choreo
    /// printed. Pages keep showing the run.
    pub fn ended(&self, outcome: &str, report: &str) {
        // Events still queued go first.
        let pending = std::mem::take(&mut *lock(&self.shared.pending));
        let mut hub = lock(&self.shared.hub);
        if !pending.is_empty() {
            hub.send(pending, false, None);
        }
        hub.end(json!({"outcome": outcome, "report": report}));
    }

    /// The behavior changed (an edit): every page gets its new `structure`, and so does
    /// each page that comes later.
    pub fn restructure(&self, graph: &Graph) {
        let message = structure::structure(graph, &[], None);
        lock(&self.shared.hub).restructure(&message);
    }

    /// Tells every page `message` now and each page that comes later (an exploration's
    /// `coverage`: docs/monitor.md).
    pub fn announce(&self, message: &Value) {
        lock(&self.shared.hub).greet(message);
    }

    /// Tells every page `message` (an edit's outcome: docs/monitor.md).
    pub fn tell(&self, message: &Value) {
        lock(&self.shared.hub).broadcast(message);
    }

    /// What pages ask (once: later calls get `None`).
    pub fn commands(&self) -> Option<mpsc::Receiver<Command>> {
        lock(&self.commands).take()
    }

    /// How many pages are connected.
    pub fn clients(&self) -> usize {
        lock(&self.shared.hub).clients()
    }

    /// Events lost by the pages connected (slow pages), summed.
    pub fn dropped(&self) -> u64 {
        lock(&self.shared.hub).dropped()
    }
}

impl Monitor {
    /// Stops serving: pages get what is queued for them and a close (for up to a second),
    /// then the server stops. Dropping the monitor does the same; this is for an owner that
    /// shares it (the trace's listener holds it too) and is about to exit.
    pub fn close(&self) {
        if let Some(s) = lock(&self.shutdown).take() {
            let _ = s.send(());
        }
        if let Some(t) = lock(&self.thread).take() {
            let _ = t.join();
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.close();
    }
}
