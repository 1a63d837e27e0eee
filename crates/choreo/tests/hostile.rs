//! The hostile-behavior suite (docs/security.md): behaviors written here, each doing one
//! thing a stranger's box code could do, run by `choreo run` as a user runs them. Each ends
//! with its documented exit code and a message naming the box and line; none changes a file
//! outside the run's folders, leaves a process running, or outlives its time bound.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use choreo_testkit::xar_text;

use crate::support::hostile::{Hostile, alive, behavior};

// Files.

#[test]
fn a_write_outside_the_run_is_refused_at_its_line() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        open('{outside}/new.txt', 'w').write('x')\n        self.onStopped()\n",
    );
    let path = h.outside().join("new.txt");
    h.run(&["--strict"])
        .exits(3)
        .says(&format!(
            "root/Hostile line 3 (onInput_onStart): PermissionError: [Errno 13] choreo's sandbox refused writing {}",
            path.display()
        ))
        .says(&format!("--allow-write {}", h.outside().display()))
        .says("refused        1");
    assert!(!path.exists());
}

/// The robot's `/tmp` is the run's own folder (docs/box-environment.md): box code that
/// climbs out of it with `..`, or links a folder of its `/tmp` to the machine's, reaches
/// nothing more; and the folder beside the project (itself in the machine's `/tmp`) is still
/// the machine's, refused. Each attempt raises, or the box says what it got.
#[test]
fn the_robots_tmp_leads_nowhere_else() {
    let h = Hostile::new(concat!(
        "    def onInput_onStart(self):\n",
        "        import os\n",
        "        tries = [\n",
        "            ('up', lambda: open('/tmp/../../../etc/passwd').read()),\n",
        "            ('beside', lambda: open('/tmp/../../choreo-escape.txt', 'w').write('x')),\n",
        "            ('linked', lambda: (os.symlink('{outside}', '/tmp/out'), open('/tmp/out/secret.txt').read())),\n",
        "            ('linked write', lambda: open('/tmp/out/new.txt', 'w').write('x')),\n",
        "            ('outside', lambda: open('{outside}/secret.txt').read()),\n",
        "        ]\n",
        "        refused = []\n",
        "        for name, attempt in tries:\n",
        "            try:\n",
        "                got = attempt()\n",
        "            except PermissionError:\n",
        "                refused.append(name)\n",
        "                continue\n",
        "            raise RuntimeError('%s gave %r' % (name, got))\n",
        "        raise ValueError('refused: ' + ', '.join(refused))\n",
    ));
    h.run(&[])
        .says("ValueError: refused: up, beside, linked, linked write, outside");
    assert!(!std::path::Path::new("/tmp/choreo-escape.txt").exists());
    assert!(!h.outside().join("new.txt").exists());
}

#[test]
fn allow_write_lets_box_code_write_there() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        open('{outside}/new.txt', 'w').write('x')\n        self.onStopped()\n",
    );
    let outside = h.outside();
    let mut command = h.command(&["--strict", "--allow-write"]);
    command.arg(&outside);
    let o = command.output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("new.txt")).unwrap(),
        "x"
    );
}

#[test]
fn a_read_of_the_users_files_is_refused() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        self.logger.info(open('{outside}/secret.txt').read())\n        self.onStopped()\n",
    );
    let ran = h.run(&["--strict"]);
    ran.exits(3)
        .says("root/Hostile line 3 (onInput_onStart): PermissionError")
        .says(&format!(
            "--allow-read {}",
            h.outside().join("secret.txt").display()
        ));
    assert!(!ran.err.contains("the user's secret"));
}

#[test]
fn allow_read_lets_box_code_read_there() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        self.logger.info(open('{outside}/secret.txt').read())\n        self.onStopped()\n",
    );
    let mut command = h.command(&["--strict", "--allow-read"]);
    command.arg(h.outside());
    let o = command.output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("the user's secret"));
}

#[test]
fn the_processs_environment_is_not_read_through_proc() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        self.logger.info(open('/proc/self/environ').read())\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("root/Hostile line 3 (onInput_onStart): PermissionError")
        .says("refused reading /proc/self/environ");
}

#[test]
fn a_link_in_the_package_to_a_file_outside_is_judged_by_the_file() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os\n        self.logger.info(open(os.path.join(self.behaviorAbsolutePath(), 'data.txt')).read())\n        self.onStopped()\n",
    );
    std::os::unix::fs::symlink(
        h.outside().join("secret.txt"),
        h.file.parent().unwrap().join("data.txt"),
    )
    .unwrap();
    let ran = h.run(&["--strict"]);
    ran.exits(3)
        .says("root/Hostile line 4 (onInput_onStart): PermissionError")
        .says("secret.txt");
    assert!(!ran.err.contains("the user's secret"));
}

#[test]
fn a_rename_out_of_the_user_folder_is_refused() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os\n        os.rename('{outside}/secret.txt', '{outside}/moved.txt')\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("root/Hostile line 4 (onInput_onStart): PermissionError");
    assert!(h.outside().join("secret.txt").exists());
}

#[test]
fn the_robots_paths_are_written_in_the_runs_own_folders() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        open('/home/nao/note.txt', 'w').write('x')\n        self.logger.info(open('/home/nao/note.txt').read() + ' read back')\n        self.onStopped()\n",
    );
    h.run(&["--strict"]).exits(0).says("x read back");
}

// The network.

#[test]
fn a_connection_is_refused_and_nothing_arrives() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let h = Hostile::new(&format!(
        "    def onInput_onStart(self):\n        import socket\n        socket.create_connection(('127.0.0.1', {port})).sendall(b'stolen')\n        self.onStopped()\n"
    ));
    h.run(&["--strict"])
        .exits(3)
        .says("line 4 (onInput_onStart): PermissionError")
        .says(&format!("--allow-net=127.0.0.1:{port}"));
    assert!(listener.accept().is_err(), "a connection arrived");
}

#[test]
fn allow_net_names_the_hosts_box_code_may_reach() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let h = Hostile::new(&format!(
        "    def onInput_onStart(self):\n        import socket\n        socket.create_connection(('127.0.0.1', {port})).sendall(b'hello')\n        self.onStopped()\n"
    ));
    let allowed = format!("--allow-net=127.0.0.1:{port}");
    h.run(&["--strict", &allowed]).exits(0);
    let (mut peer, _) = listener.accept().unwrap();
    let mut got = Vec::new();
    std::io::Read::read_to_end(&mut peer, &mut got).unwrap();
    assert_eq!(got, b"hello");
}

#[test]
fn a_unix_socket_is_the_network_too() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import socket\n        a, b = socket.socketpair()\n        a.send(b'a pair still works')\n        self.log(b.recv(32).decode())\n        s = socket.socket(socket.AF_UNIX)\n        s.connect('/run/some.sock')\n        self.onStopped()\n",
    );
    // In the box host the kernel refuses the socket itself (no Unix socket may be made:
    // seccomp); the hook says so at the line that makes it, with the sandbox's words, and
    // the report keeps it. A connected pair reaches nobody: it is made.
    h.run(&["--strict"])
        .exits(3)
        .says("a pair still works")
        .says("line 7 (onInput_onStart): PermissionError: [Errno 13] choreo's sandbox refused making a Unix socket (--no-sandbox allows it)")
        .says("socket a Unix socket (root/Hostile line 7; --no-sandbox)");
    // On choreo's confined threads, the connection, named.
    h.run(&["--strict", "--sandbox=threads"])
        .exits(3)
        .says("a pair still works")
        .says("line 8 (onInput_onStart): PermissionError")
        .says("unix:/run/some.sock");
}

// Processes.

#[test]
fn a_program_is_not_started() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import subprocess\n        subprocess.call(['touch', '{outside}/touched'])\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("line 4 (onInput_onStart): PermissionError: [Errno 1] choreo's sandbox refused starting the program ['touch'")
        .says("--allow-run");
    assert!(!h.outside().join("touched").exists());
}

#[test]
fn a_shell_command_is_not_run() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os\n        os.system('touch {outside}/touched')\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("line 4 (onInput_onStart): PermissionError")
        .says("the shell command");
    assert!(!h.outside().join("touched").exists());
}

#[test]
fn the_process_is_not_forked() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os\n        os.fork()\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("line 4 (onInput_onStart): PermissionError")
        .says("a copy of its process (os.fork)");
}

#[test]
fn another_process_is_not_signalled() {
    let mut victim = Command::new("sleep").arg("300.7").spawn().unwrap();
    let h = Hostile::new(&format!(
        "    def onInput_onStart(self):\n        import os\n        os.kill({}, 9)\n        self.onStopped()\n",
        victim.id()
    ));
    h.run(&["--strict"])
        .exits(3)
        .says("line 4 (onInput_onStart): PermissionError");
    assert!(
        victim.try_wait().unwrap().is_none(),
        "the process was killed"
    );
    victim.kill().unwrap();
    let _ = victim.wait();
}

#[test]
fn a_signal_to_its_process_group_is_refused() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os, signal\n        os.kill(0, signal.SIGTERM)\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("line 4 (onInput_onStart): PermissionError")
        .says("a signal 15 to process 0");
}

#[test]
fn processes_box_code_starts_do_not_outlive_the_run() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import subprocess\n        for i in range(64):\n            subprocess.Popen(['sleep', '300.11'])\n        subprocess.Popen(['sleep', '300.11'], start_new_session=True)\n        self.onStopped()\n",
    );
    h.run(&["--allow-run"])
        .exits(0)
        .says("left running   65 process(es) box code started: killed");
    assert_eq!(alive("300.11"), 0);
}

// The process's end.

#[test]
fn os_exit_ends_the_run_with_exit_8_and_where() {
    let h =
        Hostile::new("    def onInput_onStart(self):\n        import os\n        os._exit(0)\n");
    h.run(&[])
        .exits(8)
        .says("box code's process exited with code 0 before the run ended")
        .says("where          root/Hostile line 4 (onInput_onStart): os._exit(0)");
    // On choreo's confined threads, the supervising parent tells it.
    h.run(&["--sandbox=threads"])
        .exits(8)
        .says("the run's process exited with code 0 before the run ended")
        .says("where          root/Hostile line 4 (onInput_onStart): os._exit(0)");
}

#[test]
fn sys_exit_is_an_error_at_its_line() {
    let h =
        Hostile::new("    def onInput_onStart(self):\n        import sys\n        sys.exit(0)\n");
    h.run(&["--strict"])
        .exits(3)
        .says("root/Hostile line 4 (onInput_onStart): SystemExit: 0");
}

#[test]
fn a_signal_to_its_own_process_is_reported() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os, signal\n        os.kill(os.getpid(), signal.SIGTERM)\n",
    );
    h.run(&[])
        .exits(8)
        .says("killed by signal 15 (SIGTERM)")
        .says("root/Hostile line 4 (onInput_onStart): os.kill(its own process, 15)");
}

#[test]
fn a_signal_to_its_own_thread_is_reported() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import signal, threading\n        signal.pthread_kill(threading.get_ident(), signal.SIGKILL)\n",
    );
    h.run(&[])
        .exits(8)
        .says("killed by signal 9 (SIGKILL)")
        .says("root/Hostile line 4 (onInput_onStart): signal.pthread_kill(");
}

#[test]
fn sigkill_to_its_own_process_is_reported() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os\n        os.kill(os.getpid(), 9)\n",
    );
    h.run(&[]).exits(8).says("killed by signal 9 (SIGKILL)");
}

#[test]
fn a_segfault_in_native_code_is_reported_with_the_box() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import ctypes\n        ctypes.string_at(0)\n",
    );
    let ran = h.run(&[]);
    ran.exits(8)
        .says("killed by signal 11 (SIGSEGV): a fatal error in native code")
        .says("where          root/Hostile line 4 (onInput_onStart)");
    assert!(!ran.err.contains("core dumped"));
}

#[test]
fn an_abort_is_reported() {
    let h = Hostile::new("    def onInput_onStart(self):\n        import os\n        os.abort()\n");
    h.run(&[])
        .exits(8)
        .says("killed by signal 6 (SIGABRT)")
        .says("root/Hostile line 4 (onInput_onStart)");
}

#[test]
fn closing_standard_output_does_not_lose_the_report() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os\n        os.close(1)\n        self.onStopped()\n",
    );
    h.run(&[]).exits(0).says("outcome        finished");
}

#[test]
fn closing_standard_error_does_not_lose_the_report() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os\n        os.close(2)\n        self.onStopped()\n",
    );
    h.run(&[]).exits(0).says("outcome        finished");
}

// Time.

#[test]
fn a_busy_loop_in_on_unload_cannot_outlive_the_timeout() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        self.onStopped()\n    def onUnload(self):\n        while True: pass\n",
    );
    // --timeout 2, then 20 s of grace and 2 s for the dump; the rest is margin for a busy
    // machine.
    h.run(&["--timeout", "2"])
        .exits(5)
        .says("stopped: timeout; box code did not give the run back")
        .says("where          root/Hostile line 5 (onUnload)")
        .within(60);
}

#[test]
fn a_busy_loop_in_virtual_time_cannot_outlive_the_timeout() {
    let h = Hostile::new("    def onInput_onStart(self):\n        while True:\n            pass\n");
    // The engine sees the box never gives its turn back (in virtual time, after 5 s of its
    // CPU): "root/Hostile is still in onInput_onStart". On a busy machine the box gets less
    // than a core, and the real-time bound (2 s + 20 s) may come first: "where
    // root/Hostile line 3 (onInput_onStart)", or line 4: the dump shows the loop's line
    // where the thread was, its `while` or its `pass`. Each is a true, located report.
    let ran = h.run(&["--timeout", "2"]);
    ran.exits(5).within(60);
    let in_the_loop = |line: u32| {
        ran.out.contains(&format!(
            "where          root/Hostile line {line} (onInput_onStart)"
        ))
    };
    assert!(
        ran.out.contains("root/Hostile is still in onInput_onStart")
            || in_the_loop(3)
            || in_the_loop(4),
        "{}",
        ran.out
    );
}

#[test]
fn an_endless_constructor_cannot_outlive_the_timeout() {
    let h = Hostile::new(
        "    def __init__(self):\n        GeneratedClass.__init__(self)\n        while True: pass\n",
    );
    h.run(&["--timeout", "2"])
        .exits(5)
        .says("root/Hostile line 4 (__init__)")
        .within(60);
}

#[test]
fn an_excepthook_that_never_returns_cannot_outlive_the_timeout() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import threading\n        def hang(args):\n            while True:\n                pass\n        threading.excepthook = hang\n        threading.Thread(target=lambda: 1 / 0).start()\n        self.onStopped()\n",
    );
    let ran = h.run(&["--timeout", "2"]);
    assert!(matches!(ran.code, Some(0 | 5)), "{}", ran.out);
    ran.says("run report").within(60);
}

#[test]
fn an_atexit_function_that_never_returns_does_not_hold_the_end() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import atexit\n        def hang():\n            while True:\n                pass\n        atexit.register(hang)\n        self.onStopped()\n",
    );
    h.run(&["--timeout", "2"])
        .exits(0)
        .says("outcome        finished")
        .within(60);
}

#[test]
fn box_code_cannot_take_ctrl_c_over() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import signal\n        signal.signal(signal.SIGINT, lambda *a: None)\n        self.onStopped()\n",
    );
    h.run(&["--strict"]).exits(3).says(
        "root/Hostile line 4 (onInput_onStart): ValueError: signal only works in main thread",
    );
}

// Bounds.

#[test]
fn memory_without_bound_is_a_memory_error() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        keep = []\n        while True:\n            keep.append(bytearray(64 * 1024 * 1024))\n",
    );
    h.run(&["--strict", "--max-memory", "1G"])
        .exits(3)
        .says("root/Hostile line 5 (onInput_onStart): MemoryError")
        .within(120);
}

#[test]
fn threads_without_bound_are_an_error_at_the_limit() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import threading, time\n        for i in range(10000):\n            threading.Thread(target=time.sleep, args=(1,)).start()\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("line 5 (onInput_onStart): RuntimeError: can't start new thread: box code already runs 256 threads");
}

#[test]
fn files_without_bound_are_an_error_at_the_limit() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        keep = [open('/dev/null') for i in range(100000)]\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("line 3 (onInput_onStart): OSError: [Errno 24] Too many open files");
}

#[test]
fn deep_recursion_is_a_recursion_error() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        def down(n):\n            return down(n + 1)\n        down(0)\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("RecursionError: maximum recursion depth exceeded");
}

#[test]
fn a_100_mb_log_line_costs_the_run_little() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        self.logger.info('x' * 100000000)\n        self.onStopped()\n",
    );
    let ran = h.run(&[]);
    ran.exits(0).says("99983616 more characters left out");
    assert!(ran.err.len() < 100_000, "{} bytes of output", ran.err.len());
}

// The box environment, replaced.

#[test]
fn replacing_the_shims_does_not_break_the_run() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import naoqi, qi\n        naoqi.ALProxy = None\n        qi.Session = None\n        GeneratedClass.onInput_onStop = None\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(0)
        .says("outcome        finished");
}

#[test]
fn replacing_the_sandboxs_own_functions_changes_nothing() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import _choreo\n        _choreo.confined = lambda *a: None\n        open('{outside}/new.txt', 'w')\n        self.onStopped()\n",
    );
    h.run(&["--strict"])
        .exits(3)
        .says("line 5 (onInput_onStart): PermissionError");
    assert!(!h.outside().join("new.txt").exists());
}

#[test]
fn a_project_of_100000_boxes_loads_and_runs() {
    // A Choregraphe project: its .pml names the behavior of 100,000 boxes.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("behavior_1")).unwrap();
    std::fs::write(
        dir.path().join("huge.pml"),
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<Package name="huge" format_version="4">
    <BehaviorDescriptions>
        <BehaviorDescription name="behavior" src="behavior_1" xar="behavior.xar" />
    </BehaviorDescriptions>
</Package>
"#,
    )
    .unwrap();
    let file = dir.path().join("huge.pml");
    let xar = dir.path().join("behavior_1/behavior.xar");
    let script = r#"<script language="4"><content><![CDATA[class MyClass(GeneratedClass):
    pass
]]></content></script>"#;
    let mut inner = String::with_capacity(100_000 * 600);
    for id in 1..=100_000 {
        inner.push_str(&xar_text::boxed("B", id, script, ""));
    }
    inner.push_str(&xar_text::link(0, 2, 0, 4));
    std::fs::write(&xar, xar_text::behavior(&inner)).unwrap();
    let started = Instant::now();
    // --timeout also bounds the run's real time from the load (plus a grace: the parent
    // ends a run box code holds): loading 100,000 boxes took 78 s of it beside a busy loop
    // per core and three other tests, so the bound is well above that; the behavior itself
    // ends at once.
    let o = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["run", file.to_str().unwrap(), "--fast", "--timeout", "600"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("outcome        finished"), "{out}");
    // With the box host each box's construction, load and unload cross to box code's
    // process: 305 s beside a busy loop per core and the rest of the suite. The bound is a
    // hang's (`--timeout` holds the rest).
    assert!(started.elapsed() < Duration::from_secs(500));
}

#[test]
fn a_stacks_played_behaviors_are_confined_too() {
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        open('{outside}/new.txt', 'w').write('x')\n        self.onStopped()\n",
    );
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
    let err = h.stack_run();
    assert!(
        err.contains("PermissionError: [Errno 13] choreo's sandbox refused writing"),
        "{err}"
    );
    assert!(!h.outside().join("new.txt").exists());
}

// Native code: the kernel's confinement, beneath Python's hooks (docs/security.md). Each
// box calls libc through `ctypes`, which no audit hook sees; the kernel refuses the system
// call itself, and the box raises what libc said.

/// Box code that calls `call` (a libc call through `ctypes`, `libc` and `os` bound) and
/// raises `OSError` with libc's errno when it returns -1 (a socket `s` ready); that is
/// its line 8.
fn native(call: &str) -> String {
    format!(
        "    def onInput_onStart(self):\n        import ctypes, os, socket, struct\n        libc = ctypes.CDLL(None, use_errno=True)\n        s = socket.socket()\n        result = {call}\n        if result < 0:\n            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))\n        self.onStopped()\n"
    )
}

#[test]
fn native_code_cannot_write_outside_the_run() {
    let h = Hostile::new(&native(
        "libc.open(b'{outside}/new.txt', os.O_WRONLY | os.O_CREAT, 0o644)",
    ));
    h.run(&["--strict"]).exits(3).says(
        "root/Hostile line 8 (onInput_onStart): PermissionError: [Errno 13] Permission denied",
    );
    assert!(!h.outside().join("new.txt").exists());
}

#[test]
fn native_code_cannot_read_the_users_files() {
    let h = Hostile::new(&native("libc.open(b'{outside}/secret.txt', os.O_RDONLY)"));
    h.run(&["--strict"])
        .exits(3)
        .says("line 8 (onInput_onStart): PermissionError: [Errno 13]");
    // With the flag, the kernel lets it read too.
    let mut command = h.command(&["--strict", "--allow-read"]);
    command.arg(h.outside());
    assert_eq!(command.output().unwrap().status.code(), Some(0));
}

#[test]
fn native_code_cannot_connect() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let h = Hostile::new(&native(&format!(
        "libc.connect(s.fileno(), struct.pack('=H', 2) + struct.pack('!H', {port}) + socket.inet_aton('127.0.0.1') + bytes(8), 16)"
    )));
    h.run(&["--strict"])
        .exits(3)
        .says("line 8 (onInput_onStart): PermissionError: [Errno 13]");
    assert!(listener.accept().is_err(), "a connection arrived");
}

#[test]
fn native_code_cannot_start_a_program() {
    let h = Hostile::new(&native(
        "-1 if libc.system(b'touch {outside}/touched') != 0 else 0",
    ));
    h.run(&["--strict"])
        .exits(3)
        .says("line 8 (onInput_onStart)");
    assert!(!h.outside().join("touched").exists());
}

#[test]
fn a_program_box_code_may_start_runs_under_the_same_rules() {
    // `--allow-run` starts `touch`; the kernel still keeps it out of the user's folder.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import subprocess\n        self.logger.info('touch exited %d' % subprocess.call(['touch', '{outside}/touched']))\n        self.onStopped()\n",
    );
    h.run(&["--strict", "--allow-run"])
        .exits(0)
        .says("touch exited 1");
    assert!(!h.outside().join("touched").exists());
}

/// Box code `body` whose libc `open` of `{outside}/new.txt` for writing the kernel refuses
/// (it logs `said`, the result: -1), in a run that finishes.
fn native_write_refused(body: &str, said: &str) {
    let h = Hostile::new(body);
    h.run(&["--strict"]).exits(0).says(said);
    assert!(!h.outside().join("new.txt").exists());
}

#[test]
fn a_constructor_is_confined_as_the_hooks_are() {
    native_write_refused(
        "    def __init__(self):\n        GeneratedClass.__init__(self)\n        import ctypes, os\n        libc = ctypes.CDLL(None, use_errno=True)\n        self.fd = libc.open(b'{outside}/new.txt', os.O_WRONLY | os.O_CREAT, 0o644)\n    def onInput_onStart(self):\n        self.logger.info('constructor opened %d' % self.fd)\n        self.onStopped()\n",
        "constructor opened -1",
    );
}

#[test]
fn a_thread_box_code_starts_is_confined_too() {
    native_write_refused(
        "    def onInput_onStart(self):\n        import threading, ctypes, os\n        libc = ctypes.CDLL(None, use_errno=True)\n        got = []\n        t = threading.Thread(target=lambda: got.append(libc.open(b'{outside}/new.txt', os.O_WRONLY | os.O_CREAT, 0o644)))\n        t.start()\n        t.join()\n        self.logger.info('thread opened %d' % got[0])\n        self.onStopped()\n",
        "thread opened -1",
    );
}

#[test]
fn require_runs_where_the_kernel_confines_and_no_sandbox_lets_native_code_through() {
    let h = Hostile::new(&native(
        "libc.open(b'{outside}/new.txt', os.O_WRONLY | os.O_CREAT, 0o644)",
    ));
    h.run(&["--strict", "--sandbox=require"])
        .exits(3)
        .says("line 8 (onInput_onStart): PermissionError");
    // Unconfined, the same call writes (the test's folder changes: not through `run`).
    let o = h.command(&["--strict", "--no-sandbox"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(h.outside().join("new.txt").exists());
}

#[test]
fn a_package_services_program_is_confined_as_box_code() {
    // The program (the package's code too, a process of its own) exits with a bit for each
    // thing refused: 1 the write outside, 2 the read of the user's file, 4 the connection.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut h = Hostile::new(
        "    def onInput_onStart(self):\n        ALProxy('ALServiceManager').startService('hostile.evil')\n        self.onStopped()\n",
    );
    // A package: its .pml, its manifest, the behavior in behavior_1/.
    let project = h.file.parent().unwrap().to_path_buf();
    std::fs::create_dir_all(project.join("behavior_1")).unwrap();
    std::fs::rename(&h.file, project.join("behavior_1/behavior.xar")).unwrap();
    h.file = project.join("hostile.pml");
    std::fs::write(
        &h.file,
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<Package name=\"Hostile\" format_version=\"4\"><Manifest src=\"manifest.xml\" /><BehaviorDescriptions><BehaviorDescription name=\"behavior\" src=\"behavior_1\" xar=\"behavior.xar\" /></BehaviorDescriptions></Package>\n",
    )
    .unwrap();
    std::fs::write(
        project.join("manifest.xml"),
        "<?xml version='1.0' encoding='UTF-8'?>\n<package uuid=\"hostile\" version=\"1.0.0\"><names><name lang=\"en_US\">Hostile</name></names><services><service name=\"evil\" autorun=\"false\" execStart=\"python bin/evil.py\" /></services></package>\n",
    )
    .unwrap();
    std::fs::create_dir_all(project.join("bin")).unwrap();
    let outside = h.outside().display().to_string();
    std::fs::write(
        project.join("bin/evil.py"),
        format!(
            "import socket, sys\nrefused = 0\ntry:\n    open('{outside}/new.txt', 'w')\nexcept OSError:\n    refused |= 1\ntry:\n    open('{outside}/secret.txt').read()\nexcept OSError:\n    refused |= 2\ntry:\n    socket.create_connection(('127.0.0.1', {port}), 2)\nexcept OSError:\n    refused |= 4\nsys.exit(refused)\n"
        ),
    )
    .unwrap();
    h.run(&[])
        .exits(0)
        .says("hostile.evil: died (exit status: 7)");
    assert!(!h.outside().join("new.txt").exists());
    assert!(listener.accept().is_err(), "a connection arrived");
}

#[test]
fn a_stacks_own_python_behaviors_are_confined_too() {
    // At import, in the constructor and in a hook: each refused, the hook's at its line.
    let h = Hostile::new("    pass\n");
    let outside = h.outside().display().to_string();
    h.python_stack(
        "evil.py",
        &format!(
            "import ctypes, os\ntried = []\ntry:\n    open('{outside}/imported.txt', 'w')\nexcept OSError as e:\n    tried.append(type(e).__name__)\n\nclass Evil(object):\n    def __init__(self):\n        self.fd = ctypes.CDLL(None).open(b'{outside}/made.txt', os.O_WRONLY | os.O_CREAT, 0o644)\n\n    def wants_to_be_activated(self, cx):\n        return True\n\n    def on_activated(self, cx):\n        cx.log('import %s, constructor %d' % (tried, self.fd))\n        open('{outside}/hooked.txt', 'w')\n"
        ),
        &[("Evil", "Evil")],
    );
    let err = h.stack_run();
    assert!(
        err.contains("import ['PermissionError'], constructor -1"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "PermissionError: [Errno 13] choreo's sandbox refused writing {outside}/hooked.txt (--allow-write {outside} allows it)"
        )),
        "{err}"
    );
    assert!(err.contains("evil.py\", line 17, in on_activated"), "{err}");
    // `stack check` runs the module and the constructor too, confined the same way.
    let checked = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["stack", "check", "stack"])
        .current_dir(h.dir.path())
        .process_group(0)
        .output()
        .unwrap();
    assert_eq!(checked.status.code(), Some(0), "{checked:?}");
    for file in ["imported.txt", "made.txt", "hooked.txt"] {
        assert!(!h.outside().join(file).exists(), "{file}");
    }
}

#[test]
fn a_dialogs_script_blocks_are_confined_in_choreo_chat() {
    let h = Hostile::new("    pass\n");
    let outside = h.outside().display().to_string();
    let topic = h.dir.path().join("project/evil.top");
    std::fs::write(
        &topic,
        format!(
            "topic: ~evil()\nlanguage: English\n\nu:(hello) done\n%script\nopen('{outside}/new.txt', 'w')\n%script\n"
        ),
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .arg("chat")
        .arg(&topic)
        .current_dir(h.dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(b"hello\n")?;
            child.wait_with_output()
        })
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(said.contains("choreo's sandbox refused writing"), "{said}");
    assert!(said.contains("--allow-write"), "{said}");
    assert!(!h.outside().join("new.txt").exists());
}

#[test]
fn a_path_relative_to_an_open_folder_is_judged_where_it_is() {
    // `shutil.rmtree` works through `*at` calls: a name relative to a folder it opened,
    // judged against that folder, not the current one. The box's own temporary folder is
    // removed; a folder made in the project's (read, not written) through a descriptor is
    // refused, named where it would have been.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os, shutil, tempfile\n        d = tempfile.mkdtemp()\n        os.makedirs(os.path.join(d, 'a', 'b'))\n        open(os.path.join(d, 'a', 'f.txt'), 'w').write('x')\n        shutil.rmtree(d)\n        self.log('removed: %s' % (not os.path.exists(d)))\n        fd = os.open(self.behaviorAbsolutePath(), os.O_RDONLY)\n        os.mkdir('made', dir_fd=fd)\n        self.onStopped()\n",
    );
    let project = h.file.parent().unwrap().to_path_buf();
    for flags in [&["--strict"][..], &["--strict", "--sandbox=threads"]] {
        h.run(flags)
            .exits(3)
            .says("removed: True")
            .says(&format!(
                "line 10 (onInput_onStart): PermissionError: [Errno 13] choreo's sandbox refused writing {}/made",
                project.display()
            ));
    }
    assert!(!project.join("made").exists());
}

#[test]
fn box_code_that_tells_the_hook_a_wrong_folder_is_still_refused_by_the_kernel() {
    // The hook learns an `os.open`'s folder from choreo's own `os.open`, a Python global
    // box code can write: it names its own (writable) temporary folder as the folder of a
    // relative open that is really in the current folder, outside the run. The hook is
    // fooled; the kernel is not.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        import os, sys, tempfile\n        os.chdir('{outside}')\n        mine = os.open(tempfile.mkdtemp(), os.O_RDONLY)\n        sys.modules['_choreo_sandbox']._OPENING.dir_fd = mine\n        open('planted.txt', 'w').write('x')\n        self.onStopped()\n",
    );
    for flags in [&["--strict"][..], &["--strict", "--sandbox=threads"]] {
        h.run(flags)
            .exits(3)
            .says("line 7 (onInput_onStart): PermissionError: [Errno 13] Permission denied");
        assert!(!h.outside().join("planted.txt").exists(), "{flags:?}");
    }
}

#[test]
fn a_file_the_robot_reads_for_box_code_is_judged_as_box_codes_own() {
    // The simulated robot reads the topic on box code's thread, which the kernel confines:
    // the refusal is named as box code's own would be, with its flag, in the report.
    let h = Hostile::new(
        "    def onInput_onStart(self):\n        ALProxy('ALDialog').loadTopic('{outside}/secret.top')\n        self.onStopped()\n",
    );
    let topic = h.outside().join("secret.top");
    std::fs::write(&topic, "topic: ~secret()\nlanguage: enu\nu:(hi) hello\n").unwrap();
    h.run(&["--strict"])
        .exits(3)
        .says(&format!(
            "line 3 (onInput_onStart): PermissionError: [Errno 13] choreo's sandbox refused reading {} for ALDialog.loadTopic (--allow-read {} allows it)",
            topic.display(),
            topic.display()
        ))
        .says("refused        1");
}

#[test]
fn a_stacks_second_leaf_is_confined_by_its_own_rules_not_the_firsts() {
    // Each leaf's constructors run on a load thread of their own: the stack's runner, which
    // loads both, is confined by neither. Leaf B's constructor reads a file of its own
    // project, which A's rules do not allow.
    let h = Hostile::new("    pass\n");
    let (a, b) = (h.dir.path().join("a"), h.dir.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(b.join("data.txt"), "its own data").unwrap();
    let a = a.join("a.xar");
    std::fs::write(
        &a,
        behavior("    def onInput_onStart(self):\n        self.onStopped()\n"),
    )
    .unwrap();
    let data = b.join("data.txt").display().to_string();
    let b = b.join("b.xar");
    std::fs::write(
        &b,
        behavior(&format!("    def __init__(self):\n        GeneratedClass.__init__(self)\n        try:\n            self.read = open('{data}').read()\n        except OSError as e:\n            self.read = repr(e)\n    def onInput_onStart(self):\n        self.logger.info('read ' + self.read)\n        self.onStopped()\n")),
    )
    .unwrap();
    let stack = h.dir.path().join("stack");
    std::fs::create_dir_all(&stack).unwrap();
    std::fs::write(
        stack.join("main.json"),
        r#"{"behaviorID": "Main", "behaviorClass": "DispatcherQueue", "behaviors": ["A", "B"]}"#,
    )
    .unwrap();
    for (id, path) in [("A", &a), ("B", &b)] {
        std::fs::write(
            stack.join(format!("{id}.json")),
            format!(
                r#"{{"behaviorID": "{id}", "behaviorClass": "PlayChoregraphe", "path": {:?}}}"#,
                path.display().to_string()
            ),
        )
        .unwrap();
    }
    let err = h.stack_run();
    assert!(err.contains("B:root/Hostile: read its own data"), "{err}");
}
