//! Semantic differences between two behaviors.
//!
//! Compares what a behavior *does*: boxes (matched by id within their diagram, as links
//! match them), ports, parameters, resources, scripts, links, timelines, keyframes and motion
//! curves. How the file is written (attribute order, child order, name casing, number
//! spelling, indentation) never counts. Editor-only data (positions, tooltips, icons, plugin
//! state, zoom, ruler size) counts only when asked for with [`DiffOptions::editor`].

use std::fmt::{self, Debug, Write as _};

use crate::model::*;

/// What to compare.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiffOptions {
    /// Also report editor-only differences (positions, tooltips, icons, plugin state, ...).
    pub editor: bool,
}

/// One difference, at a place in the box tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Where: box path and element, e.g. `root/Dance/Timeline`.
    pub path: String,
    /// What differs, in words (`fps: 25 -> 30`, `box "Say" (id 3) added`).
    pub what: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.what)
    }
}

/// The differences between behaviors `a` and `b` (empty: equal).
pub fn diff(a: &XarFile, b: &XarFile, options: DiffOptions) -> Vec<Difference> {
    let mut d = Differ {
        options,
        out: Vec::new(),
    };
    if a.root != b.root {
        d.note("", format!("root kind: {:?} -> {:?}", a.root, b.root));
    }
    d.boxes(&a.root_box, &b.root_box, &a.root_box.name);
    d.out
}

struct Differ {
    options: DiffOptions,
    out: Vec<Difference>,
}

/// Shows an optional value: the value, or `(none)`.
fn show<T: Debug>(v: &Option<T>) -> String {
    match v {
        Some(x) => format!("{x:?}"),
        None => "(none)".to_string(),
    }
}

impl Differ {
    fn note(&mut self, path: &str, what: String) {
        self.out.push(Difference {
            path: path.to_string(),
            what,
        });
    }

    fn field<T: PartialEq + Debug>(&mut self, path: &str, name: &str, a: &T, b: &T) {
        if a != b {
            self.note(path, format!("{name}: {a:?} -> {b:?}"));
        }
    }

    fn opt<T: PartialEq + Debug>(&mut self, path: &str, name: &str, a: &Option<T>, b: &Option<T>) {
        if a != b {
            self.note(path, format!("{name}: {} -> {}", show(a), show(b)));
        }
    }

    fn editor_field<T: PartialEq + Debug>(&mut self, path: &str, name: &str, a: &T, b: &T) {
        if self.options.editor {
            self.field(path, name, a, b);
        }
    }

    /// Unknown attributes and children kept from the source: compared as a set of
    /// attributes and a list of raw pieces (their order among known children does not count).
    fn extras(&mut self, path: &str, a: &Extras, b: &Extras) {
        let mut aa = a.attributes().to_vec();
        let mut ab = b.attributes().to_vec();
        aa.sort();
        ab.sort();
        if aa != ab {
            self.note(path, format!("other attributes: {aa:?} -> {ab:?}"));
        }
        if a.children() != b.children() {
            self.note(
                path,
                format!(
                    "other content: {} piece(s) -> {} piece(s)",
                    a.children().len(),
                    b.children().len()
                ),
            );
        }
    }

    fn boxes(&mut self, a: &BoxDef, b: &BoxDef, path: &str) {
        self.field(path, "name", &a.name, &b.name);
        self.editor_field(path, "tooltip", &a.tooltip, &b.tooltip);
        self.editor_field(path, "position", &(a.x, a.y), &(b.x, b.y));
        self.editor_field(path, "localization", &a.localization, &b.localization);
        self.editor_field(path, "bitmaps", &a.bitmaps, &b.bitmaps);
        self.editor_field(path, "plugin", &a.plugin, &b.plugin);
        self.editor_field(path, "pluginContent", &a.plugin_content, &b.plugin_content);
        self.opt(path, "dialogFile", &a.dialog_file, &b.dialog_file);
        self.extras(path, &a.extras, &b.extras);
        self.script(path, a, b);
        self.ports(path, "input", &a.inputs, &b.inputs);
        self.ports(path, "output", &a.outputs, &b.outputs);
        self.parameters(path, &a.parameters, &b.parameters);
        self.resources(path, &a.resources, &b.resources);
        match (&a.timeline, &b.timeline) {
            (Some(ta), Some(tb)) => self.timeline(path, ta, tb),
            (None, None) => {}
            (ta, tb) => self.note(
                path,
                format!(
                    "timeline: {} -> {}",
                    if ta.is_some() { "present" } else { "none" },
                    if tb.is_some() { "present" } else { "none" }
                ),
            ),
        }
    }

    fn script(&mut self, path: &str, a: &BoxDef, b: &BoxDef) {
        let lang = |x: &BoxDef| x.script.as_ref().and_then(|s| s.language);
        self.opt(path, "script language", &lang(a), &lang(b));
        let (ca, cb) = (a.code(), b.code());
        if ca != cb {
            let (la, lb) = (ca.lines().count(), cb.lines().count());
            let first = ca
                .lines()
                .zip(cb.lines())
                .position(|(x, y)| x != y)
                .unwrap_or(la.min(lb))
                + 1;
            self.note(
                path,
                format!("script changed ({la} -> {lb} lines, first difference at line {first})"),
            );
        }
    }

    fn ports<N: PartialEq + Debug + Copy>(
        &mut self,
        path: &str,
        kind: &str,
        a: &[Port<N>],
        b: &[Port<N>],
    ) {
        let key = |p: &Port<N>| {
            let memory_key = p.stm_value_name.clone();
            (
                p.port_type,
                p.type_size(),
                p.nature,
                memory_key,
                p.is_inner(),
                p.id,
            )
        };
        for pa in a {
            match b.iter().find(|pb| pb.name == pa.name) {
                None => self.note(path, format!("{kind} {:?} removed", pa.name)),
                Some(pb) => {
                    let (ka, kb) = (key(pa), key(pb));
                    if ka != kb {
                        self.note(path, format!("{kind} {:?}: {ka:?} -> {kb:?}", pa.name));
                    }
                    self.editor_field(path, "port tooltip", &pa.tooltip, &pb.tooltip);
                    self.extras(path, &pa.extras, &pb.extras);
                }
            }
        }
        for pb in b.iter().filter(|pb| !a.iter().any(|pa| pa.name == pb.name)) {
            self.note(path, format!("{kind} {:?} added", pb.name));
        }
    }

    fn parameters(&mut self, path: &str, a: &[Parameter], b: &[Parameter]) {
        for pa in a {
            let Some(pb) = b.iter().find(|pb| pb.name == pa.name) else {
                self.note(path, format!("parameter {:?} removed", pa.name));
                continue;
            };
            let here = format!("{path} parameter {:?}", pa.name);
            self.field(&here, "content_type", &pa.content_type, &pb.content_type);
            self.opt(&here, "value", &pa.value, &pb.value);
            self.opt(&here, "default_value", &pa.default_value, &pb.default_value);
            self.field(&here, "inherits", &pa.inherits(), &pb.inherits());
            self.opt(&here, "min", &pa.min, &pb.min);
            self.opt(&here, "max", &pa.max, &pb.max);
            self.field(&here, "id", &pa.id, &pb.id);
            let choices = |p: &Parameter| {
                p.choices
                    .iter()
                    .map(|c| c.value.clone())
                    .collect::<Vec<_>>()
            };
            self.field(&here, "choices", &choices(pa), &choices(pb));
            self.opt(&here, "custom_choice", &pa.custom_choice, &pb.custom_choice);
            self.opt(&here, "password", &pa.password, &pb.password);
            self.editor_field(&here, "tooltip", &pa.tooltip, &pb.tooltip);
            self.extras(&here, &pa.extras, &pb.extras);
        }
        for pb in b.iter().filter(|pb| !a.iter().any(|pa| pa.name == pb.name)) {
            self.note(path, format!("parameter {:?} added", pb.name));
        }
    }

    fn resources(&mut self, path: &str, a: &[Resource], b: &[Resource]) {
        let key = |r: &Resource| (r.name.clone(), r.lock_type.clone(), r.timeout);
        let ka: Vec<_> = a.iter().map(key).collect();
        let kb: Vec<_> = b.iter().map(key).collect();
        for r in ka.iter().filter(|r| !kb.contains(r)) {
            self.note(path, format!("resource {r:?} removed"));
        }
        for r in kb.iter().filter(|r| !ka.contains(r)) {
            self.note(path, format!("resource {r:?} added"));
        }
    }

    fn timeline(&mut self, path: &str, a: &Timeline, b: &Timeline) {
        let here = if a.is_enabled() || b.is_enabled() {
            format!("{path}/Timeline")
        } else {
            path.to_string()
        };
        self.field(&here, "enable", &a.is_enabled(), &b.is_enabled());
        self.field(&here, "fps", &a.fps(), &b.fps());
        self.field(&here, "start_frame", &a.start_frame(), &b.start_frame());
        self.field(&here, "end_frame", &a.end_frame(), &b.end_frame());
        self.field(
            &here,
            "resources_acquisition",
            &a.resources_acquisition(),
            &b.resources_acquisition(),
        );
        self.editor_field(&here, "size", &a.size, &b.size);
        self.extras(&here, &a.extras, &b.extras);
        if a.layers.len() != b.layers.len() {
            self.note(
                &here,
                format!("behavior layers: {} -> {}", a.layers.len(), b.layers.len()),
            );
        }
        for (i, (la, lb)) in a.layers.iter().zip(&b.layers).enumerate() {
            let lpath = if a.is_enabled() {
                format!("{here}/BehaviorLayer[{}]", i + 1)
            } else {
                here.clone()
            };
            self.field(&lpath, "layer name", &la.name, &lb.name);
            self.field(
                &lpath,
                "mute",
                &la.mute.unwrap_or(false),
                &lb.mute.unwrap_or(false),
            );
            if la.keyframes.len() != lb.keyframes.len() {
                self.note(
                    &lpath,
                    format!(
                        "keyframes: {} -> {}",
                        la.keyframes.len(),
                        lb.keyframes.len()
                    ),
                );
            }
            for (j, (ka, kb)) in la.keyframes.iter().zip(&lb.keyframes).enumerate() {
                let kpath = if a.is_enabled() {
                    format!("{lpath}/BehaviorKeyframe[{}]", j + 1)
                } else {
                    lpath.clone()
                };
                self.field(&kpath, "keyframe name", &ka.name, &kb.name);
                self.field(&kpath, "index", &ka.index, &kb.index);
                match (&ka.diagram, &kb.diagram) {
                    (Some(da), Some(db)) => self.diagram(&kpath, da, db),
                    (None, None) => {}
                    _ => self.note(&kpath, "diagram added or removed".to_string()),
                }
            }
        }
        match (&a.actuator_list, &b.actuator_list) {
            (Some(la), Some(lb)) => self.curves(&here, la, lb),
            (None, None) => {}
            _ => self.note(&here, "motion curves added or removed".to_string()),
        }
    }

    fn diagram(&mut self, path: &str, a: &Diagram, b: &Diagram) {
        self.editor_field(path, "diagram scale", &a.scale, &b.scale);
        self.extras(path, &a.extras, &b.extras);
        for ba in &a.boxes {
            match b.box_by_id(ba.id) {
                Some(bb) => self.boxes(ba, bb, &format!("{path}/{}", ba.name)),
                None => self.note(path, format!("box {:?} (id {}) removed", ba.name, ba.id)),
            }
        }
        for bb in b.boxes.iter().filter(|bb| a.box_by_id(bb.id).is_none()) {
            self.note(path, format!("box {:?} (id {}) added", bb.name, bb.id));
        }
        let describe = |d: &Diagram, l: &Link| {
            let name = |owner: i32| {
                if owner == 0 {
                    "(parent)".to_string()
                } else {
                    d.box_by_id(owner)
                        .map_or_else(|| owner.to_string(), |b| b.name.clone())
                }
            };
            let mut s = String::new();
            let _ = write!(
                s,
                "{}#{} -> {}#{}",
                name(l.output_owner),
                l.index_of_output,
                name(l.input_owner),
                l.index_of_input
            );
            s
        };
        let key = |l: &Link| {
            (
                l.output_owner,
                l.index_of_output,
                l.input_owner,
                l.index_of_input,
            )
        };
        for l in a
            .links
            .iter()
            .filter(|l| !b.links.iter().any(|m| key(m) == key(l)))
        {
            self.note(path, format!("link {} removed", describe(a, l)));
        }
        for l in b
            .links
            .iter()
            .filter(|l| !a.links.iter().any(|m| key(m) == key(l)))
        {
            self.note(path, format!("link {} added", describe(b, l)));
        }
    }

    fn curves(&mut self, path: &str, a: &ActuatorList, b: &ActuatorList) {
        self.opt(path, "actuator model", &a.model, &b.model);
        for ca in &a.curves {
            let here = format!("{path} curve {}", ca.actuator);
            match b.curves.iter().find(|cb| cb.actuator == ca.actuator) {
                None => self.note(path, format!("curve {} removed", ca.actuator)),
                Some(cb) => {
                    self.field(
                        &here,
                        "mute",
                        &ca.mute.unwrap_or(false),
                        &cb.mute.unwrap_or(false),
                    );
                    self.opt(&here, "unit", &ca.unit, &cb.unit);
                    let keys = |c: &ActuatorCurve| {
                        c.keys
                            .iter()
                            .map(|k| {
                                let tangents: Vec<_> = k
                                    .tangents
                                    .iter()
                                    .map(|t| (t.side, t.abscissa_param, t.ordinate_param))
                                    .collect();
                                (k.frame, k.value, tangents)
                            })
                            .collect::<Vec<_>>()
                    };
                    let (ka, kb) = (keys(ca), keys(cb));
                    if ka != kb {
                        // A key whose value changed is one difference, not one per side.
                        let changed = ka
                            .iter()
                            .filter(|k| !kb.contains(k))
                            .count()
                            .max(kb.iter().filter(|k| !ka.contains(k)).count());
                        self.note(
                            &here,
                            format!(
                                "keys changed ({} -> {} keys, {changed} differ)",
                                ka.len(),
                                kb.len()
                            ),
                        );
                    }
                }
            }
        }
        for cb in b
            .curves
            .iter()
            .filter(|cb| !a.curves.iter().any(|ca| ca.actuator == cb.actuator))
        {
            self.note(path, format!("curve {} added", cb.actuator));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const XAR: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xar_version="3"><Box name="root" id="-1" x="0" y="0">
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="1"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="2"/>
<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
<Box name="Say" id="3" x="10" y="20"><script language="4"><content><![CDATA[a = 1
]]></content></script>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="1"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="2"/>
<Parameter name="Speed" inherits_from_parent="0" content_type="1" value="100" default_value="100" min="50" max="200" id="3"/>
</Box>
<Link inputowner="3" indexofinput="1" outputowner="0" indexofoutput="1"/>
<Link inputowner="0" indexofinput="2" outputowner="3" indexofoutput="2"/>
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#;

    fn read(s: &str) -> XarFile {
        crate::read_xar("t.xar", s.as_bytes()).unwrap().value
    }

    #[test]
    fn a_behavior_equals_itself_and_its_rewrite() {
        let a = read(XAR);
        let b = read(&crate::write_xar(&a));
        assert!(diff(&a, &b, DiffOptions { editor: true }).is_empty());
    }

    #[test]
    fn parameter_script_and_link_changes_are_reported() {
        let a = read(XAR);
        let b = read(
            &XAR.replace("value=\"100\" default", "value=\"150\" default")
                .replace("a = 1", "a = 2")
                .replace(
                    "<Link inputowner=\"0\" indexofinput=\"2\" outputowner=\"3\" indexofoutput=\"2\"/>",
                    "",
                ),
        );
        let d: Vec<String> = diff(&a, &b, DiffOptions::default())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            d,
            vec![
                "root/Say: script changed (1 -> 1 lines, first difference at line 1)",
                "root/Say parameter \"Speed\": value: \"100\" -> \"150\"",
                "root: link Say#2 -> (parent)#2 removed",
            ]
        );
    }

    #[test]
    fn positions_count_only_for_editor_diffs() {
        let a = read(XAR);
        let b = read(&XAR.replace("x=\"10\"", "x=\"99\""));
        assert!(diff(&a, &b, DiffOptions::default()).is_empty());
        let d = diff(&a, &b, DiffOptions { editor: true });
        assert_eq!(d.len(), 1);
        assert_eq!(
            d[0].what,
            "position: (Some(10), Some(20)) -> (Some(99), Some(20))"
        );
    }
}
