//! The editor page's frame time while a box is dragged, on a diagram of 500 boxes (the
//! goal: 60 frames a second, 16.7 ms a frame), beside the same drag on a diagram of 5 boxes
//! (the anchor: what the page costs when the diagram costs nothing).
//!
//! Each diagram is a generated behavior (a grid of boxes, each linked to the next), opened
//! with `choreo edit` in Debian's chromium, headless. In the page, box 1 is pressed, then the
//! mouse moves once per animation frame for 240 frames, and the box follows (its links
//! redrawn); per frame: the time the move's handling takes, with the style and layout it
//! forces (`handler`), and the time between frames (`frame`). Medians and 95th percentiles;
//! once with chromium's own raster (no WebGL), once with WebGL drawn on the CPU
//! (SwiftShader, as the browser tests run it).
//!
//! `cargo bench -p choreo --bench editor_frames`; under `cargo test --benches` 30 frames.
//! Without chromium: a NOTICE, nothing measured.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The tests' helpers: chromium over DevTools, `choreo edit` served (the rest is unused here).
#[allow(dead_code, unused_imports)]
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Duration;

use choreo_testkit::generated::{NEXT, behavior, push_box, push_link};
use support::browser::SWIFTSHADER;
use support::devtools::LivePage;
use support::served::Served;

/// A behavior of `n` boxes on a grid (20 a row), each one's `next` linked to the following
/// box's onStart.
fn grid(n: i64) -> String {
    let mut d = String::new();
    for i in 1..=n {
        let (x, y) = (((i - 1) % 20) * 180, ((i - 1) / 20) * 110);
        push_box(&mut d, "hop", i, NEXT, None);
        d = d.replacen(
            &format!(r#"<Box name="hop" id="{i}">"#),
            &format!(r#"<Box name="hop" id="{i}" x="{x}" y="{y}">"#),
            1,
        );
    }
    push_link(&mut d, 0, 2, 1, 2);
    for i in 1..n {
        push_link(&mut d, i, 5, i + 1, 2);
    }
    behavior(&d)
}

/// The drag, in the page: per frame, [handler ms, frame ms].
const DRAG: &str = r#"(async (frames) => {
  const el = document.querySelector("g.box[data-box='1'] .box-bg");
  const r = el.getBoundingClientRect();
  const x0 = r.x + r.width / 2, y0 = r.y + 8;
  const opts = (x, y) => ({ clientX: x, clientY: y, bubbles: true, button: 0 });
  el.dispatchEvent(new MouseEvent("mousedown", opts(x0, y0)));
  const out = [];
  let last = await new Promise(requestAnimationFrame);
  for (let i = 1; i <= frames; i++) {
    const t = performance.now();
    window.dispatchEvent(new MouseEvent("mousemove", opts(x0 + (i % 120) * 2, y0 + (i % 60))));
    document.getElementById("diagram-svg").getBoundingClientRect(); // style and layout now
    const handled = performance.now() - t;
    const now = await new Promise(requestAnimationFrame);
    out.push([handled, now - last]);
    last = now;
  }
  window.dispatchEvent(new MouseEvent("mouseup", opts(x0, y0)));
  return out;
})"#;

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn measure(
    browser: &std::path::Path,
    flags: &[&str],
    boxes: i64,
    frames: u32,
) -> (Vec<f64>, Vec<f64>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("behavior.xar");
    std::fs::write(&file, grid(boxes)).unwrap();
    let served = Served::start(&["edit", file.to_str().unwrap()]);
    let mut page = LivePage::open(browser, flags, &served.url);
    page.shows(&format!("data-path=\"root/hop[{boxes}]\""));
    page.shows("id=\"undo\"");
    // Let the 3D view and the first drawing settle.
    std::thread::sleep(Duration::from_secs(2));
    let got = page.eval(&format!("{DRAG}({frames})"));
    let rows = got.as_array().unwrap();
    let column = |i: usize| {
        rows.iter()
            .map(|r| r[i].as_f64().unwrap())
            .collect::<Vec<_>>()
    };
    (column(0), column(1))
}

fn main() {
    let Some(browser) = choreo_testkit::chromium("the editor's frame time") else {
        return;
    };
    let full = std::env::args().any(|a| a == "--bench");
    println!("editor drag: medians (p95), ms");
    // Chromium's own raster (no WebGL: the 3D view is left out), then WebGL drawn by
    // SwiftShader on the CPU (the 3D view there), as the browser tests run it.
    let frames = if full { 240 } else { 30 };
    for (flags, label) in [(&[][..], "no WebGL"), (SWIFTSHADER, "WebGL on the CPU")] {
        for boxes in [5, 500] {
            let (handler, frame) = measure(&browser, flags, boxes, frames);
            println!(
                "{label}, {boxes} boxes, {frames} frames: handler {:.2} ({:.2}), frame {:.2} ({:.2})",
                percentile(handler.clone(), 0.5),
                percentile(handler, 0.95),
                percentile(frame.clone(), 0.5),
                percentile(frame, 0.95),
            );
        }
    }
}
