//! The simulated joints follow the motion curves: every stock behavior of the Choregraphe box
//! library that carries motion curves (the Tai Chi Chuan dance, the Hello and Wipe Forehead
//! animations, and any other found) runs on the simulated NAO in virtual time; at every frame
//! of its motion timelines the simulated joint angles must equal the file's curves, evaluated
//! in frames by `choreo-motion` from the frame the order was sent and the posture the joints
//! had then, within 1e-6 rad (clamped to the joint limits as the robot clamps). That checks
//! the whole way: the engine's order, its arguments as values, the simulated robot's reading
//! of them, and its trajectory in seconds against the curve in frames.
//!
//! Also here: pause, goTo and resume mid-dance re-send from the right frame, and a Waiting
//! timeline holds its cursor while another box holds the motors.

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::trace::Step;
use choreo_engine::{FrameObserver, Outcome, Trace};
use choreo_motion::Motion;
use choreo_naoqi::{Model, SimRobot};
use choreo_python::{PythonHost, PythonOptions};
use choreo_testkit::{files_under, library};
use choreo_xar::model::{BoxDef, Timeline};

/// How far the simulated joints may be from the curves.
const TOLERANCE: f64 = 1e-6;

/// One frame of a timeline, as seen by the frame observer: the box path, the frame and
/// every joint's angle (the model's order).
struct Sample {
    path: String,
    frame: i64,
    angles: Vec<f64>,
}

/// A behavior run on a simulated NAO with Python boxes in virtual time, sampling the joints
/// at every frame of every timeline.
struct Sampled {
    samples: Vec<Sample>,
    trace: Trace,
    outcome: Outcome,
    /// When the robot fell, if it did.
    fell: Option<f64>,
}

fn run_sampled(xar: &choreo_xar::model::XarFile, dir: &Path, limit: f64) -> Sampled {
    let robot = SimRobot::new(Model::Nao);
    let trace = Trace::keep_all();
    let host = PythonHost::new(PythonOptions {
        behavior_path: dir.display().to_string(),
        ..PythonOptions::default()
    });
    let samples = Arc::new(Mutex::new(Vec::new()));
    // The observer runs on the control thread and cannot name boxes by itself: the engine
    // fills this once loaded.
    let paths: Arc<Mutex<Vec<String>>> = Arc::default();
    let observer: FrameObserver = {
        let (samples, paths, robot) = (Arc::clone(&samples), Arc::clone(&paths), robot.clone());
        Arc::new(move |b, frame| {
            let snapshot = robot.snapshot();
            let path = paths
                .lock()
                .unwrap()
                .get(b.0 as usize)
                .cloned()
                .unwrap_or_default();
            samples.lock().unwrap().push(Sample {
                path,
                frame,
                angles: snapshot.joints.iter().map(|j| j.angle).collect(),
            });
        })
    };
    let fell: Arc<Mutex<Option<f64>>> = Arc::default();
    {
        let (fell, robot2) = (Arc::clone(&fell), robot.clone());
        robot.set_observer(Arc::new(move |e: &choreo_naoqi::RobotEvent| {
            if matches!(e, choreo_naoqi::RobotEvent::Fell { .. }) {
                fell.lock().unwrap().get_or_insert(robot2.snapshot().time);
            }
        }));
    }
    let engine = support::load_on(xar, &host, &robot, &trace, limit, Some(observer)).unwrap();
    *paths.lock().unwrap() = engine
        .graph()
        .boxes
        .iter()
        .map(|b| b.path.clone())
        .collect();
    engine.start();
    let outcome = engine.wait(Duration::from_secs(120));
    drop(engine);
    let samples = std::mem::take(&mut *samples.lock().unwrap());
    let fell = *fell.lock().unwrap();
    Sampled {
        samples,
        trace,
        outcome,
        fell,
    }
}

/// Every box's timeline in the file, by box path (`root/Tai Chi Chuan`).
fn timelines(xar: &choreo_xar::model::XarFile) -> BTreeMap<String, Timeline> {
    let mut out = BTreeMap::new();
    let mut stack: Vec<(String, &BoxDef)> = vec![("root".to_string(), &xar.root_box)];
    while let Some((path, b)) = stack.pop() {
        let Some(t) = &b.timeline else { continue };
        out.insert(path.clone(), t.clone());
        for layer in &t.layers {
            for kf in &layer.keyframes {
                for child in kf.diagram.iter().flat_map(|d| d.boxes.iter()) {
                    stack.push((format!("{path}/{}", child.name), child));
                }
            }
        }
    }
    out
}

/// The motion sends of the trace: (box path, frame sent from).
fn sends(trace: &Trace) -> Vec<(String, i64)> {
    trace
        .events()
        .into_iter()
        .filter_map(|e| match e.step {
            Step::Motion { what, frame, .. } if what == "send" => Some((e.path, frame)),
            _ => None,
        })
        .collect()
}

/// Compares the samples of every order sent with the file's curves; returns how many joint
/// values were compared.
fn check_follow(file: &str, xar: &choreo_xar::model::XarFile, run: &Sampled) -> usize {
    let model = Model::Nao;
    let names: Vec<&str> = model.joints().iter().map(|j| j.name).collect();
    let index = |n: &str| names.iter().position(|x| *x == n).unwrap();
    let timelines = timelines(xar);
    // The stock motions were made on NAOqi by its makers: the body stands through them.
    assert_eq!(
        run.fell, None,
        "{file}: the simulated robot fell (at this time, s)"
    );
    let mut compared = 0;
    for (path, from) in sends(&run.trace) {
        let motion = Motion::from_timeline(&timelines[&path], model).unwrap();
        let of_box: Vec<&Sample> = run.samples.iter().filter(|s| s.path == path).collect();
        // The posture when the order left: the sample of the frame it was sent from (taken
        // before the send, at the same instant).
        let Some(at_send) = of_box.iter().find(|s| s.frame == from) else {
            panic!("{file}: no sample of {path} at frame {from}");
        };
        // The frames this order played: up to the next send's frame, or the timeline's end.
        let played: Vec<&&Sample> = of_box
            .iter()
            .skip_while(|s| s.frame != from)
            .skip(1)
            .take_while(|s| s.frame > from)
            .collect();
        for curve in &motion.curves {
            let j = index(&curve.actuator);
            let spline = curve.spline_from(from as i32, at_send.angles[j]).unwrap();
            for s in &played {
                let want = spline.eval(s.frame as f64).unwrap();
                // The robot clamps to the limits, NAO's head pitch and ankle rolls by the
                // yaw and pitches of the moment.
                let by = model.coupled_to(j).map_or(0.0, |c| s.angles[c]);
                let want = model.clamp(j, want, by);
                let got = s.angles[j];
                assert!(
                    (got - want).abs() <= TOLERANCE,
                    "{file}: {path} {} at frame {} (sent from {from}): simulated {got}, curve {want}",
                    curve.actuator,
                    s.frame
                );
                compared += 1;
            }
        }
    }
    compared
}

#[test]
fn the_simulated_joints_follow_every_stock_motion_curve() {
    let Some(lib) = library("stock motion curves followed by the simulated joints") else {
        return;
    };
    // The dances and animations (the library's Choice box has curves too, for the editor's
    // robot view of its answers, and is not a motion of its own).
    let files = files_under(&lib.join("standard/Motions"), &|p| {
        p.extension().is_some_and(|e| e == "xar")
            && std::fs::read_to_string(p).is_ok_and(|t| t.contains("<ActuatorCurve"))
    });
    assert!(files.len() >= 3, "stock motions with curves: {files:?}");
    let mut report = Vec::new();
    for path in &files {
        let file = path.strip_prefix(&lib).unwrap().display().to_string();
        println!("{file}");
        let project = choreo_xar::source::load_path(path).unwrap();
        let xar = &project.behaviors[0].xar;
        let run = run_sampled(xar, path.parent().unwrap(), 300.0);
        let compared = check_follow(&file, xar, &run);
        report.push(format!(
            "{file}: {:?}, {} order(s), {compared} joint values compared",
            run.outcome,
            sends(&run.trace).len()
        ));
        assert!(
            compared > 100,
            "{file}: the motion was not followed ({compared} values compared)"
        );
    }
    println!("{}", report.join("\n"));
}

/// The standard box ports (onLoad, onStart, onStop, onStopped).
const PORTS: &str = r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>"#;

/// A behavior whose root holds `inner` (boxes and links, raw XML).
fn behavior(inner: &str) -> choreo_xar::model::XarFile {
    let xml = format!(
        r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">{PORTS}<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>{inner}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#
    );
    choreo_xar::read_xar("t.xar", xml.as_bytes()).unwrap().value
}

/// A motion timeline box "T" (id 1) at 25 fps: HeadYaw 0° at frame 1, 60° at 51, 0° at
/// 101; `attributes` go on its Timeline; `layers` (raw XML) beside its curves.
fn dance(attributes: &str, layers: &str) -> String {
    format!(
        r#"<Box name="T" id="1">{PORTS}<Timeline enable="1" fps="25" start_frame="1" end_frame="-1" {attributes}>{layers}<ActuatorList model="nao"><ActuatorCurve name="v" actuator="HeadYaw" mute="0" unit="0"><Key frame="1" value="0"/><Key frame="51" value="60"/><Key frame="101" value="0"/></ActuatorCurve></ActuatorList></Timeline></Box>"#
    )
}

/// `<Link>` from box `src` port `sp` to box `dst` port `dp`.
fn link(src: i32, sp: i32, dst: i32, dp: i32) -> String {
    format!(
        r#"<Link inputowner="{dst}" indexofinput="{dp}" outputowner="{src}" indexofoutput="{sp}"/>"#
    )
}

/// Runs `xar` on a simulated NAO with native boxes `host`, in virtual time; returns the
/// outcome, the trace's short lines with their times, and the robot.
fn run_native(
    xar: &choreo_xar::model::XarFile,
    host: choreo_engine::NativeHost,
) -> (Outcome, Vec<(f64, String)>, SimRobot) {
    let robot = SimRobot::new(Model::Nao);
    let trace = Trace::keep_all();
    let engine = support::load_on(xar, &host, &robot, &trace, 60.0, None).unwrap();
    engine.start();
    let outcome = engine.wait(Duration::from_secs(60));
    drop(engine);
    let lines = trace
        .events()
        .iter()
        .map(|e| (e.time_ns as f64 / 1e9, e.short()))
        .collect();
    (outcome, lines, robot)
}

/// The time of the first trace line equal to `line`.
fn at(lines: &[(f64, String)], line: &str) -> f64 {
    lines
        .iter()
        .find(|(_, l)| l == line)
        .map(|(t, _)| *t)
        .unwrap_or_else(|| panic!("no {line:?} in {lines:#?}"))
}

/// HeadYaw's angle now, as box code reads it.
fn head_yaw(ctx: &choreo_engine::BoxContext) -> f64 {
    match ctx.call_robot(
        "ALMotion",
        "getAngles",
        vec![
            choreo_engine::Value::from("HeadYaw"),
            choreo_engine::Value::Bool(true),
        ],
    ) {
        Ok(choreo_engine::Value::List(v)) => match v.first() {
            Some(choreo_engine::Value::Float(x)) => *x,
            other => panic!("getAngles: {other:?}"),
        },
        other => panic!("getAngles: {other:?}"),
    }
}

#[test]
fn pause_goto_and_resume_kill_the_order_and_send_from_the_right_frame() {
    use choreo_engine::{Hook, NativeHost, TimelineCommand};
    // A, in T's behavior layer, pauses T after 1 s (frame 26), moves it to frame 30 while
    // paused, and resumes it 1 s later; it reads HeadYaw at each step.
    let seen: Arc<Mutex<Vec<(&str, f64)>>> = Arc::default();
    let host = {
        let seen = Arc::clone(&seen);
        NativeHost::new().with("A", move |hook, ctx| {
            if !matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                return Ok(());
            }
            let note = |what, ctx: &choreo_engine::BoxContext| {
                seen.lock().unwrap().push((what, head_yaw(ctx)));
            };
            ctx.sleep(Duration::from_secs(1));
            ctx.parent_timeline(TimelineCommand::Pause);
            note("paused", ctx);
            ctx.sleep(Duration::from_millis(500));
            note("still paused", ctx);
            ctx.parent_timeline(TimelineCommand::GoToFrame(30));
            ctx.sleep(Duration::from_secs(5));
            note("after goto", ctx);
            ctx.parent_timeline(TimelineCommand::Play);
            Ok(())
        })
    };
    let layer = format!(
        r#"<BehaviorLayer name="L"><BehaviorKeyframe name="k" index="1"><Diagram><Box name="A" id="2">{PORTS}</Box>{}</Diagram></BehaviorKeyframe></BehaviorLayer>"#,
        link(0, 1, 2, 2)
    );
    let xar = behavior(&format!(
        "{}{}{}",
        dance("", &layer),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (outcome, lines, _robot) = run_native(&xar, host);
    assert_eq!(outcome, Outcome::Finished);
    let motions: Vec<&str> = lines
        .iter()
        .map(|(_, l)| l.as_str())
        .filter(|l| l.starts_with("root/T motion"))
        .collect();
    assert_eq!(
        motions,
        [
            "root/T motion send 1 [HeadYaw] 4.000s",
            "root/T motion kill 26 [HeadYaw] 0.000s",
            "root/T motion goto 30 [HeadYaw] 0.000s",
            "root/T motion send 30 [HeadYaw] 2.840s",
            // The end: the frame past the last one (T6) stops the timeline and its order.
            "root/T motion kill 102 [HeadYaw] 0.000s",
        ],
        "{lines:#?}"
    );
    let seen = seen.lock().unwrap().clone();
    let motion = Motion::from_timeline(&timelines(&xar)["root/T"], Model::Nao).unwrap();
    let curve = &motion.curves[0];
    // Paused at frame 26, from the standing posture's HeadYaw (0): the curve there.
    let want = curve.spline_from(1, 0.0).unwrap().eval(26.0).unwrap();
    assert!(
        (seen[0].1 - want).abs() < 1e-6,
        "{seen:?} vs {want}: {lines:#?}"
    );
    assert_eq!(seen[1].1, seen[0].1, "a paused timeline's joints stay");
    // The goTo while paused moves HeadYaw to the curve's value at frame 30 (a quarter of
    // its speed: well within 5 s).
    let at30 = curve.spline().eval(30.0).unwrap();
    assert!((seen[2].1 - at30).abs() < 1e-6, "{seen:?} vs {at30}");
    // The resumed order goes from frame 30 and the posture there.
    assert!(
        at(&lines, "root/T motion send 30 [HeadYaw] 2.840s")
            > at(&lines, "root/T motion goto 30 [HeadYaw] 0.000s") + 4.9
    );
}

#[test]
fn a_waiting_timeline_holds_its_frame_while_another_box_holds_the_motors() {
    use choreo_engine::{Hook, NativeHost};
    // H holds "Head" for 2 s; it starts T as soon as it has it. T waits (resources mode 1):
    // its cursor stays on frame 1 until H lets go, then its order goes and frames follow.
    let host = NativeHost::new().with("H", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.fire("go", choreo_engine::Value::None)?;
            ctx.sleep(Duration::from_secs(2));
            ctx.fire("onStopped", choreo_engine::Value::None)?;
        }
        Ok(())
    });
    let holder = format!(
        r#"<Box name="H" id="2">{PORTS}<Output name="go" type="1" type_size="1" nature="2" inner="0" id="5"/><Resource name="Head" type="Lock" timeout="-1"/></Box>"#
    );
    let xar = behavior(&format!(
        "{}{holder}{}{}{}",
        dance(r#"resources_acquisition="1""#, ""),
        link(0, 2, 2, 2),
        link(2, 5, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (outcome, lines, _robot) = run_native(&xar, host);
    assert_eq!(outcome, Outcome::Finished, "{lines:#?}");
    let busy = at(&lines, "root/T motion busy 1 [HeadYaw] 0.000s");
    let sent = at(&lines, "root/T motion send 1 [HeadYaw] 4.000s");
    let frame2 = at(&lines, "root/T frame 2");
    assert!(busy < 0.01, "{lines:#?}");
    assert!((sent - 2.0).abs() < 0.05, "sent at {sent}: {lines:#?}");
    assert!(frame2 > sent, "frame 2 at {frame2}, the order at {sent}");
    assert!(
        (frame2 - sent - 0.04).abs() < 1e-6,
        "frames follow the order: {frame2}"
    );
}
