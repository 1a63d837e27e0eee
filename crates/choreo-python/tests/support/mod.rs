//! Helpers for the Python host's tests: behaviors as small XAR texts (choreo-testkit's
//! `xar_text`), Python box scripts, runs in virtual time, and a robot double with tasks.

pub mod corpus;
pub mod robot;

use std::sync::Arc;
use std::time::Duration;

use choreo_engine::{Engine, EngineError, Options, Outcome, Robot, Trace};
use choreo_python::{PythonHost, PythonOptions};

pub use choreo_testkit::xar_text::{PORTS, assert_in_order, behavior, boxed, link, pos};

/// A `script` element holding `code`.
pub fn script(code: &str) -> String {
    format!(r#"<script language="4"><content><![CDATA[{code}]]></content></script>"#)
}

/// A box with the standard ports, extra elements, a Python script and a flow diagram holding
/// `inner` (empty: a script box).
pub fn py_box(name: &str, id: i32, extra: &str, code: &str, inner: &str) -> String {
    boxed(name, id, &format!("{extra}{}", script(code)), inner)
}

/// Options for test runs: the behavior folder and package uid scripts see.
pub fn options() -> PythonOptions {
    PythonOptions {
        behavior_path: "/behaviors/test/".to_string(),
        package_uid: "test-package-0001".to_string(),
        behavior_relative_path: "behaviors/test".to_string(),
        robot_root: None,
        confinement: None,
    }
}

/// Loads `xml` with a Python host.
pub fn load(xml: &str, robot: Option<Arc<dyn Robot>>, trace: Trace) -> Result<Engine, EngineError> {
    load_with(
        xml,
        Options {
            trace,
            robot,
            ..Default::default()
        },
    )
}

/// [`load`] with `options` (virtual time and an hour's limit set).
pub fn load_with(xml: &str, engine: Options) -> Result<Engine, EngineError> {
    let x = choreo_xar::read_xar("t.xar", xml.as_bytes())
        .expect("test behavior reads")
        .value;
    Engine::load(
        &x,
        &PythonHost::new(options()),
        Options {
            virtual_time: true,
            time_limit: Some(Duration::from_secs(3600)),
            ..engine
        },
    )
}

/// Loads and starts `xml` in virtual time; waits for the end (or idleness); stops it if it
/// did not finish; returns the outcome and the trace in short form.
pub fn run(xml: &str) -> (Outcome, Vec<String>) {
    run_with(xml, None)
}

/// [`run`] with a robot.
pub fn run_with(xml: &str, robot: Option<Arc<dyn Robot>>) -> (Outcome, Vec<String>) {
    let (outcome, events) = run_events(xml, robot);
    (outcome, events.iter().map(|e| e.short()).collect())
}

/// [`run_with`], giving the whole events (with times).
pub fn run_events(
    xml: &str,
    robot: Option<Arc<dyn Robot>>,
) -> (Outcome, Vec<choreo_engine::trace::Event>) {
    let trace = Trace::new();
    let engine = load(xml, robot, trace.clone()).expect("loads");
    engine.start();
    let outcome = engine.wait(Duration::from_secs(60));
    if outcome != Outcome::Finished {
        engine.stop();
        let _ = engine.wait(Duration::from_secs(60));
    }
    drop(engine);
    (outcome, trace.events())
}

/// A behavior whose root holds one Python box "A" (standard ports plus `extra`) running
/// `code`, started by the root and stopping it: root.onStart → A.onStart, A.onStopped →
/// root.onStopped.
pub fn one_box(extra: &str, code: &str) -> String {
    behavior(&format!(
        "{}{}{}",
        py_box("A", 1, extra, code, ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ))
}

/// The messages box `path` logged, as `level: message`.
pub fn logs(trace: &[String], path: &str) -> Vec<String> {
    let prefix = format!("{path} log ");
    trace
        .iter()
        .filter_map(|l| l.strip_prefix(&prefix).map(ToString::to_string))
        .collect()
}

/// The error texts recorded for box `path`.
pub fn errors(trace: &[String], path: &str) -> Vec<String> {
    let prefix = format!("{path} err ");
    trace
        .iter()
        .filter_map(|l| l.strip_prefix(&prefix).map(ToString::to_string))
        .collect()
}
