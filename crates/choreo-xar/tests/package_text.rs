//! `.dlg` and `.top` parsing, and `.pml` / manifest edge cases: what is read, and where errors
//! point (file, line, column, element path).

use choreo_xar::ErrorKind;
use choreo_xar::project_files::{
    XmlDocument, XmlElement, XmlNode, read_dlg, read_manifest, read_pml, read_top, write_pml,
};

#[test]
fn dlg_lists_its_topics_by_language() {
    let d = read_dlg(
        "Main.dlg",
        b"multilanguage:Main\n  enu:Main_enu.top\r\n  frf:Main_frf.top\n\n",
    )
    .unwrap();
    assert!(d.warnings.is_empty());
    assert_eq!(d.value.name, "Main");
    let topics: Vec<(&str, &str)> = d
        .value
        .topics
        .iter()
        .map(|t| (t.language.as_str(), t.file.as_str()))
        .collect();
    assert_eq!(topics, [("enu", "Main_enu.top"), ("frf", "Main_frf.top")]);
}

#[test]
fn dlg_errors_point_at_the_line() {
    let e = read_dlg(
        "m.dlg",
        b"multilanguage:Main\n  enu:Main_enu.top\n  just words\n",
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadStructure);
    let d = e.diagnostic();
    let p = d.position.unwrap();
    assert_eq!((p.line, p.column), (3, 3));
    assert_eq!(d.source_line.as_deref(), Some("  just words"));
    assert_eq!(e.to_string().split(": error").next(), Some("m.dlg:3:3"));

    let e = read_dlg("m.dlg", b"\n  enu:Main_enu.top\n").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadStructure);
    assert!(e.to_string().contains("starts with `multilanguage:"), "{e}");
    assert_eq!(e.diagnostic().position.map(|p| p.line), Some(2));

    let e = read_dlg("m.dlg", b"multilanguage:Main\n  enu:\n").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadValue);
    assert_eq!(
        read_dlg("m.dlg", b" \n\n").unwrap_err().kind(),
        ErrorKind::Truncated
    );
    let twice = read_dlg("m.dlg", b"multilanguage:M\n enu:a.top\n enu:b.top\n").unwrap();
    assert_eq!(twice.warnings.len(), 1);
    assert_eq!(twice.warnings[0].position.map(|p| p.line), Some(3));
}

#[test]
fn a_dlg_holding_a_pml_is_refused_as_such() {
    let e = read_dlg(
        "x.dlg",
        b"<?xml version=\"1.0\"?>\n<Package name=\"p\" format_version=\"4\" />\n",
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WrongRoot);
    assert!(
        e.to_string()
            .contains("Choregraphe project file (<Package>, .pml)"),
        "{e}"
    );
    assert_eq!(
        e.diagnostic().position.map(|p| (p.line, p.column)),
        Some((2, 1))
    );
}

#[test]
fn top_headers_are_read_after_comments() {
    let src = "\u{feff}# my topic\r\n\r\ntopic: ~Greet()\r\nlanguage:enu\r\n\r\nconcept:(hi) [hi hello]\r\nu:(~hi) hello\r\n    u1:(how are you) fine\r\nu:(bye) bye\r\n";
    let t = read_top("Greet_enu.top", src.as_bytes()).unwrap();
    assert!(t.warnings.is_empty());
    assert_eq!(t.value.name, "Greet");
    assert_eq!(t.value.language.as_deref(), Some("enu"));
    assert_eq!(t.value.user_rules, 2);
}

#[test]
fn top_errors_point_at_the_line() {
    let e = read_top("t.top", b"# c\nlanguage: enu\ntopic: ~a()\n").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadStructure);
    assert_eq!(e.diagnostic().position.map(|p| p.line), Some(2));
    let e = read_top("t.top", b"topic: Name()\n").unwrap_err();
    assert!(e.to_string().contains("topic: ~Name()"), "{e}");
    assert_eq!(
        read_top("t.top", b"# only a comment\n").unwrap_err().kind(),
        ErrorKind::Truncated
    );
    let t = read_top("t.top", b"topic: ~a()\nu:(x) y\n").unwrap();
    assert_eq!(t.value.language, None);
    assert_eq!(t.warnings.len(), 1);
    let e = read_top("t.top", b"multilanguage:a\n enu:a_enu.top\n").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("dialog descriptor"), "{e}");
}

#[test]
fn pml_errors_carry_line_column_and_element_path() {
    let src = "<?xml version=\"1.0\"?>\n<Package name=\"P\" format_version=\"4\">\n  <Dialogs>\n    <Dialog name=\"a\" src=\"a.dlg\" />\n    <Dialog name=\"b\" />\n  </Dialogs>\n</Package>\n";
    let e = read_pml("P.pml", src.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::MissingAttribute);
    let d = e.diagnostic();
    assert_eq!(d.element_path, "Package/Dialogs/Dialog[2]");
    let p = d.position.unwrap();
    assert_eq!((p.line, p.column), (5, 5));
    assert!(d.message.contains("src"));

    let e = read_pml("P.pml", b"<package uuid=\"x\"/>").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WrongRoot);
    assert!(e.to_string().contains("manifest"), "{e}");
    let e = read_pml("P.pml", b"<Package name=\"P\">\n  <Dialogs>\n").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    let e = read_manifest("manifest.xml", b"<Package name=\"P\"/>").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WrongRoot);
    let e = read_manifest(
        "manifest.xml",
        b"<package><contents><behaviorContent/></contents></package>",
    )
    .unwrap_err();
    assert_eq!(
        e.diagnostic().element_path,
        "package/contents/behaviorContent[1]"
    );
}

#[test]
fn pml_unknown_content_survives_a_round_trip_and_edits_are_written() {
    let src = r#"<?xml version="1.0" encoding="UTF-8" ?>
<!-- made by hand -->
<Package name="P &amp; Q" format_version="5" extra="1">
    <Manifest src="manifest.xml" />
    <BehaviorDescriptions>
        <BehaviorDescription name="behavior" src="." xar="behavior.xar" future="yes" />
    </BehaviorDescriptions>
    <Topics>
        <Topic name="a_enu" src="a/a_enu.top" topicName="a" language="en_US" nuance="enu" />
    </Topics>
    <qipython name="lib" />
    <Unknown><![CDATA[x < y]]> and text <!-- c --></Unknown>
</Package>
"#;
    let p = read_pml("P.pml", src.as_bytes()).unwrap();
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let pml = p.value;
    assert_eq!(pml.name, "P & Q");
    assert_eq!(pml.behaviors[0].xar_path(), "behavior.xar");
    assert_eq!(pml.topics[0].nuance.as_deref(), Some("enu"));
    assert_eq!(pml.qibuild.len(), 1);
    assert_eq!(pml.qibuild[0].kind, "qipython");
    assert_eq!(
        pml.document.root.element("Unknown").unwrap().text(),
        "x < y and text"
    );
    assert_eq!(write_pml(&pml), src);

    // Edits go through the document.
    let mut doc: XmlDocument = pml.document.clone();
    let mut resources = XmlElement::new("Resources");
    let mut file = XmlElement::new("File");
    file.attributes.push(("name".into(), "s".into()));
    file.attributes
        .push(("src".into(), "sounds/s \"1\".ogg".into()));
    resources.children.push(XmlNode::Element(file));
    doc.root.children.push(XmlNode::Element(resources));
    let again = read_pml("P.pml", doc.to_xml().as_bytes()).unwrap().value;
    assert_eq!(again.resources.len(), 1);
    assert_eq!(again.resources[0].src, "sounds/s \"1\".ogg");
    assert_eq!(again.document, doc);

    let w = read_pml("P.pml", br#"<Package name="P" format_version="9"/>"#).unwrap();
    assert_eq!(w.warnings.len(), 1);
    assert_eq!(w.warnings[0].kind, ErrorKind::Unusual);
}

/// The manifest of the 2.8 page "Creating a new application outside Choregraphe using the
/// qi Framework" (`dev/tutos/create_a_new_service.html`), its Python and C++ services.
#[test]
fn manifest_services_are_read_as_the_service_page_writes_them() {
    let m = read_manifest(
        "manifest.xml",
        br#"<package uuid="myapp" version="0.1.0">
  <services>
    <service name="myservice" autorun="true" execStart="./python bin/myservice.py" />
    <executableFiles>
      <file path="python" />
    </executableFiles>
    <service name="myservice" autorun="true" execStart="bin/myservice" />
  </services>
</package>"#,
    )
    .unwrap()
    .value;
    let services: Vec<(&str, &str, bool)> = m
        .services
        .iter()
        .map(|s| (s.name.as_str(), s.exec_start.as_str(), s.autorun))
        .collect();
    assert_eq!(
        services,
        [
            ("myservice", "./python bin/myservice.py", true),
            ("myservice", "bin/myservice", true)
        ]
    );
    let e = read_manifest(
        "manifest.xml",
        b"<package uuid=\"a\"><services><service name=\"x\"/></services></package>",
    )
    .unwrap_err();
    assert_eq!(e.diagnostic().element_path, "package/services/service[1]");
}

/// A `.dlg` Choregraphe wrote on Windows in Latin-1 is read as `.top` files are: its text
/// decoded as Latin-1, with a notice, not refused.
#[test]
fn a_latin_1_dlg_is_read_with_a_notice() {
    let d = read_dlg(
        "Caf\u{e9}.dlg",
        b"multilanguage:Caf\xe9\n  frf:Caf\xe9_frf.top\n",
    )
    .unwrap();
    assert_eq!(d.value.name, "Caf\u{e9}");
    assert_eq!(d.value.topics[0].file, "Caf\u{e9}_frf.top");
    assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
    assert!(
        d.warnings[0].to_string().contains("Latin-1"),
        "{}",
        d.warnings[0]
    );
}
