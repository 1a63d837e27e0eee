//! DCM, the device communication manager: timed commands to actuators, by device name
//! (`HeadYaw/Position/Actuator/Value`, `HeadYaw/Hardness/Actuator/Value`,
//! `Face/Led/Red/Left/0Deg/Actuator/Value`, `Head/Led/Front/Right/0/Actuator/Value`...).
//!
//! `getTime(offset)` is the DCM's clock in ms (the engine's time) plus the offset: commands
//! are timed on it. `set([device, update, [[value, time], ...]])` moves the device through
//! the values, each reached at its time (linearly, from where it is now; a time already
//! past applies at once), and returns at once: a joint moves as ALMotion would move it
//! (within its limits, only stiff), its stiffness follows a Hardness device, an LED device
//! lights its channel as ALLeds would. The device's reading in ALMemory
//! (`Device/SubDeviceList/<device>`) follows. `createAlias([alias, [devices]])` names a list
//! of devices (answering it, an unknown device's name replaced by "" and left out of the
//! alias's commands **(inference)**);
//! `setAlias([alias, update, "time-separate", importance, [times], [[values of a device],
//! ...]])`, `setAlias([alias, update, "time-mixed", [[[value, time], ...] per device]])` and
//! `setAlias(alias, time, [values])` command each device of the alias. Every update type
//! (ClearAll, ClearAfter, ClearBefore, Merge) replaces what the device had still to do: a
//! Merge with commands queued after the new ones is not merged (a simplification). An
//! unknown device, alias or update type raises.

use std::collections::BTreeMap;

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_robot::memory::{DeviceKey, device_key};

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};
use crate::services::trackers::legacy::item;

const NAME: &str = "DCM";

/// DCM as served.
pub(crate) const SERVICE: Service = Service {
    name: NAME,
    methods: &[
        ("getTime", Op::Own),
        ("set", Op::Own),
        ("createAlias", Op::Own),
        ("setAlias", Op::Own),
    ],
    own,
    extractor: None,
};

/// The update types a command may have.
const UPDATES: &[&str] = &["ClearAll", "ClearAfter", "ClearBefore", "Merge"];

/// The aliases created.
#[derive(Default)]
struct Aliases(BTreeMap<String, Vec<String>>);

/// The DCM's time now, ms.
fn now_ms(sim: &Sim) -> i64 {
    (sim.now().0 / 1_000_000) as i64
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "getTime" => Value::Int(now_ms(sim) + if a.len() > 0 { a.int(0)? } else { 0 }),
        "set" => {
            let command = a.list(0)?;
            let (Some(Value::String(device)), Some(update), Some(keys)) =
                (command.first(), command.get(1), command.get(2))
            else {
                return Err(a.bad(0, "[device, update type, [[value, time], ...]]"));
            };
            check_update(a, update)?;
            let keys = pairs(a, keys)?;
            actuate(sim, a, device, &keys)?;
            Value::None
        }
        "createAlias" => {
            let alias = a.list(0)?;
            let (Some(Value::String(name)), Some(devices)) = (alias.first(), alias.get(1)) else {
                return Err(a.bad(0, "[alias, [device, ...]]"));
            };
            let devices = names(a, devices)?;
            let answered: Vec<String> = devices
                .iter()
                .map(|d| {
                    if known(sim, d) {
                        d.clone()
                    } else {
                        String::new()
                    }
                })
                .collect();
            sim.kept(NAME, |x: &mut Aliases| {
                x.0.insert(name.clone(), answered.clone())
            });
            sim.notice(NAME, format!("alias {name}: {}", devices.join(", ")));
            Value::List(vec![
                Value::from(name.as_str()),
                Value::List(answered.iter().map(|d| Value::from(d.as_str())).collect()),
            ])
        }
        "setAlias" => {
            set_alias(sim, a)?;
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

fn check_update(a: &Args<'_>, update: &Value) -> Result<(), CallError> {
    match update {
        Value::String(u) if UPDATES.contains(&u.as_str()) => Ok(()),
        _ => Err(CallError::Failed(format!(
            "{}: the update type must be one of {}, got {update}",
            a.name,
            UPDATES.join(", ")
        ))),
    }
}

fn names(a: &Args<'_>, v: &Value) -> Result<Vec<String>, CallError> {
    match v {
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|d| match d {
                Value::String(d) => Ok(d.clone()),
                _ => Err(a.bad(0, "device names")),
            })
            .collect(),
        _ => Err(a.bad(0, "a list of device names")),
    }
}

/// `[[value, time(, importance)], ...]` as `(time ms, value)`.
fn pairs(a: &Args<'_>, v: &Value) -> Result<Vec<(i64, f64)>, CallError> {
    let bad = || a.bad(0, "commands [[value, time], ...]");
    match v {
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|k| {
                let value = item(k, 0).and_then(number).ok_or_else(bad)?;
                let time = item(k, 1).and_then(number).ok_or_else(bad)?;
                Ok((time as i64, value))
            })
            .collect(),
        _ => Err(bad()),
    }
}

/// `device`'s full ALMemory key.
fn key(device: &str) -> String {
    format!("Device/SubDeviceList/{device}")
}

/// Whether the robot has actuator `device`.
fn known(sim: &Sim, device: &str) -> bool {
    actuator(sim, device).is_some() || sim.state().leds.device(device, sim.now()).is_some()
}

/// The joint and whether it is its stiffness, for a joint actuator.
fn actuator(sim: &Sim, device: &str) -> Option<(usize, bool)> {
    if !device.ends_with("/Actuator/Value") {
        return None;
    }
    match device_key(sim.model, &key(device))? {
        DeviceKey::Position(i) => Some((i, false)),
        DeviceKey::Stiffness(i) => Some((i, true)),
        _ => None,
    }
}

/// Drives `device` through `keys` (`(DCM time, value)`).
fn actuate(sim: &Sim, a: &Args<'_>, device: &str, keys: &[(i64, f64)]) -> Result<(), CallError> {
    let now = now_ms(sim);
    let mut keys = keys.to_vec();
    keys.sort_by_key(|k| k.0);
    // Seconds from now; what is past applies at once, the latest of it winning.
    let mut timed: Vec<(f64, f64)> = Vec::new();
    for (t, v) in keys {
        let s = (t - now).max(0) as f64 / 1000.0;
        match timed.last_mut() {
            Some(last) if last.0 == s => last.1 = v,
            _ => timed.push((s, v)),
        }
    }
    if timed.is_empty() {
        return Ok(());
    }
    let (times, values): (Vec<f64>, Vec<f64>) = timed.iter().copied().unzip();
    let floats = |xs: &[f64]| Value::List(xs.iter().map(|x| Value::Float(*x)).collect());
    if let Some((i, stiffness)) = actuator(sim, device) {
        let joint = sim.model.joints()[i].name;
        let mut args = vec![Value::from(joint), floats(&values), floats(&times)];
        let method = if stiffness {
            "stiffnessInterpolation"
        } else {
            args.push(Value::Bool(true));
            "angleInterpolation"
        };
        // The joint moves on its own; the call does not wait for it.
        drop(crate::services::motion::almotion::serve(
            sim,
            method,
            &Args::new("ALMotion", method, &args),
        )?);
        return Ok(());
    }
    let start = sim.now();
    let led: Vec<(Time, [f64; 3])> = timed
        .iter()
        .map(|&(s, v)| (crate::robot::trajectory::after(start, s), [v; 3]))
        .collect();
    if sim.state().leds.device(device, start).is_none() {
        return Err(CallError::Failed(format!(
            "{}: no device {device:?}",
            a.name
        )));
    }
    drop(crate::services::sensors::leds::fade(sim, a, device, led)?);
    Ok(())
}

/// `setAlias` in its three forms.
fn set_alias(sim: &Sim, a: &Args<'_>) -> Result<(), CallError> {
    // (alias, time, [values]): each device to its value at that time.
    if let Ok(alias) = a.str(0) {
        let time = a.int(1)?;
        let values = a.floats(2)?;
        let devices = devices(sim, a, alias)?;
        for (device, v) in devices.iter().zip(values) {
            if !device.is_empty() {
                actuate(sim, a, device, &[(time, v)])?;
            }
        }
        return Ok(());
    }
    let command = a.list(0)?;
    let (Some(Value::String(alias)), Some(update), Some(Value::String(form))) =
        (command.first(), command.get(1), command.get(2))
    else {
        return Err(a.bad(
            0,
            "[alias, update type, \"time-separate\" or \"time-mixed\", ...]",
        ));
    };
    check_update(a, update)?;
    let devices = devices(sim, a, alias)?;
    let per_device: Vec<Vec<(i64, f64)>> = match form.as_str() {
        "time-separate" => {
            // [alias, update, form, importance, [times], [[values], ...]] (the importance
            // may be left out).
            let rest = if command.len() > 5 {
                &command[4..]
            } else {
                &command[3..]
            };
            let times: Vec<i64> = match rest.first() {
                Some(Value::List(ts) | Value::Tuple(ts)) => {
                    ts.iter().filter_map(number).map(|t| t as i64).collect()
                }
                _ => return Err(a.bad(0, "the times of a time-separate command")),
            };
            match rest.get(1) {
                Some(Value::List(rows) | Value::Tuple(rows)) => rows
                    .iter()
                    .map(|row| match row {
                        Value::List(vs) | Value::Tuple(vs) => Ok(times
                            .iter()
                            .copied()
                            .zip(vs.iter().filter_map(number))
                            .collect()),
                        _ => Err(a.bad(0, "a list of values per device")),
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(a.bad(0, "the values of a time-separate command")),
            }
        }
        "time-mixed" => match command.get(3) {
            Some(Value::List(rows) | Value::Tuple(rows)) => rows
                .iter()
                .map(|row| pairs(a, row))
                .collect::<Result<_, _>>()?,
            _ => return Err(a.bad(0, "[[[value, time], ...] per device]")),
        },
        other => {
            return Err(CallError::Failed(format!(
                "{}: the command form must be \"time-separate\" or \"time-mixed\", got {other:?}",
                a.name
            )));
        }
    };
    for (device, keys) in devices.iter().zip(&per_device) {
        if !device.is_empty() {
            actuate(sim, a, device, keys)?;
        }
    }
    Ok(())
}

/// The devices of `alias`.
fn devices(sim: &Sim, a: &Args<'_>, alias: &str) -> Result<Vec<String>, CallError> {
    sim.kept(NAME, |x: &mut Aliases| x.0.get(alias).cloned())
        .ok_or_else(|| {
            CallError::Failed(format!(
                "{}: no alias {alias:?} (createAlias first)",
                a.name
            ))
        })
}

/// The value of LED device key `key` (`Device/SubDeviceList/<LED device>`) now.
pub(crate) fn led_reading(sim: &Sim, key: &str) -> Option<f64> {
    let device = key.strip_prefix("Device/SubDeviceList/")?;
    sim.state().leds.device(device, sim.now())
}
