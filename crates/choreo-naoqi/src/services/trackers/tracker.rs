//! ALTracker: registered targets, the active one, the mode and the effector, kept and read
//! back (the NAOqi 2.x API, as the stock Trackers boxes of Choregraphe 2.1 call it).
//!
//! `registerTarget(name, parameter)` takes the supported targets (RedBall: diameter, Face:
//! width, LandMark: `[size, [ids]]`, LandMarks, People: `[ids]`, Sound: `[distance,
//! confidence]`); another name raises. `track(name)` needs a registered target; it makes it
//! the active target (`ALTracker/ActiveTargetChanged` with its name, when it changes) and
//! starts tracking; `trackEvent(event)` does so for a script's own event (its positions are
//! not read); `stopTracker()` stops and empties the active target (the event again, with
//! `""`). `setMode` takes Head, WholeBody, Move or Navigate, `setEffector` None, Arms, LArm
//! or RArm; another raises.
//!
//! The simulated robot sees what scenarios show: the detection events of the active target
//! (`redBallDetected`, `FaceDetected`, `LandmarkDetected`, `ALSoundLocalization/SoundLocated`,
//! ALPeoplePerception's `PeoplePerception/PeopleList` with the person's
//! `PeoplePerception/Person/<id>/PositionInTorsoFrame`), read as `trackers/legacy.rs` reads them.
//! While tracking, a target that appears is a new target (`isNewTargetDetected()` until read),
//! its position is kept (`getTargetPosition(frame)` in FRAME_TORSO, WORLD or ROBOT; `[]`
//! before any), the head turns toward it (and the effector's arm points at it); in Move and
//! Navigate modes the robot also walks to the relative position (`setRelativePosition([x, y,
//! θ, thresholdX, thresholdY, thresholdθ])`, where the robot stands from the target) and
//! raises `ALTracker/TargetReached` once there. A target that disappears (its event raised
//! empty, the person gone from the list) raises `ALTracker/TargetLost` (the target's name
//! **(inference)**). A robot that never sees its target never loses it: no TargetLost.
//! `lookAt` and `pointAt` move the head or a straight arm toward a point of FRAME_TORSO,
//! WORLD or ROBOT at the given fraction of the joints' speed, and return when there.

use std::collections::BTreeMap;
use std::sync::Arc;

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::Task;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};
use crate::services::motion::frames::{FRAME_TORSO, FRAME_WORLD, torso_in};
use crate::services::motion::orders::floats_value;
use crate::services::people::perception::PEOPLE_LIST;
use crate::services::trackers::legacy::{BALL, FACE_TARGET, LANDMARK, Target, item, locate, pose};

const NAME: &str = "ALTracker";

/// ALTracker as served.
pub(crate) const SERVICE: Service = Service {
    name: NAME,
    methods: &[
        ("registerTarget", Op::Own),
        ("unregisterTarget", Op::Own),
        ("unregisterTargets", Op::Own),
        ("unregisterAllTargets", Op::Own),
        ("getRegisteredTargets", Op::Own),
        ("getSupportedTargets", Op::Answer(Const::Strs(TARGETS))),
        ("track", Op::Own),
        ("trackEvent", Op::Own),
        ("stopTracker", Op::Own),
        ("getActiveTarget", Op::Own),
        ("isActive", Op::Own),
        ("isTargetLost", Op::Own),
        ("isNewTargetDetected", Op::Own),
        ("getTargetPosition", Op::Own),
        ("getRobotPosition", Op::Own),
        ("setMode", Op::Own),
        ("getMode", Op::Get("Mode", Const::Str("Head"))),
        ("getAvailableModes", Op::Answer(Const::Strs(MODES))),
        ("setEffector", Op::Own),
        ("getEffector", Op::Get("Effector", Const::Str("None"))),
        ("setRelativePosition", Op::Own),
        (
            "getRelativePosition",
            Op::Get("RelativePosition", Const::Floats(&[0.0; 6])),
        ),
        (
            "setTargetCoordinates",
            Op::Set("TargetCoordinates", Const::None),
        ),
        (
            "getTargetCoordinates",
            Op::Get("TargetCoordinates", Const::Strs(&[])),
        ),
        (
            "setMaximumDistanceDetection",
            Op::Set("MaximumDistanceDetection", Const::None),
        ),
        (
            "getMaximumDistanceDetection",
            Op::Get("MaximumDistanceDetection", Const::Float(MAXIMUM_DISTANCE)),
        ),
        ("setTimeOut", Op::Set("TimeOut", Const::None)),
        ("getTimeOut", Op::Get("TimeOut", Const::Int(TIMEOUT_MS))),
        ("toggleSearch", Op::Set("Search", Const::None)),
        ("isSearchEnabled", Op::Get("Search", Const::Bool(true))),
        ("setMoveConfig", Op::Set("MoveConfig", Const::None)),
        ("getMoveConfig", Op::Get("MoveConfig", Const::Strs(&[]))),
        ("lookAt", Op::Own),
        ("pointAt", Op::Own),
    ],
    own,
    extractor: None,
};

/// Its events, declared from boot.
pub(crate) const EVENTS: [&str; 3] = [
    "ALTracker/ActiveTargetChanged",
    "ALTracker/TargetLost",
    "ALTracker/TargetReached",
];

/// The targets ALTracker knows.
const TARGETS: &[&str] = &[
    "RedBall",
    "Face",
    "LandMark",
    "LandMarks",
    "People",
    "Sound",
];

/// Its modes.
const MODES: &[&str] = &["Head", "WholeBody", "Move", "Navigate"];

/// Its effectors.
const EFFECTORS: &[&str] = &["None", "Arms", "LArm", "RArm"];

/// The maximum distance of detection when never set, m **(inference)**.
const MAXIMUM_DISTANCE: f64 = 1.5;

/// The target search's timeout when never set, ms **(inference)**.
const TIMEOUT_MS: i64 = 2000;

/// How far a heard sound is when its target was registered without a distance, m
/// **(inference)**.
const SOUND_DISTANCE: f64 = 1.0;

/// What a detection event says of a target.
enum Sight {
    /// It is there (where, if the event says).
    Seen(Option<[f64; 3]>),
    /// It is not there any more.
    Gone,
    /// The event does not concern it (a sound heard with too little confidence).
    Ignored,
}

/// A target and the event that shows it.
struct Kind {
    name: &'static str,
    event: &'static str,
    /// Reads the event's value, with the target's registered parameter.
    read: fn(&Sim, &Value, &Value) -> Sight,
}

const SOUND_LOCATED: &str = "ALSoundLocalization/SoundLocated";

const KINDS: &[Kind] = &[
    Kind {
        name: "RedBall",
        event: "redBallDetected",
        read: |sim, v, p| image(sim, &BALL, v, number(p)),
    },
    Kind {
        name: "Face",
        event: "FaceDetected",
        read: |sim, v, p| image(sim, &FACE_TARGET, v, number(p)),
    },
    Kind {
        name: "LandMark",
        event: "LandmarkDetected",
        read: mark,
    },
    Kind {
        name: "LandMarks",
        event: "LandmarkDetected",
        read: mark,
    },
    Kind {
        name: "People",
        event: PEOPLE_LIST,
        read: people,
    },
    Kind {
        name: "Sound",
        event: SOUND_LOCATED,
        read: sound,
    },
];

/// A target in a camera image, `width` m wide (the target's usual width if not given).
fn image(sim: &Sim, target: &Target, value: &Value, width: Option<f64>) -> Sight {
    match locate(sim, target, value, width.unwrap_or(target.width)) {
        Some(s) => Sight::Seen(Some(s.position)),
        None => Sight::Gone,
    }
}

/// A NAO mark: registered as `[size, [ids]]` (LandMarks: a list of those), any mark of
/// those ids (any mark without ids).
fn mark(sim: &Sim, value: &Value, parameter: &Value) -> Sight {
    let entries: Vec<&Value> = match parameter {
        Value::List(items) | Value::Tuple(items)
            if items
                .first()
                .is_some_and(|e| matches!(e, Value::List(_) | Value::Tuple(_))) =>
        {
            items.iter().collect()
        }
        one => vec![one],
    };
    let size = entries.first().and_then(|e| item(e, 0)).and_then(number);
    let ids: Vec<f64> = entries
        .iter()
        .filter_map(|e| match item(e, 1) {
            Some(Value::List(ids) | Value::Tuple(ids)) => Some(ids.iter().filter_map(number)),
            _ => None,
        })
        .flatten()
        .collect();
    // The first mark's id: [time, [[shape, [id]], ...], ...].
    let id = item(value, 1)
        .and_then(|marks| item(marks, 0))
        .and_then(|m| item(m, 1))
        .and_then(|extra| item(extra, 0))
        .and_then(number);
    if !ids.is_empty() && id.is_some_and(|id| !ids.contains(&id)) {
        return Sight::Gone;
    }
    image(sim, &LANDMARK, value, size)
}

/// A person of the population: registered with `[ids]`, one of them (anyone without ids).
fn people(sim: &Sim, value: &Value, parameter: &Value) -> Sight {
    let wanted: Vec<f64> = match parameter {
        Value::List(ids) | Value::Tuple(ids) => ids.iter().filter_map(number).collect(),
        v => number(v).into_iter().collect(),
    };
    let present: Vec<f64> = match value {
        Value::List(ids) | Value::Tuple(ids) => ids.iter().filter_map(number).collect(),
        _ => Vec::new(),
    };
    let Some(id) = present
        .into_iter()
        .find(|id| wanted.is_empty() || wanted.contains(id))
    else {
        return Sight::Gone;
    };
    Sight::Seen(crate::services::people::perception::position(
        sim, id as i64,
    ))
}

/// A sound located `[time, [azimuth, elevation, confidence, energy], headPoseInTorso, ...]`,
/// registered as `[distance, confidence]`: at that distance in its direction from the head,
/// if heard with that confidence.
fn sound(sim: &Sim, value: &Value, parameter: &Value) -> Sight {
    let Some(located) = item(value, 1) else {
        return Sight::Gone;
    };
    let [azimuth, elevation, confidence] = [0, 1, 2].map(|i| item(located, i).and_then(number));
    let (Some(azimuth), Some(elevation)) = (azimuth, elevation) else {
        return Sight::Gone;
    };
    let distance = item(parameter, 0)
        .and_then(number)
        .unwrap_or(SOUND_DISTANCE);
    let threshold = item(parameter, 1).and_then(number).unwrap_or(0.0);
    if confidence.unwrap_or(1.0) < threshold {
        return Sight::Ignored;
    }
    let head = pose(item(value, 2)).map_or_else(
        || crate::services::motion::gaze::camera(sim),
        crate::services::core::world::Transform::of,
    );
    let direction = [
        azimuth.cos() * elevation.cos(),
        azimuth.sin() * elevation.cos(),
        elevation.sin(),
    ];
    Sight::Seen(Some(head.apply(direction.map(|d| d * distance))))
}

/// What the tracker keeps.
#[derive(Default)]
struct Tracker {
    /// Registered targets and their parameters.
    targets: BTreeMap<String, Value>,
    /// The active target ("" when none).
    active: String,
    /// Whether it tracks.
    tracking: bool,
    /// Whether the active target is in view.
    visible: bool,
    /// A target appeared since `isNewTargetDetected` last said so.
    new_target: bool,
    /// Where the active target was last seen, FRAME_WORLD.
    position: Option<[f64; 3]>,
    /// The walk to the relative position (Move and Navigate modes), and its number.
    walk: Option<Arc<Task>>,
    walks: u64,
    /// The relative position was reached since the target was last seen elsewhere.
    reached: bool,
}

fn with<R>(sim: &Sim, f: impl FnOnce(&mut Tracker) -> R) -> R {
    sim.kept(NAME, f)
}

fn strings<'a>(v: impl IntoIterator<Item = &'a String>) -> Value {
    Value::List(v.into_iter().map(|s| Value::from(s.as_str())).collect())
}

fn text(sim: &Sim, setting: &str, default: &str) -> String {
    match sim.setting(NAME, setting) {
        Some(Value::String(s)) => s,
        _ => default.to_string(),
    }
}

/// Argument `i` as a position `[x, y, z]` in the frame of argument `frame` (FRAME_TORSO if
/// `None`), brought to FRAME_TORSO.
fn point(sim: &Sim, a: &Args<'_>, i: usize, frame: Option<usize>) -> Result<[f64; 3], CallError> {
    let p: [f64; 3] = a
        .floats(i)?
        .try_into()
        .map_err(|_| a.bad(i, "a position [x, y, z]"))?;
    let Some(f) = frame else {
        return Ok(p);
    };
    let torso = torso_in(sim, a.int(f)?)
        .ok_or_else(|| a.bad(f, "a frame: 0 (torso), 1 (world) or 2 (robot)"))?;
    Ok(torso.inverse().apply(p))
}

/// A speed fraction argument, in ]0, 1].
fn fraction(a: &Args<'_>, i: usize) -> Result<f64, CallError> {
    let x = a.f64(i)?;
    if x > 0.0 && x <= 1.0 {
        Ok(x)
    } else {
        Err(a.bad(i, "a fraction of the maximum speed in ]0, 1]"))
    }
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "registerTarget" => {
            let name = a.one_of(0, "a supported target", TARGETS)?;
            let parameter = a.value(1);
            if matches!(name, "RedBall" | "Face") && number(&parameter).is_none() {
                return Err(a.bad(1, "the target's size in metres"));
            }
            sim.notice(NAME, format!("registers the {name} target ({parameter})"));
            with(sim, |t| t.targets.insert(name.to_string(), parameter));
            Value::None
        }
        "unregisterTarget" | "unregisterTargets" | "unregisterAllTargets" => {
            let names = match method {
                "unregisterAllTargets" => with(sim, |t| t.targets.keys().cloned().collect()),
                _ => a.names(0)?,
            };
            for name in &names {
                let active = with(sim, |t| {
                    t.targets.remove(name);
                    t.active == *name
                });
                if active {
                    stop(sim);
                }
            }
            sim.notice(NAME, format!("unregisters {}", names.join(", ")));
            Value::None
        }
        "getRegisteredTargets" => with(sim, |t| strings(t.targets.keys())),
        "track" => {
            let name = a.str(0)?;
            if !with(sim, |t| t.targets.contains_key(name)) {
                return Err(CallError::Failed(format!(
                    "{}: the {name:?} target is not registered (registerTarget first)",
                    a.name
                )));
            }
            start(sim, name);
            Value::None
        }
        "trackEvent" => {
            start(sim, a.str(0)?);
            Value::None
        }
        "stopTracker" => {
            stop(sim);
            Value::None
        }
        "getActiveTarget" => with(sim, |t| Value::from(t.active.as_str())),
        "isActive" => Value::Bool(with(sim, |t| t.tracking)),
        "isTargetLost" => Value::Bool(with(sim, |t| !t.visible)),
        "isNewTargetDetected" => Value::Bool(with(sim, |t| std::mem::take(&mut t.new_target))),
        "getTargetPosition" => {
            let frame = if a.len() > 0 { a.int(0)? } else { FRAME_TORSO };
            let here = torso_in(sim, frame)
                .ok_or_else(|| a.bad(0, "a frame: 0 (torso), 1 (world) or 2 (robot)"))?;
            match (with(sim, |t| t.position), torso_in(sim, FRAME_WORLD)) {
                (Some(p), Some(world)) => floats_value(here.apply(world.inverse().apply(p))),
                _ => Value::List(Vec::new()),
            }
        }
        "getRobotPosition" => {
            // The robot's place read from the LandMarks it sees; none otherwise.
            if with(sim, |t| t.tracking && t.visible && t.active == "LandMarks") {
                floats_value(sim.state().body.position(sim.now()))
            } else {
                Value::List(Vec::new())
            }
        }
        "setMode" | "setEffector" => {
            let (setting, what, allowed) = if method == "setMode" {
                ("Mode", "mode", MODES)
            } else {
                ("Effector", "effector", EFFECTORS)
            };
            let name = a.one_of(0, &format!("a {what}"), allowed)?;
            sim.notice(NAME, format!("{what} {name}"));
            sim.set_setting(NAME, setting, Value::from(name));
            Value::None
        }
        "setRelativePosition" => {
            let xs = a.floats(0)?;
            if !matches!(xs.len(), 3 | 6) {
                return Err(a.bad(
                    0,
                    "[x, y, θ] or [x, y, θ, thresholdX, thresholdY, thresholdθ]",
                ));
            }
            let value = floats_value(xs);
            sim.notice(NAME, format!("relative position {value}"));
            sim.set_setting(NAME, "RelativePosition", value);
            Value::None
        }
        "lookAt" | "pointAt" => return aim(sim, method, a),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// `lookAt(position, [frame,] fraction, wholeBody)`, `pointAt(effector, position, [frame,]
/// fraction)`: the head or an arm moves there; the call returns when it has.
fn aim(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let look = method == "lookAt";
    let first = usize::from(!look);
    // The overloads with a frame have four arguments, the others three.
    let framed = a.len() == 4;
    let frame = framed.then_some(first + 1);
    let p = point(sim, a, first, frame)?;
    let speed = fraction(a, first + 1 + usize::from(framed))?;
    let shown = floats_value(p);
    if look {
        a.bool(a.len().saturating_sub(1))?;
        sim.notice(NAME, format!("looks at {shown} (torso frame)"));
        crate::services::motion::gaze::look(sim, p, speed, true)
    } else {
        let effector = a.one_of(0, "a pointing effector", &EFFECTORS[1..])?;
        let arm = crate::services::motion::gaze::arm_for(effector, p);
        sim.notice(NAME, format!("points {arm} at {shown} (torso frame)"));
        crate::services::motion::gaze::point(sim, arm, p, speed, true)
    }
}

/// Makes `name` the active target and tracks it; what the robot sees of it now counts.
fn start(sim: &Sim, name: &str) {
    let changed = with(sim, |t| {
        t.tracking = true;
        let changed = t.active != name;
        if changed {
            t.active = name.to_string();
            t.visible = false;
            t.new_target = false;
            t.position = None;
            t.reached = false;
        }
        changed
    });
    sim.notice(NAME, format!("tracks {name}"));
    if changed {
        sim.raise("ALTracker/ActiveTargetChanged", Value::from(name));
    }
    if let Some(kind) = KINDS.iter().find(|k| k.name == name)
        && let Some(value) = sim.memory.get(kind.event)
    {
        consider(sim, kind, &value);
    }
}

/// Stops tracking: no active target.
fn stop(sim: &Sim) {
    let (was, walk) = with(sim, |t| {
        t.tracking = false;
        t.visible = false;
        (std::mem::take(&mut t.active), t.walk.take())
    });
    if let Some(walk) = walk {
        sim.stop_task(&walk);
    }
    sim.notice(NAME, "stops tracking".into());
    if !was.is_empty() {
        sim.raise("ALTracker/ActiveTargetChanged", Value::from(""));
    }
}

/// A detection event (called by `reactions.rs`): what it shows of the active target.
pub(crate) fn seen(sim: &Sim, key: &str, value: &Value) {
    let active = with(sim, |t| t.tracking.then(|| t.active.clone()));
    if let Some(kind) = active.and_then(|name| {
        KINDS
            .iter()
            .find(|k| k.event == key && k.name == name.as_str())
    }) {
        consider(sim, kind, value);
    }
}

fn consider(sim: &Sim, kind: &Kind, value: &Value) {
    let parameter = with(sim, |t| t.targets.get(kind.name).cloned()).unwrap_or_default();
    match (kind.read)(sim, value, &parameter) {
        Sight::Ignored => {}
        Sight::Gone => {
            let lost = with(sim, |t| {
                t.reached = false;
                std::mem::replace(&mut t.visible, false)
            });
            if lost {
                sim.notice(NAME, format!("lost the {}", kind.name));
                sim.raise("ALTracker/TargetLost", Value::from(kind.name));
            }
        }
        Sight::Seen(at) => {
            let world = at.zip(torso_in(sim, FRAME_WORLD)).map(|(p, w)| w.apply(p));
            let appeared = with(sim, |t| {
                let appeared = !t.visible;
                t.visible = true;
                t.new_target |= appeared;
                if world.is_some() {
                    t.position = world;
                }
                appeared
            });
            if appeared {
                sim.notice(NAME, format!("sees the {}", kind.name));
            }
            if let Some(p) = at {
                follow(sim, kind.name, p);
            }
        }
    }
}

/// Turns toward a target seen at `p` (FRAME_TORSO): the head, the effector's arm, and in
/// Move and Navigate modes the robot itself.
fn follow(sim: &Sim, name: &'static str, p: [f64; 3]) {
    let speed = crate::services::trackers::legacy::HEAD_SPEED;
    // A joint without stiffness stays where it is; nothing else can fail here.
    let _ = crate::services::motion::gaze::look(sim, p, speed, false);
    let effector = text(sim, "Effector", "None");
    if effector != "None" {
        let _ = crate::services::motion::gaze::point(
            sim,
            crate::services::motion::gaze::arm_for(&effector, p),
            p,
            speed,
            false,
        );
    }
    if matches!(text(sim, "Mode", "Head").as_str(), "Move" | "Navigate") {
        approach(sim, name, p);
    }
}

/// Walks to where the relative position puts the robot from target `name` at `p`; raises
/// TargetReached (its name **(inference)**) there, at once if it is there already.
fn approach(sim: &Sim, name: &'static str, p: [f64; 3]) {
    let r: Vec<f64> = match sim.setting(NAME, "RelativePosition") {
        Some(Value::List(xs)) => xs.iter().filter_map(number).collect(),
        _ => Vec::new(),
    };
    let at = |i: usize| r.get(i).copied().unwrap_or(0.0);
    let (dx, dy) = (p[0] + at(0), p[1] + at(1));
    // Facing the target from the relative position, turned by its θ.
    let facing = if at(0) == 0.0 && at(1) == 0.0 {
        p[1].atan2(p[0])
    } else {
        (-at(1)).atan2(-at(0))
    };
    let dth = facing + at(2);
    if dx.abs() <= at(3) && dy.abs() <= at(4) && dth.abs() <= at(5) {
        if !with(sim, |t| std::mem::replace(&mut t.reached, true)) {
            sim.raise("ALTracker/TargetReached", Value::from(name));
        }
        return;
    }
    let plan = crate::services::motion::walks::walk(
        sim,
        "ALTracker.track",
        [dx, dy, dth],
        dx.hypot(dy),
        None,
    );
    let task = sim.start_task(NAME, "track", &[], plan);
    let number = with(sim, |t| {
        t.reached = false;
        t.walks += 1;
        t.walk = Some(Arc::clone(&task));
        t.walks
    });
    let done = move |sim: &Sim, arrived: Value| {
        let current = with(sim, |t| {
            let current = t.walks == number && t.tracking;
            if current {
                t.walk = None;
                t.reached = arrived == Value::Bool(true);
            }
            current && t.reached
        });
        if current {
            sim.raise("ALTracker/TargetReached", Value::from(name));
        }
    };
    if let Err(e) = sim.drive_in_background("ALTracker walk", task, done) {
        sim.script_error(format!("ALTracker: {e}"));
    }
}
