//! `choreo robot install URL PKG`: installs an application package on a robot through
//! NAOqi's `PackageManager` service, as qibuild's `qipkg deploy-package` does, but over qi
//! messaging only.
//!
//! The package is read and checked first (a zip with `manifest.xml` at its root whose
//! `<package>` has a `uuid`), before the robot is even reached. Once it is known that the
//! robot can take it (below), and unless `--keep-old`, `removePkg(uuid)` (its error
//! ignored, as qipkg ignores it: the package may not be there). Then the install:
//!
//! - NAOqi 2.5 and later (PackageManager's MetaObject lists `install(o)`: choreo looks at
//!   the MetaObject, not at the version number): the package's bytes are served
//!   as a libqicore `qi::File` ([`choreo_qi::FileObject`]) over the same connection, and
//!   the robot reads them back through it; its ProgressNotifier's reports are shown on
//!   stderr when that is a terminal;
//! - NAOqi 2.1 (only `install(s)`, a path on the robot): the package must be on the robot
//!   first (`scp`), and `--remote-path` names it there; `--remote-path` also works on later
//!   robots.

use std::path::{Path, PathBuf};

use choreo_engine::Value;
use choreo_qi::{Error, FileObject, RemoteObject, Session};
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::error::{CliError, CliResult};
use crate::exit;

/// A package read and checked, ready to send.
pub struct Package {
    /// The file it was read from.
    pub path: PathBuf,
    /// `manifest.xml`'s `uuid`: what the robot knows it by.
    pub uuid: String,
    /// `manifest.xml`'s `version`, when it has one.
    pub version: Option<String>,
    /// The `.pkg` file's bytes, sent as they are.
    pub bytes: Vec<u8>,
}

/// Reads `path` and checks it is a package the robot can install: a zip with
/// `manifest.xml` at its root, whose root element has a `uuid`. The error says why not.
pub(crate) fn read_package(path: &Path) -> Result<Package, String> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    if !bytes.starts_with(b"PK") {
        return Err(format!(
            "{shown}: not a package: a .pkg is a zip archive (Choregraphe's Build \
             application package, or `choreo package`)"
        ));
    }
    let unpacked = choreo_xar::archive::unpack(&shown, &bytes).map_err(|e| e.to_string())?;
    let Some(manifest) = unpacked.value.files.get("manifest.xml") else {
        return Err(format!(
            "{shown}: no manifest.xml at the package's root: the robot's PackageManager \
             installs only packages with one"
        ));
    };
    let manifest =
        choreo_xar::project_files::read_manifest(&format!("{shown}!manifest.xml"), manifest)
            .map_err(|e| e.to_string())?
            .value;
    let uuid = manifest
        .uuid
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| {
            format!(
                "{shown}!manifest.xml: the <package> element has no uuid: the robot installs a \
             package under its uuid"
            )
        })?;
    Ok(Package {
        path: path.to_path_buf(),
        uuid,
        version: manifest.version,
        bytes,
    })
}

/// How to install: where the package already is on the robot, and whether to keep the
/// installed one.
pub struct Options {
    /// A path on the robot where the package was copied (`install(s)`).
    pub remote_path: Option<String>,
    /// Do not call `removePkg(uuid)` first.
    pub keep_old: bool,
}

/// Checks `--remote-path`: an absolute path on the robot.
pub(crate) fn check_remote_path(path: &str) -> Result<(), String> {
    if path.starts_with('/') {
        Ok(())
    } else {
        Err(format!(
            "--remote-path {path:?}: expected an absolute path on the robot \
             (/home/nao/{{name}}.pkg)"
        ))
    }
}

/// Why a call failed: a lost robot is 7, anything the robot answered is 1.
fn failed(url: &str, what: &str, e: &Error) -> CliError {
    match e {
        Error::Disconnected(why) => {
            let why = why.strip_prefix(&format!("{url}: ")).unwrap_or(why);
            CliError::Robot(format!("{url}: the robot was lost during {what}: {why}"))
        }
        Error::Timeout(after) => {
            CliError::Robot(format!("{url}: {what} got no answer within {after:?}"))
        }
        other => CliError::No(format!("{url}: {what}: {other}")),
    }
}

/// Whether the PackageManager takes a `qi::File` (`install(o)`: NAOqi 2.5 and later).
fn takes_a_file(pm: &RemoteObject) -> bool {
    pm.meta_object()
        .methods_named("install")
        .any(|m| m.parameters_signature == "(o)")
}

/// A progress bar of the package's bytes on stderr (drawn only on a terminal).
fn progress_bar(size: u64) -> ProgressBar {
    let bar = ProgressBar::new(size);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {msg}") {
        bar.set_style(style);
    }
    bar
}

/// Installs `package` on the robot of `session` (at `url`).
pub fn install(
    session: &Session,
    url: &str,
    package: &Package,
    options: &Options,
    json: bool,
) -> CliResult {
    let pm = match session.service("PackageManager") {
        Ok(pm) => pm,
        Err(e @ Error::Disconnected(_)) => {
            return Err(failed(url, "looking for PackageManager", &e));
        }
        Err(e) => {
            return Err(CliError::No(format!(
                "{url}: no PackageManager service ({e}): NAOqi robots (2.1 and later) have one"
            )));
        }
    };
    let shown = package.path.display();
    // Before anything changes on the robot: can it take the package this way?
    if options.remote_path.is_none() && !takes_a_file(&pm) {
        return Err(CliError::No(format!(
            "{url}: this robot's PackageManager has no install(o) (NAOqi 2.1: it installs \
             only a package already on the robot). Copy it there first, then give its \
             path:\n  scp {shown} nao@{host}:/home/nao/{name}\n  choreo robot install \
             {url} {shown} --remote-path /home/nao/{name}",
            host = choreo_qi::session::parse_url(url)
                .map_or_else(|_| "ROBOT".to_string(), |u| u.host().to_string()),
            name = package
                .path
                .file_name()
                .map_or_else(|| "package.pkg".into(), |n| n.to_string_lossy())
        )));
    }
    let uuid = Value::String(package.uuid.clone());
    if !options.keep_old {
        // As qipkg: the package may not be installed; only a lost robot stops here.
        if let Err(e @ (Error::Disconnected(_) | Error::Timeout(_))) =
            pm.call("removePkg", std::slice::from_ref(&uuid))
        {
            return Err(failed(url, "removePkg", &e));
        }
    }
    let answer = match &options.remote_path {
        Some(path) => pm
            .call("install", &[Value::String(path.clone())])
            .map_err(|e| (format!("install({path:?})"), e)),
        None => send(&pm, package)?,
    };
    let version = package.version.as_deref().unwrap_or("(no version)");
    match answer {
        Ok(Value::Bool(true)) => {
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
                outln!("installed {} {version} on {url}", package.uuid);
            }
            Ok(exit::OK)
        }
        Ok(Value::Bool(false)) => Err(CliError::No(format!(
            "{url}: PackageManager.install refused {} {version} (it returned false: the \
                 robot's log says why)",
            package.uuid
        ))),
        Ok(other) => Err(CliError::No(format!(
            "{url}: PackageManager.install returned {other}, not a bool"
        ))),
        Err((what, e)) => Err(failed(url, &what, &e)),
    }
}

/// PackageManager's answer to an install, or the call that failed and why.
type Answer = Result<Value, (String, Error)>;

/// The package served to the robot as a file object and installed from it (libqi's
/// `qi::File`, read by PackageManager at its pace), a progress bar following its reads.
fn send(pm: &RemoteObject, package: &Package) -> CliResult<Answer> {
    let shown = package.path.display();
    let bar = progress_bar(package.bytes.len() as u64);
    let shown_bar = bar.clone();
    let file = match FileObject::observed(package.bytes.clone(), move |p| {
        let at = (p.fraction * p.size as f64).max(p.bytes_read as f64);
        shown_bar.set_position(at.min(p.size as f64) as u64);
    }) {
        Ok(f) => f,
        Err(e) => {
            return Err(CliError::No(format!(
                "{shown}: cannot serve the package: {e}"
            )));
        }
    };
    bar.set_message(format!("sending {}", package.uuid));
    let answer = pm
        .call_args("install", &[file.arg()])
        .map(|d| d.value)
        .map_err(|e| {
            let p = file.progress();
            (
                format!(
                    "install (the robot had read {} of {} bytes)",
                    p.bytes_read, p.size
                ),
                e,
            )
        });
    bar.finish_and_clear();
    Ok(answer)
}
