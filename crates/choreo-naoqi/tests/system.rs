//! The robot's own modules: ALAutonomousLife, ALLocalization, ALAudioDevice, DCM and
//! ALSystem.

use crate::support;

use std::time::Duration;

use choreo_engine::{Robot, Value};
use choreo_naoqi::{Model, SimRobot};
use support::{
    assert_time, b, f, floats, i, list, log, notices, run_box, s, secs, watched, written,
};

#[test]
fn autonomous_life_states_focus_abilities_and_safeguards() {
    let (robot, events) = watched(Model::Pepper);
    let life = |m: &str, args: Vec<Value>| robot.call("ALAutonomousLife", m, args);
    assert_eq!(life("getState", vec![]), Ok(s("disabled")));
    assert_eq!(
        robot.call("ALMemory", "getData", vec![s("AutonomousLife/State")]),
        Ok(s("disabled"))
    );
    assert!(life("setState", vec![s("asleep")]).is_err());
    assert!(life("setState", vec![s("interactive")]).is_err());
    // Solitary: the abilities start, ALBasicAwareness among them.
    life("setState", vec![s("solitary")]).unwrap();
    assert_eq!(written(&events, "AutonomousLife/State"), [s("solitary")]);
    assert_eq!(
        robot.call("ALBasicAwareness", "isEnabled", vec![]),
        Ok(b(true))
    );
    assert_eq!(
        life("getAutonomousAbilityEnabled", vec![s("AutonomousBlinking")]),
        Ok(b(true))
    );
    // An ability off, in its module too.
    life(
        "setAutonomousAbilityEnabled",
        vec![s("BasicAwareness"), b(false)],
    )
    .unwrap();
    assert_eq!(
        robot.call("ALBasicAwareness", "isEnabled", vec![]),
        Ok(b(false))
    );
    robot
        .call("ALAutonomousBlinking", "setEnabled", vec![b(false)])
        .unwrap();
    assert_eq!(
        life("getAutonomousAbilityEnabled", vec![s("AutonomousBlinking")]),
        Ok(b(false))
    );
    assert!(life("setAutonomousAbilityEnabled", vec![s("Flying"), b(true)]).is_err());
    let Ok(Value::List(status)) = life("getAutonomousAbilitiesStatus", vec![]) else {
        panic!()
    };
    assert_eq!(status.len(), 5);
    assert!(status.contains(&list(vec![s("BasicAwareness"), b(false), b(false)])));
    assert!(status.contains(&list(vec![s("BackgroundMovement"), b(true), b(true)])));

    // Focus: through ALBehaviorManager, which must have the activity.
    assert!(life("switchFocus", vec![s("shop/welcome")]).is_err());
    robot.install_behavior("shop/welcome");
    life("switchFocus", vec![s("shop/welcome")]).unwrap();
    assert_eq!(life("focusedActivity", vec![]), Ok(s("shop/welcome")));
    assert_eq!(
        robot.call(
            "ALBehaviorManager",
            "isBehaviorRunning",
            vec![s("shop/welcome")]
        ),
        Ok(b(true))
    );
    life("setSafeguardEnabled", vec![s("RobotFell"), b(false)]).unwrap();
    assert_eq!(
        life("isSafeguardEnabled", vec![s("RobotFell")]),
        Ok(b(false))
    );
    assert!(life("setSafeguardEnabled", vec![s("Rain"), b(false)]).is_err());
    life("stopFocus", vec![]).unwrap();
    assert_eq!(life("focusedActivity", vec![]), Ok(s("")));
    assert_eq!(
        life("isSafeguardEnabled", vec![s("RobotFell")]),
        Ok(b(true)),
        "back on when the activity stops"
    );
    assert_eq!(
        written(&events, "AutonomousLife/FocusedActivity"),
        [s("shop/welcome"), s("")]
    );
    let Ok(Value::List(history)) = life("getFocusHistory", vec![]) else {
        panic!()
    };
    assert_eq!(history.len(), 1);
    // Disabled: everything stops.
    life("setState", vec![s("disabled")]).unwrap();
    assert_eq!(
        life("getAutonomousAbilityEnabled", vec![s("BackgroundMovement")]),
        Ok(b(false))
    );
    let Ok(Value::List(states)) = life("getStateHistory", vec![i(1)]) else {
        panic!()
    };
    assert_eq!(states.len(), 1);
    life("setRobotOffsetFromFloor", vec![f(0.7)]).unwrap();
    assert_eq!(life("getRobotOffsetFromFloor", vec![]), Ok(f(0.7)));
    assert!(notices(&events, "ALAutonomousLife").contains(&"focuses shop/welcome".to_string()));
}

#[test]
fn localization_learns_home_and_walks_back() {
    let robot = SimRobot::new(Model::Nao);
    let loc = |m: &str, args: Vec<Value>| robot.call("ALLocalization", m, args);
    assert_eq!(loc("goToHome", vec![]), Ok(i(1)), "no home yet");
    assert_eq!(loc("isDataAvailable", vec![]), Ok(b(false)));
    assert_eq!(loc("load", vec![s("/home/nao/office")]), Ok(i(2)));
    assert_eq!(
        loc("getMessageFromErrorCode", vec![i(2)]),
        Ok(s("no exploration saved in that folder"))
    );
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let loc = |m: &str, args: Vec<Value>| ctx.call_robot("ALLocalization", m, args);
        let learned = loc("learnHome", vec![])?;
        ctx.call_robot("ALMotion", "moveTo", vec![f(1.0), f(0.0), f(0.0)])?;
        let away = loc("getRobotPosition", vec![b(false)])?;
        let out = loc("isInCurrentHome", vec![])?;
        let t0 = secs(ctx);
        let back = loc("goToHome", vec![])?;
        let took = secs(ctx) - t0;
        let home = loc("isInCurrentHome", vec![])?;
        let orientation = loc("getRobotOrientation", vec![])?;
        seen2
            .lock()
            .unwrap()
            .push((learned, away, out, back, took, home, orientation));
        Ok(())
    });
    let (learned, away, out, back, took, home, orientation) = seen.lock().unwrap()[0].clone();
    assert_eq!(learned, i(0));
    let away = floats(&away);
    assert!(
        (away[0] - 1.0).abs() < 1e-9 && away[1].abs() < 1e-9,
        "{away:?}"
    );
    assert_eq!(out, b(false));
    assert_eq!(back, i(0));
    // Backwards 1 m at 0.1 m/s, and the walk's start and stop.
    assert_time(took, 1.0 / 0.1 + 0.5);
    assert_eq!(home, b(true));
    assert!(floats(&orientation)[2].abs() < 1e-9);
    assert_eq!(loc("save", vec![s("office")]), Ok(i(0)));
    assert_eq!(loc("clear", vec![s("office")]), Ok(i(0)));
    assert_eq!(loc("isDataAvailable", vec![]), Ok(b(false)));
}

#[test]
fn audio_device_keeps_volume_and_mute_and_hears_silence() {
    let (robot, events) = watched(Model::Nao);
    let ad = |m: &str, args: Vec<Value>| robot.call("ALAudioDevice", m, args);
    assert_eq!(ad("getOutputVolume", vec![]), Ok(i(60)));
    ad("setOutputVolume", vec![i(150)]).unwrap();
    assert_eq!(ad("getOutputVolume", vec![]), Ok(i(100)), "clamped");
    ad("setOutputVolume", vec![i(-3)]).unwrap();
    assert_eq!(ad("getOutputVolume", vec![]), Ok(i(0)));
    ad("muteAudioOut", vec![b(true)]).unwrap();
    assert_eq!(ad("isAudioOutMuted", vec![]), Ok(b(true)));
    ad("enableEnergyComputation", vec![]).unwrap();
    for mic in [
        "getFrontMicEnergy",
        "getRearMicEnergy",
        "getLeftMicEnergy",
        "getRightMicEnergy",
    ] {
        assert_eq!(ad(mic, vec![]), Ok(f(0.0)), "{mic}");
    }
    let root = tempfile::tempdir().unwrap();
    robot.set_robot_root(Some(root.path().to_path_buf()));
    run_box(&robot, |ctx| {
        let call = |m: &str, a: Vec<Value>| ctx.call_robot("ALAudioDevice", m, a);
        call("startMicrophonesRecording", vec![s("/home/nao/rec.wav")])?;
        // A second start raises (so no notice of it below).
        let second = call("startMicrophonesRecording", vec![s("/tmp/other.wav")]);
        ctx.sleep(Duration::from_secs(2));
        call("stopMicrophonesRecording", vec![])?;
        call("stopMicrophonesRecording", vec![])?;
        if second.is_ok() {
            call("startMicrophonesRecording", vec![s("/home/nao/twice.wav")])?;
        }
        call("startMicrophonesRecording", vec![s("/home/nao/rec.ogg")])?;
        call("stopMicrophonesRecording", vec![])?;
        Ok(())
    });
    assert_eq!(ad("isOutputClosed", vec![]), Ok(b(false)));
    // The API page: a .wav is "16 bits, 48000Hz, 4 channels"; 2 s of it.
    let wav = root.path().join("home/nao/rec.wav");
    let bytes = std::fs::read(&wav).unwrap();
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let half = |at: usize| u16::from_le_bytes(bytes[at..at + 2].try_into().unwrap());
    assert_eq!(&bytes[8..16], b"WAVEfmt ");
    assert_eq!((half(22), word(24), half(34)), (4, 48_000, 16));
    let seconds = choreo_naoqi::audio::file_length(&wav.to_string_lossy()).unwrap();
    assert!((seconds - 2.0).abs() < 1e-6, "{seconds}");
    assert_eq!(
        notices(&events, "ALAudioDevice"),
        [
            "output volume 100",
            "output volume 0",
            "muteAudioOut(True)",
            "enableEnergyComputation()",
            "records /home/nao/rec.wav",
            "stopped recording /home/nao/rec.wav (written)",
            "records /home/nao/rec.ogg",
            "stopped recording /home/nao/rec.ogg (not written: choreo writes only .wav recordings)",
        ]
    );
}

#[test]
fn dcm_commands_joints_and_leds_on_its_clock() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let dcm = |m: &str, args: Vec<Value>| ctx.call_robot("DCM", m, args);
        let get = |k: &str| ctx.call_robot("ALMemory", "getData", vec![s(k)]);
        let now = dcm("getTime", vec![i(0)])?;
        let later = dcm("getTime", vec![i(1000)])?;
        let Value::Int(t) = now else { panic!() };
        // The head turns to 0.5 rad in one second; the call returns at once.
        dcm(
            "set",
            vec![list(vec![
                s("HeadYaw/Position/Actuator/Value"),
                s("ClearAll"),
                list(vec![list(vec![f(0.5), i(t + 1000)])]),
            ])],
        )?;
        let returned = secs(ctx);
        ctx.sleep(Duration::from_millis(500));
        let half = get("Device/SubDeviceList/HeadYaw/Position/Sensor/Value")?;
        ctx.sleep(Duration::from_millis(600));
        let full = get("Device/SubDeviceList/HeadYaw/Position/Sensor/Value")?;
        // An alias of two LED channels, one of them unknown.
        let alias = dcm(
            "createAlias",
            vec![list(vec![
                s("eye"),
                list(vec![
                    s("Face/Led/Red/Left/0Deg/Actuator/Value"),
                    s("No/Such/Actuator/Value"),
                ]),
            ])],
        )?;
        let lit = get("Device/SubDeviceList/Face/Led/Red/Left/0Deg/Actuator/Value")?;
        let Value::Int(t) = dcm("getTime", vec![i(0)])? else {
            panic!()
        };
        dcm(
            "setAlias",
            vec![list(vec![
                s("eye"),
                s("ClearAll"),
                s("time-separate"),
                i(0),
                list(vec![i(t + 200)]),
                list(vec![list(vec![f(0.0)]), list(vec![f(1.0)])]),
            ])],
        )?;
        // A brain LED, as the older stock Choice box lights them.
        dcm(
            "set",
            vec![list(vec![
                s("Head/Led/Front/Right/1/Actuator/Value"),
                s("Merge"),
                list(vec![list(vec![f(0.5), i(t + 50)])]),
            ])],
        )?;
        ctx.sleep(Duration::from_millis(300));
        let brain = get("Device/SubDeviceList/Head/Led/Front/Right/1/Actuator/Value")?;
        let dark = get("Device/SubDeviceList/Face/Led/Red/Left/0Deg/Actuator/Value")?;
        let green = get("Device/SubDeviceList/Face/Led/Green/Left/0Deg/Actuator/Value")?;
        let bad = dcm(
            "set",
            vec![list(vec![
                s("HeadYaw/Position/Actuator/Value"),
                s("Sometimes"),
                list(vec![]),
            ])],
        )
        .is_err();
        let unknown = dcm("setAlias", vec![s("nope"), i(0), list(vec![f(1.0)])]).is_err();
        assert_eq!(brain, f(0.5));
        seen2.lock().unwrap().push((
            now, later, returned, half, full, alias, lit, dark, green, bad, unknown,
        ));
        Ok(())
    });
    let (now, later, returned, half, full, alias, lit, dark, green, bad, unknown) =
        seen.lock().unwrap()[0].clone();
    let (Value::Int(now), Value::Int(later)) = (now, later) else {
        panic!()
    };
    assert_eq!(later - now, 1000);
    assert_time(returned, now as f64 / 1000.0);
    assert!((floats(&half)[0] - 0.25).abs() < 1e-6, "{half}");
    assert!((floats(&full)[0] - 0.5).abs() < 1e-6, "{full}");
    assert_eq!(
        alias,
        list(vec![
            s("eye"),
            list(vec![s("Face/Led/Red/Left/0Deg/Actuator/Value"), s("")])
        ])
    );
    assert_eq!(lit, f(1.0), "the eyes are white from boot");
    assert_eq!(dark, f(0.0), "the red channel only");
    assert_eq!(green, f(1.0));
    assert!(bad && unknown);
}

#[test]
fn system_names_the_robot_and_its_version_and_stays_on() {
    let (robot, events) = watched(Model::Nao);
    let sys = |m: &str, args: Vec<Value>| robot.call("ALSystem", m, args);
    assert_eq!(sys("robotName", vec![]), Ok(s("choreo-sim")));
    assert_eq!(sys("setRobotName", vec![s("not a name")]), Ok(b(false)));
    assert_eq!(sys("setRobotName", vec![s("nao-7")]), Ok(b(true)));
    assert_eq!(sys("robotName", vec![]), Ok(s("nao-7")));
    assert_eq!(
        robot.call(
            "ALMemory",
            "getData",
            vec![s("Device/DeviceList/ChestBoard/BodyNickName")]
        ),
        Ok(s("nao-7"))
    );
    assert_eq!(sys("systemVersion", vec![]), Ok(s("2.8.5.10")));
    assert_eq!(
        robot.call("ALTextToSpeech", "version", vec![]),
        Ok(s("2.8.5.10"))
    );
    let pepper = SimRobot::new(Model::Pepper);
    assert_eq!(
        pepper.call("ALSystem", "systemVersion", vec![]),
        Ok(s("2.5.10.7"))
    );
    assert_eq!(sys("timezone", vec![]), Ok(s("UTC")));
    assert_eq!(sys("setTimezone", vec![s("Europe/Paris")]), Ok(b(true)));
    assert_eq!(sys("timezone", vec![]), Ok(s("Europe/Paris")));
    sys("shutdown", vec![]).unwrap();
    sys("reboot", vec![]).unwrap();
    assert_eq!(sys("robotName", vec![]), Ok(s("nao-7")), "still on");
    let shown = notices(&events, "ALSystem");
    assert!(
        shown
            .iter()
            .any(|n| n.starts_with("shutdown asked (not done")),
        "{shown:?}"
    );
}
