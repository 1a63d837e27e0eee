//! `isolation::isolate`: the namespaces, the processes it leaves, how its end is mirrored,
//! and where the kernel refuses.

use super::*;

/// Waits for `path` to hold something, up to `limit`.
pub(crate) fn wait_for_file(path: &Path, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if std::fs::read(path).is_ok_and(|b| !b.is_empty()) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// No process writes `marker` any more: its content stays the same over a second (a
/// writer, if any were left, writes every 50 ms).
pub(crate) fn marker_still(marker: &Path) -> Result<(), String> {
    std::thread::sleep(Duration::from_millis(500));
    let before = std::fs::read_to_string(marker).map_err(|e| format!("marker: {e}"))?;
    std::thread::sleep(Duration::from_secs(1));
    let after = std::fs::read_to_string(marker).map_err(|e| format!("marker: {e}"))?;
    if before == after {
        Ok(())
    } else {
        Err(format!(
            "a process left running still writes: {before:?} then {after:?}"
        ))
    }
}

/// Writes a counter into `marker` every 50 ms, for `life`.
pub(crate) fn write_marker(marker: &Path, life: Duration) {
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < life {
        n += 1;
        let _ = std::fs::write(marker, n.to_string());
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub(crate) fn isolate_namespaces_parent(case: &'static str) -> Result<(), String> {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("left-running");
    let out = child(case)
        .env("PORT", port.to_string())
        .env("PARENT_PID", std::process::id().to_string())
        .env("MARKER", &marker)
        .output()
        .map_err(|e| e.to_string())?;
    judged(&out)?;
    listener.set_nonblocking(true).unwrap();
    if listener.accept().is_ok() {
        return Err("a connection from the isolated child arrived".to_string());
    }
    marker_still(&marker)
}

pub(crate) fn isolate_namespaces(checks: &mut Checks) {
    let port: u16 = env_i32("PORT").try_into().unwrap();
    let parent = env_i32("PARENT_PID");
    let marker = std::env::var_os("MARKER").unwrap();
    // SAFETY: no arguments.
    let uid = unsafe { libc::geteuid() };
    let isolated = isolation::isolate(false);
    checks.check(
        "namespaced",
        matches!(isolated, Ok(Isolation::Namespaced)),
        &isolated,
    );
    checks.check("PID 2 of its namespace", getpid() == 2, getpid());
    checks.check("init is its parent", getppid() == 1, getppid());
    checks.fails("the test is not visible", kill(parent, 0), libc::ESRCH);
    let map = std::fs::read_to_string("/proc/self/uid_map").unwrap_or_default();
    let fields: Vec<&str> = map.split_whitespace().collect();
    let own = uid.to_string();
    let mapped = fields == [own.as_str(), own.as_str(), "1"];
    checks.check("its own uid mapped to itself", mapped, &map);
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let connected = TcpStream::connect_timeout(&address, Duration::from_secs(2));
    checks.check("no network", connected.is_err(), &connected);
    // A grandchild in a session of its own, orphaned: the namespace's end must end it.
    // SAFETY: fork in a single-threaded process; the children below only write a file,
    // sleep and exit.
    let middle = unsafe { libc::fork() };
    if middle == 0 {
        // SAFETY: as above.
        unsafe {
            libc::setsid();
            if libc::fork() != 0 {
                libc::_exit(0);
            }
            // Its standard output closed: the test's wait for the child's output does not
            // wait for it.
            for fd in 0..3 {
                libc::close(fd);
            }
        }
        write_marker(Path::new(&marker), Duration::from_secs(30));
        // SAFETY: ends the grandchild.
        unsafe { libc::_exit(0) };
    }
    // SAFETY: reaps the middle child.
    unsafe { libc::waitpid(middle, std::ptr::null_mut(), 0) };
    let wrote = wait_for_file(Path::new(&marker), Duration::from_secs(10));
    checks.check("the grandchild runs", wrote, ());
}

pub(crate) fn isolate_exit_code_parent(case: &'static str) -> Result<(), String> {
    let out = child(case).output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(7) && stdout.contains("namespaced, exiting 7") {
        Ok(())
    } else {
        Err(told(&out, "wanted exit code 7 from the box host"))
    }
}

pub(crate) fn isolate_exit_code(checks: &mut Checks) {
    let isolated = isolation::isolate(false);
    checks.check(
        "namespaced",
        matches!(isolated, Ok(Isolation::Namespaced)),
        &isolated,
    );
    println!("namespaced, exiting 7");
    std::process::exit(7);
}

pub(crate) fn isolate_signal_parent(case: &'static str) -> Result<(), String> {
    for (name, signal) in [("segv", libc::SIGSEGV), ("abort", libc::SIGABRT)] {
        let out = child(case)
            .env("SIGNAL", name)
            .output()
            .map_err(|e| e.to_string())?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if out.status.signal() != Some(signal) || !stdout.contains("namespaced, ending by") {
            return Err(told(
                &out,
                &format!("wanted the box host's signal {signal}"),
            ));
        }
    }
    Ok(())
}

pub(crate) fn isolate_signal(checks: &mut Checks) {
    let isolated = isolation::isolate(false);
    checks.check(
        "namespaced",
        matches!(isolated, Ok(Isolation::Namespaced)),
        &isolated,
    );
    let none = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let segv = std::env::var("SIGNAL").as_deref() == Ok("segv");
    println!(
        "namespaced, ending by {}",
        if segv { "SIGSEGV" } else { "abort" }
    );
    let _ = std::io::stdout().flush();
    // SAFETY: no core file; Rust's own SIGSEGV handler (stack overflows) set aside, so that
    // the signal ends the process as it would a C program.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        if segv {
            libc::signal(libc::SIGSEGV, libc::SIG_DFL);
            libc::raise(libc::SIGSEGV);
        }
    }
    std::process::abort();
}

/// The child's side of the cases below: isolated, writes a marker every 50 ms, says it is
/// ready once it did, and waits to be ended. With `ROLE=middle`, it stands for choreo
/// instead: starts the isolated child, says ready when it does, and waits.
pub(crate) fn isolate_then_wait(checks: &mut Checks) {
    let marker = std::env::var_os("MARKER").unwrap();
    if std::env::var("ROLE").as_deref() == Ok("middle") {
        let mut started = Command::new(std::env::current_exe().unwrap())
            .env(CHILD, std::env::var(CHILD).unwrap())
            .env("ROLE", "box")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut said = String::new();
        let mut stdout = BufReader::new(started.stdout.take().unwrap());
        while !said.ends_with("ready\n") {
            if stdout.read_line(&mut said).map_or(true, |n| n == 0) {
                checks.check("the box host says ready", false, &said);
                break;
            }
        }
        println!("ready");
        let _ = std::io::stdout().flush();
        // Killed by the test while it waits (the box host lives 30 s).
        let _ = started.wait();
        return;
    }
    let isolated = isolation::isolate(false);
    checks.check(
        "namespaced",
        matches!(isolated, Ok(Isolation::Namespaced)),
        &isolated,
    );
    let _ = std::fs::write(&marker, "0");
    println!("ready");
    let _ = std::io::stdout().flush();
    write_marker(Path::new(&marker), Duration::from_secs(30));
}

/// Starts `case`'s child (`ROLE=role`), waits for its `ready`, sends `signal` to the process
/// the test started, and returns how that ended, and the marker's folder.
pub(crate) fn signal_when_ready(
    case: &'static str,
    signal: i32,
    role: &str,
) -> Result<(std::process::ExitStatus, tempfile::TempDir), String> {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("box-host");
    let mut started = child(case)
        .env("MARKER", &marker)
        .env("ROLE", role)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    // Its checks' lines, then `ready` (or its end, when a check failed).
    let mut said = String::new();
    let mut stdout = BufReader::new(started.stdout.take().unwrap());
    while !said.ends_with("ready\n") {
        if stdout.read_line(&mut said).map_or(true, |n| n == 0) {
            let _ = started.kill();
            let _ = started.wait();
            return Err(format!("the child did not say ready: {said:?}"));
        }
    }
    let pid = i32::try_from(started.id()).unwrap();
    kill(pid, signal);
    let start = Instant::now();
    loop {
        if let Some(status) = started.try_wait().map_err(|e| e.to_string())? {
            return Ok((status, dir));
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = started.kill();
            let _ = started.wait();
            return Err(format!("still running 20 s after signal {signal}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(crate) fn isolate_sigterm_parent(case: &'static str) -> Result<(), String> {
    let (status, dir) = signal_when_ready(case, libc::SIGTERM, "box")?;
    if status.signal() != Some(libc::SIGTERM) {
        return Err(format!(
            "wanted SIGTERM passed on and mirrored, got {status:?}"
        ));
    }
    marker_still(&dir.path().join("box-host"))
}

pub(crate) fn isolate_sigkill_parent(case: &'static str) -> Result<(), String> {
    let (status, dir) = signal_when_ready(case, libc::SIGKILL, "box")?;
    if status.signal() != Some(libc::SIGKILL) {
        return Err(format!("wanted SIGKILL, got {status:?}"));
    }
    // The waiter cannot pass SIGKILL on: the box host dies by init's death signal, and the
    // namespace's end.
    marker_still(&dir.path().join("box-host"))
}

pub(crate) fn isolate_choreo_killed_parent(case: &'static str) -> Result<(), String> {
    // The middle process stands for choreo: killed, its child (the waiter) dies by its
    // death signal, set after the user namespace was made, and everything after it.
    let (status, dir) = signal_when_ready(case, libc::SIGKILL, "middle")?;
    if status.signal() != Some(libc::SIGKILL) {
        return Err(format!("wanted SIGKILL, got {status:?}"));
    }
    marker_still(&dir.path().join("box-host"))
}

pub(crate) fn isolate_threads(checks: &mut Checks) {
    let parent = getppid();
    let _thread = std::thread::spawn(|| {
        loop {
            std::thread::sleep(Duration::from_secs(60));
        }
    });
    let refused = isolation::isolate(false);
    let threads = matches!(refused, Err(isolation::Error::Threads(2)));
    checks.check("refused with the thread count", threads, &refused);
    checks.check("nothing forked", getppid() == parent, getppid());
    // process::confine too, before any of its steps.
    let filter = seccomp::filter(&Syscalls {
        net: Net::None,
        run: false,
        own_pid: getpid(),
    })
    .unwrap();
    let refused = process::confine(&Bounds::default(), &[], &filter);
    let threads = matches!(refused, Err(process::Error::Threads(2)));
    checks.check("confine refused with the thread count", threads, &refused);
    checks.check(
        "no filter",
        status_field("Seccomp:") == "0",
        status_field("Seccomp:"),
    );
    let open = std::fs::File::open("/dev/null").map(|_| ());
    checks.check("files as they were", open.is_ok(), &open);
}

/// What stays of the process when isolation is unavailable: the same parent (nothing
/// forked), the network, files.
pub(crate) fn still_usable(checks: &mut Checks) {
    let port: u16 = env_i32("PORT").try_into().unwrap();
    checks.check(
        "nothing forked",
        getppid() == env_i32("PARENT_PID"),
        getppid(),
    );
    let connected = TcpStream::connect(("127.0.0.1", port));
    checks.check("the network as it was", connected.is_ok(), &connected);
    let dir = std::env::var_os("DIR").unwrap();
    let wrote = std::fs::write(Path::new(&dir).join("usable.txt"), "x");
    checks.check("files as they were", wrote.is_ok(), &wrote);
}

/// A filter of the test's own that refuses `unshare` with EPERM when its flags hold
/// `flags`, as a container's seccomp profile does.
pub(crate) fn refuse_unshare(flags: i32) {
    use seccompiler::{
        SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    };
    let flags = u64::from(flags.cast_unsigned());
    let condition = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::MaskedEq(flags),
        flags,
    )
    .unwrap();
    let rules = [(
        libc::SYS_unshare,
        vec![SeccompRule::new(vec![condition]).unwrap()],
    )];
    let filter = SeccompFilter::new(
        rules.into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM.cast_unsigned()),
        std::env::consts::ARCH.try_into().unwrap(),
    )
    .unwrap();
    let program: seccompiler::BpfProgram = filter.try_into().unwrap();
    seccompiler::apply_filter(&program).unwrap();
}

pub(crate) fn isolate_no_user_namespace(checks: &mut Checks) {
    let uid_map = || std::fs::read_to_string("/proc/self/uid_map").unwrap_or_default();
    let before = uid_map();
    refuse_unshare(libc::CLONE_NEWUSER);
    let isolated = isolation::isolate(false);
    let said =
        matches!(&isolated, Ok(Isolation::Unavailable(why)) if why.contains("user namespace"));
    checks.check("unavailable, said", said, &isolated);
    let after = uid_map();
    checks.check(
        "still in its user namespace",
        after == before,
        (&before, &after),
    );
    still_usable(checks);
}

pub(crate) fn isolate_no_pid_namespace(checks: &mut Checks) {
    // SAFETY: no arguments.
    let uid = unsafe { libc::geteuid() }.to_string();
    refuse_unshare(libc::CLONE_NEWPID);
    let isolated = isolation::isolate(false);
    let said = matches!(&isolated, Ok(Isolation::Unavailable(why)) if why.contains("PID"));
    checks.check("unavailable, said", said, &isolated);
    let map = std::fs::read_to_string("/proc/self/uid_map").unwrap_or_default();
    let mapped = map.split_whitespace().collect::<Vec<_>>() == [&uid, &uid, "1"];
    checks.check("in its user namespace, its own ids", mapped, &map);
    still_usable(checks);
}
