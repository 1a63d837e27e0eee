//! `choreo run` gives boxes the same `behaviorAbsolutePath()` whether a project is run by its
//! folder, its `.pml` (by an absolute or a bare name holding `!`, spaces and accents) or a
//! `.crg`: the behavior's folder where PackageManager installs it on a robot
//! (`.../PackageManager/apps/<package>/behavior_1`, in a temporary folder removed after the
//! run: a link to the project's folder, or the archive unpacked), and the files beside the
//! behavior can be read there; and box scripts import `ssl` with another Python first on
//! `PATH` and a wrong `PYTHONHOME`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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
    let run = |dir: &Path, input: &str| {
        let out = choreo(dir, &["run", input, "--fast"], &[]);
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
        assert!(
            got.ends_with("/PackageManager/apps/Show/behavior_1"),
            "{where_}: {got}"
        );
        assert_eq!(data, "beside the behavior", "{where_}");
        let top = got.split("/PackageManager/").next().unwrap();
        assert!(
            !Path::new(top).exists(),
            "{where_}: the robot's layout is left behind: {top}"
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
    let out = choreo(&project, &["run", ".", "--fast", "--timeout", "5"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("loads http://198.18.0.1/apps/satsukidemo-e75949/,"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Successfully set application: satsukidemo-e75949"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("appsFolderFragment is not in behaviorPath"),
        "{stderr}"
    );
}
