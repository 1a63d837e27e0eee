//! Inline signal hops around a cycle of K boxes, for profiling the hop (issue 33, part 4):
//! `cargo run --release -p choreo-engine --example hop_cycle -- [K] [HOPS] [ROUNDS]`
//! (defaults 64, 200,000, 5) prints the wall time per hop of each round, start to finished.
//!
//! Unlike the criterion bench's chain, every box is loaded once and hopped through many
//! times, so the hop's own cost shows without the load's and the unload's, under `perf`
//! and valgrind too (`benches/hop-instructions.sh` counts its instructions). Each round is
//! a fresh engine whose trace writes into memory the process may not have touched yet: the
//! first rounds show what fresh pages cost (docs/benchmarks.md).

use std::time::{Duration, Instant};

use choreo_engine::{Engine, Options, Outcome};

#[path = "../benches/support/cycle.rs"]
mod cycle;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg = |i: usize, default: u64| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (k, hops, rounds) = (arg(1, 64).max(1), arg(2, 200_000).max(1), arg(3, 5));
    let xar = cycle::cycle_xar(i64::try_from(k)?);
    let host = cycle::cycle_host(hops);
    let options = || Options {
        virtual_time: true,
        ..Options::default()
    };
    let mut times = Vec::new();
    for _ in 0..rounds {
        let engine = Engine::load(&xar, &host, options())?;
        let start = Instant::now();
        engine.start();
        let outcome = engine.wait(Duration::from_secs(600));
        let ns = start.elapsed().as_nanos() as f64 / hops as f64;
        if outcome != Outcome::Finished {
            return Err(format!("the cycle ended {outcome:?}").into());
        }
        times.push(format!("{ns:.0}"));
    }
    println!(
        "{k} boxes, {hops} hops: ns per hop, round by round: {}",
        times.join(" ")
    );
    Ok(())
}
