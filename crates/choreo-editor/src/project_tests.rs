//! A project's behaviors added, renamed, deleted and switched between, through the editor's
//! commands as the page sends them, on a copy of the corpus's Choregraphe "Hello World"
//! project (a `.pml` and a `manifest.xml` as Choregraphe 2.5 wrote them). Expected bytes
//! are the original files with exactly the lines or attributes each action concerns
//! changed, derived here by hand.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use choreo_monitor::{Command, Monitor, MonitorOptions};
use serde_json::json;

use crate::{Editor, Library, Project, Session};

const HELLO: &str = "orchestra-platform__choregraphe-hello-world";

/// A copy of the corpus's Hello World project, or `None` (with a NOTICE) without the corpus.
fn hello_world() -> Option<(tempfile::TempDir, PathBuf)> {
    let source = choreo_testkit::corpus("the editor's project tests")?.join(HELLO);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("hello");
    for f in choreo_testkit::files_under(&source, &|_| true) {
        let to = root.join(f.strip_prefix(&source).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&f, to).unwrap();
    }
    Some((dir, root))
}

fn editor(root: &Path) -> Editor {
    let session = Session::open(&root.join("behaviors/behavior.xar")).unwrap();
    let monitor = Arc::new(
        Monitor::start(
            &choreo_engine::graph::Graph::new(session.document().xar()),
            MonitorOptions {
                edit: true,
                ..MonitorOptions::default()
            },
        )
        .unwrap(),
    );
    let project = Project::open(&root.join("Hello World.pml")).unwrap();
    Editor::new(session, Library::basic(), monitor).in_project(project)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn behaviors_are_added_renamed_deleted_and_each_action_undone_to_the_original_bytes() {
    let Some((_dir, root)) = hello_world() else {
        return;
    };
    let (pml, manifest) = (root.join("Hello World.pml"), root.join("manifest.xml"));
    let (pml_0, manifest_0) = (read(&pml), read(&manifest));
    let mut e = editor(&root);

    // Added: one description after the existing one, indented as it; a private behavior, so
    // the manifest is unchanged; the new behavior shown.
    e.handle(Command::Edit(json!({"kind": "project_add"})));
    let added = root.join("behavior_1/behavior.xar");
    let line = r#"<BehaviorDescription name="behavior" src="behaviors" xar="behavior.xar" />"#;
    let expected = pml_0.replace(
        line,
        &format!(
            "{line}\n        <BehaviorDescription name=\"behavior\" src=\"behavior_1\" xar=\"behavior.xar\" />"
        ),
    );
    assert_eq!(read(&pml), expected);
    assert_eq!(read(&manifest), manifest_0);
    assert_eq!(e.session().path(), added);
    let new = choreo_xar::read_xar("behavior.xar", &std::fs::read(&added).unwrap()).unwrap();
    assert_eq!(new.value.root_box.name, "root");
    assert_eq!(new.value.root_box.inputs.len(), 3);

    // Renamed "main": the folder moved, the .pml's src and the manifest's path follow.
    e.handle(Command::Edit(
        json!({"kind": "project_rename", "file": root.join("behaviors/behavior.xar"), "name": "main"}),
    ));
    assert!(root.join("main/behavior.xar").exists() && !root.join("behaviors").exists());
    assert_eq!(
        read(&pml),
        expected.replace(r#"src="behaviors""#, r#"src="main""#)
    );
    assert_eq!(
        read(&manifest),
        manifest_0.replace(
            r#"<behaviorContent path="behaviors">"#,
            r#"<behaviorContent path="main">"#
        )
    );

    // Deleted: its description and its manifest entry (the element's lines) gone, the
    // folder too; the other behavior shown.
    e.handle(Command::Editor(
        json!({"type": "open_behavior", "file": root.join("main/behavior.xar")}),
    ));
    assert_eq!(e.session().path(), root.join("main/behavior.xar"));
    e.handle(Command::Edit(
        json!({"kind": "project_delete", "file": root.join("main/behavior.xar")}),
    ));
    assert!(!root.join("main").exists());
    assert_eq!(e.session().path(), added);
    let description =
        "\n        <BehaviorDescription name=\"behavior\" src=\"main\" xar=\"behavior.xar\" />";
    assert_eq!(
        read(&pml),
        expected
            .replace(r#"src="behaviors""#, r#"src="main""#)
            .replace(description, "")
    );
    let manifest_now = read(&manifest);
    assert!(!manifest_now.contains("behaviorContent"), "{manifest_now}");
    assert!(
        manifest_now.starts_with(&manifest_0[..manifest_0.find("\n  <behaviorContent").unwrap()])
    );
    // The last behavior is not deleted.
    e.handle(Command::Edit(
        json!({"kind": "project_delete", "file": added}),
    ));
    assert!(added.exists());

    // Undone, all three: the original bytes, the original behavior shown.
    for _ in 0..3 {
        e.handle(Command::Undo);
    }
    assert_eq!(read(&pml), pml_0);
    assert_eq!(read(&manifest), manifest_0);
    assert!(!root.join("behavior_1").exists());
    assert_eq!(e.session().path(), root.join("behaviors/behavior.xar"));
    // Redone: added again.
    e.handle(Command::Redo);
    assert_eq!(read(&pml), expected);
}

#[test]
fn an_edit_in_a_behavior_not_shown_is_undone_there() {
    let Some((_dir, root)) = hello_world() else {
        return;
    };
    let first = root.join("behaviors/behavior.xar");
    let original = std::fs::read(&first).unwrap();
    let mut e = editor(&root);
    e.handle(Command::Edit(
        json!({"kind": "rename", "box": [[0, 0, 2]], "name": "Language"}),
    ));
    assert_ne!(std::fs::read(&first).unwrap(), original);
    e.handle(Command::Edit(json!({"kind": "project_add"})));
    // Undoing the add shows the first behavior again; undoing once more undoes its rename.
    e.handle(Command::Undo);
    e.handle(Command::Undo);
    assert_eq!(e.session().path(), first);
    assert_eq!(std::fs::read(&first).unwrap(), original);
    // A name that is not a folder name is refused, nothing moved.
    e.handle(Command::Edit(
        json!({"kind": "project_rename", "file": first, "name": "../out"}),
    ));
    assert!(first.exists());
}

#[test]
fn a_topic_in_another_language_is_named_in_the_dlg_and_listed_in_the_pml() {
    let Some((_dir, root)) = hello_world() else {
        return;
    };
    let root = dunce::canonicalize(&root).unwrap();
    let (pml, dlg) = (
        root.join("Hello World.pml"),
        root.join("dialogs/main_with_tablet.dlg"),
    );
    let (pml_0, dlg_0) = (read(&pml), read(&dlg));
    let project = Project::open(&pml).unwrap();
    let (relative, name, mut ops) =
        crate::dialogs::new_language(&root, "dialogs/main_with_tablet.dlg", &root, "frf").unwrap();
    assert_eq!(
        (relative.to_str().unwrap(), name.as_str()),
        ("dialogs/main_with_tablet_frf.top", "main_with_tablet")
    );
    let french = choreo_robot::languages::by_code("frf").unwrap();
    let entry = crate::project::topic_entry(&relative, &name, french);
    ops.push(project.list(&[entry]).unwrap().unwrap());
    let changes = crate::changes::Changes(ops);
    changes.make().unwrap();
    // The .pml: one Topic after the last, as Choregraphe lists the others.
    let last = r#"<Topic name="main_without_tablet_iti" src="dialogs/main_without_tablet_iti.top" topicName="main_without_tablet" language="it_IT" />"#;
    assert_eq!(
        read(&pml),
        pml_0.replace(
            last,
            &format!("{last}\n        <Topic name=\"main_with_tablet_frf\" src=\"dialogs/main_with_tablet_frf.top\" topicName=\"main_with_tablet\" language=\"fr_FR\" />")
        )
    );
    assert!(
        read(&dlg).ends_with("frf:main_with_tablet_frf.top\n"),
        "{}",
        read(&dlg)
    );
    // A language the dialog has is refused; an unknown code too.
    for code in ["enu", "xx"] {
        assert!(
            crate::dialogs::new_language(&root, "dialogs/main_with_tablet.dlg", &root, code)
                .is_err()
        );
    }
    changes.inverse().make().unwrap();
    assert_eq!((read(&pml), read(&dlg)), (pml_0, dlg_0));
    assert!(!root.join("dialogs/main_with_tablet_frf.top").exists());
}

#[test]
fn a_dialog_box_added_in_a_project_lists_its_files_and_is_undone_as_one_action() {
    let Some((_dir, root)) = hello_world() else {
        return;
    };
    let root = dunce::canonicalize(&root).unwrap();
    let (pml, file) = (
        root.join("Hello World.pml"),
        root.join("behaviors/behavior.xar"),
    );
    let (pml_0, file_0) = (read(&pml), read(&file));
    let mut e = editor(&root);
    let root_diagram = json!({"owner": [], "layer": 0, "keyframe": 0});
    e.handle(Command::Edit(
        json!({"kind": "add", "library": "basic/dialog",
        "diagram": root_diagram, "x": 400, "y": 300}),
    ));
    assert!(root.join("behaviors/dialog/dialog_enu.top").exists());
    // Listed after the last Dialog and the last Topic, as Choregraphe lists them.
    let (dialog, topic) = (
        r#"<Dialog name="main_without_tablet" src="dialogs/main_without_tablet.dlg" />"#,
        r#"<Topic name="main_without_tablet_iti" src="dialogs/main_without_tablet_iti.top" topicName="main_without_tablet" language="it_IT" />"#,
    );
    let expected = pml_0
        .replace(dialog, &format!("{dialog}\n        <Dialog name=\"dialog\" src=\"behaviors/dialog/dialog.dlg\" />"))
        .replace(topic, &format!("{topic}\n        <Topic name=\"dialog_enu\" src=\"behaviors/dialog/dialog_enu.top\" topicName=\"dialog\" language=\"en_US\" />"));
    assert_eq!(read(&pml), expected);
    assert!(read(&file).contains("<dialogFile>dialog/dialog.dlg</dialogFile>"));
    // One undo: the box, the files and the listing gone; one redo: all back.
    e.handle(Command::Undo);
    assert_eq!((read(&pml), read(&file)), (pml_0.clone(), file_0));
    assert!(!root.join("behaviors/dialog").exists());
    e.handle(Command::Redo);
    assert_eq!(read(&pml), expected);
    assert!(read(&file).contains("<dialogFile>dialog/dialog.dlg</dialogFile>"));
}

#[test]
fn a_deleted_behavior_comes_back_with_its_history() {
    let Some((_dir, root)) = hello_world() else {
        return;
    };
    let mut e = editor(&root);
    e.handle(Command::Edit(json!({"kind": "project_add"})));
    let added = root.join("behavior_1/behavior.xar");
    let empty = read(&added);
    let root_diagram = json!({"owner": [], "layer": 0, "keyframe": 0});
    e.handle(Command::Edit(json!({"kind": "add", "library": "basic/say",
        "diagram": root_diagram, "x": 100, "y": 100})));
    let with_say = read(&added);
    assert_ne!(with_say, empty);
    e.handle(Command::Edit(
        json!({"kind": "project_delete", "file": added}),
    ));
    assert!(!added.exists());
    // Undone: the behavior as it was, shown; undone again: its Say taken back; then itself.
    e.handle(Command::Undo);
    assert_eq!(read(&added), with_say);
    assert_eq!(e.session().path(), added);
    e.handle(Command::Undo);
    assert_eq!(read(&added), empty);
    e.handle(Command::Undo);
    assert!(!root.join("behavior_1").exists());
    assert_eq!(e.session().path(), root.join("behaviors/behavior.xar"));
}

#[test]
fn a_behavior_at_the_projects_top_is_not_renamed() {
    // `src="."`: the behavior's folder is the project's; moving it would move the project.
    let dir = tempfile::tempdir().unwrap();
    let pml = dir.path().join("top.pml");
    std::fs::write(
        &pml,
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<Package name="top" format_version="4">
    <BehaviorDescriptions>
        <BehaviorDescription name="behavior" src="." xar="behavior.xar" />
    </BehaviorDescriptions>
</Package>
"#,
    )
    .unwrap();
    let file = dir.path().join("behavior.xar");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/hello/behavior.xar"
        ),
        &file,
    )
    .unwrap();
    let project = Project::open(&pml).unwrap();
    let why = project.rename_behavior(&file, "moved").unwrap_err();
    assert!(why.contains("no folder to rename"), "{why}");
    assert!(file.exists() && !dir.path().join("moved").exists());
}
