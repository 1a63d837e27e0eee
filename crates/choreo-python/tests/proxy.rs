//! Robot access from box scripts (docs/simulated-robot.md, Calls and time): every proxy form, `.post`
//! tasks with wait/stop/isRunning, errors as RuntimeError, `_async`, ALMemory subscriptions.

use crate::support;

use std::sync::Arc;

use choreo_engine::Robot;
use support::robot::TestRobot;
use support::*;

/// A box running `body` in onInput_onStart, then stopping; `head` goes before the class.
fn script_of(head: &str, body: &str) -> String {
    let body: String = body.lines().map(|l| format!("        {l}\n")).collect();
    format!(
        "{head}
class MyClass(GeneratedClass):
    def onInput_onStart(self):
{body}        self.onStopped()
"
    )
}

/// Runs one box with `code` against a fresh test robot: (trace, A's logs, robot calls).
fn with_robot(code: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let robot = TestRobot::new();
    let (_, t) = run_with(&one_box("", code), Some(robot.clone() as Arc<dyn Robot>));
    let errs = errors(&t, "root/A");
    assert!(errs.is_empty(), "{errs:#?}");
    let logs = logs(&t, "root/A");
    (t, logs, robot.calls())
}

#[test]
fn every_proxy_form_calls_the_robot() {
    let (t, logs, calls) = with_robot(&script_of(
        "from naoqi import ALProxy as NaoqiProxy",
        "ALProxy('ALTextToSpeech').say('one')
ALProxy('ALTextToSpeech', True).say('two')
ALProxy('ALTextToSpeech', '127.0.0.1', 9559).say('three')
NaoqiProxy('ALTextToSpeech').say('four')
self.session().service('ALTextToSpeech').say('five')
ALLeds.fadeRGB('FaceLeds', 0xff0000, 0.5)
self.log(repr(ALProxy('X').echo(1, 2.5, 'a', [True, None], {'k': (1,)})))",
    ));
    assert_eq!(
        calls,
        [
            "ALTextToSpeech.say(\"one\")",
            "ALTextToSpeech.say(\"two\")",
            "ALTextToSpeech.say(\"three\")",
            "ALTextToSpeech.say(\"four\")",
            "ALTextToSpeech.say(\"five\")",
            "ALLeds.fadeRGB(\"FaceLeds\", 16711680, 0.5)",
            "X.echo(1, 2.5, \"a\", [True, None], {\"k\": (1)})",
        ]
    );
    assert_eq!(logs, ["info: [1, 2.5, 'a', [True, None], {'k': (1,)}]"]);
    assert_in_order(
        &t,
        &[
            "root/A svc ALTextToSpeech.say(\"one\")",
            "root/A svc_ret ALTextToSpeech.say",
        ],
    );
}

#[test]
fn every_injected_global_is_a_proxy() {
    let (_, logs, _) = with_robot(&script_of(
        "",
        "for p in (ALMemory, ALMotion, ALLeds, ALFrameManager, ALLogger, ALSensors, ALProxy('ALTextToSpeech')):
    self.log(repr(p))",
    ));
    assert_eq!(
        logs,
        [
            "info: <ALProxy ALMemory>",
            "info: <ALProxy ALMotion>",
            "info: <ALProxy ALLeds>",
            "info: <ALProxy ALFrameManager>",
            "info: <ALProxy ALLogger>",
            "info: <ALProxy ALSensors>",
            "info: <ALProxy ALTextToSpeech>",
        ]
    );
}

#[test]
fn a_robot_error_is_a_runtime_error() {
    let (t, logs, _) = with_robot(&script_of(
        "",
        "try:
    ALProxy('ALBroken').fail(1)
except RuntimeError as e:
    self.log('caught: %s' % e)
try:
    ALProxy('X').echo(object())
except TypeError as e:
    self.log('type: %s' % e)",
    ));
    assert_eq!(
        logs,
        [
            "info: caught: ALBroken.fail: broken",
            "info: type: cannot send a object to the robot (only None, bool, int, float, str, bytes, list, tuple and dict)",
        ]
    );
    assert!(
        t.iter().any(|l| l == "root/A svc_ret ALBroken.fail err"),
        "{t:#?}"
    );
}

#[test]
fn post_returns_a_task_id_served_by_wait_stop_and_is_running() {
    let (t, logs, calls) = with_robot(&script_of(
        "import time",
        "tts = ALProxy('ALTextToSpeech')
first = tts.post.say('hello')
second = tts.pCall('say', 'again')
self.log('ids %r %r' % (first, second))
self.log('running %r' % tts.isRunning(first))
self.log('timed out %r' % tts.wait(first, 200))
self.log('ended %r' % tts.wait(first, 0))
self.log('at %.1f' % time.clock())
self.log('running %r' % tts.isRunning(first))
tts.stop(second)
self.log('stopped %r' % tts.isRunning(second))",
    ));
    assert_eq!(
        logs,
        [
            "info: ids 1 2",
            "info: running True",
            "info: timed out True",
            "info: ended False",
            "info: at 1.0",
            "info: running False",
            "info: stopped False",
        ],
        "{t:#?}"
    );
    assert_eq!(calls[0], "ALTextToSpeech.post.say(\"hello\")");
    assert!(
        t.iter()
            .any(|l| l == "root/A svc ALTextToSpeech.post.say(\"hello\")")
    );
}

#[test]
fn the_async_keyword_returns_a_future() {
    let (_, logs, calls) = with_robot(&script_of(
        "",
        "f = ALProxy('X').echo('a', _async=True)
self.log('value %r' % f.value())
g = self.session().service('X', _async=True)
self.log('service %r' % g.value())
h = ALProxy('ALBroken').fail(_async=True)
self.log('error %r %s' % (h.hasError(), h.error()))",
    ));
    assert_eq!(
        logs,
        [
            "info: value ['a']",
            "info: service <ALProxy X>",
            "info: error True ALBroken.fail: broken",
        ]
    );
    assert_eq!(calls, ["X.echo(\"a\")", "ALBroken.fail()"]);
}

#[test]
fn memory_subscriber_signals_deliver_every_update_in_order() {
    let code = "
class MyClass(GeneratedClass):
    def onLoad(self):
        self.seen = []
        self.sub = ALMemory.subscriber('Touched')
        self.link = self.sub.signal.connect(self.onTouched)

    def onTouched(self, value):
        self.log('touched %r' % (value,))
        if value == 3:
            self.sub.signal.disconnect(self.link)
            self.onStopped()

    def onInput_onStart(self):
        for v in (1, 2, 3, 4):
            ALMemory.raiseEvent('Touched', v)
";
    let robot = TestRobot::new();
    let (_, t) = run_with(&one_box("", code), Some(robot.clone() as Arc<dyn Robot>));
    assert_eq!(
        logs(&t, "root/A"),
        ["info: touched 1", "info: touched 2", "info: touched 3"],
        "{t:#?}"
    );
    assert_eq!(robot.subscriptions(), 0, "subscriptions end with the box");
}

#[test]
fn legacy_subscribe_to_event_calls_the_box_method_by_name() {
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        ALMemory.subscribeToEvent('WordRecognized', self.getName(), 'onWord')
        ALMemory.raiseEvent('WordRecognized', ['hello', 0.8])

    def onWord(self, key, value, message):
        self.log('%s %r %r' % (key, value, message))
        ALMemory.unsubscribeToEvent('WordRecognized', self.getName())
        ALMemory.raiseEvent('WordRecognized', ['ignored', 0.1])
        self.onStopped()
";
    let robot = TestRobot::new();
    let (outcome, t) = run_with(&one_box("", code), Some(robot.clone() as Arc<dyn Robot>));
    assert_eq!(outcome, choreo_engine::Outcome::Finished, "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        ["info: WordRecognized ['hello', 0.8] ''"]
    );
}

#[test]
fn an_al_module_made_by_a_script_receives_events() {
    let code = "
from naoqi import ALModule, ALBroker

class Greeter(ALModule):
    def onFace(self, key, value):
        box.log('face %r' % (value,))
        box.onStopped()

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        global box, greeter
        box = self
        broker = ALBroker('b', '0.0.0.0', 0, '127.0.0.1', 9559)
        greeter = Greeter('Greeter')
        ALMemory.subscribeToEvent('FaceDetected', 'Greeter', 'onFace')
        ALMemory.raiseEvent('FaceDetected', [1])
";
    let robot = TestRobot::new();
    let (outcome, t) = run_with(&one_box("", code), Some(robot.clone() as Arc<dyn Robot>));
    assert_eq!(outcome, choreo_engine::Outcome::Finished, "{t:#?}");
    assert_eq!(logs(&t, "root/A"), ["info: face [1]"]);
}

#[test]
fn memory_data_round_trips_through_the_robot() {
    let (_, logs, _) = with_robot(&script_of(
        "",
        "ALMemory.insertData('k', {'a': [1, 2]})
self.log(repr(ALMemory.getData('k')))
try:
    ALMemory.getData('missing')
except RuntimeError as e:
    self.log(str(e))",
    ));
    assert_eq!(
        logs,
        [
            "info: {'a': [1, 2]}",
            "info: ALMemory.getData: no key \"missing\""
        ]
    );
}

#[test]
fn integers_up_to_u64_max_round_trip_exactly() {
    // A qi `L` above i64::MAX (a timestamp, an id) is an exact int in Python, not a float.
    let (_, logs, _) = with_robot(&script_of(
        "",
        "ALMemory.insertData('big', [2**64 - 1, 2**63 + 1, -2**63, 2**70])
self.log(repr(ALMemory.getData('big')))",
    ));
    assert_eq!(
        logs,
        [
            "info: [18446744073709551615, 9223372036854775809, -9223372036854775808, 1.1805916207174113e+21]"
        ]
    );
}

#[test]
fn without_a_robot_calls_fail_with_runtime_error() {
    let code = script_of(
        "",
        "try:
    ALLeds.on('FaceLeds')
except RuntimeError as e:
    self.log(str(e))",
    );
    let (_, t) = run(&one_box("", &code));
    assert_eq!(logs(&t, "root/A"), ["info: no robot to call ALLeds.on"]);
}

#[test]
fn a_proxy_to_a_module_the_robot_lacks_raises_at_creation_like_naoqi() {
    // The stock boxes' pattern: try the proxy, fall back to a "simulation mode".
    let (_, logs, calls) = with_robot(&script_of(
        "",
        "try:
    ALProxy('ALMissing')
    self.log('made')
except RuntimeError as e:
    self.log('missing: ' + str(e).splitlines()[-1].strip())
try:
    self.session().service('ALMissing')
except RuntimeError:
    self.log('missing too')
ALProxy('ALTextToSpeech').say('here')",
    ));
    assert_eq!(
        logs,
        [
            "info: missing: Can't find service: ALMissing",
            "info: missing too"
        ]
    );
    assert_eq!(calls, ["ALTextToSpeech.say(\"here\")"]);
}

#[test]
fn python_bridge_evaluates_in_the_interpreter_the_boxes_share() {
    // The naocket behavior's pattern: a box adds to sys.path and defines names through the
    // bridge, for the other boxes.
    let code = script_of(
        "import sys",
        "py = ALProxy('ALPythonBridge')
self.log(repr(py.eval(\"import sys; sys.path.append('/choreo/bridge')\")))
self.log(repr('/choreo/bridge' in sys.path))
py.eval('answer = 6 * 7')
self.log(repr(py.evalReturn('answer')))
self.log(py.eval('1 / 0'))
self.log(repr(py.evalFull(\"print('hi')\")))
self.log(repr(py.evalFull('answer + 1')))
try:
    py.evalReturn('missing')
except RuntimeError as e:
    self.log(str(e))",
    );
    let later = script_of("", "self.log('B sees %r' % answer)");
    let robot = TestRobot::new();
    // root → A → B → root.
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        py_box("A", 1, "", &code, ""),
        py_box("B", 2, "", &later, ""),
        link(0, 2, 1, 2),
        link(1, 4, 2, 2),
        link(2, 4, 0, 4)
    ));
    let (_, t) = run_with(&xml, Some(robot.clone() as Arc<dyn Robot>));
    assert!(
        errors(&t, "root/A").is_empty(),
        "{:#?}",
        errors(&t, "root/A")
    );
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: ''",
            "info: True",
            "info: 42",
            "info: ZeroDivisionError: division by zero",
            "info: [None, '', 'hi\\n', '']",
            "info: [43, '', '', '']",
            "info: ALPythonBridge.evalReturn: NameError: name 'missing' is not defined",
        ]
    );
    assert_eq!(logs(&t, "root/B"), ["info: B sees 42"]);
    assert!(robot.calls().is_empty(), "answered by the script host");
}
