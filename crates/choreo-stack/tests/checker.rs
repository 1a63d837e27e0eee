//! The checker catches what it is for: real traces made wrong, one rule at a time.

use crate::support;

use choreo_stack::core::check::{Tree, check};
use choreo_stack::{Completed, Event, Record};
use support::*;

/// A run with delegation, a callback and a pop: parent → child, the child ends at tick 2,
/// the parent's callback fires at tick 3.
fn sample() -> (Vec<Record>, Tree) {
    let mut r = runner(
        vec![
            (
                "base",
                Probe::new()
                    .delegates(&["a", "b"])
                    .always(false)
                    .on_update(|cx| {
                        if cx.tick() == 1 {
                            let a = cx.find("a").unwrap();
                            cx.wants(a).unwrap();
                            cx.delegate_with_callback(a, 1).unwrap();
                        }
                    }),
            ),
            (
                "a",
                Probe::leaf().on_update(|cx| {
                    if cx.tick() == 2 && cx.is_activated() {
                        cx.cancel_self().unwrap();
                    }
                }),
            ),
            ("b", Probe::leaf()),
        ],
        "base",
    );
    ticks(&mut r, 4);
    assert_clean(&r);
    (r.trace().records().to_vec(), Tree::of(&r))
}

fn rules(records: &[Record], tree: &Tree) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = check(records, tree).iter().map(|v| v.rule).collect();
    v.dedup();
    v
}

fn position(records: &[Record], f: impl Fn(&Event) -> bool) -> usize {
    records
        .iter()
        .position(|r| f(&r.event))
        .expect("the event is in the sample")
}

#[test]
fn a_second_update_in_a_tick_is_t3() {
    let (mut rec, tree) = sample();
    let i = position(&rec, |e| matches!(e, Event::Update { .. }));
    let dup = rec[i].clone();
    rec.insert(i + 1, dup);
    assert!(
        rules(&rec, &tree).contains(&"T3"),
        "{:?}",
        rules(&rec, &tree)
    );
}

#[test]
fn a_missing_update_is_t3() {
    let (mut rec, tree) = sample();
    let i = position(&rec, |e| matches!(e, Event::Update { .. }));
    rec.remove(i);
    assert_eq!(rules(&rec, &tree), ["T3"]);
}

#[test]
fn an_activation_without_wtba_is_l6() {
    let (mut rec, tree) = sample();
    let i = position(
        &rec,
        |e| matches!(e, Event::Wtba { wants: true, b } if b.index() == 1),
    );
    rec.remove(i);
    assert!(
        rules(&rec, &tree).contains(&"L6"),
        "{:?}",
        rules(&rec, &tree)
    );
}

#[test]
fn a_callback_in_the_tick_the_delegation_ended_is_c1_and_a_second_is_c2() {
    let (mut rec, tree) = sample();
    let i = position(&rec, |e| matches!(e, Event::Callback { .. }));
    let mut early = rec[i].clone();
    let pop = position(
        &rec,
        |e| matches!(e, Event::Deactivated { b } if b.index() == 1),
    );
    early.tick = rec[pop].tick;
    let mut moved = rec.clone();
    let cb = moved.remove(i);
    assert_eq!(cb.event, early.event);
    moved.insert(pop + 1, early);
    assert!(
        rules(&moved, &tree).contains(&"C1"),
        "{:?}",
        rules(&moved, &tree)
    );
    let again = rec[i].clone();
    rec.insert(i + 1, again);
    assert!(
        rules(&rec, &tree).contains(&"C2"),
        "{:?}",
        rules(&rec, &tree)
    );
}

#[test]
fn a_pop_of_a_behavior_below_the_top_is_s4() {
    let (rec, tree) = sample();
    // The child's pop, made the base's (which is below it).
    let mut bad = rec.clone();
    let i = position(&bad, |e| matches!(e, Event::Pop { b } if b.index() == 1));
    if let Event::Pop { b } = &mut bad[i].event {
        *b = choreo_stack_id(0);
    }
    assert!(
        rules(&bad, &tree).contains(&"S4"),
        "{:?}",
        rules(&bad, &tree)
    );
}

#[test]
fn a_delegation_to_an_undeclared_behavior_is_r2_and_from_below_the_top_is_r1() {
    let (mut rec, tree) = sample();
    let i = position(&rec, |e| {
        matches!(e, Event::Delegate { result: Ok(()), .. })
    });
    let mut wrong = rec.clone();
    if let Event::Delegate { to, .. } = &mut wrong[i].event {
        *to = choreo_stack_id(0);
    }
    assert!(
        rules(&wrong, &tree).contains(&"R2"),
        "{:?}",
        rules(&wrong, &tree)
    );
    // The same delegation said to come from `a`, which is not on the stack then.
    if let Event::Delegate { from, .. } = &mut rec[i].event {
        *from = choreo_stack_id(1);
    }
    assert!(
        rules(&rec, &tree).contains(&"R1"),
        "{:?}",
        rules(&rec, &tree)
    );
}

#[test]
fn wtba_of_an_activated_behavior_is_l4_and_an_action_while_delegated_is_a1() {
    let (mut rec, tree) = sample();
    let i = position(&rec, |e| matches!(e, Event::Update { b } if b.index() == 0));
    let tick = rec[i].tick;
    rec.insert(
        i,
        Record {
            tick,
            seq: 0,
            event: Event::Wtba {
                b: choreo_stack_id(0),
                wants: true,
            },
        },
    );
    assert!(
        rules(&rec, &tree).contains(&"L4"),
        "{:?}",
        rules(&rec, &tree)
    );
    let (mut rec, tree) = sample();
    let i = position(&rec, |e| matches!(e, Event::Update { b } if b.index() == 0));
    let j = position(
        &rec[i + 1..],
        |e| matches!(e, Event::Update { b } if b.index() == 0),
    ) + i
        + 1;
    let tick = rec[j].tick;
    rec.insert(
        j + 1,
        Record {
            tick,
            seq: 0,
            event: Event::DelegateAction {
                from: choreo_stack_id(0),
                tag: "say".into(),
                token: None,
                result: Ok(()),
            },
        },
    );
    rec.insert(
        j + 2,
        Record {
            tick,
            seq: 0,
            event: Event::ActionDone {
                owner: choreo_stack_id(0),
                tag: "say".into(),
                result: Completed::Success,
            },
        },
    );
    assert!(
        rules(&rec, &tree).contains(&"A1"),
        "{:?}",
        rules(&rec, &tree)
    );
}

/// The id of the behavior added `i`-th in [`sample`] (ids are indices).
fn choreo_stack_id(i: usize) -> choreo_stack::BehaviorId {
    let (rec, _) = sample();
    rec.iter()
        .find_map(|r| match r.event {
            Event::Init { b } if b.index() == i => Some(b),
            _ => None,
        })
        .expect("the sample has it")
}
