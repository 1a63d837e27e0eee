//! choreo-body costs, side by side in interleaved rounds (`BODY_BENCH_ROUNDS`, default 9;
//! medians):
//!
//! 1. `balance step`: one 10 ms step of the balance as the simulated robot and `check --body`
//!    take it (forward kinematics, the stance on its floor, the CoM and ZMP against the
//!    polygon) over a swaying StandInit (hips, knees and ankles moving, so the floor is
//!    searched); anchor: the forward kinematics alone (`Frames::new`), the floor of any step.
//!    Target: under 5 µs a step.
//! 2. `corpus check`: `check_all` over every motion timeline of `../shared/corpus` (parsed
//!    before timing), from every standing posture; anchor: reading those timelines into
//!    motions (`Motion::from_timeline` and the order from the start frame). Target: under
//!    1 s in all. Skipped with a NOTICE when the corpus is absent.
//!
//! Run: `cargo bench -p choreo-body --bench body` (about 30 s).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::time::Instant;

use choreo_body::balance::{Balance, STEP};
use choreo_body::check::{check_all, motions_of};
use choreo_body::{Frames, Stance};
use choreo_motion::motion::Motion;
use choreo_robot::Model;

const STEPS: usize = 20_000;

/// The joints at step `k` of a sway about StandInit.
fn sway(k: usize, stand: &[f64]) -> Vec<f64> {
    let mut q = stand.to_vec();
    let s = (k as f64 * 0.01).sin() * 0.1;
    for (name, gain) in [
        ("LHipPitch", -1.0),
        ("LKneePitch", 2.0),
        ("LAnklePitch", -1.0),
        ("RHipPitch", -1.0),
        ("RKneePitch", 2.0),
        ("RAnklePitch", -1.0),
        ("LShoulderPitch", 3.0),
    ] {
        if let Some(i) = Model::Nao.joint_index(name) {
            q[i] += gain * s;
        }
    }
    q
}

fn balance_steps(stand: &[f64]) -> f64 {
    let started = Instant::now();
    let mut balance = Balance::new();
    let mut before: Option<Stance> = None;
    for k in 0..STEPS {
        let frames = Frames::new(Model::Nao, &sway(k, stand));
        let stance = Stance::near(&frames, before.as_ref());
        before = Some(stance.clone());
        black_box(balance.step(k as f64 * STEP, stance));
    }
    started.elapsed().as_secs_f64() / STEPS as f64
}

fn kinematics_steps(stand: &[f64]) -> f64 {
    let started = Instant::now();
    for k in 0..STEPS {
        black_box(Frames::new(Model::Nao, &sway(k, stand)));
    }
    started.elapsed().as_secs_f64() / STEPS as f64
}

/// The root boxes of every corpus XAR file.
fn corpus_roots() -> Option<Vec<choreo_xar::model::BoxDef>> {
    let corpus = choreo_testkit::corpus("the body check of the corpus's timelines")?;
    let files =
        choreo_testkit::files_under(&corpus, &|p| choreo_testkit::has_extension(p, &["xar"]));
    let mut out = Vec::new();
    for f in files {
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        if let Ok(parsed) = choreo_xar::read_xar("x", &bytes) {
            out.push(parsed.value.root_box);
        }
    }
    Some(out)
}

/// Every motion timeline of `roots`, with the order each sends from its start.
fn motions(roots: &[choreo_xar::model::BoxDef]) -> Vec<Motion> {
    roots
        .iter()
        .flat_map(motions_of)
        .map(|(_, m)| {
            black_box(m.command_from(m.start, &|_| None));
            m
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::var("BODY_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    let stand = Model::Nao.posture("StandInit").unwrap();
    let corpus = corpus_roots();
    let (mut step, mut fk, mut check, mut read) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        step.push(balance_steps(&stand));
        fk.push(kinematics_steps(&stand));
        if let Some(roots) = &corpus {
            let t0 = Instant::now();
            let ms = motions(roots);
            read.push(t0.elapsed().as_secs_f64());
            let t0 = Instant::now();
            for m in &ms {
                black_box(check_all(m));
            }
            check.push(t0.elapsed().as_secs_f64());
        }
    }
    let (step, fk) = (median(step), median(fk));
    println!(
        "balance step: {:.2} µs (forward kinematics alone {:.2} µs, ratio {:.1})",
        step * 1e6,
        fk * 1e6,
        step / fk
    );
    if corpus.is_some() {
        let (check, read) = (median(check), median(read));
        println!(
            "corpus check: {:.3} s for {} timelines (reading them into motions {:.3} s, ratio {:.1})",
            check,
            corpus.as_ref().map_or(0, |r| motions(r).len()),
            read,
            check / read
        );
    }
}
