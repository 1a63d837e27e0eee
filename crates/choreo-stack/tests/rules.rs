//! One trace test per rule of behavior-stack.md (§3–§9), each also run through the checker.

use crate::support;

use std::sync::{Arc, Mutex};

use choreo_stack::{Completed, Options, StackError, State};
use support::*;

fn shared<T: Default>() -> Arc<Mutex<T>> {
    Arc::new(Mutex::new(T::default()))
}

#[test]
fn l1_every_behavior_is_initialized_once_before_anything_else() {
    let mut r = runner(
        vec![
            ("base", parent_of("a")),
            ("a", Probe::leaf()),
            ("b", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 3);
    let all = lines(&r, true);
    assert_eq!(&all[..3], ["0 init(base)", "0 init(a)", "0 init(b)"]);
    assert_clean(&r);
}

#[test]
fn l2_scope_is_reference_counted_and_hooks_run_on_the_transitions_only() {
    // `x` is a delegate of `base` and linked to `a`: two references, one entered_scope.
    let mut r = runner(
        vec![
            ("base", parent_of("a").delegates(&["a", "x"])),
            ("a", Probe::new().linked(&["x"]).delegates(&[])),
            ("x", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 1);
    let all = lines(&r, true);
    let entered = all
        .iter()
        .filter(|l| l.ends_with("entered_scope(x)"))
        .count();
    assert_eq!(entered, 1, "{all:#?}");
    assert!(
        all.iter().any(|l| l.ends_with("scope_ref_inc(x, 2)")),
        "{all:#?}"
    );
    assert_clean(&r);
}

#[test]
fn l4_wants_is_asked_only_in_scope_and_l5_it_may_not_change_the_stack() {
    let seen = shared::<Vec<Result<(), StackError>>>();
    let s = seen.clone();
    let asked = shared::<Vec<Result<bool, StackError>>>();
    let q = asked.clone();
    let mut r = runner(
        vec![
            (
                "base",
                parent_of("a").delegates(&["a"]).on_activated(move |cx| {
                    // `z` is no delegate of the base: out of scope.
                    let z = cx.find("z").unwrap();
                    q.lock().unwrap().push(cx.wants(z));
                }),
            ),
            (
                "a",
                Probe::leaf().delegates(&["z"]).wants(move |cx| {
                    let mut s = s.lock().unwrap();
                    s.push(cx.cancel_self());
                    let z = cx.find("z").unwrap();
                    s.push(cx.delegate(z));
                    true
                }),
            ),
            ("z", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 2);
    assert_eq!(*asked.lock().unwrap(), [Err(StackError::NotInScope)]);
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty());
    assert!(
        seen.iter()
            .all(|e| *e == Err(StackError::NoDelegationInWtba)),
        "{seen:?}"
    );
    assert_clean(&r);
}

#[test]
fn l6_a_delegate_must_have_wanted_this_tick() {
    let results = shared::<Vec<Result<(), StackError>>>();
    let res = results.clone();
    let wants = Arc::new(Mutex::new(false));
    let w = wants.clone();
    let mut r = runner(
        vec![
            (
                "base",
                Probe::new()
                    .delegates(&["a"])
                    .on_update(move |cx| {
                        let a = cx.find("a").unwrap();
                        if cx.tick() == 1 {
                            // Not asked this tick.
                            res.lock().unwrap().push(cx.delegate(a));
                            // Asked, and it says no.
                            let _ = cx.wants(a);
                            res.lock().unwrap().push(cx.delegate(a));
                            *w.lock().unwrap() = true;
                            // It wanted in the last tick only: still no in the next.
                            let _ = cx.wants(a);
                            *w.lock().unwrap() = false;
                        } else if cx.tick() == 2 {
                            res.lock().unwrap().push(cx.delegate(a));
                        }
                    })
                    .always(false),
            ),
            ("a", Probe::leaf().wants(move |_| *wants.lock().unwrap())),
        ],
        "base",
    );
    ticks(&mut r, 2);
    assert_eq!(
        *results.lock().unwrap(),
        [
            Err(StackError::NotWanting),
            Err(StackError::NotWanting),
            Err(StackError::NotWanting)
        ]
    );
    assert_eq!(r.stack().len(), 1);
    assert_clean(&r);
}

#[test]
fn l7_l9_s5_a_delegator_stays_activated_and_a_popped_behavior_stays_in_scope_and_updated() {
    let mut r = runner(
        vec![
            ("base", parent_of("a").always(false)),
            (
                "a",
                Probe::leaf().on_update(|cx| {
                    if cx.is_activated() && cx.tick() == 2 {
                        cx.cancel_self().unwrap();
                    }
                }),
            ),
        ],
        "base",
    );
    ticks(&mut r, 1);
    let base = r.id("base").unwrap();
    let a = r.id("a").unwrap();
    assert_eq!(r.state(base), Some(State::Activated));
    assert_eq!(r.state(a), Some(State::Activated));
    ticks(&mut r, 1);
    assert_eq!(r.state(a), Some(State::InScope));
    ticks(&mut r, 1);
    // Tick 3: `a`, popped, is updated in the in-scope pass.
    assert!(tick_lines(&r, 3).contains(&"update(a)".to_string()));
    assert_clean(&r);
}

#[test]
fn t1_t2_t3_t4_one_update_each_bottom_up_then_the_in_scope_pass() {
    let mut r = runner(
        vec![
            ("base", parent_of("a").delegates(&["a", "x", "y"])),
            ("a", parent_of("b")),
            ("b", Probe::leaf()),
            ("x", Probe::leaf().wants(|_| false)),
            ("y", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 3);
    // Tick 1: base delegates to a, pushed and updated in the same pass (T2); a delegates to
    // b, pushed and updated too; then the in-scope pass, in order of entry into scope.
    let t3 = tick_lines(&r, 3);
    let updates: Vec<&str> = t3
        .iter()
        .filter_map(|l| l.strip_prefix("update("))
        .collect();
    assert_eq!(updates, ["base)", "a)", "b)", "x)", "y)"], "{t3:#?}");
    let t1 = tick_lines(&r, 1);
    assert!(at(&t1, "update(b)") > at(&t1, "push(b)"), "{t1:#?}");
    assert_clean(&r);
}

#[test]
fn r1_r2_r3_only_the_top_delegates_only_to_its_delegates_and_a_refusal_changes_nothing() {
    let results = shared::<Vec<Result<(), StackError>>>();
    let res = results.clone();
    let mut r = runner(
        vec![
            (
                "base",
                parent_of("a")
                    .delegates(&["a", "c"])
                    .on_done(|_, _, _| panic!("no callback for a refused delegation (bug 1)")),
            ),
            (
                "a",
                Probe::leaf().on_update(move |cx| {
                    // Not one of a's delegates.
                    let c = cx.find("c").unwrap();
                    res.lock().unwrap().push(cx.delegate_with_callback(c, 7));
                }),
            ),
            ("c", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 1);
    let stack_before = r.stack().to_vec();
    ticks(&mut r, 2);
    assert_eq!(r.stack(), &stack_before[..]);
    let got = results.lock().unwrap().clone();
    assert!(!got.is_empty());
    assert!(
        got.iter().all(|e| *e == Err(StackError::NotADelegate)),
        "{got:?}"
    );
    assert_clean(&r);

    // R1 on its own: a behavior below the top asks.
    let results = shared::<Vec<Result<(), StackError>>>();
    let res = results.clone();
    let mut r = runner(
        vec![
            (
                "base",
                Probe::new().delegates(&["a", "c"]).on_update(move |cx| {
                    if cx.tick() == 1 {
                        ask_and_delegate(cx, "a").unwrap();
                    } else {
                        let c = cx.find("c").unwrap();
                        let _ = cx.wants(c);
                        res.lock().unwrap().push(cx.delegate_with_callback(c, 1));
                    }
                }),
            ),
            ("a", Probe::leaf()),
            ("c", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 3);
    assert_eq!(
        *results.lock().unwrap(),
        [Err(StackError::NotTop), Err(StackError::NotTop)]
    );
    assert_eq!(r.names()[r.stack()[1].index()], "a");
    assert_clean(&r);
}

#[test]
fn r4_a_second_delegation_in_one_update_fails_and_succeeds_after_cancel_delegates() {
    let results = shared::<Vec<Result<(), StackError>>>();
    let res = results.clone();
    let mut r = runner(
        vec![
            (
                "base",
                Probe::new().delegates(&["a", "b"]).on_update(move |cx| {
                    if cx.tick() == 1 {
                        let mut res = res.lock().unwrap();
                        res.push(ask_and_delegate(cx, "a"));
                        res.push(ask_and_delegate(cx, "b"));
                        assert!(cx.cancel_delegates(false));
                        res.push(ask_and_delegate(cx, "b"));
                    }
                }),
            ),
            ("a", Probe::leaf()),
            ("b", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 1);
    assert_eq!(
        *results.lock().unwrap(),
        [Ok(()), Err(StackError::NotTop), Ok(())]
    );
    let t1 = tick_lines(&r, 1);
    // `a` was asked for, then cancelled before the hook returned: pushed, then popped, then b.
    assert!(at(&t1, "push(b)") > at(&t1, "deactivated(a)"), "{t1:#?}");
    assert_eq!(r.names()[r.stack()[1].index()], "b");
    assert_clean(&r);
}

#[test]
fn r5_s3_s4_cancel_pops_top_down_children_leaving_scope_before_each_deactivation() {
    let mut r = runner(
        vec![
            (
                "base",
                parent_of("a").always(false).and_update(|cx| {
                    if cx.tick() == 3 {
                        assert!(cx.cancel_delegates(false));
                    }
                }),
            ),
            ("a", parent_of("b")),
            ("b", parent_of("c")),
            ("c", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 3);
    let t3 = tick_lines(&r, 3);
    let pops: Vec<usize> = ["deactivated(c)", "deactivated(b)", "deactivated(a)"]
        .iter()
        .map(|w| at(&t3, w))
        .collect();
    assert!(pops[0] < pops[1] && pops[1] < pops[2], "{t3:#?}");
    // b's delegate c left scope before b was deactivated.
    assert!(
        at(&t3, "left_scope(c)") < at(&t3, "deactivated(b)"),
        "{t3:#?}"
    );
    assert_eq!(r.stack().len(), 1);
    assert_clean(&r);
}

#[test]
fn r6_r7_cancel_self_of_the_base_empties_the_stack_then_the_run_finishes() {
    let mut r = runner(
        vec![(
            "base",
            Probe::leaf().on_update(|cx| {
                if cx.tick() == 2 {
                    cx.cancel_self().unwrap();
                }
            }),
        )],
        "base",
    );
    ticks(&mut r, 5);
    assert!(r.is_finished());
    assert_eq!(r.tick_count(), 3);
    let t2 = tick_lines(&r, 2);
    assert!(t2.ends_with(&["stack_empty".to_string()]), "{t2:#?}");
    assert!(tick_lines(&r, 3).contains(&"left_scope(base)".to_string()));
    assert_clean(&r);
}

#[test]
fn r7_the_base_is_pushed_again_when_so_configured() {
    let mut r = runner_with(
        vec![(
            "base",
            Probe::leaf().on_update(|cx| {
                if cx.is_activated() {
                    cx.cancel_self().unwrap();
                }
            }),
        )],
        "base",
        Options {
            reinstall_base: true,
            ..Options::default()
        },
    );
    ticks(&mut r, 4);
    assert!(!r.is_finished());
    let pushes = lines(&r, false)
        .iter()
        .filter(|l| l.ends_with("push(base)"))
        .count();
    assert_eq!(pushes, 4);
    assert_clean(&r);
}

#[test]
fn r8_a_reset_waits_for_the_next_tick() {
    let mut r = runner(
        vec![
            ("base", parent_of("a")),
            ("a", Probe::leaf()),
            ("other", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 2);
    let other = r.id("other").unwrap();
    r.request_reset(other);
    assert_eq!(r.stack().len(), 2);
    ticks(&mut r, 1);
    assert_eq!(r.stack(), &[other]);
    let t3 = tick_lines(&r, 3);
    assert!(
        at(&t3, "deactivated(a)") < at(&t3, "deactivated(base)"),
        "{t3:#?}"
    );
    assert!(at(&t3, "reset(other)") < at(&t3, "push(other)"), "{t3:#?}");
    assert_clean(&r);
}

#[test]
fn s1_delegates_enter_scope_before_activation_and_a_parent_delegates_from_on_activated() {
    let mut r = runner(
        vec![
            (
                "base",
                Probe::new().delegates(&["a"]).on_activated(|cx| {
                    ask_and_delegate(cx, "a").unwrap();
                }),
            ),
            ("a", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 1);
    let t1 = tick_lines(&r, 1);
    assert!(
        at(&t1, "entered_scope(a)") < at(&t1, "activated(base)"),
        "{t1:#?}"
    );
    assert!(at(&t1, "activated(base)") < at(&t1, "push(a)"), "{t1:#?}");
    assert_clean(&r);
}

#[test]
fn c1_c2_c5_a_callback_fires_once_in_the_next_tick_with_the_outcome() {
    let done = shared::<Vec<(u64, u64, Completed)>>();
    let d = done.clone();
    let mut r = runner(
        vec![
            (
                "base",
                Probe::new()
                    .delegates(&["a"])
                    .on_update(|cx| {
                        if cx.tick() == 1 {
                            let a = cx.find("a").unwrap();
                            cx.wants(a).unwrap();
                            cx.delegate_with_callback(a, 42).unwrap();
                        }
                    })
                    .always(false)
                    .on_done(move |cx, token, c| d.lock().unwrap().push((cx.tick(), token, c))),
            ),
            (
                "a",
                Probe::leaf().on_update(|cx| {
                    if cx.tick() == 2 {
                        cx.cancel_self_with(Completed::Failure("no luck".into()))
                            .unwrap();
                    }
                }),
            ),
        ],
        "base",
    );
    ticks(&mut r, 5);
    assert_eq!(
        *done.lock().unwrap(),
        [(3, 42, Completed::Failure("no luck".into()))]
    );
    assert_clean(&r);
}

#[test]
fn c3_c4_no_callback_after_deactivation_and_cancel_delegates_decides_about_it() {
    for allow in [false, true] {
        let done = shared::<Vec<Completed>>();
        let d = done.clone();
        let mut r = runner(
            vec![
                (
                    "base",
                    Probe::new()
                        .delegates(&["a"])
                        .always(false)
                        .on_update(move |cx| match cx.tick() {
                            1 => {
                                let a = cx.find("a").unwrap();
                                cx.wants(a).unwrap();
                                cx.delegate_with_callback(a, 1).unwrap();
                            }
                            2 => assert!(cx.cancel_delegates(allow)),
                            _ => {}
                        })
                        .on_done(move |_, _, c| d.lock().unwrap().push(c)),
                ),
                ("a", Probe::leaf()),
            ],
            "base",
        );
        ticks(&mut r, 4);
        let expected: Vec<Completed> = if allow {
            vec![Completed::Canceled("cancel_delegates".into())]
        } else {
            vec![]
        };
        assert_eq!(*done.lock().unwrap(), expected, "allow_callback {allow}");
        assert_clean(&r);
    }
    // C3: the delegator is itself popped before the callback could fire: none.
    let done = shared::<Vec<Completed>>();
    let d = done.clone();
    let mut r = runner(
        vec![
            (
                "base",
                parent_of("p").always(false).and_update(|cx| {
                    if cx.tick() == 2 {
                        cx.cancel_delegates(true);
                    }
                }),
            ),
            (
                "p",
                Probe::new()
                    .delegates(&["a"])
                    .always(false)
                    .on_update(|cx| {
                        if cx.tick() == 1 {
                            let a = cx.find("a").unwrap();
                            cx.wants(a).unwrap();
                            cx.delegate_with_callback(a, 5).unwrap();
                        }
                    })
                    .on_done(move |_, _, c| d.lock().unwrap().push(c)),
            ),
            ("a", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 4);
    assert!(done.lock().unwrap().is_empty());
    assert_clean(&r);
}

#[test]
fn c6_an_active_behavior_without_a_delegate_is_cancelled_in_its_update() {
    let mut r = runner(vec![("base", parent_of("a")), ("a", Probe::new())], "base");
    ticks(&mut r, 1);
    let t1 = tick_lines(&r, 1);
    assert!(
        at(&t1, "update(a)") < at(&t1, "cancel_self(a) = ok"),
        "{t1:#?}"
    );
    assert!(
        at(&t1, "cancel_self(a) = ok") < at(&t1, "deactivated(a)"),
        "{t1:#?}"
    );
    assert_clean(&r);
}

#[test]
fn bug_6_no_stack_change_from_on_deactivated() {
    let results = shared::<Vec<Result<(), StackError>>>();
    let res = results.clone();
    let mut r = runner(
        vec![
            (
                "base",
                parent_of("a").always(false).and_update(|cx| {
                    if cx.tick() == 2 {
                        cx.cancel_delegates(false);
                    }
                }),
            ),
            (
                "a",
                Probe::leaf().delegates(&["b"]).on_deactivated(move |cx| {
                    let b = cx.find("b").unwrap();
                    res.lock().unwrap().push(cx.delegate(b));
                    res.lock().unwrap().push(cx.cancel_self());
                }),
            ),
            ("b", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 3);
    assert_eq!(
        *results.lock().unwrap(),
        [
            Err(StackError::NoDelegationInDeactivation),
            Err(StackError::NoDelegationInDeactivation)
        ]
    );
    assert_eq!(r.stack().len(), 1);
    assert_clean(&r);
}

#[test]
fn a1_a2_a3_actions_belong_to_their_owner_and_report_in_the_next_tick() {
    let log = shared::<Vec<String>>();
    let done = shared::<Vec<(u64, Completed)>>();
    let d = done.clone();
    let results = shared::<Vec<Result<(), StackError>>>();
    let res = results.clone();
    let l = log.clone();
    let mut r = runner(
        vec![(
            "base",
            Probe::new()
                .always(false)
                .on_update(move |cx| {
                    if cx.tick() == 1 {
                        let say = Timed {
                            tag: "say".into(),
                            ticks: 2,
                            result: Completed::Success,
                            log: l.clone(),
                        };
                        res.lock()
                            .unwrap()
                            .push(cx.delegate_action(Box::new(say), Some(3)));
                        assert!(cx.is_control_delegated());
                        // A1: one at a time.
                        let more = Timed {
                            tag: "more".into(),
                            ticks: 0,
                            result: Completed::Success,
                            log: l.clone(),
                        };
                        res.lock()
                            .unwrap()
                            .push(cx.delegate_action(Box::new(more), None));
                    }
                })
                .on_done(move |cx, _, c| d.lock().unwrap().push((cx.tick(), c))),
        )],
        "base",
    );
    ticks(&mut r, 6);
    assert_eq!(
        *results.lock().unwrap(),
        [Ok(()), Err(StackError::AlreadyDelegated)]
    );
    // Started at the end of tick 1, polled in ticks 1, 2, 3: done in tick 3, handled in 4.
    assert_eq!(*done.lock().unwrap(), [(4, Completed::Success)]);
    // Bug 2: the refused action was dropped, never started.
    let log = log.lock().unwrap();
    assert_eq!(log[0], "drop more", "{log:?}");
    assert!(log.contains(&"start say".to_string()));
    assert!(!log.contains(&"start more".to_string()));
    let all = lines(&r, false);
    assert!(
        all.contains(&"3 action_done(base, say, success)".to_string()),
        "{all:#?}"
    );
    assert_clean(&r);
}

#[test]
fn k1_k2_conditions_are_evaluated_in_their_windows_only() {
    use choreo_stack::{Builder, Condition, World};
    struct After(u64);
    impl Condition for After {
        fn describe(&self) -> String {
            format!("after tick {}", self.0)
        }
        fn is_met(&mut self, w: &World) -> bool {
            w.tick > self.0
        }
    }
    let mut b = Builder::new();
    b.add(
        "base",
        Box::new(
            Probe::new()
                .always(false)
                .delegates(&["a"])
                .on_update(|cx| {
                    if !cx.is_control_delegated() {
                        let _ = ask_and_delegate(cx, "a");
                    }
                }),
        ),
    );
    b.add("a", Box::new(Probe::leaf()))
        .conditions(vec![Box::new(After(2))], vec![Box::new(After(4))]);
    let mut r = b
        .build(
            "base",
            Options {
                keep_trace: true,
                ..Options::default()
            },
        )
        .unwrap();
    ticks(&mut r, 6);
    let all = lines(&r, false);
    // Wanted from tick 3; cancelled by its cancel condition in tick 5.
    assert!(all.contains(&"3 activated(a)".to_string()), "{all:#?}");
    assert!(
        all.contains(&"5 cancel_self(a) = ok".to_string()),
        "{all:#?}"
    );
    assert!(tick_lines(&r, 3).contains(&"cond_active(a.cancel[0], true)".to_string()));
    assert_clean(&r);
}

/// Level `i` of a 50-deep chain: delegates to level `i + 1` once; at tick 2, if `control`
/// names it, cancels its delegates (false) or itself (true).
fn level(i: usize, control: Arc<Mutex<Option<(usize, bool)>>>) -> Probe {
    let next = format!("l{}", i + 1);
    let started = Arc::new(Mutex::new(false));
    let delegates: Vec<&str> = if i < 49 { vec![next.as_str()] } else { vec![] };
    let p = Probe::leaf().delegates(&delegates);
    p.on_update(move |cx| {
        let mut s = started.lock().unwrap();
        if i < 49 && !*s && cx.is_activated() {
            *s = ask_and_delegate(cx, &next).is_ok();
        }
        if cx.tick() == 2
            && let Some((k, selfish)) = *control.lock().unwrap()
            && k == i
        {
            if selfish {
                cx.cancel_self().unwrap();
            } else {
                assert!(cx.cancel_delegates(false));
            }
        }
    })
}

#[test]
fn deep_stacks_unwind_as_asked() {
    // The original's cases: cancel delegates at index 47, cancel self at 10, cancel the base.
    for (cancel, left) in [
        (None, 50),
        (Some((47, false)), 48),
        (Some((10, true)), 10),
        (Some((0, true)), 0),
    ] {
        let control = Arc::new(Mutex::new(cancel));
        let names: Vec<String> = (0..50).map(|i| format!("l{i}")).collect();
        let behaviors = (0..50)
            .map(|i| (names[i].as_str(), level(i, control.clone())))
            .collect();
        let mut r = runner(behaviors, "l0");
        ticks(&mut r, 1);
        assert_eq!(r.stack().len(), 50);
        ticks(&mut r, 2);
        assert_eq!(r.stack().len(), left, "{cancel:?}");
        assert_clean(&r);
    }
}

#[test]
fn t5_inputs_reach_subscribers_in_scope_before_their_update_and_no_one_else() {
    let got = shared::<Vec<(String, bool)>>();
    let g1 = got.clone();
    let g2 = got.clone();
    let mut r = runner(
        vec![
            (
                "base",
                Probe::leaf()
                    .delegates(&["a"])
                    .subscribe(&["Touch"])
                    .on_input(move |cx| {
                        g1.lock().unwrap().push(("base".into(), cx.is_activated()))
                    }),
            ),
            (
                "a",
                Probe::leaf()
                    .subscribe(&["Touch"])
                    .on_input(move |cx| g2.lock().unwrap().push(("a".into(), cx.is_activated()))),
            ),
            // Out of scope: subscribed, never told.
            (
                "z",
                Probe::leaf()
                    .subscribe(&["Touch"])
                    .on_input(|_| panic!("an input out of scope")),
            ),
        ],
        "base",
    );
    ticks(&mut r, 1);
    r.inbox().post("Touch", choreo_engine::Value::Int(1));
    r.inbox().post("Other", choreo_engine::Value::None);
    ticks(&mut r, 1);
    assert_eq!(
        *got.lock().unwrap(),
        [("base".to_string(), true), ("a".to_string(), false)]
    );
    let t2 = tick_lines(&r, 2);
    assert!(
        at(&t2, "input(base, Touch)") < at(&t2, "update(base)"),
        "{t2:#?}"
    );
    assert!(at(&t2, "input(a, Touch)") < at(&t2, "update(a)"), "{t2:#?}");
    assert_clean(&r);
}

#[test]
fn a_tick_over_its_budget_names_the_behaviors_that_took_the_time() {
    let mut r = runner_with(
        vec![
            ("base", parent_of("slow").always(false)),
            (
                "slow",
                Probe::leaf().on_update(|cx| {
                    if cx.tick() == 2 {
                        std::thread::sleep(std::time::Duration::from_millis(300));
                    }
                }),
            ),
        ],
        "base",
        Options {
            budget: Some(std::time::Duration::from_millis(150)),
            ..Options::default()
        },
    );
    ticks(&mut r, 3);
    let all = lines(&r, false);
    let overruns: Vec<&String> = all.iter().filter(|l| l.contains("tick_overrun")).collect();
    assert_eq!(overruns.len(), 1, "{all:#?}");
    assert!(overruns[0].starts_with("2 tick_overrun("), "{overruns:?}");
    assert!(overruns[0].contains(": slow "), "{overruns:?}");
    assert_clean(&r);
}

#[test]
fn t6_a_lower_behavior_vetoes_an_activation_for_one_tick() {
    // The base vetoes `a` at tick 2 (before its child dispatcher, above it, asks).
    let mut r = runner(
        vec![
            (
                "base",
                parent_of("d").always(false).and_update(|cx| {
                    if cx.tick() == 2 {
                        let a = cx.find("a").unwrap();
                        cx.veto(a);
                    }
                }),
            ),
            (
                "d",
                Probe::new()
                    .delegates(&["a"])
                    .always(false)
                    .on_update(|cx| {
                        if cx.is_activated() && !cx.is_control_delegated() && cx.tick() >= 2 {
                            let _ = ask_and_delegate(cx, "a");
                        }
                    }),
            ),
            ("a", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 3);
    assert!(tick_lines(&r, 2).contains(&"wtba(a) = false".to_string()));
    assert!(tick_lines(&r, 3).contains(&"push(a)".to_string()));
    assert_clean(&r);
}

#[test]
fn l3_a_behavior_entering_scope_is_updated_in_that_tick() {
    let mut r = runner(
        vec![
            ("base", parent_of("a").always(false)),
            ("a", parent_of("b")),
            ("b", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 1);
    // `b` entered scope when `a` was pushed (tick 1), and got its update in tick 1.
    let t1 = tick_lines(&r, 1);
    assert!(
        at(&t1, "entered_scope(b)") < at(&t1, "update(b)"),
        "{t1:#?}"
    );
    assert_clean(&r);
}

#[test]
fn k3_k4_every_condition_and_every_operand_is_sampled_all_must_hold() {
    use choreo_stack::{Builder, Condition, World};
    /// Counts its samples; met from tick `from`.
    struct Counted(u64, Arc<Mutex<u64>>);
    impl Condition for Counted {
        fn describe(&self) -> String {
            "counted".into()
        }
        fn is_met(&mut self, w: &World) -> bool {
            *self.1.lock().unwrap() += 1;
            w.tick >= self.0
        }
    }
    let (first, second) = (shared::<u64>(), shared::<u64>());
    let mut b = Builder::new();
    b.add(
        "base",
        Box::new(
            Probe::new()
                .always(false)
                .delegates(&["a"])
                .on_update(|cx| {
                    if !cx.is_control_delegated() {
                        let _ = ask_and_delegate(cx, "a");
                    }
                }),
        ),
    );
    // The first is false until tick 3, the second from tick 1: asked at ticks 1, 2 and 3,
    // both are sampled each time (no short-circuit), and `a` wants from tick 3.
    b.add("a", Box::new(Probe::leaf())).conditions(
        vec![
            Box::new(Counted(3, first.clone())),
            Box::new(Counted(1, second.clone())),
        ],
        vec![],
    );
    let mut r = b
        .build(
            "base",
            Options {
                keep_trace: true,
                ..Options::default()
            },
        )
        .unwrap();
    ticks(&mut r, 3);
    assert_eq!((*first.lock().unwrap(), *second.lock().unwrap()), (3, 3));
    assert!(tick_lines(&r, 3).contains(&"activated(a)".to_string()));
    assert!(tick_lines(&r, 2).contains(&"wtba(a) = false".to_string()));
    assert_clean(&r);
}

#[test]
fn a3_an_action_makes_only_its_owner_control_delegated() {
    // The original's single action slot made *every* behavior control-delegated while any
    // action ran (bug 3). Here `x`, in scope beside the acting `a`, is not.
    let seen = shared::<Vec<(u64, bool)>>();
    let s = seen.clone();
    let log = shared::<Vec<String>>();
    let l = log.clone();
    let mut r = runner(
        vec![
            ("base", parent_of("a").always(false).delegates(&["a", "x"])),
            (
                "a",
                Probe::leaf().on_activated(move |cx| {
                    let act = Timed {
                        tag: "act".into(),
                        ticks: 5,
                        result: Completed::Success,
                        log: l.clone(),
                    };
                    cx.delegate_action(Box::new(act), None).unwrap();
                    assert!(cx.is_control_delegated());
                }),
            ),
            (
                "x",
                Probe::leaf().on_update(move |cx| {
                    s.lock()
                        .unwrap()
                        .push((cx.tick(), cx.is_control_delegated()));
                }),
            ),
        ],
        "base",
    );
    ticks(&mut r, 3);
    assert_eq!(*seen.lock().unwrap(), [(1, false), (2, false), (3, false)]);
    assert!(log.lock().unwrap().contains(&"start act".to_string()));
    assert_clean(&r);
}
