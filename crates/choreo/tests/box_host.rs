//! Box code in a process of its own (the default, docs/security.md, The box host): the
//! same run as in one process (`--sandbox=threads`), and what box code can no longer reach from there — choreo's
//! process id and environment, the report's pipe, the machine's files through native code.

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

#[test]
fn hello_runs_the_same_in_the_box_host() {
    let dir = tempfile::tempdir().unwrap();
    let hello = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/hello");
    let traces: Vec<String> = [&["--sandbox=threads"][..], &[][..]]
        .iter()
        .enumerate()
        .map(|(i, extra)| {
            let trace = dir.path().join(format!("{i}.jsonl"));
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_choreo"))
                .arg("run")
                .arg(&hello)
                .args(["--fast", "--trace"])
                .arg(&trace)
                .args(*extra)
                .output()
                .unwrap();
            assert_eq!(
                o.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&o.stderr)
            );
            std::fs::read_to_string(&trace).unwrap()
        })
        .collect();
    assert!(traces[0].contains("Hello! I am running in choreo."));
    assert_eq!(traces[0], traces[1]);
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
