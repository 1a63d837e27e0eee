//! Raw generated data: shrinks well; [`crate::properties::case::build`] turns it into a valid behavior.

use proptest::prelude::*;

use crate::properties::settings::{CYCLES, ECHOES, INLINE, P9_LINKS, SLEEPS};

#[derive(Debug, Clone)]
pub(crate) enum RawTl {
    Play,
    Pause,
    Stop,
    GoTo(i64),
    Label(u8),
    BadLabel,
    Fps(u32),
}

#[derive(Debug, Clone)]
pub(crate) struct RawRule {
    pub(crate) trigger: u8,
    pub(crate) sleep: Option<u64>,
    pub(crate) fire: Option<u8>,
    /// (own timeline rather than the parent's, command)
    pub(crate) tl: Option<(bool, RawTl)>,
    pub(crate) fail: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct RawDiagram {
    pub(crate) boxes: Vec<RawBox>,
    /// A link from the owner's entry (onStart; onLoad in a keyframe) to the first box's onStart.
    pub(crate) entry: bool,
    /// A link from the last box's onStopped to the owner's onStopped.
    pub(crate) exit: bool,
    /// (source pick, destination pick), resolved modulo the valid choices.
    pub(crate) links: Vec<(u16, u16)>,
    /// P9 links: (owner input pick, owner output pick), from an input of the diagram's owner
    /// straight to one of its outputs.
    pub(crate) through: Vec<(u16, u16)>,
    /// Cycles: (box pick, box pick, port pick, port pick, kick). The earlier box's output
    /// goes to the later box's input and the later box's output back to the earlier box's
    /// input (one link from a box's output to its own input when both picks are the same
    /// box); the ports are, when the box has some, a pair that lets a signal through (see
    /// [`crate::properties::case::Through`]). `kick`: a link from the owner's entry (as for `entry`) to the earlier
    /// box's input as well.
    pub(crate) cycles: Vec<(u8, u8, u16, u16, bool)>,
}

#[derive(Debug, Clone)]
pub(crate) struct RawTimeline {
    pub(crate) fps: u32,
    pub(crate) start: i32,
    pub(crate) end: i32,
    /// Per layer: the first keyframe's index, then (increment, diagram) per keyframe.
    pub(crate) layers: Vec<(i32, Vec<(i32, RawDiagram)>)>,
}

#[derive(Debug, Clone)]
pub(crate) enum RawContent {
    Script,
    Holder(RawDiagram),
    Timeline(RawTimeline),
}

#[derive(Debug, Clone)]
pub(crate) struct RawBox {
    pub(crate) events: u8,
    pub(crate) punctuals: u8,
    pub(crate) param: bool,
    pub(crate) rules: Vec<RawRule>,
    pub(crate) content: RawContent,
    /// A `<Resource>`: indices into [`RESOURCE_NAMES`], [`LOCK_TYPES`], [`TIMEOUTS`].
    pub(crate) resource: Option<(u8, u8, u8)>,
    /// (input pick, output pick): the box's code fires that output every time that input
    /// comes, without the [`crate::properties::settings::MAX_ACTS`] bound of rules (a native box in a loop).
    pub(crate) echo: Option<(u8, u8)>,
    /// The box's code runs inline, on the engine's control thread (its sleeps return at once).
    pub(crate) inline: bool,
}

/// Resource names: groups and joints that overlap (Q4), and one unrelated name.
pub(crate) const RESOURCE_NAMES: [&str; 5] = ["Speech", "Head", "HeadYaw", "Legs", "All motors"];
/// Lock types (Q3).
pub(crate) const LOCK_TYPES: [&str; 4] = [
    "Lock",
    "Stop on demand",
    "Pause on demand (beta)",
    "Callback on demand",
];
/// Resource timeouts in seconds (Q2): none, short, until free.
pub(crate) const TIMEOUTS: [i32; 3] = [0, 1, -1];

pub(crate) fn raw_tl() -> impl Strategy<Value = RawTl> {
    prop_oneof![
        Just(RawTl::Play),
        Just(RawTl::Pause),
        Just(RawTl::Stop),
        (0..50i64).prop_map(RawTl::GoTo),
        any::<u8>().prop_map(RawTl::Label),
        Just(RawTl::BadLabel),
        (1..=30u32).prop_map(RawTl::Fps),
    ]
}

pub(crate) fn raw_rule() -> impl Strategy<Value = RawRule> {
    (
        any::<u8>(),
        prop::option::weighted(0.4, prop::sample::select(SLEEPS.to_vec())),
        prop::option::weighted(0.7, any::<u8>()),
        prop::option::weighted(0.25, (any::<bool>(), raw_tl())),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(trigger, sleep, fire, tl, fail)| RawRule {
            trigger,
            sleep,
            fire,
            tl,
            fail,
        })
}

pub(crate) fn raw_diagram(
    child: BoxedStrategy<RawBox>,
    boxes: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = RawDiagram> {
    (
        prop::collection::vec(child, boxes),
        prop::bool::weighted(0.9),
        prop::bool::weighted(0.7),
        prop::collection::vec((any::<u16>(), any::<u16>()), 0..=5),
        sometimes(P9_LINKS, (any::<u16>(), any::<u16>()), 2),
        sometimes(
            CYCLES,
            (
                any::<u8>(),
                any::<u8>(),
                any::<u16>(),
                any::<u16>(),
                any::<bool>(),
            ),
            2,
        ),
    )
        .prop_map(|(boxes, entry, exit, links, through, cycles)| RawDiagram {
            boxes,
            entry,
            exit,
            links,
            through,
            cycles,
        })
}

/// With probability `p`, one to `most` values of `element`; otherwise none.
pub(crate) fn sometimes<S: Strategy + 'static>(
    p: f64,
    element: S,
    most: usize,
) -> impl Strategy<Value = Vec<S::Value>> {
    prop::option::weighted(p, prop::collection::vec(element, 1..=most))
        .prop_map(Option::unwrap_or_default)
}

pub(crate) fn raw_timeline(child: BoxedStrategy<RawBox>) -> impl Strategy<Value = RawTimeline> {
    let layer = (
        0..=10i32,
        prop::collection::vec((1..=15i32, raw_diagram(child, 1..=2)), 1..=2),
    );
    (
        5..=30u32,
        0..=1i32,
        prop_oneof![Just(-1), 1..=40i32],
        prop::collection::vec(layer, 1..=3),
    )
        .prop_map(|(fps, start, end, layers)| RawTimeline {
            fps,
            start,
            end,
            layers,
        })
}

/// A box whose content nests at most `depth` more levels.
pub(crate) fn raw_box(depth: u32) -> BoxedStrategy<RawBox> {
    let base = || {
        (
            0..=2u8,
            0..=2u8,
            prop::bool::weighted(0.2),
            prop::collection::vec(raw_rule(), 0..=3),
            prop::option::weighted(0.25, (0..5u8, 0..4u8, 0..3u8)),
            prop::option::weighted(ECHOES, (any::<u8>(), any::<u8>())),
            prop::bool::weighted(INLINE),
        )
    };
    let script = base().prop_map(
        |(events, punctuals, param, rules, resource, echo, inline)| RawBox {
            events,
            punctuals,
            param,
            rules,
            content: RawContent::Script,
            resource,
            echo,
            inline,
        },
    );
    if depth == 0 {
        return script.boxed();
    }
    let inner = raw_box(depth - 1);
    let in_timeline = inner.clone();
    let holder = (base(), raw_diagram(inner, 1..=3)).prop_map(
        |((events, punctuals, param, rules, resource, echo, inline), d)| RawBox {
            events,
            punctuals,
            param,
            rules,
            content: RawContent::Holder(d),
            resource,
            echo,
            inline,
        },
    );
    let timeline = (base(), raw_timeline(in_timeline)).prop_map(
        |((events, punctuals, param, rules, resource, echo, inline), t)| RawBox {
            events,
            punctuals,
            param,
            rules,
            content: RawContent::Timeline(t),
            resource,
            echo,
            inline,
        },
    );
    prop_oneof![6 => script, 2 => holder, 1 => timeline].boxed()
}

/// A whole behavior: the root's diagram, with boxes nesting 0–3 levels deeper.
pub(crate) fn raw_behavior() -> impl Strategy<Value = RawDiagram> {
    (0..=3u32).prop_flat_map(|depth| raw_diagram(raw_box(depth), 1..=3))
}
