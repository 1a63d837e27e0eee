//! The methods every ALExtractor serves (ALFaceCharacteristics, ALVoiceEmotionAnalysis,
//! ALVisualCompass...): clients subscribe by name with a period (ms) and a precision, the
//! extractor runs while someone is subscribed and not paused. Kept per module and read
//! back; what an extractor would write in ALMemory comes from scenarios.

use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::args::Args;
use crate::sim::{Reply, Sim};

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

/// The period (ms) and precision of a subscription made without them.
const DEFAULT: (i64, f64) = (500, 1.0);

/// An extractor's subscribers and pause.
#[derive(Default)]
struct Extractor {
    subscribers: BTreeMap<String, (i64, f64)>,
    paused: bool,
}

fn with<R>(sim: &Sim, service: &'static str, f: impl FnOnce(&mut Extractor) -> R) -> R {
    sim.kept(service, f)
}

/// Serves the extractor method `method` of `service`, which writes ALMemory `keys`.
pub(crate) fn serve(
    sim: &Sim,
    service: &'static str,
    keys: &'static [&'static str],
    method: &str,
    a: &Args<'_>,
) -> Result<Reply, String> {
    let strings = |v: &[&str]| Value::List(v.iter().map(|s| Value::from(*s)).collect());
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
                return Err(format!("{}: {name:?} is not subscribed", a.name));
            }
            sim.notice(service, format!("{name} unsubscribed"));
            Value::None
        }
        "updatePeriod" | "updatePrecision" => {
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
                return Err(format!("{}: {name:?} is not subscribed", a.name));
            }
            Value::None
        }
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
                .ok_or_else(|| format!("{}: {name:?} is not subscribed", a.name))?;
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
        "isProcessing" => Value::Bool(with(sim, service, |e| {
            !e.paused && !e.subscribers.is_empty()
        })),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
