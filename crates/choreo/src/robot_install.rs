//! An application package installed on a robot (`choreo robot install URL PKG`) through
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

/// Why a package was not installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The package cannot be installed, found before the robot is reached: why.
    #[error("{0}")]
    Package(String),
    /// The robot answered no (no PackageManager, no way to take the package, the install
    /// refused): why.
    #[error("{0}")]
    Refused(String),
    /// The robot was lost or did not answer.
    #[error("{0}")]
    Lost(String),
}

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
pub fn read_package(path: &Path) -> Result<Package, InstallError> {
    read(path).map_err(InstallError::Package)
}

fn read(path: &Path) -> Result<Package, String> {
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
pub fn check_remote_path(path: &str) -> Result<(), InstallError> {
    if path.starts_with('/') {
        Ok(())
    } else {
        Err(InstallError::Package(format!(
            "--remote-path {path:?}: expected an absolute path on the robot \
             (/home/nao/{{name}}.pkg)"
        )))
    }
}

/// Why a call failed: a lost robot is 7, anything the robot answered is 1.
fn failed(url: &str, what: &str, e: &Error) -> InstallError {
    match e {
        Error::Disconnected(why) => {
            let why = why.strip_prefix(&format!("{url}: ")).unwrap_or(why);
            InstallError::Lost(format!("{url}: the robot was lost during {what}: {why}"))
        }
        Error::Timeout(after) => {
            InstallError::Lost(format!("{url}: {what} got no answer within {after:?}"))
        }
        other => InstallError::Refused(format!("{url}: {what}: {other}")),
    }
}

/// Whether the PackageManager takes a `qi::File` (`install(o)`: NAOqi 2.5 and later).
fn takes_a_file(pm: &RemoteObject) -> bool {
    pm.meta_object()
        .methods_named("install")
        .any(|m| m.parameters_signature == "(o)")
}

/// How far the robot read a package sent as a file: (bytes read, of the package's size).
pub type Progress = Box<dyn Fn(u64, u64) + Send + Sync>;

/// Installs `package` on the robot of `session` (at `url`); `progress` follows the robot's
/// reads of a package sent as a file.
pub fn install(
    session: &Session,
    url: &str,
    package: &Package,
    options: &Options,
    progress: Progress,
) -> Result<(), InstallError> {
    let pm = match session.service("PackageManager") {
        Ok(pm) => pm,
        Err(e @ Error::Disconnected(_)) => {
            return Err(failed(url, "looking for PackageManager", &e));
        }
        Err(e) => {
            return Err(InstallError::Refused(format!(
                "{url}: no PackageManager service ({e}): NAOqi robots (2.1 and later) have one"
            )));
        }
    };
    let shown = package.path.display();
    // Before anything changes on the robot: can it take the package this way?
    if options.remote_path.is_none() && !takes_a_file(&pm) {
        return Err(InstallError::Refused(format!(
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
        None => send(&pm, package, progress)?,
    };
    let version = package.version.as_deref().unwrap_or("(no version)");
    match answer {
        Ok(Value::Bool(true)) => Ok(()),
        Ok(Value::Bool(false)) => Err(InstallError::Refused(format!(
            "{url}: PackageManager.install refused {} {version} (it returned false: the \
                 robot's log says why)",
            package.uuid
        ))),
        Ok(other) => Err(InstallError::Refused(format!(
            "{url}: PackageManager.install returned {other}, not a bool"
        ))),
        Err((what, e)) => Err(failed(url, &what, &e)),
    }
}

/// PackageManager's answer to an install, or the call that failed and why.
type Answer = Result<Value, (String, Error)>;

/// The package served to the robot as a file object and installed from it (libqi's
/// `qi::File`, read by PackageManager at its pace), `progress` following its reads.
fn send(pm: &RemoteObject, package: &Package, progress: Progress) -> Result<Answer, InstallError> {
    let shown = package.path.display();
    let file = match FileObject::observed(package.bytes.clone(), move |p| {
        let at = (p.fraction * p.size as f64).max(p.bytes_read as f64);
        progress(at.min(p.size as f64) as u64, p.size);
    }) {
        Ok(f) => f,
        Err(e) => {
            return Err(InstallError::Refused(format!(
                "{shown}: cannot serve the package: {e}"
            )));
        }
    };
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
    Ok(answer)
}
