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
    /// Per port: (the second of behavior time being counted, its low 32 bits; signals in
    /// that second). Eight bytes, not a time in ns: a hop along a chain reads a port's count
    /// no box has touched yet, and at eight bytes a line of the cache holds the counts of
    /// two boxes rather than one. Behavior time never goes back, so another second is a new
    /// one; two seconds alike in their low bits are 136 years apart.
    counts: Vec<(u32, u32)>,
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
        let Some((counted, n)) = self.counts.get_mut(p) else {
            return false;
        };
        // The low bits only (see `counts`): the truncation is meant.
        let second = (now.0 / SECOND) as u32;
        if second != *counted {
            *counted = second;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A root box with one input, `in`: one port to count.
    fn one_port() -> Graph {
        let xml = r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1" localization="8" tooltip="" x="0" y="0"><Input name="in" type="1" type_size="1" nature="1" inner="0" tooltip="" id="1" /><Timeline enable="0"><BehaviorLayer name="b"><BehaviorKeyframe name="k" index="1"><Diagram /></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#;
        match choreo_xar::read_xar("t.xar", xml.as_bytes()) {
            Ok(read) => Graph::new(&read.value),
            Err(e) => panic!("the test behavior does not read: {e}"),
        }
    }

    /// Sends `n` signals at `at` ns; how many of them were reported loud.
    fn send(rates: &mut LinkRates, graph: &Graph, n: u32, at: u64) -> usize {
        let target = Target::Input(Graph::ROOT, 0);
        (0..n)
            .filter(|_| rates.count(graph, target, Time(at)))
            .count()
    }

    #[test]
    fn a_port_is_loud_past_ten_thousand_signals_within_one_second_and_said_once() {
        let graph = one_port();
        let mut rates = LinkRates::new(&graph);
        // 10,000 at 0.2 s and 10,000 more at 1.0 s: the second ends at 1 s, so neither half
        // is loud on its own (1.0 s starts the next second).
        assert_eq!(send(&mut rates, &graph, LOUD_LINK, 200_000_000), 0);
        assert_eq!(send(&mut rates, &graph, LOUD_LINK, SECOND), 0);
        assert!(!rates.any_loud());
        // One more within [1 s, 2 s): the 10,001st of that second, reported; later ones not.
        assert_eq!(send(&mut rates, &graph, 1, 2 * SECOND - 1), 1);
        assert_eq!(send(&mut rates, &graph, 5, 2 * SECOND - 1), 0);
        assert!(rates.any_loud());
    }

    #[test]
    fn a_second_far_beyond_32_bits_of_seconds_is_counted_as_any_other() {
        let graph = one_port();
        let mut rates = LinkRates::new(&graph);
        // Second 2^32 + 5 (its low bits: 5), after 9,000 signals in second 7.
        assert_eq!(send(&mut rates, &graph, 9_000, 7 * SECOND), 0);
        let far = ((1u64 << 32) + 5) * SECOND;
        assert_eq!(send(&mut rates, &graph, 9_000, far + 1), 0);
        assert!(!rates.any_loud(), "9,000 in each of two seconds");
        assert_eq!(send(&mut rates, &graph, 1_001, far + 2), 1);
    }
}
