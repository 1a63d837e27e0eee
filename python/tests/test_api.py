"""The Python API against the installed wheel: runs, the world answered, observers,
parameters, timelines, mistakes as exceptions, two behaviors side by side, a user's own qi,
and the choreo command."""

import os
import pathlib
import re
import subprocess
import sys
import time

import pytest

import choreo

ROOT = pathlib.Path(os.environ.get("CHOREO_SOURCE", pathlib.Path(__file__).parents[2]))
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "crates" / "choreo" / "tests" / "fixtures"


def test_the_package_is_the_installed_wheel_not_the_source_tree():
    assert "site-packages" in choreo.__file__, choreo.__file__


def test_a_behavior_runs_to_its_end():
    with choreo.load(EXAMPLES / "hello", fast=True) as run:
        assert run.behavior == "hello" and run.model == "NAO"
        run.start()
        ending = run.wait_end()
        assert ending == "finished" and ending.kind == "finished"
        assert run.said() == ["Hello! I am running in choreo."]
        state = run.state()
        assert state["awake"] and state["posture"] == "StandInit"
        assert abs(run.joints()["HeadPitch"]) < 0.05
        assert run.now > 2.0


def test_the_world_is_answered_from_python():
    with choreo.load(EXAMPLES / "interactive", fast=True) as run:
        run.start()
        assert run.wait() == "idle"
        assert run.awaited() == ["FrontTactilTouched"]
        run.raise_event("FrontTactilTouched", 1.0)
        assert run.wait_end() == "finished"
        assert run.said()[-1] == "Hello! You touched my head."
        assert run.memory("FrontTactilTouched") == 1.0
    # A scenario given as a dict.
    scenario = {"events": [{"at": 2.0, "touch": "FrontTactilTouched"}]}
    with choreo.load(EXAMPLES / "interactive", fast=True, scenario=scenario) as run:
        run.start()
        assert run.wait_end() == "finished"
    # Nobody answers: stopped idle, saying what it waited for.
    with choreo.load(EXAMPLES / "interactive", fast=True) as run:
        run.start()
        ending = run.wait_end()
        assert ending == "idle" and ending.awaiting == ["FrontTactilTouched"]


def test_outputs_and_events_are_observed():
    fired, removed = [], []
    with choreo.load(EXAMPLES / "interactive", fast=True) as run:
        run.on_output("Answer", "onStopped", fired.append)
        run.unobserve(run.on_event(removed.append))  # removed before anything happens
        events = run.events()
        run.start()
        assert run.wait() == "idle"
        run.stimulate("Answer", "touched", 1.0)
        assert run.wait_end() == "finished"
        kinds = [e["event"] for e in events]
    assert fired == [None] and removed == []
    assert "said" in kinds and kinds.count("out") >= 2


def test_wait_returns_once_the_observers_have_every_event_up_to_it():
    # A slow observer (its thread holds each event 20 ms) must still have seen the answer's
    # output when wait_end returns: a test reads what it recorded right after.
    seen, fired = [], []

    def slow(event):
        time.sleep(0.02)
        seen.append(event)

    with choreo.load(EXAMPLES / "interactive", fast=True,
                     scenario=EXAMPLES / "interactive" / "touch.yaml") as run:
        run.on_event(slow)
        run.on_output("Answer", "onStopped", fired.append)
        run.start()
        assert run.wait_end() == "finished"
        answered = [e for e in seen if e.get("path") == "root/Answer" and e.get("event") == "out"]
        assert answered and answered[0]["port"] == "onStopped"
        assert fired == [None]


def test_parameters_and_timelines_are_driven_from_python():
    with choreo.load(EXAMPLES / "hello", fast=True,
                     params={"Say Hello/Text": "From Python."}) as run:
        assert run.parameter("Say Hello", "Text") == "From Python."
        run.set_parameter("root/Say Hello", "Text", "Set again.")
        run.start()
        assert run.wait_end() == "finished"
        assert run.said() == ["Set again."]
    with choreo.load(FIXTURES / "nod.xar", fast=True) as run:
        events = run.events()
        run.start()
        timeline = run.timeline("Nod")
        timeline.pause()
        assert run.wait() == "idle"
        timeline.go_to_frame(9)
        timeline.play()
        assert run.wait_end() == "finished"
        frames = [e["frame"] for e in events if e["event"] == "frame" and e["path"] == "root/Nod"]
        assert frames == [1, 10, 11]


def test_a_project_is_opened_once_and_loaded_by_name():
    project = choreo.Project(EXAMPLES / "hello")
    assert project.behaviors == ["hello"] and project.name == "hello"
    assert project.warnings == [] and project.model == "NAO"
    with choreo.load(project, "hello", fast=True) as run:
        run.start()
        assert run.wait_end() == "finished"
    garbage = pathlib.Path(__file__).parent / "no such file.xar"
    with pytest.raises(choreo.NotFoundError):
        choreo.Project(garbage)


def test_mistakes_raise_exceptions_that_say_where():
    with pytest.raises(choreo.NotFoundError) as e:
        choreo.load(EXAMPLES / "nothing here")
    assert isinstance(e.value, FileNotFoundError)
    with pytest.raises(choreo.LoadError, match='no behavior "dance"'):
        choreo.load(EXAMPLES / "hello", "dance")
    with pytest.raises(ValueError, match="nao"):
        choreo.load(EXAMPLES / "hello", model="robby")
    run = choreo.load(EXAMPLES / "hello", fast=True)
    with pytest.raises(choreo.BoxError) as e:
        run.stimulate("Say Goodbye", "onStart")
    assert e.value.box == "root/Say Goodbye" and isinstance(e.value, LookupError)
    with pytest.raises(choreo.BoxError, match="no input"):
        run.stimulate("Say Hello", "onGo")
    with pytest.raises(choreo.BoxError, match="no parameter"):
        run.parameter("Say Hello", "Volume")
    with pytest.raises(choreo.BoxError, match="no timeline"):
        run.timeline("Say Hello")
    with pytest.raises(TypeError):
        run.stimulate("Say Hello", "onStart", object())
    with pytest.raises(ValueError):
        run.wait(-1)
    run.close()
    with pytest.raises(choreo.ClosedError):
        run.start()
    with pytest.raises(choreo.ClosedError):
        run.stimulate("Say Hello", "onStart")


def _behavior_with(tmp_path, name, *before_class):
    """examples/hello with `before_class[i]` at the top of its i-th box script."""
    parts = (EXAMPLES / "hello" / "behavior.xar").read_text().split(
        "<![CDATA[class MyClass(GeneratedClass):")
    assert len(parts) > len(before_class)
    xar = parts[0]
    for i, part in enumerate(parts[1:]):
        prefix = before_class[i] + "\n" if i < len(before_class) else ""
        xar += "<![CDATA[" + prefix + "class MyClass(GeneratedClass):" + part
    folder = tmp_path / name
    folder.mkdir()
    (folder / "behavior.xar").write_text(xar)
    return folder


def test_a_box_that_cannot_be_constructed_is_a_load_error_with_its_box_and_line(tmp_path):
    folder = _behavior_with(tmp_path, "broken", "raise ValueError('no robot today')")
    with pytest.raises(choreo.LoadError) as e:
        choreo.load(folder, fast=True)
    assert e.value.box == "root/Wake Up" and e.value.line == 1
    assert "ValueError: no robot today" in str(e.value)


def _wake_up_doing(tmp_path, name, code):
    """examples/hello whose Wake Up box runs `code` (lines of its onInput_onStart) instead
    of waking the robot up."""
    xar = (EXAMPLES / "hello" / "behavior.xar").read_text()
    wake = "        self.motion.wakeUp()\n"
    assert xar.count(wake) == 1
    folder = tmp_path / name
    folder.mkdir()
    body = "".join("        %s\n" % line for line in code)
    (folder / "behavior.xar").write_text(xar.replace(wake, body))
    return folder


def _ending(folder, strict):
    """How a run of `folder` in virtual time ends."""
    run = choreo.load(folder, fast=True, strict=strict)
    run.start()
    try:
        return run.wait_end()
    finally:
        run.close()


def _failed_in_wake_up(ending, hook, exception):
    """`ending` is a strict run's failure in Wake Up's `hook`, saying `exception`."""
    assert ending == "failed", ending
    assert ending.box == "root/Wake Up" and ending.hook == hook, ending
    assert exception in ending.message, ending


def test_strict_mode_ends_the_run_failed_at_the_box_and_hook_that_raised(tmp_path):
    # docs/runtime-rules.md E3: in strict mode an error in box code stops the behavior, and
    # the run's ending names the box, the hook and the exception; without it the error is
    # logged and the behavior waits where the box left it (Wake Up never fires onStopped).
    folder = _wake_up_doing(tmp_path, "raises", ["raise ValueError('no robot today')"])
    _failed_in_wake_up(_ending(folder, strict=True), "onInput_onStart",
                       "ValueError: no robot today")
    assert _ending(folder, strict=False) == "idle"


def test_strict_mode_ends_the_run_failed_when_a_boxs_thread_raises(tmp_path):
    # docs/runtime-rules.md E2: an exception that ends a thread box code started reaches no
    # box code; in strict mode it is the box's error, named after the thread.
    folder = _wake_up_doing(tmp_path, "thread", [
        "import threading",
        "def load():",
        "    raise RuntimeError('the sound file is missing')",
        "t = threading.Thread(target=load, name='loader')",
        "t.start()",
        "t.join()",
        "self.onStopped()",
    ])
    _failed_in_wake_up(_ending(folder, strict=True), "thread loader",
                       "RuntimeError: the sound file is missing")
    assert _ending(folder, strict=False) == "finished"


def test_two_behaviors_side_by_side_do_not_see_each_other(tmp_path):
    seen_in_a, seen_in_b = tmp_path / "a.txt", tmp_path / "b.txt"
    # A's first box sets a module-level name; its second box sees it (NAOqi ran a
    # behavior's scripts in one namespace). B, loaded beside it, does not.
    a = _behavior_with(tmp_path, "a", "LEAK = 'from a'",
                       "open(%r, 'w').write(LEAK)" % str(seen_in_a))
    b = _behavior_with(tmp_path, "b", "open(%r, 'w').write(repr(globals().get('LEAK', "
                       "__builtins__.get('LEAK'))))" % str(seen_in_b))
    out = {"allow_write": [str(tmp_path)]}
    with choreo.load(a, fast=True, sandbox=out) as run_a, \
            choreo.load(b, fast=True, sandbox=out) as run_b:
        run_a.start()
        run_b.start()
        assert run_a.wait_end() == "finished" and run_b.wait_end() == "finished"
    assert seen_in_a.read_text() == "from a"
    assert seen_in_b.read_text() == "None"
    import builtins
    assert not hasattr(builtins, "LEAK") and "LEAK" not in globals()


def test_a_users_own_qi_is_never_replaced(tmp_path):
    real = pytest.importorskip("qi")
    if "site-packages" not in (getattr(real, "__file__", None) or ""):
        pytest.skip("PyPI's qi is not installed here")  # the CI venv installs it
    box = ("import qi as _qi\nimport naoqi as _naoqi\n"
           "open(%r, 'w').write(_qi.__name__ + ' ' + _naoqi.__name__)" % str(tmp_path / "seen"))
    folder = _behavior_with(tmp_path, "uses_qi", box)
    with choreo.load(folder, fast=True, sandbox={"allow_write": [str(tmp_path)]}) as run:
        run.start()
        assert run.wait_end() == "finished"
    assert (tmp_path / "seen").read_text() == "_choreo_qi _choreo_naoqi"
    import qi
    assert qi is real and sys.modules["qi"] is real
    assert hasattr(qi, "Session") and "site-packages" in qi.__file__


def test_a_users_threading_keeps_the_interpreters_locks():
    # Box code's `threading` locks wait on the run's clock (docs/trace.md); the program's own
    # `threading` (and Dask's, multiprocessing's) keeps the interpreter's.
    import _thread
    import threading
    with choreo.load(EXAMPLES / "hello", fast=True) as run:
        run.start()
        assert run.wait_end() == "finished"
    assert type(threading.Lock()) is _thread.LockType
    assert type(threading.RLock()).__module__ == "_thread"


def test_box_code_is_confined_as_choreo_run_confines_it(tmp_path):
    # docs/security.md: box code writes only in the run's folders unless allowed; a refusal
    # is an error at the box's line, and the run lists it with the flag that allows it.
    target = tmp_path / "written.txt"
    folder = _wake_up_doing(tmp_path, "writes", [
        "open(%r, 'w').write('x')" % str(target),
        "self.onStopped()",
    ])
    with choreo.load(folder, fast=True, strict=True) as run:
        run.start()
        ending = run.wait_end()
        assert ending == "failed" and "PermissionError" in ending.message, ending
        assert run.refused == ["write %s (root/Wake Up line 6; --allow-write %s)"
                               % (target, tmp_path)], run.refused
    assert not target.exists()
    with choreo.load(folder, fast=True, strict=True,
                     sandbox={"allow_write": [str(tmp_path)]}) as run:
        run.start()
        assert run.wait_end() == "finished" and run.refused == []
    assert target.read_text() == "x"
    with pytest.raises(ValueError):
        choreo.load(folder, sandbox={"allow_everything": True})


def test_native_code_is_confined_by_the_kernel_and_the_caller_is_not(tmp_path):
    # docs/security.md: beneath Python's hooks, the kernel (Landlock) confines the run's
    # threads of box code; a libc call through ctypes is refused there. The program that
    # loaded the run is not confined: this test writes the same file afterwards.
    target = tmp_path / "native.txt"
    folder = _wake_up_doing(tmp_path, "native", [
        "import ctypes, os",
        "libc = ctypes.CDLL(None, use_errno=True)",
        "if libc.open(%r, os.O_WRONLY | os.O_CREAT, 0o644) < 0:" % str(target).encode(),
        "    raise OSError(ctypes.get_errno(), 'native open')",
        "self.onStopped()",
    ])
    with choreo.load(folder, fast=True, strict=True, sandbox="require") as run:
        run.start()
        ending = run.wait_end()
        assert ending == "failed" and "[Errno 13] native open" in ending.message, ending
    assert not target.exists()
    target.write_text("the caller's")
    with pytest.raises(ValueError):
        choreo.load(folder, sandbox="sometimes")


ENDINGS = (
    ("os._exit(0)", "os._exit(0)"),
    ("os.abort()", "os.abort()"),
    ("os.kill(os.getpid(), signal.SIGKILL)", "os.kill(its own process, "),
    ("signal.raise_signal(signal.SIGTERM)", "signal.raise_signal("),
    ("signal.pthread_kill(threading.get_ident(), signal.SIGKILL)", "signal.pthread_kill("),
)


def test_box_code_on_this_process_threads_cannot_end_it(tmp_path):
    # docs/security.md: box code on this process's threads (sandbox={"box_host": False}) has
    # no supervising parent (the process is this test's), so ending the process from box
    # code is refused at its line instead of ending pytest (with exit 0 for os._exit(0)).
    # Each of these would end this process.
    for i, (ending, what) in enumerate(ENDINGS):
        folder = _wake_up_doing(tmp_path, "ender%d" % i, [
            "import os, signal, threading",
            "os.kill(os.getpid(), 0)",  # only asks whether the process is there: allowed
            ending,
            "self.onStopped()",
        ])
        with choreo.load(folder, fast=True, strict=True, sandbox={"box_host": False}) as run:
            run.start()
            end = run.wait_end()
            assert end == "failed", (ending, end)
            assert "PermissionError" in end.message and what in end.message, end.message
            assert "no supervising parent" in end.message, end.message
            assert any(what in r and re.search(r"line \d+", r) for r in run.refused), run.refused


def test_box_code_in_a_process_of_its_own_ends_that_process_not_this_one(tmp_path):
    # docs/security.md, The box host: by default box code runs in a process of its own (this
    # interpreter started again): each ending there ends that process, and the run says how
    # (the exit code, or the signal); this one (pytest) goes on.
    said = ("exited with code 0", "(SIGABRT)", "(SIGKILL)", "(SIGTERM)", "(SIGKILL)")
    for i, ((ending, _), how) in enumerate(zip(ENDINGS, said)):
        folder = _wake_up_doing(tmp_path, "exiter%d" % i, [
            "import os, signal, threading", ending, "self.onStopped()"])
        with choreo.load(folder, fast=True) as run:
            run.start()
            end = run.wait_end()
            assert end == "box_host_ended", (ending, end)
            assert how in end.message, (ending, end.message)
    folder = _wake_up_doing(tmp_path, "exiter", ["import os", "os._exit(0)"])
    with choreo.load(folder, fast=True) as run:
        run.start()
        end = run.wait_end()
        assert end.box and "os._exit(0)" in end.box, end.box
    # And box code there does not see this process's environment.
    os.environ["CHOREO_TEST_SECRET_TOKEN"] = "hunter2"
    try:
        folder = _wake_up_doing(tmp_path, "reader", [
            "import os",
            "self.logger.info('token=%r' % os.environ.get('CHOREO_TEST_SECRET_TOKEN'))",
            "self.onStopped()",
        ])
        with choreo.load(folder, fast=True) as run:
            logged = []
            run.on_event(lambda e: logged.append(str(e.get("message"))))
            run.start()
            assert run.wait_end() == "finished"
            assert any("token=None" in m for m in logged), logged
    finally:
        del os.environ["CHOREO_TEST_SECRET_TOKEN"]


def test_the_choreo_command_runs_in_python():
    command = os.path.join(os.path.dirname(sys.executable), "choreo")  # the venv's script
    done = subprocess.run([command, "run", str(EXAMPLES / "hello"), "--fast", "-q"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "finished" in done.stdout + done.stderr
    done = subprocess.run([sys.executable, "-m", "choreo", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "choreo" in done.stdout
    done = subprocess.run([sys.executable, "-m", "choreo", "run", "--bogus"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2


def _served_robot():
    """`choreo sim` on a free port: (process, its URL's host and port)."""
    command = os.path.join(os.path.dirname(sys.executable), "choreo")
    sim = subprocess.Popen([command, "sim", "--listen", "tcp://127.0.0.1:0"],
                           stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    line = sim.stderr.readline()  # "serving a simulated NAO ... at tcp://HOST:PORT: ..."
    found = re.search(r"tcp://([0-9.]+):([0-9]+)", line)
    assert found, line
    return sim, found.group(1), int(found.group(2))


def test_an_exported_program_runs_its_behavior_on_a_served_robot_and_exits(tmp_path):
    command = os.path.join(os.path.dirname(sys.executable), "choreo")
    program = tmp_path / "main.py"
    done = subprocess.run([command, "export-python", str(EXAMPLES / "hello"), "-o", str(program)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # On the simulated robot, in virtual time.
    done = subprocess.run([sys.executable, str(program), "--fast"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "says: Hello! I am running in choreo." in done.stdout
    assert done.stdout.rstrip().endswith("hello: finished")
    # On a robot over qi (choreo sim serving one), as `python main.py IP PORT`; the program
    # ends (the run's threads are let go without the GIL).
    sim, host, port = _served_robot()
    try:
        done = subprocess.run([sys.executable, str(program), host, str(port)],
                              capture_output=True, text=True, timeout=120)
    finally:
        sim.terminate()
        sim.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("hello: finished")


def test_an_observer_that_raises_is_reported_and_the_run_goes_on():
    raised = []
    before = sys.unraisablehook
    sys.unraisablehook = lambda u: raised.append(u.exc_value)
    try:
        with choreo.load(EXAMPLES / "hello", fast=True) as run:
            run.on_output("Say Hello", "onStopped", lambda value: 1 / 0)
            run.on_event(lambda event: None)
            run.start()
            assert run.wait_end() == "finished"
            assert run.said() == ["Hello! I am running in choreo."]
    finally:
        sys.unraisablehook = before
    assert [type(e) for e in raised] == [ZeroDivisionError]


def test_a_run_left_open_is_closed_when_the_program_exits(tmp_path):
    # The box's onUnload writes a file: it runs when the program exits without closing.
    unloaded = tmp_path / "unloaded"
    xar = (EXAMPLES / "interactive" / "behavior.xar").read_text()
    changed = xar.replace("    def onUnload(self):\n",
                          "    def onUnload(self):\n        open(%r, 'w').write('yes')\n"
                          % str(unloaded), 1)
    assert changed != xar
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "behavior.xar").write_text(changed)
    program = ("import choreo\nrun = choreo.load(%r, fast=True, sandbox={'allow_write': [%r]})\n"
               "run.start()\nassert run.wait() == 'idle'\n" % (str(tmp_path / "b"), str(tmp_path)))
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert unloaded.read_text() == "yes"


def test_the_sim_fixture_serves_a_robot_that_behaviors_and_qi_clients_reach(choreo_sim, choreo_load):
    run = choreo_load(EXAMPLES / "hello", robot=choreo_sim.url)
    run.start()
    assert run.wait_end(120) == "finished"
    with pytest.raises(choreo.NotSimulatedError):
        run.said()  # the robot is a served one: its state is its own
    qi = pytest.importorskip("qi")
    # PyPI's qi where installed; never a hollow namespace package from a folder on sys.path.
    assert hasattr(qi, "Session"), "qi from %s" % list(getattr(qi, "__path__", []))
    session = qi.Session()
    session.connect(choreo_sim.url)
    assert session.service("ALTextToSpeech").getLanguage() == "English"
    session.close()


@pytest.mark.choreo_sim(model="pepper")
def test_the_sim_fixture_serves_the_robot_its_marker_asks_for(choreo_sim):
    done = subprocess.run([sys.executable, "-m", "choreo", "robot", "info", choreo_sim.url],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "model    juliette" in done.stdout, done.stdout  # ALMotion's name for Pepper


def test_runs_closed_and_dropped_leave_no_threads_behind():
    def threads():
        return len(os.listdir("/proc/self/task"))

    def one_run():
        with choreo.load(EXAMPLES / "hello", fast=True) as run:
            run.on_event(lambda event: None)
            run.start()
            assert run.wait_end() == "finished"

    one_run()
    before = threads()
    for _ in range(10):
        one_run()
    assert threads() <= before, (before, threads())


def _logs(run_events):
    return [e["message"] for e in run_events if e.get("event") == "log"]


def test_a_seed_and_a_start_time_repeat_a_run():
    # The fixture logs random draws and the clocks box code reads (chance_and_clock.xar).
    from choreo.testing import assert_reproducible

    events = assert_reproducible(FIXTURES / "chance_and_clock.xar", runs=2, timeout=120, seed=2,
                                 start_time="2024-02-29T23:59:30Z")
    logs = _logs(events)
    import random
    r = random.Random(2)
    assert logs[0] == "random %r %d %s" % (r.random(), r.randint(1, 1000), r.choice("abcdef"))
    assert logs[2] == "now 2024-02-29T23:59:30"
    assert "later 2024-03-01T00:01:00" in logs
    with choreo.load(FIXTURES / "chance_and_clock.xar", fast=True) as run:
        assert run.seed == 1 and run.start_time == "2026-01-05T10:00:00Z"
    with pytest.raises(ValueError):
        choreo.load(FIXTURES / "chance_and_clock.xar", fast=True, start_time="noon")


def test_assert_reproducible_shows_where_runs_differ():
    from choreo.testing import assert_reproducible

    with pytest.raises(AssertionError, match="run 2 differs from run 1 at event"):
        assert_reproducible(FIXTURES / "os_noise.xar", runs=2)


def test_check_gives_each_file_as_choreo_check_json_does(tmp_path):
    ok, = choreo.check(EXAMPLES / "hello")
    assert ok["status"] == "ok" and ok["file"].endswith("hello/behavior.xar")
    assert ok["diagnostics"] == []
    # The QiChat reference's choice syntax, `[a b]`, left open on line 3 at column 4:
    # "u:(" is 3 characters, so `[` is column 4 and the `)` that ends it too early column 13.
    bad = tmp_path / "bad.top"
    bad.write_text("topic: ~t()\nlanguage: enu\nu:([hello hi) there\nu:(fine) ok\n")
    broken, = choreo.check(bad)
    assert broken["status"] == "error"
    first = broken["diagnostics"][0]
    assert (first["severity"], first["line"], first["column"]) == ("error", 3, 13), first
    assert "expected ']' to close the choice opened at 3:4" in first["message"], first
    # Several paths, in the order given; a folder is walked for Choregraphe's formats.
    both = choreo.check(bad, EXAMPLES / "hello")
    assert [f["status"] for f in both] == ["error", "ok"]
    with pytest.raises(choreo.NotFoundError):
        choreo.check(tmp_path / "absent.xar")
    with pytest.raises(ValueError):
        choreo.check()


def test_explore_finds_the_error_behind_the_third_answer():
    # The quiz listens for "red", "green" or "blue" three times; the third "blue" raises
    # (crates/choreo/tests/explore.rs derives its 13 paths by hand).
    found = choreo.explore(FIXTURES / "quiz.xar")
    assert found["paths"] == 13 and found["complete"]
    fault, = found["faults"]
    assert fault["text"] == "ValueError: the third right answer breaks the quiz"
    assert [s["input"]["words"] for s in fault["steps"]] == ["blue", "blue", "blue"]
    assert found["entered"] == found["loaded"] == 2
    with pytest.raises(ValueError):
        choreo.explore(FIXTURES / "quiz.xar", time=0)


def test_explore_resumes_from_its_journal(tmp_path):
    # Five paths, then the rest from the journal: the report of one whole exploration.
    journal = tmp_path / "paths.jsonl"
    first = choreo.explore(FIXTURES / "quiz.xar", max_paths=5, journal=journal)
    assert first["paths"] == 5 and not first["complete"]
    resumed = choreo.explore(FIXTURES / "quiz.xar", journal=journal)
    whole = choreo.explore(FIXTURES / "quiz.xar")
    for field in ("paths", "complete", "boxes", "faults"):
        assert resumed[field] == whole[field], field
    with pytest.raises(choreo.LoadError):
        choreo.explore(FIXTURES / "unreached.xar", journal=journal)


def test_assert_explored_names_each_fault_and_its_inputs():
    from choreo.testing import assert_explored

    with pytest.raises(AssertionError, match=r"1 fault\(s\) found:\n  error root/Quiz: ValueError"
                                             r".*\n    after: say 'blue' at 3.075 s"):
        assert_explored(FIXTURES / "quiz.xar")
    # Faults allowed, and every box entered on some path.
    found = assert_explored(FIXTURES / "quiz.xar", faults=True, coverage=1.0)
    assert found["paths"] == 13
    # A plain run (one path) never enters the box after a wrong answer: 1 of 2.
    with pytest.raises(AssertionError, match=r"1 of 2 boxes entered \(50%\), expected at least 100%"):
        assert_explored(FIXTURES / "quiz.xar", faults=True, coverage=1.0, max_paths=1)
    # Chance, the robot's posture and a person's face are inputs too, said as `choreo
    # explore` says them.
    with pytest.raises(AssertionError, match=r"after: draw 1 by chance takes 5 of 6 at 0.0 s, "
                                             r"draw 2 by chance takes 5 of 6 at 0.0 s"):
        assert_explored(FIXTURES / "dice.xar")
    with pytest.raises(AssertionError, match=r"after: the robot starts in LyingBelly at 0.0 s"):
        assert_explored(FIXTURES / "get_up.xar")
    with pytest.raises(AssertionError, match=r"after: the person seen is female, sad at 0.0 s, "
                                             r"raise FaceDetected = "):
        assert_explored(FIXTURES / "face.xar")


def _same_exploration(a, b):
    for field in ("paths", "complete", "boxes", "entered", "loaded", "faults", "rules_matched"):
        assert a[field] == b[field], field


def test_explore_runs_its_paths_on_an_executor():
    # Any concurrent.futures.Executor: here two worker processes (spawned: a fork of this
    # process would copy its threads' locks). The search stays here; each path runs in a
    # worker and comes back as JSON: the same exploration as on this process's threads.
    import concurrent.futures
    import multiprocessing

    local = choreo.explore(FIXTURES / "quiz.xar")
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        pooled = choreo.explore(FIXTURES / "quiz.xar", executor=pool)
    _same_exploration(local, pooled)
    assert pooled["paths"] == 13


def test_explore_runs_its_paths_on_a_dask_cluster():
    # Dask's distributed scheduler with two worker processes on this machine, as a school's
    # cluster would run a course's projects: its Client's executor is a
    # concurrent.futures.Executor.
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        print("NOTICE: dask's distributed is not installed: the Dask test is skipped")
        pytest.skip("distributed is not installed")
    local = choreo.explore(FIXTURES / "quiz.xar")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        found = choreo.explore(FIXTURES / "quiz.xar", executor=client.get_executor())
        workers = len(client.scheduler_info()["workers"])
    _same_exploration(local, found)
    assert workers == 2


def test_a_fleet_dances_in_step_on_two_served_robots():
    sim = subprocess.Popen([sys.executable, "-m", "choreo", "sim", "--listen",
                            "tcp://127.0.0.1:0", "--count", "2", "-q"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # "robot N: ... at tcp://HOST:PORT" per robot, then "2 robots served ...".
        urls = []
        for line in sim.stderr:
            found = re.search(r"^robot [0-9]+: .* at (tcp://\S+)", line)
            if found:
                urls.append(found.group(1))
            if "robots served" in line:
                break
        assert len(urls) == 2, urls
        with choreo.load_fleet(EXAMPLES / "dance", urls) as fleet:
            assert [run.behavior for run in fleet.runs] == ["dance", "dance"]
            fleet.start()
            assert fleet.wait_end() == ["finished", "finished"]
            # The dance has one timeline: started once, both robots at the rendezvous.
            assert (fleet.together, fleet.partial) == (1, 0)
            assert any(line.startswith("delays") for line in fleet.report())
        with pytest.raises(choreo.ClosedError):
            fleet.start()
        with pytest.raises(ValueError):
            choreo.load_fleet(EXAMPLES / "dance", [])
    finally:
        sim.terminate()
        sim.wait(timeout=30)


def test_a_robot_that_asks_for_a_token_is_reached_with_user_and_token():
    # `choreo sim` beyond loopback asks clients for the token it prints.
    sim = subprocess.Popen([sys.executable, "-m", "choreo", "sim", "--listen", "tcp://0.0.0.0:0"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = token = None
        for line in sim.stderr:
            found = re.search(r"at tcp://0\.0\.0\.0:([0-9]+)", line)
            if found:
                url = "tcp://127.0.0.1:" + found.group(1)
            found = re.search(r"with token ([0-9a-f]+)", line)
            if found:
                token = found.group(1)
                break
        assert url and token, (url, token)
        with pytest.raises(choreo.RobotError):
            choreo.load(EXAMPLES / "hello", robot=url)
        with choreo.load(EXAMPLES / "hello", robot=url, user="nao", token=token) as run:
            run.start()
            assert run.wait_end() == "finished"
        with pytest.raises(ValueError):
            choreo.load(EXAMPLES / "hello", token=token)
    finally:
        sim.terminate()
        sim.wait(timeout=30)


def test_a_chat_answers_as_the_topics_rules_say():
    # examples/dialog's topic (greet_enu.top): `u:(e:onStart) Hello! Tell me your name...`
    # answers the Dialog box's start; `u:(my name is _*) Nice to meet you, $1. $name=$1`
    # captures the name; `u:(what is my name) ^first["Your name is $name." ...]` says it.
    chat = choreo.Chat(EXAMPLES / "dialog")
    started = chat.start()
    assert [a["text"] for a in started] == [
        "Hello! Tell me your name, ask me to dance, or say goodbye."
    ]
    [named] = chat.hear("my name is Ada")
    assert named["text"] == "Nice to meet you, Ada."
    assert named["topic"] == "greet"
    [said] = chat.hear("what is my name")
    assert said["text"] == "Your name is Ada."
    assert said["shown"].startswith("robot: Your name is Ada.")
    # No rule of the topic matches this.
    assert chat.hear("what is the weather on the moon") == [None]


def test_a_topic_that_does_not_parse_is_a_load_error(tmp_path):
    bad = tmp_path / "bad.top"
    bad.write_text("topic: ~bad()\nlanguage: enu\nu:(hello hi\n")
    with pytest.raises(choreo.LoadError):
        choreo.Chat(bad)
