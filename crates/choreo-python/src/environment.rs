//! Which standard library the embedded interpreter uses.
//!
//! CPython finds its standard library while it starts (`getpath`): from `PYTHONHOME` if set,
//! else from the first `python3` on `PATH` (an embedded interpreter has no executable of its
//! own, so it looks one up by name), else from the prefix built into the library; and it puts
//! `PYTHONPATH` before everything. With a pyenv or conda Python first on `PATH`, the
//! interpreter of `/usr/lib/.../libpython3.11.so` loads that other installation's modules
//! (`import ssl` then fails on symbols its `libpython` lacks); with a wrong `PYTHONHOME` it
//! does not start at all.
//!
//! The standard library must be the one of the `libpython` this process runs. That library
//! is found in `/proc/self/maps`, its installation prefix by walking up from its folder to
//! the first `lib/pythonX.Y/os.py`; when the environment would lead CPython elsewhere,
//! [`use_own_standard_library`] runs the program again (same process id, arguments and
//! streams) with `PYTHONHOME` set to that prefix and without `PYTHONPATH` and
//! `PYTHONPLATLIBDIR`. Setting the variables in the running process is not an option: it is
//! unsafe once threads exist, and CPython reads them when the first box script runs.
//!
//! A user's own module folders go in `CHOREO_PYTHONPATH` ([`USER_PATH_VARIABLE`]), read
//! when the interpreter is set up: they come after the standard library in `sys.path`.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// The variable that lists a user's module folders for box scripts (separated like `PATH`).
pub const USER_PATH_VARIABLE: &str = "CHOREO_PYTHONPATH";

/// Set in the environment of the program run again, so that it never runs itself twice.
pub(crate) const AGAIN_VARIABLE: &str = "CHOREO_PYTHON_ENVIRONMENT_SET";

/// The variables that point CPython at other modules, and are removed.
const REMOVED: [&str; 2] = ["PYTHONPATH", "PYTHONPLATLIBDIR"];

/// The Python installation of the `libpython` this process runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    /// The shared library (`/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0`).
    pub library: PathBuf,
    /// Its version, `3.11`.
    pub version: String,
    /// The installation prefix whose `lib/python3.11` is the standard library (`/usr`).
    pub prefix: PathBuf,
}

impl Installation {
    /// The installation of the `libpython` mapped into this process, if there is one (a
    /// statically linked interpreter, or a system without `/proc`, has none: then nothing is
    /// changed).
    pub fn of_this_process() -> Option<Installation> {
        let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
        maps.lines()
            .filter_map(|line| line.split_whitespace().nth(5))
            .map(Path::new)
            .find_map(Installation::of_library)
    }

    /// The installation of the shared library at `library` (`.../libpython3.11.so...`): the
    /// nearest folder above it that holds `lib/python3.11/os.py` (or `lib64/...`).
    pub fn of_library(library: &Path) -> Option<Installation> {
        let name = library.file_name()?.to_str()?;
        let rest = name.strip_prefix("libpython")?;
        let (version, _) = rest.split_once(".so")?;
        let version: String = version
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        if !version.contains('.') {
            return None;
        }
        let prefix = library.parent()?.ancestors().find(|dir| {
            ["lib", "lib64"].iter().any(|lib| {
                dir.join(lib)
                    .join(format!("python{version}"))
                    .join("os.py")
                    .is_file()
            })
        })?;
        Some(Installation {
            library: library.to_path_buf(),
            version,
            prefix: prefix.to_path_buf(),
        })
    }

    /// The changes the environment `get` describes needs so that CPython takes this
    /// installation's standard library: `(variable, Some(value))` to set, `(variable, None)`
    /// to remove. Empty when it already would.
    pub fn environment_changes(
        &self,
        get: impl Fn(&str) -> Option<OsString>,
    ) -> Vec<(&'static str, Option<OsString>)> {
        let mut changes: Vec<(&'static str, Option<OsString>)> = REMOVED
            .iter()
            .filter(|v| get(v).is_some())
            .map(|v| (*v, None))
            .collect();
        let home_is_ours =
            get("PYTHONHOME").is_some_and(|h| same_folder(Path::new(&h), &self.prefix));
        let home_needed = match get("PYTHONHOME") {
            Some(_) => !home_is_ours,
            None => first_on_path(get("PATH").as_deref(), "python3")
                .is_some_and(|found| !same_folder(&found, &self.prefix.join("bin"))),
        };
        if home_needed {
            changes.push(("PYTHONHOME", Some(self.prefix.clone().into_os_string())));
        }
        changes
    }
}

/// Whether two paths name the same folder (compared canonically when they exist).
fn same_folder(a: &Path, b: &Path) -> bool {
    let canonical = |p: &Path| dunce::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canonical(a) == canonical(b)
}

/// The folder of the first file `name` in the `PATH` list `path`.
fn first_on_path(path: Option<&OsStr>, name: &str) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .find(|dir| dir.join(name).is_file())
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir
            }
        })
}

/// Makes sure the embedded interpreter will use the standard library of the `libpython`
/// this process runs, whatever `PATH`, `PYTHONHOME` or `PYTHONPATH` say: when the
/// environment would lead it elsewhere, runs this program again in place (`exec`: same
/// process id, arguments and open files) with the changes of
/// [`Installation::environment_changes`], and so returns only if there is nothing to
/// change, or with the error that prevented it.
///
/// Call it first in `main`, before any thread starts and before any Python runs. Processes
/// that box scripts start inherit the changed environment.
pub fn use_own_standard_library() -> std::io::Result<()> {
    if std::env::var_os(AGAIN_VARIABLE).is_some() {
        return Ok(());
    }
    let Some(installation) = Installation::of_this_process() else {
        return Ok(());
    };
    let changes = installation.environment_changes(|v| std::env::var_os(v));
    if changes.is_empty() {
        return Ok(());
    }
    run_again(&changes)
}

#[cfg(unix)]
fn run_again(changes: &[(&'static str, Option<OsString>)]) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt as _;
    let program = std::env::current_exe()?;
    let mut args = std::env::args_os();
    let mut command = std::process::Command::new(program);
    if let Some(arg0) = args.next() {
        command.arg0(arg0);
    }
    command.args(args).env(AGAIN_VARIABLE, "1");
    for (variable, value) in changes {
        match value {
            Some(v) => command.env(variable, v),
            None => command.env_remove(variable),
        };
    }
    // Returns only on failure.
    Err(command.exec())
}

#[cfg(not(unix))]
fn run_again(_changes: &[(&'static str, Option<OsString>)]) -> std::io::Result<()> {
    Ok(())
}

/// The folders of [`USER_PATH_VARIABLE`], in order, empty entries left out.
pub(crate) fn user_folders() -> Vec<PathBuf> {
    std::env::var_os(USER_PATH_VARIABLE)
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_and_prefix_come_from_the_library_name_and_its_folders() {
        let tmp = std::env::temp_dir().join(format!("choreo-env-{}", std::process::id()));
        let lib = tmp.join("lib");
        std::fs::create_dir_all(lib.join("python3.42")).ok();
        std::fs::write(lib.join("python3.42/os.py"), "").ok();
        let found = Installation::of_library(&lib.join("libpython3.42d.so.1.0"));
        std::fs::remove_dir_all(&tmp).ok();
        let found = found.map(|i| (i.version, i.prefix));
        assert_eq!(found, Some(("3.42".to_string(), tmp)));
        assert_eq!(Installation::of_library(Path::new("/x/libc.so.6")), None);
    }

    #[test]
    fn changes_are_needed_only_for_a_foreign_home_path_or_python() {
        let ours = Installation {
            library: PathBuf::from("/p/lib/libpython3.11.so"),
            version: "3.11".into(),
            prefix: PathBuf::from("/nonexistent-prefix"),
        };
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |v: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == v)
                    .map(|(_, x)| OsString::from(x))
            }
        };
        assert!(ours.environment_changes(env(&[("PATH", "")])).is_empty());
        assert!(
            ours.environment_changes(env(&[("PYTHONHOME", "/nonexistent-prefix")]))
                .is_empty()
        );
        let home = Some(OsString::from("/nonexistent-prefix"));
        assert_eq!(
            ours.environment_changes(env(&[("PYTHONHOME", "/elsewhere"), ("PYTHONPATH", "/x")])),
            [("PYTHONPATH", None), ("PYTHONHOME", home.clone())]
        );
        // A `python3` first on PATH outside the prefix's `bin` needs the home set.
        let bin = std::env::temp_dir().join(format!("choreo-env-bin-{}", std::process::id()));
        std::fs::create_dir_all(&bin).ok();
        std::fs::write(bin.join("python3"), "#!/bin/sh\n").ok();
        let path = OsString::from(&bin);
        let changes = ours.environment_changes(|v| (v == "PATH").then(|| path.clone()));
        std::fs::remove_dir_all(&bin).ok();
        assert_eq!(changes, [("PYTHONHOME", home)]);
    }
}
