//! The `choreo` command: run, check, inspect, convert, package, compare and plot Choregraphe
//! behaviors. It lives in the library so that every program that embeds choreo can offer it
//! whole: the `choreo` binary (`main.rs`) and the Python package's `choreo` command call
//! [`main`].
//!
//! The command line is thin: argument parsing, progress and human output. The work is done
//! by the API ([`crate::Run`]) and the libraries (`choreo-xar`, `choreo-engine`,
//! `choreo-python`, `choreo-naoqi`).

#[macro_use]
mod output;
mod args;
mod chat;
mod check;
mod convert;
mod diff;
mod edit;
mod error;
mod explore;
mod export;
mod help;
mod input;
mod inspect;
mod motion;
mod new;
mod package;
mod plot;
mod replay;
mod robot;
mod run;
mod sim;
mod stack;
mod stack_run;

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::exit;
use error::CliResult;

/// choreo: an open runtime for Choregraphe (NAO / Pepper) behaviors.
#[derive(Parser)]
#[command(
    name = "choreo",
    version,
    about = ABOUT,
    after_help = help::CHOREO,
    max_term_width = 80
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What `choreo --help` opens with.
const ABOUT: &str = "\
Run Choregraphe behaviors (NAO, Pepper) on a simulated robot that obeys physics,
in real or virtual time, or on real robots; check, convert, package, diff and
plot them; talk to QiChat topics; serve editors.";

#[derive(Subcommand)]
enum Command {
    /// Run a behavior on the simulated robot or real ones.
    ///
    /// Loads the behavior, starts it and waits for its root's onStopped. Python box scripts
    /// run in the embedded CPython. Ctrl-C stops it cleanly (every box unloaded).
    #[command(after_help = help::RUN)]
    Run(run::RunArgs),
    /// Try every answer, touch and event a behavior waits for.
    ///
    /// Runs the behavior in virtual time from its start once per path; prints box and
    /// dialog coverage and every fault found (an error, a refusal, a fall) with the
    /// shortest inputs that reach it. `--out DIR` writes each fault's scenario, which
    /// `choreo run --events` replays (docs/explore.md).
    #[command(after_help = help::EXPLORE)]
    Explore(explore::ExploreArgs),
    /// Ask a robot what it serves, call a method, install a package.
    ///
    /// The robot: a real one, `choreo sim`, any qi server. `info`, `services`, `methods
    /// SERVICE`, `call SERVICE.METHOD [JSON ARGS...]`, `watch KEY...`, `behaviors`,
    /// `install PKG`.
    #[command(subcommand, after_help = help::ROBOT)]
    Robot(robot::RobotCommand),
    /// Serve the simulated robot over qi messaging.
    ///
    /// Any qi client (the `qi` Python package, old NAOqi scripts, `choreo run --robot`)
    /// can drive it; its calls are printed.
    #[command(after_help = help::SIM)]
    Sim(sim::SimArgs),
    /// Serve editors over the Language Server Protocol (stdin/stdout).
    ///
    /// Check's diagnostics as you type, definitions, references, renames, completion,
    /// hover, outlines, topic formatting, "Try this rule" (docs/editors.md).
    Lsp,
    /// Edit a behavior in the browser: diagrams, scripts, timelines.
    ///
    /// Serves the monitor's page made editable and prints its URL. Each edit is written
    /// to the file when it is made, changing only what it touches; undo and redo; a file
    /// changed on disk by another program is never written over. Ctrl-C quits.
    /// docs/editor.md.
    #[command(after_help = help::EDIT)]
    Edit(edit::EditArgs),
    /// Make a behavior, project or box library as Choregraphe does.
    ///
    /// Writes over nothing. `--edit` opens it in `choreo edit` at once. docs/editor.md.
    #[command(after_help = help::NEW)]
    New(new::NewArgs),
    /// Check files and folders of every Choregraphe format.
    #[command(after_help = help::CHECK)]
    Check(check::CheckArgs),
    /// Show a behavior's box tree: ports, parameters, links, timelines.
    #[command(after_help = help::INSPECT)]
    Inspect(inspect::InspectArgs),
    /// Convert to a readable folder and back, or to .qianim.
    ///
    /// Behaviors and projects alike.
    ///
    /// `choreo convert behavior.xar out/` writes the split folder; `choreo convert out/
    /// behavior.xar` writes XAR back. A project (.pml folder, .crg, .cbl, .pkg) becomes a
    /// readable folder holding everything (each behavior split, every other file as it is,
    /// `choreo-project.toml` saying what it was); `choreo convert out/ x.crg` (or x.pkg,
    /// x.cbl, `folder/x.pml`, a folder name) makes it back: any container from any.
    ///
    /// `choreo convert behavior.xar --to qianim OUT` writes every motion timeline (a box
    /// whose timeline has fps > 0 and unmuted keyed curves) as a .qianim v2 animation, the
    /// format NAOqi 2.9 and QiSDK apps play: OUT is that file when it ends in .qianim and
    /// there is exactly one timeline; otherwise OUT is a folder with one file per timeline,
    /// named after its box path (`root_Tai_Chi_Chuan.qianim`). Frames shift by one (XAR frame
    /// 1 is frame 0); joints are written in degrees, hands dimensionless; constant segments
    /// become a hold and a one-frame ramp, with a warning.
    #[command(after_help = help::CONVERT)]
    Convert(convert::ConvertArgs),
    /// Write a Python program that runs a behavior.
    ///
    /// With the choreo package (`pip install choreo`): `python main.py` on the simulated
    /// robot, `python main.py IP [PORT]` on a real one. The program finds the behavior by
    /// its path relative to the program's folder.
    #[command(name = "export-python", after_help = help::EXPORT)]
    ExportPython(export::ExportArgs),
    /// Replay a recorded run (`run --trace`) in the monitor.
    ///
    /// `choreo run --trace TRACE` recorded it, BEHAVIOR is what ran (or `choreo stack run
    /// --trace TRACE` and BEHAVIOR is the stack's folder). The page plays, pauses, seeks
    /// and steps event by event (docs/monitor.md); it starts paused at the beginning.
    /// Ctrl-C quits.
    #[command(after_help = help::REPLAY)]
    Replay(replay::ReplayArgs),
    /// Build the .pkg NAOqi's PackageManager installs, from a project.
    ///
    /// As qibuild's qipkg builds it: manifest.xml at the top, then every file the .pml lists
    /// (behaviors, dialogs, resources, topics), plus the .pml itself; a listed file that is
    /// missing is an error. The manifest gets qipkg's checks (uuid, version, robot and NAOqi
    /// requirements, trigger sentences, names, descriptions) and choreo's (every behavior and
    /// topic it installs is in the package). Errors are shown at their file and line; with
    /// any, nothing is written (exit 1). PROJECT is a .pml project folder (or its readable
    /// folder, a .crg, an unpacked package). Install it with `choreo robot install`.
    #[command(after_help = help::PACKAGE)]
    Package(package::PackageArgs),
    /// Plot the joint curves of motion timelines or of a run.
    ///
    /// Every joint's curve of a behavior's motion timelines (keys marked), or the joints a
    /// run moved (`--trace`), one panel per joint group.
    /// Every motion timeline of the behavior is one section of the image (boxes in order),
    /// unless `--box` picks one. Joints in radians, hands as opening ratios (0..1); x in
    /// frames with seconds on top (a trace: behavior time). Text needs a font, read at run
    /// time: CHOREO_PLOT_FONT, else DejaVu Sans or any .ttf under /usr/share/fonts; without
    /// one the plot has no text.
    #[command(after_help = help::PLOT)]
    Plot(plot::PlotArgs),
    /// Print the joint angles of one motion timeline, frame by frame.
    #[command(after_help = help::MOTION)]
    Motion(motion::MotionArgs),
    /// Talk with QiChat topics or a behavior's Dialog boxes.
    ///
    /// Each line read is what the human says (`e:Key` raises an event); the robot's answer
    /// is printed with the rule that gave it (docs/qichat.md).
    #[command(after_help = help::CHAT)]
    Chat(chat::ChatArgs),
    /// Check and run behavior stacks (JSON, docs/behavior-stack.md).
    #[command(subcommand, after_help = help::STACK)]
    Stack(stack::StackCommand),
    /// Compare two behaviors semantically.
    ///
    /// File layout, order and spelling never count.
    #[command(after_help = help::DIFF)]
    Diff(diff::DiffArgs),
    /// The diff driver for git: `choreo diff` for .xar files.
    ///
    /// Set up with `*.xar diff=choreo` in `.gitattributes` and
    /// `git config diff.choreo.command "choreo git-diff"`; git gives the seven arguments
    /// (path, old file, old hash, old mode, new file, new hash, new mode). Exits 0 (git takes
    /// any other code as a failure of the driver).
    #[command(name = "git-diff")]
    GitDiff(diff::GitDiffArgs),
}

/// Runs the `choreo` command with `args` (the program's name first, as `std::env::args_os`
/// gives them) and returns its exit code ([`exit`]). `--help` and `--version` print and
/// return 0; bad arguments print clap's message and return [`exit::USAGE`].
pub fn main(args: impl IntoIterator<Item = OsString>) -> u8 {
    let args: Vec<OsString> = args.into_iter().collect();
    let mut command = Cli::command();
    // Only `--version` starts the embedded Python (to name its version).
    if args.iter().any(|a| a == "--version") {
        command = command.long_version(long_version());
    }
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // A closed stream cannot be written to: the exit code still says what happened.
            let _ = e.print();
            return if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
        }
    };
    // Every command's failure is told here, once (as ripgrep's main does).
    let code = match dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            e.print();
            e.code()
        }
    };
    args::sandbox::done(code);
    code
}

/// What `choreo --version` says: the version and commit, the NAOqi versions it speaks,
/// the Python box code runs in.
fn long_version() -> String {
    let commit = option_env!("CHOREO_COMMIT").filter(|c| !c.is_empty());
    let naoqi: Vec<&str> = choreo_robot::naoqi::Version::ALL
        .iter()
        .map(|v| v.name())
        .collect();
    format!(
        "{} (commit {})\nNAOqi: {} (qi messaging; TLS for 2.9)\nPython: {} (box code)",
        env!("CARGO_PKG_VERSION"),
        commit.unwrap_or("unknown"),
        naoqi.join(", "),
        choreo_python::packages::python_version()
    )
}

/// Hands the command to its file.
fn dispatch(command: Command) -> CliResult {
    match command {
        Command::Run(args) => run::run(&args),
        Command::Explore(args) => explore::run(&args),
        Command::Robot(command) => robot::run(command),
        Command::Sim(args) => sim::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Edit(args) => edit::run(&args),
        Command::New(args) => new::run(&args),
        Command::Lsp => match choreo_lsp::serve() {
            Ok(clean) => Ok(if clean { exit::OK } else { exit::NO }),
            Err(e) => Err(error::CliError::Runtime(e.to_string())),
        },
        Command::Chat(args) => chat::run(&args),
        Command::Stack(command) => stack::run(command),
        Command::Inspect(args) => inspect::run(&args),
        Command::ExportPython(args) => export::export(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Replay(args) => replay::replay(&args),
        Command::Package(args) => package::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::GitDiff(args) => diff::git_diff(&args),
        Command::Plot(args) => plot::run(&args),
        Command::Motion(args) => motion::run(&args),
    }
}
