//! Helpers shared by choreo-motion's tests and its benchmark (which includes this file with
//! `#[path]`): small timelines written as XAR text, tolerance checks, every motion timeline
//! of the shared corpus; and for the `.qianim` tests, libalmath's checks of a v2 document,
//! written again here independently of our reader (which is lenient where libalmath is not).
#![allow(dead_code)] // the benchmark that includes this file uses a part

use std::path::{Path, PathBuf};

use choreo_motion::curve::Curve;
use choreo_motion::{BezierCommand, Interp};
use choreo_robot::Model;
use choreo_xar::model::{ActuatorCurve, BoxDef, Timeline};
use choreo_xar::project_files::{XmlDocument, XmlElement};
use choreo_xar::source::load_bytes;
use choreo_xar::{ErrorKind, read_xar};

/// Degrees to radians (motion.md §4: joint curves are in degrees).
pub const DEG: f64 = std::f64::consts::PI / 180.0;

/// Asserts `|actual − expected| ≤ tol`, naming `what`.
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= tol,
        "{what}: {actual} instead of {expected} (tolerance {tol})"
    );
}

/// One key of an order as sent: time, value, left and right handles as (type, dt, dv).
pub type SentKey = (f64, f64, (Interp, f64, f64), (Interp, f64, f64));

/// The keys the order `c` sends joint `name` (which it must name).
#[track_caller]
pub fn sent(c: &BezierCommand, name: &str) -> Vec<SentKey> {
    let i = c
        .names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("{name} is not in the order {:?}", c.names));
    c.times[i]
        .iter()
        .zip(&c.keys[i])
        .map(|(t, k)| {
            (
                *t,
                k.value,
                (k.left.interp, k.left.dx, k.left.dy),
                (k.right.interp, k.right.dx, k.right.dy),
            )
        })
        .collect()
}

/// Asserts that `got` is `expected`: the same handle types, numbers within 1e-12.
#[track_caller]
pub fn assert_sent(got: &[SentKey], expected: &[SentKey], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: {got:?}");
    for (j, (g, e)) in got.iter().zip(expected).enumerate() {
        let w = format!("{what}, key {j}");
        assert_close(g.0, e.0, 1e-12, &format!("{w}: time"));
        assert_close(g.1, e.1, 1e-12, &format!("{w}: value"));
        for (side, gh, eh) in [("left", g.2, e.2), ("right", g.3, e.3)] {
            assert_eq!(gh.0, eh.0, "{w}: {side} type");
            assert_close(gh.1, eh.1, 1e-12, &format!("{w}: {side} dt"));
            assert_close(gh.2, eh.2, 1e-12, &format!("{w}: {side} dv"));
        }
    }
}

/// The timeline `<Timeline {attrs}><ActuatorList model="">{curves}</ActuatorList></Timeline>`
/// of a box, read with `choreo_xar::read_xar` (so attribute spellings are the reader's).
pub fn xar_timeline(attrs: &str, curves: &str) -> Timeline {
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?><ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3"><Box name="root" id="-1" localization="8" tooltip="" x="0" y="0"><Timeline enable="0"><BehaviorLayer name="behavior_layer1"><BehaviorKeyframe name="keyframe1" index="1"><Diagram><Box name="Motion" id="1" localization="8" tooltip="" x="0" y="0"><Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" /><Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" /><Timeline {attrs}><ActuatorList model="">{curves}</ActuatorList></Timeline></Box></Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#
    );
    let parsed = read_xar("test.xar", xml.as_bytes()).expect("the test timeline reads");
    let root = parsed.value.root_box;
    let boxes = &root.diagrams().next().expect("a diagram").boxes;
    boxes[0].timeline.clone().expect("a timeline")
}

/// A played timeline (`enable="1" fps="{fps}" start_frame="1"`) around `curves`.
pub fn xar_motion(fps: i32, curves: &str) -> Timeline {
    xar_timeline(
        &format!(r#"enable="1" fps="{fps}" start_frame="1" end_frame="-1" size="300""#),
        curves,
    )
}

/// The one curve of `<ActuatorCurve {attrs}>{keys}</ActuatorCurve>`.
pub fn xar_curve(attrs: &str, keys: &str) -> ActuatorCurve {
    let t = xar_timeline(
        r#"enable="1" fps="25""#,
        &format!(r#"<ActuatorCurve name="value" {attrs}>{keys}</ActuatorCurve>"#),
    );
    t.actuator_list.expect("an actuator list").curves.remove(0)
}

/// `<Key frame value/>` elements for `(frame, value)` pairs (no tangent: Bezier-auto).
pub fn auto_keys(keys: &[(i32, f64)]) -> String {
    keys.iter()
        .map(|(f, v)| format!(r#"<Key frame="{f}" value="{v}" />"#))
        .collect()
}

/// The robot a corpus timeline is played on: the model its joints or hint name, else NAO.
pub fn robot_for(t: &Timeline) -> Model {
    t.actuator_list
        .as_ref()
        .and_then(|l| {
            Model::detect(
                l.model.as_deref(),
                l.curves.iter().map(|c| c.actuator.as_str()),
            )
        })
        .unwrap_or(Model::Nao)
}

/// A timeline with an `ActuatorList` found in the corpus.
pub struct CorpusTimeline {
    /// The file, from the corpus folder on (an archive's member as `archive!member`).
    pub file: String,
    /// The box holding it, as a path of box names from the root.
    pub path: String,
    /// The timeline.
    pub timeline: Timeline,
}

/// What [`corpus_timelines`] read.
#[derive(Default)]
pub struct CorpusMotion {
    /// Every timeline that has an `ActuatorList`, in file order.
    pub timelines: Vec<CorpusTimeline>,
    /// `.xar` files read.
    pub xar_files: usize,
    /// `.crg`/`.cbl` archives loaded.
    pub archives: usize,
    /// Behaviors read (a `.xar` is one; an archive holds any number).
    pub behaviors: usize,
    /// Timelines seen (flow-diagram holders included).
    pub all_timelines: usize,
    /// Files that could not be read: the merge-conflict file (`conflicts`), others here.
    pub unreadable: Vec<String>,
    /// Files refused as merge conflicts.
    pub conflicts: usize,
}

impl CorpusMotion {
    fn add_behavior(&mut self, file: &str, root: &BoxDef) {
        self.behaviors += 1;
        walk(root, &root.name, &mut |path, b| {
            let Some(t) = &b.timeline else { return };
            self.all_timelines += 1;
            if t.actuator_list.is_some() {
                self.timelines.push(CorpusTimeline {
                    file: file.to_string(),
                    path: path.to_string(),
                    timeline: t.clone(),
                });
            }
        });
    }
}

/// Calls `f` with the path (box names joined by `/`) of `b` and of every box below it.
fn walk(b: &BoxDef, path: &str, f: &mut dyn FnMut(&str, &BoxDef)) {
    f(path, b);
    for d in b.diagrams() {
        for child in &d.boxes {
            walk(child, &format!("{path}/{}", child.name), f);
        }
    }
}

/// The behavior files below `dir`: `.xar`, and `.crg`/`.cbl` archives.
pub fn behavior_files(dir: &Path) -> Vec<PathBuf> {
    choreo_testkit::files_under(dir, &|p| {
        choreo_testkit::has_extension(p, &["xar", "crg", "cbl"])
    })
}

/// Every timeline with an `ActuatorList` in the behavior files below `dir` (read here, so
/// that a benchmark can leave reading out of its timings).
pub fn corpus_timelines(dir: &Path) -> CorpusMotion {
    let mut out = CorpusMotion::default();
    for f in behavior_files(dir) {
        // Named from the corpus folder on, for short messages.
        let name = f.strip_prefix(dir).unwrap_or(&f).display().to_string();
        let bytes = std::fs::read(&f).expect("corpus file readable");
        if choreo_testkit::has_extension(&f, &["xar"]) {
            out.xar_files += 1;
            match read_xar(&name, &bytes) {
                Ok(parsed) => out.add_behavior(&name, &parsed.value.root_box),
                Err(e) if e.kind() == ErrorKind::MergeConflict => out.conflicts += 1,
                Err(e) => out.unreadable.push(format!("{name}: {e}")),
            }
        } else {
            out.archives += 1;
            match load_bytes(&name, &bytes) {
                Ok(project) => {
                    for b in &project.behaviors {
                        out.add_behavior(&format!("{name}!{}", b.path), &b.xar.root_box);
                    }
                }
                Err(e) => out.unreadable.push(format!("{name}: {e}")),
            }
        }
    }
    out
}

/// What libalmath's `get_animation` + `Animation::check_all` require of a document; the
/// first breach found, in words.
pub fn libalmath_accepts(text: &str) -> Result<(), String> {
    let doc = XmlDocument::parse("out.qianim", text.as_bytes()).map_err(|e| e.to_string())?;
    let root = &doc.root;
    if root.name != "Animation" {
        return Err(format!("root <{}>", root.name));
    }
    if root.attribute("typeVersion") != Some("2.0") {
        return Err("typeVersion is not 2.0".into());
    }
    for curve in root.elements().filter(|e| e.name == "ActuatorCurve") {
        let actuator = attr(curve, "actuator")?;
        let fps: i32 = parse(curve, "fps")?;
        if fps <= 0 {
            return Err(format!("{actuator}: fps {fps}"));
        }
        if let Some(mute) = curve.attribute("mute")
            && !["0", "1", "true", "false"].contains(&mute)
        {
            return Err(format!("{actuator}: mute {mute:?}"));
        }
        let unit = attr(curve, "unit")?;
        if !["degree", "radian", "dimensionless", "meter"].contains(&unit) {
            return Err(format!("{actuator}: unit {unit:?}"));
        }
        let keys: Vec<&XmlElement> = curve.elements().filter(|e| e.name == "Key").collect();
        for k in &keys {
            let frame: i32 = parse(k, "frame")?;
            if frame < 0 {
                return Err(format!("{actuator}: frame {frame}"));
            }
            let _: f64 = parse(k, "value")?;
        }
        for pair in keys.windows(2) {
            let (k0, k3) = (pair[0], pair[1]);
            let (f0, f3): (i32, i32) = (parse(k0, "frame")?, parse(k3, "frame")?);
            let right = tangent(k0, "right")
                .ok_or_else(|| format!("{actuator}: key {f0} has no right Tangent"))?;
            let left = tangent(k3, "left")
                .ok_or_else(|| format!("{actuator}: key {f3} has no left Tangent"))?;
            let (a1, _o1): (f64, f64) = (
                parse(right, "abscissaParam")?,
                parse(right, "ordinateParam")?,
            );
            let (a2, _o2): (f64, f64) =
                (parse(left, "abscissaParam")?, parse(left, "ordinateParam")?);
            let delta = f3 - f0;
            if delta <= 0 {
                return Err(format!("{actuator}: frames {f0}, {f3} not increasing"));
            }
            let delta = f64::from(delta);
            if !(0.0..=delta).contains(&a1) || !(-delta..=0.0).contains(&a2) {
                return Err(format!(
                    "{actuator}: abscissa out of bounds between {f0} and {f3}"
                ));
            }
        }
    }
    Ok(())
}

/// The first `Tangent` of `key` on `side`, as libalmath's `get_tangent_optional` finds it.
fn tangent<'a>(key: &'a XmlElement, side: &str) -> Option<&'a XmlElement> {
    key.elements()
        .filter(|e| e.name == "Tangent")
        .find(|t| t.attribute("side") == Some(side))
}

fn attr<'a>(el: &'a XmlElement, name: &str) -> Result<&'a str, String> {
    el.attribute(name)
        .ok_or_else(|| format!("<{}> without {name}", el.name))
}

fn parse<T: std::str::FromStr>(el: &XmlElement, name: &str) -> Result<T, String> {
    let text = attr(el, name)?;
    text.parse()
        .map_err(|_| format!("<{} {name}={text:?}> is not a number", el.name))
}

/// The frames where `a` and `b` differ by more than `tolerance` (in ALMotion units), from
/// one frame before their first key to one after their last, every tenth of a frame.
pub fn differing_frames(a: &Curve, b: &Curve, tolerance: f64) -> Vec<f64> {
    let (sa, sb) = (a.spline(), b.spline());
    let from = a.first_frame().min(b.first_frame()) - 1;
    let to = a.last_frame().max(b.last_frame()) + 1;
    (from * 10..=to * 10)
        .map(|tenth| f64::from(tenth) / 10.0)
        .filter(|&f| {
            let (va, vb) = (sa.eval(f), sb.eval(f));
            match (va, vb) {
                (Some(x), Some(y)) => (x - y).abs() > tolerance,
                _ => va.is_some() != vb.is_some(),
            }
        })
        .collect()
}
