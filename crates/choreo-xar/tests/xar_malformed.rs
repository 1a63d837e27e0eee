//! Malformed input: one test per error class. Every error is an `Err` (never a panic), of the
//! documented kind, at the right line and column, in the right element, and its message
//! (`file:line:col: error: ... (at path)`) says so.

use choreo_xar::*;

const NS: &str = "http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd";

/// A project: line 1 declaration, line 2 root element, line 3 root box, body from line 4.
fn project(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<ChoregrapheProject xmlns=\"{NS}\" xar_version=\"3\">\n<Box name=\"root\" id=\"-1\" x=\"0\" y=\"0\">\n{body}\n</Box>\n</ChoregrapheProject>\n"
    )
}

/// The root box's ports (ids 1-4: onLoad, onStart, onStop, onStopped) and a holder diagram
/// holding `diagram` (from line 9 on).
fn flow(diagram: &str) -> String {
    project(&format!(
        r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="3" />
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="4" />
<Timeline enable="0"><BehaviorLayer name="behavior_layer1"><BehaviorKeyframe name="keyframe1" index="1"><Diagram>
{diagram}
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>"#
    ))
}

/// A child box `name` with id `id`: onStart (1), onStop (2), onStopped (3), parameter P (4).
fn child(name: &str, id: i32) -> String {
    format!(
        r#"<Box name="{name}" id="{id}" x="0" y="0"><Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" /><Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="2" /><Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="3" /><Parameter name="P" inherits_from_parent="0" content_type="1" value="1" default_value="1" tooltip="" id="4" /></Box>"#
    )
}

/// Reads `xml` and returns the error it must give.
fn error_of(xml: impl AsRef<[u8]>) -> Error {
    match read_xar("bad.xar", xml.as_ref()) {
        Ok(_) => panic!(
            "expected an error for:\n{}",
            String::from_utf8_lossy(xml.as_ref())
        ),
        Err(e) => e,
    }
}

/// Checks an error's kind, place and element path, and that its message shows all three.
#[track_caller]
fn assert_error(e: &Error, kind: ErrorKind, line: u32, column: u32, path: &str) {
    let d = e.diagnostic();
    assert_eq!(d.kind, kind, "{e}");
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.file, "bad.xar");
    assert_eq!(d.position, Some(TextPosition { line, column }), "{e}");
    assert_eq!(d.element_path, path, "{e}");
    let msg = e.to_string();
    let prefix = format!("bad.xar:{line}:{column}: error: ");
    assert!(
        msg.starts_with(&prefix),
        "message {msg:?} should start with {prefix:?}"
    );
    if path.is_empty() {
        assert!(!msg.contains("(at "), "{msg}");
    } else {
        assert!(
            msg.ends_with(&format!(" (at {path})")),
            "message {msg:?} should name {path}"
        );
    }
    assert!(d.source_line.is_some(), "{e}");
}

/// The error's message contains every one of `words`.
#[track_caller]
fn assert_says(e: &Error, words: &[&str]) {
    let msg = e.to_string();
    for w in words {
        assert!(msg.contains(w), "message {msg:?} should contain {w:?}");
    }
}

// ---------------------------------------------------------------- not a XAR at all

#[test]
fn truncated_corpus_file_is_an_error_at_every_cut() {
    let Some(corpus) = choreo_testkit::corpus("truncated corpus file is an error at every cut")
    else {
        return;
    };
    let path = corpus.join("icoxfog417__PepperYesMan/behavior.xar");
    let bytes = std::fs::read(&path).expect("corpus file");
    let text = std::str::from_utf8(&bytes).expect("UTF-8");
    assert!(read_xar("bad.xar", &bytes).is_ok(), "the whole file reads");
    let end_of_root = text.rfind("</ChoregrapheProject>").expect("root end tag");
    let mut kinds = std::collections::BTreeMap::new();
    // Cut at 200 places spread over the file, each moved back to a character boundary.
    for i in 0..200 {
        let mut cut = end_of_root * i / 200;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let part = &text[..cut];
        let e = match read_xar("bad.xar", part.as_bytes()) {
            Ok(_) => panic!("the first {cut} bytes read without error"),
            Err(e) => e,
        };
        assert!(
            matches!(e.kind(), ErrorKind::Truncated | ErrorKind::NotXml),
            "cut at {cut}: {e}"
        );
        // The error points into the text that is there, never past it.
        let p = e.diagnostic().position;
        if let Some(p) = p {
            let last = TextPosition::of_offset(part, part.len());
            assert!(p.line <= last.line, "cut at {cut}: {e}");
        }
        *kinds.entry(format!("{:?}", e.kind())).or_insert(0) += 1;
    }
    // A cut inside a tag or between elements is a truncation, not a syntax error.
    let truncated = kinds.get("Truncated").copied().unwrap_or(0);
    assert!(
        truncated >= 190,
        "most cuts should read as truncation: {kinds:?}"
    );
}

#[test]
fn truncated_small_file_is_an_error_at_every_byte() {
    let xml = flow(&format!(
        "{}\n<Link inputowner=\"1\" indexofinput=\"1\" outputowner=\"0\" indexofoutput=\"2\" />",
        child("Café ☕", 1)
    ));
    assert!(read_xar("bad.xar", xml.as_bytes()).is_ok());
    let end = xml.rfind("</ChoregrapheProject>").unwrap();
    for cut in (0..end).filter(|&c| xml.is_char_boundary(c)) {
        let e = error_of(&xml[..cut]);
        assert!(
            matches!(e.kind(), ErrorKind::Truncated | ErrorKind::NotXml),
            "cut at {cut}: {e}"
        );
    }
    // Cutting inside a multi-byte character leaves invalid UTF-8.
    let inside = xml.find('☕').unwrap() + 1;
    assert_eq!(
        error_of(&xml.as_bytes()[..inside]).kind(),
        ErrorKind::NotUtf8
    );
}

#[test]
fn truncated_file_points_at_its_end() {
    let xml = project("<Input name=\"onStart\" type=\"1\" nature=\"2\" id=\"1\" />");
    let cut = &xml[..xml.find("</Box>").unwrap()];
    let e = error_of(cut);
    // The last line of the cut text is empty (line 5, after the Input's newline).
    assert_error(&e, ErrorKind::Truncated, 5, 1, "root");
    assert_says(&e, &["truncated"]);
    // Cut in the middle of a start tag.
    let e = error_of(&xml[..xml.find("nature").unwrap()]);
    assert_eq!(e.kind(), ErrorKind::Truncated, "{e}");
    assert_eq!(e.diagnostic().position.map(|p| p.line), Some(4));
}

#[test]
fn empty_and_blank_files_are_truncated() {
    for text in ["", "   \n\t"] {
        let e = error_of(text);
        assert_eq!(e.kind(), ErrorKind::Truncated);
        assert_eq!(e.to_string(), "bad.xar: error: file is empty");
    }
    let e = error_of("<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n");
    assert_eq!(e.kind(), ErrorKind::Truncated, "{e}");
    assert_says(&e, &["no root element"]);
}

#[test]
fn text_that_is_not_xml() {
    let e = error_of("\n\n  Hello, this is a README.\n");
    assert_error(&e, ErrorKind::NotXml, 3, 3, "");
    assert_says(&e, &["not an XML document"]);
    let e = error_of("{\"behavior\": \"root\"}");
    assert_error(&e, ErrorKind::NotXml, 1, 1, "");
    // Starts like XML, then is not: `<<>` reads as a start tag named `<`, which the end tag
    // `</Box>` on line 4 does not close.
    let e = error_of(
        "<ChoregrapheProject xar_version=\"3\">\n<Box name=\"root\" id=\"-1\">\n<<>>\n</Box></ChoregrapheProject>",
    );
    assert_error(&e, ErrorKind::NotXml, 4, 1, "root");
    assert_says(&e, &["</Box>"]);
    // Mismatched end tag.
    let e = error_of(project(
        "<Input name=\"a\" type=\"1\" nature=\"2\" id=\"1\"></Output>",
    ));
    assert_eq!(e.kind(), ErrorKind::NotXml, "{e}");
    assert_eq!(e.diagnostic().position.map(|p| p.line), Some(4), "{e}");
    assert_says(&e, &["malformed XML"]);
}

#[test]
fn binary_junk() {
    // A PNG header: not UTF-8.
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";
    let e = error_of(png);
    assert_error(&e, ErrorKind::NotUtf8, 1, 1, "");
    // A zip header is valid UTF-8 but not XML.
    let e = error_of(b"PK\x03\x04\x14\x00\x00\x00\x08\x00");
    assert_error(&e, ErrorKind::NotXml, 1, 1, "");
    // Control characters after a plausible start.
    let e = error_of(
        b"<ChoregrapheProject\x00\x01\x02\x03><Box name='root' id='-1'/></ChoregrapheProject>",
    );
    assert_error(&e, ErrorKind::NotXml, 1, 20, "");
    // NUL and other control characters inside an otherwise fine file: XML 1.0 has no place
    // for them, so they mean binary data.
    let e = error_of(project("<bitmap>\0\0</bitmap>"));
    assert_error(&e, ErrorKind::NotXml, 4, 9, "");
    assert_says(&e, &["U+0000 is not allowed"]);
    let e = error_of(project(
        "<Input name=\"a\u{1b}[0m\" type=\"1\" nature=\"2\" id=\"1\" />",
    ));
    assert_error(&e, ErrorKind::NotXml, 4, 15, "");
    assert_says(&e, &["U+001B"]);
    let e = error_of(project("<bitmap>\u{FFFF}</bitmap>"));
    assert_error(&e, ErrorKind::NotXml, 4, 9, "");
    // Pseudo-random bytes: never a panic, always an error.
    let mut state = 0x2545_f491_u32;
    for len in [1usize, 7, 64, 512, 4096] {
        let junk: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state.to_le_bytes()[0]
            })
            .collect();
        assert!(
            read_xar("bad.xar", &junk).is_err(),
            "{len} junk bytes read as XAR"
        );
    }
}

#[test]
fn characters_xml_cannot_hold_are_found_at_any_offset() {
    // Near-misses are fine: U+FFFD, U+FF71 and U+F000 share the lead byte of U+FFFF.
    let fine = project("<bitmap>\u{FFFD}\u{FF71}\u{F000}\t</bitmap>");
    assert!(read_xar("ok.xar", fine.as_bytes()).is_ok());
    // A bad character at every offset of a bitmap text (crossing the reader's 64-byte scan
    // blocks), reported at its own line and column.
    for bad in ['\0', '\u{8}', '\u{1F}', '\u{FFFE}', '\u{FFFF}'] {
        for pad in 0..140 {
            let xml = project(&format!("<bitmap>{}{bad}</bitmap>", "a".repeat(pad)));
            let e = error_of(&xml);
            assert_error(&e, ErrorKind::NotXml, 4, 9 + pad as u32, "");
        }
    }
}

#[test]
fn latin1_file_is_not_utf8() {
    let mut bytes = project("<bitmap>x.png</bitmap>").into_bytes();
    let at = bytes.windows(4).position(|w| w == b"x.pn").unwrap();
    bytes[at] = 0xE9; // 'é' in Latin-1
    let e = error_of(&bytes);
    // Line 4, column 9: `<bitmap>` is 8 characters.
    assert_error(&e, ErrorKind::NotUtf8, 4, 9, "");
    assert_says(&e, &["not UTF-8"]);
    assert_eq!(e.diagnostic().source_line.as_deref(), Some("<bitmap>"));
}

#[test]
fn wrong_root_names_what_the_file_is() {
    let pml = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<Package name=\"P\" format_version=\"4\">\n<Manifest src=\"manifest.xml\"/>\n</Package>\n";
    let e = error_of(pml);
    assert_error(&e, ErrorKind::WrongRoot, 2, 1, "");
    assert_says(&e, &["<Package>", ".pml project file"]);
    let manifest =
        "<?xml version='1.0' encoding='UTF-8'?>\n<package uuid=\"x\" version=\"1.0.0\"/>";
    let e = error_of(manifest);
    assert_error(&e, ErrorKind::WrongRoot, 2, 1, "");
    assert_says(&e, &["manifest.xml"]);
    let qianim = "<Animation typeVersion=\"2.0\"><ActuatorCurve actuator=\"HeadYaw\"/></Animation>";
    let e = error_of(qianim);
    assert_error(&e, ErrorKind::WrongRoot, 1, 1, "");
    assert_says(&e, &["<Animation>", "<ChoregrapheProject>"]);
}

#[test]
fn merge_conflict_in_the_corpus_file() {
    let Some(corpus) = choreo_testkit::corpus("merge conflict in the corpus file") else {
        return;
    };
    let path = corpus.join(
        "foteinipapadopoulou__HRI_yoga_robot/Yoga_Nao_Choregraphe/behavior_without_feedback/behavior.xar",
    );
    let bytes = std::fs::read(&path).expect("the corpus's merge-conflict file");
    let text = String::from_utf8_lossy(&bytes);
    let marker_line = text
        .lines()
        .position(|l| l.starts_with("<<<<<<< "))
        .expect("a conflict marker")
        + 1;
    assert_eq!(marker_line, 27426);
    let e = error_of(&bytes);
    assert_error(&e, ErrorKind::MergeConflict, 27426, 1, "");
    assert_says(&e, &["merge-conflict"]);
    assert!(
        e.diagnostic()
            .source_line
            .as_deref()
            .is_some_and(|l| l.starts_with("<<<<<<< HEAD")),
        "{:?}",
        e.diagnostic().source_line
    );
}

#[test]
fn merge_conflict_markers_anywhere_in_the_file() {
    let xml = project(
        "<<<<<<< HEAD\n<bitmap>a.png</bitmap>\n=======\n<bitmap>b.png</bitmap>\n>>>>>>> feature\n",
    );
    let e = error_of(&xml);
    assert_error(&e, ErrorKind::MergeConflict, 4, 1, "");
    // Only at the start of a line: inside a value it is text.
    let ok = project("<bitmap>&lt;&lt;&lt;&lt;&lt;&lt;&lt; not a marker</bitmap>");
    assert!(read_xar("ok.xar", ok.as_bytes()).is_ok());
}

// ---------------------------------------------------------------- bad values

#[test]
fn box_id_that_is_not_a_number() {
    let e = error_of(flow("<Box name=\"Say\" id=\"x\" x=\"0\" y=\"0\" />"));
    // The box's start tag, inside the root box's diagram.
    assert_error(&e, ErrorKind::BadValue, 9, 1, "root");
    assert_says(&e, &["id=\"x\"", "integer"]);
}

#[test]
fn fps_that_is_not_a_number() {
    let e = error_of(flow(
        "<Box name=\"Move\" id=\"1\" x=\"0\" y=\"0\">\n  <Timeline enable=\"1\" fps=\"abc\" start_frame=\"1\" />\n</Box>",
    ));
    assert_error(&e, ErrorKind::BadValue, 10, 3, "root/Move");
    assert_says(&e, &["fps=\"abc\""]);
    let e = error_of(project("<Timeline enable=\"1\" fps=\"-25\" />"));
    assert_error(&e, ErrorKind::BadValue, 4, 1, "root");
    assert_says(&e, &["fps is negative"]);
}

#[test]
fn key_value_that_is_not_finite() {
    for bad in ["nan", "NaN", "inf", "-inf", "1e999", "", "1,5"] {
        let e = error_of(flow(&format!(
            "<Box name=\"Move\" id=\"1\" x=\"0\" y=\"0\">\n<Timeline enable=\"1\" fps=\"25\">\n<ActuatorList model=\"nao\">\n<ActuatorCurve name=\"value\" actuator=\"HeadYaw\" mute=\"0\" unit=\"0\">\n<Key frame=\"1\" value=\"0\" />\n    <Key frame=\"2\" value=\"{bad}\" />\n</ActuatorCurve></ActuatorList></Timeline></Box>"
        )));
        assert_error(
            &e,
            ErrorKind::BadValue,
            14,
            5,
            "root/Move/Timeline/ActuatorList/ActuatorCurve[1](HeadYaw)/Key[2]",
        );
        assert_says(&e, &[&format!("value=\"{bad}\""), "finite number"]);
    }
}

#[test]
fn other_bad_values() {
    // A flag that is neither 0 nor 1.
    let e = error_of(project(
        "<Input name=\"a\" type=\"1\" nature=\"2\" inner=\"yes\" id=\"1\" />",
    ));
    assert_error(&e, ErrorKind::BadValue, 4, 1, "root/Input[1]");
    assert_says(&e, &["inner=\"yes\"", "0 or 1"]);
    // A tangent side.
    let e = error_of(project(
        "<Timeline enable=\"1\" fps=\"25\"><ActuatorList><ActuatorCurve actuator=\"HeadYaw\">\n<Key frame=\"1\" value=\"0\">\n  <Tangent side=\"up\" abscissaParam=\"1\" ordinateParam=\"0\" />\n</Key></ActuatorCurve></ActuatorList></Timeline>",
    ));
    assert_error(
        &e,
        ErrorKind::BadValue,
        6,
        3,
        "root/Timeline/ActuatorList/ActuatorCurve[1](HeadYaw)/Key[1]",
    );
    assert_says(&e, &["side=\"up\""]);
    // An integer that does not fit.
    let e = error_of(project(
        "<Resource name=\"Speech\" type=\"Lock\" timeout=\"99999999999\" />",
    ));
    assert_error(&e, ErrorKind::BadValue, 4, 1, "root/Resource[1]");
    // A float min on a parameter.
    let e = error_of(project(
        "<Parameter name=\"p\" content_type=\"2\" value=\"1\" min=\"low\" id=\"1\" />",
    ));
    assert_error(&e, ErrorKind::BadValue, 4, 1, "root/Parameter[1]");
    // An undefined entity in an attribute.
    let e = error_of(project(
        "<bitmap>a</bitmap><Input name=\"&bogus;\" type=\"1\" nature=\"2\" id=\"1\" />",
    ));
    assert_error(&e, ErrorKind::BadValue, 4, 19, "root/Input[1]");
}

#[test]
fn unknown_codes() {
    let e = error_of(project(
        "<Input name=\"onStart\" type=\"1\" type_size=\"1\" nature=\"2\" inner=\"0\" tooltip=\"\" id=\"1\" />\n<Input name=\"odd\" type=\"1\" type_size=\"1\" nature=\"9\" inner=\"0\" tooltip=\"\" id=\"2\" />",
    ));
    assert_error(&e, ErrorKind::BadValue, 5, 1, "root/Input[2]");
    assert_says(&e, &["nature=\"9\"", "known code"]);
    let e = error_of(project(
        "<Output name=\"o\" type=\"1\" nature=\"4\" id=\"1\" />",
    ));
    assert_error(&e, ErrorKind::BadValue, 4, 1, "root/Output[1]");
    let e = error_of(project(
        "<Output name=\"o\" type=\"6\" nature=\"1\" id=\"1\" />",
    ));
    assert_error(&e, ErrorKind::BadValue, 4, 1, "root/Output[1]");
    assert_says(&e, &["type=\"6\""]);
    let e = error_of(project(
        "<Parameter name=\"p\" content_type=\"6\" id=\"1\" />",
    ));
    assert_error(&e, ErrorKind::BadValue, 4, 1, "root/Parameter[1]");
    let e = error_of(project(
        "<script language=\"7\"><content><![CDATA[]]></content></script>",
    ));
    assert_error(&e, ErrorKind::BadValue, 4, 1, "root");
    let e = error_of(project(
        "<Timeline enable=\"1\" fps=\"25\" resources_acquisition=\"3\" />",
    ));
    assert_error(&e, ErrorKind::BadValue, 4, 1, "root");
    assert_says(&e, &["resources_acquisition=\"3\""]);
}

#[test]
fn missing_required_attributes() {
    let cases: [(&str, &str, &str); 9] = [
        ("<Box name=\"A\" x=\"0\" y=\"0\" />", "id", "root"),
        ("<Box id=\"1\" />", "name", "root"),
        (
            "<Input name=\"a\" type=\"1\" id=\"1\" />",
            "nature",
            "root/Input[1]",
        ),
        (
            "<Output name=\"a\" nature=\"1\" id=\"1\" />",
            "type",
            "root/Output[1]",
        ),
        (
            "<Input type=\"1\" nature=\"2\" id=\"1\" />",
            "name",
            "root/Input[1]",
        ),
        (
            "<Parameter name=\"p\" content_type=\"1\" />",
            "id",
            "root/Parameter[1]",
        ),
        (
            "<Resource name=\"Speech\" timeout=\"0\" />",
            "type",
            "root/Resource[1]",
        ),
        (
            "<Link inputowner=\"0\" indexofinput=\"4\" indexofoutput=\"2\" />",
            "outputowner",
            "root/Link[1]",
        ),
        (
            "<Parameter name=\"p\" content_type=\"3\" id=\"1\"><Choice /></Parameter>",
            "value",
            "root/Parameter[1]",
        ),
    ];
    for (element, attribute, path) in cases {
        let xml = if element.starts_with("<Box") || element.starts_with("<Link") {
            flow(element)
        } else {
            project(element)
        };
        let line = xml.lines().position(|l| l.contains(element)).unwrap() + 1;
        let column = xml.lines().nth(line - 1).unwrap().find('<').unwrap() + 1;
        let e = error_of(&xml);
        let column = if element.contains("<Choice") {
            // The Choice's start tag, after the Parameter's.
            xml.lines().nth(line - 1).unwrap().find("<Choice").unwrap() + 1
        } else {
            column
        };
        assert_error(
            &e,
            ErrorKind::MissingAttribute,
            line as u32,
            column as u32,
            path,
        );
        assert_says(&e, &[&format!("attribute {attribute} is required")]);
    }
    // Key and Tangent.
    let e = error_of(project(
        "<Timeline enable=\"1\" fps=\"25\"><ActuatorList><ActuatorCurve actuator=\"HeadYaw\">\n<Key value=\"1\" />\n</ActuatorCurve></ActuatorList></Timeline>",
    ));
    assert_error(
        &e,
        ErrorKind::MissingAttribute,
        5,
        1,
        "root/Timeline/ActuatorList/ActuatorCurve[1](HeadYaw)/Key[1]",
    );
    assert_says(&e, &["frame"]);
    let e = error_of(project(
        "<Timeline enable=\"1\" fps=\"25\"><ActuatorList>\n<ActuatorCurve name=\"value\" />\n</ActuatorList></Timeline>",
    ));
    assert_error(
        &e,
        ErrorKind::MissingAttribute,
        5,
        1,
        "root/Timeline/ActuatorList",
    );
    assert_says(&e, &["actuator"]);
}

#[test]
fn structure_errors() {
    let e = error_of(project(
        "<script language=\"4\"><content /></script>\n<script language=\"4\"><content /></script>",
    ));
    assert_error(&e, ErrorKind::BadStructure, 5, 1, "root");
    assert_says(&e, &["at most one script"]);
    let e = error_of(project("<Timeline />\n<Timeline />"));
    assert_error(&e, ErrorKind::BadStructure, 5, 1, "root");
    let e = error_of("<ChoregrapheBox xar_version=\"3\">\n  <!-- no box -->\n</ChoregrapheBox>");
    assert_error(&e, ErrorKind::BadStructure, 1, 1, "");
    assert_says(&e, &["no root Box"]);
    let e = error_of(
        "<ChoregrapheBox xar_version=\"3\">\n<Box name=\"root\" id=\"-1\" />\n<Box name=\"root\" id=\"-1\" />\n</ChoregrapheBox>",
    );
    assert_error(&e, ErrorKind::BadStructure, 3, 1, "");
    let e = error_of(
        "<ChoregrapheBox xar_version=\"3\"><Box name=\"root\" id=\"-1\" /></ChoregrapheBox>\n<ChoregrapheBox/>",
    );
    assert_error(&e, ErrorKind::NotXml, 2, 1, "");
    assert_says(&e, &["after the root element"]);
    let e = error_of(
        "<?xml version=\"1.0\"?>\n  stray words\n<ChoregrapheBox><Box name=\"root\" id=\"-1\" /></ChoregrapheBox>",
    );
    assert_error(&e, ErrorKind::NotXml, 2, 3, "");
    assert_says(&e, &["text outside the root element"]);
}

// ---------------------------------------------------------------- links and ids

#[test]
fn link_to_an_unknown_box() {
    let xml = flow(&format!(
        "{}\n<Link inputowner=\"1\" indexofinput=\"1\" outputowner=\"0\" indexofoutput=\"2\" />\n  <Link inputowner=\"0\" indexofinput=\"4\" outputowner=\"5\" indexofoutput=\"3\" />",
        child("Say", 1)
    ));
    let e = error_of(&xml);
    assert_error(&e, ErrorKind::DanglingLink, 11, 3, "root");
    assert_says(&e, &["box id 5"]);
}

#[test]
fn link_to_an_unknown_port() {
    // Port 9 of the child does not exist.
    let xml = flow(&format!(
        "{}\n<Link inputowner=\"1\" indexofinput=\"9\" outputowner=\"0\" indexofoutput=\"2\" />",
        child("Say", 1)
    ));
    let e = error_of(&xml);
    assert_error(&e, ErrorKind::DanglingLink, 10, 1, "root");
    assert_says(&e, &["destination", "box \"Say\" has no port 9"]);
    // Port 7 of the enclosing box does not exist.
    let xml = flow(&format!(
        "{}\n<Link inputowner=\"1\" indexofinput=\"1\" outputowner=\"0\" indexofoutput=\"7\" />",
        child("Say", 1)
    ));
    let e = error_of(&xml);
    assert_error(&e, ErrorKind::DanglingLink, 10, 1, "root");
    assert_says(&e, &["source", "the enclosing box \"root\" has no port 7"]);
}

#[test]
fn dangling_link_in_a_nested_motion_timeline_names_its_diagram() {
    let xml = flow(&format!(
        "<Box name=\"Seq\" id=\"1\" x=\"0\" y=\"0\"><Timeline enable=\"1\" fps=\"25\"><BehaviorLayer name=\"l\"><BehaviorKeyframe name=\"k\" index=\"1\"><Diagram>\n{}\n<Link inputowner=\"2\" indexofinput=\"1\" outputowner=\"3\" indexofoutput=\"3\" />\n</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box>",
        child("Inner", 2)
    ));
    let e = error_of(&xml);
    assert_error(
        &e,
        ErrorKind::DanglingLink,
        11,
        1,
        "root/Seq/Timeline/BehaviorLayer[1]/BehaviorKeyframe[1]/Diagram",
    );
}

#[test]
fn duplicate_box_ids() {
    let xml = flow(&format!("{}\n{}", child("First", 3), child("Second", 3)));
    let e = error_of(&xml);
    assert_error(&e, ErrorKind::DuplicateId, 10, 1, "root");
    assert_says(&e, &["\"First\"", "\"Second\"", "same id 3"]);
    // Id 0 names the enclosing box in links.
    let e = error_of(flow(&child("Zero", 0)));
    assert_error(&e, ErrorKind::BadValue, 9, 1, "root");
    assert_says(&e, &["id 0"]);
}

#[test]
fn duplicate_port_ids() {
    // Inputs, outputs and parameters share one id space.
    let xml = project(
        "<Input name=\"onStart\" type=\"1\" nature=\"2\" id=\"1\" />\n<Output name=\"onStopped\" type=\"1\" nature=\"1\" id=\"2\" />\n<Parameter name=\"p\" content_type=\"3\" id=\"1\" />",
    );
    let e = error_of(&xml);
    assert_error(&e, ErrorKind::DuplicateId, 6, 1, "root");
    assert_says(&e, &["port id 1 is used twice"]);
}

#[test]
fn link_from_a_child_input() {
    // Source: input 1 (onStart) of child 1, which is a sink in the diagram.
    let xml = flow(&format!(
        "{}\n{}\n<Link inputowner=\"2\" indexofinput=\"1\" outputowner=\"1\" indexofoutput=\"1\" />",
        child("A", 1),
        child("B", 2)
    ));
    let e = error_of(&xml);
    assert_error(&e, ErrorKind::LinkDirection, 11, 1, "root");
    assert_says(
        &e,
        &["wrong way", "source is input \"onStart\" of box \"A\""],
    );
}

#[test]
fn link_to_the_parent_input() {
    // Destination: input 2 (onStart) of the enclosing box, which is a source inside.
    let xml = flow(&format!(
        "{}\n<Link inputowner=\"0\" indexofinput=\"2\" outputowner=\"1\" indexofoutput=\"3\" />",
        child("A", 1)
    ));
    let e = error_of(&xml);
    assert_error(&e, ErrorKind::LinkDirection, 10, 1, "root");
    assert_says(
        &e,
        &["destination is input \"onStart\" of the enclosing box \"root\""],
    );
    // From the parent's output is wrong too.
    let xml = flow(&format!(
        "{}\n<Link inputowner=\"1\" indexofinput=\"1\" outputowner=\"0\" indexofoutput=\"4\" />",
        child("A", 1)
    ));
    let e = error_of(&xml);
    assert_error(&e, ErrorKind::LinkDirection, 10, 1, "root");
    assert_says(&e, &["source is output \"onStopped\" of the enclosing box"]);
}

// ---------------------------------------------------------------- warnings

#[test]
fn keys_out_of_order_are_a_warning_with_a_position() {
    let xml = project(
        "<Timeline enable=\"1\" fps=\"25\"><ActuatorList><ActuatorCurve actuator=\"HeadYaw\">\n<Key frame=\"10\" value=\"1\" />\n  <Key frame=\"5\" value=\"2\" />\n<Key frame=\"5\" value=\"3\" />\n</ActuatorCurve></ActuatorList></Timeline>",
    );
    let parsed = read_xar("bad.xar", xml.as_bytes()).expect("keys out of order still read");
    let keys = &parsed
        .value
        .root_box
        .timeline
        .as_ref()
        .unwrap()
        .actuator_list
        .as_ref()
        .unwrap()
        .curves[0]
        .keys;
    assert_eq!(
        keys.iter().map(|k| k.frame).collect::<Vec<_>>(),
        vec![10, 5, 5],
        "document order kept"
    );
    assert_eq!(parsed.warnings.len(), 2, "{:?}", parsed.warnings);
    let w = &parsed.warnings[0];
    assert_eq!(
        (w.kind, w.severity),
        (ErrorKind::KeyOrder, Severity::Warning)
    );
    assert_eq!(w.position, Some(TextPosition { line: 6, column: 3 }));
    assert_eq!(
        w.element_path,
        "root/Timeline/ActuatorList/ActuatorCurve[1](HeadYaw)/Key[2]"
    );
    assert_eq!(
        w.to_string(),
        "bad.xar:6:3: warning: key at frame 5 comes after a key at frame 10: keys out of order (played sorted) (at root/Timeline/ActuatorList/ActuatorCurve[1](HeadYaw)/Key[2])"
    );
    let w = &parsed.warnings[1];
    assert_eq!(w.position, Some(TextPosition { line: 7, column: 1 }));
    assert!(w.message.contains("two keys at frame 5"), "{w}");
}

// ---------------------------------------------------------------- depth

/// `levels` boxes, each inside the flow diagram of the one before (5 elements per level).
fn nested_boxes(levels: usize) -> String {
    let mut xml = String::from("<ChoregrapheBox xar_version=\"3\">\n");
    for i in 0..levels {
        let id = if i == 0 { -1 } else { 1 };
        xml.push_str(&format!(
            "<Box name=\"b{i}\" id=\"{id}\"><Timeline enable=\"0\"><BehaviorLayer name=\"l\"><BehaviorKeyframe name=\"k\" index=\"1\"><Diagram>\n"
        ));
    }
    for _ in 0..levels {
        xml.push_str("</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box>\n");
    }
    xml.push_str("</ChoregrapheBox>\n");
    xml
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    // Runs on the test thread's own stack (2 MiB by default): reading must not overflow it.
    let e = error_of(nested_boxes(100));
    assert_eq!(e.kind(), ErrorKind::TooDeep, "{e}");
    // The 256th element is the Diagram of box 51 (the root element is the first).
    let d = e.diagnostic();
    assert_eq!(d.position.map(|p| p.line), Some(52), "{e}");
    assert!(
        d.element_path.starts_with("b0/b1/b2/"),
        "{}",
        d.element_path
    );
    assert!(d.element_path.ends_with("/b50"), "{}", d.element_path);
    assert_says(&e, &["nested deeper than"]);
    // Far deeper input is refused the same way.
    assert_eq!(error_of(nested_boxes(20_000)).kind(), ErrorKind::TooDeep);
}

#[test]
fn nesting_just_under_the_limit_reads_and_writes() {
    // 50 levels of boxes: 1 + 50 * 5 = 251 elements deep, the deepest the reader accepts
    // with this layout (real behaviors nest boxes 6 deep at most). Reading and writing
    // recurse once per level.
    let xml = nested_boxes(50);
    let parsed = read_xar("deep.xar", xml.as_bytes()).expect("50 levels read");
    let mut depth = 0;
    parsed.value.root_box.walk(&mut |_| depth += 1);
    assert_eq!(depth, 50);
    let written = write_xar(&parsed.value);
    let again = read_xar("deep.xar", written.as_bytes()).expect("written file reads");
    assert_eq!(again.value, parsed.value);
}

#[test]
fn deep_unknown_elements_are_kept_raw_without_recursion() {
    // Unknown content is skipped as raw text, not parsed recursively: any depth is safe.
    let inner = "<x>".repeat(50_000) + &"</x>".repeat(50_000);
    let xml = project(&inner);
    let parsed = read_xar("deep.xar", xml.as_bytes()).expect("unknown nested content reads");
    assert_eq!(parsed.value.root_box.extras.children(), &[inner]);
    // Unclosed deep unknown content is a truncation.
    let cut = project(&"<x>".repeat(50_000));
    let cut = &cut[..cut.find("</Box>").unwrap()];
    let e = error_of(cut);
    assert_eq!(e.kind(), ErrorKind::Truncated, "{e}");
}
