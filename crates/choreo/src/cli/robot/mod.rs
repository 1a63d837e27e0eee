//! `choreo robot info|services|methods|call|watch|behaviors|install URL ...`: what a robot
//! is and serves, asked over qi, as a robot developer asks `qicli`; and packages installed
//! ([`crate::robot_install`]). Works against a real robot of any NAOqi generation, `choreo sim` and any
//! qi server.
//!
//! Exit codes: 0 done; 1 the robot answered with an error (an unknown service or method, a
//! call that raised, an install refused); 2 bad arguments (a target not `SERVICE.METHOD`,
//! an argument that is not JSON, a `--remote-path` not absolute); 4 the package cannot be
//! read or is not one the robot can install; 7 the robot cannot be reached (or, for
//! `watch` and `install`, was lost).

mod answers;
mod ask;

use std::path::PathBuf;
use std::time::Duration;

use clap::Subcommand;

use crate::cli::args::{RobotTarget, timeout_secs};
use crate::cli::error::CliResult;

use ask::{Ask, ask_robot};

/// `choreo robot ...`.
#[derive(Subcommand)]
pub(crate) enum RobotCommand {
    /// The robot's name, NAOqi version, model (`naoH25`, `juliette`...), body version and
    /// battery charge.
    #[command(after_help = crate::cli::help::ROBOT)]
    Info {
        #[command(flatten)]
        target: RobotTarget,
    },
    /// Every service the robot has: id, name, endpoints.
    #[command(after_help = crate::cli::help::ROBOT)]
    Services {
        #[command(flatten)]
        target: RobotTarget,
    },
    /// The behaviors installed on the robot (ALBehaviorManager), running ones marked.
    #[command(after_help = crate::cli::help::ROBOT)]
    Behaviors {
        #[command(flatten)]
        target: RobotTarget,
    },
    /// A service's methods (with their qi signatures), signals and properties.
    #[command(after_help = crate::cli::help::ROBOT)]
    Methods {
        #[command(flatten)]
        target: RobotTarget,
        /// The service (`ALTextToSpeech`).
        service: String,
    },
    /// Calls a method; each argument is a JSON value (`'"hello"'`, `1.5`, `'[1, 2]'`).
    #[command(after_help = crate::cli::help::ROBOT)]
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
    #[command(after_help = crate::cli::help::ROBOT)]
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
    #[command(after_help = crate::cli::help::ROBOT)]
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

/// `choreo robot ...`: the robot to reach and what to ask it.
pub fn run(command: RobotCommand) -> CliResult {
    let (target, ask) = match command {
        RobotCommand::Info { target } => (target, Ask::Info),
        RobotCommand::Behaviors { target } => (target, Ask::Behaviors),
        RobotCommand::Services { target } => (target, Ask::Services),
        RobotCommand::Methods { target, service } => (target, Ask::Methods { service }),
        RobotCommand::Call {
            target,
            method,
            args,
        } => (
            target,
            Ask::Call {
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
            Ask::Install {
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
            Ask::Watch {
                keys,
                duration: duration.map(Duration::from_secs_f64),
                changes,
            },
        ),
    };
    let (robot, json) = target.split();
    ask_robot(&robot, json, &ask)
}
