//! What the clones of a trace share: under one lock, the ring, the bound graph, the
//! listeners and the queue of events waiting to be delivered; beside it, the condition
//! variable deliverers signal and the JSON Lines writer.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::graph::Graph;
use crate::trace::batch::Batch;
use crate::trace::event::Event;
use crate::trace::listener::Listeners;
use crate::trace::record::{Payload, Record};
use crate::trace::ring::Ring;
use crate::trace::robot_root::robot_step;

/// What the clones of a trace share.
pub(super) struct Shared {
    /// The trace's lock: records, counters, listeners, the pending queue.
    pub(super) inner: Mutex<TraceInner>,
    /// Signalled each time a deliverer is done with a batch (see the module doc).
    pub(super) delivered: Condvar,
    /// The JSON Lines output. Only the deliverer writes to it, outside the trace's lock;
    /// never held while a listener runs.
    pub(super) writer: Mutex<Option<Box<dyn Write + Send>>>,
    /// What the paths of its events get in front of them where they are kept (see
    /// `Trace::prefixed`): empty but for a nested run's trace.
    pub(super) prefix: String,
}

/// What the trace's lock guards.
pub(super) struct TraceInner {
    /// The kept records.
    pub(super) ring: Ring,
    /// The graph the compact records refer to.
    pub(super) graph: Option<Arc<Graph>>,
    /// Whether [`Shared::writer`] holds a writer (it is only set when the trace is made).
    pub(super) has_writer: bool,
    /// Who is told of every event.
    pub(super) listeners: Listeners,
    /// Events resolved for the writer and the listeners, not yet taken by the deliverer,
    /// in sequence order.
    pub(super) pending: Vec<Event>,
    /// The end (last sequence number + 1) of the events queued in `pending` so far.
    pub(super) queued: usize,
    /// The end of the events delivered so far.
    pub(super) delivered: usize,
    /// Whether a thread is delivering; it does until `pending` is empty.
    pub(super) delivering: bool,
    /// The run is over (see `Trace::close`): nothing more is recorded.
    pub(super) closed: bool,
    /// The host folder that stands for the robot's `/` (`Trace::set_robot_root`).
    pub(super) robot_root: Option<String>,
}

impl Shared {
    /// A trace's shared state keeping the last `keep` records, writing to `writer`.
    pub(super) fn new(
        keep: usize,
        writer: Option<Box<dyn Write + Send>>,
        prefix: String,
    ) -> Shared {
        let inner = TraceInner {
            ring: Ring::new(keep),
            graph: None,
            has_writer: writer.is_some(),
            listeners: Listeners::new(),
            pending: Vec::new(),
            queued: 0,
            delivered: 0,
            delivering: false,
            closed: false,
            robot_root: None,
        };
        Shared {
            inner: Mutex::new(inner),
            delivered: Condvar::new(),
            writer: Mutex::new(writer),
            prefix,
        }
    }

    /// The trace's lock (a panic while it was held does not matter: every state it guards
    /// is consistent between statements).
    pub(super) fn lock(&self) -> MutexGuard<'_, TraceInner> {
        choreo_base::lock(&self.inner)
    }
}

impl TraceInner {
    /// Takes a record with its payload: numbers and keeps it and, if anyone listens or
    /// writes, queues it resolved. Returns the end of the queue then, for the delivery.
    pub(super) fn append(&mut self, record: Record, payload: Option<Payload>) -> Option<usize> {
        if self.closed {
            return None;
        }
        self.add(record, payload);
        self.queued_end()
    }

    /// [`TraceInner::append`] of each record of a thread's buffered `batch`, in order,
    /// leaving it empty: with nobody listening or writing, the ring takes a full one as it
    /// is (`Ring::take`).
    pub(super) fn append_batch(&mut self, batch: &mut Batch) -> Option<usize> {
        if self.closed {
            batch.clear();
            return None;
        }
        if !self.announces() {
            self.ring.take(batch);
            return None;
        }
        for (record, payload) in batch.drain() {
            self.add(record, payload);
        }
        self.queued_end()
    }

    /// Whether events are resolved for someone: a writer or a listener.
    fn announces(&self) -> bool {
        self.has_writer || !self.listeners.is_empty()
    }

    /// Keeps a record and, if anyone listens or writes, queues its event.
    fn add(&mut self, record: Record, payload: Option<Payload>) {
        if self.announces() {
            let seq = self.ring.len();
            let mut event = record.resolve(seq, payload.as_ref(), self.graph.as_deref());
            if let Some(root) = &self.robot_root {
                robot_step(&mut event.step, root);
            }
            self.pending.push(event);
        }
        self.ring.push(record, payload);
    }

    /// The end of the queue if records were queued since it was last said.
    fn queued_end(&mut self) -> Option<usize> {
        if self.announces() && self.queued < self.ring.len() {
            self.queued = self.ring.len();
            Some(self.queued)
        } else {
            None
        }
    }
}
