//! Delivering a trace's events to its writer and listeners: in sequence order, one event at
//! a time, outside the trace's lock, before recording returns (see the [module](crate::trace)
//! doc, "Listeners and the writer").
//!
//! One thread at a time, the *deliverer* (the `delivering` flag under the trace's lock),
//! takes the whole queue of pending events, lets the lock go, writes and announces them,
//! takes the lock again and goes on until the queue is empty; a thread that records
//! meanwhile waits on [`Shared::delivered`]. This thread's marks say which traces it is
//! delivering now: a listener's own recording is then only queued, for the loop below it.

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::sync::{Arc, PoisonError};

use crate::trace::event::Event;
use crate::trace::listener::announce;
use crate::trace::shared::Shared;

thread_local! {
    /// The traces whose events this thread is delivering now (a listener of one may record
    /// into another): empty but while a listener runs. Never borrowed while one runs.
    static DELIVERING: RefCell<Vec<*const Shared>> = const { RefCell::new(Vec::new()) };
    /// How many marks [`DELIVERING`] holds: read first, so that recording (every event of
    /// the control thread asks) costs one plain load when no listener runs on this thread.
    static MARKS: Cell<usize> = const { Cell::new(0) };
}

/// Whether this thread is delivering the events of `shared`'s trace now: it is a listener
/// of that trace recording into it.
pub(super) fn delivering_here(shared: &Arc<Shared>) -> bool {
    if MARKS.with(Cell::get) == 0 {
        return false;
    }
    let me = Arc::as_ptr(shared);
    DELIVERING.with(|d| d.try_borrow().is_ok_and(|d| d.contains(&me)))
}

/// This thread delivering events of a trace: set up by [`deliver`] before it takes the
/// trace's lock (so it is dropped after that lock when unwinding).
struct Delivery<'a> {
    shared: &'a Arc<Shared>,
    /// Whether this thread's mark is in [`DELIVERING`].
    marked: bool,
    /// Whether this thread is the deliverer and has not said it stopped: dropped so, it
    /// panicked, and lets the others go.
    delivering: bool,
}

impl Delivery<'_> {
    /// Makes this thread the deliverer (the trace's `delivering` flag is already set).
    fn begin(&mut self) {
        self.delivering = true;
        self.marked = DELIVERING.with(|d| match d.try_borrow_mut() {
            Ok(mut d) => {
                d.push(Arc::as_ptr(self.shared));
                MARKS.with(|m| m.set(d.len()));
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
            DELIVERING.with(|d| {
                if let Ok(mut d) = d.try_borrow_mut()
                    && let Some(i) = d.iter().rposition(|p| *p == me)
                {
                    d.remove(i);
                    MARKS.with(|m| m.set(d.len()));
                }
            });
        }
        if self.delivering {
            // Unwinding out of a delivery: what was pending is lost, but nobody waits for
            // it forever and the next recording thread delivers again.
            let mut inner = self.shared.lock();
            inner.pending.clear();
            inner.delivered = inner.queued;
            inner.delivering = false;
            self.shared.delivered.notify_all();
        }
    }
}

/// Returns once the queued events before `end` are written and announced: delivers them if
/// no other thread does, waits for the one that does otherwise. Called by a listener (on
/// the deliverer's thread), returns at once: the delivery under way takes them next.
pub(super) fn deliver(shared: &Arc<Shared>, end: usize) {
    if delivering_here(shared) {
        return;
    }
    // Before the lock, to be dropped after it.
    let mut delivery = Delivery {
        shared,
        marked: false,
        delivering: false,
    };
    let mut inner = shared.lock();
    loop {
        if inner.delivered >= end {
            return;
        }
        if !inner.delivering {
            break;
        }
        inner = shared
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
        let listeners = inner.listeners.all();
        let write = inner.has_writer;
        drop(inner);
        if write {
            write_lines(shared, &batch);
        }
        let failed = announce(&listeners, &batch);
        batch.clear();
        inner = shared.lock();
        inner.listeners.remove(&failed);
        inner.delivered = batch_end;
        shared.delivered.notify_all();
    }
    inner.delivering = false;
    delivery.delivering = false;
}

/// Writes `events` as JSON Lines, in order.
fn write_lines(shared: &Shared, events: &[Event]) {
    let mut writer = choreo_base::lock(&shared.writer);
    if let Some(w) = writer.as_mut() {
        for event in events {
            // A trace file that cannot be written must not stop the behavior.
            if let Ok(line) = serde_json::to_string(event) {
                let _ = writeln!(w, "{line}");
            }
        }
    }
}

/// Flushes the writer once every event queued so far is written to it (called by a
/// listener: once those already written are); `Err` if writing failed.
pub(super) fn flush_writer(shared: &Arc<Shared>) -> std::io::Result<()> {
    let end = shared.lock().queued;
    deliver(shared, end);
    match choreo_base::lock(&shared.writer).as_mut() {
        Some(w) => w.flush(),
        None => Ok(()),
    }
}
