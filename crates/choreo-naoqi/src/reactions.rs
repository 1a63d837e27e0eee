//! What modules do when ALMemory keys change, as on a robot: a module that watches a key
//! (its measurement, the event of a detection it follows) reacts to a new value, whoever
//! wrote it: a scenario (`raise_event`, `insert_data`), a script, the robot itself. One
//! table, each reaction written in its module.
//!
//! A reaction runs either [`before`] the new value is delivered (it updates what the
//! module updates first: `MovementInfo` before `MovementDetected`) or [`after`] it (an event
//! that follows a measurement: `DarknessDetected` once the darkness is over the threshold).
//! What a reaction writes does not set off reactions in turn (`Sim::raise_quietly`).

use choreo_engine::Value;

use crate::robot::core::Sim;
use crate::services::interaction::{awareness, dialog};
use crate::services::people::perception as people;
use crate::services::sensors::power;
use crate::services::trackers::{legacy as trackers, tracker};
use crate::services::vision::detection;

/// A reaction before the value of its key is delivered: `(sim, new value)`.
type Before = fn(&Sim, &Value);

/// A reaction after the value of its key was delivered: `(sim, previous value, new value)`.
type After = fn(&Sim, Option<&Value>, &Value);

/// The reactions run before delivery, by key.
const BEFORE: &[(&str, Before)] = &[
    ("PeoplePerception/JustArrived", |sim, v| {
        people::shown(sim, "PeoplePerception/JustArrived", v)
    }),
    ("ALBasicAwareness/HumanTracked", |sim, v| {
        people::shown(sim, "ALBasicAwareness/HumanTracked", v)
    }),
    ("PeoplePerception/PeopleDetected", |sim, v| {
        people::shown(sim, "PeoplePerception/PeopleDetected", v)
    }),
    ("FaceDetected", |sim, v| {
        people::shown(sim, "FaceDetected", v)
    }),
    (detection::MOVEMENT_DETECTED, detection::movement_event),
    (detection::DARKNESS_DETECTED, detection::darkness_event),
    (detection::BACKLIGHT_DETECTED, detection::backlight_event),
];

/// A reaction to any key once its value was delivered: `(sim, key, new value)`.
type Any = fn(&Sim, &str, &Value);

/// The reactions run after delivery, by key.
const AFTER: &[(&str, After)] = &[
    (detection::MOVEMENT_INFO, detection::movement_info),
    (detection::DARKNESS_VALUE, detection::darkness_value),
    (detection::BACKLIGHT_VALUE, detection::backlight_value),
    ("ALSoundLocalization/SoundLocated", |sim, _, v| {
        detection::sound_located(sim, "ALSoundLocalization/SoundLocated", v)
    }),
    ("ALAudioSourceLocalization/SoundLocated", |sim, _, v| {
        detection::sound_located(sim, "ALAudioSourceLocalization/SoundLocated", v)
    }),
    (power::CHARGE, power::charge_changed),
    ("redBallDetected", |sim, _, v| {
        trackers::seen(sim, "ALRedBallTracker", &trackers::BALL, v)
    }),
    ("FaceDetected", |sim, _, v| {
        trackers::seen(sim, "ALFaceTracker", &trackers::FACE_TARGET, v)
    }),
    (people::PEOPLE_LIST, people::population_changed),
    (people::PEOPLE_LIST, awareness::people_changed),
    ("ALSoundLocalization/SoundLocated", awareness::heard),
    (detection::MOVEMENT_DETECTED, awareness::moved),
];

/// The reactions to every key, after delivery: the modules that watch many keys (ALTracker
/// its target's detection, ALBasicAwareness the touch sensors, ALDialog its `e:` rules'
/// events) pick theirs.
const ANY: &[Any] = &[tracker::seen, awareness::touched, dialog::memory_event];

/// The events the modules served here raise that a robot declares from boot (in
/// `getEventList`) without a value until raised (with ALInfrared's, `infrared::EVENTS`).
pub(crate) const DECLARED: &[&str] = &[
    detection::MOVEMENT_DETECTED,
    "MovementDetection/NoMovement",
    detection::DARKNESS_DETECTED,
    detection::BACKLIGHT_DETECTED,
    "SoundDetected",
    "ALSoundLocalization/SoundLocated",
    "ALSoundLocalization/SoundsLocated",
    "ALAudioSourceLocalization/SoundLocated",
    "ALAudioSourceLocalization/SoundsLocated",
    "redBallDetected",
    "ALBattery/BatteryLow",
    "BatteryEmpty",
    "BatteryNearlyEmpty",
    "BatteryChargeCellVoltageMinChanged",
    "DeviceNoLongerHotDetected",
    "HeadProcessorIsHot",
    "HeadProcessorIsCriticallyHot",
];

/// Runs the reactions to `key` due before `value` is delivered.
pub(crate) fn before(sim: &Sim, key: &str, value: &Value) {
    for (_, react) in BEFORE.iter().filter(|(k, _)| *k == key) {
        react(sim, value);
    }
}

/// Runs the reactions to `key` due once `value` (which replaced `previous`) was delivered.
pub(crate) fn after(sim: &Sim, key: &str, previous: Option<&Value>, value: &Value) {
    for (_, react) in AFTER.iter().filter(|(k, _)| *k == key) {
        react(sim, previous, value);
    }
    for react in ANY {
        react(sim, key, value);
    }
}
