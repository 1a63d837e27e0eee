//! `choreo run --robot` against a fake robot hosted by the real libqi (PyPI `qi` 3.1.5, the
//! venv scripts/test creates; CHOREO_QI_PYTHON), and `choreo sim --listen` driven by
//! `choreo run --robot`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support;
use support::cli::{choreo, lifecycle, trace_events, workspace};
use support::qi::{Fixture, free_port, python};

/// The fake robot (`fixtures/fake_robot.py`), started and ready; `die_on`: the call that
/// makes it vanish.
struct FakeRobot(Fixture);

impl FakeRobot {
    fn start(python: &Path, die_on: Option<&str>) -> FakeRobot {
        let args: Vec<&str> = die_on.into_iter().collect();
        FakeRobot(Fixture::start(python, "fake_robot.py", &args))
    }

    /// Stops it and returns the calls it recorded: `Service.method` and the arguments.
    fn calls(self) -> Vec<(String, serde_json::Value)> {
        self.0
            .finish()
            .into_iter()
            // Calls are JSON arrays starting with the method name; the rest is libqi's log.
            .filter(|line| line.starts_with("[\""))
            .map(|line| {
                let v: serde_json::Value = serde_json::from_str(&line).unwrap();
                (v[0].as_str().unwrap().to_string(), v[1].clone())
            })
            .collect()
    }
}

impl std::ops::Deref for FakeRobot {
    type Target = Fixture;
    fn deref(&self) -> &Fixture {
        &self.0
    }
}

/// The robot calls of a `--fast` run on the simulated robot, as a real robot receives them:
/// a posted method is the method itself, and the task API (`wait`, `stop`, `isRunning`)
/// stays on our side.
fn simulated_calls(example: &str) -> Vec<(String, serde_json::Value)> {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let o = choreo(&["run", example, "--fast", "--trace", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "robot_call")
        .map(|e| {
            let method = e["method"].as_str().unwrap().replace(".post.", ".");
            (method, e["args"].clone())
        })
        .filter(|(m, _)| !m.ends_with(".wait") && !m.ends_with(".stop"))
        .collect()
}

/// Numbers as floats, so that `0` and `0.0` compare equal (qi carries them as floats).
fn normal(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Number(n) => serde_json::json!(n.as_f64()),
        serde_json::Value::Array(a) => serde_json::Value::Array(a.iter().map(normal).collect()),
        other => other.clone(),
    }
}

#[test]
fn run_on_a_libqi_robot_makes_the_calls_the_simulated_robot_gets() {
    let Some(py) = python("run_on_a_libqi_robot_makes_the_calls_the_simulated_robot_gets") else {
        return;
    };
    let robot = FakeRobot::start(&py, None);
    let o = choreo(&["run", "examples/hello", "--robot", &robot.url]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(err.contains("calls ALTextToSpeech.post.say"), "{err}");
    assert!(out.contains("outcome        finished"), "{out}");
    let remote: Vec<_> = robot
        .calls()
        .into_iter()
        .map(|(m, a)| (m, normal(&a)))
        .collect();
    let simulated: Vec<_> = simulated_calls("examples/hello")
        .into_iter()
        .map(|(m, a)| (m, normal(&a)))
        .collect();
    assert_eq!(remote, simulated);
    assert_eq!(
        remote.len(),
        3,
        "wakeUp, say, angleInterpolation: {remote:?}"
    );
}

#[test]
fn a_robot_that_disconnects_stops_the_behavior_cleanly_with_exit_7() {
    let Some(py) = python("a_robot_that_disconnects_stops_the_behavior_cleanly_with_exit_7") else {
        return;
    };
    // The robot vanishes when asked to nod, after wakeUp and say.
    let robot = FakeRobot::start(&py, Some("ALMotion.angleInterpolation"));
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let started = Instant::now();
    let o = choreo(&[
        "run",
        "examples/hello",
        "--robot",
        &robot.url,
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(7), "{out}");
    assert!(out.contains("stopped: the robot disconnected"), "{out}");
    assert!(started.elapsed() < Duration::from_secs(60));
    // Stopped cleanly: every onLoad has its onUnload, every new its del.
    let events: Vec<serde_json::Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let count = |f: &dyn Fn(&serde_json::Value) -> bool| events.iter().filter(|e| f(e)).count();
    assert_eq!(
        count(&|e| e["event"] == "call" && e["hook"] == "onLoad"),
        count(&|e| e["event"] == "call" && e["hook"] == "onUnload")
    );
    assert_eq!(
        count(&|e| e["event"] == "new"),
        count(&|e| e["event"] == "del")
    );
}

/// A `choreo sim` process, killed when dropped: a test that fails before it stops the sim
/// leaves no server behind.
struct Sim(Child);

impl std::ops::Deref for Sim {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Sim {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        // Already gone after a clean stop: then both fail harmlessly.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `choreo sim --listen` on a free port, serving: the process and its URL.
fn served_sim() -> (Sim, String) {
    served_sim_with(&[])
}

/// `choreo sim --listen` on a free port with more options.
fn served_sim_with(options: &[&str]) -> (Sim, String) {
    let port = free_port();
    let url = format!("tcp://127.0.0.1:{port}");
    let sim = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["sim", "--listen", &url])
        .args(options)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until it serves.
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "choreo sim does not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    (Sim(sim), url)
}

/// Stops `choreo sim` with Ctrl-C (it must exit 0) and returns what it printed.
fn stop_sim(mut sim: Sim) -> String {
    let _ = Command::new("kill")
        .args(["-INT", &sim.id().to_string()])
        .status();
    assert_eq!(sim.wait().unwrap().code(), Some(0));
    let mut log = String::new();
    std::io::Read::read_to_string(&mut sim.stderr.take().unwrap(), &mut log).unwrap();
    log
}

#[test]
fn stack_run_drives_a_robot_served_over_qi() {
    let (sim, url) = served_sim();
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "main.json",
        r#"{ "behaviorID": "Main", "behaviorClass": "DispatcherQueue", "behaviors": ["Speak"] }"#,
    );
    write(
        "speak.json",
        r#"{ "behaviorID": "Speak", "behaviorClass": "Say", "text": "Hi over qi" }"#,
    );
    let d = dir.path().to_str().unwrap();
    let o = choreo(&["stack", "run", d, "--robot", &url, "--timeout", "30"]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("Speak: ALTextToSpeech.say done: success"),
        "{err}"
    );
    // A Choregraphe file cannot be installed on a real robot from here: exit 2, said why.
    std::fs::copy(
        workspace().join("examples/hello/behavior.xar"),
        dir.path().join("hello.xar"),
    )
    .unwrap();
    write(
        "speak.json",
        r#"{ "behaviorID": "Speak", "behaviorClass": "PlayChoregraphe", "path": "hello.xar" }"#,
    );
    let o = choreo(&["stack", "run", d, "--robot", &url]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("name a behavior installed on it"), "{err}");
    let log = stop_sim(sim);
    assert!(log.contains("says \"Hi over qi\""), "{log}");
}

#[test]
fn sim_beyond_loopback_asks_clients_for_its_token_unless_no_auth() {
    // Served on every interface: a random token, said on stderr, as a NAOqi 2.9 robot asks
    // for its user and password.
    let port = free_port().to_string();
    let mut sim = Sim(Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["sim", "--listen", &format!("tcp://0.0.0.0:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap());
    let mut lines = BufReader::new(sim.0.stderr.take().unwrap()).lines();
    let said = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.starts_with("clients authenticate"))
        .expect("the credentials are said");
    let token = said
        .split_once("with token ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .unwrap()
        .to_string();
    assert_eq!(token.len(), 32, "{said}");
    let url = format!("tcp://127.0.0.1:{port}");
    let call = |extra: &[&str]| {
        let mut args = vec!["robot", "call", &url, "ALTextToSpeech.getLanguage"];
        args.extend_from_slice(extra);
        choreo(&args)
    };
    let o = call(&[]);
    assert_eq!(o.status.code(), Some(7), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("authentication failed"));
    assert_eq!(
        call(&["--user", "nao", "--token", "wrong"]).status.code(),
        Some(7)
    );
    let o = call(&["--user", "nao", "--token", &token]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "\"English\"");
    interrupt(&mut sim);
    // --no-auth serves openly, and says so.
    let port = free_port().to_string();
    let mut open = Sim(Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args([
            "sim",
            "--listen",
            &format!("tcp://0.0.0.0:{port}"),
            "--no-auth",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap());
    let mut lines = BufReader::new(open.0.stderr.take().unwrap()).lines();
    assert!(
        lines
            .by_ref()
            .map_while(Result::ok)
            .any(|l| l.starts_with("serving without authentication (--no-auth)"))
    );
    let o = choreo(&[
        "robot",
        "call",
        &format!("tcp://127.0.0.1:{port}"),
        "ALTextToSpeech.getLanguage",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    interrupt(&mut open);
    // NAOqi 2.1's protocol cannot authenticate: beyond loopback only with --no-auth.
    let o = choreo(&["sim", "--listen", "tcp://0.0.0.0:0", "--naoqi", "2.1"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs --no-auth"));
}

#[test]
fn sim_listen_serves_the_simulated_robot_to_run_robot() {
    let (sim, url) = served_sim();
    let o = choreo(&["run", "examples/hello", "--robot", &url]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{out}");
    let log = stop_sim(sim);
    // It printed what the robot did and the calls it got.
    assert!(
        log.contains("says \"Hello! I am running in choreo.\""),
        "{log}"
    );
    assert!(
        log.contains("ALMotion.angleInterpolation(\"HeadPitch\""),
        "{log}"
    );
}

#[test]
fn a_posted_method_that_fails_gives_its_task_id_on_the_simulated_robot_and_over_qi() {
    // NAOqi's developer guide: a post "creates a task in a parallel thread ... Each post
    // call generates a task id". A sound that is not there fails in that task; called, it
    // raises. The same on the robot in the process and on `choreo sim` over qi.
    let fixture = workspace().join("crates/choreo/tests/fixtures/posted_failure.xar");
    let fixture = fixture.to_str().unwrap();
    let expect = |o: &Output| {
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
        let all = format!("{out}{err}");
        assert!(all.contains("posted: int, wait: False"), "{all}");
        assert!(all.contains("called: raised"), "{all}");
        assert!(all.contains("outcome        finished"), "{all}");
    };
    expect(&choreo(&["run", fixture, "--fast"]));
    let (sim, url) = served_sim();
    expect(&choreo(&["run", fixture, "--robot", &url]));
    stop_sim(sim);
}

#[test]
fn sim_over_tls_is_reached_by_run_robot_tcps_with_a_pinned_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into()]).unwrap();
    let (cert_file, key_file) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert_file, cert.cert.pem()).unwrap();
    std::fs::write(&key_file, cert.signing_key.serialize_pem()).unwrap();
    let fingerprint: String = {
        use std::fmt::Write as _;
        let digest = choreo_qi::Fingerprint::of(cert.cert.der());
        digest.0.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02X}");
            s
        })
    };
    let port = free_port();
    let url = format!("tcps://127.0.0.1:{port}");
    let mut sim = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args([
            "sim",
            "--listen",
            &url,
            "--cert",
            cert_file.to_str().unwrap(),
            "--key",
            key_file.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "choreo sim does not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = choreo(&[
        "run",
        "examples/hello",
        "--robot",
        &url,
        "--pin",
        &fingerprint,
    ]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("outcome        finished"), "{out}");
    // Another certificate's fingerprint is refused before anything runs.
    let o = choreo(&[
        "run",
        "examples/hello",
        "--robot",
        &url,
        "--pin",
        &"00".repeat(32),
    ]);
    assert_eq!(o.status.code(), Some(7));
    let _ = sim.kill();
    let _ = sim.wait();
}

#[test]
fn a_motion_timeline_sends_a_libqi_robot_the_orders_the_simulated_robot_gets() {
    let test = "a_motion_timeline_sends_a_libqi_robot_the_orders_the_simulated_robot_gets";
    let Some(py) = python(test) else {
        return;
    };
    let fixture = "crates/choreo/tests/fixtures/motion.xar";
    let robot = FakeRobot::start(&py, None);
    let o = choreo(&["run", fixture, "--robot", &robot.url]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let remote: Vec<_> = robot
        .calls()
        .into_iter()
        .map(|(m, a)| (m, normal(&a)))
        .collect();
    let simulated: Vec<_> = simulated_calls(fixture)
        .into_iter()
        .map(|(m, a)| (m, normal(&a)))
        .collect();
    assert_eq!(remote, simulated);
    let methods: Vec<&str> = remote.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        methods,
        ["ALMotion.getAngles", "ALMotion.angleInterpolationBezier"],
        "the posture, then one order for the whole timeline"
    );
    // The order: the three playing curves (the muted LHand is not sent), key times in
    // seconds at 25 fps, and HeadPitch's explicit handles at frame 25 (-4 and 5 frames,
    // 2 and -1 degrees) in seconds and radians.
    let order = &remote[1].1;
    assert_eq!(
        order[0],
        serde_json::json!(["HeadPitch", "RShoulderPitch", "RHand"])
    );
    assert_eq!(order[1][0], serde_json::json!([0.0, 0.48, 0.96, 1.56]));
    let d = std::f64::consts::PI / 180.0;
    let at25 = &order[2][0][2];
    let close = |v: &serde_json::Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-12;
    assert!(close(&at25[0], -5.0 * d), "{at25}");
    assert!(close(&at25[1][0], 2.0) && close(&at25[1][1], -0.16) && close(&at25[1][2], 2.0 * d));
    assert!(close(&at25[2][0], 2.0) && close(&at25[2][1], 0.2) && close(&at25[2][2], -d));
    // RHand is a ratio, never degrees.
    assert!(close(&order[2][2][1][0], 0.9), "{}", order[2][2]);
}

#[test]
fn choreo_robot_lists_services_and_methods_and_calls_one() {
    let (sim, url) = served_sim();
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let o = choreo(&["robot", "services", &url]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o).contains("ALTextToSpeech"), "{}", text(&o));
    let o = choreo(&["robot", "services", &url, "--json"]);
    let list: serde_json::Value = serde_json::from_str(text(&o).trim()).unwrap();
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "ALMotion")
    );
    let o = choreo(&["robot", "methods", &url, "ALTextToSpeech"]);
    assert!(text(&o).contains("say(s) -> v"), "{}", text(&o));
    let o = choreo(&["robot", "behaviors", &url, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(
        serde_json::from_str::<serde_json::Value>(text(&o).trim())
            .unwrap()
            .is_array()
    );
    let o = choreo(&["robot", "info", &url, "--json"]);
    let info: serde_json::Value = serde_json::from_str(text(&o).trim()).unwrap();
    assert_eq!(info["model"], "naoH25");
    assert_eq!(info["body"], "VERSION_50");
    assert!(
        info["naoqi"].as_str().is_some_and(|v| v.starts_with("2.")),
        "{info}"
    );
    // A call with JSON arguments, a negative number among them; what it returns.
    let o = choreo(&["robot", "call", &url, "ALTextToSpeech.say", "\"hello\""]);
    assert_eq!(o.status.code(), Some(0));
    let o = choreo(&[
        "robot",
        "call",
        &url,
        "ALMotion.setAngles",
        "\"HeadYaw\"",
        "-0.5",
        "1.0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", o);
    let o = choreo(&[
        "robot",
        "call",
        &url,
        "ALTextToSpeech.getLanguage",
        "--json",
    ]);
    assert_eq!(text(&o).trim(), "\"English\"");
    // Errors: an unknown service (1), an argument that is not JSON and a bad target (2),
    // a robot that is not there (7).
    let o = choreo(&["robot", "call", &url, "ALNope.x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("ALNope"));
    let o = choreo(&["robot", "call", &url, "ALTextToSpeech.nope", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope"), "{o:?}");
    let o = choreo(&["robot", "methods", &url, "ALNope"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let o = choreo(&["robot", "info", "http://127.0.0.1:9559"]);
    assert_eq!(o.status.code(), Some(2), "a URL that is not qi's: {o:?}");
    let o = choreo(&["robot", "call", &url, "ALTextToSpeech.say", "hello"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not JSON"));
    let o = choreo(&["robot", "call", &url, "say"]);
    assert_eq!(o.status.code(), Some(2));
    let o = choreo(&[
        "robot",
        "services",
        &format!("tcp://127.0.0.1:{}", free_port()),
    ]);
    assert_eq!(o.status.code(), Some(7));
    let log = stop_sim(sim);
    assert!(log.contains("says \"hello\""), "{log}");
}

#[test]
fn choreo_robot_asks_a_libqi_robot_too() {
    let Some(py) = python("choreo_robot_asks_a_libqi_robot_too") else {
        return;
    };
    let robot = FakeRobot::start(&py, None);
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let o = choreo(&["robot", "services", &robot.url]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o).contains("ALTextToSpeech"), "{}", text(&o));
    let o = choreo(&["robot", "methods", &robot.url, "ALTextToSpeech"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o).contains("say("), "{}", text(&o));
    // What this robot lacks (it serves a few modules) is said, not fatal.
    let o = choreo(&["robot", "info", &robot.url]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(text(&o).contains("naoqi    unknown"), "{}", text(&o));
    let o = choreo(&[
        "robot",
        "call",
        &robot.url,
        "ALTextToSpeech.say",
        "\"hi from choreo robot\"",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    // ALMemory values live, from libqi's ALMemory.subscriber objects.
    let mut watcher = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args([
            "robot",
            "watch",
            &robot.url,
            "Seen/Key",
            "--changes",
            "1",
            "--for",
            "30",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The watcher may subscribe after a write: write until it saw one.
    let deadline = Instant::now() + Duration::from_secs(20);
    while watcher.try_wait().unwrap().is_none() && Instant::now() < deadline {
        let set = [
            "robot",
            "call",
            &robot.url,
            "ALMemory.insertData",
            "\"Seen/Key\"",
            "7",
        ];
        assert_eq!(choreo(&set).status.code(), Some(0));
        std::thread::sleep(Duration::from_millis(300));
    }
    let o = watcher.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(text(&o).contains("Seen/Key = 7"), "{}", text(&o));
    let calls = robot.calls();
    assert!(
        calls
            .iter()
            .any(|(m, a)| m == "ALTextToSpeech.say"
                && a.to_string().contains("hi from choreo robot")),
        "{calls:?}"
    );
}

#[test]
fn behaviors_run_end_to_end_on_naoqi_2_1_and_2_8_peers() {
    // `choreo sim --naoqi` speaks exactly the dialect of that generation (no authentication
    // and capabilities in Capability messages for 2.1; 6-field ServiceInfos and no relative
    // endpoints for both): `run --robot` completes a speech, a dance and a motion timeline
    // (one Bezier order), and the robot gets the calls the simulated robot gets.
    for naoqi in ["2.1", "2.8"] {
        let timeline = "crates/choreo/tests/fixtures/motion.xar";
        for example in ["examples/hello", "examples/dance", timeline] {
            let dir = tempfile::tempdir().unwrap();
            let calls = dir.path().join("calls.jsonl");
            let (sim, url) =
                served_sim_with(&["--naoqi", naoqi, "--calls", calls.to_str().unwrap()]);
            let o = choreo(&["run", example, "--robot", &url]);
            let out = String::from_utf8_lossy(&o.stdout).into_owned();
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            assert_eq!(o.status.code(), Some(0), "{naoqi} {example}: {out}\n{err}");
            assert!(out.contains("outcome        finished"), "{out}");
            let log = stop_sim(sim);
            assert!(log.contains(&format!("NAOqi {naoqi} dialect")), "{log}");
            let remote: Vec<_> = std::fs::read_to_string(&calls)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .map(|c| {
                    (
                        c["method"].as_str().unwrap().to_string(),
                        normal(&c["args"]),
                    )
                })
                .collect();
            let simulated: Vec<_> = simulated_calls(example)
                .into_iter()
                .map(|(m, a)| (m, normal(&a)))
                .collect();
            assert!(!remote.is_empty(), "{naoqi} {example}");
            // The dance starts an LED fade and a move at one instant, from two branches:
            // over the network either may arrive first, so the calls compare as a multiset.
            let sorted = |mut v: Vec<(String, serde_json::Value)>| {
                v.sort_by_key(|(m, a)| format!("{m}{a}"));
                v
            };
            assert_eq!(sorted(remote), sorted(simulated), "{naoqi} {example}");
        }
    }
}

#[test]
fn choreo_robot_watches_memory_keys_and_asks_a_2_1_robot() {
    for naoqi in ["2.9", "2.1"] {
        let (sim, url) = served_sim_with(&["--naoqi", naoqi]);
        let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
        let o = choreo(&["robot", "info", &url, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{naoqi}: {o:?}");
        let info: serde_json::Value = serde_json::from_str(text(&o).trim()).unwrap();
        assert_eq!(info["model"], "naoH25", "{naoqi}");
        // The robot reports the version of the generation whose dialect it speaks.
        let release = if naoqi == "2.9" {
            "2.9.5.172"
        } else {
            "2.1.4.13"
        };
        assert_eq!(info["naoqi"], release, "{naoqi}: {info}");
        let watcher = Command::new(env!("CARGO_BIN_EXE_choreo"))
            .args([
                "robot",
                "watch",
                &url,
                "Seen/Key",
                "--changes",
                "2",
                "--json",
            ])
            .args(["--for", "30"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Written until the watcher sees them (it may subscribe after the first writes).
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut n = 0;
        while Instant::now() < deadline {
            n += 1;
            let o = choreo(&[
                "robot",
                "call",
                &url,
                "ALMemory.insertData",
                "\"Seen/Key\"",
                &n.to_string(),
            ]);
            assert_eq!(o.status.code(), Some(0), "{o:?}");
            if n >= 3 {
                break;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        let o = watcher.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{naoqi}: {o:?}");
        let lines: Vec<serde_json::Value> = text(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // The value at the start (if any was written yet), then two changes, in order.
        assert!(lines.len() >= 2, "{naoqi}: {lines:?}");
        let values: Vec<i64> = lines.iter().map(|l| l["value"].as_i64().unwrap()).collect();
        assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
        assert!(lines.iter().all(|l| l["key"] == "Seen/Key"));
        // A key nobody wrote yet is watched all the same: said on stderr, exit 0.
        let o = choreo(&["robot", "watch", &url, "Not/Yet", "--for", "1"]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("Not/Yet: no value yet"));
        stop_sim(sim);
    }
}

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

/// Ctrl-C to a `choreo sim` process: it exits 0.
fn interrupt(sim: &mut Child) {
    let _ = Command::new("kill")
        .args(["-INT", &sim.id().to_string()])
        .status();
    assert_eq!(sim.wait().unwrap().code(), Some(0));
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
    // In step: each robot got its frame-50 order within one frame (40 ms at 25 fps) of the
    // others, robot 8 (another process) included.
    let at = frame_50_times(&[&calls7, &calls8]);
    assert_eq!(at.len(), 8, "{at:?}");
    let spread = at[7] - at[0];
    assert!(
        spread <= 0.040,
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
    // In step, as `choreo run --robots` is: the frame-50 orders within one frame (40 ms at
    // 25 fps) of each other.
    let at = frame_50_times(&[&calls]);
    assert_eq!(at.len(), 2, "{at:?}");
    assert!(at[1] - at[0] <= 0.040, "frame-50 orders apart: {at:?}");
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

/// A line of `/proc/PID/status` (`Threads`, `VmHWM` in kB), as a number.
fn proc_status(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// Issue 33: ten thousand connections that never finish a handshake (idle, garbage, half a
/// header, half a message, a 2 GiB payload declared) against `choreo sim`: its threads and
/// memory stay bounded (under 64 threads and 200 MB, the issue's bounds), a client's calls
/// are answered among them, every one of them is closed once the handshake time (5 s) has
/// passed, and the sim's log says so in a few lines, not ten thousand.
#[test]
fn ten_thousand_hostile_connections_cost_bounded_threads_and_memory() {
    let (sim, url) = served_sim();
    let port = url.rsplit(':').next().unwrap().to_string();
    let session = choreo_qi::Session::connect(&url).unwrap();
    let tts = session.service("ALTextToSpeech").unwrap();
    let ask = || tts.call("getLanguage", &[]);
    ask().unwrap();
    let mut hostile = Command::new("python3")
        .arg(workspace().join("crates/choreo/tests/fixtures/hostile_clients.py"))
        .args(["127.0.0.1", &port, "10000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = BufReader::new(hostile.stdout.take().unwrap()).lines();
    let mut line = || said.next().unwrap().unwrap();
    let opened = line();
    let count: u64 = opened.trim_start_matches("opened ").parse().unwrap();
    eprintln!("NOTICE: {count} hostile connections opened (10,000 asked)");
    assert!(count >= 5000, "the open-file limit allowed only {count}");
    let threads = proc_status(sim.id(), "Threads");
    let started = Instant::now();
    ask().unwrap();
    eprintln!(
        "a call among them: {:?}; the sim's threads: {threads}",
        started.elapsed()
    );
    assert!(threads < 64, "{threads} threads");
    // All closed, some time after the handshake time.
    let mut stdin = hostile.stdin.take().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let closed = loop {
        std::thread::sleep(Duration::from_secs(1));
        std::io::Write::write_all(&mut stdin, b"check\n").unwrap();
        let counts: serde_json::Value = serde_json::from_str(&line()).unwrap();
        if counts["closed"] == counts["open"] || Instant::now() > deadline {
            break counts;
        }
    };
    assert_eq!(closed["closed"], closed["open"], "{closed}");
    let peak_kb = proc_status(sim.id(), "VmHWM");
    eprintln!("the sim's peak memory: {} MB", peak_kb / 1024);
    assert!(peak_kb < 200 * 1024, "{peak_kb} kB");
    ask().unwrap();
    drop(stdin);
    let _ = hostile.wait();
    drop(tts);
    drop(session);
    let log = stop_sim(sim);
    let lines = log.lines().filter(|l| l.contains("qi server")).count();
    assert!(
        (1..=5).contains(&lines),
        "{lines} lines of the server:\n{log}"
    );
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
/// eighth is 5 ms away until mid-dance, then 100 ms (`5±20>100±20@3.5`: 3.5 s after it
/// connected). The fleet measures each robot's delay all along and sends each one's orders
/// that much earlier, so that the robots get the dance's orders together, from their own
/// call logs: the timeline's start (its first order comes after the robot's angles are read,
/// a round trip), a box of its first frame, and boxes at 2 and 5.6 s, the last after the
/// eighth robot moved away. Sent at once, the far ones would get each of them up to 95 ms
/// after the near ones. The jitter alone spreads an order by up to 40 ms; the bound, 80 ms,
/// is the margin a machine with every core busy needs (see the numbers printed); the
/// one-frame target is measured by `benches/fleet.py --latency`.
#[test]
fn a_fleet_far_away_dances_in_step() {
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    let latency = "5±20,20±20,50±20,100±20,5±20,20±20,50±20,5±20>100±20@3.5";
    let (mut sim, urls, _) = served_fleet(
        8,
        &["--calls", calls.to_str().unwrap(), "--latency", latency],
    );
    let robots = dir.path().join("robots.txt");
    std::fs::write(&robots, urls.join("\n")).unwrap();
    // The dance with its muted curve made a head nod (its timeline's start sends an order),
    // and its look around moved to frame 140.
    let dance = std::fs::read_to_string(workspace().join("examples/dance/behavior.xar")).unwrap();
    let muted = r#"actuator="HipRoll" recordable="0" mute="1" unit="0">
                                        <Key frame="1" value="0" />"#;
    let nod = r#"actuator="HeadPitch" recordable="0" mute="0" unit="0">
                                        <Key frame="1" value="0" /><Key frame="60" value="10" />"#;
    let look = r#"<BehaviorKeyframe name="look around" index="100">"#;
    assert!(dance.contains(muted) && dance.contains(look));
    let dance = dance
        .replace(muted, nod)
        .replace(look, &look.replace("100", "140"));
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
        let d = ms(robot);
        assert!(
            d.len() == 1 && (low..low + 50.0).contains(&d[0]),
            "robot {robot}: {delays}"
        );
    }
    let eighth = ms(8);
    assert!(
        eighth.len() == 2 && eighth[0] < 50.0 && (85.0..150.0).contains(&eighth[1]),
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
    // The eighth robot moved away after the timeline's start (it connected after the
    // launch) and at least 1.5 s before the look around (it connected before its wakeUp):
    // time for seven probes.
    assert!(at(8, 0) < launched + 3.5, "{orders:?}");
    assert!(at(8, 4) + 3.5 + 1.5 < at(8, 3), "{orders:?}");
    let spread = |which: usize| -> f64 {
        let all: Vec<f64> = (1..=8).map(|r| at(r, which)).collect();
        all.iter().copied().fold(f64::MIN, f64::max) - all.iter().copied().fold(f64::MAX, f64::min)
    };
    let spreads: Vec<f64> = (0..4).map(spread).collect();
    eprintln!(
        "{delays}\n{clocks}\n{started}\n  spreads (ms): start {:.1}, frame 1 {:.1}, frame 50 {:.1}, frame 140 {:.1}",
        spreads[0] * 1000.0,
        spreads[1] * 1000.0,
        spreads[2] * 1000.0,
        spreads[3] * 1000.0
    );
    for (s, what) in spreads
        .iter()
        .zip(["start", "frame 1", "frame 50", "frame 140"])
    {
        assert!(*s <= 0.080, "{what}: {s:.3} s apart: {orders:?}\n{out}");
    }
    interrupt(&mut sim);
}
