//! What a trace keeps: the last records in a ring of bounded size, numbered gap-free over
//! the whole run (see the [module](crate::trace) doc, "What is kept").

use std::collections::VecDeque;

use crate::graph::Graph;
use crate::trace::event::Event;
use crate::trace::record::Record;

/// The kept tail of a trace, and how many records it was given in all.
pub(super) struct Ring {
    /// The kept tail of the trace: at most `keep` records, the oldest first.
    records: VecDeque<Record>,
    /// How many records to keep (`usize::MAX`: all of them).
    keep: usize,
    /// Records given so far (kept or not): the next sequence number.
    count: usize,
}

impl Ring {
    /// An empty ring keeping the last `keep` records.
    pub(super) fn new(keep: usize) -> Ring {
        Ring {
            records: VecDeque::new(),
            keep,
            count: 0,
        }
    }

    /// Numbers `record` ([`Ring::len`] before the call) and keeps it as the newest one,
    /// dropping the oldest when the ring is full.
    pub(super) fn push(&mut self, record: Record) {
        self.count += 1;
        let len = self.records.len();
        if len >= self.keep {
            if self.keep == 0 {
                return;
            }
            self.records.pop_front();
        } else if len == self.records.capacity() {
            // Doubling, but never past the ring's size: a full ring holds no spare room.
            let want = len.saturating_mul(2).max(8).min(self.keep);
            self.records.reserve_exact(want - len);
        }
        self.records.push_back(record);
    }

    /// Numbers and keeps `records` in order, as [`Ring::push`] each would: one reservation
    /// and one copy for the batch (the control thread appends its buffer so), and the
    /// oldest dropped at once when the ring overflows.
    pub(super) fn extend(&mut self, records: impl ExactSizeIterator<Item = Record>) {
        let n = records.len();
        self.count += n;
        if self.keep == 0 {
            return;
        }
        if n > self.keep {
            // Only the batch's last `keep` records can stay (a ring smaller than a batch).
            self.records.clear();
            self.records.reserve_exact(self.keep);
            self.records.extend(records.skip(n - self.keep));
            return;
        }
        let overflow = (self.records.len() + n).saturating_sub(self.keep);
        self.records.drain(..overflow);
        let len = self.records.len();
        if len + n > self.records.capacity() {
            // Doubling, but never past the ring's size: a full ring holds no spare room.
            let want = len.saturating_mul(2).max(len + n).max(8).min(self.keep);
            self.records.reserve_exact(want - len);
        }
        self.records.extend(records);
    }

    /// How many records were given in all (kept or not): the next sequence number.
    pub(super) fn len(&self) -> usize {
        self.count
    }

    /// The sequence number of the first kept record: how many were not kept.
    pub(super) fn first_kept(&self) -> usize {
        self.count - self.records.len()
    }

    /// The kept records as events, names looked up in `graph`.
    pub(super) fn events(&self, graph: Option<&Graph>) -> Vec<Event> {
        let first = self.first_kept();
        self.records
            .iter()
            .enumerate()
            .map(|(i, r)| r.resolve(first + i, graph))
            .collect()
    }

    /// Looks up every kept record's names in `graph` now, so that none refers to it.
    pub(super) fn detach(&mut self, graph: &Graph) {
        let first = self.first_kept();
        for (i, r) in self.records.iter_mut().enumerate() {
            r.detach(first + i, graph);
        }
    }

    /// Bytes the kept records take: the ring's capacity times the record size.
    pub(super) fn bytes(&self) -> usize {
        self.records.capacity() * std::mem::size_of::<Record>()
    }
}
