//! The hub between the run and the pages: events queued by the run, applied to the
//! [`State`] and sent in batches every [`BATCH_EVERY`]; each page has a bounded queue, and
//! a page that cannot keep up loses batches (counted) and gets a snapshot when it can take
//! one again. The run only ever pushes to a vector under a short lock.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_base::lock;
use choreo_engine::trace::Event;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::replay::{Replay, is_stack_event};
use crate::state::{Changes, Fields, State, join_into};

/// How often queued events are sent.
pub const BATCH_EVERY: Duration = Duration::from_millis(50);

/// How many messages a page's queue holds before it loses some (with [`MAX_BATCH`]: at
/// most 16,000 events waiting per page).
pub const QUEUE: usize = 16;

/// The most events one `batch` message carries (a busy tick is sent as several).
pub const MAX_BATCH: usize = 1000;

/// An event queued by the run: as the trace gave it (read, and made JSON, on the monitor's
/// thread, not the run's), or already JSON (a replay's, or published so).
pub(crate) enum Queued {
    /// A trace event.
    Event(Event),
    /// An event in its JSON form.
    Json(Value),
    /// A behavior stack's event (its JSON line, behaviors named).
    Stack(Value),
}

/// One page.
struct Client {
    id: u64,
    tx: mpsc::Sender<Arc<str>>,
    /// Events it missed so far.
    dropped: u64,
    /// It missed some since its last snapshot: it gets a new one first.
    stale: bool,
}

/// The pages and the state they see.
pub(crate) struct Hub {
    pub(crate) state: State,
    clients: Vec<Client>,
    next_id: u64,
    /// The `hello`, `structure` and (when the model is known) `robot` messages, sent to
    /// every page first.
    greeting: Vec<Arc<str>>,
}

impl Hub {
    /// `greeting`: the messages every page gets first, in order.
    pub(crate) fn new(state: State, greeting: &[Value]) -> Hub {
        Hub {
            state,
            clients: Vec::new(),
            next_id: 0,
            greeting: greeting.iter().map(|m| m.to_string().into()).collect(),
        }
    }

    /// A new page: its queue gets the greeting (hello, structure, robot) and a snapshot
    /// (and `extra`, the replay's position), then every batch from now on. Returns its id
    /// and queue.
    pub(crate) fn join(&mut self, extra: Option<Value>) -> (u64, mpsc::Receiver<Arc<str>>) {
        let (tx, rx) = mpsc::channel(QUEUE);
        let id = self.next_id;
        self.next_id += 1;
        let mut first: Vec<Arc<str>> = self.greeting.clone();
        first.push(self.state.snapshot(0).into());
        if let Some(e) = self.state.ended() {
            first.push(ended_message(e).into());
        }
        if let Some(x) = extra {
            first.push(x.to_string().into());
        }
        for m in first {
            // The queue is new and larger than these few messages.
            let _ = tx.try_send(m);
        }
        self.clients.push(Client {
            id,
            tx,
            dropped: 0,
            stale: false,
        });
        (id, rx)
    }

    /// Forgets a page that went away.
    pub(crate) fn leave(&mut self, id: u64) {
        self.clients.retain(|c| c.id != id);
    }

    /// How many pages are connected.
    pub(crate) fn clients(&self) -> usize {
        self.clients.len()
    }

    /// Whether a page waits for a snapshot.
    pub(crate) fn any_stale(&self) -> bool {
        self.clients.iter().any(|c| c.stale)
    }

    /// Events missed, summed over the pages connected.
    pub(crate) fn dropped(&self) -> u64 {
        self.clients.iter().map(|c| c.dropped).sum()
    }

    /// Applies `events` and sends them in batches of at most [`MAX_BATCH`]; `resync`: every
    /// page gets a snapshot instead (a replay jumped). `extra` goes to every page after (the
    /// replay's position).
    pub(crate) fn send(&mut self, events: Vec<Queued>, resync: bool, extra: Option<Value>) {
        if resync {
            for c in &mut self.clients {
                c.stale = true;
            }
        }
        let extra: Option<Arc<str>> = extra.map(|x| x.to_string().into());
        let mut events = events.into_iter().peekable();
        loop {
            let chunk: Vec<Queued> = events.by_ref().take(MAX_BATCH).collect();
            let last = events.peek().is_none();
            self.send_batch(chunk, if last { extra.clone() } else { None });
            if last {
                return;
            }
        }
    }

    /// Applies `events` and sends them as one batch (none when empty; stale pages still get
    /// their snapshot), then `extra`. Each event is made JSON text once, kept as a recent
    /// event after; with no page, no batch is made.
    fn send_batch(&mut self, events: Vec<Queued>, extra: Option<Arc<str>>) {
        let mut changes = Changes::default();
        let mut texts = Vec::with_capacity(events.len());
        let mut stack = Vec::new();
        for e in &events {
            match e {
                Queued::Event(e) => {
                    self.state.apply(&Fields::of_event(e), &mut changes);
                    texts.push(serde_json::to_string(e).unwrap_or_else(|_| "null".into()));
                }
                Queued::Json(v) => {
                    self.state.apply(&Fields::of_json(v), &mut changes);
                    texts.push(v.to_string());
                }
                Queued::Stack(v) => {
                    self.state.apply_stack(v, &mut changes);
                    stack.push(v.to_string());
                }
            }
        }
        let count = events.len() as u64;
        let batch: Option<Arc<str>> = (count > 0 && !self.clients.is_empty()).then(|| {
            let changes = self.state.changes(&changes).to_string();
            let size: usize = texts.iter().chain(&stack).map(|t| t.len() + 1).sum();
            let mut b = String::with_capacity(size + changes.len() + 64);
            b.push_str(r#"{"type":"batch","events":["#);
            join_into(&mut b, texts.iter());
            if !stack.is_empty() {
                b.push_str(r#"],"stack_events":["#);
                join_into(&mut b, stack.iter());
            }
            b.push_str(r#"],"changes":"#);
            b.push_str(&changes);
            b.push('}');
            b.into()
        });
        self.state.remember(texts);
        self.state.remember_stack(stack);
        let state = &self.state;
        self.clients.retain_mut(|c| {
            if c.stale {
                let snapshot: Arc<str> = state.snapshot(c.dropped).into();
                match c.tx.try_send(snapshot) {
                    Ok(()) => {
                        // A page that missed the end learns it here.
                        c.stale = state
                            .ended()
                            .is_some_and(|e| c.tx.try_send(ended_message(e).into()).is_err());
                    }
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        c.dropped += count;
                        return true;
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => return false,
                }
            } else if let Some(b) = &batch {
                match c.tx.try_send(Arc::clone(b)) {
                    Ok(()) => {}
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        c.dropped += count;
                        c.stale = true;
                        return true;
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => return false,
                }
            }
            if let Some(x) = &extra {
                let _ = c.tx.try_send(Arc::clone(x));
            }
            true
        });
    }

    /// A new `structure` (the greeting's second message): sent to every page now, and to
    /// later pages in their greeting.
    pub(crate) fn restructure(&mut self, structure: &Value) {
        let message: Arc<str> = structure.to_string().into();
        if let Some(old) = self.greeting.get_mut(1) {
            *old = Arc::clone(&message);
        }
        self.send_all(&message);
    }

    /// `message` sent to every page now and kept in the greeting of later pages, in place of
    /// a greeting message of its type (an exploration's `coverage`).
    pub(crate) fn greet(&mut self, message: &Value) {
        let kind = message.get("type").cloned();
        let text: Arc<str> = message.to_string().into();
        let same = |m: &Arc<str>| {
            serde_json::from_str::<Value>(m).is_ok_and(|v| v.get("type").cloned() == kind)
        };
        match self.greeting.iter_mut().skip(2).find(|m| same(m)) {
            Some(old) => *old = Arc::clone(&text),
            None => self.greeting.push(Arc::clone(&text)),
        }
        self.send_all(&text);
    }

    /// Sends `message` to every page now (a page whose queue is full gets a snapshot when
    /// it has room).
    pub(crate) fn broadcast(&mut self, message: &Value) {
        self.send_all(&message.to_string().into());
    }

    fn send_all(&mut self, message: &Arc<str>) {
        for c in &mut self.clients {
            if c.tx.try_send(Arc::clone(message)).is_err() {
                c.stale = true;
            }
        }
    }

    /// The run ended: every page is told (and later ones with their snapshot).
    pub(crate) fn end(&mut self, ended: Value) {
        let message: Arc<str> = ended_message(&ended).into();
        self.state.set_ended(ended);
        // A page whose queue is full gets a snapshot, then the end, when it has room.
        self.send_all(&message);
    }
}

fn ended_message(ended: &Value) -> String {
    let mut m = ended.clone();
    if let Some(o) = m.as_object_mut() {
        o.insert("type".into(), json!("ended"));
    }
    m.to_string()
}

/// Sends what the run queued (or the replay reached) every [`BATCH_EVERY`], until the
/// monitor shuts down.
pub(crate) async fn batches(
    hub: Arc<Mutex<Hub>>,
    pending: Arc<Mutex<Vec<Queued>>>,
    replay: Option<Arc<Mutex<Replay>>>,
) {
    let mut tick = tokio::time::interval(BATCH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tick.tick().await;
        let mut events = std::mem::take(&mut *lock(&pending));
        let (resync, extra) = match &replay {
            Some(r) => {
                let mut r = lock(r);
                let step = r.advance();
                // A stack's trace holds its engines' events too.
                let of_stack = |e: &Value| r.is_stack() && is_stack_event(e);
                if step.resync {
                    // A jump: the state is rebuilt from the replay's events up to it.
                    let mut h = lock(&hub);
                    h.state.reset();
                    let mut c = Changes::default();
                    let before = r.before();
                    for e in before {
                        if of_stack(e) {
                            h.state.apply_stack(e, &mut c);
                        } else {
                            h.state.apply(&Fields::of_json(e), &mut c);
                        }
                    }
                    let (stack, engines): (Vec<&Value>, Vec<&Value>) =
                        before.iter().partition(|e| of_stack(e));
                    let recent = |v: &[&Value]| {
                        v[v.len().saturating_sub(crate::state::RECENT)..]
                            .iter()
                            .map(|e| e.to_string())
                            .collect::<Vec<_>>()
                    };
                    h.state.remember_stack(recent(&stack));
                    h.state.remember(recent(&engines));
                }
                events.extend(step.events.into_iter().map(|e| match of_stack(&e) {
                    true => Queued::Stack(e),
                    false => Queued::Json(e),
                }));
                (step.resync, step.report.then(|| r.position()))
            }
            None => (false, None),
        };
        if events.is_empty() && !resync && extra.is_none() && !lock(&hub).any_stale() {
            continue;
        }
        lock(&hub).send(events, resync, extra);
    }
}
