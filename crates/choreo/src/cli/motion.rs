//! `choreo motion`: the joint angles of a motion timeline, frame by frame, as CSV; and what
//! it shares with `choreo plot`: the motion timelines of any input, one picked with `--box`.

use std::path::{Path, PathBuf};

use crate::cli::error::{CliError, CliResult};
use crate::cli::input;
use crate::exit;
use crate::plot::{Found, NoMotion};

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

/// The motion timelines `pick` designates ([`crate::plot::timelines_of`]), the input's
/// diagnostics and the timelines' warnings (keys clamped, curves left out) on stderr. On
/// error, why: [`exit::USAGE`] for a missing path or a `--box` that names no timeline box,
/// [`exit::LOAD`] for an unreadable input or one without a playable motion timeline.
pub fn find(pick: &Pick<'_>) -> CliResult<Found> {
    let warn = &mut |w: String| errln!("warning: {w}");
    let is_qianim = pick
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("qianim"));
    let found = if is_qianim {
        crate::plot::qianim(pick.path, warn)
    } else {
        let project = input::load(pick.path, false)?;
        let behavior = input::pick_behavior(&project, pick.path, pick.behavior)?;
        let manifest = crate::implied::manifest_model(&project);
        crate::plot::timelines_of(pick.path, &project, behavior, manifest, pick.box_path, warn)
    };
    found.map_err(|e| match e {
        NoMotion::NoSuchBox(m) => CliError::Usage(m),
        NoMotion::Unreadable(m) => CliError::Load(m),
    })
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
