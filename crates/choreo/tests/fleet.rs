//! Fleets: `choreo sim --count N` serving several robots, `choreo run` on all of them in
//! step (`--robots`, `--all-or-nothing`), the Rust API's `Fleet`, and robots far away
//! (`--latency`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{ChildStderr, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support;
use support::cli::{choreo, lifecycle, trace_events, workspace};
use support::sim::{Sim, interrupt, normal, served_sim_with, stop_sim};

/// `choreo sim --count N` on free ports with more options: the process, its URLs, and the
/// rest of its stderr.
fn served_fleet(
    n: u16,
    options: &[&str],
) -> (Sim, Vec<String>, std::io::Lines<BufReader<ChildStderr>>) {
    let mut sim = Sim(Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args([
            "sim",
            "--listen",
            "tcp://127.0.0.1:0",
            "--count",
            &n.to_string(),
            "-q",
        ])
        .args(options)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap());
    let mut lines = BufReader::new(sim.stderr.take().unwrap()).lines();
    let mut urls = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some((_, url)) = line.split_once(" at ") {
            assert!(
                line.starts_with(&format!("robot {}: ", urls.len() + 1)),
                "{line}"
            );
            urls.push(url.to_string());
        }
        if line.contains("robots served") {
            break;
        }
    }
    assert_eq!(urls.len(), usize::from(n), "{urls:?}");
    (sim, urls, lines)
}

#[test]
fn sim_count_serves_a_fleet_each_robot_its_own() {
    let (mut sim, urls, lines) = served_fleet(3, &[]);
    // Each robot has its own memory: a value written on one is not on the others.
    let o = choreo(&[
        "robot",
        "call",
        &urls[1],
        "ALMemory.insertData",
        "\"Who\"",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    for (i, url) in urls.iter().enumerate() {
        let o = choreo(&[
            "robot",
            "call",
            url,
            "ALMemory.getData",
            "\"Who\"",
            "--json",
        ]);
        let answer = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if i == 1 {
            assert_eq!(answer, "2");
        } else {
            assert_eq!(o.status.code(), Some(1), "robot {}: {answer}", i + 1);
        }
    }
    interrupt(&mut sim);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l.contains("stopped after")), "{rest:?}");
}

/// The calls of a `sim --calls` file: (robot, time, method, args).
fn timed_calls(file: &Path) -> Vec<(u64, f64, String, serde_json::Value)> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|c| {
            (
                c["robot"].as_u64().unwrap(),
                c["t"].as_f64().unwrap(),
                c["method"].as_str().unwrap().to_string(),
                c["args"].clone(),
            )
        })
        .collect()
}

/// Whether `args` are those of the dance's "arms down" keyframe (frame 50 of the Dance
/// timeline moves the arms to 1.4 rad).
fn arms_down(args: &serde_json::Value) -> bool {
    normal(&args[1]) == normal(&serde_json::json!([1.4, 1.4]))
}

/// When the robots of the `sim --calls` files got the dance's frame-50 order, in order.
fn frame_50_times(files: &[&Path]) -> Vec<f64> {
    let mut at: Vec<f64> = files
        .iter()
        .flat_map(|f| timed_calls(f))
        .filter(|(_, _, m, a)| m == "ALMotion.angleInterpolation" && arms_down(a))
        .map(|(_, t, _, _)| t)
        .collect();
    at.sort_by(f64::total_cmp);
    at
}

#[test]
fn a_fleet_of_8_dances_in_step_and_a_robot_lost_stops_alone() {
    let dir = tempfile::tempdir().unwrap();
    let calls7 = dir.path().join("calls7.jsonl");
    let calls8 = dir.path().join("calls8.jsonl");
    let (mut seven, mut urls, _) = served_fleet(7, &["--calls", calls7.to_str().unwrap()]);
    // Robot 8 in a process of its own, to be killed mid-dance.
    let (mut eighth, url8) = served_sim_with(&["-q", "--calls", calls8.to_str().unwrap()]);
    urls.push(url8);
    let robots = dir.path().join("robots.txt");
    std::fs::write(&robots, format!("# the fleet\n{}\n", urls.join("\n"))).unwrap();
    let trace = dir.path().join("t.jsonl");
    let run = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .current_dir(workspace())
        .args([
            "run",
            "examples/dance",
            "--robots",
            robots.to_str().unwrap(),
        ])
        .args(["--trace", trace.to_str().unwrap(), "-q"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once robot 8 got the "arms down" order (frame 50), it is killed.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !timed_calls(&calls8)
        .iter()
        .any(|(_, _, m, a)| m == "ALMotion.angleInterpolation" && arms_down(a))
    {
        assert!(Instant::now() < deadline, "robot 8 never got to frame 50");
        std::thread::sleep(Duration::from_millis(20));
    }
    eighth.kill().unwrap();
    let _ = eighth.wait();
    let o = run.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    // Robot 8's loss is its own: the seven others finish; the exit code is robot 8's.
    assert_eq!(o.status.code(), Some(7), "{out}\n{err}");
    for n in 1..=7 {
        let section = out
            .split(&format!("run report: robot {n} at "))
            .nth(1)
            .unwrap_or_else(|| panic!("no report for robot {n}: {out}"));
        assert!(
            section
                .lines()
                .nth(1)
                .is_some_and(|l| l.contains("outcome        finished")),
            "robot {n}: {section}"
        );
    }
    let section8 = out.split("run report: robot 8 at ").nth(1).unwrap();
    assert!(
        section8.contains("stopped: the robot disconnected"),
        "{section8}"
    );
    assert!(out.contains("robots         8 (7 finished)"), "{out}");
    // Robot 8's run ended cleanly: every box made, loaded, unloaded and destroyed alike.
    let boxes = lifecycle(&trace_events(&dir.path().join("t.8.jsonl")));
    assert!(boxes.contains_key("root/Dance"), "{boxes:?}");
    for (path, [new, del, load, unload]) in &boxes {
        assert_eq!(
            (new, load),
            (del, unload),
            "{path}: new, del, onLoad, onUnload"
        );
    }
    // In step: each robot got its frame-50 order within two frames (80 ms at 25 fps) of the
    // others, robot 8 (another process) included. The spread itself is a benchmark's
    // (benches/fleet.py, docs/benchmarks.md "Fleets"): this is real time, and with a busy
    // loop on each core beside the suite one frame's margin did not hold (41 ms).
    let at = frame_50_times(&[&calls7, &calls8]);
    assert_eq!(at.len(), 8, "{at:?}");
    let spread = at[7] - at[0];
    assert!(
        spread <= 0.080,
        "frame-50 orders {spread:.3} s apart: {at:?}"
    );
    interrupt(&mut seven);
}

#[test]
fn the_fleet_api_dances_in_step_on_two_robots() {
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    let (mut sim, urls, _) = served_fleet(2, &["--calls", calls.to_str().unwrap()]);
    let setup = choreo::Setup::open(workspace().join("examples/dance")).unwrap();
    let setups = urls.iter().map(|u| setup.clone().robot_url(u)).collect();
    let fleet = choreo::fleet::Fleet::load(setups).unwrap();
    assert_eq!(fleet.runs().len(), 2);
    fleet.start().unwrap();
    let endings = fleet.wait_end(Duration::from_secs(60)).unwrap();
    assert_eq!(
        endings,
        [choreo::Ending::Finished, choreo::Ending::Finished]
    );
    // The dance's one timeline started once, with both robots at the rendezvous.
    assert_eq!(fleet.counts(), (1, 0));
    assert!(fleet.report().iter().any(|l| l.starts_with("delays")));
    // In step, as `choreo run --robots` is: the frame-50 orders within two frames (80 ms at
    // 25 fps) of each other, a margin that holds with every core busy (the spread itself:
    // benches/fleet.py).
    let at = frame_50_times(&[&calls]);
    assert_eq!(at.len(), 2, "{at:?}");
    assert!(at[1] - at[0] <= 0.080, "frame-50 orders apart: {at:?}");
    drop(fleet);
    interrupt(&mut sim);
}

#[test]
fn all_or_nothing_stops_the_fleet_when_one_robot_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    let (mut first, url1) = served_sim_with(&["-q"]);
    let (mut second, url2) = served_sim_with(&["-q", "--calls", calls.to_str().unwrap()]);
    let run = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .current_dir(workspace())
        .args(["run", "examples/dance", "--robot", &url1, "--robot", &url2])
        .args(["--all-or-nothing", "-q"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Robot 2 is lost as soon as it got its first call.
    let deadline = Instant::now() + Duration::from_secs(60);
    while timed_calls(&calls).is_empty() {
        assert!(Instant::now() < deadline, "robot 2 got no call");
        std::thread::sleep(Duration::from_millis(20));
    }
    second.kill().unwrap();
    let _ = second.wait();
    let o = run.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    // The exit code is the lost robot's, not that of the robot stopped because of it.
    assert_eq!(o.status.code(), Some(7), "{out}\n{err}");
    assert!(
        err.contains("robot 2 did not finish: stopping the fleet"),
        "{err}"
    );
    let section1 = out.split("run report: robot 1 at ").nth(1).unwrap();
    assert!(
        section1.contains("stopped: another robot of the fleet did not finish (--all-or-nothing)"),
        "{section1}"
    );
    assert!(out.contains("robots         2 (0 finished)"), "{out}");
    interrupt(&mut first);
}

/// Issue 33: `choreo sim --latency MS[±JITTER]` serves a robot that far away: each call
/// takes at least the two ways' delay; a list gives the robots of `--count` each theirs; a
/// latency that is not one is a usage error (exit 2).
#[test]
fn sim_latency_puts_the_robot_that_far_away() {
    let (sim, url) = served_sim_with(&["--latency", "50"]);
    let session = choreo_qi::Session::connect(&url).unwrap();
    let tts = session.service("ALTextToSpeech").unwrap();
    let started = Instant::now();
    tts.call("getLanguage", &[]).unwrap();
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(100), "{took:?}");
    drop(tts);
    drop(session);
    let log = stop_sim(sim);
    assert!(log.contains(", 50 ms away"), "{log}");
    let o = choreo(&["sim", "--latency", "fast"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let o = choreo(&["sim", "--latency", "5", "--listen", "tcps://127.0.0.1:0"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}

/// The dance's orders as the robots of a `sim --calls` file got them, by robot: its
/// timeline's start (the head nod's `angleInterpolationBezier`), frame 1 ("arms up", a box of
/// the start frame), frame 50 ("arms down") and the look around (a Python box), and when the
/// robot got `wakeUp`.
fn dance_orders(file: &Path) -> BTreeMap<u64, [Option<f64>; 5]> {
    let mut by_robot: BTreeMap<u64, [Option<f64>; 5]> = BTreeMap::new();
    for (robot, t, method, args) in timed_calls(file) {
        let which = match method.as_str() {
            "ALMotion.angleInterpolationBezier" => 0,
            "ALMotion.angleInterpolation" if arms_down(&args) => 2,
            "ALMotion.angleInterpolation" if args[0] == "HeadYaw" => 3,
            "ALMotion.angleInterpolation" => 1,
            "ALMotion.wakeUp" => 4,
            _ => continue,
        };
        by_robot.entry(robot).or_default()[which].get_or_insert(t);
    }
    by_robot
}

/// Issue 33: eight robots at 5, 20, 50 and 100 ms (±20 ms), as the issue sets them; the
/// eighth is 5 ms away until mid-dance, then 100 ms (`5±20>100±20@5.5`: 5.5 s after it
/// connected). The fleet measures each robot's delay all along and sends each one's orders
/// that much earlier, so that the robots get the dance's orders together, from their own
/// call logs: the timeline's start (its first order comes after the robot's angles are read,
/// a round trip), a box of its first frame, and boxes at 2 and 8.6 s, the first before the
/// eighth robot moved away, the last well after. (The move is timed from the robot's
/// connection: on a machine with every core busy the dance starts up to 2 s later, and a
/// move 3.5 s after the connection once fell on the 2 s box, before any probe could see
/// it.) Sent at once, the far ones would get each of them up to 95 ms
/// after the near ones: what is checked is that arrival no longer follows delay (the slope
/// of one against the other); the spreads, printed, are bounded loosely, since a machine
/// with every core busy adds its scheduling to them; the one-frame target is measured by
/// `benches/fleet.py --latency`.
#[test]
fn a_fleet_far_away_dances_in_step() {
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    let latency = "5±20,20±20,50±20,100±20,5±20,20±20,50±20,5±20>100±20@5.5";
    let (mut sim, urls, _) = served_fleet(
        8,
        &["--calls", calls.to_str().unwrap(), "--latency", latency],
    );
    let robots = dir.path().join("robots.txt");
    std::fs::write(&robots, urls.join("\n")).unwrap();
    // The dance with its muted curve made a head nod (its timeline's start sends an order),
    // and its look around moved to frame 215 (8.6 s) of a timeline made 250 frames long.
    let dance = std::fs::read_to_string(workspace().join("examples/dance/behavior.xar")).unwrap();
    let muted = r#"actuator="HipRoll" recordable="0" mute="1" unit="0">
                                        <Key frame="1" value="0" />"#;
    let nod = r#"actuator="HeadPitch" recordable="0" mute="0" unit="0">
                                        <Key frame="1" value="0" /><Key frame="60" value="10" />"#;
    let look = r#"<BehaviorKeyframe name="look around" index="100">"#;
    let size = r#"end_frame="150" size="150""#;
    assert!(dance.contains(muted) && dance.contains(look) && dance.contains(size));
    let dance = dance
        .replace(muted, nod)
        .replace(look, &look.replace("100", "215"))
        .replace(size, r#"end_frame="250" size="250""#);
    std::fs::create_dir(dir.path().join("dance")).unwrap();
    std::fs::write(dir.path().join("dance/behavior.xar"), dance).unwrap();
    let unix = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
    };
    let launched = unix();
    let o = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .current_dir(workspace())
        .args([
            "run",
            dir.path().join("dance").to_str().unwrap(),
            "--robots",
            robots.to_str().unwrap(),
            "-q",
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("robots         8 (8 finished)"), "{out}");
    // The delays measured (a busy machine only adds to a round trip); the eighth's change.
    let delays = out.lines().find(|l| l.contains("delays")).unwrap();
    let ms = |robot: usize| -> Vec<f64> {
        let after = delays.split(&format!(" {robot}: ")).nth(1).unwrap();
        let said = after.split(" ms").next().unwrap();
        said.split(" → ").map(|v| v.parse().unwrap()).collect()
    };
    for (robot, low) in [
        (1, 0.0),
        (2, 5.0),
        (3, 35.0),
        (4, 85.0),
        (5, 0.0),
        (6, 5.0),
        (7, 35.0),
    ] {
        // A busy machine only adds to a round trip: a first measure taken while the run
        // starts may be high and said as a change (`78.7 → 50.1 ms`, seen in a loaded
        // clean-clone run); the delay it settles on is the robot's.
        let d = ms(robot);
        let settled = d[d.len() - 1];
        assert!(
            (d.len() == 1 || (d.len() == 2 && d[0] > settled))
                && (low..low + 50.0).contains(&settled),
            "robot {robot}: {delays}"
        );
    }
    // Its first measure is of the delay before the change (none), to which a busy machine
    // adds (52.8 ms seen with every core busy): below the one after it, whatever the load.
    let eighth = ms(8);
    assert!(
        eighth.len() == 2 && eighth[0] < 85.0 && (85.0..150.0).contains(&eighth[1]),
        "{delays}"
    );
    // Every robot's clock measured (each simulated robot has a DCM); the timeline's start
    // played by all eight.
    let clocks = out.lines().find(|l| l.contains("clocks")).unwrap();
    assert_eq!(clocks.matches(" ms ±").count(), 8, "{clocks}");
    let started = out.lines().find(|l| l.contains("start spread")).unwrap();
    assert!(started.contains(", 8 robots"), "{started}");
    // A call is logged when it returns: the look around, 2 s long, outlasts the run.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut orders = dance_orders(&calls);
    while orders.values().filter(|o| o[3].is_some()).count() < 8 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        orders = dance_orders(&calls);
    }
    assert_eq!(orders.len(), 8, "{orders:?}");
    let at = |robot: u64, which: usize| {
        orders[&robot][which].unwrap_or_else(|| panic!("robot {robot}, order {which}: {orders:?}"))
    };
    // The eighth robot moved away after the 2 s box (it connected after the launch) and at
    // least 1.5 s before the look around (it connected before its wakeUp): time for seven
    // probes.
    assert!(at(8, 2) < launched + 5.5, "{orders:?}");
    assert!(at(8, 4) + 5.5 + 1.5 < at(8, 3), "{orders:?}");
    let spread = |which: usize| -> f64 {
        let all: Vec<f64> = (1..=8).map(|r| at(r, which)).collect();
        all.iter().copied().fold(f64::MIN, f64::max) - all.iter().copied().fold(f64::MAX, f64::min)
    };
    let spreads: Vec<f64> = (0..4).map(spread).collect();
    eprintln!(
        "{delays}\n{clocks}\n{started}\n  spreads (ms): start {:.1}, frame 1 {:.1}, frame 50 {:.1}, frame 215 {:.1}",
        spreads[0] * 1000.0,
        spreads[1] * 1000.0,
        spreads[2] * 1000.0,
        spreads[3] * 1000.0
    );
    // Sent at once, an order reaches each robot its delay later: arrival against delay has a
    // slope of 1. Fitted over the four orders of the eight robots (each order's arrivals
    // taken from their mean: 32 points, so a busy machine's noise, robot by robot, averages
    // out), the slope of compensated orders is near 0.
    let delay = |robot: u64, which: usize| -> f64 {
        match robot {
            1 | 5 => 0.005,
            2 | 6 => 0.020,
            3 | 7 => 0.050,
            4 => 0.100,
            _ if which == 3 => 0.100,
            _ => 0.005,
        }
    };
    let mut points = Vec::new();
    for which in 0..4 {
        let mean = (1..=8).map(|r| at(r, which)).sum::<f64>() / 8.0;
        points.extend((1..=8).map(|r| (delay(r, which), at(r, which) - mean)));
    }
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p.0 / n, y + p.1 / n));
    let slope = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
        / points.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
    assert!(slope.abs() < 0.5, "slope {slope:.2}: {orders:?}\n{out}");
    // Each order's spread: the jitter (up to 40 ms) and, on a machine with every core busy,
    // the scheduling of eight robots' processes (94.7 ms at frame 1 in one such run).
    for (s, what) in spreads
        .iter()
        .zip(["start", "frame 1", "frame 50", "frame 215"])
    {
        assert!(*s <= 0.150, "{what}: {s:.3} s apart: {orders:?}\n{out}");
    }
    interrupt(&mut sim);
}
