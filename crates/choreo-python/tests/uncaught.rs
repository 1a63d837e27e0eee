//! E2: an exception no box code can catch — in a thread the script started, an ALMemory
//! callback, a future's callback, a PeriodicTask — is the box's: logged with its traceback in
//! the trace (never only on the process's stderr), and in strict mode an error of the box
//! that stops the behavior there, as an exception escaping a hook does (E3). A `qi.async`
//! function's exception is only logged: its future holds it for box code to read.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use choreo_engine::{Engine, Options, Outcome, Robot, Trace};
use choreo_python::PythonHost;
use support::robot::TestRobot;
use support::*;

/// Runs box A's `code` (its onStart sets something up that fails 0.5 s later, sleeps 2 s,
/// logs `after` and stops) in virtual time, strict or not; the outcome and the trace.
fn run_strict(code: &str, strict: bool) -> (Outcome, Vec<String>) {
    let x = choreo_xar::read_xar("t.xar", one_box("", code).as_bytes())
        .expect("reads")
        .value;
    let trace = Trace::keep_all();
    let robot: Arc<dyn Robot> = TestRobot::new();
    let engine = Engine::load(
        &x,
        &PythonHost::new(options()),
        Options {
            virtual_time: true,
            trace: trace.clone(),
            robot: Some(robot),
            strict,
            time_limit: Some(Duration::from_secs(600)),
            ..Default::default()
        },
    )
    .expect("loads");
    engine.start();
    let outcome = engine.wait(Duration::from_secs(60));
    if !outcome.is_final() {
        engine.stop();
        let _ = engine.wait(Duration::from_secs(60));
    }
    drop(engine);
    (outcome, trace.events().iter().map(|e| e.short()).collect())
}

/// A box whose onStart runs `set_up` (Python, indented 8) and whose `boom` raises
/// ZeroDivisionError after 0.5 s; its unload stops the PeriodicTask `self.t`, if any (else
/// the task would outlive the run, which the engine's end waits for a while).
fn failing(set_up: &str) -> String {
    format!(
        "
import threading, time, qi

class MyClass(GeneratedClass):
    def onInput_onStart(self):
{set_up}
        time.sleep(2)
        self.log('after')
        self.onStopped()

    def boom(self, *args):
        time.sleep(0.5)
        1 / 0

    def onUnload(self):
        if hasattr(self, 't'):
            self.t.stop()
"
    )
}

/// What strict and lenient runs of `set_up` give: strict fails at 0.5 s with the error of
/// `source`; lenient logs the traceback and goes on to the end.
fn check(set_up: &str, source: &str) {
    let code = failing(set_up);
    let (outcome, t) = run_strict(&code, true);
    let Outcome::Failed {
        path,
        hook,
        message,
    } = &outcome
    else {
        panic!("strict: {outcome:?}\n{}", t.join("\n"));
    };
    assert_eq!((path.as_str(), hook.as_str()), ("root/A", source));
    assert!(
        message.ends_with("ZeroDivisionError: integer division or modulo by zero"),
        "{message}"
    );
    assert_eq!(errors(&t, "root/A").len(), 1, "{}", t.join("\n"));
    assert!(
        errors(&t, "root/A")[0].starts_with(&format!("{source}: Traceback")),
        "{}",
        t.join("\n")
    );
    assert!(
        !t.iter().any(|l| l == "root/A log info: after"),
        "{}",
        t.join("\n")
    );
    assert!(t.iter().any(|l| l == "beh stop"));

    let (outcome, t) = run_strict(&code, false);
    assert_eq!(outcome, Outcome::Finished, "{}", t.join("\n"));
    let logs = logs(&t, "root/A");
    assert!(
        logs.iter().any(|l| l.starts_with("error: Traceback")
            && l.ends_with("ZeroDivisionError: integer division or modulo by zero")),
        "{logs:#?}"
    );
    assert!(logs.iter().any(|l| l == "info: after"), "{logs:#?}");
    assert!(errors(&t, "root/A").is_empty());
}

#[test]
fn an_exception_that_ends_a_thread_is_the_boxs() {
    check(
        "        threading.Thread(target=self.boom, name='worker').start()",
        "thread worker",
    );
}

#[test]
fn an_exception_in_an_almemory_callback_is_the_boxs() {
    check(
        "        self.m = ALProxy('ALMemory')\n        self.m.subscribeToEvent('Ev', self.getName(), 'boom')\n        self.m.raiseEvent('Ev', 1)",
        "boom",
    );
}

#[test]
fn an_exception_in_a_futures_callback_is_the_boxs() {
    check(
        "        qi.async_(lambda: 1).addCallback(self.boom)",
        "future callback",
    );
}

#[test]
fn an_exception_in_a_periodic_task_is_the_boxs() {
    check(
        "        self.t = qi.PeriodicTask()\n        self.t.setCallback(self.boom)\n        self.t.setUsPeriod(10000000)\n        self.t.setName('ticker')\n        self.t.start(True)",
        "ticker",
    );
}

#[test]
fn a_qi_async_functions_exception_is_only_logged_its_future_holds_it() {
    let code =
        failing("        f = qi.async_(self.boom)\n        self.log('error %r' % f.error())");
    for strict in [true, false] {
        let (outcome, t) = run_strict(&code, strict);
        assert_eq!(outcome, Outcome::Finished, "{}", t.join("\n"));
        let logs = logs(&t, "root/A");
        assert!(
            logs.iter()
                .any(|l| l == "info: error 'integer division or modulo by zero'"),
            "{logs:#?}"
        );
        assert!(
            logs.iter().any(|l| l.starts_with("error: Traceback")),
            "{logs:#?}"
        );
    }
}
