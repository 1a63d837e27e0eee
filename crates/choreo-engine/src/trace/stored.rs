//! What a record says, by index where the graph allows: [`Stored`], with the hooks
//! ([`HookRef`]) and link ends ([`End`]) it names, and how their names are looked up.

use crate::graph::{BoxId, Graph};

/// What a record says. `beside`: the value waits beside the record as its payload (else it
/// is `None`).
#[derive(Debug, Clone, Copy)]
pub(super) enum Stored {
    Call(BoxId, HookRef),
    Ret(BoxId, HookRef, bool),
    In(BoxId, u16, bool),
    Out(BoxId, u16, bool),
    /// The box of the event is the link's owner, found from its target
    /// ([`End::link_owner`]): 24 bytes hold both ends and no third box.
    Deliver(End, End),
    Dropped(BoxId, u16),
    /// Any other step of a box: its payload.
    Step(BoxId),
    /// A step with its path as text (events not of a box of the bound graph):
    /// its payload.
    Other,
}

impl Stored {
    /// Whether a record of this carries a payload (what the packed words say faster).
    #[cfg(test)]
    pub(super) fn has_payload(self) -> bool {
        matches!(
            self,
            Stored::In(.., true) | Stored::Out(.., true) | Stored::Step(_) | Stored::Other
        )
    }
}

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
    /// The box a link ending here belongs to: the owner of the diagram its target is in
    /// (what the trace shows a delivery under).
    pub(crate) fn link_owner(self, graph: &Graph) -> BoxId {
        match self {
            End::Input(c, _) | End::Parameter(c, _) => graph.node(c).parent.map_or(c, |(p, _)| p),
            End::Output(b, _) | End::OwnerInput(b, _) | End::OwnerOutput(b, _) => b,
        }
    }

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
