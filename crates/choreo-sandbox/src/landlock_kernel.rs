//! Landlock's system calls, through the `landlock` crate (Linux): what [`super::landlock`]
//! asks the kernel. Other systems have `landlock_none.rs` in its place.

// Two system calls between a program's fork and its exec (`Confinement::confine_program`).
#![allow(unsafe_code)]

use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

use super::{Error, Rules, Support};

/// The newest Landlock ABI whose rights choreo asks for: files (1–3, 5: rename across
/// folders, truncation, device ioctls), TCP (4), abstract Unix sockets (6). Newer kernels
/// get these; older ones what they know (best effort, said by [`support`]).
const WANTED: ABI = ABI::V6;

/// What `shortfall` says of [`Support::None`] here.
pub(crate) const NONE_SAID: &str = "this kernel cannot confine box code (Landlock is not built \
     in or not enabled): box code is judged in Python only, which native code it calls can \
     pass by";

/// What this machine's kernel can confine (asks it; cheap).
pub(crate) fn support() -> Support {
    let asks = |net: bool| -> bool {
        let ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(ABI::V1));
        let ruleset = match ruleset {
            Ok(r) if net => r.handle_access(AccessNet::from_all(ABI::V4)),
            other => other,
        };
        ruleset.and_then(Ruleset::create).is_ok()
    };
    if asks(true) {
        Support::Full
    } else if asks(false) {
        Support::FilesOnly
    } else {
        Support::None
    }
}

/// The ELF interpreter the kernel opens to start a dynamically linked program, which
/// Landlock also asks to be executable.
const ELF_INTERPRETER: &str = if cfg!(target_arch = "aarch64") {
    "/lib/ld-linux-aarch64.so.1"
} else {
    "/lib64/ld-linux-x86-64.so.2"
};

/// What `rules` may start: its `execute`, and the ELF interpreter they need (which can
/// start any program it may read: the rules still hold it).
fn executed(rules: &Rules) -> Vec<PathBuf> {
    let mut all = rules.execute.clone();
    if !all.is_empty() {
        all.push(PathBuf::from(ELF_INTERPRETER));
    }
    all
}

/// A run's rules as the kernel holds them.
#[derive(Debug)]
pub(crate) struct Confinement(RulesetCreated);

impl Confinement {
    /// The rules made a ruleset. Paths that do not exist are left out (nothing to reach).
    pub(crate) fn new(rules: &Rules) -> Result<Confinement, Error> {
        let run = if rules.run {
            BitFlags::EMPTY
        } else {
            BitFlags::from(AccessFs::Execute)
        };
        let all = AccessFs::from_all(WANTED);
        // Without `--allow-run`, execution is handled and granted nowhere; with it, not
        // handled: programs start, and run under the same rules.
        let handled = if rules.run {
            all & !BitFlags::from(AccessFs::Execute)
        } else {
            all
        };
        let read = AccessFs::from_read(WANTED) & !run & handled;
        let write = handled & !run;
        let mut ruleset = Ruleset::default().handle_access(handled)?;
        let mut net = BitFlags::<AccessNet>::EMPTY;
        if rules.connect.is_some() {
            net |= AccessNet::ConnectTcp;
        }
        if rules.bind.is_some() {
            net |= AccessNet::BindTcp;
        }
        if !net.is_empty() {
            ruleset = ruleset.handle_access(net)?;
        }
        let mut scopes = BitFlags::from(Scope::AbstractUnixSocket);
        if rules.scope_signals {
            scopes |= Scope::Signal;
        }
        let mut created = ruleset
            .scope(scopes)?
            .create()?
            .add_rules(path_beneath_rules(&rules.read, read))?
            .add_rules(path_beneath_rules(&rules.write, write))?
            .add_rules(path_beneath_rules(
                executed(rules),
                AccessFs::from_read(WANTED) & handled,
            ))?;
        let ports = |list: &Option<Vec<u16>>, access: AccessNet| {
            list.iter()
                .flatten()
                .map(move |&p| Ok::<_, landlock::RulesetError>(NetPort::new(p, access)))
                .collect::<Vec<_>>()
        };
        created = created.add_rules(ports(&rules.connect, AccessNet::ConnectTcp))?;
        created = created.add_rules(ports(&rules.bind, AccessNet::BindTcp))?;
        Ok(Confinement(created))
    }

    /// Confines the program `command` starts with the rules, from its first instruction:
    /// between the fork and the exec, two system calls (nothing there may allocate). A
    /// kernel without Landlock leaves the command as it is.
    pub(crate) fn confine_program(&self, command: &mut std::process::Command) -> Result<(), Error> {
        use std::os::fd::AsRawFd;
        use std::os::unix::process::CommandExt;
        let fd: Option<std::os::fd::OwnedFd> = self.0.try_clone()?.into();
        let Some(fd) = fd else {
            return Ok(());
        };
        let on_exec = move || {
            // SAFETY: prctl and landlock_restrict_self are system calls, async-signal-safe,
            // on an fd this closure owns; nothing allocates or takes a lock between fork
            // and exec.
            let restricted = unsafe {
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
                    && libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0) == 0
            };
            if restricted {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        };
        // SAFETY: `on_exec` only makes the two system calls above (see there).
        unsafe { command.pre_exec(on_exec) };
        Ok(())
    }

    /// Confines the calling thread: whether the kernel enforced anything.
    pub(crate) fn restrict_self(&self) -> Result<bool, Error> {
        let status = self.0.try_clone()?.restrict_self()?;
        Ok(status.ruleset != RulesetStatus::NotEnforced)
    }
}
