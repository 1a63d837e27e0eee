//! The `choreo` command as the CLI tests run it: in the workspace, output captured.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace's folder (relative paths in the tests start there).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `choreo stack run` of the example stack in virtual time with its scenario (a head touch
/// at 6 s): the arguments, to which a test adds its own.
pub const STACK_EXAMPLE: &[&str] = &[
    "stack",
    "run",
    "examples/stack",
    "--fast",
    "--events",
    "examples/stack/touch.yaml",
];

/// `choreo ARGS` in the workspace, run to its end.
pub fn choreo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("choreo runs")
}

/// Its standard output, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Its standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Its standard output and standard error, as text.
pub fn text(o: &Output) -> (String, String) {
    (stdout(o), stderr(o))
}

/// The events of a trace file (JSON Lines) as JSON values.
pub fn trace_events(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Per box path of the trace: how many `new`, `del`, `onLoad` calls and `onUnload` calls.
pub fn lifecycle(events: &[serde_json::Value]) -> BTreeMap<String, [usize; 4]> {
    let mut out: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for e in events {
        let slot = match (e["event"].as_str(), e["hook"].as_str()) {
            (Some("new"), _) => 0,
            (Some("del"), _) => 1,
            (Some("call"), Some("onLoad")) => 2,
            (Some("call"), Some("onUnload")) => 3,
            _ => continue,
        };
        let path = e["path"].as_str().unwrap_or_default().to_string();
        out.entry(path).or_default()[slot] += 1;
    }
    out
}

/// A behavior whose one timeline moves `curves` (joint, [(frame, degrees)] with straight
/// segments) at 25 fps.
pub fn timeline_behavior(curves: &[(&str, &[(i32, f64)])]) -> String {
    let key = |f: i32, v: f64| {
        format!(
            r#"<Key frame="{f}" value="{v}"><Tangent side="left" interpType="linear" abscissaParam="0" ordinateParam="0"/><Tangent side="right" interpType="linear" abscissaParam="0" ordinateParam="0"/></Key>"#
        )
    };
    let curves: String = curves
        .iter()
        .map(|(joint, keys)| {
            let keys: String = keys.iter().map(|&(f, v)| key(f, v)).collect();
            format!(r#"<ActuatorCurve name="v" actuator="{joint}" mute="0" unit="0">{keys}</ActuatorCurve>"#)
        })
        .collect();
    let ports = r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/><Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/><Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/><Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>"#;
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?><ChoregrapheProject xar_version="3"><Box name="root" id="-1">{ports}<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram><Box name="Lean" id="1">{ports}<Timeline enable="1" fps="25" start_frame="1" end_frame="-1" size="101"><ActuatorList model="nao">{curves}</ActuatorList></Timeline></Box><Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/></Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#
    )
}
