//! A project's behaviors in the page: a new one added and built, another chosen in the
//! header's list, renamed by typing its folder's new name, deleted, and every action undone
//! to the project's original bytes, on a copy of the corpus's Choregraphe "Hello World"
//! project (Choregraphe 2.5's `.pml` and `manifest.xml`).

use super::{CTRL, Editing};

const HELLO: &str = "orchestra-platform__choregraphe-hello-world";

#[test]
fn a_projects_behaviors_are_added_chosen_renamed_and_deleted_in_the_page() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's project tools") else {
        return;
    };
    let Some(corpus) = choreo_testkit::corpus("choreo edit's project tools") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("hello");
    super::copy_tree(&corpus.join(HELLO), &root);
    let (pml, manifest) = (root.join("Hello World.pml"), root.join("manifest.xml"));
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap();
    let (pml_0, manifest_0) = (read(&pml), read(&manifest));
    let mut e = Editing::serve(&browser, dir, pml.clone(), ">behaviors</option>");
    let shown = "document.getElementById('behaviors').selectedOptions[0]?.textContent";

    // New behavior: an empty one, shown, named in the .pml; a Say added to it lands there.
    let add = e.at("#add-behavior", 0.0, 0.0);
    e.page.click(add.0, add.1);
    assert!(e.answered(), "the behavior was not added");
    e.until(&format!("{shown} === 'behavior_1'"));
    let added = root.join("behavior_1/behavior.xar");
    assert!(read(&pml).contains(r#"src="behavior_1" xar="behavior.xar""#));
    e.until("document.querySelectorAll('g.box').length === 0");
    e.add("say", "basic/say");
    assert_eq!(super::root_names(&read(&added)), ["Say"]);

    // The first behavior chosen in the list (headless chromium draws no list to click: the
    // choice is made as the list makes it), its diagram shown.
    e.page.eval(
        "(() => { const s = document.getElementById('behaviors');
           s.selectedIndex = 0; s.dispatchEvent(new Event('change')); })()",
    );
    assert!(e.answered(), "the behavior chosen was not shown");
    e.until("!!document.querySelector(\"g.box[data-path='root/Set Language']\")");

    // Set Language copied here and pasted into the new behavior (the page keeps what it
    // copied across behaviors); then the first shown again.
    let set = e.at("g.box[data-path='root/Set Language'] .box-bg", 0.0, -0.3);
    e.page.click(set.0, set.1);
    e.page.key("c", "KeyC", 67, CTRL);
    e.page.shows("copied Set Language");
    let choose = |e: &mut Editing, i: usize| {
        e.page.eval(&format!(
            "(() => {{ const s = document.getElementById('behaviors');
               s.selectedIndex = {i}; s.dispatchEvent(new Event('change')); }})()"
        ));
        assert!(e.answered(), "behavior {i} was not shown");
    };
    choose(&mut e, 1);
    e.until("document.querySelectorAll('g.box').length === 1");
    e.page.key("v", "KeyV", 86, CTRL);
    assert!(e.answered(), "the paste was not saved");
    assert_eq!(super::root_names(&read(&added)), ["Say", "Set Language"]);
    choose(&mut e, 0);
    e.until("!!document.querySelector(\"g.box[data-path='root/Set Language']\")");

    // Renamed by typing its folder's new name: the folder moved, its paths follow.
    let rename = e.at("#rename-behavior", 0.0, 0.0);
    e.page.click(rename.0, rename.1);
    e.until("document.activeElement?.id === 'behavior-name'");
    e.page.type_text("main");
    e.page.key("Enter", "Enter", 13, 0);
    assert!(e.answered(), "the behavior was not renamed");
    assert!(root.join("main/behavior.xar").exists() && !root.join("behaviors").exists());
    assert!(read(&pml).contains(r#"src="main" xar="behavior.xar""#));
    assert!(read(&manifest).contains(r#"<behaviorContent path="main">"#));
    e.until(&format!("{shown} === 'main'"));

    // Deleted: gone from the .pml, the manifest and the disk; the other one shown.
    let delete = e.at("#delete-behavior", 0.0, 0.0);
    e.page.click(delete.0, delete.1);
    assert!(e.answered(), "the behavior was not deleted");
    assert!(!root.join("main").exists());
    assert!(!read(&pml).contains(r#"src="main""#));
    assert!(!read(&manifest).contains("behaviorContent"));
    e.until(&format!("{shown} === 'behavior_1'"));

    // Undone, the five actions (delete, rename, the paste, the Say, the new behavior): the
    // project's bytes as they were, the first behavior shown.
    for _ in 0..5 {
        e.page.key("z", "KeyZ", 90, CTRL);
        assert!(e.answered(), "an undo was not answered");
    }
    assert_eq!(read(&pml), pml_0);
    assert_eq!(read(&manifest), manifest_0);
    assert!(!root.join("behavior_1").exists());
    e.until(&format!("{shown} === 'behaviors'"));
}

/// A project kept in a `.crg` (examples/hello), and one in choreo's readable folder (the
/// corpus's Hello World), edited in place from the page: each rename is in the archive or
/// the folder once the page is told it was saved, and `choreo diff` finds exactly it.
#[test]
fn a_crg_and_a_readable_folder_are_edited_in_place() {
    let Some(browser) = choreo_testkit::chromium("choreo edit on archives") else {
        return;
    };
    let Some(corpus) = choreo_testkit::corpus("choreo edit on a readable folder") else {
        return;
    };
    let workspace = crate::support::cli::workspace();
    let hello = corpus.join(HELLO);
    let forms = [
        (
            workspace.join("examples/hello"),
            "behavior.xar",
            "hello.crg",
            "Nod",
        ),
        (
            hello,
            "behaviors/behavior.xar",
            "hello-readable",
            "Set Language",
        ),
    ];
    for (source, xar, form, name) in forms {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join(form);
        let made = crate::support::cli::choreo(&[
            "convert",
            source.to_str().unwrap(),
            kept.to_str().unwrap(),
        ]);
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        let before = dir.path().join("before.xar");
        std::fs::copy(source.join(xar), &before).unwrap();
        let box_at = format!("g.box[data-path='root/{name}']");
        let ready = format!("data-path=\"root/{name}\"");
        let mut e = Editing::serve(&browser, dir, kept.clone(), &ready);
        let b = e.at(&format!("{box_at} .box-bg"), 0.0, -0.3);
        e.page.click(b.0, b.1);
        e.until(&format!(
            "document.getElementById('prop-name')?.value === '{name}'"
        ));
        super::type_into(&mut e, "prop-name", "Bow");
        assert!(e.answered(), "{form}: the rename was not saved");
        let diff = crate::support::cli::choreo(&[
            "diff",
            before.to_str().unwrap(),
            kept.to_str().unwrap(),
        ]);
        let shown = String::from_utf8_lossy(&diff.stdout).into_owned();
        let expected = format!("root/{name}: name: \"{name}\" -> \"Bow\"");
        assert!(shown.contains(&expected), "{form}: {shown}");
        assert_eq!(
            shown.lines().filter(|l| l.contains("->")).count(),
            1,
            "{form}: {shown}"
        );
    }
}

/// `choreo new project --edit`: the project made as Choregraphe's New makes it, opened in
/// the page at once (its one behavior shown, empty); a box added lands in its behavior, and
/// the project runs. `choreo edit` of an empty folder offers `choreo new` (exit 4).
#[test]
fn a_project_made_by_choreo_new_opens_at_once_and_an_empty_folder_offers_it() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("greeter");
    std::fs::create_dir(&empty).unwrap();
    let refused = crate::support::cli::choreo(&["edit", empty.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(4));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains(&format!("choreo new project {} --edit", empty.display())),
        "{said}"
    );
    let Some(browser) = choreo_testkit::chromium("choreo new --edit in a browser") else {
        return;
    };
    let served = crate::support::served::Served::start(&[
        "new",
        "project",
        empty.to_str().unwrap(),
        "--edit",
    ]);
    let mut page = crate::support::devtools::LivePage::open(
        &browser,
        crate::support::browser::SWIFTSHADER,
        &served.url,
    );
    page.shows(">behavior_1</option>");
    page.shows("id=\"add-box\"");
    let behavior = empty.join("behavior_1/behavior.xar");
    let mut e = Editing {
        page,
        file: behavior.clone(),
        answers: 0,
        _served: served,
        _dir: dir,
    };
    e.until("document.querySelectorAll('g.box').length === 0");
    e.add("say", "basic/say");
    let text = std::fs::read_to_string(&behavior).unwrap();
    assert_eq!(super::root_names(&text), ["Say"]);
    let fit = e.at("#fit", 0.0, 0.0);
    e.page.click(fit.0, fit.1);
    // The behavior's onStart → Say → its onStopped: the project says the Say's text.
    e.link(
        "g.owner-port.in[data-port='onStart'] circle",
        "g.box[data-path='root/Say'] circle.input[data-port='onStart']",
    );
    e.link(
        "g.box[data-path='root/Say'] circle.output[data-port='onStopped']",
        "g.owner-port.out[data-port='onStopped'] rect",
    );
    e.file = empty.join("greeter.pml");
    let events = e.run_fast();
    assert!(events.iter().any(|v| v["event"] == "said"), "nothing said");
}
