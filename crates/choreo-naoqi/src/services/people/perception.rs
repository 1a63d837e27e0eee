//! ALFaceDetection and ALPeoplePerception: who the robot sees, as scenarios show it.
//!
//! ALFaceDetection is a vision extractor (`extractor.rs`) whose event, `FaceDetected`, comes
//! from scenarios with its real shape (`trackers/legacy.rs`). Tracking and recognition are enabled
//! unless set otherwise (`setTrackingEnabled`, `enableTracking`, ...: **inference** for the
//! defaults). The learned faces are a database of names: `learnFace(name)` adds the face in
//! view (`FaceDetected` holding a face now) and answers True, False when no face is in view
//! (as the stock Learn Face box's failure branch expects of a robot that sees nobody);
//! `reLearnFace` learns it again from scratch; `forgetPerson(name)` is False for a name not
//! learned; `getLearnedFacesList`, `clearDatabase`. The database lives as long as the
//! simulated robot (a real one keeps it on disk).
//!
//! ALPeoplePerception is an extractor whose population comes from scenarios: writing
//! `PeoplePerception/PeopleList` (the ids of the people around) makes the module raise
//! `PeoplePerception/JustArrived` for each new id and `PeoplePerception/JustLeft` for each
//! one gone, update `PeoplePerception/VisiblePeopleList` (everyone listed is in view) and
//! `NonVisiblePeopleList` (nobody), and raise `PeoplePerception/PopulationUpdated`; an event
//! of the world's that names a person puts them in the lists ([`shown`]). A
//! person's keys (`PeoplePerception/Person/<id>/PositionInTorsoFrame`, ...) are the
//! scenario's too. `resetPopulation()` empties the lists and removes those keys. Its settings
//! are kept and read back with the documented defaults (detection range 3.5 m, a person
//! forgotten after 10 s, a visible one after 2 s; body heights **inference**); fast mode off
//! turns the face and movement detections on, on turns them off, as documented.

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::extractor::Extractor;
use crate::robot::table::{Const, Op, Service};

/// ALFaceDetection as served.
pub(crate) const FACE: Service = Service {
    name: "ALFaceDetection",
    methods: &[
        (
            "setTrackingEnabled",
            Op::Set("TrackingEnabled", Const::None),
        ),
        ("enableTracking", Op::Set("TrackingEnabled", Const::None)),
        (
            "isTrackingEnabled",
            Op::Get("TrackingEnabled", Const::Bool(true)),
        ),
        (
            "setRecognitionEnabled",
            Op::Set("RecognitionEnabled", Const::None),
        ),
        (
            "enableRecognition",
            Op::Set("RecognitionEnabled", Const::None),
        ),
        (
            "isRecognitionEnabled",
            Op::Get("RecognitionEnabled", Const::Bool(true)),
        ),
        ("learnFace", Op::Own),
        ("reLearnFace", Op::Own),
        ("forgetPerson", Op::Own),
        ("getLearnedFacesList", Op::Own),
        ("clearDatabase", Op::Own),
    ],
    own: faces,
    extractor: Some(Extractor::vision(&["FaceDetected"])),
};

/// The people list: the ids of everyone around.
pub(crate) const PEOPLE_LIST: &str = "PeoplePerception/PeopleList";
const VISIBLE: &str = "PeoplePerception/VisiblePeopleList";
const NOT_VISIBLE: &str = "PeoplePerception/NonVisiblePeopleList";
const ARRIVED: &str = "PeoplePerception/JustArrived";
const LEFT: &str = "PeoplePerception/JustLeft";
const UPDATED: &str = "PeoplePerception/PopulationUpdated";

/// The lists a robot holds from boot, empty.
pub(crate) const LISTS: [&str; 3] = [PEOPLE_LIST, VISIBLE, NOT_VISIBLE];

/// The events ALPeoplePerception declares.
pub(crate) const EVENTS: [&str; 4] = [ARRIVED, LEFT, UPDATED, "PeoplePerception/PeopleDetected"];

/// ALPeoplePerception as served.
pub(crate) const PEOPLE: Service = Service {
    name: "ALPeoplePerception",
    methods: &[
        (
            "getMaximumDetectionRange",
            Op::Get("MaximumDetectionRange", Const::Float(3.5)),
        ),
        (
            "setMaximumDetectionRange",
            Op::Set("MaximumDetectionRange", Const::None),
        ),
        (
            "getTimeBeforePersonDisappears",
            Op::Get("TimeBeforePersonDisappears", Const::Float(10.0)),
        ),
        (
            "setTimeBeforePersonDisappears",
            Op::Set("TimeBeforePersonDisappears", Const::None),
        ),
        (
            "getTimeBeforeVisiblePersonDisappears",
            Op::Get("TimeBeforeVisiblePersonDisappears", Const::Float(2.0)),
        ),
        (
            "setTimeBeforeVisiblePersonDisappears",
            Op::Set("TimeBeforeVisiblePersonDisappears", Const::None),
        ),
        (
            "getMinimumBodyHeight",
            Op::Get("MinimumBodyHeight", Const::Float(0.5)),
        ),
        (
            "setMinimumBodyHeight",
            Op::Set("MinimumBodyHeight", Const::None),
        ),
        (
            "getMaximumBodyHeight",
            Op::Get("MaximumBodyHeight", Const::Float(2.5)),
        ),
        (
            "setMaximumBodyHeight",
            Op::Set("MaximumBodyHeight", Const::None),
        ),
        (
            "isFaceDetectionEnabled",
            Op::Get("FaceDetectionEnabled", Const::Bool(true)),
        ),
        (
            "setFaceDetectionEnabled",
            Op::Set("FaceDetectionEnabled", Const::None),
        ),
        (
            "isMovementDetectionEnabled",
            Op::Get("MovementDetectionEnabled", Const::Bool(true)),
        ),
        (
            "setMovementDetectionEnabled",
            Op::Set("MovementDetectionEnabled", Const::None),
        ),
        (
            "isGraphicalDisplayEnabled",
            Op::Get("GraphicalDisplayEnabled", Const::Bool(false)),
        ),
        (
            "setGraphicalDisplayEnabled",
            Op::Set("GraphicalDisplayEnabled", Const::None),
        ),
        (
            "isFastModeEnabled",
            Op::Get("FastModeEnabled", Const::Bool(false)),
        ),
        ("setFastModeEnabled", Op::Own),
        ("resetPopulation", Op::Own),
    ],
    own: population,
    extractor: Some(Extractor::plain(&[
        PEOPLE_LIST,
        VISIBLE,
        NOT_VISIBLE,
        ARRIVED,
        LEFT,
        UPDATED,
        "PeoplePerception/PeopleDetected",
    ])),
};

/// The learned faces: each name with how many times it was learned.
#[derive(Default)]
struct Faces {
    learned: std::collections::BTreeMap<String, u32>,
}

fn faces(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let name = FACE.name;
    let value = match method {
        "learnFace" | "reLearnFace" => {
            let person = a.str(0)?;
            let in_view = sim.memory.get("FaceDetected").is_some_and(|v| {
                crate::services::trackers::legacy::locate(
                    sim,
                    &crate::services::trackers::legacy::FACE_TARGET,
                    &v,
                    0.15,
                )
                .is_some()
            });
            let learned = in_view && !person.is_empty();
            if learned {
                sim.kept(name, |f: &mut Faces| {
                    let n = f.learned.entry(person.to_string()).or_default();
                    *n = if method == "reLearnFace" { 1 } else { *n + 1 };
                });
                sim.notice(name, format!("learned the face of {person}"));
            } else {
                sim.notice(name, format!("sees no face to learn as {person}"));
            }
            Value::Bool(learned)
        }
        "forgetPerson" => {
            let person = a.str(0)?;
            let known = sim.kept(name, |f: &mut Faces| f.learned.remove(person).is_some());
            if known {
                sim.notice(name, format!("forgot {person}"));
            }
            Value::Bool(known)
        }
        "getLearnedFacesList" => Value::List(sim.kept(name, |f: &mut Faces| {
            f.learned.keys().map(|n| Value::from(n.as_str())).collect()
        })),
        "clearDatabase" => {
            sim.kept(name, |f: &mut Faces| f.learned.clear());
            sim.notice(name, "cleared the face database".into());
            Value::Bool(true)
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

fn population(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let name = PEOPLE.name;
    match method {
        "setFastModeEnabled" => {
            let on = a.bool(0)?;
            sim.notice(name, format!("fast mode {}", if on { "on" } else { "off" }));
            sim.set_setting(name, "FastModeEnabled", Value::Bool(on));
            // The optional detections follow: off in fast mode, on without it.
            for detection in ["FaceDetectionEnabled", "MovementDetectionEnabled"] {
                sim.set_setting(name, detection, Value::Bool(!on));
            }
        }
        "resetPopulation" => {
            sim.notice(name, "resets the population".into());
            let prefix = "PeoplePerception/Person/";
            for key in sim
                .memory
                .all()
                .into_keys()
                .filter(|k| k.starts_with(prefix))
            {
                sim.memory.remove(&key);
            }
            for list in LISTS {
                sim.insert_quietly(list, Value::List(Vec::new()));
            }
        }
        _ => return Ok(Reply::NotServed),
    }
    Ok(Reply::Now(Value::None))
}

/// The ids of a people list value.
pub(crate) fn ids(value: &Value) -> Vec<i64> {
    match value {
        Value::List(ids) | Value::Tuple(ids) => {
            ids.iter().filter_map(number).map(|x| x as i64).collect()
        }
        _ => Vec::new(),
    }
}

/// The people around now.
pub(crate) fn around(sim: &Sim) -> Vec<i64> {
    sim.memory
        .get(PEOPLE_LIST)
        .map_or_else(Vec::new, |v| ids(&v))
}

/// Where person `id` is in FRAME_TORSO, if the scenario said.
pub(crate) fn position(sim: &Sim, id: i64) -> Option<[f64; 3]> {
    let key = format!("PeoplePerception/Person/{id}/PositionInTorsoFrame");
    let xs = sim.memory.get(&key)?;
    let xs = numbers(&xs)?;
    xs.try_into().ok()
}

fn numbers(v: &Value) -> Option<Vec<f64>> {
    match v {
        Value::List(xs) | Value::Tuple(xs) => xs.iter().map(number).collect(),
        _ => None,
    }
}

/// The people list changed (called by `reactions.rs`): who arrived and who left, the
/// visible lists.
pub(crate) fn population_changed(sim: &Sim, previous: Option<&Value>, value: &Value) {
    let before = previous.map_or_else(Vec::new, ids);
    let now = ids(value);
    sim.insert_quietly(VISIBLE, value.clone());
    sim.insert_quietly(NOT_VISIBLE, Value::List(Vec::new()));
    for id in now.iter().filter(|id| !before.contains(id)) {
        sim.raise_quietly(ARRIVED, Value::Int(*id));
    }
    for id in before.iter().filter(|id| !now.contains(id)) {
        sim.raise_quietly(LEFT, Value::Int(*id));
    }
    if before != now {
        sim.raise_quietly(UPDATED, value.clone());
    }
}

/// A person the world shows by an event that names them (`JustArrived`, ALBasicAwareness's
/// `HumanTracked`, `PeopleDetected`'s ids; called by `reactions.rs` before delivery) is
/// around: on a robot those events come from ALPeoplePerception's population, so the people
/// list holds them when box code looks (the stock Get Expression and Get Gender boxes read
/// `PeopleList` once `HumanTracked` comes). A face in view (`FaceDetected` holding one) is
/// someone too when nobody is around yet (ALPeoplePerception "gathers visual information
/// from RGB cameras": alpeopleperception.html), the person the world shows. Written
/// quietly: the event itself is what arrives.
pub(crate) fn shown(sim: &Sim, key: &str, value: &Value) {
    let named: Vec<i64> = match (key, value) {
        ("FaceDetected", Value::List(fields)) => {
            // `[TimeStamp, [FaceInfo..., Time_Filtered_Reco_Info], ...]`: the faces but the
            // last item (the stock Face Detection box counts `len(p[1]) - 1`).
            let faces = match fields.get(1) {
                Some(Value::List(items)) => items.len().saturating_sub(1),
                _ => 0,
            };
            if faces == 0 || !around(sim).is_empty() {
                return;
            }
            vec![crate::world_events::PERSON]
        }
        ("PeoplePerception/PeopleDetected", Value::List(fields)) => match fields.get(1) {
            Some(Value::List(people)) => people
                .iter()
                .filter_map(|p| match p {
                    Value::List(data) => data.first().and_then(number).map(|x| x as i64),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        },
        _ => number(value).map(|x| x as i64).into_iter().collect(),
    };
    let mut people = around(sim);
    let before = people.len();
    for id in named {
        if id >= 0 && !people.contains(&id) {
            people.push(id);
        }
    }
    if people.len() == before {
        return;
    }
    let list = Value::List(people.into_iter().map(Value::Int).collect());
    sim.insert_quietly(PEOPLE_LIST, list.clone());
    sim.insert_quietly(VISIBLE, list);
    sim.insert_quietly(NOT_VISIBLE, Value::List(Vec::new()));
}
