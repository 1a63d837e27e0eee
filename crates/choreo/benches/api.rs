//! The Rust API's costs, the anchor the Python API is compared with (`benches/python-api.sh`
//! runs this and `benches/python_api.py` side by side on the same files):
//!
//! - `roundtrip`: `Run::stimulate` of a Python box's input → its output seen by an
//!   `on_output` observer, one at a time (real time; µs per round trip, median of `N_TRIPS`);
//! - `observe`: a 10,000-box chain of Python boxes (each one's onStart fires `next`, the
//!   following box's onStart) run to its end in real time, with every trace event taken from
//!   `Run::events` (ms from the start to the last event), and the same run not observed.
//!
//! `cargo bench -p choreo --bench api -- DIR` writes the behaviors into DIR (default
//! `$TMPDIR/choreo-bench-api`) and prints one line per measurement: `rust <name> <value> <unit>`;
//! `API_BENCH_ROUNDS` rounds (5).
//! Under `cargo test --benches` it runs once, small.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use choreo::{Clock, Ending, Setup, Value};
use choreo_testkit::generated::{IN, NEXT, OUT, behavior, push_box, push_link};

/// A Python box: `script` as its class body.
fn python_box(out: &mut String, name: &str, id: i64, ports: &str, script: &str) {
    let extra = format!(
        r#"{ports}<script language="4"><content><![CDATA[class MyClass(GeneratedClass):
{script}]]></content></script>"#
    );
    push_box(out, name, id, &extra, None);
}

/// One box `echo`: input `in` fires output `out` with the value it got.
fn echo() -> String {
    let mut d = String::new();
    let ports = format!("{IN}{}", OUT.replace("id=\"5\"", "id=\"6\""));
    python_box(
        &mut d,
        "echo",
        1,
        &ports,
        "    def onInput_in(self, value):\n        self.out(value)\n",
    );
    behavior(&d)
}

/// `n` Python boxes `hop`, chained: root.onStart → 1 → 2 → ... → n → root.onStopped.
fn chain(n: i64) -> String {
    let mut d = String::new();
    for i in 1..=n {
        python_box(
            &mut d,
            "hop",
            i,
            NEXT,
            "    def onInput_onStart(self):\n        self.next()\n",
        );
    }
    push_link(&mut d, 0, 2, 1, 2);
    for i in 1..n {
        push_link(&mut d, i, 5, i + 1, 2);
    }
    push_link(&mut d, n, 5, 0, 4);
    behavior(&d)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median µs of `trips` stimulate → observed round trips.
fn roundtrip(file: &Path, trips: usize) -> f64 {
    let run = Setup::open(file)
        .unwrap()
        .clock(Clock::Real)
        .load()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    run.on_output("echo", "out", move |v| {
        let _ = tx.send(v.clone());
    })
    .unwrap();
    run.start().unwrap();
    let mut times = Vec::with_capacity(trips);
    for i in 0..trips {
        let t = Instant::now();
        run.stimulate("echo", "in", i as i64).unwrap();
        let got = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e6);
        assert_eq!(got, Value::Int(i as i64));
    }
    run.close();
    median(times)
}

/// ms from the start to the end of the chain's run; `observe`: every event taken from
/// `Run::events` (and counted: the number is returned too).
fn observe(file: &Path, observe: bool) -> (f64, usize) {
    let run = Setup::open(file)
        .unwrap()
        .clock(Clock::Real)
        .load()
        .unwrap();
    let events = observe.then(|| run.events());
    let t = Instant::now();
    run.start().unwrap();
    let count = match events {
        Some(events) => events.count(),
        None => 0,
    };
    assert_eq!(
        run.wait_end(Duration::from_secs(600)).unwrap(),
        Ending::Finished
    );
    let ms = t.elapsed().as_secs_f64() * 1e3;
    (ms, count)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let dir = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map_or_else(
            || std::env::temp_dir().join("choreo-bench-api"),
            PathBuf::from,
        );
    std::fs::create_dir_all(&dir).unwrap();
    let rounds = std::env::var("API_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let (boxes, trips, rounds) = if bench {
        (10_000, 2_000, rounds)
    } else {
        (100, 20, 1)
    };
    let echo = write(&dir, "echo.xar", &echo());
    let chain = write(&dir, &format!("chain{boxes}.xar"), &chain(boxes));
    for _ in 0..rounds {
        println!("rust roundtrip {:.2} us", roundtrip(&echo, trips));
        let (observed, count) = observe(&chain, true);
        println!("rust observe {observed:.1} ms {count} events");
        let (plain, _) = observe(&chain, false);
        println!("rust unobserved {plain:.1} ms");
    }
}
