//! The kernel's filter of the box host's system calls (seccomp-bpf, through the
//! `seccompiler` crate): what Landlock cannot say — the calls that reach the kernel itself
//! (modules, mounts, namespaces, BPF, io_uring, the clock), other processes (`ptrace`,
//! another's memory, signals), new processes without `--allow-run`, and sockets of a family
//! or type the run was not given.
//!
//! A refused call fails with an errno (`EPERM`, `EACCES` for sockets, `ENOSYS` for `clone3`),
//! never kills: box code gets an `OSError` at its line, which the run reports. Everything not
//! named here is allowed: the filter narrows a Python that must still run.
//!
//! The filter is built for the whole process and installed on all its threads at once
//! (`SECCOMP_FILTER_FLAG_TSYNC`); it holds for the programs the process starts (with
//! `--allow-run`), and nothing undoes it.
//!
//! What a filter can read is a call's number and its integer arguments, never the memory
//! they point to: a socket's family and type are integers (judged), an address to connect to
//! is not (Landlock judges the port). A call of another ABI than the process's own (32-bit
//! `int 0x80` on x86-64) is not mapped to these numbers: the filter kills the process there
//! (seccompiler's architecture check), which nothing a 64-bit Python does reaches.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op,
    SeccompCondition as Cond, SeccompFilter, SeccompRule, TargetArch,
};

/// What box code's process may do with the network (besides the sockets it was handed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Net {
    /// No socket at all (a pair of connected Unix sockets, `socketpair`, still: it reaches
    /// nothing); no listening.
    None,
    /// TCP (IPv4 and IPv6 stream sockets) to the hosts the run was given: the caller's
    /// Landlock rules give the ports; no listening, no UDP.
    Hosts,
    /// IPv4 and IPv6 sockets of any type, listening included: every host. Unix sockets stay
    /// refused (they reach the machine's own services, not a host).
    Any,
}

/// What the filter lets box code's process do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Syscalls {
    /// Its network.
    pub net: Net,
    /// It may start programs and processes (`--allow-run`): `execve`, `fork`, and signals to
    /// any process. Without it, a signal may go only to its own process (`kill`, `tgkill`
    /// and `rt_*sigqueueinfo` whose target is `own_pid`; `tkill`, which names no process,
    /// refused). With it, signals are bounded by the caller's PID namespace
    /// ([`crate::isolation`]) and Landlock's signal scope, not here.
    pub run: bool,
    /// The process's own id as it sees it (`getpid()` after [`crate::isolation::isolate`]).
    pub own_pid: i32,
}

/// Why a filter could not be made or installed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// seccompiler knows no filter for this machine's architecture.
    #[error("no system call filter for this machine's architecture ({0})")]
    Arch(&'static str),
    /// The rules did not compile (a bug of this module, said rather than hidden).
    #[error("the system call filter could not be compiled: {0}")]
    Compile(#[from] seccompiler::BackendError),
    /// The kernel refused the filter.
    #[error("the system call filter could not be installed: {0}")]
    Install(#[from] seccompiler::Error),
}

/// A filter compiled ahead of time: installing it allocates nothing, so it may be applied
/// anywhere (after a fork, on a process low on memory).
#[derive(Debug, Clone)]
pub struct Filter {
    /// One program per errno (a seccompiler filter has one match action): the kernel runs
    /// them all and takes the strictest answer; no call is named by two of them.
    programs: Vec<BpfProgram>,
}

impl Filter {
    /// Installs the filter on every thread of this process (and sets `no_new_privs`, which a
    /// filter needs), for the rest of its life.
    pub fn apply(&self) -> Result<(), Error> {
        for program in &self.programs {
            seccompiler::apply_filter_all_threads(program)?;
        }
        Ok(())
    }
}

/// The calls refused with `EPERM` always: they reach the kernel itself (modules, mounts,
/// namespaces, keys, BPF, the clock, the machine's name), another process's memory, or
/// ways around the filter (io_uring runs calls the filter never sees; `open_by_handle_at`
/// opens a file by its handle, past Landlock's paths).
const REFUSED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_process_madvise,
    libc::SYS_process_mrelease,
    libc::SYS_pidfd_open,
    libc::SYS_pidfd_send_signal,
    libc::SYS_pidfd_getfd,
    libc::SYS_kcmp,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_quotactl_fd,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_fanotify_init,
    libc::SYS_lookup_dcookie,
    libc::SYS_vhangup,
    libc::SYS_syslog,
    // Python's `resource.setrlimit` calls prlimit64 (judged below); setrlimit itself only
    // raises or lowers what the caller bounded.
    #[cfg(target_arch = "x86_64")]
    libc::SYS_setrlimit,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_uselib,
];

/// The calls that start a program or a process, refused without `run` (a thread, `clone`
/// with `CLONE_THREAD`, stays allowed: see [`clone_rules`]).
const STARTS: &[libc::c_long] = &[
    libc::SYS_execve,
    libc::SYS_execveat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_fork,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_vfork,
];

/// The flags that make `clone` start a namespace (refused as `unshare` is).
const CLONE_NEW: &[libc::c_int] = &[
    libc::CLONE_NEWNS,
    libc::CLONE_NEWCGROUP,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWTIME,
];

/// `personality`'s argument that only asks (Python's `platform` may): allowed.
const PERSONALITY_QUERY: u64 = 0xffff_ffff;

/// A socket's type is its low four bits; the rest are `SOCK_NONBLOCK` and `SOCK_CLOEXEC`.
const SOCK_TYPE_MASK: u64 = 0xf;

/// Rules per system call: the call is refused when any of its rules matches (all of a
/// rule's conditions); no rule at all refuses it whatever its arguments.
type Rules = BTreeMap<i64, Vec<SeccompRule>>;

/// The filter for `syscalls`, compiled.
pub fn filter(syscalls: &Syscalls) -> Result<Filter, Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| Error::Arch(std::env::consts::ARCH))?;
    let mut programs = Vec::with_capacity(4);
    for (errno, rules) in [
        (libc::EPERM, refused_rules(syscalls)?),
        (libc::EACCES, net_rules(syscalls.net)?),
        (libc::ENOSYS, clone3_rules()),
    ] {
        let errno = u32::try_from(errno).unwrap_or(1);
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno),
            arch,
        )?;
        programs.push(BpfProgram::try_from(filter)?);
    }
    if let Some(guard) = x32_guard() {
        programs.push(guard);
    }
    Ok(Filter { programs })
}

/// A condition on a call's argument `arg` (32 bits: every argument judged here is an `int`
/// or flags the kernel reads as 32 bits, but `prlimit64`'s pointer).
fn arg(arg: u8, op: Op, value: u64) -> Result<Cond, Error> {
    Ok(Cond::new(arg, Len::Dword, op, value)?)
}

/// A rule of one condition.
fn when(cond: Cond) -> Result<SeccompRule, Error> {
    Ok(SeccompRule::new(vec![cond])?)
}

/// A process id as the 32 bits a filter compares.
fn pid_value(pid: i32) -> u64 {
    u64::from(pid.cast_unsigned())
}

/// The calls refused with `EPERM`.
fn refused_rules(syscalls: &Syscalls) -> Result<Rules, Error> {
    let mut rules = Rules::new();
    for &call in REFUSED {
        rules.insert(call, Vec::new());
    }
    rules.insert(
        libc::SYS_personality,
        vec![when(arg(0, Op::Ne, PERSONALITY_QUERY)?)?],
    );
    // prlimit64(pid, resource, new, old): a new limit (a non-null pointer) is refused, a get
    // is not.
    rules.insert(
        libc::SYS_prlimit64,
        vec![when(Cond::new(2, Len::Qword, Op::Ne, 0)?)?],
    );
    // A terminal's input faked (TIOCSTI) or its selection pasted (TIOCLINUX): keystrokes
    // for the user's shell once the run ends.
    rules.insert(
        libc::SYS_ioctl,
        vec![
            when(arg(1, Op::Eq, libc::TIOCSTI)?)?,
            when(arg(1, Op::Eq, libc::TIOCLINUX)?)?,
        ],
    );
    rules.insert(libc::SYS_clone, clone_rules(syscalls.run)?);
    if !syscalls.run {
        for &call in STARTS {
            rules.insert(call, Vec::new());
        }
        let others = || -> Result<Vec<SeccompRule>, Error> {
            Ok(vec![when(arg(0, Op::Ne, pid_value(syscalls.own_pid))?)?])
        };
        // kill(pid, sig), tgkill(tgid, tid, sig), rt_sigqueueinfo(tgid, ...),
        // rt_tgsigqueueinfo(tgid, tid, ...): the first argument names the process. kill's 0
        // and negatives (a process group, every process) are not its own.
        rules.insert(libc::SYS_kill, others()?);
        rules.insert(libc::SYS_tgkill, others()?);
        rules.insert(libc::SYS_rt_sigqueueinfo, others()?);
        rules.insert(libc::SYS_rt_tgsigqueueinfo, others()?);
        // A thread id alone, of any process (glibc's raise and pthread_kill use tgkill).
        rules.insert(libc::SYS_tkill, Vec::new());
    }
    Ok(rules)
}

/// `clone(flags, ...)`: refused when its flags make a namespace; without `run`, also when
/// it starts a process rather than a thread (no `CLONE_THREAD`: `fork`, `vfork`,
/// `posix_spawn`).
fn clone_rules(run: bool) -> Result<Vec<SeccompRule>, Error> {
    let mut rules = CLONE_NEW
        .iter()
        .map(|&flag| {
            let flag = u64::from(flag.cast_unsigned());
            when(arg(0, Op::MaskedEq(flag), flag)?)
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !run {
        let thread = u64::from(libc::CLONE_THREAD.cast_unsigned());
        rules.push(when(arg(0, Op::MaskedEq(thread), 0)?)?);
    }
    Ok(rules)
}

/// The socket calls refused with `EACCES` (what Landlock answers for a port).
fn net_rules(net: Net) -> Result<Rules, Error> {
    let mut rules = Rules::new();
    // A datagram pair can send to any named Unix socket by its address (`sendto`), which
    // a filter cannot read: only connected pairs (stream, seqpacket) are made.
    rules.insert(
        libc::SYS_socketpair,
        socket_types_but(&[libc::SOCK_STREAM, libc::SOCK_SEQPACKET])?,
    );
    let not_ip = || -> Result<SeccompRule, Error> {
        Ok(SeccompRule::new(vec![
            arg(0, Op::Ne, libc::AF_INET.cast_unsigned().into())?,
            arg(0, Op::Ne, libc::AF_INET6.cast_unsigned().into())?,
        ])?)
    };
    match net {
        Net::None => {
            rules.insert(libc::SYS_socket, Vec::new());
            rules.insert(libc::SYS_listen, Vec::new());
        }
        Net::Hosts => {
            // socket(family, type, protocol): refused unless IPv4 or IPv6, a stream, and TCP
            // (0 or IPPROTO_TCP: SCTP and MPTCP streams are not the TCP Landlock judges).
            let mut socket = socket_types_but(&[libc::SOCK_STREAM])?;
            socket.push(not_ip()?);
            socket.push(SeccompRule::new(vec![
                arg(2, Op::Ne, 0)?,
                arg(2, Op::Ne, libc::IPPROTO_TCP.cast_unsigned().into())?,
            ])?);
            rules.insert(libc::SYS_socket, socket);
            rules.insert(libc::SYS_listen, Vec::new());
        }
        Net::Any => {
            rules.insert(libc::SYS_socket, vec![not_ip()?]);
        }
    }
    Ok(rules)
}

/// Rules matching a socket call (`socket`, `socketpair`) whose type is not one of `kept`:
/// the filter has no "masked not equal", so each other type is named.
fn socket_types_but(kept: &[libc::c_int]) -> Result<Vec<SeccompRule>, Error> {
    (0..=SOCK_TYPE_MASK)
        .filter(|t| !kept.iter().any(|&k| u64::from(k.cast_unsigned()) == *t))
        .map(|t| when(arg(1, Op::MaskedEq(SOCK_TYPE_MASK), t)?))
        .collect()
}

/// `clone3` refused with `ENOSYS`: its flags are in memory a filter cannot read, and glibc
/// falls back to `clone` (whose flags are judged) when the kernel seems not to have it.
fn clone3_rules() -> Rules {
    Rules::from([(libc::SYS_clone3, Vec::new())])
}

/// On x86-64, the x32 ABI's calls have the same architecture and their own numbers (bit 30
/// set), which no rule above names: refused all, with `ENOSYS` (a kernel without x32 says
/// the same). A program of four instructions, written by hand (seccompiler matches exact
/// numbers only).
fn x32_guard() -> Option<BpfProgram> {
    if !cfg!(target_arch = "x86_64") {
        return None;
    }
    // struct seccomp_data { int nr; ... }: the number is at offset 0.
    const LOAD_NR: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JUMP_GE: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
    const RETURN: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let errno = libc::SECCOMP_RET_ERRNO | libc::ENOSYS.cast_unsigned();
    let op = |code, jt, jf, k| seccompiler::sock_filter { code, jt, jf, k };
    Some(vec![
        op(LOAD_NR, 0, 0, 0),
        op(JUMP_GE, 0, 1, X32_SYSCALL_BIT),
        op(RETURN, 0, 0, errno),
        op(RETURN, 0, 0, libc::SECCOMP_RET_ALLOW),
    ])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod tests {
    use super::*;

    // Applying a filter confines the whole process: tests/whole_process.rs does that in a
    // child. Here: each combination compiles, and its programs are what the kernel takes.

    #[test]
    fn every_combination_compiles_within_the_kernels_bounds() {
        for net in [Net::None, Net::Hosts, Net::Any] {
            for run in [false, true] {
                let filter = filter(&Syscalls {
                    net,
                    run,
                    own_pid: 2,
                })
                .unwrap();
                let expected = if cfg!(target_arch = "x86_64") { 4 } else { 3 };
                assert_eq!(filter.programs.len(), expected);
                for program in &filter.programs {
                    // BPF_MAXINSNS; seccompiler checks it too.
                    assert!(!program.is_empty() && program.len() < 4096);
                }
            }
        }
    }

    #[test]
    fn refusals_differ_by_run() {
        let without = refused_rules(&Syscalls {
            net: Net::None,
            run: false,
            own_pid: 7,
        })
        .unwrap();
        let with = refused_rules(&Syscalls {
            net: Net::None,
            run: true,
            own_pid: 7,
        })
        .unwrap();
        for call in [libc::SYS_execve, libc::SYS_kill, libc::SYS_tkill] {
            assert!(without.contains_key(&call));
            assert!(!with.contains_key(&call));
        }
        // clone: the namespace flags either way, one rule more (no CLONE_THREAD) without run.
        assert_eq!(with[&libc::SYS_clone].len(), CLONE_NEW.len());
        assert_eq!(without[&libc::SYS_clone].len(), CLONE_NEW.len() + 1);
    }
}
