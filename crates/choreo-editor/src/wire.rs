//! The page's words for edits (docs/editor.md): its JSON turned into `choreo_xar::edit`'s
//! [`Edit`]s, and a box's fields as the properties panel shows them.
//!
//! The page names boxes as the monitor's `structure` does (`ref`: one `[layer, keyframe,
//! id]` per diagram from the root) and ports by name, since that is what it draws; the file
//! names ports by id. The names are resolved here, against the document as it is, so that a
//! page that drew an older structure gets "no such port" rather than a link to the wrong
//! one.

use crate::Library;
use choreo_robot::Model;
use choreo_xar::edit::{
    BoxFieldEdit, BoxRef, DiagramRef, Document, Edit, EditError, Interpolation, LinkRef, NewPort,
    Step, TimelineEdit,
};
use choreo_xar::model::{
    BoxDef, ContentType, InputNature, OutputNature, PortRef, PortType, TangentSide, Timeline,
};
use serde_json::{Value, json};

/// Why a page's message is not an edit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The JSON lacks a field, or a field is of the wrong type: which.
    #[error("{0}")]
    Malformed(String),
    /// What it names is not in the behavior.
    #[error(transparent)]
    Edit(#[from] EditError),
}

/// What the page's words are resolved against: the behavior, the boxes it may add, the robot
/// whose joints its timelines move.
pub struct Context<'a> {
    /// The behavior as it is.
    pub document: &'a Document,
    /// The palette's boxes.
    pub library: &'a Library,
    /// The robot the project is for.
    pub robot: Model,
}

/// The [`Edit`] a page's `edit` JSON asks for, its names resolved in `at.document` (an added
/// box's in `at.library`, a joint's on `at.robot`).
pub fn edit(at: &Context<'_>, v: &Value) -> Result<Edit, WireError> {
    let (document, library) = (at.document, at.library);
    let kind = v["kind"]
        .as_str()
        .ok_or_else(|| malformed("an edit needs a kind"))?;
    Ok(match kind {
        "move" => Edit::Move {
            at: box_ref(&v["box"])?,
            x: int(v, "x")?,
            y: int(v, "y")?,
        },
        "rename" => Edit::Rename {
            at: box_ref(&v["box"])?,
            name: string(v, "name")?,
        },
        "parameter" => Edit::SetParameter {
            at: box_ref(&v["box"])?,
            parameter: string(v, "parameter")?,
            value: parameter_value(&v["value"])?,
        },
        "script" => Edit::SetScript {
            at: box_ref(&v["box"])?,
            text: string(v, "text")?,
        },
        "plugin_text" => Edit::SetPluginText {
            at: box_ref(&v["box"])?,
            field: string(v, "field")?,
            text: string(v, "text")?,
        },
        "plugin_rows" => Edit::SetPluginRows {
            at: box_ref(&v["box"])?,
            table: string(v, "table")?,
            rows: strings(v, "rows")?,
        },
        "link" | "unlink" => {
            let diagram = diagram_ref(&v["diagram"])?;
            let link = link(document, &diagram, v)?;
            if kind == "link" {
                Edit::Link { diagram, link }
            } else {
                Edit::Unlink { diagram, link }
            }
        }
        "delete" => Edit::Delete {
            at: box_ref(&v["box"])?,
        },
        // Choregraphe's "Convert to box": the boxes (ids in the diagram) into one.
        "group" => Edit::Group {
            diagram: diagram_ref(&v["diagram"])?,
            boxes: v["boxes"]
                .as_array()
                .ok_or_else(|| malformed("group needs the boxes' ids"))?
                .iter()
                .map(|id| {
                    id.as_i64()
                        .and_then(|i| i32::try_from(i).ok())
                        .ok_or_else(|| malformed("a box's id is a number"))
                })
                .collect::<Result<_, _>>()?,
            name: string(v, "name")?,
        },
        "ungroup" => Edit::Ungroup {
            at: box_ref(&v["box"])?,
        },
        "add" => Edit::Add {
            diagram: diagram_ref(&v["diagram"])?,
            text: match (v["text"].as_str(), v.get("copy"), v["library"].as_str()) {
                (Some(text), _, _) => text.to_string(),
                (None, Some(at), _) => document.box_text(&box_ref(at)?)?,
                (None, None, Some(key)) => match library.get(key) {
                    Some(b) => b.text.clone(),
                    None => return Err(malformed(&format!("no box {key:?} in the library"))),
                },
                (None, None, None) => {
                    return Err(malformed("add needs the box's text, copy or library"));
                }
            },
            x: int(v, "x")?,
            y: int(v, "y")?,
        },
        "port_add" | "port_change" | "port_remove" | "resource_add" | "resource_remove" => {
            Edit::BoxFields {
                at: box_ref(&v["box"])?,
                change: field_change(kind, v)?,
            }
        }
        "timeline" => {
            let b = box_ref(&v["box"])?;
            let change = timeline_change(
                document.box_def(&b)?.timeline.as_ref(),
                at.robot,
                &v["change"],
            )?;
            Edit::Timeline { at: b, change }
        }
        other => return Err(malformed(&format!("no edit is called {other:?}"))),
    })
}

/// The strings of the array `v[key]`.
fn strings(v: &Value, key: &str) -> Result<Vec<String>, WireError> {
    v[key]
        .as_array()
        .and_then(|a| a.iter().map(|r| r.as_str().map(str::to_string)).collect())
        .ok_or_else(|| malformed(&format!("{key} is an array of strings")))
}

/// What the panels of the box at `at` (`b`) and of the boxes of its flow diagram edit:
/// `[{box, name, plugin, texts: [{field, text}], tables: [{table, rows}]}]`.
fn plugin_texts_of(at: &BoxRef, b: &BoxDef) -> Vec<Value> {
    let entry = |r: &BoxRef, d: &BoxDef| {
        let texts = choreo_xar::edit::plugin_texts(d);
        let tables = choreo_xar::edit::plugin_rows(d);
        (!texts.is_empty() || !tables.is_empty()).then(|| json!({
            "box": steps(r), "name": d.name, "plugin": d.plugin,
            "texts": texts.iter().map(|(f, t)| json!({"field": f, "text": t})).collect::<Vec<_>>(),
            "tables": tables.iter().map(|(t, rows)| json!({"table": t, "rows": rows})).collect::<Vec<_>>(),
            // Set Language's list: the names NAOqi's setLanguage takes
            "languages": (d.plugin.as_deref() == Some(choreo_xar::edit::SET_LANGUAGE))
                .then(|| choreo_robot::languages::LANGUAGES.iter().map(|l| l.name).collect::<Vec<_>>()),
        }))
    };
    let mut out: Vec<Value> = entry(at, b).into_iter().collect();
    if let Some(d) = b
        .diagrams()
        .next()
        .filter(|_| b.timeline.as_ref().is_none_or(|t| t.enable != Some(true)))
    {
        for inner in &d.boxes {
            let mut r = at.clone();
            r.0.push(Step {
                layer: 0,
                keyframe: 0,
                id: inner.id,
            });
            out.extend(entry(&r, inner));
        }
    }
    out
}

/// The fields of the box at `at` as the properties panel shows them, and its element's
/// text (what copying it takes): the `box` message of docs/editor.md.
pub fn inspect(document: &Document, at: &BoxRef) -> Result<Value, EditError> {
    let b = document.box_def(at)?;
    let port = |name: &str, kind: &str, nature: &str, tooltip: &Option<String>| json!({"name": name, "type": kind, "nature": nature, "tooltip": tooltip});
    Ok(json!({
        "type": "box",
        "ref": steps(at),
        "name": b.name,
        "tooltip": b.tooltip,
        "text": document.box_text(at)?,
        "script": b.script.as_ref().map(|_| b.code()),
        "dialog": b.dialog_file,
        // The texts Choregraphe's panels edit: the box's own, or the boxes' of its diagram
        // (the stock Say's Localized Text), each with its box's ref.
        "plugin_texts": plugin_texts_of(at, b),
        "inputs": b.inputs.iter().map(|p| port(&p.name, p.port_type.name(), p.nature.name(), &p.tooltip)).collect::<Vec<_>>(),
        "outputs": b.outputs.iter().map(|p| port(&p.name, p.port_type.name(), p.nature.name(), &p.tooltip)).collect::<Vec<_>>(),
        "parameters": b.parameters.iter().map(|p| json!({
            "name": p.name,
            "type": p.content_type.name(),
            "value": p.value.as_deref().or(p.default_value.as_deref()),
            "default": p.default_value,
            "min": p.min,
            "max": p.max,
            "choices": p.choices.iter().map(|c| c.value.as_str()).collect::<Vec<_>>(),
            "custom_choice": p.custom_choice.unwrap_or(false),
            "password": p.password.unwrap_or(false),
            "inherits": p.inherits_from_parent.unwrap_or(false),
            "tooltip": p.tooltip,
        })).collect::<Vec<_>>(),
        "timeline": b.timeline.as_ref().filter(|t| t.enable == Some(true)).map(timeline),
        "resources": b.resources.iter().map(|r| json!({"name": r.name, "lock": r.lock_type, "timeout": r.timeout})).collect::<Vec<_>>(),
    }))
}

/// A box's `ref` as the page sends it: `[[layer, keyframe, id], ...]`.
pub fn box_ref(v: &Value) -> Result<BoxRef, WireError> {
    let steps = v
        .as_array()
        .ok_or_else(|| malformed("a box is named by its ref, [[layer, keyframe, id], ...]"))?;
    steps
        .iter()
        .map(|s| match s.as_array().map(Vec::as_slice) {
            Some([layer, keyframe, id]) => Ok(Step {
                layer: index(layer)?,
                keyframe: index(keyframe)?,
                id: id
                    .as_i64()
                    .and_then(|i| i32::try_from(i).ok())
                    .ok_or_else(|| malformed("a box id is an integer"))?,
            }),
            _ => Err(malformed("each step of a ref is [layer, keyframe, id]")),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(BoxRef)
}

/// A timeline as the page's timeline editor shows it: the file's layers, keyframes and
/// curves in file order (the edits' indices); values in radians (a hand's as its ratio).
fn timeline(t: &Timeline) -> Value {
    let curves = t.actuator_list.iter().flat_map(|l| l.curves.iter());
    json!({
        "fps": t.fps, "start": t.start_frame, "end": t.end_frame, "size": t.size,
        "layers": t.layers.iter().map(|l| json!({
            "name": l.name, "mute": l.mute.unwrap_or(false),
            "keyframes": l.keyframes.iter().map(|k| json!({"name": k.name, "index": k.index})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "curves": curves.map(|c| {
            let r = |v: f64| from_unit(Some(t), &c.actuator, v);
            json!({
                "actuator": c.actuator, "mute": c.mute.unwrap_or(false),
                "keys": c.keys.iter().map(|k| json!({
                    "frame": k.frame, "value": r(k.value),
                    "tangents": k.tangents.iter().map(|g| json!({
                        "side": g.side.as_str(), "interp": g.interp_type.as_deref().unwrap_or("bezier"),
                        "abscissa": g.abscissa_param, "ordinate": r(g.ordinate_param),
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        }).collect::<Vec<_>>(),
    })
}

/// Whether `joint`'s curve in `t` is in degrees (unit 0, or a joint that is not a hand when
/// the file does not say); else it holds a hand's ratio.
fn in_degrees(t: Option<&Timeline>, joint: &str) -> bool {
    let unit = t
        .and_then(|t| t.actuator_list.as_ref())
        .and_then(|l| l.curves.iter().find(|c| c.actuator == joint))
        .and_then(|c| c.unit)
        .filter(|&u| u == 0 || u == 1);
    unit.map_or(!choreo_robot::is_hand(joint), |u| u == 0)
}

/// A value of `joint`'s curve, in radians (a hand's ratio as it is).
fn from_unit(t: Option<&Timeline>, joint: &str, v: f64) -> f64 {
    if in_degrees(t, joint) {
        v.to_radians()
    } else {
        v
    }
}

/// A value in radians (a hand's ratio), in `joint`'s curve's unit.
fn to_unit(t: Option<&Timeline>, joint: &str, v: f64) -> f64 {
    if in_degrees(t, joint) {
        v.to_degrees()
    } else {
        v
    }
}

/// The page's timeline change (`op` and its fields: docs/editor.md), values in radians.
fn timeline_change(
    t: Option<&Timeline>,
    robot: Model,
    v: &Value,
) -> Result<TimelineEdit, WireError> {
    let op = v["op"]
        .as_str()
        .ok_or_else(|| malformed("a timeline change needs an op"))?;
    let opt_int = |f: &str| match &v[f] {
        Value::Null => Ok(None),
        _ => int(v, f).map(Some),
    };
    Ok(match op {
        "frames" => TimelineEdit::Frames {
            fps: opt_int("fps")?,
            start: opt_int("start")?,
            end: opt_int("end")?,
        },
        "add_layer" => TimelineEdit::AddLayer {
            name: string(v, "name")?,
        },
        "rename_layer" => TimelineEdit::RenameLayer {
            layer: index(&v["layer"])?,
            name: string(v, "name")?,
        },
        "delete_layer" => TimelineEdit::DeleteLayer {
            layer: index(&v["layer"])?,
        },
        "add_keyframe" => TimelineEdit::AddKeyframe {
            layer: index(&v["layer"])?,
            name: string(v, "name")?,
            index: int(v, "index")?,
        },
        "set_keyframe" => TimelineEdit::SetKeyframe {
            layer: index(&v["layer"])?,
            keyframe: index(&v["keyframe"])?,
            name: v["name"].as_str().map(str::to_string),
            index: opt_int("index")?,
        },
        "delete_keyframe" => TimelineEdit::DeleteKeyframe {
            layer: index(&v["layer"])?,
            keyframe: index(&v["keyframe"])?,
        },
        _ => motion_change(t, robot, op, v)?,
    })
}

/// The page's change to motion keys (`op` `keys`, `move_key`, `delete_keys`,
/// `interpolation`), values in radians.
fn motion_change(
    t: Option<&Timeline>,
    robot: Model,
    op: &str,
    v: &Value,
) -> Result<TimelineEdit, WireError> {
    let number = |f: &str| {
        v[f].as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| malformed(&format!("{f} is a number")))
    };
    Ok(match op {
        "keys" => {
            let joints = v["joints"]
                .as_object()
                .ok_or_else(|| malformed("keys needs joints: {name: radians}"))?;
            let mut keys = Vec::new();
            for (joint, value) in joints {
                let value = value
                    .as_f64()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| malformed(&format!("{joint}: not a number")))?;
                keys.push((joint.clone(), to_unit(t, joint, value)));
            }
            TimelineEdit::SetKeys {
                frame: int(v, "frame")?,
                keys,
                robot,
            }
        }
        "move_key" => {
            let actuator = string(v, "actuator")?;
            let value = match &v["value"] {
                Value::Null => None,
                _ => Some(to_unit(t, &actuator, number("value")?)),
            };
            TimelineEdit::MoveKey {
                frame: int(v, "frame")?,
                to: int(v, "to")?,
                value,
                robot,
                actuator,
            }
        }
        "delete_keys" => TimelineEdit::DeleteKeys {
            frame: int(v, "frame")?,
            actuators: v["actuators"]
                .as_array()
                .ok_or_else(|| malformed("delete_keys needs actuators"))?
                .iter()
                .map(|a| {
                    a.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| malformed("an actuator is a name"))
                })
                .collect::<Result<_, _>>()?,
        },
        "interpolation" => {
            let actuator = string(v, "actuator")?;
            let side = match v["side"].as_str() {
                Some("left") => TangentSide::Left,
                Some("right") => TangentSide::Right,
                _ => return Err(malformed("side is left or right")),
            };
            let how = match v["how"].as_str() {
                Some("auto") => Interpolation::Auto,
                Some("constant") => Interpolation::Constant,
                Some("linear") => Interpolation::Linear,
                Some("bezier") => Interpolation::Bezier {
                    abscissa: number("abscissa")?,
                    ordinate: to_unit(t, &actuator, number("ordinate")?),
                },
                _ => return Err(malformed("how is auto, constant, linear or bezier")),
            };
            TimelineEdit::SetInterpolation {
                frame: int(v, "frame")?,
                side,
                how,
                actuator,
            }
        }
        other => {
            return Err(malformed(&format!(
                "no timeline change is called {other:?}"
            )));
        }
    })
}

/// The page's change to a box's fields (docs/editor.md), types and natures by their short
/// names (`bang`, `onStart`, `punctual`, `int`).
fn field_change(kind: &str, v: &Value) -> Result<BoxFieldEdit, WireError> {
    fn named<T: Copy>(all: &[(T, &str)], v: &Value, what: &str) -> Result<T, WireError> {
        let name = v.as_str().unwrap_or_default();
        all.iter()
            .find(|(_, n)| *n == name)
            .map(|(t, _)| *t)
            .ok_or_else(|| {
                let names: Vec<&str> = all.iter().map(|(_, n)| *n).collect();
                malformed(&format!("{what} is one of {}", names.join(", ")))
            })
    }
    let new_port = |p: &Value| -> Result<NewPort, WireError> {
        let (name, tooltip) = (
            string(p, "name")?,
            p["tooltip"].as_str().unwrap_or_default().to_string(),
        );
        Ok(match p["kind"].as_str() {
            Some("input") => NewPort::Input {
                port_type: named(PortType::NAMES, &p["type"], "a port's type")?,
                nature: named(InputNature::NAMES, &p["nature"], "an input's nature")?,
                name,
                tooltip,
            },
            Some("output") => NewPort::Output {
                port_type: named(PortType::NAMES, &p["type"], "a port's type")?,
                nature: named(OutputNature::NAMES, &p["nature"], "an output's nature")?,
                name,
                tooltip,
            },
            Some("parameter") => NewPort::Parameter {
                content_type: named(ContentType::NAMES, &p["type"], "a parameter's type")?,
                value: parameter_value(&p["value"])?,
                min: p["min"].as_f64(),
                max: p["max"].as_f64(),
                name,
                tooltip,
            },
            _ => return Err(malformed("a port is an input, an output or a parameter")),
        })
    };
    Ok(match kind {
        "port_add" => BoxFieldEdit::AddPort(new_port(&v["port"])?),
        // The port named (`name`, `port_kind`) takes the fields of `port`, keeping its id.
        "port_change" => BoxFieldEdit::ChangePort {
            name: string(v, "name")?,
            kind: string(v, "port_kind")?,
            port: new_port(&v["port"])?,
        },
        "port_remove" => BoxFieldEdit::RemovePort {
            name: string(v, "name")?,
            kind: string(v, "port_kind")?,
        },
        "resource_add" => BoxFieldEdit::AddResource {
            name: string(v, "name")?,
            lock: v["lock"].as_str().unwrap_or("Lock").to_string(),
        },
        _ => BoxFieldEdit::RemoveResource {
            name: string(v, "name")?,
        },
    })
}

/// A ref as the page writes it.
pub fn steps(at: &BoxRef) -> Value {
    json!(
        at.0.iter()
            .map(|s| json!([s.layer, s.keyframe, s.id]))
            .collect::<Vec<_>>()
    )
}

/// A diagram as the page sends it: `{"owner": REF, "layer": 0, "keyframe": 0}`.
fn diagram_ref(v: &Value) -> Result<DiagramRef, WireError> {
    Ok(DiagramRef {
        owner: box_ref(&v["owner"])?,
        layer: index(&v["layer"])?,
        keyframe: index(&v["keyframe"])?,
    })
}

/// A link named as the page draws it (`from`/`to`: `{"box": id or null, "port": name}`,
/// `to` with `"kind": "parameter"` for a parameter), as the file names it.
fn link(document: &Document, at: &DiagramRef, v: &Value) -> Result<LinkRef, WireError> {
    let owner = document.box_def(&at.owner)?;
    let diagram = document.diagram(at)?;
    let (from, to) = (&v["from"], &v["to"]);
    let end = |end: &Value| -> Result<(i32, &BoxDef), WireError> {
        match &end["box"] {
            Value::Null => Ok((0, owner)),
            id => {
                let id = id
                    .as_i64()
                    .and_then(|i| i32::try_from(i).ok())
                    .ok_or_else(|| malformed("a link's box is an id, or null for the owner"))?;
                let b = diagram.box_by_id(id).ok_or_else(|| {
                    EditError::NotFound(format!("the diagram has no box with id {id}"))
                })?;
                Ok((id, b))
            }
        }
    };
    let ((from_box, source), (to_box, target)) = (end(from)?, end(to)?);
    let from_name = string(from, "port")?;
    let to_name = string(to, "port")?;
    let from_port = port_id(source, &from_name, |p| match p {
        PortRef::Input(_) => from_box == 0,
        PortRef::Output(_) => from_box != 0,
        PortRef::Parameter(_) => false,
    })?;
    let parameter = to["kind"] == "parameter";
    let to_port = port_id(target, &to_name, |p| match p {
        PortRef::Input(_) => to_box != 0 && !parameter,
        PortRef::Parameter(_) => to_box != 0 && parameter,
        PortRef::Output(_) => to_box == 0,
    })?;
    Ok(LinkRef {
        from: from_box,
        from_port,
        to: to_box,
        to_port,
    })
}

/// The id of `b`'s port named `name` of the side `wanted` accepts.
fn port_id(b: &BoxDef, name: &str, wanted: impl Fn(PortRef<'_>) -> bool) -> Result<i32, WireError> {
    let inputs = b.inputs.iter().map(|p| (p.id, PortRef::Input(p), &p.name));
    let outputs = b
        .outputs
        .iter()
        .map(|p| (p.id, PortRef::Output(p), &p.name));
    let parameters = b
        .parameters
        .iter()
        .map(|p| (p.id, PortRef::Parameter(p), &p.name));
    inputs
        .chain(outputs)
        .chain(parameters)
        .find(|(_, p, n)| n.as_str() == name && wanted(*p))
        .map(|(id, _, _)| id)
        .ok_or_else(|| {
            WireError::Edit(EditError::NotFound(format!(
                "{} has no port {name:?} there",
                b.name
            )))
        })
}

/// A parameter's value as the file writes it: text as is, a number as written, a boolean
/// `1` or `0`.
fn parameter_value(v: &Value) -> Result<String, WireError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(if *b { "1" } else { "0" }.to_string()),
        _ => Err(malformed(
            "a parameter's value is text, a number or a boolean",
        )),
    }
}

fn int(v: &Value, field: &str) -> Result<i32, WireError> {
    v[field]
        .as_f64()
        .filter(|f| f.is_finite() && f.abs() < 1e9)
        .map(|f| f.round() as i32)
        .ok_or_else(|| malformed(&format!("{field} is a number")))
}

fn index(v: &Value) -> Result<usize, WireError> {
    v.as_u64()
        .and_then(|i| usize::try_from(i).ok())
        .ok_or_else(|| malformed("a layer or keyframe is an index, 0 or more"))
}

fn string(v: &Value, field: &str) -> Result<String, WireError> {
    v[field]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| malformed(&format!("{field} is text")))
}

fn malformed(why: &str) -> WireError {
    WireError::Malformed(why.to_string())
}
