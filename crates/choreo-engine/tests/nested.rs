//! Nested runs: a behavior that box code of another one loads on the same time base
//! (`Options::time_base`), as ALBehaviorManager does. Behavior time is one: the nested run's
//! sleeps land at the right times, outer and nested interleave the same way every time, the
//! outer run does not finish while a box waits for the nested one, and stops propagate.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::trace::Event;
use choreo_engine::{
    BoxContext, Engine, Hook, NativeHost, Options, Outcome, ScriptHost, Trace, Value,
};
use support::{behavior, boxed, link};

/// The nested behavior: one box that sleeps `secs` of behavior time, logs, and stops.
fn inner_xml() -> String {
    behavior(&format!(
        "{}{}{}",
        boxed("Nap", 1, "", ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ))
}

/// A box that sleeps `secs`, logs `what`, then fires onStopped; with `secs` infinite, it
/// returns at once and never stops (the behavior waits for the world).
fn napping(
    secs: f64,
    what: &'static str,
) -> impl Fn(&Hook, &BoxContext) -> Result<(), choreo_engine::ScriptError> + Send + Sync + 'static {
    move |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") && secs.is_finite() {
            ctx.sleep(Duration::from_secs_f64(secs));
            ctx.log("info", what);
            ctx.fire("onStopped", Value::None)?;
        }
        Ok(())
    }
}

/// The nested run a box starts, shared with the test (to stop it).
type Slot = Arc<Mutex<Option<Arc<Engine>>>>;

/// A host whose boxes each take its duration of real time to construct (a slow load), else
/// native.
struct Slow(NativeHost, Duration);

impl ScriptHost for Slow {
    fn construct(
        &self,
        node: &choreo_engine::graph::BoxNode,
        ctx: &BoxContext,
    ) -> Result<Arc<dyn choreo_engine::BoxCode>, choreo_engine::ScriptError> {
        std::thread::sleep(self.1);
        self.0.construct(node, ctx)
    }
}

/// Loads the nested behavior on `ctx`'s time base, its events into `trace` under `inner:`;
/// each box takes `slow` of real time to construct.
fn load_inner(ctx: &BoxContext, trace: &Trace, nap: f64, slow: Duration) -> Engine {
    let x = choreo_xar::read_xar("inner.xar", inner_xml().as_bytes())
        .expect("reads")
        .value;
    let host = Slow(
        NativeHost::new().with("Nap", napping(nap, "inner napped")),
        slow,
    );
    Engine::load(
        &x,
        &host,
        Options {
            trace: trace.prefixed("inner:"),
            time_base: Some(Arc::clone(ctx.activity())),
            ..Default::default()
        },
    )
    .expect("the nested behavior loads")
}

/// The outer behavior: `Runner` runs the nested behavior (as `runBehavior`: it waits for its
/// end) and then stops, which ends the outer run; `Tick` beside it naps 1 s, logs, naps 1 s
/// more and logs again. The Runner's onUnload stops the nested run (as the stock Run
/// Behavior box does).
fn outer(
    trace: &Trace,
    slot: &Slot,
    nap: f64,
    virtual_time: bool,
    slow: Duration,
) -> (Engine, NativeHost) {
    let inner_trace = trace.clone();
    let run_slot = Arc::clone(slot);
    let unload_slot = Arc::clone(slot);
    let host = NativeHost::new()
        .with("Runner", move |hook, ctx| {
            match hook {
                Hook::Input { name, .. } if name == "onStart" => {
                    let nested = Arc::new(load_inner(ctx, &inner_trace, nap, slow));
                    *run_slot.lock().unwrap() = Some(Arc::clone(&nested));
                    nested.start();
                    let outcome = nested.wait_end_parked();
                    ctx.log("info", &format!("nested run over: {outcome:?}"));
                    run_slot.lock().unwrap().take();
                    ctx.fire("onStopped", Value::None)?;
                }
                Hook::Unload => {
                    let nested = unload_slot.lock().unwrap().clone();
                    if let Some(nested) = nested {
                        nested.stop();
                        nested.wait_end_parked();
                    }
                }
                _ => {}
            }
            Ok(())
        })
        .with("Tick", |hook, ctx| {
            if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
                ctx.sleep(Duration::from_secs(1));
                ctx.log("info", "tick");
                ctx.sleep(Duration::from_secs(1));
                ctx.log("info", "tock");
            }
            Ok(())
        });
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        boxed("Runner", 1, "", ""),
        boxed("Tick", 2, "", ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(1, 4, 0, 4),
    ));
    let x = choreo_xar::read_xar("outer.xar", xml.as_bytes())
        .expect("reads")
        .value;
    let engine = Engine::load(
        &x,
        &host,
        Options {
            virtual_time,
            trace: trace.clone(),
            time_limit: Some(Duration::from_secs(60)),
            ..Default::default()
        },
    )
    .expect("the outer behavior loads");
    (engine, host)
}

/// Runs the outer behavior to its end in virtual time; its events.
fn run_outer(nap: f64) -> (Outcome, Vec<Event>) {
    run_outer_slowly(nap, Duration::ZERO)
}

/// [`run_outer`], each box of the nested behavior taking `slow` of real time to construct.
fn run_outer_slowly(nap: f64, slow: Duration) -> (Outcome, Vec<Event>) {
    let trace = Trace::keep_all();
    let slot: Slot = Arc::default();
    let (engine, _host) = outer(&trace, &slot, nap, true, slow);
    engine.start();
    let outcome = engine.wait(Duration::from_secs(30));
    drop(engine);
    (outcome, trace.events())
}

fn at(events: &[Event], short: &str) -> f64 {
    let e = events
        .iter()
        .find(|e| e.short() == short)
        .unwrap_or_else(|| {
            panic!(
                "{short:?} not in the trace:\n{}",
                events
                    .iter()
                    .map(Event::short)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
    e.time_ns as f64 / 1e9
}

#[test]
fn a_nested_sleep_takes_the_same_behavior_time_and_interleaves_with_the_outer_run() {
    let (outcome, events) = run_outer(1.5);
    assert_eq!(outcome, Outcome::Finished);
    let shorts: Vec<String> = events.iter().map(Event::short).collect();
    // The nested run is in the outer trace, its paths prefixed.
    support::assert_in_order(
        &shorts,
        &[
            "root/Runner call onInput_onStart",
            "inner:root/Nap new",
            "inner: beh start",
            "inner:root/Nap call onInput_onStart",
            "root/Tick log info: tick",
            "inner:root/Nap log info: inner napped",
            "inner: beh end",
            "root/Runner log info: nested run over: Finished",
            "beh end",
        ],
    );
    assert_eq!(at(&events, "root/Tick log info: tick"), 1.0);
    assert_eq!(at(&events, "inner:root/Nap log info: inner napped"), 1.5);
    assert_eq!(
        at(&events, "root/Runner log info: nested run over: Finished"),
        1.5
    );
    // The outer run ends when the Runner stops, after the nested run: at 1.5 s, though
    // Tick still sleeps (it is unloaded; its hook goes on by itself).
    assert_eq!(at(&events, "beh end"), 1.5);
    // Every event of the nested run is numbered by the outer trace, gap-free.
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64);
    }
}

#[test]
fn the_outer_run_finishes_only_when_a_nested_run_it_waits_for_ends() {
    // Tick is done at 2 s; the nested run lasts 3 s: the outer run ends at 3 s, not 2 s.
    let (outcome, events) = run_outer(3.0);
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(at(&events, "root/Tick log info: tock"), 2.0);
    assert_eq!(at(&events, "inner:root/Nap log info: inner napped"), 3.0);
    assert_eq!(at(&events, "beh end"), 3.0);
}

#[test]
fn nested_runs_interleave_the_same_way_every_time() {
    // Nap and Tick both wake at 1 s. Up to the outer run's last `del` (a hook still sleeping
    // then goes on by itself while the test drops the engine).
    let run = || {
        let mut events: Vec<(u64, String)> = run_outer(1.0)
            .1
            .iter()
            .map(|e| (e.time_ns, e.short()))
            .collect();
        let end = events
            .iter()
            .rposition(|(_, s)| s.starts_with("root") && s.ends_with(" del"))
            .expect("the outer run destroys its boxes");
        events.truncate(end + 1);
        events
    };
    let first = run();
    for _ in 0..5 {
        let again = run();
        if let Some(i) = (0..first.len().max(again.len())).find(|&i| first.get(i) != again.get(i)) {
            panic!(
                "runs differ at event {i}:\n first: {:?}\n again: {:?}",
                &first[i.saturating_sub(3)..(i + 4).min(first.len())],
                &again[i.saturating_sub(3)..(i + 4).min(again.len())]
            );
        }
    }
}

#[test]
fn stopping_the_outer_run_stops_the_nested_one_first() {
    let trace = Trace::keep_all();
    let slot: Slot = Arc::default();
    let (engine, _host) = outer(&trace, &slot, f64::INFINITY, true, Duration::ZERO);
    engine.start();
    // The nested run never stops and Tick is done at 2 s: then nothing can happen any more
    // (the Runner, waiting for the nested run, does not count as running).
    assert_eq!(engine.wait(Duration::from_secs(30)), Outcome::Idle);
    assert_eq!(engine.now().as_secs_f64(), 2.0);
    assert!(slot.lock().unwrap().is_some());
    engine.stop();
    let outcome = engine.wait(Duration::from_secs(30));
    assert_eq!(outcome, Outcome::Stopped);
    drop(engine);
    let events = trace.events();
    let shorts: Vec<String> = events.iter().map(Event::short).collect();
    // The Runner's onUnload stops the nested run, which unloads, then is destroyed, before
    // the outer run destroys its boxes.
    support::assert_in_order(
        &shorts,
        &[
            "beh stop",
            "root/Runner call onUnload",
            "inner: beh stop",
            "inner:root/Nap call onUnload",
            "inner:root/Nap del",
            "root/Runner ret onUnload",
            "root/Runner del",
        ],
    );
    assert!(
        shorts
            .iter()
            .any(|s| s == "root/Runner log info: nested run over: Stopped")
    );
    assert!(
        !shorts
            .iter()
            .any(|s| s == "inner:root/Nap log info: inner napped")
    );
}

#[test]
fn a_nested_run_in_real_time_shares_the_outer_clock() {
    let trace = Trace::keep_all();
    let slot: Slot = Arc::default();
    let (engine, _host) = outer(&trace, &slot, 0.2, false, Duration::ZERO);
    let started = std::time::Instant::now();
    engine.start();
    let outcome = engine.wait(Duration::from_secs(10));
    assert_eq!(outcome, Outcome::Finished);
    assert!(started.elapsed() >= Duration::from_millis(200));
    drop(engine);
    let events = trace.events();
    let napped = at(&events, "inner:root/Nap log info: inner napped");
    let end = at(&events, "beh end");
    // One clock: the nested nap ends 0.2 s after the start, and the outer end follows it.
    assert!((0.2..2.0).contains(&napped), "napped at {napped}");
    assert!(end >= napped, "end at {end}, napped at {napped}");
}

#[test]
fn a_slow_nested_load_holds_virtual_time_and_is_not_a_stall() {
    // The nested behavior's two boxes take 1.5 s of real time each to construct, more than
    // the 2 s after which a hook that neither returns nor sleeps is said to be stalled.
    let (outcome, events) = run_outer_slowly(1.5, Duration::from_millis(1500));
    assert_eq!(outcome, Outcome::Finished);
    let shorts: Vec<String> = events.iter().map(Event::short).collect();
    assert!(
        !shorts.iter().any(|s| s.contains("warning")),
        "{}",
        shorts.join("\n")
    );
    assert_eq!(at(&events, "root/Tick log info: tick"), 1.0);
    assert_eq!(at(&events, "inner:root/Nap log info: inner napped"), 1.5);
}
