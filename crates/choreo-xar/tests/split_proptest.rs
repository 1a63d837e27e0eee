//! Property: any behavior model survives `to_tree` -> `from_tree` unchanged, including
//! extras (unknown attributes, raw children, child order, spellings), absent attributes,
//! raw script content, plugin content, prolog, namespace and root kind.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use choreo_xar::split::{from_tree, is_split_tree, to_tree};
use choreo_xar::*;
use proptest::collection::vec;
use proptest::option::of;
use proptest::prelude::*;

/// Text with the characters the split format must quote or escape.
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-zA-Z0-9 ._#\"{}=\\\\\n\r\t'<>&é-]{0,10}",
        1 => Just(String::new()),
        1 => Just("box.toml".to_string()),
        1 => Just("parent".to_string()),
        1 => Just("Say Text".to_string()),
    ]
    .boxed()
}

fn real() -> BoxedStrategy<f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |v| v.is_finite()),
        Just(-0.0),
        (-4000i32..4000).prop_map(|v| f64::from(v) / 8.0),
    ]
    .boxed()
}

const RAW_CHILDREN: &[&str] = &[
    "<foo a=\"1\"/>",
    "<!-- a comment -->",
    "<bar>t &amp; u</bar>",
    "<?pi data?>",
];

const KINDS: &[ChildKind] = &[
    ChildKind::Unknown,
    ChildKind::Input,
    ChildKind::Script,
    ChildKind::Box,
    ChildKind::Link,
    ChildKind::Key,
    ChildKind::Tangent,
    ChildKind::Timeline,
];

/// Extras of an element whose canonical name is `canonical`.
fn extras(canonical: &'static str) -> BoxedStrategy<Extras> {
    let full = (
        vec(("zz[a-z]{0,3}", text()), 0..3),
        vec(prop::sample::select(RAW_CHILDREN), 0..3),
        vec(prop::sample::select(KINDS), 0..4),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            move |(attributes, children, order, spelled, name_spelled)| {
                let mut e = Extras::default();
                let d = e.get_mut();
                for (name, value) in attributes {
                    if !d.attributes.iter().any(|(n, _)| *n == name) {
                        d.attributes.push((name, value));
                    }
                }
                d.children = children.into_iter().map(str::to_string).collect();
                d.order = order;
                d.spelling = spelled.then(|| canonical.to_uppercase());
                if name_spelled {
                    d.attribute_spellings.push(("name".into(), "NAME".into()));
                }
                e
            },
        );
    prop_oneof![
        6 => Just(Extras::default()),
        1 => Just(()).prop_map(|()| {
            let mut e = Extras::default();
            e.get_mut();
            e
        }),
        3 => full,
    ]
    .boxed()
}

fn script() -> BoxedStrategy<Script> {
    let content = (
        text(),
        of(prop::sample::select(vec![
            "<!-- This is generated at runtime, plugin magic -->".to_string(),
            "  <![CDATA[x]]>  ".to_string(),
        ])),
        extras("content"),
    )
        .prop_map(|(code, raw, extras)| ScriptContent { code, raw, extras });
    (
        of(prop::sample::select(ScriptLanguage::ALL)),
        of(content),
        extras("script"),
    )
        .prop_map(|(language, content, extras)| Script {
            language,
            content,
            extras,
        })
        .boxed()
}

fn port<N: Copy + std::fmt::Debug + 'static>(
    natures: &'static [N],
    canonical: &'static str,
) -> BoxedStrategy<Port<N>> {
    (
        text(),
        prop::sample::select(PortType::ALL),
        of(1..4i32),
        prop::sample::select(natures),
        of(text()),
        of(any::<bool>()),
        of(text()),
        extras(canonical),
    )
        .prop_map(
            |(name, port_type, type_size, nature, stm_value_name, inner, tooltip, extras)| Port {
                name,
                port_type,
                type_size,
                nature,
                stm_value_name,
                inner,
                tooltip,
                id: 0,
                extras,
            },
        )
        .boxed()
}

fn parameter() -> BoxedStrategy<Parameter> {
    let choice = (text(), extras("Choice")).prop_map(|(value, extras)| Choice { value, extras });
    (
        (
            text(),
            of(any::<bool>()),
            prop::sample::select(ContentType::ALL),
            of(text()),
            of(text()),
            of(real()),
            of(real()),
        ),
        (
            of(any::<bool>()),
            of(any::<bool>()),
            of(text()),
            vec(choice, 0..3),
            extras("Parameter"),
        ),
    )
        .prop_map(
            |(
                (name, inherits_from_parent, content_type, value, default_value, min, max),
                (custom_choice, password, tooltip, choices, extras),
            )| Parameter {
                name,
                inherits_from_parent,
                content_type,
                value,
                default_value,
                min,
                max,
                custom_choice,
                password,
                tooltip,
                id: 0,
                choices,
                extras,
            },
        )
        .boxed()
}

fn resource() -> BoxedStrategy<Resource> {
    (text(), text(), of(-1..10i32), extras("Resource"))
        .prop_map(|(name, lock_type, timeout, extras)| Resource {
            name,
            lock_type,
            timeout,
            extras,
        })
        .boxed()
}

fn actuator_list() -> BoxedStrategy<ActuatorList> {
    let tangent = (any::<bool>(), of(text()), real(), real(), extras("Tangent")).prop_map(
        |(left, interp_type, abscissa_param, ordinate_param, extras)| Tangent {
            side: if left {
                TangentSide::Left
            } else {
                TangentSide::Right
            },
            interp_type,
            abscissa_param,
            ordinate_param,
            extras,
        },
    );
    let key = (
        any::<i32>(),
        real(),
        of(any::<bool>()),
        of(any::<bool>()),
        vec(tangent, 0..3),
        extras("Key"),
    )
        .prop_map(
            |(frame, value, smooth, symmetrical, tangents, extras)| Key {
                frame,
                value,
                smooth,
                symmetrical,
                tangents,
                extras,
            },
        );
    let curve = (
        of(text()),
        text(),
        of(any::<bool>()),
        of(any::<bool>()),
        of(-1..2i32),
        of(any::<bool>()),
        vec(key, 0..4),
        extras("ActuatorCurve"),
    )
        .prop_map(
            |(name, actuator, recordable, mute, unit, always_visible, keys, extras)| {
                ActuatorCurve {
                    name,
                    actuator,
                    recordable,
                    mute,
                    unit,
                    always_visible,
                    keys,
                    extras,
                }
            },
        );
    (of(text()), vec(curve, 0..3), extras("ActuatorList"))
        .prop_map(|(model, curves, extras)| ActuatorList {
            model,
            curves,
            extras,
        })
        .boxed()
}

/// A box's own content: attributes, script, ports, parameters, resources (no timeline).
fn box_shell() -> BoxedStrategy<BoxDef> {
    (
        (
            text(),
            any::<i32>(),
            of(any::<i32>()),
            of(text()),
            of(any::<i32>()),
            of(any::<i32>()),
            of(text()),
            of(text()),
            of(text()),
            of(text()),
        ),
        (
            vec(text(), 0..2),
            of(script()),
            of(prop::sample::select(vec![
                "<pluginContent>\n  <text>hi</text>\n</pluginContent>".to_string(),
                "<pluginContent/>".to_string(),
            ])),
            vec(port(InputNature::ALL, "Input"), 0..3),
            vec(port(OutputNature::ALL, "Output"), 0..3),
            vec(parameter(), 0..3),
            vec(resource(), 0..2),
            extras("Box"),
        ),
    )
        .prop_map(
            |(
                (
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
                ),
                (bitmaps, script, plugin_content, inputs, outputs, parameters, resources, extras),
            )| BoxDef {
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
                timeline: None,
                resources,
                extras,
            },
        )
        .boxed()
}

/// Link "selectors": [`fix`] turns their numbers into valid owners and ports.
fn link() -> BoxedStrategy<Link> {
    (
        any::<u16>(),
        any::<u16>(),
        any::<u16>(),
        any::<u16>(),
        extras("Link"),
    )
        .prop_map(|(a, b, c, d, extras)| Link {
            input_owner: a.into(),
            index_of_input: b.into(),
            output_owner: c.into(),
            index_of_output: d.into(),
            extras,
        })
        .boxed()
}

fn diagram(boxes: BoxedStrategy<BoxDef>) -> BoxedStrategy<Diagram> {
    (
        of(real()),
        vec(boxes, 0..4),
        vec(link(), 0..5),
        extras("Diagram"),
    )
        .prop_map(|(scale, boxes, links, extras)| Diagram {
            scale,
            boxes,
            links,
            extras,
        })
        .boxed()
}

fn timeline(boxes: BoxedStrategy<BoxDef>) -> BoxedStrategy<Timeline> {
    let keyframe = (
        text(),
        any::<i32>(),
        of(text()),
        of(diagram(boxes.clone())),
        extras("BehaviorKeyframe"),
    )
        .prop_map(|(name, index, bitmap, diagram, extras)| BehaviorKeyframe {
            name,
            index,
            bitmap,
            diagram,
            extras,
        });
    let layer = (
        text(),
        of(any::<bool>()),
        vec(keyframe, 0..3),
        extras("BehaviorLayer"),
    )
        .prop_map(|(name, mute, keyframes, extras)| BehaviorLayer {
            name,
            mute,
            keyframes,
            extras,
        });
    let full = (
        (
            of(any::<bool>()),
            of(0..100i32),
            of(any::<i32>()),
            of(any::<i32>()),
            of(any::<i32>()),
            of(prop::sample::select(ResourcesAcquisition::ALL)),
            of(real()),
            any::<bool>(),
        ),
        (vec(layer, 0..3), of(actuator_list()), extras("Timeline")),
    )
        .prop_map(
            |(
                (enable, fps, start_frame, end_frame, size, resources_acquisition, scale, watches),
                (layers, actuator_list, extras),
            )| Timeline {
                enable,
                fps,
                start_frame,
                end_frame,
                size,
                resources_acquisition,
                scale,
                watches,
                layers,
                actuator_list,
                extras,
            },
        );
    // The flow-diagram holder Choregraphe writes around every diagram box.
    let holder = diagram(boxes).prop_map(|d| Timeline {
        enable: Some(false),
        layers: vec![BehaviorLayer {
            name: "behavior_layer1".into(),
            keyframes: vec![BehaviorKeyframe {
                name: "keyframe1".into(),
                index: 1,
                diagram: Some(d),
                ..BehaviorKeyframe::default()
            }],
            ..BehaviorLayer::default()
        }],
        ..Timeline::default()
    });
    prop_oneof![holder, full].boxed()
}

fn any_box() -> BoxedStrategy<BoxDef> {
    let leaf = (box_shell(), of(timeline(box_shell()))).prop_map(|(mut b, t)| {
        // Leaves keep only motion-only timelines, so recursion stays in `prop_recursive`.
        b.timeline = t.map(|mut t| {
            t.layers.clear();
            t
        });
        b
    });
    leaf.prop_recursive(3, 24, 4, |inner| {
        (box_shell(), timeline(inner)).prop_map(|(mut b, t)| {
            b.timeline = Some(t);
            b
        })
    })
    .boxed()
}

/// Makes a generated box valid the way XAR requires: unique port ids, unique child ids
/// (not 0), links from sources to destinations that exist.
fn fix(b: &mut BoxDef) {
    let mut id = 0;
    let mut next = || {
        id += 1;
        id
    };
    b.inputs.iter_mut().for_each(|p| p.id = next());
    b.outputs.iter_mut().for_each(|p| p.id = next());
    b.parameters.iter_mut().for_each(|p| p.id = next());
    let parent = b.clone();
    let Some(t) = &mut b.timeline else { return };
    for d in t
        .layers
        .iter_mut()
        .flat_map(|l| &mut l.keyframes)
        .filter_map(|k| k.diagram.as_mut())
    {
        let mut used = std::collections::HashSet::new();
        for child in &mut d.boxes {
            let mut id = i32::try_from(child.id.unsigned_abs() % 40).unwrap() + 1;
            while !used.insert(id) {
                id += 1;
            }
            child.id = id;
            fix(child);
        }
        let mut sources: Vec<(i32, i32)> = parent.inputs.iter().map(|p| (0, p.id)).collect();
        let mut destinations: Vec<(i32, i32)> = parent.outputs.iter().map(|p| (0, p.id)).collect();
        for c in &d.boxes {
            sources.extend(c.outputs.iter().map(|p| (c.id, p.id)));
            destinations.extend(c.inputs.iter().map(|p| (c.id, p.id)));
            destinations.extend(c.parameters.iter().map(|p| (c.id, p.id)));
        }
        let pick = |list: &[(i32, i32)], n: i32| list[usize::try_from(n).unwrap() % list.len()];
        if sources.is_empty() || destinations.is_empty() {
            d.links.clear();
        }
        for l in &mut d.links {
            (l.output_owner, l.index_of_output) = pick(&sources, l.output_owner);
            (l.input_owner, l.index_of_input) = pick(&destinations, l.input_owner);
        }
    }
}

fn xar_file() -> BoxedStrategy<XarFile> {
    (
        any::<bool>(),
        of(prop::sample::select(vec![
            PROJECT_NAMESPACE.to_string(),
            "http://www.ald.softbankrobotics.com/schema/choregraphe/project.xsd".to_string(),
            String::new(),
        ])),
        of(prop::sample::select(vec!["3".to_string(), "2".to_string()])),
        vec(
            prop::sample::select(vec!["<!-- prolog -->".to_string(), "<?pi x?>".to_string()]),
            0..2,
        ),
        any_box(),
        extras("ignored").prop_map(|mut e| {
            if let Some(d) = e.get() {
                // The root's spelling depends on its kind; keep the canonical one.
                if d.spelling.is_some() {
                    e.get_mut().spelling = None;
                }
            }
            e
        }),
    )
        .prop_map(
            |(project, namespace, xar_version, prolog, mut root_box, extras)| {
                fix(&mut root_box);
                XarFile {
                    root: if project {
                        RootKind::Project
                    } else {
                        RootKind::Box
                    },
                    namespace,
                    xar_version,
                    prolog,
                    root_box,
                    extras,
                }
            },
        )
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn split_round_trip_is_lossless(x in xar_file()) {
        let tree = to_tree(&x);
        prop_assert!(is_split_tree(&tree));
        let back = match from_tree("generated", &tree) {
            Ok(p) => p.value,
            Err(e) => {
                let files: Vec<String> = tree
                    .iter()
                    .map(|(k, v)| format!("--- {k}\n{}", String::from_utf8_lossy(v)))
                    .collect();
                return Err(TestCaseError::fail(format!("{e}\n{}", files.join("\n"))));
            }
        };
        prop_assert_eq!(back, x);
    }
}
