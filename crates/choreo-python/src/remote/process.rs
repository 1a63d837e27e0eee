//! The box host's process seen from choreo's ([`BoxHost`]): started with its confinement,
//! its control socket read (refusals to the report, notes kept), its standard error's end
//! kept for a fatal error's dump, and how it ended.

use std::collections::HashMap;
use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use choreo_engine::BoxContext;

use super::channel::Control;
use super::control::{Begin, Ready, Record, Start};
use super::executable::{self, Executable, NoExecutable};
use super::message::VERSION;

/// The most of the box host's standard error kept for a report (a fatal error's dump of
/// every thread's stack).
const STDERR_KEPT: usize = 256 * 1024;

/// A box of the run as choreo's side keeps it: its context, its subscriptions.
pub(crate) struct Entry {
    pub(crate) ctx: BoxContext,
    pub(crate) subscriptions: Vec<u64>,
}

/// Why the box host could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// No program to start (see [`Executable::find`]).
    #[error(transparent)]
    NoExecutable(#[from] NoExecutable),
    /// Its sockets or its process.
    #[error("cannot start box code's process: {0}")]
    Io(#[from] std::io::Error),
    /// It did not say it was ready.
    #[error("box code's process did not start: {0}")]
    NotReady(String),
}

/// The box host of a run: box code's process, seen from choreo's.
pub struct BoxHost {
    /// Keys this thread's lanes to it.
    pub(crate) id: u64,
    pub(crate) control: Arc<Control>,
    child: Mutex<Option<Child>>,
    /// Its process id (the process choreo started: the box host's waiter).
    pid: u32,
    /// That process, as the platform names it to end it (`None`: it could not be named;
    /// std's `Child` still kills it).
    handle: Option<choreo_sandbox::child::Handle>,
    /// The box host's own process, as this process's `/proc` names it (below the waiter and
    /// its namespace's init), once it is ready; `None` when it cannot be told.
    host_pid: OnceLock<Option<u32>>,
    /// Its namespace's init, when it has one, once it is ready.
    init_pid: OnceLock<Option<u32>>,
    /// Its runs are in virtual time: a wait on a lane spins a little first.
    pub(crate) virtual_time: std::sync::atomic::AtomicBool,
    pub(crate) boxes: Mutex<HashMap<u64, Entry>>,
    pub(crate) next_handle: AtomicU64,
    /// The run's confinement: box code's refusals go there; choreo's threads that answer
    /// box code are held to it.
    pub(crate) confinement: Option<Arc<crate::confinement::Confinement>>,
    /// What it said when ready, or why it did not start; `None` until then (see
    /// [`BoxHost::wait_ready`]).
    ready: (Mutex<Option<Result<Ready, String>>>, Condvar),
    /// Alive while the box host is: lanes hold a weak reference.
    pub(crate) alive: Arc<()>,
    /// choreo killed it (let go, stopped): nothing more is told to it (a box dropped).
    pub(crate) killed: std::sync::atomic::AtomicBool,
    /// How it ended, once it has; what box code said it was about to do to it.
    ended: Mutex<Ended>,
    /// The end of its standard error.
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Called once when it ends while choreo still holds it (the run stops its engine).
    on_end: Mutex<Option<Box<dyn FnOnce() + Send>>>,
    /// When choreo last ordered box code to run, in nanoseconds from [`EPOCH`].
    last_order: AtomicU64,
    /// The barriers asked on its control socket and answered ([`BoxHost::sync`]).
    barrier: (Mutex<Barrier>, Condvar),
    /// Its control socket was read to its end after the process ended, or that was waited
    /// for long enough ([`BoxHost::read_to_its_end`]).
    read_or_gave_up: std::sync::atomic::AtomicBool,
}

/// The control socket's barriers: the last asked, the last answered, and whether waiting
/// for one is over (the socket closed, or a barrier went unanswered: box code may hold its
/// process, and the run's end is not to wait for it again).
#[derive(Debug, Default)]
struct Barrier {
    asked: u64,
    answered: u64,
    over: bool,
}

/// How long [`BoxHost::sync`] waits for its answer: the box host's thread that answers
/// takes no lock box code can hold, so only a box host stopped or broken takes this long.
const SYNC_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What choreo knows of the box host's end.
#[derive(Debug, Default, Clone)]
pub struct Ended {
    /// How the process ended, once it has.
    pub status: Option<ExitStatus>,
    /// Why choreo stopped it, if it did.
    pub stopped: Option<String>,
    /// What box code said it was about to do to its process (`root/Box line 4:
    /// os._exit(0)`), last first.
    pub notes: Vec<String>,
    /// choreo stopped it because box code did not give the run back within its real-time
    /// bound ([`BoxHost::bound`]): a fatal error's dump was asked for first.
    pub out_of_time: bool,
    /// choreo let it go (the run was over) while it was still running: not an end box
    /// code caused.
    pub let_go: bool,
    /// The processes box code started that were still running in its namespace when choreo
    /// ended it, killed with it (counted for the report; the namespace's end is the wall).
    pub left_running: usize,
}

/// How many of box code's last notes on what it does to its process are kept.
const NOTES_KEPT: usize = 8;

/// How long, once the process ended, its control socket may take to be read to its end (its
/// end comes when the process's last holder of it ends: at once, but for a process box code
/// left holding it, which the namespace's end kills).
const NOTES_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// How long a box host asked for its dump has to write it and end before it is killed.
const DUMP_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// In virtual time, how long after the engine's last call into box code the bound may
/// fire ([`BoxHost::bound`]).
pub const QUIET: std::time::Duration = std::time::Duration::from_secs(20);

/// How many times its length the engine's calls into box code may stretch the bound.
pub const STRETCH: u32 = 4;

/// The instant the process's box hosts count their calls from.
static EPOCH: std::sync::LazyLock<std::time::Instant> =
    std::sync::LazyLock::new(std::time::Instant::now);

/// How long the box host's waiter has to end by itself once its init is killed.
const INIT_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Box hosts started in this process (keys lanes).
static NEXT_HOST: AtomicU64 = AtomicU64::new(1);

/// A box host's process begun (its namespaces and interpreter set up meanwhile), its run
/// not yet told.
struct Begun {
    executable: Executable,
    begin: Begin,
    child: Child,
    control: Control,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Begun {
    /// Starts `executable` as a box host and tells it `begin`.
    fn spawn(executable: &Executable, begin: Begin) -> Result<Begun, StartError> {
        let mut command = Command::new(&executable.program);
        command
            .args(&executable.args)
            .env_clear()
            .envs(executable::environment())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let (control, mut child) =
            choreo_sandbox::landlock::helped(move || Control::spawn(&mut command))?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(pipe) = child.stderr.take() {
            keep_stderr(pipe, Arc::clone(&stderr));
        }
        let mut begun = Begun {
            executable: executable.clone(),
            begin,
            child,
            control,
            stderr,
        };
        if let Err(e) = begun.control.send(&Record::Begin(begin)) {
            begun.discard();
            return Err(StartError::NotReady(e.to_string()));
        }
        Ok(begun)
    }

    /// Kills it and waits for it (never told a run: no box code ran in it).
    fn discard(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The box host begun ahead of its run ([`BoxHost::start_ahead`]), until a run takes it.
static AHEAD: Mutex<Option<Begun>> = Mutex::new(None);

/// A box host begun ahead of its run: killed when this is dropped if no run took it (a
/// load that failed first), so that it does not outlive the command.
#[must_use = "the box host begun ahead is killed when this is dropped"]
pub struct Ahead(());

impl Drop for Ahead {
    fn drop(&mut self) {
        if let Some(mut begun) = choreo_base::lock(&AHEAD).take() {
            begun.discard();
        }
    }
}

impl BoxHost {
    /// Begins a box host for the next run of this process that puts box code in one with
    /// `executable` and `net` (`--allow-net`): its process started, its namespaces taken
    /// and its interpreter set up while the run is read and laid out, which is most of its
    /// start. What it may reach is told only when the run starts it ([`BoxHost::start`]);
    /// until then it runs choreo's code alone.
    pub fn start_ahead(executable: &Executable, net: bool) -> Result<Ahead, StartError> {
        let begun = Begun::spawn(executable, begin(net))?;
        if let Some(mut before) = choreo_base::lock(&AHEAD).replace(begun) {
            before.discard();
        }
        Ok(Ahead(()))
    }

    /// Starts the box host for a run confined by `confinement` (with `memory` bytes at
    /// most), from a thread that lives as long as the process: the one begun ahead when
    /// it fits, else a new one.
    pub fn start(
        executable: &Executable,
        confinement: &Arc<crate::confinement::Confinement>,
        memory: Option<u64>,
    ) -> Result<Arc<BoxHost>, StartError> {
        let (read, write, allowed) = confinement.parts();
        let begin = begin(allowed.net.is_some());
        let ahead = choreo_base::lock(&AHEAD).take();
        let begun = match ahead {
            Some(b) if b.executable == *executable && b.begin == begin => b,
            other => {
                if let Some(mut unfit) = other {
                    unfit.discard();
                }
                Begun::spawn(executable, begin)?
            }
        };
        let Begun {
            mut child,
            control,
            stderr,
            ..
        } = begun;
        let start = Start {
            version: VERSION,
            read: read.to_vec(),
            write: write.to_vec(),
            allowed: allowed.clone(),
            memory,
            open_files: choreo_sandbox::limits::OPEN_FILES,
        };
        if let Err(e) = control.send(&Record::Start(start)) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(StartError::NotReady(e.to_string()));
        }
        let host = Arc::new(BoxHost {
            id: NEXT_HOST.fetch_add(1, Ordering::SeqCst),
            host_pid: OnceLock::new(),
            init_pid: OnceLock::new(),
            virtual_time: std::sync::atomic::AtomicBool::new(false),
            control: Arc::new(control),
            pid: child.id(),
            handle: choreo_sandbox::child::Handle::of(&child).ok(),
            child: Mutex::new(Some(child)),
            boxes: Mutex::new(HashMap::new()),
            next_handle: AtomicU64::new(1),
            confinement: Some(Arc::clone(confinement)),
            ready: (Mutex::new(None), Condvar::new()),
            alive: Arc::new(()),
            killed: std::sync::atomic::AtomicBool::new(false),
            ended: Mutex::new(Ended::default()),
            stderr,
            on_end: Mutex::new(None),
            last_order: AtomicU64::new(0),
            barrier: (Mutex::new(Barrier::default()), Condvar::new()),
            read_or_gave_up: std::sync::atomic::AtomicBool::new(false),
        });
        if let Some(handle) = &host.handle {
            // Where only its parent can bound it (Windows: its job); elsewhere it bounds
            // itself once told (`walls`).
            let _ = handle.bound_memory(memory);
        }
        host.read_control();
        Ok(host)
    }

    /// Waits until it says it is ready, confined (its Python set up meanwhile, while
    /// choreo loads the run: [`BoxHost::start`] does not wait); `Err` says why it did not
    /// start, with what it wrote to its standard error.
    pub fn wait_ready(&self) -> Result<(), StartError> {
        let (state, said) = &self.ready;
        let mut state = choreo_base::lock(state);
        loop {
            match &*state {
                Some(Ok(_)) => return Ok(()),
                Some(Err(why)) => return Err(StartError::NotReady(why.clone())),
                None => {
                    state = said
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                }
            }
        }
    }

    /// Why it did not start (`why`), with what it said on its standard error; stopped.
    fn not_ready(&self, why: &str) -> String {
        if let Some(child) = choreo_base::lock(&self.child).as_mut() {
            let _ = child.kill();
            if let Ok(status) = child.wait() {
                choreo_base::lock(&self.ended).status.get_or_insert(status);
            }
        }
        let said = self.stderr_tail();
        match said.trim() {
            "" => why.to_string(),
            said => format!("{why}: {said}"),
        }
    }

    /// Its state once ready or failed: told to whoever waits.
    fn set_ready(&self, ready: Result<Ready, String>) {
        if let Ok(r) = &ready {
            let namespaced = r.no_namespaces.is_none();
            let _ = self.host_pid.set(box_code_process(self.pid, namespaced));
            let _ = self
                .init_pid
                .set(namespaced.then(|| first_child(self.pid)).flatten());
        }
        let (state, said) = &self.ready;
        choreo_base::lock(state).get_or_insert(ready);
        said.notify_all();
    }

    /// Returns once choreo has read every control record the box host sent before it was
    /// asked (box code's refusals, then its error on a lane: the report counts the refusal
    /// the error came from), or once it cannot: its socket closed, or no answer within
    /// [`SYNC_WAIT`].
    pub fn sync(&self) {
        let (state, answered) = &self.barrier;
        let want = {
            let mut barrier = choreo_base::lock(state);
            if barrier.over {
                return;
            }
            barrier.asked += 1;
            barrier.asked
        };
        // Sent unlocked: the thread that reads the answer takes the lock to note it.
        if self.control.send(&Record::Sync(want)).is_err() {
            return;
        }
        let mut barrier = choreo_base::lock(state);
        let deadline = std::time::Instant::now() + SYNC_WAIT;
        while !barrier.over && barrier.answered < want {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                barrier.over = true;
                return;
            }
            barrier = answered
                .wait_timeout(barrier, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
    }

    /// A barrier's answer read (`Some`), or the control socket's end (`None`).
    fn synced(&self, answer: Option<u64>) {
        let (state, answered) = &self.barrier;
        let mut barrier = choreo_base::lock(state);
        match answer {
            Some(n) => barrier.answered = barrier.answered.max(n),
            None => barrier.over = true,
        }
        answered.notify_all();
    }

    /// The box host's own process in this process's `/proc`, once it is ready.
    pub(crate) fn host_pid(&self) -> Option<u32> {
        self.host_pid.get().copied().flatten()
    }

    /// Why it has no namespaces of its own, or what the kernel's Landlock could not do,
    /// once it is ready: said once at the start of a run.
    pub fn shortfall(&self) -> Option<String> {
        let state = choreo_base::lock(&self.ready.0);
        let ready = state.as_ref()?.as_ref().ok()?;
        let mut parts = Vec::new();
        if let Some(why) = &ready.no_namespaces {
            parts.push(format!("no namespaces of its own ({why})"));
        }
        if let Some(why) = &ready.no_landlock {
            parts.push(format!("no Landlock ({why})"));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Calls `f` once when the box host ends before choreo lets it go (it died, or box code
    /// ended it).
    pub fn on_end(&self, f: impl FnOnce() + Send + 'static) {
        *choreo_base::lock(&self.on_end) = Some(Box::new(f));
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// What choreo knows of its end so far.
    pub fn ended(&self) -> Ended {
        let seen = match choreo_base::lock(&self.child).as_mut() {
            Some(child) => child.try_wait().ok().flatten(),
            None => None,
        };
        if seen.is_some() || choreo_base::lock(&self.ended).status.is_some() {
            self.read_to_its_end();
        }
        let mut ended = choreo_base::lock(&self.ended);
        if let Some(status) = seen {
            ended.status.get_or_insert(status);
        }
        ended.clone()
    }

    /// Once the process has ended, waits (up to [`NOTES_WAIT`], once) until its control
    /// socket is read to its end: the notes box code wrote just before it ended its process
    /// (`os._exit`) are then all kept, and the run says where it ended, however soon it
    /// asks after the end.
    fn read_to_its_end(&self) {
        if self
            .read_or_gave_up
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        let (state, answered) = &self.barrier;
        let barrier = choreo_base::lock(state);
        let waited = answered.wait_timeout_while(barrier, NOTES_WAIT, |b| !b.over);
        drop(waited);
        self.read_or_gave_up
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether the process ends within `within` of real time (reaped, its status kept).
    pub(crate) fn ends_within(&self, within: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + within;
        loop {
            if self.ended().status.is_some() {
                return true;
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            let step = left.min(std::time::Duration::from_millis(10));
            // Woken at its end where the platform says so (a run's end waits on this), not
            // at the next look.
            match &self.handle {
                Some(handle) => handle.wait_end(step),
                None => std::thread::sleep(step.min(std::time::Duration::from_millis(2))),
            }
        }
    }

    /// The end of its standard error (a fatal error's dump), as text.
    pub fn stderr_tail(&self) -> String {
        String::from_utf8_lossy(&choreo_base::lock(&self.stderr)).into_owned()
    }

    /// Lets it go, the run being over: kills it, and every process box code started in its
    /// namespace with it; not an end to report. Its processes are reaped by
    /// [`BoxHost::reap`] or when it is dropped (the kernel takes milliseconds to end a PID
    /// namespace: a caller that has more to do, a report to print, does it meanwhile).
    pub fn release(&self) {
        {
            let mut ended = choreo_base::lock(&self.ended);
            if ended.status.is_none() && ended.stopped.is_none() {
                ended.let_go = true;
            }
        }
        *choreo_base::lock(&self.on_end) = None;
        // Without a namespace of its own, its process is killed and waited for now.
        if !self.kill_namespace() {
            self.kill_all();
        }
    }

    /// Waits for it to end once let go ([`BoxHost::release`]), killing what is left after
    /// a second: when this returns, no process of it is left.
    pub fn reap(&self) {
        self.kill_all();
    }

    /// choreo orders box code to run now (a hook, a construction, a delivery, a thread).
    pub(crate) fn ordered(&self) {
        let at = EPOCH.elapsed().as_nanos();
        self.last_order
            .store(u64::try_from(at).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Whether choreo ordered box code to run within `within` of now: the engine is still
    /// calling it.
    pub fn called_within(&self, within: std::time::Duration) -> bool {
        let last = self.last_order.load(Ordering::Relaxed);
        let now = u64::try_from(EPOCH.elapsed().as_nanos()).unwrap_or(u64::MAX);
        last != 0 && now.saturating_sub(last) < u64::try_from(within.as_nanos()).unwrap_or(u64::MAX)
    }

    /// Counts what box code left running in its namespace, then kills the namespace's
    /// init (the kernel then ends every process of the namespace before init is gone);
    /// once. Whether it had one.
    fn kill_namespace(&self) -> bool {
        let Some(init) = self.init_pid.get().copied().flatten() else {
            return false;
        };
        if !self.killed.swap(true, Ordering::SeqCst) {
            let left = started_in_namespace(init, self.host_pid());
            choreo_base::lock(&self.ended).left_running = left;
            if let Ok(init) = choreo_sandbox::child::Handle::of_pid(init) {
                init.kill();
            }
        }
        true
    }

    /// Kills its namespace (see [`BoxHost::kill_namespace`]), then the process choreo
    /// started, and waits for it: when this returns, no process of the box host is left,
    /// not even for a moment an init reparented to choreo's supervising parent.
    fn kill_all(&self) {
        if self.kill_namespace() {
            // The waiter reaps its init and ends by itself: killed first, it would leave
            // the dying init to choreo's supervising parent, which would count it as left.
            if self.ends_within(INIT_WAIT) {
                return;
            }
        }
        self.killed.store(true, Ordering::SeqCst);
        if let Some(handle) = &self.handle {
            // What box code started in its process group (macOS; on Linux its namespace
            // ended them already).
            handle.kill_group();
        }
        if let Some(child) = choreo_base::lock(&self.child).as_mut() {
            let _ = child.kill();
            if let Ok(status) = child.wait() {
                choreo_base::lock(&self.ended).status.get_or_insert(status);
            }
        }
    }

    /// Bounds it in real time: if it still runs `within` from now, its threads' stacks are
    /// dumped (`SIGABRT`: Python's fatal-error handler writes where each thread is to its
    /// standard error, which choreo keeps; Windows has no such signal) and it is killed
    /// [`DUMP_WAIT`] later. What box
    /// code does cannot lift the bound: the timer is choreo's.
    ///
    /// In virtual time the bound waits, past its deadline, while the engine still calls box
    /// code ([`BoxHost::called_within`] [`QUIET`]), up to [`STRETCH`] times `within`: a
    /// run whose time stands still while the engine carries a loop of links through Python
    /// boxes is slow on a loaded machine, not held by box code; box code that holds the run
    /// stops the engine's calls.
    pub fn bound(self: &Arc<Self>, within: std::time::Duration) {
        let me = Arc::downgrade(self);
        let started = std::time::Instant::now();
        let deadline = started + within;
        // However long the engine goes on calling box code, the bound holds at last.
        let last = started + within * STRETCH;
        let _ = std::thread::Builder::new()
            .name("choreo-box-host-bound".to_string())
            .spawn(move || {
                let Some(me) = (loop {
                    let Some(host) = me.upgrade() else {
                        return;
                    };
                    if host.ended().status.is_some() {
                        return;
                    }
                    let now = std::time::Instant::now();
                    let busy = host.virtual_time.load(Ordering::Relaxed)
                        && host.called_within(QUIET)
                        && now < last;
                    if now >= deadline && !busy {
                        break Some(host);
                    }
                    drop(host);
                    let left = deadline.saturating_duration_since(now);
                    std::thread::sleep(left.clamp(
                        std::time::Duration::from_millis(1),
                        std::time::Duration::from_millis(100),
                    ));
                }) else {
                    return;
                };
                choreo_base::lock(&me.ended).out_of_time = true;
                let dumping = me.handle.as_ref().is_some_and(|h| h.ask_dump());
                if !dumping || !me.ends_within(DUMP_WAIT) {
                    me.stop("did not give the run back within its bound");
                }
            });
    }

    /// Kills it (and, with it, every process box code started in its namespace), saying
    /// why; waits for it.
    pub fn stop(&self, why: &str) {
        let mut ended = choreo_base::lock(&self.ended);
        if ended.stopped.is_none() && ended.status.is_none() {
            ended.stopped = Some(why.to_string());
        }
        drop(ended);
        self.kill_all();
    }

    /// What the calls that found it gone say.
    pub(crate) fn gone_text(&self) -> String {
        let ended = self.ended();
        match (&ended.stopped, ended.status) {
            (Some(why), _) => format!("was stopped: it {why}"),
            (None, Some(status)) => format!("ended: {status}"),
            (None, None) => "closed its lane".to_string(),
        }
    }

    /// Reads the control socket on a thread of its own: first that it is ready (or why it
    /// is not), then refusals to the report, notes kept; at its end, the process is
    /// waited for.
    fn read_control(self: &Arc<Self>) {
        let me = Arc::downgrade(self);
        let control = Arc::clone(&self.control);
        let confinement = self.confinement.clone();
        let reading = std::thread::Builder::new()
            .name("choreo-box-host".to_string())
            .spawn(move || {
                let ready = match control.recv() {
                    Ok(Some((Record::Ready(r), _))) if r.version == VERSION => Ok(r),
                    Ok(Some((other, _))) => Err(format!("it said {other:?}")),
                    Ok(None) => Err("it ended".to_string()),
                    Err(e) => Err(e.to_string()),
                };
                let started = ready.is_ok();
                if let Some(me) = me.upgrade() {
                    let ready = ready.map_err(|why| me.not_ready(&why));
                    me.set_ready(ready);
                }
                if started {
                    follow(&control, &me, confinement.as_ref());
                }
                if let Some(me) = me.upgrade() {
                    me.synced(None);
                    let waited = choreo_base::lock(&me.child).as_mut().map(Child::wait);
                    if let Some(Ok(status)) = waited {
                        choreo_base::lock(&me.ended).status.get_or_insert(status);
                    }
                    let on_end = choreo_base::lock(&me.on_end).take();
                    if let Some(f) = on_end {
                        f();
                    }
                }
            });
        if let Err(e) = reading {
            // Nobody would ever say it is ready: it is not, and whoever waits is told.
            let why = self.not_ready(&format!("no thread to read its control socket: {e}"));
            self.set_ready(Err(why));
        }
    }
}

/// Follows the control socket of a box host that is ready, until it closes or breaks the
/// protocol: refusals to the report (`confinement`), notes kept, barriers' answers noted.
fn follow(
    control: &Control,
    me: &std::sync::Weak<BoxHost>,
    confinement: Option<&Arc<crate::confinement::Confinement>>,
) {
    loop {
        match control.recv() {
            Ok(Some((Record::Refused(text), _))) => {
                if let Some(c) = confinement {
                    c.note_refusal(text);
                }
            }
            Ok(Some((Record::Synced(n), _))) => {
                if let Some(me) = me.upgrade() {
                    me.synced(Some(n));
                }
            }
            Ok(Some((Record::Note(text), _))) => {
                if let Some(me) = me.upgrade() {
                    let notes = &mut choreo_base::lock(&me.ended).notes;
                    notes.insert(0, text);
                    // Box code may send notes without end: the last few say how it ended.
                    notes.truncate(NOTES_KEPT);
                }
            }
            Ok(Some((other, _))) => {
                if let Some(me) = me.upgrade() {
                    me.stop(&format!(
                        "broke its protocol (sent {other:?} on its control socket)"
                    ));
                }
                break;
            }
            Ok(None) => break,
            Err(e) => {
                if let Some(me) = me.upgrade() {
                    me.stop(&format!("broke its protocol ({e})"));
                }
                break;
            }
        }
    }
}

impl Drop for BoxHost {
    fn drop(&mut self) {
        self.kill_all();
    }
}

/// The process that runs box code, from the one choreo started (`waiter`): two levels
/// down with namespaces of its own (the waiter, its init, the box host), else the same.
fn box_code_process(waiter: u32, namespaced: bool) -> Option<u32> {
    if !namespaced {
        return Some(waiter);
    }
    first_child(waiter).and_then(first_child)
}

/// The most processes [`started_in_namespace`] looks at: the namespace's own bound
/// (`RLIMIT_NPROC` there) is lower.
const COUNTED: usize = 4096;

/// How many processes run under `init` (its namespace's) besides `host`, the box host: what
/// box code started, however far down (a double fork, `setsid`: a PID namespace's
/// orphans are its init's children). Read through `/proc`, each thread's `children`.
fn started_in_namespace(init: u32, host: Option<u32>) -> usize {
    let mut todo = vec![init];
    let mut seen = Vec::new();
    while let Some(pid) = todo.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let path = task.path().join("children");
            let Ok(children) = std::fs::read_to_string(path) else {
                continue;
            };
            for child in children
                .split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok())
            {
                if !seen.contains(&child) && seen.len() < COUNTED {
                    seen.push(child);
                    todo.push(child);
                }
            }
        }
    }
    seen.iter().filter(|p| Some(**p) != host).count()
}

/// What a box host is begun with: namespaces of its own, the machine's network with `net`.
fn begin(net: bool) -> Begin {
    Begin {
        version: VERSION,
        isolate: true,
        net,
    }
}

/// The first child of process `pid` (`/proc`'s `children`).
fn first_child(pid: u32) -> Option<u32> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    children.split_whitespace().next()?.parse().ok()
}

/// Keeps the end of the box host's standard error, and passes it on to choreo's.
fn keep_stderr(mut pipe: std::process::ChildStderr, kept: Arc<Mutex<Vec<u8>>>) {
    let _ = std::thread::Builder::new()
        .name("choreo-box-host-stderr".to_string())
        .spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        let mut kept = choreo_base::lock(&kept);
                        kept.extend_from_slice(&chunk[..n]);
                        if kept.len() > STDERR_KEPT {
                            let cut = kept.len() - STDERR_KEPT;
                            kept.drain(..cut);
                        }
                        drop(kept);
                        use std::io::Write;
                        let _ = std::io::stderr().write_all(&chunk[..n]);
                    }
                }
            }
        });
}
