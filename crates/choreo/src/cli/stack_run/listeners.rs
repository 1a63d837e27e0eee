//! What a stack run shows live and writes to its trace file.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_base::lock;
use choreo_stack::core::trace::{Event, Record};

use crate::report::fold::Line;
use crate::report::live::{Kind, Live, Verbosity};

use crate::stack_driver::tick_time;

/// Live lines for the stack: what is pushed and popped and by whom, what behaviors log (a
/// dispatcher says why it chose a child), how delegations and actions ended, ticks over
/// budget; with `-v`, every event.
pub(super) fn live_listener(
    live: Live,
    period: Duration,
    verbosity: Verbosity,
) -> choreo_stack::core::trace::Listener {
    let mut stack: Vec<String> = Vec::new();
    // Who delegated to a behavior about to be pushed.
    let mut chosen_by: std::collections::HashMap<String, String> = Default::default();
    Box::new(move |r: &Record, names: &[String]| {
        let n = |b: &choreo_stack::BehaviorId| names.get(b.index()).cloned().unwrap_or_default();
        let at = tick_time(period, r.tick);
        let text = match &r.event {
            Event::Push { b } => {
                stack.push(n(b));
                let why = match chosen_by.remove(&n(b)) {
                    Some(by) => format!(" (delegated by {by})"),
                    None => String::new(),
                };
                Some(format!("stack: {}{why}", stack.join(" > ")))
            }
            Event::Pop { b } => {
                if stack.last() == Some(&n(b)) {
                    stack.pop();
                }
                Some(format!(
                    "stack: {} (popped {})",
                    if stack.is_empty() {
                        "empty".to_string()
                    } else {
                        stack.join(" > ")
                    },
                    n(b)
                ))
            }
            Event::Delegate {
                from,
                to,
                result: Ok(()),
                ..
            } => {
                chosen_by.insert(n(to), n(from));
                None
            }
            Event::Callback { b, payload, .. } => {
                Some(format!("{}: its delegation ended: {payload}", n(b)))
            }
            Event::ActionDone { owner, tag, result } => {
                Some(format!("{}: {tag} done: {result}", n(owner)))
            }
            Event::Log { b, level, text } if level == "error" => {
                live.line(at, Kind::Error, Line::plain(format!("{}: {text}", n(b))));
                None
            }
            Event::Log { b, text, .. } => Some(format!("{}: {text}", n(b))),
            Event::TickOverrun { .. } => Some(
                choreo_stack::core::trace::describe(r, names)
                    .trim()
                    .to_string(),
            ),
            _ if verbosity == Verbosity::Verbose => Some(
                choreo_stack::core::trace::describe(r, names)
                    .trim()
                    .to_string(),
            ),
            _ => None,
        };
        if let Some(t) = text {
            live.line(at, Kind::Info, Line::plain(t));
        }
    })
}

/// The `--trace` file, written by the stack's listener and the engines' trace.
pub(super) type TraceFile = Arc<Mutex<std::io::BufWriter<std::fs::File>>>;

/// A listener writing each stack event as a JSON line, the behaviors named, with its tick's
/// time (ticks every `period`); flushed at each, so that a stack cut short keeps its trace.
pub(super) fn json_lines(out: TraceFile, period: Duration) -> choreo_stack::core::trace::Listener {
    Box::new(move |r: &Record, names: &[String]| {
        let value = record_json(r, names, period);
        let mut out = lock(&out);
        // A trace that cannot be written must not stop the stack.
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    })
}

/// A listener writing each event of the engines (the driver's, the played behaviors', what
/// the robot shows) as `choreo run --trace` does: a line with `seq` and `path`, no `tick`.
pub(super) fn engine_lines(out: TraceFile) -> choreo_engine::trace::Listener {
    Arc::new(move |e: &choreo_engine::trace::Event| {
        if let Ok(line) = serde_json::to_string(e) {
            let _ = writeln!(lock(&out), "{line}");
        }
    })
}

/// A stack event as JSON, each behavior index (`b`, `from`, `to`, `by`, `owner`, `base`)
/// replaced by its name, with `time_ns`, its tick's time (ticks every `period`): a line of
/// `--trace`, an event of the monitor.
pub(super) fn record_json(r: &Record, names: &[String], period: Duration) -> serde_json::Value {
    let mut value = serde_json::to_value(r).unwrap_or_default();
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("time_ns".into(), tick_time(period, r.tick).0.into());
        for key in ["b", "from", "to", "by", "owner", "base"] {
            if let Some(v) = map.get_mut(key)
                && let Some(i) = v.as_u64()
                && let Some(name) = usize::try_from(i).ok().and_then(|i| names.get(i))
            {
                *v = serde_json::Value::String(name.clone());
            }
        }
    }
    value
}
