//! ALBehaviorManager runs the behaviors a launcher gives as nested runs on the time base of
//! the run that asks: `runBehavior` waits for the end, `startBehavior` does not,
//! `stopBehavior`/`stopAllBehaviors` stop, the queries tell the truth, unknown names and
//! behaviors already running raise, and a nested `say` takes the same behavior time.

use crate::support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::{
    Activity, BoxContext, Engine, Hook, NativeHost, Options, Outcome, Robot, ScriptError, Trace,
    Value,
};
use choreo_naoqi::{BehaviorLauncher, LaunchError, Model, SimRobot, behavior_names};
use support::{behavior, boxed, link, s};

/// What a box does on onStart; it then fires onStopped unless `stops` is false.
type BoxFn = Arc<dyn Fn(&BoxContext) -> Result<(), ScriptError> + Send + Sync>;

/// A behavior of one box, `Main`.
#[derive(Clone)]
struct OneBox {
    main: BoxFn,
    /// Main fires onStopped after its code (else the behavior runs until stopped).
    stops: bool,
}

fn one_box(
    stops: bool,
    f: impl Fn(&BoxContext) -> Result<(), ScriptError> + Send + Sync + 'static,
) -> OneBox {
    OneBox {
        main: Arc::new(f),
        stops,
    }
}

impl OneBox {
    fn xml(&self) -> String {
        behavior(&format!(
            "{}{}{}",
            boxed("Main", 1, "", ""),
            link(0, 2, 1, 2),
            link(1, 4, 0, 4)
        ))
    }

    fn host(&self) -> NativeHost {
        let main = Arc::clone(&self.main);
        let stops = self.stops;
        NativeHost::new().with("Main", move |hook, ctx| {
            match hook {
                Hook::Input { name, .. } if name == "onStart" => {
                    main(ctx)?;
                    if stops {
                        ctx.fire("onStopped", Value::None)?;
                    }
                }
                Hook::Unload => ctx.log("info", "unloaded"),
                _ => {}
            }
            Ok(())
        })
    }

    fn load(&self, options: Options) -> Result<Engine, choreo_engine::EngineError> {
        let x = choreo_xar::read_xar("t.xar", self.xml().as_bytes())
            .expect("reads")
            .value;
        Engine::load(&x, &self.host(), options)
    }
}

/// The project's behaviors, by name; nested runs trace under `<name after the />:`.
struct Launcher {
    behaviors: BTreeMap<String, OneBox>,
    trace: Trace,
    robot: SimRobot,
    strict: bool,
}

impl BehaviorLauncher for Launcher {
    fn installed(&self) -> Vec<String> {
        self.behaviors.keys().cloned().collect()
    }

    fn load(&self, name: &str, time: Arc<Activity>) -> Result<Engine, LaunchError> {
        let b = self
            .behaviors
            .get(name)
            .ok_or_else(|| LaunchError::NotInstalled(name.to_string()))?;
        let folder = name.rsplit('/').next().unwrap_or(name);
        b.load(Options {
            trace: self.trace.prefixed(&format!("{folder}:")),
            robot: Some(Arc::new(self.robot.clone())),
            time_base: Some(time),
            strict: self.strict,
            ..Default::default()
        })
        .map_err(LaunchError::Load)
    }
}

/// Runs `outer` (played as `pkg/outer`) on a robot whose launcher has `behaviors`, in virtual
/// time, to its end; the outcome and the trace.
fn play(behaviors: Vec<(&str, OneBox)>, outer: OneBox, strict: bool) -> (Outcome, Vec<String>) {
    let robot = SimRobot::new(Model::Nao);
    let trace = Trace::keep_all();
    let mut all: BTreeMap<String, OneBox> = behaviors
        .into_iter()
        .map(|(n, b)| (n.to_string(), b))
        .collect();
    all.insert("pkg/outer".to_string(), outer.clone());
    robot.set_launcher(Some(Arc::new(Launcher {
        behaviors: all,
        trace: trace.clone(),
        robot: robot.clone(),
        strict,
    })));
    let engine = Arc::new(
        outer
            .load(Options {
                virtual_time: true,
                trace: trace.clone(),
                robot: Some(Arc::new(robot.clone())),
                time_limit: Some(Duration::from_secs(600)),
                strict,
                ..Default::default()
            })
            .expect("loads"),
    );
    robot.behavior_started("pkg/outer", &engine);
    engine.start();
    let mut outcome = engine.wait(Duration::from_secs(30));
    if !outcome.is_final() {
        engine.stop();
        outcome = engine.wait(Duration::from_secs(30));
    }
    robot.stop_behaviors();
    robot.set_launcher(None);
    drop(engine);
    (outcome, trace.events().iter().map(|e| e.short()).collect())
}

/// Calls ALBehaviorManager.
fn bm(ctx: &BoxContext, method: &str, args: Vec<Value>) -> Result<Value, ScriptError> {
    ctx.call_robot("ALBehaviorManager", method, args)
        .map_err(|e| ScriptError::new(e.to_string()))
}

/// Calls ALBehaviorManager and logs the result or the error.
fn bm_logged(ctx: &BoxContext, method: &str, name: &str) {
    match ctx.call_robot("ALBehaviorManager", method, vec![s(name)]) {
        Ok(v) => ctx.log("info", &format!("{method}({name}) = {v}")),
        Err(e) => ctx.log("info", &format!("{method}({name}) raised: {e}")),
    }
}

fn has(trace: &[String], line: &str) -> bool {
    trace.iter().any(|l| l == line)
}

fn find<'a>(trace: &'a [String], part: &str) -> &'a str {
    trace
        .iter()
        .find(|l| l.contains(part))
        .unwrap_or_else(|| panic!("no {part:?} in the trace:\n{}", trace.join("\n")))
}

fn say_hello() -> OneBox {
    one_box(true, |ctx| {
        ctx.call_robot("ALTextToSpeech", "say", vec![s("hello there, how are you")])
            .map_err(|e| ScriptError::new(e.to_string()))?;
        Ok(())
    })
}

#[test]
fn names_are_those_of_the_package_and_of_the_last_upload() {
    assert_eq!(
        behavior_names(Some("graduation-b21c84"), "selfie_raw_behavior"),
        vec![
            "graduation-b21c84/selfie_raw_behavior".to_string(),
            ".lastUploadedChoregrapheBehavior/selfie_raw_behavior".to_string(),
        ]
    );
    assert_eq!(
        behavior_names(None, "behavior_1/"),
        vec![".lastUploadedChoregrapheBehavior/behavior_1".to_string()]
    );
}

#[test]
fn run_behavior_waits_for_the_nested_run_and_a_nested_say_takes_the_same_time() {
    // The same say, directly and in a nested behavior: the same behavior seconds.
    let direct = Arc::new(Mutex::new(0.0));
    let d = Arc::clone(&direct);
    let (outcome, _) = play(
        vec![],
        one_box(true, move |ctx| {
            let t0 = ctx.now().as_secs_f64();
            (say_hello().main)(ctx)?;
            *d.lock().unwrap() = ctx.now().as_secs_f64() - t0;
            Ok(())
        }),
        false,
    );
    assert_eq!(outcome, Outcome::Finished);
    let direct = *direct.lock().unwrap();
    assert!(direct > 0.5, "a say takes time: {direct}");

    let nested = Arc::new(Mutex::new(0.0));
    let n = Arc::clone(&nested);
    let (outcome, trace) = play(
        vec![("pkg/say", say_hello())],
        one_box(true, move |ctx| {
            let t0 = ctx.now().as_secs_f64();
            bm(ctx, "runBehavior", vec![s("pkg/say")])?;
            *n.lock().unwrap() = ctx.now().as_secs_f64() - t0;
            Ok(())
        }),
        false,
    );
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(*nested.lock().unwrap(), direct);
    support::assert_in_order(
        &trace,
        &[
            "root/Main svc ALBehaviorManager.runBehavior(\"pkg/say\")",
            "say:root/Main new",
            "say: beh start",
            "say:root/Main svc ALTextToSpeech.say(\"hello there, how are you\")",
            "say:root/Main svc_ret ALTextToSpeech.say",
            "say: beh end",
            "say:root/Main del",
            "root/Main svc_ret ALBehaviorManager.runBehavior",
            "beh end",
        ],
    );
}

#[test]
fn start_returns_once_started_and_stop_unloads_the_nested_run() {
    let (outcome, trace) = play(
        vec![("pkg/forever", one_box(false, |_| Ok(())))],
        one_box(true, |ctx| {
            bm_logged(ctx, "isBehaviorRunning", "pkg/forever");
            bm(ctx, "startBehavior", vec![s("pkg/forever")])?;
            bm_logged(ctx, "isBehaviorRunning", "pkg/forever");
            let running = bm(ctx, "getRunningBehaviors", vec![])?;
            ctx.log("info", &format!("running {running}"));
            ctx.sleep(Duration::from_secs(2));
            bm(ctx, "stopBehavior", vec![s("pkg/forever")])?;
            bm_logged(ctx, "isBehaviorRunning", "pkg/forever");
            Ok(())
        }),
        false,
    );
    assert_eq!(outcome, Outcome::Finished);
    support::assert_in_order(
        &trace,
        &[
            "root/Main log info: isBehaviorRunning(pkg/forever) = False",
            "forever: beh start",
            "forever:root/Main call onInput_onStart",
            "root/Main log info: isBehaviorRunning(pkg/forever) = True",
            "root/Main log info: running [\"pkg/forever\", \"pkg/outer\"]",
            "forever: beh stop",
            "forever:root/Main log info: unloaded",
            "forever:root/Main del",
            "root/Main log info: isBehaviorRunning(pkg/forever) = False",
            "beh end",
        ],
    );
}

/// The behavior time `f` takes, in seconds.
fn seconds(
    ctx: &BoxContext,
    f: impl FnOnce() -> Result<(), ScriptError>,
) -> Result<f64, ScriptError> {
    let t0 = ctx.now().as_secs_f64();
    f()?;
    Ok(ctx.now().as_secs_f64() - t0)
}

#[test]
fn a_posted_run_behavior_returns_its_task_id_at_once_and_wait_returns_at_the_runs_end() {
    // NAOqi's own example (albehaviormanager_example.py, 2.1): "This is a blocking call,
    // use post if you do not want to wait for the behavior to finish", then
    // `post.runBehavior(name)`, `time.sleep(0.5)`, and the behavior is among those running.
    // What the poster sees, in order; and the nested say's length, run directly.
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let direct = Arc::new(Mutex::new(0.0));
    let d = Arc::clone(&direct);
    play(
        vec![],
        one_box(true, move |ctx| {
            *d.lock().unwrap() = seconds(ctx, || (say_hello().main)(ctx))?;
            Ok(())
        }),
        false,
    );
    let seen2 = Arc::clone(&seen);
    let (outcome, trace) = play(
        vec![("pkg/say", say_hello())],
        one_box(true, move |ctx| {
            let mut id = 0;
            let posting = seconds(ctx, || {
                id = ctx
                    .post_robot("ALBehaviorManager", "runBehavior", vec![s("pkg/say")])
                    .map_err(|e| ScriptError::new(e.to_string()))?;
                Ok(())
            })?;
            ctx.sleep(Duration::from_millis(500));
            let running = bm(ctx, "isBehaviorRunning", vec![s("pkg/say")])?;
            let task = bm(ctx, "isRunning", vec![Value::Int(id)])?;
            let mut waited = Value::None;
            let end = 0.5
                + seconds(ctx, || {
                    waited = bm(ctx, "wait", vec![Value::Int(id), Value::Int(0)])?;
                    Ok(())
                })?;
            let after = bm(ctx, "isBehaviorRunning", vec![s("pkg/say")])?;
            let task_after = bm(ctx, "isRunning", vec![Value::Int(id)])?;
            seen2.lock().unwrap().extend([
                format!("posting took {posting} s"),
                format!("after 0.5 s: running {running}, task running {task}"),
                format!("wait returned {waited}"),
                format!("after: running {after}, task running {task_after}"),
                format!("{end}"),
            ]);
            Ok(())
        }),
        false,
    );
    assert_eq!(outcome, Outcome::Finished);
    let mut seen = seen.lock().unwrap().clone();
    let end: f64 = seen.pop().unwrap().parse().unwrap();
    assert_eq!(
        seen,
        [
            "posting took 0 s",
            "after 0.5 s: running True, task running True",
            // wait's answer: the timeout did not expire first.
            "wait returned False",
            "after: running False, task running False",
        ]
    );
    // The nested run started at once and took as long as its say; a waiter sees its end
    // within one stop poll (40 ms of behavior time, docs/simulated-robot.md B3).
    let direct = *direct.lock().unwrap();
    assert!(direct > 0.5, "a say takes time: {direct}");
    assert!(
        end >= direct && end < direct + 0.040 + 1e-9,
        "wait returned at {end} s, the run took {direct} s"
    );
    support::assert_in_order(
        &trace,
        &[
            "root/Main svc ALBehaviorManager.post.runBehavior(\"pkg/say\")",
            "root/Main svc_ret ALBehaviorManager.post.runBehavior",
            "say: beh start",
            "say:root/Main svc ALTextToSpeech.say(\"hello there, how are you\")",
            "root/Main svc ALBehaviorManager.isBehaviorRunning(\"pkg/say\")",
            "say: beh end",
            "root/Main svc_ret ALBehaviorManager.wait",
            "beh end",
        ],
    );
}

#[test]
fn a_posted_run_behavior_is_stopped_by_stop_behavior_and_a_missing_one_fails_in_its_task() {
    // The rest of NAOqi's example: the posted behavior is running, stopBehavior stops it.
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen2 = Arc::clone(&seen);
    let (outcome, trace) = play(
        vec![("pkg/forever", one_box(false, |_| Ok(())))],
        one_box(true, move |ctx| {
            let post = |name: &str| {
                ctx.post_robot("ALBehaviorManager", "runBehavior", vec![s(name)])
                    .map_err(|e| ScriptError::new(e.to_string()))
            };
            let id = post("pkg/forever")?;
            ctx.sleep(Duration::from_millis(500));
            let running = bm(ctx, "isBehaviorRunning", vec![s("pkg/forever")])?;
            bm(ctx, "stopBehavior", vec![s("pkg/forever")])?;
            let waited = bm(ctx, "wait", vec![Value::Int(id), Value::Int(0)])?;
            let after = bm(ctx, "isBehaviorRunning", vec![s("pkg/forever")])?;
            // stop(id) releases the task's waiters; the behavior runs on until stopBehavior.
            let again = post("pkg/forever")?;
            ctx.sleep(Duration::from_millis(500));
            bm(ctx, "stop", vec![Value::Int(again)])?;
            let task_after_stop = bm(ctx, "isRunning", vec![Value::Int(again)])?;
            let running_after_stop = bm(ctx, "isBehaviorRunning", vec![s("pkg/forever")])?;
            bm(ctx, "stopBehavior", vec![s("pkg/forever")])?;
            // "Throw if the behavior cannot be started or does not exist": in the task.
            let missing = post("pkg/nope")?;
            let waited_missing = bm(ctx, "wait", vec![Value::Int(missing), Value::Int(0)])?;
            seen2.lock().unwrap().extend([
                format!("running {running}, wait {waited}, after {after}"),
                format!("stop(id): task running {task_after_stop}, behavior running {running_after_stop}"),
                format!("missing: a new id {}, wait {waited_missing}", missing > id),
            ]);
            Ok(())
        }),
        false,
    );
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "running True, wait False, after False",
            "stop(id): task running False, behavior running True",
            "missing: a new id true, wait False",
        ]
    );
    support::assert_in_order(
        &trace,
        &[
            "forever: beh start",
            "root/Main svc ALBehaviorManager.stopBehavior(\"pkg/forever\")",
            "forever: beh stop",
            "forever:root/Main del",
            "root/Main svc_ret ALBehaviorManager.stopBehavior",
            "beh end",
        ],
    );
}

#[test]
fn unknown_names_and_behaviors_already_running_raise() {
    let (outcome, trace) = play(
        vec![("pkg/say", say_hello())],
        one_box(true, |ctx| {
            bm_logged(ctx, "runBehavior", "pkg/nope");
            bm_logged(ctx, "startBehavior", "nope");
            bm_logged(ctx, "isBehaviorInstalled", "pkg/nope");
            bm_logged(ctx, "isBehaviorInstalled", "pkg/say");
            // The behavior played is running: it cannot be started again (nor run itself).
            bm_logged(ctx, "runBehavior", "pkg/outer");
            let installed = bm(ctx, "getInstalledBehaviors", vec![])?;
            ctx.log("info", &format!("installed {installed}"));
            Ok(())
        }),
        false,
    );
    assert_eq!(outcome, Outcome::Finished);
    assert!(
        has(
            &trace,
            "root/Main log info: runBehavior(pkg/nope) raised: ALBehaviorManager.runBehavior: behavior \"pkg/nope\" is not installed"
        ),
        "{trace:#?}"
    );
    assert!(find(&trace, "startBehavior(nope) raised").contains("is not installed"));
    assert!(has(
        &trace,
        "root/Main log info: isBehaviorInstalled(pkg/nope) = False"
    ));
    assert!(has(
        &trace,
        "root/Main log info: isBehaviorInstalled(pkg/say) = True"
    ));
    assert!(find(&trace, "runBehavior(pkg/outer) raised").contains("is already running"));
    assert!(has(
        &trace,
        "root/Main log info: installed [\"pkg/outer\", \"pkg/say\"]"
    ));
}

#[test]
fn a_behavior_that_runs_itself_or_its_caller_is_refused() {
    // a runs b, which runs a: refused, a is running (and b running itself too).
    let calls = |target: &'static str| {
        one_box(true, move |ctx| {
            bm_logged(ctx, "runBehavior", target);
            Ok(())
        })
    };
    let (outcome, trace) = play(
        vec![("pkg/a", calls("pkg/b")), ("pkg/b", calls("pkg/a"))],
        calls("pkg/a"),
        false,
    );
    assert_eq!(outcome, Outcome::Finished, "{trace:#?}");
    assert!(
        find(&trace, "b:root/Main log info: runBehavior(pkg/a) raised")
            .contains("behavior \"pkg/a\" is already running")
    );
    assert!(has(
        &trace,
        "a:root/Main log info: runBehavior(pkg/b) = None"
    ));
    assert!(has(&trace, "root/Main log info: runBehavior(pkg/a) = None"));
}

#[test]
fn stop_all_behaviors_stops_the_nested_runs_and_the_caller() {
    let (outcome, trace) = play(
        vec![("pkg/forever", one_box(false, |_| Ok(())))],
        one_box(false, |ctx| {
            bm(ctx, "startBehavior", vec![s("pkg/forever")])?;
            ctx.sleep(Duration::from_secs(1));
            bm(ctx, "stopAllBehaviors", vec![])?;
            ctx.log("info", "after stopAllBehaviors");
            Ok(())
        }),
        false,
    );
    // As on a robot, the behavior that calls it is stopped too.
    assert_eq!(outcome, Outcome::Stopped);
    support::assert_in_order(
        &trace,
        &[
            "forever:root/Main call onInput_onStart",
            "forever: beh stop",
            "forever:root/Main del",
        ],
    );
    support::assert_in_order(
        &trace,
        &["beh stop", "root/Main log info: unloaded", "root/Main del"],
    );
}

#[test]
fn a_nested_run_that_fails_makes_run_behavior_raise_in_strict_mode() {
    let (outcome, trace) = play(
        vec![(
            "pkg/fails",
            one_box(true, |_| Err(ScriptError::new("RuntimeError: boom"))),
        )],
        one_box(true, |ctx| {
            bm_logged(ctx, "runBehavior", "pkg/fails");
            Ok(())
        }),
        true,
    );
    assert!(has(
        &trace,
        "fails:root/Main err onInput_onStart: RuntimeError: boom"
    ));
    assert!(
        find(&trace, "runBehavior(pkg/fails) raised")
            .contains("failed: root/Main (onInput_onStart): RuntimeError: boom")
    );
    // Raised in the box code that waited, which caught it: the run goes on to its end.
    assert_eq!(outcome, Outcome::Finished);
}

/// A behavior that runs 1 s of behavior time, then fails.
fn fails_after_a_second() -> OneBox {
    one_box(true, |ctx| {
        ctx.log("info", "failing now");
        ctx.sleep(Duration::from_secs(1));
        Err(ScriptError::new("RuntimeError: boom"))
    })
}

/// The outcome of a strict run stopped by `fails_after_a_second`, run as `pkg/fails`.
fn failed_in_fails() -> Outcome {
    Outcome::Failed {
        path: "fails:root/Main".to_string(),
        hook: "onInput_onStart".to_string(),
        message: "RuntimeError: boom".to_string(),
    }
}

#[test]
fn a_started_behavior_that_fails_stops_a_strict_run_and_not_a_lenient_one() {
    // Nobody waits for a behavior started with startBehavior: its error reaches no box code.
    // A strict run stops at it as at an error of its own boxes; a lenient one goes on.
    let outer = || {
        one_box(true, |ctx| {
            bm(ctx, "startBehavior", vec![s("pkg/fails")])?;
            ctx.sleep(Duration::from_secs(3));
            ctx.log("info", "after 3 s");
            Ok(())
        })
    };
    let (outcome, trace) = play(vec![("pkg/fails", fails_after_a_second())], outer(), true);
    assert_eq!(outcome, failed_in_fails(), "{}", trace.join("\n"));
    support::assert_in_order(
        &trace,
        &[
            "fails:root/Main log info: failing now",
            "fails:root/Main err onInput_onStart: RuntimeError: boom",
            "log info: fails:root/Main failed in a behavior nobody waits for: the run stops \
             (strict)",
            "beh stop",
            "root/Main call onUnload",
        ],
    );
    // Stopped at 1 s, before its box's hook woke up.
    assert!(!has(&trace, "root/Main log info: after 3 s"));
    let (outcome, trace) = play(vec![("pkg/fails", fails_after_a_second())], outer(), false);
    assert_eq!(outcome, Outcome::Finished, "{}", trace.join("\n"));
    assert!(has(&trace, "root/Main log info: after 3 s"));
    assert!(has(
        &trace,
        "fails:root/Main err onInput_onStart: RuntimeError: boom"
    ));
    assert!(!trace.iter().any(|l| l.contains("the run stops (strict)")));
    assert!(!has(&trace, "beh stop"));
}

#[test]
fn a_posted_run_behavior_that_fails_stops_a_strict_run() {
    // A posted runBehavior raises in its task, which no box code waits on: as a started
    // behavior, its failure stops a strict run.
    let (outcome, trace) = play(
        vec![("pkg/fails", fails_after_a_second())],
        one_box(false, |ctx| {
            ctx.post_robot("ALBehaviorManager", "runBehavior", vec![s("pkg/fails")])
                .map_err(|e| ScriptError::new(e.to_string()))?;
            Ok(())
        }),
        true,
    );
    assert_eq!(outcome, failed_in_fails(), "{}", trace.join("\n"));
    support::assert_in_order(
        &trace,
        &[
            "fails:root/Main err onInput_onStart: RuntimeError: boom",
            "log info: fails:root/Main failed in a behavior nobody waits for: the run stops \
             (strict)",
            "beh stop",
        ],
    );
}

#[test]
fn without_a_launcher_installed_names_are_only_recorded() {
    let robot = SimRobot::new(Model::Nao);
    robot.install_behavior("pkg/b");
    let call = |m: &str, args: Vec<Value>| robot.call("ALBehaviorManager", m, args);
    assert_eq!(
        call("isBehaviorInstalled", vec![s("pkg/b")]).unwrap(),
        Value::Bool(true)
    );
    assert!(call("runBehavior", vec![s("pkg/x")]).is_err());
    call("startBehavior", vec![s("pkg/b")]).unwrap();
    assert_eq!(
        call("isBehaviorRunning", vec![s("pkg/b")]).unwrap(),
        Value::Bool(true)
    );
    call("stopBehavior", vec![s("pkg/b")]).unwrap();
    assert_eq!(
        call("isBehaviorRunning", vec![s("pkg/b")]).unwrap(),
        Value::Bool(false)
    );
    assert_eq!(
        call("getInstalledBehaviors", vec![]).unwrap(),
        Value::List(vec![s("pkg/b")])
    );
}
