//! Helpers for engine tests: behaviors written as small XAR texts, run in virtual time.

use std::time::Duration;

use choreo_engine::{Engine, NativeHost, Options, Outcome, Trace, Value};
pub use choreo_testkit::xar_text::{PORTS, assert_in_order, behavior, boxed, link, pos};

/// A small resource tree for tests (the real ones are the robot side's: choreo-naoqi's
/// `Model::resource_groups`): `Head`, `Left leg`/`Right leg` in `Legs`, all in `All motors`.
pub fn test_tree() -> std::sync::Arc<choreo_engine::resource::ResourceTree> {
    std::sync::Arc::new(
        choreo_engine::resource::ResourceTree::new()
            .with_group("Head", &["HeadYaw", "HeadPitch"])
            .with_group("Left leg", &["LHipPitch", "LKneePitch"])
            .with_group("Right leg", &["RHipPitch", "RKneePitch"])
            .with_group("Legs", &["Left leg", "Right leg"])
            .with_group("All motors", &["Head", "Legs"]),
    )
}

/// How long [`run`] waits for the end (real time) before it calls the run hung.
const HANG: Duration = Duration::from_secs(120);

/// Loads and starts `xml` in virtual time; waits for the end (or idleness); stops it if it
/// did not finish; returns the outcome and the trace in short form.
pub fn run(xml: &str, host: NativeHost) -> (Outcome, Vec<String>) {
    run_with(xml, host, None)
}

/// [`run`] with a robot.
pub fn run_with(
    xml: &str,
    host: NativeHost,
    robot: Option<std::sync::Arc<dyn choreo_engine::Robot>>,
) -> (Outcome, Vec<String>) {
    let (outcome, events) = run_events(xml, host, robot);
    (outcome, events.iter().map(|e| e.short()).collect())
}

/// [`run_with`], returning the full events (with their times).
pub fn run_events(
    xml: &str,
    host: NativeHost,
    robot: Option<std::sync::Arc<dyn choreo_engine::Robot>>,
) -> (Outcome, Vec<choreo_engine::trace::Event>) {
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
            robot,
            resources: Some(test_tree()),
            ..Default::default()
        },
    )
    .expect("loads");
    engine.start();
    // A hang detector, not a speed limit: with both cores busy (two CPU-heavy tests side by
    // side), a loop of 10,000 worker hops takes 4-20 s instead of 0.15 s (reliability.md).
    let outcome = engine.wait(HANG);
    if outcome != Outcome::Finished {
        engine.stop();
        let _ = engine.wait(HANG);
    }
    drop(engine);
    (outcome, trace.events())
}

/// Loads `xml` in virtual time with `options` (its trace replaced by a fresh one, returned
/// too), not started: for tests that drive the engine themselves.
pub fn load_virtual(xml: &str, host: &NativeHost, options: Options) -> (Engine, Trace) {
    let x = choreo_xar::read_xar("t.xar", xml.as_bytes())
        .expect("test behavior reads")
        .value;
    let trace = Trace::new();
    let engine = Engine::load(
        &x,
        host,
        Options {
            virtual_time: true,
            trace: trace.clone(),
            resources: options.resources.clone().or_else(|| Some(test_tree())),
            ..options
        },
    )
    .expect("loads");
    (engine, trace)
}

/// A robot double for engine tests: ALMemory subscriptions, and `ALMemory.raiseEvent(key,
/// value)` / `insertData` delivering to the subscribers of `key`. Other calls are recorded and
/// return `None`. (The simulated robot proper lives in choreo-naoqi.)
#[derive(Default)]
pub struct TestRobot {
    subscribers: std::sync::Mutex<Vec<(String, u64, choreo_engine::MemorySink)>>,
    /// Every call, as `service.method(args)`.
    pub calls: std::sync::Mutex<Vec<String>>,
}

impl choreo_engine::Robot for TestRobot {
    fn call(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<Value, choreo_engine::RobotError> {
        let shown: Vec<String> = args.iter().map(ToString::to_string).collect();
        self.calls
            .lock()
            .unwrap()
            .push(format!("{service}.{method}({})", shown.join(", ")));
        if service == "ALMemory" && (method == "raiseEvent" || method == "insertData") {
            let key = match args.first() {
                Some(Value::String(k)) => k.clone(),
                _ => {
                    return Err(choreo_engine::RobotError::BadArguments(
                        "raiseEvent(key, value): key must be a string".into(),
                    ));
                }
            };
            let value = args.get(1).cloned().unwrap_or_default();
            let sinks: Vec<choreo_engine::MemorySink> = self
                .subscribers
                .lock()
                .unwrap()
                .iter()
                .filter(|(k, _, _)| *k == key)
                .map(|(_, _, s)| s.clone())
                .collect();
            for s in sinks {
                s(&key, value.clone());
            }
        }
        Ok(Value::None)
    }

    fn subscribe(
        &self,
        key: &str,
        id: u64,
        sink: choreo_engine::MemorySink,
    ) -> Result<(), choreo_engine::RobotError> {
        self.subscribers
            .lock()
            .unwrap()
            .push((key.to_string(), id, sink));
        Ok(())
    }

    fn unsubscribe(&self, id: u64) {
        self.subscribers
            .lock()
            .unwrap()
            .retain(|(_, i, _)| *i != id);
    }
}

/// Runs `xml` to its natural end with `options` (its trace replaced by a fresh one) and
/// returns every trace event; fails the test unless the behavior finishes.
pub fn run_to_end(
    xml: &str,
    host: NativeHost,
    options: Options,
) -> Vec<choreo_engine::trace::Event> {
    let x = choreo_xar::read_xar("t.xar", xml.as_bytes())
        .expect("test behavior reads")
        .value;
    let trace = Trace::new();
    let engine = Engine::load(
        &x,
        &host,
        Options {
            trace: trace.clone(),
            ..options
        },
    )
    .expect("loads");
    engine.start();
    assert_eq!(engine.wait(Duration::from_secs(20)), Outcome::Finished);
    drop(engine);
    trace.events()
}
