//! The GeneratedClass API a box script calls (docs/runtime-rules.md section 3): one test per
//! method or form, checked on the trace.

use crate::support;

use choreo_engine::{Outcome, Trace, Value};
use support::*;

/// A box running `body` (indented for a method) in onInput_onStart, then stopping.
fn on_start(body: &str) -> String {
    let body: String = body.lines().map(|l| format!("        {l}\n")).collect();
    format!(
        "
class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)

    def onInput_onStart(self):
{body}        self.onStopped()
"
    )
}

/// Runs a one-box behavior with `code` and returns A's logs.
fn logs_of(code: &str) -> Vec<String> {
    let (_, t) = run(&one_box("", code));
    let errs = errors(&t, "root/A");
    assert!(errs.is_empty(), "{errs:#?}");
    logs(&t, "root/A")
}

#[test]
fn constructor_forms_all_work() {
    for init in [
        "GeneratedClass.__init__(self)",
        "GeneratedClass.__init__(self, False)",
        "super(MyClass, self).__init__()",
        "super().__init__()",
        "try:\n            GeneratedClass.__init__(self, False)\n        except TypeError:\n            GeneratedClass.__init__(self)",
        "pass",
    ] {
        let code = format!(
            "
class MyClass(GeneratedClass):
    def __init__(self):
        {init}
        self.log('made ' + self.getName())

    def onInput_onStart(self):
        self.onStopped()
"
        );
        let (outcome, t) = run(&one_box("", &code));
        assert_eq!(outcome, Outcome::Finished, "{init}: {t:#?}");
        assert_eq!(logs(&t, "root/A"), ["info: made root_A_1"], "{init}");
    }
    // No __init__ at all.
    let (outcome, _) = run(&one_box(
        "",
        "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        self.onStopped()\n",
    ));
    assert_eq!(outcome, Outcome::Finished);
}

#[test]
fn a_box_without_my_class_or_script_is_a_plain_box() {
    let inner = format!(
        "{}{}{}{}",
        py_box("NoClass", 1, "", "x = 1\n", ""),
        py_box("Empty", 2, "", "", ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2)
    );
    let (_, t) = run(&behavior(&inner));
    assert!(
        t.iter().any(|l| l == "root/NoClass ret onInput_onStart"),
        "{t:#?}"
    );
    assert!(
        t.iter().any(|l| l == "root/Empty ret onInput_onStart"),
        "{t:#?}"
    );
}

#[test]
fn identity_and_paths() {
    let code = on_start(
        "self.log(self.getName())
self.log(self.boxName)
self.log(self.behaviorId)
self.log(self.parentId)
self.log(self.behaviorAbsolutePath() + '/sound.wav')
self.log(self.behaviorRelativePath())
self.log(self.packageUid())
self.log(ALFrameManager.getBehaviorPath(self.behaviorId))",
    );
    assert_eq!(
        logs_of(&code),
        [
            "info: root_A_1",
            "info: A",
            "info: root_0",
            "info: root_0",
            "info: /behaviors/test/sound.wav",
            "info: behaviors/test",
            "info: test-package-0001",
            "info: /behaviors/test",
        ]
    );
}

#[test]
fn the_parent_id_names_the_enclosing_box() {
    let code = on_start("self.log(self.parentId)");
    let inner = format!(
        "{}{}{}",
        py_box("B", 1, "", &code, ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    );
    let xml = behavior(&format!(
        "{}{}{}",
        boxed("Group", 1, "", &inner),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (_, t) = run(&xml);
    assert_eq!(logs(&t, "root/Group/B"), ["info: root_Group_1"]);
}

#[test]
fn logger_levels_log_and_print_go_to_the_trace() {
    let code = on_start(
        "self.logger.debug('d %d', 1)
self.logger.info('i')
self.logger.warning('w')
self.logger.warn('w2')
self.logger.error('e')
self.logger.fatal('f')
self.logger.critical('c')
self.log('old style')
print('printed', 2)
try:
    1 / 0
except ZeroDivisionError:
    self.logger.exception('caught')",
    );
    let logs = logs_of(&code);
    assert_eq!(
        logs[..9],
        [
            "debug: d 1",
            "info: i",
            "warning: w",
            "warning: w2",
            "error: e",
            "fatal: f",
            "fatal: c",
            "info: old style",
            "info: printed 2",
        ]
    );
    assert!(logs[9].starts_with("error: caught\nTraceback"), "{logs:#?}");
    // `1 / 0` divides two ints: Python 2's floor division, and its message.
    assert!(
        logs[9].ends_with("ZeroDivisionError: integer division or modulo by zero"),
        "{logs:#?}"
    );
}

#[test]
fn session_returns_a_session_with_services() {
    let code = on_start(
        "s = self.session()
self.log(type(s).__name__)
self.log(repr(s.service('ALTextToSpeech')))
self.log(str(s is self.session()))",
    );
    assert_eq!(
        logs_of(&code),
        [
            "info: Session",
            "info: <ALProxy ALTextToSpeech>",
            "info: True"
        ]
    );
}

#[test]
fn bind_python_is_accepted() {
    let code = on_start(
        "self.BIND_PYTHON(self.getName(), 'onEvent')\nself.BIND_PYTHON(self.getName(), 'onEvent', 3)\nself.log('bound')",
    );
    assert_eq!(logs_of(&code), ["info: bound"]);
}

/// A timeline box T (fps 10, frames 1..100, keyframes "start" at 1 and "later" at 50) whose
/// own script runs `code` in onStart; inside keyframe "start", a box K runs `inner_code`.
fn timeline(code: &str, inner_code: &str) -> String {
    let own = format!(
        "
class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)
        self.log('fps at init %d' % self.getTimeline().getFPS())

    def onInput_onStart(self):
        pass
{}",
        code.lines()
            .map(|l| format!("        {l}\n"))
            .collect::<String>()
    );
    let k = py_box("K", 1, "", inner_code, "");
    format!(
        r#"<Box name="T" id="1">{PORTS}{}<Timeline enable="1" fps="10" start_frame="1" end_frame="100" size="300"><BehaviorLayer name="L"><BehaviorKeyframe name="start" index="1"><Diagram>{k}{}</Diagram></BehaviorKeyframe><BehaviorKeyframe name="later" index="50"><Diagram></Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box>"#,
        script(&own),
        link(0, 1, 1, 2)
    )
}

fn run_timeline(code: &str, inner_code: &str) -> Vec<String> {
    let xml = behavior(&format!(
        "{}{}{}",
        timeline(code, inner_code),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    run(&xml).1
}

#[test]
fn get_timeline_commands_reach_the_timeline() {
    let t = run_timeline(
        "tl = self.getTimeline()
tl.setFPS(20.0)
self.log('fps %d size %d' % (tl.getFPS(), tl.getSize()))
tl.goTo('later')
tl.gotoAndStop(10)
tl.gotoAndPlay('60')
tl.pause()
tl.play()
tl.stop()",
        "",
    );
    assert_eq!(
        logs(&t, "root/T"),
        ["info: fps at init 10", "info: fps 20 size 100"]
    );
    assert_in_order(
        &t,
        &[
            "root/T kf_on L/later",
            "root/T tl goto 10",
            "root/T tl pause",
            "root/T tl goto 60",
            "root/T tl play",
            "root/T tl pause",
            "root/T tl play",
            "root/T tl stop",
        ],
    );
}

#[test]
fn the_deprecated_timeline_methods_act_like_the_timeline_object() {
    let t = run_timeline(
        "self.gotoAndStop(5)
self.gotoAndPlay(6)
self.stopTimeline()
self.playTimeline()
self.exitBehavior()",
        "",
    );
    assert_in_order(
        &t,
        &[
            "root/T tl goto 5",
            "root/T tl pause",
            "root/T tl goto 6",
            "root/T tl play",
            "root/T tl pause",
            "root/T tl play",
            "root/T tl stop",
        ],
    );
}

#[test]
fn the_parent_timeline_is_the_one_holding_the_box() {
    let inner = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        tl = self.getParentTimeline()
        self.log('parent fps %d size %d' % (tl.getFPS(), tl.getSize()))
        self.log('via frame manager %d' % ALFrameManager.getTimelineFps(self.parentId))
        self.gotoAndStopParent(30)
        self.stopTimelineParent()
        self.gotoAndPlayParent(40)
        self.playTimelineParent()
        tl.pause()
";
    let t = run_timeline("", inner);
    assert_eq!(
        logs(&t, "root/T/K"),
        ["info: parent fps 10 size 100", "info: via frame manager 10"]
    );
    assert_in_order(
        &t,
        &[
            "root/T tl goto 30",
            "root/T tl pause",
            "root/T tl pause",
            "root/T tl goto 40",
            "root/T tl play",
            // playTimelineParent on a playing timeline changes nothing.
            "root/T tl pause",
        ],
    );
}

#[test]
fn frame_manager_timeline_fps_is_answered_by_the_engine() {
    let t = run_timeline(
        "self.log('fps %d' % ALFrameManager.getTimelineFps(self.getName()))
ALFrameManager.setTimelineFps(self.getName(), 50)
self.log('fps %d' % ALFrameManager.getTimelineFps(self.getName()))
try:
    ALFrameManager.getTimelineFps('nobody')
except RuntimeError as e:
    self.log(str(e))",
        "",
    );
    assert_eq!(
        logs(&t, "root/T"),
        [
            "info: fps at init 10",
            "info: fps 10",
            "info: fps 50",
            "info: ALFrameManager: no box named 'nobody' in this behavior",
        ]
    );
}

#[test]
fn on_error_is_called_with_name_and_message_and_an_output_named_on_error_fires() {
    let method = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        raise RuntimeError('bad')

    def onError(self, message):
        self.log('handled ' + message)
";
    let (_, t) = run(&one_box("", method));
    assert_eq!(logs(&t, "root/A"), ["info: handled root_A_1:bad"]);
    let output = r#"<Output name="onError" type="3" type_size="1" nature="2" inner="0" id="5"/>"#;
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        raise RuntimeError('bad')
";
    let (_, t) = run(&one_box(output, code));
    assert!(
        t.iter().any(|l| l == "root/A out onError \"root_A_1:bad\""),
        "{t:#?}"
    );
}

#[test]
fn hooks_may_call_on_unload_without_defining_it() {
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.onUnload()
        self.onLoad()
        self.onStopped()
";
    let (outcome, t) = run(&one_box("", code));
    assert_eq!(outcome, Outcome::Finished, "{t:#?}");
}

/// The script line of a construction error of box A.
fn construction_line(e: &choreo_engine::EngineError) -> Option<u32> {
    match e {
        choreo_engine::EngineError::Construct { path, error } if path == "root/A" => error.line,
        other => panic!("not a construction error of root/A: {other:?}"),
    }
}

#[test]
fn a_construction_error_fails_the_load_naming_the_box_and_line() {
    let code = "
class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)
        self.x = undefined_name
";
    let e = match load(&one_box("", code), None, Trace::new()) {
        Err(e) => e,
        Ok(_) => panic!("the load must fail"),
    };
    assert_eq!(construction_line(&e), Some(5), "{e}");
    let e = e.to_string();
    assert!(
        e.starts_with("root/A: cannot construct the box: Traceback"),
        "{e}"
    );
    assert!(
        e.contains("File \"root/A\", line 5, in __init__\n    self.x = undefined_name"),
        "{e}"
    );
    assert!(
        e.ends_with("NameError: name 'undefined_name' is not defined"),
        "{e}"
    );
}

#[test]
fn a_syntax_error_fails_the_load_naming_the_box_and_line() {
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        if True
            pass
";
    let e = match load(&one_box("", code), None, Trace::new()) {
        Err(e) => e,
        Ok(_) => panic!("the load must fail"),
    };
    assert_eq!(construction_line(&e), Some(4), "{e}");
    let e = e.to_string();
    assert!(
        e.starts_with(
            "root/A: cannot construct the box:   File \"root/A\", line 4\n    if True\nSyntaxError:"
        ),
        "{e}"
    );
}

#[test]
fn a_hook_traceback_names_the_box_path_and_the_original_line() {
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.helper(0)

    def helper(self, n):
        return 10 / n
";
    // `10 / n` divides two ints as Python 2 did (its message), and the division the fixer
    // routes through `__py2div__` shows no frame of its own.
    let (_, t) = run(&one_box("", code));
    let errs = errors(&t, "root/A");
    assert_eq!(
        errs,
        ["onInput_onStart: Traceback (most recent call last):
  File \"root/A\", line 4, in onInput_onStart
    self.helper(0)
  File \"root/A\", line 7, in helper
    return 10 / n
ZeroDivisionError: integer division or modulo by zero"]
    );
}

#[test]
fn exit_and_keyboard_interrupt_in_a_hook_are_errors_not_exits() {
    let code = "
import sys

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        sys.exit(2)
";
    let (_, t) = run(&one_box("", code));
    let errs = errors(&t, "root/A");
    assert!(errs[0].ends_with("SystemExit: 2"), "{errs:#?}");
    assert!(t.iter().any(|l| l == "root/A del"), "the engine went on");
}

#[test]
fn print_to_a_file_is_not_logged() {
    let code = on_start(
        "import io\nbuf = io.StringIO()\nprint('x', file=buf)\nself.log('buffer ' + buf.getvalue().strip())",
    );
    assert_eq!(logs_of(&code), ["info: buffer x"]);
}

#[test]
fn a_finished_run_leaves_no_box_alive() {
    let code = "
import sys
import weakref

class MyClass(GeneratedClass):
    def onLoad(self):
        self.sub = ALMemory.subscriber('K')
        self.sub.signal.connect(self.onK)
        ALMemory.subscribeToEvent('E', self.getName(), 'onK')
        sys.choreo_leak_probe = weakref.ref(self)

    def onK(self, *args):
        pass

    def onInput_onStart(self):
        self.onStopped()
";
    let robot = support::robot::TestRobot::new();
    let (outcome, _) = run_with(
        &one_box("", code),
        Some(robot.clone() as std::sync::Arc<dyn choreo_engine::Robot>),
    );
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(robot.subscriptions(), 0);
    use pyo3::prelude::*;
    let alive = Python::attach(|py| -> PyResult<bool> {
        py.import("gc")?.call_method0("collect")?;
        let probe = py.import("sys")?.getattr("choreo_leak_probe")?;
        Ok(!probe.call0()?.is_none())
    })
    .unwrap();
    assert!(!alive, "the box instance outlived its engine");
}

/// Constructs box A of `xml` with the Python host and returns its code and context.
fn construct_a(
    xml: &str,
) -> (
    choreo_engine::Engine,
    std::sync::Arc<dyn choreo_engine::BoxCode>,
    choreo_engine::BoxContext,
) {
    use choreo_engine::ScriptHost;
    type Kept = Option<(
        std::sync::Arc<dyn choreo_engine::BoxCode>,
        choreo_engine::BoxContext,
    )>;
    struct Keep(choreo_python::PythonHost, std::sync::Mutex<Kept>);
    impl ScriptHost for Keep {
        fn construct(
            &self,
            node: &choreo_engine::graph::BoxNode,
            ctx: &choreo_engine::BoxContext,
        ) -> Result<std::sync::Arc<dyn choreo_engine::BoxCode>, choreo_engine::ScriptError>
        {
            let code = self.0.construct(node, ctx)?;
            if node.name == "A" {
                *self.1.lock().unwrap() = Some((code.clone(), ctx.clone()));
            }
            Ok(code)
        }
    }
    let keep = Keep(
        choreo_python::PythonHost::new(options()),
        std::sync::Mutex::new(None),
    );
    let x = choreo_xar::read_xar("t.xar", xml.as_bytes()).unwrap().value;
    let engine = choreo_engine::Engine::load(
        &x,
        &keep,
        choreo_engine::Options {
            virtual_time: true,
            trace: Trace::new(),
            ..Default::default()
        },
    )
    .unwrap();
    let (code, ctx) = keep.1.lock().unwrap().take().unwrap();
    (engine, code, ctx)
}

#[test]
fn resource_hooks_are_defined_by_the_script_and_get_the_resource_name() {
    use choreo_engine::Hook;
    let code = "
class MyClass(GeneratedClass):
    def onResource(self, name):
        self.log('wanted: ' + name)

    def onResourceLost(self):
        self.log('lost')
";
    let (engine, a, ctx) = construct_a(&one_box("", code));
    assert!(a.defines(&Hook::ResourceLost));
    assert!(a.defines(&Hook::Resource {
        name: "x".to_string()
    }));
    assert!(!a.defines(&Hook::ResourceError));
    a.call(
        &Hook::Resource {
            name: "Speech".to_string(),
        },
        &ctx,
    )
    .unwrap();
    a.call(&Hook::ResourceLost, &ctx).unwrap();
    a.call(&Hook::ResourceError, &ctx).unwrap();
    let t: Vec<String> = engine.trace().events().iter().map(|e| e.short()).collect();
    assert_eq!(logs(&t, "root/A"), ["info: wanted: Speech", "info: lost"]);
}

#[test]
fn a_hook_error_carries_the_line_of_the_script_that_raised() {
    use choreo_engine::Hook;
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.helper(0)

    def helper(self, n):
        return 10 / n

    def onInput_onStop(self):
        raise RuntimeError('stop')
";
    let (_engine, a, ctx) = construct_a(&one_box("", code));
    let start = Hook::Input {
        name: "onStart".into(),
        value: Value::None,
    };
    let e = a.call(&start, &ctx).unwrap_err();
    // The innermost line of the script: in helper, not where onInput_onStart called it.
    assert_eq!(e.line, Some(7), "{e}");
    assert!(
        e.message
            .ends_with("ZeroDivisionError: integer division or modulo by zero"),
        "{e}"
    );
    let stop = Hook::Input {
        name: "onStop".into(),
        value: Value::None,
    };
    let e = a.call(&stop, &ctx).unwrap_err();
    assert_eq!(e.line, Some(10), "{e}");
    assert!(e.message.ends_with("RuntimeError: stop"), "{e}");
}

/// The attributes and methods the reference's generated class gives box code, name by name.
/// Sources: libqicore's Python box generator (`aldebaran/libqicore`, history,
/// `libqicore-compat/src/python/pythonboxgenerator.cpp`, `generatedClass`: `self.id`,
/// `boxName`, `behaviorPath`, `behaviorId`, `parentBoxName` for a box with a parent,
/// `timeline`, `resource`; the timeline methods) and its base class
/// (`libqicore-compat/python/qicorecompat/behavior.py`: `name`, `parameters`, `getName`,
/// `getParameter`, `setParameter`, `stimulateIO`, `log`, `getParentTimeline`,
/// `parentTimeline`); the 2.1 and 2.8 page "Scripting Python boxes"
/// (`software/choregraphe/objects/python_script.html`: `onLoad`, `onUnload`, `getParameter`,
/// `setParameter`, `getTimeline`, `getParentTimeline`, `packageUid`,
/// `behaviorAbsolutePath`, `behaviorRelativePath`, `log`, `logger`). The generator's
/// internals that choreo's engine does itself are listed, each with why, in
/// docs/box-environment.md (checked below).
#[test]
fn the_reference_generated_class_s_attributes_and_methods_are_given() {
    const GIVEN: &[&str] = &[
        "id",
        "name",
        "boxName",
        "behaviorPath",
        "behaviorId",
        "parentBoxName",
        "resource",
        "parameters",
        "timeline",
        "parentTimeline",
        "getName",
        "getParameter",
        "setParameter",
        "stimulateIO",
        "log",
        "logger",
        "onLoad",
        "onUnload",
        "getTimeline",
        "getParentTimeline",
        "playTimeline",
        "stopTimeline",
        "exitBehavior",
        "gotoAndStop",
        "gotoAndPlay",
        "playTimelineParent",
        "stopTimelineParent",
        "exitBehaviorParent",
        "gotoAndStopParent",
        "gotoAndPlayParent",
        "packageUid",
        "behaviorAbsolutePath",
        "behaviorRelativePath",
    ];
    const NOT_GIVEN: &[&str] = &[
        "handleSTM",
        "setParentTimeline",
        "setTimeline",
        "setTimelineParent",
        "getTimelineParent",
        "releaseResource",
        "waitResourcesCallback",
        "waitResourceFree",
        "waitResources",
        "resourceManager",
    ];
    let check = format!(
        "for n in {GIVEN:?}:\n    self.log('%s %s' % (n, hasattr(self, n)))\n\
         self.log('id=%s' % (self.id == self.getName()))\n\
         self.log('name=' + self.name)\n\
         self.log('behaviorPath=' + self.behaviorPath)\n\
         self.log('parentBoxName=' + self.parentBoxName)\n\
         self.log('resource=%s' % self.resource)\n\
         self.log('parameters=%s' % sorted((k, p.value()) for k, p in self.parameters.items()))\n\
         self.parameters['Volume'].setValue(7)\n\
         self.log('set=%s' % self.getParameter('Volume'))\n\
         self.id = 'mine'\n\
         self.log('own=' + self.id)"
    );
    let params = r#"<Parameter name="Volume" inherits_from_parent="0" content_type="1" value="42" default_value="0" id="5"/>"#;
    let (_, t) = run(&one_box(params, &on_start(&check)));
    let errs = errors(&t, "root/A");
    assert!(errs.is_empty(), "{errs:#?}");
    let got = logs(&t, "root/A");
    for name in GIVEN {
        assert!(
            got.contains(&format!("info: {name} True")),
            "{name}: {got:#?}"
        );
    }
    // getName() is `root_A_1` (identity_and_paths); the behavior folder `/behaviors/test`.
    for want in [
        "info: id=True",
        "info: name=root_A_1",
        "info: behaviorPath=/behaviors/test",
        "info: parentBoxName=root_0",
        "info: resource=False",
        "info: parameters=[('Volume', 42)]",
        "info: set=7",
        "info: own=mine",
    ] {
        assert!(got.iter().any(|l| l == want), "{want}: {got:#?}");
    }
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/box-environment.md"),
    )
    .unwrap();
    for name in NOT_GIVEN {
        assert!(
            docs.contains(&format!("`{name}`")),
            "docs/box-environment.md does not say why `{name}` is not given"
        );
    }
}

/// `stimulateIO(name)` fires output `name`, as the generated class's outputs do.
#[test]
fn stimulate_io_fires_an_output() {
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.stimulateIO('nope')
        self.stimulateIO('onStopped')
";
    let (outcome, t) = run(&one_box("", code));
    assert_eq!(outcome, Outcome::Finished, "{t:#?}");
    assert_eq!(logs(&t, "root/A"), ["error: Signal nope not found"]);
}
