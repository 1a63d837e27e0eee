//! Forward kinematics and the centre of mass against values computed from the reference's
//! numbers by hand: the URDF of ros-naoqi/nao_robot (naoV50, the source of data/body.txt)
//! walked link by link with a 40-line script of plain trigonometry written for these tests
//! (each link's origin and axis, each inertial's mass and origin; nothing of choreo's), to
//! 1 mm. The script's results are the literals below.

use choreo_body::balance::Direction;
use choreo_body::floor::Floor;
use choreo_body::{Balance, Frames, Stance};
use choreo_robot::Model;

/// Degrees in "Body" order (hands: opening) as radians.
fn angles(degrees: &[f64; 26]) -> Vec<f64> {
    Model::Nao
        .joints()
        .iter()
        .zip(degrees)
        .map(|(j, d)| {
            if choreo_robot::is_hand(j.name) {
                *d
            } else {
                d.to_radians()
            }
        })
        .collect()
}

/// NAO's StandInit as ALRobotPosture's library has it.
const STAND_INIT: [f64; 26] = [
    0.0, 0.0, 84.0, 9.0, -70.0, -40.0, -6.0, 0.25, 0.0, 0.0, -25.0, 40.0, -20.0, 0.0, 0.0, 0.0,
    -25.0, 40.0, -20.0, 0.0, 84.0, -9.0, 70.0, 40.0, 6.0, 0.25,
];

fn near(a: [f64; 3], b: [f64; 3], tolerance: f64) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tolerance)
}

#[test]
fn the_zero_posture_s_centre_of_mass_is_the_urdf_s() {
    let f = Frames::new(Model::Nao, &[]);
    let com = f.com();
    assert!(near(com, [0.02118, 0.0, -0.03555], 0.001), "{com:?}");
    // The soles: HipOffsetZ + ThighLength + TibiaLength + FootHeight below the torso; the
    // ground frame's origin between the ankles, as FRAME_ROBOT is between ALMotion's leg
    // effectors.
    let stance = Stance::of(&f);
    assert!(
        near(stance.torso.t, [0.0, 0.0, 0.333_09], 1e-9),
        "{:?}",
        stance.torso.t
    );
    assert!(
        near(stance.com, [0.02118, 0.0, 0.29746 + 0.00008], 0.001),
        "{:?}",
        stance.com
    );
}

#[test]
fn stand_init_s_centre_of_mass_stands_above_the_feet() {
    let f = Frames::new(Model::Nao, &angles(&STAND_INIT));
    assert!(
        near(f.com(), [0.01547, 0.0, -0.05059], 0.001),
        "{:?}",
        f.com()
    );
    let stance = Stance::of(&f);
    assert_eq!(stance.on_ground, ["LFoot", "RFoot"]);
    // Above the middle of the two soles, feet flat: hip -25°, knee 40°, ankle -20° lean the
    // torso 5° back over them.
    assert!(
        near(stance.com, [0.01940, 0.0, 0.26870 + 0.00008], 0.001),
        "{:?}",
        stance.com
    );
    assert!(near(
        stance.torso.t,
        [0.00840, 0.0, 0.32045 + 0.00008],
        0.001
    ));
    // Both feet as ALMotion's walk planner bounds them (control-walk.html): x from 0.047 m
    // behind the ankles to 0.11 m ahead, each 0.05 m out from its ankle and 0.038 m in, the
    // ankles 0.1 m apart: y from -0.1 to 0.1. The nearest edge is the heels'.
    let margin = stance.margin([stance.com[0], stance.com[1]]);
    assert!((margin - (stance.com[0] + 0.047)).abs() < 1e-9, "{margin}");
}

#[test]
fn crouch_keeps_both_feet_down() {
    let crouch = [
        0.0, 0.0, 40.0, 10.0, -70.0, -60.0, 0.0, 0.3, -10.0, 0.0, -49.0, 123.0, -68.0, 0.0, -10.0,
        0.0, -49.0, 123.0, -68.0, 0.0, 40.0, -10.0, 70.0, 60.0, 0.0, 0.3,
    ];
    let f = Frames::new(Model::Nao, &angles(&crouch));
    assert!(near(f.com(), [0.0, 0.0, 0.0], 1.0));
    let stance = Stance::of(&f);
    assert_eq!(stance.on_ground.len(), 2, "{:?}", stance.on_ground);
    // The URDF script: the CoM 0.207 m above the floor.
    assert!(
        (stance.com[2] - (0.20705 + 0.00008)).abs() < 0.001,
        "{:?}",
        stance.com
    );
}

#[test]
fn a_one_leg_stance_stands_on_that_leg_and_falls_the_way_its_mass_leans() {
    // StandInit with the hips rolled 15° to the right and the right leg drawn up (hip -60°,
    // knee 90°, ankle -30°): the right foot rises 4.3 cm and the CoM passes the left foot's
    // inner edge by 5.5 cm (the URDF script: 9.3 cm right of the left ankle; the foot reaches
    // 3.8 cm in from its ankle, control-walk.html).
    let mut one_leg = STAND_INIT;
    one_leg[9] = 15.0;
    one_leg[13] = -15.0;
    one_leg[16] = -60.0;
    one_leg[17] = 90.0;
    one_leg[18] = -30.0;
    let stance = Stance::of(&Frames::new(Model::Nao, &angles(&one_leg)));
    assert_eq!(stance.on_ground, ["LFoot"]);
    assert!(
        near(stance.com, [0.02552, -0.09308, 0.26968 + 0.00008], 0.001),
        "{:?}",
        stance.com
    );
    let mut balance = Balance::new();
    let (check, fall) = balance.step(0.0, stance.clone());
    assert!((check.com + (0.09308 - 0.038)).abs() < 0.001, "{check:?}");
    // Out, but not yet for 0.1 s: it rocks; held 0.1 s, it falls, from when it left.
    assert_eq!(fall, None);
    let mut fall = None;
    for k in 1..=10 {
        fall = balance.step(f64::from(k) * 0.01, stance.clone()).1;
    }
    let fall = fall.unwrap();
    assert_eq!(fall.time, 0.0);
    assert_eq!(fall.direction, Direction::Right);
}

#[test]
fn no_stock_posture_puts_an_arm_in_the_body_and_the_standing_ones_stand() {
    for model in [Model::Nao, Model::Pepper] {
        for p in model.postures() {
            let f = Frames::new(model, &model.posture(p.name).unwrap());
            let contacts = choreo_body::collision::contacts(&f, None);
            assert!(contacts.is_empty(), "{model:?} {}: {contacts:?}", p.name);
            if matches!(p.family, "Standing" | "Crouching") {
                let s = Stance::of(&f);
                let m = s.margin([s.com[0], s.com[1]]);
                assert!(m > 0.01, "{model:?} {}: CoM margin {m}", p.name);
            }
        }
    }
}

#[test]
fn a_forearm_driven_into_the_chest_meets_the_torso() {
    // The left arm down and forward (ShoulderPitch 1.0, ShoulderRoll -0.3 inward), its
    // elbow bent fully (ElbowRoll -1.54, ElbowYaw 0): by the links page the hand would be 3 cm
    // ahead of the torso's centre, 3 cm up, 3 cm right of the middle, inside the chest.
    let mut q = angles(&STAND_INIT);
    let i = |n: &str| Model::Nao.joint_index(n).unwrap();
    q[i("LShoulderPitch")] = 1.0;
    q[i("LShoulderRoll")] = -0.3;
    q[i("LElbowYaw")] = 0.0;
    q[i("LElbowRoll")] = -1.54;
    let hand = Frames::new(Model::Nao, &q).frame(Some("LHand")).t;
    assert!(near(hand, [0.030, -0.028, 0.031], 0.001), "{hand:?}");
    let f = Frames::new(Model::Nao, &q);
    let contacts = choreo_body::collision::contacts(&f, Some("LArm"));
    assert!(contacts.iter().any(|c| c.body == "Torso"), "{contacts:?}");
    assert!(choreo_body::collision::contacts(&f, Some("RArm")).is_empty());
}

#[test]
fn nao_laid_on_its_back_rests_on_the_back_of_its_head_and_its_heels() {
    // Every joint at 0, laid on a floor whose up is FRAME_TORSO's x (on its back), NAO
    // settles on what reaches furthest back: the back of its head, 6.5 cm behind the neck
    // axis (data/body.txt) at NeckOffsetZ 0.1265 + 0.058 = 0.1845 m up, touches first; the
    // CoM (0.02118, 0, -0.03555) is toward the feet, so the body tips about the head toward
    // them until the next point meets the floor. A point a above the floor and b further
    // along meets it after atan2(a, b): the back's corners (5.5 cm behind, at 0.045 m) after
    // atan2(0.010, 0.1395) = 0.0715 rad, the buttocks (4 cm behind, at -0.11 m) after
    // atan2(0.025, 0.2945) = 0.0847, the heels (4.7 cm behind the ankles, ALMotion's foot
    // bounds, at -(0.085 + 0.1 + 0.1029 + 0.04519) = -0.33309 m) after atan2(0.018, 0.51759)
    // = 0.03476: the heels. It rests on its head and heels, the CoM between them; its up
    // turned 0.03476 rad toward the head: (cos, 0, sin) = (0.99940, 0, 0.03475). Its back
    // is then 0.010 cos − 0.1395 sin = 5.1 mm up, within the 1 cm that counts as touching,
    // the buttocks 0.025 cos − 0.2945 sin = 14.7 mm up, not.
    let f = Frames::new(Model::Nao, &[]);
    let floor = Floor::new(&f, [1.0, 0.0, 0.0]);
    assert!(
        near(floor.up, [0.99940, 0.0, 0.03475], 1e-4),
        "{:?}",
        floor.up
    );
    let touching = floor.touching(&f);
    for name in ["HeadBack", "LFoot", "RFoot", "LBack", "RBack"] {
        assert!(touching.contains(&name), "{name} in {touching:?}");
    }
    assert!(!touching.contains(&"Buttocks"), "{touching:?}");
    assert!(!floor.on_soles);
    // The same body laid on its soles stays there, on them alone.
    let floor = Floor::new(&f, [0.0, 0.0, 1.0]);
    assert!(near(floor.up, [0.0, 0.0, 1.0], 1e-12), "{:?}", floor.up);
    assert_eq!(floor.touching(&f), ["LFoot", "RFoot"]);
    assert!(floor.on_soles);
}

#[test]
fn sitting_is_not_standing() {
    for (name, standing) in [
        ("Sit", false),
        ("SitRelax", false),
        ("StandInit", true),
        ("Crouch", true),
    ] {
        let f = Frames::new(Model::Nao, &Model::Nao.posture(name).unwrap());
        assert_eq!(Stance::of(&f).standing, standing, "{name}");
    }
}

/// The nearest gap (m) between `chain`'s shapes and the body's at `q`: the distance of
/// their segments less their radii, computed here from choreo-robot's shapes.
fn gap(q: &[f64], chain: &str) -> f64 {
    let model = Model::Nao;
    let f = Frames::new(model, q);
    let shapes = model.body().shapes();
    let placed = |s: &choreo_robot::body::Shape| {
        let frame = f.frame_at(s.joint.and_then(|j| model.joint_index(j)));
        (frame.apply(s.ends[0]), frame.apply(s.ends[1]))
    };
    let mut nearest = f64::INFINITY;
    for a in shapes.iter().filter(|s| s.group == chain) {
        for b in shapes.iter().filter(|s| s.group == "Body") {
            let d = choreo_body::collision::segment_distance(placed(a), placed(b));
            nearest = nearest.min(d - a.radius - b.radius);
        }
    }
    nearest
}

#[test]
fn avoidance_takes_the_arm_as_near_the_chest_as_it_can_and_never_in() {
    // The same order as above, from StandInit, followed cycle by cycle as NAOqi's page
    // says: the desired state approached as near as the no-collision constraint lets it.
    // The target is inside the chest (the test above): the arm must never enter (the
    // linear step may overshoot the curved surface by far less than a millimetre), must get
    // right up to the torso (within 5 mm: as near as it can), and must not stop while it can
    // still come nearer its target.
    let model = Model::Nao;
    let i = |n: &str| model.joint_index(n).unwrap();
    let arm = model.resolve("LArm").unwrap();
    let start = angles(&STAND_INIT);
    let mut target = start.clone();
    for (name, v) in [
        ("LShoulderPitch", 1.0),
        ("LShoulderRoll", -0.3),
        ("LElbowYaw", 0.0),
        ("LElbowRoll", -1.54),
    ] {
        target[i(name)] = v;
    }
    let mut q = start.clone();
    let cycles = 200;
    let mut nearest = f64::INFINITY;
    for k in 1..=cycles {
        let s = f64::from(k) / f64::from(cycles);
        let wanted: Vec<f64> = start
            .iter()
            .zip(&target)
            .map(|(a, b)| a + (b - a) * s)
            .collect();
        let next = choreo_body::collision::avoid_step(&arm, &Frames::new(model, &q), &wanted);
        for (&j, v) in arm.iter().zip(next) {
            q[j] = v;
        }
        let g = gap(&q, "LArm");
        nearest = nearest.min(g);
        assert!(g > -0.001, "cycle {k}: {g} m into the body");
    }
    let end = gap(&q, "LArm");
    assert!(end < 0.005, "it stopped {end} m short of the torso");
    assert!(nearest > -0.001);
    // Nearer the target than it started.
    let distance = |a: &[f64]| {
        arm.iter()
            .map(|&j| (a[j] - target[j]).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    assert!(distance(&q) < distance(&start) / 2.0, "{q:?}");
    // Without anything near, the order is followed exactly.
    let mut free = start.clone();
    free[i("LShoulderPitch")] = 0.5;
    let next = choreo_body::collision::avoid_step(&arm, &Frames::new(model, &start), &free);
    assert!((next[0] - 0.5).abs() < 1e-12, "{next:?}");
}
