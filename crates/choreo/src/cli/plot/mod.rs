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

mod balance;
mod draw;
mod figure;
mod font;

use std::path::PathBuf;

use crate::cli::error::{CliError, CliResult};
use crate::cli::motion::{Pick, find};
use crate::exit;

use draw::{Format, draw};
use figure::{from_motion, from_trace};

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
