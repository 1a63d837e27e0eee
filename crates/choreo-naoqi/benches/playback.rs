//! Playback lag: how far the simulated joints are behind a motion timeline's frame clock,
//! over a dance played in **real time** (60 s by default; `PLAYBACK_SECONDS` to change).
//!
//! The dance is generated: a 25 fps timeline whose HeadYaw curve is one straight line from
//! −100° to +100° over the whole dance (linear handles), so that an angle tells the time on
//! the curve it belongs to. At every frame the engine reports (its frame observer, on the
//! control thread), the bench reads the simulated joint and the behavior time together
//! (`SimRobot::snapshot`), and computes
//!
//! - **lag** = (time since the first frame) − (time on the curve of the angle read): how far
//!   the joint is behind the frame clock; the order leaves through the engine's robot thread,
//!   so the lag is that trip (and whatever delays the simulated robot's reading);
//! - **frame lateness** = when the frame came − when it was due (`t0 + (f − 1) / fps`): the
//!   frame clock's own quality, for comparison.
//!
//! Target (issue 11): lag p99 ≤ 1 frame (40 ms at 25 fps). Run:
//! `cargo bench -p choreo-naoqi --bench playback`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::{Engine, FrameObserver, NativeHost, Options, Outcome, Robot, Trace};
use choreo_naoqi::{Model, SimRobot};

const FPS: f64 = 25.0;
const FROM_DEG: f64 = -100.0;
const TO_DEG: f64 = 100.0;

fn dance(frames: i64) -> choreo_xar::model::XarFile {
    let ports = r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>"#;
    let last = frames + 1;
    let xml = format!(
        r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">{ports}<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
<Box name="Ramp" id="1">{ports}<Timeline enable="1" fps="25" start_frame="1" end_frame="-1"><ActuatorList model="nao"><ActuatorCurve name="v" actuator="HeadYaw" mute="0" unit="0">
<Key frame="1" value="{FROM_DEG}"><Tangent side="left" interpType="linear" abscissaParam="0" ordinateParam="0"/><Tangent side="right" interpType="linear" abscissaParam="0" ordinateParam="0"/></Key>
<Key frame="{last}" value="{TO_DEG}"><Tangent side="left" interpType="linear" abscissaParam="0" ordinateParam="0"/><Tangent side="right" interpType="linear" abscissaParam="0" ordinateParam="0"/></Key>
</ActuatorCurve></ActuatorList></Timeline></Box>
<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/><Link inputowner="0" indexofinput="4" outputowner="1" indexofoutput="4"/>
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#
    );
    choreo_xar::read_xar("playback.xar", xml.as_bytes())
        .expect("the generated dance reads")
        .value
}

/// The `q`-quantile of sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let seconds: f64 = std::env::var("PLAYBACK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60.0);
    let frames = (seconds * FPS).round() as i64;
    let xar = dance(frames);
    let robot = SimRobot::new(Model::Nao);
    let yaw = Model::Nao.joint_index("HeadYaw").unwrap();
    // (frame, behavior time s, HeadYaw rad) at every frame.
    let samples: Arc<Mutex<Vec<(i64, f64, f64)>>> = Arc::default();
    let observer: FrameObserver = {
        let (samples, robot) = (Arc::clone(&samples), robot.clone());
        Arc::new(move |_, frame| {
            let s = robot.snapshot();
            samples
                .lock()
                .unwrap()
                .push((frame, s.time, s.joints[yaw].angle));
        })
    };
    let engine = Engine::load(
        &xar,
        &NativeHost::new(),
        Options {
            trace: Trace::new(),
            robot: Some(Arc::new(robot.clone()) as Arc<dyn Robot>),
            on_frame: Some(observer),
            ..Options::default()
        },
    )
    .expect("loads");
    println!(
        "playback: a {seconds} s dance at 25 fps in real time ({frames} frames); load average {}",
        choreo_testkit::load_average()
    );
    engine.start();
    let outcome = engine.wait(Duration::from_secs_f64(seconds + 30.0));
    assert_eq!(outcome, Outcome::Finished);
    drop(engine);
    let samples = samples.lock().unwrap().clone();
    let (first_frame, t0, _) = samples[0];
    let rate = (TO_DEG - FROM_DEG).to_radians() / (frames as f64 / FPS);
    let mut lag = Vec::new();
    let mut late = Vec::new();
    for &(frame, t, angle) in &samples[1..] {
        // The last frames hold the end value: no time to read from a joint at rest.
        if frame > first_frame + frames - 2 {
            continue;
        }
        let on_curve = (angle - FROM_DEG.to_radians()) / rate;
        lag.push(((t - t0) - on_curve) * 1e3);
        late.push(((t - t0) - (frame - first_frame) as f64 / FPS) * 1e3);
    }
    lag.sort_by(f64::total_cmp);
    late.sort_by(f64::total_cmp);
    let frame_ms = 1e3 / FPS;
    println!(
        "  lag of the joints behind the frame clock (ms, {} frames): p50 {:.3}, p99 {:.3}, max {:.3}; p99 = {:.3} frame (target ≤ 1)",
        lag.len(),
        quantile(&lag, 0.5),
        quantile(&lag, 0.99),
        lag[lag.len() - 1],
        quantile(&lag, 0.99) / frame_ms
    );
    println!(
        "  frame lateness against absolute deadlines (ms): p50 {:.3}, p99 {:.3}, max {:.3}",
        quantile(&late, 0.5),
        quantile(&late, 0.99),
        late[late.len() - 1]
    );
}
