//! How many signals each link target receives per second of behavior time: a loop of links
//! that never waits keeps running (as an endless loop did in NAOqi), and the trace says so
//! once, when a target receives more than [`LOUD_LINK`] signals within one second.

use crate::clock::Time;
use crate::graph::{Graph, Target};

/// Signals per second of behavior time above which a link target is reported (once per run)
/// as probably part of a loop. A timeline box firing every frame sends 25 to 50; a Python
/// loop that sleeps 10 ms, 100. Ten thousand is far above what a behavior does on purpose.
pub const LOUD_LINK: u32 = 10_000;

/// A second of behavior time, in ns.
const SECOND: u64 = 1_000_000_000;

/// Per link target (every input, parameter and output of every box, numbered once): the
/// behavior second of its last signals and how many came in it, and whether it was reported.
pub(super) struct LinkRates {
    /// Per box: the number of its first port.
    base: Vec<u32>,
    /// Per port: (the end of the second being counted, in ns; signals in that second). The
    /// end, not the second's number: a delivery then divides nothing unless a second began.
    counts: Vec<(u64, u32)>,
    reported: Vec<bool>,
    /// Some target went past [`LOUD_LINK`].
    loud: bool,
}

impl LinkRates {
    pub(super) fn new(graph: &Graph) -> LinkRates {
        let mut base = Vec::with_capacity(graph.boxes.len());
        let mut n = 0u32;
        for b in &graph.boxes {
            base.push(n);
            let ports = b.inputs.len() + b.outputs.len() + b.parameters.len();
            n = n.saturating_add(u32::try_from(ports).unwrap_or(u32::MAX));
        }
        LinkRates {
            base,
            counts: vec![(0, 0); n as usize],
            reported: vec![false; n as usize],
            loud: false,
        }
    }

    #[inline(always)]
    fn port(&self, graph: &Graph, target: Target) -> Option<usize> {
        let (b, offset) = match target {
            Target::Input(b, i) => (b, usize::from(i)),
            Target::OwnerOutput(b, i) => (b, graph.node(b).inputs.len() + usize::from(i)),
            Target::Parameter(b, i) => {
                let n = graph.node(b);
                (b, n.inputs.len() + n.outputs.len() + usize::from(i))
            }
        };
        let base = *self.base.get(b.0 as usize)?;
        Some(base as usize + offset)
    }

    /// Whether some link target went past [`LOUD_LINK`] signals within a second.
    #[inline]
    pub(super) fn any_loud(&self) -> bool {
        self.loud
    }

    /// Counts one signal to `target` at `now`; true the first time the target goes past
    /// [`LOUD_LINK`] signals within one second of behavior time.
    #[inline(always)]
    pub(super) fn count(&mut self, graph: &Graph, target: Target, now: Time) -> bool {
        let Some(p) = self.port(graph, target) else {
            return false;
        };
        let Some((end, n)) = self.counts.get_mut(p) else {
            return false;
        };
        if now.0 >= *end {
            // Behavior time never goes back: a second at or after the end is a new one.
            *end = (now.0 / SECOND + 1).saturating_mul(SECOND);
            *n = 0;
        }
        *n = n.saturating_add(1);
        if *n > LOUD_LINK && !self.reported[p] {
            self.reported[p] = true;
            self.loud = true;
            return true;
        }
        false
    }
}
