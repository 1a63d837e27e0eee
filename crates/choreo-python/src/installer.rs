//! The package installer's process (pip, for NAOqi OS's packages: `packages::install`):
//! box code asks for it, so it runs as a helper of its own, held from its first instruction
//! by the kernel (Landlock, set between the fork and the exec) to what an install needs —
//! it writes only the package cache, reads only the Python it runs on and the system's
//! libraries and network settings, starts only that Python, and connects only to the ports
//! a package index is served on — with an environment of choreo's making, not box code's
//! nor the whole user's (docs/security.md, "The package installer").

use std::path::{Path, PathBuf};
use std::process::Command;

use pyo3::prelude::*;

/// The installs running now (each pip's handle: on Linux a pidfd, which names that process
/// and no other even once it ended), and whether installs were stopped.
static RUNNING: std::sync::Mutex<(Vec<(u64, choreo_sandbox::child::Handle)>, bool)> =
    std::sync::Mutex::new((Vec::new(), false));

/// Stops every install running now and refuses those asked for later: the user stopped
/// the run (Ctrl-C) while its load waits for pip, which a slow index can hold for minutes.
/// Each stopped install fails as pip failing would, and the load goes on to its stop.
pub fn stop_installs() {
    let mut running = choreo_base::lock(&RUNNING);
    running.1 = true;
    for (_, pip) in &running.0 {
        pip.kill();
    }
}

/// Runs `command` (pip), to its end or [`stop_installs`]: its output, or why it could not
/// run.
pub(crate) fn run(command: &mut Command) -> std::io::Result<std::process::Output> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let stopped = || std::io::Error::other("installs were stopped (Ctrl-C)");
    let (child, id) = {
        // Started and listed under the lock: a stop comes before or after, never between.
        let mut running = choreo_base::lock(&RUNNING);
        if running.1 {
            return Err(stopped());
        }
        let child = command.spawn()?;
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if let Ok(pip) = choreo_sandbox::child::Handle::of(&child) {
            running.0.push((id, pip));
        }
        (child, id)
    };
    let output = child.wait_with_output();
    let mut running = choreo_base::lock(&RUNNING);
    running.0.retain(|(i, _)| *i != id);
    match output {
        Ok(o) if running.1 && !o.status.success() => Err(stopped()),
        other => other,
    }
}

/// The user's settings an install honours: how to reach the index (proxies, another index,
/// certificates). Everything else in the environment is left out.
const PASSED: [&str; 14] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_TRUSTED_HOST",
    "PIP_CERT",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "PYTHONHOME",
];

/// What of `/etc` an install reads: names and addresses, certificates, OpenSSL's and the
/// dynamic linker's settings, which system this is (pip names it to the index, and stops
/// when it cannot read it). Not the rest (`/etc/ssl/private`, `/etc/shadow`).
const SYSTEM_READ: [&str; 24] = [
    "/etc/os-release",
    "/etc/debian_version",
    "/etc/lsb-release",
    "/etc/redhat-release",
    "/etc/fedora-release",
    "/etc/centos-release",
    "/etc/system-release",
    "/etc/alpine-release",
    "/usr",
    "/lib",
    "/lib64",
    "/etc/ssl/certs",
    "/etc/ssl/openssl.cnf",
    "/etc/ca-certificates",
    "/etc/pki/tls/certs",
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/mime.types",
    "/dev/urandom",
];

/// The command that runs pip with `args` in `interpreter`, writing only beneath `cache`
/// (its temporary files in `tmp`, there too), ending if the thread that starts it ends.
/// Without Landlock in the kernel it runs with the environment alone fixed.
pub(crate) fn pip(interpreter: &Path, cache: &Path, tmp: &Path, args: &[String]) -> Command {
    let mut command = Command::new(interpreter);
    command
        .args(["-s", "-m", "pip"])
        .args(args)
        .current_dir(tmp)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", tmp)
        .env("TMPDIR", tmp)
        .env("LANG", "C.UTF-8")
        .env("PIP_NO_PYTHON_VERSION_WARNING", "1")
        .env("PIP_ROOT_USER_ACTION", "ignore")
        .env("PIP_NO_CACHE_DIR", "1")
        .env("PIP_CONFIG_FILE", "/dev/null");
    for name in PASSED {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    // A run that ends mid-install (its time limit, Ctrl-C) ends pip too: the install is
    // staged, so nothing half-made is left in the cache.
    choreo_sandbox::child::dies_with_starter(&mut command);
    let rules = rules(interpreter, cache);
    if let Ok(layer) = choreo_sandbox::landlock::Layer::new(&rules) {
        // A kernel that cannot is said by the run's own notice; the install goes on.
        let _ = layer.confine_program(&mut command);
    }
    command
}

/// The installer's rules: `cache` written; the Python of `interpreter` read and run; the
/// system's parts [`SYSTEM_READ`]; TCP to 443, 80 and the ports the index and proxy
/// settings name.
fn rules(interpreter: &Path, cache: &Path) -> choreo_sandbox::landlock::Rules {
    let mut python = prefixes();
    python.extend(interpreter.parent().map(Path::to_path_buf));
    if let Ok(real) = dunce::canonicalize(interpreter) {
        python.extend(real.parent().and_then(Path::parent).map(Path::to_path_buf));
    }
    let mut read: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
    read.extend(python.iter().cloned());
    choreo_sandbox::landlock::Rules {
        read,
        write: vec![cache.to_path_buf(), PathBuf::from("/dev/null")],
        connect: Some(ports()),
        bind: Some(Vec::new()),
        run: false,
        execute: python,
        scope_signals: true,
    }
}

/// The embedded Python's prefixes (`sys.prefix`, `sys.base_prefix`).
fn prefixes() -> Vec<PathBuf> {
    Python::attach(|py| {
        let Ok(sys) = py.import("sys") else {
            return Vec::new();
        };
        ["prefix", "base_prefix", "exec_prefix"]
            .iter()
            .filter_map(|name| sys.getattr(*name).ok()?.extract::<String>().ok())
            .map(PathBuf::from)
            .collect()
    })
}

/// The ports an install connects to: HTTPS and HTTP, and each port an index or proxy
/// setting names (`https://mirror.local:8443/simple`).
fn ports() -> Vec<u16> {
    let mut ports = vec![443, 80];
    for name in PASSED {
        let Some(value) = std::env::var_os(name) else {
            continue;
        };
        for url in value.to_string_lossy().split([' ', ',']) {
            if let Some(port) = port_of(url) {
                ports.push(port);
            }
        }
    }
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The port a URL names (`http://proxy:3128` → 3128), if it names one.
fn port_of(url: &str) -> Option<u16> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let (_, port) = host.rsplit_once(':')?;
    port.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::port_of;

    #[test]
    fn a_url_s_port_is_read_and_none_is_made_up() {
        assert_eq!(port_of("http://proxy.corp:3128"), Some(3128));
        assert_eq!(port_of("https://u:p@mirror.local:8443/simple"), Some(8443));
        assert_eq!(port_of("https://pypi.org/simple"), None);
        assert_eq!(port_of("mirror:81"), Some(81));
        assert_eq!(port_of("[::1]"), None);
    }
}
