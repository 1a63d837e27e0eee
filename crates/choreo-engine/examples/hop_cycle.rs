//! Inline signal hops around a cycle of K boxes, for profiling the hop (issue 33, part 4):
//! `cargo run --release -p choreo-engine --example hop_cycle -- [K] [HOPS] [ROUNDS]`
//! (defaults 64, 200,000, 5) prints the wall time per hop of each round, start to finished.
//!
//! Unlike the criterion bench's chain, every box is loaded once and hopped through many
//! times, so the hop's own cost shows without the load's and the unload's, under `perf`
//! too. Each round is a fresh engine whose trace writes into memory the process may not
//! have touched yet: the first rounds show what fresh pages cost (docs/benchmarks.md).

use std::cell::Cell;
use std::time::{Duration, Instant};

use choreo_engine::{Engine, Hook, NativeHost, Options, Outcome, Value};
use choreo_testkit::generated::{NEXT, behavior, push_box, push_link};

thread_local! {
    /// Hops made by the running engine (its hooks run on its control thread).
    static HOPS: Cell<u64> = const { Cell::new(0) };
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg = |i: usize, default: u64| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (k, hops, rounds) = (arg(1, 64).max(1), arg(2, 200_000).max(1), arg(3, 5));
    // Box i's `next` → box i + 1's onStart, the last's → the first's; every box's
    // onStopped → the root's, which the box making the last hop fires.
    let k = i64::try_from(k)?;
    let mut d = String::new();
    for i in 1..=k {
        push_box(&mut d, "hop", i, NEXT, None);
    }
    push_link(&mut d, 0, 2, 1, 2);
    for i in 1..=k {
        push_link(&mut d, i, 5, i % k + 1, 2);
        push_link(&mut d, i, 4, 0, 4);
    }
    let xar = choreo_xar::read_xar("cycle.xar", behavior(&d).as_bytes())
        .map_err(|e| format!("{e:?}"))?
        .value;
    let host = NativeHost::new().with_inline("hop", move |hook: &Hook, ctx| {
        if let Hook::Input { name, .. } = hook
            && name == "onStart"
        {
            let made = HOPS.get() + 1;
            HOPS.set(made);
            let output = if made >= hops { "onStopped" } else { "next" };
            ctx.fire(output, Value::None)?;
        }
        Ok(())
    });
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
