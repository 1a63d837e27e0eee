//! The modules that follow what the robot perceives, as scenarios show it: ALTracker,
//! ALBasicAwareness, ALFaceDetection and ALPeoplePerception.

use crate::support;

use std::time::Duration;

use choreo_engine::{Robot, Value};
use choreo_naoqi::{Model, SimRobot};
use support::{b, f, floats, i, list, log, notices, run_box, s, secs, watched, written};

/// FaceDetected with one face `alpha` rad to the side, 0.15 rad wide (a 15 cm face about
/// 1 m away), the camera at the torso's origin.
fn face(alpha: f64) -> Value {
    list(vec![
        list(vec![i(1), i(0)]),
        list(vec![
            list(vec![
                list(vec![i(0), f(alpha), f(0.0), f(0.15), f(0.15)]),
                list(vec![]),
            ]),
            list(vec![]),
        ]),
        list(vec![f(0.0); 6]),
        list(vec![f(0.0); 6]),
        i(0),
    ])
}

/// The distance a 15 cm face 0.15 rad wide is at.
fn face_distance() -> f64 {
    0.15 / (2.0 * 0.075f64.tan())
}

#[test]
fn tracker_keeps_targets_follows_what_it_sees_and_loses_it() {
    let (robot, events) = watched(Model::Nao);
    let t = |m: &str, args: Vec<Value>| robot.call("ALTracker", m, args);
    assert!(t("registerTarget", vec![s("Unicorn"), f(0.1)]).is_err());
    assert!(t("track", vec![s("Face")]).is_err(), "not registered");
    assert!(t("setMode", vec![s("Run")]).is_err());
    assert!(t("setEffector", vec![s("Nose")]).is_err());
    assert_eq!(t("getMode", vec![]), Ok(s("Head")));
    t("setEffector", vec![s("Arms")]).unwrap();
    assert_eq!(t("getEffector", vec![]), Ok(s("Arms")));
    t("setEffector", vec![s("None")]).unwrap();
    t("registerTarget", vec![s("Face"), f(0.15)]).unwrap();
    t("registerTarget", vec![s("RedBall"), f(0.06)]).unwrap();
    assert_eq!(
        t("getRegisteredTargets", vec![]),
        Ok(list(vec![s("Face"), s("RedBall")]))
    );
    t("unregisterTarget", vec![s("RedBall")]).unwrap();
    assert_eq!(t("getRegisteredTargets", vec![]), Ok(list(vec![s("Face")])));
    t("setMaximumDistanceDetection", vec![f(2.0)]).unwrap();
    assert_eq!(t("getMaximumDistanceDetection", vec![]), Ok(f(2.0)));
    t("setTimeOut", vec![i(3000)]).unwrap();
    assert_eq!(t("getTimeOut", vec![]), Ok(i(3000)));

    // Tracking: the active target, announced; nothing seen yet.
    assert_eq!(t("isActive", vec![]), Ok(b(false)));
    t("track", vec![s("Face")]).unwrap();
    assert_eq!(
        written(&events, "ALTracker/ActiveTargetChanged"),
        [s("Face")]
    );
    assert_eq!(t("getActiveTarget", vec![]), Ok(s("Face")));
    assert_eq!(t("isActive", vec![]), Ok(b(true)));
    assert_eq!(t("isTargetLost", vec![]), Ok(b(true)));
    assert_eq!(t("getTargetPosition", vec![i(0)]), Ok(list(vec![])));
    assert_eq!(t("isNewTargetDetected", vec![]), Ok(b(false)));

    // A face appears, 0.1 rad to the left: a new target, about 1 m ahead.
    robot.raise_event("FaceDetected", face(0.1));
    assert_eq!(t("isTargetLost", vec![]), Ok(b(false)));
    assert_eq!(t("isNewTargetDetected", vec![]), Ok(b(true)));
    assert_eq!(t("isNewTargetDetected", vec![]), Ok(b(false)), "read once");
    let p = floats(&t("getTargetPosition", vec![i(0)]).unwrap());
    assert!((p[0].hypot(p[1]) - face_distance()).abs() < 1e-6, "{p:?}");
    assert!((p[1].atan2(p[0]) - 0.1).abs() < 1e-9, "{p:?}");
    // The same place in the world frame: the robot stands at its start, its torso 0.32 m up
    // (StandInit's legs lean it 5° back over the feet, 2 cm behind their centre): as far
    // from the torso, higher up.
    let w = floats(&t("getTargetPosition", vec![i(1)]).unwrap());
    assert!(
        (w[0] - p[0]).abs() < 0.03 && w[2] > p[2] + 0.2,
        "{w:?} vs {p:?}"
    );

    // It disappears: lost, once; then it comes back: a new target again.
    robot.raise_event("FaceDetected", list(vec![]));
    robot.raise_event("FaceDetected", list(vec![]));
    assert_eq!(written(&events, "ALTracker/TargetLost"), [s("Face")]);
    assert_eq!(t("isTargetLost", vec![]), Ok(b(true)));
    robot.raise_event("FaceDetected", face(0.0));
    assert_eq!(t("isNewTargetDetected", vec![]), Ok(b(true)));

    // Stopping empties the active target, announced again.
    t("stopTracker", vec![]).unwrap();
    assert_eq!(
        written(&events, "ALTracker/ActiveTargetChanged"),
        [s("Face"), s("")]
    );
    assert_eq!(t("getActiveTarget", vec![]), Ok(s("")));
    assert!(
        written(&events, "ALTracker/TargetReached").is_empty(),
        "Head mode"
    );
    let shown = notices(&events, "ALTracker");
    assert!(shown.contains(&"tracks Face".to_string()), "{shown:?}");
    assert!(shown.contains(&"lost the Face".to_string()), "{shown:?}");
}

#[test]
fn a_tracker_that_never_sees_its_target_never_loses_it() {
    let (robot, events) = watched(Model::Nao);
    let r2 = robot.clone();
    run_box(&robot, move |ctx| {
        ctx.call_robot("ALTracker", "registerTarget", vec![s("RedBall"), f(0.06)])?;
        ctx.call_robot("ALTracker", "track", vec![s("RedBall")])?;
        ctx.sleep(Duration::from_secs(10));
        ctx.call_robot("ALTracker", "stopTracker", vec![])?;
        r2.raise_event("FaceDetected", face(0.0));
        Ok(())
    });
    assert!(written(&events, "ALTracker/TargetLost").is_empty());
}

#[test]
fn tracker_turns_the_head_and_walks_to_the_target_in_move_mode() {
    let (robot, events) = watched(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    let r2 = robot.clone();
    run_box(&robot, move |ctx| {
        let t = |m: &str, args: Vec<Value>| ctx.call_robot("ALTracker", m, args);
        t("registerTarget", vec![s("Face"), f(0.15)])?;
        // Stand 0.5 m from the face, within 5 cm and 0.1 rad.
        t(
            "setRelativePosition",
            vec![list(vec![
                f(-0.5),
                f(0.0),
                f(0.0),
                f(0.05),
                f(0.05),
                f(0.1),
            ])],
        )?;
        t("setMode", vec![s("Move")])?;
        t("track", vec![s("Face")])?;
        let t0 = secs(ctx);
        r2.raise_event("FaceDetected", face(0.0));
        ctx.sleep(Duration::from_secs(12));
        let head = ctx.call_robot("ALMotion", "getAngles", vec![s("HeadYaw"), b(true)])?;
        seen2.lock().unwrap().push((t0, head));
        Ok(())
    });
    let reached = written(&events, "ALTracker/TargetReached");
    assert_eq!(reached, [s("Face")]);
    // It walked 1.0 - 0.5 m at NAO's 0.1 m/s, plus starting and stopping.
    let x = robot.snapshot().position[0];
    assert!((x - (face_distance() - 0.5)).abs() < 1e-6, "{x}");
    let (_, head) = seen.lock().unwrap()[0].clone();
    assert!(floats(&head)[0].abs() < 1e-6, "the face is straight ahead");
}

#[test]
fn look_at_and_point_at_take_the_joints_time() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        ctx.call_robot(
            "ALTracker",
            "lookAt",
            vec![
                list(vec![f(1.0), f(1.0), f(0.1265)]),
                i(0),
                f(0.5),
                b(false),
            ],
        )?;
        let looked = secs(ctx) - t0;
        let head = ctx.call_robot("ALMotion", "getAngles", vec![s("Head"), b(true)])?;
        let t1 = secs(ctx);
        ctx.call_robot(
            "ALTracker",
            "pointAt",
            vec![
                s("Arms"),
                list(vec![f(1.0), f(-0.098), f(0.1)]),
                i(0),
                f(0.5),
            ],
        )?;
        let pointed = secs(ctx) - t1;
        let arm = ctx.call_robot(
            "ALMotion",
            "getAngles",
            vec![list(vec![s("RShoulderPitch"), s("RShoulderRoll")]), b(true)],
        )?;
        let bad = ctx
            .call_robot(
                "ALTracker",
                "lookAt",
                vec![list(vec![f(1.0), f(0.0), f(0.0)]), f(1.5), b(false)],
            )
            .is_err();
        seen2
            .lock()
            .unwrap()
            .push((looked, head, pointed, arm, bad));
        Ok(())
    });
    let (looked, head, pointed, arm, bad) = seen.lock().unwrap()[0].clone();
    // The head turns 45° left, level with the neck, at half its speed.
    let head = floats(&head);
    assert!(
        (head[0] - std::f64::consts::FRAC_PI_4).abs() < 1e-6,
        "{head:?}"
    );
    assert!(head[1].abs() < 1e-6, "{head:?}");
    let yaw_speed = Model::Nao.joints()[0].max_speed;
    assert!((looked - std::f64::consts::FRAC_PI_4 / (0.5 * yaw_speed)).abs() < 1e-6);
    // The right arm points straight ahead from its shoulder: from its standing angles.
    let arm = floats(&arm);
    assert!(arm[0].abs() < 1e-6 && arm[1].abs() < 1e-6, "{arm:?}");
    assert!(pointed > 0.0);
    assert!(bad, "a speed fraction over 1 is refused");
}

#[test]
fn basic_awareness_engages_the_people_scenarios_show() {
    let (robot, events) = watched(Model::Nao);
    let ba = |m: &str, args: Vec<Value>| robot.call("ALBasicAwareness", m, args);
    assert_eq!(ba("isEnabled", vec![]), Ok(b(false)));
    assert_eq!(ba("isRunning", vec![]), Ok(b(false)));
    assert_eq!(ba("getEngagementMode", vec![]), Ok(s("Unengaged")));
    assert!(ba("setEngagementMode", vec![s("Married")]).is_err());
    assert!(ba("setTrackingMode", vec![s("Eyes")]).is_err());
    ba("setTrackingMode", vec![s("BodyRotation")]).unwrap();
    assert_eq!(ba("getTrackingMode", vec![]), Ok(s("BodyRotation")));
    assert!(ba("setStimulusDetectionEnabled", vec![s("Smell"), b(true)]).is_err());
    assert_eq!(
        ba("isStimulusDetectionEnabled", vec![s("Sound")]),
        Ok(b(true))
    );
    ba("setStimulusDetectionEnabled", vec![s("Sound"), b(false)]).unwrap();
    assert_eq!(
        ba("isStimulusDetectionEnabled", vec![s("Sound")]),
        Ok(b(false))
    );
    ba("setParameter", vec![s("LookStimulusSpeed"), f(0.4)]).unwrap();
    assert_eq!(ba("getParameter", vec![s("LookStimulusSpeed")]), Ok(f(0.4)));
    ba("resetAllParameters", vec![]).unwrap();
    assert!(ba("getParameter", vec![s("LookStimulusSpeed")]).is_err());

    // Not running: a person is no stimulus.
    robot.raise_event("PeoplePerception/PeopleList", list(vec![i(3)]));
    assert!(written(&events, "ALBasicAwareness/StimulusDetected").is_empty());
    robot.raise_event("PeoplePerception/PeopleList", list(vec![]));
    // The old name starts it, the new ones read it.
    ba("startAwareness", vec![]).unwrap();
    assert_eq!(ba("isEnabled", vec![]), Ok(b(true)));
    assert_eq!(ba("isAwarenessRunning", vec![]), Ok(b(true)));
    ba("pauseAwareness", vec![]).unwrap();
    assert_eq!(ba("isRunning", vec![]), Ok(b(false)));
    ba("resumeAwareness", vec![]).unwrap();
    assert_eq!(ba("isRunning", vec![]), Ok(b(true)));

    // A touch with nobody around: a stimulus, and no human there.
    robot.raise_event("FrontTactilTouched", f(1.0));
    // A sound, its detection off: nothing.
    robot.raise_event(
        "ALSoundLocalization/SoundLocated",
        list(vec![
            list(vec![i(0), i(0)]),
            list(vec![f(0.3), f(0.0), f(0.8), f(1.0)]),
        ]),
    );
    // Someone arrives: engaged.
    robot.raise_event(
        "PeoplePerception/Person/7/PositionInTorsoFrame",
        list(vec![f(1.0), f(0.2), f(0.3)]),
    );
    robot.raise_event("PeoplePerception/PeopleList", list(vec![i(7)]));
    // Fully engaged, a newcomer is ignored.
    ba("setEngagementMode", vec![s("FullyEngaged")]).unwrap();
    robot.raise_event("PeoplePerception/PeopleList", list(vec![i(7), i(8)]));
    // The engaged person leaves: lost, and the other one is engaged.
    robot.raise_event("PeoplePerception/PeopleList", list(vec![i(8)]));
    assert_eq!(
        written(&events, "ALBasicAwareness/StimulusDetected"),
        [s("Touch"), s("People"), s("People")]
    );
    assert_eq!(
        written(&events, "ALBasicAwareness/HumanTracked"),
        [i(-1), i(7), i(8)]
    );
    assert_eq!(written(&events, "ALBasicAwareness/HumanLost"), [i(7)]);
    assert_eq!(ba("engagePerson", vec![i(9)]), Ok(b(false)), "nobody 9");
    ba("stopAwareness", vec![]).unwrap();
    assert_eq!(ba("isEnabled", vec![]), Ok(b(false)));
}

#[test]
fn face_detection_learns_only_a_face_in_view() {
    let (robot, events) = watched(Model::Nao);
    let fd = |m: &str, args: Vec<Value>| robot.call("ALFaceDetection", m, args);
    assert_eq!(fd("isTrackingEnabled", vec![]), Ok(b(true)));
    fd("setTrackingEnabled", vec![b(false)]).unwrap();
    assert_eq!(fd("isTrackingEnabled", vec![]), Ok(b(false)));
    fd("enableRecognition", vec![b(false)]).unwrap();
    assert_eq!(fd("isRecognitionEnabled", vec![]), Ok(b(false)));
    fd("subscribe", vec![s("me"), i(500), f(0.0)]).unwrap();
    assert_eq!(fd("isProcessing", vec![]), Ok(b(true)));
    assert_eq!(
        fd("getEventList", vec![]),
        Ok(list(vec![s("FaceDetected")]))
    );

    assert_eq!(
        fd("learnFace", vec![s("Ann")]),
        Ok(b(false)),
        "no face in view"
    );
    robot.raise_event("FaceDetected", face(0.0));
    assert_eq!(fd("learnFace", vec![s("Ann")]), Ok(b(true)));
    assert_eq!(fd("reLearnFace", vec![s("Bob")]), Ok(b(true)));
    assert_eq!(
        fd("getLearnedFacesList", vec![]),
        Ok(list(vec![s("Ann"), s("Bob")]))
    );
    assert_eq!(fd("forgetPerson", vec![s("Carl")]), Ok(b(false)));
    assert_eq!(fd("forgetPerson", vec![s("Bob")]), Ok(b(true)));
    assert_eq!(fd("clearDatabase", vec![]), Ok(b(true)));
    assert_eq!(fd("getLearnedFacesList", vec![]), Ok(list(vec![])));
    robot.raise_event("FaceDetected", list(vec![]));
    assert_eq!(
        fd("learnFace", vec![s("Ann")]),
        Ok(b(false)),
        "the face left"
    );
    assert!(notices(&events, "ALFaceDetection").contains(&"learned the face of Ann".to_string()));
}

#[test]
fn people_perception_tells_who_arrives_and_who_leaves() {
    let (robot, events) = watched(Model::Pepper);
    let pp = |m: &str, args: Vec<Value>| robot.call("ALPeoplePerception", m, args);
    let get = |k: &str| robot.call("ALMemory", "getData", vec![s(k)]);
    assert_eq!(
        get("PeoplePerception/PeopleList"),
        Ok(list(vec![])),
        "from boot"
    );
    assert_eq!(pp("getMaximumDetectionRange", vec![]), Ok(f(3.5)));
    pp("setMaximumDetectionRange", vec![f(2.0)]).unwrap();
    assert_eq!(pp("getMaximumDetectionRange", vec![]), Ok(f(2.0)));
    assert_eq!(pp("getTimeBeforePersonDisappears", vec![]), Ok(f(10.0)));
    pp("setFastModeEnabled", vec![b(true)]).unwrap();
    assert_eq!(pp("isFaceDetectionEnabled", vec![]), Ok(b(false)));
    assert_eq!(pp("isMovementDetectionEnabled", vec![]), Ok(b(false)));
    pp("setFastModeEnabled", vec![b(false)]).unwrap();
    assert_eq!(pp("isFaceDetectionEnabled", vec![]), Ok(b(true)));
    pp("subscribe", vec![s("me")]).unwrap();
    assert_eq!(pp("isProcessing", vec![]), Ok(b(true)));

    robot.raise_event("PeoplePerception/Person/1/Distance", f(1.2));
    robot.raise_event("PeoplePerception/PeopleList", list(vec![i(1), i(2)]));
    robot.raise_event("PeoplePerception/PeopleList", list(vec![i(2)]));
    assert_eq!(
        written(&events, "PeoplePerception/JustArrived"),
        [i(1), i(2)]
    );
    assert_eq!(written(&events, "PeoplePerception/JustLeft"), [i(1)]);
    assert_eq!(
        get("PeoplePerception/VisiblePeopleList"),
        Ok(list(vec![i(2)]))
    );
    assert_eq!(
        written(&events, "PeoplePerception/PopulationUpdated").len(),
        2
    );
    pp("resetPopulation", vec![]).unwrap();
    assert_eq!(get("PeoplePerception/PeopleList"), Ok(list(vec![])));
    assert!(get("PeoplePerception/Person/1/Distance").is_err(), "erased");
}

/// The events that name a person (alpeopleperception-api.html: JustArrived "the ID of the
/// person", PeopleDetected's `[Id, ...]` per person; albasicawareness-api.html: HumanTracked
/// "the ID of the tracked human", -1 when lost) come from ALPeoplePerception's population on a
/// robot: raised by the world, the person is around, and ALFaceCharacteristics can look at
/// them (the stock Get Expression box reads `PeopleList` once `HumanTracked` comes).
#[test]
fn a_person_an_event_names_is_around() {
    let (robot, events) = watched(Model::Pepper);
    let get = |k: &str| robot.call("ALMemory", "getData", vec![s(k)]);
    let analyze = |id: i64| {
        robot.call(
            "ALFaceCharacteristics",
            "analyzeFaceCharacteristics",
            vec![i(id)],
        )
    };
    assert_eq!(analyze(5), Ok(b(false)), "nobody around yet");
    robot.raise_event("ALBasicAwareness/HumanTracked", i(5));
    assert_eq!(get("PeoplePerception/PeopleList"), Ok(list(vec![i(5)])));
    assert_eq!(
        get("PeoplePerception/VisiblePeopleList"),
        Ok(list(vec![i(5)]))
    );
    assert_eq!(analyze(5), Ok(b(true)));
    robot.raise_event("ALBasicAwareness/HumanTracked", i(-1));
    robot.raise_event("PeoplePerception/JustArrived", i(6));
    let detected = list(vec![
        list(vec![i(0), i(0)]),
        list(vec![
            list(vec![i(7), f(1.6), f(0.0), f(0.0)]),
            list(vec![i(5), f(2.0), f(0.0), f(0.0)]),
        ]),
        list(vec![]),
        list(vec![]),
        i(0),
    ]);
    robot.raise_event("PeoplePerception/PeopleDetected", detected);
    assert_eq!(
        get("PeoplePerception/PeopleList"),
        Ok(list(vec![i(5), i(6), i(7)])),
        "-1 is nobody; each id once"
    );
    assert_eq!(
        written(&events, "PeoplePerception/JustArrived"),
        [i(6)],
        "the world's own event only: the list written quietly"
    );
}

/// A face in view is someone (alpeopleperception.html: it "gathers visual information from
/// RGB cameras"): with nobody around, `FaceDetected` holding a face puts a person in the
/// list, whom ALFaceCharacteristics can look at; no face, or someone around already, adds
/// nobody.
#[test]
fn a_face_in_view_is_someone_around() {
    let (robot, _events) = watched(Model::Nao);
    let get = |k: &str| robot.call("ALMemory", "getData", vec![s(k)]);
    robot.raise_event("FaceDetected", list(vec![]));
    assert_eq!(
        get("PeoplePerception/PeopleList"),
        Ok(list(vec![])),
        "no face"
    );
    robot.raise_event("FaceDetected", face(0.1));
    let around = get("PeoplePerception/PeopleList").unwrap();
    let Value::List(ids) = &around else {
        panic!("{around:?}")
    };
    assert_eq!(ids.len(), 1, "{around:?}");
    let analyzed = robot.call(
        "ALFaceCharacteristics",
        "analyzeFaceCharacteristics",
        vec![ids[0].clone()],
    );
    assert_eq!(analyzed, Ok(b(true)));
    robot.raise_event("FaceDetected", face(-0.1));
    assert_eq!(
        get("PeoplePerception/PeopleList"),
        Ok(around),
        "the same person"
    );
}

/// The example of docs/scenarios.md ("People and targets").
const PEOPLE_AND_TARGETS: &str = "\
events:
  - on_call: ALTracker.track
    delay: 1
    raise_event:
      key: FaceDetected
      value: [[0, 0], [[[0, 0.0, 0.0, 0.15, 0.15], []], []], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], 0]
  - at: 2
    insert_data: {key: PeoplePerception/Person/7/PositionInTorsoFrame, value: [1.2, 0.3, 0.4]}
  - at: 2
    insert_data: {key: PeoplePerception/PeopleList, value: [7]}
  - at: 8
    insert_data: {key: PeoplePerception/PeopleList, value: []}
";

#[test]
fn a_scenario_shows_a_face_to_the_tracker_and_a_person_to_basic_awareness() {
    let scenario = choreo_naoqi::Scenario::from_str(PEOPLE_AND_TARGETS, "people.yaml").unwrap();
    let (robot, events) = watched(Model::Nao);
    robot.load_scenario(scenario);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        ctx.call_robot("ALBasicAwareness", "setEnabled", vec![b(true)])?;
        ctx.call_robot("ALTracker", "registerTarget", vec![s("Face"), f(0.15)])?;
        ctx.call_robot("ALTracker", "track", vec![s("Face")])?;
        ctx.sleep(Duration::from_millis(1500));
        let new = ctx.call_robot("ALTracker", "isNewTargetDetected", vec![])?;
        ctx.sleep(Duration::from_secs(3));
        let head = ctx.call_robot("ALMotion", "getAngles", vec![s("HeadYaw"), b(true)])?;
        ctx.sleep(Duration::from_secs(5));
        seen2.lock().unwrap().push((new, head));
        Ok(())
    });
    let (new, head) = seen.lock().unwrap()[0].clone();
    assert_eq!(new, b(true), "the face the scenario showed");
    assert_eq!(
        written(&events, "ALBasicAwareness/HumanTracked"),
        [i(7)],
        "the person who arrived"
    );
    assert_eq!(written(&events, "ALBasicAwareness/HumanLost"), [i(7)]);
    assert_eq!(written(&events, "PeoplePerception/JustArrived"), [i(7)]);
    // The tracker's head follows the face, the awareness's turns to the person: the last
    // order wins, toward the person, on the left.
    assert!(floats(&head)[0] > 0.0, "{head}");
}

/// LandmarkDetected with one mark of id `id`, 0.09 rad wide (a 9 cm mark about 1 m away).
fn mark(id: i64) -> Value {
    list(vec![
        list(vec![i(1), i(0)]),
        list(vec![list(vec![
            list(vec![i(0), f(0.0), f(0.0), f(0.09), f(0.09), f(0.0)]),
            list(vec![i(id)]),
        ])]),
        list(vec![f(0.0); 6]),
        list(vec![f(0.0); 6]),
        s("CameraTop"),
    ])
}

#[test]
fn tracker_reads_marks_people_and_sounds() {
    let (robot, events) = watched(Model::Nao);
    let t = |m: &str, args: Vec<Value>| robot.call("ALTracker", m, args);
    // The LandMarks Tracker box's two marks.
    let marks = list(vec![
        list(vec![f(0.09), list(vec![i(64)])]),
        list(vec![f(0.09), list(vec![i(68)])]),
    ]);
    t("registerTarget", vec![s("LandMarks"), marks]).unwrap();
    t("track", vec![s("LandMarks")]).unwrap();
    robot.raise_event("LandmarkDetected", mark(80));
    assert_eq!(
        t("isNewTargetDetected", vec![]),
        Ok(b(false)),
        "another mark"
    );
    assert_eq!(t("getRobotPosition", vec![]), Ok(list(vec![])));
    robot.raise_event("LandmarkDetected", mark(68));
    assert_eq!(t("isNewTargetDetected", vec![]), Ok(b(true)));
    let p = floats(&t("getTargetPosition", vec![]).unwrap());
    assert!((p[0] - 0.09 / (2.0 * 0.045f64.tan())).abs() < 1e-6, "{p:?}");
    assert_eq!(
        t("getRobotPosition", vec![]),
        Ok(list(vec![f(0.0), f(0.0), f(0.0)]))
    );
    t("stopTracker", vec![]).unwrap();

    // Someone already there when tracking starts.
    robot.raise_event(
        "PeoplePerception/Person/5/PositionInTorsoFrame",
        list(vec![f(2.0), f(0.0), f(0.0)]),
    );
    robot.raise_event("PeoplePerception/PeopleList", list(vec![i(5)]));
    t("registerTarget", vec![s("People"), list(vec![])]).unwrap();
    t("track", vec![s("People")]).unwrap();
    assert_eq!(t("isTargetLost", vec![]), Ok(b(false)));
    assert_eq!(
        t("getTargetPosition", vec![i(0)]),
        Ok(list(vec![f(2.0), f(0.0), f(0.0)]))
    );
    robot.raise_event("PeoplePerception/PeopleList", list(vec![]));
    assert_eq!(written(&events, "ALTracker/TargetLost"), [s("People")]);
    t("stopTracker", vec![]).unwrap();

    // A sound heard 1.5 m away, if heard surely enough.
    let sound = |azimuth: f64, confidence: f64| {
        list(vec![
            list(vec![i(0), i(0)]),
            list(vec![f(azimuth), f(0.0), f(confidence), f(1.0)]),
            list(vec![f(0.0); 6]),
            list(vec![f(0.0); 6]),
        ])
    };
    t(
        "registerTarget",
        vec![s("Sound"), list(vec![f(1.5), f(0.5)])],
    )
    .unwrap();
    t("track", vec![s("Sound")]).unwrap();
    robot.raise_event("ALSoundLocalization/SoundLocated", sound(0.5, 0.3));
    assert_eq!(
        t("isNewTargetDetected", vec![]),
        Ok(b(false)),
        "not sure enough"
    );
    robot.raise_event("ALSoundLocalization/SoundLocated", sound(0.5, 0.8));
    assert_eq!(t("isNewTargetDetected", vec![]), Ok(b(true)));
    let p = floats(&t("getTargetPosition", vec![i(0)]).unwrap());
    assert!((p[0].hypot(p[1]) - 1.5).abs() < 1e-9 && (p[1].atan2(p[0]) - 0.5).abs() < 1e-9);
}
