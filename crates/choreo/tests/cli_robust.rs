//! The `choreo` command never panics on bad numbers or closed pipes: bad numeric options are
//! refused (exit 2) before anything runs; a closed stderr changes nothing; a closed stdout
//! ends the command with 141.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `choreo` in the workspace, with no input.
fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_choreo"));
    c.args(args)
        .current_dir(workspace())
        .stdin(Stdio::null())
        // A panic's message is enough; no backtrace to scroll through.
        .env("RUST_BACKTRACE", "0");
    c
}

fn choreo(args: &[&str]) -> Output {
    command(args).output().expect("choreo runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The write end of a pipe whose read end is already closed.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

/// Waits for `child` at most `limit`; kills it and fails past that.
fn wait_at_most(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Asserts `args` is refused as a usage error naming `option`, with nothing loaded or run.
#[track_caller]
fn assert_refused(args: &[&str], option: &str) {
    let o = choreo(args);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    let what = format!("choreo {args:?}\nstdout: {out}\nstderr: {err}");
    assert_eq!(o.status.code(), Some(2), "{what}");
    assert!(err.contains(&format!("'{option} ")), "{what}");
    assert!(!err.contains("panicked"), "{what}");
    assert!(!out.contains("run report"), "{what}");
    assert!(
        !err.contains("running ") && !err.contains("serving "),
        "{what}"
    );
}

const BAD_TIMEOUTS: &[&str] = &[
    "-5",
    "-0.5",
    "0",
    "-0",
    "0.0",
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "infinity",
    "1e300",
    "-1e300",
    "315360000.5",
    "18446744074",
    "abc",
    "",
    "5s",
    "1,5",
];

#[test]
fn bad_timeouts_are_refused_before_anything_runs() {
    for bad in BAD_TIMEOUTS {
        for fast in [true, false] {
            let mut args = vec!["run", "examples/hello", "--timeout", bad];
            if fast {
                args.push("--fast");
            }
            assert_refused(&args, "--timeout");
        }
        let joined = format!("--timeout={bad}");
        assert_refused(&["run", "examples/dance", &joined], "--timeout");
    }
}

#[test]
fn the_largest_timeout_and_short_ones_run() {
    // 10 years: the bound itself is accepted, in virtual and real time.
    for fast in [true, false] {
        let mut args = vec!["run", "examples/hello", "--timeout", "315360000", "-q"];
        if fast {
            args.push("--fast");
        }
        let o = choreo(&args);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
        assert!(out.contains("outcome        finished"), "{out}");
    }
    // Half a second of a 7-second dance: a timeout, not a panic. With every core busy the
    // half second can pass before the boxes are built: a timeout then too, said on stderr.
    let o = choreo(&["run", "examples/dance", "--timeout", "0.5", "-q"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(5), "{out}{err}");
    assert!(
        out.contains("outcome        stopped: timeout")
            || err.contains("the time limit (500ms) passed while the boxes were being constructed"),
        "{out}{err}"
    );
}

const BAD_PORTS: &[&str] = &[
    "65536",
    "99999",
    "18446744073709551617",
    "-1",
    "abc",
    "",
    "1e3",
    "nan",
    "80.5",
];

#[test]
fn bad_ports_are_refused_before_anything_runs() {
    for bad in BAD_PORTS {
        for host in [
            "tcp://127.0.0.1",
            "tcps://127.0.0.1",
            "localhost",
            "tcp://[::1]",
        ] {
            let url = format!("{host}:{bad}");
            assert_refused(&["run", "examples/hello", "--robot", &url], "--robot");
            assert_refused(&["sim", "--listen", &url, "-q"], "--listen");
        }
    }
    // No robot listens on port 0 (a server may: any free port).
    assert_refused(
        &["run", "examples/hello", "--robot", "tcp://127.0.0.1:0"],
        "--robot",
    );
    for bad in ["udp://127.0.0.1:9559", "tcp://", "tcp://:9559", "[::1"] {
        assert_refused(&["run", "examples/hello", "--robot", bad], "--robot");
        assert_refused(&["sim", "--listen", bad], "--listen");
    }
    // A missing URL is not taken from the next option.
    assert_refused(&["run", "examples/hello", "--robot", "--fast"], "--robot");
}

#[test]
fn good_ports_pass_to_the_connection() {
    // Nothing listens on port 1: each form is accepted, then the robot cannot be reached.
    for url in [
        "tcp://127.0.0.1:1",
        "tcps://127.0.0.1:1",
        "127.0.0.1:1",
        "tcp://127.0.0.1:1/",
        "tcp://[::1]:1",
    ] {
        let o = choreo(&["run", "examples/hello", "--robot", url]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(7), "{url}: {err}");
        assert!(err.contains("cannot reach the robot"), "{url}: {err}");
    }
}

#[test]
fn a_closed_stderr_changes_nothing_for_run() {
    // The reader is gone before the start: every message fails to be written.
    let o = command(&["run", "examples/dance", "--fast"])
        .stderr(closed_pipe())
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("outcome        finished"), "{out}");
    assert!(out.contains("errors         0"), "{out}");

    // The reader reads the first line, then goes away mid-run (real time: the dance goes on
    // for seconds, writing what the robot does).
    let mut child = command(&["run", "examples/dance"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut err, &mut first).unwrap();
    drop(err);
    let o = child.wait_with_output().unwrap();
    let out = text(&o.stdout);
    assert_eq!(text(&first), "running dance on");
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("outcome        finished"), "{out}");
}

#[test]
fn a_closed_stderr_changes_nothing_for_errors_and_sim() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xar");
    std::fs::write(&bad, "<ChoregrapheProject><Box name='root'").unwrap();
    for (args, code) in [
        (vec!["inspect", bad.to_str().unwrap()], 4),
        (vec!["run", bad.to_str().unwrap(), "--fast"], 4),
        (vec!["check", "no/such/folder"], 2),
        (vec!["run", "examples/hello", "--timeout", "nan"], 2),
    ] {
        let o = command(&args).stderr(closed_pipe()).output().unwrap();
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", text(&o.stdout));
    }

    // `sim` announces itself on stderr, then serves until Ctrl-C.
    // Once its port answers, it hears Ctrl-C (the handler is set before it serves).
    let port = support::qi::free_port();
    let mut sim = command(&["sim", "--listen", &format!("tcp://127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(closed_pipe())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
        && Instant::now() < deadline
        && sim.try_wait().unwrap().is_none()
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    let early = sim.try_wait().unwrap();
    if early.is_none() {
        let kill = Command::new("kill")
            .args(["-INT", &sim.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
    }
    let status = wait_at_most(&mut sim, Duration::from_secs(30), "choreo sim");
    assert_eq!(early, None, "sim ended by itself: {status}");
    assert_eq!(status.code(), Some(0), "{status}");
}

#[test]
fn a_closed_stdout_exits_141_without_a_panic() {
    let o = command(&["run", "examples/dance", "--fast"])
        .stdout(closed_pipe())
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(141), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // The run itself went to its end before the report found stdout closed.
    assert!(err.contains("says \"Thank you!\""), "{err}");
}

/// Runs the dance in real time with stderr on a terminal (so that the progress line is
/// drawn), and closes the terminal once the progress line shows a frame. Prints the bytes
/// seen, the exit code and the child's stdout.
const PTY_SCRIPT: &str = r#"
import os, pty, select, subprocess, sys, time
choreo, cwd = sys.argv[1], sys.argv[2]
master, slave = pty.openpty()
child = subprocess.Popen([choreo, "run", "examples/dance"], cwd=cwd,
    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
    start_new_session=True, env=dict(os.environ, RUST_BACKTRACE="0"))
os.close(slave)
seen = b""
deadline = time.time() + 60
while b"frame" not in seen and time.time() < deadline:
    ready, _, _ = select.select([master], [], [], 1)
    if ready:
        try:
            seen += os.read(master, 4096)
        except OSError:
            break
os.close(master)
out, _ = child.communicate(timeout=120)
sys.stdout.write("seen %r\ncode %d\n" % (seen, child.returncode))
sys.stdout.write(out.decode("utf-8", "replace"))
"#;

#[test]
fn a_closed_terminal_on_stderr_does_not_stop_the_progress_line() {
    let python = std::env::var_os("CHOREO_QI_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"));
    let o = match Command::new(&python)
        .arg("-c")
        .arg(PTY_SCRIPT)
        .arg(env!("CARGO_BIN_EXE_choreo"))
        .arg(workspace())
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            let why = format!("{} cannot run ({e})", python.display());
            let _: Option<()> =
                choreo_testkit::absent("the pty test", &why, choreo_testkit::under_ci());
            return;
        }
    };
    let out = text(&o.stdout);
    let what = format!("{out}{}", text(&o.stderr));
    assert!(o.status.success(), "{what}");
    // The progress line was drawn on the terminal before it closed.
    assert!(out.contains("frame"), "{what}");
    assert!(out.contains("\ncode 0\n"), "{what}");
    assert!(out.contains("outcome        finished"), "{what}");
}
