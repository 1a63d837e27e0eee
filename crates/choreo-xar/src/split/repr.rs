//! The TOML side of the split format: serde structures for `behavior.toml` and `box.toml`,
//! and their conversion from and to the model.
//!
//! Conventions: a key is written exactly when the XAR attribute is present (so absent and
//! empty stay apart), list keys are left out when empty, and integer codes are written as
//! names (`type = "bang"`). `Extras` become an `extras` table, absent when there are none.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use toml::Spanned;

use crate::model::*;

/// A model enum written as a name in TOML and text files.
pub(super) trait Named: Copy + PartialEq + 'static {
    /// What the values are, for messages (`port type`).
    const WHAT: &'static str;
    /// Every value with its name.
    const NAMES: &'static [(Self, &'static str)];

    /// The name of `self`.
    fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(v, _)| *v == self)
            .map_or("", |(_, n)| n)
    }

    /// The value named `name`, or a message listing the names.
    fn from_name(name: &str) -> Result<Self, String> {
        Self::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(v, _)| *v)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::NAMES.iter().map(|(_, n)| *n).collect();
                format!(
                    "unknown {} {name:?}: expected one of {}",
                    Self::WHAT,
                    names.join(", ")
                )
            })
    }
}

impl Named for PortType {
    const WHAT: &'static str = "port type";
    const NAMES: &'static [(Self, &'static str)] = PortType::NAMES;
}

impl Named for InputNature {
    const WHAT: &'static str = "input nature";
    const NAMES: &'static [(Self, &'static str)] = InputNature::NAMES;
}

impl Named for OutputNature {
    const WHAT: &'static str = "output nature";
    const NAMES: &'static [(Self, &'static str)] = OutputNature::NAMES;
}

impl Named for ContentType {
    const WHAT: &'static str = "parameter content type";
    const NAMES: &'static [(Self, &'static str)] = ContentType::NAMES;
}

impl Named for ScriptLanguage {
    const WHAT: &'static str = "script language";
    const NAMES: &'static [(Self, &'static str)] = ScriptLanguage::NAMES;
}

impl Named for ResourcesAcquisition {
    const WHAT: &'static str = "resources acquisition";
    const NAMES: &'static [(Self, &'static str)] = ResourcesAcquisition::NAMES;
}

impl Named for RootKind {
    const WHAT: &'static str = "root kind";
    const NAMES: &'static [(Self, &'static str)] =
        &[(RootKind::Project, "project"), (RootKind::Box, "box")];
}

impl Named for ChildKind {
    const WHAT: &'static str = "child kind";
    const NAMES: &'static [(Self, &'static str)] = ChildKind::VARIANT_NAMES;
}

/// A [`Named`] value in a serde structure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Nm<T>(pub T);

impl<T: Named> Serialize for Nm<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name())
    }
}

impl<'de, T: Named> Deserialize<'de> for Nm<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        T::from_name(&name).map(Nm).map_err(de::Error::custom)
    }
}

/// A finite number: written as an integer when it is one (`max = 100`), else as a float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Num(pub f64);

/// Integers up to this size are exact in an `f64`.
const EXACT_INT: f64 = 9_007_199_254_740_992.0;

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        let integral =
            v.fract() == 0.0 && v.abs() < EXACT_INT && !(v == 0.0 && v.is_sign_negative());
        if integral {
            // Exact: |v| < 2^53 and v has no fraction.
            s.serialize_i64(v as i64)
        } else {
            s.serialize_f64(v)
        }
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a finite number")
            }
            // Integers beyond 2^53 are never written; they read as the nearest number.
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                if v.is_finite() {
                    Ok(Num(v))
                } else {
                    Err(E::custom(format!("{v} is not a finite number")))
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// An element's [`Extras`] as a table.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExtrasRepr {
    /// The element name as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spelling: Option<String>,
    /// Unknown attributes, in order, as `[name, value]` pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<(String, String)>,
    /// Known attributes spelled otherwise, as `[canonical, as written]` pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attribute_spellings: Vec<(String, String)>,
    /// Unknown children, raw XML.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
    /// Recorded child order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order: Vec<Nm<ChildKind>>,
}

impl ExtrasRepr {
    /// The table for `e`, `None` when nothing was recorded.
    pub fn of(e: &Extras) -> Option<ExtrasRepr> {
        e.get().map(|d| ExtrasRepr {
            spelling: d.spelling.clone(),
            attributes: d.attributes.clone(),
            attribute_spellings: d.attribute_spellings.clone(),
            children: d.children.clone(),
            order: d.order.iter().copied().map(Nm).collect(),
        })
    }

    /// The extras a table (or its absence) stands for.
    pub fn into_extras(r: Option<ExtrasRepr>) -> Extras {
        let mut e = Extras::default();
        if let Some(r) = r {
            *e.get_mut() = ExtraData {
                attributes: r.attributes,
                children: r.children,
                order: r.order.into_iter().map(|k| k.0).collect(),
                spelling: r.spelling,
                attribute_spellings: r.attribute_spellings,
            };
        }
        e
    }
}

/// `behavior.toml`: the marker and what belongs to the XAR file rather than to a box.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileRepr {
    /// Format version ([`super::layout::FORMAT_VERSION`]).
    pub split_format: i64,
    /// `project` (`ChoregrapheProject`) or `box` (`ChoregrapheBox`).
    pub kind: Nm<RootKind>,
    /// `xmlns` of the root element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `xar_version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xar_version: Option<String>,
    /// Comments and processing instructions before the root element.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prolog: Vec<String>,
    /// Extras of the root element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

impl FileRepr {
    /// The marker for `x`.
    pub fn of(x: &XarFile) -> FileRepr {
        FileRepr {
            split_format: super::layout::FORMAT_VERSION,
            kind: Nm(x.root),
            namespace: x.namespace.clone(),
            xar_version: x.xar_version.clone(),
            prolog: x.prolog.clone(),
            extras: ExtrasRepr::of(&x.extras),
        }
    }
}

/// `box.toml`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BoxRepr {
    pub name: String,
    pub id: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localization: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tooltip: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robot: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bitmap_expanded: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog_file: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bitmaps: Vec<String>,
    /// Written only for a script other than a plain Python `script.py`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<Spanned<ScriptRepr>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input: Vec<PortRepr<InputNature>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<PortRepr<OutputNature>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameter: Vec<ParameterRepr>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource: Vec<ResourceRepr>,
    /// A plain flow-diagram holder timeline, shown as its diagram only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagram: Option<Spanned<DiagramRepr>>,
    /// Any other timeline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Spanned<TimelineRepr>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

/// The parts of a box its `box.toml` does not hold alone.
pub(super) struct BoxParts {
    pub script: Option<Spanned<ScriptRepr>>,
    pub diagram: Option<Spanned<DiagramRepr>>,
    pub timeline: Option<Spanned<TimelineRepr>>,
}

impl BoxRepr {
    /// The attributes, ports, parameters and resources of `b`; the caller adds the rest.
    pub fn of(b: &BoxDef) -> BoxRepr {
        BoxRepr {
            name: b.name.clone(),
            id: b.id,
            localization: b.localization,
            tooltip: b.tooltip.clone(),
            x: b.x,
            y: b.y,
            plugin: b.plugin.clone(),
            robot: b.robot.clone(),
            bitmap_expanded: b.bitmap_expanded.clone(),
            dialog_file: b.dialog_file.clone(),
            bitmaps: b.bitmaps.clone(),
            script: None,
            input: b.inputs.iter().map(PortRepr::of).collect(),
            output: b.outputs.iter().map(PortRepr::of).collect(),
            parameter: b.parameters.iter().map(ParameterRepr::of).collect(),
            resource: b.resources.iter().map(ResourceRepr::of).collect(),
            diagram: None,
            timeline: None,
            extras: ExtrasRepr::of(&b.extras),
        }
    }

    /// The box without script, plugin content and timeline, and the tables for those.
    pub fn into_box(self) -> (BoxDef, BoxParts) {
        let b = BoxDef {
            name: self.name,
            id: self.id,
            localization: self.localization,
            tooltip: self.tooltip,
            x: self.x,
            y: self.y,
            plugin: self.plugin,
            robot: self.robot,
            bitmap_expanded: self.bitmap_expanded,
            dialog_file: self.dialog_file,
            bitmaps: self.bitmaps,
            script: None,
            plugin_content: None,
            inputs: self.input.into_iter().map(PortRepr::into_port).collect(),
            outputs: self.output.into_iter().map(PortRepr::into_port).collect(),
            parameters: self
                .parameter
                .into_iter()
                .map(ParameterRepr::into_parameter)
                .collect(),
            timeline: None,
            resources: self
                .resource
                .into_iter()
                .map(ResourceRepr::into_resource)
                .collect(),
            extras: ExtrasRepr::into_extras(self.extras),
        };
        let parts = BoxParts {
            script: self.script,
            diagram: self.diagram,
            timeline: self.timeline,
        };
        (b, parts)
    }
}

/// The `[script]` table: a script that is not plain Python. Its code is `script.py` when
/// the script has a `content` element.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScriptRepr {
    /// `language`; left out when the attribute is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Nm<ScriptLanguage>>,
    /// Inner XML of `content` as written, when it is not one CDATA section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// Extras of the `content` element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_extras: Option<ExtrasRepr>,
    /// Extras of the `script` element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

impl ScriptRepr {
    /// The table for `s`, `None` when `s` is plain Python with its code in `script.py`.
    pub fn of(s: &Script) -> Option<ScriptRepr> {
        let content = s.content.as_ref();
        let plain = s.language == Some(ScriptLanguage::Python)
            && s.extras.is_empty()
            && content.is_some_and(|c| c.raw.is_none() && c.extras.is_empty());
        (!plain).then(|| ScriptRepr {
            language: s.language.map(Nm),
            raw: content.and_then(|c| c.raw.clone()),
            content_extras: content.and_then(|c| ExtrasRepr::of(&c.extras)),
            extras: ExtrasRepr::of(&s.extras),
        })
    }
}

/// An `[[input]]` or `[[output]]` table.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(bound(
    serialize = "Nm<N>: Serialize",
    deserialize = "Nm<N>: Deserialize<'de>"
))]
pub(super) struct PortRepr<N> {
    pub name: String,
    pub id: i32,
    #[serde(rename = "type")]
    pub port_type: Nm<PortType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_size: Option<i32>,
    pub nature: Nm<N>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stm_value_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tooltip: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

impl<N: Copy> PortRepr<N> {
    fn of(p: &Port<N>) -> PortRepr<N> {
        PortRepr {
            name: p.name.clone(),
            id: p.id,
            port_type: Nm(p.port_type),
            type_size: p.type_size,
            nature: Nm(p.nature),
            stm_value_name: p.stm_value_name.clone(),
            inner: p.inner,
            tooltip: p.tooltip.clone(),
            extras: ExtrasRepr::of(&p.extras),
        }
    }

    fn into_port(self) -> Port<N> {
        Port {
            name: self.name,
            port_type: self.port_type.0,
            type_size: self.type_size,
            nature: self.nature.0,
            stm_value_name: self.stm_value_name,
            inner: self.inner,
            tooltip: self.tooltip,
            id: self.id,
            extras: ExtrasRepr::into_extras(self.extras),
        }
    }
}

/// A `[[parameter]]` table.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ParameterRepr {
    pub name: String,
    pub id: i32,
    pub content_type: Nm<ContentType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Num>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Num>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inherits_from_parent: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_choice: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tooltip: Option<String>,
    /// Allowed values: a string each, or a table when the choice has extras.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<ChoiceRepr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

impl ParameterRepr {
    fn of(p: &Parameter) -> ParameterRepr {
        ParameterRepr {
            name: p.name.clone(),
            id: p.id,
            content_type: Nm(p.content_type),
            value: p.value.clone(),
            default_value: p.default_value.clone(),
            min: p.min.map(Num),
            max: p.max.map(Num),
            inherits_from_parent: p.inherits_from_parent,
            custom_choice: p.custom_choice,
            password: p.password,
            tooltip: p.tooltip.clone(),
            choices: p.choices.iter().map(ChoiceRepr::of).collect(),
            extras: ExtrasRepr::of(&p.extras),
        }
    }

    fn into_parameter(self) -> Parameter {
        Parameter {
            name: self.name,
            inherits_from_parent: self.inherits_from_parent,
            content_type: self.content_type.0,
            value: self.value,
            default_value: self.default_value,
            min: self.min.map(|n| n.0),
            max: self.max.map(|n| n.0),
            custom_choice: self.custom_choice,
            password: self.password,
            tooltip: self.tooltip,
            id: self.id,
            choices: self
                .choices
                .into_iter()
                .map(ChoiceRepr::into_choice)
                .collect(),
            extras: ExtrasRepr::into_extras(self.extras),
        }
    }
}

/// One entry of `choices`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub(super) enum ChoiceRepr {
    /// A choice without extras.
    Value(String),
    /// A choice with extras.
    Full(ChoiceTable),
}

/// A choice written as a table.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ChoiceTable {
    value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extras: Option<ExtrasRepr>,
}

impl ChoiceRepr {
    fn of(c: &Choice) -> ChoiceRepr {
        match ExtrasRepr::of(&c.extras) {
            None => ChoiceRepr::Value(c.value.clone()),
            extras => ChoiceRepr::Full(ChoiceTable {
                value: c.value.clone(),
                extras,
            }),
        }
    }

    fn into_choice(self) -> Choice {
        let (value, extras) = match self {
            ChoiceRepr::Value(v) => (v, None),
            ChoiceRepr::Full(t) => (t.value, t.extras),
        };
        Choice {
            value,
            extras: ExtrasRepr::into_extras(extras),
        }
    }
}

/// A `[[resource]]` table.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ResourceRepr {
    pub name: String,
    #[serde(rename = "type")]
    pub lock_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

impl ResourceRepr {
    fn of(r: &Resource) -> ResourceRepr {
        ResourceRepr {
            name: r.name.clone(),
            lock_type: r.lock_type.clone(),
            timeout: r.timeout,
            extras: ExtrasRepr::of(&r.extras),
        }
    }

    fn into_resource(self) -> Resource {
        Resource {
            name: self.name,
            lock_type: self.lock_type,
            timeout: self.timeout,
            extras: ExtrasRepr::into_extras(self.extras),
        }
    }
}

/// A `[diagram]` table: a diagram's attributes; its boxes are subfolders and its links
/// are `links.txt`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DiagramRepr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Num>,
    /// Box ids in document order, written when that is not ascending id order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boxes: Option<Spanned<Vec<i32>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

impl DiagramRepr {
    /// The table for `d` (boxes and links are written elsewhere).
    pub fn of(d: &Diagram) -> DiagramRepr {
        let ids: Vec<i32> = d.boxes.iter().map(|b| b.id).collect();
        let ascending = ids.windows(2).all(|w| w[0] < w[1]);
        DiagramRepr {
            scale: d.scale.map(Num),
            boxes: (!ascending).then(|| Spanned::new(0..0, ids)),
            extras: ExtrasRepr::of(&d.extras),
        }
    }
}

/// The `[timeline]` table: attributes, layers and keyframes. Curves are `motion.txt`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TimelineRepr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fps: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_frame: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_frame: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_acquisition: Option<Nm<ResourcesAcquisition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Num>,
    /// An empty 1.x `<watches/>` element is present.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub watches: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layer: Vec<LayerRepr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

impl TimelineRepr {
    /// The table for `t`, with its layers already converted.
    pub fn of(t: &Timeline, layer: Vec<LayerRepr>) -> TimelineRepr {
        TimelineRepr {
            enable: t.enable,
            fps: t.fps,
            start_frame: t.start_frame,
            end_frame: t.end_frame,
            size: t.size,
            resources_acquisition: t.resources_acquisition.map(Nm),
            scale: t.scale.map(Num),
            watches: t.watches,
            layer,
            extras: ExtrasRepr::of(&t.extras),
        }
    }

    /// The timeline's attributes (no layers, no curves) and its layer tables.
    pub fn into_timeline(self) -> (Timeline, Vec<LayerRepr>) {
        let t = Timeline {
            enable: self.enable,
            fps: self.fps,
            start_frame: self.start_frame,
            end_frame: self.end_frame,
            size: self.size,
            resources_acquisition: self.resources_acquisition.map(|r| r.0),
            scale: self.scale.map(|n| n.0),
            watches: self.watches,
            layers: Vec::new(),
            actuator_list: None,
            extras: ExtrasRepr::into_extras(self.extras),
        };
        (t, self.layer)
    }
}

/// A `[[timeline.layer]]` table.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LayerRepr {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mute: Option<bool>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyframe: Vec<KeyframeRepr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

/// A `[[timeline.layer.keyframe]]` table.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct KeyframeRepr {
    pub name: String,
    pub index: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bitmap: Option<String>,
    /// The folder of the keyframe's diagram, relative to the box folder; absent: the box
    /// folder itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<Spanned<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagram: Option<DiagramRepr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<ExtrasRepr>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_named<T: Named + std::fmt::Debug>(all: &[T]) {
        for &v in all {
            let name = v.name();
            assert!(!name.is_empty(), "{v:?} has no name");
            assert_eq!(T::from_name(name), Ok(v));
        }
        assert_eq!(T::NAMES.len(), all.len());
    }

    #[test]
    fn every_code_has_a_name() {
        all_named(PortType::ALL);
        all_named(InputNature::ALL);
        all_named(OutputNature::ALL);
        all_named(ContentType::ALL);
        all_named(ScriptLanguage::ALL);
        all_named(ResourcesAcquisition::ALL);
        all_named(&[RootKind::Project, RootKind::Box]);
        all_named(ChildKind::ALL);
    }

    #[test]
    fn numbers_are_integers_when_exact() {
        #[derive(Serialize, Deserialize)]
        struct T {
            v: Vec<Num>,
        }
        let values = [100.0, -0.0, 0.5, 1e300, 5e-324, -3.0];
        let text = toml::to_string(&T {
            v: values.iter().copied().map(Num).collect(),
        })
        .unwrap_or_default();
        assert!(text.starts_with("v = [100, -0.0, 0.5, "), "{text}");
        let back: T = toml::from_str(&text).unwrap_or(T { v: Vec::new() });
        let back: Vec<f64> = back.v.iter().map(|n| n.0).collect();
        assert_eq!(back, values);
        assert!(back[1].is_sign_negative());
    }
}
