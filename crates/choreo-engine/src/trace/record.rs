//! Events as the engine records them: compact [`Record`]s of box and port indices, names
//! looked up only when an event is read, written or announced ([`Record::resolve`]).
//!
//! A record is 24 bytes with nothing to drop: recording one is three stores (what happened
//! is packed into two words: [`packed`](crate::trace::packed)), and letting go of old ones
//! costs nothing per record. What does not fit (a value other than `None`, a step given in
//! full, an event with its path as text) waits beside it as a [`Payload`], in the same order
//! as the records that carry one: a [`Batch`](crate::trace::batch::Batch) keeps both.

use crate::graph::{BoxId, Graph};
use crate::trace::event::{Event, Step};
use crate::trace::packed::{self, Words};
use crate::trace::stored::{End, HookRef, Stored};
use choreo_base::Value;

/// One recorded event, before names are looked up (see the [module](self) doc).
#[derive(Debug, Clone, Copy)]
pub(super) struct Record {
    /// Behavior time in nanoseconds.
    pub(super) time_ns: u64,
    /// What happened, by index where the graph allows: a [`Stored`], packed.
    words: Words,
}

/// What a record carries beside it (see the [module](self) doc).
#[derive(Debug, Clone)]
pub(super) enum Payload {
    Value(Value),
    Step(Box<Step>),
    Other(Box<(String, Step)>),
}

/// The frequent steps by index, as the engine records them ([`Record::of`]); a value is
/// copied into the trace only when it is not `None`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Compact<'v> {
    Call(HookRef),
    Ret(HookRef, bool),
    In(u16, &'v Value),
    Out(u16, &'v Value),
    Dropped(u16),
}

impl Compact<'_> {
    /// Whether a value waits beside the record: one other than `None`.
    #[inline(always)]
    pub(super) fn carries(&self) -> bool {
        matches!(self, Compact::In(_, v) | Compact::Out(_, v) if !matches!(v, Value::None))
    }

    /// The value that waits beside the record, if one does.
    #[inline(always)]
    fn payload(&self) -> Option<Payload> {
        match self {
            Compact::In(_, v) | Compact::Out(_, v) if !matches!(v, Value::None) => {
                Some(Payload::Value((*v).clone()))
            }
            _ => None,
        }
    }
}

impl Record {
    /// The record of `what` done by box `b` at `time_ns`, and its payload if it has one.
    #[inline(always)]
    pub(super) fn of(time_ns: u64, b: BoxId, what: Compact<'_>) -> (Record, Option<Payload>) {
        let payload = what.payload();
        let carries = payload.is_some();
        (
            Record::new(time_ns, Record::stored(b, what, carries)),
            payload,
        )
    }

    /// [`Record::of`] for a `what` that carries nothing ([`Compact::carries`] is false):
    /// the record alone, made in registers.
    #[inline(always)]
    pub(super) fn plain(time_ns: u64, b: BoxId, what: Compact<'_>) -> Record {
        Record::new(time_ns, Record::stored(b, what, false))
    }

    #[inline(always)]
    fn stored(b: BoxId, what: Compact<'_>, carries: bool) -> Stored {
        match what {
            Compact::Call(h) => Stored::Call(b, h),
            Compact::Ret(h, ok) => Stored::Ret(b, h, ok),
            Compact::In(i, _) => Stored::In(b, i, carries),
            Compact::Out(i, _) => Stored::Out(b, i, carries),
            Compact::Dropped(i) => Stored::Dropped(b, i),
        }
    }

    /// The record's three words, the time first: what a call takes in three registers
    /// rather than from memory ([`Record::from_words`] makes the record again).
    #[inline(always)]
    pub(super) fn words(self) -> [u64; 3] {
        [self.time_ns, self.words[0], self.words[1]]
    }

    /// The record of [`Record::words`].
    pub(super) fn from_words([time_ns, w0, w1]: [u64; 3]) -> Record {
        Record {
            time_ns,
            words: [w0, w1],
        }
    }

    #[inline]
    fn new(time_ns: u64, what: Stored) -> Record {
        Record {
            time_ns,
            words: packed::pack(what),
        }
    }

    /// What happened.
    pub(super) fn what(&self) -> Stored {
        packed::unpack(self.words)
    }

    /// The record of a link carrying a value from `from` to `to`: an event of the link's
    /// owner, found from `to` when read ([`End::link_owner`]), not looked up here.
    #[inline(always)]
    pub(super) fn delivery(time_ns: u64, from: End, to: End) -> Record {
        Record::new(time_ns, Stored::Deliver(from, to))
    }

    /// The record of `step` of box `b`.
    pub(super) fn step(time_ns: u64, b: BoxId, step: Step) -> (Record, Option<Payload>) {
        let payload = Payload::Step(Box::new(step));
        (Record::new(time_ns, Stored::Step(b)), Some(payload))
    }

    /// The record of `step` at `path`, given as text.
    pub(super) fn other(time_ns: u64, path: String, step: Step) -> (Record, Option<Payload>) {
        let payload = Payload::Other(Box::new((path, step)));
        (Record::new(time_ns, Stored::Other), Some(payload))
    }

    /// Whether the record carries a [`Payload`].
    #[inline]
    pub(super) fn has_payload(&self) -> bool {
        packed::has_payload(&self.words)
    }

    /// The event this record is, numbered `seq`, with its payload, names looked up in
    /// `graph` (the graph bound when it was recorded).
    pub(super) fn resolve(
        &self,
        seq: usize,
        payload: Option<&Payload>,
        graph: Option<&Graph>,
    ) -> Event {
        let (path, step) = match (self.what(), payload) {
            (Stored::Other, Some(Payload::Other(other))) => (other.0.clone(), other.1.clone()),
            (what, payload) => match (graph, what.box_of(graph)) {
                (Some(g), Some(b)) => (g.node(b).path.clone(), what.step(g, payload)),
                // Compact records only come with a bound graph.
                (_, b) => (
                    b.map_or_else(|| "?".into(), |b| format!("#{}", b.0)),
                    Step::Behavior { what: "?".into() },
                ),
            },
        };
        Event {
            seq: seq as u64,
            time_ns: self.time_ns,
            path,
            step,
        }
    }

    /// The record of the event this one is, numbered `seq`, its names looked up in `graph`
    /// now: it no longer refers to a graph, so that the trace can be bound to another one.
    pub(super) fn detach(
        &self,
        seq: usize,
        payload: Option<&Payload>,
        graph: &Graph,
    ) -> (Record, Option<Payload>) {
        let e = self.resolve(seq, payload, Some(graph));
        Record::other(self.time_ns, e.path, e.step)
    }
}

impl Stored {
    /// The box of the event: the link's owner for a delivery; none for an event given with
    /// its path as text.
    fn box_of(self, graph: Option<&Graph>) -> Option<BoxId> {
        match self {
            Stored::Call(b, _)
            | Stored::Ret(b, ..)
            | Stored::In(b, ..)
            | Stored::Out(b, ..)
            | Stored::Dropped(b, _)
            | Stored::Step(b) => Some(b),
            Stored::Deliver(_, to) => graph.map(|g| to.link_owner(g)),
            Stored::Other => None,
        }
    }

    /// The step, names looked up in `g`.
    fn step(self, g: &Graph, payload: Option<&Payload>) -> Step {
        let value = || match payload {
            Some(Payload::Value(v)) => v.clone(),
            _ => Value::None,
        };
        let port = |b: BoxId, i: u16, output: bool| {
            let n = g.node(b);
            let i = usize::from(i);
            let name = if output {
                n.outputs.get(i).map(|p| p.name.to_string())
            } else {
                n.inputs.get(i).map(|p| p.name.to_string())
            };
            name.unwrap_or_default()
        };
        match (self, payload) {
            (Stored::Call(b, h), _) => Step::Call { hook: h.name(g, b) },
            (Stored::Ret(b, h, ok), _) => Step::Ret {
                hook: h.name(g, b),
                ok,
            },
            (Stored::In(b, i, _), _) => Step::In {
                port: port(b, i, false),
                value: value(),
            },
            (Stored::Out(b, i, _), _) => Step::Out {
                port: port(b, i, true),
                value: value(),
            },
            (Stored::Deliver(from, to), _) => Step::Deliver {
                from: from.name(g),
                to: to.name(g),
            },
            (Stored::Dropped(b, i), _) => Step::Dropped {
                port: port(b, i, true),
            },
            (_, Some(Payload::Step(step))) => (**step).clone(),
            (_, Some(Payload::Other(other))) => other.1.clone(),
            // A step record always carries its step.
            (Stored::Step(_) | Stored::Other, _) => Step::Behavior { what: "?".into() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Payload, Record, Value};

    #[test]
    fn a_record_is_24_bytes_as_documented() {
        assert_eq!(std::mem::size_of::<Record>(), 24);
        assert!(!std::mem::needs_drop::<Record>());
        assert_eq!(std::mem::size_of::<Payload>(), std::mem::size_of::<Value>());
    }
}
