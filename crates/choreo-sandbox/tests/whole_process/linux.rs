//! Whole-process confinement tried for real: `isolation`, `seccomp`, `process`, and
//! Landlock's signal scope on a whole process.
//!
//! Why no libtest (`harness = false` in Cargo.toml): each of these changes the whole process
//! for good, and `isolate` needs a process of one thread, while libtest runs each test on a
//! thread of its own beside the main one. So `main` is both sides: run plainly, it is the
//! parent, which re-runs this binary once per case with `CHOREO_SANDBOX_CHILD=<case>` (cases
//! in parallel, each its own process); the child, single-threaded from its start, confines
//! itself, makes its attacks, prints a line per check and `checks done`, and exits 0 only if
//! every check held. The parent judges the child's exit and output, and what only the
//! outside can see (a process left running, a signal passed on). Arguments that are not
//! flags pick the cases whose name holds one of them.

#![allow(unsafe_code)] // the attacks are raw system calls
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's unwrap is its assertion

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::IntoRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use choreo_sandbox::isolation::{self, Isolation};
use choreo_sandbox::landlock::{Layer, Rules};
use choreo_sandbox::process::{self, Bounds};
use choreo_sandbox::seccomp::{self, Net, Syscalls};

#[path = "confine.rs"]
mod confine;
#[path = "namespaces.rs"]
mod namespaces;
#[path = "syscalls.rs"]
mod syscalls;

/// The variable that makes this binary a case's child.
const CHILD: &str = "CHOREO_SANDBOX_CHILD";

/// A case: its name, the parent's side (runs the child, judges), the child's side.
struct Case {
    name: &'static str,
    parent: fn(&'static str) -> Result<(), String>,
    child: fn(&mut Checks),
}

const CASES: &[Case] = &[
    Case {
        name: "seccomp_refuses_without_run_or_net",
        parent: with_other_process,
        child: syscalls::seccomp_without_run,
    },
    Case {
        name: "seccomp_with_run_starts_and_signals",
        parent: with_other_process,
        child: syscalls::seccomp_with_run,
    },
    Case {
        name: "seccomp_net_hosts_allows_tcp_only",
        parent: with_listener,
        child: syscalls::seccomp_net_hosts,
    },
    Case {
        name: "seccomp_net_any_allows_ip_not_unix",
        parent: plain,
        child: syscalls::seccomp_net_any,
    },
    Case {
        name: "process_confine_closes_bounds_and_drops",
        parent: plain,
        child: confine::process_confine,
    },
    Case {
        name: "process_confine_as_an_ordinary_user",
        parent: confine::ordinary_user_both_ways,
        child: confine::ordinary_user,
    },
    Case {
        name: "landlock_signal_scope_on_a_whole_process",
        parent: confine::signal_scope_both_ways,
        child: confine::landlock_signal_scope,
    },
    Case {
        name: "box_host_order_isolate_landlock_confine",
        parent: confine::box_host_order_parent,
        child: confine::box_host_order,
    },
    Case {
        name: "isolate_namespaces_and_kills_what_is_left",
        parent: namespaces::isolate_namespaces_parent,
        child: namespaces::isolate_namespaces,
    },
    Case {
        name: "isolate_mirrors_the_exit_code",
        parent: namespaces::isolate_exit_code_parent,
        child: namespaces::isolate_exit_code,
    },
    Case {
        name: "isolate_mirrors_the_signal",
        parent: namespaces::isolate_signal_parent,
        child: namespaces::isolate_signal,
    },
    Case {
        name: "isolate_passes_sigterm_on",
        parent: namespaces::isolate_sigterm_parent,
        child: namespaces::isolate_then_wait,
    },
    Case {
        name: "isolate_dies_with_its_parent",
        parent: namespaces::isolate_sigkill_parent,
        child: namespaces::isolate_then_wait,
    },
    Case {
        name: "isolate_dies_with_choreo",
        parent: namespaces::isolate_choreo_killed_parent,
        child: namespaces::isolate_then_wait,
    },
    Case {
        name: "isolate_and_confine_refuse_a_second_thread",
        parent: plain,
        child: namespaces::isolate_threads,
    },
    Case {
        name: "isolate_without_user_namespaces_is_unavailable",
        parent: with_listener,
        child: namespaces::isolate_no_user_namespace,
    },
    Case {
        name: "isolate_without_pid_namespaces_goes_on",
        parent: with_listener,
        child: namespaces::isolate_no_pid_namespace,
    },
];

pub fn main() {
    if let Ok(name) = std::env::var(CHILD) {
        let Some(case) = CASES.iter().find(|c| c.name == name) else {
            eprintln!("no case {name}");
            std::process::exit(2);
        };
        let mut checks = Checks::default();
        (case.child)(&mut checks);
        checks.finish();
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    // cargo-nextest lists a harness's tests with `--list --format terse` (`name: test`, one
    // a line; none with `--ignored`), then runs each as `--exact NAME`.
    if args.iter().any(|a| a == "--list") {
        if !args.iter().any(|a| a == "--ignored") {
            for case in CASES {
                println!("{}: test", case.name);
            }
        }
        return;
    }
    let exact = args.iter().any(|a| a == "--exact");
    let picks: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let chosen: Vec<&Case> = CASES
        .iter()
        .filter(|c| {
            picks.is_empty()
                || picks.iter().any(|p| {
                    if exact {
                        c.name == p.as_str()
                    } else {
                        c.name.contains(p.as_str())
                    }
                })
        })
        .collect();
    println!("\nrunning {} whole-process cases", chosen.len());
    let results: Vec<(&str, Result<(), String>, Duration)> = std::thread::scope(|s| {
        let running: Vec<_> = chosen
            .iter()
            .map(|case| {
                s.spawn(move || {
                    let start = Instant::now();
                    (case.name, (case.parent)(case.name), start.elapsed())
                })
            })
            .collect();
        running
            .into_iter()
            .map(|r| match r.join() {
                Ok(done) => done,
                Err(_) => (
                    "?",
                    Err("the parent side panicked".to_string()),
                    Duration::ZERO,
                ),
            })
            .collect()
    });
    let mut failed = 0;
    for (name, result, took) in &results {
        match result {
            Ok(()) => println!("test {name} ... ok ({:.1}s)", took.as_secs_f64()),
            Err(why) => {
                failed += 1;
                println!("test {name} ... FAILED\n{why}\n");
            }
        }
    }
    println!(
        "\nwhole-process: {} passed; {failed} failed\n",
        results.len() - failed
    );
    std::process::exit(i32::from(failed > 0));
}

// ---------------------------------------------------------------------------------------
// The child's side: checks, printed.

#[derive(Default)]
struct Checks {
    failed: usize,
}

impl Checks {
    fn check(&mut self, what: &str, held: bool, detail: impl std::fmt::Debug) {
        let mark = if held { "ok" } else { "FAILED" };
        println!("{mark:6} {what}: {detail:?}");
        if !held {
            self.failed += 1;
        }
    }

    /// A system call's return `ret` (-1 and errno when it failed) was that failure.
    fn fails(&mut self, what: &str, ret: i64, errno: i32) {
        let got = (ret == -1).then(last_errno);
        self.check(what, got == Some(errno), (ret, got, "wanted errno", errno));
    }

    /// A system call's return `ret` was a success.
    fn works(&mut self, what: &str, ret: i64) {
        let errno = (ret < 0).then(last_errno);
        self.check(what, ret >= 0, (ret, errno));
    }

    fn finish(&self) -> ! {
        println!("checks done, {} failed", self.failed);
        let _ = std::io::stdout().flush();
        std::process::exit(i32::from(self.failed > 0));
    }
}

fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn env_i32(name: &str) -> i32 {
    std::env::var(name).unwrap().parse().unwrap()
}

fn getpid() -> i32 {
    // SAFETY: no arguments.
    unsafe { libc::getpid() }
}

fn getppid() -> i32 {
    // SAFETY: no arguments.
    unsafe { libc::getppid() }
}

/// `syscall(2)` with up to six integer arguments (pointers as integers), its return as i64.
fn sys(number: libc::c_long, args: &[libc::c_long]) -> i64 {
    let a = |i: usize| args.get(i).copied().unwrap_or(0);
    // SAFETY: each call below passes arguments the kernel validates (null pointers, ids);
    // none hands it memory it may write but what the caller owns.
    unsafe { libc::syscall(number, a(0), a(1), a(2), a(3), a(4), a(5)) }
}

/// A call that creates a process, made on purpose to be refused: if it ever succeeds, the
/// child it made leaves at once.
fn refused_start(checks: &mut Checks, what: &str, ret: i64, errno: i32) {
    if ret == 0 {
        // SAFETY: ends the process made by a filter that failed to refuse it.
        unsafe { libc::_exit(0) };
    }
    if ret > 0 {
        // SAFETY: reaps that process.
        unsafe { libc::waitpid(ret as i32, std::ptr::null_mut(), libc::__WALL) };
    }
    checks.fails(what, ret, errno);
}

fn apply(net: Net, run: bool) {
    let syscalls = Syscalls {
        net,
        run,
        own_pid: getpid(),
    };
    seccomp::filter(&syscalls).unwrap().apply().unwrap();
}

fn socket(family: i32, kind: i32, protocol: i32) -> i64 {
    // SAFETY: socket with integers; a descriptor made is left open (the child exits soon).
    i64::from(unsafe { libc::socket(family, kind, protocol) })
}

fn socketpair(kind: i32) -> (i64, [i32; 2]) {
    let mut pair = [-1; 2];
    // SAFETY: socketpair writes two descriptors into `pair`.
    let ret = unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, pair.as_mut_ptr()) };
    (i64::from(ret), pair)
}

fn kill(pid: i32, signal: i32) -> i64 {
    // SAFETY: kill with integers (signal 0 only asks).
    i64::from(unsafe { libc::kill(pid, signal) })
}

fn status_field(name: &str) -> String {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// The parent's side.

fn child(case: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(CHILD, case).stdin(Stdio::null());
    command
}

/// The child ran to its end, every check held.
fn judged(out: &Output) -> Result<(), String> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && stdout.contains("checks done, 0 failed") {
        return Ok(());
    }
    Err(told(out, "the child's checks failed"))
}

fn told(out: &Output, what: &str) -> String {
    format!(
        "{what} ({:?})\n--- stdout\n{}--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn plain(case: &'static str) -> Result<(), String> {
    judged(&child(case).output().map_err(|e| e.to_string())?)
}

/// A process that is not the child's, killed when dropped.
struct Other(Child);

impl Other {
    fn start() -> Other {
        Other(Command::new("sleep").arg("30").spawn().unwrap())
    }
}

impl Drop for Other {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn with_other_process(case: &'static str) -> Result<(), String> {
    let other = Other::start();
    let out = child(case)
        .env("OTHER_PID", other.0.id().to_string())
        .output()
        .map_err(|e| e.to_string())?;
    judged(&out)
}

fn with_listener(case: &'static str) -> Result<(), String> {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let out = child(case)
        .env("PORT", port.to_string())
        .env("PARENT_PID", std::process::id().to_string())
        .env("DIR", dir.path())
        .output()
        .map_err(|e| e.to_string())?;
    judged(&out)
}
