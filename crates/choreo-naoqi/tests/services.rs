//! The services: ALMemory, ALMotion, ALRobotPosture, ALLeds, ALAudioPlayer, errors for
//! what is not served, and the observer.

use crate::support;

use std::sync::{Arc, Mutex};

use choreo_engine::{Outcome, Robot, RobotError, Value};
use choreo_naoqi::{Model, RobotEvent, SimRobot};
use support::{assert_time, floats, log, run_box, s, secs};

#[test]
fn insert_data_then_get_data_and_missing_keys_raise() {
    let robot = SimRobot::new(Model::Nao);
    robot
        .call("ALMemory", "insertData", vec![s("MyKey"), Value::Int(42)])
        .unwrap();
    assert_eq!(
        robot.call("ALMemory", "getData", vec![s("MyKey")]),
        Ok(Value::Int(42))
    );
    // Sensor keys exist at rest.
    assert_eq!(
        robot.call("ALMemory", "getData", vec![s("FrontTactilTouched")]),
        Ok(Value::Float(0.0))
    );
    let err = robot
        .call("ALMemory", "getData", vec![s("NoSuchKey")])
        .unwrap_err();
    assert!(
        matches!(&err, RobotError::Failed(m) if m.contains("NoSuchKey")),
        "{err:?}"
    );
    let err = robot
        .call("ALMemory", "getData", vec![Value::Int(3)])
        .unwrap_err();
    assert!(
        matches!(&err, RobotError::BadArguments(m)
            if m.starts_with("ALMemory.getData: argument 1 must be a string")),
        "{err:?}"
    );
    assert_eq!(robot.stats().failed["ALMemory.getData"], 2);
    let list = robot
        .call("ALMemory", "getDataList", vec![s("Tactil")])
        .unwrap();
    assert_eq!(
        list,
        Value::List(vec![
            s("FrontTactilTouched"),
            s("MiddleTactilTouched"),
            s("RearTactilTouched")
        ])
    );
}

#[test]
fn script_subscriptions_are_recorded_and_unsubscribing_twice_raises() {
    let robot = SimRobot::new(Model::Nao);
    let sub = vec![s("WordRecognized"), s("SpeechReco"), s("onWordRecognized")];
    robot.call("ALMemory", "subscribeToEvent", sub).unwrap();
    assert_eq!(
        robot.call("ALMemory", "getSubscribers", vec![s("WordRecognized")]),
        Ok(Value::List(vec![s("SpeechReco")]))
    );
    let unsub = vec![s("WordRecognized"), s("SpeechReco")];
    robot
        .call("ALMemory", "unsubscribeToEvent", unsub.clone())
        .unwrap();
    assert!(robot.call("ALMemory", "unsubscribeToEvent", unsub).is_err());
}

#[test]
fn sinks_may_call_back_into_the_robot() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log::<Value>();
    let (seen2, inner) = (seen.clone(), robot.clone());
    robot
        .subscribe(
            "Ping",
            7,
            Arc::new(move |key, value| {
                // Reading, writing and unsubscribing from inside a delivery.
                let stored = inner.call("ALMemory", "getData", vec![s(key)]).unwrap();
                inner
                    .call("ALMemory", "raiseEvent", vec![s("Pong"), value.clone()])
                    .unwrap();
                inner.unsubscribe(7);
                seen2.lock().unwrap().extend([value, stored]);
            }),
        )
        .unwrap();
    let pongs = log::<Value>();
    let pongs2 = pongs.clone();
    robot
        .subscribe(
            "Pong",
            8,
            Arc::new(move |_, v| pongs2.lock().unwrap().push(v)),
        )
        .unwrap();
    robot
        .call("ALMemory", "raiseEvent", vec![s("Ping"), Value::Int(1)])
        .unwrap();
    robot
        .call("ALMemory", "raiseEvent", vec![s("Ping"), Value::Int(2)])
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![Value::Int(1), Value::Int(1)]);
    assert_eq!(*pongs.lock().unwrap(), vec![Value::Int(1)]);
}

#[test]
fn joint_targets_are_clamped_to_the_limits() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        ctx.call_robot(
            "ALMotion",
            "angleInterpolation",
            vec![
                Value::List(vec![s("HeadYaw"), s("LElbowRoll")]),
                Value::List(vec![Value::Float(3.0), Value::Float(0.5)]),
                Value::List(vec![Value::Float(1.0), Value::Float(2.0)]),
                Value::Bool(true),
            ],
        )?;
        let took = secs(ctx) - t0;
        let angles = ctx.call_robot(
            "ALMotion",
            "getAngles",
            vec![
                Value::List(vec![s("HeadYaw"), s("LElbowRoll"), s("HeadPitch")]),
                Value::Bool(true),
            ],
        )?;
        // At full yaw the head cannot pitch down to 0.5.
        ctx.call_robot(
            "ALMotion",
            "setAngles",
            vec![s("HeadPitch"), Value::Float(0.5), Value::Float(1.0)],
        )?;
        ctx.sleep(std::time::Duration::from_secs(1));
        let pitch = ctx.call_robot(
            "ALMotion",
            "getAngles",
            vec![s("HeadPitch"), Value::Bool(true)],
        )?;
        seen2.lock().unwrap().push((took, angles, pitch));
        Ok(())
    });
    let (took, angles, pitch) = seen.lock().unwrap()[0].clone();
    assert_time(took, 2.0);
    let a = floats(&angles);
    assert!((a[0] - 2.0857).abs() < 1e-9, "{a:?}");
    assert!((a[1] + 0.0349).abs() < 1e-9, "{a:?}");
    let p = floats(&pitch)[0];
    assert!((p - 0.33).abs() < 0.01, "head pitch at full yaw: {p}");
}

#[test]
fn a_stopped_motion_leaves_the_joint_where_it_was() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let id = ctx.post_robot(
            "ALMotion",
            "angleInterpolation",
            vec![
                s("HeadYaw"),
                Value::Float(1.0),
                Value::Float(2.0),
                Value::Bool(true),
            ],
        )?;
        ctx.sleep(std::time::Duration::from_secs(1));
        ctx.call_robot("ALMotion", "stop", vec![Value::Int(id)])?;
        ctx.sleep(std::time::Duration::from_secs(2));
        let yaw = ctx.call_robot(
            "ALMotion",
            "getAngles",
            vec![s("HeadYaw"), Value::Bool(false)],
        )?;
        seen2.lock().unwrap().push(floats(&yaw)[0]);
        Ok(())
    });
    assert!((seen.lock().unwrap()[0] - 0.5).abs() < 1e-6);
}

#[test]
fn a_newer_motion_on_the_same_joint_releases_the_older_call() {
    let robot = SimRobot::new(Model::Pepper);
    let seen = log();
    let (a, b) = (seen.clone(), seen.clone());
    let first: support::BoxFn = Arc::new(move |ctx| {
        ctx.call_robot(
            "ALMotion",
            "angleInterpolation",
            vec![
                s("HeadYaw"),
                Value::Float(1.0),
                Value::Float(5.0),
                Value::Bool(true),
            ],
        )?;
        a.lock().unwrap().push(("first", secs(ctx)));
        Ok(())
    });
    let second: support::BoxFn = Arc::new(move |ctx| {
        ctx.sleep(std::time::Duration::from_secs(1));
        ctx.call_robot(
            "ALMotion",
            "angleInterpolationWithSpeed",
            vec![
                s("Head"),
                Value::List(vec![Value::Float(0.0), Value::Float(0.0)]),
                Value::Float(0.1),
            ],
        )?;
        b.lock().unwrap().push(("second", secs(ctx)));
        Ok(())
    });
    support::run_boxes(&robot, vec![("Second", second), ("First", first)]);
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].0, "first");
    assert!(seen[0].1 < 1.1, "the older call returned at {}", seen[0].1);
    // Head yaw was at 0.2 after 1 s of 1 rad / 5 s: 0.2 rad at 10% of 7.34 rad/s.
    assert_time(seen[1].1, 1.0 + 0.2 / (0.1 * 7.34));
}

#[test]
fn postures_take_time_and_are_recognized() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let posture = ctx.call_robot("ALRobotPosture", "getPosture", vec![])?;
        let t0 = secs(ctx);
        let ok = ctx.call_robot(
            "ALRobotPosture",
            "goToPosture",
            vec![s("Crouch"), Value::Float(0.5)],
        )?;
        let took = secs(ctx) - t0;
        let now = ctx.call_robot("ALRobotPosture", "getPosture", vec![])?;
        let family = ctx.call_robot("ALRobotPosture", "getPostureFamily", vec![])?;
        let t1 = secs(ctx);
        ctx.call_robot(
            "ALRobotPosture",
            "goToPosture",
            vec![s("Crouch"), Value::Float(0.5)],
        )?;
        let again = secs(ctx) - t1;
        let bad = ctx.call_robot(
            "ALRobotPosture",
            "goToPosture",
            vec![s("Dance"), Value::Float(0.5)],
        );
        seen2
            .lock()
            .unwrap()
            .push((posture, ok, took, now, family, again, bad.is_err()));
        Ok(())
    });
    let (before, ok, took, now, family, again, bad) = seen.lock().unwrap()[0].clone();
    assert_eq!(before, s("StandInit"));
    assert_eq!(ok, Value::Bool(true));
    assert!((4.0..=10.0).contains(&took), "{took}");
    assert_eq!(now, s("Crouch"));
    assert_eq!(family, s("Crouching"));
    assert_time(again, 0.0);
    assert!(bad);
    let pepper = SimRobot::new(Model::Pepper);
    assert_eq!(
        pepper.call("ALRobotPosture", "getPosture", vec![]),
        Ok(s("Stand"))
    );
    let err = pepper
        .call(
            "ALRobotPosture",
            "goToPosture",
            vec![s("Sit"), Value::Float(1.0)],
        )
        .unwrap_err();
    assert!(
        matches!(&err, RobotError::Failed(m) if m.contains("does not exist on Pepper")),
        "{err:?}"
    );
}

#[test]
fn stop_move_makes_go_to_posture_return_false() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let (a, b) = (seen.clone(), seen.clone());
    let mover: support::BoxFn = Arc::new(move |ctx| {
        let ok = ctx.call_robot(
            "ALRobotPosture",
            "goToPosture",
            vec![s("Sit"), Value::Float(1.0)],
        )?;
        a.lock().unwrap().push(ok);
        Ok(())
    });
    let stopper: support::BoxFn = Arc::new(move |ctx| {
        ctx.sleep(std::time::Duration::from_millis(500));
        ctx.call_robot("ALRobotPosture", "stopMove", vec![])?;
        b.lock().unwrap().push(Value::None);
        Ok(())
    });
    support::run_boxes(&robot, vec![("Mover", mover), ("Stopper", stopper)]);
    assert!(seen.lock().unwrap().contains(&Value::Bool(false)));
    assert_ne!(robot.snapshot().posture, "Sit");
}

#[test]
fn move_to_takes_time_and_changes_the_position() {
    for (model, x, seconds) in [(Model::Nao, 1.0, 10.5), (Model::Pepper, 0.7, 2.5)] {
        let robot = SimRobot::new(model);
        let seen = log();
        let seen2 = seen.clone();
        run_box(&robot, move |ctx| {
            let t0 = secs(ctx);
            ctx.call_robot(
                "ALMotion",
                "moveTo",
                vec![Value::Float(x), Value::Int(0), Value::Float(0.0)],
            )?;
            let took = secs(ctx) - t0;
            ctx.call_robot(
                "ALMotion",
                "moveTo",
                vec![
                    Value::Int(0),
                    Value::Int(0),
                    Value::Float(std::f64::consts::FRAC_PI_2),
                ],
            )?;
            ctx.call_robot(
                "ALMotion",
                "moveTo",
                vec![
                    Value::Float(0.5),
                    Value::Int(0),
                    Value::Int(0),
                    Value::Float(2.0),
                ],
            )?;
            let at = ctx.call_robot("ALMotion", "getRobotPosition", vec![Value::Bool(true)])?;
            seen2.lock().unwrap().push((took, floats(&at)));
            Ok(())
        });
        let (took, at) = seen.lock().unwrap()[0].clone();
        assert_time(took, seconds);
        assert!(
            (at[0] - x).abs() < 1e-9 && (at[1] - 0.5).abs() < 1e-9,
            "{model:?}: {at:?}"
        );
        assert!((at[2] - std::f64::consts::FRAC_PI_2).abs() < 1e-9);
    }
}

#[test]
fn move_toward_walks_until_stopped() {
    let robot = SimRobot::new(Model::Pepper);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        ctx.call_robot(
            "ALMotion",
            "moveToward",
            vec![Value::Float(0.5), Value::Int(0), Value::Int(0)],
        )?;
        let active = ctx.call_robot("ALMotion", "moveIsActive", vec![])?;
        ctx.sleep(std::time::Duration::from_secs(2));
        ctx.call_robot("ALMotion", "stopMove", vec![])?;
        ctx.sleep(std::time::Duration::from_secs(2));
        let at = ctx.call_robot("ALMotion", "getRobotPosition", vec![Value::Bool(false)])?;
        seen2.lock().unwrap().push((active, floats(&at)));
        Ok(())
    });
    let (active, at) = seen.lock().unwrap()[0].clone();
    assert_eq!(active, Value::Bool(true));
    assert!((at[0] - 0.35).abs() < 1e-9, "{at:?}");
}

#[test]
fn rest_and_wake_up() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        ctx.call_robot("ALMotion", "rest", vec![])?;
        let rest = secs(ctx) - t0;
        let awake = ctx.call_robot("ALMotion", "robotIsWakeUp", vec![])?;
        let stiffness = ctx.call_robot("ALMotion", "getStiffnesses", vec![s("Body")])?;
        // A limp joint does not move.
        ctx.call_robot(
            "ALMotion",
            "angleInterpolation",
            vec![
                s("HeadYaw"),
                Value::Float(1.0),
                Value::Float(1.0),
                Value::Bool(true),
            ],
        )?;
        let yaw = ctx.call_robot(
            "ALMotion",
            "getAngles",
            vec![s("HeadYaw"), Value::Bool(true)],
        )?;
        let t1 = secs(ctx);
        ctx.call_robot("ALMotion", "wakeUp", vec![])?;
        let wake = secs(ctx) - t1;
        let posture = ctx.call_robot("ALRobotPosture", "getPosture", vec![])?;
        seen2.lock().unwrap().push((
            rest,
            awake,
            floats(&stiffness),
            floats(&yaw)[0],
            wake,
            posture,
        ));
        Ok(())
    });
    let (rest, awake, stiffness, yaw, wake, posture) = seen.lock().unwrap()[0].clone();
    assert_time(rest, choreo_naoqi::WAKE_SECONDS);
    assert_eq!(awake, Value::Bool(false));
    assert_eq!(stiffness.len(), 26);
    assert!(stiffness.iter().all(|x| *x == 0.0));
    assert_eq!(yaw, 0.0);
    assert_time(wake, choreo_naoqi::WAKE_SECONDS);
    assert_eq!(posture, s("StandInit"));
}

#[test]
fn leds_fade_over_their_duration() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    let probe = robot.clone();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        ctx.call_robot(
            "ALLeds",
            "fadeRGB",
            vec![s("FaceLeds"), s("red"), Value::Float(1.0)],
        )?;
        let took = secs(ctx) - t0;
        let id = ctx.post_robot(
            "ALLeds",
            "fadeRGB",
            vec![s("LeftFaceLeds"), Value::Int(0x0000ff), Value::Float(2.0)],
        )?;
        ctx.sleep(std::time::Duration::from_secs(1));
        let halfway = probe.snapshot().leds;
        ctx.call_robot("ALLeds", "wait", vec![Value::Int(id), Value::Int(0)])?;
        ctx.call_robot(
            "ALLeds",
            "fadeRGB",
            vec![
                s("EarLeds"),
                Value::Float(1.0),
                Value::Float(0.5),
                Value::Float(0.0),
                Value::Float(0.0),
            ],
        )?;
        let bad = ctx.call_robot(
            "ALLeds",
            "fadeRGB",
            vec![s("NoseLeds"), s("red"), Value::Float(0.0)],
        );
        seen2.lock().unwrap().push((took, halfway, bad.is_err()));
        Ok(())
    });
    let (took, halfway, bad) = seen.lock().unwrap()[0].clone();
    assert_time(took, 1.0);
    let colour =
        |leds: &[(String, [f64; 3])], g: &str| leds.iter().find(|(n, _)| n == g).unwrap().1;
    let left = colour(&halfway, "LeftFaceLeds");
    assert!(
        (left[0] - 0.5).abs() < 1e-6 && (left[2] - 0.5).abs() < 1e-6,
        "{left:?}"
    );
    let end = robot.snapshot().leds;
    assert_eq!(colour(&end, "LeftFaceLeds"), [0.0, 0.0, 1.0]);
    assert_eq!(colour(&end, "RightFaceLeds"), [1.0, 0.0, 0.0]);
    assert_eq!(
        colour(&end, "LeftEarLeds"),
        [0.0, 0.0, 0.0],
        "ears are blue only"
    );
    assert!(bad);
}

#[test]
fn leds_take_the_device_names_and_groups_a_real_nao_has() {
    // Names real behaviors use (the corpus: the stock Ear LEDs box builds
    // `Ears/Led/<side>/<angle>Deg/Actuator/Value`; others use `Brain0`..`Brain11`,
    // `RightEarLed1`..`10`, `LeftFaceLed1`..`8`): a device name drives one channel.
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        for name in [
            "Ears/Led/Left/0Deg/Actuator/Value",
            "Ears/Led/Right/324Deg/Actuator/Value",
            "Brain0",
            "Brain11",
            "BrainLedsBack",
            "RightEarLed10",
            "LeftFaceLed8",
            "FaceLedsRightExternal",
            "LeftEarLedsEven",
            "AllLedsRed",
            "ChestBoard/Led/Green/Actuator/Value",
        ] {
            ctx.call_robot(
                "ALLeds",
                "fade",
                vec![s(name), Value::Float(1.0), Value::Float(0.0)],
            )?;
        }
        // One channel of one face LED: red only, where it was white (the face's default).
        ctx.call_robot(
            "ALLeds",
            "fadeRGB",
            vec![s("FaceLeds"), s("white"), Value::Float(0.0)],
        )?;
        ctx.call_robot(
            "ALLeds",
            "fade",
            vec![
                s("Face/Led/Red/Left/0Deg/Actuator/Value"),
                Value::Float(0.0),
                Value::Float(0.0),
            ],
        )?;
        let led0 = ctx.call_robot(
            "ALLeds",
            "getIntensity",
            vec![s("Face/Led/Red/Left/0Deg/Actuator/Value")],
        )?;
        let green0 = ctx.call_robot(
            "ALLeds",
            "getIntensity",
            vec![s("Face/Led/Green/Left/0Deg/Actuator/Value")],
        )?;
        let groups = ctx.call_robot("ALLeds", "listGroups", vec![])?;
        let unknown = ctx.call_robot(
            "ALLeds",
            "fade",
            vec![s("Brain12"), Value::Float(1.0), Value::Float(0.0)],
        );
        seen2
            .lock()
            .unwrap()
            .push((led0, green0, groups, unknown.is_err()));
        Ok(())
    });
    let (led0, green0, groups, unknown) = seen.lock().unwrap()[0].clone();
    assert_eq!(led0, Value::Float(0.0), "the red channel went dark");
    assert_eq!(
        green0,
        Value::Float(1.0),
        "the green channel kept its course"
    );
    let Value::List(groups) = groups else {
        panic!("{groups:?}")
    };
    for g in [
        "Brain5",
        "LeftEarLed1",
        "RightFaceLed1",
        "FaceLedsTop",
        "AllLedsBlue",
    ] {
        assert!(groups.contains(&s(g)), "{g} in listGroups");
    }
    assert!(unknown, "NAO has 12 head LEDs, Brain0..Brain11");
}

#[test]
fn memory_publishes_the_device_keys_of_a_real_nao() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let get = |key: &str| ctx.call_robot("ALMemory", "getData", vec![s(key)]);
        ctx.call_robot(
            "ALMotion",
            "setAngles",
            vec![s("HeadYaw"), Value::Float(0.5), Value::Float(1.0)],
        )?;
        ctx.sleep(std::time::Duration::from_secs(1));
        let yaw = get("Device/SubDeviceList/HeadYaw/Position/Sensor/Value")?;
        let angles = ctx.call_robot(
            "ALMotion",
            "getAngles",
            vec![s("HeadYaw"), Value::Bool(true)],
        )?;
        let temperature = get("Device/SubDeviceList/LKneePitch/Temperature/Sensor/Value")?;
        let tilt = get("Device/SubDeviceList/InertialSensor/AngleY/Sensor/Value")?;
        let battery = get("Device/SubDeviceList/Battery/Charge/Sensor/Value")?;
        let name = get("Device/DeviceList/ChestBoard/BodyNickName")?;
        let system = ctx.call_robot("ALSystem", "robotName", vec![])?;
        assert_eq!(name, system, "the robot's name, both ways");
        let pepper_only = get("Device/SubDeviceList/Platform/Front/Sonar/Sensor/Value").is_err();
        let listed = ctx.call_robot("ALMemory", "getDataList", vec![s("US/Left")])?;
        seen2
            .lock()
            .unwrap()
            .push((yaw, angles, temperature, tilt, battery, pepper_only, listed));
        Ok(())
    });
    let (yaw, angles, temperature, tilt, battery, pepper_only, listed) =
        seen.lock().unwrap()[0].clone();
    assert_eq!(
        Value::List(vec![yaw.clone()]),
        angles,
        "the sensor reads the joint"
    );
    assert_eq!(yaw, Value::Float(0.5));
    assert_eq!(
        temperature,
        Value::Float(choreo_robot::memory::MOTOR_TEMPERATURE)
    );
    assert_eq!(tilt, Value::Float(0.0));
    assert_eq!(battery, Value::Float(1.0));
    assert!(pepper_only, "NAO has no platform sonar");
    // The first echo and the nine after it.
    let echoes: Vec<Value> = std::iter::once(String::new())
        .chain((1..=9).map(|i| i.to_string()))
        .map(|n| s(&format!("Device/SubDeviceList/US/Left/Sensor/Value{n}")))
        .collect();
    assert_eq!(listed, Value::List(echoes));
}

#[test]
fn sounds_last_as_long_as_their_files() {
    let dir = std::env::temp_dir().join(format!("choreo-naoqi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wav = dir.join("beep.wav");
    let mut b = Vec::new();
    for (tag, n) in [(&b"RIFF"[..], 36u32 + 16000), (b"WAVE", 0), (b"fmt ", 16)] {
        b.extend_from_slice(tag);
        if tag != b"WAVE" {
            b.extend_from_slice(&n.to_le_bytes());
        }
    }
    for x in [1u16, 1] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.extend_from_slice(&8000u32.to_le_bytes());
    b.extend_from_slice(&8000u32.to_le_bytes());
    for x in [1u16, 8] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.extend_from_slice(b"data");
    b.extend_from_slice(&16000u32.to_le_bytes());
    b.resize(b.len() + 16000, 128);
    std::fs::write(&wav, &b).unwrap();
    let path = wav.display().to_string();
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        ctx.call_robot("ALAudioPlayer", "playFile", vec![s(&path)])?;
        let full = secs(ctx) - t0;
        let t1 = secs(ctx);
        ctx.call_robot(
            "ALAudioPlayer",
            "playFileFromPosition",
            vec![s(&path), Value::Float(1.5)],
        )?;
        let rest = secs(ctx) - t1;
        let id = ctx.call_robot("ALAudioPlayer", "loadFile", vec![s(&path)])?;
        let length = ctx.call_robot("ALAudioPlayer", "getFileLength", vec![id])?;
        let missing = ctx.call_robot("ALAudioPlayer", "playFile", vec![s("/no/such/file.wav")]);
        seen2
            .lock()
            .unwrap()
            .push((full, rest, length, missing.is_err()));
        Ok(())
    });
    let (full, rest, length, missing) = seen.lock().unwrap()[0].clone();
    assert_time(full, 2.0);
    assert_time(rest, 0.5);
    assert_eq!(length, Value::Float(2.0));
    assert!(missing);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unsupported_calls_raise_and_are_counted() {
    let robot = SimRobot::new(Model::Nao);
    let events = Arc::new(Mutex::new(Vec::new()));
    let events2 = events.clone();
    robot.set_observer(Arc::new(move |e: &RobotEvent| {
        events2.lock().unwrap().push(e.clone())
    }));
    let err = robot
        .call("ALMotion", "fooBar", vec![s("x"), Value::Float(1.0)])
        .unwrap_err();
    let RobotError::UnknownMethod {
        service,
        method,
        signature,
        detail,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(
        (&service[..], &method[..], &signature[..]),
        ("ALMotion", "fooBar", "(sf)")
    );
    assert!(
        detail.starts_with("; no NAOqi version has ALMotion.fooBar"),
        "{detail}"
    );
    assert!(
        err.to_string()
            .starts_with("ALMotion.fooBar: method not served by the robot (args: (sf)); no NAOqi version has ALMotion.fooBar"),
        "{err}"
    );
    assert!(robot.call("ALMotion", "fooBar", vec![]).is_err());
    assert!(
        robot.post("ALMotion", "fooBar", vec![]).is_err(),
        "no id for an unserved post"
    );
    let err = robot.call("ALFoo", "bar", vec![]).unwrap_err();
    assert_eq!(err, RobotError::UnknownService("ALFoo".into()));
    assert_eq!(err.to_string(), "Can't find service: ALFoo");
    assert!(!robot.has_service("ALFoo"));
    // A NAO has no tablet (the catalogue's `pepper` mark, from the documentation): the
    // error NAOqi gives for a module it lacks; a Pepper has one.
    assert!(!robot.has_service("ALTabletService"));
    assert_eq!(
        robot.call("ALTabletService", "showWebview", vec![s("x")]),
        Err(RobotError::UnknownService("ALTabletService".into()))
    );
    let pepper = SimRobot::new(Model::Pepper);
    assert_eq!(
        pepper.call("ALTabletService", "showWebview", vec![s("x")]),
        Ok(Value::Bool(true))
    );
    let stats = robot.stats();
    assert_eq!(stats.unsupported["ALMotion.fooBar"], 3);
    assert_eq!(stats.unsupported["ALFoo.bar"], 1);
    assert_eq!(stats.unsupported["ALTabletService.showWebview"], 1);
    assert_eq!(stats.per_service["ALMotion"], 3);
    assert!(matches!(
        &events.lock().unwrap()[0],
        RobotEvent::Unsupported { service, method, signature }
            if service == "ALMotion" && method == "fooBar" && signature == "(sf)"
    ));
    // Served modules answer, and their calls count as served ones.
    robot
        .call("ALAutonomousLife", "setState", vec![s("solitary")])
        .unwrap();
    assert_eq!(
        robot.call("ALAutonomousLife", "getState", vec![]),
        Ok(s("solitary"))
    );
    let stats = robot.stats();
    assert_eq!(stats.per_method["ALAutonomousLife.setState"], 1);
    assert!(!stats.unsupported.contains_key("ALAutonomousLife.setState"));
}

#[test]
fn a_program_tells_a_missing_service_from_a_missing_method_from_a_failure() {
    // Box code reaches the robot through its context and decides by the kind of error.
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    let (outcome, _) = run_box(&robot, move |ctx| {
        let calls = [
            ("ALFoo", "bar", vec![]),
            ("ALMotion", "fooBar", vec![Value::Int(1)]),
            ("ALLeds", "on", vec![Value::Int(3)]),
            ("ALMemory", "getData", vec![s("NoSuchKey")]),
            ("ALMemory", "getData", vec![s("FrontTactilTouched")]),
        ];
        for (service, method, args) in calls {
            let kind = match ctx.call_robot(service, method, args) {
                Ok(_) => "ok".to_string(),
                Err(RobotError::UnknownService(name)) => format!("no module {name}"),
                Err(RobotError::UnknownMethod {
                    service, method, ..
                }) => format!("no method {service}.{method}"),
                Err(RobotError::BadArguments(_)) => "bad arguments".to_string(),
                Err(RobotError::Failed(_)) => "failed".to_string(),
                Err(other) => format!("unexpected: {other}"),
            };
            seen2.lock().unwrap().push(kind);
        }
        // A posted call of a method the robot lacks raises at once, the same way.
        let post = ctx.post_robot("ALMotion", "fooBar", vec![]);
        seen2.lock().unwrap().push(match post {
            Err(RobotError::UnknownMethod { method, .. }) => format!("no post {method}"),
            other => format!("unexpected: {other:?}"),
        });
        // So do arguments no overload takes: no task can be made of them.
        let post = ctx.post_robot("ALLeds", "on", vec![Value::Int(3)]);
        seen2.lock().unwrap().push(match post {
            Err(RobotError::BadArguments(_)) => "bad post arguments".to_string(),
            other => format!("unexpected: {other:?}"),
        });
        // A method that fails once started fails in its task ("Each post call generates a
        // task id", NAOqi's developer guide): the caller has an id, and waiting for the
        // task returns, not timed out.
        for (service, method, args) in [
            ("ALMemory", "getData", vec![s("NoSuchKey")]),
            ("ALAudioPlayer", "playFile", vec![s("/no/such/file.wav")]),
        ] {
            let kind = match ctx.post_robot(service, method, args) {
                Ok(id) => {
                    let waited =
                        ctx.call_robot(service, "wait", vec![Value::Int(id), Value::Int(0)]);
                    format!("{method} posted, wait {waited:?}")
                }
                Err(e) => format!("unexpected: {e}"),
            };
            seen2.lock().unwrap().push(kind);
        }
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "no module ALFoo",
            "no method ALMotion.fooBar",
            "bad arguments",
            "failed",
            "ok",
            "no post fooBar",
            "bad post arguments",
            "getData posted, wait Ok(Bool(false))",
            "playFile posted, wait Ok(Bool(false))",
        ]
    );
}

#[test]
fn every_listed_method_is_served_or_refused_as_not_yet() {
    // getMethodList must not promise what dispatch does not serve.
    let (nao, pepper) = (SimRobot::new(Model::Nao), SimRobot::new(Model::Pepper));
    for service in [
        "ALTextToSpeech",
        "ALAnimatedSpeech",
        "ALMemory",
        "ALMotion",
        "ALNavigation",
        "ALRobotPosture",
        "ALLeds",
        "ALAudioPlayer",
        "ALSpeechRecognition",
        "ALDialog",
        "ALBehaviorManager",
        "ALFrameManager",
        "ALChoregraphe",
        "ALTracker",
        "DCM",
        "ALRobotPose",
        "ALWorldRepresentation",
        "ALLogger",
        "ALSentinel",
        "ALVisualCompass",
        "ALMood",
        "ALServiceManager",
        "ALAutonomousMoves",
        "ALAutonomousBlinking",
        "ALFaceCharacteristics",
        "ALVoiceEmotionAnalysis",
        "ALTabletService",
    ] {
        // Pepper's own modules (the catalogue's `pepper` mark) on a Pepper.
        let robot = match service {
            "ALVoiceEmotionAnalysis" | "ALTabletService" => &pepper,
            _ => &nao,
        };
        let Ok(Value::List(methods)) = robot.call(service, "getMethodList", vec![]) else {
            panic!("{service}: no method list");
        };
        let mut served = Vec::new();
        for m in methods {
            let Value::String(m) = m else { panic!() };
            // Called with no arguments: served methods answer or complain about arguments;
            // the others NAOqi lists say the simulated robot does not serve them yet (never
            // that NAOqi lacks them: the list is NAOqi's). (Skip those that take time.)
            if [
                "wait",
                "say",
                "wakeUp",
                "rest",
                "lookAt",
                "pointAt",
                "waitUntilTargetReached",
            ]
            .contains(&m.as_str())
            {
                served.push(m);
                continue;
            }
            match robot.call(service, &m, vec![]) {
                Err(RobotError::UnknownMethod { detail, .. }) => assert!(
                    detail.contains("the simulated robot does not serve it yet"),
                    "{service}.{m}: {detail}"
                ),
                Err(RobotError::UnknownService(_)) => panic!("{service}"),
                _ => served.push(m),
            }
        }
        // docs/simulated-robot.md, the minimum faithful set, is served.
        let minimum: &[&str] = match service {
            "ALTextToSpeech" => &["say", "stopAll", "getLanguage", "setLanguage", "setVolume"],
            "ALMemory" => &["getData", "insertData", "raiseEvent", "subscribeToEvent"],
            "ALMotion" => &[
                "angleInterpolationBezier",
                "moveTo",
                "getRobotPosition",
                "killAll",
            ],
            "ALRobotPosture" => &["goToPosture", "stopMove", "setMaxTryNumber", "getPosture"],
            "ALLeds" => &["fadeRGB", "fade", "on", "off", "rotateEyes", "listGroups"],
            "ALAudioPlayer" => &["playFile", "playFileFromPosition", "playFileInLoop"],
            "ALSpeechRecognition" => &["setVocabulary", "pushContexts", "popContexts"],
            "ALDialog" => &["setLanguage", "loadTopic", "activateTopic", "unloadTopic"],
            "ALBehaviorManager" => &["runBehavior", "isBehaviorInstalled", "stopBehavior"],
            "ALTracker" => &["registerTarget", "track", "stopTracker", "setMode"],
            "DCM" => &["getTime", "set"],
            _ => &[],
        };
        for m in minimum {
            assert!(served.iter().any(|s| s == m), "{service}.{m} is not served");
        }
    }
}

#[test]
fn the_observer_sees_speech_postures_and_memory() {
    let robot = SimRobot::new(Model::Nao);
    let events = Arc::new(Mutex::new(Vec::new()));
    let events2 = events.clone();
    robot.set_observer(Arc::new(move |e: &RobotEvent| {
        events2.lock().unwrap().push(e.clone())
    }));
    let (outcome, _) = run_box(&robot, |ctx| {
        ctx.call_robot("ALTextToSpeech", "say", vec![s("\\RSPD=80\\Hi there")])?;
        ctx.call_robot(
            "ALRobotPosture",
            "goToPosture",
            vec![s("Stand"), Value::Float(1.0)],
        )?;
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    let events = events.lock().unwrap();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, RobotEvent::Said { text, .. } if text == "Hi there"))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, RobotEvent::PostureChanged { posture } if posture == "Stand"))
    );
    assert!(events.iter().any(|e| matches!(e, RobotEvent::MotionStarted { method, joints, .. } if method == "goToPosture" && joints.len() == 25)));
    assert!(events.iter().any(
        |e| matches!(e, RobotEvent::MemoryEvent { key, .. } if key == "ALTextToSpeech/TextDone")
    ));
}

#[test]
fn face_led_groups_by_position_light_three_leds_of_each_eye() {
    // FaceLedsTop/Bottom/External/Internal (and their Left/Right forms): NAO's groups that
    // stock boxes (Light_ConcentratedEyes in the Tai Chi Chuan dance...) fade.
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    let probe = robot.clone();
    run_box(&robot, move |ctx| {
        ctx.call_robot(
            "ALLeds",
            "fadeRGB",
            vec![s("FaceLedsTop"), Value::Int(0x0000ff), Value::Float(0.0)],
        )?;
        let top = probe.snapshot().leds;
        ctx.call_robot(
            "ALLeds",
            "fadeRGB",
            vec![s("FaceLedsLeftBottom"), s("red"), Value::Float(0.0)],
        )?;
        let bottom = probe.snapshot().leds;
        let bad = ctx.call_robot(
            "ALLeds",
            "fadeRGB",
            vec![s("FaceLedsMiddle"), s("red"), Value::Float(0.0)],
        );
        seen2.lock().unwrap().push((top, bottom, bad.is_err()));
        Ok(())
    });
    let (top, bottom, bad) = seen.lock().unwrap()[0].clone();
    let colour =
        |leds: &[(String, [f64; 3])], g: &str| leds.iter().find(|(n, _)| n == g).unwrap().1;
    // Three of the eight LEDs of each eye turned blue, five stay white.
    for eye in ["LeftFaceLeds", "RightFaceLeds"] {
        assert_eq!(colour(&top, eye), [5.0 / 8.0, 5.0 / 8.0, 1.0], "{eye}");
    }
    // Bottom of the left eye red: LEDs 3, 4, 5; the right eye keeps its blue top.
    assert_eq!(
        colour(&bottom, "LeftFaceLeds"),
        [5.0 / 8.0, 2.0 / 8.0, 5.0 / 8.0]
    );
    assert_eq!(
        colour(&bottom, "RightFaceLeds"),
        [5.0 / 8.0, 5.0 / 8.0, 1.0]
    );
    assert!(bad, "an unknown position is an unknown group");
}

#[test]
fn joint_angles_are_the_snapshots_joints_at_its_time() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let (seen2, probe) = (seen.clone(), robot.clone());
    run_box(&robot, move |ctx| {
        ctx.call_robot(
            "ALMotion",
            "angleInterpolation",
            vec![
                s("HeadYaw"),
                Value::Float(1.0),
                Value::Float(2.0),
                Value::Bool(true),
            ],
        )?;
        ctx.sleep(std::time::Duration::from_secs(1));
        let (at, angles) = probe.joint_angles();
        seen2
            .lock()
            .unwrap()
            .push((secs(ctx), at.as_secs_f64(), angles));
        Ok(())
    });
    let (now, at, angles) = seen.lock().unwrap()[0].clone();
    assert_eq!(at, now, "the behavior time of the reading");
    let snapshot = robot.snapshot();
    let names: Vec<&str> = Model::Nao.joints().iter().map(|j| j.name).collect();
    let snapshot_names: Vec<&str> = snapshot.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(snapshot_names, names, "Body order");
    assert_eq!(angles.len(), names.len());
    let yaw = Model::Nao.joint_index("HeadYaw").unwrap();
    assert!((angles[yaw] - 1.0).abs() < 1e-9, "{angles:?}");
    let now = robot.joint_angles().1;
    let joints: Vec<f64> = snapshot.joints.iter().map(|j| j.angle).collect();
    assert_eq!(now, joints);
}

#[test]
fn methods_not_served_name_module_method_and_the_closest_names() {
    let robot = SimRobot::new(Model::Nao);
    // NAOqi has it; the simulated robot does not serve it yet.
    let err = robot
        .call("ALMotion", "setFootStepsWithSpeed", vec![])
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("ALMotion.setFootStepsWithSpeed: "), "{err}");
    assert!(
        err.contains(
            "NAOqi has ALMotion.setFootStepsWithSpeed, the simulated robot does not serve it yet"
        ),
        "{err}"
    );
    assert!(err.contains("closest: setFootSteps"), "{err}");
    // A typo: no NAOqi version has it, and the name meant comes first.
    let err = robot
        .call("ALTextToSpeech", "sayy", vec![s("hi")])
        .unwrap_err();
    assert!(matches!(err, RobotError::UnknownMethod { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("no NAOqi version has ALTextToSpeech.sayy; closest: say"),
        "{text}"
    );
    // Posted, the same error and no task id.
    let posted = robot
        .post("ALLeds", "fadeRGBB", vec![])
        .unwrap_err()
        .to_string();
    assert!(
        posted.contains("no NAOqi version has ALLeds.fadeRGBB; closest: fadeRGB"),
        "{posted}"
    );
    // The methods NAOqi lists are the module's method list.
    let list = robot
        .call("ALRobotPosture", "getMethodList", vec![])
        .unwrap();
    let Value::List(names) = list else {
        panic!("{list:?}")
    };
    assert!(names.contains(&s("goToPosture")) && names.contains(&s("wait")));
    assert_eq!(names.iter().filter(|n| **n == s("goToPosture")).count(), 1);
    let stats = robot.stats();
    assert_eq!(stats.unsupported.get("ALTextToSpeech.sayy"), Some(&1));
}
