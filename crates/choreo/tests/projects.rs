//! Whole projects from the command line: `choreo convert` between a project folder, its
//! readable folder, `.crg`, `.pkg` and `.cbl`; `choreo package` and its checks.

use crate::support;

use std::path::Path;

use choreo_xar::FileTree;
use choreo_xar::source::read_dir_tree;
use support::cli::{choreo, stderr, stdout};
use support::project::{make_project, manifest};

const HELLO: &str = "examples/hello/behavior.xar";

fn ok(args: &[&str]) -> String {
    let o = choreo(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The files of a folder without the readable project file.
fn files_but_project_file(dir: &Path) -> FileTree {
    let mut t = read_dir_tree(dir).unwrap();
    t.remove(choreo_xar::project::PROJECT_FILE);
    t
}

#[test]
fn a_project_goes_to_every_container_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let proj = make_project(dir.path(), "proj", &manifest("proj-1"));
    let readable = dir.path().join("readable");
    ok(&["convert", s(&proj), s(&readable)]);
    let tree = read_dir_tree(&readable).unwrap();
    // Everything is there: the behavior split, every other file as it was.
    assert!(
        tree.contains_key("behavior_1/behavior/behavior.toml"),
        "{:?}",
        tree.keys()
    );
    assert!(!tree.contains_key("behavior_1/behavior.xar"));
    let original = read_dir_tree(&proj).unwrap();
    for (path, bytes) in &original {
        if path != "behavior_1/behavior.xar" {
            assert_eq!(tree.get(path), Some(bytes), "{path}");
        }
    }
    let project_file = String::from_utf8(tree[choreo_xar::project::PROJECT_FILE].clone()).unwrap();
    assert!(
        project_file.contains("container = \"folder\""),
        "{project_file}"
    );
    // The readable folder is the same project for every command.
    assert!(ok(&["diff", s(&proj), s(&readable)]).contains("equal"));
    let said = ok(&["run", "--fast", s(&readable)]);
    assert!(said.contains("outcome        finished"), "{said}");
    assert!(ok(&["check", s(&readable)]).contains("0 with errors"));
    // To each container and back to a readable folder: the same folder.
    for ext in ["crg", "pkg", "cbl"] {
        let archive = dir.path().join(format!("proj.{ext}"));
        ok(&["convert", s(&readable), s(&archive)]);
        assert!(archive.is_file(), "{ext}");
        let again = dir.path().join(format!("again-{ext}"));
        ok(&["convert", s(&archive), s(&again)]);
        assert_eq!(
            files_but_project_file(&again),
            files_but_project_file(&readable),
            "{ext}"
        );
        let said = std::fs::read_to_string(again.join(choreo_xar::project::PROJECT_FILE)).unwrap();
        assert!(said.contains(&format!("container = \"{ext}\"")), "{said}");
        assert!(
            ok(&["diff", s(&proj), s(&archive)]).contains("equal"),
            "{ext}"
        );
    }
    // Back to a project folder: every file byte for byte, the behavior the same.
    let back = dir.path().join("back");
    ok(&["convert", s(&readable), s(&back)]);
    let back_tree = read_dir_tree(&back).unwrap();
    assert_eq!(
        back_tree.keys().collect::<Vec<_>>(),
        original.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &original {
        if path != "behavior_1/behavior.xar" {
            assert_eq!(&back_tree[path], bytes, "{path}");
        }
    }
    assert!(ok(&["diff", s(&proj), s(&back)]).contains("equal"));
    // Named `folder/Other.pml`: that folder, the project file renamed.
    let named = dir.path().join("named").join("Other.pml");
    ok(&["convert", s(&readable), s(&named)]);
    assert!(named.is_file());
    assert!(!dir.path().join("named/Proj.pml").exists());
}

#[test]
fn convert_never_writes_a_folder_under_an_archive_name() {
    let dir = tempfile::tempdir().unwrap();
    for (to, name) in [
        ("split", "out.crg"),
        ("pml", "out.pkg"),
        ("qianim", "out.cbl"),
    ] {
        let out = dir.path().join(name);
        let o = choreo(&["convert", HELLO, "--to", to, s(&out)]);
        assert_eq!(o.status.code(), Some(2), "{name}: {o:?}");
        assert!(
            stderr(&o).contains("is an archive, not a folder"),
            "{}",
            stderr(&o)
        );
        assert!(!out.exists(), "{name} was written");
    }
    // A lone behavior has no project file to name.
    let out = dir.path().join("x").join("out.pml");
    let o = choreo(&["convert", HELLO, s(&out)]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(stderr(&o).contains("has no .pml"), "{}", stderr(&o));
    // A lone behavior as an archive: its behavior.xar; back to a folder, a readable one
    // (the archive's control text is kept there).
    let crg = dir.path().join("hello.crg");
    ok(&["convert", HELLO, s(&crg)]);
    let from_crg = dir.path().join("from-crg");
    ok(&["convert", s(&crg), s(&from_crg)]);
    assert!(from_crg.join(choreo_xar::project::PROJECT_FILE).is_file());
    let unpacked = choreo_xar::archive::unpack("hello.crg", &std::fs::read(&crg).unwrap())
        .unwrap()
        .value;
    assert_eq!(unpacked.files.keys().collect::<Vec<_>>(), ["behavior.xar"]);
    assert!(
        unpacked
            .control
            .unwrap()
            .contains("Type: ChoregrapheProject")
    );
    // An existing archive is replaced with --force only; a folder never.
    let o = choreo(&["convert", HELLO, s(&crg)]);
    assert_eq!(o.status.code(), Some(2));
    ok(&["convert", "--force", HELLO, s(&crg)]);
    let folder = dir.path().join("folder.pkg");
    std::fs::create_dir(&folder).unwrap();
    let o = choreo(&["convert", "--force", HELLO, s(&folder)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(folder.is_dir());
}

/// `choreo package ARGS` run in `dir`.
fn package_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_choreo"))
        .arg("package")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn package_stages_what_the_pml_lists_as_qipkg_does() {
    let dir = tempfile::tempdir().unwrap();
    let proj = make_project(dir.path(), "proj", &manifest("proj-1"));
    // A file the .pml does not list stays out.
    std::fs::write(proj.join("notes.txt"), "not listed").unwrap();
    let o = package_in(dir.path(), &["proj"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Named as qipkg names it: <uuid>-<version>.pkg.
    let pkg = dir.path().join("proj-1-1.2.0.pkg");
    assert!(
        stdout(&o).contains("wrote proj-1-1.2.0.pkg (7 file(s))"),
        "{}",
        stdout(&o)
    );
    let files = choreo_xar::archive::unpack("p.pkg", &std::fs::read(&pkg).unwrap())
        .unwrap()
        .value
        .files;
    assert_eq!(
        files.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "Proj.pml",
            "behavior_1/behavior.xar",
            "behavior_1/ding.ogg",
            "greet/greet.dlg",
            "greet/greet_enu.top",
            "lib/helper.py",
            "manifest.xml",
        ]
    );
    for (path, bytes) in &files {
        assert_eq!(bytes, &std::fs::read(proj.join(path)).unwrap(), "{path}");
    }
    // The package is a project too: it converts and compares like one.
    assert!(ok(&["diff", s(&proj), s(&pkg)]).contains("equal"));
}

#[test]
fn package_refuses_bad_projects_with_located_errors() {
    let dir = tempfile::tempdir().unwrap();
    // A listed behavior missing: an error at its line of the .pml; --force does not lift it.
    let proj = make_project(dir.path(), "missing", &manifest("missing"));
    std::fs::remove_file(proj.join("behavior_1/behavior.xar")).unwrap();
    for args in [
        &["missing", "-o", "m.pkg"][..],
        &["missing", "-o", "m.pkg", "--force"],
    ] {
        let o = package_in(dir.path(), args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = stderr(&o);
        assert!(
            err.contains(
                "missing/Proj.pml:5:9: error: the behavior \"behavior_1/behavior.xar\" does not exist"
            ),
            "{err}"
        );
        // The manifest installs it: PackageManager would install a broken app.
        assert!(
            err.contains("missing/manifest.xml:13:3: error: the behavior \"behavior_1/behavior.xar\" is not in the package"),
            "{err}"
        );
        assert!(!dir.path().join("m.pkg").exists());
    }
    // A manifest qipkg refuses: located errors; --force writes it anyway, as qipkg's does.
    let bad = manifest("Bad UUID")
        .replace("version=\"1.2.0\"", "version=\"0.0.0\"")
        .replace("  <robotRequirement model=\"NAO\"/>\n", "")
        .replace(
            "<naoqiRequirement minVersion=\"2.1\"/>",
            "<naoqiRequirement/>",
        )
        .replace(
            " <names>\n  <name lang=\"en_US\">Proj</name>\n </names>\n",
            "",
        );
    make_project(dir.path(), "bad", &bad);
    let o = package_in(dir.path(), &["bad", "-o", "b.pkg", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["written"], false);
    let messages: Vec<(String, u64)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            (
                d["message"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("uuid \"Bad UUID\"", 2),
        ("version \"0.0.0\"", 2),
        ("no robotRequirement", 2),
        ("a naoqiRequirement without minVersion", 17),
        ("no name in en_US", 2),
    ];
    assert_eq!(messages.len(), want.len(), "{messages:?}");
    for ((got, line), (start, want_line)) in messages.iter().zip(want) {
        assert!(got.starts_with(start), "{got} vs {start}");
        assert_eq!(*line, want_line, "{got}");
    }
    let o = package_in(dir.path(), &["bad", "-o", "b.pkg", "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.path().join("b.pkg").is_file());
    // Neither a .pml nor a manifest: nothing to build a package from.
    let o = choreo(&["package", HELLO, "-o", s(&dir.path().join("h.pkg"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("neither a .pml nor a manifest.xml"),
        "{}",
        stderr(&o)
    );
}
