//! A question to a robot over qi: the session opened, the answer printed, the exit code.

use std::path::PathBuf;
use std::time::Duration;

use choreo_engine::Value;
use choreo_qi::Session;

use crate::cli::args::RobotArgs;
use crate::cli::error::{CliError, CliResult, robot_fix, with_help};

use crate::exit;

use super::answers::{behaviors, call_method, info, methods, services, watch};

/// What to ask the robot.
pub enum Ask {
    /// Its name, NAOqi version, model, body version and battery: what each generation
    /// answers of them.
    Info,
    /// The behaviors ALBehaviorManager has installed, and which of them run.
    Behaviors,
    /// Every service: name, id, endpoints.
    Services,
    /// A service's methods, signals and properties, with their signatures.
    Methods {
        /// The service (`ALTextToSpeech`).
        service: String,
    },
    /// Calls a method and prints what it returns.
    Call {
        /// `SERVICE.METHOD`.
        target: String,
        /// The arguments, each a JSON value (`"hello"`, `1.5`, `[1, 2]`).
        args: Vec<String>,
    },
    /// ALMemory values: now, then each change (`ALMemory.subscriber(key).signal`).
    Watch {
        /// The keys.
        keys: Vec<String>,
        /// Stop after this long (otherwise at Ctrl-C).
        duration: Option<Duration>,
        /// Stop after this many changes.
        changes: Option<usize>,
    },
    /// Installs an application package (`.pkg`) through PackageManager.
    Install {
        /// The package file.
        package: PathBuf,
        /// Where the package was copied on the robot (`install(s)`; NAOqi 2.1 needs it).
        remote_path: Option<String>,
        /// Do not remove the installed package of the same uuid first.
        keep_old: bool,
    },
}

/// Runs `ask` against the robot `robot` names; `json`: print JSON.
pub(super) fn ask_robot(robot: &RobotArgs, json: bool, ask: &Ask) -> CliResult {
    // Arguments are checked before anything is sent.
    let call = match ask {
        Ask::Call { target, args } => match call_parts(target, args) {
            Ok(c) => Some(c),
            Err(why) => {
                return Err(CliError::Usage(why.to_string()));
            }
        },
        _ => None,
    };
    let package = match ask {
        Ask::Install {
            package,
            remote_path,
            ..
        } => {
            if let Some(Err(why)) = remote_path
                .as_deref()
                .map(crate::robot_install::check_remote_path)
            {
                return Err(CliError::Usage(why.to_string()));
            }
            match crate::robot_install::read_package(package) {
                Ok(p) => Some(p),
                Err(why) => {
                    return Err(CliError::Load(why.to_string()));
                }
            }
        }
        _ => None,
    };
    let options = match robot.options() {
        Ok(o) => o,
        Err(e) => {
            return Err(CliError::Usage(e.to_string()));
        }
    };
    let session = match Session::connect_with(
        &robot.url,
        choreo_qi::SessionOptions {
            reconnect: false,
            ..options
        },
    ) {
        Ok(s) => s,
        Err(e) => {
            return Err(CliError::Robot(with_help(
                format!("{}: cannot reach the robot: {e}", robot.url),
                robot_fix(&e),
            )));
        }
    };
    let code = match (ask, call) {
        (Ask::Info, _) => info(&session, json),
        (Ask::Behaviors, _) => behaviors(&session, json),
        (Ask::Services, _) => services(&session, json),
        (Ask::Methods { service }, _) => methods(&session, service, json),
        (Ask::Call { .. }, Some((service, method, args))) => {
            call_method(&session, &service, &method, &args, json)
        }
        (Ask::Call { .. }, None) => Ok(exit::USAGE),
        (
            Ask::Watch {
                keys,
                duration,
                changes,
            },
            _,
        ) => watch(&session, keys, *duration, *changes, json),
        (
            Ask::Install {
                remote_path,
                keep_old,
                ..
            },
            _,
        ) => match &package {
            Some(package) => install(
                &session,
                &robot.url,
                package,
                &crate::robot_install::Options {
                    remote_path: remote_path.clone(),
                    keep_old: *keep_old,
                },
                json,
            ),
            None => Ok(exit::USAGE),
        },
    };
    session.close();
    code
}

/// `SERVICE.METHOD` and JSON arguments, as values.
fn call_parts(target: &str, args: &[String]) -> Result<(String, String, Vec<Value>), String> {
    let Some((service, method)) = target.rsplit_once('.') else {
        return Err(format!(
            "{target:?}: expected SERVICE.METHOD (ALTextToSpeech.say)"
        ));
    };
    if service.is_empty() || method.is_empty() {
        return Err(format!(
            "{target:?}: expected SERVICE.METHOD (ALTextToSpeech.say)"
        ));
    }
    let values = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            serde_json::from_str::<serde_json::Value>(a)
                .map(|j| choreo_stack::builtins::conditions::json_value(&j))
                .map_err(|e| {
                    format!(
                        "argument {} ({a:?}) is not JSON: {e} (a string needs its quotes: '\"hello\"')",
                        i + 1
                    )
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((service.to_string(), method.to_string(), values))
}

/// Installs `package` ([`crate::robot_install`]), a progress bar of the bytes the robot
/// read on stderr (drawn only on a terminal); says what was installed.
fn install(
    session: &Session,
    url: &str,
    package: &crate::robot_install::Package,
    options: &crate::robot_install::Options,
    json: bool,
) -> CliResult {
    use crate::robot_install::InstallError;
    let bar = indicatif::ProgressBar::new(package.bytes.len() as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {msg}")
    {
        bar.set_style(style);
    }
    bar.set_message(format!("sending {}", package.uuid));
    let shown = bar.clone();
    let done = crate::robot_install::install(
        session,
        url,
        package,
        options,
        Box::new(move |at, _| shown.set_position(at)),
    );
    bar.finish_and_clear();
    match done {
        Ok(()) => {
            if json {
                outln!(
                    "{}",
                    serde_json::json!({
                        "installed": package.uuid,
                        "version": package.version,
                        "url": url,
                    })
                );
            } else {
                let version = package.version.as_deref().unwrap_or("(no version)");
                outln!("installed {} {version} on {url}", package.uuid);
            }
            Ok(exit::OK)
        }
        Err(InstallError::Lost(m)) => Err(CliError::Robot(m)),
        Err(InstallError::Refused(m) | InstallError::Package(m)) => Err(CliError::No(m)),
    }
}
