//! The monitor's page in a real browser: Debian's `chromium`, headless, opens the page of a
//! running `choreo run --monitor` and the DOM it built is checked (the box lit, the
//! timeline's frame, the joints as the simulated robot had them, the outcome); screenshots
//! at two moments are kept in `target/monitor-screenshots/`. A stack's run shows its tree,
//! its time strip and the LEDs its behaviors lit. Without chromium: a NOTICE and
//! a skip, a failure under `CI=true` (`scripts/test` installs it).

use crate::support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::browser::{dom, look, read_png, screenshots};
use support::devtools::LivePage;
use support::served::Served;

/// The `class` attributes of the start tags that carry `attr="value"` (in `scope`: the part
/// of the DOM after `id="scope"`).
fn classes(html: &str, scope: &str, attr: &str, value: &str) -> Vec<String> {
    let part = html
        .split_once(&format!("id=\"{scope}\""))
        .map_or(html, |(_, rest)| rest);
    let needle = format!("{attr}=\"{value}\"");
    let mut out = Vec::new();
    let mut rest = part;
    while let Some(i) = rest.find(&needle) {
        let start = rest[..i].rfind('<').unwrap_or(0);
        let end = i + rest[i..].find('>').unwrap_or(0);
        let tag = &rest[start..end];
        let class = tag
            .split_once("class=\"")
            .and_then(|(_, c)| c.split_once('"'))
            .map_or(String::new(), |(c, _)| c.to_string());
        out.push(class);
        rest = &rest[i + needle.len()..];
    }
    out
}

/// The text inside the first element carrying `attr="value"`.
fn text_of(html: &str, attr: &str, value: &str) -> Option<String> {
    let needle = format!("{attr}=\"{value}\"");
    let i = html.find(&needle)?;
    let open_end = i + html[i..].find('>')? + 1;
    let close = open_end + html[open_end..].find('<')?;
    Some(html[open_end..close].trim().to_string())
}

/// The page's DOM once `ready` holds for it, looked at again and again for up to a minute
/// of real time (the last one looked at, if it never does: the test's asserts say what is
/// missing).
fn dom_until(browser: &Path, url: &str, ready: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let html = dom(browser, &[], 1500, url);
        if ready(&html) || Instant::now() > deadline {
            return html;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Whether a screenshot holds more than its background: many distinct colours.
fn not_blank(png: &Path) -> bool {
    let shot = read_png(png);
    let colours: std::collections::HashSet<[u8; 3]> = shot.rgb.iter().step_by(7).copied().collect();
    colours.len() > 50
}

#[test]
fn the_page_shows_the_dance_as_it_runs_and_when_it_ends() {
    let Some(browser) = choreo_testkit::chromium("the monitor's page in a browser") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("dance.jsonl");
    let shots = screenshots();
    // While a dance plays: a ten-minute one (real time), so that the page, opened once the
    // Dance box has started (a WebSocket page says when), finds it playing however loaded
    // the machine is.
    let long = Served::start(&[
        "run",
        "crates/choreo/tests/fixtures/long_dance.xar",
        "--monitor",
        "--monitor-keep",
        "0",
    ]);
    let mut page = long.page();
    // The run's batches come every few milliseconds (the frames move): a page that never
    // sees the box lit is a failure, not a wait.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(
            Instant::now() < deadline,
            "root/Dance never lit on the page"
        );
        let m = page.read().unwrap();
        let Ok(v) = serde_json::from_str::<serde_json::Value>(m.to_text().unwrap_or("")) else {
            continue;
        };
        let lit = |list: &serde_json::Value| {
            list.as_array()
                .is_some_and(|l| l.iter().any(|p| p == "root/Dance"))
        };
        if lit(&v["lit"]) || lit(&v["changes"]["lit"]) {
            break;
        }
    }
    // A live page, read in real time (support::devtools says why).
    let is_lit = |html: &str| {
        classes(html, "diagram", "data-path", "root/Dance")
            .iter()
            .any(|c| c.split_whitespace().any(|w| w == "lit"))
    };
    let mut live = LivePage::open(&browser, &[], &long.url);
    let during = live.dom_until(Duration::from_secs(60), |html| {
        is_lit(html)
            && text_of(html, "data-timeline", "root/Dance")
                .is_some_and(|f| f.parse::<i64>().is_ok_and(|f| f > 0))
    });
    live.screenshot(&shots.join("dance-playing.png"));
    drop(live);
    drop(long);
    // While it plays: the Dance box is lit in the diagram, the frame moves.
    assert!(
        is_lit(&during),
        "root/Dance not lit: {:?}",
        classes(&during, "diagram", "data-path", "root/Dance")
    );
    let frame: i64 = text_of(&during, "data-timeline", "root/Dance")
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..3000).contains(&frame), "frame {frame}");
    // The example dance (150 frames at 25 fps), to its end.
    let run = Served::start(&[
        "run",
        "examples/dance",
        "--trace",
        trace.to_str().unwrap(),
        "--monitor",
        "--monitor-keep",
        "120",
    ]);
    // After the end: the last frame, the joints as the simulated robot last had them.
    let deadline = Instant::now() + Duration::from_secs(60);
    let recorded: Vec<serde_json::Value> = loop {
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        if text.contains("\"what\":\"end\"") {
            break text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
        }
        assert!(Instant::now() < deadline, "the dance did not end");
        std::thread::sleep(Duration::from_millis(200));
    };
    let last = |event: &str| {
        recorded
            .iter()
            .rfind(|e| e["event"] == event && e["path"] == "root/Dance")
            .unwrap()
    };
    let (last_frame, last_joints) = (last("frame"), last("joints"));
    // Where each joint ended: the last value any `joints` event gave it (the frames', and
    // the robot sampled for the page).
    let mut ended = std::collections::HashMap::new();
    for e in recorded.iter().filter(|e| e["event"] == "joints") {
        let (names, values) = (
            e["names"].as_array().unwrap(),
            e["values"].as_array().unwrap(),
        );
        for (n, v) in names.iter().zip(values) {
            ended.insert(n.as_str().unwrap().to_string(), v.as_f64().unwrap());
        }
    }
    // The page shows the end once it has heard of it: looked at until then.
    let after = dom_until(&browser, &run.url, |html| {
        html.contains("data-outcome=\"finished\"")
    });
    look(
        &browser,
        &[],
        1500,
        &run.url,
        &shots.join("dance-ended.png"),
    );
    assert!(
        after.contains("data-outcome=\"finished\""),
        "no outcome shown"
    );
    assert_eq!(
        text_of(&after, "data-timeline", "root/Dance").unwrap(),
        last_frame["frame"].to_string()
    );
    for n in last_joints["names"].as_array().unwrap() {
        let n = n.as_str().unwrap();
        let shown = text_of(&after, "data-joint", n).unwrap();
        assert_eq!(shown, format!("{:.3}", ended[n]), "{n}");
    }
    for shot in ["dance-playing.png", "dance-ended.png"] {
        assert!(not_blank(&shots.join(shot)), "{shot} is blank");
    }
}

#[test]
fn the_page_shows_what_an_interactive_behavior_waits_in() {
    let Some(browser) = choreo_testkit::chromium("the monitor's page in a browser") else {
        return;
    };
    // Nobody touches the head: the behavior stays started, its Ask box done.
    let run = Served::start(&[
        "run",
        "examples/interactive",
        "--monitor",
        "--monitor-keep",
        "0",
    ]);
    let lit = |html: &str, path: &str| {
        classes(html, "outline", "data-path", path)
            .iter()
            .any(|c| c.split_whitespace().any(|w| w == "lit"))
    };
    // Looked at until Ask has spoken (its bubble shown) and is done: however slow the
    // machine, the behavior then stays as it is.
    let html = dom_until(&browser, &run.url, |html| {
        html.contains("Touch my head") && !lit(html, "root/Ask")
    });
    let lit = |path: &str| lit(&html, path);
    assert!(lit("root"), "root not lit");
    assert!(!lit("root/Ask"), "Ask still lit after it spoke");
    assert!(!lit("root/Answer"), "Answer lit without a touch");
    assert!(html.contains("Touch my head"), "the speech bubble");
}

/// `choreo explore --monitor`: after the exploration the page draws the behavior coloured
/// by coverage. The quiz's plain run (`--max-paths 1`) enters Quiz, never Sorry, and the
/// box says why in its title.
#[test]
fn an_exploration_colours_the_diagram_by_coverage() {
    let Some(browser) = choreo_testkit::chromium("the monitor's page in a browser") else {
        return;
    };
    let explored = Served::start(&[
        "explore",
        "crates/choreo/tests/fixtures/quiz.xar",
        "--max-paths",
        "1",
        "--monitor",
        "--monitor-keep",
        "60",
    ]);
    let has = |html: &str, path: &str, class: &str| {
        classes(html, "diagram", "data-path", path)
            .iter()
            .any(|c| c.split_whitespace().any(|w| w == class))
    };
    let html = dom_until(&browser, &explored.url, |html| {
        has(html, "root/Sorry", "uncovered")
    });
    assert!(has(&html, "root/Quiz", "covered"), "Quiz entered");
    assert!(!has(&html, "root/Quiz", "uncovered"));
    assert!(has(&html, "root/Sorry", "uncovered"), "Sorry never entered");
    assert!(
        html.contains("never entered: root/Quiz was entered; its output onWrong never fired"),
        "the cause in Sorry's title"
    );
}

#[test]
fn the_page_shows_a_stack_its_strip_and_the_leds() {
    let Some(browser) = choreo_testkit::chromium("the monitor's page in a browser") else {
        return;
    };
    // Virtual time: the run is over at once; the page shows its whole story.
    let run = Served::stack_example(&[]);
    run.line_with("stays up");
    let html = look(
        &browser,
        &[],
        1500,
        &run.url,
        &screenshots().join("stack-ended.png"),
    );
    // The tree: every behavior of the folder, from the base, once each.
    let tree = html
        .split_once("id=\"stack-tree\"")
        .and_then(|(_, rest)| rest.split_once("id=\"stack-now\""))
        .unwrap()
        .0;
    for b in ["Main", "Dance", "Hello", "WaitForTouch"] {
        let node = format!("data-behavior=\"{b}\"");
        assert_eq!(tree.matches(&node).count(), 1, "{b} in the tree");
    }
    assert_eq!(
        text_of(&html, "id", "stack-now").as_deref(),
        Some("stack: empty")
    );
    // The strip: the dance's activation, with its reason.
    let strip = html.split_once("id=\"stack-strip\"").unwrap().1;
    let dance = strip
        .split("<rect")
        .find(|r| r.contains("data-behavior=\"Dance\""))
        .expect("a segment for Dance");
    assert!(
        dance.contains("data-why=\"delegated by Main: chose Dance"),
        "{dance}"
    );
    // The dance lit the eyes green last, and stood the robot up.
    let led = classes(&html, "leds", "data-led", "LeftFaceLeds");
    assert_eq!(led.len(), 1, "the LeftFaceLeds swatch");
    assert!(html.contains("data-rgb=\"#00ff00\""), "green eyes");
    assert!(html.contains("posture: StandInit"), "the posture");
}

/// A short timeline's ruler: whole frames only (a frame is a timeline's unit), never a
/// sum of fractions printed as `1.5999999999999999`.
#[test]
fn a_short_timeline_s_ruler_counts_whole_frames() {
    let Some(browser) = choreo_testkit::chromium("the monitor's page in a browser") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("short.xar");
    let keys: &[(i32, f64)] = &[(1, 0.0), (3, 20.0)];
    std::fs::write(&file, support::cli::timeline_behavior(&[("HeadYaw", keys)])).unwrap();
    let run = Served::fast(file.to_str().unwrap());
    run.line_with("stays up");
    let html = look(
        &browser,
        &[],
        1500,
        &run.url,
        &screenshots().join("short-ruler.png"),
    );
    let ticks: Vec<&str> = html
        .split("class=\"tick\"")
        .skip(1)
        .filter_map(|t| t.split_once('>').and_then(|(_, rest)| rest.split_once('<')))
        .map(|(text, _)| text)
        .collect();
    assert!(ticks.len() >= 2, "no ruler: {html}");
    assert!(ticks.iter().all(|t| t.parse::<i64>().is_ok()), "{ticks:?}");
}

#[test]
fn the_page_draws_a_timelines_motion_curves_under_its_cursor() {
    let Some(browser) = choreo_testkit::chromium("the monitor's page in a browser") else {
        return;
    };
    // Over at once; its muted LKneePitch is not played.
    let run = Served::nod();
    run.line_with("stays up");
    let html = look(
        &browser,
        &[],
        1500,
        &run.url,
        &screenshots().join("nod-curves.png"),
    );
    for joint in ["HeadYaw", "HeadPitch"] {
        let curve = format!("class=\"curve\" data-joint=\"{joint}\"");
        assert!(html.contains(&curve), "no {joint} curve drawn");
    }
    let values = text_of(&html, "data-values", "root/Nod").unwrap();
    assert_eq!(
        values,
        "at frame 11: HeadYaw 1.571 · HeadPitch -0.349 · LHand 0.800"
    );
    assert!(
        !html.contains("class=\"curve\" data-joint=\"LKneePitch\""),
        "a muted curve drawn"
    );
}
