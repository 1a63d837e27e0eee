//! Play from the editor ([`RunPlayer`]: `choreo edit`'s, and any program's that serves the
//! editor): the behavior run by a `choreo run` of its own, so that the run has
//! what every run has (the sandbox around box code, the simulated or real robot, the
//! scenario) and box code never runs in the editor's process. The run serves its monitor on
//! loopback; its messages (`snapshot`, `batch`, `ended`) are relayed to the editor's pages,
//! which light the diagram as the monitor's page does. What a person does from the page's
//! Talk panel (a sentence heard, a touch, a face) goes to the run's monitor as its `world`
//! message (the run is started with `--monitor-control`).

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

use choreo_editor::{PlayError, Player};
use choreo_monitor::Monitor;
use serde_json::{Value, json};

/// Plays the edited behavior with `choreo run`.
pub struct RunPlayer {
    /// The robot the simulated run is of (the editor's).
    model: String,
    child: Option<Child>,
    /// What the page sends the run playing (its `world` messages), sent on the relay's
    /// socket by the thread that follows the run, once it is connected.
    to_run: Option<Sender<String>>,
}

impl RunPlayer {
    /// A player of runs on a simulated `model` (`nao`, `pepper`).
    pub fn new(model: &str) -> RunPlayer {
        RunPlayer {
            model: model.to_string(),
            child: None,
            to_run: None,
        }
    }

    /// Whether a run still plays (one that ended is waited for).
    fn playing(&mut self) -> bool {
        match &mut self.child {
            Some(c) => match c.try_wait() {
                Ok(None) => true,
                _ => {
                    self.child = None;
                    false
                }
            },
            None => false,
        }
    }
}

impl Player for RunPlayer {
    fn play(
        &mut self,
        file: &Path,
        request: &Value,
        monitor: &Arc<Monitor>,
    ) -> Result<(), PlayError> {
        if self.playing() {
            return Err(PlayError::Playing);
        }
        let (program, prefix) = choreo_command()?;
        let mut command = Command::new(program);
        command.args(prefix).arg("run").arg(file);
        command.args([
            "--monitor",
            "127.0.0.1:0",
            "--monitor-keep",
            "0",
            "--monitor-control",
        ]);
        let text = |k: &str| request[k].as_str().map(str::trim).filter(|s| !s.is_empty());
        match text("robot") {
            Some(url) => command.args(["--robot", url]),
            None => command.args(["--robot-model", &self.model]),
        };
        if let Some(scenario) = text("events") {
            command.args(["--events", scenario]);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let stderr = child.stderr.take();
        self.child = Some(child);
        let monitor = Arc::clone(monitor);
        let (to_run, outgoing) = channel();
        self.to_run = Some(to_run);
        std::thread::Builder::new()
            .name("choreo-edit-play".into())
            .spawn(move || {
                if let Some(stderr) = stderr {
                    follow(BufReader::new(stderr), &monitor, &outgoing);
                }
            })?;
        Ok(())
    }

    fn world(&mut self, message: &Value) -> Result<(), PlayError> {
        match (self.playing(), &self.to_run) {
            (true, Some(to_run)) if to_run.send(message.to_string()).is_ok() => Ok(()),
            _ => Err(PlayError::NotPlaying),
        }
    }

    fn stop(&mut self) {
        if self.playing()
            && let Some(c) = &self.child
            && let Ok(run) = choreo_sandbox::child::Handle::of(c)
            // As Ctrl-C: the run unloads every box and ends with its report (Windows
            // cannot ask it so: it is ended).
            && !run.interrupt()
        {
            run.kill();
        }
    }
}

impl Drop for RunPlayer {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Reads the run's standard error: its monitor's URL, whose messages are then relayed; a
/// run that ends without serving one (a scenario it cannot read) ends on the page with
/// what it printed.
fn follow(stderr: impl std::io::BufRead, monitor: &Monitor, outgoing: &Receiver<String>) {
    let mut said = Vec::new();
    for line in stderr.lines() {
        let Ok(line) = line else { break };
        if let Some(url) = line.strip_prefix("monitor: ") {
            let url = url
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
            relay(&url, monitor, outgoing);
            return;
        }
        said.push(line);
    }
    monitor.tell(&json!({"type": "ended", "outcome": "not started", "report": said.join("\n")}));
}

/// Relays the run's monitor at `url` to the editor's pages until it closes, and sends it
/// what the pages send the run (`outgoing`), looked for between reads.
fn relay(url: &str, monitor: &Monitor, outgoing: &Receiver<String>) {
    let Ok((mut socket, _)) = tungstenite::connect(ws_of(url).as_str()) else {
        monitor.tell(&json!({"type": "ended", "outcome": "not shown", "report": format!("cannot reach the run's monitor at {url}")}));
        return;
    };
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = socket.get_mut() {
        // Reads wake at least this often to send what the pages sent.
        let _ = s.set_read_timeout(Some(Duration::from_millis(50)));
    }
    loop {
        while let Ok(text) = outgoing.try_recv() {
            if socket.send(tungstenite::Message::text(text)).is_err() {
                return;
            }
        }
        let message = match socket.read() {
            Ok(m) => m,
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                continue;
            }
            Err(_) => return,
        };
        let Ok(text) = message.to_text() else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        if matches!(v["type"].as_str(), Some("snapshot" | "batch" | "ended")) {
            monitor.tell(&v);
        }
    }
}

/// The WebSocket of the monitor served at `url`.
fn ws_of(url: &str) -> String {
    format!("{}ws", url.replacen("http://", "ws://", 1))
}

/// How to start choreo again: this program, or `python -m choreo` when choreo runs in the
/// Python package's interpreter.
fn choreo_command() -> std::io::Result<(PathBuf, Vec<&'static str>)> {
    let exe = std::env::current_exe()?;
    let python = exe
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("python"));
    Ok((
        exe,
        if python {
            vec!["-m", "choreo"]
        } else {
            Vec::new()
        },
    ))
}
