//! `choreo new` against what Choregraphe's New wrote in the corpus: the manifest of a
//! project left as New made it (WRS2017 open challenge, Choregraphe 2.5: version 0.0.0,
//! "Untitled") byte for byte but its uuid; the `.pml` as its lines are, without the
//! resource and translation that project added; a box library's control text as the
//! corpus's `.cbl` files have it.
#![allow(clippy::unwrap_used)]

use super::*;

/// A corpus project whose manifest is as Choregraphe's New wrote it.
const LEFT_AS_NEW: &str = "MetisMontessoriLyceum__WRS2017-open-challange";

/// `text` with its uuid attribute's value replaced by `X`.
fn without_uuid(text: &str) -> String {
    let start = text.find("uuid=\"").unwrap() + "uuid=\"".len();
    let end = start + text[start..].find('"').unwrap();
    format!("{}X{}", &text[..start], &text[end..])
}

#[test]
fn a_new_project_is_laid_out_as_choregraphe_s_new_lays_one_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("WRS2017-open-challange");
    let pml = make_new(NewKind::Project, &root).unwrap();
    assert_eq!(pml, root.join("WRS2017-open-challange.pml"));
    let manifest = std::fs::read_to_string(root.join("manifest.xml")).unwrap();
    // Choregraphe's package id: the name in lower case, `-`, six hex digits.
    let uuid = manifest
        .split("uuid=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let (name, hex) = uuid.rsplit_once('-').unwrap();
    assert_eq!(name, "wrs2017-open-challange");
    assert!(
        hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit()),
        "{uuid}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("behavior_1/behavior.xar")).unwrap(),
        crate::project::NEW_BEHAVIOR
    );
    let Some(corpus) = choreo_testkit::corpus("choreo new against Choregraphe's New") else {
        return;
    };
    let theirs = corpus.join(LEFT_AS_NEW);
    let their_manifest = std::fs::read_to_string(theirs.join("manifest.xml")).unwrap();
    assert_eq!(without_uuid(&manifest), without_uuid(&their_manifest));
    // Their .pml, less the icon they added and the translation New lists but never writes.
    let their_pml: String = std::fs::read_to_string(theirs.join("WRS2017-open-challange.pml"))
        .unwrap()
        .replace(
            "    <Resources>\n        <File name=\"metis-pepper\" src=\"metis-pepper.png\" />\n    </Resources>\n",
            "    <Resources />\n",
        )
        .lines()
        .filter(|l| !l.contains("Translation"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(std::fs::read_to_string(&pml).unwrap(), their_pml);
}

#[test]
fn a_space_in_the_name_leaves_the_package_id_and_a_taken_place_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("Hello World");
    make_new(NewKind::Project, &root).unwrap();
    let manifest = std::fs::read_to_string(root.join("manifest.xml")).unwrap();
    // as the corpus's "Hello World" (orchestra-platform): helloworld-1823f9
    assert!(manifest.contains("uuid=\"helloworld-"), "{manifest}");
    // Nothing is written over: the project, a file, the behavior.
    assert!(matches!(
        make_new(NewKind::Project, &root),
        Err(NewError::Exists(_))
    ));
    let file = root.join("behavior_1/behavior.xar");
    assert!(matches!(
        make_new(NewKind::Behavior, &file),
        Err(NewError::Exists(_))
    ));
    // An empty folder is a place for one; `.` is named by where it is.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let pml = make_new(NewKind::Project, &empty.join(".")).unwrap();
    assert!(pml.ends_with("empty.pml"), "{}", pml.display());
}

#[test]
fn a_new_box_library_is_a_cbl_the_libraries_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = make_new(NewKind::Library, &dir.path().join("My Boxes")).unwrap();
    assert_eq!(file, dir.path().join("My Boxes.cbl"));
    let bytes = std::fs::read(&file).unwrap();
    let unpacked = choreo_xar::archive::unpack("My Boxes.cbl", &bytes)
        .unwrap()
        .value;
    let files = &unpacked.files;
    // The control text and index as the corpus's .cbl files have them (File Transfer's:
    // "Type: ChoregrapheBoxLibrary\nVersion: 3.0\ntitle: File Transfer\n").
    assert_eq!(
        files[".metadata"],
        b"Type: ChoregrapheBoxLibrary\nVersion: 3.0\ntitle: My Boxes\n"
    );
    assert!(String::from_utf8_lossy(&files["xalinfo"]).contains("<Node name=\"Python Script\" />"));
    let mut library = Library::basic();
    let before = library.message()["boxes"].as_array().unwrap().len();
    assert_eq!(library.add(&file).unwrap(), 1);
    assert_eq!(
        library.message()["boxes"].as_array().unwrap().len(),
        before + 1
    );
}
