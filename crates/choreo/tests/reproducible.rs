//! A run in virtual time is repeatable from its report: box code's `random` follows the
//! run's seed, its clocks (`time.time()`, `datetime.now()`, `time.strftime`, `monotonic`)
//! read the run's start time plus behavior time, and `--repeat N` runs a behavior N times
//! and says where two runs differ. Expected numbers come from CPython itself (`random.Random`
//! seeded as the run is) and from `date -u`; expected dates are worked out by hand.

use crate::support;

use std::process::Command;

use support::cli::{choreo, text, trace_events};

const CHANCE: &str = "crates/choreo/tests/fixtures/chance_and_clock.xar";

/// What CPython's own `random.Random(seed)` draws first, as the fixture logs it.
fn python_draws(seed: u64) -> String {
    let o = Command::new("/usr/bin/python3.11")
        .args([
            "-c",
            &format!(
                "import random; r = random.Random({seed}); \
                 print('random %r %d %s' % (r.random(), r.randint(1, 1000), r.choice('abcdef')))"
            ),
        ])
        .output()
        .expect("python3.11 runs");
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// The fixture's log lines, in order, from a run with `args` (its trace read back), and the
/// trace's first line.
fn logs(args: &[&str]) -> (Vec<String>, serde_json::Value) {
    let file = std::env::temp_dir().join(format!(
        "choreo-reproducible-{}-{}.jsonl",
        std::process::id(),
        args.join("_").replace(['/', ':'], "-")
    ));
    let mut all = vec!["run", CHANCE, "--fast", "-q", "--trace"];
    let path = file.display().to_string();
    all.push(&path);
    all.extend_from_slice(args);
    let o = choreo(&all);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let events = trace_events(&file);
    let _ = std::fs::remove_file(&file);
    let lines = events
        .iter()
        .filter(|e| e["event"] == "log")
        .map(|e| e["message"].as_str().unwrap().to_string())
        .collect();
    (lines, events[0].clone())
}

#[test]
fn a_fast_run_draws_the_seed_s_numbers_and_reads_the_fixed_start() {
    let (lines, header) = logs(&[]);
    // The default seed is 1: the numbers CPython draws from random.Random(1).
    assert_eq!(lines[0], python_draws(1));
    assert_eq!(lines[2], "now 2026-01-05T10:00:00");
    assert_eq!(lines[3], "today 2026-01-05");
    // `date -u -d 2026-01-05T10:00:00Z +%s` gives 1767607200.
    assert_eq!(lines[4], "time 1767607200.000");
    assert_eq!(lines[5], "clock 2026-01-05 10:00:00");
    // After `time.sleep(90)`: 10:01:30, 90 s of the run's clock.
    assert!(
        lines.contains(&"later 2026-01-05T10:01:30".to_string()),
        "{lines:?}"
    );
    assert!(lines.contains(&"monotonic 90.000".to_string()), "{lines:?}");
    // The trace's first line says what repeats the run.
    assert_eq!(header["event"], "run");
    assert_eq!(header["seed"], 1);
    assert_eq!(header["start"], "2026-01-05T10:00:00Z");
    assert_eq!(header["clock"], "virtual");
    // And the robot it ran on (a replay draws it): the simulated NAO, by default.
    assert_eq!(header["model"], "nao");
    // Two threads of box code, started together, log in one order every time.
    let (again, _) = logs(&[]);
    assert_eq!(again, lines);
}

#[test]
fn another_seed_and_start_time_give_other_numbers_and_that_date() {
    let (lines, header) = logs(&["--seed", "2", "--start-time", "2024-02-29T23:59:30Z"]);
    assert_eq!(lines[0], python_draws(2));
    assert_ne!(lines[0], python_draws(1));
    assert_eq!(lines[2], "now 2024-02-29T23:59:30");
    // 90 s after 23:59:30 on a leap day: one minute past midnight, the 1st of March.
    assert!(
        lines.contains(&"later 2024-03-01T00:01:00".to_string()),
        "{lines:?}"
    );
    assert_eq!(header["seed"], 2);
    assert_eq!(header["start"], "2024-02-29T23:59:30Z");
}

#[test]
fn the_report_says_how_to_repeat_the_run() {
    let o = choreo(&["run", CHANCE, "--fast", "-q", "--seed", "42"]);
    let (out, err) = text(&o);
    assert!(
        out.contains("repeat with    --seed 42 --start-time 2026-01-05T10:00:00Z"),
        "{out}{err}"
    );
    let o = choreo(&["run", CHANCE, "--fast", "--start-time", "noon"]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
}

#[test]
fn repeat_says_the_runs_agree_or_where_one_differs() {
    let o = choreo(&["run", CHANCE, "--fast", "-q", "--repeat", "3"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("3 runs, the same trace"), "{out}{err}");
    // Box code reading the OS's randomness (os.urandom: no seed reaches it) differs.
    let o = choreo(&[
        "run",
        "crates/choreo/tests/fixtures/os_noise.xar",
        "--fast",
        "-q",
        "--repeat",
        "2",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("run 2 differs from run 1 at line") && out.contains("\"message\":\"noise "),
        "{out}{err}"
    );
    // Only in virtual time.
    let o = choreo(&["run", CHANCE, "--repeat", "2"]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
}
