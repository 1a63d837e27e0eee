//! Test harness: the libqi Python venv (CHOREO_QI_PYTHON), fixture processes, and the Rust
//! test service the libqi client drives.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use choreo_engine::Value;
use choreo_qi::{ObjectBuilder, Out};

pub use choreo_testkit::{free_port, qi_python as python};

/// How long a test waits for what another thread or process makes true (it returns as soon
/// as it is): a margin that holds with every core busy.
pub const SETTLE: Duration = Duration::from_secs(30);

/// Bytes from a hex dump (`"42 de ad 42"`).
pub fn hex(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|h| u8::from_str_radix(h, 16).unwrap())
        .collect()
}

/// A qi string: u32 length, then the bytes.
pub fn str_bytes(s: &str) -> Vec<u8> {
    let mut v = (s.len() as u32).to_le_bytes().to_vec();
    v.extend_from_slice(s.as_bytes());
    v
}

/// A fixture script's path.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A running Python fixture: killed on drop; exits by itself when its stdin closes.
pub struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Peer {
    /// Starts `python script args...` and waits (up to 20 s) for a line starting with
    /// `ready`; returns the peer and that line.
    pub fn start(python: &PathBuf, script: &str, args: &[String], ready: &str) -> (Peer, String) {
        let mut child = Command::new(python)
            .arg(fixture(script))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {script}: {e}"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut peer = Peer {
            child,
            stdin,
            lines: rx,
        };
        let line = peer.line_starting(ready, Duration::from_secs(20));
        (peer, line)
    }

    /// The next stdout line starting with `prefix` (other lines skipped), within `timeout`.
    pub fn line_starting(&mut self, prefix: &str, timeout: Duration) -> String {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return line,
                Ok(_) => {}
                Err(_) => panic!("no line starting with {prefix:?} within {timeout:?}"),
            }
        }
    }

    /// Every remaining stdout line until the process exits (bounded by `timeout`).
    pub fn finish(mut self, timeout: Duration) -> Vec<String> {
        self.stdin.take();
        let deadline = std::time::Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => out.push(line),
                Err(_) => break,
            }
        }
        out
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.stdin.take();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A libqi standalone directory with the `ChoreoTest` service: the peer and its URL.
pub fn libqi_server(python: &PathBuf) -> (Peer, String) {
    for _ in 0..3 {
        let port = free_port();
        let (peer, line) = Peer::start(python, "libqi_server.py", &[port.to_string()], "READY");
        if line.starts_with("READY") {
            return (peer, format!("tcp://127.0.0.1:{port}"));
        }
    }
    panic!("the libqi server did not start");
}

/// The `signal` check of `libqi_client.py` (the three `textDone` values a libqi client
/// received), sorted. Our server posts the three events in order on one connection; libqi
/// runs a Python client's signal callbacks on its thread pool, so they may append in another
/// order (seen: done0, done2, done1). Each must arrive once.
pub fn signal_values(check: &serde_json::Value) -> Vec<String> {
    let mut done: Vec<String> = check["values"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    done.sort();
    done
}

/// The Rust test service `ChoreoRust` that `libqi_client.py` drives: ping, echo, the
/// `textDone` signal (`emit(n)`), the `volume` property, `slow` (cancelable) and `fail`.
pub fn rust_service() -> Arc<choreo_qi::ServedObject> {
    let emitter: Arc<Mutex<Option<Arc<choreo_qi::ServedObject>>>> = Arc::new(Mutex::new(None));
    let e = Arc::clone(&emitter);
    let object = ObjectBuilder::new("choreo test service")
        .method_inline("ping", "(i)", "i", |a| {
            Ok(Out::Value(a.into_iter().next().unwrap_or_default()))
        })
        .method_inline("echo", "(m)", "m", |a| {
            Ok(Out::Value(a.into_iter().next().unwrap_or_default()))
        })
        .signal("textDone", "(s)")
        .property("volume", "f", Value::Float(0.75))
        .method_inline("emit", "(i)", "v", move |a| {
            let n = match a.first() {
                Some(Value::Int(n)) => *n,
                _ => 0,
            };
            if let Some(o) = e.lock().unwrap().as_ref() {
                for k in 0..n {
                    o.emit("textDone", vec![Value::String(format!("done{k}"))])
                        .unwrap();
                }
            }
            Ok(Out::Value(Value::None))
        })
        .method("slow", "()", "i", |_| {
            std::thread::sleep(Duration::from_secs(2));
            Ok(Out::Value(Value::Int(1)))
        })
        .method_inline("fail", "()", "v", |_| Err("RuntimeError: boom".into()))
        .build()
        .unwrap();
    *emitter.lock().unwrap() = Some(Arc::clone(&object));
    object
}
