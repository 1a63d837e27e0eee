//! Engine costs, in virtual time, on behaviors generated as XAR text and read with
//! `choreo_xar::read_xar`:
//!
//! 1. `hop_chain`: a chain of N native boxes (N = 10,000): root.onStart → box1.onStart, each
//!    box's onStart hook fires its Punctual output `next` → the next box's onStart, the last
//!    `next` → root's onStopped. Timed from `Engine::start` to `Outcome::Finished`. Run with
//!    `NativeHost::with_inline` boxes (hooks on the control thread) and `NativeHost::with`
//!    boxes (hooks on worker threads). A baseline of the same N boxes where box 1's `next`
//!    goes straight to root's onStopped (1 hop) is timed too, so the cost of loading and
//!    unloading N boxes can be taken out: net ns/hop = (chain − baseline) / (N − 1).
//! 2. `fan_out`: one output linked to the inputs of 1,000 boxes; the source fires it 10 times
//!    in its onStart hook (10,000 deliveries); timed from start to `Outcome::Idle`, with a
//!    baseline where the source fires nothing. Sinks run inline (`with_inline`) or on
//!    workers (`with`); the source is inline in both.
//! 3. `load`: a generated behavior of 10,000 placeholder boxes in nested diagrams (10 groups
//!    × 9 subgroups × 110 leaves, every diagram forwarding onStart to each of its boxes):
//!    `read_xar`, `Engine::load`, start → idle (every box loaded and started), stop → stopped,
//!    and dropping the engine; also `Engine::load` of the chain of 1 (one flat diagram).
//! 4. `memory`: process RSS (`/proc/self/status` VmRSS) before and after loading, starting and
//!    stopping the behavior of 3, and after dropping it; printed first, before criterion runs.
//! 5. `side_by_side`: after criterion, the chain and the fan-out again, inline and worker
//!    runs interleaved in rounds (`ENGINE_BENCH_ROUNDS`, default 15; each run the fastest
//!    of 3 in a row), for the ratios; the anchor, the same chain's hops in a bare arena
//!    (`arena_hops`), in each round; and the steady-state hop, 100 laps around a cycle of
//!    as many inline boxes (`support/cycle.rs`), beside the arena's hops around a cycle.
//!
//! Parts 4 and 5 are skipped under `--profile-time`, and under a filter that does not match
//! their name (`cargo bench -p choreo-engine --bench engine -- memory` runs only part 4).
//!
//! Run: `cargo bench -p choreo-engine --bench engine` (a few minutes). Without `--bench`
//! (`cargo test --benches`) the sizes are 10× smaller and criterion runs each routine once.
//! After criterion's output a summary prints medians of the per-run times of this run, the
//! net per-hop and per-delivery costs, and the worker / inline ratios.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use choreo_engine::{Engine, Hook, NativeHost, Options, Outcome, Value};
use choreo_testkit::generated::{IN, OUT, behavior, hop_chain, push_box, push_link};
use choreo_xar::model::XarFile;
use criterion::{Criterion, SamplingMode, Throughput};

#[path = "support/cycle.rs"]
mod cycle;

/// How long one wait on the engine may take before the bench gives up.
const WAIT: Duration = Duration::from_secs(300);

/// Problem sizes: full under `cargo bench`, 10× smaller otherwise (CI's `cargo test --benches`).
#[derive(Clone, Copy)]
struct Sizes {
    /// Boxes (= hops) in the chain.
    chain: i64,
    /// Inputs the fan-out output is linked to.
    fan_out: i64,
    /// How many times the fan-out source fires.
    fires: i64,
    /// Boxes of the generated nested behavior (load and memory).
    big: i64,
    full: bool,
}

impl Sizes {
    fn from_args() -> Sizes {
        if std::env::args().any(|a| a == "--bench") {
            Sizes {
                chain: 10_000,
                fan_out: 1_000,
                fires: 10,
                big: 10_000,
                full: true,
            }
        } else {
            Sizes {
                chain: 1_000,
                fan_out: 100,
                fires: 2,
                big: 1_000,
                full: false,
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// Behaviors as XAR text

/// Reads a behavior whose root diagram is `inner`.
fn read(inner: &str) -> XarFile {
    choreo_xar::read_xar("bench.xar", behavior(inner).as_bytes())
        .expect("the generated behavior reads")
        .value
}

/// Benchmark 1: `n` boxes `hop`; chained (`linked`), or only box 1 → root.onStopped.
fn chain_xar(n: i64, linked: bool) -> XarFile {
    read(&hop_chain(n, linked))
}

/// Benchmark 2: box 1 `src` with output `out` linked to input `in` of `n` boxes `sink`.
fn fan_xar(n: i64) -> XarFile {
    let mut d = String::new();
    push_box(&mut d, "src", 1, OUT, None);
    for k in 2..=n + 1 {
        push_box(&mut d, "sink", k, IN, None);
    }
    push_link(&mut d, 0, 2, 1, 2);
    for k in 2..=n + 1 {
        push_link(&mut d, 1, 5, k, 5);
    }
    read(&d)
}

/// Benchmark 3: `n` placeholder boxes: 10 groups × 9 subgroups × leaves (10,000 = 10 ×
/// (1 + 9 × (1 + 110))); every diagram forwards its owner's onStart to each of its boxes.
fn nested_text(n: i64) -> String {
    let (groups, subs) = (10, 9);
    let leaves = (n / groups - 1) / subs - 1;
    let forward_start = |d: &mut String, count: i64| {
        for k in 1..=count {
            push_link(d, 0, 2, k, 2);
        }
    };
    let mut sub = String::new();
    for k in 1..=leaves {
        push_box(&mut sub, "leaf", k, "", None);
    }
    forward_start(&mut sub, leaves);
    let mut group = String::new();
    for k in 1..=subs {
        push_box(&mut group, "sub", k, "", Some(&sub));
    }
    forward_start(&mut group, subs);
    let mut root = String::new();
    for k in 1..=groups {
        push_box(&mut root, "group", k, "", Some(&group));
    }
    forward_start(&mut root, groups);
    behavior(&root)
}

fn nested_xar(n: i64) -> XarFile {
    choreo_xar::read_xar("bench.xar", nested_text(n).as_bytes())
        .expect("the generated behavior reads")
        .value
}

// ------------------------------------------------------------------------------------------
// Hosts

/// `hop` boxes fire `next` from their onStart hook.
fn chain_host(inline: bool) -> NativeHost {
    let f = |hook: &Hook, ctx: &choreo_engine::BoxContext| {
        if let Hook::Input { name, .. } = hook
            && name == "onStart"
        {
            ctx.fire("next", Value::None)?;
        }
        Ok(())
    };
    if inline {
        NativeHost::new().with_inline("hop", f)
    } else {
        NativeHost::new().with("hop", f)
    }
}

/// `src` (inline) fires `out` `fires` times from its onStart hook; `sink` boxes do nothing,
/// inline or on workers.
fn fan_host(inline: bool, fires: i64) -> NativeHost {
    let host = NativeHost::new().with_inline("src", move |hook, ctx| {
        if let Hook::Input { name, .. } = hook
            && name == "onStart"
        {
            for _ in 0..fires {
                ctx.fire("out", Value::None)?;
            }
        }
        Ok(())
    });
    if inline {
        host.with_inline("sink", |_, _| Ok(()))
    } else {
        host.with("sink", |_, _| Ok(()))
    }
}

fn options() -> Options {
    Options {
        virtual_time: true,
        ..Options::default()
    }
}

fn load(x: &XarFile, host: &NativeHost) -> Engine {
    Engine::load(x, host, options()).expect("the behavior loads")
}

/// Loads (not timed), then times start → `expected`; the engine is dropped after the timing.
fn time_run(x: &XarFile, host: &NativeHost, expected: Outcome) -> Duration {
    let engine = load(x, host);
    let t = Instant::now();
    engine.start();
    let outcome = engine.wait(WAIT);
    let elapsed = t.elapsed();
    assert_eq!(outcome, expected);
    drop(engine);
    elapsed
}

// ------------------------------------------------------------------------------------------
// Per-run samples, for the summary (criterion's own statistics are printed as usual)

static SAMPLES: Mutex<BTreeMap<String, Vec<f64>>> = Mutex::new(BTreeMap::new());

/// Records one run of `key` (seconds).
fn sample(key: &str, d: Duration) {
    SAMPLES
        .lock()
        .unwrap()
        .entry(key.to_string())
        .or_default()
        .push(d.as_secs_f64());
}

/// The median of the runs of `key`, in seconds.
fn median(key: &str) -> Option<f64> {
    let samples = SAMPLES.lock().unwrap();
    let mut v = samples.get(key)?.clone();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn runs(key: &str) -> usize {
    SAMPLES.lock().unwrap().get(key).map_or(0, Vec::len)
}

/// Every measurement of this run: runs, min, median, max (ms).
fn print_samples() {
    let samples = SAMPLES.lock().unwrap().clone();
    println!(
        "{:<24} {:>6} {:>11} {:>11} {:>11}",
        "measurement", "runs", "min ms", "median ms", "max ms"
    );
    for (key, mut v) in samples {
        v.sort_by(f64::total_cmp);
        let mid = median(&key).unwrap_or(f64::NAN);
        println!(
            "{key:<24} {:>6} {:>11.3} {:>11.3} {:>11.3}",
            v.len(),
            v[0] * 1e3,
            mid * 1e3,
            v[v.len() - 1] * 1e3
        );
    }
}

/// A timed routine, for criterion and the summary: `iters` runs of `f`, each returning its time.
fn timed(
    key: &'static str,
    mut f: impl FnMut() -> Duration,
) -> impl FnMut(&mut criterion::Bencher<'_>) {
    move |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let d = f();
                sample(key, d);
                total += d;
            }
            total
        });
    }
}

// ------------------------------------------------------------------------------------------
// Benchmarks

fn bench_chain(c: &mut Criterion, s: Sizes) {
    let n = s.chain;
    let chain = chain_xar(n, true);
    let base = chain_xar(n, false);
    let (inline, worker) = (chain_host(true), chain_host(false));
    let mut g = c.benchmark_group(format!("hop_chain_{n}"));
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(if s.full { 10 } else { 1 }))
        .throughput(Throughput::Elements(n as u64));
    g.bench_function(
        "inline",
        timed("chain/inline", || {
            time_run(&chain, &inline, Outcome::Finished)
        }),
    );
    g.bench_function(
        "worker",
        timed("chain/worker", || {
            time_run(&chain, &worker, Outcome::Finished)
        }),
    );
    g.throughput(Throughput::Elements(1));
    g.bench_function(
        "inline_base_1hop",
        timed("chain/inline_base", || {
            time_run(&base, &inline, Outcome::Finished)
        }),
    );
    g.bench_function(
        "worker_base_1hop",
        timed("chain/worker_base", || {
            time_run(&base, &worker, Outcome::Finished)
        }),
    );
    g.finish();
}

fn bench_fan_out(c: &mut Criterion, s: Sizes) {
    let x = fan_xar(s.fan_out);
    let hosts = [
        ("inline", fan_host(true, s.fires)),
        ("worker", fan_host(false, s.fires)),
        ("inline_base", fan_host(true, 0)),
        ("worker_base", fan_host(false, 0)),
    ];
    let mut g = c.benchmark_group(format!("fan_out_{}", s.fan_out));
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(if s.full { 5 } else { 1 }));
    for (name, host) in &hosts {
        let deliveries = if name.ends_with("base") {
            1
        } else {
            s.fan_out * s.fires
        };
        g.throughput(Throughput::Elements(deliveries as u64));
        let key: &'static str = match *name {
            "inline" => "fan/inline",
            "worker" => "fan/worker",
            "inline_base" => "fan/inline_base",
            _ => "fan/worker_base",
        };
        g.bench_function(*name, timed(key, || time_run(&x, host, Outcome::Idle)));
    }
    g.finish();
}

fn bench_load(c: &mut Criterion, s: Sizes) {
    let xml = nested_text(s.big);
    let x = nested_xar(s.big);
    let host = NativeHost::new();
    let mut g = c.benchmark_group(format!("load_{}", s.big));
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(if s.full { 5 } else { 1 }));
    g.bench_function(
        "read_xar",
        timed("load/read_xar", || {
            let t = Instant::now();
            let r = choreo_xar::read_xar("bench.xar", xml.as_bytes()).expect("reads");
            let d = t.elapsed();
            drop(r);
            d
        }),
    );
    g.bench_function(
        "engine_load",
        timed("load/engine_load", || {
            let t = Instant::now();
            let engine = load(&x, &host);
            let d = t.elapsed();
            drop(engine);
            d
        }),
    );
    // The chain of benchmark 1: all N boxes and N links in one flat diagram.
    let flat = chain_xar(s.chain, true);
    let chain_host = chain_host(true);
    g.bench_function(
        "engine_load_flat_chain",
        timed("load/engine_load_flat", || {
            let t = Instant::now();
            let engine = load(&flat, &chain_host);
            let d = t.elapsed();
            drop(engine);
            d
        }),
    );
    g.bench_function(
        "start_to_idle",
        timed("load/start_to_idle", || time_run(&x, &host, Outcome::Idle)),
    );
    g.bench_function(
        "stop_to_stopped",
        timed("load/stop_to_stopped", || {
            let engine = load(&x, &host);
            engine.start();
            assert_eq!(engine.wait(WAIT), Outcome::Idle);
            let t = Instant::now();
            engine.stop();
            assert_eq!(engine.wait(WAIT), Outcome::Stopped);
            let d = t.elapsed();
            drop(engine);
            d
        }),
    );
    g.bench_function(
        "drop_after_stop",
        timed("load/drop", || {
            let engine = load(&x, &host);
            engine.start();
            assert_eq!(engine.wait(WAIT), Outcome::Idle);
            engine.stop();
            assert_eq!(engine.wait(WAIT), Outcome::Stopped);
            let t = Instant::now();
            drop(engine);
            t.elapsed()
        }),
    );
    g.finish();
}

// ------------------------------------------------------------------------------------------
// Memory

/// The process's resident set size (VmRSS), bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Heap bytes the graph asked for (capacities; no allocator overhead), plus its box vector.
fn graph_bytes(g: &choreo_engine::graph::Graph) -> usize {
    use choreo_engine::graph::{BoxNode, Content, DiagramNode, InputNode, OutputNode, Target};
    use std::mem::size_of;
    let string = |s: &String| s.capacity();
    // Port names are shared across the graph: each text is counted once.
    let mut names = std::collections::HashSet::new();
    let mut n = g.boxes.capacity() * size_of::<BoxNode>()
        + g.diagrams.capacity() * size_of::<DiagramNode>();
    for b in &g.boxes {
        n += string(&b.path) + string(&b.name) + string(&b.code);
        n += b.inputs.capacity() * size_of::<InputNode>();
        // A shared name: its text and the two reference counts in front of it.
        let mut shared = |name: &choreo_engine::PortName| {
            if names.insert(name.as_str().as_ptr()) {
                name.len() + 16
            } else {
                0
            }
        };
        n += b.inputs.iter().map(|p| shared(&p.name)).sum::<usize>();
        n += b.outputs.capacity() * size_of::<OutputNode>();
        n += b
            .outputs
            .iter()
            .map(|p| {
                let spilled = if p.targets.spilled() {
                    p.targets.capacity()
                } else {
                    0
                };
                shared(&p.name) + spilled * size_of::<Target>()
            })
            .sum::<usize>();
        n += b.parameters.capacity() * size_of::<choreo_engine::graph::ParameterNode>();
        n += b.parameters.iter().map(|p| string(&p.name)).sum::<usize>();
        if let Content::Holder(ds) = &b.content {
            n += ds.capacity() * 4;
        }
    }
    for d in &g.diagrams {
        n += d.boxes.capacity() * 4 + d.from_owner.capacity() * 24;
        n += d
            .from_owner
            .iter()
            .map(|t| t.capacity() * size_of::<Target>())
            .sum::<usize>();
    }
    n
}

/// Trace events so far, and the bytes their records take.
fn trace_counts(engine: &Engine) -> (usize, usize) {
    (engine.trace().len(), engine.trace().record_bytes())
}

fn memory(s: Sizes) {
    let x = nested_xar(s.big);
    let host = NativeHost::new();
    // RSS first, in a clean order (nothing else allocated in between); counts after, in a
    // second run of the same (deterministic) behavior.
    let r0 = rss();
    let engine = load(&x, &host);
    let r_load = rss();
    engine.start();
    assert_eq!(engine.wait(WAIT), Outcome::Idle);
    let r_idle = rss();
    engine.stop();
    assert_eq!(engine.wait(WAIT), Outcome::Stopped);
    let r_stopped = rss();
    drop(engine);
    let r_dropped = rss();

    let engine = load(&x, &host);
    let boxes = engine.graph().boxes.len() - 1;
    let graph = graph_bytes(engine.graph());
    let c_load = trace_counts(&engine);
    engine.start();
    assert_eq!(engine.wait(WAIT), Outcome::Idle);
    let c_idle = trace_counts(&engine);
    engine.stop();
    assert_eq!(engine.wait(WAIT), Outcome::Stopped);
    let c_stopped = trace_counts(&engine);
    drop(engine);
    let r_second = rss();

    let per_box = |bytes: f64| bytes / boxes as f64;
    println!(
        "== memory: {boxes} placeholder boxes in nested diagrams; RSS (VmRSS) {:.1} MiB before Engine::load ==",
        r0 as f64 / 1048576.0
    );
    println!(
        "graph (heap asked for, no allocator overhead): {:.0} B/box",
        per_box(graph as f64)
    );
    println!(
        "{:<32} {:>11} {:>8} {:>14} {:>18}",
        "phase", "RSS delta", "B/box", "trace events", "trace B/box"
    );
    for (what, at, (events, trace_bytes)) in [
        ("after Engine::load", r_load, c_load),
        ("after start, idle (all loaded)", r_idle, c_idle),
        ("after stop, stopped", r_stopped, c_stopped),
        ("after dropping the engine", r_dropped, (0, 0)),
        ("after a 2nd load..drop (+counts)", r_second, (0, 0)),
    ] {
        println!(
            "{what:<32} {:>+7.0} KiB {:>8.0} {:>14} {:>18.0}",
            (at as f64 - r0 as f64) / 1024.0,
            per_box(at as f64 - r0 as f64),
            events,
            per_box(trace_bytes as f64)
        );
    }
    println!();
}

// ------------------------------------------------------------------------------------------
// Summary

fn summary(s: Sizes) {
    let ns = |key: &str| median(key).map(|v| v * 1e9);
    println!("== engine summary: medians of the per-run times of this run ==");
    print_samples();
    if let (Some(ci), Some(cw), Some(bi), Some(bw)) = (
        ns("chain/inline"),
        ns("chain/worker"),
        ns("chain/inline_base"),
        ns("chain/worker_base"),
    ) {
        let n = s.chain as f64;
        let (gi, gw) = (ci / n, cw / n);
        let (ni, nw) = ((ci - bi) / (n - 1.0), (cw - bw) / (n - 1.0));
        println!(
            "hop chain, {} boxes ({} / {} / {} / {} runs):",
            s.chain,
            runs("chain/inline"),
            runs("chain/worker"),
            runs("chain/inline_base"),
            runs("chain/worker_base")
        );
        println!(
            "  start -> finished: inline {:.2} ms, worker {:.2} ms; 1-hop baseline: inline {:.2} ms, worker {:.2} ms",
            ci / 1e6,
            cw / 1e6,
            bi / 1e6,
            bw / 1e6
        );
        println!("  gross ns/hop (run / hops):          inline {gi:>9.0}  worker {gw:>9.0}");
        println!("  net ns/hop ((run - base) / (N-1)):  inline {ni:>9.0}  worker {nw:>9.0}");
        println!(
            "  worker / inline: gross {:.2}x, net {:.2}x; target <= 100 ns/hop: inline is {:.1}x the target",
            gw / gi,
            nw / ni,
            ni / 100.0
        );
    }
    if let (Some(fi), Some(fw), Some(bi), Some(bw)) = (
        ns("fan/inline"),
        ns("fan/worker"),
        ns("fan/inline_base"),
        ns("fan/worker_base"),
    ) {
        let d = (s.fan_out * s.fires) as f64;
        let (ni, nw) = ((fi - bi) / d, (fw - bw) / d);
        println!(
            "fan-out, 1 output -> {} inputs, fired {} times ({} deliveries):",
            s.fan_out, s.fires, d
        );
        println!(
            "  start -> idle: inline {:.2} ms, worker {:.2} ms; no-fire baseline: inline {:.2} ms, worker {:.2} ms",
            fi / 1e6,
            fw / 1e6,
            bi / 1e6,
            bw / 1e6
        );
        println!(
            "  net ns/delivery: inline {ni:.0}, worker {nw:.0}; worker / inline {:.2}x",
            nw / ni
        );
    }
    let ms = |key: &str| median(key).map(|v| v * 1e3);
    if let (Some(r), Some(l), Some(i), Some(st), Some(dr)) = (
        ms("load/read_xar"),
        ms("load/engine_load"),
        ms("load/start_to_idle"),
        ms("load/stop_to_stopped"),
        ms("load/drop"),
    ) {
        println!("load, {} placeholder boxes in nested diagrams:", s.big);
        println!(
            "  read_xar {r:.2} ms, Engine::load {l:.2} ms ({:.0} ns/box), start -> idle {i:.2} ms, stop -> stopped {st:.2} ms, drop {dr:.2} ms",
            l * 1e6 / s.big as f64
        );
        println!(
            "  start + stop = {:.2} ms (target < 100 ms); load + start + stop = {:.2} ms",
            i + st,
            l + i + st
        );
    }
    if let Some(f) = ms("load/engine_load_flat") {
        println!(
            "  Engine::load of the flat {}-box chain (one diagram, {} links): {f:.2} ms",
            s.chain,
            s.chain + 1
        );
    }
}

/// Rounds of the interleaved comparison: `ENGINE_BENCH_ROUNDS`, else 15 (2 without `--bench`).
/// Runs of each configuration in a row in each round of [`interleaved`], the fastest kept.
const TRIES: usize = 3;

/// The least of [`TRIES`] measurements in a row.
fn fastest(mut measure: impl FnMut() -> f64) -> f64 {
    (0..TRIES).map(|_| measure()).fold(f64::INFINITY, f64::min)
}

fn rounds(s: Sizes) -> usize {
    std::env::var("ENGINE_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if s.full { 15 } else { 2 })
}

/// Runs `configs` in rounds, interleaved (the order rotates every round, so drifting
/// background load hits every configuration alike), `beside` at the start of each round;
/// returns each one's times (ns) by round, each the fastest of [`TRIES`] runs in a row:
/// what else the machine does only ever adds time, and on a shared host it adds much
/// (a 10,000-box chain took 3 to 10 ms from one run to the next).
fn interleaved(
    rounds: usize,
    configs: &[(&XarFile, &NativeHost, Outcome)],
    beside: &mut dyn FnMut(),
) -> Vec<Vec<f64>> {
    let mut times = vec![Vec::with_capacity(rounds); configs.len()];
    for r in 0..rounds {
        beside();
        for k in 0..configs.len() {
            let i = (k + r) % configs.len();
            let (x, host, outcome) = &configs[i];
            times[i].push(fastest(|| {
                time_run(x, host, outcome.clone()).as_nanos() as f64
            }));
        }
    }
    times
}

/// The first and third quartiles of `v`: how far the rounds spread.
fn middle_half(v: &[f64]) -> (f64, f64) {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |q: usize| {
        v.get((v.len().saturating_sub(1)) * q / 4)
            .copied()
            .unwrap_or(0.0)
    };
    (at(1), at(3))
}

/// The anchor: `hops` hops around a cycle of `n` boxes in a bare arena, no engine (a chain
/// of `n` boxes is `n` hops). Each box is a hook in a `Vec` (called through a pointer, as
/// the engine calls box code), each link an index, the signals a queue: a hop is the hook's
/// call, its fire queued, the next box found. No trace, no lifecycle, no order of
/// operations: what a hop costs with nothing but the hop. Returns ns per hop.
fn arena_hops(n: usize, hops: usize) -> f64 {
    type Fire<'a> = dyn FnMut(Value) + 'a;
    type ArenaHook = Box<dyn Fn(&Value, &mut Fire<'_>)>;
    let hooks: Vec<ArenaHook> = (0..n)
        .map(|_| Box::new(|v: &Value, fire: &mut Fire<'_>| fire(v.clone())) as ArenaHook)
        .collect();
    // Box i's output is linked to box i + 1's input, the last one's to the first's.
    let links: Vec<usize> = (0..n).map(|i| (i + 1) % n).collect();
    let mut queue = std::collections::VecDeque::new();
    let t = Instant::now();
    queue.push_back((0usize, Value::None));
    let mut made = 0usize;
    while let Some((b, value)) = queue.pop_front() {
        made += 1;
        let next = (made < hops).then_some(links[b]);
        hooks[b](&value, &mut |v| {
            if let Some(next) = next {
                queue.push_back((next, v));
            }
        });
    }
    let ns = t.elapsed().as_nanos() as f64;
    assert_eq!(made, hops);
    std::hint::black_box(ns / hops as f64)
}

/// Inline and worker boxes measured side by side, interleaved, after criterion's runs: the
/// net cost per hop and per delivery, and worker / inline, as medians over the rounds; the
/// inline hop beside the bare arena's ([`arena_hops`]), measured in the same rounds.
fn side_by_side(s: Sizes) {
    let rounds = rounds(s);
    println!("== side by side, interleaved: {rounds} rounds, the order rotating each round ==");
    let n = s.chain as f64;
    let (chain, base) = (chain_xar(s.chain, true), chain_xar(s.chain, false));
    let (inline, worker) = (chain_host(true), chain_host(false));
    // The anchor runs in each round too: the engine's hop and the arena's, measured under
    // the same load, give a ratio per round.
    let mut arena = Vec::with_capacity(rounds);
    let t = interleaved(
        rounds,
        &[
            (&chain, &inline, Outcome::Finished),
            (&chain, &worker, Outcome::Finished),
            (&base, &inline, Outcome::Finished),
            (&base, &worker, Outcome::Finished),
        ],
        &mut || arena.push(fastest(|| arena_hops(s.chain as usize, s.chain as usize))),
    );
    let net = |c: usize, b: usize| -> Vec<f64> {
        (0..rounds)
            .map(|r| (t[c][r] - t[b][r]) / (n - 1.0))
            .collect()
    };
    let (net_inline, net_worker) = (net(0, 2), net(1, 3));
    let ratios: Vec<f64> = (0..rounds).map(|r| net_worker[r] / net_inline[r]).collect();
    let to_arena: Vec<f64> = (0..rounds).map(|r| net_inline[r] / arena[r]).collect();
    let gross = |c: usize| choreo_testkit::median(t[c].clone()) / n;
    println!(
        "hop chain, {} boxes: gross ns/hop inline {:.0}, worker {:.0} (worker / inline {:.1}x)",
        s.chain,
        gross(0),
        gross(1),
        gross(1) / gross(0)
    );
    let (q1, q3) = middle_half(&net_inline);
    println!(
        "  net ns/hop (chain - 1-hop baseline, same round): inline {:.0} (the rounds' middle half {q1:.0}-{q3:.0}), worker {:.0}; worker / inline: median of per-round ratios {:.1}x",
        choreo_testkit::median(net_inline.clone()),
        choreo_testkit::median(net_worker),
        choreo_testkit::median(ratios)
    );
    let (engine, anchor) = (
        choreo_testkit::median(net_inline),
        choreo_testkit::median(arena),
    );
    println!(
        "  the anchor, a bare arena (boxes in a Vec, links as indices, a queue of signals), in the same rounds: {anchor:.1} ns/hop; the engine's inline hop / the arena's: {:.1}x (median of per-round ratios {:.1}x)",
        engine / anchor,
        choreo_testkit::median(to_arena)
    );
    println!(
        "  start -> finished ms, medians: chain inline {:.2}, worker {:.2}; baseline inline {:.2}, worker {:.2}",
        choreo_testkit::median(t[0].clone()) / 1e6,
        choreo_testkit::median(t[1].clone()) / 1e6,
        choreo_testkit::median(t[2].clone()) / 1e6,
        choreo_testkit::median(t[3].clone()) / 1e6
    );

    cycle_side_by_side(s, rounds);

    let d = (s.fan_out * s.fires) as f64;
    let x = fan_xar(s.fan_out);
    let hosts = [
        fan_host(true, s.fires),
        fan_host(false, s.fires),
        fan_host(true, 0),
        fan_host(false, 0),
    ];
    let t = interleaved(
        rounds,
        &[
            (&x, &hosts[0], Outcome::Idle),
            (&x, &hosts[1], Outcome::Idle),
            (&x, &hosts[2], Outcome::Idle),
            (&x, &hosts[3], Outcome::Idle),
        ],
        &mut || {},
    );
    let net =
        |c: usize, b: usize| -> Vec<f64> { (0..rounds).map(|r| (t[c][r] - t[b][r]) / d).collect() };
    let (net_inline, net_worker) = (net(0, 2), net(1, 3));
    let ratios: Vec<f64> = (0..rounds).map(|r| net_worker[r] / net_inline[r]).collect();
    println!(
        "fan-out, 1 output -> {} inputs x {} fires: net ns/delivery inline {:.0}, worker {:.0}; worker / inline: median of per-round ratios {:.1}x",
        s.fan_out,
        s.fires,
        choreo_testkit::median(net_inline),
        choreo_testkit::median(net_worker),
        choreo_testkit::median(ratios)
    );
}

/// The steady-state hop: `CYCLE_LAPS` laps around a cycle of as many inline boxes as the
/// chain has, minus the same cycle making 1 hop, beside the arena's hops around a cycle of
/// as many boxes, in the same rounds. Where the chain's 10,000 hops take about as long as
/// the wake-ups of the threads around them (which vary by a millisecond on a shared host),
/// these take 100 times longer.
fn cycle_side_by_side(s: Sizes, rounds: usize) {
    const CYCLE_LAPS: u64 = 100;
    let hops = s.chain as u64 * CYCLE_LAPS;
    let x = cycle::cycle_xar(s.chain);
    let (laps, one) = (cycle::cycle_host(hops), cycle::cycle_host(1));
    let mut arena = Vec::with_capacity(rounds);
    let t = interleaved(
        rounds,
        &[
            (&x, &laps, Outcome::Finished),
            (&x, &one, Outcome::Finished),
        ],
        &mut || arena.push(fastest(|| arena_hops(s.chain as usize, hops as usize))),
    );
    let net: Vec<f64> = (0..rounds)
        .map(|r| (t[0][r] - t[1][r]) / (hops - 1) as f64)
        .collect();
    let to_arena: Vec<f64> = (0..rounds).map(|r| net[r] / arena[r]).collect();
    let (q1, q3) = middle_half(&net);
    println!(
        "hop around a cycle of {} inline boxes, {hops} hops (the same cycle's 1 hop taken out): net ns/hop {:.0} (the rounds' middle half {q1:.0}-{q3:.0}); the arena's cycle {:.1} ns/hop; engine / arena: median of per-round ratios {:.1}x",
        s.chain,
        choreo_testkit::median(net),
        choreo_testkit::median(arena),
        choreo_testkit::median(to_arena)
    );
}

/// Whether the parts outside criterion (`memory`, `side_by_side`) run: not when profiling
/// (`--profile-time`), and with a criterion filter only if `part` contains it.
fn runs_part(part: &str) -> bool {
    const TAKES_VALUE: &[&str] = &[
        "--profile-time",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--color",
        "--format",
        "--output-format",
        "--plotting-backend",
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a.starts_with("--profile-time")) {
        return false;
    }
    let filters: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            !a.starts_with('-') && (*i == 0 || !TAKES_VALUE.contains(&args[i - 1].as_str()))
        })
        .map(|(_, a)| a)
        .collect();
    filters.is_empty() || filters.iter().any(|f| part.contains(f.as_str()))
}

fn main() {
    let sizes = Sizes::from_args();
    println!(
        "engine bench: load average at start {}",
        choreo_testkit::load_average()
    );
    if runs_part("memory") {
        memory(sizes);
    }
    let mut c = Criterion::default().configure_from_args();
    bench_chain(&mut c, sizes);
    bench_fan_out(&mut c, sizes);
    bench_load(&mut c, sizes);
    c.final_summary();
    summary(sizes);
    if runs_part("side_by_side") {
        side_by_side(sizes);
    }
    println!("load average at end {}", choreo_testkit::load_average());
}
