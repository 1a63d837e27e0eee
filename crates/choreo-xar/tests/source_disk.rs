//! Where a loaded project's files are on disk: the same behavior folder whether a project is
//! loaded by its folder, its `.pml` (by an absolute or a relative name, a name with `!`,
//! spaces and non-ASCII letters) or a lone `.xar`; an archive's files unpacked to a
//! temporary folder that goes away with the value.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod archive_build;

use std::path::{Path, PathBuf};

use archive_build::{behavior_xar, crg, gzip, tar};
use choreo_xar::source::{FilesOnDisk, Project, load_bytes, load_path};

const PML_NAME: &str = "NAO WE SHOW!! été.pml";

fn pml() -> Vec<u8> {
    "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<Package name=\"Show\" format_version=\"4\">\n<Manifest src=\"manifest.xml\" />\n<BehaviorDescriptions><BehaviorDescription name=\"behavior\" src=\"behavior_1\" xar=\"behavior.xar\" /></BehaviorDescriptions>\n</Package>\n"
        .as_bytes()
        .to_vec()
}

/// A project folder `Show !` in a new temporary folder: the `.pml`, `behavior_1` with its
/// `behavior.xar` and a sound.
fn project_folder() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("Show !");
    std::fs::create_dir_all(dir.join("behavior_1")).unwrap();
    std::fs::write(dir.join(PML_NAME), pml()).unwrap();
    std::fs::write(dir.join("behavior_1/behavior.xar"), behavior_xar("Box")).unwrap();
    std::fs::write(dir.join("behavior_1/sneeze.ogg"), b"OggS sound").unwrap();
    (tmp, dir)
}

/// The folder of the project's only behavior on disk.
fn behavior_dir(project: &Project, files: &FilesOnDisk) -> PathBuf {
    assert_eq!(project.behaviors.len(), 1, "{:?}", project.warnings);
    files
        .path()
        .join(Project::behavior_folder(&project.behaviors[0]))
}

#[test]
fn a_pml_named_with_bangs_spaces_and_accents_loads() {
    let (_tmp, dir) = project_folder();
    let project = load_path(&dir.join(PML_NAME)).unwrap();
    assert_eq!(project.name, "Show");
    assert_eq!(project.behaviors.len(), 1);
    assert_eq!(project.behaviors[0].path, "behavior_1/behavior.xar");
}

#[test]
fn the_behavior_folder_is_the_same_by_folder_pml_and_relative_pml() {
    let (_tmp, dir) = project_folder();
    let expected = std::fs::canonicalize(dir.join("behavior_1")).unwrap();

    let by_folder = load_path(&dir).unwrap();
    let files = by_folder.on_disk().unwrap();
    assert!(matches!(files, FilesOnDisk::Folder(_)));
    assert_eq!(behavior_dir(&by_folder, &files), expected);

    let by_pml = load_path(&dir.join(PML_NAME)).unwrap();
    assert_eq!(behavior_dir(&by_pml, &by_pml.on_disk().unwrap()), expected);

    // A bare file name, as `choreo run "x.pml"` in the project's folder gives it.
    let relative = run_in(&dir, || load_path(Path::new(PML_NAME)).unwrap());
    assert_eq!(
        behavior_dir(&relative, &relative.on_disk().unwrap()),
        expected
    );

    // A lone behavior.xar: its own folder.
    let lone = load_path(&dir.join("behavior_1/behavior.xar")).unwrap();
    assert_eq!(behavior_dir(&lone, &lone.on_disk().unwrap()), expected);
}

/// Runs `f` with the current directory set to `dir` (this test binary's only user of the
/// current directory), then sets it back.
fn run_in<T>(dir: &Path, f: impl FnOnce() -> T) -> T {
    let before = std::env::current_dir().unwrap();
    std::env::set_current_dir(dir).unwrap();
    let out = f();
    std::env::set_current_dir(before).unwrap();
    out
}

#[test]
fn an_archive_is_unpacked_to_a_folder_that_lives_as_long_as_the_value() {
    let data = gzip(&tar(&[
        ("Show.pml", &pml()),
        ("behavior_1/behavior.xar", &behavior_xar("Box")),
        ("behavior_1/sounds/sneeze.ogg", b"OggS sound"),
    ]));
    let project = load_bytes("x/Sneezes!.crg", &crg("Sneezes", &data)).unwrap();
    assert_eq!(project.root, None);
    let files = project.on_disk().unwrap();
    let FilesOnDisk::Unpacked(_) = &files else {
        panic!("an archive is not on disk: {files:?}");
    };
    let dir = behavior_dir(&project, &files);
    assert_eq!(
        std::fs::read(dir.join("sounds/sneeze.ogg")).unwrap(),
        b"OggS sound"
    );
    assert!(dir.join("behavior.xar").is_file());
    let top = files.path().to_path_buf();
    drop(files);
    assert!(!top.exists(), "{} is left behind", top.display());
}

#[test]
fn a_tree_path_that_leaves_the_folder_is_refused() {
    let mut project = load_bytes("b.xar", &behavior_xar("Box")).unwrap();
    project.files.insert("../evil".to_string(), b"x".to_vec());
    let error = project.on_disk().unwrap_err().to_string();
    assert!(error.contains("not a path inside the project"), "{error}");
}
