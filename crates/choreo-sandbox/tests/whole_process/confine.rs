//! `process::confine`, Landlock's signal scope on a whole process, and the box host's
//! whole order of calls.

use super::*;

const GIB: u64 = 1 << 30;

pub(crate) fn process_confine(checks: &mut Checks) {
    let dropped = std::fs::File::open("/dev/null").unwrap().into_raw_fd();
    let kept = std::fs::File::open("/dev/null").unwrap().into_raw_fd();
    let bounds = Bounds {
        memory: Some(4 * GIB),
        open_files: 64,
        file_size: Some(1 << 20),
        processes: Some(4096),
    };
    let filter = seccomp::filter(&Syscalls {
        net: Net::None,
        run: false,
        own_pid: getpid(),
    })
    .unwrap();
    let confined = process::confine(&bounds, &[kept], &filter);
    checks.check("confined", confined.is_ok(), &confined);
    // SAFETY: fcntl asks about a descriptor number.
    let flags = |fd| i64::from(unsafe { libc::fcntl(fd, libc::F_GETFD) });
    checks.fails("an fd not kept is closed", flags(dropped), libc::EBADF);
    checks.works("a kept fd is open", flags(kept));
    bounded(checks);
    let raised = libc::rlimit {
        rlim_cur: 128,
        rlim_max: 128,
    };
    // SAFETY: setrlimit reads the struct it is given.
    let ret = i64::from(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) });
    checks.check("raising NOFILE fails", ret == -1, last_errno());
    // SAFETY: mmap of anonymous memory (not touched); unmapped if it ever succeeds.
    let mapped = unsafe {
        let size = usize::try_from(8 * GIB).unwrap();
        let at = libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        if at != libc::MAP_FAILED {
            libc::munmap(at, size);
        }
        at != libc::MAP_FAILED
    };
    checks.check("8 GiB cannot be mapped under a 4 GiB bound", !mapped, ());
    // SAFETY: prctl asks.
    let dumpable = unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) };
    checks.check("not dumpable", dumpable == 0, dumpable);
    checks.check(
        "NoNewPrivs",
        status_field("NoNewPrivs:") == "1",
        status_field("NoNewPrivs:"),
    );
    for set in ["CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"] {
        let value = status_field(set);
        checks.check(set, value == "0000000000000000", &value);
    }
    checks.check(
        "seccomp",
        status_field("Seccomp:") == "2",
        status_field("Seccomp:"),
    );
    // SAFETY: fork; a child made by a failed filter leaves at once (refused_start).
    refused_start(
        checks,
        "fork refused",
        i64::from(unsafe { libc::fork() }),
        libc::EPERM,
    );
}

/// Each bound of `process_confine` is both its soft and its hard limit.
fn bounded(checks: &mut Checks) {
    for (what, resource, wanted) in [
        ("RLIMIT_NOFILE", libc::RLIMIT_NOFILE, 64),
        ("RLIMIT_AS", libc::RLIMIT_AS, 4 * GIB),
        ("RLIMIT_FSIZE", libc::RLIMIT_FSIZE, 1 << 20),
        ("RLIMIT_NPROC", libc::RLIMIT_NPROC, 4096),
        ("RLIMIT_CORE", libc::RLIMIT_CORE, 0),
    ] {
        let mut now = libc::rlimit {
            rlim_cur: 1,
            rlim_max: 1,
        };
        // SAFETY: getrlimit writes the struct it is given.
        unsafe { libc::getrlimit(resource, &mut now) };
        let held = now.rlim_cur == wanted && now.rlim_max == wanted;
        checks.check(
            &format!("{what} soft == hard == bound"),
            held,
            (now.rlim_cur, now.rlim_max),
        );
    }
}

// ---------------------------------------------------------------------------------------
// Landlock's signal scope

pub(crate) fn signal_scope_both_ways(case: &'static str) -> Result<(), String> {
    for scope in ["1", "0"] {
        let out = child(case)
            .env("SCOPE", scope)
            .output()
            .map_err(|e| e.to_string())?;
        judged(&out).map_err(|e| format!("SCOPE={scope}: {e}"))?;
    }
    Ok(())
}

pub(crate) fn landlock_signal_scope(checks: &mut Checks) {
    let scope = std::env::var("SCOPE").as_deref() == Ok("1");
    let parent = getppid();
    checks.works("kill(parent, 0) before", kill(parent, 0));
    let rules = Rules {
        scope_signals: scope,
        ..Rules::default()
    };
    let layer = Layer::new(&rules).unwrap();
    let enforced = layer.confine_this_thread();
    checks.check("confined", matches!(enforced, Ok(true)), &enforced);
    if scope {
        checks.fails("kill(parent, 0) scoped", kill(parent, 0), libc::EPERM);
    } else {
        checks.works("kill(parent, 0) not scoped", kill(parent, 0));
    }
    checks.works("kill(itself, 0)", kill(getpid(), 0));
}

// ---------------------------------------------------------------------------------------
// The box host's order: isolate, Landlock, process::confine.

pub(crate) fn box_host_order_parent(case: &'static str) -> Result<(), String> {
    let run = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let out = child(case)
        .env("RUN_DIR", run.path())
        .env("OUTSIDE", outside.path())
        .output()
        .map_err(|e| e.to_string())?;
    judged(&out)?;
    if !run.path().join("box.txt").exists() || outside.path().join("box.txt").exists() {
        return Err(told(
            &out,
            "the box wrote where it should not, or not where it should",
        ));
    }
    Ok(())
}

pub(crate) fn box_host_order(checks: &mut Checks) {
    let run = std::path::PathBuf::from(std::env::var_os("RUN_DIR").unwrap());
    let outside = std::path::PathBuf::from(std::env::var_os("OUTSIDE").unwrap());
    let isolated = isolation::isolate(false);
    checks.check(
        "namespaced",
        matches!(isolated, Ok(Isolation::Namespaced)),
        &isolated,
    );
    // (Python would start here: one thread still.)
    let rules = Rules {
        read: vec!["/".into()],
        write: vec![run.clone()],
        scope_signals: true,
        ..Rules::default()
    };
    let layer = Layer::new(&rules).unwrap();
    let enforced = layer.confine_this_thread();
    checks.check("Landlock enforced", matches!(enforced, Ok(true)), &enforced);
    // The ruleset's descriptor is the layer's: dropped before confine closes it.
    drop(layer);
    let filter = seccomp::filter(&Syscalls {
        net: Net::None,
        run: false,
        own_pid: getpid(),
    })
    .unwrap();
    let confined = process::confine(&Bounds::default(), &[], &filter);
    checks.check("confined", confined.is_ok(), &confined);
    let wrote = std::fs::write(run.join("box.txt"), "box");
    checks.check("writes in the run's folder", wrote.is_ok(), &wrote);
    let refused = std::fs::write(outside.join("box.txt"), "box");
    let denied = refused
        .as_ref()
        .err()
        .and_then(std::io::Error::raw_os_error);
    checks.check("refused outside", denied == Some(libc::EACCES), &refused);
    checks.fails("kill(init, 0)", kill(1, 0), libc::EPERM);
    checks.works("kill(itself, 0)", kill(getpid(), 0));
    checks.fails(
        "socket",
        socket(libc::AF_INET, libc::SOCK_STREAM, 0),
        libc::EACCES,
    );
    // SAFETY: fork; a child made by a failed filter leaves at once (refused_start).
    refused_start(
        checks,
        "fork",
        i64::from(unsafe { libc::fork() }),
        libc::EPERM,
    );
    let thread = std::thread::spawn(|| 42).join();
    checks.check("a thread starts", thread.is_ok(), ());
}

// ---------------------------------------------------------------------------------------
// As an ordinary user (a laptop's choreo), with and without the box host's namespaces.

/// `nobody`'s ids.
const NOBODY: libc::uid_t = 65534;

pub(crate) fn ordinary_user_both_ways(case: &'static str) -> Result<(), String> {
    // SAFETY: no arguments.
    if unsafe { libc::geteuid() } != 0 {
        println!("{case}: skipped, becoming another user needs root");
        return Ok(());
    }
    for mode in ["isolated", "plain"] {
        let out = child(case)
            .env("MODE", mode)
            .output()
            .map_err(|e| e.to_string())?;
        judged(&out).map_err(|e| format!("MODE={mode}: {e}"))?;
    }
    Ok(())
}

pub(crate) fn ordinary_user(checks: &mut Checks) {
    let isolated = std::env::var("MODE").as_deref() == Ok("isolated");
    // SAFETY: the process has one thread; it becomes `nobody` for good, then dumpable again
    // as a program it execs would be (so that it may write its own /proc/self maps).
    let became = unsafe {
        libc::setgroups(0, std::ptr::null())
            | libc::setgid(NOBODY)
            | libc::setuid(NOBODY)
            | libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0)
    };
    checks.check("became nobody", became == 0, last_errno());
    if isolated {
        let made = isolation::isolate(false);
        checks.check(
            "namespaced",
            matches!(made, Ok(Isolation::Namespaced)),
            &made,
        );
        let map = std::fs::read_to_string("/proc/self/uid_map").unwrap_or_default();
        let own = NOBODY.to_string();
        let mapped = map.split_whitespace().collect::<Vec<_>>() == [&own, &own, "1"];
        checks.check("its own uid mapped to itself", mapped, &map);
        // Every capability, but of its own user namespace only.
        let full = status_field("CapEff:") != "0000000000000000";
        checks.check(
            "capabilities in its namespace",
            full,
            status_field("CapEff:"),
        );
    }
    let filter = seccomp::filter(&Syscalls {
        net: Net::None,
        run: false,
        own_pid: getpid(),
    })
    .unwrap();
    let confined = process::confine(&Bounds::default(), &[], &filter);
    checks.check("confined", confined.is_ok(), &confined);
    for set in ["CapInh:", "CapPrm:", "CapEff:", "CapAmb:"] {
        let value = status_field(set);
        checks.check(set, value == "0000000000000000", &value);
    }
    // Without a namespace of its own, nobody cannot drop the bounding set (no CAP_SETPCAP),
    // which `no_new_privs` makes moot: it is left as it was.
    let bounding = status_field("CapBnd:");
    let dropped = bounding == "0000000000000000";
    checks.check(
        "CapBnd dropped where it can be",
        dropped == isolated,
        &bounding,
    );
    checks.check(
        "NoNewPrivs",
        status_field("NoNewPrivs:") == "1",
        status_field("NoNewPrivs:"),
    );
    checks.fails(
        "socket",
        socket(libc::AF_INET, libc::SOCK_STREAM, 0),
        libc::EACCES,
    );
}
