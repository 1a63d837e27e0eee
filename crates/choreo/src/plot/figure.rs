//! What `choreo plot` draws: a figure of sections (one per timeline, or one for a trace),
//! each with one panel per joint group and a timeline's balance.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use choreo_motion::Motion;
use choreo_robot::{Model, is_hand};
use serde::Deserialize;

use crate::plot::error::PlotError;
use crate::plot::found::Found;

use super::balance::{BalanceView, balance_of};

/// A whole image: a title over sections.
pub struct Figure {
    pub(super) title: String,
    pub(super) sections: Vec<Section>,
}

/// One timeline (or one run): a subtitle over one panel per joint group, and the balance.
pub(super) struct Section {
    pub(super) title: String,
    pub(super) axis: Axis,
    /// The x range shown (frames or seconds).
    pub(super) x: Range<f64>,
    pub(super) panels: Vec<Panel>,
    pub(super) balance: Option<BalanceView>,
}

/// The balance view's height, pixels (its chart is square).
pub(super) const BALANCE_HEIGHT: u32 = 420;

/// What x counts.
#[derive(Debug, Clone, Copy)]
pub(super) enum Axis {
    /// Frames of a timeline at `fps` played from frame `start` (seconds on the top axis).
    Frames { fps: f64, start: f64 },
    /// Seconds of behavior time.
    Seconds,
}

/// One joint group.
pub(super) struct Panel {
    pub(super) name: &'static str,
    /// Opening ratios (0..1), not radians.
    pub(super) hands: bool,
    pub(super) series: Vec<Series>,
}

/// One joint: its curve, and its keys to mark.
pub(super) struct Series {
    pub(super) joint: String,
    pub(super) points: Vec<(f64, f64)>,
    pub(super) keys: Vec<(f64, f64)>,
}

/// Samples per frame along a timeline's curves (fewer on long ones: see [`frames`]).
const SAMPLES_PER_FRAME: f64 = 4.0;

/// The image's width and the parts of its height, in pixels.
pub(super) const WIDTH: u32 = 1600;

pub(super) const TITLE_HEIGHT: u32 = 50;

pub(super) const SECTION_HEIGHT: u32 = 32;

pub(super) const PANEL_HEIGHT: u32 = 240;

/// The joint names on the right of each panel.
pub(super) const LEGEND_WIDTH: u32 = 170;

/// The plotting area's width, about (for the sampling step).
const PLOT_WIDTH: f64 = (WIDTH - LEGEND_WIDTH - 90) as f64;

/// The frames at which a curve from `x.start` to `x.end` is sampled: [`SAMPLES_PER_FRAME`]
/// a frame, or two per pixel column of the plot when that is fewer, both ends included.
pub(super) fn frames(x: &Range<f64>) -> Vec<f64> {
    let span = x.end - x.start;
    let step = (1.0 / SAMPLES_PER_FRAME).max(span / (2.0 * PLOT_WIDTH));
    let n = (span / step).ceil().max(1.0) as usize;
    (0..=n)
        .map(|i| (x.start + i as f64 * step).min(x.end))
        .collect()
}

/// One section per motion timeline found.
pub fn from_motion(found: &Found) -> Figure {
    let sections = found
        .timelines
        .iter()
        .map(|t| {
            let m = &t.motion;
            let start = f64::from(m.start);
            let x = start..f64::from(m.end_frame()).max(start + 1.0);
            let at = frames(&x);
            let samples = m.samples(&at);
            let mut marks = key_marks(m, &x);
            let series = samples
                .into_iter()
                .map(|(joint, values)| Series {
                    joint: joint.to_string(),
                    points: at.iter().copied().zip(values).collect(),
                    keys: marks.remove(joint).unwrap_or_default(),
                })
                .collect();
            let seconds = (x.end - x.start) / f64::from(m.fps);
            Section {
                title: format!(
                    "{}   {} fps, frames {}–{} ({seconds:.1} s), {} joint{}",
                    t.path,
                    m.fps,
                    m.start,
                    m.end_frame(),
                    m.curves.len(),
                    if m.curves.len() == 1 { "" } else { "s" }
                ),
                axis: Axis::Frames {
                    fps: f64::from(m.fps),
                    start,
                },
                x,
                panels: panels(m.robot, series),
                balance: balance_of(m),
            }
        })
        .collect();
    Figure {
        title: format!("{}: motion", found.name),
        sections,
    }
}

/// Each curve's keys within `x`, where the curve is (values clamped as played): the curves
/// sampled at every key frame of the range, each keeping its own.
fn key_marks<'m>(m: &'m Motion, x: &Range<f64>) -> BTreeMap<&'m str, Vec<(f64, f64)>> {
    let inside = |f: i32| (x.start..=x.end).contains(&f64::from(f));
    let mut frames: Vec<i32> = m
        .curves
        .iter()
        .flat_map(|c| c.keys().iter().map(|k| k.frame))
        .filter(|f| inside(*f))
        .collect();
    frames.sort_unstable();
    frames.dedup();
    let at: Vec<f64> = frames.iter().map(|f| f64::from(*f)).collect();
    m.samples(&at)
        .into_iter()
        .filter_map(|(joint, values)| {
            let curve = m.curves.iter().find(|c| c.actuator == joint)?;
            let own = |f: &i32| curve.keys().binary_search_by_key(f, |k| k.frame).is_ok();
            let marks = frames
                .iter()
                .zip(values)
                .filter(|(f, _)| own(f))
                .map(|(f, v)| (f64::from(*f), v))
                .collect();
            Some((joint, marks))
        })
        .collect()
}

/// A `joints` event's own fields.
#[derive(Deserialize)]
struct JointsLine {
    names: Vec<String>,
    values: Vec<f64>,
}

/// One section: each joint of the trace's `joints` events over behavior time.
pub fn from_trace(path: &Path) -> Result<Figure, PlotError> {
    let joints_line = |v: &serde_json::Value| -> Result<JointsLine, String> {
        let j = JointsLine::deserialize(v).map_err(|e| e.to_string())?;
        if j.names.len() != j.values.len() {
            return Err("as many names as values are expected".to_string());
        }
        Ok(j)
    };
    let events = crate::trace_file::events(path, |head, v| {
        if head.event == "joints" {
            joints_line(v)
                .map(|_| ())
                .map_err(crate::trace_file::NotAnEvent)
        } else {
            Ok(())
        }
    })?;
    let mut joints: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut samples = 0usize;
    for (head, event) in events.iter().filter(|(h, _)| h.event == "joints") {
        let Ok(j) = joints_line(event) else { continue };
        samples += 1;
        let t = head.time_ns as f64 / 1e9;
        for (name, value) in j.names.into_iter().zip(j.values) {
            let points = joints.entry(name).or_default();
            // Two timelines playing at once record the robot twice at one instant.
            match points.last_mut() {
                Some(last) if last.0 == t => last.1 = value,
                _ => points.push((t, value)),
            }
        }
    }
    if joints.is_empty() {
        return Err(PlotError::NoJoints(format!(
            "{}: no joints events (`choreo run --trace FILE` records them on the simulated \
             robot while a motion timeline plays)",
            path.display()
        )));
    }
    let times = joints.values().flatten().map(|p| p.0);
    let first = times.clone().fold(f64::INFINITY, f64::min);
    let last = times.fold(f64::NEG_INFINITY, f64::max);
    let model = Model::from_joints(joints.keys()).unwrap_or(Model::Nao);
    let series = joints
        .into_iter()
        .map(|(joint, points)| Series {
            joint,
            points,
            keys: Vec::new(),
        })
        .collect();
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(Figure {
        title: format!("{name}: the simulated joints during the run"),
        sections: vec![Section {
            title: format!("{samples} samples from {first:.2} s to {last:.2} s (behavior time)"),
            axis: Axis::Seconds,
            x: first..last.max(first + 1.0),
            panels: panels(model, series),
            balance: None,
        }],
    })
}

/// `series` in panels by joint group: head, arms, hands, legs (the robot's chains, hands
/// apart), each in the robot's "Body" order; joints of no chain last, as "Other". Empty
/// groups are left out.
pub(super) fn panels(model: Model, series: Vec<Series>) -> Vec<Panel> {
    let group = |joint: &str| -> usize {
        let chain = model.chains().iter().find(|c| {
            let i = model.joint_index(joint);
            model
                .resolve(c)
                .unwrap_or_default()
                .iter()
                .any(|j| Some(*j) == i)
        });
        match chain {
            _ if is_hand(joint) => 2,
            Some(&"Head") => 0,
            Some(c) if c.ends_with("Arm") => 1,
            Some(_) => 3,
            None => 4,
        }
    };
    const NAMES: [&str; 5] = ["Head", "Arms", "Hands", "Legs", "Other"];
    let mut out: Vec<Panel> = NAMES
        .iter()
        .enumerate()
        .map(|(i, name)| Panel {
            name,
            hands: i == 2,
            series: Vec::new(),
        })
        .collect();
    for s in series {
        out[group(&s.joint)].series.push(s);
    }
    for p in &mut out {
        p.series
            .sort_by_key(|s| model.joint_index(&s.joint).unwrap_or(usize::MAX));
    }
    out.retain(|p| !p.series.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_cover_the_range_four_a_frame_or_two_a_pixel() {
        let short = frames(&(1.0..11.0));
        assert_eq!(short.len(), 41);
        assert_eq!((short[0], short[40]), (1.0, 11.0));
        assert!((short[1] - 1.25).abs() < 1e-12);
        let long = frames(&(0.0..100_000.0));
        assert!(long.len() <= 2 * PLOT_WIDTH as usize + 2, "{}", long.len());
        assert_eq!(long.last(), Some(&100_000.0));
    }

    #[test]
    fn joints_are_grouped_by_chain_hands_apart() {
        let series = |names: &[&str]| {
            names
                .iter()
                .map(|n| Series {
                    joint: n.to_string(),
                    points: Vec::new(),
                    keys: Vec::new(),
                })
                .collect()
        };
        let nao = panels(
            Model::Nao,
            series(&[
                "RHand",
                "LKneePitch",
                "HeadPitch",
                "RShoulderPitch",
                "LShoulderPitch",
                "HeadYaw",
                "Nose",
            ]),
        );
        let got: Vec<(&str, Vec<&str>)> = nao
            .iter()
            .map(|p| (p.name, p.series.iter().map(|s| s.joint.as_str()).collect()))
            .collect();
        assert_eq!(
            got,
            [
                ("Head", vec!["HeadYaw", "HeadPitch"]),
                ("Arms", vec!["LShoulderPitch", "RShoulderPitch"]),
                ("Hands", vec!["RHand"]),
                ("Legs", vec!["LKneePitch"]),
                ("Other", vec!["Nose"]),
            ]
        );
        assert!(nao[2].hands && !nao[0].hands);
        let pepper = panels(Model::Pepper, series(&["HipPitch", "LHand"]));
        let names: Vec<&str> = pepper.iter().map(|p| p.name).collect();
        assert_eq!(names, ["Hands", "Legs"]);
    }
}
