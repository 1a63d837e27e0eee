//! What a stack run shows live (its trace file: [`crate::stack_driver::json_lines`]).

use std::time::Duration;

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
