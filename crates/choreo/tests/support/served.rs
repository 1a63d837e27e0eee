//! `choreo` serving a monitor in the background (`run --monitor`, `replay`): the URL it
//! printed, pages connected to it, its end.

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tungstenite::{WebSocket, stream::MaybeTlsStream};

use super::cli::workspace;

/// A page's WebSocket.
pub type Page = WebSocket<MaybeTlsStream<TcpStream>>;

/// `choreo ARGS` in the background, and the monitor URL it printed.
pub struct Served {
    child: Child,
    /// The monitor's URL.
    pub url: String,
    stderr: mpsc::Receiver<String>,
}

impl Served {
    /// Starts `choreo ARGS` and waits for the URL it prints.
    pub fn start(args: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_choreo"))
            .args(args)
            .current_dir(workspace())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let rx = super::stderr_lines(&mut child);
        let deadline = Instant::now() + Duration::from_secs(60);
        let url = loop {
            let line = rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("the monitor's URL on stderr");
            // `choreo edit` serves the same page, as an editor.
            if let Some(url) = line
                .strip_prefix("monitor: ")
                .or_else(|| line.strip_prefix("editor: "))
            {
                break url.split_whitespace().next().unwrap().to_string();
            }
        };
        Served {
            child,
            url,
            stderr: rx,
        }
    }

    /// The example stack's run ([`STACK_EXAMPLE`](super::cli::STACK_EXAMPLE)) with `extra`
    /// arguments and a monitor that stays up a minute after the end.
    pub fn stack_example(extra: &[&str]) -> Served {
        let mut args = super::cli::STACK_EXAMPLE.to_vec();
        args.extend(extra);
        args.extend(["--monitor", "--monitor-keep", "60"]);
        Served::start(&args)
    }

    /// `choreo run --fast` of `tests/fixtures/nod.xar` (a timeline with motion curves:
    /// HeadYaw 0 → 90°, HeadPitch 0 → −20°, LHand 0.2 → 0.8, a muted LKneePitch, frames
    /// 1–11 at 10 fps) with a monitor that stays up a minute after the end.
    pub fn nod() -> Served {
        Served::fast("crates/choreo/tests/fixtures/nod.xar")
    }

    /// `choreo run --fast PATH` (from the workspace) with a monitor that stays up a minute
    /// after the end.
    pub fn fast(path: &str) -> Served {
        Served::start(&["run", path, "--fast", "--monitor", "--monitor-keep", "60"])
    }

    /// The next line it prints (on stderr) that contains `text`.
    pub fn line_with(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let line = self
                .stderr
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("a line with {text:?} on stderr"));
            if line.contains(text) {
                return line;
            }
        }
    }

    /// A page connected to the monitor.
    pub fn page(&self) -> Page {
        let ws = self.url.replacen("http://", "ws://", 1) + "ws";
        let (mut page, _) = tungstenite::connect(ws).unwrap();
        if let MaybeTlsStream::Plain(s) = page.get_mut() {
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        }
        page
    }

    /// Waits for the process's end: its exit code.
    pub fn wait(mut self) -> Option<i32> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "choreo did not end");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // Stopped as a user stops it, so that it removes its robot's folders
        // (`/tmp/choreo-*`): Ctrl-C stops the run, and once its monitor lingers, Ctrl-C
        // again quits; killed only past margins that hold under load.
        let interrupt = |child: &Child| {
            if let Ok(pid) = i32::try_from(child.id()) {
                let pid = nix::unistd::Pid::from_raw(pid);
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT);
            }
        };
        let running = |child: &mut Child| matches!(child.try_wait(), Ok(None));
        if running(&mut self.child) {
            interrupt(&self.child);
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline {
                match self.stderr.recv_timeout(Duration::from_millis(50)) {
                    Ok(line) if line.contains(" stays up") => break,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                    _ => {}
                }
            }
            interrupt(&self.child);
            let deadline = Instant::now() + Duration::from_secs(20);
            while running(&mut self.child) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        while self.stderr.try_recv().is_ok() {}
    }
}
