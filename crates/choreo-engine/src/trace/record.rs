//! Events as the engine records them: compact [`Record`]s of box and port indices, names
//! looked up only when an event is read, written or announced ([`Record::resolve`]).

use crate::graph::{BoxId, Graph};
use crate::trace::event::{Event, Step};
use choreo_base::Value;

/// One recorded event, before names are looked up: 56 bytes, so that moving records
/// around costs little.
#[derive(Debug, Clone)]
pub(super) struct Record {
    /// Behavior time in nanoseconds.
    pub(super) time_ns: u64,
    /// The box of the bound graph, or [`NO_BOX`] for an event given with a path as text
    /// ([`Compact::Other`]).
    pub(super) b: u32,
    /// What happened, by index where the graph allows.
    pub(super) what: Compact,
}

/// See [`Record::b`].
pub(super) const NO_BOX: u32 = u32::MAX;

/// A hook, by what the graph knows of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum HookRef {
    Load,
    Unload,
    /// `onInput_<name of input i>`.
    Input(u16),
    ResourceLost,
    ResourceError,
    Resource,
}

impl HookRef {
    /// The reference of `hook` for box `b` (inputs found by name).
    pub(crate) fn of(graph: &Graph, b: BoxId, hook: &crate::hook::Hook) -> HookRef {
        use crate::hook::Hook;
        match hook {
            Hook::Load => HookRef::Load,
            Hook::Unload => HookRef::Unload,
            // The name the graph handed on (the same `Arc`), else compared as text.
            Hook::Input { name, .. } => HookRef::Input(
                graph
                    .node(b)
                    .inputs
                    .iter()
                    .position(|p| p.name.same(name))
                    .and_then(|i| u16::try_from(i).ok())
                    .unwrap_or(0),
            ),
            Hook::ResourceLost => HookRef::ResourceLost,
            Hook::ResourceError => HookRef::ResourceError,
            Hook::Resource { .. } => HookRef::Resource,
        }
    }

    pub(crate) fn name(self, graph: &Graph, b: BoxId) -> String {
        match self {
            HookRef::Load => "onLoad".into(),
            HookRef::Unload => "onUnload".into(),
            HookRef::Input(i) => graph
                .node(b)
                .inputs
                .get(usize::from(i))
                .map_or_else(|| "onInput_?".into(), |p| format!("onInput_{}", p.name)),
            HookRef::ResourceLost => "onResourceLost".into(),
            HookRef::ResourceError => "onResourceError".into(),
            HookRef::Resource => "onResource".into(),
        }
    }
}

/// One end of a delivery.
#[derive(Debug, Clone, Copy)]
pub(crate) enum End {
    /// Output `u16` of a box: `Box.port`.
    Output(BoxId, u16),
    /// Input `u16` of a box: `Box.port`.
    Input(BoxId, u16),
    /// Parameter `u16` of a box: `Box.name`.
    Parameter(BoxId, u16),
    /// Input `u16` of the diagram's owner, seen from inside: `(parent).port`.
    OwnerInput(BoxId, u16),
    /// Output `u16` of the diagram's owner, seen from inside: `(parent).port`.
    OwnerOutput(BoxId, u16),
}

impl End {
    /// `Box.port`, or `(parent).port` for the diagram's owner seen from inside (`?` for a
    /// port the graph does not have).
    pub(crate) fn name(self, graph: &Graph) -> String {
        let (End::Output(b, i)
        | End::Input(b, i)
        | End::Parameter(b, i)
        | End::OwnerInput(b, i)
        | End::OwnerOutput(b, i)) = self;
        let n = graph.node(b);
        let i = usize::from(i);
        let port = match self {
            End::Output(..) | End::OwnerOutput(..) => n.outputs.get(i).map(|p| p.name.as_str()),
            End::Input(..) | End::OwnerInput(..) => n.inputs.get(i).map(|p| p.name.as_str()),
            End::Parameter(..) => n.parameters.get(i).map(|p| p.name.as_str()),
        }
        .unwrap_or("?");
        match self {
            End::OwnerInput(..) | End::OwnerOutput(..) => format!("(parent).{port}"),
            _ => format!("{}.{port}", n.name),
        }
    }
}

/// The frequent steps by index (see [`Trace`](crate::trace::Trace)); anything else as a full
/// [`Step`].
#[derive(Debug, Clone)]
pub(crate) enum Compact {
    Call(HookRef),
    Ret(HookRef, bool),
    In(u16, Value),
    Out(u16, Value),
    Deliver(End, End),
    Dropped(u16),
    /// Any other step of the box.
    Full(Box<Step>),
    /// A step with its path as text (events not of a box of the bound graph).
    Other(Box<(String, Step)>),
}

impl Record {
    /// The event this record is, numbered `seq`, names looked up in `graph` (the graph
    /// bound when it was recorded).
    pub(super) fn resolve(&self, seq: usize, graph: Option<&Graph>) -> Event {
        let (path, b) = match (&self.what, graph) {
            (Compact::Other(other), _) => (other.0.clone(), None),
            (_, Some(g)) => (g.node(BoxId(self.b)).path.clone(), Some(BoxId(self.b))),
            (_, None) => (format!("#{}", self.b), None),
        };
        let step = match (&self.what, graph, b) {
            (Compact::Other(other), _, _) => other.1.clone(),
            (Compact::Full(step), _, _) => (**step).clone(),
            (what, Some(g), Some(b)) => {
                let node = g.node(b);
                let input = |i: u16| {
                    node.inputs
                        .get(usize::from(i))
                        .map(|p| p.name.to_string())
                        .unwrap_or_default()
                };
                let output = |i: u16| {
                    node.outputs
                        .get(usize::from(i))
                        .map(|p| p.name.clone())
                        .unwrap_or_default()
                };
                match what {
                    Compact::Call(h) => Step::Call { hook: h.name(g, b) },
                    Compact::Ret(h, ok) => Step::Ret {
                        hook: h.name(g, b),
                        ok: *ok,
                    },
                    Compact::In(i, value) => Step::In {
                        port: input(*i),
                        value: value.clone(),
                    },
                    Compact::Out(i, value) => Step::Out {
                        port: output(*i),
                        value: value.clone(),
                    },
                    Compact::Deliver(from, to) => Step::Deliver {
                        from: from.name(g),
                        to: to.name(g),
                    },
                    Compact::Dropped(i) => Step::Dropped { port: output(*i) },
                    Compact::Full(step) => (**step).clone(),
                    Compact::Other(other) => other.1.clone(),
                }
            }
            // Compact records only come with a bound graph.
            (_, _, _) => Step::Behavior { what: "?".into() },
        };
        Event {
            seq: seq as u64,
            time_ns: self.time_ns,
            path,
            step,
        }
    }

    /// Looks its names up in `graph` now (numbered `seq`): the record no longer refers to
    /// a graph, so that the trace can be bound to another one.
    pub(super) fn detach(&mut self, seq: usize, graph: &Graph) {
        let e = self.resolve(seq, Some(graph));
        self.b = NO_BOX;
        self.what = Compact::Other(Box::new((e.path, e.step)));
    }
}

#[cfg(test)]
mod tests {
    use super::Record;

    #[test]
    fn a_record_is_56_bytes_as_documented() {
        assert_eq!(std::mem::size_of::<Record>(), 56);
    }
}
