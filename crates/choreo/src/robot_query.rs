//! What a robot answers over qi, asked as `choreo robot` asks it (as a robot developer asks
//! `qicli`): its system, its installed behaviors, and ALMemory keys watched.

use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use choreo_engine::Value;
use choreo_qi::{RemoteObject, Session, SignalLink};

/// A question the robot did not answer: why.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unanswered(pub String);

/// What [`info`] asks, from modules every NAOqi generation has: (label, service, method).
const INFO: &[(&str, &str, &str)] = &[
    ("name", "ALSystem", "robotName"),
    ("naoqi", "ALSystem", "systemVersion"),
    ("model", "ALMotion", "getRobotConfig"),
    ("battery", "ALBattery", "getBatteryCharge"),
];

/// The robot's name, NAOqi version, model and body (ALMotion's `Model Type`: `naoH25`,
/// `juliette`...; `Body Version`: `VERSION_50`...) and battery charge (%), by label, in
/// order (`null` where it did not answer); and what it could not answer, each as
/// `label: service.method: why`.
pub fn info(session: &Session) -> (serde_json::Map<String, serde_json::Value>, Vec<String>) {
    let mut fields = serde_json::Map::new();
    let mut unanswered = Vec::new();
    for (label, service, method) in INFO {
        let answer = session
            .service(service)
            .and_then(|o| o.call(method, &[]))
            .map_err(|e| e.to_string());
        let value = match (answer, *label) {
            (Ok(config), "model") => {
                fields.insert("body".into(), config_entry(&config, "Body Version"));
                config_entry(&config, "Model Type")
            }
            (Ok(v), _) => serde_json::to_value(&v).unwrap_or(serde_json::Value::Null),
            (Err(why), label) => {
                unanswered.push(format!("{label}: {service}.{method}: {why}"));
                if label == "model" {
                    fields.insert("body".into(), serde_json::Value::Null);
                }
                serde_json::Value::Null
            }
        };
        fields.insert((*label).to_string(), value);
    }
    (fields, unanswered)
}

/// Entry `key` of ALMotion's robot configuration (`[[keys], [values]]`).
fn config_entry(config: &Value, key: &str) -> serde_json::Value {
    let (Value::List(parts) | Value::Tuple(parts)) = config else {
        return serde_json::Value::Null;
    };
    let (Some(Value::List(keys)), Some(Value::List(values))) = (parts.first(), parts.get(1)) else {
        return serde_json::Value::Null;
    };
    keys.iter()
        .position(|k| *k == Value::from(key))
        .and_then(|i| values.get(i))
        .and_then(|v| serde_json::to_value(v).ok())
        .unwrap_or(serde_json::Value::Null)
}

/// ALBehaviorManager's installed behaviors, each with whether it runs.
pub fn behaviors(session: &Session) -> Result<Vec<(String, bool)>, Unanswered> {
    let names = |method: &str| -> Result<Vec<String>, Unanswered> {
        let value = session
            .service("ALBehaviorManager")
            .and_then(|o| o.call(method, &[]))
            .map_err(|e| Unanswered(format!("ALBehaviorManager.{method}: {e}")))?;
        match value {
            Value::List(items) => Ok(items
                .into_iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect()),
            other => Err(Unanswered(format!(
                "ALBehaviorManager.{method}: not a list: {other}"
            ))),
        }
    };
    let installed = names("getInstalledBehaviors")?;
    let running = names("getRunningBehaviors")?;
    Ok(installed
        .into_iter()
        .map(|b| {
            let runs = running.contains(&b);
            (b, runs)
        })
        .collect())
}

/// A service's methods, signals and properties with their signatures, as JSON
/// (`choreo robot methods --json`).
pub fn meta_json(meta: &choreo_qi::MetaObject) -> serde_json::Value {
    let methods: Vec<serde_json::Value> = meta
        .methods
        .values()
        .map(|m| {
            serde_json::json!({
                "uid": m.uid,
                "name": m.name,
                "parameters": m.parameters_signature,
                "returns": m.return_signature,
            })
        })
        .collect();
    let signals: Vec<serde_json::Value> = meta
        .signals
        .values()
        .map(|s| serde_json::json!({"uid": s.uid, "name": s.name, "signature": s.signature}))
        .collect();
    let properties: Vec<serde_json::Value> = meta
        .properties
        .values()
        .map(|p| serde_json::json!({"uid": p.uid, "name": p.name, "signature": p.signature}))
        .collect();
    serde_json::json!({"methods": methods, "signals": signals, "properties": properties})
}

/// ALMemory keys watched: each change as it comes ([`MemoryWatch::next`]); the
/// subscriptions end when it is dropped.
pub struct MemoryWatch {
    changes: Receiver<(String, Value)>,
    subscriptions: Vec<(RemoteObject, SignalLink)>,
}

impl MemoryWatch {
    /// The next change (key, value), if one comes within `timeout`.
    pub fn next(&self, timeout: Duration) -> Option<(String, Value)> {
        self.changes.recv_timeout(timeout).ok()
    }
}

impl Drop for MemoryWatch {
    fn drop(&mut self) {
        for (subscriber, link) in self.subscriptions.drain(..) {
            let _ = subscriber.disconnect(link);
        }
    }
}

/// Watches `keys` of the robot's ALMemory: `now` is told each key's value now (a key
/// nobody wrote yet has none: NAOqi raises), in order, before its changes are subscribed to.
pub fn watch_memory(
    session: &Session,
    keys: &[String],
    now: &mut dyn FnMut(&str, Result<Value, choreo_qi::Error>),
) -> Result<MemoryWatch, Unanswered> {
    let memory = session
        .service("ALMemory")
        .map_err(|e| Unanswered(format!("ALMemory: {e}")))?;
    let (tx, changes) = channel::<(String, Value)>();
    let mut watch = MemoryWatch {
        changes,
        subscriptions: Vec::new(),
    };
    for key in keys {
        let arg = [Value::String(key.clone())];
        now(key, memory.call("getData", &arg));
        let subscriber = memory
            .call_object("subscriber", &arg)
            .map_err(|e| Unanswered(format!("ALMemory.subscriber({key:?}): {e}")))?;
        let (tx, name) = (tx.clone(), key.clone());
        let link = subscriber
            .connect("signal", move |args| {
                let _ = tx.send((name.clone(), args.into_iter().next().unwrap_or_default()));
            })
            .map_err(|e| Unanswered(format!("ALMemory.subscriber({key:?}).signal: {e}")))?;
        watch.subscriptions.push((subscriber, link));
    }
    Ok(watch)
}
