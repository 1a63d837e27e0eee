//! Property tests: random behavior trees whose behaviors, tick by tick, want or not, ask
//! their delegates, delegate (with and without callbacks), run actions, cancel their
//! delegates or themselves, from every hook (refused where the rules say so); the checker
//! must find nothing wrong in any trace.

use crate::support;

use std::sync::{Arc, Mutex};

use choreo_stack::{Behavior, Builder, Completed, Context, Options, Tick};
use proptest::prelude::*;

/// What a behavior does in one hook call.
#[derive(Debug, Clone)]
enum Step {
    Nothing,
    /// Ask delegate `k` (modulo their number) and delegate to it if it wants.
    Delegate(usize, bool),
    CancelDelegates(bool),
    CancelSelf,
    /// Run an action that ends after so many polls.
    Action(u32),
    /// Ask delegate `k` only.
    Ask(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Nothing),
        4 => (0..4usize, any::<bool>()).prop_map(|(k, cb)| Step::Delegate(k, cb)),
        1 => any::<bool>().prop_map(Step::CancelDelegates),
        1 => Just(Step::CancelSelf),
        1 => (0..3u32).prop_map(Step::Action),
        1 => (0..4usize).prop_map(Step::Ask),
    ]
}

/// One behavior's plan: its delegates and linked behaviors (indices), whether it must always
/// delegate, and for each tick whether it wants and what it does in `update` and in
/// `on_activated`.
#[derive(Debug, Clone)]
struct Plan {
    delegates: Vec<usize>,
    linked: Vec<usize>,
    always: bool,
    wants: Vec<bool>,
    update: Vec<Step>,
    activated: Vec<Step>,
    deactivated: Step,
}

fn plans(ticks: usize) -> impl Strategy<Value = Vec<Plan>> {
    (2..9usize).prop_flat_map(move |n| {
        prop::collection::vec(
            (
                prop::collection::vec(0..n, 0..4),
                prop::collection::vec(0..n, 0..2),
                any::<bool>(),
                prop::collection::vec(prop::bool::weighted(0.7), ticks + 1),
                prop::collection::vec(step(), ticks + 1),
                prop::collection::vec(step(), ticks + 1),
                step(),
            )
                .prop_map(
                    |(delegates, linked, always, wants, update, activated, deactivated)| Plan {
                        delegates,
                        linked,
                        always,
                        wants,
                        update,
                        activated,
                        deactivated,
                    },
                ),
            n,
        )
        .prop_map(|mut plans| {
            // Edges only to later behaviors: no cycle (the builder refuses cycles).
            let n = plans.len();
            for (i, p) in plans.iter_mut().enumerate() {
                let later = n - i - 1;
                for list in [&mut p.delegates, &mut p.linked] {
                    *list = if later == 0 {
                        Vec::new()
                    } else {
                        list.iter().map(|d| i + 1 + d % later).collect()
                    };
                }
            }
            plans
        })
    })
}

struct Planned {
    plan: Plan,
}

fn name(i: usize) -> String {
    format!("b{i}")
}

impl Planned {
    /// Does `step`; whatever the runner answers (refusals included) is fine here: the
    /// checker judges the trace.
    fn act(&mut self, cx: &mut Context<'_>, step: &Step) {
        let delegates = &self.plan.delegates;
        let delegate = |k: usize| delegates.get(k % delegates.len().max(1));
        match step {
            Step::Nothing => {}
            Step::Ask(k) => {
                if let Some(b) = delegate(*k).and_then(|d| cx.find(&name(*d))) {
                    let _ = cx.wants(b);
                }
            }
            Step::Delegate(k, callback) => {
                if let Some(b) = delegate(*k).and_then(|d| cx.find(&name(*d))) {
                    let _ = cx.wants(b);
                    let _ = if *callback {
                        cx.delegate_with_callback(b, cx.tick())
                    } else {
                        cx.delegate(b)
                    };
                }
            }
            Step::CancelDelegates(allow) => {
                cx.cancel_delegates(*allow);
            }
            Step::CancelSelf => {
                let _ = cx.cancel_self();
            }
            Step::Action(polls) => {
                let action = support::Timed {
                    tag: "act".into(),
                    ticks: *polls,
                    result: Completed::Success,
                    log: Arc::new(Mutex::new(Vec::new())),
                };
                let _ = cx.delegate_action(Box::new(action), Some(0));
            }
        }
    }

    fn at(list: &[Step], tick: u64) -> Step {
        list.get(usize::try_from(tick).unwrap_or(0))
            .cloned()
            .unwrap_or(Step::Nothing)
    }
}

impl Behavior for Planned {
    fn delegates(&self) -> Vec<String> {
        self.plan.delegates.iter().map(|d| name(*d)).collect()
    }
    fn linked(&self) -> Vec<String> {
        self.plan.linked.iter().map(|d| name(*d)).collect()
    }
    fn always_delegates(&self) -> bool {
        self.plan.always
    }
    fn wants_to_be_activated(&mut self, cx: &mut Context<'_>) -> bool {
        // A request from here is refused (L5); try one now and then.
        if cx.tick().is_multiple_of(3) {
            assert!(cx.cancel_self().is_err());
        }
        let t = usize::try_from(cx.tick()).unwrap_or(0);
        self.plan.wants.get(t).copied().unwrap_or(true)
    }
    fn on_activated(&mut self, cx: &mut Context<'_>) {
        let s = Planned::at(&self.plan.activated, cx.tick());
        self.act(cx, &s);
    }
    fn update(&mut self, cx: &mut Context<'_>) {
        let s = Planned::at(&self.plan.update, cx.tick());
        self.act(cx, &s);
    }
    fn on_delegation_done(&mut self, cx: &mut Context<'_>, _: u64, _: Completed) {
        let s = Planned::at(&self.plan.activated, cx.tick() + 1);
        self.act(cx, &s);
    }
    fn on_deactivated(&mut self, cx: &mut Context<'_>) {
        let s = self.plan.deactivated.clone();
        // Refused (bug 6), whatever it is.
        self.act(cx, &s);
    }
}

const TICKS: usize = 25;

/// Builds and runs `plans`; the runner after its last tick.
fn run(plans: Vec<Plan>, reinstall: bool) -> choreo_stack::Runner {
    let mut b = Builder::new();
    for (i, plan) in plans.into_iter().enumerate() {
        b.add(&name(i), Box::new(Planned { plan }));
    }
    let options = Options {
        keep_trace: true,
        reinstall_base: reinstall,
        ..Options::default()
    };
    let mut r = b.build("b0", options).unwrap();
    for _ in 0..TICKS {
        match r.tick() {
            Ok(Tick::Running) => {}
            // The stack ended, or the base did not want to be installed.
            Ok(Tick::Finished) | Err(_) => break,
        }
    }
    r
}

#[test]
fn the_random_runs_reach_every_kind_of_event() {
    // The generator is worth its name: over 300 runs of a fixed seed, every kind of event
    // the rules speak of happens.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let mut seen = std::collections::BTreeMap::<&'static str, u64>::new();
    let mut deepest = 0usize;
    for _ in 0..300 {
        let plans = plans(TICKS).new_tree(&mut runner).unwrap().current();
        let r = run(plans, false);
        support::assert_clean(&r);
        let mut depth = 0usize;
        for rec in r.trace().records() {
            use choreo_stack::Event as E;
            match &rec.event {
                E::Push { .. } => depth += 1,
                E::Pop { .. } => depth = depth.saturating_sub(1),
                _ => {}
            }
            deepest = deepest.max(depth);
            let kind = match &rec.event {
                E::Push { .. } => "push",
                E::Pop { .. } => "pop",
                E::Callback { .. } => "callback",
                E::ActionDone { .. } => "action_done",
                E::Delegate { result: Ok(()), .. } => "delegate ok",
                E::Delegate { result: Err(_), .. } => "delegate err",
                E::CancelDelegates { result: true, .. } => "cancel_delegates true",
                E::CancelSelf { result: Ok(()), .. } => "cancel_self ok",
                E::LeftScope { .. } => "left_scope",
                E::StackEmpty => "stack_empty",
                _ => continue,
            };
            *seen.entry(kind).or_default() += 1;
        }
    }
    let kinds = [
        "push",
        "pop",
        "callback",
        "action_done",
        "delegate ok",
        "delegate err",
        "cancel_delegates true",
        "cancel_self ok",
        "left_scope",
        "stack_empty",
    ];
    for k in kinds {
        assert!(
            seen.get(k).copied().unwrap_or(0) > 0,
            "never seen: {k} ({seen:?})"
        );
    }
    // Deep enough to matter: some run had a stack of 4 or more.
    assert!(deepest >= 4, "deepest stack {deepest}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_random_run_keeps_every_rule(plans in plans(TICKS), reinstall in any::<bool>()) {
        let n = plans.len();
        let r = run(plans, reinstall);
        support::assert_clean(&r);
        prop_assert_eq!(r.names().len(), n);
    }
}
