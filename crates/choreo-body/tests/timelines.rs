//! Timelines judged without running them (`choreo_body::check`), with the expected frames
//! and delays derived by hand below from the data's numbers.

use choreo_body::balance::{Cause, Direction};
use choreo_body::check::{Finding, Start, check, check_all};
use choreo_motion::curve::{Curve, Key, Side};
use choreo_motion::motion::Motion;
use choreo_robot::Model;

/// A linear key (straight segments on both sides), value in degrees.
fn key(frame: i32, value: f64) -> Key {
    Key {
        frame,
        value,
        left: Side::Linear,
        right: Side::Linear,
    }
}

fn motion(fps: i32, curves: &[(&str, &[(i32, f64)])]) -> Motion {
    let curves = curves
        .iter()
        .map(|(joint, keys)| Curve::new(joint, keys.iter().map(|&(f, v)| key(f, v)).collect()))
        .collect();
    Motion::from_curves(curves, fps, 1, -1, Model::Nao).unwrap()
}

#[test]
fn a_key_asking_three_times_a_motor_s_speed_is_reached_late() {
    // LShoulderPitch from StandInit's 84° to -60° in 0.1 s (frames 1 to 11 at 100 fps): 2.513
    // rad at 25.1 rad/s, 3.04 times its motor's 8.27 rad/s. At top speed it covers 0.827
    // rad by then: 1.686 rad are left, 0.2039 s more.
    let m = motion(100, &[("LShoulderPitch", &[(1, 84.0), (11, -60.0)])]);
    let report = check(&m, "StandInit").unwrap();
    let late: Vec<_> = report
        .findings
        .iter()
        .filter_map(|f| match f {
            Finding::Late { joint, frame, by } => Some((joint.as_str(), *frame, *by)),
            _ => None,
        })
        .collect();
    let want = (84.0_f64 + 60.0).to_radians() / 8.27 - 0.1;
    assert_eq!(late.len(), 1, "{late:?}");
    assert_eq!((late[0].0, late[0].1), ("LShoulderPitch", 11.0));
    assert!(
        (late[0].2 - want).abs() < 1e-6,
        "{} against {want}",
        late[0].2
    );
}

#[test]
fn leaning_on_the_ankles_falls_forwards_when_the_com_passes_the_toes() {
    // Both ankles from StandInit's -20° to -60° over 4 s (frames 1 to 101 at 25 fps): the
    // body turns forwards about the ankles at 10°/s, feet flat. The URDF script of
    // tests/reference.rs, in StandInit: what the ankles carry weighs 4.69335 kg, its CoM
    // 0.02004 m ahead of the ankle axis and 0.25473 m above it; the feet (the ankle links,
    // 0.612 kg) keep theirs 0.01447 m ahead. The whole CoM passes the toes (0.11 m ahead of
    // the ankles: ALMotion's foot bounds, control-walk.html) when (4.69335 (0.02004 cos θ +
    // 0.25473 sin θ) + 0.612 × 0.01447) / 5.30535 = 0.11: 0.02004 cos θ + 0.25473 sin θ =
    // 0.122457, θ = asin(0.122457 / 0.255517) - atan2(0.02004, 0.25473) = 0.49980 -
    // 0.07851 = 0.42129 rad = 24.14°, at 2.414 s, frame 61.35; the first 10 ms step past it
    // is 2.42 s, frame 61.5. So slow a lean hardly accelerates the CoM: the cart-table ZMP
    // is within 0.2 mm of it (z/g · Rω² sin(θ+φ): 0.26/9.81 · 0.2555 · 0.1745² · 0.48), and
    // whichever the check sees first, the fall begins at that step.
    let lean: &[(i32, f64)] = &[(1, -20.0), (101, -60.0)];
    let m = motion(25, &[("LAnklePitch", lean), ("RAnklePitch", lean)]);
    let report = check(&m, "StandInit").unwrap();
    let fall = report
        .findings
        .iter()
        .find_map(|f| match f {
            Finding::Fall { fall, frame, .. } => Some((*fall, *frame)),
            _ => None,
        })
        .unwrap();
    assert_eq!(fall.0.direction, Direction::Forwards);
    assert!(matches!(fall.0.cause, Cause::Com | Cause::Zmp));
    assert!((fall.0.time - 2.42).abs() < 0.0101, "{fall:?}");
    assert!((fall.1 - 61.5).abs() < 0.26, "{fall:?}");
    let said = report.findings.last().unwrap().describe(25.0, 1);
    assert!(said.contains("left the feet ahead of the toes"), "{said}");
}

#[test]
fn the_same_lean_slower_and_smaller_stands() {
    let lean: &[(i32, f64)] = &[(1, -20.0), (101, -35.0)];
    let m = motion(25, &[("LAnklePitch", lean), ("RAnklePitch", lean)]);
    let report = check(&m, "StandInit").unwrap();
    assert!(report.findings.is_empty(), "{:?}", report.findings);
}

#[test]
fn a_forearm_driven_into_the_chest_is_reported() {
    // From StandInit to the pose of tests/reference.rs (hand inside the chest) in 2 s.
    let m = motion(
        25,
        &[
            ("LShoulderPitch", &[(1, 84.0), (51, 57.3)]),
            ("LShoulderRoll", &[(1, 9.0), (51, -17.2)]),
            ("LElbowYaw", &[(1, -70.0), (51, 0.0)]),
            ("LElbowRoll", &[(1, -40.0), (51, -88.2)]),
        ],
    );
    let report = check(&m, "StandInit").unwrap();
    let hit = report
        .findings
        .iter()
        .find_map(|f| match f {
            Finding::Collision {
                arm, body, frame, ..
            } => Some((arm.clone(), body.clone(), *frame)),
            _ => None,
        })
        .unwrap();
    assert_eq!((hit.0.as_str(), hit.1.as_str()), ("LArm.ForeArm", "Torso"));
    assert!(hit.2 > 1.0 && hit.2 <= 51.0, "{hit:?}");
}

#[test]
fn the_balance_path_stays_in_the_start_s_frame_when_a_foot_lifts() {
    // From StandInit towards tests/reference.rs's one-leg stance over 4 s: the hips roll 15°
    // right and the right leg is drawn up, its foot rolling onto its outer edge as it rises.
    // The ground frame's origin lies amid the touching feet's ankles, and moves with the
    // right one; the left foot stays flat where it was and ties the frames. The robot falls
    // to the right while the right foot's outer toe still grazes the floor: the last polygon
    // has the left foot's inner edge, which in the start's frame, where the path is drawn,
    // is where it started: 0.05 m left of the middle (HipOffsetY) less the 0.038 m the sole
    // reaches in (control-walk.html), y = 0.012, from x = -0.047 to 0.11.
    let m = motion(
        25,
        &[
            ("LHipRoll", &[(1, 0.0), (101, 15.0)]),
            ("LAnkleRoll", &[(1, 0.0), (101, -15.0)]),
            ("RHipPitch", &[(1, -25.0), (101, -60.0)]),
            ("RKneePitch", &[(1, 40.0), (101, 90.0)]),
            ("RAnklePitch", &[(1, -20.0), (101, -30.0)]),
        ],
    );
    let report = check(&m, "StandInit").unwrap();
    assert!(report.path.com.iter().flatten().count() > 50);
    let start = &report.path.polygon;
    assert!(
        start.iter().any(|p| p[1] < -0.05),
        "both feet at the start: {start:?}"
    );
    assert!(
        start.iter().any(|p| p[1] > 0.05),
        "both feet at the start: {start:?}"
    );
    let fell_right = report
        .findings
        .iter()
        .any(|f| matches!(f, Finding::Fall { fall, .. } if fall.direction == Direction::Right));
    assert!(fell_right, "{:?}", report.findings);
    let last = &report.path.last_polygon;
    for corner in [[-0.047, 0.012], [0.11, 0.012]] {
        assert!(
            last.iter()
                .any(|p| (p[0] - corner[0]).abs() < 0.002 && (p[1] - corner[1]).abs() < 0.002),
            "{corner:?} in {last:?}"
        );
    }
}

#[test]
fn a_robot_on_its_back_that_draws_up_its_knees_stays_down() {
    // On its back, every joint at 0 but the knees, drawn up to 100° with the hips at -45°
    // over 2 s (the feet come to the floor, the back and head stay on it): nothing of this
    // stands it on its soles, so its balance is never judged, and nothing falls.
    let m = motion(
        25,
        &[
            ("LHipPitch", &[(1, 0.0), (51, -45.0)]),
            ("RHipPitch", &[(1, 0.0), (51, -45.0)]),
            ("LKneePitch", &[(1, 0.0), (51, 100.0)]),
            ("RKneePitch", &[(1, 0.0), (51, 100.0)]),
        ],
    );
    let report = check(&m, "LyingBack").unwrap();
    assert_eq!(report.start, Start::LyingBack);
    assert_eq!(report.got_up, None);
    assert!(report.path.com.iter().all(Option::is_none));
    assert!(
        !report
            .findings
            .iter()
            .any(|f| matches!(f, Finding::Fall { .. })),
        "{:?}",
        report.findings
    );
    // Standing, the same motion is a deep knee bend the check judges; lying, it is not
    // reported.
    let all = check_all(&m);
    assert!(all.iter().all(|r| r.start == Start::Standing), "{all:?}");
    assert!(!all.is_empty());
}

#[test]
fn a_timeline_that_never_folds_its_knees_is_not_judged_lying() {
    // Knees to 60°: a robot lying cannot draw its feet under it so (check::FOLDED).
    let m = motion(
        25,
        &[
            ("LShoulderPitch", &[(1, 84.0), (51, 0.0)]),
            ("LKneePitch", &[(1, 0.0), (51, 60.0)]),
        ],
    );
    let all = check_all(&m);
    assert!(!all.is_empty());
    assert!(all.iter().all(|r| r.start == Start::Standing), "{all:?}");
}
