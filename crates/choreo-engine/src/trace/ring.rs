//! What a trace keeps: the last records in a ring of bounded size, numbered gap-free over
//! the whole run (see the [module](crate::trace) doc, "What is kept").
//!
//! The records are kept in chunks of [`CHUNK`] records (of `keep` for a smaller ring), each
//! a [`Batch`] (records with their payloads): in a ring of at least two chunks, a full batch
//! of the control thread's buffer becomes one chunk as it is, moved in rather than copied,
//! and the buffer gets an empty chunk back (the one the ring let go of last, when there is
//! one). Records have nothing to drop: letting go of a chunk drops only its payloads. The ring never reallocates what it holds, and the
//! oldest records go a chunk at a time: it holds at most `keep` records and two chunks'
//! room beside them (the first chunk's records no longer kept, the chunk kept for reuse).

use std::collections::VecDeque;

use crate::graph::Graph;
use crate::trace::batch::Batch;
use crate::trace::event::Event;
use crate::trace::record::{Payload, Record};

/// The size of a chunk the ring fills itself (a batch moved in keeps its own).
const CHUNK: usize = 4096;

/// A batch this big or bigger is moved in as a chunk; a smaller one is copied into the last
/// chunk, so that a chunk is never mostly empty room.
const MOVED: usize = CHUNK / 2;

/// The kept tail of a trace, and how many records it was given in all.
pub(super) struct Ring {
    /// The kept records, the oldest first; the first chunk's first `skip` are no longer
    /// kept (they go with their chunk).
    chunks: VecDeque<Batch>,
    skip: usize,
    /// Records kept: the chunks' lengths, less `skip`.
    kept: usize,
    /// How many records to keep (`usize::MAX`: all of them).
    keep: usize,
    /// Records given so far (kept or not): the next sequence number.
    count: usize,
    /// A chunk let go of, emptied, for the next batch moved in.
    spare: Option<Batch>,
}

impl Ring {
    /// An empty ring keeping the last `keep` records.
    pub(super) fn new(keep: usize) -> Ring {
        Ring {
            chunks: VecDeque::new(),
            skip: 0,
            kept: 0,
            keep,
            count: 0,
            spare: None,
        }
    }

    /// Numbers `record` ([`Ring::len`] before the call) and keeps it with its payload as
    /// the newest one, dropping the oldest when the ring is full.
    pub(super) fn push(&mut self, record: Record, payload: Option<Payload>) {
        self.count += 1;
        if self.keep == 0 {
            return;
        }
        self.room_for_one().push(record, payload);
        self.kept += 1;
        self.trim();
    }

    /// Numbers and keeps the records of `batch` in order, as [`Ring::push`] each would,
    /// leaving `batch` empty: a big one is moved in as a chunk (and `batch` gets an empty
    /// one of its capacity back), a small one copied.
    pub(super) fn take(&mut self, batch: &mut Batch) {
        let n = batch.len();
        self.count += n;
        if self.keep == 0 {
            batch.clear();
            return;
        }
        if n >= MOVED && self.keep >= 2 * CHUNK {
            let capacity = batch.capacity();
            let empty = match self.spare.take() {
                Some(spare) if spare.capacity() >= capacity => spare,
                _ => Batch::with_capacity(capacity),
            };
            self.chunks.push_back(std::mem::replace(batch, empty));
            self.kept += n;
        } else {
            for (record, payload) in batch.drain() {
                self.room_for_one().push(record, payload);
                self.kept += 1;
            }
        }
        self.trim();
    }

    /// The chunk the next record goes to: the last one if it has room, else a new one.
    fn room_for_one(&mut self) -> &mut Batch {
        if self.chunks.back().is_none_or(Batch::is_full) {
            let chunk = Batch::with_capacity(CHUNK.min(self.keep));
            self.chunks.push_back(chunk);
        }
        let last = self.chunks.len() - 1;
        &mut self.chunks[last]
    }

    /// Lets go of the oldest records past `keep`: whole chunks, or the first ones of the
    /// first chunk (kept in it, not counted, until the chunk goes).
    fn trim(&mut self) {
        while self.kept > self.keep {
            let Some(first) = self.chunks.front() else {
                return;
            };
            let over = self.kept - self.keep;
            let in_first = first.len() - self.skip;
            if over < in_first {
                self.skip += over;
                self.kept -= over;
                return;
            }
            self.kept -= in_first;
            self.skip = 0;
            if let Some(mut gone) = self.chunks.pop_front() {
                gone.clear();
                self.spare = (self.keep >= 2 * CHUNK).then_some(gone);
            }
        }
    }

    /// How many records were given in all (kept or not): the next sequence number.
    pub(super) fn len(&self) -> usize {
        self.count
    }

    /// The sequence number of the first kept record: how many were not kept.
    pub(super) fn first_kept(&self) -> usize {
        self.count - self.kept
    }

    /// The kept records as events, the oldest first, names looked up in `graph`.
    pub(super) fn events(&self, graph: Option<&Graph>) -> Vec<Event> {
        let mut events = Vec::with_capacity(self.kept);
        let mut first = self.first_kept();
        let mut skip = self.skip;
        for chunk in &self.chunks {
            events.extend(chunk.events(skip, first, graph));
            first += chunk.len() - skip;
            skip = 0;
        }
        events
    }

    /// Looks up every kept record's names in `graph` now, so that none refers to it.
    pub(super) fn detach(&mut self, graph: &Graph) {
        let mut first = self.first_kept();
        let mut skip = self.skip;
        for chunk in &mut self.chunks {
            chunk.detach(skip, first, graph);
            first += chunk.len() - skip;
            skip = 0;
        }
    }

    /// Bytes the ring takes for its records: its chunks' capacity times the record size
    /// (the payloads, rare, are not counted).
    pub(super) fn bytes(&self) -> usize {
        self.chunks.iter().map(Batch::bytes).sum::<usize>()
            + self.spare.as_ref().map_or(0, Batch::bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::BoxId;
    use crate::trace::event::Step;

    /// Record `i`: every third one carries a payload (the frame `i`).
    fn record(i: usize) -> (Record, Option<Payload>) {
        if i.is_multiple_of(3) {
            Record::other(i as u64, String::new(), Step::Frame { frame: i as i64 })
        } else {
            Record::of(i as u64, BoxId(0), crate::trace::Compact::Dropped(0))
        }
    }

    fn batch(from: usize, to: usize) -> Batch {
        let mut b = Batch::with_capacity(to - from);
        for i in from..to {
            let (r, p) = record(i);
            b.push(r, p);
        }
        b
    }

    /// The kept records' times, each checked to carry its own payload.
    fn times(ring: &Ring) -> Vec<u64> {
        ring.events(None)
            .iter()
            .map(|e| {
                let frame = matches!(e.step, Step::Frame { frame } if frame as u64 == e.time_ns);
                assert_eq!(frame, e.time_ns.is_multiple_of(3), "{e:?}");
                e.time_ns
            })
            .collect()
    }

    #[test]
    fn the_last_records_are_kept_in_order_however_they_came() {
        for keep in [0, 1, 5, 100, 3000, 5000, 20_000, usize::MAX] {
            let mut ring = Ring::new(keep);
            let mut given = 0;
            // Single records, small batches, batches moved in whole, in turn.
            for size in [1, 7, 4096, 3, 2048, 1, 5000, 100, 4096, 4096, 2] {
                if size == 1 {
                    let (r, p) = record(given);
                    ring.push(r, p);
                } else {
                    let mut batch = batch(given, given + size);
                    ring.take(&mut batch);
                    assert!(batch.is_empty());
                }
                given += size;
                let want: Vec<u64> = (given.saturating_sub(keep)..given)
                    .map(|i| i as u64)
                    .collect();
                assert_eq!(times(&ring), want, "keep {keep}, after {given}");
                assert_eq!(ring.len(), given);
                assert_eq!(ring.first_kept(), given - want.len());
            }
        }
    }

    #[test]
    fn a_batch_moved_in_leaves_its_buffer_the_same_capacity() {
        let mut ring = Ring::new(10_000);
        // A ring that takes batches as they are.
        const _: () = assert!(10_000 >= 2 * CHUNK);
        for round in 0..5 {
            let mut batch = batch(round * 4096, round * 4096 + 4096);
            ring.take(&mut batch);
            assert!(batch.is_empty() && batch.capacity() >= 4096);
        }
        assert_eq!(ring.first_kept(), 5 * 4096 - 10_000);
        // At most the kept records and two chunks beside them.
        assert!(ring.bytes() <= (10_000 + 2 * CHUNK) * std::mem::size_of::<Record>());
    }
}
