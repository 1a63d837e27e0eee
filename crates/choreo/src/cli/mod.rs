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
mod chat;
mod check;
mod convert;
mod export;
mod fleet;
mod fold;
mod inspect;
mod install;
mod joints;
mod lint;
mod live;
mod monitor;
mod motion;
mod package;
mod plot;
mod report;
mod robot_cmd;
mod run;
mod sim;
mod stack;
mod stack_run;
mod tally;
pub mod trace_file;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Exit codes shared by every command (documented in `--help` and the README).
///
/// Bad arguments, numbers included (`--timeout nan`, a port above 65535), are refused with
/// [`USAGE`] before anything is loaded or started.
///
/// A closed standard output (`choreo check . | head`) ends the command with 141 (128 +
/// SIGPIPE, [`crate::cli::output::CLOSED`]). A closed standard error changes nothing: its messages
/// (and the progress line) are dropped, and the command goes on to its usual exit code.
pub mod exit {
    /// Success: all files valid, behaviors equal, output written.
    pub const OK: u8 = 0;
    /// A negative answer: `check` found invalid files, `diff` found differences.
    pub const NO: u8 = 1;
    /// Bad command-line arguments (from clap), or a path that does not exist; `plot` and
    /// `motion`: a `--box` that names no timeline box with curves, several motion
    /// timelines and no `--box` (`motion`), an image not named .png or .svg (`plot`).
    pub const USAGE: u8 = 2;
    /// `run --strict`: an error in box code stopped the behavior; or the engine crashed (a
    /// bug of choreo's) and unloaded what it could.
    pub const RUNTIME: u8 = 3;
    /// An input could not be read or is not a valid behavior; `plot`, `motion`: it has no
    /// motion timeline to show; `plot --trace`: a line is not a trace event, or no `joints`
    /// event is there.
    pub const LOAD: u8 = 4;
    /// `run`: the behavior did not finish in time (`--timeout`, which counts from the load:
    /// box constructors that sleep count too), or, in virtual time, it waits for events that
    /// can never come.
    pub const TIMEOUT: u8 = 5;
    /// An output could not be written.
    pub const WRITE: u8 = 6;
    /// `run --robot` / `sim`: the robot could not be reached, or was lost (the behavior was
    /// stopped); `sim`: the address could not be served.
    pub const ROBOT: u8 = 7;
    /// `run`: stopped by Ctrl-C (SIGINT); everything was unloaded first.
    pub const INTERRUPTED: u8 = 130;
}

const EXIT_CODES: &str = "\
Exit codes:
  0    success (run: the behavior finished; stack run: the stack emptied; check, stack check:
       every file valid; diff: equal)
  1    check, stack check: some file has errors; diff: the behaviors differ; chat --script: an
       answer differs; run --repeat: a run's trace differs from the first's; robot: the robot
       answered with an error (robot install: refused the package, or NAOqi 2.1 needs
       --remote-path)
  2    bad command-line arguments (plot, motion: --box names no timeline box with curves; motion:
       several motion timelines and no --box; plot: an image not named .png or .svg)
  3    run --strict: an error in box code stopped the behavior (or the engine crashed)
  4    an input could not be read or is not a valid behavior (run: or could not load; plot, motion:
       or has no motion timeline; plot --trace: not a trace, or no joints events in it; robot
       install: not a .pkg with manifest.xml and a uuid)
  5    run: timeout (the load included), or (--fast) the behavior waits for events that never come;
       stack run: timeout (the stack cancelled top-down)
  6    an output could not be written
  7    run --robot, robot: the robot cannot be reached or disconnected (stopped cleanly); sim:
       cannot listen
  141  standard output was closed by its reader (`choreo check ... | head`)
  130  run, stack run: interrupted by Ctrl-C (a second Ctrl-C exits at once)
A closed standard error never changes the exit code: its messages are dropped.";

/// choreo: an open runtime for Choregraphe (NAO / Pepper) behaviors.
#[derive(Parser)]
#[command(name = "choreo", version, about, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a behavior on the simulated robot, showing what the robot does.
    ///
    /// Loads the behavior, starts it and waits for its root's onStopped. Python box scripts
    /// run in the embedded CPython. Ctrl-C stops it cleanly (every box unloaded).
    #[command(after_help = EXIT_CODES)]
    Run {
        /// A .xar, project folder, .pml, .crg, .pkg or split folder.
        path: PathBuf,
        /// The behavior of a project to run (by name); the first one by default.
        #[arg(long)]
        behavior: Option<String>,
        /// Virtual time: sleeps and robot actions take no real time (same trace).
        #[arg(long)]
        fast: bool,
        /// Stop after this many seconds (behavior time): more than 0, at most 315360000
        /// (10 years).
        #[arg(
            long,
            value_name = "SECONDS",
            value_parser = timeout_secs,
            allow_hyphen_values = true
        )]
        timeout: Option<f64>,
        /// The seed of everything random in the run (box code's `random`, the dialog's
        /// random choices): the same seed, the same run. By default 1 with --fast, a random
        /// one in real time; the report and the trace's first line say which.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// The date and time (UTC) the run starts at, as box code's `time.time()` and
        /// `datetime.now()` and QiChat's date functions read it: `2026-03-01T18:30:00Z`. By
        /// default 2026-01-05T10:00:00Z with --fast, now in real time.
        #[arg(long, value_name = "UTC", value_parser = start_time)]
        start_time: Option<u64>,
        /// With --fast: run the behavior N times (2 to 100) and compare their traces; the
        /// first event where a run differs from the first is shown (exit 1 when one does).
        #[arg(long, value_name = "N", requires = "fast", value_parser = clap::value_parser!(u32).range(2..=100))]
        repeat: Option<u32>,
        /// Write every lifecycle event as JSON Lines (docs/trace.md); on the simulated robot,
        /// also its joints at each frame of a playing timeline (`joints` events, which
        /// `choreo plot --trace` draws).
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// Set a parameter before the start: `box/path/name=value` (repeatable).
        #[arg(long = "param", value_name = "BOX/NAME=VALUE")]
        params: Vec<String>,
        /// A scenario (YAML or JSON) that injects events: docs/scenarios.md.
        #[arg(long, value_name = "FILE")]
        events: Option<PathBuf>,
        /// Stop the behavior at the first error in box code (exit 3).
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        remote: RobotFlags,
        /// A fleet: one robot lost (or failing) stops the behavior on every robot (by
        /// default the others go on).
        #[arg(long)]
        all_or_nothing: bool,
        /// The robot to simulate; by default the one the package's manifest asks for
        /// (Pepper for `JULIETTE` models), else NAO.
        #[arg(long, value_enum)]
        robot_model: Option<ModelArg>,
        /// The language the simulated robot speaks and understands (German, ged or de_DE);
        /// by default the manifest's when the package does not speak English, else English.
        #[arg(long, value_name = "LANGUAGE", value_parser = language_arg)]
        lang: Option<&'static choreo_robot::languages::Language>,
        /// Print only errors (exceptions and errors boxes log) and the report.
        #[arg(long, short, conflicts_with = "verbose")]
        quiet: bool,
        /// Print every line as it comes (repeated lines are folded otherwise), whole
        /// tracebacks, and every warning of the load.
        #[arg(long, short)]
        verbose: bool,
        #[command(flatten)]
        monitor: monitor::MonitorFlags,
    },
    /// Ask a robot (real, `choreo sim`, any qi server) what it is and serves, or call a
    /// method: `info`, `services`, `methods SERVICE`, `call SERVICE.METHOD [JSON ARGS...]`,
    /// `watch KEY...`, `behaviors`; or install a package: `install PKG`. Exit 1: the robot
    /// answered with an error; 7: it cannot be reached.
    #[command(subcommand, after_help = EXIT_CODES)]
    Robot(RobotCommand),
    /// Serve the simulated robot over qi messaging: any qi client (the `qi` Python package,
    /// old NAOqi scripts, `choreo run --robot`) can drive it; its calls are printed.
    #[command(after_help = EXIT_CODES)]
    Sim {
        /// Where to listen; loopback unless told otherwise. Port 0: any free port.
        #[arg(
            long,
            value_name = "URL",
            default_value = choreo_qi::DEFAULT_LISTEN,
            value_parser = listen_url
        )]
        listen: String,
        /// The robot to simulate.
        #[arg(long, value_enum)]
        robot_model: Option<ModelArg>,
        /// A scenario (YAML or JSON) that injects events: docs/scenarios.md.
        #[arg(long, value_name = "FILE")]
        events: Option<PathBuf>,
        /// `--listen tcps://`: the server's certificate (PEM).
        #[arg(long, value_name = "PEM", requires = "key")]
        cert: Option<PathBuf>,
        /// `--listen tcps://`: the certificate's private key (PEM).
        #[arg(long, value_name = "PEM", requires = "cert")]
        key: Option<PathBuf>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
        /// The NAOqi generation whose qi dialect is spoken: 2.1 (NAO V4/V5: no
        /// authentication, capabilities in a Capability message), 2.5 (2.3 to 2.7), 2.8
        /// (NAO6) or 2.9 (libqi 4). Clients of older generations are answered in theirs
        /// whatever this says.
        #[arg(long, value_name = "VERSION", default_value = "2.9")]
        naoqi: choreo_qi::Generation,
        /// Serve N simulated robots, on N consecutive ports from the `--listen` port (port
        /// 0: N free ports): a fleet to try on one machine.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
        count: u16,
        /// Write every call the robots receive to FILE, one JSON object a line as it comes
        /// (`t`: Unix time in seconds, `robot`, `method`, `args`).
        #[arg(long, value_name = "FILE")]
        calls: Option<PathBuf>,
        #[command(flatten)]
        monitor: monitor::MonitorFlags,
    },
    /// Check files (or folders, recursively): every Choregraphe format, per-file results.
    #[command(after_help = EXIT_CODES)]
    Check {
        /// Files or folders to check.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// One JSON object per file on stdout, then a summary object.
        #[arg(long)]
        json: bool,
        /// Print only files with warnings or errors, and the summary.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Show the box tree of a behavior: ports, parameters, links and timelines.
    #[command(after_help = EXIT_CODES)]
    Inspect {
        /// A .xar, box.xar, .crg, .cbl, .pkg, project folder or split folder.
        path: PathBuf,
    },
    /// Convert behaviors and projects to a readable folder and back, or to .qianim.
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
    #[command(after_help = EXIT_CODES)]
    Convert {
        /// What to read.
        input: PathBuf,
        /// What to write: a folder (the readable form; a Choregraphe project folder when the
        /// input is a readable one), a .xar, .crg, .pkg or .cbl file, `folder/name.pml`, or
        /// (`--to qianim`) a .qianim file or a folder of them.
        output: PathBuf,
        /// What to write; by default as OUTPUT's name says (see OUTPUT).
        #[arg(long, value_enum)]
        to: Option<convert::Target>,
        /// Replace an existing output.
        #[arg(long)]
        force: bool,
    },
    /// Write a small Python program that runs a behavior with the choreo package
    /// (`pip install choreo`): `python main.py` on the simulated robot, `python main.py IP
    /// [PORT]` on a real one. The program finds the behavior by its path relative to the
    /// program's folder.
    #[command(name = "export-python", after_help = EXIT_CODES)]
    ExportPython {
        /// The behavior: a .xar, project folder, .pml, .crg, .pkg or split folder.
        path: PathBuf,
        /// The program to write.
        #[arg(short, long, default_value = "main.py")]
        output: PathBuf,
        /// The behavior of a project (by name); the first one by default.
        #[arg(long)]
        behavior: Option<String>,
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Replay a recorded run in the monitor: `choreo run --trace TRACE` recorded it, BEHAVIOR
    /// is what ran (or `choreo stack run --trace TRACE` and BEHAVIOR is the stack's folder).
    /// The page plays, pauses, seeks and steps event by event (docs/monitor.md); it starts
    /// paused at the beginning. Ctrl-C quits.
    #[command(after_help = EXIT_CODES)]
    Replay {
        /// The trace (JSON Lines).
        trace: PathBuf,
        /// The behavior that ran (any input `run` takes), or the stack's folder.
        behavior_path: PathBuf,
        /// The behavior of a project (by name); the first one by default.
        #[arg(long)]
        behavior: Option<String>,
        #[command(flatten)]
        monitor: monitor::MonitorFlags,
    },
    /// Build the package (.pkg) NAOqi's PackageManager installs from a project.
    ///
    /// As qibuild's qipkg builds it: manifest.xml at the top, then every file the .pml lists
    /// (behaviors, dialogs, resources, topics), plus the .pml itself; a listed file that is
    /// missing is an error. The manifest gets qipkg's checks (uuid, version, robot and NAOqi
    /// requirements, trigger sentences, names, descriptions) and choreo's (every behavior and
    /// topic it installs is in the package). Errors are shown at their file and line; with
    /// any, nothing is written (exit 1). PROJECT is a .pml project folder (or its readable
    /// folder, a .crg, an unpacked package). Install it with `choreo robot install`.
    #[command(after_help = EXIT_CODES)]
    Package {
        /// The project.
        project: PathBuf,
        /// The package to write (default: `<uuid>-<version>.pkg`, as qipkg names it).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Write it despite failed manifest checks (as qipkg's --force); missing files stay
        /// errors.
        #[arg(long)]
        force: bool,
        /// One JSON object: output, written, uuid, version, files, diagnostics.
        #[arg(long)]
        json: bool,
    },
    /// Plot motion: every joint's curve of a behavior's motion timelines (keys marked), or
    /// the joints a run moved (`--trace`), one panel per joint group; PNG or SVG.
    ///
    /// Every motion timeline of the behavior is one section of the image (boxes in order),
    /// unless `--box` picks one. Joints in radians, hands as opening ratios (0..1); x in
    /// frames with seconds on top (a trace: behavior time). Text needs a font, read at run
    /// time: CHOREO_PLOT_FONT, else DejaVu Sans or any .ttf under /usr/share/fonts; without
    /// one the plot has no text.
    #[command(after_help = EXIT_CODES)]
    Plot {
        /// A .xar, project folder, .pml, .crg, .pkg or split folder.
        #[arg(required_unless_present = "trace")]
        path: Option<PathBuf>,
        /// The behavior of a project to plot (by name); the first one by default.
        #[arg(long, conflicts_with = "trace")]
        behavior: Option<String>,
        /// One timeline box, by path as traces name it (`root/Tai Chi Chuan`; `root/` may be
        /// left out); every motion timeline by default.
        #[arg(long = "box", value_name = "BOXPATH", conflicts_with = "trace")]
        box_path: Option<String>,
        /// Plot the `joints` events of a trace written by `choreo run --trace` instead (what
        /// the simulated joints did, over behavior time).
        #[arg(long, value_name = "FILE", conflicts_with = "path")]
        trace: Option<PathBuf>,
        /// The image to write: FILE.png or FILE.svg.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// The joint angles of one motion timeline, frame by frame.
    #[command(after_help = EXIT_CODES)]
    Motion {
        /// A .xar, project folder, .pml, .crg, .pkg or split folder.
        path: PathBuf,
        /// The behavior of a project (by name); the first one by default.
        #[arg(long)]
        behavior: Option<String>,
        /// The timeline box, by path (`root/Tai Chi Chuan`; `root/` may be left out); needed
        /// when the behavior has several motion timelines.
        #[arg(long = "box", value_name = "BOXPATH")]
        box_path: Option<String>,
        /// CSV (the one format for now): `frame,time_s,<joint>...`, one row per frame from the
        /// start frame to the end frame (the last key frame without one), joints in radians
        /// (hands: opening ratio), in the robot's joint order.
        #[arg(long, required = true)]
        csv: bool,
        /// Write to this file instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Talk with QiChat topics or a behavior's Dialog boxes: each line read is what the
    /// human says (`e:Key` raises an event); the robot's answer is printed with the rule
    /// that gave it (docs/qichat.md).
    #[command(after_help = EXIT_CODES)]
    Chat {
        /// .top files, .dlg files (their topic in --lang), or behaviors (a project, an
        /// archive, a .xar: their Dialog boxes, started); all active, the first in focus.
        #[arg(required = true)]
        topics: Vec<PathBuf>,
        /// The language of the .dlg files' and Dialog boxes' topics (QiChat codes: enu, frf,
        /// ged, iti, jpj, ...).
        #[arg(long, default_value = "enu")]
        lang: String,
        /// Play this conversation instead of reading standard input: `> what the human
        /// says`, then `< the answer expected` (`< *`: any answer; `<` alone: none). Exit 1
        /// if an answer differs.
        #[arg(long, value_name = "FILE")]
        script: Option<PathBuf>,
        /// The seed of `^rand` (the same seed, the same conversation).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Behavior stacks defined in JSON: one file per behavior (docs/behavior-stack.md).
    #[command(subcommand, after_help = EXIT_CODES)]
    Stack(StackCommand),
    /// Compare two behaviors semantically (file layout, order and spelling never count).
    #[command(after_help = EXIT_CODES)]
    Diff {
        /// First behavior.
        a: PathBuf,
        /// Second behavior.
        b: PathBuf,
        /// Also compare editor-only data (positions, tooltips, icons, plugin state).
        #[arg(long)]
        editor: bool,
        /// Also show each changed key of changed motion curves.
        #[arg(long, short)]
        verbose: bool,
        /// One JSON object per difference (`path`, `what`, `details`, `keys`), then a
        /// summary object.
        #[arg(long)]
        json: bool,
    },
    /// The diff driver for git: `git diff` of `.xar` files shows `choreo diff`. Set up with
    /// `*.xar diff=choreo` in `.gitattributes` and
    /// `git config diff.choreo.command "choreo git-diff"`; git gives the seven arguments
    /// (path, old file, old hash, old mode, new file, new hash, new mode). Exits 0 (git takes
    /// any other code as a failure of the driver).
    #[command(name = "git-diff")]
    GitDiff {
        /// The path in the repository.
        path: String,
        /// The old version's file (`/dev/null`: added).
        old: PathBuf,
        /// The old version's hash.
        old_hash: String,
        /// The old version's mode.
        old_mode: String,
        /// The new version's file (`/dev/null`: removed).
        new: PathBuf,
        /// The new version's hash.
        new_hash: String,
        /// The new version's mode.
        new_mode: String,
    },
}

/// How to reach a real robot (`run`, `stack run`).
#[derive(clap::Args)]
struct RobotFlags {
    /// Run on a real robot over qi (`tcp://HOST:9559`, or `tcps://HOST:9503` for
    /// NAOqi 2.9 with TLS) instead of the simulated one. `run`: repeat it to run on a fleet.
    #[arg(long, value_name = "URL", value_parser = robot_url)]
    robot: Vec<String>,
    /// `run`: a fleet's robots, one URL a line (`#` starts a comment), after any `--robot`.
    #[arg(long, value_name = "FILE")]
    robots: Option<PathBuf>,
    #[command(flatten)]
    credentials: Credentials,
}

/// How a robot is authenticated and its certificate checked (`run`, `stack run`, `robot`).
#[derive(clap::Args)]
struct Credentials {
    /// The user to authenticate as (NAOqi 2.9: `nao`).
    #[arg(long)]
    user: Option<String>,
    /// The token (NAOqi 2.9: the robot's password).
    #[arg(long)]
    token: Option<String>,
    /// `tcps://`: accept only this certificate (SHA-256 fingerprint, as
    /// `openssl x509 -noout -fingerprint -sha256` prints it). Without it any certificate
    /// is accepted, as libqi does: the link is encrypted but the robot not authenticated.
    #[arg(long, value_name = "SHA256")]
    pin: Option<String>,
}

impl Credentials {
    /// The robot at `url`, with these credentials.
    fn robot(&self, url: String) -> run::RobotArgs {
        run::RobotArgs {
            url,
            user: self.user.clone(),
            token: self.token.clone(),
            pin: self.pin.clone(),
        }
    }
}

impl RobotFlags {
    /// The robots asked for (none: the simulated one); every robot gets the credentials.
    fn args(self) -> Result<Vec<run::RobotArgs>, String> {
        let mut urls = self.robot;
        if let Some(file) = &self.robots {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("--robots {}: {e}", file.display()))?;
            for (n, line) in text.lines().enumerate() {
                let url = line.split('#').next().unwrap_or_default().trim();
                if url.is_empty() {
                    continue;
                }
                urls.push(
                    robot_url(url)
                        .map_err(|e| format!("--robots {}:{}: {e}", file.display(), n + 1))?,
                );
            }
            if urls.is_empty() {
                return Err(format!("--robots {}: no robot in it", file.display()));
            }
        }
        let c = &self.credentials;
        if urls.is_empty() && (c.user.is_some() || c.token.is_some() || c.pin.is_some()) {
            return Err("--user, --token and --pin are for a robot: give --robot URL".into());
        }
        Ok(urls.into_iter().map(|url| c.robot(url)).collect())
    }
}

/// Where `choreo robot` connects: a qi URL, and the credentials of NAOqi 2.9.
#[derive(clap::Args)]
struct RobotTarget {
    /// The robot: `tcp://HOST:9559`, or `tcps://HOST:9503` for NAOqi 2.9 with TLS.
    #[arg(value_name = "URL", value_parser = robot_url)]
    url: String,
    #[command(flatten)]
    credentials: Credentials,
    /// Print JSON instead of lines.
    #[arg(long)]
    json: bool,
}

impl RobotTarget {
    fn split(self) -> (run::RobotArgs, bool) {
        (self.credentials.robot(self.url), self.json)
    }
}

/// `choreo robot ...`.
#[derive(Subcommand)]
enum RobotCommand {
    /// The robot's name, NAOqi version, model (`naoH25`, `juliette`...), body version and
    /// battery charge.
    Info {
        #[command(flatten)]
        target: RobotTarget,
    },
    /// Every service the robot has: id, name, endpoints.
    Services {
        #[command(flatten)]
        target: RobotTarget,
    },
    /// The behaviors installed on the robot (ALBehaviorManager), running ones marked.
    Behaviors {
        #[command(flatten)]
        target: RobotTarget,
    },
    /// A service's methods (with their qi signatures), signals and properties.
    Methods {
        #[command(flatten)]
        target: RobotTarget,
        /// The service (`ALTextToSpeech`).
        service: String,
    },
    /// Calls a method; each argument is a JSON value (`'"hello"'`, `1.5`, `'[1, 2]'`).
    Call {
        #[command(flatten)]
        target: RobotTarget,
        /// `SERVICE.METHOD` (`ALTextToSpeech.say`).
        method: String,
        /// The arguments, as JSON (negative numbers are arguments, not options).
        #[arg(allow_negative_numbers = true)]
        args: Vec<String>,
    },
    /// Installs an application package (.pkg) on the robot through PackageManager.
    ///
    /// The package must have manifest.xml at its root with a uuid (checked before the robot
    /// is reached). The installed package of that uuid is removed first (removePkg; its
    /// error ignored), unless --keep-old. A robot whose PackageManager has install(o)
    /// (NAOqi 2.5 and later) reads the package over this connection (choreo serves it as a
    /// qi::File); NAOqi 2.1 installs only a package already on the robot: copy it there
    /// (scp) and give --remote-path.
    ///
    /// Exit codes: 0 installed; 1 the robot refused it (install returned false, or an
    /// error), or needs --remote-path; 2 bad arguments; 4 the package cannot be read or has
    /// no manifest.xml or uuid; 7 the robot cannot be reached or was lost.
    Install {
        #[command(flatten)]
        target: RobotTarget,
        /// The package (.pkg).
        package: PathBuf,
        /// The package's path on the robot, already copied there (`install(s)`), e.g.
        /// /home/nao/app.pkg: required by NAOqi 2.1.
        #[arg(long, value_name = "PATH")]
        remote_path: Option<String>,
        /// Keep the installed package of the same uuid (no removePkg first).
        #[arg(long)]
        keep_old: bool,
    },
    /// ALMemory values live: each key's value now, then every change, until Ctrl-C.
    Watch {
        #[command(flatten)]
        target: RobotTarget,
        /// The keys (`FrontTactilTouched`, `Device/SubDeviceList/Battery/Charge/Sensor/Value`).
        #[arg(required = true)]
        keys: Vec<String>,
        /// Stop after this many seconds.
        #[arg(long = "for", value_name = "SECONDS", value_parser = timeout_secs)]
        duration: Option<f64>,
        /// Stop after this many changes.
        #[arg(long, value_name = "N")]
        changes: Option<usize>,
    },
}

/// `choreo stack ...`.
#[derive(Subcommand)]
// Parsed once per process: the size of its largest variant does not matter.
#[allow(clippy::large_enum_variant)]
enum StackCommand {
    /// Validate every definition of a folder and the tree they make (exit 1 on an error).
    #[command(after_help = EXIT_CODES)]
    Check {
        /// The folder of behavior definitions (*.json).
        dir: PathBuf,
        /// The base behavior; by default the one behavior no other delegates to.
        #[arg(long)]
        base: Option<String>,
    },
    /// Run a stack on the simulated robot: its changes live, a report at the end. Ctrl-C
    /// cancels the stack top-down.
    #[command(after_help = EXIT_CODES)]
    Run {
        /// The folder of behavior definitions (*.json).
        dir: PathBuf,
        /// The base behavior; by default the one behavior no other delegates to.
        #[arg(long)]
        base: Option<String>,
        /// The tick period, in milliseconds (Anki's engine ticks every 60).
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=10_000))]
        tick_ms: u64,
        /// Virtual time: ticks, sleeps and robot actions take no real time.
        #[arg(long)]
        fast: bool,
        /// Stop after this many seconds (stack time).
        #[arg(long, value_name = "SECONDS", value_parser = timeout_secs, allow_hyphen_values = true)]
        timeout: Option<f64>,
        /// Write every stack event as JSON Lines.
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// A scenario (YAML or JSON) for the simulated robot: docs/scenarios.md.
        #[arg(long, value_name = "FILE")]
        events: Option<PathBuf>,
        /// The simulated robot.
        #[arg(long, value_enum)]
        robot_model: Option<ModelArg>,
        /// A real robot instead of the simulated one (`PlayChoregraphe` leaves then name
        /// behaviors installed on it).
        #[command(flatten)]
        remote: RobotFlags,
        /// Only errors and the report.
        #[arg(short, long)]
        quiet: bool,
        /// Every stack event.
        #[arg(short, long, conflicts_with = "quiet")]
        verbose: bool,
        #[command(flatten)]
        monitor: monitor::MonitorFlags,
    },
    /// Print the delegation tree from the base (what each behavior may delegate to).
    #[command(after_help = EXIT_CODES)]
    Tree {
        /// The folder of behavior definitions (*.json).
        dir: PathBuf,
        /// The base behavior; by default the one behavior no other delegates to.
        #[arg(long)]
        base: Option<String>,
    },
}

/// The robot models `--robot-model` accepts.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ModelArg {
    Nao,
    Pepper,
}

impl ModelArg {
    fn model(self) -> choreo_naoqi::Model {
        match self {
            ModelArg::Nao => choreo_naoqi::Model::Nao,
            ModelArg::Pepper => choreo_naoqi::Model::Pepper,
        }
    }
}

/// The longest `--timeout`, in seconds: 10 years, far inside what `Duration` and the engine's
/// clock (nanoseconds in a `u64`, about 584 years) hold.
const MAX_TIMEOUT_SECS: f64 = 10.0 * 365.0 * 86_400.0;

/// `--lang`: a language by its NAOqi name, QiChat code or locale.
fn language_arg(text: &str) -> Result<&'static choreo_robot::languages::Language, String> {
    use choreo_robot::languages::{LANGUAGES, by_code, by_locale, by_name};
    by_name(text)
        .or_else(|| by_code(text))
        .or_else(|| by_locale(text))
        .ok_or_else(|| {
            let names: Vec<&str> = LANGUAGES.iter().map(|l| l.name).collect();
            format!("no language {text:?} (one of: {})", names.join(", "))
        })
}

/// `--start-time`: a UTC date and time, as milliseconds since the Unix epoch.
fn start_time(text: &str) -> Result<u64, String> {
    choreo_robot::calendar::parse_utc(text)
        .ok_or_else(|| format!("{text}: not a UTC date and time after 1970 (2026-03-01T18:30:00Z)"))
}

/// `--timeout`: a number of seconds, more than 0 and at most [`MAX_TIMEOUT_SECS`].
fn timeout_secs(text: &str) -> Result<f64, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| "expected a number of seconds".to_string())?;
    if !secs.is_finite() {
        Err("expected a finite number of seconds".to_string())
    } else if secs <= 0.0 {
        Err("expected more than 0 seconds".to_string())
    } else if secs > MAX_TIMEOUT_SECS {
        Err(format!(
            "expected at most {MAX_TIMEOUT_SECS} seconds (10 years)"
        ))
    } else {
        Ok(secs)
    }
}

/// `--robot`: a qi URL whose port, if given, is 1 to 65535.
fn robot_url(text: &str) -> Result<String, String> {
    match qi_port(text)? {
        Some(0) => Err("port 0: expected a port from 1 to 65535".to_string()),
        _ => Ok(text.to_string()),
    }
}

/// `--listen`: a qi URL whose port, if given, is 0 (any free port) to 65535.
fn listen_url(text: &str) -> Result<String, String> {
    qi_port(text).map(|_| text.to_string())
}

/// Checks `tcp://HOST[:PORT]`, `tcps://HOST[:PORT]` or `HOST[:PORT]` (the forms the qi
/// session reads) and returns its port, if it has one. IPv6 hosts take brackets to have a
/// port (`[::1]:9559`); a bare one (`::1`) has none.
fn qi_port(text: &str) -> Result<Option<u16>, String> {
    let rest = match text.split_once("://") {
        Some(("tcp" | "tcps", rest)) => rest,
        Some((scheme, _)) => {
            return Err(format!("unknown scheme {scheme}:// (tcp:// or tcps://)"));
        }
        None => text,
    };
    let authority = rest.trim_end_matches('/');
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        match bracketed.split_once(']') {
            Some((host, "")) => (host, None),
            Some((host, tail)) => match tail.strip_prefix(':') {
                Some(port) => (host, Some(port)),
                None => return Err(format!("unexpected {tail:?} after the address")),
            },
            None => return Err("no ] after the IPv6 address".to_string()),
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) if !port.contains(':') => (host, Some(port)),
            _ => (authority, None),
        }
    };
    if host.is_empty() {
        return Err("no host".to_string());
    }
    port.map(|p| {
        p.parse::<u16>()
            .map_err(|_| format!("port {p:?}: expected a port from 0 to 65535"))
    })
    .transpose()
}

/// Runs the `choreo` command with `args` (the program's name first, as `std::env::args_os`
/// gives them) and returns its exit code ([`exit`]). `--help` and `--version` print and
/// return 0; bad arguments print clap's message and return [`exit::USAGE`].
pub fn main(args: impl IntoIterator<Item = OsString>) -> u8 {
    let cli = match Cli::try_parse_from(args) {
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
    match cli.command {
        Command::Run {
            path,
            behavior,
            fast,
            timeout,
            seed,
            start_time,
            repeat,
            trace,
            params,
            events,
            strict,
            remote,
            all_or_nothing,
            robot_model,
            lang,
            quiet,
            verbose,
            monitor,
        } => match remote.args() {
            Ok(robots) => run::run(&run::RunArgs {
                path,
                behavior,
                fast,
                timeout,
                seed,
                start_time,
                repeat,
                trace,
                params,
                events,
                strict,
                model: robot_model.map(ModelArg::model),
                language: lang,
                robots,
                all_or_nothing,
                verbosity: live::Verbosity::from_flags(quiet, verbose),
                monitor,
            }),
            Err(e) => {
                errln!("{e}");
                exit::USAGE
            }
        },
        Command::Robot(command) => {
            let (target, ask) = match command {
                RobotCommand::Info { target } => (target, robot_cmd::Ask::Info),
                RobotCommand::Behaviors { target } => (target, robot_cmd::Ask::Behaviors),
                RobotCommand::Services { target } => (target, robot_cmd::Ask::Services),
                RobotCommand::Methods { target, service } => {
                    (target, robot_cmd::Ask::Methods { service })
                }
                RobotCommand::Call {
                    target,
                    method,
                    args,
                } => (
                    target,
                    robot_cmd::Ask::Call {
                        target: method,
                        args,
                    },
                ),
                RobotCommand::Install {
                    target,
                    package,
                    remote_path,
                    keep_old,
                } => (
                    target,
                    robot_cmd::Ask::Install {
                        package,
                        remote_path,
                        keep_old,
                    },
                ),
                RobotCommand::Watch {
                    target,
                    keys,
                    duration,
                    changes,
                } => (
                    target,
                    robot_cmd::Ask::Watch {
                        keys,
                        duration: duration.map(std::time::Duration::from_secs_f64),
                        changes,
                    },
                ),
            };
            let (robot, json) = target.split();
            robot_cmd::run(&robot, json, &ask)
        }
        Command::Sim {
            listen,
            robot_model,
            events,
            cert,
            key,
            quiet,
            naoqi,
            count,
            calls,
            monitor,
        } => sim::run(&sim::SimArgs {
            listen,
            model: robot_model.map_or(choreo_naoqi::Model::Nao, ModelArg::model),
            events,
            tls: cert
                .zip(key)
                .map(|(certificate, key)| choreo_qi::ServerTls {
                    certificate: choreo_qi::Pem::File(certificate),
                    key: choreo_qi::Pem::File(key),
                }),
            quiet,
            generation: naoqi,
            count,
            calls,
            monitor,
        }),
        Command::Check { paths, json, quiet } => check::run(&paths, json, quiet),
        Command::Chat {
            topics,
            lang,
            script,
            seed,
        } => chat::run(&chat::ChatArgs {
            topics,
            lang,
            script,
            seed,
        }),
        Command::Stack(StackCommand::Check { dir, base }) => stack::check(&dir, base.as_deref()),
        Command::Stack(StackCommand::Tree { dir, base }) => stack::tree(&dir, base.as_deref()),
        Command::Stack(StackCommand::Run {
            dir,
            base,
            tick_ms,
            fast,
            timeout,
            trace,
            events,
            robot_model,
            remote,
            quiet,
            verbose,
            monitor,
        }) => match remote.args() {
            Ok(robots) if robots.len() > 1 => {
                errln!("stack run drives one robot: give one --robot");
                exit::USAGE
            }
            Ok(robots) => stack_run::run(&stack_run::StackRunArgs {
                dir,
                base,
                tick_ms,
                fast,
                timeout,
                trace,
                events,
                model: robot_model.map_or(choreo_naoqi::Model::Nao, ModelArg::model),
                robot: robots.into_iter().next(),
                verbosity: live::Verbosity::from_flags(quiet, verbose),
                monitor,
            }),
            Err(e) => {
                errln!("{e}");
                exit::USAGE
            }
        },
        Command::Inspect { path } => inspect::run(&path),
        Command::ExportPython {
            path,
            output,
            behavior,
            force,
        } => export::export(&export::ExportArgs {
            path,
            behavior,
            output,
            force,
        }),
        Command::Convert {
            input,
            output,
            to,
            force,
        } => convert::run(&input, &output, to, force),
        Command::Replay {
            trace,
            behavior_path,
            behavior,
            monitor,
        } => monitor::replay(&trace, &behavior_path, behavior.as_deref(), &monitor),
        Command::Package {
            project,
            output,
            force,
            json,
        } => package::run(&project, output.as_deref(), force, json),
        Command::Diff {
            a,
            b,
            editor,
            verbose,
            json,
        } => diff(&a, &b, editor, verbose, json),
        Command::GitDiff { path, old, new, .. } => git_diff(&path, &old, &new),
        Command::Plot {
            path,
            behavior,
            box_path,
            trace,
            output,
        } => plot::run(&plot::PlotArgs {
            path,
            behavior,
            box_path,
            trace,
            output,
        }),
        Command::Motion {
            path,
            behavior,
            box_path,
            csv: _,
            output,
        } => motion::run(
            &motion::Pick {
                path: &path,
                behavior: behavior.as_deref(),
                box_path: box_path.as_deref(),
            },
            output.as_deref(),
        ),
    }
}

/// `choreo diff`: loads both sides and prints their semantic differences.
/// `choreo git-diff`: a header like git's, then `choreo diff` of the two versions (or what was
/// added or removed); what cannot be read is said. Always 0.
fn git_diff(path: &str, old: &std::path::Path, new: &std::path::Path) -> u8 {
    outln!("diff --choreo a/{path} b/{path}");
    let gone = |p: &std::path::Path| p == std::path::Path::new("/dev/null");
    match (gone(old), gone(new)) {
        (true, true) => {}
        (true, false) => outln!("added {path}"),
        (false, true) => outln!("removed {path}"),
        (false, false) => {
            diff(old, new, false, false, false);
        }
    }
    exit::OK
}

fn diff(a: &std::path::Path, b: &std::path::Path, editor: bool, verbose: bool, json: bool) -> u8 {
    let (pa, pb) = match (report::load(a, false), report::load(b, false)) {
        (Ok(pa), Ok(pb)) => (pa, pb),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let options = choreo_xar::diff::DiffOptions { editor };
    let mut differences = Vec::new();
    if pa.behaviors.len() != pb.behaviors.len() {
        differences.push(choreo_xar::diff::Difference {
            path: String::new(),
            what: format!(
                "behaviors: {} -> {}",
                pa.behaviors.len(),
                pb.behaviors.len()
            ),
            details: Vec::new(),
            more: Vec::new(),
        });
    }
    for (ba, bb) in pa.behaviors.iter().zip(&pb.behaviors) {
        for mut d in choreo_xar::diff::diff(&ba.xar, &bb.xar, options) {
            if pa.behaviors.len() > 1 {
                d.path = format!("{}: {}", ba.name, d.path);
            }
            differences.push(d);
        }
    }
    for d in &differences {
        if json {
            outln!(
                "{}",
                serde_json::json!({
                    "path": d.path, "what": d.what, "details": d.details, "keys": d.more,
                })
            );
            continue;
        }
        if d.path.is_empty() {
            outln!("{}", d.what);
        } else {
            outln!("{d}");
        }
        for line in d
            .details
            .iter()
            .chain(verbose.then_some(&d.more).into_iter().flatten())
        {
            outln!("    {line}");
        }
    }
    if json {
        outln!(
            "{}",
            serde_json::json!({"summary": {"differences": differences.len()}})
        );
    } else if differences.is_empty() {
        outln!("equal");
    } else {
        outln!("{} difference(s)", differences.len());
    }
    if differences.is_empty() {
        exit::OK
    } else {
        exit::NO
    }
}
