//! The simulated body under physics: motors no faster than their maximum speed, balance and
//! the fall manager, the arms kept out of the body. Expected values are derived by hand
//! below from the data's numbers (the URDFs' speeds and masses, the links page).

use crate::support;

use std::sync::Mutex;

use choreo_engine::Value;
use choreo_naoqi::{RobotEvent, SimRobot};
use choreo_robot::Model;
use support::{assert_time, f, floats, log, run_box, s, secs, watched, written};

#[test]
fn a_key_asked_three_times_too_fast_is_reached_late() {
    // LShoulderPitch from StandInit's 84° to -60° in 0.1 s: 2.513 rad at 25.1 rad/s, 3.04
    // times its motor's 8.27 rad/s (the URDF's velocity). At top speed it is at 1.466 -
    // 0.827 = 0.639 rad at 0.1 s, and arrives 2.513 / 8.27 = 0.3039 s after the order:
    // angleInterpolation returns then.
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    let target = (-60.0_f64).to_radians();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        let id = ctx.post_robot(
            "ALMotion",
            "angleInterpolation",
            vec![s("LShoulderPitch"), f(target), f(0.1), Value::Bool(true)],
        )?;
        ctx.sleep(std::time::Duration::from_millis(100));
        let at = ctx.call_robot(
            "ALMotion",
            "getAngles",
            vec![s("LShoulderPitch"), Value::Bool(false)],
        )?;
        ctx.call_robot("ALMotion", "wait", vec![Value::Int(id), Value::Int(0)])?;
        seen2.lock().unwrap().push((at, secs(ctx) - t0));
        Ok(())
    });
    let (at, took) = seen.lock().unwrap()[0].clone();
    let want = 84.0_f64.to_radians() - 8.27 * 0.1;
    assert!((floats(&at)[0] - want).abs() < 1e-6, "{at} against {want}");
    assert_time(took, (84.0_f64 + 60.0).to_radians() / 8.27);
}

/// Leans NAO forwards on its ankles (both from StandInit's -20° to -60° over 4 s), with the
/// fall manager on or off; what the box saw: how long the order lasted, the posture and the
/// head's stiffness 3.5 s after the order.
fn lean(fall_manager: bool) -> (Vec<RobotEvent>, f64, Value, Value) {
    let (robot, events) = watched(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        if !fall_manager {
            ctx.call_robot(
                "ALMotion",
                "setFallManagerEnabled",
                vec![Value::Bool(false)],
            )?;
        }
        let t0 = secs(ctx);
        let lean = Value::List(vec![f((-60.0_f64).to_radians())]);
        let time = Value::List(vec![f(4.0)]);
        let _ = ctx.call_robot(
            "ALMotion",
            "angleInterpolation",
            vec![
                Value::List(vec![s("LAnklePitch"), s("RAnklePitch")]),
                Value::List(vec![lean.clone(), lean]),
                Value::List(vec![time.clone(), time]),
                Value::Bool(true),
            ],
        );
        let returned = secs(ctx) - t0;
        ctx.sleep(std::time::Duration::from_secs_f64(3.5 - returned));
        let posture = ctx.call_robot("ALRobotPosture", "getPosture", vec![])?;
        let stiffness = ctx.call_robot("ALMotion", "getStiffnesses", vec![s("HeadYaw")])?;
        seen2.lock().unwrap().push((returned, posture, stiffness));
        Ok(())
    });
    let (returned, posture, stiffness) = seen.lock().unwrap()[0].clone();
    let events = events.lock().unwrap().clone();
    (events, returned, posture, stiffness)
}

/// What the robot said of its falls.
fn fell(events: &[RobotEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            RobotEvent::Fell { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn leaning_past_the_toes_falls_and_the_fall_manager_reacts_as_documented() {
    // tests/timelines.rs of choreo-body derives it: this lean takes the CoM past the toes at
    // 2.42 s (24.14° of lean). The fall manager then raises ALMotion/RobotIsFalling, stops
    // every order on the joints (the angleInterpolation returns), brings the robot down on
    // its belly and cuts the stiffness; robotHasFallen comes once it lies (0.8 s later).
    // The stopped order returns at its driver's next look (every STOP_POLL, 40 ms of
    // behavior time): 2.44 s.
    let (events, returned, posture, stiffness) = lean(true);
    assert!((returned - 2.44).abs() < 1e-6, "returned at {returned}");
    let said = fell(&events);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("NAO fell forwards at 2.42 s"),
        "{said:?}"
    );
    assert!(
        said[0].contains("left the feet ahead of the toes"),
        "{said:?}"
    );
    let order: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            RobotEvent::MemoryEvent { key, .. }
                if ["ALMotion/RobotIsFalling", "robotHasFallen"].contains(&key.as_str()) =>
            {
                Some(key.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(order, ["ALMotion/RobotIsFalling", "robotHasFallen"]);
    assert_eq!(
        written(&Mutex::new(events), "robotHasFallen"),
        [Value::Bool(true)]
    );
    assert_eq!(posture, s("LyingBelly"));
    assert_eq!(floats(&stiffness), [0.0]);
}

#[test]
fn with_the_fall_manager_off_it_falls_unprotected() {
    // The same lean: it falls all the same, but nothing is raised and the motors stay stiff
    // ("it is possible to disable it": the robot is then on its own).
    let (events, returned, posture, stiffness) = lean(false);
    assert!((returned - 2.44).abs() < 1e-6, "returned at {returned}");
    assert_eq!(fell(&events).len(), 1);
    let events = Mutex::new(events);
    assert!(written(&events, "ALMotion/RobotIsFalling").is_empty());
    assert!(written(&events, "robotHasFallen").is_empty());
    assert_eq!(posture, s("LyingBelly"));
    assert_eq!(floats(&stiffness), [1.0]);
}

/// Drives the left arm from StandInit into the chest (ShoulderPitch 1.0, ShoulderRoll -0.3,
/// ElbowYaw 0, ElbowRoll -1.54: by the links page the hand would end 3 cm ahead of the
/// torso's centre, inside it) over 2 s, protection on or off; the arm's angles at the end
/// and `isCollision("LArm")`.
fn into_the_chest(protection: bool) -> (Vec<f64>, Value) {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        if !protection {
            ctx.call_robot(
                "ALMotion",
                "setCollisionProtectionEnabled",
                vec![s("LArm"), Value::Bool(false)],
            )?;
        }
        let names = ["LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll"];
        let targets = [1.0, -0.3, 0.0, -1.54];
        ctx.call_robot(
            "ALMotion",
            "angleInterpolation",
            vec![
                Value::List(names.iter().map(|n| s(n)).collect()),
                Value::List(targets.iter().map(|&t| f(t)).collect()),
                Value::List(names.iter().map(|_| f(2.0)).collect()),
                Value::Bool(true),
            ],
        )?;
        let angles = ctx.call_robot(
            "ALMotion",
            "getAngles",
            vec![
                Value::List(names.iter().map(|n| s(n)).collect()),
                Value::Bool(false),
            ],
        )?;
        let state = ctx.call_robot("ALMotion", "isCollision", vec![s("LArm")])?;
        seen2.lock().unwrap().push((floats(&angles), state));
        Ok(())
    });
    seen.lock().unwrap()[0].clone()
}

#[test]
fn an_arm_driven_through_the_torso_is_stopped_short() {
    // Protected (the default, as NAOqi's page says for the arms): the arm stops before its
    // target, out of the body.
    let (angles, state) = into_the_chest(true);
    assert_eq!(state, s("none"));
    assert!(
        (angles[0] - 1.0).abs() > 0.01 || (angles[3] + 1.54).abs() > 0.01,
        "{angles:?}"
    );
    // Unprotected: it goes all the way, into the chest.
    let (angles, state) = into_the_chest(false);
    assert_eq!(state, s("collision"));
    let want = [1.0, -0.3, 0.0, -1.54];
    assert!(
        angles.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
        "{angles:?}"
    );
}

#[test]
fn the_frog_crouch_tips_onto_its_hands_and_does_not_fall() {
    // Endless Walk's frog crouch before its stiffness goes off (the box library's
    // `MarcheInfinie/Down&EnSlave/Before_Unslave`): from StandInit its CoM passes the toes
    // at frame 90 while its hands, on their way to the floor 14 cm ahead of the toes, are
    // 4.7–5.5 cm above it (and 1 cm at frame 95: a walk of the URDF gives the same). The
    // body tips about 5° onto them: the hands catch it, and the fall manager has nothing to
    // do, as on the robot its makers played it on.
    let Some(lib) = choreo_testkit::library("the frog crouch on the simulated robot") else {
        return;
    };
    let path = lib.join("deprecated/Motions/Endless Walk/box.xar");
    let bytes = std::fs::read(&path).unwrap();
    let xar = choreo_xar::read_xar(&path.display().to_string(), &bytes)
        .unwrap()
        .value;
    let (_, motion) = choreo_body::check::motions_of(&xar.root_box)
        .into_iter()
        .find(|(p, _)| p == "root/MarcheInfinie/Down&EnSlave/Before_Unslave")
        .unwrap();
    let stand_init = Model::Nao.posture("StandInit").unwrap();
    let command = motion.command_from(motion.start, &|name| {
        Model::Nao.joint_index(name).map(|i| stand_init[i])
    });
    // The order as the engine sends a timeline's.
    let args = choreo_engine::engine::order_args(&command);
    let (robot, events) = watched(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        ctx.call_robot(
            "ALRobotPosture",
            "goToPosture",
            vec![s("StandInit"), f(1.0)],
        )?;
        ctx.call_robot("ALMotion", "angleInterpolationBezier", args.clone())?;
        ctx.sleep(std::time::Duration::from_secs(1));
        let posture = ctx.call_robot("ALRobotPosture", "getPosture", vec![])?;
        seen2.lock().unwrap().push(posture);
        Ok(())
    });
    let events = events.lock().unwrap().clone();
    assert_eq!(fell(&events), Vec::<String>::new());
    let events = Mutex::new(events);
    assert!(written(&events, "ALMotion/RobotIsFalling").is_empty());
    let posture = seen.lock().unwrap()[0].clone();
    assert_ne!(posture, s("LyingBelly"));
}
