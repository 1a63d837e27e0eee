//! choreo-motion costs:
//!
//! 1. `eval_30_keys`: a realistic curve (30 Bezier-auto keys of a HeadYaw-like joint, uneven
//!    spacing of 3–20 frames, runs and turns) sampled at N = 100,000 abscissas evenly spread
//!    over it, in order (how a simulated joint or a plot reads a curve):
//!    - `spline_eval`: `Spline::eval(x)` (segment search, abscissa solve, Bezier);
//!    - `segment`: `spline::segment(k0, k1, x)` on the same abscissas, the segment known
//!      (the solve and the Bezier, no search);
//!    - `bezier_floor`: `spline::bezier(p0, p1, p2, p3, s)` at N given parameters `s` (no
//!      search, no solve): the floor any evaluation pays.
//!
//!    Throughput in samples; the summary gives ns/sample and the ratios to the floor.
//! 2. `corpus_payloads`: for every motion timeline of `../shared/corpus` (every `.xar`, and
//!    the behaviors inside `.crg`/`.cbl` archives), `Motion::from_timeline` and the order
//!    `command_from(start frame, posture unknown)`: the whole corpus per iteration. The
//!    files are read and parsed before timing. Target: under 100 ms for the whole corpus.
//!    Skipped with a `NOTICE` when the corpus is absent.
//! 3. `side by side`, after criterion: the three evaluations and the corpus again, in
//!    interleaved rounds (`MOTION_BENCH_ROUNDS`, default 15; the order rotates every round so
//!    that background load hits them alike); medians of per-round times and of per-round
//!    ratios. Skipped under `--profile-time`.
//!
//! Run: `cargo bench -p choreo-motion --bench motion` (about a minute). Without `--bench`
//! (`cargo test --benches`) N is 10× smaller, criterion runs each routine once and the side
//! by side runs 2 rounds.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use choreo_motion::curve::{Key, Side};
use choreo_motion::spline::{bezier, segment};
use choreo_motion::{Curve, Motion, Spline};
use choreo_robot::Model;
use choreo_xar::model::Timeline;
use criterion::{Criterion, SamplingMode, Throughput};

/// Samples per evaluation run.
fn samples(full: bool) -> usize {
    if full { 100_000 } else { 10_000 }
}

/// The realistic curve: 30 auto keys, frames 1.. with gaps of 3–20, values in degrees that
/// run in one direction for a few keys, then turn (a small deterministic generator: the
/// same curve every run).
fn realistic_curve() -> Spline {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let (mut frame, mut value, mut up) = (1, 0.0_f64, true);
    let mut keys = Vec::with_capacity(30);
    for i in 0..30 {
        keys.push(Key {
            frame,
            value,
            left: Side::Auto,
            right: Side::Auto,
        });
        frame += 3 + next(18) as i32;
        if i % 4 == 3 {
            up = !up;
        }
        let step = 2.0 + next(25) as f64;
        value = (value + if up { step } else { -step }).clamp(-110.0, 110.0);
    }
    let curve = Curve::new("HeadYaw", keys);
    let spline = curve.spline();
    assert_eq!(spline.knots().len(), 30);
    spline
}

/// `n` abscissas evenly spread over `spline`, ends included.
fn abscissas(spline: &Spline, n: usize) -> Vec<f64> {
    let k = spline.knots();
    let (a, b) = (k[0].x, k[k.len() - 1].x);
    (0..n)
        .map(|i| a + (b - a) * i as f64 / (n - 1) as f64)
        .collect()
}

/// For each abscissa, the index of its segment's first knot (for `segment`, no search).
fn segments_of(spline: &Spline, xs: &[f64]) -> Vec<usize> {
    let k = spline.knots();
    xs.iter()
        .map(|x| k.partition_point(|kn| kn.x <= *x).clamp(1, k.len() - 1) - 1)
        .collect()
}

#[inline(never)] // one compiled loop for criterion and the side by side
fn run_eval(spline: &Spline, xs: &[f64]) -> f64 {
    let mut sum = 0.0;
    for x in xs {
        sum += spline.eval(black_box(*x)).unwrap_or(0.0);
    }
    sum
}

#[inline(never)] // one compiled loop for criterion and the side by side
fn run_segment(spline: &Spline, xs: &[f64], seg: &[usize]) -> f64 {
    let k = spline.knots();
    let mut sum = 0.0;
    for (x, i) in xs.iter().zip(seg) {
        sum += segment(&k[*i], &k[*i + 1], black_box(*x));
    }
    sum
}

/// The floor: a cubic Bezier at `n` given parameters, control values from the curve's first
/// segment.
#[inline(never)] // one compiled loop for criterion and the side by side
fn run_bezier(spline: &Spline, n: usize) -> f64 {
    let k = spline.knots();
    let (p0, p3) = (k[0].y, k[1].y);
    let (p1, p2) = (p0 + k[0].right.dy, p3 + k[1].left.dy);
    let step = 1.0 / (n - 1) as f64;
    let mut sum = 0.0;
    for i in 0..n {
        sum += bezier(
            black_box(p0),
            black_box(p1),
            black_box(p2),
            black_box(p3),
            black_box(i as f64 * step),
        );
    }
    sum
}

/// Every corpus motion timeline with the robot it is played on, or `None` after a NOTICE.
/// Benchmarks are never run by CI, so an absent corpus is a NOTICE whatever `CI` says.
fn corpus() -> Option<Vec<(Timeline, Model)>> {
    let dir = choreo_testkit::required(
        &choreo_testkit::corpus_dir(),
        "the choreo-motion corpus benchmark",
        false,
    )?;
    let read = support::corpus_timelines(&dir);
    Some(
        read.timelines
            .into_iter()
            .map(|ct| {
                let robot = support::robot_for(&ct.timeline);
                (ct.timeline, robot)
            })
            .collect(),
    )
}

/// The orders of the whole corpus: how many keys they send.
#[inline(never)] // one compiled loop for criterion and the side by side
fn run_corpus(timelines: &[(Timeline, Model)]) -> usize {
    let mut keys = 0;
    for (t, robot) in timelines {
        if let Some(m) = Motion::from_timeline(black_box(t), *robot) {
            let c = m.command_from(m.start, &|_| None);
            keys += c.times.iter().map(Vec::len).sum::<usize>();
        }
    }
    keys
}

fn bench_eval(c: &mut Criterion, spline: &Spline, full: bool) {
    let n = samples(full);
    let xs = abscissas(spline, n);
    let seg = segments_of(spline, &xs);
    let mut g = c.benchmark_group("eval_30_keys");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(if full { 3 } else { 1 }))
        .throughput(Throughput::Elements(n as u64));
    g.bench_function("spline_eval", |b| b.iter(|| run_eval(spline, &xs)));
    g.bench_function("segment", |b| b.iter(|| run_segment(spline, &xs, &seg)));
    g.bench_function("bezier_floor", |b| b.iter(|| run_bezier(spline, n)));
    g.finish();
}

fn bench_corpus(c: &mut Criterion, timelines: &[(Timeline, Model)], full: bool) {
    let mut g = c.benchmark_group("corpus_payloads");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(if full { 5 } else { 1 }))
        .throughput(Throughput::Elements(timelines.len() as u64));
    g.bench_function("from_timeline_and_command", |b| {
        b.iter(|| run_corpus(timelines))
    });
    g.finish();
}

fn seconds(f: impl FnOnce() -> f64) -> f64 {
    let t = Instant::now();
    black_box(f());
    t.elapsed().as_secs_f64()
}

/// The evaluations and the corpus in interleaved rounds: medians and ratios.
fn side_by_side(spline: &Spline, timelines: Option<&[(Timeline, Model)]>, full: bool) {
    let rounds = std::env::var("MOTION_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full { 15 } else { 2 });
    let n = samples(full);
    let xs = abscissas(spline, n);
    let seg = segments_of(spline, &xs);
    println!("== side by side, interleaved: {rounds} rounds, the order rotating each round ==");
    // Per configuration, per round: seconds.
    let mut t: Vec<Vec<f64>> = (0..4).map(|_| Vec::with_capacity(rounds)).collect();
    for r in 0..rounds {
        for k in 0..4 {
            let i = (k + r) % 4;
            let s = match i {
                0 => seconds(|| run_eval(spline, &xs)),
                1 => seconds(|| run_segment(spline, &xs, &seg)),
                2 => seconds(|| run_bezier(spline, n)),
                _ => match timelines {
                    Some(tl) => seconds(|| run_corpus(tl) as f64),
                    None => f64::NAN,
                },
            };
            t[i].push(s);
        }
    }
    let ns = |i: usize| choreo_testkit::median(t[i].clone()) * 1e9 / n as f64;
    let ratio = |a: usize, b: usize| {
        choreo_testkit::median((0..rounds).map(|r| t[a][r] / t[b][r]).collect())
    };
    println!(
        "curve of 30 auto keys, {n} samples: spline_eval {:.1} ns/sample ({:.1} M samples/s), segment {:.1} ns, bezier floor {:.2} ns ({:.0} M samples/s)",
        ns(0),
        1e3 / ns(0),
        ns(1),
        ns(2),
        1e3 / ns(2)
    );
    println!(
        "  ratios (median of per-round ratios): spline_eval / bezier {:.1}x, segment / bezier {:.1}x, spline_eval / segment {:.2}x (the search)",
        ratio(0, 2),
        ratio(1, 2),
        ratio(0, 1)
    );
    if let Some(tl) = timelines {
        let mut v = t[3].clone();
        v.sort_by(f64::total_cmp);
        let keys = run_corpus(tl);
        println!(
            "corpus: {} timelines with an ActuatorList, {keys} keys sent: from_timeline + command_from, whole corpus: min {:.2} ms, median {:.2} ms, max {:.2} ms ({:.1} us/timeline, {:.0} ns/key sent; target < 100 ms)",
            tl.len(),
            v[0] * 1e3,
            choreo_testkit::median(v.clone()) * 1e3,
            v[v.len() - 1] * 1e3,
            choreo_testkit::median(v.clone()) * 1e6 / tl.len() as f64,
            choreo_testkit::median(v) * 1e9 / keys as f64
        );
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    println!(
        "motion bench: load average at start {}",
        choreo_testkit::load_average()
    );
    let spline = realistic_curve();
    let timelines = corpus();
    if let Some(tl) = &timelines {
        let curves: usize = tl
            .iter()
            .filter_map(|(t, r)| Motion::from_timeline(t, *r))
            .map(|m| m.curves.len())
            .sum();
        println!(
            "corpus: {} timelines with an ActuatorList ({curves} curves played), read before timing",
            tl.len()
        );
    }
    let mut c = Criterion::default().configure_from_args();
    bench_eval(&mut c, &spline, full);
    if let Some(tl) = &timelines {
        bench_corpus(&mut c, tl, full);
    }
    c.final_summary();
    if !std::env::args().any(|a| a.starts_with("--profile-time")) {
        side_by_side(&spline, timelines.as_deref(), full);
    }
    println!("load average at end {}", choreo_testkit::load_average());
}
