//! Timing and the generic task API (docs/simulated-robot.md, Calls and time, B1–B4), in virtual time.

use crate::support;

use std::sync::{Arc, Mutex};

use choreo_engine::{Outcome, Value};
use choreo_naoqi::tts::speech_duration;
use choreo_naoqi::{Model, RobotEvent, STOP_POLL, SimRobot};
use support::{BoxFn, assert_time, log, run_box, run_boxes, s, secs};

const QUESTION: &str = "Hello, how are you?";
/// 19 characters × 0.065 s + one sentence end × 0.3 s.
const QUESTION_SECONDS: f64 = 19.0 * 0.065 + 0.3;
const LONG: &str = "This is a rather long sentence that the robot will take a good while to say.";

#[test]
fn say_blocks_for_the_documented_duration() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    let (outcome, trace) = run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        ctx.call_robot("ALTextToSpeech", "say", vec![s(QUESTION)])?;
        let t1 = secs(ctx);
        ctx.call_robot(
            "ALAnimatedSpeech",
            "say",
            vec![s(
                "^start(animations/Stand/Gestures/Yes_1) Hi ^wait(animations/Stand/Gestures/Yes_1)",
            )],
        )?;
        seen2.lock().unwrap().extend([t1 - t0, secs(ctx) - t1]);
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished, "{trace:#?}");
    let seen = seen.lock().unwrap();
    assert_time(seen[0], QUESTION_SECONDS);
    // Yes_1 lasts 1.64 s (its stock timeline): the speech waits for it.
    assert_time(seen[1], 1.64);
    assert_eq!(
        robot.snapshot().spoken,
        vec![QUESTION.to_string(), "Hi".to_string()]
    );
    assert_time(speech_duration(QUESTION, 100.0).1, QUESTION_SECONDS);
    // The trace shows the call and its return (B6).
    support::assert_in_order(
        &trace,
        &[
            "root/Box svc ALTextToSpeech.say(\"Hello, how are you?\")",
            "root/Box svc_ret ALTextToSpeech.say",
        ],
    );
}

#[test]
fn speed_parameter_scales_the_duration() {
    let robot = SimRobot::new(Model::Pepper);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        ctx.call_robot(
            "ALTextToSpeech",
            "setParameter",
            vec![s("speed"), Value::Float(200.0)],
        )?;
        let t0 = secs(ctx);
        ctx.call_robot("ALTextToSpeech", "say", vec![s(QUESTION)])?;
        seen2.lock().unwrap().push(secs(ctx) - t0);
        Ok(())
    });
    assert_time(seen.lock().unwrap()[0], QUESTION_SECONDS / 2.0);
}

#[test]
fn post_returns_at_once_and_wait_returns_false_at_the_end() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        let id = ctx.post_robot("ALTextToSpeech", "say", vec![s(QUESTION)])?;
        let posted = secs(ctx) - t0;
        let running = ctx.call_robot("ALTextToSpeech", "isRunning", vec![Value::Int(id)])?;
        let timed_out = ctx.call_robot(
            "ALTextToSpeech",
            "wait",
            vec![Value::Int(id), Value::Int(0)],
        )?;
        let waited = secs(ctx) - t0;
        let after = ctx.call_robot("ALTextToSpeech", "isRunning", vec![Value::Int(id)])?;
        seen2
            .lock()
            .unwrap()
            .push((posted, running, timed_out, waited, after));
        Ok(())
    });
    let (posted, running, timed_out, waited, after) = seen.lock().unwrap()[0].clone();
    assert_time(posted, 0.0);
    assert_eq!(running, Value::Bool(true));
    assert_eq!(timed_out, Value::Bool(false));
    assert_time(waited, QUESTION_SECONDS);
    assert_eq!(after, Value::Bool(false));
}

#[test]
fn wait_with_a_timeout_returns_true_when_it_expires() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let id = ctx.post_robot(
            "ALLeds",
            "fadeRGB",
            vec![s("FaceLeds"), s("red"), Value::Float(2.0)],
        )?;
        let t0 = secs(ctx);
        let expired = ctx.call_robot("ALLeds", "wait", vec![Value::Int(id), Value::Int(500)])?;
        seen2.lock().unwrap().push((expired, secs(ctx) - t0));
        Ok(())
    });
    let (expired, waited) = seen.lock().unwrap()[0].clone();
    assert_eq!(expired, Value::Bool(true));
    assert_time(waited, 0.5);
}

#[test]
fn unknown_task_ids_answer_at_once_and_ids_are_unique() {
    let robot = SimRobot::new(Model::Nao);
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        let a = ctx.post_robot("ALTextToSpeech", "say", vec![s("one")])?;
        let b = ctx.post_robot("ALTextToSpeech", "say", vec![s("two")])?;
        let c = ctx.post_robot("ALTextToSpeech", "getLanguage", vec![])?;
        let wait = ctx.call_robot(
            "ALTextToSpeech",
            "wait",
            vec![Value::Int(9999), Value::Int(0)],
        )?;
        ctx.call_robot("ALTextToSpeech", "stop", vec![Value::Int(9999)])?;
        let running = ctx.call_robot("ALTextToSpeech", "isRunning", vec![Value::Int(9999)])?;
        let other_module = ctx.call_robot("ALLeds", "isRunning", vec![Value::Int(a)])?;
        seen2
            .lock()
            .unwrap()
            .push((vec![a, b, c], wait, running, other_module, secs(ctx) - t0));
        ctx.call_robot("ALTextToSpeech", "stopAll", vec![])?;
        Ok(())
    });
    let (ids, wait, running, other_module, elapsed) = seen.lock().unwrap()[0].clone();
    assert_eq!(ids, vec![1, 2, 3]);
    assert_eq!(wait, Value::Bool(false));
    assert_eq!(running, Value::Bool(false));
    assert_eq!(
        other_module,
        Value::Bool(false),
        "ids belong to their module"
    );
    assert_time(elapsed, 0.0);
}

#[test]
fn stop_ends_a_posted_say_early_and_releases_its_waiter() {
    let robot = SimRobot::new(Model::Nao);
    let events = log::<RobotEvent>();
    let events2 = events.clone();
    robot.set_observer(Arc::new(move |e: &RobotEvent| {
        events2.lock().unwrap().push(e.clone())
    }));
    let id = Arc::new(Mutex::new(None));
    let (id_a, id_b) = (id.clone(), id.clone());
    let seen = log();
    let seen2 = seen.clone();
    let speaker: BoxFn = Arc::new(move |ctx| {
        let task = ctx.post_robot("ALTextToSpeech", "say", vec![s(LONG)])?;
        *id_a.lock().unwrap() = Some(task);
        let timed_out = ctx.call_robot(
            "ALTextToSpeech",
            "wait",
            vec![Value::Int(task), Value::Int(0)],
        )?;
        seen2.lock().unwrap().push((timed_out, secs(ctx)));
        Ok(())
    });
    let stopper: BoxFn = Arc::new(move |ctx| {
        ctx.sleep(std::time::Duration::from_secs(1));
        let task = id_b.lock().unwrap().expect("the speaker posted first");
        ctx.call_robot("ALTextToSpeech", "stop", vec![Value::Int(task)])?;
        ctx.call_robot("ALTextToSpeech", "stop", vec![Value::Int(task)])?; // no-op
        Ok(())
    });
    let (outcome, trace) = run_boxes(&robot, vec![("Speaker", speaker), ("Stopper", stopper)]);
    assert_eq!(outcome, Outcome::Finished, "{trace:#?}");
    let (timed_out, at) = seen.lock().unwrap()[0].clone();
    assert_eq!(
        timed_out,
        Value::Bool(false),
        "a stopped task ends the wait normally"
    );
    let full = speech_duration(LONG, 100.0).1;
    assert!(full > 4.0);
    assert!(
        (1.0..=1.0 + STOP_POLL.as_secs_f64() + 1e-9).contains(&at),
        "the waiter returned at {at} s, not within one poll of the stop at 1 s"
    );
    let snapshot = robot.snapshot();
    assert!(snapshot.tasks.is_empty(), "{:?}", snapshot.tasks);
    assert_eq!(snapshot.speaking, None);
    assert_eq!(
        snapshot.memory["ALTextToSpeech/TextInterrupted"],
        Value::Int(1)
    );
    assert_eq!(
        snapshot.memory["ALTextToSpeech/TextDone"],
        Value::Int(0),
        "never ended"
    );
    let events = events.lock().unwrap();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, RobotEvent::SpeechInterrupted { text } if text == LONG))
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, RobotEvent::TaskStopped { .. }))
            .count(),
        1
    );
}

#[test]
fn a_stopped_task_does_not_keep_virtual_time_running() {
    // The box posts a long sound in a loop and stops it after 1 s; the behavior then idles:
    // virtual time must stop near 1 s, not run on with the loop.
    let robot = SimRobot::new(Model::Nao);
    let (outcome, _) = run_box(&robot, |ctx| {
        let id = ctx.post_robot(
            "ALAudioPlayer",
            "playSine",
            vec![
                Value::Int(440),
                Value::Int(50),
                Value::Int(0),
                Value::Float(100.0),
            ],
        )?;
        ctx.sleep(std::time::Duration::from_secs(1));
        ctx.call_robot("ALAudioPlayer", "stop", vec![Value::Int(id)])?;
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    let t = robot.snapshot().time;
    assert!(
        t < 1.0 + 2.0 * STOP_POLL.as_secs_f64(),
        "time ran on to {t} s"
    );
    assert!(robot.snapshot().sounds.is_empty());
}

#[test]
fn speeches_queue_one_after_the_other() {
    let robot = SimRobot::new(Model::Nao);
    let starts = log::<(String, f64)>();
    let starts2 = starts.clone();
    let seen = log();
    let seen2 = seen.clone();
    let robot2 = robot.clone();
    robot.set_observer(Arc::new(move |e: &RobotEvent| {
        if let RobotEvent::Said { text, .. } = e {
            starts2
                .lock()
                .unwrap()
                .push((text.clone(), robot2.snapshot().time));
        }
    }));
    run_box(&robot, move |ctx| {
        let a = ctx.post_robot("ALTextToSpeech", "say", vec![s(QUESTION)])?;
        let b = ctx.post_robot("ALAnimatedSpeech", "say", vec![s("Fine.")])?;
        ctx.call_robot("ALTextToSpeech", "wait", vec![Value::Int(a), Value::Int(0)])?;
        ctx.call_robot(
            "ALAnimatedSpeech",
            "wait",
            vec![Value::Int(b), Value::Int(0)],
        )?;
        seen2.lock().unwrap().push(secs(ctx));
        Ok(())
    });
    let starts = starts.lock().unwrap();
    assert_eq!(starts[0].0, QUESTION);
    assert_time(starts[0].1, 0.0);
    assert_eq!(starts[1].0, "Fine.");
    assert_time(starts[1].1, QUESTION_SECONDS);
    assert_time(
        seen.lock().unwrap()[0],
        QUESTION_SECONDS + 5.0 * 0.065 + 0.3,
    );
}

#[test]
fn runs_are_deterministic() {
    let run = || {
        let robot = SimRobot::new(Model::Nao);
        let (_, trace) = run_box(&robot, |ctx| {
            let id = ctx.post_robot("ALTextToSpeech", "say", vec![s(QUESTION)])?;
            ctx.post_robot(
                "ALLeds",
                "fadeRGB",
                vec![s("FaceLeds"), Value::Int(0x00ff00), Value::Float(0.7)],
            )?;
            ctx.call_robot(
                "ALMotion",
                "angleInterpolation",
                vec![
                    s("HeadYaw"),
                    Value::Float(0.5),
                    Value::Float(1.0),
                    Value::Bool(true),
                ],
            )?;
            ctx.call_robot(
                "ALTextToSpeech",
                "wait",
                vec![Value::Int(id), Value::Int(0)],
            )?;
            Ok(())
        });
        (trace, robot.snapshot())
    };
    let (a, snap_a) = run();
    let (b, snap_b) = run();
    assert_eq!(a, b);
    assert_eq!(snap_a, snap_b);
}

#[test]
fn a_blocking_call_from_inline_code_does_not_hang() {
    // Inline code runs on the control thread, where virtual time cannot move: the robot
    // finishes the say at once instead of spinning.
    let robot = SimRobot::new(Model::Nao);
    let host = choreo_engine::NativeHost::new().with_inline("Box", |hook, ctx| {
        if matches!(hook, choreo_engine::Hook::Input { name, .. } if name == "onStart") {
            ctx.call_robot("ALTextToSpeech", "say", vec![s(QUESTION)])?;
            ctx.fire("onStopped", Value::None)?;
        }
        Ok(())
    });
    let inner = format!(
        "{}{}{}",
        support::boxed("Box", 1, "", ""),
        support::link(0, 2, 1, 2),
        support::link(1, 4, 0, 4)
    );
    let (outcome, _) = support::run_xml(&robot, &support::behavior(&inner), host);
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(robot.snapshot().spoken, vec![QUESTION.to_string()]);
}
