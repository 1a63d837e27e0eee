//! Records with their payloads, in order: the control thread's buffer and each chunk of
//! the ring are batches.
//!
//! Invariant: `payloads` holds one payload per record that carries one
//! ([`Record::has_payload`]), in the records' order. So a record needs no index into them:
//! walking the records in order walks the payloads along, and moving records from one batch
//! to the end of another in order keeps the invariant in both.

use crate::graph::Graph;
use crate::trace::event::Event;
use crate::trace::record::{Payload, Record};

#[derive(Debug, Default)]
pub(super) struct Batch {
    records: Vec<Record>,
    payloads: Vec<Payload>,
}

impl Batch {
    /// An empty batch with room for `n` records.
    pub(super) fn with_capacity(n: usize) -> Batch {
        Batch {
            records: Vec::with_capacity(n),
            payloads: Vec::new(),
        }
    }

    /// Adds a record and its payload (which it must carry exactly when
    /// [`Record::has_payload`]).
    #[inline(always)]
    pub(super) fn push(&mut self, record: Record, payload: Option<Payload>) {
        debug_assert_eq!(record.has_payload(), payload.is_some());
        self.records.push(record);
        if let Some(p) = payload {
            self.payloads.push(p);
        }
    }

    /// Adds a record that carries no payload, from the caller's registers: with room, no
    /// call is on its way (a record kept across one is kept in memory: see
    /// `Buffer::record_plain`).
    #[inline(always)]
    pub(super) fn push_plain(&mut self, record: Record) {
        debug_assert!(!record.has_payload());
        if self.records.len() < self.records.capacity() {
            self.records.push(record);
        } else {
            let [time, w0, w1] = record.words();
            self.push_growing(time, w0, w1);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_growing(&mut self, time: u64, w0: u64, w1: u64) {
        self.records.push(Record::from_words([time, w0, w1]));
    }

    pub(super) fn len(&self) -> usize {
        self.records.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Room for records before the record buffer grows.
    pub(super) fn capacity(&self) -> usize {
        self.records.capacity()
    }

    /// Whether no record fits without growing.
    pub(super) fn is_full(&self) -> bool {
        self.records.len() == self.records.capacity()
    }

    /// Empties the batch, keeping its room.
    pub(super) fn clear(&mut self) {
        self.records.clear();
        self.payloads.clear();
    }

    /// The records with their payloads, in order.
    pub(super) fn entries(&self) -> impl Iterator<Item = (&Record, Option<&Payload>)> {
        let mut payloads = self.payloads.iter();
        self.records.iter().map(move |r| {
            let p = if r.has_payload() {
                payloads.next()
            } else {
                None
            };
            (r, p)
        })
    }

    /// Takes every record with its payload out, in order, leaving the batch empty.
    pub(super) fn drain(&mut self) -> impl Iterator<Item = (Record, Option<Payload>)> + '_ {
        let mut payloads = self.payloads.drain(..);
        self.records.drain(..).map(move |r| {
            let p = if r.has_payload() {
                payloads.next()
            } else {
                None
            };
            (r, p)
        })
    }

    /// Records from the `skip`th on as events, the first numbered `first`, names looked up
    /// in `graph`.
    pub(super) fn events(
        &self,
        skip: usize,
        first: usize,
        graph: Option<&Graph>,
    ) -> impl Iterator<Item = Event> {
        self.entries()
            .skip(skip)
            .enumerate()
            .map(move |(i, (r, p))| r.resolve(first + i, p, graph))
    }

    /// Looks up the names of every record from the `skip`th on in `graph` now (the first
    /// numbered `first`), so that none refers to it ([`Record::detach`]).
    pub(super) fn detach(&mut self, skip: usize, first: usize, graph: &Graph) {
        let mut detached = Batch::with_capacity(self.records.capacity());
        for (i, (r, p)) in self.entries().enumerate() {
            let (r, p) = match i.checked_sub(skip) {
                Some(k) => r.detach(first + k, p, graph),
                None => (*r, p.cloned()),
            };
            detached.push(r, p);
        }
        *self = detached;
    }

    /// Bytes the records take (the payloads, rare, are not counted).
    pub(super) fn bytes(&self) -> usize {
        self.records.capacity() * std::mem::size_of::<Record>()
    }
}
