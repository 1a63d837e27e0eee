//! The libqi side of the robot tests: the venv's python (PyPI `qi` 3.1.5, the venv
//! scripts/test creates; CHOREO_QI_PYTHON), free ports, and fixture processes.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use super::cli::workspace;

pub use choreo_testkit::{free_port, qi_python as python};

/// A Python fixture of `crates/choreo/tests/fixtures` serving on a free port: started,
/// ready (it printed `READY`), killed on drop; it exits by itself when its stdin closes.
pub struct Fixture {
    child: Child,
    /// Its stdout lines after `READY` (libqi's log among them).
    pub lines: Receiver<String>,
    /// `tcp://127.0.0.1:PORT`.
    pub url: String,
}

impl Fixture {
    /// Runs `python fixtures/SCRIPT PORT ARGS...` and waits (30 s at most) for its `READY`.
    pub fn start(python: &Path, script: &str, args: &[&str]) -> Fixture {
        let port = free_port();
        let mut child = Command::new(python)
            .arg(
                workspace()
                    .join("crates/choreo/tests/fixtures")
                    .join(script),
            )
            .arg(port.to_string())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // libqi logs on stdout too: skip to the READY line.
        loop {
            let line = lines.recv_timeout(Duration::from_secs(30)).unwrap();
            if line.starts_with("READY") {
                break;
            }
        }
        Fixture {
            child,
            lines,
            url: format!("tcp://127.0.0.1:{port}"),
        }
    }

    /// Closes its stdin and waits for it to exit (10 s at most, then it is killed).
    pub fn stop(mut self) {
        drop(self.child.stdin.take());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes its stdin and returns the lines it printed until it exited (10 s at most
    /// between two lines).
    pub fn finish(mut self) -> Vec<String> {
        drop(self.child.stdin.take());
        let mut out = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(10)) {
            out.push(line);
        }
        let _ = self.child.wait();
        out
    }

    /// Whether the process has ended.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Whether the fixture's process ends within `margin`: one that closes its connection
    /// by exiting is still tearing down when the peer sees the connection gone.
    pub fn exits_within(&mut self, margin: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + margin;
        while std::time::Instant::now() < deadline {
            if self.exited() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        self.exited()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
