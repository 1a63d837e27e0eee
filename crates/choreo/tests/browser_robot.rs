//! The monitor's 3D robot view in a real browser: Debian's `chromium`, headless, with
//! WebGL through SwiftShader, opens the page of a running `choreo run --monitor` of the
//! dance; the view draws the NAO (and a Pepper, through a monitor that requires a token) of
//! the `robot` message and poses it as the joints change. A screenshot while it dances is
//! kept in `target/monitor-screenshots/` (the page, and the view alone), and the view must
//! not be blank: the robot's light shell, standing, inside the box the view reports. Without WebGL the view says so and the page works on. Without
//! chromium, or a chromium without WebGL: a NOTICE and a skip, a failure under `CI=true`
//! (`scripts/test` installs it).

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use support::browser::{SWIFTSHADER, Shot, dom, look, read_png, screenshots};
use support::served::Served;

/// The view's background (robot3d.js's clear colour).
const BACKGROUND: [u8; 3] = [0x14, 0x18, 0x1f];

fn attributes(html: &str, id: &str) -> Vec<(String, String)> {
    let Some(i) = html.find(&format!("id=\"{id}\"")) else {
        return Vec::new();
    };
    let start = html[..i].rfind('<').unwrap_or(0);
    let end = i + html[i..].find('>').unwrap_or(0);
    let mut out = Vec::new();
    let mut rest = &html[start..end];
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq]
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("")
            .to_string();
        let after = &rest[eq + 2..];
        let close = after.find('"').unwrap_or(after.len());
        out.push((name, after[..close].to_string()));
        rest = &after[(close + 1).min(after.len())..];
    }
    out
}

fn attribute(html: &str, id: &str, name: &str) -> Option<String> {
    attributes(html, id)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
}

/// The view's canvas in page pixels, from its `data-box` (`x,y,width,height`).
fn view_box(html: &str) -> Option<[u32; 4]> {
    let text = attribute(html, "robot3d", "data-box")?;
    let numbers: Vec<u32> = text
        .split(',')
        .map(|n| {
            n.trim()
                .parse::<f64>()
                .ok()
                .map(|v| v.max(0.0).round() as u32)
        })
        .collect::<Option<_>>()?;
    <[u32; 4]>::try_from(numbers).ok()
}

impl Shot {
    /// The part of the shot inside `[x, y, w, h]`.
    fn crop(&self, [x, y, w, h]: [u32; 4]) -> Shot {
        let w = w.min(self.width.saturating_sub(x));
        let h = h.min(self.height.saturating_sub(y));
        let mut rgb = Vec::with_capacity((w * h) as usize);
        for row in y..y + h {
            let from = (row * self.width + x) as usize;
            rgb.extend_from_slice(&self.rgb[from..from + w as usize]);
        }
        Shot {
            width: w,
            height: h,
            rgb,
        }
    }

    /// Where the view's canvas is in the shot, near `hint` (its `data-box`): the page's
    /// layout moves once, when the run ends (the report's bar, the last words), and the DOM
    /// and the screenshot of one page are not taken at the same instant. The canvas's top
    /// row is all background (sky), the row above it is not (the view's border): the first
    /// such row nearest the hint, at the hint's x and width; the hint when none is.
    fn locate(&self, hint: [u32; 4]) -> [u32; 4] {
        let [x, y, w, h] = hint;
        let sky = |row: u32, from: u32, to: u32| {
            (from..to.min(self.width)).all(|col| {
                let [r, g, b] = self.rgb[(row * self.width + col) as usize];
                r.abs_diff(BACKGROUND[0]) <= 4
                    && g.abs_diff(BACKGROUND[1]) <= 4
                    && b.abs_diff(BACKGROUND[2]) <= 4
            })
        };
        let top = |row: u32| {
            row > 0 && row + h <= self.height && sky(row, x, x + w) && !sky(row - 1, x, x + w)
        };
        (0..=80)
            .flat_map(|d| [y.checked_sub(d), y.checked_add(d)])
            .flatten()
            .find(|&row| top(row))
            .map_or(hint, |row| [x, row, w, h])
    }

    fn save(&self, file: &Path) {
        let out = std::io::BufWriter::new(std::fs::File::create(file).unwrap());
        let mut encoder = png::Encoder::new(out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let bytes: Vec<u8> = self.rgb.iter().flatten().copied().collect();
        encoder
            .write_header()
            .unwrap()
            .write_image_data(&bytes)
            .unwrap();
    }

    /// The pixels of the robot's shell: light grey to white (the view's background, floor
    /// grid and joints are all dark). Their count, and the rows from the first to the last.
    fn shell(&self) -> (usize, u32) {
        let (mut count, mut top, mut bottom) = (0, u32::MAX, 0);
        for (i, [r, g, b]) in self.rgb.iter().enumerate() {
            if *r > 140 && *g > 140 && *b > 140 {
                count += 1;
                let row = i as u32 / self.width.max(1);
                top = top.min(row);
                bottom = bottom.max(row);
            }
        }
        (count, bottom.saturating_sub(top))
    }
}

/// Whether the 3D view was drawn. A browser without WebGL even through SwiftShader: the
/// view says so, nothing to look at (a NOTICE and false; a failure under CI=true, as for a
/// missing chromium).
fn drawn(html: &str) -> bool {
    let state = attribute(html, "robot3d", "data-state");
    if state.as_deref() == Some("no-webgl") {
        assert!(html.contains("No 3D view"), "no note in the view");
        let why = "chromium has no WebGL here, even through SwiftShader";
        let _: Option<()> =
            choreo_testkit::absent("the 3D view's pixel check", why, choreo_testkit::under_ci());
        return false;
    }
    assert_eq!(state.as_deref(), Some("drawn"), "{html}");
    true
}

/// Opens the page of `run` (the dance, started half a second ago) once its scripts have
/// had 1.5 s, and checks its 3D view: `model` drawn and posed, not blank. The page and the
/// view alone are kept as `NAME.png` and `NAME-view.png`.
fn check_view(browser: &Path, run: &Served, model: &str, name: &str) {
    let shots = screenshots();
    let page = shots.join(format!("{name}.png"));
    // The joints reached it: the neutral pose, then the dance's. Real time: looked at until
    // then (however slow a busy machine makes the run), a minute at most.
    let poses_of = |html: &str| -> u32 {
        attribute(html, "robot3d", "data-poses")
            .and_then(|p| p.parse().ok())
            .unwrap_or(0)
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let html = loop {
        let html = look(browser, SWIFTSHADER, 1500, &run.url, &page);
        if !drawn(&html) {
            return;
        }
        if poses_of(&html) >= 2 || std::time::Instant::now() > deadline {
            break html;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(
        attribute(&html, "robot3d", "data-model").as_deref(),
        Some(model)
    );
    let poses = poses_of(&html);
    assert!(poses >= 2, "the view was posed {poses} time(s)");
    let hint = view_box(&html).expect("the view's data-box");
    let shot = read_png(&page);
    let area = shot.locate(hint);
    let [_, _, width, height] = area;
    assert!(width > 150 && height > 150, "a small view: {area:?}");
    let view = shot.crop(area);
    view.save(&shots.join(format!("{name}-view.png")));
    // Not blank: a light robot covering part of the view, and standing (tall).
    let (shell, tall) = view.shell();
    let share = shell as f64 / (width * height) as f64;
    assert!(
        share > 0.015,
        "{model}: only {shell} light pixels ({:.1} %) in the view at {area:?}",
        share * 100.0
    );
    assert!(
        tall > height * 2 / 5,
        "{model}: the light pixels span {tall} of {height} rows: no standing robot"
    );
}

#[test]
fn the_robot_view_draws_the_nao_as_it_dances() {
    let Some(browser) = choreo_testkit::chromium("the monitor's 3D view in a browser") else {
        return;
    };
    // Real time: the dance plays its 150 frames at 25 fps, from about 0.2 s.
    let run = Served::start(&["run", "examples/dance", "--monitor", "--monitor-keep", "60"]);
    check_view(&browser, &run, "nao", "robot3d-dance");
}

#[test]
fn pepper_is_drawn_too_by_a_monitor_that_requires_a_token() {
    let Some(browser) = choreo_testkit::chromium("the monitor's 3D view in a browser") else {
        return;
    };
    // Any address but loopback: three.js's files need the token too (the import map).
    let run = Served::start(&[
        "run",
        "examples/dance",
        "--robot-model",
        "pepper",
        "--monitor",
        "0.0.0.0:0",
        "--monitor-keep",
        "60",
    ]);
    assert!(run.url.contains("?token="), "{}", run.url);
    check_view(&browser, &run, "pepper", "robot3d-pepper");
}

#[test]
fn without_webgl_the_view_says_so_and_the_page_works_on() {
    let Some(browser) = choreo_testkit::chromium("the monitor's 3D view in a browser") else {
        return;
    };
    let run = Served::start(&["run", "examples/dance", "--monitor", "--monitor-keep", "60"]);
    // Real time: the page is looked at until it lists the joints and shows the diagram
    // (however slow a busy machine makes the run), a minute at most.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let html = loop {
        let html = dom(&browser, &["--disable-3d-apis"], 1500, &run.url);
        let ready = html.contains("data-joint=\"LShoulderPitch\"")
            && html.contains("data-path=\"root/Dance\"");
        if ready || std::time::Instant::now() > deadline {
            break html;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(
        attribute(&html, "robot3d", "data-state").as_deref(),
        Some("no-webgl"),
        "{html}"
    );
    assert!(html.contains("No 3D view: this browser has no WebGL"));
    // The rest of the page: the joints listed, the Dance box shown.
    assert!(html.contains("data-joint=\"LShoulderPitch\""), "no joints");
    assert!(html.contains("data-path=\"root/Dance\""), "no diagram");
}

/// The view's lights once `run`'s monitor stays up after the end: its `data-leds`, with the
/// page's DOM and its screenshot (`NAME.png`); `None` without WebGL (see [`drawn`]).
fn lights(browser: &Path, run: &Served, name: &str) -> Option<(String, String, PathBuf)> {
    run.line_with("stays up");
    let page = screenshots().join(format!("{name}.png"));
    let html = look(browser, SWIFTSHADER, 1500, &run.url, &page);
    if !drawn(&html) {
        return None;
    }
    let leds = attribute(&html, "robot3d", "data-leds").expect("the view's data-leds");
    Some((leds, html, page))
}

#[test]
fn the_eyes_show_the_colour_the_leds_were_given() {
    let Some(browser) = choreo_testkit::chromium("the monitor's 3D view in a browser") else {
        return;
    };
    // The stack's dance fades the face LEDs blue, then green (virtual time: over at once).
    let run = Served::stack_example(&[]);
    let Some((leds, _, _)) = lights(&browser, &run, "robot3d-leds") else {
        return;
    };
    // Each light the view draws, in the colour it reached: the eyes green; the rest as the
    // robot starts (NAO's ears blue, its chest white, its head and feet off).
    assert_eq!(
        leds,
        "LeftFaceLeds=#00ff00 RightFaceLeds=#00ff00 LeftEarLeds=#0000ff \
         RightEarLeds=#0000ff ChestLeds=#ffffff BrainLeds=#000000 LeftFootLeds=#000000 \
         RightFootLeds=#000000",
        "{leds}"
    );
}

#[test]
fn nao_s_ears_feet_and_head_light_up_in_the_view() {
    let Some(browser) = choreo_testkit::chromium("the monitor's 3D view in a browser") else {
        return;
    };
    // The box turns the left ear off, the left foot red, the right foot green and the head
    // on (`ALLeds.off`, `fadeRGB`, `on`), then the run ends and the monitor stays up.
    let run = Served::fast("crates/choreo/tests/fixtures/leds.xar");
    let Some((leds, html, page)) = lights(&browser, &run, "robot3d-leds-nao") else {
        return;
    };
    // The reference (NAO H21/H25 LEDs, NAOqi 2.1): the feet are full-colour RGB, the ears
    // and the head's twelve LEDs 16-step blue; the eyes and the chest start white.
    assert_eq!(
        leds,
        "LeftFaceLeds=#ffffff RightFaceLeds=#ffffff LeftEarLeds=#000000 \
         RightEarLeds=#0000ff ChestLeds=#ffffff BrainLeds=#0000ff LeftFootLeds=#ff0000 \
         RightFootLeds=#00ff00",
        "{leds}"
    );
    // And they are drawn: the view holds red and green pixels (the feet; nothing else in a
    // standing NAO's view is either: the balance marks' green is paler).
    let shot = read_png(&page);
    let view = shot.crop(shot.locate(view_box(&html).expect("the view's data-box")));
    view.save(&screenshots().join("robot3d-leds-nao-view.png"));
    let count = |f: &dyn Fn([u8; 3]) -> bool| view.rgb.iter().filter(|&&p| f(p)).count();
    let red = count(&|[r, g, b]| r > 150 && g < 60 && b < 60);
    let green = count(&|[r, g, b]| g > 150 && r < 60 && b < 60);
    assert!(
        red > 4 && green > 4,
        "red {red}, green {green} pixels: the feet not lit"
    );
}

#[test]
fn the_robot_view_marks_the_balance_and_turns_red_when_the_robot_falls() {
    let Some(browser) = choreo_testkit::chromium("the monitor's 3D view in a browser") else {
        return;
    };
    // Both ankles from StandInit's -20° to -60° over 4 s: the robot falls forwards at 2.42 s
    // (choreo-body's tests/timelines.rs derives it by hand). Real time: the page is looked
    // at until the view says so.
    let dir = tempfile::tempdir().unwrap();
    let lean = dir.path().join("lean.xar");
    let keys: &[(i32, f64)] = &[(1, -20.0), (101, -60.0)];
    std::fs::write(
        &lean,
        support::cli::timeline_behavior(&[("LAnklePitch", keys), ("RAnklePitch", keys)]),
    )
    .unwrap();
    let run = Served::start(&[
        "run",
        lean.to_str().unwrap(),
        "--monitor",
        "--monitor-keep",
        "60",
    ]);
    let shot = screenshots().join("robot3d-fall.png");
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    let html = loop {
        let html = look(&browser, SWIFTSHADER, 1500, &run.url, &shot);
        let fell = attribute(&html, "robot3d", "data-balance").as_deref() == Some("fell");
        let webgl = attribute(&html, "robot3d", "data-state").as_deref() != Some("no-webgl");
        if fell || !webgl || std::time::Instant::now() > deadline {
            break html;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    // The pane says it in the run's words (in real time, on a loaded machine, the order
    // leaves later than its frame: the fall's time and frame are not fixed here).
    assert!(
        html.contains("NAO fell forwards at ") && html.contains("while root/Lean played frame"),
        "no fall in the robot pane"
    );
    if !drawn(&html) {
        return;
    }
    assert_eq!(
        attribute(&html, "robot3d", "data-balance").as_deref(),
        Some("fell")
    );
    // Fallen forwards, it lies on its belly.
    assert_eq!(
        attribute(&html, "robot3d", "data-lying").as_deref(),
        Some("belly")
    );
    let corners: usize = attribute(&html, "robot3d", "data-polygon")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(corners >= 3, "a support polygon of {corners} corners");
    // The marks are drawn in the fall's red (robot3d.js's COLOURS.fell, #e5484d).
    let view = read_png(&shot).crop(read_png(&shot).locate(view_box(&html).unwrap()));
    view.save(&screenshots().join("robot3d-fall-view.png"));
    let red = view
        .rgb
        .iter()
        .filter(|[r, g, b]| r.abs_diff(0xe5) < 40 && g.abs_diff(0x48) < 40 && b.abs_diff(0x4d) < 40)
        .count();
    assert!(red > 20, "only {red} red pixels in the view");
}
