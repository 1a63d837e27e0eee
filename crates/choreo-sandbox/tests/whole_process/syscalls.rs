//! The system call filter (`seccomp`): what each set of `Syscalls` refuses, and with which
//! errno, tried by a child that installed it.

use super::*;

pub(crate) fn seccomp_without_run(checks: &mut Checks) {
    let other = env_i32("OTHER_PID");
    let me = getpid();
    apply(Net::None, false);
    checks.check(
        "filter in place",
        status_field("Seccomp:") == "2",
        status_field("Seccomp:"),
    );
    no_sockets(checks);
    let traced = sys(libc::SYS_ptrace, &[libc::PTRACE_TRACEME as libc::c_long]);
    if traced == 0 {
        println!("FAILED ptrace(PTRACE_TRACEME) succeeded");
        // SAFETY: a traced process leaves at once.
        unsafe { libc::_exit(1) };
    }
    checks.fails("ptrace(PTRACE_TRACEME)", traced, libc::EPERM);
    let new_user = libc::CLONE_NEWUSER as libc::c_long;
    checks.fails(
        "unshare(CLONE_NEWUSER)",
        sys(libc::SYS_unshare, &[new_user]),
        libc::EPERM,
    );
    let clone_user = sys(libc::SYS_clone, &[new_user | libc::SIGCHLD as libc::c_long]);
    refused_start(checks, "clone(CLONE_NEWUSER)", clone_user, libc::EPERM);
    prlimits(checks);
    // A null clone_args of size 0: the kernel itself would say EINVAL.
    checks.fails("clone3", sys(libc::SYS_clone3, &[0, 0]), libc::ENOSYS);
    let thread = std::thread::spawn(|| 42).join();
    checks.check(
        "a thread starts (glibc falls back to clone)",
        thread.is_ok(),
        (),
    );
    // SAFETY: fork; a child made by a failed filter leaves at once (refused_start).
    refused_start(
        checks,
        "fork",
        i64::from(unsafe { libc::fork() }),
        libc::EPERM,
    );
    let started = Command::new("/bin/true").status();
    checks.check("a program does not start", started.is_err(), &started);
    checks.fails("kill(another process, 0)", kill(other, 0), libc::EPERM);
    checks.works("kill(itself, 0)", kill(me, 0));
    checks.fails("kill(0, 0): its process group", kill(0, 0), libc::EPERM);
    checks.fails("kill(-1, 0): every process", kill(-1, 0), libc::EPERM);
    // SAFETY: no arguments.
    let tid = libc::c_long::from(unsafe { libc::gettid() });
    let (me_l, other_l) = (libc::c_long::from(me), libc::c_long::from(other));
    checks.works("tgkill(itself, 0)", sys(libc::SYS_tgkill, &[me_l, tid, 0]));
    let tgkill_other = sys(libc::SYS_tgkill, &[other_l, other_l, 0]);
    checks.fails("tgkill(another, 0)", tgkill_other, libc::EPERM);
    checks.fails(
        "tkill(its thread, 0)",
        sys(libc::SYS_tkill, &[tid, 0]),
        libc::EPERM,
    );
    kernel_calls(checks);
}

/// Net::None: no socket, no listening; a connected pair still.
fn no_sockets(checks: &mut Checks) {
    checks.fails(
        "socket(AF_INET)",
        socket(libc::AF_INET, libc::SOCK_STREAM, 0),
        libc::EACCES,
    );
    checks.fails(
        "socket(AF_UNIX)",
        socket(libc::AF_UNIX, libc::SOCK_STREAM, 0),
        libc::EACCES,
    );
    checks.fails(
        "socket(AF_NETLINK)",
        socket(libc::AF_NETLINK, libc::SOCK_RAW, 0),
        libc::EACCES,
    );
    let (ret, pair) = socketpair(libc::SOCK_STREAM | libc::SOCK_CLOEXEC);
    checks.works("socketpair(AF_UNIX, SOCK_STREAM)", ret);
    // SAFETY: writes and reads one byte through the pair just made.
    let echoed = unsafe {
        let mut byte = 0u8;
        libc::write(pair[0], b"x".as_ptr().cast(), 1) == 1
            && libc::read(pair[1], (&raw mut byte).cast(), 1) == 1
            && byte == b'x'
    };
    checks.check("the pair carries bytes", echoed, ());
    checks.fails(
        "socketpair(SOCK_DGRAM)",
        socketpair(libc::SOCK_DGRAM).0,
        libc::EACCES,
    );
    // On a socketpair's socket the kernel would say EINVAL: EACCES is the filter's.
    // SAFETY: listen with integers.
    checks.fails(
        "listen",
        i64::from(unsafe { libc::listen(pair[0], 1) }),
        libc::EACCES,
    );
}

/// prlimit64 asks, never raises; setrlimit is refused.
pub(crate) fn prlimits(checks: &mut Checks) {
    let mut now = libc::rlimit64 {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let nofile = libc::RLIMIT_NOFILE as libc::c_long;
    let got = sys(
        libc::SYS_prlimit64,
        &[0, nofile, 0, (&raw mut now) as libc::c_long],
    );
    checks.works("prlimit64 gets", got);
    let raised = libc::rlimit64 {
        rlim_cur: now.rlim_max,
        rlim_max: now.rlim_max,
    };
    let set = sys(
        libc::SYS_prlimit64,
        &[0, nofile, (&raw const raised) as libc::c_long, 0],
    );
    checks.fails("prlimit64 sets", set, libc::EPERM);
    let set = sys(
        libc::SYS_setrlimit,
        &[nofile, (&raw const raised) as libc::c_long],
    );
    checks.fails("setrlimit", set, libc::EPERM);
}

/// What reaches the kernel itself: refused whatever the flags.
pub(crate) fn kernel_calls(checks: &mut Checks) {
    const PER_LINUX32: libc::c_long = 0x0008;
    let persona = sys(libc::SYS_personality, &[PER_LINUX32]);
    if persona >= 0 {
        sys(libc::SYS_personality, &[persona]);
    }
    checks.fails("personality(PER_LINUX32)", persona, libc::EPERM);
    checks.works(
        "personality(query)",
        sys(libc::SYS_personality, &[0xffff_ffff]),
    );
    checks.fails(
        "bpf(BPF_MAP_CREATE)",
        sys(libc::SYS_bpf, &[0, 0, 0]),
        libc::EPERM,
    );
    checks.fails(
        "io_uring_setup",
        sys(libc::SYS_io_uring_setup, &[1, 0]),
        libc::EPERM,
    );
    checks.fails("mount", sys(libc::SYS_mount, &[0, 0, 0, 0, 0]), libc::EPERM);
    checks.fails("keyctl", sys(libc::SYS_keyctl, &[0, 0]), libc::EPERM);
    let me = libc::c_long::from(getpid());
    checks.fails(
        "pidfd_open(itself)",
        sys(libc::SYS_pidfd_open, &[me, 0]),
        libc::EPERM,
    );
    let byte = 0u8;
    let tiocsti = libc::TIOCSTI as libc::c_long;
    let faked = sys(
        libc::SYS_ioctl,
        &[0, tiocsti, (&raw const byte) as libc::c_long],
    );
    // Standard input is /dev/null: the kernel itself would say ENOTTY.
    checks.fails("ioctl(TIOCSTI)", faked, libc::EPERM);
}

pub(crate) fn seccomp_with_run(checks: &mut Checks) {
    let other = env_i32("OTHER_PID");
    apply(Net::None, true);
    // SAFETY: fork in a single-threaded process; the child leaves at once.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: ends the child.
        unsafe { libc::_exit(3) };
    }
    let mut status = 0;
    // SAFETY: waitpid writes the status of the child just made.
    let reaped = pid > 0 && unsafe { libc::waitpid(pid, &mut status, 0) } == pid;
    checks.check(
        "fork works",
        reaped && libc::WEXITSTATUS(status) == 3,
        (pid, status),
    );
    let started = Command::new("/bin/true").status();
    let ran = started.as_ref().is_ok_and(|s| s.success());
    checks.check("a program starts", ran, &started);
    checks.works("kill(another process, 0)", kill(other, 0));
    let thread = std::thread::spawn(|| 42).join();
    checks.check("a thread starts", thread.is_ok(), ());
    checks.fails("clone3 still", sys(libc::SYS_clone3, &[0, 0]), libc::ENOSYS);
    let new_user = libc::CLONE_NEWUSER as libc::c_long;
    checks.fails(
        "unshare still",
        sys(libc::SYS_unshare, &[new_user]),
        libc::EPERM,
    );
    let clone_user = sys(libc::SYS_clone, &[new_user | libc::SIGCHLD as libc::c_long]);
    refused_start(
        checks,
        "clone(CLONE_NEWUSER) still",
        clone_user,
        libc::EPERM,
    );
    let ptraced = sys(
        libc::SYS_ptrace,
        &[libc::PTRACE_ATTACH as libc::c_long, other.into()],
    );
    checks.fails("ptrace(PTRACE_ATTACH) still", ptraced, libc::EPERM);
    checks.fails(
        "socket still",
        socket(libc::AF_INET, libc::SOCK_STREAM, 0),
        libc::EACCES,
    );
}

pub(crate) fn seccomp_net_hosts(checks: &mut Checks) {
    let port: u16 = env_i32("PORT").try_into().unwrap();
    apply(Net::Hosts, false);
    let stream = libc::SOCK_STREAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK;
    checks.works(
        "socket(AF_INET, SOCK_STREAM)",
        socket(libc::AF_INET, stream, 0),
    );
    let tcp6 = socket(libc::AF_INET6, libc::SOCK_STREAM, libc::IPPROTO_TCP);
    checks.works("socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP)", tcp6);
    let udp = socket(libc::AF_INET, libc::SOCK_DGRAM, 0);
    checks.fails("socket(AF_INET, SOCK_DGRAM)", udp, libc::EACCES);
    let raw = socket(libc::AF_INET, libc::SOCK_RAW, libc::IPPROTO_TCP);
    checks.fails("socket(AF_INET, SOCK_RAW)", raw, libc::EACCES);
    let sctp = socket(libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_SCTP);
    checks.fails(
        "socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)",
        sctp,
        libc::EACCES,
    );
    let netlink = socket(libc::AF_NETLINK, libc::SOCK_RAW, 0);
    checks.fails("socket(AF_NETLINK)", netlink, libc::EACCES);
    let unix = socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
    checks.fails("socket(AF_UNIX)", unix, libc::EACCES);
    let connected = TcpStream::connect(("127.0.0.1", port));
    checks.check("TCP connects", connected.is_ok(), &connected);
    let listening = TcpListener::bind("127.0.0.1:0");
    let refused = listening
        .as_ref()
        .err()
        .and_then(std::io::Error::raw_os_error);
    checks.check("listen refused", refused == Some(libc::EACCES), &listening);
}

pub(crate) fn seccomp_net_any(checks: &mut Checks) {
    apply(Net::Any, false);
    let udp = socket(libc::AF_INET, libc::SOCK_DGRAM, 0);
    checks.works("socket(AF_INET, SOCK_DGRAM)", udp);
    let udp6 = socket(libc::AF_INET6, libc::SOCK_DGRAM, 0);
    checks.works("socket(AF_INET6, SOCK_DGRAM)", udp6);
    let listening = TcpListener::bind("127.0.0.1:0");
    checks.check("listen works", listening.is_ok(), &listening);
    let unix = socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
    checks.fails("socket(AF_UNIX)", unix, libc::EACCES);
    let netlink = socket(libc::AF_NETLINK, libc::SOCK_RAW, 0);
    checks.fails("socket(AF_NETLINK)", netlink, libc::EACCES);
    let packet = socket(libc::AF_PACKET, libc::SOCK_RAW, 0);
    checks.fails("socket(AF_PACKET)", packet, libc::EACCES);
    let alg = socket(libc::AF_ALG, libc::SOCK_SEQPACKET, 0);
    checks.fails("socket(AF_ALG)", alg, libc::EACCES);
}
