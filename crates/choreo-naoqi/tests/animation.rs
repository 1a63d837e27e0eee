//! ALAnimationPlayer and ALAnimatedSpeech: the stock animations play as timed gestures that
//! move the joints and bring them back; `^start`/`^run`/`^wait`/`^stop`/`^mode` in animated
//! speech; in virtual time.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::{BoxContext, Outcome, Robot, RobotError, ScriptError, Value};
use choreo_naoqi::{Model, RobotEvent, STOP_POLL, SimRobot};
use support::{assert_time, log, run_box, s, secs};

const HEY: &str = "animations/Stand/Gestures/Hey_1";
/// Hey_1's length: the last key of its stock timeline (frame 106 at 25 fps).
const HEY_SECONDS: f64 = 4.24;
const YES: &str = "animations/Stand/Gestures/Yes_1";
/// Yes_1's length (frame 41 at 25 fps).
const YES_SECONDS: f64 = 1.64;

fn angle(robot: &SimRobot, joint: &str) -> f64 {
    let i = robot.model().joint_index(joint).unwrap();
    robot.joint_angles().1[i]
}

fn sleep(ctx: &BoxContext, seconds: f64) {
    ctx.sleep(Duration::from_secs_f64(seconds));
}

/// Every event the robot shows, in order.
fn watch(robot: &SimRobot) -> Arc<Mutex<Vec<RobotEvent>>> {
    let events = log();
    let seen = events.clone();
    robot.set_observer(Arc::new(move |e: &RobotEvent| {
        seen.lock().unwrap().push(e.clone());
    }));
    events
}

fn finished(outcome: (Outcome, Vec<String>)) -> Vec<String> {
    assert_eq!(outcome.0, Outcome::Finished, "{:#?}", outcome.1);
    outcome.1
}

fn run(
    robot: &SimRobot,
    f: impl Fn(&BoxContext) -> Result<(), ScriptError> + Send + Sync + 'static,
) -> Vec<String> {
    finished(run_box(robot, f))
}

#[test]
fn run_lasts_the_stock_length_and_the_arm_waves_and_comes_back() {
    let robot = SimRobot::new(Model::Nao);
    let events = watch(&robot);
    let seen = log();
    let (seen2, r) = (seen.clone(), robot.clone());
    let start = angle(&robot, "RShoulderPitch");
    let trace = run(&robot, move |ctx| {
        let t0 = secs(ctx);
        ctx.call_robot("ALAnimationPlayer", "run", vec![s(HEY)])?;
        seen2.lock().unwrap().push(secs(ctx) - t0);
        let id = ctx.post_robot("ALAnimationPlayer", "run", vec![s(HEY)])?;
        sleep(ctx, HEY_SECONDS / 2.0);
        seen2.lock().unwrap().push(angle(&r, "RShoulderPitch"));
        let running = ctx.call_robot("ALMotion", "areResourcesAvailable", vec![s("RArm")])?;
        seen2
            .lock()
            .unwrap()
            .push(if running == Value::Bool(false) {
                1.0
            } else {
                0.0
            });
        ctx.call_robot(
            "ALAnimationPlayer",
            "wait",
            vec![Value::Int(id), Value::Int(0)],
        )?;
        seen2.lock().unwrap().push(angle(&r, "RShoulderPitch"));
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert_time(seen[0], HEY_SECONDS);
    assert!(
        seen[1] < start - 1.0,
        "the arm is raised mid-wave: {} from {start}",
        seen[1]
    );
    assert_eq!(
        seen[2], 1.0,
        "the animation holds the arm as ALMotion's task"
    );
    assert!(
        (seen[3] - start).abs() < 1e-9,
        "back where it was: {} vs {start}",
        seen[3]
    );
    // The observer (the live output) sees the motion under the animation's name.
    let events = events.lock().unwrap();
    let moves: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            RobotEvent::MotionStarted {
                method,
                joints,
                duration,
            } => Some((method.clone(), joints.clone(), *duration)),
            _ => None,
        })
        .collect();
    assert_eq!(moves.len(), 2, "{moves:?}");
    assert_eq!(moves[0].0, HEY);
    assert!(moves[0].1.contains(&"RShoulderPitch".to_string()));
    assert!(
        !moves[0].1.iter().any(|j| j.contains("Knee")),
        "NAO's legs never move"
    );
    assert_time(moves[0].2, HEY_SECONDS);
    support::assert_in_order(
        &trace,
        &[
            "root/Box svc ALAnimationPlayer.run(\"animations/Stand/Gestures/Hey_1\")",
            "root/Box svc_ret ALAnimationPlayer.run",
        ],
    );
    assert!(
        robot.snapshot().tasks.is_empty(),
        "{:?}",
        robot.snapshot().tasks
    );
}

#[test]
fn pepper_plays_its_own_library_with_its_joints() {
    let robot = SimRobot::new(Model::Pepper);
    let seen = log();
    let (seen2, r) = (seen.clone(), robot.clone());
    let hip = angle(&robot, "HipPitch");
    run(&robot, move |ctx| {
        let t0 = secs(ctx);
        ctx.call_robot("ALAnimationPlayer", "run", vec![s(HEY)])?;
        seen2.lock().unwrap().push(secs(ctx) - t0);
        // A bow bends Pepper's hip (NAO has no such joint).
        let id = ctx.post_robot(
            "ALAnimationPlayer",
            "run",
            vec![s("animations/Stand/Gestures/BowShort_1")],
        )?;
        sleep(ctx, 0.5);
        seen2.lock().unwrap().push(angle(&r, "HipPitch"));
        ctx.call_robot(
            "ALAnimationPlayer",
            "wait",
            vec![Value::Int(id), Value::Int(0)],
        )?;
        seen2.lock().unwrap().push(angle(&r, "HipPitch"));
        // A NAO-only animation is not Pepper's.
        let nao_only = ctx.call_robot(
            "ALAnimationPlayer",
            "run",
            vec![s("animations/Stand/Gestures/Hey_2")],
        );
        seen2
            .lock()
            .unwrap()
            .push(if nao_only.is_err() { 1.0 } else { 0.0 });
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert_time(seen[0], HEY_SECONDS);
    assert!(
        seen[1] < hip - 0.1,
        "Pepper bows from the hip: {} from {hip}",
        seen[1]
    );
    assert!((seen[2] - hip).abs() < 1e-9);
    assert_eq!(seen[3], 1.0);
}

#[test]
fn unknown_names_raise_as_naoqi_does_and_patterns_are_replaced() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run(&robot, move |ctx| {
        for name in [
            "animations/Stand/Gestures/Hey_9",
            "Stand/Gestures/Hey_1",
            "animations/[posture]/Gestures/Hey_1",
        ] {
            let r = ctx.call_robot("ALAnimationPlayer", "run", vec![s(name)]);
            seen2.lock().unwrap().push(match r {
                Ok(_) => "ok".to_string(),
                Err(e) => e.to_string(),
            });
        }
        // NAOqi's run takes no configuration.
        let r = ctx.call_robot(
            "ALAnimationPlayer",
            "run",
            vec![s(HEY), Value::Map(vec![(s("speed"), Value::Float(1.0))])],
        );
        seen2
            .lock()
            .unwrap()
            .push(r.err().map(|e| e.to_string()).unwrap_or_default());
        // Crouching: [posture] has no folder.
        ctx.call_robot(
            "ALRobotPosture",
            "goToPosture",
            vec![s("Crouch"), Value::Float(1.0)],
        )?;
        let r = ctx.call_robot(
            "ALAnimationPlayer",
            "run",
            vec![s("animations/[posture]/Gestures/Hey_1")],
        );
        seen2
            .lock()
            .unwrap()
            .push(r.err().map(|e| e.to_string()).unwrap_or_default());
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert!(
        seen[0].contains("Hey_9") && seen[0].contains("closest: "),
        "{}",
        seen[0]
    );
    assert!(
        seen[0].contains("animations/Stand/Gestures/Hey_1"),
        "{}",
        seen[0]
    );
    assert!(
        seen[1].contains("neither in NAO's animation library"),
        "{}",
        seen[1]
    );
    assert_eq!(seen[2], "ok");
    assert!(seen[3].contains("argument 2 must be absent"), "{}", seen[3]);
    assert!(seen[4].contains("Crouching"), "{}", seen[4]);
}

#[test]
fn tags_pick_the_first_of_their_set_and_scripts_add_their_own() {
    let robot = SimRobot::new(Model::Nao);
    let events = watch(&robot);
    let seen = log();
    let (seen2, r) = (seen.clone(), robot.clone());
    let yaw = angle(&robot, "HeadYaw");
    run(&robot, move |ctx| {
        // How long runTag(args) takes.
        let time = |args: Vec<Value>| -> Result<f64, ScriptError> {
            let t0 = secs(ctx);
            ctx.call_robot("ALAnimationPlayer", "runTag", args)?;
            Ok(secs(ctx) - t0)
        };
        let hello = time(vec![s("hello")])?;
        seen2.lock().unwrap().push(hello);
        // "no" shakes the head.
        // "no": No_1 (2.32 s), whose first key turns the head at a fifth of it.
        let id = ctx.post_robot("ALAnimationPlayer", "runTag", vec![s("no")])?;
        sleep(ctx, 0.2 * 2.32);
        seen2.lock().unwrap().push(angle(&r, "HeadYaw"));
        ctx.call_robot(
            "ALAnimationPlayer",
            "wait",
            vec![Value::Int(id), Value::Int(0)],
        )?;
        // runTag(path, tag): among the animations under the path.
        let yes = time(vec![s("animations/Stand/Gestures"), s("yes")])?;
        seen2.lock().unwrap().push(yes);
        let missing = ctx.call_robot("ALAnimationPlayer", "runTag", vec![s("helo")]);
        seen2
            .lock()
            .unwrap()
            .push(if missing.is_err() { 1.0 } else { 0.0 });
        // A script's own tag, then reset.
        ctx.call_robot(
            "ALAnimationPlayer",
            "addTagForAnimations",
            vec![Value::Map(vec![(s("greet"), Value::List(vec![s(YES)]))])],
        )?;
        let greet = time(vec![s("greet")])?;
        seen2.lock().unwrap().push(greet);
        ctx.call_robot("ALAnimationPlayer", "reset", vec![])?;
        let gone = ctx.call_robot("ALAnimationPlayer", "runTag", vec![s("greet")]);
        seen2
            .lock()
            .unwrap()
            .push(if gone.is_err() { 1.0 } else { 0.0 });
        Ok(())
    });
    let seen = seen.lock().unwrap();
    // "hello" on a standing NAO: Stand/Emotions/Neutral/Hello_1 comes first (4.60 s).
    assert_time(seen[0], 4.6);
    assert!(
        (seen[1] - yaw).abs() > 0.3,
        "the head turns: {} from {yaw}",
        seen[1]
    );
    assert_time(seen[2], YES_SECONDS);
    assert_eq!(seen[3], 1.0, "no animation has the tag \"helo\"");
    assert_time(seen[4], YES_SECONDS);
    assert_eq!(seen[5], 1.0, "reset forgets the script's tags");
    let methods: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            RobotEvent::MotionStarted { method, .. } => Some(method.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(methods[0], "animations/Stand/Emotions/Neutral/Hello_1");
}

#[test]
fn stopping_an_animation_stops_its_gesture_and_a_newer_motion_wins_the_joints() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let (seen2, r) = (seen.clone(), robot.clone());
    let start = angle(&robot, "RShoulderPitch");
    run(&robot, move |ctx| {
        let id = ctx.post_robot("ALAnimationPlayer", "run", vec![s(HEY)])?;
        sleep(ctx, 1.0);
        ctx.call_robot("ALAnimationPlayer", "stop", vec![Value::Int(id)])?;
        let at_stop = angle(&r, "RShoulderPitch");
        sleep(ctx, 1.0);
        let later = angle(&r, "RShoulderPitch");
        let running = ctx.call_robot("ALAnimationPlayer", "isRunning", vec![Value::Int(id)])?;
        seen2.lock().unwrap().extend([at_stop, later]);
        seen2
            .lock()
            .unwrap()
            .push(if running == Value::Bool(false) {
                1.0
            } else {
                0.0
            });
        // A newer order on the arm takes it; the animation runs on to its end.
        let t0 = secs(ctx);
        let id = ctx.post_robot("ALAnimationPlayer", "run", vec![s(HEY)])?;
        sleep(ctx, 0.5);
        ctx.call_robot(
            "ALMotion",
            "angleInterpolation",
            vec![
                s("RShoulderPitch"),
                Value::Float(1.0),
                Value::Float(0.5),
                Value::Bool(true),
            ],
        )?;
        ctx.call_robot(
            "ALAnimationPlayer",
            "wait",
            vec![Value::Int(id), Value::Int(0)],
        )?;
        seen2.lock().unwrap().push(secs(ctx) - t0);
        seen2.lock().unwrap().push(angle(&r, "RShoulderPitch"));
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert!(seen[0] < start - 0.5, "stopped mid-wave: {}", seen[0]);
    assert!(
        (seen[1] - seen[0]).abs() < 1e-9,
        "frozen where it was: {} then {}",
        seen[0],
        seen[1]
    );
    assert_eq!(seen[2], 1.0);
    assert!(
        (HEY_SECONDS..=HEY_SECONDS + STOP_POLL.as_secs_f64()).contains(&seen[3]),
        "the animation ran to its end: {}",
        seen[3]
    );
    assert!(
        (seen[4] - 1.0).abs() < 1e-9,
        "the newer order's angle: {}",
        seen[4]
    );
}

/// Says `text` with ALAnimatedSpeech (optionally a configuration) on a new NAO (a robot
/// keeps its paths in the time of the run that made them); returns how long the call took
/// and the Said events' durations.
fn say_and_time(text: &'static str, config: Option<Value>) -> (f64, Vec<f64>) {
    let robot = &SimRobot::new(Model::Nao);
    let events = watch(robot);
    let seen = log();
    let seen2 = seen.clone();
    run(robot, move |ctx| {
        let t0 = secs(ctx);
        let mut args = vec![s(text)];
        args.extend(config.clone());
        ctx.call_robot("ALAnimatedSpeech", "say", args)?;
        seen2.lock().unwrap().push(secs(ctx) - t0);
        Ok(())
    });
    let said = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            RobotEvent::Said { duration, .. } => Some(*duration),
            _ => None,
        })
        .collect();
    let took = seen.lock().unwrap()[0];
    (took, said)
}

const HELLO: f64 = 5.0 * 0.065; // "Hello", below the 0.4 s minimum

#[test]
fn start_does_not_extend_the_speech_run_and_wait_do() {
    // ^start: the speech goes on; say returns when the animation it started ends.
    let (took, said) = say_and_time("^start(animations/Stand/Gestures/Hey_1) Hello", None);
    assert_time(said[0], 0.4);
    assert_time(took, HEY_SECONDS);
    // ^run: the speech pauses for the animation.
    let (took, said) = say_and_time("^run(animations/Stand/Gestures/Yes_1) Hello", None);
    assert_time(said[0], YES_SECONDS + HELLO);
    assert_time(took, YES_SECONDS + HELLO);
    // ^wait: the speech pauses until the started animation ends.
    let (took, said) = say_and_time(
        "^start(animations/Stand/Gestures/Hey_1) Hello ^wait(animations/Stand/Gestures/Hey_1) you",
        None,
    );
    assert_time(said[0], HEY_SECONDS + 4.0 * 0.065);
    assert_time(took, HEY_SECONDS + 4.0 * 0.065);
    // ^stop: the animation ends there, and a wait for it returns at once.
    let (took, said) = say_and_time(
        "^start(animations/Stand/Gestures/Hey_1) Hello ^stop(animations/Stand/Gestures/Hey_1) ^wait(animations/Stand/Gestures/Hey_1) you",
        None,
    );
    assert_time(said[0], 9.0 * 0.065);
    assert_time(took, said[0]);
    // Tags: ^runTag pauses for the animation its tag chooses (the first "yes": Yes_1).
    let (took, _) = say_and_time("^runTag(yes) Hello", None);
    assert_time(took, YES_SECONDS + HELLO);
    let (took, said) = say_and_time("^startTag(yes) Hello ^waitTag(yes)", None);
    assert_time(said[0], YES_SECONDS);
    assert_time(took, YES_SECONDS);
}

#[test]
fn an_unknown_animation_is_a_warning_and_the_speech_goes_on() {
    let (took, said) = say_and_time(
        "^start(animations/Stand/Gestures/Nope_1) Hello ^wait(animations/Stand/Gestures/Nope_1)",
        None,
    );
    assert_time(took, 0.4);
    assert_time(said[0], 0.4);
    let robot = SimRobot::new(Model::Nao);
    let events = watch(&robot);
    run(&robot, |ctx| {
        ctx.call_robot("ALAnimatedSpeech", "say", vec![s("^start() Hi ^wait()")])?;
        Ok(())
    });
    let warnings: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            RobotEvent::Log {
                level,
                source,
                message,
            } if level == "warning" => Some(format!("{source}: {message}")),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("ALAnimatedSpeech: ^start(): "),
        "{}",
        warnings[0]
    );
    assert_eq!(robot.snapshot().spoken, vec!["Hi".to_string()]);
}

/// On a new NAO, after `before` (ALAnimatedSpeech calls), says `text` (optionally with a
/// configuration): the largest distance of a shoulder from where it started while speaking,
/// and where the right one ends.
fn arm_during(
    before: &'static [(&'static str, &'static str)],
    text: &'static str,
    config: Option<Value>,
) -> (f64, f64) {
    let robot = &SimRobot::new(Model::Nao);
    let seen = log();
    let (seen2, r) = (seen.clone(), robot.clone());
    let start = angle(robot, "RShoulderPitch");
    let left = angle(robot, "LShoulderPitch");
    run(robot, move |ctx| {
        for (method, arg) in before {
            ctx.call_robot("ALAnimatedSpeech", method, vec![s(arg)])?;
        }
        let mut args = vec![s(text)];
        args.extend(config.clone());
        let id = ctx.post_robot("ALAnimatedSpeech", "say", args)?;
        let mut far: f64 = 0.0;
        while ctx.call_robot("ALAnimatedSpeech", "isRunning", vec![Value::Int(id)])?
            == Value::Bool(true)
        {
            far = far
                .max((angle(&r, "RShoulderPitch") - start).abs())
                .max((angle(&r, "LShoulderPitch") - left).abs());
            sleep(ctx, 0.1);
        }
        seen2
            .lock()
            .unwrap()
            .extend([far, angle(&r, "RShoulderPitch")]);
        Ok(())
    });
    let seen = seen.lock().unwrap();
    (seen[0], seen[1] - start)
}

const LONG: &str = "This is a rather long sentence that the robot will take a good while to say.";

#[test]
fn body_language_moves_the_arms_while_speaking_unless_disabled() {
    let (far, end) = arm_during(&[], LONG, None);
    assert!(far > 0.1, "contextual (the default) gestures: {far}");
    assert!(end.abs() < 1e-9, "and comes back: {end}");
    let disabled = || Some(Value::Map(vec![(s("bodyLanguageMode"), s("disabled"))]));
    let (far, _) = arm_during(&[], LONG, disabled());
    assert_eq!(far, 0.0, "disabled by the configuration");
    let (far, _) = arm_during(
        &[],
        "^mode(disabled) This is a long sentence that the robot says.",
        None,
    );
    assert_eq!(far, 0.0, "disabled by ^mode");
    let (far, _) = arm_during(
        &[],
        "^mode(random) This is a long sentence that the robot says.",
        disabled(),
    );
    assert!(far > 0.1, "^mode(random) turns it back on: {far}");
    let (far, _) = arm_during(&[("setBodyLanguageModeFromStr", "disabled")], LONG, None);
    assert_eq!(far, 0.0, "setBodyLanguageModeFromStr(\"disabled\")");
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run(&robot, move |ctx| {
        ctx.call_robot(
            "ALAnimatedSpeech",
            "setBodyLanguageModeFromStr",
            vec![s("disabled")],
        )?;
        let m = ctx.call_robot("ALAnimatedSpeech", "getBodyLanguageMode", vec![])?;
        let name = ctx.call_robot("ALAnimatedSpeech", "getBodyLanguageModeToStr", vec![])?;
        ctx.call_robot(
            "ALAnimatedSpeech",
            "setBodyLanguageMode",
            vec![Value::Int(1)],
        )?;
        let random = ctx.call_robot("ALAnimatedSpeech", "getBodyLanguageModeToStr", vec![])?;
        seen2.lock().unwrap().extend([m, name, random]);
        Ok(())
    });
    assert_eq!(
        *seen.lock().unwrap(),
        [Value::Int(0), s("disabled"), s("random")]
    );
}

#[test]
fn stopping_an_animated_speech_stops_its_animations_and_the_end_is_raised() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let (seen2, r) = (seen.clone(), robot.clone());
    let start = angle(&robot, "RShoulderPitch");
    run(&robot, move |ctx| {
        let id = ctx.post_robot(
            "ALAnimatedSpeech",
            "say",
            vec![s(
                "^start(animations/Stand/Gestures/Hey_1) Hello there, how are you today?",
            )],
        )?;
        sleep(ctx, 1.0);
        ctx.call_robot("ALAnimatedSpeech", "stop", vec![Value::Int(id)])?;
        let at_stop = angle(&r, "RShoulderPitch");
        sleep(ctx, 1.0);
        seen2
            .lock()
            .unwrap()
            .extend([at_stop, angle(&r, "RShoulderPitch")]);
        ctx.call_robot("ALAnimatedSpeech", "say", vec![s("Fine.")])?;
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert!(seen[0] < start - 0.5, "mid-wave at the stop: {}", seen[0]);
    assert!(
        (seen[1] - seen[0]).abs() < 1e-9,
        "the gesture stopped with the speech"
    );
    let snapshot = robot.snapshot();
    assert!(snapshot.tasks.is_empty(), "{:?}", snapshot.tasks);
    assert_eq!(
        snapshot.memory["ALAnimatedSpeech/EndOfAnimatedSpeech"],
        Value::Int(1)
    );
}

#[test]
fn the_player_serves_every_method_naoqi_lists_for_it() {
    let robot = SimRobot::new(Model::Pepper);
    let Ok(Value::List(methods)) = robot.call("ALAnimationPlayer", "getMethodList", vec![]) else {
        panic!("no method list");
    };
    for m in [
        "run",
        "runTag",
        "reset",
        "addTagForAnimations",
        "declarePathForTags",
    ] {
        assert!(methods.contains(&s(m)), "{m}");
        // Without arguments: served (an argument error, or done), never "not served".
        let r = robot.call("ALAnimationPlayer", m, vec![]);
        assert!(
            !matches!(r, Err(RobotError::UnknownMethod { .. })),
            "{m}: {r:?}"
        );
    }
    assert!(choreo_engine::Robot::has_service(
        &robot,
        "ALAnimationPlayer"
    ));
}

#[test]
fn a_gesture_keeps_the_posture_family_so_tags_and_patterns_still_resolve() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run(&robot, move |ctx| {
        ctx.post_robot("ALAnimationPlayer", "run", vec![s(HEY)])?;
        sleep(ctx, 1.0);
        let posture = ctx.call_robot("ALRobotPosture", "getPosture", vec![])?;
        let family = ctx.call_robot("ALRobotPosture", "getPostureFamily", vec![])?;
        let t0 = secs(ctx);
        ctx.call_robot(
            "ALAnimationPlayer",
            "run",
            vec![s("animations/[posture]/Gestures/Yes_1")],
        )?;
        let took = secs(ctx) - t0;
        seen2.lock().unwrap().extend([posture, family]);
        assert_time(took, YES_SECONDS);
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], s("Unknown"), "the arm is out of StandInit");
    assert_eq!(seen[1], s("Standing"), "but the robot still stands");
}

#[test]
fn declared_paths_lend_their_animations_tags() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run(&robot, move |ctx| {
        // "oar" tags a sitting animation only: not found standing...
        let before = ctx.call_robot("ALAnimationPlayer", "runTag", vec![s("oar")]);
        // ... until the sitting waiting animations' path is declared.
        ctx.call_robot(
            "ALAnimationPlayer",
            "declarePathForTags",
            vec![s("animations/Sit/Waiting")],
        )?;
        let t0 = secs(ctx);
        ctx.call_robot("ALAnimationPlayer", "runTag", vec![s("oar")])?;
        let took = secs(ctx) - t0;
        ctx.call_robot("ALAnimationPlayer", "reset", vec![])?;
        let after_reset = ctx.call_robot("ALAnimationPlayer", "runTag", vec![s("oar")]);
        seen2
            .lock()
            .unwrap()
            .extend([before.is_err(), took > 1.0, after_reset.is_err()]);
        Ok(())
    });
    assert_eq!(*seen.lock().unwrap(), [true, true, true]);
}
