//! Arbitrary behavior models for the property tests, for the XAR round trip
//! (`xar_proptest`) and the split round trip (`split_proptest`).
//!
//! The strategy builds arbitrary models: boxes nested up to 3 levels, ports and parameters
//! with arbitrary Unicode strings (quotes, newlines, `]]>`, `&`, `<`, names of the split
//! format's files, ...), links between existing ports in the right direction, timelines
//! with layers, keyframes, curves, keys and tangents, every `Option` field `Some` or `None`,
//! and [`Extras`] with unknown attributes, unknown children (`<foo a="1"/>`, comments, PIs,
//! CDATA), element-name spellings and child orders the reader records.
//!
//! What "valid" means here (for [`Target::Xar`] the generator only makes such models):
//! - box ids unique and non-zero within a diagram, port ids unique within a box (one id space
//!   for inputs, outputs and parameters); links from a source (parent input, child output) to
//!   a sink (parent output, child input, child parameter);
//! - floats finite; `Timeline@fps` not negative;
//! - strings hold only characters XML 1.0 can carry (`Char` production: tab, LF, CR,
//!   U+0020..U+D7FF, U+E000..U+FFFD, U+10000..). Other control characters have no XML 1.0
//!   spelling at all; see `control_characters_outside_xml_are_written_as_references` in
//!   `xar_proptest.rs` for what the writer does with them;
//! - script code holds no CR: code lives in CDATA, where XML normalises line ends, so a CR
//!   (alone or in CRLF) reads back as LF. Attribute values, text elements (`bitmap`,
//!   `dialogFile`) and verbatim raw XML keep CR.
//! - `Extras::order` is in the form the reader records: empty when the children are in
//!   canonical order without unknown children, else the full document order.
//!
//! [`Target::Split`] keeps the structural rules (ids, links: `from_tree` checks the behavior
//! as XAR) and adds what the split format keeps although the XAR reader never records it.

use std::collections::HashSet;

use choreo_xar::*;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

/// Which round trip the models are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `write_xar` -> `read_xar`: only models the reader can give back (see the module doc).
    Xar,
    /// `to_tree` -> `from_tree`: the XAR models, and also child orders not in the recorded
    /// form, extras records kept although empty, `name` spelled `NAME` on any element, CR in
    /// script code, raw script content that does not match the code, unknown children in
    /// `content`.
    Split,
}

// ---------------------------------------------------------------- strings

/// Whether XML 1.0 can hold `c` (the `Char` production).
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// One piece of a generated string: a character or a fragment that is hard on escaping.
fn piece(cr: bool) -> impl Strategy<Value = String> {
    let specials: Vec<&'static str> = [
        "\"",
        "'",
        "&",
        "<",
        ">",
        "\n",
        "\t",
        "]]>",
        "]]",
        "<![CDATA[",
        "&amp;",
        "&#x0A;",
        "-->",
        "<!--",
        "\\",
        "#",
        "{}",
        "é",
        "€",
        "😀",
        "\u{FFFD}",
        "\u{E000}",
        "\u{85}",
        "\u{2028}",
        " ",
        "  ",
        "\r\n",
        "\r",
    ]
    .into_iter()
    .filter(|s| cr || !s.contains('\r'))
    .collect();
    prop_oneof![
        6 => prop::char::range(' ', '~').prop_map(String::from),
        3 => select(specials).prop_map(String::from),
        1 => any::<char>()
            .prop_filter("XML 1.0 Char", move |c| is_xml_char(*c) && (cr || *c != '\r'))
            .prop_map(String::from),
    ]
}

/// An arbitrary string XML can hold.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::collection::vec(piece(true), 0..8).prop_map(|v| v.concat()),
        // Names the split format gives a meaning to.
        1 => select(vec![
            "box.toml",
            "behavior.toml",
            "script.py",
            "links.txt",
            "parent",
            "Say Text",
            ".",
        ])
        .prop_map(String::from),
    ]
}

/// Script code: with CR only when `cr` (line ends in CDATA are normalised to LF).
fn code(cr: bool) -> impl Strategy<Value = String> {
    prop::collection::vec(piece(cr), 0..16).prop_map(|v| v.concat())
}

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => select(vec![0.0, -0.0, 1.0, -13.6000003815, 4.82967e-06, 70.7107, 1e16, -1e-300]),
        2 => -1000.0..1000.0f64,
        1 => (-4000i32..4000).prop_map(|v| f64::from(v) / 8.0),
        1 => any::<f64>().prop_filter("finite", |v| v.is_finite()),
    ]
}

fn opt<S: Strategy>(s: S) -> impl Strategy<Value = Option<S::Value>> {
    prop::option::weighted(0.6, s)
}

/// `&`, `<`, `>` escaped for character data inside generated raw XML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

// ---------------------------------------------------------------- extras

/// What to put in an element's [`Extras`], before it is shaped as the reader records it.
#[derive(Debug, Clone, Default)]
struct ExtrasGen {
    attributes: Vec<(String, String)>,
    children: Vec<(Index, String)>,
    upper_case_name: bool,
    /// Split only: a child order as it comes, not in the form the reader records.
    free_order: Option<Vec<ChildKind>>,
    /// Split only: `name` spelled `NAME`, whatever the element.
    name_spelled: bool,
    /// Split only: the record is kept even when it holds nothing.
    keep_empty: bool,
}

/// Unknown children as they appear in real files or could appear in future ones.
fn raw_child() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<foo a=\"1\" />".to_string()),
        Just("<foo a='1'/>".to_string()),
        Just("<!-- c -->".to_string()),
        Just("<?editor hint?>".to_string()),
        Just("<![CDATA[raw ]] text]]>".to_string()),
        text().prop_map(|t| format!("<note lang=\"en\">{}<b/></note>", escape(&t))),
        text().prop_map(|t| format!("<!--{}-->", t.replace('-', "_"))),
        // Stray text, as the reader keeps it: escaped, without whitespace around it.
        text()
            .prop_map(|t| escape(t.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))))
            .prop_filter("not empty", |t| !t.is_empty()),
    ]
}

fn extras_gen(target: Target) -> BoxedStrategy<ExtrasGen> {
    let names = vec!["zz", "extra_attr", "data-v", "q:x", "Future"];
    let name = prop_oneof![select(names).prop_map(String::from), "zz[a-z]{0,3}"];
    let valid = prop_oneof![
        5 => Just(ExtrasGen::default()),
        1 => (
            prop::collection::vec((name, text()), 0..3),
            prop::collection::vec((any::<Index>(), raw_child()), 0..3),
            prop::bool::weighted(0.3),
        )
            .prop_map(|(attributes, children, upper_case_name)| ExtrasGen {
                attributes,
                children,
                upper_case_name,
                ..ExtrasGen::default()
            }),
    ];
    match target {
        Target::Xar => valid.boxed(),
        Target::Split => (
            valid,
            prop::option::weighted(0.2, prop::collection::vec(select(ChildKind::ALL), 0..4)),
            prop::bool::weighted(0.1),
            prop::bool::weighted(0.1),
        )
            .prop_map(|(g, free_order, name_spelled, keep_empty)| ExtrasGen {
                free_order,
                name_spelled,
                keep_empty,
                ..g
            })
            .boxed(),
    }
}

/// Builds [`Extras`] the way the reader records them for an element named `name` whose known
/// children, in document order, are `known` (then applies the split-only parts of `g`).
fn shape_extras(
    g: &ExtrasGen,
    name: &str,
    known: Vec<ChildKind>,
    canonical: &[ChildKind],
) -> Extras {
    let mut order: Vec<(ChildKind, Option<&str>)> = known.into_iter().map(|k| (k, None)).collect();
    for (at, raw) in &g.children {
        let pos = at.index(order.len() + 1);
        order.insert(pos, (ChildKind::Unknown, Some(raw.as_str())));
    }
    // Two pieces of stray text side by side read back as one: keep the first.
    let is_text = |r: Option<&str>| r.is_some_and(|r| !r.starts_with('<'));
    let mut i = 1;
    while i < order.len() {
        if is_text(order[i].1) && is_text(order[i - 1].1) {
            order.remove(i);
        } else {
            i += 1;
        }
    }
    let mut data = ExtraData::default();
    let mut seen = HashSet::new();
    for (n, v) in &g.attributes {
        if seen.insert(n.clone()) {
            data.attributes.push((n.clone(), v.clone()));
        }
    }
    data.children = order
        .iter()
        .filter_map(|(_, r)| r.map(str::to_string))
        .collect();
    let rank = |k: ChildKind| canonical.iter().position(|c| *c == k);
    let mut last = 0;
    let in_order = order.iter().all(|(k, _)| match rank(*k) {
        Some(r) if r >= last => {
            last = r;
            true
        }
        _ => false,
    });
    if !in_order {
        data.order = order.iter().map(|(k, _)| *k).collect();
    }
    let upper = name.to_uppercase();
    if g.upper_case_name && upper != name {
        data.spelling = Some(upper);
    }
    if let Some(free) = &g.free_order {
        data.order.clone_from(free);
    }
    if g.name_spelled {
        data.attribute_spellings
            .push(("name".into(), "NAME".into()));
    }
    let mut e = Extras::default();
    if data != ExtraData::default() || g.keep_empty {
        *e.get_mut() = data;
    }
    e
}

/// Two pieces of stray text side by side in `data`'s document order read back as one (as in
/// [`shape_extras`]): keeps the first. For an order that lost the known children between
/// them.
fn drop_adjacent_text(data: &mut ExtraData) {
    let is_text = |raw: &str| !raw.starts_with('<');
    let (mut at, mut child, mut prev_text) = (0, 0, false);
    while at < data.order.len() {
        if data.order[at] != ChildKind::Unknown {
            prev_text = false;
            at += 1;
            continue;
        }
        let text = data.children.get(child).is_some_and(|raw| is_text(raw));
        if text && prev_text {
            data.order.remove(at);
            data.children.remove(child);
            continue;
        }
        prev_text = text;
        at += 1;
        child += 1;
    }
}

/// [`shape_extras`] for an element of kind `kind`.
fn extras_of(g: &ExtrasGen, kind: ChildKind, known: Vec<ChildKind>) -> Extras {
    shape_extras(g, kind.element_name(), known, kind.canonical_children())
}

fn repeat(kind: ChildKind, n: usize) -> impl Iterator<Item = ChildKind> {
    std::iter::repeat_n(kind, n)
}

// ---------------------------------------------------------------- leaves

fn port<N: std::fmt::Debug + Clone + 'static>(
    target: Target,
    natures: &'static [N],
    kind: ChildKind,
) -> impl Strategy<Value = Port<N>> {
    (
        (
            text(),
            select(PortType::ALL),
            opt(any::<i32>()),
            select(natures),
        ),
        (opt(text()), opt(any::<bool>()), opt(text()), -3..40i32),
        extras_gen(target),
    )
        .prop_map(
            move |((name, port_type, type_size, nature), (stm, inner, tooltip, id), g)| Port {
                name,
                port_type,
                type_size,
                nature,
                stm_value_name: stm,
                inner,
                tooltip,
                id,
                extras: extras_of(&g, kind, Vec::new()),
            },
        )
}

fn choice(target: Target) -> impl Strategy<Value = Choice> {
    (text(), extras_gen(target)).prop_map(|(value, g)| Choice {
        value,
        extras: extras_of(&g, ChildKind::Choice, Vec::new()),
    })
}

fn parameter(target: Target) -> impl Strategy<Value = Parameter> {
    (
        (
            text(),
            opt(any::<bool>()),
            select(ContentType::ALL),
            opt(text()),
            opt(text()),
        ),
        (
            opt(finite()),
            opt(finite()),
            opt(any::<bool>()),
            opt(any::<bool>()),
            opt(text()),
        ),
        (
            -3..40i32,
            prop::collection::vec(choice(target), 0..3),
            extras_gen(target),
        ),
    )
        .prop_map(
            |(
                (name, inherits, content_type, value, default_value),
                (min, max, custom_choice, password, tooltip),
                (id, choices, g),
            )| {
                let known = repeat(ChildKind::Choice, choices.len()).collect();
                Parameter {
                    name,
                    inherits_from_parent: inherits,
                    content_type,
                    value,
                    default_value,
                    min,
                    max,
                    custom_choice,
                    password,
                    tooltip,
                    id,
                    choices,
                    extras: extras_of(&g, ChildKind::Parameter, known),
                }
            },
        )
}

fn resource(target: Target) -> impl Strategy<Value = Resource> {
    (
        text(),
        prop_oneof![
            select(vec![
                "Lock",
                "Stop on demand",
                "Pause on demand (beta)",
                "Callback on demand"
            ])
            .prop_map(String::from),
            text()
        ],
        opt(any::<i32>()),
        extras_gen(target),
    )
        .prop_map(|(name, lock_type, timeout, g)| Resource {
            name,
            lock_type,
            timeout,
            extras: extras_of(&g, ChildKind::Resource, Vec::new()),
        })
}

/// The comment the stock Choice box has instead of code.
const PLUGIN_MAGIC: &str = "<!-- This is generated at runtime, plugin magic -->";

fn script(target: Target) -> impl Strategy<Value = Script> {
    let magic = Just((String::new(), Some(PLUGIN_MAGIC.to_string())));
    let code_and_raw = match target {
        Target::Xar => prop_oneof![
            4 => code(false).prop_map(|code| (code, None)),
            1 => magic,
        ]
        .boxed(),
        Target::Split => prop_oneof![
            4 => code(true).prop_map(|code| (code, None)),
            1 => magic,
            // Raw content that the code no longer matches.
            1 => (code(true), select(vec![PLUGIN_MAGIC, "  <![CDATA[x]]>  "]))
                .prop_map(|(code, raw)| (code, Some(raw.to_string()))),
        ]
        .boxed(),
    };
    let content = (code_and_raw, extras_gen(target)).prop_map(move |((code, raw), mut g)| {
        if target == Target::Xar {
            // `content` is read as text: unknown children of it are part of the code.
            g.children.clear();
        }
        ScriptContent {
            code,
            raw,
            extras: extras_of(&g, ChildKind::Content, Vec::new()),
        }
    });
    (
        opt(select(ScriptLanguage::ALL)),
        opt(content),
        extras_gen(target),
    )
        .prop_map(|(language, content, g)| {
            let known = content.iter().map(|_| ChildKind::Content).collect();
            Script {
                language,
                extras: extras_of(&g, ChildKind::Script, known),
                content,
            }
        })
}

fn plugin_content() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (text(), text()).prop_map(|(a, b)| {
            format!(
                "<pluginContent>\n  <text>{}</text>\n\t<english><![CDATA[{}]]></english>  </pluginContent>",
                escape(&a),
                b.replace("]]>", "]] >")
            )
        }),
        1 => Just("<pluginContent/>".to_string()),
    ]
}

fn tangent(target: Target) -> impl Strategy<Value = Tangent> {
    (
        select(vec![TangentSide::Left, TangentSide::Right]),
        opt(prop_oneof![Just("bezier".to_string()), text()]),
        finite(),
        finite(),
        extras_gen(target),
    )
        .prop_map(|(side, interp_type, a, o, g)| Tangent {
            side,
            interp_type,
            abscissa_param: a,
            ordinate_param: o,
            extras: extras_of(&g, ChildKind::Tangent, Vec::new()),
        })
}

fn key(target: Target) -> impl Strategy<Value = Key> {
    (
        any::<i32>(),
        finite(),
        opt(any::<bool>()),
        opt(any::<bool>()),
        prop::collection::vec(tangent(target), 0..3),
        extras_gen(target),
    )
        .prop_map(|(frame, value, smooth, symmetrical, tangents, g)| Key {
            frame,
            value,
            smooth,
            symmetrical,
            extras: extras_of(
                &g,
                ChildKind::Key,
                repeat(ChildKind::Tangent, tangents.len()).collect(),
            ),
            tangents,
        })
}

fn curve(target: Target) -> impl Strategy<Value = ActuatorCurve> {
    (
        (opt(text()), text(), opt(any::<bool>()), opt(any::<bool>())),
        (opt(-1..2i32), opt(any::<bool>())),
        prop::collection::vec(key(target), 0..4),
        extras_gen(target),
    )
        .prop_map(
            |((name, actuator, recordable, mute), (unit, always_visible), keys, g)| ActuatorCurve {
                name,
                actuator,
                recordable,
                mute,
                unit,
                always_visible,
                extras: extras_of(
                    &g,
                    ChildKind::ActuatorCurve,
                    repeat(ChildKind::Key, keys.len()).collect(),
                ),
                keys,
            },
        )
}

fn actuator_list(target: Target) -> impl Strategy<Value = ActuatorList> {
    (
        opt(prop_oneof![
            select(vec!["Nao", "nao", "juliette", ""]).prop_map(String::from),
            text()
        ]),
        prop::collection::vec(curve(target), 0..3),
        extras_gen(target),
    )
        .prop_map(|(model, curves, g)| ActuatorList {
            model,
            extras: extras_of(
                &g,
                ChildKind::ActuatorList,
                repeat(ChildKind::ActuatorCurve, curves.len()).collect(),
            ),
            curves,
        })
}

// ---------------------------------------------------------------- boxes and diagrams

/// Links are generated with arbitrary numbers, then mapped onto real sources and sinks when
/// the enclosing box is complete (see [`fix_box`]).
fn link_seed(target: Target) -> impl Strategy<Value = Link> {
    (any::<u32>(), any::<u32>(), extras_gen(target)).prop_map(|(a, b, g)| Link {
        input_owner: 0,
        index_of_input: i32::try_from(a >> 1).unwrap(),
        output_owner: 0,
        index_of_output: i32::try_from(b >> 1).unwrap(),
        extras: extras_of(&g, ChildKind::Link, Vec::new()),
    })
}

fn diagram(target: Target, depth: u32) -> BoxedStrategy<Diagram> {
    let boxes = if depth == 0 {
        Just(Vec::new()).boxed()
    } else {
        prop::collection::vec(box_def(target, depth - 1), 0..4).boxed()
    };
    (
        opt(finite()),
        boxes,
        prop::collection::vec(link_seed(target), 0..5),
        extras_gen(target),
    )
        .prop_map(|(scale, boxes, links, g)| {
            let known = repeat(ChildKind::Box, boxes.len())
                .chain(repeat(ChildKind::Link, links.len()))
                .collect();
            Diagram {
                scale,
                extras: extras_of(&g, ChildKind::Diagram, known),
                boxes,
                links,
            }
        })
        .boxed()
}

fn keyframe(target: Target, depth: u32) -> impl Strategy<Value = BehaviorKeyframe> {
    (
        text(),
        any::<i32>(),
        opt(text()),
        opt(diagram(target, depth)),
        extras_gen(target),
    )
        .prop_map(|(name, index, bitmap, diagram, g)| BehaviorKeyframe {
            name,
            index,
            bitmap,
            extras: extras_of(
                &g,
                ChildKind::BehaviorKeyframe,
                diagram.iter().map(|_| ChildKind::Diagram).collect(),
            ),
            diagram,
        })
}

fn layer(target: Target, depth: u32) -> impl Strategy<Value = BehaviorLayer> {
    (
        text(),
        opt(any::<bool>()),
        prop::collection::vec(keyframe(target, depth), 0..3),
        extras_gen(target),
    )
        .prop_map(|(name, mute, keyframes, g)| BehaviorLayer {
            name,
            mute,
            extras: extras_of(
                &g,
                ChildKind::BehaviorLayer,
                repeat(ChildKind::BehaviorKeyframe, keyframes.len()).collect(),
            ),
            keyframes,
        })
}

fn timeline(target: Target, depth: u32) -> impl Strategy<Value = Timeline> {
    // The flow-diagram holder Choregraphe writes around every diagram box, with or without
    // its `enable="0"`, and with extras.
    let holder = (prop::bool::ANY, diagram(target, depth), extras_gen(target)).prop_map(
        |(explicit, d, g)| {
            let mut t = Timeline::holder(d);
            t.enable = explicit.then_some(false);
            t.extras = extras_of(&g, ChildKind::Timeline, vec![ChildKind::BehaviorLayer]);
            t
        },
    );
    let general = (
        (
            opt(any::<bool>()),
            opt(0..200i32),
            opt(any::<i32>()),
            opt(any::<i32>()),
            opt(any::<i32>()),
        ),
        (
            opt(select(ResourcesAcquisition::ALL)),
            opt(finite()),
            prop::bool::weighted(0.2),
        ),
        (
            prop::collection::vec(layer(target, depth), 0..3),
            opt(actuator_list(target)),
            extras_gen(target),
        ),
    )
        .prop_map(
            |(
                (enable, fps, start_frame, end_frame, size),
                (resources_acquisition, scale, watches),
                (layers, actuator_list, g),
            )| {
                let known = repeat(ChildKind::Watches, usize::from(watches))
                    .chain(repeat(ChildKind::BehaviorLayer, layers.len()))
                    .chain(actuator_list.iter().map(|_| ChildKind::ActuatorList))
                    .collect();
                Timeline {
                    enable,
                    fps,
                    start_frame,
                    end_frame,
                    size,
                    resources_acquisition,
                    scale,
                    watches,
                    extras: extras_of(&g, ChildKind::Timeline, known),
                    layers,
                    actuator_list,
                }
            },
        );
    prop_oneof![holder, general]
}

/// Gives `ids` distinct values (and non-zero ones when `no_zero`), moving repeats upwards.
fn make_unique<'a>(ids: impl Iterator<Item = &'a mut i32>, no_zero: bool) {
    let mut seen = HashSet::new();
    for id in ids {
        while seen.contains(id) || (no_zero && *id == 0) {
            *id = id.wrapping_add(1);
        }
        seen.insert(*id);
    }
}

/// Makes a generated box valid: unique port ids, unique child box ids, and every link of its
/// diagrams mapped onto an existing source and sink (links are dropped when there is none).
fn fix_box(b: &mut BoxDef) {
    make_unique(
        b.inputs
            .iter_mut()
            .map(|p| &mut p.id)
            .chain(b.outputs.iter_mut().map(|p| &mut p.id))
            .chain(b.parameters.iter_mut().map(|p| &mut p.id)),
        false,
    );
    let parent_inputs: Vec<i32> = b.inputs.iter().map(|p| p.id).collect();
    let parent_outputs: Vec<i32> = b.outputs.iter().map(|p| p.id).collect();
    let Some(t) = b.timeline.as_mut() else { return };
    for d in t
        .layers
        .iter_mut()
        .flat_map(|l| l.keyframes.iter_mut())
        .filter_map(|k| k.diagram.as_mut())
    {
        make_unique(d.boxes.iter_mut().map(|c| &mut c.id), true);
        let mut sources: Vec<(i32, i32)> = parent_inputs.iter().map(|&i| (0, i)).collect();
        let mut sinks: Vec<(i32, i32)> = parent_outputs.iter().map(|&o| (0, o)).collect();
        for c in &d.boxes {
            sources.extend(c.outputs.iter().map(|o| (c.id, o.id)));
            sinks.extend(c.inputs.iter().map(|i| (c.id, i.id)));
            sinks.extend(c.parameters.iter().map(|p| (c.id, p.id)));
        }
        if sources.is_empty() || sinks.is_empty() {
            // The links' places in a recorded child order go with them.
            if !d.links.is_empty() {
                d.links.clear();
                if let Some(data) = d.extras.get() {
                    let mut data = data.clone();
                    data.order.retain(|k| *k != ChildKind::Link);
                    drop_adjacent_text(&mut data);
                    if !data.order.contains(&ChildKind::Unknown) {
                        data.order.clear();
                    }
                    d.extras = Extras::default();
                    if data != ExtraData::default() {
                        *d.extras.get_mut() = data;
                    }
                }
            }
            continue;
        }
        for l in &mut d.links {
            let pick = |v: i32, n: usize| usize::try_from(v).unwrap() % n;
            let (dst_box, dst_port) = sinks[pick(l.index_of_input, sinks.len())];
            let (src_box, src_port) = sources[pick(l.index_of_output, sources.len())];
            l.input_owner = dst_box;
            l.index_of_input = dst_port;
            l.output_owner = src_box;
            l.index_of_output = src_port;
        }
    }
}

fn box_def(target: Target, depth: u32) -> BoxedStrategy<BoxDef> {
    let attributes = (
        (
            text(),
            any::<i32>(),
            opt(any::<i32>()),
            opt(text()),
            opt(any::<i32>()),
            opt(any::<i32>()),
        ),
        (
            opt(text()),
            opt(prop_oneof![3 => Just(String::new()), 1 => text()]),
            opt(prop_oneof![
                3 => select(vec!["0", "1"]).prop_map(String::from),
                1 => text(),
            ]),
        ),
    );
    let content = (
        opt(text()),
        prop::collection::vec(text(), 0..3),
        opt(script(target)),
        opt(plugin_content()),
    );
    let ports = (
        prop::collection::vec(port(target, InputNature::ALL, ChildKind::Input), 0..4),
        prop::collection::vec(port(target, OutputNature::ALL, ChildKind::Output), 0..3),
        prop::collection::vec(parameter(target), 0..3),
    );
    // Boxes that may hold children mostly do, so that trees get deep.
    let timeline_weight = if depth > 0 { 0.85 } else { 0.5 };
    let rest = (
        prop::option::weighted(timeline_weight, timeline(target, depth)),
        prop::collection::vec(resource(target), 0..3),
        extras_gen(target),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.1),
    );
    (attributes, content, ports, rest)
        .prop_map(
            |(
                ((name, id, localization, tooltip, x, y), (plugin, robot, bitmap_expanded)),
                (dialog_file, bitmaps, script, plugin_content),
                (inputs, outputs, parameters),
                (timeline, resources, g, bitmap_last, name_spelled),
            )| {
                // Known children in document order: canonical, or with the bitmaps last.
                let mut known: Vec<ChildKind> = dialog_file
                    .iter()
                    .map(|_| ChildKind::DialogFile)
                    .chain(repeat(ChildKind::Bitmap, bitmaps.len()))
                    .chain(script.iter().map(|_| ChildKind::Script))
                    .chain(plugin_content.iter().map(|_| ChildKind::PluginContent))
                    .chain(repeat(ChildKind::Input, inputs.len()))
                    .chain(repeat(ChildKind::Output, outputs.len()))
                    .chain(repeat(ChildKind::Parameter, parameters.len()))
                    .chain(timeline.iter().map(|_| ChildKind::Timeline))
                    .chain(repeat(ChildKind::Resource, resources.len()))
                    .collect();
                if bitmap_last {
                    known.retain(|k| *k != ChildKind::Bitmap);
                    known.extend(repeat(ChildKind::Bitmap, bitmaps.len()));
                }
                let mut extras = extras_of(&g, ChildKind::Box, known);
                if name_spelled && !g.name_spelled {
                    extras
                        .get_mut()
                        .attribute_spellings
                        .push(("name".into(), "NAME".into()));
                }
                let mut b = BoxDef {
                    name,
                    id,
                    localization,
                    tooltip,
                    x,
                    y,
                    plugin,
                    robot,
                    bitmap_expanded,
                    dialog_file,
                    bitmaps,
                    script,
                    plugin_content,
                    inputs,
                    outputs,
                    parameters,
                    timeline,
                    resources,
                    extras,
                };
                fix_box(&mut b);
                b
            },
        )
        .boxed()
}

/// Arbitrary whole XAR files for `target`.
pub fn xar_file(target: Target) -> impl Strategy<Value = XarFile> {
    (
        select(vec![RootKind::Project, RootKind::Box]),
        opt(prop_oneof![
            Just(PROJECT_NAMESPACE.to_string()),
            Just("http://www.ald.softbankrobotics.com/schema/choregraphe/project.xsd".to_string()),
            text()
        ]),
        opt(select(vec!["3", "2"]).prop_map(String::from)),
        prop::collection::vec(
            select(vec![
                "<!-- generated -->",
                "<?choregraphe version=\"2.1\"?>",
                "<!---->",
                "<?pi x?>",
            ])
            .prop_map(String::from),
            0..3,
        ),
        select(vec![0u32, 1, 2, 3, 3]).prop_flat_map(move |depth| box_def(target, depth)),
        extras_gen(target),
    )
        .prop_map(
            |(root, namespace, xar_version, prolog, root_box, g)| XarFile {
                root,
                namespace,
                xar_version,
                prolog,
                root_box,
                extras: shape_extras(
                    &g,
                    root.element_name(),
                    vec![ChildKind::Box],
                    root.canonical_children(),
                ),
            },
        )
}

// ---------------------------------------------------------------- running

/// Runs `f` in a thread with a large stack: building the value trees of this deeply nested
/// strategy takes more than the 2 MiB of a test thread in debug builds.
fn with_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let handle = std::thread::Builder::new()
        .name("proptest".into())
        .stack_size(256 << 20)
        .spawn(f)
        .expect("spawn the property thread");
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Checks `property` on `cases` generated models for `target` (`PROPTEST_CASES=N` runs more
/// or fewer).
pub fn check_models(
    target: Target,
    cases: u32,
    property: fn(&XarFile) -> std::result::Result<(), TestCaseError>,
) {
    with_big_stack(move || {
        let cases = std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(cases);
        let config = ProptestConfig {
            cases,
            // The failing model is in the panic message; there is no source file to store
            // regressions beside (the runner is not the `proptest!` macro).
            failure_persistence: None,
            ..ProptestConfig::default()
        };
        let mut runner = TestRunner::new(config);
        if let Err(e) = runner.run(&xar_file(target), |m| property(&m)) {
            panic!("{e}");
        }
    });
}

// ---------------------------------------------------------------- coverage

/// Shape statistics of generated models, so a generator that stopped producing deep trees,
/// links or extras fails loudly instead of testing less.
#[derive(Debug, Default)]
pub struct Coverage {
    pub models: usize,
    pub boxes: usize,
    pub max_depth: usize,
    pub links: usize,
    pub links_to_parameters: usize,
    pub pass_through_links: usize,
    pub keys: usize,
    pub tangents: usize,
    pub unknown_children: usize,
    pub recorded_orders: usize,
    pub spellings: usize,
    pub attribute_spellings: usize,
    pub empty_records: usize,
    pub motion_timelines: usize,
    pub plain_holders: usize,
    pub raw_contents: usize,
    pub codes_with_cr: usize,
}

impl Coverage {
    /// The statistics of 300 models for `target`, generated deterministically.
    pub fn of(target: Target) -> Coverage {
        with_big_stack(move || {
            let mut runner = TestRunner::deterministic();
            let strategy = xar_file(target);
            let mut c = Coverage::default();
            for _ in 0..300 {
                let m = strategy.new_tree(&mut runner).expect("a model").current();
                c.models += 1;
                c.count_extras(&m.extras);
                c.survey(&m.root_box, 0);
            }
            c
        })
    }

    /// Asserts that every shape counted here was generated often enough.
    pub fn assert_covers(&self, shapes: &[(&str, usize)]) {
        assert!(self.max_depth >= 3, "{self:?}");
        assert!(self.boxes >= 2 * self.models, "{self:?}");
        for (what, n) in shapes {
            assert!(*n >= 20, "too few {what} generated: {self:?}");
        }
    }

    fn count_extras(&mut self, e: &Extras) {
        self.unknown_children += e.children().len();
        self.recorded_orders += usize::from(!e.order().is_empty());
        self.spellings += usize::from(e.spelling().is_some());
        let data = e.get();
        self.attribute_spellings += data.map_or(0, |d| d.attribute_spellings.len());
        self.empty_records += usize::from(data.is_some_and(|d| *d == ExtraData::default()));
    }

    fn survey(&mut self, b: &BoxDef, depth: usize) {
        self.boxes += 1;
        self.max_depth = self.max_depth.max(depth);
        self.count_extras(&b.extras);
        for p in &b.inputs {
            self.count_extras(&p.extras);
        }
        if let Some(content) = b.script.as_ref().and_then(|s| s.content.as_ref()) {
            self.raw_contents += usize::from(content.raw.is_some());
            self.codes_with_cr += usize::from(content.code.contains('\r'));
        }
        let Some(t) = &b.timeline else { return };
        self.motion_timelines += usize::from(t.is_enabled());
        self.plain_holders += usize::from(
            b.diagrams()
                .next()
                .is_some_and(|d| *t == Timeline::holder(d.clone())),
        );
        self.count_extras(&t.extras);
        for k in t
            .actuator_list
            .iter()
            .flat_map(|l| &l.curves)
            .flat_map(|c| &c.keys)
        {
            self.keys += 1;
            self.tangents += k.tangents.len();
        }
        for d in b.diagrams() {
            self.count_extras(&d.extras);
            for l in &d.links {
                self.links += 1;
                let to_param = l.input_owner != 0
                    && d.box_by_id(l.input_owner).is_some_and(|x| {
                        matches!(x.port(l.index_of_input), Some(PortRef::Parameter(_)))
                    });
                self.links_to_parameters += usize::from(to_param);
                self.pass_through_links += usize::from(l.input_owner == 0 && l.output_owner == 0);
            }
            for child in &d.boxes {
                self.survey(child, depth + 1);
            }
        }
    }
}
