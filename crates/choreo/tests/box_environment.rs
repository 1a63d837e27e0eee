//! `choreo run` gives boxes the same `behaviorAbsolutePath()` whether a project is run by its
//! folder, its `.pml` (by an absolute or a bare name holding `!`, spaces and accents) or a
//! `.crg`: the behavior's folder where PackageManager installs it on a robot
//! (`.../home/nao/.local/share/PackageManager/apps/<package>/behavior_1`, in a temporary
//! folder removed after the run: a link to the project's folder, or the archive unpacked),
//! and the files beside the behavior can be read there; the robot's own paths name the
//! run's folders; and box scripts import `ssl` with another Python first on `PATH` and a
//! wrong `PYTHONHOME`.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output};

const PML_NAME: &str = "NAO WE SHOW!! été.pml";

/// A box that logs its behavior folder and the text of `data.txt` there, and imports `ssl`.
const BEHAVIOR: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3">
<Box name="root" id="-1" localization="8" tooltip="" x="0" y="0">
<script language="4"><content><![CDATA[]]></content></script>
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="3" />
<Timeline enable="0"><BehaviorLayer name="behavior_layer1"><BehaviorKeyframe name="keyframe1" index="1"><Diagram>
<Box name="Reader" id="1" localization="8" tooltip="" x="100" y="100">
<script language="4"><content><![CDATA[import ssl

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        folder = self.behaviorAbsolutePath()
        self.log("folder=" + folder)
        with open(os.path.join(folder, "data.txt")) as f:
            self.log("data=" + f.read().strip())
        self.log("ssl=" + ssl.OPENSSL_VERSION.split()[0])
        self.onStopped()
]]></content></script>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
</Box>
<Link inputowner="1" indexofinput="1" outputowner="0" indexofoutput="2" />
<Link inputowner="0" indexofinput="3" outputowner="1" indexofoutput="2" />
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>
</Box>
</ChoregrapheProject>
"#;

const PML: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<Package name=\"Show\" format_version=\"4\">\n<Manifest src=\"manifest.xml\" />\n<BehaviorDescriptions><BehaviorDescription name=\"behavior\" src=\"behavior_1\" xar=\"behavior.xar\" /></BehaviorDescriptions>\n</Package>\n";

/// The project's files: (path, content).
fn files() -> [(&'static str, &'static [u8]); 3] {
    [
        (PML_NAME, PML.as_bytes()),
        ("behavior_1/behavior.xar", BEHAVIOR.as_bytes()),
        ("behavior_1/data.txt", b"beside the behavior\n"),
    ]
}

fn write_project(dir: &Path) {
    for (path, bytes) in files() {
        let target = dir.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}

/// The project as a `.crg`: an ar archive of debian-binary, control.tar.gz, data.tar.gz.
fn crg() -> Vec<u8> {
    fn tar_gz(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, bytes) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder.append_data(&mut header, path, *bytes).unwrap();
        }
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&tar).unwrap();
        gz.finish().unwrap()
    }
    let control = tar_gz(&[(
        "control",
        b"Type: ChoregrapheProject\nVersion: 2.0\ntitle: Show\n",
    )]);
    let data = tar_gz(&files());
    let mut out = b"!<arch>\n".to_vec();
    for (name, bytes) in [
        ("debian-binary", &b"2.0\n"[..]),
        ("control.tar.gz", &control[..]),
        ("data.tar.gz", &data[..]),
    ] {
        let header = format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            format!("{name}/"),
            0,
            0,
            0,
            "100644",
            bytes.len()
        );
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(bytes);
        if bytes.len() % 2 == 1 {
            out.push(b'\n');
        }
    }
    out
}

fn choreo(dir: &Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_choreo"));
    command.args(args).current_dir(dir);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

/// What box Reader logged after `prefix`, from choreo's live output.
fn logged(out: &Output, prefix: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    stderr
        .lines()
        .find_map(|l| l.split_once(prefix).map(|(_, v)| v.to_string()))
        .unwrap_or_else(|| panic!("no {prefix:?} in:\n{stderr}"))
}

#[test]
fn the_behavior_folder_is_the_same_by_folder_pml_and_crg_and_its_files_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("Show !");
    write_project(&project);
    // The run's folders go in a temporary folder of their own, to see them removed.
    let temp = tmp.path().join("temp");
    std::fs::create_dir_all(&temp).unwrap();
    let run = |dir: &Path, input: &str| {
        let out = choreo(
            dir,
            &["run", input, "--fast"],
            &[("TMPDIR", temp.as_os_str())],
        );
        (logged(&out, "folder="), logged(&out, "data="))
    };
    let folder = project.display().to_string();
    let pml = project.join(PML_NAME).display().to_string();
    let archive = tmp.path().join("Show!.crg");
    std::fs::write(&archive, crg()).unwrap();
    for (dir, input) in [
        (tmp.path(), folder.as_str()),
        (tmp.path(), pml.as_str()),
        (project.as_path(), PML_NAME),
        (project.as_path(), "."),
        (tmp.path(), "Show!.crg"),
    ] {
        let (got, data) = run(dir, input);
        let where_ = format!("run {input:?} in {}", dir.display());
        // Played, as Choregraphe's Play uploads it (the robot applications page); shown
        // as the robot's own path, whatever host folder holds the run's (docs/trace.md).
        assert_eq!(
            got,
            "/home/nao/.local/share/PackageManager/apps/.lastUploadedChoregrapheBehavior/behavior_1",
            "{where_}"
        );
        assert_eq!(data, "beside the behavior", "{where_}");
        let left: Vec<_> = std::fs::read_dir(&temp).unwrap().collect();
        assert!(
            left.is_empty(),
            "{where_}: the robot's layout is left behind: {left:?}"
        );
    }
    assert!(
        project.join("behavior_1/data.txt").is_file(),
        "the project stays"
    );
}

#[test]
fn boxes_import_ssl_with_another_python_first_on_path_and_a_wrong_pythonhome() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    write_project(&project);
    let other = tmp.path().join("other");
    std::fs::create_dir_all(other.join("bin")).unwrap();
    std::fs::create_dir_all(other.join("lib/python3.11")).unwrap();
    std::fs::write(
        other.join("lib/python3.11/os.py"),
        "raise ImportError('another standard library')\n",
    )
    .unwrap();
    let fake = other.join("bin/python3");
    std::fs::write(&fake, "#!/bin/sh\necho /wrong/prefix\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = std::env::join_paths(std::iter::once(other.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let home = tmp.path().join("nowhere");
    for env in [
        vec![("PATH", path.as_os_str())],
        vec![("PATH", path.as_os_str()), ("PYTHONHOME", home.as_os_str())],
    ] {
        let out = choreo(tmp.path(), &["run", "project", "--fast"], &env);
        assert_eq!(logged(&out, "ssl="), "OpenSSL");
    }
}

#[test]
fn the_stock_show_app_box_finds_its_application_in_the_robots_layout() {
    // A Pepper project whose stock Show App box cuts `behaviorAbsolutePath()` at
    // `PackageManager/apps` to name the application it shows on the tablet.
    let Some(corpus) = choreo_testkit::corpus("the stock Show App box") else {
        return;
    };
    let project = corpus.join("icoxfog417__PepperYesMan");
    // Played, the application is the package Choregraphe's Play uploads; installed, its uuid.
    for (flags, app) in [
        (&[][..], ".lastUploadedChoregrapheBehavior"),
        (&["--installed"][..], "satsukidemo-e75949"),
    ] {
        let mut args = vec!["run", ".", "--fast", "--timeout", "5"];
        args.extend_from_slice(flags);
        let out = choreo(&project, &args, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("loads http://198.18.0.1/apps/{app}/,")),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("Successfully set application: {app}")),
            "{stderr}"
        );
        assert!(
            !stderr.contains("appsFolderFragment is not in behaviorPath"),
            "{stderr}"
        );
    }
}

/// The stock Play Video box of a Pepper corpus project waits for ALTabletService's
/// `videoFinished`: the video its project's `html` folder holds plays as long as the file
/// lasts (the fixture is ten frames at 4 per second: 2.5 s); the corpus's copy of the
/// project lacks its videos (its `.pml` lists them), so there the video plays for the
/// default length, and a notice says why.
#[test]
fn the_stock_play_video_box_waits_for_its_video_to_end() {
    let Some(corpus) = choreo_testkit::corpus("the stock Play Video box") else {
        return;
    };
    let source = corpus.join("Charrr__Emotional-Pepper");
    let args = [
        "run",
        ".",
        "--behavior",
        "_hHappy",
        "--fast",
        "--timeout",
        "60",
    ];
    let out = choreo(&source, &args, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("_happiness_hello.mp4 (not in the package's html folder): it plays 3 s"),
        "{stderr}"
    );
    assert!(
        stderr.contains("3.00s  ALTabletService: the video ends"),
        "{stderr}"
    );

    let tmp = tempfile::tempdir().unwrap();
    for file in ["manifest.xml", "Test_sample.pml", "_hHappy/behavior.xar"] {
        let to = tmp.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(source.join(file), to).unwrap();
    }
    std::fs::create_dir(tmp.path().join("html")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../choreo-naoqi/tests/fixtures/videos/blue-2.5s.mp4"),
        tmp.path().join("html/_happiness_hello.mp4"),
    )
    .unwrap();
    let out = choreo(tmp.path(), &args, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("cannot read the length"), "{stderr}");
    assert!(
        stderr.contains("2.50s  ALTabletService: the video ends"),
        "{stderr}"
    );
}

/// A video closed before its end ends there: the run waits for nothing more (it ends idle
/// at 1 s, not at the 3 s a video of unknown length plays), and `videoFinished` never comes.
#[test]
fn a_video_stopped_before_its_end_keeps_nothing_waiting() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("video");
    one_box_project(
        &project,
        "video-1a2b",
        "import time\n\nclass MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        t = ALProxy(\"ALTabletService\")\n        t.videoFinished.connect(self.finished)\n        t.playVideo(\"http://example.com/v.mp4\")\n        time.sleep(1)\n        self.log(\"stopped=%s\" % t.stopVideo())\n\n    def finished(self):\n        self.log(\"videoFinished came\")\n",
    );
    let out = choreo(tmp.path(), &["run", "video", "--fast"], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stopped=True"), "{stderr}");
    assert!(!stderr.contains("videoFinished came"), "{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("duration       1.00 s behavior time"),
        "{stdout}{stderr}"
    );
}

/// A box that names the robot's own paths, as real projects hard-code them: it appends the
/// Play path to `sys.path` to import a module its project bundles (`lib/bundled.py`),
/// writes in the robot's home and reads it back by Pepper 2.9's name for it, lists, globs,
/// copies, and reads its package by its uuid.
const ROBOT_PATHS: &str = r#"import sys, glob, shutil
PLAY = "/home/nao/.local/share/PackageManager/apps/.lastUploadedChoregrapheBehavior"

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        sys.path.append(PLAY + "/lib")
        import bundled
        self.log("bundled=" + bundled.NAME)
        with open("/home/nao/notes.txt", "w") as f:
            f.write("kept")
        self.log("home=" + open("/data/home/nao/notes.txt").read())
        self.log("exists=" + str(os.path.exists(PLAY + "/behavior_1/data.txt")))
        self.log("glob=" + ",".join(glob.glob(PLAY + "/behavior_1/*.txt")))
        uuid = "/home/nao/.local/share/PackageManager/apps/paths-1a2b/behavior_1/data.txt"
        self.log("uuid=" + open(uuid).read().strip())
        os.makedirs("/home/nao/recordings/x")
        shutil.copy(PLAY + "/behavior_1/data.txt", "/home/nao/recordings/x/copy.txt")
        self.log("listdir=" + ",".join(os.listdir("/home/nao/recordings/x")))
        self.log("real=" + str(os.path.exists(os.path.realpath(PLAY))))
        with open("/tmp/choreo-robot-tmp-test.txt", "w") as f:
            f.write("scratch")
        self.log("tmp=" + open("/tmp/choreo-robot-tmp-test.txt").read() + " " + ",".join(os.listdir("/tmp")))
        self.onStopped()
"#;

/// Writes a project of one box running `script` (the Reader box of [`BEHAVIOR`]) into
/// `project`, with a manifest of package `uuid`.
fn one_box_project(project: &Path, uuid: &str, script: &str) {
    std::fs::create_dir_all(project.join("behavior_1")).unwrap();
    std::fs::write(
        project.join("manifest.xml"),
        format!("<?xml version='1.0' encoding='UTF-8'?>\n<package uuid=\"{uuid}\" version=\"1.0.0\">\n<names><name lang=\"en_US\">Paths</name></names>\n</package>\n"),
    )
    .unwrap();
    std::fs::write(project.join("paths.pml"), PML).unwrap();
    let xar = BEHAVIOR.replace(
        BEHAVIOR
            .split("<![CDATA[")
            .nth(2)
            .and_then(|s| s.split("]]>").next())
            .unwrap(),
        script,
    );
    std::fs::write(project.join("behavior_1/behavior.xar"), xar).unwrap();
}

#[test]
fn the_robots_paths_name_the_run_s_own_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("paths");
    one_box_project(&project, "paths-1a2b", ROBOT_PATHS);
    std::fs::create_dir_all(project.join("lib")).unwrap();
    std::fs::write(
        project.join("lib/bundled.py"),
        "NAME = 'from the project'\n",
    )
    .unwrap();
    std::fs::write(project.join("behavior_1/data.txt"), "beside\n").unwrap();
    let had_home = Path::new("/home/nao").exists();
    let out = choreo(tmp.path(), &["run", "paths", "--fast"], &[]);
    let play = "/home/nao/.local/share/PackageManager/apps/.lastUploadedChoregrapheBehavior";
    for (key, want) in [
        ("bundled=", "from the project".to_string()),
        ("home=", "kept".to_string()),
        ("exists=", "True".to_string()),
        ("glob=", format!("{play}/behavior_1/data.txt")),
        ("uuid=", "beside".to_string()),
        ("listdir=", "copy.txt".to_string()),
        ("real=", "True".to_string()),
        // The robot's /tmp is the run's own: only what the box put there.
        ("tmp=", "scratch choreo-robot-tmp-test.txt".to_string()),
    ] {
        assert_eq!(logged(&out, key), want, "{key}");
    }
    // Nothing was written outside the run's folders, which are gone with the run.
    assert!(!Path::new("/tmp/choreo-robot-tmp-test.txt").exists());
    if !had_home {
        assert!(!Path::new("/home/nao").exists(), "the machine's /home/nao");
    }
    assert_eq!(
        std::fs::read_dir(&project).unwrap().count(),
        4,
        "the project gained no file"
    );
}

/// A box that imports each of `names` (each with an `import` statement, as box code
/// writes it) and logs `import <name> ok <version> <file>` or `import <name> error
/// <message>`.
fn imports_box(names: &[&str]) -> String {
    let mut script = "def report(box, name, module):\n    box.log(\"import %s ok %s %s\" % (name, getattr(module, \"__version__\", \"-\"), getattr(module, \"__file__\", None)))\n\nclass MyClass(GeneratedClass):\n    def onInput_onStart(self):\n".to_string();
    for name in names {
        script.push_str(&format!(
            "        try:\n            import {name}\n            report(self, {name:?}, {name})\n        except Exception as e:\n            self.log(\"import %s error %s\" % ({name:?}, \" \".join(str(e).split())))\n"
        ));
    }
    script.push_str("        self.onStopped()\n");
    script
}

/// The `import` lines a run logged: name -> (ok, rest).
fn imports(out: &Output) -> std::collections::BTreeMap<String, (bool, String)> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}:\n{stderr}", out.status);
    stderr
        .lines()
        .filter_map(|l| l.split_once("import ").map(|(_, v)| v))
        .filter_map(|v| {
            let (name, v) = v.split_once(' ')?;
            let (state, rest) = v.split_once(' ')?;
            Some((name.to_string(), (state == "ok", rest.to_string())))
        })
        .collect()
}

/// Every Python package the legal notices of NAOqi 2.1 and 2.8 list imports in box code by
/// every name box code uses, except those choreo's table says cannot be given, which raise
/// an error naming the package, what NAOqi OS ships and why (the first run installs the
/// pinned releases into the package cache; later ones find them there).
#[test]
fn box_code_imports_the_python_packages_naoqi_os_ships() {
    use choreo_robot::python::{Install, packages};
    // From the notices (2.1: dev-python/requests 2.2.1-r1; 2.8: python-requests 2.19.1 and
    // python-urllib3 1.23, python-pyyaml 3.13, python-numpy 1.14.5): the packages the
    // issue's failing projects import are in the table.
    for name in ["requests", "urllib3", "yaml", "numpy"] {
        assert!(
            packages().iter().any(|p| p.imports.contains(&name)),
            "{name}"
        );
    }
    let names: Vec<&str> = packages().iter().flat_map(|p| p.imports.clone()).collect();
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("imports");
    one_box_project(&project, "imports-1a2b", &imports_box(&names));
    let out = choreo(tmp.path(), &["run", "imports", "--fast"], &[]);
    let got = imports(&out);
    for package in packages() {
        for name in &package.imports {
            let (ok, rest) = got
                .get(*name)
                .unwrap_or_else(|| panic!("no import line for {name}"));
            match &package.install {
                // The machine's own copy (Debian's python3-dbus in dist-packages) is
                // found first, as any module of the machine's Python is.
                Install::Unavailable(_) if *ok => {
                    assert!(!rest.contains("naoqi-os-python"), "{name}: {rest}");
                }
                Install::Unavailable(why) => {
                    assert!(
                        rest.contains(&format!("No module named '{name}'")),
                        "{rest}"
                    );
                    assert!(rest.contains(&package.shipped()), "{rest}");
                    assert!(rest.contains(why), "{rest}");
                }
                _ => assert!(ok, "{name}: {rest}"),
            }
        }
    }
    // The pinned Python 3 releases (data/python.txt) are what box code gets.
    for (name, version) in [
        ("requests", "2.32.5"),
        ("urllib3", "1.26.20"),
        ("yaml", "6.0.2"),
    ] {
        assert!(
            got[name].1.starts_with(&format!("{version} ")),
            "{name}: {}",
            got[name].1
        );
    }
}

/// `sys.path` as on the robot: the OS's packages come after the standard library and before
/// what box code adds, so a box that appends its own `lib/` holding a copy of `six` gets
/// the system's, and one that inserts it first gets its own.
#[test]
fn a_box_s_own_lib_comes_after_the_os_packages_unless_it_is_inserted_first() {
    for (how, want) in [("append(LIB)", "1.17.0"), ("insert(0, LIB)", "own")] {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("order");
        let script = format!(
            "import sys\nLIB = '/home/nao/.local/share/PackageManager/apps/\
             .lastUploadedChoregrapheBehavior/lib'\n\n\
             class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        \
             sys.path.{how}\n        import six\n        \
             self.log('version of six: ' + six.__version__)\n        self.onStopped()\n"
        );
        one_box_project(&project, "order-1a2b", &script);
        std::fs::create_dir_all(project.join("lib")).unwrap();
        std::fs::write(project.join("lib/six.py"), "__version__ = 'own'\n").unwrap();
        let out = choreo(tmp.path(), &["run", "order", "--fast"], &[]);
        assert_eq!(logged(&out, "version of six: "), want, "sys.path.{how}");
    }
}

/// A package NAOqi OS ships that choreo cannot give fails where box code imports it: the
/// report names the box, its script's line and the package.
#[test]
fn an_os_package_choreo_cannot_give_fails_at_the_box_s_import_line() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("gst");
    one_box_project(
        &project,
        "gst-1a2b",
        "\nimport gst\n\nclass MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        self.onStopped()\n",
    );
    let out = choreo(tmp.path(), &["run", "gst", "--fast"], &[]);
    let all = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{all}");
    assert!(all.contains("No module named 'gst'"), "{all}");
    assert!(all.contains("2.1: gst-python 0.10.21"), "{all}");
    assert!(all.contains("Reader"), "{all}");
    assert!(all.contains("line 2"), "{all}");
}

/// A package service's program (qi.Application, as the 2.8 service page writes one): it
/// registers the service named by its first argument, whose `echo` says who answered and
/// emits its `echoed` signal. Its parser is strict: the command line is the one NAOqi's
/// ServiceManager gives (`execStart`'s, then `--qi-url`), nothing more.
const ECHO_SERVICE: &str = r#"import argparse
import sys
import qi

parser = argparse.ArgumentParser()
parser.add_argument("name")
parser.add_argument("--qi-url")
parser.parse_args()

class Echo:
    def __init__(self):
        self.echoed = qi.Signal("(s)")

    def echo(self, message):
        self.echoed(message)
        return "%s from %s" % (message, sys.argv[1])

    def preference(self, domain, setting):
        return app.session.service("ALPreferenceManager").getValue(domain, setting)

app = qi.Application(sys.argv)
app.start()
app.session.registerService(sys.argv[1], Echo())
print("serving %s" % sys.argv[1], flush=True)
app.run()
"#;

/// A Python-2 service program, started as the robot starts it (`execStart` names the file,
/// whose `#!` line names python): Python-2 syntax in the program and in a module of its
/// package, and Python 2's integer division.
const PY2_SERVICE: &str = r#"#!/usr/bin/env python
import sys
import qi
from shout import shout

class Echo(object):
    def echo(self, message):
        return "%s from %s (%d)" % (shout(message), sys.argv[1], 7 / 2)

app = qi.Application(sys.argv)
app.start()
app.session.registerService(sys.argv[1], Echo())
print "serving %s" % sys.argv[1]
app.run()
"#;

/// The module the Python-2 program imports, in Python 2 too.
const PY2_MODULE: &str = r#"def shout(text):
    try:
        return text.upper()
    except Exception, e:
        return unicode(e)
"#;

/// A box that reaches the autorun service, starts the other through ALServiceManager by its
/// short name, calls it, stops it, and starts a service whose program dies at once.
const SERVICES_BOX: &str = r#"class MyClass(GeneratedClass):
    def onInput_onStart(self):
        sm = ALProxy("ALServiceManager")
        sm.serviceStarted.connect(self.started)
        link = sm.serviceStopped.connect(self.stopped)
        ALProxy("AutoEcho").echoed.connect(self.echoed)
        self.log("auto=" + ALProxy("AutoEcho").echo("hi"))
        ALProxy("ALPreferenceManager").setValue("com.example.svc", "colour", "blue")
        self.log("preference=" + ALProxy("AutoEcho").preference("com.example.svc", "colour"))
        self.log("before=%s" % sm.isServiceRunning("svc-1a2b.boxservice"))
        self.log("start=%s" % sm.startService("boxservice"))
        self.log("box=" + self.session().service("BoxEcho").echo("there"))
        self.log("listed=%s" % sorted((s["name"], s["running"]) for s in sm.services()))
        self.log("stop=%s" % sm.stopService("svc-1a2b.boxservice"))
        self.log("after=%s" % sm.isServiceRunning("boxservice"))
        self.log("dies=%s" % sm.startService("dies"))
        sm.startService("py2service")
        self.log("py2=" + ALProxy("Py2Echo").echo("hello"))
        self.onStopped()

    def started(self, name, reason):
        self.log("serviceStarted %s %s" % (name, reason))

    def stopped(self, name, reason):
        self.log("serviceStopped %s %s" % (name, reason))

    def echoed(self, message):
        self.log("echoed=" + message)
"#;

/// The manifest's services run as ServiceManager runs them: the autorun one with the run,
/// the other when a box starts it; both register their services in the robot's directory
/// over qi (`--qi-url`), box code calls them, a program reads the robot's preferences as box
/// code does (ALPreferenceManager over qi), their output is shown, one that dies is
/// reported, and none outlives the run. The manifest's form is the 2.8 service page's
/// (`dev/tutos/create_a_new_service.html`: `execStart="./python bin/myservice.py"`).
#[test]
fn package_services_run_register_over_qi_and_stop_with_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("svc");
    one_box_project(&project, "svc-1a2b", SERVICES_BOX);
    std::fs::write(
        project.join("manifest.xml"),
        r#"<?xml version='1.0' encoding='UTF-8'?>
<package uuid="svc-1a2b" version="1.0.0">
<names><name lang="en_US">Services</name></names>
<services>
  <service name="autoservice" autorun="true" execStart="/usr/bin/python2 bin/echo.py AutoEcho" />
  <service name="boxservice" autorun="false" execStart="./python bin/echo.py BoxEcho" />
  <service name="dies" autorun="false" execStart="python bin/dies.py" />
  <service name="py2service" autorun="false" execStart="bin/py2echo.py Py2Echo" />
</services>
</package>
"#,
    )
    .unwrap();
    std::fs::create_dir_all(project.join("bin")).unwrap();
    std::fs::write(project.join("bin/echo.py"), ECHO_SERVICE).unwrap();
    std::fs::write(project.join("bin/py2echo.py"), PY2_SERVICE).unwrap();
    std::fs::write(project.join("bin/shout.py"), PY2_MODULE).unwrap();
    std::fs::write(
        project.join("bin/dies.py"),
        "import sys\nsys.stderr.write('cannot go on\\n')\nsys.exit(3)\n",
    )
    .unwrap();
    let out = choreo(tmp.path(), &["run", "svc", "--fast", "--verbose"], &[]);
    for (key, want) in [
        ("auto=", "hi from AutoEcho"),
        ("before=", "False"),
        ("start=", "True"),
        ("box=", "there from BoxEcho"),
        (
            "listed=",
            "[('svc-1a2b.autoservice', True), ('svc-1a2b.boxservice', True), ('svc-1a2b.dies', False), ('svc-1a2b.py2service', False)]",
        ),
        ("stop=", "True"),
        ("after=", "False"),
        ("dies=", "False"),
        // The signals, with qi::ServiceEventReason (servicemanager_structs.h):
        // ProcessStartRequest 0, ProcessStopRequest 1, ProcessCrashed 3.
        ("serviceStarted svc-1a2b.boxservice ", "0"),
        ("serviceStopped svc-1a2b.boxservice ", "1"),
        ("serviceStopped svc-1a2b.dies ", "3"),
        // The program's own signal reaches box code over qi.
        ("echoed=", "hi"),
        // The program reads over qi the preference box code set.
        ("preference=", "blue"),
        // Python 2 as on the robot: 7 / 2 is 3.
        ("py2=", "HELLO from Py2Echo (3)"),
    ] {
        assert_eq!(logged(&out, key), want, "{key}");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    for shown in [
        "svc-1a2b.autoservice: serving AutoEcho",
        "svc-1a2b.boxservice: serving BoxEcho",
        "svc-1a2b.dies: cannot go on",
        "svc-1a2b.dies: died (exit status: 3)",
        "svc-1a2b.autoservice: stopped",
        "svc-1a2b.py2service: serving Py2Echo",
    ] {
        assert!(stderr.contains(shown), "{shown:?} not in:\n{stderr}");
    }
    // Nothing written into the package: no bytecode of its modules.
    assert!(!project.join("bin/__pycache__").exists());
    // No program outlives the run.
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let ps = String::from_utf8_lossy(&ps.stdout);
    assert!(
        !ps.lines()
            .any(|l| l.contains("bin/echo.py AutoEcho --qi-url")),
        "{ps}"
    );
    // The package cache is in box code's and a Python caller's `sys.path`: the programs'
    // PyPI `qi` installed under it must not import from there as a hollow `qi` (a namespace
    // package without `Session`) where PyPI's `qi` is not installed.
    let probe = "import sys\nsys.path.insert(0, sys.argv[1])\ntry:\n    import qi\nexcept ImportError:\n    print('absent')\nelse:\n    print('Session' if hasattr(qi, 'Session') else 'hollow ' + str(list(qi.__path__)))\n";
    let seen = Command::new(choreo_python::packages::interpreter())
        .args(["-I", "-c", probe])
        .arg(choreo_python::packages::packages_folder())
        .output()
        .unwrap();
    let seen = String::from_utf8_lossy(&seen.stdout);
    assert!(["absent", "Session"].contains(&seen.trim()), "{seen}");
}

/// A Pepper project whose manifest names no robot (Choregraphe writes no
/// `robotRequirement` unless asked) runs on a Pepper: its box calls ALTabletService, which
/// only Pepper has (2.8 `family/pepper_technical/tablet_pep.html`), and the report says
/// why; `--robot-model nao` still wins, and that NAO has no ALTabletService ("Can't find
/// service", as NAOqi says).
#[test]
fn a_pepper_project_with_a_silent_manifest_runs_on_a_pepper() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("tablet");
    one_box_project(
        &project,
        "tablet-1a2b",
        "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        ALProxy(\"ALTabletService\").hideWebview()\n        self.log(\"tablet=ok\")\n        self.onStopped()\n",
    );
    let out = choreo(tmp.path(), &["run", "tablet", "--fast"], &[]);
    assert_eq!(logged(&out, "tablet="), "ok");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("Pepper: the manifest names no robot;")
            && all.contains("calls ALTabletService, which only Pepper has"),
        "{all}"
    );
    let out = choreo(
        tmp.path(),
        &["run", "tablet", "--fast", "--robot-model", "nao"],
        &[],
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("Can't find service: ALTabletService"), "{all}");
}

#[test]
fn an_install_at_an_import_is_made_outside_box_codes_confinement() {
    // `import_module` escapes the scan of box scripts before the load: the package is
    // installed at the import, from box code's confined thread, by choreo for it. In real
    // time: a run in virtual time may take the wait on pip for idleness (box-environment.md).
    let script = r#"import importlib

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.log("imported yaml %s" % importlib.import_module("yaml").__version__)
        self.onStopped()
"#;
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("late");
    one_box_project(&project, "late-1a2b", script);
    let cache = tmp.path().join("cache");
    let out = choreo(
        tmp.path(),
        &["run", "late"],
        &[("CHOREO_PACKAGES", cache.as_os_str())],
    );
    assert_eq!(
        logged(&out, "imported yaml "),
        "6.0.2",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A NAOqi OS package installed at its import (one the load's scan did not see) never holds
/// the interpreter's import lock while pip runs: another thread imports meanwhile. Held,
/// every import elsewhere in the process waited for the install, and runs beside it in the
/// same process (a test running two corpus behaviors at once) stopped as if waiting for the
/// world. The install is replaced here by one that waits for the other thread's import.
#[test]
fn an_install_at_an_import_lets_other_threads_import_meanwhile() {
    let script = r#"import importlib, sys, threading

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        packages = sys.modules["_choreo_packages"]
        fresh = [m for m in ("colorsys", "wave", "netrc", "fractions") if m not in sys.modules][0]
        done = threading.Event()
        seen = []
        def elsewhere():
            importlib.import_module(fresh)
            done.set()
        def install(name):
            threading.Thread(target=elsewhere).start()
            seen.append(done.wait(60))
            return None
        packages._install = install
        try:
            importlib.import_module("yaml")
        except ImportError:
            pass
        self.log("imported elsewhere during the install: %s" % seen)
        self.onStopped()
"#;
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("lock");
    one_box_project(&project, "lock-1a2b", script);
    // An empty cache: the import of `yaml` goes to the install.
    let cache = tmp.path().join("cache");
    let out = choreo(
        tmp.path(),
        &["run", "lock"],
        &[("CHOREO_PACKAGES", cache.as_os_str())],
    );
    assert_eq!(
        logged(&out, "imported elsewhere during the install: "),
        "[True]",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
