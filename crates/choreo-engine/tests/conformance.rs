//! One test per rule of docs/runtime-rules.md that concerns the engine, each asserting the
//! order of events in the trace (virtual time, deterministic).

use crate::support;

use choreo_engine::{Hook, NativeHost, Outcome, Value};
use support::*;

/// A box that finishes as soon as it starts.
fn finisher() -> impl Fn(&Hook, &choreo_engine::BoxContext) -> Result<(), choreo_engine::ScriptError>
{
    |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.fire("onStopped", Value::None)?;
        }
        Ok(())
    }
}

/// root: onStart -> A.onStart; A.onStopped -> root.onStopped.
fn one_box() -> String {
    behavior(&format!(
        "{}{}{}",
        boxed("A", 1, "", ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ))
}

#[test]
fn r1_load_constructs_every_box_before_any_on_load() {
    let (_, t) = run(&one_box(), NativeHost::new().with("A", finisher()));
    let last_new = t.iter().rposition(|l| l.ends_with(" new")).unwrap();
    let first_load = t.iter().position(|l| l.ends_with("call onLoad")).unwrap();
    assert!(last_new < first_load, "{t:#?}");
    assert_eq!(t.iter().filter(|l| l.ends_with(" new")).count(), 2);
}

#[test]
fn r2_r3_start_loads_root_then_stimulates_its_on_start() {
    let (_, t) = run(&one_box(), NativeHost::new().with("A", finisher()));
    assert_in_order(
        &t,
        &[
            "beh start",
            "root call onLoad",
            "root ret onLoad",
            "root in onStart None",
            "root call onInput_onStart",
        ],
    );
    // Nothing inside the root is loaded by the behavior load (R2).
    assert!(pos(&t, "root/A call onLoad") > pos(&t, "root ret onInput_onStart"));
}

#[test]
fn r5_root_stopped_output_ends_the_behavior_then_r4_unloads_and_destroys() {
    let (outcome, t) = run(&one_box(), NativeHost::new().with("A", finisher()));
    assert_eq!(outcome, Outcome::Finished);
    // A is a script box: its Stopped output delivers at once (R11 has nothing to unload);
    // the root's Stopped output unloads the root's diagram, then the behavior ends.
    assert_in_order(
        &t,
        &[
            "root/A out onStopped None",
            "root deliver A.onStopped -> (parent).onStopped",
            "root out onStopped None",
            "root links_off",
            "root/A call onUnload",
            "beh end",
            "root call onUnload",
            "root del",
            "root/A del",
        ],
    );
}

#[test]
fn r4_stop_unloads_parent_before_children_and_sends_no_on_stop() {
    // A never finishes: the behavior is stopped from outside.
    let (outcome, t) = run(&one_box(), NativeHost::new());
    assert_eq!(outcome, Outcome::Idle);
    assert_in_order(
        &t,
        &[
            "beh stop",
            "root call onUnload",
            "root ret onUnload",
            "root links_off",
            "root/A call onUnload",
            "root del",
        ],
    );
    assert!(!t.iter().any(|l| l.contains("onInput_onStop")), "{t:#?}");
}

#[test]
fn r8_r14_start_calls_the_hook_then_loads_the_diagram_then_forwards() {
    let inner = format!("{}{}", boxed("B", 1, "", ""), link(0, 2, 1, 2));
    let xml = behavior(&format!(
        "{}{}",
        boxed("A", 1, "", &inner),
        link(0, 2, 1, 2)
    ));
    let (_, t) = run(&xml, NativeHost::new());
    assert_in_order(
        &t,
        &[
            "root/A call onInput_onStart",
            "root/A ret onInput_onStart",
            "root/A/B call onLoad",
            "root/A/B ret onLoad",
            "root/A links_on",
            "root/A deliver (parent).onStart -> B.onStart",
            "root/A/B in onStart None",
        ],
    );
}

#[test]
fn r14_outputs_fired_in_on_load_before_links_on_are_dropped() {
    let host = NativeHost::new().with("B", |hook, ctx| {
        if *hook == Hook::Load {
            ctx.fire("onStopped", Value::None)?;
        }
        Ok(())
    });
    let inner = format!(
        "{}{}{}",
        boxed("B", 1, "", ""),
        boxed("C", 2, "", ""),
        link(1, 4, 2, 2)
    );
    let xml = behavior(&inner);
    let (_, t) = run(&xml, host);
    // B's onStopped from onLoad comes before links_on: dropped, C never starts.
    assert!(t.iter().any(|l| l == "root/B dropped onStopped"), "{t:#?}");
    assert!(!t.iter().any(|l| l == "root/C in onStart None"), "{t:#?}");
}

#[test]
fn r10_on_stop_calls_the_hook_then_unloads_the_diagram_and_fires_nothing() {
    let inner = boxed("B", 1, "", "");
    let host = NativeHost::new().with("S", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.fire("go", Value::None)?;
        }
        Ok(())
    });
    let stopper = r#"<Output name="go" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;
    // root.onStart -> A.onStart and S.onStart; S.go -> A.onStop.
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        boxed("A", 1, "", &inner),
        boxed("S", 2, stopper, ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 5, 1, 3)
    ));
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/A/B call onLoad",
            "root/A in onStop None",
            "root/A call onInput_onStop",
            "root/A ret onInput_onStop",
            "root/A links_off",
            "root/A/B call onUnload",
        ],
    );
    let stop_at = pos(&t, "root/A in onStop None");
    assert!(
        !t[stop_at..].iter().any(|l| l.starts_with("root/A out")),
        "{t:#?}"
    );
}

#[test]
fn r11_stopped_output_unloads_children_before_delivering() {
    let inner = format!(
        "{}{}{}",
        boxed("B", 1, "", ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    );
    let xml = behavior(&format!(
        "{}{}{}",
        boxed("A", 1, "", &inner),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (_, t) = run(&xml, NativeHost::new().with("B", finisher()));
    assert_in_order(
        &t,
        &[
            "root/A out onStopped None",
            "root/A links_off",
            "root/A/B call onUnload",
            "root/A/B ret onUnload",
            "root deliver A.onStopped -> (parent).onStopped",
        ],
    );
}

#[test]
fn p9_parent_input_to_parent_output_stops_the_box_at_once() {
    let inner = link(0, 2, 0, 4);
    let xml = behavior(&format!(
        "{}{}{}",
        boxed("A", 1, "", &inner),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (outcome, t) = run(&xml, NativeHost::new());
    assert_eq!(outcome, Outcome::Finished, "{t:#?}");
    assert_in_order(
        &t,
        &[
            "root/A deliver (parent).onStart -> (parent).onStopped",
            "root/A out onStopped None",
            "beh end",
        ],
    );
}

#[test]
fn p10_a_link_into_a_parameter_sets_it_without_a_hook() {
    let param = r#"<Parameter name="Text" inherits_from_parent="0" content_type="3" value="old" default_value="old" id="5"/>"#;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let host = NativeHost::new()
        .with("Src", |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                ctx.fire("text", Value::from("new"))?;
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        })
        .with("Dst", move |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                s2.lock().unwrap().push(ctx.parameter("Text"));
            }
            Ok(())
        });
    let text_out = r#"<Output name="text" type="3" type_size="1" nature="2" inner="0" id="5"/>"#;
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        boxed("Src", 1, text_out, ""),
        boxed("Dst", 2, param, ""),
        link(0, 2, 1, 2),
        link(1, 5, 2, 5),
        link(1, 4, 2, 2)
    ));
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root deliver Src.text -> Dst.Text",
            "root/Dst param Text = \"new\"",
            "root/Dst call onInput_onStart",
        ],
    );
    assert!(!t.iter().any(|l| l.contains("onInput_Text")));
    assert_eq!(*seen.lock().unwrap(), vec![Some(Value::from("new"))]);
}

#[test]
fn c2_an_output_looped_to_its_own_input_runs_10000_rounds() {
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c2 = count.clone();
    let host = NativeHost::new().with("Loop", move |hook, ctx| {
        if let Hook::Input { name, .. } = hook
            && (name == "onStart" || name == "again")
        {
            let n = c2.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if n < 10_000 {
                ctx.fire("next", Value::None)?;
            } else {
                ctx.fire("onStopped", Value::None)?;
            }
        }
        Ok(())
    });
    let ports = r#"<Input name="again" type="1" type_size="1" nature="1" inner="0" id="5"/><Output name="next" type="1" type_size="1" nature="2" inner="0" id="6"/>"#;
    let xml = behavior(&format!(
        "{}{}{}{}",
        boxed("Loop", 1, ports, ""),
        link(0, 2, 1, 2),
        link(1, 6, 1, 5),
        link(1, 4, 0, 4)
    ));
    let (outcome, _) = run(&xml, host);
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 10_001);
}

#[test]
fn e1_an_error_in_on_start_skips_loading_and_forwarding() {
    let inner = format!("{}{}", boxed("B", 1, "", ""), link(0, 2, 1, 2));
    let host = NativeHost::new().with("A", |hook, _| match hook {
        Hook::Input { name, .. } if name == "onStart" => Err("boom".into()),
        _ => Ok(()),
    });
    let xml = behavior(&format!(
        "{}{}",
        boxed("A", 1, "", &inner),
        link(0, 2, 1, 2)
    ));
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/A ret onInput_onStart err",
            "root/A err onInput_onStart: boom",
        ],
    );
    assert!(!t.iter().any(|l| l == "root/A links_on"), "{t:#?}");
}

#[test]
fn e3_a_panic_in_box_code_is_caught_and_reported() {
    let host = NativeHost::new().with("A", |hook, _| {
        if matches!(hook, Hook::Input { .. }) {
            panic!("native bug");
        }
        Ok(())
    });
    let (_, t) = run(&one_box(), host);
    assert!(
        t.iter()
            .any(|l| l == "root/A err onInput_onStart: panic: native bug"),
        "{t:#?}"
    );
    assert!(
        t.iter().any(|l| l == "root del"),
        "the engine went on and stopped cleanly"
    );
}

#[test]
fn p6_recurrent_and_undef_outputs_deliver_like_punctual() {
    let outs = r#"<Output name="rec" type="1" type_size="1" nature="3" inner="0" id="5"/><Output name="und" type="1" type_size="1" nature="0" inner="0" id="6"/>"#;
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.fire("rec", Value::Int(1))?;
            ctx.fire("und", Value::Int(2))?;
        }
        Ok(())
    });
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        boxed("A", 1, outs, ""),
        boxed("B", 2, "", ""),
        link(0, 2, 1, 2),
        link(1, 5, 2, 2),
        link(1, 6, 2, 2)
    ));
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/A out rec 1",
            "root deliver A.rec -> B.onStart",
            "root/A out und 2",
            "root deliver A.und -> B.onStart",
        ],
    );
    assert!(!t.iter().any(|l| l == "root/A links_off"));
}

#[test]
fn c1_on_stop_reaches_a_box_blocked_in_on_start() {
    // Busy sleeps 10 s in onStart; Stopper sleeps 1 s, then stops Busy.
    let host = NativeHost::new()
        .with("Busy", |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                ctx.sleep(std::time::Duration::from_secs(10));
            }
            Ok(())
        })
        .with("Stopper", |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                ctx.sleep(std::time::Duration::from_secs(1));
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        });
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        boxed("Busy", 1, "", ""),
        boxed("Stopper", 2, "", ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 4, 1, 3)
    ));
    let (_, t) = run(&xml, host);
    let stop = pos(&t, "root/Busy call onInput_onStop");
    let start_ret = pos(&t, "root/Busy ret onInput_onStart");
    assert!(
        stop < start_ret,
        "C1: onStop runs while onStart is blocked:\n{t:#?}"
    );
}

/// A box "Raiser" that raises `key` with 1, 2, 3 at virtual seconds 1, 5 and 9.
fn raiser(
    key: &'static str,
) -> impl Fn(&Hook, &choreo_engine::BoxContext) -> Result<(), choreo_engine::ScriptError> {
    move |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            let robot = ctx.robot().ok_or("no robot")?.clone();
            for (at, v) in [(1, 1), (5, 2), (9, 3)] {
                let now = ctx.now().0 / 1_000_000_000;
                ctx.sleep(std::time::Duration::from_secs(at - now));
                robot.call(
                    "ALMemory",
                    "raiseEvent",
                    vec![Value::from(key), Value::Int(v)],
                )?;
            }
        }
        Ok(())
    }
}

#[test]
fn p3_memory_inputs_deliver_only_while_their_diagram_is_loaded() {
    // A (holder) has a memory input on FrontTactilTouched linked to B.onStart inside.
    // A is started at 3 s (by Timer) and stopped at 7 s: only the update at 5 s gets in.
    let memory = r#"<Input name="touched" type="0" type_size="1" nature="4" stm_value_name="FrontTactilTouched" inner="1" id="5"/>"#;
    let inner = format!("{}{}", boxed("B", 1, "", ""), link(0, 5, 1, 2));
    let a = boxed("A", 1, memory, &inner);
    let timer_ports = r#"<Output name="at3" type="1" type_size="1" nature="2" inner="0" id="5"/><Output name="at7" type="1" type_size="1" nature="2" inner="0" id="6"/>"#;
    let host = NativeHost::new()
        .with("Raiser", raiser("FrontTactilTouched"))
        .with("Timer", |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                ctx.sleep(std::time::Duration::from_secs(3));
                ctx.fire("at3", Value::None)?;
                ctx.sleep(std::time::Duration::from_secs(4));
                ctx.fire("at7", Value::None)?;
            }
            Ok(())
        });
    let xml = behavior(&format!(
        "{a}{}{}{}{}{}{}",
        boxed("Raiser", 2, "", ""),
        boxed("Timer", 3, timer_ports, ""),
        link(0, 2, 2, 2),
        link(0, 2, 3, 2),
        link(3, 5, 1, 2),
        link(3, 6, 1, 3)
    ));
    let robot = std::sync::Arc::new(TestRobot::default());
    let (_, t) = run_with(&xml, host, Some(robot.clone()));
    let delivered: Vec<&String> = t
        .iter()
        .filter(|l| l.starts_with("root/A in touched"))
        .collect();
    assert_eq!(delivered, vec!["root/A in touched 2"], "{t:#?}");
    assert_in_order(
        &t,
        &[
            "root/A in touched 2",
            "root/A deliver (parent).touched -> B.onStart",
            "root/A/B in onStart 2",
        ],
    );
    assert_eq!(robot.calls.lock().unwrap().len(), 3);
}

#[test]
fn bug8_two_memory_inputs_on_one_key_both_deliver() {
    let memory = r#"<Input name="m1" type="0" type_size="1" nature="4" stm_value_name="K" inner="1" id="5"/><Input name="m2" type="0" type_size="1" nature="4" stm_value_name="K" inner="1" id="6"/>"#;
    let ev = r#"<Input name="ev" type="0" type_size="1" nature="1" inner="0" id="5"/>"#;
    let inner = format!(
        "{}{}{}",
        boxed("B", 1, ev, ""),
        link(0, 5, 1, 5),
        link(0, 6, 1, 5)
    );
    let a = boxed("A", 1, memory, &inner);
    let host = NativeHost::new().with("Raiser", raiser("K"));
    let xml = behavior(&format!(
        "{a}{}{}{}",
        boxed("Raiser", 2, "", ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2)
    ));
    let (_, t) = run_with(&xml, host, Some(std::sync::Arc::new(TestRobot::default())));
    let events = t.iter().filter(|l| l.starts_with("root/A/B in ev")).count();
    assert_eq!(events, 6, "3 updates x 2 inputs: {t:#?}");
}

#[test]
fn box_code_tells_a_missing_robot_and_a_robot_without_tasks_from_other_errors() {
    use choreo_engine::{EngineError, RobotError};
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let host = |seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>| {
        NativeHost::new().with("A", move |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                let call = ctx.call_robot("ALMotion", "moveTo", vec![]);
                let post = ctx.post_robot("ALMotion", "moveTo", vec![]);
                let fire = ctx.fire("noSuchOutput", Value::None);
                let mut seen = seen.lock().unwrap();
                seen.push(match call {
                    Ok(_) => "call ok".to_string(),
                    Err(RobotError::NoRobot) => "call: no robot".to_string(),
                    Err(e) => format!("call: {e:?}"),
                });
                seen.push(match post {
                    Err(RobotError::NoRobot) => "post: no robot".to_string(),
                    Err(RobotError::CannotPost(what)) => format!("post refused: {what}"),
                    other => format!("post: {other:?}"),
                });
                seen.push(match fire {
                    Err(EngineError::NoOutput { path, output }) => {
                        format!("{path} has no {output}")
                    }
                    other => format!("fire: {other:?}"),
                });
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        })
    };
    let (outcome, _) = run(&one_box(), host(seen.clone()));
    assert_eq!(outcome, Outcome::Finished);
    let (outcome, _) = run_with(
        &one_box(),
        host(seen.clone()),
        Some(std::sync::Arc::new(TestRobot::default())),
    );
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "call: no robot",
            "post: no robot",
            "root/A has no noSuchOutput",
            "call ok",
            "post refused: ALMotion.post.moveTo",
            "root/A has no noSuchOutput",
        ]
    );
}

#[test]
fn p8_an_undeclared_output_fails_only_when_fired() {
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.fire("noSuchOutput", Value::None)?;
        }
        Ok(())
    });
    let (_, t) = run(&one_box(), host);
    // The behavior loaded; the error is reported when the line runs.
    assert_in_order(
        &t,
        &[
            "root/A call onLoad",
            "root/A ret onInput_onStart err",
            "root/A err onInput_onStart: box \"A\" has no output \"noSuchOutput\"",
        ],
    );
}

#[test]
fn p11_fan_out_delivers_in_file_order() {
    let xml = behavior(&format!(
        "{}{}{}{}{}{}",
        boxed("A", 1, "", ""),
        boxed("B", 2, "", ""),
        boxed("C", 3, "", ""),
        link(0, 2, 3, 2),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2)
    ));
    let (_, t) = run(&xml, NativeHost::new());
    assert_in_order(
        &t,
        &[
            "root deliver (parent).onStart -> C.onStart",
            "root deliver (parent).onStart -> A.onStart",
            "root deliver (parent).onStart -> B.onStart",
        ],
    );
}

#[test]
fn c3_the_same_input_can_run_twice_at_once() {
    let ev = r#"<Input name="ev" type="0" type_size="1" nature="1" inner="0" id="5"/>"#;
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "ev") {
            ctx.sleep(std::time::Duration::from_secs(1));
        }
        Ok(())
    });
    // root.onStart reaches A.ev twice (two links): both hooks run before either returns.
    let xml = behavior(&format!(
        "{}{}{}",
        boxed("A", 1, ev, ""),
        link(0, 2, 1, 5),
        link(0, 2, 1, 5)
    ));
    let (_, t) = run(&xml, host);
    let calls: Vec<usize> = t
        .iter()
        .enumerate()
        .filter(|(_, l)| *l == "root/A call onInput_ev")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(calls.len(), 2, "{t:#?}");
    assert!(calls[1] < pos(&t, "root/A ret onInput_ev"), "{t:#?}");
}

#[test]
fn s4_set_parameter_is_seen_by_get_parameter() {
    let param = r#"<Parameter name="N" inherits_from_parent="0" content_type="1" value="1" default_value="1" id="5"/>"#;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let s2 = seen.clone();
    let host = NativeHost::new().with("A", move |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            assert!(ctx.set_parameter("N", Value::Int(42)));
            assert!(!ctx.set_parameter("Missing", Value::Int(1)));
            *s2.lock().unwrap() = ctx.parameter("N");
        }
        Ok(())
    });
    let xml = behavior(&format!("{}{}", boxed("A", 1, param, ""), link(0, 2, 1, 2)));
    let (_, t) = run(&xml, host);
    assert_eq!(*seen.lock().unwrap(), Some(Value::Int(42)));
    assert!(t.iter().any(|l| l == "root/A param N = 42"), "{t:#?}");
}

#[test]
fn e3_a_box_that_cannot_be_constructed_fails_the_load_naming_it() {
    struct Failing;
    impl choreo_engine::ScriptHost for Failing {
        fn construct(
            &self,
            node: &choreo_engine::graph::BoxNode,
            _ctx: &choreo_engine::BoxContext,
        ) -> Result<std::sync::Arc<dyn choreo_engine::BoxCode>, choreo_engine::ScriptError>
        {
            if node.name == "A" {
                Err(
                    choreo_engine::ScriptError::new("SyntaxError: invalid syntax (line 3)")
                        .at_line(3),
                )
            } else {
                NativeHost::new().construct(node, _ctx)
            }
        }
    }
    let x = choreo_xar::read_xar("t.xar", one_box().as_bytes())
        .unwrap()
        .value;
    let e = match choreo_engine::Engine::load(&x, &Failing, choreo_engine::Options::default()) {
        Err(e) => e,
        Ok(_) => panic!("the load must fail"),
    };
    assert_eq!(
        e.to_string(),
        "root/A: cannot construct the box: SyntaxError: invalid syntax (line 3)"
    );
    // A program sees which box failed, and where its script did.
    match e {
        choreo_engine::EngineError::Construct { path, error } => {
            assert_eq!(path, "root/A");
            assert_eq!(error.line, Some(3));
        }
        other => panic!("not a construction error: {other:?}"),
    }
}

#[test]
fn s3_inheritance_takes_the_nearest_ancestor_and_skips_boxes_without_the_name() {
    // Two probes inherit Speed: one inside A (A has no Speed), one inside D (D's Speed=70
    // inherits too). With root Speed=150 both see 150, through A and through D's chain.
    // Without a Speed on root, the probe in A keeps its own 80, and the one in D gets D's 70.
    let speed = |v: i32, inherits: i32| {
        format!(
            r#"<Parameter name="Speed" inherits_from_parent="{inherits}" content_type="1" value="{v}" default_value="100" id="5"/>"#
        )
    };
    for (root_params, expected) in [
        (speed(150, 0), vec![150, 150]),
        (String::new(), vec![70, 80]),
    ] {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let s2 = seen.clone();
        let host = NativeHost::new().with_inline("Probe", move |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                s2.lock().unwrap().push(ctx.parameter("Speed"));
            }
            Ok(())
        });
        let probe = boxed("Probe", 1, &speed(80, 1), "");
        let a = boxed("A", 1, "", &format!("{probe}{}", link(0, 2, 1, 2)));
        let d = boxed(
            "D",
            2,
            &speed(70, 1),
            &format!("{probe}{}", link(0, 2, 1, 2)),
        );
        let root = format!(
            r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">{PORTS}{root_params}<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>{a}{d}{}{}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#,
            link(0, 2, 1, 2),
            link(0, 2, 2, 2)
        );
        let _ = run(&root, host);
        let mut got: Vec<i64> = seen
            .lock()
            .unwrap()
            .iter()
            .map(|v| match v {
                Some(Value::Int(i)) => *i,
                other => panic!("{other:?}"),
            })
            .collect();
        got.sort_unstable();
        assert_eq!(got, expected);
    }
}

/// root: onStart -> A.onStart; A holds B (started by A's onStart).
fn nested() -> String {
    let inner = format!("{}{}", boxed("B", 1, "", ""), link(0, 2, 1, 2));
    behavior(&format!(
        "{}{}",
        boxed("A", 1, "", &inner),
        link(0, 2, 1, 2)
    ))
}

#[test]
fn r6_loading_a_box_calls_on_load_and_loads_nothing_inside() {
    let (_, t) = run(&nested(), NativeHost::new());
    let a_load = pos(&t, "root/A ret onLoad");
    let a_start = pos(&t, "root/A call onInput_onStart");
    let b_load = pos(&t, "root/A/B call onLoad");
    assert!(a_load < a_start && a_start < b_load, "{t:#?}");
}

#[test]
fn r7_r15_unload_breaks_links_then_unloads_boxes_parent_before_children() {
    let (_, t) = run(&nested(), NativeHost::new());
    assert_in_order(
        &t,
        &[
            "beh stop",
            "root links_off",
            "root/A call onUnload",
            "root/A ret onUnload",
            "root/A links_off",
            "root/A/B call onUnload",
            "root/A/B ret onUnload",
            "root del",
        ],
    );
}

#[test]
fn p2_a_script_box_gets_its_hook_whatever_the_input_nature() {
    let ev = r#"<Input name="ev" type="1" type_size="1" nature="1" inner="0" id="5"/>"#;
    let xml = behavior(&format!(
        "{}{}{}{}",
        boxed("A", 1, ev, ""),
        link(0, 2, 1, 2),
        link(0, 2, 1, 5),
        link(0, 2, 1, 3)
    ));
    let (_, t) = run(&xml, NativeHost::new());
    for hook in ["onInput_onStart", "onInput_ev", "onInput_onStop"] {
        assert!(t.contains(&format!("root/A ret {hook}")), "{hook}: {t:#?}");
    }
    assert!(!t.iter().any(|l| l.starts_with("root/A links")), "{t:#?}");
}

#[test]
fn p5_g3_a_punctual_output_only_delivers_and_on_event_forwards_after_its_hook() {
    let ev = r#"<Input name="ev" type="1" type_size="1" nature="1" inner="0" id="5"/>"#;
    let punctual = r#"<Output name="p" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;
    // B (holder of C) gets ev from A's punctual output p; ev is forwarded to C.onStop.
    let inner = format!(
        "{}{}{}",
        boxed("C", 1, "", ""),
        link(0, 2, 1, 2),
        link(0, 5, 1, 3)
    );
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        boxed("A", 1, punctual, ""),
        boxed("B", 2, ev, &inner),
        link(0, 2, 2, 2),
        link(0, 2, 1, 2),
        link(1, 5, 2, 5)
    ));
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.fire("p", Value::None)?;
        }
        Ok(())
    });
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/A out p None",
            "root deliver A.p -> B.ev",
            "root/B call onInput_ev",
            "root/B ret onInput_ev",
            "root/B deliver (parent).ev -> C.onStop",
        ],
    );
    // P5: no unload of A's content, no timeline event, A still loaded.
    let out = pos(&t, "root/A out p None");
    assert!(
        !t[out..]
            .iter()
            .take_while(|l| *l != "beh stop")
            .any(|l| l.starts_with("root/A links") || l.starts_with("root/A tl")),
        "{t:#?}"
    );
}

#[test]
fn g4_a_stopped_output_stops_the_content_then_delivers() {
    // A holds B, which fires A's onStopped at once (link to owner output 4); A.onStopped ->
    // D.onStart.
    let inner = format!(
        "{}{}{}",
        boxed("B", 1, "", ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    );
    let xml = behavior(&format!(
        "{}{}{}{}",
        boxed("A", 1, "", &inner),
        boxed("D", 2, "", ""),
        link(0, 2, 1, 2),
        link(1, 4, 2, 2)
    ));
    let host = NativeHost::new().with("B", finisher());
    let (_, t) = run(&xml, host);
    assert_in_order(
        &t,
        &[
            "root/A/B out onStopped None",
            "root/A out onStopped None",
            "root/A links_off",
            "root/A/B ret onUnload",
            "root deliver A.onStopped -> D.onStart",
        ],
    );
}

#[test]
fn g6_on_load_and_on_unload_are_called_once_per_load() {
    let (_, t) = run(&nested(), NativeHost::new());
    for b in ["root/A", "root/A/B"] {
        assert_eq!(
            t.iter()
                .filter(|l| **l == format!("{b} call onLoad"))
                .count(),
            1
        );
        assert_eq!(
            t.iter()
                .filter(|l| **l == format!("{b} call onUnload"))
                .count(),
            1
        );
    }
}

/// A robot whose attach starts background work due at 1.5 s of behavior time.
struct LateRobot {
    woke_at: std::sync::Arc<std::sync::Mutex<Option<u64>>>,
}

impl choreo_engine::Robot for LateRobot {
    fn call(&self, _: &str, _: &str, _: Vec<Value>) -> Result<Value, choreo_engine::RobotError> {
        Ok(Value::None)
    }
    fn subscribe(
        &self,
        _: &str,
        _: u64,
        _: choreo_engine::MemorySink,
    ) -> Result<(), choreo_engine::RobotError> {
        Ok(())
    }
    fn unsubscribe(&self, _: u64) {}
    fn attach(&self, time: std::sync::Arc<choreo_engine::Activity>) {
        let woke_at = std::sync::Arc::clone(&self.woke_at);
        let t = std::sync::Arc::clone(&time);
        time.spawn("late", move || {
            t.sleep(std::time::Duration::from_millis(1500));
            *woke_at.lock().unwrap() = Some(t.now().0);
        })
        .unwrap();
    }
}

#[test]
fn r3_virtual_time_stands_still_between_load_and_start() {
    let woke_at = std::sync::Arc::new(std::sync::Mutex::new(None));
    let (engine, _) = load_virtual(
        &behavior(""),
        &NativeHost::new(),
        choreo_engine::Options {
            robot: Some(std::sync::Arc::new(LateRobot {
                woke_at: std::sync::Arc::clone(&woke_at),
            })),
            ..Default::default()
        },
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(
        *woke_at.lock().unwrap(),
        None,
        "time moved before the start"
    );
    assert_eq!(engine.now().0, 0);
    engine.start();
    let _ = engine.wait(std::time::Duration::from_secs(5));
    assert_eq!(*woke_at.lock().unwrap(), Some(1_500_000_000));
}

#[test]
fn a_virtual_time_limit_stops_time_exactly_at_the_limit() {
    // A box ticking every second, forever; the limit is 3.5 s.
    let tick = r#"<Output name="tick" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;
    let xml = behavior(&format!("{}{}", boxed("T", 1, tick, ""), link(0, 2, 1, 2)));
    let host = NativeHost::new().with("T", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            loop {
                ctx.sleep(std::time::Duration::from_secs(1));
                ctx.fire("tick", Value::None)?;
            }
        }
        Ok(())
    });
    let (engine, trace) = load_virtual(
        &xml,
        &host,
        choreo_engine::Options {
            time_limit: Some(std::time::Duration::from_millis(3500)),
            ..Default::default()
        },
    );
    engine.start();
    assert_eq!(
        engine.wait(std::time::Duration::from_secs(10)),
        Outcome::TimeLimit
    );
    assert_eq!(engine.now().0, 3_500_000_000, "time stops at the limit");
    let ticks = trace
        .events()
        .iter()
        .filter(|e| e.short() == "root/T out tick None")
        .count();
    assert_eq!(ticks, 3);
    engine.stop();
    let _ = engine.wait(std::time::Duration::from_secs(10));
}

/// Linux's: elsewhere the kernel is not asked whether a hook is blocked (docs/platforms.md).
#[test]
#[cfg(target_os = "linux")]
fn a_hook_blocked_outside_the_clock_does_not_freeze_virtual_time() {
    // B blocks on a real channel (not on the engine's clock); A sleeps 1 s, then ends the
    // behavior. Blocked in the kernel for 2 s of real time, B loses its turn (crate::turn)
    // and time goes on without it.
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        boxed("A", 1, "", ""),
        boxed("B", 2, "", ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(1, 4, 0, 4)
    ));
    let (release, blocked) = std::sync::mpsc::channel::<()>();
    let blocked = std::sync::Mutex::new(blocked);
    let host = NativeHost::new()
        .with("A", |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                ctx.sleep(std::time::Duration::from_secs(1));
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        })
        .with("B", move |hook, _| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                let rx = blocked.lock().unwrap();
                let _ = rx.recv_timeout(std::time::Duration::from_secs(30));
            }
            Ok(())
        });
    let (engine, trace) = load_virtual(&xml, &host, choreo_engine::Options::default());
    engine.start();
    let outcome = engine.wait(std::time::Duration::from_secs(20));
    let _ = release.send(());
    assert_eq!(outcome, Outcome::Finished);
    let t: Vec<String> = trace.events().iter().map(|e| e.short()).collect();
    assert!(
        t.iter()
            .any(|l| l
                .starts_with("root/B log warning: onInput_onStart waited 2 s of real time on something other than the clock")),
        "{t:#?}"
    );
    assert_in_order(&t, &["root/A out onStopped None", "beh end"]);
}

/// The graph keeps one copy of each port name: every box's `onStart` is the same text in
/// memory (a behavior of many boxes takes less), and so is every box's `onStopped`.
#[test]
fn boxes_share_their_port_names() {
    use choreo_testkit::generated::{behavior, hop_chain};
    let xar = choreo_xar::read_xar("chain.xar", behavior(&hop_chain(50, true)).as_bytes())
        .unwrap()
        .value;
    let g = choreo_engine::graph::Graph::new(&xar);
    // Where each port of that name keeps its text: one place, however many boxes have it.
    let places = |name: &str| -> (usize, std::collections::HashSet<*const u8>) {
        let names = g.boxes.iter().flat_map(|b| {
            let inputs = b.inputs.iter().map(|p| &p.name);
            inputs.chain(b.outputs.iter().map(|p| &p.name))
        });
        let named: Vec<_> = names.filter(|n| n.as_str() == name).collect();
        (
            named.len(),
            named.iter().map(|n| n.as_str().as_ptr()).collect(),
        )
    };
    let (starts, at) = places("onStart");
    assert_eq!((starts, at.len()), (51, 1));
    let (stops, at) = places("onStopped");
    assert_eq!((stops, at.len()), (51, 1));
}
