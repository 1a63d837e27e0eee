//! Property: for any valid XAR model, `read_xar(write_xar(m)) == m`.
//!
//! The strategy builds arbitrary models: boxes nested up to 3 levels, ports and parameters
//! with arbitrary Unicode strings (quotes, newlines, `]]>`, `&`, `<`, ...), links between
//! existing ports in the right direction, timelines with layers, keyframes, curves, keys and
//! tangents, every `Option` field `Some` or `None`, and [`Extras`] with unknown attributes,
//! unknown children (`<foo a="1"/>`, comments, PIs, CDATA), element-name spellings and
//! child orders the reader records.
//!
//! What "valid" means here (the generator only makes such models):
//! - box ids unique and non-zero within a diagram, port ids unique within a box (one id space
//!   for inputs, outputs and parameters); links from a source (parent input, child output) to
//!   a sink (parent output, child input, child parameter);
//! - floats finite; `Timeline@fps` not negative;
//! - strings hold only characters XML 1.0 can carry (`Char` production: tab, LF, CR,
//!   U+0020..U+D7FF, U+E000..U+FFFD, U+10000..). Other control characters have no XML 1.0
//!   spelling at all; see `control_characters_outside_xml_are_written_as_references` for
//!   what the writer does with them;
//! - script code holds no CR: code lives in CDATA, where XML normalises line ends, so a CR
//!   (alone or in CRLF) reads back as LF. Attribute values, text elements (`bitmap`,
//!   `dialogFile`) and verbatim raw XML keep CR.
//! - `Extras::order` is in the form the reader records: empty when the children are in
//!   canonical order without unknown children, else the full document order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashSet;

use choreo_xar::*;
use proptest::prelude::*;
use proptest::sample::{Index, select};

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
    prop::collection::vec(piece(true), 0..8).prop_map(|v| v.concat())
}

/// Script code: anything but CR (line ends in CDATA are normalised to LF).
fn code() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(false), 0..16).prop_map(|v| v.concat())
}

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => select(vec![0.0, -0.0, 1.0, -13.6000003815, 4.82967e-06, 70.7107, 1e16, -1e-300]),
        2 => -1000.0..1000.0f64,
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

fn extras_gen() -> impl Strategy<Value = ExtrasGen> {
    let names = vec!["zz", "extra_attr", "data-v", "q:x", "Future"];
    prop_oneof![
        5 => Just(ExtrasGen::default()),
        1 => (
            prop::collection::vec((select(names), text()), 0..3),
            prop::collection::vec((any::<Index>(), raw_child()), 0..3),
            prop::bool::weighted(0.3),
        )
            .prop_map(|(attributes, children, upper_case_name)| ExtrasGen {
                attributes: attributes.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
                children,
                upper_case_name,
            }),
    ]
}

/// Builds [`Extras`] the way the reader records them for an element named `name` whose known
/// children, in document order, are `known`.
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
    let mut e = Extras::default();
    if data != ExtraData::default() {
        *e.get_mut() = data;
    }
    e
}

mod canonical {
    use choreo_xar::ChildKind as K;
    pub const ROOT: &[K] = &[K::Box];
    pub const BOX: &[K] = &[
        K::DialogFile,
        K::Bitmap,
        K::Script,
        K::PluginContent,
        K::Input,
        K::Output,
        K::Parameter,
        K::Timeline,
        K::Resource,
    ];
    pub const SCRIPT: &[K] = &[K::Content];
    pub const PARAMETER: &[K] = &[K::Choice];
    pub const TIMELINE: &[K] = &[K::Watches, K::BehaviorLayer, K::ActuatorList];
    pub const LAYER: &[K] = &[K::BehaviorKeyframe];
    pub const KEYFRAME: &[K] = &[K::Diagram];
    pub const DIAGRAM: &[K] = &[K::Box, K::Link];
    pub const ACTUATOR_LIST: &[K] = &[K::ActuatorCurve];
    pub const CURVE: &[K] = &[K::Key];
    pub const KEY: &[K] = &[K::Tangent];
    pub const LEAF: &[K] = &[];
}

fn repeat(kind: ChildKind, n: usize) -> impl Iterator<Item = ChildKind> {
    std::iter::repeat_n(kind, n)
}

// ---------------------------------------------------------------- leaves

fn port<N: std::fmt::Debug + Clone + 'static>(
    natures: &'static [N],
    label: &'static str,
) -> impl Strategy<Value = Port<N>> {
    (
        (
            text(),
            select(PortType::ALL),
            opt(any::<i32>()),
            select(natures),
        ),
        (opt(text()), opt(any::<bool>()), opt(text()), -3..40i32),
        extras_gen(),
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
                extras: shape_extras(&g, label, Vec::new(), canonical::LEAF),
            },
        )
}

fn choice() -> impl Strategy<Value = Choice> {
    (text(), extras_gen()).prop_map(|(value, g)| Choice {
        value,
        extras: shape_extras(&g, "Choice", Vec::new(), canonical::LEAF),
    })
}

fn parameter() -> impl Strategy<Value = Parameter> {
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
            prop::collection::vec(choice(), 0..3),
            extras_gen(),
        ),
    )
        .prop_map(
            |(
                (name, inherits, content_type, value, default_value),
                (min, max, custom_choice, password, tooltip),
                (id, choices, g),
            )| {
                let extras = shape_extras(
                    &g,
                    "Parameter",
                    repeat(ChildKind::Choice, choices.len()).collect(),
                    canonical::PARAMETER,
                );
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
                    extras,
                }
            },
        )
}

fn resource() -> impl Strategy<Value = Resource> {
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
        extras_gen(),
    )
        .prop_map(|(name, lock_type, timeout, g)| Resource {
            name,
            lock_type,
            timeout,
            extras: shape_extras(&g, "Resource", Vec::new(), canonical::LEAF),
        })
}

fn script() -> impl Strategy<Value = Script> {
    let content = (
        prop_oneof![
            4 => code().prop_map(|code| (code, None)),
            1 => Just((String::new(), Some("<!-- This is generated at runtime, plugin magic -->".to_string()))),
        ],
        extras_gen(),
    )
        .prop_map(|((code, raw), mut g)| {
            // `content` is read as text: unknown children of it are part of the code.
            g.children.clear();
            ScriptContent {
                code,
                raw,
                extras: shape_extras(&g, "content", Vec::new(), canonical::LEAF),
            }
        });
    (opt(select(ScriptLanguage::ALL)), opt(content), extras_gen()).prop_map(
        |(language, content, g)| {
            let known = content.iter().map(|_| ChildKind::Content).collect();
            Script {
                language,
                extras: shape_extras(&g, "script", known, canonical::SCRIPT),
                content,
            }
        },
    )
}

fn plugin_content() -> impl Strategy<Value = String> {
    (text(), text()).prop_map(|(a, b)| {
        format!(
            "<pluginContent>\n  <text>{}</text>\n\t<english><![CDATA[{}]]></english>  </pluginContent>",
            escape(&a),
            b.replace("]]>", "]] >")
        )
    })
}

fn tangent() -> impl Strategy<Value = Tangent> {
    (
        select(vec![TangentSide::Left, TangentSide::Right]),
        opt(prop_oneof![Just("bezier".to_string()), text()]),
        finite(),
        finite(),
        extras_gen(),
    )
        .prop_map(|(side, interp_type, a, o, g)| Tangent {
            side,
            interp_type,
            abscissa_param: a,
            ordinate_param: o,
            extras: shape_extras(&g, "Tangent", Vec::new(), canonical::LEAF),
        })
}

fn key() -> impl Strategy<Value = Key> {
    (
        any::<i32>(),
        finite(),
        opt(any::<bool>()),
        opt(any::<bool>()),
        prop::collection::vec(tangent(), 0..3),
        extras_gen(),
    )
        .prop_map(|(frame, value, smooth, symmetrical, tangents, g)| Key {
            frame,
            value,
            smooth,
            symmetrical,
            extras: shape_extras(
                &g,
                "Key",
                repeat(ChildKind::Tangent, tangents.len()).collect(),
                canonical::KEY,
            ),
            tangents,
        })
}

fn curve() -> impl Strategy<Value = ActuatorCurve> {
    (
        (opt(text()), text(), opt(any::<bool>()), opt(any::<bool>())),
        (opt(-1..2i32), opt(any::<bool>())),
        prop::collection::vec(key(), 0..4),
        extras_gen(),
    )
        .prop_map(
            |((name, actuator, recordable, mute), (unit, always_visible), keys, g)| ActuatorCurve {
                name,
                actuator,
                recordable,
                mute,
                unit,
                always_visible,
                extras: shape_extras(
                    &g,
                    "ActuatorCurve",
                    repeat(ChildKind::Key, keys.len()).collect(),
                    canonical::CURVE,
                ),
                keys,
            },
        )
}

fn actuator_list() -> impl Strategy<Value = ActuatorList> {
    (
        opt(prop_oneof![
            select(vec!["Nao", "nao", "juliette", ""]).prop_map(String::from),
            text()
        ]),
        prop::collection::vec(curve(), 0..3),
        extras_gen(),
    )
        .prop_map(|(model, curves, g)| ActuatorList {
            model,
            extras: shape_extras(
                &g,
                "ActuatorList",
                repeat(ChildKind::ActuatorCurve, curves.len()).collect(),
                canonical::ACTUATOR_LIST,
            ),
            curves,
        })
}

// ---------------------------------------------------------------- boxes and diagrams

/// Links are generated with arbitrary numbers, then mapped onto real sources and sinks when
/// the enclosing box is complete (see [`fix_box`]).
fn link_seed() -> impl Strategy<Value = Link> {
    (any::<u32>(), any::<u32>(), extras_gen()).prop_map(|(a, b, g)| Link {
        input_owner: 0,
        index_of_input: i32::try_from(a >> 1).unwrap(),
        output_owner: 0,
        index_of_output: i32::try_from(b >> 1).unwrap(),
        extras: shape_extras(&g, "Link", Vec::new(), canonical::LEAF),
    })
}

fn diagram(depth: u32) -> BoxedStrategy<Diagram> {
    let boxes = if depth == 0 {
        Just(Vec::new()).boxed()
    } else {
        prop::collection::vec(box_def(depth - 1), 0..4).boxed()
    };
    (
        opt(finite()),
        boxes,
        prop::collection::vec(link_seed(), 0..5),
        extras_gen(),
    )
        .prop_map(|(scale, boxes, links, g)| {
            let known = repeat(ChildKind::Box, boxes.len())
                .chain(repeat(ChildKind::Link, links.len()))
                .collect();
            Diagram {
                scale,
                extras: shape_extras(&g, "Diagram", known, canonical::DIAGRAM),
                boxes,
                links,
            }
        })
        .boxed()
}

fn keyframe(depth: u32) -> impl Strategy<Value = BehaviorKeyframe> {
    (
        text(),
        any::<i32>(),
        opt(text()),
        opt(diagram(depth)),
        extras_gen(),
    )
        .prop_map(|(name, index, bitmap, diagram, g)| BehaviorKeyframe {
            name,
            index,
            bitmap,
            extras: shape_extras(
                &g,
                "BehaviorKeyframe",
                diagram.iter().map(|_| ChildKind::Diagram).collect(),
                canonical::KEYFRAME,
            ),
            diagram,
        })
}

fn layer(depth: u32) -> impl Strategy<Value = BehaviorLayer> {
    (
        text(),
        opt(any::<bool>()),
        prop::collection::vec(keyframe(depth), 0..3),
        extras_gen(),
    )
        .prop_map(|(name, mute, keyframes, g)| BehaviorLayer {
            name,
            mute,
            extras: shape_extras(
                &g,
                "BehaviorLayer",
                repeat(ChildKind::BehaviorKeyframe, keyframes.len()).collect(),
                canonical::LAYER,
            ),
            keyframes,
        })
}

fn timeline(depth: u32) -> impl Strategy<Value = Timeline> {
    let holder = (prop::bool::ANY, diagram(depth), extras_gen()).prop_map(|(explicit, d, g)| {
        let layer = BehaviorLayer {
            name: "behavior_layer1".into(),
            mute: None,
            keyframes: vec![BehaviorKeyframe {
                name: "keyframe1".into(),
                index: 1,
                bitmap: None,
                diagram: Some(d),
                extras: Extras::default(),
            }],
            extras: Extras::default(),
        };
        Timeline {
            enable: explicit.then_some(false),
            extras: shape_extras(
                &g,
                "Timeline",
                vec![ChildKind::BehaviorLayer],
                canonical::TIMELINE,
            ),
            layers: vec![layer],
            ..Default::default()
        }
    });
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
            prop::collection::vec(layer(depth), 0..3),
            opt(actuator_list()),
            extras_gen(),
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
                    extras: shape_extras(&g, "Timeline", known, canonical::TIMELINE),
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

fn box_def(depth: u32) -> BoxedStrategy<BoxDef> {
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
            opt(Just(String::new())),
            opt(select(vec!["0", "1"]).prop_map(String::from)),
        ),
    );
    let content = (
        opt(text()),
        prop::collection::vec(text(), 0..3),
        opt(script()),
        opt(plugin_content()),
    );
    let ports = (
        prop::collection::vec(port(InputNature::ALL, "Input"), 0..4),
        prop::collection::vec(port(OutputNature::ALL, "Output"), 0..3),
        prop::collection::vec(parameter(), 0..3),
    );
    // Boxes that may hold children mostly do, so that trees get deep.
    let timeline_weight = if depth > 0 { 0.85 } else { 0.5 };
    let rest = (
        prop::option::weighted(timeline_weight, timeline(depth)),
        prop::collection::vec(resource(), 0..3),
        extras_gen(),
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
                let mut extras = shape_extras(&g, "Box", known, canonical::BOX);
                if name_spelled {
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

fn xar_file() -> impl Strategy<Value = XarFile> {
    (
        select(vec![RootKind::Project, RootKind::Box]),
        opt(prop_oneof![
            Just(PROJECT_NAMESPACE.to_string()),
            Just("http://www.ald.softbankrobotics.com/schema/choregraphe/project.xsd".to_string()),
            text()
        ]),
        opt(Just("3".to_string())),
        prop::collection::vec(
            select(vec![
                "<!-- generated -->",
                "<?choregraphe version=\"2.1\"?>",
                "<!---->",
            ])
            .prop_map(String::from),
            0..3,
        ),
        select(vec![0u32, 1, 2, 3, 3]).prop_flat_map(box_def),
        extras_gen(),
    )
        .prop_map(|(root, namespace, xar_version, prolog, root_box, g)| {
            let name = root.element_name();
            XarFile {
                root,
                namespace,
                xar_version,
                prolog,
                root_box,
                extras: shape_extras(&g, name, vec![ChildKind::Box], canonical::ROOT),
            }
        })
}

// ---------------------------------------------------------------- properties

/// Runs `property` on `cases` generated models, in a thread with a large stack: building
/// the value trees of this deeply nested strategy takes more than the 2 MiB of a test thread
/// in debug builds.
fn check_models(cases: u32, property: fn(&XarFile) -> std::result::Result<(), TestCaseError>) {
    let handle = std::thread::Builder::new()
        .name("proptest".into())
        .stack_size(256 << 20)
        .spawn(move || {
            // `PROPTEST_CASES=N` runs more (or fewer) cases.
            let cases = std::env::var("PROPTEST_CASES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(cases);
            let config = ProptestConfig {
                cases,
                // The failing model is in the panic message; there is no source file to
                // store regressions beside (the runner is not the `proptest!` macro).
                failure_persistence: None,
                ..ProptestConfig::default()
            };
            let mut runner = proptest::test_runner::TestRunner::new(config);
            if let Err(e) = runner.run(&xar_file(), |m| property(&m)) {
                panic!("{e}");
            }
        })
        .expect("spawn the property thread");
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn written_models_read_back_equal() {
    check_models(256, |model| {
        let written = write_xar(model);
        let parsed = match read_xar("gen.xar", written.as_bytes()) {
            Ok(p) => p,
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{written}"))),
        };
        prop_assert_eq!(&parsed.value, model, "written:\n{}", written);
        // Writing is deterministic and stable.
        prop_assert_eq!(write_xar(&parsed.value), written);
        Ok(())
    });
}

#[test]
fn written_xml_is_well_formed() {
    check_models(64, |model| {
        let written = write_xar(model);
        let opt = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        };
        // Generated unknown attributes use the prefix `q:`; roxmltree checks namespaces, so
        // bind the prefix on the root element before parsing.
        let bound = bind_prefix(&written);
        if let Err(e) = roxmltree::Document::parse_with_options(&bound, opt) {
            return Err(TestCaseError::fail(format!(
                "not well-formed: {e}\n{bound}"
            )));
        }
        Ok(())
    });
}

/// Shape statistics of generated models, so a generator that stopped producing deep trees,
/// links or extras fails loudly instead of testing less.
#[derive(Debug, Default)]
struct Coverage {
    models: usize,
    boxes: usize,
    max_depth: usize,
    links: usize,
    links_to_parameters: usize,
    pass_through_links: usize,
    keys: usize,
    tangents: usize,
    unknown_children: usize,
    recorded_orders: usize,
    spellings: usize,
    motion_timelines: usize,
}

fn count_extras(c: &mut Coverage, e: &Extras) {
    c.unknown_children += e.children().len();
    c.recorded_orders += usize::from(!e.order().is_empty());
    c.spellings += usize::from(e.spelling().is_some());
}

fn survey(c: &mut Coverage, b: &BoxDef, depth: usize) {
    c.boxes += 1;
    c.max_depth = c.max_depth.max(depth);
    count_extras(c, &b.extras);
    let Some(t) = &b.timeline else { return };
    c.motion_timelines += usize::from(t.is_enabled());
    count_extras(c, &t.extras);
    for k in t
        .actuator_list
        .iter()
        .flat_map(|l| &l.curves)
        .flat_map(|c| &c.keys)
    {
        c.keys += 1;
        c.tangents += k.tangents.len();
    }
    for d in b.diagrams() {
        count_extras(c, &d.extras);
        for l in &d.links {
            c.links += 1;
            let to_param = l.input_owner != 0
                && d.box_by_id(l.input_owner).is_some_and(|x| {
                    matches!(x.port(l.index_of_input), Some(PortRef::Parameter(_)))
                });
            c.links_to_parameters += usize::from(to_param);
            c.pass_through_links += usize::from(l.input_owner == 0 && l.output_owner == 0);
        }
        for child in &d.boxes {
            survey(c, child, depth + 1);
        }
    }
}

#[test]
fn generator_covers_the_model() {
    use proptest::strategy::ValueTree;
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let mut runner = proptest::test_runner::TestRunner::deterministic();
            let strategy = xar_file();
            let mut c = Coverage::default();
            for _ in 0..300 {
                let m = strategy.new_tree(&mut runner).expect("a model").current();
                c.models += 1;
                count_extras(&mut c, &m.extras);
                survey(&mut c, &m.root_box, 0);
            }
            c
        })
        .expect("spawn");
    let c = handle
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p));
    println!("{c:#?}");
    assert!(c.max_depth >= 3, "{c:?}");
    assert!(c.boxes >= 2 * c.models, "{c:?}");
    for (what, n) in [
        ("links", c.links),
        ("links to parameters", c.links_to_parameters),
        ("pass-through links", c.pass_through_links),
        ("keys", c.keys),
        ("tangents", c.tangents),
        ("unknown children", c.unknown_children),
        ("recorded orders", c.recorded_orders),
        ("spellings", c.spellings),
        ("motion timelines", c.motion_timelines),
    ] {
        assert!(n >= 20, "too few {what} generated: {c:?}");
    }
}

/// Declares the `q` prefix on the root element of `xml`.
fn bind_prefix(xml: &str) -> String {
    let decl_end = xml.find("?>").map_or(0, |i| i + 2);
    let mut start = decl_end;
    // Skip prolog comments and PIs to the root element's name.
    while let Some(i) = xml[start..].find('<') {
        let at = start + i;
        if xml[at..].starts_with("<!--") {
            start = at + xml[at..].find("-->").unwrap() + 3;
        } else if xml[at..].starts_with("<?") {
            start = at + xml[at..].find("?>").unwrap() + 2;
        } else {
            let name_end = at
                + xml[at..]
                    .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                    .unwrap();
            return format!("{} xmlns:q=\"urn:q\"{}", &xml[..name_end], &xml[name_end..]);
        }
    }
    xml.to_string()
}

// ---------------------------------------------------------------- the escaping rule

#[test]
fn control_characters_outside_xml_are_written_as_references() {
    // XML 1.0 has no spelling for U+0001..U+0008, U+000B, U+000C, U+000E..U+001F, U+FFFE and
    // U+FFFF: raw, they make a file that is not XML, and the reader refuses them as binary
    // data. A model can still hold them (a source may spell them `&#x7;`, which quick-xml and
    // so our reader accept), and the writer writes them as such references, which read back
    // the same. Strict XML 1.0 parsers refuse the references too: the generator keeps to the
    // characters XML can hold.
    let mut f = read_xar(
        "t.xar",
        br#"<ChoregrapheBox xar_version="3"><Box name="root" id="-1" tooltip="bell&#x7;" /></ChoregrapheBox>"#,
    )
    .unwrap()
    .value;
    assert_eq!(f.root_box.tooltip.as_deref(), Some("bell\u{7}"));
    f.root_box.bitmaps = vec!["\u{1}x\u{FFFE}".into()];
    let written = write_xar(&f);
    assert!(written.contains("tooltip=\"bell&#x7;\""), "{written}");
    assert!(
        written.contains("<bitmap>&#x1;x&#xFFFE;</bitmap>"),
        "{written}"
    );
    assert!(!written.chars().any(|c| c < ' ' && c != '\n'), "{written}");
    let again = read_xar("w.xar", written.as_bytes()).unwrap().value;
    assert_eq!(again, f);
    assert!(
        roxmltree::Document::parse(&written).is_err(),
        "roxmltree refuses &#x7;"
    );
    // Raw, they are refused.
    let raw = written.replace("&#x7;", "\u{7}");
    assert_eq!(
        read_xar("raw.xar", raw.as_bytes()).unwrap_err().kind(),
        ErrorKind::NotXml
    );
}

#[test]
fn carriage_returns_survive_where_xml_can_keep_them() {
    let mut f = read_xar(
        "t.xar",
        br#"<ChoregrapheBox xar_version="3"><Box name="root" id="-1" /></ChoregrapheBox>"#,
    )
    .unwrap()
    .value;
    f.root_box.tooltip = Some("a\r\nb\rc".into());
    f.root_box.bitmaps = vec!["x\r\ny\r".into()];
    f.root_box.dialog_file = Some("\r".into());
    f.root_box.script = Some(Script {
        language: Some(ScriptLanguage::Python),
        content: Some(ScriptContent {
            code: "a = 1\r\nb = 2\r".into(),
            ..Default::default()
        }),
        extras: Extras::default(),
    });
    let written = write_xar(&f);
    let back = read_xar("w.xar", written.as_bytes()).unwrap().value;
    assert_eq!(back.root_box.tooltip, f.root_box.tooltip, "{written}");
    assert_eq!(back.root_box.bitmaps, f.root_box.bitmaps, "{written}");
    assert_eq!(
        back.root_box.dialog_file, f.root_box.dialog_file,
        "{written}"
    );
    // CDATA cannot keep a CR: XML turns CRLF and CR into LF before anyone sees the text.
    assert_eq!(back.root_box.code(), "a = 1\nb = 2\n");
}
