//! `choreo plot`, `choreo motion --csv`, and the `joints` events `choreo run --trace` records:
//! images of the right size with curves in them, one SVG polyline per joint, CSV values
//! computed by hand (`fixtures/nod.xar` says how), errors and exit codes, and a stock dance
//! run, traced and plotted.

use crate::support;

use std::path::Path;
use std::process::{Command, Stdio};

use choreo_naoqi::Model;
use support::cli::{choreo, stderr, stdout, timeline_behavior, workspace};

const NOD: &str = "crates/choreo/tests/fixtures/nod.xar";
const DANCE: &str = "examples/dance/behavior.xar";

/// The image's width and the parts of its height (plot.rs's layout).
const WIDTH: u32 = 1600;
const TITLE: u32 = 50;
const SECTION: u32 = 32;
const PANEL: u32 = 240;
const BALANCE: u32 = 420;

/// A decoded PNG: width, height, and how many pixels are not the white background, and
/// how many are coloured (curves, keys and legend marks: axes, grid and text are grey).
struct Png {
    width: u32,
    height: u32,
    painted: usize,
    coloured: usize,
}

fn read_png(path: &Path) -> Png {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let (mut painted, mut coloured) = (0, 0);
    for px in buf[..info.buffer_size()].chunks(channels) {
        let (r, g, b) = (i32::from(px[0]), i32::from(px[1]), i32::from(px[2]));
        if (r, g, b) != (255, 255, 255) {
            painted += 1;
        }
        if (r - g).abs().max((g - b).abs()).max((r - b).abs()) > 40 {
            coloured += 1;
        }
    }
    Png {
        width: info.width,
        height: info.height,
        painted,
        coloured,
    }
}

/// The SVG's polylines with more than two points (curves: axes and ticks have two), and its
/// circles (keys) and text elements.
fn svg_counts(path: &Path) -> (usize, usize, usize) {
    let svg = std::fs::read_to_string(path).unwrap();
    let curves = svg
        .split("<polyline")
        .skip(1)
        .filter(|p| {
            let points = p
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            points.split_whitespace().count() > 2
        })
        .count();
    (
        curves,
        svg.matches("<circle").count(),
        svg.matches("<text").count(),
    )
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn path(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).display().to_string()
}

#[test]
fn plot_writes_a_png_with_one_section_per_timeline_and_curves_in_it() {
    let dir = temp();
    let all = path(&dir, "nod.png");
    let o = choreo(&["plot", NOD, "-o", &all]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let png = read_png(Path::new(&all));
    // Nod: head and hands panels; Wave: arms.
    assert_eq!(png.width, WIDTH);
    assert_eq!(
        png.height,
        TITLE + (SECTION + 2 * PANEL) + (SECTION + PANEL)
    );
    let pixels = (png.width * png.height) as usize;
    assert!(
        png.painted > pixels / 50 && png.painted < pixels / 2,
        "{}",
        png.painted
    );
    // Four curves about 1,300 px long and 2 px wide: far more than the legend's marks.
    assert!(png.coloured > 6_000, "{}", png.coloured);

    let one = path(&dir, "wave.png");
    let o = choreo(&["plot", NOD, "--box", "root/Wave", "-o", &one]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let wave = read_png(Path::new(&one));
    assert_eq!((wave.width, wave.height), (WIDTH, TITLE + SECTION + PANEL));
    assert!(
        wave.coloured > 1_500 && wave.coloured < png.coloured,
        "{}",
        wave.coloured
    );
}

#[test]
fn an_svg_has_one_curve_per_joint_and_a_circle_per_key() {
    let dir = temp();
    let svg = path(&dir, "nod.svg");
    let o = choreo(&["plot", NOD, "-o", &svg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (curves, keys, texts) = svg_counts(Path::new(&svg));
    // HeadYaw, HeadPitch, LHand (the muted LKneePitch is not played), RShoulderPitch.
    assert_eq!(curves, 4);
    // Nod: 2 + 2 + 3 keys; Wave: 3.
    assert_eq!(keys, 10);
    assert!(texts > 20, "titles, axes and legends: {texts}");
    let o = choreo(&["plot", NOD, "--box", "Nod", "-o", &svg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(svg_counts(Path::new(&svg)).0, 3, "`root/` may be left out");
}

#[test]
fn without_a_font_the_plot_is_drawn_without_text() {
    let dir = temp();
    for name in ["nod.png", "nod.svg"] {
        let out = path(&dir, name);
        let o = Command::new(env!("CARGO_BIN_EXE_choreo"))
            .args(["plot", NOD, "-o", &out])
            .current_dir(workspace())
            .env("CHOREO_PLOT_FONT", "/no/such/font.ttf")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stderr(&o).contains("no font found"), "{}", stderr(&o));
        if name.ends_with(".png") {
            assert!(read_png(Path::new(&out)).coloured > 6_000);
        } else {
            let (curves, keys, texts) = svg_counts(Path::new(&out));
            assert_eq!((curves, keys, texts), (4, 10, 0));
        }
    }
}

/// `smoothstep(s) = 3s² − 2s³`: a segment between two flat handles a third long each.
fn smooth(s: f64) -> f64 {
    s * s * (3.0 - 2.0 * s)
}

fn csv_rows(text: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

#[test]
fn motion_csv_gives_the_values_computed_by_hand() {
    let o = choreo(&["motion", NOD, "--box", "root/Nod", "--csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (header, rows) = csv_rows(&stdout(&o));
    assert_eq!(header, ["frame", "time_s", "HeadYaw", "HeadPitch", "LHand"]);
    assert_eq!(rows.len(), 11, "frames 1 to 11");
    let degree = std::f64::consts::PI / 180.0;
    for (i, row) in rows.iter().enumerate() {
        let f = 1.0 + i as f64;
        let hand = if f <= 6.0 {
            0.2 + 0.6 * smooth((f - 1.0) / 5.0)
        } else {
            0.8
        };
        let want = [
            f,
            (f - 1.0) / 10.0,
            90.0 * degree * smooth((f - 1.0) / 10.0),
            -20.0 * degree * (f - 1.0) / 10.0,
            hand,
        ];
        for (got, want) in row.iter().zip(want) {
            assert!((got - want).abs() < 1e-9, "frame {f}: {row:?} != {want}");
        }
    }
    // Frame 6 is exactly halfway: 45° of yaw.
    assert!((rows[5][2] - std::f64::consts::FRAC_PI_4).abs() < 1e-12);

    // An explicit end past the last key: rows to the end, the last key's value held.
    let dir = temp();
    let file = path(&dir, "wave.csv");
    let o = choreo(&["motion", NOD, "--box", "Wave", "--csv", "-o", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    let (header, rows) = csv_rows(&std::fs::read_to_string(&file).unwrap());
    assert_eq!(header, ["frame", "time_s", "RShoulderPitch"]);
    assert_eq!(rows.len(), 50);
    assert_eq!(rows[49][..2], [50.0, 49.0 / 25.0]);
    for row in &rows[39..] {
        assert!((row[2] - 80.0 * degree).abs() < 1e-12, "{row:?}");
    }
    assert!(
        (rows[19][2] + 60.0 * degree).abs() < 1e-12,
        "the key at frame 20"
    );
}

#[test]
fn bad_inputs_boxes_and_outputs_have_clear_errors_and_exit_codes() {
    let dir = temp();
    let png = path(&dir, "x.png");
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["motion", NOD, "--csv"],
            2,
            "pick one with --box (root/Nod, root/Wave)",
        ),
        (
            &["motion", NOD, "--box", "root/Nope", "--csv"],
            2,
            "--box \"root/Nope\"",
        ),
        (
            &["plot", NOD, "--box", "Nope", "-o", &png],
            2,
            "there: root/Nod, root/Wave",
        ),
        (&["motion", NOD], 2, "--csv"),
        (&["plot", "no/such/file.xar", "-o", &png], 2, "no such file"),
        (&["motion", DANCE, "--csv"], 4, "no motion timeline"),
        (&["plot", DANCE, "-o", &png], 4, "no motion timeline"),
        (&["plot", NOD, "-o", "nod.jpg"], 2, "name it .png or .svg"),
        (
            &["plot", NOD, "--trace", "t.jsonl", "-o", &png],
            2,
            "cannot be used with",
        ),
        (&["plot", "-o", &png], 2, "required"),
        (
            &["plot", "x.qianim", "-o", &png],
            4,
            "x.qianim: No such file or directory",
        ),
    ];
    for (args, code, message) in cases {
        let o = choreo(args);
        assert_eq!(o.status.code(), Some(*code), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
    assert!(!Path::new(&png).exists(), "no image after an error");

    let bad = dir.path().join("bad.xar");
    std::fs::write(&bad, "<ChoregrapheProject><Box name='root'").unwrap();
    let o = choreo(&["plot", bad.to_str().unwrap(), "-o", &png]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));

    let nowhere = dir.path().join("no/such/dir/x.png");
    let o = choreo(&["plot", NOD, "-o", nowhere.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot write the plot"),
        "{}",
        stderr(&o)
    );

    let trace = dir.path().join("t.jsonl");
    std::fs::write(
        &trace,
        "{\"seq\":0,\"time_ns\":0,\"path\":\"\",\"event\":\"behavior\",\"what\":\"start\"}\n",
    )
    .unwrap();
    let o = choreo(&["plot", "--trace", trace.to_str().unwrap(), "-o", &png]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("no joints events"), "{}", stderr(&o));
    std::fs::write(&trace, "{\"event\":\"joints\"}\nnot json\n").unwrap();
    let o = choreo(&["plot", "--trace", trace.to_str().unwrap(), "-o", &png]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("t.jsonl:1: not a trace event"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_closed_stdout_ends_motion_csv_with_141() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["motion", NOD, "--box", "Wave", "--csv"])
        .current_dir(workspace())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(141), "{}", stderr(&o));
}

/// The `joints` events of a trace file: time (ns), box path, names, values.
type Joints = Vec<(u64, String, Vec<String>, Vec<f64>)>;

fn joints_events(file: &Path) -> Joints {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "joints")
        .map(|e| {
            let names: Vec<String> = serde_json::from_value(e["names"].clone()).unwrap();
            let values: Vec<f64> = serde_json::from_value(e["values"].clone()).unwrap();
            let time = e["time_ns"].as_u64().unwrap();
            (time, e["path"].as_str().unwrap().to_string(), names, values)
        })
        .collect()
}

/// Whether `names` are NAO joints, each once, in "Body" order.
fn in_body_order(names: &[String]) -> bool {
    let at: Option<Vec<usize>> = names.iter().map(|n| Model::Nao.joint_index(n)).collect();
    at.is_some_and(|at| at.windows(2).all(|w| w[0] < w[1]))
}

#[test]
fn a_run_records_the_joints_a_box_moves_from_when_they_move() {
    // The example's timeline has no motion curve; its boxes move the arms, then the head.
    let dir = temp();
    let trace = path(&dir, "dance.jsonl");
    let o = choreo(&["run", "--fast", "--quiet", "--trace", &trace, DANCE]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let events = joints_events(Path::new(&trace));
    assert!(!events.is_empty());
    let (first, last) = (&events[0], &events[events.len() - 1]);
    assert_eq!(first.1, "root/Dance");
    assert_eq!(
        first.2,
        ["LShoulderPitch", "RShoulderPitch"],
        "only what moved"
    );
    assert!(last.2.contains(&"HeadYaw".to_string()), "{:?}", last.2);
    for (time, _, names, values) in &events {
        assert!(in_body_order(names), "{names:?}");
        assert_eq!(names.len(), values.len());
        assert_eq!(
            (time - first.0) % 40_000_000,
            0,
            "frames' times at 25 fps: {time}"
        );
    }
    let lowest = events.iter().map(|e| e.3[0]).fold(f64::INFINITY, f64::min);
    assert!(
        (lowest + 1.2).abs() < 1e-6,
        "the arms went up to -1.2: {lowest}"
    );

    let png = path(&dir, "dance.png");
    let o = choreo(&["plot", "--trace", &trace, "-o", &png]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let image = read_png(Path::new(&png));
    // Head and arms panels.
    assert_eq!(
        (image.width, image.height),
        (WIDTH, TITLE + SECTION + 2 * PANEL)
    );
    assert!(image.coloured > 2_000, "{}", image.coloured);
}

#[test]
fn a_stock_dance_run_records_its_animated_joints_at_every_frame() {
    let Some(library) = choreo_testkit::library("choreo run --trace of Tai Chi Chuan") else {
        return;
    };
    let file = library.join("standard/Motions/Dances/Tai Chi Chuan/behavior.xar");
    let file = file.to_str().unwrap();
    let dir = temp();
    let trace = path(&dir, "taichi.jsonl");
    let o = choreo(&["run", "--fast", "--quiet", "--trace", &trace, file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let events = joints_events(Path::new(&trace));
    // 5 fps, frames 0 to the last key (250), one event each.
    assert_eq!(events.len(), 251);
    let o = choreo(&["motion", file, "--csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (header, rows) = csv_rows(&stdout(&o));
    assert_eq!(rows.len(), events.len());
    let animated = &header[2..];
    let start = events[0].0;
    // Each curve's second key frame, from the file.
    let model = choreo_robot::Model::Nao;
    let project = choreo_xar::source::load_path(Path::new(file)).unwrap();
    let second_key: std::collections::BTreeMap<&str, i32> =
        choreo_motion::motion::timelines(&project.behaviors[0].xar.root_box)
            .iter()
            .filter_map(|(_, t)| choreo_motion::Motion::from_timeline(t, model))
            .flat_map(|m| m.curves)
            .filter_map(|c| {
                Some((
                    animated_name(animated, &c.actuator)?,
                    c.keys().get(1)?.frame,
                ))
            })
            .collect();
    // A stock dance made on NAOqi by its makers: the simulated robot stands through it (no
    // fall in the trace), and its joints follow the curves to the end.
    let fell = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| {
            e["event"] == "log" && e["message"].as_str().is_some_and(|m| m.contains(" fell "))
        });
    assert!(fell.is_none(), "Tai Chi Chuan falls: {fell:?}");
    let mut compared = 0;
    for (k, (time, path, names, values)) in events.iter().enumerate() {
        assert_eq!(path, "root/Tai Chi Chuan");
        assert_eq!(*time, start + k as u64 * 200_000_000, "frame {k} at 5 fps");
        assert!(in_body_order(names), "{names:?}");
        assert!(
            animated.iter().all(|j| names.contains(j)),
            "every animated joint is recorded: {names:?}"
        );
        assert_eq!(names.len(), values.len());
        assert!(values.iter().all(|v| v.is_finite()));
        // What the simulated joints did equals the file's curves (`choreo motion --csv`, the
        // editor's view of each curve) from each curve's second key on: before it, the robot
        // comes from its posture (motion.md §6.4: the first key's handles are resolved
        // against it), which the editor's view does not know. The robot clamps NAO's head
        // pitch and ankle rolls by the yaw and pitches of the moment; the CSV by the widest
        // range.
        let frame = rows[k][0];
        for (column, joint) in animated.iter().enumerate() {
            let Some(from) = second_key.get(joint.as_str()) else {
                continue;
            };
            if frame < f64::from(*from) {
                continue;
            }
            let i = names.iter().position(|n| n == joint).unwrap();
            let j = model.joint_index(joint).unwrap();
            // The joint that bounds this one (head yaw, ankle pitch) as the robot had it.
            let by = model.coupled_to(j).map_or(0.0, |c| {
                let name = model.joints()[c].name;
                values[names.iter().position(|n| n == name).unwrap()]
            });
            let want = model.clamp(j, rows[k][column + 2], by);
            assert!(
                (values[i] - want).abs() < 1e-6,
                "{joint} at frame {frame}: the run {}, the file {want}",
                values[i]
            );
            compared += 1;
        }
    }
    // 25 curves from their second key to the last frame.
    assert!(compared > 3000, "{compared} values compared");

    let svg = path(&dir, "taichi.svg");
    let o = choreo(&["plot", "--trace", &trace, "-o", &svg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let recorded: std::collections::BTreeSet<&String> =
        events.iter().flat_map(|e| e.2.iter()).collect();
    assert_eq!(
        svg_counts(Path::new(&svg)).0,
        recorded.len(),
        "one curve per joint"
    );
}

#[test]
fn a_timeline_that_moves_the_legs_is_plotted_with_its_balance_from_above() {
    // Both ankles from StandInit's -20° to -60° over 4 s: choreo-body's tests/timelines.rs
    // derives by hand that the CoM passes the toes at 2.42 s, frame 61.5. To -35° it stands.
    let dir = temp();
    for (to, says) in [
        (-60.0, "falls forwards at 2.42 s (frame 62)"),
        (-35.0, "stands throughout"),
    ] {
        let xar = dir.path().join("lean.xar");
        let keys: &[(i32, f64)] = &[(1, -20.0), (101, to)];
        std::fs::write(
            &xar,
            timeline_behavior(&[("LAnklePitch", keys), ("RAnklePitch", keys)]),
        )
        .unwrap();
        let png = path(&dir, "lean.png");
        let o = choreo(&["plot", xar.to_str().unwrap(), "-o", &png]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let image = read_png(Path::new(&png));
        assert_eq!(image.height, TITLE + SECTION + PANEL + BALANCE);
        let svg = path(&dir, "lean.svg");
        let o = choreo(&["plot", xar.to_str().unwrap(), "-o", &svg]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = std::fs::read_to_string(&svg).unwrap();
        for words in [
            says,
            "centre of mass",
            "zero-moment point",
            "from StandInit",
        ] {
            assert!(text.contains(words), "{to}°: no {words:?}");
        }
        let (curves, _, _) = svg_counts(Path::new(&svg));
        assert!(
            curves >= 2 + 2,
            "two ankle curves, the CoM and the ZMP: {curves}"
        );
    }
}

#[test]
fn motion_csv_with_body_gives_the_centre_of_mass_and_the_fall_on_its_frame() {
    // The ankle lean of choreo-body's tests/timelines.rs: the CoM passes the toes at frame
    // 61.35 (derived there by hand). The soles reach 0.11 m ahead of the ankles
    // (control-walk.html's foot bounds), and the ground frame's origin lies between the
    // ankles, as FRAME_ROBOT does: the toes are at x = 0.11. NAO is symmetric: the CoM stays
    // on y = 0.
    let dir = temp();
    let xar = dir.path().join("lean.xar");
    let keys: &[(i32, f64)] = &[(1, -20.0), (101, -60.0)];
    std::fs::write(
        &xar,
        timeline_behavior(&[("LAnklePitch", keys), ("RAnklePitch", keys)]),
    )
    .unwrap();
    let o = choreo(&["motion", "--csv", "--body", xar.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("frame,time_s,LAnklePitch,RAnklePitch,com_x,com_y,zmp_x,zmp_y,body")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.splitn(9, ',').collect()).collect();
    assert_eq!(rows.len(), 101);
    let com_x = |frame: usize| rows[frame - 1][4].parse::<f64>().unwrap();
    assert!(
        com_x(61) < 0.11 && com_x(62) > 0.11,
        "{} {}",
        com_x(61),
        com_x(62)
    );
    for row in &rows[..62] {
        assert!(row[5].parse::<f64>().unwrap().abs() < 1e-9, "{row:?}");
    }
    assert!(
        rows[61][8].starts_with("\"falls forwards at 2.42 s (frame 62)"),
        "{:?}",
        rows[61]
    );
    assert!(rows.iter().filter(|r| !r[8].is_empty()).count() == 1);
    // After the fall, nothing is judged.
    assert_eq!(rows[70][4..8], ["", "", "", ""]);
}

/// `name` as the CSV header spells it (a `&str` that lives as long as the header).
fn animated_name<'h>(header: &'h [String], name: &str) -> Option<&'h str> {
    header.iter().find(|h| *h == name).map(String::as_str)
}

#[test]
fn a_qianim_export_plots_and_samples_as_its_behavior_does() {
    let dir = temp();
    // One timeline (nod.xar has two), with an explicit Bezier handle and a muted hand.
    let source = "crates/choreo/tests/fixtures/motion.xar";
    let anim = path(&dir, "motion.qianim");
    let o = choreo(&["convert", source, "--to", "qianim", &anim]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let png = path(&dir, "motion.png");
    let o = choreo(&["plot", &anim, "-o", &png]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
    // The same samples, frame for frame: the animation is the timeline's curves.
    let from_xar = choreo(&["motion", source, "--csv"]);
    let from_anim = choreo(&["motion", &anim, "--csv"]);
    assert_eq!(from_anim.status.code(), Some(0), "{}", stderr(&from_anim));
    let (h1, r1) = csv_rows(&stdout(&from_xar));
    let (h2, r2) = csv_rows(&stdout(&from_anim));
    assert_eq!(h1, h2);
    assert_eq!(r1.len(), r2.len());
    for (a, b) in r1.iter().zip(&r2) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-9, "{a:?} vs {b:?}");
        }
    }
}
