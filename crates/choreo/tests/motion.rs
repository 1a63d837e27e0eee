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
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::trace::Step;
use choreo_engine::{Engine, FrameObserver, Options, Outcome, Robot, Trace};
use choreo_motion::Motion;
use choreo_naoqi::{Model, SimRobot};
use choreo_python::{PythonHost, PythonOptions};
use choreo_testkit::{files_under, library};
use choreo_xar::model::{BoxDef, Timeline};

/// How far the simulated joints may be from the curves.
const TOLERANCE: f64 = 1e-6;

/// One frame of a timeline, as seen by the frame observer: the box path, the frame, the
/// behavior time in seconds and every joint's angle (the model's order).
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
    let engine = Engine::load(
        xar,
        &host,
        Options {
            virtual_time: true,
            trace: trace.clone(),
            time_limit: Some(Duration::from_secs_f64(limit)),
            robot: Some(Arc::new(robot.clone()) as Arc<dyn Robot>),
            on_frame: Some(observer),
            ..Options::default()
        },
    )
    .unwrap();
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
    Sampled {
        samples,
        trace,
        outcome,
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
    let yaw = index("HeadYaw");
    let timelines = timelines(xar);
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
                // The robot clamps to the limits, NAO's head pitch by the yaw of the moment.
                let head_yaw = s.angles[yaw];
                let want = model.clamp(j, want, head_yaw);
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
