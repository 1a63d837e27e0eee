//! A run's trace events as an iterator: every event recorded from the moment it was asked
//! for, in order, ending once the run is over and every event is delivered.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use choreo_engine::trace::{Event, ListenerId};
use choreo_engine::{Engine, Trace};

/// How long [`Events::next`] waits between looks at whether the run is over.
const LOOK: Duration = Duration::from_millis(20);

/// The events of a run ([`crate::Run::events`]); it stops listening when dropped.
pub struct Events {
    rx: Receiver<Event>,
    trace: Trace,
    engine: Arc<Engine>,
    id: ListenerId,
    /// The run was over and the trace delivered: what is left in `rx` is all there is.
    drained: bool,
}

impl Events {
    pub(crate) fn new(trace: &Trace, engine: &Arc<Engine>) -> Events {
        let (tx, rx) = channel();
        // A send fails only once the receiver is gone, and then the listener is removed.
        let id = trace.add_listener(Arc::new(move |e: &Event| {
            let _ = tx.send(e.clone());
        }));
        Events {
            rx,
            trace: trace.clone(),
            engine: Arc::clone(engine),
            id,
            drained: false,
        }
    }

    /// The next event if one is there now, without waiting.
    pub fn try_next(&mut self) -> Option<Event> {
        self.rx.try_recv().ok()
    }

    /// The next event, waiting at most `timeout`; `None` when none came (or none will).
    pub fn next_within(&mut self, timeout: Duration) -> Option<Event> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if let Some(e) = self.next_or_end(left.min(LOOK)) {
                return e;
            }
            if left.is_zero() {
                return None;
            }
        }
    }

    /// One wait of at most `wait`: `Some(Some(e))` an event, `Some(None)` the end, `None`
    /// nothing yet.
    fn next_or_end(&mut self, wait: Duration) -> Option<Option<Event>> {
        if self.drained {
            return Some(self.try_next());
        }
        match self.rx.recv_timeout(wait) {
            Ok(e) => Some(Some(e)),
            Err(RecvTimeoutError::Disconnected) => Some(None),
            Err(RecvTimeoutError::Timeout) => {
                if self.engine.is_over() {
                    // Every event recorded so far reaches the listener before this returns.
                    let _ = self.trace.flush_writer();
                    self.drained = true;
                    Some(self.try_next())
                } else {
                    None
                }
            }
        }
    }
}

impl Iterator for Events {
    type Item = Event;

    /// The next event, waiting for it; `None` once the run is over and every event has
    /// been given.
    fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.next_or_end(LOOK) {
                return e;
            }
        }
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        self.trace.remove_listener(self.id);
    }
}
