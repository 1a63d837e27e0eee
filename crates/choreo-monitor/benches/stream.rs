//! What the monitor costs a run, and how fast it streams: a behavior of 10,000 boxes (the
//! hop chain: each box passes the start to the next, hooks inline, real time) run with the
//! monitor off, with a trace listener that does nothing (what any listener costs), and with
//! the monitor on with no page, with 1 page and with 10 pages reading everything. Per
//! configuration: the run's time (start → finished) and, for pages, the events each received
//! per second (from the start to the `behavior end` event). Rounds interleave the
//! configurations; medians are printed, with the slowdown against "off".
//!
//! `cargo bench -p choreo-monitor --bench stream` (full size); under `cargo test --benches`
//! it runs once at a tenth of the size.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use choreo_engine::graph::Graph;
use choreo_engine::{Engine, Hook, NativeHost, Options, Outcome, Trace, Value};
use choreo_monitor::{Monitor, MonitorOptions};
use choreo_testkit::generated::{behavior, hop_chain};
use choreo_xar::XarFile;
use futures_util::StreamExt;
use tokio_tungstenite::tungstenite::Message;

/// One configuration's result.
struct Sample {
    run: Duration,
    /// Events per second each page received (empty: no page).
    rates: Vec<f64>,
    /// Events each page lost.
    lost: Vec<u64>,
}

/// `hop` boxes fire `next` from their onStart hook: at once and inline (`pace` zero: the
/// CPU-bound worst case), or on workers after sleeping `pace` on the engine's clock (a
/// behavior paced by its own time, as real ones are).
fn host(pace: Duration) -> NativeHost {
    let hop = move |hook: &Hook, ctx: &choreo_engine::BoxContext| {
        if let Hook::Input { name, .. } = hook
            && name == "onStart"
        {
            if !pace.is_zero() {
                ctx.sleep(pace);
            }
            ctx.fire("next", Value::None)?;
        }
        Ok(())
    };
    if pace.is_zero() {
        NativeHost::new().with_inline("hop", hop)
    } else {
        NativeHost::new().with("hop", hop)
    }
}

/// What a page saw.
struct Seen {
    /// Events received in batches.
    events: u64,
    /// Events it lost (the last snapshot's count).
    dropped: u64,
    /// When it was told the run ended.
    at: Instant,
}

/// A page: reads until the monitor says the run ended.
async fn page(url: String, ready: tokio::sync::mpsc::Sender<()>) -> Seen {
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut seen = Seen {
        events: 0,
        dropped: 0,
        at: Instant::now(),
    };
    let mut first = true;
    // Light on purpose: the pages share the machine with the run, so they only look for
    // the message's type and count events (a browser parses in another process).
    loop {
        let Some(Ok(Message::Text(t))) = ws.next().await else {
            seen.at = Instant::now();
            return seen;
        };
        let t = t.as_str();
        let done = if t.contains(r#""type":"batch""#) {
            seen.events += t.matches(r#""seq":"#).count() as u64;
            false
        } else if t.contains(r#""type":"snapshot""#) {
            let m: serde_json::Value = serde_json::from_str(t).unwrap();
            if first {
                first = false;
                let _ = ready.send(()).await;
            }
            seen.dropped = m["dropped"].as_u64().unwrap_or(0);
            !m["ended"].is_null()
        } else {
            t.contains(r#""type":"ended""#)
        };
        if done {
            seen.at = Instant::now();
            return seen;
        }
    }
}

/// What a run is measured with.
#[derive(Clone, Copy)]
enum Config {
    /// No monitor, nobody listening to the trace.
    Off,
    /// No monitor, a trace listener doing nothing: what any listener costs (names looked
    /// up, events delivered), the floor under the monitor's cost.
    Listener,
    /// The monitor, with this many pages.
    Pages(usize),
}

fn run(xar: &XarFile, host: &NativeHost, config: Config, rt: &tokio::runtime::Runtime) -> Sample {
    let trace = Trace::unkept(None);
    let pages = match config {
        Config::Off => None,
        Config::Listener => {
            trace.add_listener(Arc::new(|_| {}));
            None
        }
        Config::Pages(n) => Some(n),
    };
    let monitor = pages
        .map(|_| Arc::new(Monitor::start(&Graph::new(xar), MonitorOptions::default()).unwrap()));
    if let Some(m) = &monitor {
        let m = Arc::clone(m);
        trace.add_listener(Arc::new(move |e| m.publish(e)));
    }
    let count = pages.unwrap_or(0);
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(count.max(1));
    let handles: Vec<_> = monitor
        .iter()
        .flat_map(|m| std::iter::repeat_n(m.url().replacen("http://", "ws://", 1) + "ws", count))
        .map(|url| rt.spawn(page(url, ready_tx.clone())))
        .collect();
    rt.block_on(async {
        for _ in 0..count {
            ready_rx.recv().await;
        }
    });
    let options = Options {
        virtual_time: false,
        trace: trace.clone(),
        ..Options::default()
    };
    let engine = Engine::load(xar, host, options).unwrap();
    let start = Instant::now();
    engine.start();
    assert_eq!(engine.wait(Duration::from_secs(300)), Outcome::Finished);
    let run = start.elapsed();
    // The unload's events go out too, then the end.
    drop(engine);
    if let Some(m) = &monitor {
        m.ended("finished", "");
    }
    let mut rates = Vec::new();
    let mut lost = Vec::new();
    for h in handles {
        let seen = rt.block_on(h).unwrap();
        rates.push(seen.events as f64 / seen.at.duration_since(start).as_secs_f64());
        lost.push(seen.dropped);
    }
    Sample { run, rates, lost }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (boxes, rounds) = if full { (10_000, 9) } else { (1_000, 1) };
    let xar = choreo_xar::read_xar("chain.xar", behavior(&hop_chain(boxes, true)).as_bytes())
        .unwrap()
        .value;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "monitor stream: {boxes} boxes (the hop chain), real time, {rounds} round(s); {}",
        choreo_testkit::load_average()
    );
    for (what, pace) in [
        ("CPU-bound: inline hooks, no wait", Duration::ZERO),
        (
            "paced: each hop waits 200 µs on the clock",
            Duration::from_micros(200),
        ),
    ] {
        println!("{what}");
        scenario(&xar, &host(pace), rounds, &rt);
    }
}

/// Every configuration, `rounds` times interleaved; the medians.
fn scenario(xar: &XarFile, host: &NativeHost, rounds: usize, rt: &tokio::runtime::Runtime) {
    let configs = [
        ("monitor off", Config::Off),
        ("a no-op listener", Config::Listener),
        ("monitor on, no page", Config::Pages(0)),
        ("monitor on, 1 page", Config::Pages(1)),
        ("monitor on, 10 pages", Config::Pages(10)),
    ];
    let mut runs: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    let mut lost: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    // A warm-up run, not counted.
    run(xar, host, Config::Pages(1), rt);
    for _ in 0..rounds {
        for (i, (_, config)) in configs.iter().enumerate() {
            let s = run(xar, host, *config, rt);
            runs[i].push(s.run.as_secs_f64() * 1e3);
            rates[i].extend(s.rates);
            lost[i].extend(s.lost.iter().map(|&l| l as f64));
        }
    }
    let base = choreo_testkit::median(runs[0].clone());
    for (i, (name, _)) in configs.iter().enumerate() {
        let m = choreo_testkit::median(runs[i].clone());
        let rate = if rates[i].is_empty() {
            String::new()
        } else {
            format!(
                ", {:.0} events/s received per page, {:.0} lost (medians)",
                choreo_testkit::median(rates[i].clone()),
                choreo_testkit::median(lost[i].clone())
            )
        };
        let each: Vec<f64> = runs[i].iter().map(|r| (r * 10.0).round() / 10.0).collect();
        println!(
            "  {name:<22} run {m:8.1} ms (median of {each:?}), {:+.1} % vs off{rate}",
            (m / base - 1.0) * 100.0
        );
    }
}
