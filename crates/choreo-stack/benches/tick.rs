//! The cost of one tick per in-scope behavior (issue 13): `Runner::tick` on a *flat* stack
//! of N in-scope behaviors, N = 10, 1,000 and 10,000. Target: **≤ 30 ns per in-scope
//! behavior per tick, median, at N = 10,000**; `benches/stack-vs-btcpp.sh` sets it side by
//! side with BehaviorTree.CPP (target: ≥ 5× cheaper per node).
//!
//! The stack: a base behavior (`always_delegates() -> false`, so that it is never cancelled
//! for having no delegate; it never delegates) whose `delegates()` lists N leaves. Pushing
//! the base puts all N in activatable scope, so each tick is the stack pass (the base) and
//! the in-scope pass (the N leaves): one `update` each. `delegates()` and not `linked()`:
//! a linked closure is bounded at 1,000 behaviors (P3), so a base linking 10,000 is refused
//! at build. A leaf's `update` increments a counter it owns (a relaxed load and store: one
//! thread, no locked instruction to measure instead of the runner), through
//! `std::hint::black_box`. The counters are read from outside after every round, and every
//! round panics unless the base and each leaf got exactly one update per tick so far (the
//! stack still `[base]`, every leaf `InScope`). Before timing, a run with the trace kept
//! checks the same from the runner's side: one `Update` event per behavior per tick.
//!
//! Two columns, each its own runner, their rounds alternating:
//! - `plain`: `Options { keep_trace: false, budget: None, .. }`, the main number;
//! - `budget`: `budget: Some(60 ms)`: every hook is timed (two `Instant::now` per hook) and
//!   the tick ends with the budget check.
//!
//! A round times `ticks` consecutive `Runner::tick` calls with one pair of `Instant::now`
//! (ticks = `STACK_BENCH_UPDATES` / N, between 1 and 200,000); ns per behavior = round
//! time / ticks / N (N leaves; the base is the N + 1th in-scope behavior, its update
//! counted as overhead). One untimed warm-up round first; the table gives the median and
//! the min over rounds.
//!
//! Why a plain `main` and not criterion: the number wanted is a median over rounds of
//! many ticks of one long-lived runner whose state (the tick count, the counters) is
//! checked after every round; criterion's closures and warm-up would tick it an unknown
//! number of times, and its statistics would not be the ones compared with BT.CPP, whose
//! side (a Python script) measures rounds the same way.
//!
//! Run: `cargo bench -p choreo-stack --bench tick` (about 10 s). Environment:
//! `STACK_BENCH_N` (default `10,1000,10000`), `STACK_BENCH_ROUNDS` (default 15),
//! `STACK_BENCH_UPDATES` (behavior updates per round, default 2,000,000),
//! `STACK_BENCH_TSV` (a file every round is appended to, for `benches/stack-vs-btcpp.sh`:
//! `side pass n column round ticks total_ns ns_per_node`, tab-separated) and
//! `STACK_BENCH_PASS` (the pass number written there); `STACK_BENCH_ONLY=plain` (or
//! `budget`) times one column only (for `perf record`). Without `--bench`
//! (`cargo test --benches`): N = 10 and 100, 2 rounds of 20,000 updates: a smoke run of
//! the checks.
#![allow(clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use choreo_stack::core::trace::Event;
use choreo_stack::{Behavior, Builder, Context, Options, Runner, State, Tick};

/// At most this many ticks per round (N = 1 would otherwise tick 2,000,000 times a round).
const MAX_TICKS: usize = 200_000;

/// One update more on `counter`: a load and a store (the runner's thread is the only one).
#[inline(always)]
fn bump(counter: &AtomicU64) {
    let c = black_box(counter);
    c.store(c.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

/// The base: N declared delegates (all in scope while it is active), never delegates, never
/// has to.
struct Base {
    leaves: Vec<String>,
    updates: Arc<AtomicU64>,
}

impl Behavior for Base {
    fn delegates(&self) -> Vec<String> {
        self.leaves.clone()
    }
    fn always_delegates(&self) -> bool {
        false
    }
    fn wants_to_be_activated(&mut self, _: &mut Context<'_>) -> bool {
        true
    }
    fn update(&mut self, _: &mut Context<'_>) {
        bump(&self.updates);
    }
}

/// A leaf: in scope, never activated; counts its updates.
struct Leaf {
    updates: Arc<AtomicU64>,
}

impl Behavior for Leaf {
    fn always_delegates(&self) -> bool {
        false
    }
    fn wants_to_be_activated(&mut self, _: &mut Context<'_>) -> bool {
        false
    }
    fn update(&mut self, _: &mut Context<'_>) {
        bump(&self.updates);
    }
}

/// A flat stack of `n` leaves and what checks it.
struct Flat {
    n: usize,
    runner: Runner,
    /// The base's counter, then the leaves' in order.
    counters: Vec<Arc<AtomicU64>>,
    ticks: u64,
}

impl Flat {
    fn new(n: usize, keep_trace: bool, budget: Option<Duration>) -> Flat {
        let names: Vec<String> = (0..n).map(|i| format!("leaf{i}")).collect();
        let counters: Vec<Arc<AtomicU64>> = (0..=n).map(|_| Arc::default()).collect();
        let mut b = Builder::new();
        b.add(
            "base",
            Box::new(Base {
                leaves: names.clone(),
                updates: counters[0].clone(),
            }),
        );
        for (name, c) in names.iter().zip(&counters[1..]) {
            b.add(name, Box::new(Leaf { updates: c.clone() }));
        }
        let options = Options {
            keep_trace,
            budget,
            ..Default::default()
        };
        let runner = b.build("base", options).expect("the flat stack builds");
        Flat {
            n,
            runner,
            counters,
            ticks: 0,
        }
    }

    /// Ticks `ticks` times; the time they took.
    fn run(&mut self, ticks: u64) -> Duration {
        let took = tick_many(&mut self.runner, ticks);
        self.ticks += ticks;
        took
    }

    /// Panics unless every behavior got exactly one update per tick so far and the stack is
    /// as built.
    fn check(&self) {
        for (i, c) in self.counters.iter().enumerate() {
            let got = c.load(Ordering::Relaxed);
            assert_eq!(
                got, self.ticks,
                "behavior {i} of N = {} (0 = base) got {got} updates in {} ticks",
                self.n, self.ticks
            );
        }
        let base = self.runner.base();
        assert_eq!(self.runner.stack(), [base], "the stack is [base]");
        for leaf in self.runner.delegates_of(base) {
            assert_eq!(self.runner.state(*leaf), Some(State::InScope));
        }
        assert_eq!(self.runner.delegates_of(base).len(), self.n);
    }
}

/// The timed loop (not inlined: every column and N runs the same machine code).
#[inline(never)]
fn tick_many(runner: &mut Runner, ticks: u64) -> Duration {
    let started = Instant::now();
    for _ in 0..ticks {
        let tick = runner.tick().expect("the base wants to be activated");
        assert!(tick == Tick::Running, "the stack runs on");
    }
    started.elapsed()
}

/// The runner's own account: with the trace kept, `ticks` ticks give exactly one `Update`
/// event per behavior per tick.
fn check_trace(n: usize, ticks: u64) {
    let mut flat = Flat::new(n, true, None);
    flat.run(ticks);
    flat.check();
    let mut updates = vec![0_u64; n + 1];
    for r in flat.runner.trace().records() {
        if let Event::Update { b } = r.event {
            updates[b.index()] += 1;
        }
    }
    assert!(
        updates.iter().all(|u| *u == ticks),
        "N = {n}: one Update event per behavior per tick"
    );
}

/// The median; NaN for none.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(s) => s
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name}={s}: a number")),
        Err(_) => default,
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// One row of the table: a column's per-round ns per behavior.
struct Column {
    name: &'static str,
    flat: Flat,
    per_node: Vec<f64>,
    per_tick: Vec<f64>,
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let ns: Vec<usize> = match std::env::var("STACK_BENCH_N") {
        Ok(s) => s
            .split(',')
            .map(|x| {
                x.trim()
                    .replace('_', "")
                    .parse()
                    .unwrap_or_else(|_| panic!("STACK_BENCH_N={s}: numbers, comma-separated"))
            })
            .collect(),
        Err(_) if full => vec![10, 1_000, 10_000],
        Err(_) => vec![10, 100],
    };
    let rounds = env_usize("STACK_BENCH_ROUNDS", if full { 15 } else { 2 }).max(1);
    let updates = env_usize("STACK_BENCH_UPDATES", if full { 2_000_000 } else { 20_000 });
    let only = std::env::var("STACK_BENCH_ONLY").ok();
    let only = only.as_deref();
    assert!(
        matches!(only, None | Some("plain" | "budget")),
        "STACK_BENCH_ONLY: plain or budget"
    );
    let pass = std::env::var("STACK_BENCH_PASS").unwrap_or_else(|_| "1".into());
    let mut tsv = std::env::var_os("STACK_BENCH_TSV").map(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .unwrap_or_else(|e| panic!("STACK_BENCH_TSV={}: {e}", p.to_string_lossy()))
    });

    println!("choreo-stack tick: flat stacks, {rounds} rounds of {updates} behavior updates");
    println!("load average at start: {}", loadavg());
    println!(
        "{:>7} {:>9} | {:>27} | {:>28} | {:>12}",
        "N", "ticks", "plain ns/behavior med (min)", "budget ns/behavior med (min)", "plain tick"
    );
    for &n in &ns {
        assert!(n > 0, "N > 0");
        check_trace(n, 3);
        let ticks = (updates / n).clamp(1, MAX_TICKS) as u64;
        let mut columns = [
            Column {
                name: "plain",
                flat: Flat::new(n, false, None),
                per_node: Vec::new(),
                per_tick: Vec::new(),
            },
            Column {
                name: "budget",
                flat: Flat::new(n, false, Some(Duration::from_millis(60))),
                per_node: Vec::new(),
                per_tick: Vec::new(),
            },
        ];
        for c in columns
            .iter_mut()
            .filter(|c| only.is_none_or(|o| o == c.name))
        {
            c.flat.run(ticks);
            c.flat.check();
        }
        for round in 0..rounds {
            for c in columns
                .iter_mut()
                .filter(|c| only.is_none_or(|o| o == c.name))
            {
                let took = c.flat.run(ticks);
                c.flat.check();
                let total = took.as_nanos() as f64;
                let per_node = total / ticks as f64 / n as f64;
                c.per_node.push(per_node);
                c.per_tick.push(total / ticks as f64);
                if let Some(f) = tsv.as_mut() {
                    writeln!(
                        f,
                        "ours\t{pass}\t{n}\t{}\t{round}\t{ticks}\t{total}\t{per_node:.3}",
                        c.name
                    )
                    .expect("the TSV file is written");
                }
            }
        }
        let [plain, budget] = &mut columns;
        let cell = |c: &mut Column| {
            if c.per_node.is_empty() {
                return "-".to_string();
            }
            let min = c.per_node.iter().copied().fold(f64::INFINITY, f64::min);
            format!("{:.2} ({:.2})", median(&mut c.per_node), min)
        };
        let tick = match median(&mut plain.per_tick) {
            t if t.is_nan() => "-".to_string(),
            t if t >= 1e4 => format!("{:.1} µs", t / 1e3),
            t => format!("{t:.0} ns"),
        };
        println!(
            "{n:>7} {ticks:>9} | {:>27} | {:>28} | {tick:>12}",
            cell(plain),
            cell(budget)
        );
    }
    println!("load average at end: {}", loadavg());
    println!(
        "every round checked: the base and each leaf got exactly one update per tick; \
         the trace of a first run agrees"
    );
}
