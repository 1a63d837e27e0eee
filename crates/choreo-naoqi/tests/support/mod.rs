//! Runs small behaviors on a [`SimRobot`] in virtual time: native boxes call the robot
//! through their context, as Python boxes will.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::{
    BoxContext, Engine, Hook, NativeHost, Options, Outcome, ScriptError, Trace, Value,
};
use choreo_naoqi::{Model, RobotEvent, SimRobot};

pub use choreo_testkit::xar_text::{assert_in_order, behavior, boxed, link};

/// Code of a box: runs on onStart; the box then fires onStopped.
pub type BoxFn = Arc<dyn Fn(&BoxContext) -> Result<(), ScriptError> + Send + Sync>;

/// Runs a behavior whose root starts every box of `boxes` (named as given) and finishes when
/// the first one listed stops. Returns the outcome, the trace (short form) and the robot's
/// time at the end, in seconds.
pub fn run_boxes(robot: &SimRobot, boxes: Vec<(&str, BoxFn)>) -> (Outcome, Vec<String>) {
    run_boxes_seeded(robot, boxes, None)
}

/// [`run_boxes`] with the run's seed (`Options::seed`; `None`: virtual time's default).
pub fn run_boxes_seeded(
    robot: &SimRobot,
    boxes: Vec<(&str, BoxFn)>,
    seed: Option<u64>,
) -> (Outcome, Vec<String>) {
    let mut inner = String::new();
    let mut host = NativeHost::new();
    for (i, (name, f)) in boxes.into_iter().enumerate() {
        let id = i as i32 + 1;
        inner.push_str(&boxed(name, id, "", ""));
        inner.push_str(&link(0, 2, id, 2));
        if id == 1 {
            inner.push_str(&link(1, 4, 0, 4));
        }
        host = host.with(name, move |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                f(ctx)?;
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        });
    }
    run_xml_seeded(robot, &behavior(&inner), host, seed)
}

/// Runs `xml` with `host` on `robot` in virtual time until it finishes or idles.
pub fn run_xml(robot: &SimRobot, xml: &str, host: NativeHost) -> (Outcome, Vec<String>) {
    run_xml_seeded(robot, xml, host, None)
}

/// [`run_xml`] with the run's seed (`Options::seed`; `None`: virtual time's default).
pub fn run_xml_seeded(
    robot: &SimRobot,
    xml: &str,
    host: NativeHost,
    seed: Option<u64>,
) -> (Outcome, Vec<String>) {
    let x = choreo_xar::read_xar("t.xar", xml.as_bytes())
        .expect("test behavior reads")
        .value;
    let trace = Trace::new();
    let engine = Engine::load(
        &x,
        &host,
        Options {
            virtual_time: true,
            trace: trace.clone(),
            robot: Some(Arc::new(robot.clone())),
            time_limit: Some(Duration::from_secs(600)),
            seed,
            ..Default::default()
        },
    )
    .expect("loads");
    engine.start();
    let outcome = engine.wait(Duration::from_secs(30));
    if outcome != Outcome::Finished {
        engine.stop();
        let _ = engine.wait(Duration::from_secs(30));
    }
    drop(engine);
    (outcome, trace.events().iter().map(|e| e.short()).collect())
}

/// One box.
pub fn run_box(
    robot: &SimRobot,
    f: impl Fn(&BoxContext) -> Result<(), ScriptError> + Send + Sync + 'static,
) -> (Outcome, Vec<String>) {
    run_boxes(robot, vec![("Box", Arc::new(f))])
}

/// Seconds of behavior time now, as the box sees it.
pub fn secs(ctx: &BoxContext) -> f64 {
    ctx.now().as_secs_f64()
}

/// A place boxes write what they saw.
pub fn log<T: Send + 'static>() -> Arc<Mutex<Vec<T>>> {
    Arc::new(Mutex::new(Vec::new()))
}

/// Shorthand for string arguments.
pub fn s(x: &str) -> Value {
    Value::from(x)
}

/// Asserts two times (seconds) agree within a microsecond.
pub fn assert_time(got: f64, want: f64) {
    assert!((got - want).abs() < 1e-6, "time {got} s, expected {want} s");
}

/// A robot whose observer events are collected.
pub fn watched(model: Model) -> (SimRobot, Arc<Mutex<Vec<RobotEvent>>>) {
    let robot = SimRobot::new(model);
    let events = Arc::new(Mutex::new(Vec::new()));
    let e2 = events.clone();
    robot.set_observer(Arc::new(move |e: &RobotEvent| {
        e2.lock().unwrap().push(e.clone())
    }));
    (robot, events)
}

/// What module `service` showed the observer, in order.
pub fn notices(events: &Mutex<Vec<RobotEvent>>, service: &str) -> Vec<String> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            RobotEvent::Notice { service: s, text } if s == service => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// A list value.
pub fn list(items: Vec<Value>) -> Value {
    Value::List(items)
}

/// A float value.
pub fn f(x: f64) -> Value {
    Value::Float(x)
}

/// An integer value.
pub fn i(x: i64) -> Value {
    Value::Int(x)
}

/// A boolean value.
pub fn b(x: bool) -> Value {
    Value::Bool(x)
}

/// The numbers of a list value (integers as floats), or a lone float as a list of one;
/// panics on anything else.
pub fn floats(v: &Value) -> Vec<f64> {
    match v {
        Value::List(xs) => xs
            .iter()
            .map(|x| match x {
                Value::Float(f) => *f,
                Value::Int(i) => *i as f64,
                other => panic!("not a number: {other}"),
            })
            .collect(),
        Value::Float(x) => vec![*x],
        other => panic!("not a list: {other}"),
    }
}

/// The values the robot wrote under ALMemory `key` (its observer's events), in order.
pub fn written(events: &Mutex<Vec<RobotEvent>>, key: &str) -> Vec<Value> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            RobotEvent::MemoryEvent { key: k, value } if k == key => Some(value.clone()),
            _ => None,
        })
        .collect()
}
