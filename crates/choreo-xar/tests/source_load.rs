//! Loading and checking sources: corpus projects by path, folders, libraries, lone files,
//! content that does not match its name, and folders on disk with links.

use crate::archive_build;

use std::path::Path;

use archive_build::behavior_xar;
use choreo_xar::project_files::read_pml;
use choreo_xar::source::{
    FileKind, check_file, check_path, check_tree, load_bytes, load_path, load_tree, read_dir_tree,
};
use choreo_xar::{ErrorKind, FileTree, RootKind, Severity};

fn tree(files: &[(&str, &[u8])]) -> FileTree {
    files
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_vec()))
        .collect()
}

fn pml(behaviors: &[&str], extra: &str) -> Vec<u8> {
    let list: String = behaviors
        .iter()
        .map(|b| {
            format!("<BehaviorDescription name=\"behavior\" src=\"{b}\" xar=\"behavior.xar\" />")
        })
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<Package name=\"Proj\" format_version=\"4\">\n<Manifest src=\"manifest.xml\" />\n<BehaviorDescriptions>{list}</BehaviorDescriptions>\n{extra}\n</Package>\n"
    )
    .into_bytes()
}

#[test]
fn checking_the_whole_corpus_finds_only_the_documented_errors() {
    let Some(corpus) =
        choreo_testkit::corpus("checking the whole corpus finds only the documented errors")
    else {
        return;
    };
    let report = check_path(&corpus);
    assert_eq!(report.kind, Some(FileKind::Folder));
    let all = report.all();
    let errors: Vec<String> = all
        .iter()
        .filter_map(|r| r.error.as_ref().map(|e| e.to_string()))
        .collect();
    let mut kinds = std::collections::BTreeMap::new();
    for r in &all {
        *kinds.entry(format!("{:?}", r.kind)).or_insert(0) += 1;
    }
    let missing = all
        .iter()
        .flat_map(|r| &r.warnings)
        .filter(|w| w.message.contains("is missing"))
        .count();
    println!(
        "corpus check: {} reports ({kinds:?}), {} errors, {} warnings ({missing} missing project files)",
        all.len(),
        errors.len(),
        report.warning_count()
    );
    // Trap 3 (a behavior with merge-conflict markers) and trap 7 (a .dlg holding a .pml).
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(
        errors.iter().any(|e| e.contains("merge-conflict")),
        "{errors:#?}"
    );
    // The .dlg is read by its content, as a .pml: one cut off inside its first element.
    assert!(
        errors
            .iter()
            .any(|e| e.contains(".dlg") && e.contains("malformed XML")),
        "{errors:#?}"
    );
    assert_eq!(kinds.get("Some(AppleDouble)"), Some(&2));
    assert!(all.len() > 500, "{}", report.summary);
    assert!(
        missing > 0,
        "some corpus projects lack files their .pml names"
    );
}

#[test]
fn every_corpus_project_loads_from_its_pml() {
    let Some(corpus) = choreo_testkit::corpus("every corpus project loads from its pml") else {
        return;
    };
    let files = choreo_testkit::files_under(&corpus, &|p| {
        p.extension().is_some_and(|e| e == "pml")
            && !p.file_name().unwrap().to_string_lossy().starts_with("._")
    });
    let (mut behaviors, mut failed) = (0, 0);
    for f in &files {
        let listed = read_pml("p", &std::fs::read(f).unwrap()).unwrap().value;
        let project = load_path(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(project.name, listed.name);
        assert!(project.pml.is_some());
        let present = listed
            .behaviors
            .iter()
            .filter(|b| f.parent().unwrap().join(b.xar_path()).is_file())
            .count();
        let errors: Vec<_> = project
            .warnings
            .iter()
            .filter(|w| w.severity == Severity::Error)
            .collect();
        assert_eq!(
            project.behaviors.len() + errors.len(),
            present,
            "{}",
            f.display()
        );
        for e in &errors {
            assert_eq!(e.kind, ErrorKind::MergeConflict, "{e}");
            assert!(e.position.is_some(), "{e}");
        }
        for b in &project.behaviors {
            assert_eq!(b.xar.root, RootKind::Project);
            assert!(project.files.contains_key(&b.path));
        }
        behaviors += project.behaviors.len();
        failed += errors.len();
    }
    println!(
        "corpus projects: {} .pml loaded, {behaviors} behaviors, {failed} unreadable (merge conflict)",
        files.len()
    );
    assert_eq!(failed, 1);
    assert!(behaviors > 100);
}

#[test]
fn a_corpus_project_folder_loads_by_path() {
    let Some(corpus) = choreo_testkit::corpus("a corpus project folder loads by path") else {
        return;
    };
    let p = load_path(&corpus.join("orchestra-platform__choregraphe-hello-world")).unwrap();
    assert_eq!(p.name, "Hello World");
    assert_eq!(p.behaviors.len(), 1);
    assert_eq!(p.behaviors[0].name, "behaviors");
    assert_eq!(p.behaviors[0].path, "behaviors/behavior.xar");
    assert_eq!(
        p.manifest.as_ref().and_then(|m| m.uuid.as_deref()),
        Some("helloworld-1823f9")
    );
    assert!(p.files.contains_key("dialogs/main_with_tablet.dlg"));
    // The corpus keeps only Choregraphe files: the resources the .pml names are missing.
    assert!(
        p.warnings
            .iter()
            .any(|w| w.message.contains("html/index.html"))
    );
}

#[test]
fn a_lone_xar_is_one_behavior() {
    let p = load_bytes("some/dir/Dance.xar", &behavior_xar("Wave")).unwrap();
    assert_eq!(p.name, "Dance");
    assert_eq!(p.behaviors.len(), 1);
    assert_eq!(p.behaviors[0].path, "Dance.xar");
    assert_eq!(p.behaviors[0].xar.root_box.diagrams().count(), 1);
    let e = load_bytes("x.xar", b"<<<<<<< HEAD\n<a/>\n=======\n<b/>\n>>>>>>> x\n").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::MergeConflict);
}

#[test]
fn a_project_tree_loads_its_behaviors_and_keeps_going_past_a_broken_one() {
    let conflict = b"<?xml version=\"1.0\"?>\n<<<<<<< HEAD\n<a/>\n=======\n<b/>\n>>>>>>> x\n";
    let files = tree(&[
        (
            "Proj.pml",
            &pml(
                &["behavior_1", "behavior_2", "behavior_3"],
                "<Resources><File name=\"s\" src=\"sounds/a.ogg\" /></Resources>",
            ),
        ),
        ("behavior_1/behavior.xar", &behavior_xar("One")),
        ("behavior_2/behavior.xar", conflict),
        ("manifest.xml", b"<package uuid=\"u\" version=\"1\"/>"),
    ]);
    let p = load_tree("proj", files.clone()).unwrap();
    assert_eq!(p.name, "Proj");
    assert_eq!(p.behaviors.len(), 1);
    assert_eq!(p.behaviors[0].name, "behavior_1");
    assert_eq!(
        p.manifest.as_ref().and_then(|m| m.uuid.as_deref()),
        Some("u")
    );
    let errors: Vec<_> = p
        .warnings
        .iter()
        .filter(|w| w.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].file, "proj/behavior_2/behavior.xar");
    assert_eq!(errors[0].position.map(|p| p.line), Some(2));
    let missing: Vec<&str> = p
        .warnings
        .iter()
        .filter(|w| w.severity == Severity::Warning)
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(
        missing[0].contains("behavior_3/behavior.xar"),
        "{missing:?}"
    );
    assert!(missing[1].contains("sounds/a.ogg"), "{missing:?}");

    // Checking the same tree reports the missing files on the .pml, the conflict on its file.
    let report = check_tree("proj", &files);
    assert_eq!(report.error_count(), 1);
    let pml_report = report
        .members
        .iter()
        .find(|m| m.file == "proj/Proj.pml")
        .unwrap();
    assert_eq!(pml_report.warnings.len(), 2, "{:?}", pml_report.warnings);
    assert_eq!(
        pml_report.summary,
        "project Proj: 3 behaviors, 0 dialogs, 0 topics, 1 resource"
    );
    assert!(
        report
            .summary
            .starts_with("folder: 4 files: 1 project file, 1 manifest, 2 behaviors"),
        "{}",
        report.summary
    );
}

#[test]
fn a_split_folder_is_one_behavior() {
    let xar = choreo_xar::read_xar("b.xar", &behavior_xar("Wave"))
        .unwrap()
        .value;
    let files = choreo_xar::split::to_tree(&xar);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("dance");
    for (path, bytes) in &files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let p = load_path(&root).unwrap();
    assert_eq!(p.name, "dance");
    assert_eq!(p.behaviors.len(), 1);
    assert_eq!(p.behaviors[0].xar, xar);
    let report = check_path(&root);
    assert_eq!(report.error_count(), 0, "{report:#?}");
    assert_eq!(
        report.summary,
        "split folder: behavior: 1 box, 2 links, 0 timelines"
    );
}

#[test]
fn several_projects_side_by_side_are_ambiguous() {
    let files = tree(&[("a/A.pml", &pml(&[], "")), ("b/B.pml", &pml(&[], ""))]);
    let e = load_tree("two", files).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("a/A.pml, b/B.pml"), "{e}");
    // A deeper .pml does not compete with a shallower one.
    let files = tree(&[("A.pml", &pml(&[], "")), ("b/B.pml", &pml(&[], ""))]);
    assert!(load_tree("one", files).unwrap().pml.is_some());
}

#[test]
fn a_library_folder_loads_every_box_by_its_decoded_folder_name() {
    let box_xar = String::from_utf8(behavior_xar("Inner"))
        .unwrap()
        .replace("ChoregrapheProject", "ChoregrapheBox");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("lib");
    for (folder, file, bytes) in [
        ("Speech Reco%2e", "box.xar", box_xar.as_bytes().to_vec()),
        ("Motion/Motor On%2fOff", "behavior.xar", behavior_xar("X")),
    ] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
        std::fs::write(root.join(folder).join(file), bytes).unwrap();
    }
    std::fs::write(
        root.join(".metadata"),
        "Type: ChoregrapheBoxLibrary\nVersion: 3.0\ntitle: My boxes\n",
    )
    .unwrap();
    let p = load_path(&root).unwrap();
    assert_eq!(p.name, "My boxes");
    let names: Vec<&str> = p.behaviors.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Motor On/Off", "Speech Reco."]);
    assert_eq!(p.behaviors[1].xar.root, RootKind::Box);
    // A folder with nothing to load says so.
    std::fs::create_dir_all(dir.path().join("empty/sub")).unwrap();
    std::fs::write(dir.path().join("empty/sub/readme.txt"), "hi").unwrap();
    let e = load_path(&dir.path().join("empty")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
}

#[test]
fn content_that_does_not_match_its_name_is_named() {
    let python = b"# -*- coding: utf-8 -*-\nimport qi\n";
    // `check` goes by content and warns about the name; the typed readers refuse.
    let r = check_file("Project.pml", python);
    assert_eq!(r.kind, Some(FileKind::Python));
    assert_eq!(r.error, None);
    let w = &r.warnings[0];
    assert_eq!(w.kind, ErrorKind::Unsupported);
    assert!(w.to_string().contains("Python source"), "{w}");
    assert!(w.to_string().contains(".pml"), "{w}");
    assert_eq!(
        read_pml("Project.pml", python).unwrap_err().kind(),
        ErrorKind::Unsupported
    );

    let r = check_file("behavior.xar", br#"<Package name="p" format_version="4"/>"#);
    assert_eq!(r.error, None);
    assert_eq!(r.warnings[0].kind, ErrorKind::WrongRoot);
    assert!(r.summary.contains("project"), "{}", r.summary);

    let r = check_file(
        "dir/._Project.pml",
        b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X",
    );
    assert_eq!(r.kind, Some(FileKind::AppleDouble));
    assert!(r.error.is_none());
    assert!(r.summary.contains("skipped"));

    let e = load_bytes("P.pml", &pml(&[], "")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("load its folder"), "{e}");
    let e = load_bytes("song.mp3", b"ID3\x03\x00").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);

    let r = check_file("notes.txt", b"just text");
    assert_eq!((r.kind, r.error.is_none()), (None, true));
}

#[test]
fn unreadable_paths_are_io_errors() {
    let r = check_path(Path::new("/nonexistent/choreo/x.crg"));
    assert_eq!(r.error.as_ref().map(|e| e.kind()), Some(ErrorKind::Io));
    assert!(
        r.error
            .unwrap()
            .to_string()
            .contains("/nonexistent/choreo/x.crg")
    );
    let e = load_path(Path::new("/nonexistent/choreo")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert_eq!(
        read_dir_tree(Path::new("/nonexistent/choreo"))
            .unwrap_err()
            .kind(),
        ErrorKind::Io
    );
}

#[cfg(unix)]
#[test]
fn read_dir_tree_follows_only_links_that_stay_inside() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("secret.txt");
    std::fs::write(&outside, "secret").unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join("sub/a.txt"), "a").unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref").unwrap();
    symlink(&outside, root.join("leak.txt")).unwrap();
    symlink(root.join("sub/a.txt"), root.join("alias.txt")).unwrap();
    symlink(&root, root.join("sub/loop")).unwrap();
    symlink(dir.path(), root.join("up")).unwrap();
    let files = read_dir_tree(&root).unwrap();
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(names, ["alias.txt", "sub/a.txt"]);
    assert_eq!(files["alias.txt"], b"a");
}
