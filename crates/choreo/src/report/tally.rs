//! What the run report says, gathered from the trace while the behavior runs: boxes run,
//! robot calls, exceptions (summarized from their tracebacks), errors boxes logged, and, for
//! a run that ends waiting, what it was waiting on.

use std::collections::{BTreeMap, BTreeSet};

use choreo_engine::clock::Time;
use choreo_engine::trace::{Event, Step};

use crate::report::{Failure, Logged, logged_error};

/// The report's facts, gathered event by event.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Exceptions that escaped box code, in order.
    pub failures: Vec<Failure>,
    /// Errors boxes logged, in order.
    pub logged: Vec<Logged>,
    /// Boxes whose inputs were stimulated.
    pub boxes_run: BTreeSet<String>,
    /// Robot calls per service (from the trace: the same for every robot).
    pub calls: BTreeMap<String, u64>,
    /// Robot calls that failed, per `Service.method`.
    pub failed_calls: BTreeMap<String, u64>,
    /// Robot calls a scenario's stub answered, per `Service.method`.
    pub stubbed: BTreeMap<String, u64>,
    /// Hooks called and not returned, per (box, hook).
    running: BTreeMap<(String, String), usize>,
    /// Blocking robot calls made and not returned, per (box, `Service.method`).
    calling: BTreeMap<(String, String), usize>,
    /// Boxes that received an input and fired no output since (loaded ones), with when.
    started: BTreeMap<String, u64>,
    /// What was still running when the behavior was stopped (its first `stop`).
    pub running_at_stop: Option<Vec<String>>,
    /// The behavior is destroyed (its first `del`): what box threads that outlive their
    /// box do afterwards is not the run's, and is not counted; but an error of a hook that
    /// was running then is.
    over: bool,
}

fn add<K: Ord>(map: &mut BTreeMap<K, usize>, key: K, by: isize) {
    let n = map.entry(key).or_default();
    *n = n.saturating_add_signed(by);
}

impl Tally {
    /// Whether the behavior was destroyed: later events are not the run's.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Counts event `e`; `stubbed`: a scenario's stub answers this robot call.
    pub fn record(&mut self, e: &Event, stubbed: bool) {
        if self.over {
            // A hook that was running when the run ended can raise after it (a stock box
            // fires onStopped in a `finally`, then the error goes on): the run's error.
            if let Step::Err { hook, text } = &e.step
                && self
                    .running
                    .get(&(e.path.clone(), hook.clone()))
                    .is_some_and(|n| *n > 0)
            {
                self.failures.push(Failure::new(&e.path, hook, text));
            }
            return;
        }
        let path = &e.path;
        // A nested run's end and stop are not the run's.
        let outer = !crate::nested::of_nested_run(path);
        match &e.step {
            Step::Del if outer => {
                self.over = true;
                self.started.remove(path);
            }
            Step::Call { hook } => {
                if hook.starts_with("onInput_") {
                    self.boxes_run.insert(path.clone());
                }
                if hook == "onUnload" {
                    self.started.remove(path);
                }
                add(&mut self.running, (path.clone(), hook.clone()), 1);
            }
            Step::Ret { hook, .. } => add(&mut self.running, (path.clone(), hook.clone()), -1),
            Step::In { .. } => {
                self.started.entry(path.clone()).or_insert(e.time_ns);
            }
            Step::Out { .. } => {
                self.started.remove(path);
            }
            Step::Err { hook, text } => self.failures.push(Failure::new(path, hook, text)),
            Step::RobotCall { method, .. } => {
                let service = method.split('.').next().unwrap_or_default();
                *self.calls.entry(service.to_string()).or_default() += 1;
                if stubbed {
                    *self.stubbed.entry(method.clone()).or_default() += 1;
                }
                add(&mut self.calling, (path.clone(), method.clone()), 1);
            }
            Step::RobotReturn { method, ok, .. } => {
                if !ok {
                    *self.failed_calls.entry(method.clone()).or_default() += 1;
                }
                add(&mut self.calling, (path.clone(), method.clone()), -1);
            }
            Step::Behavior { what }
                if outer && what == "stop" && self.running_at_stop.is_none() =>
            {
                self.running_at_stop = Some(self.still_running());
            }
            _ => {}
        }
        if let Some(logged) = logged_error(path, &e.step) {
            self.logged.push(logged);
        }
    }

    /// Box code that has not returned: the robot calls it waits in, else its hooks.
    fn still_running(&self) -> Vec<String> {
        let calls: Vec<String> = self
            .calling
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|((path, method), _)| format!("{path} waits for {method} to return"))
            .collect();
        let waiting: BTreeSet<&str> = self
            .calling
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|((path, _), _)| path.as_str())
            .collect();
        let hooks = self
            .running
            .iter()
            .filter(|((path, _), n)| **n > 0 && !waiting.contains(path.as_str()))
            .map(|((path, hook), _)| format!("{path} is still in {hook}"));
        // Started boxes that wait themselves, not through a box inside them; the root
        // waits for the behavior to end, which says nothing.
        let started = self.started.iter().filter(|(path, _)| {
            path.contains('/')
                && !waiting.contains(path.as_str())
                && !self
                    .started
                    .keys()
                    .any(|other| other.starts_with(&format!("{path}/")))
        });
        let started = started.map(|(path, at)| {
            format!(
                "{path}: started at {:.2} s, no output since",
                Time(*at).as_secs_f64()
            )
        });
        calls.into_iter().chain(hooks).chain(started).collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::report::failure::TRACEBACK;
    use choreo_engine::Value;

    #[test]
    fn an_error_of_a_hook_running_at_the_end_counts_and_a_stray_one_does_not() {
        let mut t = Tally::default();
        let hook = || "onInput_onStart".to_string();
        t.record(&event("root/Oops", Step::Call { hook: hook() }), false);
        t.record(&event("root", Step::Del), false);
        assert!(t.is_over());
        let err = |hook: String| Step::Err {
            hook,
            text: TRACEBACK.to_string(),
        };
        t.record(&event("root/Oops", err(hook())), false);
        t.record(&event("root/Other", err(hook())), false);
        assert_eq!(t.failures.len(), 1, "{:?}", t.failures);
        assert_eq!(
            t.failures[0].to_string(),
            "root/Oops line 7 (onInput_onStart): ValueError: boom"
        );
    }

    fn event(path: &str, step: Step) -> Event {
        Event {
            seq: 0,
            time_ns: 0,
            path: path.into(),
            step,
        }
    }

    #[test]
    fn logged_errors_are_counted_apart_from_exceptions() {
        let mut t = Tally::default();
        let log = |level: &str| Step::Log {
            level: level.into(),
            message: "no ball".into(),
        };
        t.record(&event("root/A", log("error")), false);
        t.record(&event("root/A", log("warning")), false);
        t.record(
            &event(
                "root/B",
                Step::RobotCall {
                    method: "ALLogger.error".into(),
                    args: vec![Value::String("B".into()), Value::String("lost".into())],
                },
            ),
            false,
        );
        t.record(
            &event(
                "root/C",
                Step::Err {
                    hook: "onLoad".into(),
                    text: TRACEBACK.into(),
                },
            ),
            false,
        );
        let logged: Vec<String> = t.logged.iter().map(ToString::to_string).collect();
        assert_eq!(logged, ["root/A: no ball", "root/B: lost"]);
        assert_eq!(t.failures.len(), 1);
    }

    #[test]
    fn what_still_runs_at_the_stop_is_kept() {
        let mut t = Tally::default();
        let call = |hook: &str| Step::Call { hook: hook.into() };
        t.record(&event("root/A", call("onInput_onStart")), false);
        t.record(&event("root/B", call("onInput_onStart")), false);
        t.record(
            &event(
                "root/B",
                Step::RobotCall {
                    method: "ALFoo.wait".into(),
                    args: vec![],
                },
            ),
            true,
        );
        t.record(
            &event(
                "",
                Step::Behavior {
                    what: "stop".into(),
                },
            ),
            false,
        );
        t.record(
            &event(
                "root/A",
                Step::Ret {
                    hook: "onInput_onStart".into(),
                    ok: true,
                },
            ),
            false,
        );
        assert_eq!(
            t.running_at_stop.unwrap(),
            [
                "root/B waits for ALFoo.wait to return",
                "root/A is still in onInput_onStart"
            ]
        );
        assert_eq!(t.stubbed.get("ALFoo.wait"), Some(&1));
        assert_eq!(t.boxes_run.len(), 2);
    }

    #[test]
    fn the_innermost_started_boxes_without_output_are_what_waits() {
        let mut t = Tally::default();
        let input = |port: &str| Step::In {
            port: port.into(),
            value: Value::None,
        };
        t.record(&event("root", input("onStart")), false);
        t.record(&event("root/Ask", input("onStart")), false);
        t.record(
            &event(
                "root/Ask",
                Step::Out {
                    port: "onStopped".into(),
                    value: Value::None,
                },
            ),
            false,
        );
        t.record(&event("root/Menu", input("onStart")), false);
        t.record(&event("root/Menu/Listen", input("onStart")), false);
        t.record(
            &event(
                "",
                Step::Behavior {
                    what: "stop".into(),
                },
            ),
            false,
        );
        assert_eq!(
            t.running_at_stop.unwrap(),
            ["root/Menu/Listen: started at 0.00 s, no output since"]
        );
    }
}
