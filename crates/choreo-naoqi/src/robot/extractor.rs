//! The methods every ALExtractor serves (ALFaceCharacteristics, ALVoiceEmotionAnalysis,
//! ALSoundDetection...): clients subscribe by name with a period (ms) and a precision, the
//! extractor runs while someone is subscribed and not paused. Kept per module and read
//! back; what an extractor would write in ALMemory comes from scenarios.
//!
//! An ALVisionExtractor (ALVisualCompass, ALMovementDetection, ALDarknessDetection,
//! ALBacklightingDetection) also has a camera, a resolution and a frame rate, kept and read
//! back, and processes as long as it has a subscriber, paused or not (the ALVisionExtractor
//! API of NAOqi 2.8).

use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;

/// The extractor methods.
pub(crate) const METHODS: &[&str] = &[
    "subscribe",
    "unsubscribe",
    "updatePeriod",
    "updatePrecision",
    "getCurrentPeriod",
    "getCurrentPrecision",
    "getMyPeriod",
    "getMyPrecision",
    "getOutputNames",
    "getEventList",
    "getMemoryKeyList",
    "getSubscribersInfo",
    "pause",
    "isPaused",
    "isProcessing",
];

/// The methods an ALVisionExtractor adds.
pub(crate) const VISION_METHODS: &[&str] = &[
    "setFrameRate",
    "getFrameRate",
    "setResolution",
    "getResolution",
    "setActiveCamera",
    "getActiveCamera",
    "setParameter",
];

/// What an extractor module is: the ALMemory keys it writes, and whether it is a vision
/// extractor.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Extractor {
    /// The keys it writes (events and data), as `getOutputNames` lists them.
    pub keys: &'static [&'static str],
    /// An ALVisionExtractor.
    pub vision: bool,
}

impl Extractor {
    /// An ALExtractor writing `keys`.
    pub const fn plain(keys: &'static [&'static str]) -> Extractor {
        Extractor {
            keys,
            vision: false,
        }
    }

    /// An ALVisionExtractor writing `keys`.
    pub const fn vision(keys: &'static [&'static str]) -> Extractor {
        Extractor { keys, vision: true }
    }

    /// Its methods.
    pub fn methods(&self) -> impl Iterator<Item = &'static str> {
        let vision = if self.vision { VISION_METHODS } else { &[] };
        METHODS.iter().chain(vision).copied()
    }
}

/// The settings of a vision extractor never set: the top camera, QVGA, 5 frames a second
/// **(inference)**.
const VISION_DEFAULTS: [(&str, i64); 3] =
    [("ActiveCamera", 0), ("Resolution", 1), ("FrameRate", 5)];

/// The period (ms) and precision of a subscription made without them.
const DEFAULT: (i64, f64) = (500, 1.0);

/// An extractor's subscribers and pause.
#[derive(Default)]
struct Subscribers {
    subscribers: BTreeMap<String, (i64, f64)>,
    paused: bool,
}

fn with<R>(sim: &Sim, service: &'static str, f: impl FnOnce(&mut Subscribers) -> R) -> R {
    sim.kept(service, f)
}

/// Whether `service`'s extractor has a subscriber and is not paused: what it writes in
/// ALMemory is fresh.
pub(crate) fn running(sim: &Sim, service: &'static str) -> bool {
    with(sim, service, |e| !e.paused && !e.subscribers.is_empty())
}

/// Serves the extractor method `method` of `service`.
pub(crate) fn serve(
    sim: &Sim,
    service: &'static str,
    extractor: Extractor,
    method: &str,
    a: &Args<'_>,
) -> Result<Reply, CallError> {
    if extractor.vision
        && let Some(reply) = vision(sim, service, method, a)?
    {
        return Ok(reply);
    }
    let strings = |v: &[&str]| Value::List(v.iter().map(|s| Value::from(*s)).collect());
    let keys = extractor.keys;
    let value = match method {
        "subscribe" => {
            let name = a.str(0)?.to_string();
            let period = if a.len() > 1 { a.int(1)? } else { DEFAULT.0 };
            let precision = a.f64_or(2, DEFAULT.1)?;
            sim.notice(service, format!("{name} subscribed"));
            with(sim, service, |e| {
                e.subscribers.insert(name, (period, precision))
            });
            Value::None
        }
        "unsubscribe" => {
            let name = a.str(0)?;
            if with(sim, service, |e| e.subscribers.remove(name)).is_none() {
                return Err(not_subscribed(a, name));
            }
            sim.notice(service, format!("{name} unsubscribed"));
            Value::None
        }
        "updatePeriod" | "updatePrecision" => update(sim, service, method, a)?,
        // The extractor runs at the fastest period and the finest precision asked.
        "getCurrentPeriod" => Value::Int(with(sim, service, |e| {
            e.subscribers
                .values()
                .map(|s| s.0)
                .min()
                .unwrap_or(DEFAULT.0)
        })),
        "getCurrentPrecision" => Value::Float(with(sim, service, |e| {
            e.subscribers.values().map(|s| s.1).fold(0.0, f64::max)
        })),
        "getMyPeriod" | "getMyPrecision" => {
            let name = a.str(0)?;
            let mine = with(sim, service, |e| e.subscribers.get(name).copied())
                .ok_or_else(|| not_subscribed(a, name))?;
            if method == "getMyPeriod" {
                Value::Int(mine.0)
            } else {
                Value::Float(mine.1)
            }
        }
        "getOutputNames" | "getEventList" | "getMemoryKeyList" => strings(keys),
        "getSubscribersInfo" => Value::List(with(sim, service, |e| {
            e.subscribers
                .iter()
                .map(|(n, (p, q))| {
                    Value::List(vec![
                        Value::from(n.as_str()),
                        Value::Int(*p),
                        Value::Float(*q),
                    ])
                })
                .collect()
        })),
        "pause" => {
            let paused = a.bool(0)?;
            with(sim, service, |e| e.paused = paused);
            Value::None
        }
        "isPaused" => Value::Bool(with(sim, service, |e| e.paused)),
        "isProcessing" => Value::Bool(running(sim, service)),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// `updatePeriod` or `updatePrecision` of a subscriber.
fn update(
    sim: &Sim,
    service: &'static str,
    method: &str,
    a: &Args<'_>,
) -> Result<Value, CallError> {
    let name = a.str(0)?;
    let (period, precision) = if method == "updatePeriod" {
        (Some(a.int(1)?), None)
    } else {
        (None, Some(a.f64(1)?))
    };
    let found = with(sim, service, |e| match e.subscribers.get_mut(name) {
        Some(s) => {
            s.0 = period.unwrap_or(s.0);
            s.1 = precision.unwrap_or(s.1);
            true
        }
        None => false,
    });
    if !found {
        return Err(not_subscribed(a, name));
    }
    Ok(Value::None)
}

/// The error of a call naming a subscriber that is not subscribed.
fn not_subscribed(a: &Args<'_>, name: &str) -> CallError {
    CallError::Failed(format!("{}: {name:?} is not subscribed", a.name))
}

/// The ALVisionExtractor methods; `None` for another method.
fn vision(
    sim: &Sim,
    service: &'static str,
    method: &str,
    a: &Args<'_>,
) -> Result<Option<Reply>, CallError> {
    let set = |name: &str, value: i64| {
        sim.notice(service, format!("{method}({value})"));
        sim.set_setting(service, name, Value::Int(value));
        Value::Bool(true)
    };
    let get = |name: &str| {
        let default = VISION_DEFAULTS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, d)| *d);
        sim.setting(service, name).unwrap_or(Value::Int(default))
    };
    let value = match method {
        // (framerate) for every subscriber, or (subscriber, framerate).
        "setFrameRate" => {
            let last = a.len().saturating_sub(1);
            set("FrameRate", a.f64(last)?.round() as i64)
        }
        "setResolution" => set("Resolution", a.int(0)?),
        "setActiveCamera" => set("ActiveCamera", a.int(0)?),
        "getFrameRate" => get("FrameRate"),
        "getResolution" => get("Resolution"),
        "getActiveCamera" => get("ActiveCamera"),
        // Processing as long as someone is subscribed, paused or not.
        "isProcessing" => Value::Bool(with(sim, service, |e| !e.subscribers.is_empty())),
        // Deprecated since 1.20: "resolution" or "pause".
        "setParameter" => match a.str(0)? {
            "resolution" => {
                set("Resolution", a.int(1)?);
                Value::None
            }
            "pause" => {
                let paused = a.bool(1)?;
                with(sim, service, |e| e.paused = paused);
                Value::None
            }
            other => {
                return Err(CallError::Failed(format!(
                    "{}: no parameter {other:?}",
                    a.name
                )));
            }
        },
        _ => return Ok(None),
    };
    Ok(Some(Reply::Now(value)))
}
