//! The detection extractors: ALMovementDetection, ALDarknessDetection,
//! ALBacklightingDetection (vision), ALSoundDetection, ALSoundLocalization and the older
//! ALAudioSourceLocalization (audio). The simulated robot sees and hears nothing: what they
//! detect comes from scenarios, and the modules do what the real ones do with it (the API
//! pages of NAOqi 2.8):
//!
//! - a movement: a scenario raises `MovementDetection/MovementDetected` with a
//!   `MovementInfo` (`[[sec, usec], [cluster...], cameraPoseInTorso, cameraPoseInRobot,
//!   cameraId]`, a cluster `[[cogX, cogY], [x, y, width, height], [inFrame, inRoi]]`), which
//!   updates `MovementDetection/MovementInfo` first, as the module does; or it writes
//!   `MovementInfo`, and the event follows;
//! - darkness: `DarknessDetection/DarknessValue` (0 bright..100 dark; a lit room reads
//!   [`ROOM_DARKNESS`] from boot) raises `DarknessDetection/DarknessDetected` (the value)
//!   when it goes over the threshold (60 unless set), once until it comes back under;
//!   raising the event directly sets the value;
//! - backlighting: `BacklightingDetection/BacklightingValue` (0 none, 1 possible, 2 backlit)
//!   raises `BacklightingDetection/BacklightingDetected` when it turns 2;
//! - a sound: `SoundDetected` = `[[index, type (1 start, 0 end), confidence, time], ...]`,
//!   raised by the scenario;
//! - a sound's direction: `ALSoundLocalization/SoundLocated` (or
//!   `ALAudioSourceLocalization/SoundLocated`) = `[[sec, usec], [azimuth, elevation,
//!   confidence, energy], headPoseInTorso, headPoseInRobot]`, raised by the scenario; the
//!   module also raises `.../SoundsLocated` = `[that sound]`, as it groups the sounds of
//!   each 170 ms.
//!
//! Every module is an extractor (subscribe, periods, pause: `extractor.rs`); their
//! parameters are kept and read back: the vision ones' camera, resolution and frame rate,
//! the darkness threshold (0..100, clamped), the movement sensitivities, the audio ones'
//! `Sensitivity` (0..1, default 0.9; `Sensibility` is its deprecated name) and the
//! localization's `EnergyComputation`; another parameter raises.

use choreo_engine::Value;
use choreo_robot::memory::ROOM_DARKNESS;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::extractor::Extractor;
use crate::robot::table::{Op, Service};

/// ALMovementDetection as served.
pub(crate) const MOVEMENT: Service = Service {
    name: "ALMovementDetection",
    methods: &[
        ("resetDetection", Op::Own),
        ("setColorSensitivity", Op::Own),
        ("getColorSensitivity", Op::Own),
        ("setDepthSensitivity", Op::Own),
        ("getDepthSensitivity", Op::Own),
    ],
    own: movement,
    extractor: Some(Extractor::vision(&[
        MOVEMENT_DETECTED,
        "MovementDetection/NoMovement",
        MOVEMENT_INFO,
    ])),
};

/// ALDarknessDetection as served.
pub(crate) const DARKNESS: Service = Service {
    name: "ALDarknessDetection",
    methods: &[
        ("setDarknessThreshold", Op::Own),
        ("getDarknessThreshold", Op::Own),
    ],
    own: darkness,
    extractor: Some(Extractor::vision(&[DARKNESS_DETECTED, DARKNESS_VALUE])),
};

/// ALBacklightingDetection as served.
pub(crate) const BACKLIGHTING: Service = Service {
    name: "ALBacklightingDetection",
    methods: &[],
    own: crate::robot::table::no_own,
    extractor: Some(Extractor::vision(&[BACKLIGHT_DETECTED, BACKLIGHT_VALUE])),
};

/// ALSoundDetection as served.
pub(crate) const SOUND: Service = Service {
    name: "ALSoundDetection",
    methods: &[("setParameter", Op::Own)],
    own: |sim, method, a| sound(sim, SOUND.name, method, a),
    extractor: Some(Extractor::plain(&["SoundDetected"])),
};

/// ALSoundLocalization as served.
pub(crate) const LOCALIZATION: Service = Service {
    name: "ALSoundLocalization",
    methods: &[("setParameter", Op::Own)],
    own: |sim, method, a| sound(sim, LOCALIZATION.name, method, a),
    extractor: Some(Extractor::plain(&[
        "ALSoundLocalization/SoundLocated",
        "ALSoundLocalization/SoundsLocated",
    ])),
};

/// ALAudioSourceLocalization (ALSoundLocalization's name before NAOqi 1.22) as served.
pub(crate) const SOURCE_LOCALIZATION: Service = Service {
    name: "ALAudioSourceLocalization",
    methods: &[("setParameter", Op::Own)],
    own: |sim, method, a| sound(sim, SOURCE_LOCALIZATION.name, method, a),
    extractor: Some(Extractor::plain(&[
        "ALAudioSourceLocalization/SoundLocated",
        "ALAudioSourceLocalization/SoundsLocated",
    ])),
};

/// The movement event.
pub(crate) const MOVEMENT_DETECTED: &str = "MovementDetection/MovementDetected";
/// The latest movement's description.
pub(crate) const MOVEMENT_INFO: &str = "MovementDetection/MovementInfo";
/// The darkness event.
pub(crate) const DARKNESS_DETECTED: &str = "DarknessDetection/DarknessDetected";
/// The darkness of each frame, 0..100.
pub(crate) const DARKNESS_VALUE: &str = "DarknessDetection/DarknessValue";
/// The backlighting event.
pub(crate) const BACKLIGHT_DETECTED: &str = "BacklightingDetection/BacklightingDetected";
/// The backlighting of each frame: 0, 1 or 2.
pub(crate) const BACKLIGHT_VALUE: &str = "BacklightingDetection/BacklightingValue";

/// ALDarknessDetection's threshold when never set.
const DARKNESS_THRESHOLD: i64 = 60;

/// The color sensitivity (2D camera) and depth sensitivity (m, 3D camera) of
/// ALMovementDetection when never set **(inference)**.
const MOVEMENT_SENSITIVITY: [(&str, f64); 2] = [("Color", 0.9), ("Depth", 0.1)];

fn movement(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let name = MOVEMENT.name;
    Ok(Reply::Now(match method {
        "resetDetection" => {
            sim.notice(name, "resetDetection()".into());
            Value::None
        }
        _ => {
            let stem = crate::robot::table::stem(method);
            let Some((kind, default)) = MOVEMENT_SENSITIVITY
                .iter()
                .find(|(k, _)| stem.strip_suffix("Sensitivity") == Some(*k))
            else {
                return Ok(Reply::NotServed);
            };
            let setting = format!("{kind}Sensitivity");
            if method.starts_with("set") {
                let value = a.f64(0)?;
                sim.notice(name, format!("{method}({value})"));
                sim.set_setting(name, &setting, Value::Float(value));
                Value::None
            } else {
                sim.setting(name, &setting)
                    .unwrap_or(Value::Float(*default))
            }
        }
    }))
}

fn darkness(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let name = DARKNESS.name;
    Ok(Reply::Now(match method {
        "setDarknessThreshold" => {
            // Out of 0..100, the threshold is set to the nearest bound.
            let threshold = a.int(0)?.clamp(0, 100);
            sim.notice(name, format!("darkness threshold {threshold}"));
            sim.set_setting(name, "DarknessThreshold", Value::Int(threshold));
            Value::None
        }
        "getDarknessThreshold" => Value::Int(darkness_threshold(sim)),
        _ => return Ok(Reply::NotServed),
    }))
}

fn darkness_threshold(sim: &Sim) -> i64 {
    match sim.setting(DARKNESS.name, "DarknessThreshold") {
        Some(Value::Int(t)) => t,
        _ => DARKNESS_THRESHOLD,
    }
}

/// `setParameter(name, value)` of audio module `service`.
fn sound(sim: &Sim, service: &'static str, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    if method != "setParameter" {
        return Ok(Reply::NotServed);
    }
    let localizes = service != SOUND.name;
    let value = a.value(1);
    let stored = match a.str(0)? {
        // "Sensibility": the deprecated name of "Sensitivity".
        "Sensitivity" | "Sensibility" => {
            let x = number(&value).ok_or_else(|| a.bad(1, "a number from 0 to 1"))?;
            if !(0.0..=1.0).contains(&x) {
                return Err(a.bad(1, "a number from 0 to 1"));
            }
            ("Sensitivity", Value::Float(x))
        }
        "EnergyComputation" if localizes => ("EnergyComputation", Value::Bool(a.bool(1)?)),
        other => {
            return Err(CallError::Failed(format!(
                "{}: no parameter {other:?}",
                a.name
            )));
        }
    };
    sim.notice(service, format!("{} = {}", stored.0, stored.1));
    sim.set_setting(service, stored.0, stored.1);
    Ok(Reply::Now(Value::None))
}

// What the modules do when their keys change (called by `reactions.rs`).

/// A movement event carrying a description updates `MovementInfo` first.
pub(crate) fn movement_event(sim: &Sim, value: &Value) {
    if matches!(value, Value::List(v) if !v.is_empty()) {
        sim.insert_quietly(MOVEMENT_INFO, value.clone());
    }
}

/// A new movement description raises the movement event.
pub(crate) fn movement_info(sim: &Sim, _: Option<&Value>, value: &Value) {
    if matches!(value, Value::List(v) if !v.is_empty()) {
        sim.raise_quietly(MOVEMENT_DETECTED, value.clone());
    }
}

/// A darkness event sets the darkness value it carries.
pub(crate) fn darkness_event(sim: &Sim, value: &Value) {
    if let Some(x) = number(value) {
        sim.insert_quietly(DARKNESS_VALUE, Value::Int(x.round() as i64));
    }
}

/// A darkness value going over the threshold raises the darkness event.
pub(crate) fn darkness_value(sim: &Sim, previous: Option<&Value>, value: &Value) {
    let threshold = darkness_threshold(sim) as f64;
    let before = previous.and_then(number).unwrap_or(ROOM_DARKNESS as f64);
    if let Some(now) = number(value)
        && now > threshold
        && before <= threshold
    {
        sim.raise_quietly(DARKNESS_DETECTED, value.clone());
    }
}

/// A backlighting event means the value turned 2.
pub(crate) fn backlight_event(sim: &Sim, _: &Value) {
    sim.insert_quietly(BACKLIGHT_VALUE, Value::Int(2));
}

/// A backlighting value turning 2 raises the backlighting event.
pub(crate) fn backlight_value(sim: &Sim, previous: Option<&Value>, value: &Value) {
    let two = |v: Option<&Value>| v.and_then(number) == Some(2.0);
    if two(Some(value)) && !two(previous) {
        sim.raise_quietly(BACKLIGHT_DETECTED, Value::Int(2));
    }
}

/// A sound located is also the group of the sounds located in the last 170 ms.
pub(crate) fn sound_located(sim: &Sim, key: &str, value: &Value) {
    if let Some(module) = key.strip_suffix("/SoundLocated") {
        sim.raise_quietly(
            &format!("{module}/SoundsLocated"),
            Value::List(vec![value.clone()]),
        );
    }
}
