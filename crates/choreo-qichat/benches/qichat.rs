//! QiChat speed (issue 14): parsing every corpus topic, and answering an input with 100
//! topics active (target: p99 under 1 ms).
//!
//! 1. Parse: every loose `.top` file of `../shared/corpus` parsed, 20 rounds; the median and
//!    fastest round, and MB/s.
//! 2. Match: a dialog with 100 active topics (the corpus topics that parse in English, German
//!    or French, each loaded under its own name, cycled to 100), the focus on the first;
//!    inputs taken from the words of the rules (some match, most do not: each input goes
//!    through every user rule of every topic when nothing matches), 2,000 inputs; the
//!    latency of each `Dialog::input`, p50, p99 and max.
//!
//! A plain `main` (no criterion): the numbers wanted are a distribution of single calls,
//! which criterion's mean-of-iterations does not give. Run: `cargo bench -p choreo-qichat`.
//! Without `--bench` (`cargo test --benches`) it runs one small round as a smoke test.
#![allow(clippy::expect_used, missing_docs)]

use std::time::{Duration, Instant};

use choreo_qichat::dialog::Dialog;

fn main() {
    let smoke = !std::env::args().any(|a| a == "--bench");
    let Some(corpus) = choreo_testkit::corpus("qichat bench") else {
        return;
    };
    let files =
        choreo_testkit::files_under(&corpus, &|p| p.extension().is_some_and(|e| e == "top"));
    let texts: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read(p).expect("a corpus file reads"),
            )
        })
        .collect();
    let bytes: usize = texts.iter().map(|(_, b)| b.len()).sum();
    let rounds = if smoke { 1 } else { 20 };
    let mut times = Vec::new();
    let mut rules = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        rules = 0;
        for (name, b) in &texts {
            if let Ok(p) = choreo_qichat::parse(name, b) {
                rules += p.topic.all_rules().len();
            }
        }
        times.push(t.elapsed());
    }
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "parse: {} topics ({} KB, {rules} rules): median {:.2} ms, fastest {:.2} ms ({:.1} MB/s)",
        texts.len(),
        bytes / 1024,
        ms(median),
        ms(times[0]),
        bytes as f64 / median.as_secs_f64() / 1e6
    );

    // 100 active topics.
    let topics: Vec<choreo_qichat::Topic> = texts
        .iter()
        .filter_map(|(n, b)| choreo_qichat::parse(n, b).ok())
        .map(|p| p.topic)
        .filter(|t| !t.rules.is_empty())
        .collect();
    let mut dialog = Dialog::new(1);
    let mut inputs: Vec<String> = Vec::new();
    for i in 0..100 {
        let mut t = topics[i % topics.len()].clone();
        t.name = format!("{}_{i}", t.name);
        for r in t.user_rules() {
            inputs.push(choreo_qichat::Seq(&r.pattern).to_string());
        }
        let name = dialog.load(t);
        dialog.activate(&name);
    }
    // Plain words from the patterns: the brackets and marks dropped.
    let inputs: Vec<String> = inputs
        .iter()
        .map(|p| {
            p.chars()
                .map(|c| {
                    if c.is_alphanumeric() || c == ' ' || c == '\'' {
                        c
                    } else {
                        ' '
                    }
                })
                .collect::<String>()
        })
        .collect();
    let n = if smoke { 50 } else { 2000 };
    let mut latencies = Vec::with_capacity(n);
    let mut answered = 0;
    let mut memory = std::collections::HashMap::new();
    for k in 0..n {
        let input = &inputs[k * 7 % inputs.len()];
        let t = Instant::now();
        let a = dialog.input(input, &mut memory);
        latencies.push(t.elapsed());
        answered += usize::from(a.is_some());
    }
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q) as usize];
    println!(
        "match: {n} inputs against 100 active topics ({answered} answered): p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
        us(at(0.5)),
        us(at(0.99)),
        us(*latencies.last().expect("inputs were timed"))
    );
    println!(
        "target p99 < 1 ms: {}",
        if at(0.99) < Duration::from_millis(1) {
            "met"
        } else {
            "MISSED"
        }
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
