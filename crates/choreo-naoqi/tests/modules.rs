//! The modules that keep state (`kept.rs` and its users): ALRobotPose, ALWorldRepresentation,
//! ALLogger, ALSentinel, ALVisualCompass, ALMood, ALServiceManager, ALAutonomousMoves,
//! ALAutonomousBlinking, ALFaceCharacteristics, ALVoiceEmotionAnalysis, ALTabletService,
//! ALPreferenceManager;
//! ALMotion's configurations and ALNavigation's trajectories.

use crate::support;

use choreo_engine::{Robot, RobotError, Value};
use choreo_naoqi::{Model, RobotEvent, SimRobot};
use support::{assert_time, f, floats, list, log, notices, run_box, s, secs, watched};

#[test]
fn robot_pose_follows_the_posture_and_counts_time_in_it() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        ctx.sleep(std::time::Duration::from_secs(2));
        let standing = ctx.call_robot("ALRobotPose", "getActualPoseAndTime", vec![])?;
        ctx.call_robot("ALRobotPosture", "goToPosture", vec![s("Sit"), f(1.0)])?;
        let sat = ctx.call_robot("ALRobotPose", "getActualPoseAndTime", vec![])?;
        ctx.sleep(std::time::Duration::from_millis(700));
        let later = ctx.call_robot("ALRobotPose", "getActualPoseAndTime", vec![])?;
        seen2
            .lock()
            .unwrap()
            .extend([standing, sat, later, s(&secs(ctx).to_string())]);
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[0],
        list(vec![s("Stand"), f(2.0)]),
        "awake at start: standing"
    );
    assert_eq!(seen[1], list(vec![s("Sit"), f(0.0)]));
    let Value::List(later) = &seen[2] else {
        panic!()
    };
    assert_eq!(later[0], s("Sit"));
    assert_time(floats(&list(vec![later[1].clone()]))[0], 0.7);
    assert_eq!(
        robot.call("ALMemory", "getData", vec![s("robotPoseChanged")]),
        Ok(s("Sit"))
    );
    let Ok(Value::List(names)) = robot.call("ALRobotPose", "getPoseNames", vec![]) else {
        panic!()
    };
    assert!(names.contains(&s("HeadBack")) && names.contains(&s("Crouch")));
}

#[test]
fn world_representation_keeps_objects_categories_positions_and_attributes() {
    let (robot, events) = watched(Model::Nao);
    let wr = |m: &str, args: Vec<Value>| robot.call("ALWorldRepresentation", m, args);
    // No category yet: storing fails with a non-zero code.
    let at = list(vec![f(1.0), f(0.0), f(0.0), f(0.0), f(0.0), f(0.0)]);
    let store = |name: &str, parent: &str, pos: Value| {
        wr(
            "storeObject",
            vec![s(name), s(parent), pos, s("Things"), list(vec![])],
        )
    };
    assert_eq!(store("table", "World", at.clone()), Ok(Value::Int(1)));
    assert_eq!(
        wr(
            "createObjectCategory",
            vec![s("Things"), Value::Bool(false)]
        ),
        Ok(Value::Int(0))
    );
    assert_eq!(
        wr("objectCategoryExists", vec![s("Things")]),
        Ok(Value::Bool(true))
    );
    assert_eq!(store("table", "World", at), Ok(Value::Int(0)));
    // A cup on the table, half a turn around z: its position read in the world frame.
    let cup = list(vec![
        f(0.0),
        f(0.5),
        f(0.7),
        f(0.0),
        f(0.0),
        f(std::f64::consts::PI),
    ]);
    assert_eq!(store("cup", "table", cup), Ok(Value::Int(0)));
    assert_eq!(
        store("ghost", "nowhere", list(vec![f(0.0), f(0.0), f(0.0)])),
        Ok(Value::Int(1))
    );
    assert_eq!(wr("getObjectParentName", vec![s("cup")]), Ok(s("table")));
    assert_eq!(wr("getObjectCategory", vec![s("cup")]), Ok(s("Things")));
    assert_eq!(
        wr("getChildrenNames", vec![s("table")]),
        Ok(list(vec![s("cup")]))
    );
    let world = floats(&wr("getPosition", vec![s("cup"), s("World")]).unwrap());
    assert!(
        (world[0] - 1.0).abs() < 1e-9 && (world[1] - 0.5).abs() < 1e-9,
        "{world:?}"
    );
    assert!((world[2] - 0.7).abs() < 1e-9 && (world[5].abs() - std::f64::consts::PI).abs() < 1e-9);
    // The table seen from the cup: behind it, turned back.
    let back = floats(&wr("getPosition6D", vec![s("table"), s("cup")]).unwrap());
    assert!(
        (back[1] - 0.5).abs() < 1e-9 && (back[2] + 0.7).abs() < 1e-9,
        "{back:?}"
    );
    // Moving the table moves the cup.
    let moved = list(vec![f(2.0), f(0.0), f(0.0), f(0.0), f(0.0), f(0.0)]);
    assert_eq!(
        wr("updatePosition", vec![s("table"), moved, Value::Bool(true)]),
        Ok(Value::Int(0))
    );
    assert!(
        (floats(&wr("getPosition", vec![s("cup"), s("World")]).unwrap())[0] - 2.0).abs() < 1e-9
    );
    // Attributes: declared by the category, then stored and read back.
    let fields = list(vec![list(vec![s("model"), s("text")])]);
    assert_eq!(
        wr(
            "addAttributeToCategory",
            vec![s("Things"), s("Display"), fields.clone()]
        ),
        Ok(Value::Int(0))
    );
    assert_eq!(
        wr(
            "addAttributeToCategory",
            vec![s("Things"), s("Display"), fields.clone()]
        ),
        Ok(Value::Int(1))
    );
    assert_eq!(
        wr("getAttributesFromCategory", vec![s("Things")]),
        Ok(list(vec![list(vec![s("Display"), fields])]))
    );
    let value = list(vec![list(vec![s("model"), s("mug.dae")])]);
    assert_eq!(
        wr(
            "updateAttribute",
            vec![s("cup"), s("Display"), s("1"), value.clone()]
        ),
        Ok(Value::Int(0))
    );
    assert_eq!(
        wr(
            "updateAttribute",
            vec![s("cup"), s("Size"), s("1"), value.clone()]
        ),
        Ok(Value::Int(1))
    );
    assert_eq!(
        wr("getObjectAttributes", vec![s("cup")]),
        Ok(list(vec![list(vec![s("Display"), value])]))
    );
    // Clearing the table clears what is on it.
    assert_eq!(wr("clearObject", vec![s("table")]), Ok(Value::Int(0)));
    assert_eq!(wr("findObject", vec![s("cup")]), Ok(Value::Bool(false)));
    assert_eq!(wr("getObjectNames", vec![]), Ok(list(vec![])));
    assert!(matches!(
        wr("getObjectCategory", vec![s("cup")]),
        Err(RobotError::Failed(_))
    ));
    let shown = notices(&events, "ALWorldRepresentation");
    assert!(
        shown.iter().any(|t| t.contains("stores \"cup\"")),
        "{shown:?}"
    );
    assert!(
        shown.iter().any(|t| t.contains("removes \"table\"")),
        "{shown:?}"
    );
}

#[test]
fn logger_shows_messages_within_its_verbosity() {
    let (robot, events) = watched(Model::Nao);
    let log = |m: &str, text: &str| robot.call("ALLogger", m, vec![s("MyBox"), s(text)]);
    log("info", "hello").unwrap();
    log("debug", "hidden").unwrap();
    assert_eq!(
        robot.call("ALLogger", "verbosity", vec![]),
        Ok(Value::Int(4))
    );
    robot
        .call("ALLogger", "setVerbosity", vec![s("debug")])
        .unwrap();
    log("debug", "shown").unwrap();
    log("warn", "careful").unwrap();
    assert!(
        robot
            .call("ALLogger", "setVerbosity", vec![s("loud")])
            .is_err()
    );
    let logs: Vec<(String, String)> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            RobotEvent::Log {
                level,
                source,
                message,
            } => {
                assert_eq!(source, "MyBox");
                Some((level.clone(), message.clone()))
            }
            _ => None,
        })
        .collect();
    let want = [
        ("info", "hello"),
        ("debug", "shown"),
        ("warning", "careful"),
    ];
    assert_eq!(logs, want.map(|(l, m)| (l.to_string(), m.to_string())));
    robot
        .call("ALLogger", "logInFile", vec![s("/tmp/x.log")])
        .unwrap();
    robot
        .call("ALLogger", "removeHandler", vec![s("/tmp/x.log")])
        .unwrap();
    assert!(
        robot
            .call("ALLogger", "removeHandler", vec![s("/tmp/x.log")])
            .is_err()
    );
}

#[test]
fn sentinel_settings_are_kept() {
    let (robot, events) = watched(Model::Nao);
    let get = || robot.call("ALSentinel", "isDefaultActionSimpleClickEnabled", vec![]);
    assert_eq!(get(), Ok(Value::Bool(true)));
    robot
        .call(
            "ALSentinel",
            "enableDefaultActionSimpleClick",
            vec![Value::Bool(false)],
        )
        .unwrap();
    assert_eq!(get(), Ok(Value::Bool(false)));
    assert_eq!(
        notices(&events, "ALSentinel"),
        ["enableDefaultActionSimpleClick(False)"]
    );
}

#[test]
fn visual_compass_walks_like_move_to() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        let ok = ctx.call_robot("ALVisualCompass", "moveTo", vec![f(0.5), f(0.0), f(0.0)])?;
        seen2.lock().unwrap().push((ok, secs(ctx) - t0));
        Ok(())
    });
    let (ok, took) = seen.lock().unwrap()[0].clone();
    assert_eq!(ok, Value::Bool(true));
    assert_time(took, 0.5 / 0.1 + 0.5);
    assert!((robot.snapshot().position[0] - 0.5).abs() < 1e-9);
    robot
        .call("ALVisualCompass", "setResolution", vec![Value::Int(2)])
        .unwrap();
    assert_eq!(
        robot.call("ALVisualCompass", "getResolution", vec![]),
        Ok(Value::Int(2))
    );
    robot
        .call("ALVisualCompass", "subscribe", vec![s("me")])
        .unwrap();
    assert_eq!(
        robot.call("ALVisualCompass", "isProcessing", vec![]),
        Ok(Value::Bool(true))
    );
}

#[test]
fn mood_subscribers_are_kept_and_states_have_the_real_shape() {
    let robot = SimRobot::new(Model::Pepper);
    assert_eq!(
        robot.call("ALMood", "subscribe", vec![s("app"), s("Active")]),
        Ok(Value::Bool(true))
    );
    assert!(
        robot
            .call("ALMood", "subscribe", vec![s("app"), s("Loud")])
            .is_err()
    );
    assert_eq!(
        robot.call("ALMood", "getSubscribers", vec![]),
        Ok(list(vec![s("app")]))
    );
    // The 2.8 ALMood page: `getSubscribersInfo` gives {"subscriber_1": "Active", ...}.
    robot
        .call("ALMood", "subscribe", vec![s("quiet"), s("Passive")])
        .unwrap();
    assert_eq!(
        robot.call("ALMood", "getSubscribersInfo", vec![]),
        Ok(Value::Map(vec![
            (s("app"), s("Active")),
            (s("quiet"), s("Passive"))
        ]))
    );
    robot
        .call("ALMood", "unsubscribe", vec![s("quiet")])
        .unwrap();
    assert_eq!(
        robot.call("ALMood", "unsubscribe", vec![s("app")]),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        robot.call("ALMood", "unsubscribe", vec![s("app")]),
        Ok(Value::Bool(false))
    );
    let Ok(Value::Map(state)) = robot.call("ALMood", "currentPersonState", vec![]) else {
        panic!()
    };
    assert!(state.iter().any(|(k, _)| *k == s("valence")));
    assert_eq!(
        robot.call("ALMood", "getEmotionalReaction", vec![]),
        Ok(s("none"))
    );
}

#[test]
fn service_manager_keeps_started_services() {
    let robot = SimRobot::new(Model::Pepper);
    let running = |n: &str| robot.call("ALServiceManager", "isServiceRunning", vec![s(n)]);
    assert_eq!(running("ALMotion"), Ok(Value::Bool(true)));
    assert_eq!(running("my-service"), Ok(Value::Bool(false)));
    robot
        .call("ALServiceManager", "startService", vec![s("my-service")])
        .unwrap();
    assert_eq!(running("my-service"), Ok(Value::Bool(true)));
    assert_eq!(
        robot.call("ALServiceManager", "stopService", vec![s("my-service")]),
        Ok(Value::Bool(true))
    );
    assert_eq!(running("my-service"), Ok(Value::Bool(false)));
}

#[test]
fn autonomous_moves_and_blinking_keep_their_settings() {
    let robot = SimRobot::new(Model::Pepper);
    robot
        .call(
            "ALAutonomousMoves",
            "setBackgroundStrategy",
            vec![s("none")],
        )
        .unwrap();
    assert_eq!(
        robot.call("ALAutonomousMoves", "getBackgroundStrategy", vec![]),
        Ok(s("none"))
    );
    assert_eq!(
        robot.call("ALAutonomousBlinking", "isEnabled", vec![]),
        Ok(Value::Bool(true))
    );
    robot
        .call(
            "ALAutonomousBlinking",
            "setEnabled",
            vec![Value::Bool(false)],
        )
        .unwrap();
    assert_eq!(
        robot.call("ALAutonomousBlinking", "isEnabled", vec![]),
        Ok(Value::Bool(false))
    );
}

#[test]
fn face_characteristics_analyze_only_people_the_scenario_shows() {
    let robot = SimRobot::new(Model::Pepper);
    let analyze = || {
        robot.call(
            "ALFaceCharacteristics",
            "analyzeFaceCharacteristics",
            vec![Value::Int(7)],
        )
    };
    assert_eq!(analyze(), Ok(Value::Bool(false)));
    robot
        .call(
            "ALMemory",
            "insertData",
            vec![s("PeoplePerception/PeopleList"), list(vec![Value::Int(7)])],
        )
        .unwrap();
    assert_eq!(analyze(), Ok(Value::Bool(true)));
    let age = robot
        .call(
            "ALMemory",
            "getData",
            vec![s("PeoplePerception/Person/7/AgeProperties")],
        )
        .unwrap();
    assert_eq!(floats(&age).len(), 2);
    robot
        .call(
            "ALFaceCharacteristics",
            "subscribe",
            vec![s("me"), Value::Int(200), f(0.5)],
        )
        .unwrap();
    assert_eq!(
        robot.call("ALFaceCharacteristics", "getMyPeriod", vec![s("me")]),
        Ok(Value::Int(200))
    );
}

#[test]
fn voice_emotion_analysis_keeps_parameters_and_subscribers() {
    let robot = SimRobot::new(Model::Pepper);
    let vea = |m: &str, a: Vec<Value>| robot.call("ALVoiceEmotionAnalysis", m, a);
    vea("setParameter", vec![s("SpeakerTimeout"), f(3.0)]).unwrap();
    assert_eq!(vea("getParameter", vec![s("SpeakerTimeout")]), Ok(f(3.0)));
    assert!(vea("getParameter", vec![s("Nope")]).is_err());
    vea("subscribe", vec![s("me")]).unwrap();
    assert_eq!(vea("isProcessing", vec![]), Ok(Value::Bool(true)));
    vea("unsubscribe", vec![s("me")]).unwrap();
    assert!(vea("unsubscribe", vec![s("me")]).is_err());
    assert_eq!(
        vea("getEventList", vec![]),
        Ok(list(vec![s("ALVoiceEmotionAnalysis/EmotionRecognized")]))
    );
}

#[test]
fn tablet_shows_pages_images_and_videos() {
    let (robot, events) = watched(Model::Pepper);
    let tablet = |m: &str, a: Vec<Value>| robot.call("ALTabletService", m, a);
    assert_eq!(tablet("robotIp", vec![]), Ok(s("198.18.0.1")));
    assert_eq!(
        tablet("loadApplication", vec![s("quiz")]),
        Ok(Value::Bool(true))
    );
    assert_eq!(tablet("showWebview", vec![]), Ok(Value::Bool(true)));
    assert_eq!(
        tablet("pauseVideo", vec![]),
        Ok(Value::Bool(false)),
        "no video"
    );
    assert_eq!(
        tablet("getVideoLength", vec![]),
        Ok(Value::Int(-1)),
        "no video"
    );
    tablet("playVideo", vec![s("http://x/v.mp4")]).unwrap();
    // A video on the Internet cannot be measured here: it plays for the default 3 s, given
    // in milliseconds as the API page says.
    assert_eq!(tablet("getVideoLength", vec![]), Ok(Value::Int(3000)));
    assert_eq!(tablet("pauseVideo", vec![]), Ok(Value::Bool(true)));
    assert_eq!(
        tablet("pauseVideo", vec![]),
        Ok(Value::Bool(false)),
        "paused"
    );
    assert_eq!(tablet("stopVideo", vec![]), Ok(Value::Bool(true)));
    assert_eq!(tablet("getVideoPosition", vec![]), Ok(Value::Int(-1)));
    tablet("setBrightness", vec![f(0.3)]).unwrap();
    assert_eq!(tablet("getBrightness", vec![]), Ok(f(0.3)));
    let shown = notices(&events, "ALTabletService");
    assert_eq!(
        shown[..6],
        [
            "loads http://198.18.0.1/apps/quiz/",
            "shows the web view",
            "cannot read the length of video http://x/v.mp4 (not a package's page): it plays 3 s",
            "plays video http://x/v.mp4",
            "pauses the video",
            "stops the video",
        ]
    );
}

#[test]
fn motion_configurations_and_collision_protection() {
    let robot = SimRobot::new(Model::Nao);
    let motion = |m: &str, a: Vec<Value>| robot.call("ALMotion", m, a);
    let config = list(vec![list(vec![s("Bpm"), f(20.0)])]);
    motion("setBreathConfig", vec![config]).unwrap();
    assert_eq!(
        motion("getBreathConfig", vec![]),
        Ok(list(vec![
            list(vec![s("Bpm"), f(20.0)]),
            list(vec![s("Amplitude"), f(0.5)])
        ]))
    );
    assert!(
        motion(
            "setBreathConfig",
            vec![list(vec![list(vec![s("Speed"), f(1.0)])])]
        )
        .is_err()
    );
    let Ok(Value::List(max)) = motion("getFootGaitConfig", vec![s("Max")]) else {
        panic!()
    };
    assert_eq!(max[0], list(vec![s("MaxStepX"), f(0.08)]));
    assert_eq!(
        motion(
            "setCollisionProtectionEnabled",
            vec![s("LArm"), Value::Bool(false)]
        ),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        motion("getCollisionProtectionEnabled", vec![s("LArm")]),
        Ok(Value::Bool(false))
    );
    assert_eq!(
        motion("getCollisionProtectionEnabled", vec![s("RArm")]),
        Ok(Value::Bool(true))
    );
}

#[test]
fn move_along_follows_composed_and_circle_trajectories() {
    let robot = SimRobot::new(Model::Pepper);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        // A quarter circle about (0, 1), then a line 1 m forward: 5 s.
        let circle = list(vec![
            s("Holonomic"),
            list(vec![
                s("Circle"),
                list(vec![f(0.0), f(1.0)]),
                f(std::f64::consts::FRAC_PI_2),
            ]),
            f(std::f64::consts::FRAC_PI_2),
            f(3.0),
        ]);
        let line = list(vec![
            s("Holonomic"),
            list(vec![s("Line"), list(vec![f(1.0), f(0.0)])]),
            f(0.0),
            f(2.0),
        ]);
        let t0 = secs(ctx);
        let ok = ctx.call_robot(
            "ALNavigation",
            "moveAlong",
            vec![list(vec![s("Composed"), circle, line])],
        )?;
        seen2.lock().unwrap().push((ok, secs(ctx) - t0));
        Ok(())
    });
    let (ok, took) = seen.lock().unwrap()[0].clone();
    assert_eq!(ok, Value::Bool(true));
    assert_time(took, 5.0);
    let [x, y, th] = robot.snapshot().position;
    assert!((x - 1.0).abs() < 1e-9 && (y - 2.0).abs() < 1e-9, "{x} {y}");
    assert!((th - std::f64::consts::FRAC_PI_2).abs() < 1e-9);
    let bad = list(vec![
        s("Holonomic"),
        list(vec![s("Spiral")]),
        f(0.0),
        f(1.0),
    ]);
    assert!(matches!(
        robot.call("ALNavigation", "moveAlong", vec![bad]),
        Err(RobotError::BadArguments(_))
    ));
}

#[test]
fn video_device_keeps_the_active_camera_and_its_parameters() {
    // The stock-style "Select Camera" box: setParam(kCameraSelectID = 18, 1) picks the bottom
    // camera; NAOqi reads it back with getActiveCamera / getParam(18).
    let robot = SimRobot::new(Model::Nao);
    let call = |m: &str, args: Vec<Value>| robot.call("ALVideoDevice", m, args).unwrap();
    assert_eq!(call("getActiveCamera", vec![]), Value::Int(0));
    assert_eq!(
        call("setParam", vec![Value::Int(18), Value::Int(1)]),
        Value::None
    );
    assert_eq!(call("getActiveCamera", vec![]), Value::Int(1));
    assert_eq!(call("getParam", vec![Value::Int(18)]), Value::Int(1));
    assert_eq!(
        call(
            "setParameter",
            vec![Value::Int(0), Value::Int(11), Value::Int(1)]
        ),
        Value::Bool(true)
    );
    assert_eq!(
        call("getParameter", vec![Value::Int(0), Value::Int(11)]),
        Value::Int(1)
    );
    assert_eq!(
        call("getParameter", vec![Value::Int(1), Value::Int(11)]),
        Value::Int(0)
    );
    assert!(matches!(
        robot.call("ALVideoDevice", "getImageRemote", vec![s("sub")]),
        Err(RobotError::UnknownMethod { .. })
    ));
}

#[test]
fn connection_manager_lists_one_wired_connection_as_key_value_pairs() {
    let robot = SimRobot::new(Model::Nao);
    assert_eq!(
        robot.call("ALConnectionManager", "scan", vec![]).unwrap(),
        Value::None
    );
    assert_eq!(
        robot.call("ALConnectionManager", "state", vec![]).unwrap(),
        s("online")
    );
    let services = robot
        .call("ALConnectionManager", "services", vec![])
        .unwrap();
    let Value::List(services) = services else {
        panic!("{services:?}")
    };
    assert_eq!(services.len(), 1);
    // Each service is a list of [key, value] pairs (scripts make a dict of it).
    let Value::List(pairs) = &services[0] else {
        panic!("{services:?}")
    };
    let get = |key: &str| {
        pairs.iter().find_map(|p| match p {
            Value::List(kv) if kv.first() == Some(&s(key)) => kv.get(1).cloned(),
            _ => None,
        })
    };
    assert_eq!(get("Type"), Some(s("ethernet")));
    assert_eq!(get("State"), Some(s("online")));
    assert_eq!(get("Name"), Some(s("")));
    let id = get("ServiceId").unwrap();
    assert_eq!(
        robot
            .call("ALConnectionManager", "service", vec![id])
            .unwrap(),
        services[0]
    );
    assert!(
        robot
            .call("ALConnectionManager", "service", vec![s("wifi_x")])
            .is_err()
    );
}

/// PackageManager (2.1 and 2.8 `naoqi/core/packagemanager-api.html`) knows the packages of
/// the behaviors installed, installed where the robot applications page says
/// (`/home/nao/.local/share/PackageManager/apps/<uuid>`); `package` of an unknown uuid
/// throws, as the page says.
#[test]
fn package_manager_knows_the_installed_packages_where_the_robot_installs_them() {
    let robot = SimRobot::new(Model::Nao);
    robot.install_behavior("myapp/behavior_1");
    robot.install_behavior(".lastUploadedChoregrapheBehavior/behavior_1");
    assert_eq!(
        robot.call("PackageManager", "hasPackage", vec![s("myapp")]),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        robot.call("PackageManager", "hasPackage", vec![s("other")]),
        Ok(Value::Bool(false))
    );
    let Ok(Value::Map(info)) = robot.call("PackageManager", "package", vec![s("myapp")]) else {
        panic!()
    };
    assert!(info.contains(&(
        s("path"),
        s("/home/nao/.local/share/PackageManager/apps/myapp")
    )));
    let Ok(Value::List(all)) = robot.call("PackageManager", "packages", vec![]) else {
        panic!()
    };
    assert_eq!(all.len(), 2);
    assert!(
        robot
            .call("PackageManager", "package", vec![s("other")])
            .is_err()
    );
}

/// The overview page's example (`naoqi/core/alpreferencemanager.html`), step by step: what
/// it prints ("com.apps.chess - level: easy", then "None" once the domain is removed), and
/// the events it subscribes to, each raised with `[domain, setting]` (the API page's
/// events), and the signals with the value.
#[test]
fn preferences_are_kept_by_domain_and_every_change_is_announced() {
    use std::sync::{Arc, Mutex};
    let robot = SimRobot::new(Model::Nao);
    let pm = |m: &str, a: Vec<Value>| robot.call("ALPreferenceManager", m, a);
    let events = Arc::new(Mutex::new(Vec::new()));
    for (i, key) in [
        "preferenceAdded",
        "preferenceChanged",
        "preferenceRemoved",
        "preferenceDomainRemoved",
    ]
    .into_iter()
    .enumerate()
    {
        let seen = Arc::clone(&events);
        let sink = Arc::new(move |k: &str, v: Value| seen.lock().unwrap().push((k.to_string(), v)));
        robot.subscribe(key, i as u64 + 1, sink).unwrap();
    }
    let signals = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&signals);
    let sink = Arc::new(move |k: &str, v: Value| seen.lock().unwrap().push((k.to_string(), v)));
    robot
        .connect_signal("ALPreferenceManager", "preferenceUpdated", 9, sink)
        .unwrap();

    pm("setValue", vec![s("com.apps.chess"), s("level"), s("hard")]).unwrap();
    pm(
        "setValue",
        vec![s("com.apps.chess"), s("treedepth"), s("10")],
    )
    .unwrap();
    pm("setValue", vec![s("foo.bar"), s("foo"), s("bar")]).unwrap();
    pm("setValue", vec![s("com.apps.chess"), s("level"), s("easy")]).unwrap();
    assert_eq!(
        pm("getValue", vec![s("com.apps.chess"), s("level")]),
        Ok(s("easy"))
    );
    // "Only String values are processed, other types are ignored."
    pm(
        "setValue",
        vec![s("com.apps.chess"), s("level"), Value::Int(3)],
    )
    .unwrap();
    assert_eq!(
        pm("getValue", vec![s("com.apps.chess"), s("level")]),
        Ok(s("easy"))
    );
    assert_eq!(
        pm("getDomainList", vec![]),
        Ok(list(vec![s("com.apps.chess"), s("foo.bar")]))
    );
    assert_eq!(
        pm("getValueList", vec![s("com.apps.chess")]),
        Ok(list(vec![
            list(vec![s("level"), s("easy")]),
            list(vec![s("treedepth"), s("10")]),
        ]))
    );
    pm("removeValue", vec![s("foo.bar"), s("foo")]).unwrap();
    pm("removeDomainValues", vec![s("com.apps.chess")]).unwrap();
    // "Return None / null if the Preference doesn't exist."
    assert_eq!(
        pm("getValue", vec![s("com.apps.chess"), s("level")]),
        Ok(Value::None)
    );
    assert_eq!(pm("getDomainList", vec![]), Ok(list(vec![])));

    let pair = |d: &str, k: &str| list(vec![s(d), s(k)]);
    assert_eq!(
        *events.lock().unwrap(),
        [
            (
                "preferenceAdded".to_string(),
                pair("com.apps.chess", "level")
            ),
            (
                "preferenceAdded".to_string(),
                pair("com.apps.chess", "treedepth")
            ),
            ("preferenceAdded".to_string(), pair("foo.bar", "foo")),
            (
                "preferenceChanged".to_string(),
                pair("com.apps.chess", "level")
            ),
            ("preferenceRemoved".to_string(), pair("foo.bar", "foo")),
            ("preferenceDomainRemoved".to_string(), s("com.apps.chess")),
        ]
    );
    assert_eq!(
        *signals.lock().unwrap(),
        [(
            "preferenceUpdated".to_string(),
            list(vec![s("com.apps.chess"), s("level"), s("easy")])
        )]
    );
}
