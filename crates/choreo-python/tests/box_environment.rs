//! The environment box scripts run in: the standard library of the libpython the process
//! runs whatever `PATH`, `PYTHONHOME` and `PYTHONPATH` say, a user's folders from
//! `CHOREO_PYTHONPATH`, the globals NAOqi's box namespace had, names one box sets at module
//! level seen by the others, and the Python-2 reading of the stock Choice box's sentences.

use crate::support;

use std::process::Command;

use support::*;

/// Set in the environment of the copy of this test binary that runs the box.
const CHILD: &str = "CHOREO_TEST_FOREIGN_PYTHON_CHILD";

#[test]
fn a_box_imports_ssl_os_and_sys_whatever_path_pythonhome_and_pythonpath_say() {
    if std::env::var_os(CHILD).is_some() {
        return foreign_environment_child();
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // Another Python first on PATH: a `python3` that answers with a wrong prefix, and a
    // standard library beside it that breaks whoever takes it.
    std::fs::create_dir_all(root.join("other/bin")).unwrap();
    std::fs::create_dir_all(root.join("other/lib/python3.11")).unwrap();
    let fake = root.join("other/bin/python3");
    std::fs::write(&fake, "#!/bin/sh\necho /wrong/prefix\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(
        root.join("other/lib/python3.11/os.py"),
        "raise ImportError('the standard library of another Python')\n",
    )
    .unwrap();
    // PYTHONPATH with a module that hides the real ssl.
    std::fs::create_dir_all(root.join("pythonpath")).unwrap();
    std::fs::write(
        root.join("pythonpath/ssl.py"),
        "raise ImportError('ssl from PYTHONPATH')\n",
    )
    .unwrap();
    // The user's own folder, given the documented way.
    std::fs::create_dir_all(root.join("mine")).unwrap();
    std::fs::write(root.join("mine/mine.py"), "WHO = 'mine'\n").unwrap();

    let path = std::env::join_paths(std::iter::once(root.join("other/bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "box_environment::a_box_imports_ssl_os_and_sys_whatever_path_pythonhome_and_pythonpath_say",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .env("PATH", path)
        .env("PYTHONHOME", root.join("nowhere"))
        .env("PYTHONPATH", root.join("pythonpath"))
        .env(choreo_python::USER_PATH_VARIABLE, root.join("mine"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("CHILD-OK"), "{stdout}\n{stderr}");
}

/// In a copy of this binary started with the foreign environment: runs itself again with
/// its own standard library, then runs a box that imports `ssl` and uses `os` and `sys`.
fn foreign_environment_child() {
    choreo_python::use_own_standard_library().unwrap();
    let code = "
import ssl
import mine

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.log(repr(ssl.OPENSSL_VERSION.split()[0]))
        self.log(repr([os.path.isfile(os.__file__), sys.version_info[:2], mine.WHO]))
        self.log(repr(sys.prefix == sys.base_prefix and os.__file__.startswith(sys.prefix)))
        self.onStopped()
";
    let (outcome, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: 'OpenSSL'",
            "info: [True, (3, 11), 'mine']",
            "info: True"
        ],
        "{outcome:?}"
    );
    println!("CHILD-OK");
}

#[test]
fn the_globals_naoqi_gave_box_scripts_are_there() {
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.log(repr([os.sep, sys.version_info[0], time.time() > 0, qi.Future is not None]))
        self.log(repr([ALBehavior is GeneratedClass, ALProxy.__name__, ALBroker.__name__, ALModule.__name__]))
        self.log(repr([random.randint(3, 3), logging.getLogger('x').name, callable(inspect.getmembers)]))
        self.log(repr([weakref.ref is not None, motion.FRAME_TORSO]))
        self.onStopped()
";
    let (_, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: ['/', 3, True, True]",
            "info: [True, 'ALProxy', 'ALBroker', 'ALModule']",
            "info: [3, 'x', True]",
            "info: [True, 0]",
        ]
    );
}

#[test]
fn a_name_one_box_sets_at_module_level_is_seen_by_another() {
    let maker = "
import json as shared_json
COUNTER = [41]

def helper():
    return 'from A'

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.onStopped()
";
    let user = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        COUNTER[0] += 1
        self.log(repr([helper(), COUNTER[0], shared_json.dumps(1)]))
        self.log(repr(MyClass.__module__ == 'choreo.box' and MyClass is type(self)))
        self.onStopped()
";
    let xml = behavior(&format!(
        "{}{}{}{}",
        py_box("A", 1, "", maker, ""),
        py_box("B", 2, "", user, ""),
        link(0, 2, 2, 2),
        link(2, 4, 0, 4)
    ));
    let (_, t) = run(&xml);
    assert!(errors(&t, "root/B").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/B"),
        ["info: ['from A', 42, '1']", "info: True"]
    );
}

#[test]
fn the_old_choice_box_reads_its_sentences_file_as_python_2_did() {
    // The reading of the stock Choice box of Choregraphe 1.x-2.1 (its own script, with the
    // sentences file at behaviorAbsolutePath() + "/Aldebaran/choice_sentences.xml").
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("Aldebaran")).unwrap();
    std::fs::write(
        tmp.path().join("Aldebaran/choice_sentences.xml"),
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Sentences><Language name=\"French\"><Words kind=\"yes\" text=\"oui/ouais/d'accord é\"/></Language></Sentences>\n",
    )
    .unwrap();
    let code = "
import xml.dom.minidom

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        framemanager = ALProxy('ALFrameManager')
        filename = framemanager.getBehaviorPath(self.behaviorId) + '/Aldebaran/choice_sentences.xml'
        doc = xml.dom.minidom.parse(filename)
        for block in doc.getElementsByTagName('Words'):
            words = block.getAttribute( 'text' ).encode('utf-8').split('/')
            self.log(repr(words))
        self.onStopped()
";
    let xar = choreo_xar::read_xar("t.xar", one_box("", code).as_bytes())
        .unwrap()
        .value;
    let options = choreo_python::PythonOptions {
        behavior_path: tmp.path().display().to_string(),
        ..options()
    };
    let trace = choreo_engine::Trace::new();
    let engine = choreo_engine::Engine::load(
        &xar,
        &choreo_python::PythonHost::new(options),
        choreo_engine::Options {
            virtual_time: true,
            trace: trace.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    engine.start();
    let _ = engine.wait(std::time::Duration::from_secs(60));
    drop(engine);
    let t: Vec<String> = trace.events().iter().map(|e| e.short()).collect();
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        ["info: ['oui', 'ouais', \"d'accord é\"]"]
    );
}
