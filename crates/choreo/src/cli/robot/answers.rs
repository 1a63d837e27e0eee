//! What a robot answers, as `choreo robot` prints it: its system, services, methods,
//! behaviors, a call's result, the values a watch sees.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use choreo_engine::Value;
use choreo_qi::{MetaObject, Session};

use crate::cli::error::{CliError, CliResult};

use crate::exit;

/// The robot's name, NAOqi version, model, body and battery ([`crate::robot_query::info`]);
/// what it cannot answer is said, not fatal.
pub(super) fn info(session: &Session, json: bool) -> CliResult {
    let (fields, unanswered) = crate::robot_query::info(session);
    for why in unanswered {
        errln!("{why}");
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

/// ALBehaviorManager's installed behaviors, running ones marked.
pub(super) fn behaviors(session: &Session, json: bool) -> CliResult {
    let behaviors =
        crate::robot_query::behaviors(session).map_err(|e| CliError::No(e.to_string()))?;
    if json {
        let items: Vec<serde_json::Value> = behaviors
            .iter()
            .map(|(b, running)| serde_json::json!({"name": b, "running": running}))
            .collect();
        outln!("{}", serde_json::Value::Array(items));
    } else {
        for (b, running) in &behaviors {
            let mark = if *running { "running" } else { "" };
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
        outln!("{}", crate::robot_query::meta_json(meta));
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
    let start = Instant::now();
    let watch = crate::robot_query::watch_memory(session, keys, &mut |key, now| match now {
        Ok(v) => print_value(key, &v, start.elapsed(), json),
        Err(e) => errln!("{key}: no value yet ({e})"),
    })
    .map_err(|e| CliError::No(e.to_string()))?;
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let interrupted = Arc::clone(&interrupted);
        let _ = ctrlc::set_handler(move || interrupted.store(true, Ordering::SeqCst));
    }
    let mut seen = 0usize;
    loop {
        if interrupted.load(Ordering::SeqCst) || changes.is_some_and(|n| seen >= n) {
            return Ok(exit::OK);
        }
        if duration.is_some_and(|d| start.elapsed() >= d) {
            return Ok(exit::OK);
        }
        if !session.is_connected() {
            return Err(CliError::Robot("the robot was lost".to_string()));
        }
        if let Some((key, value)) = watch.next(Duration::from_millis(100)) {
            print_value(&key, &value, start.elapsed(), json);
            seen += 1;
        }
    }
}
