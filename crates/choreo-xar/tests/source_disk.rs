//! Where a loaded project's files are on disk: the same behavior folder whether a project is
//! loaded by its folder, its `.pml` (by an absolute or a relative name, a name with `!`,
//! spaces and non-ASCII letters) or a lone `.xar`, and laid out as on a robot
//! (`/home/nao/.local/share/PackageManager/apps/<package>`, the robot applications page of
//! the NAOqi documentation: a link to the project's folder, or an archive's files unpacked
//! there; Choregraphe's Play names the package `.lastUploadedChoregrapheBehavior`) in a
//! temporary folder that goes away with the value.

use crate::archive_build;

use std::path::{Path, PathBuf};

use archive_build::{behavior_xar, crg, gzip, tar};
use choreo_xar::source::{FilesOnDisk, Install, Project, load_bytes, load_path, load_path_to_run};

/// The package Choregraphe's Play uploads (the robot applications page).
const PLAYED: &str = ".lastUploadedChoregrapheBehavior";
/// Where PackageManager installs packages on the robot.
const APPS: &str = "home/nao/.local/share/PackageManager/apps";

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
    files.behavior_dir(&project.behaviors[0])
}

#[test]
fn a_pml_named_with_bangs_spaces_and_accents_loads() {
    let (_tmp, dir) = project_folder();
    let project = load_path(&dir.join(PML_NAME)).unwrap();
    assert_eq!(project.name, "Show");
    assert_eq!(project.behaviors.len(), 1);
    assert_eq!(project.behaviors[0].path, "behavior_1/behavior.xar");
}

/// The behavior's folder with the link to the project's folder resolved, after checking
/// that it is where PackageManager installs a package (`.../PackageManager/apps/<name>/`).
fn resolved(dir: PathBuf, package: &str) -> PathBuf {
    let apps = Path::new(APPS).join(package);
    assert!(
        dir.parent().is_some_and(|p| p.ends_with(&apps)),
        "{} is not in {}",
        dir.display(),
        apps.display()
    );
    dunce::canonicalize(dir).unwrap()
}

#[test]
fn the_behavior_folder_is_the_same_by_folder_pml_and_relative_pml() {
    let (_tmp, dir) = project_folder();
    let expected = dunce::canonicalize(dir.join("behavior_1")).unwrap();

    let by_folder = load_path(&dir).unwrap();
    let files = by_folder.on_disk().unwrap();
    assert!(matches!(files, FilesOnDisk::Installed { .. }));
    // The root holds the robot's home: `/home/nao/...` names a place in it.
    let root = files.robot_root().unwrap();
    assert!(root.join("home/nao").is_dir() && root.join("opt/aldebaran").is_dir());
    // Linux always links; on Windows, wine makes no link.
    if cfg!(windows) && !files.path().is_symlink() {
        // The project's files were written there instead, as Choregraphe's Play uploads a
        // copy (docs/platforms.md).
        let copy = behavior_dir(&by_folder, &files);
        assert!(
            copy.parent()
                .is_some_and(|p| p.ends_with(Path::new(APPS).join(PLAYED)))
        );
        assert_eq!(
            std::fs::read(copy.join("behavior.xar")).unwrap(),
            std::fs::read(expected.join("behavior.xar")).unwrap()
        );
        return;
    }
    // Played, as Choregraphe's Play uploads it.
    assert_eq!(resolved(behavior_dir(&by_folder, &files), PLAYED), expected);
    // No manifest: the package also answers to the project's name.
    assert_eq!(
        dunce::canonicalize(root.join(APPS).join(&by_folder.name).join("behavior_1")).unwrap(),
        expected
    );
    // A box writes in the project's own folder, through the link.
    std::fs::write(
        behavior_dir(&by_folder, &files).join("written.txt"),
        b"kept",
    )
    .unwrap();
    assert_eq!(
        std::fs::read(dir.join("behavior_1/written.txt")).unwrap(),
        b"kept"
    );
    let top = files.path().to_path_buf();
    drop(files);
    assert!(!top.exists(), "{} is left behind", top.display());
    assert!(
        dir.join("behavior_1/behavior.xar").is_file(),
        "the project stays"
    );

    let by_pml = load_path(&dir.join(PML_NAME)).unwrap();
    let files = by_pml.on_disk_as(Install::Package).unwrap();
    assert_eq!(resolved(behavior_dir(&by_pml, &files), "Show"), expected);

    // A bare file name, as `choreo run "x.pml"` in the project's folder gives it.
    let relative = run_in(&dir, || load_path(Path::new(PML_NAME)).unwrap());
    let files = relative.on_disk().unwrap();
    assert_eq!(resolved(behavior_dir(&relative, &files), PLAYED), expected);

    // A lone behavior.xar: its own folder.
    let lone = load_path(&dir.join("behavior_1/behavior.xar")).unwrap();
    let files = lone.on_disk().unwrap();
    let lone_dir = files.behavior_dir(&lone.behaviors[0]);
    assert!(
        !lone_dir.to_string_lossy().ends_with('/'),
        "{}",
        lone_dir.display()
    );
    assert_eq!(dunce::canonicalize(lone_dir).unwrap(), expected);
}

#[test]
fn the_package_folder_is_the_manifests_uuid() {
    let (_tmp, dir) = project_folder();
    std::fs::write(
        dir.join("manifest.xml"),
        "<?xml version='1.0' encoding='UTF-8'?>\n<package uuid=\"show-1a2b\" version=\"1.0.0\">\n<names><name lang=\"en_US\">Show</name></names>\n</package>\n",
    )
    .unwrap();
    let project = load_path(&dir.join(PML_NAME)).unwrap();
    let files = project.on_disk_as(Install::Package).unwrap();
    let behavior = behavior_dir(&project, &files);
    assert!(
        behavior.ends_with("PackageManager/apps/show-1a2b/behavior_1"),
        "{}",
        behavior.display()
    );
    assert!(behavior.join("sneeze.ogg").is_file());
    // Played, the uuid's folder is the played package's.
    let files = project.on_disk().unwrap();
    let apps = files.robot_root().unwrap().join(APPS);
    // The uuid's link (Windows: where the user may make links).
    if std::fs::read_link(apps.join("show-1a2b")).is_ok() || cfg!(unix) {
        assert_eq!(
            std::fs::read_link(apps.join("show-1a2b")).unwrap(),
            Path::new(PLAYED)
        );
        assert!(apps.join("show-1a2b/behavior_1/sneeze.ogg").is_file());
    }

    // To run, a lone behavior file its `.pml` lists is read in its project, as the robot
    // runs it: the package, its manifest (language, uuid), files and other behaviors, that
    // behavior first; read as a file, it is alone.
    assert!(
        load_path(&dir.join("behavior_1/behavior.xar"))
            .unwrap()
            .pml
            .is_none()
    );
    let lone = load_path_to_run(&dir.join("behavior_1/behavior.xar")).unwrap();
    assert_eq!(lone.name, "Show");
    assert_eq!(
        lone.manifest.as_ref().and_then(|m| m.uuid.as_deref()),
        Some("show-1a2b")
    );
    let paths: Vec<&str> = lone.behaviors.iter().map(|b| b.path.as_str()).collect();
    assert_eq!(paths, ["behavior_1/behavior.xar"]);
    let files = lone.on_disk_as(Install::Package).unwrap();
    assert!(behavior_dir(&lone, &files).ends_with("PackageManager/apps/show-1a2b/behavior_1"));
    // Another behavior of the project that cannot be read does not stop this one.
    let pml = std::fs::read_to_string(dir.join(PML_NAME)).unwrap().replace(
        "</BehaviorDescriptions>",
        "<BehaviorDescription name=\"broken\" src=\"broken\" xar=\"behavior.xar\" /></BehaviorDescriptions>",
    );
    std::fs::write(dir.join(PML_NAME), pml).unwrap();
    std::fs::create_dir(dir.join("broken")).unwrap();
    std::fs::write(dir.join("broken/behavior.xar"), b"<<<<<<< HEAD\nnot xml").unwrap();
    let lone = load_path_to_run(&dir.join("behavior_1/behavior.xar")).unwrap();
    assert_eq!(lone.behaviors.len(), 1);
    assert!(
        lone.warnings
            .iter()
            .all(|w| w.severity != choreo_xar::Severity::Error),
        "{:?}",
        lone.warnings
    );
    let whole = load_path(&dir).unwrap();
    assert!(
        whole
            .warnings
            .iter()
            .any(|w| w.severity == choreo_xar::Severity::Error)
    );
    // One the `.pml` does not list stays alone.
    std::fs::create_dir(dir.join("behavior_2")).unwrap();
    std::fs::write(dir.join("behavior_2/behavior.xar"), behavior_xar("Other")).unwrap();
    let other = load_path_to_run(&dir.join("behavior_2/behavior.xar")).unwrap();
    assert!(other.manifest.is_none() && other.pml.is_none());
    // Listed, it runs first, the project's other (readable) behaviors installed beside it.
    let pml = std::fs::read_to_string(dir.join(PML_NAME)).unwrap().replace(
        "</BehaviorDescriptions>",
        "<BehaviorDescription name=\"other\" src=\"behavior_2\" xar=\"behavior.xar\" /></BehaviorDescriptions>",
    );
    std::fs::write(dir.join(PML_NAME), pml).unwrap();
    let listed = load_path_to_run(&dir.join("behavior_2/behavior.xar")).unwrap();
    let paths: Vec<&str> = listed.behaviors.iter().map(|b| b.path.as_str()).collect();
    assert_eq!(
        paths,
        ["behavior_2/behavior.xar", "behavior_1/behavior.xar"]
    );
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
    let files = project.on_disk_as(Install::Package).unwrap();
    assert!(!files.path().is_symlink(), "an archive's files are written");
    let dir = behavior_dir(&project, &files);
    assert!(
        dir.ends_with("PackageManager/apps/Show/behavior_1"),
        "{}",
        dir.display()
    );
    assert_eq!(
        std::fs::read(dir.join("sounds/sneeze.ogg")).unwrap(),
        b"OggS sound"
    );
    assert!(dir.join("behavior.xar").is_file());
    let FilesOnDisk::Installed { dir: top, .. } = &files else {
        panic!("an archive is not on disk: {files:?}");
    };
    let top = top.path().to_path_buf();
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
