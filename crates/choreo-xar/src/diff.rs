//! Semantic differences between two behaviors.
//!
//! Compares what a behavior *does*: boxes (matched by id within their diagram, as links
//! match them), ports, parameters, resources, scripts, links, timelines, keyframes and motion
//! curves. How the file is written (attribute order, child order, name casing, number
//! spelling, indentation) never counts. Editor-only data (positions, tooltips, icons, plugin
//! state, zoom, ruler size) counts only when asked for with [`DiffOptions::editor`].
//!
//! Each difference comes with the lines that show it: a script's changed lines as unified-diff
//! hunks; a curve whose keys all moved by the same frames, or whose values were all scaled by
//! one factor, in one line.

use std::fmt::{self, Debug, Write as _};

use crate::Real;
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
    /// The lines that show it, for a reader: a script's changed lines as unified-diff hunks.
    pub details: Vec<String>,
    /// More lines, for who asks for them (`choreo diff -v`): each key of changed curves.
    pub more: Vec<String>,
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
        self.note_with(path, what, Vec::new(), Vec::new());
    }

    fn note_with(&mut self, path: &str, what: String, details: Vec<String>, more: Vec<String>) {
        self.out.push(Difference {
            path: path.to_string(),
            what,
            details,
            more,
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
            self.note_with(
                path,
                format!("script changed ({la} -> {lb} lines, first difference at line {first})"),
                line_hunks(ca, cb),
                Vec::new(),
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
        // Curves whose keys all moved by one number of frames, by that number.
        let mut shifted: Vec<(i32, &str, usize)> = Vec::new();
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
                    let (ka, kb) = (key_shapes(ca), key_shapes(cb));
                    if ka == kb {
                        continue;
                    }
                    if let Some(by) = shift_of(ca, cb) {
                        shifted.push((by, &ca.actuator, ca.keys.len()));
                        continue;
                    }
                    let more = changed_keys(ca, cb);
                    let what = match scale_of(ca, cb) {
                        Some(factor) => {
                            format!("values of {} keys scaled ×{}", ca.keys.len(), Real(factor))
                        }
                        None => {
                            // A key whose value changed is one difference, not one per side.
                            let changed = ka
                                .iter()
                                .filter(|k| !kb.contains(k))
                                .count()
                                .max(kb.iter().filter(|k| !ka.contains(k)).count());
                            format!(
                                "keys changed ({} -> {} keys, {changed} differ)",
                                ka.len(),
                                kb.len()
                            )
                        }
                    };
                    self.note_with(&here, what, Vec::new(), more);
                }
            }
        }
        // One line per shift, whatever the number of curves that moved by it.
        shifted.sort_by_key(|(by, _, _)| *by);
        for group in shifted.chunk_by(|x, y| x.0 == y.0) {
            let by = group[0].0;
            let keys: usize = group.iter().map(|(_, _, n)| n).sum();
            let names: Vec<&str> = group.iter().map(|(_, name, _)| *name).collect();
            self.note_with(
                path,
                format!(
                    "{keys} keys of {} curve(s) moved {by:+} frame(s)",
                    group.len()
                ),
                vec![format!("curves: {}", names.join(", "))],
                Vec::new(),
            );
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

/// A key's handles as compared: side, abscissa and ordinate.
type Handles = Vec<(TangentSide, f64, f64)>;

/// A curve's keys as compared: frame, value and handles.
fn key_shapes(c: &ActuatorCurve) -> Vec<(i32, f64, Handles)> {
    c.keys
        .iter()
        .map(|k| (k.frame, k.value, key_shapes_one(k)))
        .collect()
}

/// The number of frames every key of `a` moved by to become `b` (values and handles
/// alike), if that is all that changed.
fn shift_of(a: &ActuatorCurve, b: &ActuatorCurve) -> Option<i32> {
    let (first_a, first_b) = (a.keys.first()?, b.keys.first()?);
    let by = first_b.frame.checked_sub(first_a.frame)?;
    let same = a.keys.len() == b.keys.len()
        && by != 0
        && a.keys.iter().zip(&b.keys).all(|(x, y)| {
            x.frame.checked_add(by) == Some(y.frame)
                && x.value == y.value
                && key_shapes_one(x) == key_shapes_one(y)
        });
    same.then_some(by)
}

/// The one factor every key value of `a` was multiplied by to become `b`, frames alike.
fn scale_of(a: &ActuatorCurve, b: &ActuatorCurve) -> Option<f64> {
    if a.keys.len() != b.keys.len() || a.keys.iter().zip(&b.keys).any(|(x, y)| x.frame != y.frame) {
        return None;
    }
    let factor = a
        .keys
        .iter()
        .zip(&b.keys)
        .find(|(x, _)| x.value != 0.0)
        .map(|(x, y)| y.value / x.value)?;
    let same = a.keys.iter().zip(&b.keys).all(|(x, y)| {
        let want = x.value * factor;
        (y.value - want).abs() <= 1e-9 * want.abs().max(1.0)
    });
    (same && factor != 1.0 && factor.is_finite()).then_some(factor)
}

/// Each key that differs: `frame 12: 0.5 -> 0.7`, `frame 30: removed`, `frame 31: added`.
fn changed_keys(a: &ActuatorCurve, b: &ActuatorCurve) -> Vec<String> {
    let mut out = Vec::new();
    for ka in &a.keys {
        match b.keys.iter().find(|kb| kb.frame == ka.frame) {
            None => out.push(format!("frame {}: {} removed", ka.frame, Real(ka.value))),
            Some(kb) if kb.value != ka.value => out.push(format!(
                "frame {}: {} -> {}",
                ka.frame,
                Real(ka.value),
                Real(kb.value)
            )),
            Some(kb) if key_shapes_one(ka) != key_shapes_one(kb) => {
                out.push(format!("frame {}: handles changed", ka.frame));
            }
            Some(_) => {}
        }
    }
    for kb in b
        .keys
        .iter()
        .filter(|kb| !a.keys.iter().any(|ka| ka.frame == kb.frame))
    {
        out.push(format!("frame {}: {} added", kb.frame, Real(kb.value)));
    }
    out
}

fn key_shapes_one(k: &Key) -> Handles {
    k.tangents
        .iter()
        .map(|t| (t.side, t.abscissa_param, t.ordinate_param))
        .collect()
}

/// Most lines of a script compared line by line (longer ones get only the summary).
const MAX_DIFF_CELLS: usize = 4_000_000;

/// The changed lines of two scripts as unified-diff hunks without context:
/// `@@ -12,2 +12,3 @@`, then `-old` and `+new` lines. A longest common subsequence of lines
/// decides what is kept; scripts too long for that get none.
fn line_hunks(a: &str, b: &str) -> Vec<String> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let (n, m) = (la.len(), lb.len());
    if (n + 1).saturating_mul(m + 1) > MAX_DIFF_CELLS {
        return Vec::new();
    }
    // lcs[i][j]: the longest common subsequence of la[i..] and lb[j..].
    let width = m + 1;
    let mut lcs = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * width + j] = if la[i] == lb[j] {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    // The open hunk: where it starts in each script, its removed and its added lines.
    type Hunk = (usize, usize, Vec<String>, Vec<String>);
    let mut hunk: Option<Hunk> = None;
    let mut flush = |hunk: &mut Option<Hunk>, i: usize, j: usize| {
        if let Some((si, sj, minus, plus)) = hunk.take() {
            out.push(format!(
                "@@ -{},{} +{},{} @@",
                si + 1,
                i - si,
                sj + 1,
                j - sj
            ));
            out.extend(minus);
            out.extend(plus);
        }
    };
    while i < n || j < m {
        if i < n && j < m && la[i] == lb[j] {
            flush(&mut hunk, i, j);
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j]) {
            let h = hunk.get_or_insert((i, j, Vec::new(), Vec::new()));
            h.3.push(format!("+{}", lb[j]));
            j += 1;
        } else {
            let h = hunk.get_or_insert((i, j, Vec::new(), Vec::new()));
            h.2.push(format!("-{}", la[i]));
            i += 1;
        }
    }
    flush(&mut hunk, i, j);
    out
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

    #[test]
    fn changed_script_lines_come_as_hunks() {
        let a = "a = 1\nb = 2\nc = 3\nd = 4\n";
        let b = "a = 1\nb = 20\nc = 3\nd = 4\ne = 5\n";
        assert_eq!(
            line_hunks(a, b),
            vec![
                "@@ -2,1 +2,1 @@",
                "-b = 2",
                "+b = 20",
                "@@ -5,0 +5,1 @@",
                "+e = 5"
            ]
        );
        assert_eq!(line_hunks("x\ny\n", "y\n"), vec!["@@ -1,1 +1,0 @@", "-x"]);
        assert!(line_hunks(a, a).is_empty());
    }
}
