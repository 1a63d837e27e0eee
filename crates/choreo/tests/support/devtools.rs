//! A page kept open in a headless chromium and read over the DevTools protocol, in real
//! time: for the page of a behavior that is still running. Its stream of updates keeps the
//! renderer busy, and on a loaded machine chromium's virtual time (`--virtual-time-budget`,
//! [`super::browser::dom`]) then never reaches its budget: the one-shot `--dump-dom` run did
//! not end (reproduced beside four busy loops on two cores). Here the test looks at the
//! DOM again and again until it shows what the test waits for.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};
use tungstenite::{Message, WebSocket, stream::MaybeTlsStream};

/// How long chromium may take to start, and one DevTools call to be answered.
const BOUND: Duration = Duration::from_secs(60);

/// A page open in a headless chromium.
pub struct LivePage {
    child: Child,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    /// The page's DevTools session, its target and the URL it opened.
    session: String,
    target: String,
    url: String,
    next_id: u64,
    _profile: tempfile::TempDir,
}

impl LivePage {
    /// Chromium (with `flags`) showing `url`.
    pub fn open(browser: &Path, flags: &[&str], url: &str) -> LivePage {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(browser)
            .args(super::browser::HEADLESS)
            .arg("--remote-debugging-port=0")
            .args(flags)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID" on stderr.
        let rx = super::stderr_lines(&mut child);
        let deadline = Instant::now() + BOUND;
        let endpoint = loop {
            let line = rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("chromium's DevTools address on stderr");
            if let Some(ws) = line.strip_prefix("DevTools listening on ") {
                break ws.trim().to_string();
            }
        };
        let (mut socket, _) = tungstenite::connect(endpoint).unwrap();
        if let MaybeTlsStream::Plain(s) = socket.get_mut() {
            s.set_read_timeout(Some(BOUND)).unwrap();
        }
        let mut page = LivePage {
            child,
            socket,
            session: String::new(),
            target: String::new(),
            url: url.to_string(),
            next_id: 0,
            _profile: profile,
        };
        page.attach();
        page
    }

    /// A new tab showing the URL, attached to.
    fn attach(&mut self) {
        let url = self.url.clone();
        let target = self.call(false, "Target.createTarget", json!({ "url": url }));
        self.target = target["targetId"].as_str().unwrap().to_string();
        let attached = self.call(
            false,
            "Target.attachToTarget",
            json!({ "targetId": self.target, "flatten": true }),
        );
        self.session = attached["sessionId"].as_str().unwrap().to_string();
    }

    /// The tab's renderer crashed (`Page.crash`: nothing more runs or is sent, no
    /// `beforeunload`), then the URL opened again in a new tab of the same browser, as a
    /// user opens it after the crash.
    pub fn crash_and_reopen(&mut self) {
        self.call(true, "Inspector.enable", json!({}));
        self.next_id += 1;
        let crash = json!({ "id": self.next_id, "method": "Page.crash", "params": {},
                            "sessionId": self.session });
        self.socket.send(Message::text(crash.to_string())).unwrap();
        // Crashed once chromium says so (Page.crash itself is not answered).
        let deadline = Instant::now() + BOUND;
        loop {
            assert!(Instant::now() < deadline, "the page did not crash");
            let message = self.socket.read().unwrap();
            let Ok(event) = serde_json::from_str::<Value>(message.to_text().unwrap_or("")) else {
                continue;
            };
            if event["method"] == "Inspector.targetCrashed"
                && event["sessionId"] == json!(self.session)
            {
                break;
            }
        }
        let target = self.target.clone();
        self.call(false, "Target.closeTarget", json!({ "targetId": target }));
        self.attach();
    }

    /// The page loaded again (as a user's F5), returned once the new document is complete.
    /// A call made while the old document goes away is answered "Inspected target navigated
    /// or closed" (seen under load): those answers are waited out here, never in a test.
    pub fn reload(&mut self) {
        self.eval("window.beforeReload = true");
        self.call(true, "Page.reload", json!({}));
        let deadline = Instant::now() + BOUND;
        loop {
            let state = self.try_call(
                true,
                "Runtime.evaluate",
                json!({ "expression": "!window.beforeReload && document.readyState === 'complete'",
                        "returnByValue": true }),
            );
            if matches!(state, Ok(ref v) if v["result"]["value"] == Value::Bool(true)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the page did not load again: {state:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Calls `method` (on the page when `on_page`, else on the browser): its result.
    fn call(&mut self, on_page: bool, method: &str, params: Value) -> Value {
        match self.try_call(on_page, method, params) {
            Ok(result) => result,
            Err(error) => panic!("{method}: {error}"),
        }
    }

    /// Calls `method`: its result, or the error DevTools answered.
    fn try_call(&mut self, on_page: bool, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if on_page {
            message["sessionId"] = json!(self.session);
        }
        self.socket
            .send(Message::text(message.to_string()))
            .unwrap();
        loop {
            let reply = self.socket.read().unwrap();
            let Ok(reply) = serde_json::from_str::<Value>(reply.to_text().unwrap_or("")) else {
                continue;
            };
            // Events (no id) and other replies are not this call's.
            if reply["id"] != json!(id) {
                continue;
            }
            if !reply["error"].is_null() {
                return Err(reply["error"].clone());
            }
            return Ok(reply["result"].clone());
        }
    }

    /// The page's DOM now.
    pub fn dom(&mut self) -> String {
        let result = self.call(
            true,
            "Runtime.evaluate",
            json!({ "expression": "document.documentElement.outerHTML", "returnByValue": true }),
        );
        result["result"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The page's DOM once `ready` holds for it, looked at every 200 ms for up to `bound` of
    /// real time (the last one looked at, if it never does: the test's asserts say what is
    /// missing).
    pub fn dom_until(&mut self, bound: Duration, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + bound;
        loop {
            let html = self.dom();
            if ready(&html) || Instant::now() > deadline {
                return html;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `expression` evaluated in the page (awaited when it is a promise): its value.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            true,
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            result["exceptionDetails"].is_null(),
            "{expression}: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// A left-button mouse event (`mousePressed`, `mouseMoved`, `mouseReleased`) at
    /// (`x`, `y`), CSS pixels from the page's top left.
    pub fn mouse(&mut self, kind: &str, x: f64, y: f64) {
        self.mouse_with(kind, x, y, 0);
    }

    /// [`LivePage::mouse`] with keys held (`modifiers` as [`LivePage::key`] numbers them).
    pub fn mouse_with(&mut self, kind: &str, x: f64, y: f64, modifiers: u32) {
        let pressed = kind != "mouseReleased";
        self.call(
            true,
            "Input.dispatchMouseEvent",
            json!({ "type": kind, "x": x, "y": y, "button": "left", "modifiers": modifiers,
                    "buttons": if pressed { 1 } else { 0 }, "clickCount": 1 }),
        );
    }

    /// A drag with the left button from `from` to `to`, in ten moves as a hand makes it.
    pub fn drag(&mut self, from: (f64, f64), to: (f64, f64)) {
        self.mouse("mouseMoved", from.0, from.1);
        self.mouse("mousePressed", from.0, from.1);
        for i in 1..=10 {
            let t = f64::from(i) / 10.0;
            let (x, y) = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
            self.mouse("mouseMoved", x, y);
        }
        self.mouse("mouseReleased", to.0, to.1);
    }

    /// A click of the left button at (`x`, `y`).
    pub fn click(&mut self, x: f64, y: f64) {
        self.click_with(x, y, 0);
    }

    /// A click with keys held (`modifiers`: 8 for Shift).
    pub fn click_with(&mut self, x: f64, y: f64, modifiers: u32) {
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.mouse_with(kind, x, y, modifiers);
        }
    }

    /// Key `key` (DOM `key`; `code` and the Windows key code as a keyboard gives them)
    /// pressed and released with `modifiers` (1 Alt, 2 Ctrl, 4 Meta, 8 Shift).
    pub fn key(&mut self, key: &str, code: &str, keycode: u32, modifiers: u32) {
        for kind in ["rawKeyDown", "keyUp"] {
            self.call(
                true,
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": code, "modifiers": modifiers,
                        "windowsVirtualKeyCode": keycode, "nativeVirtualKeyCode": keycode }),
            );
        }
    }

    /// `text` typed into the focused field.
    pub fn type_text(&mut self, text: &str) {
        self.call(true, "Input.insertText", json!({ "text": text }));
    }

    /// The page's DOM once it holds `text`, looked at for up to two minutes of real time;
    /// a failure saying so when it never does.
    pub fn shows(&mut self, text: &str) -> String {
        let html = self.dom_until(Duration::from_secs(120), |h| h.contains(text));
        assert!(
            html.contains(text),
            "the page never showed {text:?}: {html}"
        );
        html
    }

    /// The page laid out for a screen of `width` × `height` CSS pixels (a laptop's
    /// 1366×768, a desktop's 1920×1080).
    pub fn viewport(&mut self, width: u32, height: u32) {
        self.call(
            true,
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
    }

    /// A screenshot of the page, written to `file` (PNG).
    pub fn screenshot(&mut self, file: &Path) {
        let result = self.call(true, "Page.captureScreenshot", json!({ "format": "png" }));
        let png = base64::engine::general_purpose::STANDARD
            .decode(result["data"].as_str().unwrap())
            .unwrap();
        std::fs::write(file, png).unwrap();
    }
}

impl Drop for LivePage {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
