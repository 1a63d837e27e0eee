//! ALBasicAwareness: the robot turns to stimuli and engages the people it finds there
//! (doc.aldebaran.com 2-5 and 2-8, "ALBasicAwareness").
//!
//! Kept and read back: enabled (`setEnabled`/`isEnabled`, and the 2.1 names
//! `startAwareness`/`stopAwareness`/`isAwarenessRunning`), paused (`pauseAwareness`,
//! `resumeAwareness`, `isAwarenessPaused`), running (`isRunning`: enabled and not paused),
//! the engagement mode (Unengaged, SemiEngaged, FullyEngaged) and the tracking mode (Head,
//! BodyRotation, WholeBody, MoveContextually), each stimulus type's detection (People, Touch,
//! TabletTouch, Sound, Movement, NavigationMotion: every one on but NavigationMotion
//! **(inference)**), parameters (`setParameter`, `getParameter`: one never set raises,
//! `resetAllParameters`). A name none of these lists has raises.
//!
//! While it runs, the stimuli come from what the robot perceives, that is, from scenarios:
//! People (someone new in ALPeoplePerception's `PeoplePerception/PeopleList`), Touch (a
//! touch sensor pressed), Sound (`ALSoundLocalization/SoundLocated`), Movement
//! (`MovementDetection/MovementDetected`). An enabled stimulus raises
//! `ALBasicAwareness/StimulusDetected` with its type; the robot then checks for a human:
//! the person who arrived, or the first one in the people list, is engaged
//! (`ALBasicAwareness/HumanTracked` with the id; the head turns to the person when the
//! scenario gives `PeoplePerception/Person/<id>/PositionInTorsoFrame`), and nobody there is
//! `HumanTracked` -1. Engaged, the robot keeps its person in FullyEngaged mode (stimuli
//! ignored) and SemiEngaged mode (it glances and comes back), and in Unengaged mode follows
//! a stimulus to another person. When the engaged person leaves the list,
//! `ALBasicAwareness/HumanLost` (with the id **(inference)**), then the next person around
//! is engaged. `engagePerson(id)` engages someone in the list; `triggerStimulus([x, y, z])`
//! (FRAME_WORLD) turns the head there and answers the id engaged, or -1.

use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};

const NAME: &str = "ALBasicAwareness";

/// ALBasicAwareness as served.
pub(crate) const SERVICE: Service = Service {
    name: NAME,
    methods: &[
        ("setEnabled", Op::Own),
        ("isEnabled", Op::Own),
        ("isRunning", Op::Own),
        ("startAwareness", Op::Own),
        ("stopAwareness", Op::Own),
        ("isAwarenessRunning", Op::Own),
        ("pauseAwareness", Op::Own),
        ("resumeAwareness", Op::Own),
        ("isAwarenessPaused", Op::Own),
        ("setStimulusDetectionEnabled", Op::Own),
        ("isStimulusDetectionEnabled", Op::Own),
        ("setEngagementMode", Op::Own),
        (
            "getEngagementMode",
            Op::Get("EngagementMode", Const::Str(ENGAGEMENT[0])),
        ),
        ("setTrackingMode", Op::Own),
        (
            "getTrackingMode",
            Op::Get("TrackingMode", Const::Str(TRACKING[0])),
        ),
        ("setParameter", Op::Own),
        ("getParameter", Op::Own),
        ("resetAllParameters", Op::Own),
        ("engagePerson", Op::Own),
        ("triggerStimulus", Op::Own),
    ],
    own,
    extractor: None,
};

/// The engagement modes, the default first.
const ENGAGEMENT: &[&str] = &["Unengaged", "SemiEngaged", "FullyEngaged"];

/// The tracking modes, the default first.
const TRACKING: &[&str] = &["Head", "BodyRotation", "WholeBody", "MoveContextually"];

/// The stimulus types and whether each is detected unless set.
const STIMULI: &[(&str, bool)] = &[
    ("People", true),
    ("Touch", true),
    ("TabletTouch", true),
    ("Sound", true),
    ("Movement", true),
    ("NavigationMotion", false),
];

const STIMULUS: &str = "ALBasicAwareness/StimulusDetected";
const TRACKED: &str = "ALBasicAwareness/HumanTracked";
const LOST: &str = "ALBasicAwareness/HumanLost";

/// Its events, declared from boot.
pub(crate) const EVENTS: [&str; 3] = [STIMULUS, TRACKED, LOST];

/// What it keeps.
#[derive(Default)]
struct Awareness {
    enabled: bool,
    paused: bool,
    /// The stimulus types set (the others have their default).
    stimuli: BTreeMap<String, bool>,
    /// The person engaged.
    engaged: Option<i64>,
}

impl Awareness {
    fn detects(&self, kind: &str) -> bool {
        self.stimuli.get(kind).copied().unwrap_or_else(|| {
            STIMULI
                .iter()
                .find(|(k, _)| *k == kind)
                .is_some_and(|(_, d)| *d)
        })
    }
}

fn with<R>(sim: &Sim, f: impl FnOnce(&mut Awareness) -> R) -> R {
    sim.kept(NAME, f)
}

/// Whether it is enabled.
pub(crate) fn enabled(sim: &Sim) -> bool {
    with(sim, |a| a.enabled)
}

/// Whether it runs: enabled and not paused.
pub(crate) fn running(sim: &Sim) -> bool {
    with(sim, |a| a.enabled && !a.paused)
}

/// Enables or disables it (ALAutonomousLife does too); enabled, it looks at who is around.
pub(crate) fn set_enabled(sim: &Sim, on: bool) {
    let changed = with(sim, |a| {
        if !on {
            a.engaged = None;
        }
        std::mem::replace(&mut a.enabled, on) != on
    });
    if changed {
        sim.notice(NAME, if on { "enabled" } else { "disabled" }.into());
        if on {
            people_around(sim);
        }
    }
}

/// Back to its defaults (ALAutonomousLife's solitary state resets it).
pub(crate) fn reset(sim: &Sim) {
    with(sim, |a| {
        a.stimuli.clear();
        a.paused = false;
    });
    sim.set_setting(NAME, "EngagementMode", Value::from(ENGAGEMENT[0]));
    sim.set_setting(NAME, "TrackingMode", Value::from(TRACKING[0]));
    crate::robot::table::reset_parameters(sim, NAME);
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let stimuli: Vec<&str> = STIMULI.iter().map(|(k, _)| *k).collect();
    let value = match method {
        "setEnabled" => {
            set_enabled(sim, a.bool(0)?);
            Value::None
        }
        "startAwareness" | "stopAwareness" => {
            set_enabled(sim, method == "startAwareness");
            Value::None
        }
        "isEnabled" => Value::Bool(enabled(sim)),
        "isRunning" | "isAwarenessRunning" => Value::Bool(running(sim)),
        "pauseAwareness" | "resumeAwareness" => {
            let pause = method == "pauseAwareness";
            with(sim, |a| a.paused = pause);
            sim.notice(NAME, if pause { "paused" } else { "resumed" }.into());
            Value::None
        }
        "isAwarenessPaused" => Value::Bool(with(sim, |a| a.paused)),
        "setStimulusDetectionEnabled" => {
            let kind = a.one_of(0, "a stimulus type", &stimuli)?;
            let on = a.bool(1)?;
            with(sim, |a| a.stimuli.insert(kind.to_string(), on));
            sim.notice(
                NAME,
                format!("{kind} stimulus {}", if on { "on" } else { "off" }),
            );
            Value::None
        }
        "isStimulusDetectionEnabled" => {
            let kind = a.one_of(0, "a stimulus type", &stimuli)?;
            Value::Bool(with(sim, |a| a.detects(kind)))
        }
        "setEngagementMode" | "setTrackingMode" => {
            let (setting, what, allowed) = if method == "setEngagementMode" {
                ("EngagementMode", "an engagement mode", ENGAGEMENT)
            } else {
                ("TrackingMode", "a tracking mode", TRACKING)
            };
            let mode = a.one_of(0, what, allowed)?;
            sim.notice(NAME, format!("{setting} {mode}"));
            sim.set_setting(NAME, setting, Value::from(mode));
            Value::None
        }
        "setParameter" | "getParameter" => {
            return crate::robot::table::parameter(sim, NAME, method, a);
        }
        "resetAllParameters" => {
            crate::robot::table::reset_parameters(sim, NAME);
            sim.notice(NAME, "parameters reset".into());
            Value::None
        }
        "engagePerson" => {
            let id = a.int(0)?;
            let possible =
                enabled(sim) && crate::services::people::perception::around(sim).contains(&id);
            if possible {
                engage(sim, id);
            }
            Value::Bool(possible)
        }
        "triggerStimulus" => {
            let p: [f64; 3] = a
                .floats(0)?
                .try_into()
                .map_err(|_| a.bad(0, "a position [x, y, z] (FRAME_WORLD)"))?;
            let world = crate::services::motion::frames::torso_in(
                sim,
                crate::services::motion::frames::FRAME_WORLD,
            )
            .unwrap_or_else(crate::services::core::world::Transform::identity);
            // The head turns there; a joint without stiffness stays put.
            let _ = crate::services::motion::gaze::look(
                sim,
                world.inverse().apply(p),
                crate::services::trackers::legacy::HEAD_SPEED,
                false,
            );
            let found = crate::services::people::perception::around(sim)
                .first()
                .copied();
            match found {
                Some(id) if running(sim) => {
                    engage(sim, id);
                    Value::Int(id)
                }
                _ => Value::Int(-1),
            }
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// The engagement mode now.
fn engagement(sim: &Sim) -> String {
    match sim.setting(NAME, "EngagementMode") {
        Some(Value::String(m)) => m,
        _ => ENGAGEMENT[0].to_string(),
    }
}

/// Engages person `id`: HumanTracked, and the head turns to where the person is, if known.
fn engage(sim: &Sim, id: i64) {
    with(sim, |a| a.engaged = Some(id));
    sim.notice(NAME, format!("engages person {id}"));
    sim.raise_quietly(TRACKED, Value::Int(id));
    if let Some(p) = crate::services::people::perception::position(sim, id) {
        let _ = crate::services::motion::gaze::look(
            sim,
            p,
            crate::services::trackers::legacy::HEAD_SPEED,
            false,
        );
    }
}

/// A stimulus of type `kind`, with the person it came from (someone who just arrived).
fn stimulus(sim: &Sim, kind: &str, person: Option<i64>) {
    let (detects, engaged) = with(sim, |a| {
        (a.enabled && !a.paused && a.detects(kind), a.engaged)
    });
    let mode = engagement(sim);
    if !detects || (engaged.is_some() && mode == "FullyEngaged") {
        return;
    }
    sim.raise_quietly(STIMULUS, Value::from(kind));
    // It looks and checks for a human there.
    let found = person.or_else(|| {
        crate::services::people::perception::around(sim)
            .first()
            .copied()
    });
    match (engaged, found) {
        (None, Some(id)) => engage(sim, id),
        (None, None) => sim.raise_quietly(TRACKED, Value::Int(-1)),
        (Some(e), Some(id)) if e != id && mode == "Unengaged" => engage(sim, id),
        _ => {}
    }
}

/// Someone around when it starts is a People stimulus.
fn people_around(sim: &Sim) {
    if let Some(&id) = crate::services::people::perception::around(sim).first() {
        stimulus(sim, "People", Some(id));
    }
}

// What it does when the keys it watches change (called by `reactions.rs`).

/// The people list changed: the engaged person lost, a newcomer a People stimulus.
pub(crate) fn people_changed(sim: &Sim, previous: Option<&Value>, value: &Value) {
    let before = previous.map_or_else(Vec::new, crate::services::people::perception::ids);
    let now = crate::services::people::perception::ids(value);
    let lost = with(sim, |a| match a.engaged {
        Some(e) if !now.contains(&e) => a.engaged.take(),
        _ => None,
    });
    if let Some(id) = lost {
        sim.notice(NAME, format!("lost person {id}"));
        sim.raise_quietly(LOST, Value::Int(id));
    }
    match now.iter().find(|id| !before.contains(id)) {
        Some(&id) => stimulus(sim, "People", Some(id)),
        None if lost.is_some() => people_around(sim),
        None => {}
    }
}

/// A touch sensor pressed is a Touch stimulus.
pub(crate) fn touched(sim: &Sim, key: &str, value: &Value) {
    let sensor = crate::robot::memory::TOUCH_SENSORS
        .iter()
        .any(|(k, _)| *k == key);
    if sensor && number(value).is_some_and(|x| x > 0.0) {
        stimulus(sim, "Touch", None);
    }
}

/// A sound located is a Sound stimulus.
pub(crate) fn heard(sim: &Sim, _: Option<&Value>, value: &Value) {
    if matches!(value, Value::List(v) if !v.is_empty()) {
        stimulus(sim, "Sound", None);
    }
}

/// A movement detected is a Movement stimulus.
pub(crate) fn moved(sim: &Sim, _: Option<&Value>, value: &Value) {
    if matches!(value, Value::List(v) if !v.is_empty()) {
        stimulus(sim, "Movement", None);
    }
}
