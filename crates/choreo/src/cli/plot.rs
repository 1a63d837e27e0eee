//! `choreo plot`: see a motion. Every joint's curve over time, one panel per joint group
//! (head, arms, hands, legs: the robot's chains, hands apart since they are opening
//! ratios), as PNG or SVG (by the output's extension).
//!
//! - From a behavior (anything `choreo run` takes): each motion timeline is one section of
//!   the one image, sections stacked in box order, each titled with its box path and fps;
//!   frames along x (seconds on the top axis), keys marked. Curves are sampled four times a
//!   frame, or twice per pixel column when that is fewer points. Under the curves of a
//!   timeline that moves a standing robot's legs (or makes it fall), its balance seen from
//!   above (`choreo check --body`'s judgement from StandInit): the support polygon, the
//!   paths of the centre of mass and the zero-moment point, and where it falls.
//! - From a trace (`--trace run.jsonl`): the `joints` events `choreo run --trace` records,
//!   each joint over behavior time, in one section.
//!
//! Text needs a font: one is read at run time (`CHOREO_PLOT_FONT`, else DejaVu Sans or the
//! first TrueType file under the system font folders). Without one the plot is drawn all
//! the same, with no text, and stderr says so.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use choreo_motion::Motion;
use choreo_robot::{Model, is_hand};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;

use crate::cli::error::{CliError, CliResult};
use crate::cli::motion::{Found, Pick, find};
use crate::exit;

/// `choreo plot`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct PlotArgs {
    /// A .xar, project folder, .pml, .crg, .pkg or split folder.
    #[arg(required_unless_present = "trace")]
    pub(crate) path: Option<PathBuf>,
    /// The behavior of a project to plot (by name); the first one by default.
    #[arg(long, conflicts_with = "trace")]
    pub(crate) behavior: Option<String>,
    /// One timeline box, by path as traces name it (`root/Tai Chi Chuan`; `root/` may be
    /// left out); every motion timeline by default.
    #[arg(long = "box", value_name = "BOXPATH", conflicts_with = "trace")]
    pub(crate) box_path: Option<String>,
    /// Plot the `joints` events of a trace written by `choreo run --trace` instead (what
    /// the simulated joints did, over behavior time).
    #[arg(long, value_name = "FILE", conflicts_with = "path")]
    pub(crate) trace: Option<PathBuf>,
    /// The image to write: FILE.png or FILE.svg.
    #[arg(short, long, value_name = "FILE")]
    pub(crate) output: PathBuf,
}

/// Plots what `args` asks for.
pub fn run(args: &PlotArgs) -> CliResult {
    let Some(format) = Format::of(&args.output) else {
        return Err(CliError::Usage(format!(
            "{}: the plot is written as PNG or SVG: name it .png or .svg",
            args.output.display()
        )));
    };
    let figure = match (&args.path, &args.trace) {
        (Some(path), None) => find(&Pick {
            path,
            behavior: args.behavior.as_deref(),
            box_path: args.box_path.as_deref(),
        })
        .map(|found| from_motion(&found)),
        (None, Some(trace)) => from_trace(trace),
        _ => {
            return Err(CliError::Usage(
                "plot a behavior (PATH) or a trace (--trace FILE), not both".to_string(),
            ));
        }
    };
    let figure = figure?;
    let text = font::register();
    if !text {
        errln!(
            "no font found (set CHOREO_PLOT_FONT to a .ttf file, or install fonts-dejavu): \
             the plot is drawn without text"
        );
    }
    match draw(&figure, format, &args.output, text) {
        Ok(()) => Ok(exit::OK),
        Err(e) => Err(CliError::Write(format!(
            "{}: cannot write the plot: {e}",
            args.output.display()
        ))),
    }
}

/// The image formats, told by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    Png,
    Svg,
}

impl Format {
    fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(Format::Png),
            "svg" => Some(Format::Svg),
            _ => None,
        }
    }
}

/// A whole image: a title over sections.
struct Figure {
    title: String,
    sections: Vec<Section>,
}

/// One timeline (or one run): a subtitle over one panel per joint group, and the balance.
struct Section {
    title: String,
    axis: Axis,
    /// The x range shown (frames or seconds).
    x: Range<f64>,
    panels: Vec<Panel>,
    balance: Option<BalanceView>,
}

/// A timeline's balance as choreo-body judges it (from StandInit, else the first posture
/// judged), seen from above, in centimetres: the robot faces up the page, its left is the
/// page's left (a point is (-y, x) of the start's ground frame).
struct BalanceView {
    /// The support polygons at the start and at the last step judged.
    polygon: Vec<(f64, f64)>,
    last_polygon: Vec<(f64, f64)>,
    /// The CoM's and the ZMP's paths, in runs (a gap where they are not known).
    com: Vec<Vec<(f64, f64)>>,
    zmp: Vec<Vec<(f64, f64)>>,
    /// Where the CoM was when the robot began to fall.
    fall: Option<(f64, f64)>,
    /// What was found, a line each (the postures first).
    notes: Vec<String>,
}

/// The balance view's height, pixels (its chart is square).
const BALANCE_HEIGHT: u32 = 420;

/// What x counts.
#[derive(Debug, Clone, Copy)]
enum Axis {
    /// Frames of a timeline at `fps` played from frame `start` (seconds on the top axis).
    Frames { fps: f64, start: f64 },
    /// Seconds of behavior time.
    Seconds,
}

/// One joint group.
struct Panel {
    name: &'static str,
    /// Opening ratios (0..1), not radians.
    hands: bool,
    series: Vec<Series>,
}

/// One joint: its curve, and its keys to mark.
struct Series {
    joint: String,
    points: Vec<(f64, f64)>,
    keys: Vec<(f64, f64)>,
}

/// Samples per frame along a timeline's curves (fewer on long ones: see [`frames`]).
const SAMPLES_PER_FRAME: f64 = 4.0;

/// The image's width and the parts of its height, in pixels.
const WIDTH: u32 = 1600;
const TITLE_HEIGHT: u32 = 50;
const SECTION_HEIGHT: u32 = 32;
const PANEL_HEIGHT: u32 = 240;
/// The joint names on the right of each panel.
const LEGEND_WIDTH: u32 = 170;
/// The plotting area's width, about (for the sampling step).
const PLOT_WIDTH: f64 = (WIDTH - LEGEND_WIDTH - 90) as f64;

/// The frames at which a curve from `x.start` to `x.end` is sampled: [`SAMPLES_PER_FRAME`]
/// a frame, or two per pixel column of the plot when that is fewer, both ends included.
fn frames(x: &Range<f64>) -> Vec<f64> {
    let span = x.end - x.start;
    let step = (1.0 / SAMPLES_PER_FRAME).max(span / (2.0 * PLOT_WIDTH));
    let n = (span / step).ceil().max(1.0) as usize;
    (0..=n)
        .map(|i| (x.start + i as f64 * step).min(x.end))
        .collect()
}

/// One section per motion timeline found.
fn from_motion(found: &Found) -> Figure {
    let sections = found
        .timelines
        .iter()
        .map(|t| {
            let m = &t.motion;
            let start = f64::from(m.start);
            let x = start..f64::from(m.end_frame()).max(start + 1.0);
            let at = frames(&x);
            let samples = m.samples(&at);
            let mut marks = key_marks(m, &x);
            let series = samples
                .into_iter()
                .map(|(joint, values)| Series {
                    joint: joint.to_string(),
                    points: at.iter().copied().zip(values).collect(),
                    keys: marks.remove(joint).unwrap_or_default(),
                })
                .collect();
            let seconds = (x.end - x.start) / f64::from(m.fps);
            Section {
                title: format!(
                    "{}   {} fps, frames {}–{} ({seconds:.1} s), {} joint{}",
                    t.path,
                    m.fps,
                    m.start,
                    m.end_frame(),
                    m.curves.len(),
                    if m.curves.len() == 1 { "" } else { "s" }
                ),
                axis: Axis::Frames {
                    fps: f64::from(m.fps),
                    start,
                },
                x,
                panels: panels(m.robot, series),
                balance: balance_of(m),
            }
        })
        .collect();
    Figure {
        title: format!("{}: motion", found.name),
        sections,
    }
}

/// `m`'s balance view, where balance is in question: the robot stands at its start (a
/// timeline that starts sitting or lying has none), and the timeline moves its legs or makes
/// it fall (a head's nod or an arm's wave shows its curves alone).
fn balance_of(m: &Motion) -> Option<BalanceView> {
    use choreo_body::check::{Finding, check};
    let report = check(m, "StandInit")?;
    let path = &report.path;
    let legs = choreo_body::stance::leg_joints(m.robot);
    let moves_legs = m.curves.iter().any(|c| {
        m.robot
            .joint_index(&c.actuator)
            .is_some_and(|i| legs.contains(&i))
    });
    let falls = report
        .findings
        .iter()
        .any(|f| matches!(f, Finding::Fall { .. }));
    if path.com.iter().all(Option::is_none) || !(moves_legs || falls) {
        return None;
    }
    let top = |p: &[f64; 2]| (-p[1] * 100.0, p[0] * 100.0);
    let runs = |points: &[Option<[f64; 2]>]| {
        let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for p in points {
            match (p, out.last_mut()) {
                (Some(p), Some(run)) => run.push(top(p)),
                (None, Some(run)) if !run.is_empty() => out.push(Vec::new()),
                _ => {}
            }
        }
        out.retain(|r| !r.is_empty());
        out
    };
    let (fps, start) = (f64::from(m.fps.max(1)), m.start);
    let mut notes = vec![format!("from {}", report.postures.join(", "))];
    let mut fall = None;
    let (mut late, mut contacts) = (0, 0);
    for finding in &report.findings {
        match finding {
            Finding::Fall { fall: f, .. } => {
                let k = path.times.partition_point(|t| *t < f.time - 1e-9);
                fall = path.com.get(k).copied().flatten().map(|p| top(&p));
                notes.push(finding.describe(fps, start));
            }
            Finding::Late { .. } => late += 1,
            Finding::Collision { .. } => contacts += 1,
            Finding::StaysDown { .. } => notes.push(finding.describe(fps, start)),
        }
    }
    let ends_down = path.com.last().is_some_and(Option::is_none);
    if fall.is_none() {
        notes.push(if ends_down {
            "ends on the floor without a fall (sitting, kneeling or on its hands)".to_string()
        } else {
            "stands throughout".to_string()
        });
    }
    notes.push(format!(
        "{late} key{} reached late, {contacts} arm contact{} with the body",
        if late == 1 { "" } else { "s" },
        if contacts == 1 { "" } else { "s" }
    ));
    Some(BalanceView {
        polygon: path.polygon.iter().map(top).collect(),
        last_polygon: path.last_polygon.iter().map(top).collect(),
        com: runs(&path.com),
        zmp: runs(&path.zmp),
        fall,
        notes,
    })
}

/// Each curve's keys within `x`, where the curve is (values clamped as played): the curves
/// sampled at every key frame of the range, each keeping its own.
fn key_marks<'m>(m: &'m Motion, x: &Range<f64>) -> BTreeMap<&'m str, Vec<(f64, f64)>> {
    let inside = |f: i32| (x.start..=x.end).contains(&f64::from(f));
    let mut frames: Vec<i32> = m
        .curves
        .iter()
        .flat_map(|c| c.keys().iter().map(|k| k.frame))
        .filter(|f| inside(*f))
        .collect();
    frames.sort_unstable();
    frames.dedup();
    let at: Vec<f64> = frames.iter().map(|f| f64::from(*f)).collect();
    m.samples(&at)
        .into_iter()
        .filter_map(|(joint, values)| {
            let curve = m.curves.iter().find(|c| c.actuator == joint)?;
            let own = |f: &i32| curve.keys().binary_search_by_key(f, |k| k.frame).is_ok();
            let marks = frames
                .iter()
                .zip(values)
                .filter(|(f, _)| own(f))
                .map(|(f, v)| (f64::from(*f), v))
                .collect();
            Some((joint, marks))
        })
        .collect()
}

/// A `joints` event's own fields.
#[derive(Deserialize)]
struct JointsLine {
    names: Vec<String>,
    values: Vec<f64>,
}

/// One section: each joint of the trace's `joints` events over behavior time.
fn from_trace(path: &Path) -> CliResult<Figure> {
    let joints_line = |v: &serde_json::Value| -> Result<JointsLine, String> {
        let j = JointsLine::deserialize(v).map_err(|e| e.to_string())?;
        if j.names.len() != j.values.len() {
            return Err("as many names as values are expected".to_string());
        }
        Ok(j)
    };
    let events = crate::cli::trace_file::events(path, |head, v| {
        if head.event == "joints" {
            joints_line(v).map(|_| ())
        } else {
            Ok(())
        }
    })?;
    let mut joints: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut samples = 0usize;
    for (head, event) in events.iter().filter(|(h, _)| h.event == "joints") {
        let Ok(j) = joints_line(event) else { continue };
        samples += 1;
        let t = head.time_ns as f64 / 1e9;
        for (name, value) in j.names.into_iter().zip(j.values) {
            let points = joints.entry(name).or_default();
            // Two timelines playing at once record the robot twice at one instant.
            match points.last_mut() {
                Some(last) if last.0 == t => last.1 = value,
                _ => points.push((t, value)),
            }
        }
    }
    if joints.is_empty() {
        return Err(CliError::Load(format!(
            "{}: no joints events (`choreo run --trace FILE` records them on the simulated \
             robot while a motion timeline plays)",
            path.display()
        )));
    }
    let times = joints.values().flatten().map(|p| p.0);
    let first = times.clone().fold(f64::INFINITY, f64::min);
    let last = times.fold(f64::NEG_INFINITY, f64::max);
    let model = Model::from_joints(joints.keys()).unwrap_or(Model::Nao);
    let series = joints
        .into_iter()
        .map(|(joint, points)| Series {
            joint,
            points,
            keys: Vec::new(),
        })
        .collect();
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(Figure {
        title: format!("{name}: the simulated joints during the run"),
        sections: vec![Section {
            title: format!("{samples} samples from {first:.2} s to {last:.2} s (behavior time)"),
            axis: Axis::Seconds,
            x: first..last.max(first + 1.0),
            panels: panels(model, series),
            balance: None,
        }],
    })
}

/// `series` in panels by joint group: head, arms, hands, legs (the robot's chains, hands
/// apart), each in the robot's "Body" order; joints of no chain last, as "Other". Empty
/// groups are left out.
fn panels(model: Model, series: Vec<Series>) -> Vec<Panel> {
    let group = |joint: &str| -> usize {
        let chain = model.chains().iter().find(|c| {
            let i = model.joint_index(joint);
            model
                .resolve(c)
                .unwrap_or_default()
                .iter()
                .any(|j| Some(*j) == i)
        });
        match chain {
            _ if is_hand(joint) => 2,
            Some(&"Head") => 0,
            Some(c) if c.ends_with("Arm") => 1,
            Some(_) => 3,
            None => 4,
        }
    };
    const NAMES: [&str; 5] = ["Head", "Arms", "Hands", "Legs", "Other"];
    let mut out: Vec<Panel> = NAMES
        .iter()
        .enumerate()
        .map(|(i, name)| Panel {
            name,
            hands: i == 2,
            series: Vec::new(),
        })
        .collect();
    for s in series {
        out[group(&s.joint)].series.push(s);
    }
    for p in &mut out {
        p.series
            .sort_by_key(|s| model.joint_index(&s.joint).unwrap_or(usize::MAX));
    }
    out.retain(|p| !p.series.is_empty());
    out
}

/// Distinct colours for the joints of one panel (up to 12 before they repeat).
const PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(64, 64, 64),
    RGBColor(0, 0, 139),
    RGBColor(139, 0, 0),
];

/// The font family text is drawn in (registered by [`font::register`]).
const FONT: &str = "sans-serif";

/// Writes `figure` to `output`; `text` false: no text at all (no font was found).
fn draw(figure: &Figure, format: Format, output: &Path, text: bool) -> Result<(), String> {
    let panels: u32 = figure.sections.iter().map(Section::height).sum();
    let size = (WIDTH, TITLE_HEIGHT + panels);
    match format {
        Format::Png => {
            let root = BitMapBackend::new(output, size).into_drawing_area();
            render(&root, figure, text).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())
        }
        Format::Svg => {
            let root = SVGBackend::new(output, size).into_drawing_area();
            render(&root, figure, text).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())
        }
    }
}

type Drawn<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn render<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: &Figure,
    text: bool,
) -> Drawn<DB> {
    root.fill(&WHITE)?;
    let (title, mut rest) = root.split_vertically(TITLE_HEIGHT);
    if text {
        let style = (FONT, 26)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        title.draw_text(
            &figure.title,
            &style,
            ((WIDTH / 2) as i32, (TITLE_HEIGHT / 2) as i32),
        )?;
    }
    for section in &figure.sections {
        let (area, below) = rest.split_vertically(section.height());
        rest = below;
        let (head, body) = area.split_vertically(SECTION_HEIGHT);
        if text {
            let style = (FONT, 18)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center));
            head.draw_text(&section.title, &style, (16, (SECTION_HEIGHT / 2) as i32))?;
        }
        let (curves, below) = body.split_vertically(PANEL_HEIGHT * section.panels.len() as u32);
        let areas = curves.split_evenly((section.panels.len(), 1));
        for (panel, area) in section.panels.iter().zip(&areas) {
            draw_panel(area, section, panel, text)?;
        }
        if let Some(view) = &section.balance {
            draw_balance(&below, view, text)?;
        }
    }
    Ok(())
}

impl Section {
    /// Its height in the image, pixels.
    fn height(&self) -> u32 {
        let balance = if self.balance.is_some() {
            BALANCE_HEIGHT
        } else {
            0
        };
        SECTION_HEIGHT + PANEL_HEIGHT * self.panels.len() as u32 + balance
    }
}

/// The balance seen from above: a square chart (one scale on both axes) of the polygons
/// and the paths, and on its right what they mean and what was found.
fn draw_balance<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    view: &BalanceView,
    text: bool,
) -> Drawn<DB> {
    let (chart_area, notes) = area.split_horizontally(BALANCE_HEIGHT + 60);
    let points = view
        .polygon
        .iter()
        .chain(&view.last_polygon)
        .chain(view.com.iter().flatten())
        .chain(view.zmp.iter().flatten());
    let (mut lo, mut hi) = (
        (f64::INFINITY, f64::INFINITY),
        (f64::NEG_INFINITY, f64::NEG_INFINITY),
    );
    for &(u, v) in points {
        lo = (lo.0.min(u), lo.1.min(v));
        hi = (hi.0.max(u), hi.1.max(v));
    }
    // Square, 2 cm around everything: a centimetre is as long across as along.
    let half = ((hi.0 - lo.0).max(hi.1 - lo.1) / 2.0 + 2.0).max(5.0);
    let centre = ((lo.0 + hi.0) / 2.0, (lo.1 + hi.1) / 2.0);
    let u = (centre.0 - half)..(centre.0 + half);
    let v = (centre.1 - half)..(centre.1 + half);
    let mut builder = ChartBuilder::on(&chart_area);
    builder.margin(8);
    if text {
        builder.x_label_area_size(34).y_label_area_size(50);
    }
    let mut chart = builder.build_cartesian_2d(u, v)?;
    let grid = RGBColor(225, 225, 225);
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(WHITE).bold_line_style(grid);
    if text {
        mesh.x_desc("to the right (cm)")
            .y_desc("ahead (cm)")
            .x_label_formatter(&|x| number(*x, 0))
            .y_label_formatter(&|y| number(*y, 0))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()?;
    } else {
        mesh.draw()?;
    }
    let closed = |p: &[(f64, f64)]| p.iter().chain(p.first()).copied().collect::<Vec<_>>();
    chart.draw_series(std::iter::once(Polygon::new(
        view.polygon.clone(),
        POLYGON.mix(0.35).filled(),
    )))?;
    chart.draw_series(std::iter::once(PathElement::new(
        closed(&view.polygon),
        POLYGON.stroke_width(2),
    )))?;
    let moved = view.last_polygon.len() != view.polygon.len()
        || view
            .last_polygon
            .iter()
            .zip(&view.polygon)
            .any(|(a, b)| (a.0 - b.0).hypot(a.1 - b.1) > 0.1);
    if moved {
        chart.draw_series(std::iter::once(PathElement::new(
            closed(&view.last_polygon),
            LAST_POLYGON.stroke_width(2),
        )))?;
    }
    for run in &view.zmp {
        chart.draw_series(LineSeries::new(run.iter().copied(), ZMP.stroke_width(1)))?;
    }
    for run in &view.com {
        chart.draw_series(LineSeries::new(run.iter().copied(), COM.stroke_width(2)))?;
    }
    if let Some(first) = view.com.first().and_then(|r| r.first()) {
        chart.draw_series(std::iter::once(Circle::new(*first, 5, COM.filled())))?;
    }
    if let Some(fall) = view.fall {
        chart.draw_series(std::iter::once(Cross::new(fall, 9, FALL.stroke_width(3))))?;
    }
    if text {
        let style = (FONT, 14)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let legend = [
            (COM, "centre of mass (a dot where it starts)"),
            (ZMP, "zero-moment point (cart-table model)"),
            (POLYGON, "support polygon at the start"),
            (LAST_POLYGON, "support polygon at the end"),
            (FALL, "where it begins to fall"),
        ];
        for (i, (colour, words)) in legend.iter().enumerate() {
            let row = 30 + 22 * i as i32;
            notes.draw(&Rectangle::new(
                [(8, row - 5), (22, row + 5)],
                colour.filled(),
            ))?;
            notes.draw_text(words, &style, (30, row))?;
        }
        for (i, line) in view.notes.iter().enumerate() {
            let row = 30 + 22 * (legend.len() as i32 + 1 + i as i32);
            notes.draw_text(line, &style, (8, row))?;
        }
    }
    Ok(())
}

/// The balance view's colours.
const COM: RGBColor = RGBColor(31, 119, 180);
const ZMP: RGBColor = RGBColor(255, 127, 14);
const POLYGON: RGBColor = RGBColor(120, 120, 120);
const LAST_POLYGON: RGBColor = RGBColor(44, 160, 44);
const FALL: RGBColor = RGBColor(214, 39, 40);

/// The y range of a panel: hands 0..1, joints their values' range, padded (at least 0.2 rad).
fn y_range(panel: &Panel) -> Range<f64> {
    if panel.hands {
        return -0.02..1.02;
    }
    let values = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().chain(&s.keys).map(|p| p.1));
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return -1.0..1.0;
    }
    let middle = (lo + hi) / 2.0;
    let half = ((hi - lo) / 2.0 * 1.08).max(0.1);
    (middle - half)..(middle + half)
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    section: &Section,
    panel: &Panel,
    text: bool,
) -> Drawn<DB> {
    let (plot, legend) = area.split_horizontally(WIDTH - LEGEND_WIDTH);
    let y = y_range(panel);
    let seconds = match section.axis {
        Axis::Frames { fps, start } => {
            (section.x.start - start) / fps..(section.x.end - start) / fps
        }
        Axis::Seconds => section.x.clone(),
    };
    let mut builder = ChartBuilder::on(&plot);
    builder.margin(6);
    if text {
        builder.x_label_area_size(34).y_label_area_size(78);
        if matches!(section.axis, Axis::Frames { .. }) {
            builder.top_x_label_area_size(30);
        }
    }
    let mut chart = builder
        .build_cartesian_2d(section.x.clone(), y.clone())?
        .set_secondary_coord(seconds, y);
    let unit = if panel.hands { "ratio" } else { "rad" };
    let x_desc = match section.axis {
        Axis::Frames { .. } => "frame",
        Axis::Seconds => "behavior time (s)",
    };
    let grid = RGBColor(225, 225, 225);
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(WHITE).bold_line_style(grid);
    if text {
        let x_label = |x: &f64| match section.axis {
            Axis::Frames { .. } => number(*x, 0),
            Axis::Seconds => number(*x, 1),
        };
        mesh.x_desc(x_desc)
            .y_desc(format!("{} ({unit})", panel.name))
            .x_label_formatter(&x_label)
            .y_label_formatter(&|v| number(*v, 2))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()?;
    } else {
        mesh.draw()?;
        // No axes without labels: a frame shows where the plot is.
        let (x, y) = (section.x.clone(), y_range(panel));
        chart.plotting_area().draw(&Rectangle::new(
            [(x.start, y.start), (x.end, y.end)],
            BLACK.stroke_width(1),
        ))?;
    }
    if text && matches!(section.axis, Axis::Frames { .. }) {
        chart
            .configure_secondary_axes()
            .x_desc("seconds")
            .x_label_formatter(&|s| number(*s, 1))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()?;
    }
    for (i, s) in panel.series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        chart.draw_series(LineSeries::new(
            s.points.iter().copied(),
            colour.stroke_width(2),
        ))?;
        chart.draw_series(s.keys.iter().map(|k| Circle::new(*k, 4, colour.filled())))?;
    }
    if text {
        let style = (FONT, 14)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (i, s) in panel.series.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let row = 24 + 19 * i as i32;
            legend.draw(&Rectangle::new(
                [(8, row - 5), (22, row + 5)],
                colour.filled(),
            ))?;
            legend.draw_text(&s.joint, &style, (30, row))?;
        }
    }
    Ok(())
}

/// `x` with `decimals` decimals, never `-0.00`.
fn number(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    match text.strip_prefix('-') {
        Some(digits) if digits.chars().all(|c| c == '0' || c == '.') => digits.to_string(),
        _ => text,
    }
}

/// The font text is drawn in, found at run time.
mod font {
    use std::path::{Path, PathBuf};

    use crate::cli::plot::{FONT, FontStyle};

    /// Where fonts are looked for when `CHOREO_PLOT_FONT` is not set.
    const FOLDERS: [&str; 2] = ["/usr/share/fonts", "/usr/local/share/fonts"];
    /// The font preferred among them.
    const PREFERRED: &str = "DejaVuSans.ttf";

    /// Finds a font and registers it as [`FONT`]: the file `CHOREO_PLOT_FONT` names (and no
    /// other: a test or a user can ask for none), else DejaVu Sans, else the first
    /// TrueType file under [`FOLDERS`]. False when none could be read. The font's bytes
    /// stay for the rest of the process (the font registry keeps them; read once).
    pub fn register() -> bool {
        let candidates = match std::env::var_os("CHOREO_PLOT_FONT") {
            Some(file) => vec![PathBuf::from(file)],
            None => {
                let mut found = Vec::new();
                for folder in FOLDERS {
                    collect(Path::new(folder), 4, &mut found);
                }
                found.sort_by_key(|p| (p.file_name().is_none_or(|n| n != PREFERRED), p.clone()));
                found
            }
        };
        candidates.iter().any(|file| {
            let Ok(bytes) = std::fs::read(file) else {
                return false;
            };
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font(FONT, FontStyle::Normal, bytes).is_ok()
        })
    }

    /// The `.ttf` files at most `depth` folders below `dir`.
    fn collect(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if depth > 0 {
                    collect(&path, depth - 1, out);
                }
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("ttf"))
            {
                out.push(path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_cover_the_range_four_a_frame_or_two_a_pixel() {
        let short = frames(&(1.0..11.0));
        assert_eq!(short.len(), 41);
        assert_eq!((short[0], short[40]), (1.0, 11.0));
        assert!((short[1] - 1.25).abs() < 1e-12);
        let long = frames(&(0.0..100_000.0));
        assert!(long.len() <= 2 * PLOT_WIDTH as usize + 2, "{}", long.len());
        assert_eq!(long.last(), Some(&100_000.0));
    }

    #[test]
    fn joints_are_grouped_by_chain_hands_apart() {
        let series = |names: &[&str]| {
            names
                .iter()
                .map(|n| Series {
                    joint: n.to_string(),
                    points: Vec::new(),
                    keys: Vec::new(),
                })
                .collect()
        };
        let nao = panels(
            Model::Nao,
            series(&[
                "RHand",
                "LKneePitch",
                "HeadPitch",
                "RShoulderPitch",
                "LShoulderPitch",
                "HeadYaw",
                "Nose",
            ]),
        );
        let got: Vec<(&str, Vec<&str>)> = nao
            .iter()
            .map(|p| (p.name, p.series.iter().map(|s| s.joint.as_str()).collect()))
            .collect();
        assert_eq!(
            got,
            [
                ("Head", vec!["HeadYaw", "HeadPitch"]),
                ("Arms", vec!["LShoulderPitch", "RShoulderPitch"]),
                ("Hands", vec!["RHand"]),
                ("Legs", vec!["LKneePitch"]),
                ("Other", vec!["Nose"]),
            ]
        );
        assert!(nao[2].hands && !nao[0].hands);
        let pepper = panels(Model::Pepper, series(&["HipPitch", "LHand"]));
        let names: Vec<&str> = pepper.iter().map(|p| p.name).collect();
        assert_eq!(names, ["Hands", "Legs"]);
    }

    #[test]
    fn labels_never_read_minus_zero() {
        assert_eq!(number(-0.001, 2), "0.00");
        assert_eq!(number(-0.0, 0), "0");
        assert_eq!(number(-0.5, 1), "-0.5");
        assert_eq!(number(12.0, 0), "12");
    }

    #[test]
    fn the_output_extension_decides_the_format() {
        assert_eq!(Format::of(Path::new("a.PNG")), Some(Format::Png));
        assert_eq!(Format::of(Path::new("dir/a.svg")), Some(Format::Svg));
        assert_eq!(Format::of(Path::new("a.jpg")), None);
        assert_eq!(Format::of(Path::new("png")), None);
    }
}
