//! Modules served as "recorded, no effect" (naoqi-services.md §6 item 14, §3.13): calls are
//! counted in [`crate::CallStats::recorded_only`] and answered with what a robot without the
//! hardware or the situation would answer. Settings are kept: `set<Name>(..., value)`
//! stores its last argument, `get<Name>()`/`is<Name>()` reads it back.

use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::args::Args;
use crate::kept::stem;
use crate::sim::{NAOQI_VERSION, Reply, Sim};
use crate::tasks::Plan;
use crate::trajectory::after;

/// What a recorded method answers.
#[derive(Debug, Clone, Copy)]
enum Ret {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'static str),
    Strs(&'static [&'static str]),
    Floats(&'static [f64]),
    /// Blocks for this many seconds (ALTracker.lookAt, pointAt: §5).
    Block(f64),
    /// DCM time in ms, plus the argument.
    Time,
    /// Stores the last argument under the name without `set`.
    Set,
    /// Reads what `Set` stored under the name without `get`/`is`, or the default.
    Get(&'static Ret),
}

use Ret::{Block, Bool, Floats, Get, Int, Set, Str, Strs};

#[rustfmt::skip]
const MODULES: &[(&str, &[(&str, Ret)])] = &[
    ("ALTracker", &[
        ("registerTarget", Ret::None), ("unregisterTarget", Ret::None),
        ("unregisterAllTargets", Ret::None), ("track", Ret::None), ("stopTracker", Ret::None),
        ("setMode", Set), ("getMode", Get(&Str("Head"))),
        ("setEffector", Set), ("getEffector", Get(&Str("None"))),
        ("setRelativePosition", Set), ("getRelativePosition", Get(&Floats(&[0.0; 6]))),
        ("setMaximumDistanceDetection", Set), ("getMaximumDistanceDetection", Get(&Ret::Float(1.5))),
        ("lookAt", Block(1.0)), ("pointAt", Block(1.0)),
        ("isActive", Bool(false)), ("isTargetLost", Bool(true)), ("getActiveTarget", Str("")),
        ("getTargetPosition", Floats(&[0.0, 0.0, 0.0])),
        ("setTargetCoordinates", Set), ("getTargetCoordinates", Get(&Strs(&[]))),
    ]),
    ("ALBasicAwareness", &[
        ("startAwareness", Ret::None), ("stopAwareness", Ret::None),
        ("pauseAwareness", Ret::None), ("resumeAwareness", Ret::None),
        ("setEngagementMode", Set), ("getEngagementMode", Get(&Str("Unengaged"))),
        ("setTrackingMode", Set), ("getTrackingMode", Get(&Str("Head"))),
        ("setStimulusDetectionEnabled", Set), ("isStimulusDetectionEnabled", Get(&Bool(true))),
        ("setEnabled", Set), ("isEnabled", Get(&Bool(false))),
    ]),
    ("ALAutonomousLife", &[
        ("setState", Set), ("getState", Get(&Str("disabled"))),
        ("setSafeguardEnabled", Set), ("setAutonomousAbilityEnabled", Set),
        ("getAutonomousAbilityEnabled", Get(&Bool(false))),
    ]),
    ("ALAudioDevice", &[
        ("setOutputVolume", Set), ("getOutputVolume", Get(&Int(60))),
        ("startMicrophonesRecording", Ret::None), ("stopMicrophonesRecording", Ret::None),
    ]),
    ("ALFaceDetection", &[
        ("learnFace", Bool(true)), ("reLearnFace", Bool(true)), ("forgetPerson", Bool(true)),
        ("clearDatabase", Bool(true)), ("getLearnedFacesList", Strs(&[])),
        ("setTrackingEnabled", Set), ("isTrackingEnabled", Get(&Bool(true))),
        ("setRecognitionEnabled", Set), ("isRecognitionEnabled", Get(&Bool(true))),
    ]),
    ("DCM", &[("getTime", Ret::Time), ("set", Ret::None)]),
    ("ALSystem", &[
        ("systemVersion", Str(NAOQI_VERSION)), ("robotName", Str(ROBOT_NAME)),
        ("shutdown", Ret::None), ("reboot", Ret::None),
    ]),
];

/// Settings kept per module.
#[derive(Default)]
pub(crate) struct Settings {
    by_service: BTreeMap<String, BTreeMap<String, Value>>,
}

/// Whether `service` is one of the recorded modules.
pub(crate) fn is_recorded(service: &str) -> bool {
    MODULES.iter().any(|(s, _)| *s == service)
}

fn value(r: Ret) -> Value {
    match r {
        Ret::Bool(b) => Value::Bool(b),
        Ret::Int(i) => Value::Int(i),
        Ret::Float(x) => Value::Float(x),
        Ret::Str(s) => Value::from(s),
        Ret::Strs(v) => Value::List(v.iter().map(|s| Value::from(*s)).collect()),
        Ret::Floats(v) => Value::List(v.iter().map(|x| Value::Float(*x)).collect()),
        _ => Value::None,
    }
}

/// A state-only setting in `map` with a boolean default (see [`crate::kept::setting`]).
pub(crate) fn setting(
    map: &mut BTreeMap<String, Value>,
    method: &str,
    a: &Args<'_>,
    defaults: &[(&str, bool)],
) -> Option<Result<Value, String>> {
    crate::kept::setting(map, method, a, |name| {
        defaults
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| Value::Bool(*d))
    })
}

/// Serves the recorded modules.
pub(crate) fn serve(sim: &Sim, service: &str, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    let Some((_, ret)) = MODULES
        .iter()
        .find(|(s, _)| *s == service)
        .and_then(|(_, methods)| methods.iter().find(|(m, _)| *m == method))
    else {
        return Ok(Reply::NotServed);
    };
    Ok(match *ret {
        Ret::Block(seconds) => Reply::Timed(Plan::until(after(sim.now(), seconds))),
        Ret::Time => {
            let offset = if a.len() > 0 { a.int(0)? } else { 0 };
            Reply::Now(Value::Int((sim.now().0 / 1_000_000) as i64 + offset))
        }
        Ret::Set => {
            let Some(last) = a.values.last() else {
                return Err(a.bad(0, "a value"));
            };
            sim.state()
                .recorded
                .by_service
                .entry(service.to_string())
                .or_default()
                .insert(stem(method).to_string(), last.clone());
            Reply::Now(Value::None)
        }
        Ret::Get(default) => Reply::Now(
            sim.state()
                .recorded
                .by_service
                .get(service)
                .and_then(|m| m.get(stem(method)))
                .cloned()
                .unwrap_or_else(|| value(*default)),
        ),
        r => Reply::Now(value(r)),
    })
}

/// The simulated robot's name (`ALSystem.robotName`, ALMemory's
/// `Device/DeviceList/ChestBoard/BodyNickName`).
pub(crate) const ROBOT_NAME: &str = "choreo-sim";
