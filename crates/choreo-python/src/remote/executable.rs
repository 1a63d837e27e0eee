//! Which program is started as the box host, and the environment it is given.
//!
//! The box host is choreo's own code: the `choreo` program started with `__box-host` (the
//! command line's runs start their own executable), or a Python interpreter importing
//! choreo's extension module (the Python package's runs, which name it with
//! [`Executable::set_default`]). A program that embeds choreo's Rust API names its own
//! executable the same way after calling [`crate::remote::serve_box_host`] first thing in
//! `main`; tests find the `choreo` program built beside them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The first argument that makes a program the box host.
pub const BOX_HOST_ARGUMENT: &str = "__box-host";

/// The variable that names the program to start as the box host (a `choreo` executable).
pub const BOX_HOST_VARIABLE: &str = "CHOREO_BOX_HOST";

/// A program and its arguments that serve as the box host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executable {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// No program could be found to start as the box host.
#[derive(Debug, thiserror::Error)]
#[error(
    "no program to run box code in a process of its own: this program does not serve as the \
     box host, and no `choreo` executable was found ({BOX_HOST_VARIABLE} names one)"
)]
pub struct NoExecutable;

/// The process's own choice ([`Executable::set_default`]).
static DEFAULT: OnceLock<Executable> = OnceLock::new();

impl Executable {
    /// A `choreo` program at `path`, started with [`BOX_HOST_ARGUMENT`].
    pub fn choreo(path: &Path) -> Executable {
        Executable {
            program: path.to_path_buf(),
            args: vec![BOX_HOST_ARGUMENT.into()],
        }
    }

    /// Makes `executable` the box host of this process's runs (the first call wins).
    pub fn set_default(executable: Executable) {
        let _ = DEFAULT.set(executable);
    }

    /// This program itself, when it serves as the box host (its `main` calls
    /// [`crate::remote::serve_box_host`] first).
    pub fn this_program() -> Executable {
        // Linux names the running file itself, however it was moved or replaced since it
        // started; elsewhere its path is what there is.
        if cfg!(target_os = "linux") {
            return Executable::choreo(Path::new("/proc/self/exe"));
        }
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("choreo"));
        Executable::choreo(&exe)
    }

    /// The box host of this process's runs: [`BOX_HOST_VARIABLE`], else the process's own
    /// choice, else a `choreo` program beside this one (or one folder up: a test beside
    /// the programs cargo built).
    pub fn find() -> Result<Executable, NoExecutable> {
        if let Some(named) = std::env::var_os(BOX_HOST_VARIABLE).filter(|v| !v.is_empty()) {
            return Ok(Executable::choreo(Path::new(&named)));
        }
        if let Some(chosen) = DEFAULT.get() {
            return Ok(chosen.clone());
        }
        let exe = std::env::current_exe().map_err(|_| NoExecutable)?;
        exe.ancestors()
            .skip(1)
            .take(2)
            .map(|dir| dir.join(format!("choreo{}", std::env::consts::EXE_SUFFIX)))
            .find(|p| p.is_file())
            .map(|p| Executable::choreo(&p))
            .ok_or(NoExecutable)
    }
}

/// The box host's environment: what a robot's box code sees (NAOqi's home, a plain `PATH`,
/// Python 2's fixed string hashing), and what its interpreter needs to find its standard
/// library; none of the user's variables (tokens, keys) but `CHOREO_PYTHONPATH`.
pub(crate) fn environment() -> Vec<(OsString, OsString)> {
    let mut vars: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
        ("HOME".into(), "/home/nao".into()),
        ("USER".into(), "nao".into()),
        ("LANG".into(), "C.UTF-8".into()),
        // NAOqi's Python 2.7 hashes strings the same every run (no -R): so does box code here.
        ("PYTHONHASHSEED".into(), "0".into()),
        ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
    ];
    if let Some(installation) = crate::environment::Installation::of_this_process() {
        vars.push(("PYTHONHOME".into(), installation.prefix.into_os_string()));
        vars.push((crate::environment::AGAIN_VARIABLE.into(), "1".into()));
    }
    if let Some(user) = std::env::var_os(crate::environment::USER_PATH_VARIABLE) {
        vars.push((crate::environment::USER_PATH_VARIABLE.into(), user));
    }
    // NAOqi OS's packages: the same cache as choreo's process, which installs into it for
    // box code (`packages::packages_folder` reads these the same way on both sides).
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(given) = set(crate::packages::PACKAGES_VARIABLE) {
        let given = std::path::PathBuf::from(given);
        let given = std::path::absolute(&given).unwrap_or(given);
        vars.push((
            crate::packages::PACKAGES_VARIABLE.into(),
            given.into_os_string(),
        ));
    }
    let cache = crate::packages::cache_base();
    vars.push(("XDG_CACHE_HOME".into(), cache.into_os_string()));
    // Windows: a process without these cannot start its sockets or random numbers
    // (`SYSTEMROOT`), nor find the DLLs beside its Python (`PATH`): the parent's, as is.
    if cfg!(windows) {
        for name in ["SYSTEMROOT", "WINDIR", "TEMP", "TMP", "PATH"] {
            if let Some(value) = std::env::var_os(name) {
                vars.retain(|(n, _)| n != name);
                vars.push((name.into(), value));
            }
        }
    }
    vars
}
