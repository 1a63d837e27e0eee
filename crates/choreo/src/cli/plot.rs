//! `choreo plot`: see a motion ([`crate::plot`]), written as PNG or SVG (by the output's
//! extension); without a font, stderr says the plot has no text.

use std::path::PathBuf;

use crate::cli::error::{CliError, CliResult};
use crate::cli::motion::{Pick, find};
use crate::exit;

use crate::plot::{Format, PlotError, draw, from_motion, from_trace};

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
        (None, Some(trace)) => from_trace(trace).map_err(|e| match e {
            PlotError::Trace(e) => CliError::from(e),
            e => CliError::Load(e.to_string()),
        }),
        _ => {
            return Err(CliError::Usage(
                "plot a behavior (PATH) or a trace (--trace FILE), not both".to_string(),
            ));
        }
    };
    let figure = figure?;
    let text = crate::plot::register_font();
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
