//! The `angleInterpolationBezier` arguments a play sends (motion.md §7.1): for a small
//! timeline written by hand, equal to arguments derived by hand; for every motion timeline
//! of the shared corpus, well formed (one list per known joint, times increasing, values
//! within the limits, handles finite and on their sides).

use crate::support;

use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};

use choreo_motion::{BezierCommand, Interp, Motion, Warning};
use choreo_robot::Model;
use choreo_xar::model::Timeline;
use support::{CorpusTimeline, DEG, assert_sent, robot_for, sent, xar_timeline};

use Interp::{Bezier, BezierAuto as Auto, Constant};

/// A timeline at 20 fps, played from frame 1 to its last key (frame 41). In file order:
/// - HeadYaw (unit 0, degrees): auto keys (11, 20), (31, 50), (41, 40);
/// - HeadPitch: muted (left out);
/// - LHand (unit 1, ratio): (1, 0.2) with an explicit right handle (5, 0.3), (21, 0.8) with
///   an explicit left handle (−4, −0.1); the other sides auto;
/// - RHand: no key (left out);
/// - LShoulderPitch (unit −1: degrees): (6, 70) with a constant right side, (16, 100);
/// - LHipYawPitch (no unit: degrees): (1, −10), (41, −20);
/// - RHipYawPitch: the same (left out: it follows LHipYawPitch on NAO);
/// - RElbowRoll (unit 0): one key (1, 100°), beyond its 1.5446 rad (88.5°) limit.
const TIMELINE: &str = r#"
<ActuatorCurve name="value" actuator="HeadYaw" recordable="0" mute="0" unit="0">
  <Key frame="11" value="20" /><Key frame="31" value="50" /><Key frame="41" value="40" />
</ActuatorCurve>
<ActuatorCurve name="value" actuator="HeadPitch" recordable="0" mute="1" unit="0">
  <Key frame="1" value="5" /><Key frame="20" value="10" />
</ActuatorCurve>
<ActuatorCurve name="value" actuator="LHand" recordable="0" mute="0" unit="1">
  <Key frame="1" value="0.2"><Tangent side="right" interpType="bezier" abscissaParam="5" ordinateParam="0.3" /></Key>
  <Key frame="21" value="0.8"><Tangent side="left" interpType="bezier" abscissaParam="-4" ordinateParam="-0.1" /></Key>
</ActuatorCurve>
<ActuatorCurve name="value" actuator="RHand" recordable="0" mute="0" unit="-1" />
<ActuatorCurve name="value" actuator="LShoulderPitch" recordable="0" mute="0" unit="-1">
  <Key frame="6" value="70"><Tangent side="right" interpType="constant" abscissaParam="0" ordinateParam="0" /></Key>
  <Key frame="16" value="100" />
</ActuatorCurve>
<ActuatorCurve name="value" actuator="LHipYawPitch" recordable="0" mute="0">
  <Key frame="1" value="-10" /><Key frame="41" value="-20" />
</ActuatorCurve>
<ActuatorCurve name="value" actuator="RHipYawPitch" recordable="0" mute="0">
  <Key frame="1" value="-10" /><Key frame="41" value="-20" />
</ActuatorCurve>
<ActuatorCurve name="value" actuator="RElbowRoll" recordable="0" mute="0" unit="0">
  <Key frame="1" value="100" />
</ActuatorCurve>
"#;

fn hand_written() -> Motion {
    let t = xar_timeline(
        r#"enable="1" fps="20" start_frame="1" end_frame="-1" size="300""#,
        TIMELINE,
    );
    Motion::from_timeline(&t, Model::Nao).unwrap()
}

#[test]
fn the_hand_written_timeline_is_read_as_intended() {
    let m = hand_written();
    assert_eq!((m.fps, m.start, m.end), (20, 1, None));
    assert_eq!(m.made_for, Some(Model::Nao), "hip joints: a NAO file");
    assert_eq!(m.last_key_frame(), 41);
    assert_eq!(
        m.warnings,
        [
            ("RHipYawPitch".to_string(), Warning::Follower),
            (
                "RElbowRoll".to_string(),
                Warning::Clamped {
                    joint: "RElbowRoll".to_string(),
                    keys: 1,
                    worst: 100.0 * DEG
                }
            ),
        ]
    );
}

#[test]
fn the_order_from_frame_1_is_the_hand_derived_one() {
    // Times are (f − 1)/20 s; handle abscissas are frames/20, ordinates degrees·π/180.
    // The joints are at HeadYaw 0 and LShoulderPitch 60°; the others are unknown (they start
    // at their first key).
    let posture = |name: &str| match name {
        "HeadYaw" => Some(0.0),
        "LShoulderPitch" => Some(60.0 * DEG),
        _ => None,
    };
    let c = hand_written().command_from(1, &posture);
    assert_eq!(
        c.names,
        [
            "HeadYaw",
            "LHand",
            "LShoulderPitch",
            "LHipYawPitch",
            "RElbowRoll"
        ]
    );

    // HeadYaw: a virtual key (1, 0°) in front (§6.4).
    // - key 11 (20°): Δt1 = 10, Δv1 = 20, Δt2 = 20, Δv2 = 30, β = 50/30 = 5/3 °/frame; no
    //   clamp (α·20·5/3 = 11.1 ≤ 30, α·10·5/3 = 5.6 ≤ 20). Left (−10/3, −50/9°): dt −1/6 s;
    //   right (20/3, 100/9°): dt 1/3 s.
    // - key 31 (50°): Δv1 = 30, Δv2 = −10: an extremum, β = 0. Left (−20/3, 0): −1/3 s;
    //   right (10/3, 0): 1/6 s.
    // - key 41 (40°): the last key. Left (−10/3, 0): −1/6 s; right (0, 0).
    assert_sent(
        &sent(&c, "HeadYaw"),
        &[
            (
                0.5,
                20.0 * DEG,
                (Auto, -1.0 / 6.0, -50.0 / 9.0 * DEG),
                (Auto, 1.0 / 3.0, 100.0 / 9.0 * DEG),
            ),
            (
                1.5,
                50.0 * DEG,
                (Auto, -1.0 / 3.0, 0.0),
                (Auto, 1.0 / 6.0, 0.0),
            ),
            (2.0, 40.0 * DEG, (Auto, -1.0 / 6.0, 0.0), (Auto, 0.0, 0.0)),
        ],
        "HeadYaw from 1",
    );
    // LHand (ratio, scale 1): key 1 sits on the start frame, time 0, no virtual key; its
    // left side is an end key's (0, 0); its right handle is explicit: (5/20, 0.3). Key 21:
    // explicit left (−4/20, −0.1), auto right of a last key (0, 0).
    assert_sent(
        &sent(&c, "LHand"),
        &[
            (0.0, 0.2, (Auto, 0.0, 0.0), (Bezier, 0.25, 0.3)),
            (1.0, 0.8, (Bezier, -0.2, -0.1), (Auto, 0.0, 0.0)),
        ],
        "LHand from 1",
    );
    // LShoulderPitch from the posture 60°: key 6 (70°) has Δt1 = 5, Δv1 = 10, Δt2 = 10,
    // Δv2 = 30, β = 40/15 = 8/3; no clamp (8.9 ≤ 30, 4.4 ≤ 10). Left (−5/3, −40/9°):
    // dt −1/12 s; right: constant, type 0, (0, 0). Key 16 (100°): the last key, left
    // (−10/3, 0): −1/6 s.
    assert_sent(
        &sent(&c, "LShoulderPitch"),
        &[
            (
                0.25,
                70.0 * DEG,
                (Auto, -1.0 / 12.0, -40.0 / 9.0 * DEG),
                (Constant, 0.0, 0.0),
            ),
            (0.75, 100.0 * DEG, (Auto, -1.0 / 6.0, 0.0), (Auto, 0.0, 0.0)),
        ],
        "LShoulderPitch from 1",
    );
    // LHipYawPitch: key 1 on the start frame; both keys are end keys: flat handles a
    // third of 40 frames long, 2/3 s.
    assert_sent(
        &sent(&c, "LHipYawPitch"),
        &[
            (0.0, -10.0 * DEG, (Auto, 0.0, 0.0), (Auto, 2.0 / 3.0, 0.0)),
            (2.0, -20.0 * DEG, (Auto, -2.0 / 3.0, 0.0), (Auto, 0.0, 0.0)),
        ],
        "LHipYawPitch from 1",
    );
    // RElbowRoll: one key on the start frame, as the file has it (100°: the robot clamps it
    // to its 1.5446 rad maximum).
    assert_sent(
        &sent(&c, "RElbowRoll"),
        &[(0.0, 100.0 * DEG, (Auto, 0.0, 0.0), (Auto, 0.0, 0.0))],
        "RElbowRoll from 1",
    );
}

#[test]
fn the_order_from_a_middle_frame_is_the_hand_derived_one() {
    // Resumed at frame 21 (times (f − 21)/20), HeadYaw at 60°, the others unknown.
    let posture = |name: &str| (name == "HeadYaw").then_some(60.0 * DEG);
    let c = hand_written().command_from(21, &posture);
    // LShoulderPitch (last key 16) and RElbowRoll (key 1) have nothing left.
    assert_eq!(c.names, ["HeadYaw", "LHand", "LHipYawPitch"]);
    // HeadYaw: virtual key (21, 60°). Key 31 (50°): Δv1 = −10, Δv2 = −10 over 10 frames
    // each: β = −20/20 = −1 °/frame, no clamp (α·10·1 = 3.3 ≤ 10). Left (−10/3, +10/3°):
    // −1/6 s; right (10/3, −10/3°): 1/6 s. Key 41 as before.
    assert_sent(
        &sent(&c, "HeadYaw"),
        &[
            (
                0.5,
                50.0 * DEG,
                (Auto, -1.0 / 6.0, 10.0 / 3.0 * DEG),
                (Auto, 1.0 / 6.0, -10.0 / 3.0 * DEG),
            ),
            (1.0, 40.0 * DEG, (Auto, -1.0 / 6.0, 0.0), (Auto, 0.0, 0.0)),
        ],
        "HeadYaw from 21",
    );
    // LHand: key 21 on the resume frame: an immediate target at time 0, its explicit left
    // handle kept.
    assert_sent(
        &sent(&c, "LHand"),
        &[(0.0, 0.8, (Bezier, -0.2, -0.1), (Auto, 0.0, 0.0))],
        "LHand from 21",
    );
    // LHipYawPitch: posture unknown, so the virtual key (21, −20°) is at the key's value:
    // Δv1 = 0, β = 0, left (−20/3, 0): −1/3 s.
    assert_sent(
        &sent(&c, "LHipYawPitch"),
        &[(1.0, -20.0 * DEG, (Auto, -1.0 / 3.0, 0.0), (Auto, 0.0, 0.0))],
        "LHipYawPitch from 21",
    );
}

// ------------------------------------------------------------------------------------------
// The corpus

/// What the corpus test covered.
#[derive(Default, Debug)]
struct Coverage {
    /// Timelines with an `ActuatorList`.
    lists: usize,
    /// ... with at least one keyed curve ("carry curves").
    with_curves: usize,
    /// ... that `Motion::from_timeline` plays.
    playable: usize,
    /// Timelines with curves it does not play: no clock (fps ≤ 0).
    no_clock: usize,
    /// Curves, keyed curves, muted keyed curves, curves played.
    curves: usize,
    keyed: usize,
    muted_keyed: usize,
    played: usize,
    /// Keys in every curve, and in the curves played.
    keys: usize,
    keys_played: usize,
    /// Explicit tangents in the curves played.
    tangents: usize,
    /// Orders built and checked, joints in them, keys in them.
    orders: usize,
    joints_sent: usize,
    keys_sent: usize,
    /// Distinct `ActuatorList`s with curves (archives repeat some `.xar` files).
    distinct: HashSet<u64>,
    /// Timelines played per robot.
    nao: usize,
    pepper: usize,
    /// Warnings by kind.
    warnings: BTreeMap<&'static str, usize>,
}

fn warning_kind(w: &Warning) -> &'static str {
    match w {
        Warning::Unsorted => "unsorted",
        Warning::SameFrame(_) => "same frame",
        Warning::UnknownInterp(_) => "unknown interpType",
        Warning::HandleClamped(_) => "handle shortened",
        Warning::UnknownJoint(_) => "unknown joint",
        Warning::Clamped { .. } => "values clamped",
        Warning::Follower => "RHipYawPitch follower",
        Warning::ConstantHeld(_) => "constant held (qianim)",
        Warning::PastEnd { .. } => "past the end (qianim)",
    }
}

/// A posture in the middle of every joint's range.
fn middle(robot: Model) -> impl Fn(&str) -> Option<f64> {
    move |name| {
        let i = robot.joint_index(name)?;
        let (lo, hi) = robot.limits(i, 0.0);
        Some(0.5 * (lo + hi))
    }
}

/// The structural checks of one order `c` sent from frame `from` (motion.md §7.1), as
/// failures.
fn check_order(m: &Motion, from: i32, c: &BezierCommand) -> Vec<String> {
    let mut bad = Vec::new();
    let robot = m.robot;
    let fps = f64::from(m.fps);
    if c.names.len() != c.times.len() || c.names.len() != c.keys.len() {
        bad.push(format!(
            "{} names, {} time lists, {} key lists",
            c.names.len(),
            c.times.len(),
            c.keys.len()
        ));
        return bad;
    }
    // One list per joint, known to the model, the follower never beside its leader.
    let unique: HashSet<&String> = c.names.iter().collect();
    if unique.len() != c.names.len() {
        bad.push(format!("a joint twice: {:?}", c.names));
    }
    if robot == Model::Nao
        && c.names.iter().any(|n| n == "LHipYawPitch")
        && c.names.iter().any(|n| n == "RHipYawPitch")
    {
        bad.push("RHipYawPitch sent beside LHipYawPitch".to_string());
    }
    // Exactly the curves with a key left (at or after `from`, before the end).
    let live = m.end.is_none_or(|end| from < end);
    let expected: Vec<&str> = m
        .curves
        .iter()
        .filter(|cv| live && cv.last_frame() >= from)
        .map(|cv| cv.actuator.as_str())
        .collect();
    if c.names
        .iter()
        .map(String::as_str)
        .ne(expected.iter().copied())
    {
        bad.push(format!("joints {:?}, expected {expected:?}", c.names));
    }
    for ((name, times), keys) in c.names.iter().zip(&c.times).zip(&c.keys) {
        let Some(joint) = robot.joint_index(name) else {
            bad.push(format!("{name}: not a joint of {}", robot.name()));
            continue;
        };
        let curve = m.curves.iter().find(|cv| &cv.actuator == name);
        // As many keys as times, as many as the curve has left (cut after the first key
        // past an explicit end).
        if let Some(curve) = curve {
            let left: Vec<i32> = curve
                .keys()
                .iter()
                .map(|k| k.frame)
                .filter(|f| *f >= from)
                .collect();
            let cut = m
                .end
                .map_or(left.len(), |end| left.partition_point(|f| *f <= end) + 1)
                .min(left.len());
            if times.len() != cut {
                bad.push(format!("{name}: {} times for {cut} keys left", times.len()));
            }
            if let Some(first) = left.first() {
                let t0 = f64::from(first - from) / fps;
                if times.first().is_none_or(|t| (t - t0).abs() > 1e-9) {
                    bad.push(format!(
                        "{name}: first time {:?}, expected {t0}",
                        times.first()
                    ));
                }
            }
        }
        if keys.len() != times.len() {
            bad.push(format!(
                "{name}: {} keys, {} times",
                keys.len(),
                times.len()
            ));
        }
        if times.is_empty() {
            bad.push(format!("{name}: an empty list"));
        }
        if !times.iter().all(|t| t.is_finite() && *t >= 0.0) {
            bad.push(format!("{name}: times {times:?}"));
        }
        if !times.windows(2).all(|w| w[0] < w[1]) {
            bad.push(format!("{name}: times not strictly increasing: {times:?}"));
        }
        // Values go as the file has them (the robot clamps them, docs/motion.md): finite,
        // and the clamped ones are said in the motion's warnings.
        let (lo, hi) = robot.limits(joint, 0.0);
        let warned = m
            .warnings
            .iter()
            .any(|(j, w)| j == name && matches!(w, Warning::Clamped { .. }));
        for (j, k) in keys.iter().enumerate() {
            let beyond = k.value < lo - 1e-4 || k.value > hi + 1e-4;
            if !k.value.is_finite() || (beyond && !warned) {
                bad.push(format!(
                    "{name} key {j}: value {} outside [{lo}, {hi}] without a warning",
                    k.value
                ));
            }
            let finite = [k.left.dx, k.left.dy, k.right.dx, k.right.dy]
                .iter()
                .all(|v| v.is_finite());
            if !finite || k.left.dx > 0.0 || k.right.dx < 0.0 {
                bad.push(format!(
                    "{name} key {j}: handles {:?} {:?}",
                    k.left, k.right
                ));
            }
        }
        // The trajectory the simulated joint follows: finite, through the keys.
        let start = keys.first().map_or(0.0, |k| k.value);
        let Some(trajectory) =
            c.trajectory(c.names.iter().position(|n| n == name).unwrap_or(0), start)
        else {
            bad.push(format!("{name}: no trajectory"));
            continue;
        };
        for (t, k) in times.iter().zip(keys) {
            let y = trajectory.eval(*t).unwrap_or(f64::NAN);
            if !(y - k.value).abs().le(&1e-9) {
                bad.push(format!(
                    "{name}: trajectory at {t} s is {y}, the key {}",
                    k.value
                ));
            }
        }
        let end = times.last().copied().unwrap_or(0.0);
        for i in 0..=32 {
            let y = trajectory
                .eval(end * f64::from(i) / 32.0)
                .unwrap_or(f64::NAN);
            if !y.is_finite() {
                bad.push(format!(
                    "{name}: trajectory not finite at {}",
                    end * f64::from(i) / 32.0
                ));
            }
        }
    }
    bad
}

/// Checks one corpus timeline, counting what it covers; returns its failures.
fn check_timeline(ct: &CorpusTimeline, cov: &mut Coverage) -> Vec<String> {
    let t: &Timeline = &ct.timeline;
    let Some(list) = &t.actuator_list else {
        return vec![];
    };
    let robot = robot_for(t);
    cov.lists += 1;
    cov.curves += list.curves.len();
    let keyed: Vec<_> = list.curves.iter().filter(|c| !c.keys.is_empty()).collect();
    cov.keyed += keyed.len();
    cov.muted_keyed += keyed.iter().filter(|c| c.mute == Some(true)).count();
    cov.keys += keyed.iter().map(|c| c.keys.len()).sum::<usize>();
    if keyed.is_empty() {
        return vec![];
    }
    cov.with_curves += 1;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{list:?}").hash(&mut h);
    cov.distinct.insert(h.finish());
    let mut bad = Vec::new();
    let playable = keyed
        .iter()
        .any(|c| c.mute != Some(true) && robot.joint_index(&c.actuator).is_some());
    let Some(m) = Motion::from_timeline(t, robot) else {
        if t.fps() <= 0 {
            cov.no_clock += 1;
        } else if playable {
            bad.push("a playable timeline gave no motion".to_string());
        }
        return bad;
    };
    if t.fps() <= 0 || !playable {
        bad.push(format!(
            "motion without clock or playable curve: fps {}",
            t.fps()
        ));
    }
    cov.playable += 1;
    match robot {
        Model::Nao => cov.nao += 1,
        Model::Pepper => cov.pepper += 1,
    }
    cov.played += m.curves.len();
    cov.keys_played += m.curves.iter().map(|c| c.keys().len()).sum::<usize>();
    cov.tangents += list
        .curves
        .iter()
        .filter(|c| m.curves.iter().any(|p| p.actuator == c.actuator))
        .flat_map(|c| &c.keys)
        .map(|k| k.tangents.len())
        .sum::<usize>();
    for (_, w) in &m.warnings {
        *cov.warnings.entry(warning_kind(w)).or_default() += 1;
    }
    // From the start frame and from the middle of the keys; posture unknown, and every
    // joint in the middle of its range.
    let first = m.curves.iter().map(|c| c.first_frame()).min().unwrap_or(0);
    let mid = (first + m.last_key_frame()) / 2;
    let posture = middle(robot);
    for from in [m.start, mid] {
        for known in [false, true] {
            let c = m.command_from(from, &|n| if known { posture(n) } else { None });
            cov.orders += 1;
            cov.joints_sent += c.names.len();
            cov.keys_sent += c.times.iter().map(Vec::len).sum::<usize>();
            let posture_name = if known { "mid-range" } else { "unknown" };
            bad.extend(
                check_order(&m, from, &c)
                    .into_iter()
                    .map(|b| format!("from frame {from}, posture {posture_name}: {b}")),
            );
        }
    }
    // The editor's values (goTo while stopped): finite and clamped, 64 frames over the keys.
    let last = m.last_key_frame();
    for i in 0..=64 {
        let f = f64::from(first) + f64::from(last - first) * f64::from(i) / 64.0;
        for (name, v) in m.values_at(f) {
            let (lo, hi) = robot.limits(robot.joint_index(name).unwrap_or(0), 0.0);
            if !(v.is_finite() && lo <= v && v <= hi) {
                bad.push(format!("{name} at frame {f}: {v} outside [{lo}, {hi}]"));
            }
        }
    }
    bad
}

#[test]
fn every_corpus_motion_timeline_gives_well_formed_orders() {
    let Some(dir) = choreo_testkit::corpus("the corpus motion payloads") else {
        return;
    };
    let corpus = support::corpus_timelines(&dir);
    assert!(corpus.unreadable.is_empty(), "{:#?}", corpus.unreadable);
    let mut cov = Coverage::default();
    let mut failures = Vec::new();
    for ct in &corpus.timelines {
        match catch_unwind(AssertUnwindSafe(|| check_timeline(ct, &mut cov))) {
            Ok(bad) => failures.extend(
                bad.into_iter()
                    .map(|b| format!("{} [{}]: {b}", ct.file, ct.path)),
            ),
            Err(panic) => {
                let text = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{} [{}]: panicked: {text}", ct.file, ct.path));
            }
        }
    }
    println!(
        "corpus motion: {} .xar files and {} archives ({} merge conflict), {} behaviors, {} timelines; \
         {} with an ActuatorList, {} carry curves ({} distinct), {} played ({} NAO, {} Pepper), {} without a clock",
        corpus.xar_files,
        corpus.archives,
        corpus.conflicts,
        corpus.behaviors,
        corpus.all_timelines,
        cov.lists,
        cov.with_curves,
        cov.distinct.len(),
        cov.playable,
        cov.nao,
        cov.pepper,
        cov.no_clock
    );
    println!(
        "  curves: {} ({} keyed, {} of them muted), {} played; keys: {} ({} played, {} explicit tangents)",
        cov.curves, cov.keyed, cov.muted_keyed, cov.played, cov.keys, cov.keys_played, cov.tangents
    );
    println!(
        "  orders checked: {} ({} joint lists, {} keys); warnings: {:?}",
        cov.orders, cov.joints_sent, cov.keys_sent, cov.warnings
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The corpus has motion to cover (2026-11: 1,324 timelines played, 317,248 keys in the
    // orders checked); a corpus that lost its motion files must not pass unnoticed.
    assert!(cov.playable >= 100, "{} timelines played", cov.playable);
    assert!(cov.keys_sent >= 10_000, "{} keys sent", cov.keys_sent);
}
