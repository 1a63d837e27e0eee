//! Who is told of a trace's events: [`Listener`]s under [`ListenerId`]s, and how one event is
//! announced to them (a listener that panics is dropped, the others still hear). When and on
//! which thread they are called is the business of `delivery`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::trace::event::Event;

/// Told of every event (live output), in sequence order: see the [module](crate::trace)
/// doc. Called outside the trace's lock, from whichever thread delivers (not always the one
/// that recorded the event). It may read the trace and record into it, but every recording
/// thread waits while it runs, so it should be short, and it must not wait for another
/// thread that records into the trace.
pub type Listener = Arc<dyn Fn(&Event) + Send + Sync>;

/// Names a listener of a trace, to remove it with
/// [`Trace::remove_listener`](crate::trace::Trace::remove_listener).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListenerId(u64);

/// The listeners of a trace, replaced whole when one comes or goes, so that a deliverer
/// takes them all with one reference count ([`Listeners::all`]).
pub(super) struct Listeners {
    all: Arc<[(ListenerId, Listener)]>,
    /// The id the next listener gets.
    next: u64,
}

impl Listeners {
    /// No listener.
    pub(super) fn new() -> Listeners {
        Listeners {
            all: Arc::new([]),
            next: 0,
        }
    }

    /// Adds `listener` after the others; returns its id.
    pub(super) fn add(&mut self, listener: Listener) -> ListenerId {
        let id = ListenerId(self.next);
        self.next += 1;
        self.all = self
            .all
            .iter()
            .cloned()
            .chain(std::iter::once((id, listener)))
            .collect();
        id
    }

    /// Removes the listeners named in `ids` (nothing for those already gone).
    pub(super) fn remove(&mut self, ids: &[ListenerId]) {
        if self.all.iter().any(|(id, _)| ids.contains(id)) {
            self.all = self
                .all
                .iter()
                .filter(|(id, _)| !ids.contains(id))
                .cloned()
                .collect();
        }
    }

    /// Every listener, in the order they came.
    pub(super) fn all(&self) -> Arc<[(ListenerId, Listener)]> {
        Arc::clone(&self.all)
    }

    /// Whether there is none.
    pub(super) fn is_empty(&self) -> bool {
        self.all.is_empty()
    }
}

/// Calls every listener with every event, event after event; returns the listeners that
/// panicked (not called again after that).
pub(super) fn announce(listeners: &[(ListenerId, Listener)], events: &[Event]) -> Vec<ListenerId> {
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
