//! A run under a supervising parent (`choreo_sandbox::supervisor`, docs/security.md):
//! the child runs the command and hands its report to the parent, which prints it; when box
//! code ends the child first (`os._exit`, a signal, a fatal error in native code, a hook that
//! never gives the run back past `--timeout`), the parent prints a report of its own, located
//! where it can be, with a documented exit code, and kills what the run left running.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use choreo_sandbox::supervisor::{self, Ended, Exit, Link, Role};

use crate::cli::args::memory_size;
use crate::exit;

/// The sandbox's flags (`run`, `stack run`): what box code may reach beyond its own, its
/// memory, or no sandbox at all (docs/security.md).
#[derive(clap::Args, Clone)]
pub(crate) struct SandboxFlags {
    /// Box code may read PATH (a file or folder) besides its project, the run's folders
    /// and its Python (repeatable; docs/security.md).
    #[arg(long, value_name = "PATH")]
    pub(crate) allow_read: Vec<PathBuf>,
    /// Box code may write in PATH besides the run's folders (repeatable).
    #[arg(long, value_name = "PATH")]
    pub(crate) allow_write: Vec<PathBuf>,
    /// Box code may use the network: every host, or only those listed
    /// (`--allow-net=192.168.1.10:8080,example.org`).
    #[arg(long, value_name = "HOST:PORT,...", num_args = 0..=1, require_equals = true, value_delimiter = ',')]
    pub(crate) allow_net: Option<Vec<String>>,
    /// Box code may start programs (`subprocess`, `os.system`, `os.fork`) and signal
    /// other processes.
    #[arg(long)]
    pub(crate) allow_run: bool,
    /// The most memory the run's process may take (`512M`, `4G`): box code over it gets
    /// MemoryError. By default half the machine's.
    #[arg(long, value_name = "SIZE", value_parser = memory_size)]
    pub(crate) max_memory: Option<u64>,
    /// `require`: refuse to run where the kernel cannot confine box code's files and
    /// network (Landlock ABI 4, Linux 6.7). By default (`on`) such a machine is said once,
    /// and box code is judged by Python's hooks only. `threads`: box code on confined
    /// threads of choreo's own process, not in a box host (weaker; docs/security.md).
    #[arg(long, value_name = "MODE", value_enum, default_value_t = Mode::On, require_equals = true)]
    pub(crate) sandbox: Mode,
    /// No sandbox: box code reaches all the user running choreo may, and runs without a
    /// supervising parent, as choreo did before its sandbox (docs/security.md).
    #[arg(long, conflicts_with_all = ["allow_read", "allow_write", "allow_net", "allow_run", "max_memory", "sandbox"])]
    pub(crate) no_sandbox: bool,
}

/// `--sandbox=MODE`: what a machine whose kernel cannot confine box code does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Mode {
    /// Say so once, and run with Python's judgement only.
    On,
    /// Refuse to run (exit 2).
    Require,
    /// Box code on confined threads of choreo's process, without a box host.
    Threads,
}

impl SandboxFlags {
    /// Whether box code runs in a box host, a process of its own (the default).
    pub(crate) fn box_host(&self) -> bool {
        self.sandbox != Mode::Threads
    }

    /// What box code may reach; `None`: unconfined (`--no-sandbox`).
    pub(crate) fn allowed(&self) -> Option<crate::Allowed> {
        (!self.no_sandbox).then(|| crate::Allowed {
            read: self.allow_read.clone(),
            write: self.allow_write.clone(),
            net: self.allow_net.clone(),
            run: self.allow_run,
        })
    }

    /// Begins the run's box host while the command reads and lays out the run, when box
    /// code will run in one (dropped: killed if no run took it).
    pub(crate) fn box_host_ahead(&self) -> Option<choreo_python::remote::Ahead> {
        if self.no_sandbox || !self.box_host() {
            return None;
        }
        crate::nested::BoxCode::start_ahead(self.allow_net.is_some())
    }

    /// Starts the sandbox around the command (unless `--no-sandbox`): the supervising
    /// parent, then the bounds in the child. `Some(code)`: this is the parent and the
    /// command is over.
    pub(crate) fn enter(&self, verbose: bool) -> Option<u8> {
        if self.no_sandbox {
            return None;
        }
        use choreo_sandbox::landlock::{Verdict, support, verdict};
        match verdict(support(), self.sandbox == Mode::Require) {
            Verdict::Confined => {}
            Verdict::Said(notice) => errln!("{notice}"),
            Verdict::Refused(refusal) => {
                errln!("{refusal}");
                return Some(exit::USAGE);
            }
        }
        if let Some(code) = supervise(verbose) {
            return Some(code);
        }
        let memory = self
            .max_memory
            .or_else(choreo_sandbox::limits::default_memory);
        if let Err(e) = choreo_sandbox::limits::bound(memory) {
            errln!("warning: the run's memory and open files are not bounded: {e}");
        }
        None
    }
}

/// The child's link to its parent, when it has one.
static LINK: OnceLock<Link> = OnceLock::new();

/// Real time box code gets past `--timeout` to give the run back (unloading included)
/// before the parent ends it. Under `--fast` the timeout is virtual time, which a loop of
/// links through Python boxes on a loaded machine walks slower than real time: the grace
/// is a hang's, not a deadline.
const GRACE: Duration = Duration::from_secs(30);

/// Real time box code in a process of its own gets past `--timeout` before choreo's process
/// stops it and reports where it was: within [`GRACE`], so that the run's own report
/// comes first.
pub(crate) const BOX_CODE_GRACE: Duration = Duration::from_secs(20);

/// How long the parent waits for a dump of every thread's stack (faulthandler, on the
/// SIGABRT it sends a run out of time) before it kills the run.
const DUMP_WAIT: Duration = Duration::from_secs(2);

/// Forks the supervising parent (`verbose`: say so when there can be none). `Some(code)`:
/// this is the parent, the run is over and `code` is the command's; `None`: run here (the
/// child, or alone).
fn supervise(verbose: bool) -> Option<u8> {
    match supervisor::start(DUMP_WAIT) {
        Role::Child(link) => {
            choreo_python::sandbox::supervised_by(link.fault_fd(), |note| {
                if let Some(link) = LINK.get() {
                    link.note(note);
                }
            });
            let _ = LINK.set(link);
            None
        }
        Role::Parent(ended) => Some(ended_as_parent(&ended)),
        Role::Alone(why) => {
            if verbose {
                errln!("running without a supervising parent: {why}");
            }
            None
        }
    }
}

/// Prints a run's report: through the parent when there is one (box code may have closed
/// this process's standard output), else here.
pub(crate) fn print_report(text: &str) {
    match LINK.get() {
        Some(link) => {
            // What was printed before comes before the report.
            let _ = std::io::Write::flush(&mut std::io::stdout());
            if !link.report(text) {
                out!("{text}");
            }
        }
        None => out!("{text}"),
    }
}

/// Asks the parent to end the run `limit` (`--timeout`) plus [`GRACE`] of real time from
/// now; `None` lifts the bound (the run is over).
pub(crate) fn hold_to(limit: Option<f64>) {
    if let Some(link) = LINK.get() {
        link.limit(limit.map(|l| Duration::from_secs_f64(l) + GRACE));
    }
}

/// Tells the parent the command ends on its own with `code` (`cli::main`'s last step).
pub(crate) fn done(code: u8) {
    if let Some(link) = LINK.get() {
        link.done(code);
    }
}

/// The parent's side once the child is gone: its exit code, with a report of how box code
/// ended the run when the child could not tell.
fn ended_as_parent(ended: &Ended) -> u8 {
    let left = match ended.left_behind {
        0 => String::new(),
        n => format!("  left running   {n} process(es) box code started: killed\n"),
    };
    match (ended.exit, ended.done) {
        // The command ended on its own: its report is printed, its code stands.
        (Exit::Code(code), Some(done)) if code == i32::from(done) => {
            if ended.output_closed {
                return crate::cli::output::CLOSED as u8;
            }
            if !left.is_empty() {
                out!("{left}");
            }
            done
        }
        // Ctrl-C twice, or a standard output its reader closed: the child said so itself.
        (Exit::Code(code), None)
            if !ended.out_of_time
                && (code == i32::from(exit::INTERRUPTED) || code == crate::cli::output::CLOSED) =>
        {
            code as u8
        }
        _ => {
            let code = if ended.out_of_time {
                exit::TIMEOUT
            } else {
                exit::ABNORMAL
            };
            out!("{}", crate::report::abnormal(ended, &left, GRACE));
            code
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(exit: Exit, report: bool, done: Option<u8>) -> Ended {
        Ended {
            exit,
            report,
            output_closed: false,
            done,
            notes: vec!["root/Box line 4 (onInput_onStart): os._exit(0)".to_string()],
            fault: String::new(),
            out_of_time: false,
            left_behind: 0,
        }
    }

    #[test]
    fn the_parent_tells_a_run_box_code_ended_from_one_that_ended_by_itself() {
        // The command's own end: its code stands.
        assert_eq!(ended_as_parent(&ended(Exit::Code(5), true, Some(5))), 5);
        // os._exit(0) before the report: exit 8 (its report: crate::report::abnormal).
        assert_eq!(
            ended_as_parent(&ended(Exit::Code(0), false, None)),
            exit::ABNORMAL
        );
        // Out of time: exit 5, whatever killed it.
        let mut late = ended(Exit::Signal(9), false, None);
        late.out_of_time = true;
        assert_eq!(ended_as_parent(&late), exit::TIMEOUT);
    }
}
