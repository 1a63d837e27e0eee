//! `choreo sim` served for a test: the process (killed when dropped, a clean stop checked),
//! its URL, and the comparisons of the calls robots receive.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::qi::free_port;

/// Numbers as floats, so that `0` and `0.0` compare equal (qi carries them as floats).
pub fn normal(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Number(n) => serde_json::json!(n.as_f64()),
        serde_json::Value::Array(a) => serde_json::Value::Array(a.iter().map(normal).collect()),
        other => other.clone(),
    }
}

/// A `choreo sim` process, killed when dropped: a test that fails before it stops the sim
/// leaves no server behind.
pub struct Sim(pub Child);

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
pub fn served_sim() -> (Sim, String) {
    served_sim_with(&[])
}

/// `choreo sim --listen` on a free port with more options.
pub fn served_sim_with(options: &[&str]) -> (Sim, String) {
    served_sim_on("tcp", options)
}

/// `choreo sim --listen SCHEME://127.0.0.1:PORT` (`tcp`, `tcps`) on a free port with more
/// options, serving: the process and its URL.
pub fn served_sim_on(scheme: &str, options: &[&str]) -> (Sim, String) {
    let port = free_port();
    let url = format!("{scheme}://127.0.0.1:{port}");
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
pub fn stop_sim(mut sim: Sim) -> String {
    let _ = Command::new("kill")
        .args(["-INT", &sim.id().to_string()])
        .status();
    assert_eq!(sim.wait().unwrap().code(), Some(0));
    let mut log = String::new();
    std::io::Read::read_to_string(&mut sim.stderr.take().unwrap(), &mut log).unwrap();
    log
}

/// Ctrl-C to a `choreo sim` process: it exits 0.
pub fn interrupt(sim: &mut Child) {
    let _ = Command::new("kill")
        .args(["-INT", &sim.id().to_string()])
        .status();
    assert_eq!(sim.wait().unwrap().code(), Some(0));
}
