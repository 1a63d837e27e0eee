//! The split format pinned on a small hand-written behavior (exact text of every file), and
//! malformed split trees rejected with errors that name the file and line.

use choreo_xar::split::{from_tree, is_split_tree, to_tree};
use choreo_xar::{Error, ErrorKind, FileTree, Severity, read_xar};
use proptest::prelude::*;

/// Root diagram with a Say box and a motion box (listed in that order, ids 2 then 1),
/// three links (one with an unknown attribute) and an unknown attribute on a box.
const EXAMPLE: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3">
    <Box name="root" id="-1" localization="8" tooltip="Root box" x="0" y="0">
        <script language="4">
            <content>
                <![CDATA[]]>
            </content>
        </script>
        <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
        <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
        <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="3" />
        <Timeline enable="0">
            <BehaviorLayer name="behavior_layer1">
                <BehaviorKeyframe name="keyframe1" index="1">
                    <Diagram>
                        <Box name="Say Hello" id="2" localization="8" tooltip="Says&#x0A;hello" x="120" y="80">
                            <script language="4">
                                <content>
                                    <![CDATA[class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.tts.say("hello")
        self.onStopped()
]]>
                                </content>
                            </script>
                            <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
                            <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
                            <Parameter name="Speed (%)" inherits_from_parent="0" content_type="1" value="100" default_value="100" min="50" max="200" tooltip="" id="3" />
                            <Parameter name="Voice" inherits_from_parent="1" content_type="3" value="naoenu" default_value="naoenu" custom_choice="0" tooltip="" id="4">
                                <Choice value="naoenu" />
                                <Choice value="naomnc" />
                            </Parameter>
                            <Resource name="Speech" type="Lock" timeout="0" />
                        </Box>
                        <Box name="Wave" id="1" localization="8" tooltip="" x="300" y="80" color="red">
                            <script language="4">
                                <content>
                                    <![CDATA[]]>
                                </content>
                            </script>
                            <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
                            <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
                            <Timeline enable="1" fps="25" start_frame="1" end_frame="-1" size="40">
                                <ActuatorList model="Nao">
                                    <ActuatorCurve name="value" actuator="HeadYaw" mute="0" unit="0">
                                        <Key frame="10" value="-13.6" />
                                        <Key frame="40" value="20.5" smooth="1" symmetrical="1">
                                            <Tangent side="left" interpType="bezier" abscissaParam="-10" ordinateParam="0" />
                                            <Tangent side="right" interpType="bezier" abscissaParam="10.5" ordinateParam="0" />
                                        </Key>
                                    </ActuatorCurve>
                                    <ActuatorCurve name="value" actuator="LHand" mute="1" unit="1">
                                        <Key frame="20" value="0.5" />
                                    </ActuatorCurve>
                                </ActuatorList>
                            </Timeline>
                        </Box>
                        <Link inputowner="2" indexofinput="1" outputowner="0" indexofoutput="2" />
                        <Link inputowner="1" indexofinput="1" outputowner="2" indexofoutput="2" note="main path" />
                        <Link inputowner="0" indexofinput="3" outputowner="1" indexofoutput="2" />
                    </Diagram>
                </BehaviorKeyframe>
            </BehaviorLayer>
        </Timeline>
    </Box>
</ChoregrapheProject>
"#;

const BEHAVIOR_TOML: &str = r#"split_format = 1
kind = "project"
namespace = "http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd"
xar_version = "3"
"#;

const ROOT_BOX_TOML: &str = r#"name = "root"
id = -1
localization = 8
tooltip = "Root box"
x = 0
y = 0

[[input]]
name = "onLoad"
id = 1
type = "bang"
type_size = 1
nature = "onLoad"
inner = true
tooltip = ""

[[input]]
name = "onStart"
id = 2
type = "bang"
type_size = 1
nature = "onStart"
inner = false
tooltip = ""

[[output]]
name = "onStopped"
id = 3
type = "bang"
type_size = 1
nature = "stopping"
inner = false
tooltip = ""

[diagram]
boxes = [2, 1]
"#;

const ROOT_LINKS: &str = r##"parent.onStart#2 -> "Say Hello"#2.onStart#1
"Say Hello"#2.onStopped#2 -> Wave#1.onStart#1 { attributes = [["note", "main path"]] }
Wave#1.onStopped#2 -> parent.onStopped#3
"##;

const WAVE_BOX_TOML: &str = r#"name = "Wave"
id = 1
localization = 8
tooltip = ""
x = 300
y = 80

[[input]]
name = "onStart"
id = 1
type = "bang"
type_size = 1
nature = "onStart"
inner = false
tooltip = ""

[[output]]
name = "onStopped"
id = 2
type = "bang"
type_size = 1
nature = "stopping"
inner = false
tooltip = ""

[timeline]
enable = true
fps = 25
start_frame = 1
end_frame = -1
size = 40

[extras]
attributes = [["color", "red"]]
"#;

const WAVE_MOTION: &str = r#"actuators model="Nao"
curve HeadYaw name="value" mute=0 unit=0
  10 -13.6
  40 20.5 smooth=1 symmetrical=1
    left bezier -10 0
    right bezier 10.5 0
curve LHand name="value" mute=1 unit=1
  20 0.5
"#;

const SAY_BOX_TOML: &str = r#"name = "Say Hello"
id = 2
localization = 8
tooltip = """
Says
hello"""
x = 120
y = 80

[[input]]
name = "onStart"
id = 1
type = "bang"
type_size = 1
nature = "onStart"
inner = false
tooltip = ""

[[output]]
name = "onStopped"
id = 2
type = "bang"
type_size = 1
nature = "stopping"
inner = false
tooltip = ""

[[parameter]]
name = "Speed (%)"
id = 3
content_type = "int"
value = "100"
default_value = "100"
min = 50
max = 200
inherits_from_parent = false
tooltip = ""

[[parameter]]
name = "Voice"
id = 4
content_type = "string"
value = "naoenu"
default_value = "naoenu"
inherits_from_parent = true
custom_choice = false
tooltip = ""
choices = ["naoenu", "naomnc"]

[[resource]]
name = "Speech"
type = "Lock"
timeout = 0
"#;

const SAY_SCRIPT: &str = r#"class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.tts.say("hello")
        self.onStopped()
"#;

fn example_tree() -> FileTree {
    to_tree(&read_xar("example.xar", EXAMPLE.as_bytes()).unwrap().value)
}

fn text(tree: &FileTree, path: &str) -> String {
    String::from_utf8(
        tree.get(path)
            .unwrap_or_else(|| panic!("{path} missing"))
            .clone(),
    )
    .unwrap()
}

#[test]
fn the_example_splits_into_exactly_these_files() {
    let tree = example_tree();
    let paths: Vec<&str> = tree.keys().map(String::as_str).collect();
    assert_eq!(
        paths,
        [
            "01-Wave/box.toml",
            "01-Wave/motion.txt",
            "01-Wave/script.py",
            "02-Say_Hello/box.toml",
            "02-Say_Hello/script.py",
            "behavior.toml",
            "box.toml",
            "links.txt",
            "script.py",
        ]
    );
    for (path, expected) in [
        ("behavior.toml", BEHAVIOR_TOML),
        ("box.toml", ROOT_BOX_TOML),
        ("script.py", ""),
        ("links.txt", ROOT_LINKS),
        ("01-Wave/box.toml", WAVE_BOX_TOML),
        ("01-Wave/motion.txt", WAVE_MOTION),
        ("01-Wave/script.py", ""),
        ("02-Say_Hello/box.toml", SAY_BOX_TOML),
        ("02-Say_Hello/script.py", SAY_SCRIPT),
    ] {
        assert_eq!(text(&tree, path), expected, "{path}");
    }
    assert!(is_split_tree(&tree));
    let back = from_tree("example", &tree).unwrap();
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(
        back.value,
        read_xar("example.xar", EXAMPLE.as_bytes()).unwrap().value
    );
}

#[test]
fn hand_edits_are_read() {
    // A person adds a box and links it: folder names and line order are free.
    let mut tree = example_tree();
    let say = text(&tree, "02-Say_Hello/box.toml").replacen("id = 2", "id = 7", 1);
    tree.insert(
        "my new box/box.toml".into(),
        say.replace("Say Hello", "Again").into_bytes(),
    );
    tree.insert("my new box/script.py".into(), b"pass\n".to_vec());
    let links = text(&tree, "links.txt").replace(
        "Wave#1.onStopped#2 -> parent.onStopped#3\n",
        "# then say it again\nWave#1.onStopped#2 -> Again#7.onStart#1\n\nAgain#7.onStopped#2 -> parent.onStopped#3\n",
    );
    tree.insert("links.txt".into(), links.into_bytes());
    let box_toml = text(&tree, "box.toml").replace("boxes = [2, 1]", "boxes = [2, 1, 7]");
    tree.insert("box.toml".into(), box_toml.into_bytes());
    let x = from_tree("edited", &tree).unwrap().value;
    let d = x.root_box.diagrams().next().unwrap();
    assert_eq!(d.boxes.iter().map(|b| b.id).collect::<Vec<_>>(), [2, 1, 7]);
    assert_eq!(d.boxes[2].code(), "pass\n");
    assert_eq!((d.links[2].output_owner, d.links[2].input_owner), (1, 7));
    assert_eq!(d.links.len(), 4);
}

/// The example tree with `path` replaced by `content` (or removed when `None`).
fn edited(path: &str, content: Option<&str>) -> FileTree {
    let mut tree = example_tree();
    match content {
        Some(c) => tree.insert(path.to_string(), c.as_bytes().to_vec()),
        None => tree.remove(path),
    };
    tree
}

/// Replaces `from` by `to` in the example's `path`, which must contain it.
fn replaced(path: &str, from: &str, to: &str) -> FileTree {
    let tree = example_tree();
    let old = text(&tree, path);
    assert!(old.contains(from), "{path} has no {from:?}");
    edited(path, Some(&old.replacen(from, to, 1)))
}

fn error(tree: &FileTree) -> Error {
    match from_tree("beh", tree) {
        Ok(p) => panic!("expected an error, read {:?}", p.value.root_box.name),
        Err(e) => e,
    }
}

/// Checks kind, file, line (if any) and a part of the message.
fn assert_error(e: &Error, kind: ErrorKind, file: &str, line: Option<u32>, words: &str) {
    let d = e.diagnostic();
    assert_eq!(d.kind, kind, "{e}");
    assert_eq!(d.file, file, "{e}");
    assert_eq!(d.position.map(|p| p.line), line, "{e}");
    assert!(d.message.contains(words), "{e}");
}

#[test]
fn missing_files_are_named() {
    let e = error(&edited("box.toml", None));
    assert_error(
        &e,
        ErrorKind::BadStructure,
        "beh/box.toml",
        None,
        "box.toml is missing",
    );
    let tree = edited("behavior.toml", None);
    assert!(!is_split_tree(&tree));
    let e = error(&tree);
    assert_error(
        &e,
        ErrorKind::BadStructure,
        "beh/behavior.toml",
        None,
        "missing",
    );
    // Children without a diagram to hold them are not silently dropped.
    let e = error(&edited(
        "02-Say_Hello/05-Lost/box.toml",
        Some("name = \"Lost\"\nid = 5\n"),
    ));
    assert_error(
        &e,
        ErrorKind::BadStructure,
        "beh/02-Say_Hello/05-Lost/box.toml",
        None,
        "not part of the behavior",
    );
}

#[test]
fn bad_toml_names_file_and_line() {
    let e = error(&replaced(
        "02-Say_Hello/box.toml",
        "x = 120",
        "x = \"left\"",
    ));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/02-Say_Hello/box.toml",
        Some(7),
        "invalid type",
    );
    assert_eq!(e.diagnostic().source_line.as_deref(), Some("x = \"left\""));
    assert!(
        e.to_string()
            .starts_with("beh/02-Say_Hello/box.toml:7:5: error: "),
        "{e}"
    );

    let e = error(&replaced(
        "01-Wave/box.toml",
        "name = \"Wave\"",
        "name = \"Wave",
    ));
    assert_error(&e, ErrorKind::BadValue, "beh/01-Wave/box.toml", Some(1), "");

    let e = error(&replaced(
        "01-Wave/box.toml",
        "type = \"bang\"",
        "type = \"bong\"",
    ));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/01-Wave/box.toml",
        Some(11),
        "unknown port type \"bong\"",
    );
    assert!(e.diagnostic().message.contains("dynamic, bang"), "{e}");

    let e = error(&replaced("box.toml", "x = 0", "x = 0\ncolour = 3"));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/box.toml",
        Some(6),
        "unknown field `colour`",
    );

    let e = error(&replaced("box.toml", "nature = \"stopping\"\n", ""));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/box.toml",
        Some(26),
        "missing field `nature`",
    );

    let e = error(&replaced(
        "behavior.toml",
        "split_format = 1",
        "split_format = 2",
    ));
    assert_error(
        &e,
        ErrorKind::Unsupported,
        "beh/behavior.toml",
        None,
        "split_format = 2",
    );

    let e = error(&replaced("02-Say_Hello/box.toml", "max = 200", "max = nan"));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/02-Say_Hello/box.toml",
        Some(35),
        "finite",
    );
}

#[test]
fn bad_links_name_file_line_and_column() {
    let e = error(&replaced(
        "links.txt",
        "Wave#1.onStopped#2 -> parent",
        "Ghost#9.onStopped#2 -> parent",
    ));
    assert_error(
        &e,
        ErrorKind::DanglingLink,
        "beh/links.txt",
        Some(3),
        "no box with id 9",
    );
    assert_eq!(e.diagnostic().position.map(|p| p.column), Some(1));

    let e = error(&replaced(
        "links.txt",
        "Wave#1.onStopped#2 -> parent",
        "Wave#2.onStopped#2 -> parent",
    ));
    assert_error(
        &e,
        ErrorKind::DanglingLink,
        "beh/links.txt",
        Some(3),
        "box #2 is named \"Say Hello\", not \"Wave\"",
    );

    let e = error(&replaced(
        "links.txt",
        "-> parent.onStopped#3",
        "-> parent.onStopped#9",
    ));
    assert_error(
        &e,
        ErrorKind::DanglingLink,
        "beh/links.txt",
        Some(3),
        "has no port #9",
    );
    assert_eq!(e.diagnostic().position.map(|p| p.column), Some(23));

    let e = error(&replaced(
        "links.txt",
        "-> parent.onStopped#3",
        "-> parent.onStop#3",
    ));
    assert_error(
        &e,
        ErrorKind::DanglingLink,
        "beh/links.txt",
        Some(3),
        "named \"onStopped\", not \"onStop\"",
    );

    let e = error(&replaced(
        "links.txt",
        "parent.onStart#2 -> ",
        "Wave#1.onStart#1 -> ",
    ));
    assert_error(
        &e,
        ErrorKind::LinkDirection,
        "beh/links.txt",
        Some(1),
        "cannot be a source",
    );

    let e = error(&replaced(
        "links.txt",
        "Wave#1.onStopped#2 -> parent",
        "Wave#1.onStopped#2 => parent",
    ));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/links.txt",
        Some(3),
        "expected '->'",
    );

    let e = error(&replaced("links.txt", "{ attributes", "{ attributez"));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/links.txt",
        Some(2),
        "extras: unknown field",
    );
}

#[test]
fn bad_motion_names_file_and_line() {
    let e = error(&replaced("01-Wave/motion.txt", "  10 -13.6", "  10 abc"));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/01-Wave/motion.txt",
        Some(3),
        "expected a finite number",
    );
    assert_eq!(e.diagnostic().position.map(|p| p.column), Some(6));

    let e = error(&replaced("01-Wave/motion.txt", "mute=0", "mute=2"));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/01-Wave/motion.txt",
        Some(2),
        "expected 0 or 1",
    );

    let e = error(&replaced(
        "01-Wave/motion.txt",
        "actuators model=\"Nao\"\n",
        "",
    ));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/01-Wave/motion.txt",
        Some(1),
        "actuators",
    );

    let e = error(&replaced("01-Wave/motion.txt", "unit=1", "unit=1 colour=3"));
    assert_error(
        &e,
        ErrorKind::BadValue,
        "beh/01-Wave/motion.txt",
        Some(7),
        "no attribute \"colour\"",
    );

    let e = error(&replaced(
        "01-Wave/box.toml",
        "[timeline]\nenable = true\nfps = 25\nstart_frame = 1\nend_frame = -1\nsize = 40\n",
        "",
    ));
    assert_error(
        &e,
        ErrorKind::BadStructure,
        "beh/01-Wave/motion.txt",
        None,
        "no [timeline]",
    );
}

#[test]
fn inconsistent_trees_are_refused() {
    let e = error(&replaced("01-Wave/box.toml", "id = 1", "id = 2"));
    assert_error(
        &e,
        ErrorKind::DuplicateId,
        "beh/02-Say_Hello/box.toml",
        None,
        "the same id 2",
    );

    let e = error(&replaced("box.toml", "boxes = [2, 1]", "boxes = [2, 3]"));
    assert_error(
        &e,
        ErrorKind::BadStructure,
        "beh/box.toml",
        Some(36),
        "lists id 3",
    );

    let e = error(&replaced(
        "box.toml",
        "[diagram]",
        "[timeline]\nenable = false\n\n[diagram]",
    ));
    assert_error(
        &e,
        ErrorKind::BadStructure,
        "beh/box.toml",
        Some(35),
        "not both",
    );

    let mut bad = example_tree();
    bad.insert(
        "02-Say_Hello/script.py".into(),
        vec![b'o', b'k', b'\n', 0xff],
    );
    let e = error(&bad);
    assert_error(
        &e,
        ErrorKind::NotUtf8,
        "beh/02-Say_Hello/script.py",
        Some(2),
        "UTF-8",
    );

    // Checked as XAR: two ports with one id.
    let param = "\n[[parameter]]\nname = \"p\"\nid = 1\ncontent_type = \"int\"\n";
    let e = error(&replaced(
        "01-Wave/box.toml",
        "[[output]]",
        &format!("{param}\n[[output]]"),
    ));
    assert_error(
        &e,
        ErrorKind::DuplicateId,
        "beh",
        None,
        "checking the behavior as XAR",
    );
    assert_eq!(e.diagnostic().element_path, "root/Wave");
}

#[test]
fn stray_files_of_the_format_are_reported() {
    let p = from_tree("beh", &edited("notes/links.txt", Some("x"))).unwrap();
    assert_eq!(p.warnings.len(), 1);
    assert_eq!(p.warnings[0].severity, Severity::Warning);
    assert_eq!(p.warnings[0].file, "beh/notes/links.txt");
    // Other files are simply not part of the behavior.
    assert!(
        from_tree("beh", &edited("README.md", Some("x")))
            .unwrap()
            .warnings
            .is_empty()
    );
}

proptest! {
    /// Damaged trees give errors, never panics.
    #[test]
    fn damaged_trees_never_panic(
        which in 0usize..9,
        at in any::<prop::sample::Index>(),
        bytes in prop::collection::vec(any::<u8>(), 0..6),
        cut in any::<bool>(),
    ) {
        let mut tree = example_tree();
        let path = tree.keys().nth(which).unwrap().clone();
        let content = tree.get_mut(&path).unwrap();
        let i = at.index(content.len() + 1);
        if cut {
            content.truncate(i);
        }
        content.splice(i..i, bytes);
        let _ = from_tree("damaged", &tree);
    }
}
