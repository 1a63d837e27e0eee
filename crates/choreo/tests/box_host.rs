//! Box code in a process of its own (the default, docs/security.md, The box host): the
//! same run as in one process (`--sandbox=threads`), and what box code can no longer reach from there — choreo's
//! process id and environment, the report's pipe, the machine's files through native code.

use std::os::unix::process::CommandExt;

use crate::support::hostile::Hostile;

/// A box whose hook logs `expression`'s value, then stops the behavior.
fn logging(expression: &str) -> Hostile {
    Hostile::new(&format!(
        "    def onInput_onStart(self):\n        import os, sys\n        self.logger.info('value=%r' % ({expression},))\n        self.onStopped()\n"
    ))
}

#[test]
fn box_code_runs_in_a_pid_namespace_of_its_own() {
    let h = logging("(os.getppid(), os.getpid())");
    // In one process, box code sees choreo's own process and its parent; in the box host,
    // a PID namespace of its own (pid_namespaces(7)) whose init (PID 1) started it first.
    h.run(&[]).exits(0).says("value=(1, 2)");
    let alone = h.run(&["--sandbox=threads"]);
    alone.exits(0);
    assert!(!alone.out.contains("value=(1, 2)"), "{}", alone.out);
}

#[test]
fn a_run_ends_as_its_box_host_is_ended_and_nothing_is_counted_left() {
    // `choreo run` kills box code's namespace and reaps its box host before it exits: the
    // supervising parent, which would adopt a box host's waiter still there, must not see
    // one and count it as a process box code left (a race with the kernel: twenty runs,
    // none may say so).
    let h = logging("1");
    for _ in 0..20 {
        let ran = h.run(&[]);
        ran.exits(0).says("value=1");
        assert!(!ran.out.contains("left running"), "{}", ran.out);
    }
}

#[test]
fn the_users_environment_does_not_reach_box_code() {
    let h = logging("os.environ.get('CHOREO_TEST_SECRET_TOKEN')");
    let mut command = h.command(&[]);
    let o = command
        .env("CHOREO_TEST_SECRET_TOKEN", "hunter2")
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("value=None"), "{out}");
    assert!(!out.contains("hunter2"), "{out}");
    // What a robot's box code sees instead: NAOqi's home.
    logging("os.environ.get('HOME')")
        .run(&[])
        .exits(0)
        .says("value='/home/nao'");
}

/// examples/hello's trace in virtual time, run with `extra` arguments and the box host's
/// channel `channel` (`CHOREO_BOX_HOST_CHANNEL`: `own` is Linux's, `mux` macOS's and
/// Windows's).
fn hello_trace(extra: &[&str], channel: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let hello = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/hello");
    let trace = dir.path().join("hello.jsonl");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_choreo"))
        .arg("run")
        .arg(&hello)
        .args(["--fast", "--trace"])
        .arg(&trace)
        .args(extra)
        .env("CHOREO_BOX_HOST_CHANNEL", channel)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read_to_string(&trace).unwrap()
}

#[test]
fn hello_runs_the_same_in_the_box_host() {
    let alone = hello_trace(&["--sandbox=threads"], "own");
    assert!(alone.contains("Hello! I am running in choreo."));
    assert_eq!(alone, hello_trace(&[], "own"));
}

/// The box host's channel of macOS and Windows (`channel_mux.rs`: every lane on its standard
/// streams), picked on Linux by `CHOREO_BOX_HOST_CHANNEL=mux`: the same trace as Linux's own
/// channel, so a real box host and its protocol are tried over it here.
#[test]
fn the_channel_of_macos_and_windows_runs_hello_the_same() {
    let mux = hello_trace(&[], "mux");
    assert!(mux.contains("Hello! I am running in choreo."));
    assert_eq!(hello_trace(&[], "own"), mux);
}

/// What box code prints, and what it writes to its standard output's descriptor, cannot
/// reach the mux's channel, which was the box host's standard output: it goes nowhere.
#[test]
fn box_code_printing_cannot_break_the_mux_channel() {
    // Its descriptor 3 is the mux's input, a pipe (Linux's own channel's is a socket).
    let h = logging(
        "(print('x' * 100000), sys.stdout.flush(), os.write(1, b'\\x00' * 4096), os.write(0, b'\\x07' * 64), __import__('stat').S_ISFIFO(os.fstat(3).st_mode))[2::2]",
    );
    let mut command = h.command(&[]);
    command.env("CHOREO_BOX_HOST_CHANNEL", "mux");
    let o = command.output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(0), "{said}");
    assert!(said.contains("value=(4096, True)"), "{said}");
}

#[test]
fn native_code_in_the_box_host_cannot_write_outside_the_run() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import ctypes\n        libc = ctypes.CDLL(None)\n        fd = libc.open(b'{outside}/native.txt', 0o101, 0o644)\n        self.logger.info('fd=%d' % fd)\n        self.onStopped()\n",
    );
    h.run(&[]).exits(0).says("fd=-1");
    assert!(!h.outside().join("native.txt").exists());
}

#[test]
fn a_refusal_is_counted_as_soon_as_the_run_ends() {
    // The refusal travels on the control socket, the error it raised on the box's lane:
    // read right after the end, through the API (as a pytest does), the run still lists it.
    // Box code first sends 20,000 notes on its control socket (as its process may), so
    // choreo's reader of that socket has records to get through when the error ends the
    // run. Without the control socket's barrier (`BoxHost::sync`) this lost the refusal in
    // 2 of 6 tries of 100 runs beside a busy loop on each core.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os, struct\n        note = b'N' + struct.pack('<I', 1) + b'x'\n        for _ in range(20000):\n            os.write(3, note)\n        open('{outside}/flooded.txt', 'w').write('x')\n        self.onStopped()\n",
    );
    let wanted = format!(
        "write {} (root/Hostile line 7; --allow-write {})",
        h.outside().join("flooded.txt").display(),
        h.outside().display()
    );
    for _ in 0..60 {
        let run = choreo::Setup::open(&h.file)
            .unwrap()
            .clock(choreo::Clock::Virtual)
            .strict(true)
            .load()
            .unwrap();
        run.start().unwrap();
        let ending = run.wait_end(std::time::Duration::from_secs(60)).unwrap();
        assert!(
            matches!(ending, choreo::Ending::Failed { .. }),
            "{ending:?}"
        );
        assert_eq!(run.refused(), std::slice::from_ref(&wanted));
    }
    assert!(!h.outside().join("flooded.txt").exists());
}

#[test]
fn a_segfault_in_the_box_host_is_reported_with_the_box() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import ctypes\n        ctypes.string_at(0)\n",
    );
    h.run(&[])
        .exits(8)
        .says("killed by signal 11 (SIGSEGV)")
        .says("root/Hostile line 4 (onInput_onStart)");
}

#[test]
fn garbage_written_to_every_descriptor_cannot_forge_a_success() {
    // Box code writes a forged frame and garbage into each descriptor it has (its control
    // socket, its lanes, its streams): the run does not end "finished".
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os\n        for fd in range(3, 64):\n            try:\n                os.write(fd, b'\\x05\\x00\\x00\\x00R\\x01\\x00\\x00\\x00' + b'\\xff' * 64)\n            except OSError:\n                pass\n        self.onStopped()\n",
    );
    let ran = h.run(&[]);
    assert_ne!(ran.code, Some(0), "{}\n{}", ran.out, ran.err);
    ran.says("broke its protocol");
}

#[test]
fn a_hook_computing_in_the_box_host_keeps_its_turn_as_in_one_process() {
    // 2.5 s of CPU time without waiting: longer than a blocked holder keeps its turn (2 s
    // of real time), shorter than a busy one does (5 s of CPU time). The engine must see
    // the box host's thread computing, not choreo's thread asleep on its lane.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import time as t\n        end = t.process_time() + 2.5\n        while t.process_time() < end:\n            pass\n        self.logger.info('computed')\n        self.onStopped()\n",
    );
    let ran = h.run(&[]);
    ran.exits(0)
        .says("computed")
        .says("outcome        finished");
    assert!(
        !ran.err.contains("on something other than the clock"),
        "{}",
        ran.err
    );
}

/// A hook that waits for a lock its box's thread holds while that thread sleeps: in
/// virtual time the wait is on the engine's clock (docs/trace.md), not in the kernel, so the
/// run keeps its order. By hand: the thread takes the lock at 0 s and sleeps 2 s; the hook
/// asks for it at 0.5 s and gets it once the thread lets it go, at 2 s, within one of the
/// wait's steps (at most 10 ms); a reentrant lock the same. Three runs give one trace.
#[test]
fn a_hook_waiting_for_its_boxs_lock_waits_on_the_clock() {
    let h = Hostile::new(concat!(
        "    def onInput_onStart(self):\n",
        "        import threading, time\n",
        "        for kind in (threading.Lock, threading.RLock):\n",
        "            lock = kind()\n",
        "            began = time.time()\n",
        "            def hold():\n",
        "                with lock:\n",
        "                    time.sleep(2)\n",
        "            threading.Thread(target=hold).start()\n",
        "            time.sleep(0.5)\n",
        "            with lock:\n",
        "                self.logger.info('%s after %.3f' % (kind.__name__, time.time() - began))\n",
        "        self.onStopped()\n",
    ));
    let ran = h.run(&["--repeat", "3"]);
    ran.exits(0);
    for kind in ["Lock", "RLock"] {
        let line = ran
            .err
            .lines()
            .find(|l| l.contains(&format!(" {kind} after ")))
            .unwrap_or_else(|| panic!("{kind}: {}", ran.err));
        let after: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((2.0..=2.01).contains(&after), "{line}");
    }
    assert!(
        !ran.err.contains("on something other than the clock"),
        "{}",
        ran.err
    );
}

// Attacks from native code and the kernel's own means, which only the box host's walls
// (its namespaces, seccomp, Landlock on the whole process) meet: Python's hooks never see
// them. Each checks that nothing outside was reached.

/// A process of the test's that box code must not reach: `sleep` with a marker.
fn victim(marker: &str) -> std::process::Child {
    std::process::Command::new("sleep")
        .arg(marker)
        .spawn()
        .unwrap()
}

/// Asserts `victim` still runs, then ends it.
fn still_alive(mut victim: std::process::Child, ran: &crate::support::hostile::Ran) {
    let alive = victim.try_wait().unwrap().is_none();
    let _ = victim.kill();
    let _ = victim.wait();
    assert!(
        alive,
        "box code killed a process of the user's\n{}",
        ran.out
    );
}

#[test]
fn native_signals_to_every_process_reach_none_outside() {
    // kill(-1) signals every process the user may; kill(1) the namespace's init.
    let target = victim("300.41");
    let h = Hostile::new(&format!(
        "    def onInput_onStart(self):\n        import ctypes\n        libc = ctypes.CDLL(None)\n        for pid in (-1, 1, {}):\n            self.logger.info('kill %d -> %d' % (pid, libc.kill(pid, 9)))\n        self.onStopped()\n",
        target.id()
    ));
    let ran = h.run(&[]);
    ran.exits(0)
        .says("kill -1 -> -1")
        .says("kill 1 -> -1")
        .says(&format!("kill {} -> -1", target.id()));
    still_alive(target, &ran);
}

#[test]
fn a_pidfd_or_ptrace_reaches_no_process_outside() {
    // pidfd_open (434), pidfd_send_signal (424), ptrace's PTRACE_ATTACH (16) on x86_64.
    let target = victim("300.42");
    let h = Hostile::new(&format!(
        "    def onInput_onStart(self):\n        import ctypes\n        libc = ctypes.CDLL(None)\n        fd = libc.syscall(434, {pid}, 0)\n        self.logger.info('pidfd=%d' % fd)\n        self.logger.info('sent=%d' % libc.syscall(424, fd, 9, None, 0))\n        self.logger.info('traced=%d' % libc.ptrace(16, {pid}, None, None))\n        self.onStopped()\n",
        pid = target.id()
    ));
    let ran = h.run(&[]);
    ran.exits(0)
        .says("pidfd=-1")
        .says("sent=-1")
        .says("traced=-1");
    still_alive(target, &ran);
}

#[test]
fn a_native_datagram_reaches_no_listener() {
    // A UDP datagram sent through libc (Landlock knows no UDP; Python's hooks never see it).
    let listener = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let h = Hostile::new(&format!(
        "    def onInput_onStart(self):\n        import ctypes, socket, struct\n        libc = ctypes.CDLL(None)\n        fd = libc.socket(2, 2, 0)\n        to = struct.pack('<H', 2) + struct.pack('>H', {port}) + socket.inet_aton('127.0.0.1') + bytes(8)\n        self.logger.info('socket=%d sent=%d' % (fd, libc.sendto(fd, b'stolen', 6, 0, to, 16)))\n        self.onStopped()\n"
    ));
    let ran = h.run(&[]);
    ran.exits(0).says("sent=-1");
    listener.set_nonblocking(true).unwrap();
    let mut got = [0u8; 16];
    assert!(
        listener.recv_from(&mut got).is_err(),
        "a datagram arrived\n{}",
        ran.out
    );
}

#[test]
fn the_audit_hook_turned_off_through_gc_leaves_the_kernel_s_wall() {
    // Box code finds the hook's closure through `gc` and empties it: Python's judgement is
    // gone, and the write is still refused (by Landlock, at its line).
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import gc\n        for f in gc.get_objects():\n            if getattr(f, '__name__', '') == 'hook' and getattr(f, '__closure__', None):\n                for c in f.__closure__:\n                    if callable(c.cell_contents):\n                        c.cell_contents = lambda *a, **k: False\n        open('{outside}/gc.txt', 'w').write('x')\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("line 9 (onInput_onStart): PermissionError");
    assert!(!h.outside().join("gc.txt").exists());
}

#[test]
fn a_thread_of_the_lowest_level_writes_nothing_outside() {
    // `_thread.start_new_thread`, then libc's `open` on that thread: no lane, no hook.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import _thread, ctypes, time\n        libc = ctypes.CDLL(None)\n        got = []\n        def write():\n            got.append(libc.open(b'{outside}/thread.txt', 0o101, 0o644))\n        _thread.start_new_thread(write, ())\n        while not got:\n            time.sleep(0.01)\n        self.logger.info('fd=%d' % got[0])\n        self.onStopped()\n",
    );
    h.run(&[]).exits(0).says("fd=-1");
    assert!(!h.outside().join("thread.txt").exists());
}

#[test]
fn limits_cannot_be_raised() {
    // Through libc's setrlimit (Python's `resource` would be judged first): each hard
    // limit stays. RLIMIT_FSIZE 1, RLIMIT_NOFILE 7, RLIMIT_AS 9.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import ctypes\n        libc = ctypes.CDLL(None)\n        for r in (1, 7, 9):\n            lim = (ctypes.c_ulong * 2)(2**64 - 1, 2**64 - 1)\n            self.logger.info('raise %d -> %d' % (r, libc.setrlimit(r, lim)))\n        self.onStopped()\n",
    );
    h.run(&[])
        .exits(0)
        .says("raise 1 -> -1")
        .says("raise 7 -> -1")
        .says("raise 9 -> -1");
}

#[test]
fn a_fork_loop_with_allow_run_ends_with_the_run() {
    // 50 children, each leaving a grandchild in a session of its own, then exiting: the
    // grandchildren are the namespace's init's, and end with the run.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os\n        for i in range(50):\n            if os.fork() == 0:\n                try:\n                    if os.fork() == 0:\n                        os.setsid()\n                        os.execvp('sleep', ['sleep', '300.43'])\n                finally:\n                    os._exit(0)\n        self.onStopped()\n",
    );
    h.run(&["--allow-run"])
        .exits(0)
        .says("process(es) box code started: killed");
    assert_eq!(crate::support::hostile::alive("300.43"), 0);
}

#[test]
fn a_dialogs_script_runs_in_the_box_host() {
    // ALDialog's `%script` is the project's code: it runs where box code does, in the PID
    // namespace whose init (1) is its parent; on choreo's threads, choreo's process is.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import time\n        d = ALProxy('ALDialog')\n        d.activateTopic(d.loadTopic(self.behaviorAbsolutePath() + '/where.top'))\n        d.subscribe('where')\n        d.forceInput('where are you')\n        time.sleep(2)\n        self.onStopped()\n",
    );
    std::fs::write(
        h.dir.path().join("project/where.top"),
        "topic: ~where()\nlanguage: enu\n\nu:(where are you) my parent is %script\nimport os\nprint(os.getppid())\n%script\n",
    )
    .unwrap();
    h.run(&[]).exits(0).says("says \"my parent is 1\"");
    let threads = h.run(&["--sandbox=threads"]);
    threads.exits(0).says("says \"my parent is ");
    assert!(!threads.out.contains("my parent is 1\""), "{}", threads.out);
}

#[test]
fn a_syntax_error_in_source_from_a_string_is_one_and_refuses_nothing() {
    // CPython's parser, raising a SyntaxError in source compiled from a string, opens a
    // file of the source's name (`<string>`, `<%script>`) for the line: there is no such
    // file on a robot, and that is no refusal of box code's (a training project's
    // `%script` with a syntax error was reported as a refused read of `<%script>`).
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import time\n        try:\n            exec('1 +')\n        except SyntaxError as e:\n            self.logger.info('caught %s' % type(e).__name__)\n        d = ALProxy('ALDialog')\n        d.activateTopic(d.loadTopic(self.behaviorAbsolutePath() + '/broken.top'))\n        d.subscribe('broken')\n        d.forceInput('count')\n        time.sleep(2)\n        self.onStopped()\n",
    );
    std::fs::write(
        h.dir.path().join("project/broken.top"),
        "topic: ~broken()\nlanguage: enu\n\nu:(count) one %script\nprint 1 +\n%script\n",
    )
    .unwrap();
    let ran = h.run(&[]);
    ran.exits(0).says("caught SyntaxError").says("SyntaxError");
    assert!(!ran.out.contains("refused"), "{}", ran.out);
}

#[test]
fn a_stacks_leaves_play_in_a_box_host() {
    // The Choregraphe behavior a leaf plays runs in a box host of its own, as `choreo run`'s.
    let h = logging("os.getppid()");
    let stack = h.dir.path().join("stack");
    std::fs::create_dir_all(&stack).unwrap();
    std::fs::write(
        stack.join("play.json"),
        format!(
            r#"{{"behaviorID": "Play", "behaviorClass": "PlayChoregraphe", "path": {:?}}}"#,
            h.file.display().to_string()
        ),
    )
    .unwrap();
    let said = h.stack_run();
    assert!(said.contains("value=1\n"), "{said}");
}

#[test]
fn a_stacks_own_python_behaviors_run_in_a_box_host() {
    // The stack's own Python behaviors run where box code does: in a PID namespace whose
    // init (1) is their parent, one box host for all of them; their `cx` still reaches the
    // runner (a nested hook, `wants`, across it) and the robot.
    let h = Hostile::new("    pass\n");
    h.python_stack(
        "pids.py",
        "import os\n\nclass Main(object):\n    def delegates(self):\n        return ['Child']\n\n    def update(self, cx):\n        if cx.wants('Child') and cx.can_delegate():\n            cx.delegate('Child', callback=1)\n\n    def on_delegation_done(self, cx, token, done):\n        cx.cancel_self()\n\nclass Child(object):\n    always_delegates = False\n\n    def wants_to_be_activated(self, cx):\n        return True\n\n    def on_activated(self, cx):\n        cx.log('parent %d, battery %d' % (os.getppid(), cx.call('ALBattery', 'getBatteryCharge')))\n        cx.cancel_self()\n",
        &[("Main", "Main"), ("Child", "Child")],
    );
    let run = |flags: &[&str]| {
        let mut args = vec!["--timeout", "5", "--base", "Main"];
        args.extend_from_slice(flags);
        let (code, err) = h.stack(&args);
        assert_eq!(code, Some(0), "{err}");
        err
    };
    let hosted = run(&[]);
    assert!(hosted.contains("Child: parent 1, battery "), "{hosted}");
    let threads = run(&["--sandbox=threads"]);
    assert!(threads.contains("Child: parent "), "{threads}");
    assert!(!threads.contains("Child: parent 1,"), "{threads}");
}

#[test]
fn the_robot_reads_for_a_stacks_python_behavior_only_what_it_may_read() {
    // A stack's behavior asks the robot to read a topic outside what it may read, through
    // `cx.call` and through `cx.run`'s action: the stack's runner answers on choreo's
    // side, and the robot's read is held to the behavior's rules, refused there. Its own
    // folder's topic is read; without the sandbox the outside one is too.
    let h = Hostile::new("    pass\n");
    let topic =
        |name: &str| format!("topic: ~{name}()\nlanguage: enu\nu:(hello) the {name} is 42\n");
    std::fs::write(h.outside().join("secret.top"), topic("secret")).unwrap();
    let secret = h.outside().join("secret.top");
    let own = h.outside().parent().unwrap().join("stack/own.top");
    h.python_stack(
        "reader.py",
        &format!(
            "class Reader(object):\n    always_delegates = False\n\n    def wants_to_be_activated(self, cx):\n        return True\n\n    def on_activated(self, cx):\n        cx.log('own: %s' % cx.call('ALDialog', 'loadTopic', {own:?}))\n        try:\n            cx.log('called: %s' % cx.call('ALDialog', 'loadTopic', {secret:?}))\n        except Exception as e:\n            cx.log('call refused: %s' % e)\n        cx.run('ALDialog', 'loadTopic', {secret:?}, callback=1)\n\n    def on_delegation_done(self, cx, token, done):\n        cx.log('run: %s %s' % tuple(done))\n        cx.cancel_self()\n"
        ),
        &[("Reader", "Reader")],
    );
    std::fs::write(&own, topic("own")).unwrap();
    for flags in [&[][..], &["--sandbox=threads"]] {
        let mut args = vec!["--timeout", "5"];
        args.extend_from_slice(flags);
        let (code, err) = h.stack(&args);
        assert_eq!(code, Some(0), "{flags:?}: {err}");
        assert!(err.contains("Reader: own: own"), "{flags:?}: {err}");
        assert!(err.contains("Reader: call refused: "), "{flags:?}: {err}");
        assert!(err.contains("Permission denied"), "{flags:?}: {err}");
        // The posted call's failure is the robot's (as NAOqi's `post`), told once for both.
        assert!(
            err.contains("Permission denied (os error 13) ×2"),
            "{flags:?}: {err}"
        );
        assert!(!err.contains("called: secret"), "{flags:?}: {err}");
    }
    let (code, err) = h.stack(&["--timeout", "5", "--no-sandbox"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("Reader: called: secret"), "{err}");
    assert!(!err.contains("cannot read topic"), "{err}");
}

#[test]
fn a_stacks_python_behavior_that_crashes_its_process_stops_the_stack_with_exit_8() {
    // A segmentation fault (ctypes) and an `os._exit(0)` in a hook end the box host, not
    // choreo: the stack stops at that tick, cancelled top-down, and says how and where.
    for (kill, how) in [
        ("ctypes.string_at(0)", "was killed by signal 11 (SIGSEGV)"),
        ("os._exit(0)", "exited with code 0"),
    ] {
        let h = Hostile::new("    pass\n");
        h.python_stack(
            "crash.py",
            &format!(
                "import ctypes, os\n\nclass Crash(object):\n    always_delegates = False\n\n    def wants_to_be_activated(self, cx):\n        return True\n\n    def update(self, cx):\n        if cx.tick > 3:\n            {kill}\n"
            ),
            &[("Crash", "Crash")],
        );
        let (code, err) = h.stack(&["--timeout", "60"]);
        assert_eq!(code, Some(8), "{err}");
        assert!(
            err.contains(&format!(
                "stack stopped (the stack cancelled top-down): box code's process {how}"
            )),
            "{err}"
        );
        // The tick that saw it: the fourth, 0.18 s of stack time at 60 ms a tick.
        assert!(err.contains(": 4 ticks, 0.18 s of stack time"), "{err}");
    }
}

#[test]
fn box_code_s_environment_does_not_steer_the_package_installer() {
    // An import of a NAOqi OS package not yet in the cache makes choreo install it: box code
    // points pip's settings at a listener of the test's and at the folder outside first.
    // The installer takes choreo's environment (fixed), never box code's: the package
    // comes from the index, and nothing reaches the listener.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let h = Hostile::new(&format!(
        "    def onInput_onStart(self):\n        import os, importlib\n        os.environ['PIP_INDEX_URL'] = 'http://127.0.0.1:{port}/simple'\n        os.environ['PYTHONUSERBASE'] = '{{outside}}'\n        self.logger.info('yaml=%s' % importlib.import_module('yaml').__version__)\n        self.onStopped()\n"
    ));
    let cache = h.dir.path().join("cache");
    // In real time: in virtual time a box waiting on pip may be taken for idle
    // (docs/box-environment.md), as it was on a slow network.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_choreo"))
        .arg("run")
        .arg(&h.file)
        .args(["--timeout", "300"])
        .current_dir(h.dir.path())
        .env("CHOREO_PACKAGES", &cache)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("yaml=6.0.2"), "{out}");
    assert!(
        listener.accept().is_err(),
        "the installer reached the listener"
    );
    assert_eq!(
        std::fs::read_dir(h.outside()).unwrap().count(),
        1,
        "outside changed"
    );
}

#[test]
fn ctrl_c_mid_install_stops_the_run_and_the_installer() {
    // The index pip is sent to (the user's PIP_INDEX_URL) takes connections and never
    // answers: a Ctrl-C while the load waits for pip stops pip and the run (130), and
    // nothing of the install outlives it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let holder = std::sync::Arc::clone(&asked);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            holder.lock().unwrap().push(stream);
        }
    });
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import yaml\n        self.onStopped()\n",
    );
    let cache = h.dir.path().join("cache");
    let cache_text = cache.display().to_string();
    let pips = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|e| {
                std::fs::read(e.path().join("cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&cache_text))
            })
            .count()
    };
    let within = |secs: u64, done: &dyn Fn() -> bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        while !done() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        done()
    };
    for flags in [&[][..], &["--no-sandbox"][..]] {
        let before = asked.lock().unwrap().len();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_choreo"))
            .arg("run")
            .arg(&h.file)
            .args(flags)
            .current_dir(h.dir.path())
            .env("CHOREO_PACKAGES", &cache)
            .env("PIP_INDEX_URL", format!("http://127.0.0.1:{port}/simple"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        // pip asks the index (60 s: a loaded machine starts pip slowly), then Ctrl-C.
        let pip_asked = within(60, &|| asked.lock().unwrap().len() > before);
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
        let o = child.wait_with_output().unwrap();
        let out =
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
        assert!(pip_asked, "{flags:?}: pip never asked the index: {out}");
        assert_eq!(o.status.code(), Some(130), "{flags:?}: {out}");
        assert!(out.contains("interrupted (Ctrl-C)"), "{flags:?}: {out}");
        assert!(
            within(10, &|| pips() == 0),
            "{flags:?}: pip outlived the run"
        );
    }
}

#[test]
fn threads_started_by_threads_keep_one_confinement() {
    // Each thread box code starts from a thread box code started is confined as its
    // starter, and no more: a chain of 24 (a timer that starts the next) stays within the
    // kernel's 16 layers a thread may have.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import threading, time\n        def chain(n):\n            if n:\n                threading.Thread(target=chain, args=(n - 1,)).start()\n            else:\n                self.logger.info('deep')\n        chain(24)\n        time.sleep(1)\n        self.onStopped()\n",
    );
    let ran = h.run(&[]);
    ran.exits(0).says("deep");
    assert!(!ran.out.contains("could not confine"), "{}", ran.out);
}

#[test]
fn a_name_lookup_is_refused_alike_with_and_without_a_network_namespace() {
    // In the box host's network namespace a lookup fails at once (no name server to ask);
    // on choreo's threads it would ask the machine's: judged before either, the same
    // refusal at the box's line, with the flag that allows it, and in the report.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import socket\n        try:\n            socket.getaddrinfo('choreo-test.example.org', 80)\n            self.logger.info('resolved')\n        except Exception as e:\n            self.logger.info('lookup: %s' % e)\n        self.onStopped()\n",
    );
    for mode in [&[][..], &["--sandbox=threads"][..]] {
        let ran = h.run(mode);
        ran.exits(0)
            .says("lookup: [Errno 13] choreo's sandbox refused looking up choreo-test.example.org (--allow-net=choreo-test.example.org allows it)")
            .says("resolve choreo-test.example.org (");
        assert!(!ran.out.contains("resolved"), "{}", ran.out);
    }
    // An address is no lookup: judged when connected to, not here.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import socket\n        socket.getaddrinfo('127.0.0.1', 80)\n        self.logger.info('looked up')\n        self.onStopped()\n",
    );
    h.run(&[]).exits(0).says("looked up");
}

#[test]
fn a_load_that_fails_writes_the_same_trace_in_every_mode() {
    // The box fails as it is made (its class body names nothing): what the load recorded
    // before (the root made, then unmade) is in the trace however box code runs; on
    // choreo's threads the boxes made before keep the trace alive past the process's end.
    let h = Hostile::new("    x = no_such_name\n");
    let traces: Vec<String> = [&[][..], &["--sandbox=threads"][..], &["--no-sandbox"][..]]
        .iter()
        .enumerate()
        .map(|(i, mode)| {
            let trace = h.outside().join(format!("{i}.jsonl"));
            let trace_arg = trace.display().to_string();
            let mut args = vec!["--trace", trace_arg.as_str()];
            args.extend_from_slice(mode);
            let o = h.command(&args).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("NameError"), "{err}");
            assert_ne!(o.status.code(), Some(0), "{err}");
            std::fs::read_to_string(&trace).unwrap()
        })
        .collect();
    assert!(
        traces[0].contains(r#""path":"root","event":"new""#),
        "{}",
        traces[0]
    );
    assert_eq!(traces[0], traces[1]);
    assert_eq!(traces[0], traces[2]);
}

#[test]
fn choreo_chats_script_runs_in_a_box_host() {
    // `choreo chat`'s `%script` is the project's code too: in a box host of its own (its
    // parent the PID namespace's init), started at the first script; on choreo's threads
    // with `--sandbox=threads`.
    let dir = tempfile::tempdir().unwrap();
    let topic = dir.path().join("where.top");
    std::fs::write(
        &topic,
        "topic: ~where()\nlanguage: enu\n\nu:(where are you) my parent is %script\nimport os\nprint(os.getppid())\n%script\n",
    )
    .unwrap();
    let script = dir.path().join("talk.txt");
    std::fs::write(&script, "> where are you\n< *\n").unwrap();
    let chat = |extra: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_choreo"))
            .arg("chat")
            .arg(&topic)
            .arg("--script")
            .arg(&script)
            .args(extra)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{out}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        out
    };
    let out = chat(&[]);
    assert!(out.contains("robot: my parent is 1 "), "{out}");
    let out = chat(&["--sandbox=threads"]);
    assert!(out.contains("robot: my parent is "), "{out}");
    assert!(!out.contains("robot: my parent is 1 "), "{out}");
}

#[test]
fn a_signal_given_before_a_disconnect_is_not_delivered_after_it() {
    // libqi's `SignalBase::disconnect` disables the subscriber ("ensure no call on
    // subscriber occurs once this function returns"), and a call already posted checks
    // that first (`SignalSubscriber::callImpl`, src/type/signal.cpp). acando-remote's box
    // connects to `ALServiceManager.serviceStopped`, starts a service whose program (absent
    // from the repository) dies at once, and disconnects in the same hook: the signal,
    // handed over when the hook is done, finds the box disconnected and calls nothing,
    // alike in the box host and on choreo's threads.
    let Some(corpus) = choreo_testkit::corpus("a service's signal and its disconnect") else {
        return;
    };
    let project = corpus.join("robbestad__meet_and_greet/acando-remote.pml");
    let dir = tempfile::tempdir().unwrap();
    let traces: Vec<String> = [&[][..], &["--sandbox=threads"][..]]
        .iter()
        .enumerate()
        .map(|(i, mode)| {
            let trace = dir.path().join(format!("{i}.jsonl"));
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_choreo"))
                .arg("run")
                .arg(&project)
                .args(["--fast", "--timeout", "60", "-q", "--trace"])
                .arg(&trace)
                .args(*mode)
                .output()
                .unwrap();
            let text = std::fs::read_to_string(&trace).unwrap();
            assert!(
                text.contains("ALServiceManager.startService"),
                "{text}{}",
                String::from_utf8_lossy(&o.stderr)
            );
            // The run's temporary folder (`choreo-` and 6 characters) is named anew each run.
            let mut parts = text.split("/tmp/choreo-");
            let mut same = parts.next().unwrap_or_default().to_string();
            for part in parts {
                same.push_str("RUN");
                same.push_str(part.get(6..).unwrap_or_default());
            }
            same
        })
        .collect();
    assert!(!traces[0].contains("App Script Stopped"), "{}", traces[0]);
    assert_eq!(traces[0], traces[1]);
}
