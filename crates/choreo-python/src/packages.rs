//! Where NAOqi OS's Python packages are kept, and the interpreter that installs them and
//! runs package services' Python programs (docs/box-environment.md, "NAOqi OS's Python
//! packages" and "Package services"): one answer for box code (`python/packages.py`, through
//! `_choreo`) and for the service manager (the `choreo` crate).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use pyo3::prelude::*;

/// The environment variable naming the package cache.
pub const PACKAGES_VARIABLE: &str = "CHOREO_PACKAGES";

/// `major.minor` of the embedded Python (wheels are built for one).
fn minor() -> String {
    Python::attach(|py| {
        let v = py.version_info();
        format!("{}.{}", v.major, v.minor)
    })
}

/// The embedded Python's version, `3.11.7` (what `choreo --version` says box code runs in).
pub fn python_version() -> String {
    Python::attach(|py| {
        let v = py.version_info();
        format!("{}.{}.{}", v.major, v.minor, v.patch)
    })
}

/// The package cache and the interpreter, as they were when the interpreter was set up:
/// box code may change `sys.executable` or the environment afterwards, and what is installed
/// for it, outside its confinement, must not follow (docs/security.md).
static FOLDER: OnceLock<PathBuf> = OnceLock::new();
static INTERPRETER: OnceLock<PathBuf> = OnceLock::new();

/// Fixes the package cache and the interpreter (the runtime's set-up, before box code),
/// and makes the cache: the kernel's rules for box code name only folders that exist.
pub(crate) fn settle() {
    let _ = (std::fs::create_dir_all(packages_folder()), interpreter());
}

/// The package cache: `CHOREO_PACKAGES` if set, else `$XDG_CACHE_HOME` (or `~/.cache`)
/// `/choreo/naoqi-os-python<major.minor>`.
pub fn packages_folder() -> PathBuf {
    FOLDER.get_or_init(cache_folder).clone()
}

fn cache_folder() -> PathBuf {
    if let Some(given) = std::env::var_os(PACKAGES_VARIABLE).filter(|v| !v.is_empty()) {
        let given = PathBuf::from(given);
        return std::path::absolute(&given).unwrap_or(given);
    }
    cache_base()
        .join("choreo")
        .join(format!("naoqi-os-python{}", minor()))
}

/// The user's cache folder: `$XDG_CACHE_HOME`, else `~/.cache` (else the temporary folder).
pub(crate) fn cache_base() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
}

/// An interpreter of the embedded Python, to run pip and programs with: the process's
/// own when it is one of the embedded Python's installation (a program using the `choreo`
/// package, a venv's included), else `<prefix>/bin/python<major.minor>` (the `choreo`
/// command embeds the library of that prefix; the `python3` first on `PATH` may be
/// another Python's, which choreo's `PYTHONHOME` would mislead), else the name alone.
pub fn interpreter() -> PathBuf {
    INTERPRETER.get_or_init(embedded_interpreter).clone()
}

fn embedded_interpreter() -> PathBuf {
    let named = format!("python{}", minor());
    let (executable, prefixes) = Python::attach(|py| {
        let sys = py.import("sys").ok();
        let get =
            |name: &str| -> Option<String> { sys.as_ref()?.getattr(name).ok()?.extract().ok() };
        (get("executable"), [get("prefix"), get("base_prefix")])
    });
    let bins: Vec<PathBuf> = prefixes
        .into_iter()
        .flatten()
        .map(|p| PathBuf::from(p).join("bin"))
        .collect();
    if let Some(exe) = executable.map(PathBuf::from).filter(|e| {
        e.parent().is_some_and(|dir| bins.iter().any(|b| b == dir))
            && e.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("python"))
    }) {
        return exe;
    }
    bins.into_iter()
        .map(|b| b.join(&named))
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from(named))
}

/// Who installs for box code that runs in no box's turn (the load's scripts compiled before
/// any box is): in the box host, choreo's process over the lane (it may not write the cache
/// itself; `remote::served`); `None` elsewhere, this process.
static ELSEWHERE: OnceLock<Installer> = OnceLock::new();

/// An install done elsewhere: `None` when it could not be asked; else `install`'s answer.
pub(crate) type Installer = fn(&str) -> Option<Option<String>>;

/// Makes `install` the way a package is installed outside any box's turn (the box host's
/// start: through its lane).
pub(crate) fn install_elsewhere(install: Installer) {
    let _ = ELSEWHERE.set(install);
}

/// Installs NAOqi OS's package imported as `name` for box code outside any box's turn:
/// where [`install_elsewhere`] says, else here, on choreo's helper thread.
pub(crate) fn install_outside_a_box(name: &str) -> Option<String> {
    if let Some(elsewhere) = ELSEWHERE.get()
        && let Some(done) = elsewhere(name)
    {
        return done;
    }
    let name = name.to_string();
    choreo_sandbox::landlock::helped(move || install(&name))
}

/// Installs the pins of NAOqi OS's package imported as `name` into the cache (what is there
/// stays), under the cache's lock, with pip into a staging folder first; `None`, or why it
/// could not. The pins are choreo-robot's (`data/python.txt`), never box code's: this runs
/// outside box code's confinement (on choreo's helper thread, `python/packages.py`), pip in
/// a confined process of its own (`installer.rs`).
pub(crate) fn install(name: &str) -> Option<String> {
    use choreo_robot::python::{Install, packages_for};
    let all = packages_for(name);
    let Some(pins) = all.iter().find_map(|p| match &p.install {
        Install::Pins(pins) => Some(pins.clone()),
        _ => None,
    }) else {
        let why = all.iter().find_map(|p| match p.install {
            Install::Unavailable(why) => Some(why),
            _ => None,
        });
        return Some(why.unwrap_or("NAOqi OS ships no such package").to_string());
    };
    let shipped: Vec<String> = all.iter().map(|p| p.shipped()).collect();
    let cache = packages_folder();
    let failed = |what: &str, e: std::io::Error| Some(format!("{what} {}: {e}", cache.display()));
    if let Err(e) = std::fs::create_dir_all(&cache) {
        return failed("cannot make", e);
    }
    let lock = match std::fs::File::create(cache.join(".lock")) {
        Ok(f) => f,
        Err(e) => return failed("cannot lock", e),
    };
    if let Err(e) = lock.lock() {
        return failed("cannot lock", e);
    }
    // Another process may have installed it while this one waited.
    if installed(&cache, name) {
        return None;
    }
    // On the terminal, not in the trace: a run's trace is the same whether the cache was
    // filled before it or by it.
    eprintln!(
        "choreo: installing {} for NAOqi OS's {name} ({}), once, into {}",
        pins.join(" "),
        shipped.join("; "),
        cache.display()
    );
    let staging = match tempfile::Builder::new()
        .prefix(".install-")
        .tempdir_in(&cache)
    {
        Ok(d) => d,
        Err(e) => return failed("cannot stage in", e),
    };
    let tmp = match tempfile::Builder::new().prefix(".tmp-").tempdir_in(&cache) {
        Ok(d) => d,
        Err(e) => return failed("cannot stage in", e),
    };
    let mut args: Vec<String> = ["install", "--no-deps", "--no-input"]
        .into_iter()
        .chain(["--disable-pip-version-check", "--no-warn-script-location"])
        .chain(["--target"])
        .map(String::from)
        .collect();
    args.push(staging.path().display().to_string());
    args.extend(pins.iter().map(|p| p.to_string()));
    // pip's interpreter is the embedded one, in a process of its own held to the cache.
    let mut pip = crate::installer::pip(&interpreter(), &cache, tmp.path(), &args);
    pip.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let done = crate::installer::run(&mut pip);
    let done = match done {
        Ok(d) => d,
        Err(e) => return Some(format!("cannot run pip: {e}")),
    };
    if !done.status.success() {
        let text = String::from_utf8_lossy(if done.stderr.is_empty() {
            &done.stdout
        } else {
            &done.stderr
        })
        .into_owned();
        let last = text.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        return Some(format!("pip could not install {}: {last}", pins.join(" ")));
    }
    for entry in std::fs::read_dir(staging.path())
        .into_iter()
        .flatten()
        .flatten()
    {
        let target = cache.join(entry.file_name());
        if !target.exists() {
            let _ = std::fs::rename(entry.path(), target);
        }
    }
    None
}

/// Whether import `name` is in the cache: a package, a module, or an extension.
fn installed(cache: &Path, name: &str) -> bool {
    cache.join(name).is_dir()
        || cache.join(format!("{name}.py")).is_file()
        || std::fs::read_dir(cache)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                let file = e.file_name().to_string_lossy().into_owned();
                file.starts_with(&format!("{name}.")) && file.ends_with(".so")
            })
}
