//! Where NAOqi OS's Python packages are kept, and the interpreter that installs them and
//! runs package services' Python programs (docs/box-environment.md, "NAOqi OS's Python
//! packages" and "Package services"): one answer for box code (`python/packages.py`, through
//! `_choreo`) and for the service manager (the `choreo` crate).

use std::path::PathBuf;

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

/// The package cache: `CHOREO_PACKAGES` if set, else `$XDG_CACHE_HOME` (or `~/.cache`)
/// `/choreo/naoqi-os-python<major.minor>`.
pub fn packages_folder() -> PathBuf {
    if let Some(given) = std::env::var_os(PACKAGES_VARIABLE).filter(|v| !v.is_empty()) {
        let given = PathBuf::from(given);
        return std::path::absolute(&given).unwrap_or(given);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("choreo")
        .join(format!("naoqi-os-python{}", minor()))
}

/// An interpreter of the embedded Python, to run pip and programs with: the process's
/// own when it is one of the embedded Python's installation (a program using the `choreo`
/// package, a venv's included), else `<prefix>/bin/python<major.minor>` (the `choreo`
/// command embeds the library of that prefix; the `python3` first on `PATH` may be
/// another Python's, which choreo's `PYTHONHOME` would mislead), else the name alone.
pub fn interpreter() -> PathBuf {
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
