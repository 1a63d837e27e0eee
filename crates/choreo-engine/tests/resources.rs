//! Resources (docs/runtime-rules.md §6, R9, R12, R13): one test per rule, asserting the order
//! of events in the trace (virtual time).

use crate::support;

use std::time::Duration;

use choreo_engine::{BoxContext, Hook, NativeHost, ScriptError, Value};
use support::*;

fn resource(name: &str, kind: &str, timeout: i32) -> String {
    format!(r#"<Resource name="{name}" type="{kind}" timeout="{timeout}"/>"#)
}

fn on_start(hook: &Hook) -> bool {
    matches!(hook, Hook::Input { name, .. } if name == "onStart")
}

/// Holds the resource for `secs` of virtual time once started, then finishes.
fn holder(secs: u64) -> impl Fn(&Hook, &BoxContext) -> Result<(), ScriptError> {
    move |hook, ctx| {
        if on_start(hook) {
            ctx.sleep(Duration::from_secs(secs));
            ctx.fire("onStopped", Value::None)?;
        }
        Ok(())
    }
}

/// Finishes as soon as it starts.
fn quick(hook: &Hook, ctx: &BoxContext) -> Result<(), ScriptError> {
    if on_start(hook) {
        ctx.fire("onStopped", Value::None)?;
    }
    Ok(())
}

/// root: onStart -> A.onStart; after `delay` s a timer box T starts B; B.onStopped ->
/// root.onStopped. A holds `a_res`, B asks for `b_res`.
fn contest(a_res: &str, b_res: &str) -> String {
    behavior(&format!(
        "{}{}{}{}{}{}{}",
        boxed("A", 1, a_res, ""),
        boxed("T", 2, "", ""),
        boxed("B", 3, b_res, ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 4, 3, 2),
        link(3, 4, 0, 4)
    ))
}

/// A holds its resources for `secs`, T starts B after 1 s, B finishes at once.
fn contest_host(secs: u64) -> NativeHost {
    NativeHost::new()
        .with("A", holder(secs))
        .with("T", timer)
        .with("B", quick)
}

/// T waits 1 s, then starts B.
fn timer(hook: &Hook, ctx: &BoxContext) -> Result<(), ScriptError> {
    if on_start(hook) {
        ctx.sleep(Duration::from_secs(1));
        ctx.fire("onStopped", Value::None)?;
    }
    Ok(())
}

/// The time (s) of a trace line, from the full events.
fn secs_of(xml: &str, host: NativeHost, line: &str) -> (Vec<String>, f64) {
    let (_, events) = run_events(xml, host, None);
    let t: Vec<String> = events.iter().map(|e| e.short()).collect();
    let at = events
        .iter()
        .find(|e| e.short() == line)
        .unwrap_or_else(|| panic!("{line:?} not in trace:\n{}", t.join("\n")))
        .time_ns as f64
        / 1e9;
    (t, at)
}

#[test]
fn q1_resources_are_taken_before_the_on_start_hook_and_freed_before_on_stopped_delivers() {
    let xml = behavior(&format!(
        "{}{}{}",
        boxed("A", 1, &resource("Speech", "Lock", 0), ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (_, t) = run(&xml, NativeHost::new().with("A", quick));
    // Q1, G1: ask and got before the hook; Q5, G4: free before the deliver.
    assert_in_order(
        &t,
        &[
            "root/A in onStart None",
            "root/A res ask Speech",
            "root/A res got Speech",
            "root/A call onInput_onStart",
            "root/A out onStopped None",
            "root/A res free Speech",
            "root deliver A.onStopped -> (parent).onStopped",
        ],
    );
}

#[test]
fn q2_q3_lock_the_asker_waits_for_the_holder_to_finish() {
    let xml = contest(
        &resource("Speech", "Lock", 0),
        &resource("Speech", "Lock", 5),
    );
    let host = contest_host(3);
    let (t, got) = secs_of(&xml, host, "root/B res got Speech");
    // A holds it from 0 to 3 s; B asks at 1 s and waits (timeout 5 s) until A frees it.
    assert_in_order(
        &t,
        &[
            "root/B res ask Speech",
            "root/A out onStopped None",
            "root/A res free Speech",
            "root/B res got Speech",
            "root/B call onInput_onStart",
        ],
    );
    assert!((got - 3.0).abs() < 1e-6, "B got it at {got} s");
}

#[test]
fn r9_the_wait_times_out_then_on_stopped_fires_without_the_hook() {
    let xml = contest(
        &resource("Speech", "Lock", 0),
        &resource("Speech", "Lock", 1),
    );
    let host = contest_host(10);
    let (t, at) = secs_of(&xml, host, "root/B res timeout Speech");
    assert!((at - 2.0).abs() < 1e-6, "timed out at {at} s");
    assert_in_order(
        &t,
        &[
            "root/B res ask Speech",
            "root/B res timeout Speech",
            "root/B out onStopped None",
            "root deliver B.onStopped -> (parent).onStopped",
        ],
    );
    assert!(
        !t.iter().any(|l| l == "root/B call onInput_onStart"),
        "{t:#?}"
    );
}

#[test]
fn r9_timeout_zero_fails_at_once_and_calls_on_resource_error_when_defined() {
    let xml = contest(
        &resource("Speech", "Lock", 0),
        &resource("Speech", "Lock", 0),
    );
    let host = NativeHost::new()
        .with("A", holder(10))
        .with("T", timer)
        .with("B", |hook, ctx| {
            if matches!(hook, Hook::ResourceError) {
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        })
        .defining("B", &["onResourceError"]);
    let (t, at) = secs_of(&xml, host, "root/B res timeout Speech");
    assert!((at - 1.0).abs() < 1e-6, "failed at {at} s");
    assert_in_order(
        &t,
        &[
            "root/B res timeout Speech",
            "root/B call onResourceError",
            "root/B out onStopped None",
        ],
    );
    assert!(
        !t.iter().any(|l| l == "root/B call onInput_onStart"),
        "{t:#?}"
    );
}

#[test]
fn r12_stop_on_demand_stops_the_holder_and_gives_its_resources_to_the_asker() {
    // A holds the legs "Stop on demand" and has a diagram; B wants All motors.
    let inner = boxed("C", 1, "", "");
    let xml = behavior(&format!(
        "{}{}{}{}{}{}{}",
        boxed("A", 1, &resource("Legs", "Stop on demand", 0), &inner),
        boxed("T", 2, "", ""),
        boxed("B", 3, &resource("All motors", "Lock", 0), ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 4, 3, 2),
        link(3, 4, 0, 4)
    ));
    let host = NativeHost::new().with("T", timer).with("B", quick);
    let (_, t) = run(&xml, host);
    // No onResourceLost: content unloaded, resources freed, then onStopped (R12 steps 2, 3).
    assert_in_order(
        &t,
        &[
            "root/A res got Legs",
            "root/A links_on",
            "root/B res ask All motors",
            "root/A res lost Legs",
            "root/A links_off",
            "root/A/C call onUnload",
            "root/A res free Legs",
            "root/A out onStopped None",
            "root/B res got All motors",
            "root/B call onInput_onStart",
        ],
    );
}

#[test]
fn r12_on_resource_lost_replaces_on_stopped() {
    let xml = contest(
        &resource("Speech", "Stop on demand", 0),
        &resource("Speech", "Lock", 0),
    );
    let host = NativeHost::new()
        .with("A", |hook, ctx| {
            if on_start(hook) {
                ctx.sleep(Duration::from_secs(10));
            }
            Ok(())
        })
        .defining("A", &["onResourceLost"])
        .with("T", timer)
        .with("B", quick);
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/A res lost Speech",
            "root/A call onResourceLost",
            "root/A ret onResourceLost",
            "root/A res free Speech",
            "root/B res got Speech",
        ],
    );
    assert!(
        !t.iter().any(|l| l == "root/A out onStopped None"),
        "{t:#?}"
    );
}

#[test]
fn q3_callback_on_demand_calls_on_resource_and_the_holder_decides() {
    let xml = contest(
        &resource("Speech", "Callback on demand", 0),
        &resource("Speech", "Lock", 5),
    );
    let host = NativeHost::new()
        .with("A", |hook, ctx| {
            if on_start(hook) {
                ctx.sleep(Duration::from_secs(10));
            }
            if matches!(hook, Hook::Resource { name } if name == "Speech") {
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        })
        .defining("A", &["onResource"])
        .with("T", timer)
        .with("B", quick);
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/B res ask Speech",
            "root/A call onResource",
            "root/A out onStopped None",
            "root/A res free Speech",
            "root/B res got Speech",
        ],
    );
}

#[test]
fn q3_pause_on_demand_pauses_the_holder_timeline_and_resumes_it_after() {
    let tl = format!(
        r#"<Box name="A" id="1">{PORTS}{}<Timeline enable="1" fps="10" start_frame="1" end_frame="40" size="40"><BehaviorLayer name="L"><BehaviorKeyframe name="k" index="1"><Diagram/></BehaviorKeyframe></BehaviorLayer></Timeline></Box>"#,
        resource("Head", "Pause on demand (beta)", 0)
    );
    let xml = behavior(&format!(
        "{tl}{}{}{}{}{}{}",
        boxed("T", 2, "", ""),
        boxed("B", 3, &resource("HeadYaw", "Lock", 0), ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 4, 3, 2),
        link(1, 4, 0, 4)
    ));
    let host = NativeHost::new().with("T", timer).with("B", holder(2));
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/A res got Head",
            "root/B res ask HeadYaw",
            "root/A res lost Head",
            "root/A tl pause",
            "root/A res free Head",
            "root/B res got HeadYaw",
            "root/B res free HeadYaw",
            "root/A res got Head",
            "root/A tl play",
            "root/A frame 40",
            "root/A res free Head",
        ],
    );
}

#[test]
fn q4_a_group_conflicts_with_its_joints_and_not_with_other_groups() {
    // A holds the Legs with Lock; B wants the Head: no conflict, no wait.
    let xml = contest(&resource("Legs", "Lock", 0), &resource("Head", "Lock", 0));
    let host = contest_host(10);
    let (t, at) = secs_of(&xml, host, "root/B res got Head");
    assert!((at - 1.0).abs() < 1e-6, "{t:#?}");
    // And a joint of the legs, asked with timeout 0, fails at once.
    let xml = contest(
        &resource("Legs", "Lock", 0),
        &resource("LKneePitch", "Lock", 0),
    );
    let host = contest_host(10);
    let (_, at) = secs_of(&xml, host, "root/B res timeout LKneePitch");
    assert!((at - 1.0).abs() < 1e-6);
}

#[test]
fn q5_resources_are_freed_before_on_unload_and_after_a_failed_on_start() {
    let xml = behavior(&format!(
        "{}{}",
        boxed("A", 1, &resource("Speech", "Lock", 0), ""),
        link(0, 2, 1, 2)
    ));
    // A's onStart fails: G1 step 4 frees at once.
    let host = NativeHost::new().with("A", |hook, _| {
        if on_start(hook) {
            return Err("boom".into());
        }
        Ok(())
    });
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/A res got Speech",
            "root/A ret onInput_onStart err",
            "root/A res free Speech",
        ],
    );
    // A runs until the behavior stops: G6 frees before onUnload.
    let host = NativeHost::new().with("A", |hook, ctx| {
        if on_start(hook) {
            ctx.sleep(Duration::from_secs(5));
        }
        Ok(())
    });
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/A res got Speech",
            "beh stop",
            "root/A res free Speech",
            "root/A call onUnload",
        ],
    );
}

#[test]
fn g2_an_on_stop_input_frees_after_the_hook_and_the_unload() {
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        boxed(
            "A",
            1,
            &resource("Speech", "Lock", 0),
            &boxed("C", 1, "", "")
        ),
        boxed("T", 2, "", ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 4, 1, 3)
    ));
    let (_, t) = run(&xml, NativeHost::new().with("T", timer));
    assert_in_order(
        &t,
        &[
            "root/A res got Speech",
            "root/A call onInput_onStop",
            "root/A ret onInput_onStop",
            "root/A links_off",
            "root/A/C ret onUnload",
            "root/A res free Speech",
        ],
    );
}

#[test]
fn r13_a_slow_on_unload_gets_a_warning_after_10_s_and_is_waited_for() {
    let xml = behavior(&format!(
        "{}{}{}",
        boxed("A", 1, "", ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Unload) {
            ctx.sleep(Duration::from_secs(15));
        }
        if on_start(hook) {
            ctx.fire("onStopped", Value::None)?;
        }
        Ok(())
    });
    let (_, events) = run_events(&xml, host, None);
    let t: Vec<String> = events.iter().map(|e| e.short()).collect();
    let warn = events
        .iter()
        .find(|e| {
            e.short()
                .starts_with("root/A log warning: onUnload still running")
        })
        .unwrap_or_else(|| panic!("no warning:\n{}", t.join("\n")));
    let call = events
        .iter()
        .find(|e| e.short() == "root/A call onUnload")
        .unwrap();
    assert_eq!(warn.time_ns - call.time_ns, 10_000_000_000);
    assert_in_order(
        &t,
        &[
            "root/A call onUnload",
            "root/A log warning: onUnload still running after 10 s; waiting for it (R13)",
            "root/A ret onUnload",
            "root del",
        ],
    );
}

#[test]
fn bug6_resources_are_not_ignored() {
    // Earlier runtimes only logged "not implemented": B would start at once.
    let xml = contest(
        &resource("Speech", "Lock", 0),
        &resource("Speech", "Lock", 0),
    );
    let host = contest_host(10);
    let (_, t) = run(&xml, host);
    assert!(
        !t.iter().any(|l| l == "root/B call onInput_onStart"),
        "{t:#?}"
    );
}

#[test]
fn an_inner_box_uses_the_resources_of_the_boxes_enclosing_it() {
    // The stock Stand Up box holds "All motors" and its Goto Posture box asks for it again
    // with timeout 0: it must get it at once.
    let inner = format!(
        "{}{}{}",
        boxed("Goto", 1, &resource("All motors", "Lock", 0), ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    );
    let xml = behavior(&format!(
        "{}{}{}",
        boxed("Stand", 1, &resource("All motors", "Lock", 0), &inner),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (_, t) = run(&xml, NativeHost::new().with("Goto", quick));
    assert_in_order(
        &t,
        &[
            "root/Stand res got All motors",
            "root/Stand/Goto res got All motors",
            "root/Stand/Goto call onInput_onStart",
            "root/Stand/Goto res free All motors",
            "root/Stand res free All motors",
        ],
    );
}

#[test]
fn a_box_waiting_forever_for_a_resource_leaves_the_run_idle_not_hung() {
    // A holds the legs and never finishes; B waits for them with timeout -1 (until free).
    // Nothing else can happen: the run is idle (found by the property tests: it used to
    // wait forever because an operation was still waiting).
    let xml = contest(&resource("Legs", "Lock", 0), &resource("Legs", "Lock", -1));
    let host = NativeHost::new().with("T", timer).with("B", quick);
    let (outcome, t) = run(&xml, host);
    assert_eq!(outcome, choreo_engine::Outcome::Idle, "{t:#?}");
    // B got nothing while A held the legs: only the stop that follows frees them (and B,
    // still loaded then, gets them as the reference's waiting wrapper would).
    let stop = pos(&t, "beh stop");
    assert!(
        !t[..stop].iter().any(|l| l == "root/B res got Legs"),
        "{t:#?}"
    );
    assert_in_order(
        &t,
        &["beh stop", "root/A res free Legs", "root/B res got Legs"],
    );
}
