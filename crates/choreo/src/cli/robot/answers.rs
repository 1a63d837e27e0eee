//! What a robot answers, as `choreo robot` prints it: its system, services, methods,
//! behaviors, a call's result, the values a watch sees.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use choreo_engine::Value;
use choreo_qi::{MetaObject, Session};

use crate::cli::error::{CliError, CliResult};

use crate::exit;

/// What `info` asks, from modules every NAOqi generation has: (label, service, method).
const INFO: &[(&str, &str, &str)] = &[
    ("name", "ALSystem", "robotName"),
    ("naoqi", "ALSystem", "systemVersion"),
    ("model", "ALMotion", "getRobotConfig"),
    ("battery", "ALBattery", "getBatteryCharge"),
];

/// The robot's name, NAOqi version, model and body (ALMotion's `Model Type`: `naoH25`,
/// `juliette`...; `Body Version`: `VERSION_50`...) and battery charge (%); what it cannot
/// answer is said, not fatal.
pub(super) fn info(session: &Session, json: bool) -> CliResult {
    let mut fields = serde_json::Map::new();
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
                errln!("{label}: {service}.{method}: {why}");
                if label == "model" {
                    fields.insert("body".into(), serde_json::Value::Null);
                }
                serde_json::Value::Null
            }
        };
        fields.insert((*label).to_string(), value);
    }
    if json {
        outln!("{}", serde_json::Value::Object(fields));
    } else {
        for (label, value) in &fields {
            let shown = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => "unknown".to_string(),
                other => other.to_string(),
            };
            outln!("{label:<8} {shown}");
        }
    }
    Ok(exit::OK)
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

/// ALBehaviorManager's installed behaviors, running ones marked.
pub(super) fn behaviors(session: &Session, json: bool) -> CliResult {
    let names = |method: &str| -> Result<Vec<String>, String> {
        let value = session
            .service("ALBehaviorManager")
            .and_then(|o| o.call(method, &[]))
            .map_err(|e| format!("ALBehaviorManager.{method}: {e}"))?;
        match value {
            Value::List(items) => Ok(items
                .into_iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect()),
            other => Err(format!("ALBehaviorManager.{method}: not a list: {other}")),
        }
    };
    let (installed, running) = match (names("getInstalledBehaviors"), names("getRunningBehaviors"))
    {
        (Ok(i), Ok(r)) => (i, r),
        (Err(e), _) | (_, Err(e)) => {
            return Err(CliError::No(e.to_string()));
        }
    };
    if json {
        let items: Vec<serde_json::Value> = installed
            .iter()
            .map(|b| serde_json::json!({"name": b, "running": running.contains(b)}))
            .collect();
        outln!("{}", serde_json::Value::Array(items));
    } else {
        for b in &installed {
            let mark = if running.contains(b) { "running" } else { "" };
            outln!("{b}  {mark}");
        }
    }
    Ok(exit::OK)
}

pub(super) fn services(session: &Session, json: bool) -> CliResult {
    let list = match session.services() {
        Ok(l) => l,
        Err(e) => {
            return Err(CliError::No(format!("services: {e}")));
        }
    };
    if json {
        let items: Vec<serde_json::Value> = list
            .iter()
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "id": s.service_id,
                    "endpoints": s.endpoints,
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(items));
    } else {
        for s in &list {
            outln!("{:>4}  {}  {}", s.service_id, s.name, s.endpoints.join(" "));
        }
    }
    Ok(exit::OK)
}

pub(super) fn methods(session: &Session, service: &str, json: bool) -> CliResult {
    let object = match session.service(service) {
        Ok(o) => o,
        Err(e) => {
            return Err(CliError::No(format!("{service}: {e}")));
        }
    };
    let meta: &MetaObject = object.meta_object();
    if json {
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
        outln!(
            "{}",
            serde_json::json!({"methods": methods, "signals": signals, "properties": properties})
        );
    } else {
        for m in meta.methods.values() {
            outln!(
                "{:>4}  {}{} -> {}",
                m.uid,
                m.name,
                m.parameters_signature,
                m.return_signature
            );
        }
        for s in meta.signals.values() {
            outln!("{:>4}  signal {}{}", s.uid, s.name, s.signature);
        }
        for p in meta.properties.values() {
            outln!("{:>4}  property {} {}", p.uid, p.name, p.signature);
        }
    }
    Ok(exit::OK)
}

pub(super) fn call_method(
    session: &Session,
    service: &str,
    method: &str,
    args: &[Value],
    json: bool,
) -> CliResult {
    let object = match session.service(service) {
        Ok(o) => o,
        Err(e) => {
            return Err(CliError::No(format!("{service}: {e}")));
        }
    };
    match object.call(method, args) {
        Ok(value) => {
            if json {
                match serde_json::to_string(&value) {
                    Ok(text) => outln!("{text}"),
                    Err(e) => {
                        return Err(CliError::No(format!(
                            "{service}.{method}: the answer is not JSON: {e}"
                        )));
                    }
                }
            } else {
                outln!("{value}");
            }
            Ok(exit::OK)
        }
        Err(e) => Err(CliError::No(format!("{service}.{method}: {e}"))),
    }
}

/// Prints one watched value: `KEY = value`, or a JSON object with the seconds since the
/// watch began.
fn print_value(key: &str, value: &Value, at: Duration, json: bool) {
    if json {
        outln!(
            "{}",
            serde_json::json!({ "t": at.as_secs_f64(), "key": key, "value": value })
        );
    } else {
        outln!("{key} = {value}");
    }
}

/// Prints each key's value, then every change, until Ctrl-C, `duration` or `changes`.
pub(super) fn watch(
    session: &Session,
    keys: &[String],
    duration: Option<Duration>,
    changes: Option<usize>,
    json: bool,
) -> CliResult {
    let memory = match session.service("ALMemory") {
        Ok(m) => m,
        Err(e) => {
            return Err(CliError::No(format!("ALMemory: {e}")));
        }
    };
    let start = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel::<(String, Value)>();
    let mut subscriptions = Vec::new();
    for key in keys {
        let arg = [Value::String(key.clone())];
        // A key nobody wrote yet has no value (NAOqi raises); its changes still come.
        match memory.call("getData", &arg) {
            Ok(v) => print_value(key, &v, start.elapsed(), json),
            Err(e) => errln!("{key}: no value yet ({e})"),
        }
        let subscriber = match memory.call_object("subscriber", &arg) {
            Ok(s) => s,
            Err(e) => {
                return Err(CliError::No(format!("ALMemory.subscriber({key:?}): {e}")));
            }
        };
        let (tx, name) = (tx.clone(), key.clone());
        match subscriber.connect("signal", move |args| {
            let _ = tx.send((name.clone(), args.into_iter().next().unwrap_or_default()));
        }) {
            Ok(link) => subscriptions.push((subscriber, link)),
            Err(e) => {
                return Err(CliError::No(format!(
                    "ALMemory.subscriber({key:?}).signal: {e}"
                )));
            }
        }
    }
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let interrupted = Arc::clone(&interrupted);
        let _ = ctrlc::set_handler(move || interrupted.store(true, Ordering::SeqCst));
    }
    let mut seen = 0usize;
    let code = loop {
        if interrupted.load(Ordering::SeqCst) || changes.is_some_and(|n| seen >= n) {
            break Ok(exit::OK);
        }
        if duration.is_some_and(|d| start.elapsed() >= d) {
            break Ok(exit::OK);
        }
        if !session.is_connected() {
            break Err(CliError::Robot("the robot was lost".to_string()));
        }
        if let Ok((key, value)) = rx.recv_timeout(Duration::from_millis(100)) {
            print_value(&key, &value, start.elapsed(), json);
            seen += 1;
        }
    };
    for (subscriber, link) in subscriptions {
        let _ = subscriber.disconnect(link);
    }
    code
}
