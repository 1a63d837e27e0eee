//! Debian's chromium, headless, driven from the tests: a page's DOM and screenshots after
//! some (virtual) time, and screenshots decoded.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::cli::workspace;

/// How long (real time) one chromium run may take before it counts as hung: its virtual
/// time budget is a few seconds, a run takes seconds, minutes on a machine under load.
const CHROMIUM_BOUND: Duration = Duration::from_secs(180);

/// Chromium headless, as every test runs it: one window size and scale, so that
/// screenshots compare.
pub const HEADLESS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--no-first-run",
    "--window-size=1280,800",
    "--force-device-scale-factor=1",
    "--hide-scrollbars",
];

/// Chromium's command line for `url`, its page given `budget_ms` of (virtual) time, WebGL
/// drawn by SwiftShader (a CPU renderer: no GPU needed). A chromium that has not ended
/// after [`CHROMIUM_BOUND`] is killed and the test fails, saying so.
pub fn chromium(
    browser: &Path,
    budget_ms: u32,
    flags: &[&str],
    what: &[&str],
    url: &str,
) -> std::process::Output {
    let profile = tempfile::tempdir().unwrap();
    // Its output goes to files, so that nothing has to read pipes while it is watched.
    let (out, err) = (profile.path().join("stdout"), profile.path().join("stderr"));
    let mut child = Command::new(browser)
        .args(HEADLESS)
        .args(flags)
        .arg(format!(
            "--user-data-dir={}",
            profile.path().join("data").display()
        ))
        .arg(format!("--virtual-time-budget={budget_ms}"))
        .args(what)
        .arg(url)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + CHROMIUM_BOUND;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not end within {} s on {url}: {}",
                CHROMIUM_BOUND.as_secs(),
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    std::process::Output {
        status,
        stdout: std::fs::read(&out).unwrap(),
        stderr: std::fs::read(&err).unwrap(),
    }
}

/// WebGL on the CPU.
pub const SWIFTSHADER: &[&str] = &["--use-angle=swiftshader", "--enable-unsafe-swiftshader"];

/// The page's DOM after `budget_ms`.
pub fn dom(browser: &Path, flags: &[&str], budget_ms: u32, url: &str) -> String {
    let o = chromium(browser, budget_ms, flags, &["--dump-dom"], url);
    let html = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        html.contains("<html"),
        "no DOM: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    html
}

/// The page's DOM and a screenshot of it (to `file`) after `budget_ms`: one page, so that
/// the DOM's boxes are where the screenshot shows them.
pub fn look(browser: &Path, flags: &[&str], budget_ms: u32, url: &str, file: &Path) -> String {
    let _ = std::fs::remove_file(file);
    let arg = format!("--screenshot={}", file.display());
    let o = chromium(browser, budget_ms, flags, &["--dump-dom", &arg], url);
    let html = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        html.contains("<html") && file.is_file(),
        "no DOM or no screenshot: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    html
}

/// Where the screenshots of the tests are kept.
pub fn screenshots() -> PathBuf {
    let dir = workspace().join("target/monitor-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A decoded screenshot: width, height, RGB pixels.
pub struct Shot {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixels, row by row.
    pub rgb: Vec<[u8; 3]>,
}

pub fn read_png(file: &Path) -> Shot {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(file).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    assert!(step >= 3, "a screenshot in {:?}", info.color_type);
    let rgb = buf[..info.buffer_size()]
        .chunks(step)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    Shot {
        width: info.width,
        height: info.height,
        rgb,
    }
}
