//! `choreo robot info|services|methods|call|watch|behaviors|install URL ...`: what a robot
//! is and serves, asked over qi, as a robot developer asks `qicli`; and packages installed
//! (`install.rs`). Works against a real robot of any NAOqi generation, `choreo sim` and any
//! qi server.
//!
//! Exit codes: 0 done; 1 the robot answered with an error (an unknown service or method, a
//! call that raised, an install refused); 2 bad arguments (a target not `SERVICE.METHOD`,
//! an argument that is not JSON, a `--remote-path` not absolute); 4 the package cannot be
//! read or is not one the robot can install; 7 the robot cannot be reached (or, for
//! `watch` and `install`, was lost).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use choreo_engine::Value;
use choreo_qi::{MetaObject, Session};
use clap::Subcommand;

use crate::cli::args::{RobotArgs, RobotTarget, timeout_secs};
use crate::cli::error::{CliError, CliResult, ROBOT_FIX, with_help};
use crate::cli::install;
use crate::exit;

/// `choreo robot ...`.
#[derive(Subcommand)]
pub(crate) enum RobotCommand {
    /// The robot's name, NAOqi version, model (`naoH25`, `juliette`...), body version and
    /// battery charge.
    #[command(after_help = crate::cli::help::ROBOT)]
    Info {
        #[command(flatten)]
        target: RobotTarget,
    },
    /// Every service the robot has: id, name, endpoints.
    #[command(after_help = crate::cli::help::ROBOT)]
    Services {
        #[command(flatten)]
        target: RobotTarget,
    },
    /// The behaviors installed on the robot (ALBehaviorManager), running ones marked.
    #[command(after_help = crate::cli::help::ROBOT)]
    Behaviors {
        #[command(flatten)]
        target: RobotTarget,
    },
    /// A service's methods (with their qi signatures), signals and properties.
    #[command(after_help = crate::cli::help::ROBOT)]
    Methods {
        #[command(flatten)]
        target: RobotTarget,
        /// The service (`ALTextToSpeech`).
        service: String,
    },
    /// Calls a method; each argument is a JSON value (`'"hello"'`, `1.5`, `'[1, 2]'`).
    #[command(after_help = crate::cli::help::ROBOT)]
    Call {
        #[command(flatten)]
        target: RobotTarget,
        /// `SERVICE.METHOD` (`ALTextToSpeech.say`).
        method: String,
        /// The arguments, as JSON (negative numbers are arguments, not options).
        #[arg(allow_negative_numbers = true)]
        args: Vec<String>,
    },
    /// Installs an application package (.pkg) on the robot through PackageManager.
    ///
    /// The package must have manifest.xml at its root with a uuid (checked before the robot
    /// is reached). The installed package of that uuid is removed first (removePkg; its
    /// error ignored), unless --keep-old. A robot whose PackageManager has install(o)
    /// (NAOqi 2.5 and later) reads the package over this connection (choreo serves it as a
    /// qi::File); NAOqi 2.1 installs only a package already on the robot: copy it there
    /// (scp) and give --remote-path.
    #[command(after_help = crate::cli::help::ROBOT)]
    Install {
        #[command(flatten)]
        target: RobotTarget,
        /// The package (.pkg).
        package: PathBuf,
        /// The package's path on the robot, already copied there (`install(s)`), e.g.
        /// /home/nao/app.pkg: required by NAOqi 2.1.
        #[arg(long, value_name = "PATH")]
        remote_path: Option<String>,
        /// Keep the installed package of the same uuid (no removePkg first).
        #[arg(long)]
        keep_old: bool,
    },
    /// ALMemory values live: each key's value now, then every change, until Ctrl-C.
    #[command(after_help = crate::cli::help::ROBOT)]
    Watch {
        #[command(flatten)]
        target: RobotTarget,
        /// The keys (`FrontTactilTouched`, `Device/SubDeviceList/Battery/Charge/Sensor/Value`).
        #[arg(required = true)]
        keys: Vec<String>,
        /// Stop after this many seconds.
        #[arg(long = "for", value_name = "SECONDS", value_parser = timeout_secs)]
        duration: Option<f64>,
        /// Stop after this many changes.
        #[arg(long, value_name = "N")]
        changes: Option<usize>,
    },
}

/// `choreo robot ...`: the robot to reach and what to ask it.
pub fn run(command: RobotCommand) -> CliResult {
    let (target, ask) = match command {
        RobotCommand::Info { target } => (target, Ask::Info),
        RobotCommand::Behaviors { target } => (target, Ask::Behaviors),
        RobotCommand::Services { target } => (target, Ask::Services),
        RobotCommand::Methods { target, service } => (target, Ask::Methods { service }),
        RobotCommand::Call {
            target,
            method,
            args,
        } => (
            target,
            Ask::Call {
                target: method,
                args,
            },
        ),
        RobotCommand::Install {
            target,
            package,
            remote_path,
            keep_old,
        } => (
            target,
            Ask::Install {
                package,
                remote_path,
                keep_old,
            },
        ),
        RobotCommand::Watch {
            target,
            keys,
            duration,
            changes,
        } => (
            target,
            Ask::Watch {
                keys,
                duration: duration.map(Duration::from_secs_f64),
                changes,
            },
        ),
    };
    let (robot, json) = target.split();
    ask_robot(&robot, json, &ask)
}

/// What to ask the robot.
pub enum Ask {
    /// Its name, NAOqi version, model, body version and battery: what each generation
    /// answers of them.
    Info,
    /// The behaviors ALBehaviorManager has installed, and which of them run.
    Behaviors,
    /// Every service: name, id, endpoints.
    Services,
    /// A service's methods, signals and properties, with their signatures.
    Methods {
        /// The service (`ALTextToSpeech`).
        service: String,
    },
    /// Calls a method and prints what it returns.
    Call {
        /// `SERVICE.METHOD`.
        target: String,
        /// The arguments, each a JSON value (`"hello"`, `1.5`, `[1, 2]`).
        args: Vec<String>,
    },
    /// ALMemory values: now, then each change (`ALMemory.subscriber(key).signal`).
    Watch {
        /// The keys.
        keys: Vec<String>,
        /// Stop after this long (otherwise at Ctrl-C).
        duration: Option<Duration>,
        /// Stop after this many changes.
        changes: Option<usize>,
    },
    /// Installs an application package (`.pkg`) through PackageManager.
    Install {
        /// The package file.
        package: PathBuf,
        /// Where the package was copied on the robot (`install(s)`; NAOqi 2.1 needs it).
        remote_path: Option<String>,
        /// Do not remove the installed package of the same uuid first.
        keep_old: bool,
    },
}

/// Runs `ask` against the robot `robot` names; `json`: print JSON.
fn ask_robot(robot: &RobotArgs, json: bool, ask: &Ask) -> CliResult {
    // Arguments are checked before anything is sent.
    let call = match ask {
        Ask::Call { target, args } => match call_parts(target, args) {
            Ok(c) => Some(c),
            Err(why) => {
                return Err(CliError::Usage(why.to_string()));
            }
        },
        _ => None,
    };
    let package = match ask {
        Ask::Install {
            package,
            remote_path,
            ..
        } => {
            if let Some(Err(why)) = remote_path.as_deref().map(install::check_remote_path) {
                return Err(CliError::Usage(why.to_string()));
            }
            match install::read_package(package) {
                Ok(p) => Some(p),
                Err(why) => {
                    return Err(CliError::Load(why.to_string()));
                }
            }
        }
        _ => None,
    };
    let options = match robot.options() {
        Ok(o) => o,
        Err(e) => {
            return Err(CliError::Usage(e.to_string()));
        }
    };
    let session = match Session::connect_with(
        &robot.url,
        choreo_qi::SessionOptions {
            reconnect: false,
            ..options
        },
    ) {
        Ok(s) => s,
        Err(e) => {
            return Err(CliError::Robot(with_help(
                format!("{}: cannot reach the robot: {e}", robot.url),
                ROBOT_FIX,
            )));
        }
    };
    let code = match (ask, call) {
        (Ask::Info, _) => info(&session, json),
        (Ask::Behaviors, _) => behaviors(&session, json),
        (Ask::Services, _) => services(&session, json),
        (Ask::Methods { service }, _) => methods(&session, service, json),
        (Ask::Call { .. }, Some((service, method, args))) => {
            call_method(&session, &service, &method, &args, json)
        }
        (Ask::Call { .. }, None) => Ok(exit::USAGE),
        (
            Ask::Watch {
                keys,
                duration,
                changes,
            },
            _,
        ) => watch(&session, keys, *duration, *changes, json),
        (
            Ask::Install {
                remote_path,
                keep_old,
                ..
            },
            _,
        ) => match &package {
            Some(package) => install::install(
                &session,
                &robot.url,
                package,
                &install::Options {
                    remote_path: remote_path.clone(),
                    keep_old: *keep_old,
                },
                json,
            ),
            None => Ok(exit::USAGE),
        },
    };
    session.close();
    code
}

/// `SERVICE.METHOD` and JSON arguments, as values.
fn call_parts(target: &str, args: &[String]) -> Result<(String, String, Vec<Value>), String> {
    let Some((service, method)) = target.rsplit_once('.') else {
        return Err(format!(
            "{target:?}: expected SERVICE.METHOD (ALTextToSpeech.say)"
        ));
    };
    if service.is_empty() || method.is_empty() {
        return Err(format!(
            "{target:?}: expected SERVICE.METHOD (ALTextToSpeech.say)"
        ));
    }
    let values = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            serde_json::from_str::<serde_json::Value>(a)
                .map(|j| choreo_stack::conditions::json_value(&j))
                .map_err(|e| {
                    format!(
                        "argument {} ({a:?}) is not JSON: {e} (a string needs its quotes: '\"hello\"')",
                        i + 1
                    )
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((service.to_string(), method.to_string(), values))
}

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
fn info(session: &Session, json: bool) -> CliResult {
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
fn behaviors(session: &Session, json: bool) -> CliResult {
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

fn services(session: &Session, json: bool) -> CliResult {
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

fn methods(session: &Session, service: &str, json: bool) -> CliResult {
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

fn call_method(
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
fn watch(
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
