//! ALLogger: messages logged by scripts (`info(module, message)`, ...), shown to the
//! observer as [`RobotEvent::Log`] when their level is within the verbosity
//! (`setVerbosity("debug")`; "info" at start, as NAOqi's default), counted per level; the
//! handlers added (`logInFile`, `logInForwarder`) are kept and `removeHandler` removes
//! them. Nothing is written to a file.

use std::collections::{BTreeMap, BTreeSet};

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::table::{Op, Service};

/// ALLogger as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALLogger",
    methods: &[
        ("fatal", Op::Own),
        ("error", Op::Own),
        ("warn", Op::Own),
        ("info", Op::Own),
        ("debug", Op::Own),
        ("setVerbosity", Op::Own),
        ("verbosity", Op::Own),
        ("logInFile", Op::Own),
        ("logInForwarder", Op::Own),
        ("removeHandler", Op::Own),
    ],
    own,
    extractor: None,
};

/// Verbosity levels, from 0 (silent) up: a message of level `i` is shown when `i` is at most
/// the verbosity.
const LEVELS: &[&str] = &[
    "none", "fatal", "error", "warning", "info", "verbose", "debug",
];

/// The logger's state.
struct Logger {
    verbosity: usize,
    handlers: BTreeSet<String>,
    counts: BTreeMap<&'static str, u64>,
}

impl Default for Logger {
    fn default() -> Logger {
        Logger {
            verbosity: 4,
            handlers: BTreeSet::new(),
            counts: BTreeMap::new(),
        }
    }
}

fn level_of(method: &str) -> Option<(usize, &'static str)> {
    let name = if method == "warn" { "warning" } else { method };
    LEVELS
        .iter()
        .position(|l| *l == name && *l != "none" && *l != "verbose")
        .map(|i| (i, LEVELS[i]))
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    if let Some((level, name)) = level_of(method) {
        let (source, message) = (a.str(0)?, a.str(1)?);
        let shown = sim.kept("ALLogger", |l: &mut Logger| {
            *l.counts.entry(name).or_default() += 1;
            level <= l.verbosity
        });
        if shown {
            sim.observe(RobotEvent::Log {
                level: name.to_string(),
                source: source.to_string(),
                message: message.to_string(),
            });
        }
        return Ok(Reply::Now(Value::None));
    }
    let value = match method {
        "setVerbosity" => {
            let wanted = a.str(0)?;
            let level = LEVELS
                .iter()
                .position(|l| l.eq_ignore_ascii_case(wanted))
                .ok_or_else(|| a.bad(0, &format!("a verbosity ({})", LEVELS.join(", "))))?;
            sim.kept("ALLogger", |l: &mut Logger| l.verbosity = level);
            sim.notice("ALLogger", format!("verbosity {wanted}"));
            Value::None
        }
        "verbosity" => Value::Int(sim.kept("ALLogger", |l: &mut Logger| l.verbosity) as i64),
        "logInFile" | "logInForwarder" => {
            let handler = a.str(0)?.to_string();
            sim.notice("ALLogger", format!("{method}({handler:?})"));
            sim.kept("ALLogger", |l: &mut Logger| l.handlers.insert(handler));
            Value::None
        }
        "removeHandler" => {
            let handler = a.str(0)?;
            if !sim.kept("ALLogger", |l: &mut Logger| l.handlers.remove(handler)) {
                return Err(CallError::Failed(format!(
                    "{}: no handler {handler:?}",
                    a.name
                )));
            }
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
