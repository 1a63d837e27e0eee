//! ALMemory, the module: reading keys (stored values, else the robot's device readings),
//! inserting and raising them, scripts' event subscriptions. The store itself is the
//! core's (`robot/memory.rs`).

use std::collections::BTreeSet;

use choreo_engine::Value;
use choreo_robot::memory::{DeviceKey, MOTOR_TEMPERATURE, NAO_MASS, device_key, device_keys};

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;

/// The value of `key`: what was stored under it, else the robot's device reading
/// (`Device/SubDeviceList/...`: joint positions and stiffness from the body now, the rest at
/// rest, as choreo-robot's table says).
pub(crate) fn read(sim: &Sim, key: &str) -> Option<Value> {
    if let Some(v) = sim.memory.get(key) {
        return Some(v);
    }
    let model = sim.model;
    let now = sim.now();
    let Some(device) = device_key(model, key) else {
        return crate::services::motion::dcm::led_reading(sim, key).map(Value::Float);
    };
    let value = match device {
        DeviceKey::Name => {
            return Some(Value::String(crate::services::core::system::robot_name(
                sim,
            )));
        }
        DeviceKey::Position(i) => sim.state().body.angle(model, i, now),
        DeviceKey::Stiffness(i) => sim.state().body.stiffness(model, i, now),
        DeviceKey::Temperature(_) => MOTOR_TEMPERATURE,
        DeviceKey::Current(_) => 0.0,
        DeviceKey::AtRest(v) => v,
        DeviceKey::FootLoad(share) => {
            let state = sim.state();
            if crate::services::motion::robot_pose::on_feet(sim, &state.body, now) {
                share * NAO_MASS
            } else {
                0.0
            }
        }
    };
    Some(Value::Float(value))
}

/// Serves ALMemory.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let memory = &sim.memory;
    Ok(Reply::Now(match method {
        "getData" => {
            let key = a.str(0)?;
            read(sim, key).ok_or_else(|| {
                CallError::Failed(format!("ALMemory.getData: key not found: {key:?}"))
            })?
        }
        "insertData" => {
            sim.insert(a.str(0)?, a.value(1));
            Value::None
        }
        "insertListData" => {
            for (i, pair) in a.list(0)?.iter().enumerate() {
                match pair {
                    Value::List(kv) | Value::Tuple(kv) if kv.len() == 2 => match &kv[0] {
                        Value::String(key) => sim.insert(key, kv[1].clone()),
                        _ => return Err(a.bad(0, &format!("[[key, value], ...] (item {i})"))),
                    },
                    _ => return Err(a.bad(0, &format!("[[key, value], ...] (item {i})"))),
                }
            }
            Value::None
        }
        "raiseEvent" | "raiseMicroEvent" => {
            sim.raise(a.str(0)?, a.value(1));
            Value::None
        }
        "subscribeToEvent" | "subscribeToMicroEvent" => {
            let (event, module) = (a.str(0)?, a.str(1)?);
            a.str(2)?;
            let mut s = memory.lock();
            s.events.insert(event.to_string());
            s.scripts.insert((event.to_string(), module.to_string()));
            Value::None
        }
        "unsubscribeToEvent" | "unsubscribeToMicroEvent" => {
            let (event, module) = (a.str(0)?, a.str(1)?);
            if !memory
                .lock()
                .scripts
                .remove(&(event.to_string(), module.to_string()))
            {
                return Err(CallError::Failed(format!(
                    "ALMemory.{method}: module {module:?} is not subscribed to {event:?}"
                )));
            }
            Value::None
        }
        "declareEvent" => {
            memory.lock().events.insert(a.str(0)?.to_string());
            Value::None
        }
        "removeData" => {
            memory.remove(a.str(0)?);
            Value::None
        }
        "getDataList" => {
            let part = a.str(0)?;
            let mut keys: BTreeSet<String> = memory
                .lock()
                .data
                .keys()
                .filter(|k| k.contains(part))
                .cloned()
                .collect();
            keys.extend(
                device_keys(sim.model)
                    .into_iter()
                    .filter(|k| k.contains(part)),
            );
            strings(keys.iter())
        }
        "getDataListName" => strings(memory.lock().data.keys()),
        "getEventList" => strings(memory.lock().events.iter()),
        "getListData" => {
            let keys = a.names(0)?;
            Value::List(
                keys.iter()
                    .map(|k| read(sim, k).unwrap_or_default())
                    .collect(),
            )
        }
        "getSubscribers" => {
            let event = a.str(0)?;
            strings(
                memory
                    .lock()
                    .scripts
                    .iter()
                    .filter(|(e, _)| e == event)
                    .map(|(_, m)| m),
            )
        }
        _ => return Ok(Reply::NotServed),
    }))
}

fn strings<'a>(items: impl Iterator<Item = &'a String>) -> Value {
    Value::List(items.map(|s| Value::String(s.clone())).collect())
}
