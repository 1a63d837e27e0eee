//! `choreo motion`: the joint angles of a motion timeline, frame by frame, as CSV; and what
//! it shares with `choreo plot`: the motion timelines of any input, one picked with `--box`.

use std::path::{Path, PathBuf};

use choreo_motion::Motion;
use choreo_motion::motion::{made_for, timelines};
use choreo_robot::Model;

use crate::cli::error::{CliError, CliResult};
use crate::cli::report;
use crate::exit;
use crate::plot::{Found, Located};

/// `choreo motion`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct MotionArgs {
    /// A .xar, project folder, .pml, .crg, .pkg or split folder.
    pub(crate) path: PathBuf,
    /// The behavior of a project (by name); the first one by default.
    #[arg(long)]
    pub(crate) behavior: Option<String>,
    /// The timeline box, by path (`root/Tai Chi Chuan`; `root/` may be left out); needed
    /// when the behavior has several motion timelines.
    #[arg(long = "box", value_name = "BOXPATH")]
    pub(crate) box_path: Option<String>,
    /// CSV (the one format for now): `frame,time_s,<joint>...`, one row per frame from the
    /// start frame to the end frame (the last key frame without one), joints in radians
    /// (hands: opening ratio), in the robot's joint order.
    #[arg(long, required = true)]
    pub(crate) csv: bool,
    /// Add the body's balance, as `choreo check --body` judges it from StandInit:
    /// `com_x,com_y,zmp_x,zmp_y` (m, on the floor, in the ground frame of the start: x
    /// ahead, y to the left of the middle of the feet; empty where not known) and `body`
    /// (what is found at that frame: a fall, a key reached late, an arm meeting the body).
    #[arg(long)]
    pub(crate) body: bool,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

/// Where to look: an input, one of its behaviors, one timeline box.
pub struct Pick<'a> {
    /// Anything `choreo run` accepts, or a `.qianim` file.
    pub path: &'a Path,
    /// The behavior of a project (by name); the first one by default.
    pub behavior: Option<&'a str>,
    /// One timeline box by path (`root/` may be left out); every one by default.
    pub box_path: Option<&'a str>,
}

/// The motion timelines `pick` designates, with the curves played on the robot the package
/// asks for (its manifest), else the one each timeline's joints or `model` hint name, else
/// NAO. Their warnings (keys clamped, curves left out) go to stderr. On error, why:
/// [`exit::USAGE`] for a missing path or a `--box` that names no timeline
/// box, [`exit::LOAD`] for an unreadable input or one without a playable motion timeline.
pub fn find(pick: &Pick<'_>) -> CliResult<Found> {
    let is_qianim = pick
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("qianim"));
    if is_qianim {
        return qianim(pick.path);
    }
    let project = report::load(pick.path, false)?;
    let behavior = report::pick_behavior(&project, pick.path, pick.behavior)?;
    let manifest = report::manifest_model(&project);
    let root = behavior.xar.root_box.name.as_str();
    let all = timelines(&behavior.xar.root_box);
    let wanted = |path: &str| match pick.box_path {
        None => true,
        Some(b) => {
            path == b || path.strip_prefix(root).and_then(|p| p.strip_prefix('/')) == Some(b)
        }
    };
    let mut found = Vec::new();
    let mut matched = false;
    for (path, timeline) in all.iter().filter(|(p, _)| wanted(p)) {
        matched = true;
        let robot = manifest
            .or_else(|| timeline.actuator_list.as_ref().and_then(made_for))
            .unwrap_or(Model::Nao);
        let Some(motion) = Motion::from_timeline(timeline, robot) else {
            continue;
        };
        for (joint, warning) in &motion.warnings {
            errln!("warning: {path}: {joint}: {warning}");
        }
        found.push(Located {
            path: path.clone(),
            motion,
        });
    }
    let name = display_name(pick.path, &project, &behavior.path);
    if let (Some(b), false) = (pick.box_path, matched) {
        let paths: Vec<&str> = all.iter().map(|(p, _)| p.as_str()).collect();
        return Err(CliError::Usage(format!(
            "{name}: --box {b:?}: no timeline box with curves at that path (there: {})",
            if paths.is_empty() {
                "none".to_string()
            } else {
                paths.join(", ")
            }
        )));
    }
    if found.is_empty() {
        return Err(CliError::Load(format!(
            "{name}: no motion timeline to show{} (a timeline box with an fps and keyed, \
             unmuted curves of the robot's joints)",
            pick.box_path
                .map_or(String::new(), |b| format!(" at {b:?}"))
        )));
    }
    Ok(Found {
        name,
        timelines: found,
    })
}

/// A `.qianim` file (one animation, no behavior around it) as one timeline, named after the
/// file: its tracks' curves, frames as in a XAR (`.qianim` frame 0 is frame 1), on the robot
/// its joints name (NAO when they do not tell). An unreadable file, tracks at different frame
/// rates or no playable curve: [`exit::LOAD`].
fn qianim(path: &Path) -> CliResult<Found> {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let bytes =
        std::fs::read(path).map_err(|e| CliError::Load(format!("{}: {e}", path.display())))?;
    let animation = choreo_motion::qianim::read(&path.display().to_string(), &bytes)
        .map_err(|e| CliError::Load(e.to_string()))?;
    let Some(fps) = animation.fps() else {
        return Err(CliError::Load(format!(
            "{}: its tracks have different frame rates (one timeline has one)",
            path.display()
        )));
    };
    let curves: Vec<choreo_motion::Curve> = animation.curves().cloned().collect();
    let robot =
        Model::from_joints(curves.iter().map(|c| c.actuator.as_str())).unwrap_or(Model::Nao);
    let Some(motion) = Motion::from_curves(curves, fps, 1, -1, robot) else {
        return Err(CliError::Load(format!(
            "{}: no motion to show (no unmuted, keyed curve of the robot's joints)",
            path.display()
        )));
    };
    for (joint, warning) in &motion.warnings {
        errln!("warning: {name}: {joint}: {warning}");
    }
    Ok(Found {
        name: name.clone(),
        timelines: vec![Located { path: name, motion }],
    })
}

/// How titles name the input: its folder and file name (`Tai Chi Chuan/behavior.xar`), and
/// the behavior's file when the input holds several.
fn display_name(path: &Path, project: &choreo_xar::source::Project, behavior: &str) -> String {
    let last: Vec<String> = path
        .components()
        .rev()
        .take(2)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let name = last.into_iter().rev().collect::<Vec<_>>().join("/");
    if project.behaviors.len() > 1 {
        format!("{name}!{behavior}")
    } else {
        name
    }
}

/// `choreo motion --csv`: the one timeline `pick` designates (`--box` is needed when the
/// behavior has several), one row per frame from its start frame to its end frame (the last
/// key frame without one), to `output` or stdout.
pub fn run(args: &MotionArgs) -> CliResult {
    let pick = Pick {
        path: &args.path,
        behavior: args.behavior.as_deref(),
        box_path: args.box_path.as_deref(),
    };
    let output = args.output.as_deref();
    let found = find(&pick)?;
    let [one] = found.timelines.as_slice() else {
        let paths: Vec<&str> = found.timelines.iter().map(|t| t.path.as_str()).collect();
        return Err(CliError::Usage(format!(
            "{}: {} motion timelines: pick one with --box ({})",
            found.name,
            paths.len(),
            paths.join(", ")
        )));
    };
    let mut text = crate::motion_csv::csv(&one.motion);
    if args.body {
        text = crate::motion_csv::with_body(&one.motion, &text);
    }
    match output {
        None => {
            out!("{text}");
            Ok(exit::OK)
        }
        Some(file) => match std::fs::write(file, text) {
            Ok(()) => Ok(exit::OK),
            Err(e) => Err(CliError::Write(format!(
                "{}: cannot write: {e}",
                file.display()
            ))),
        },
    }
}
