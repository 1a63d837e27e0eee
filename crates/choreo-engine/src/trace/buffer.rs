//! The engine's control thread buffers what it records, appending to the trace a batch at a
//! time: taking the trace's lock once per batch instead of once per event is what makes a
//! signal hop cheap.
//!
//! One batch per thread, reached two ways: the thread-local [`BUFFER`], through which any
//! code on that thread records (`Trace::push`: box code called inline, the robot's answers),
//! and the [`Buffer`] handle the control thread keeps, through which it records its own
//! frequent events without a look-up of the thread-local per event. Both reach the same
//! batch, so the events keep the order they happened in.
//!
//! The batch is appended ([`flush_thread_buffer`]) before anything another thread could
//! record or read: before the control thread hands a hook to a worker, waits, or reports an
//! outcome; and when it holds [`BUFFER_LIMIT`] records.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::clock::Time;
use crate::graph::BoxId;
use crate::trace::batch::Batch;
use crate::trace::delivery;
use crate::trace::record::{Compact, Payload, Record};
use crate::trace::shared::Shared;
use crate::trace::stored::End;

/// The most records a thread buffers before it appends them to the trace.
pub(super) const BUFFER_LIMIT: usize = 4096;

thread_local! {
    /// See `Trace::buffer_on_this_thread`: the trace this thread buffers for, and its
    /// records not appended yet. Never borrowed while a listener runs.
    pub(super) static BUFFER: RefCell<Option<Rc<Buffered>>> = const { RefCell::new(None) };
}

/// A thread's buffer: the trace it is for, and the records not appended yet (borrowed only
/// to add a record or to append the batch, never while other code runs).
pub(super) struct Buffered {
    trace: Arc<Shared>,
    batch: RefCell<Batch>,
}

/// The control thread's own way into its buffer (see the [module](self) doc).
pub(crate) struct Buffer(Rc<Buffered>);

/// From now on, events this thread records into `trace` are buffered (see the
/// [module](self) doc); the handle records into the same buffer.
pub(super) fn buffer_on_this_thread(trace: &Arc<Shared>) -> Buffer {
    let buffered = Rc::new(Buffered {
        trace: Arc::clone(trace),
        batch: RefCell::new(Batch::with_capacity(BUFFER_LIMIT)),
    });
    BUFFER.with(|b| {
        if let Ok(mut b) = b.try_borrow_mut() {
            *b = Some(Rc::clone(&buffered));
        }
    });
    Buffer(buffered)
}

/// Buffers a record for `trace` if this thread buffers for it (and is not delivering its
/// events: a listener's records go to the delivery under way); else gives it back.
pub(super) fn buffer(
    trace: &Arc<Shared>,
    record: Record,
    payload: Option<Payload>,
) -> Result<(), (Record, Option<Payload>)> {
    let buffered = BUFFER.with(|b| {
        let b = b.try_borrow().ok()?;
        let b = b.as_ref()?;
        (Arc::ptr_eq(&b.trace, trace) && !delivery::delivering_here(trace)).then(|| Rc::clone(b))
    });
    match buffered {
        Some(b) => Buffer(b).push(record, payload),
        None => Err((record, payload)),
    }
}

/// Appends a record at once (another thread than the buffering one made it, or a
/// listener).
pub(super) fn append_now(trace: &Arc<Shared>, record: Record, payload: Option<Payload>) {
    let end = trace.lock().append(record, payload);
    if let Some(end) = end {
        delivery::deliver(trace, end);
    }
}

/// Appends this thread's buffer to `trace` and closes it under one lock (see
/// `Trace::close`); the end to deliver, if any.
pub(super) fn append_and_close(trace: &Arc<Shared>) -> Option<usize> {
    let mine = this_threads().filter(|b| Arc::ptr_eq(&b.trace, trace));
    let mut batch = mine.as_ref().and_then(|b| b.batch.try_borrow_mut().ok());
    let mut inner = trace.lock();
    let end = batch.as_mut().and_then(|batch| inner.append_batch(batch));
    inner.closed = true;
    end
}

impl Buffer {
    /// Records an event of box `b`: the hot path of a signal hop. Inlined, so that what
    /// happened goes from the caller's registers into the record (passed through memory,
    /// it is stored in pieces and loaded whole: the load waits for the stores).
    #[inline(always)]
    pub(crate) fn record_box(&self, time: Time, b: BoxId, what: Compact<'_>) {
        // Apart, so that the usual record, with no payload, moves no `Option<Payload>`.
        if what.carries() {
            self.record_carrying(time, b, what);
        } else {
            self.record_plain(Record::plain(time.0, b, what));
        }
    }

    #[inline(never)]
    fn record_carrying(&self, time: Time, b: BoxId, what: Compact<'_>) {
        let (record, payload) = Record::of(time.0, b, what);
        self.record(record, payload);
    }

    /// Records a link carrying a value from `from` to `to` (inlined, as `record_box`).
    #[inline(always)]
    pub(crate) fn record_delivery(&self, time: Time, from: End, to: End) {
        self.record_plain(Record::delivery(time.0, from, to));
    }

    /// A record without a payload, from the caller's registers into the batch: its rare
    /// ways (the batch borrowed, or full) take its words as three arguments, so that no
    /// way needs it in memory (kept there, it is stored in pieces and loaded whole, and the
    /// load waits for the stores).
    #[inline(always)]
    fn record_plain(&self, record: Record) {
        let Ok(mut batch) = self.0.batch.try_borrow_mut() else {
            let [time, w0, w1] = record.words();
            self.append_plain(time, w0, w1);
            return;
        };
        batch.push_plain(record);
        if batch.len() >= BUFFER_LIMIT {
            drop(batch);
            self.flush();
        }
    }

    #[cold]
    #[inline(never)]
    fn append_plain(&self, time: u64, w0: u64, w1: u64) {
        append_now(&self.0.trace, Record::from_words([time, w0, w1]), None);
    }

    #[inline(always)]
    fn record(&self, record: Record, payload: Option<Payload>) {
        // The batch is never borrowed here: what records runs outside its borrows.
        if let Err((record, payload)) = self.push(record, payload) {
            append_now(&self.0.trace, record, payload);
        }
    }

    /// Adds a record to the batch, appended at once if it is full; gives it back if the
    /// batch is borrowed (it never is while code that records runs).
    #[inline(always)]
    fn push(
        &self,
        record: Record,
        payload: Option<Payload>,
    ) -> Result<(), (Record, Option<Payload>)> {
        let Ok(mut batch) = self.0.batch.try_borrow_mut() else {
            return Err((record, payload));
        };
        batch.push(record, payload);
        if batch.len() >= BUFFER_LIMIT {
            drop(batch);
            self.flush();
        }
        Ok(())
    }

    /// Appends the batch to the trace, then delivers it (a listener may record, and
    /// recording looks at the batch: it is not borrowed then).
    #[inline(never)]
    fn flush(&self) {
        let end = {
            let Ok(mut batch) = self.0.batch.try_borrow_mut() else {
                return;
            };
            if batch.is_empty() {
                return;
            }
            self.0.trace.lock().append_batch(&mut batch)
        };
        if let Some(end) = end {
            delivery::deliver(&self.0.trace, end);
        }
    }
}

/// This thread's buffer, if it has one.
fn this_threads() -> Option<Rc<Buffered>> {
    BUFFER.with(|b| b.try_borrow().ok().and_then(|b| b.clone()))
}

/// Appends what this thread buffered (see `Trace::buffer_on_this_thread`) to its trace.
/// The control thread calls it before anything another thread could record or read: before
/// it hands a hook to a worker, waits, or reports an outcome.
pub(crate) fn flush_thread_buffer() {
    if let Some(b) = this_threads() {
        Buffer(b).flush();
    }
}
