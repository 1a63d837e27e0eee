//! Property: for any valid XAR model, `read_xar(write_xar(m)) == m`.
//!
//! The models come from [`support::arbitrary`] (its module doc says what "valid" means).

use crate::support;

use choreo_xar::*;
use proptest::prelude::*;
use support::arbitrary::{Coverage, Target, check_models};

// ---------------------------------------------------------------- properties

#[test]
fn written_models_read_back_equal() {
    check_models(Target::Xar, 256, |model| {
        let written = write_xar(model);
        let parsed = match read_xar("gen.xar", written.as_bytes()) {
            Ok(p) => p,
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{written}"))),
        };
        prop_assert_eq!(&parsed.value, model, "written:\n{}", written);
        // Writing is deterministic and stable.
        prop_assert_eq!(write_xar(&parsed.value), written);
        Ok(())
    });
}

#[test]
fn written_xml_is_well_formed() {
    check_models(Target::Xar, 64, |model| {
        let written = write_xar(model);
        let opt = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        };
        // Generated unknown attributes use the prefix `q:`; roxmltree checks namespaces, so
        // bind the prefix on the root element before parsing.
        let bound = bind_prefix(&written);
        if let Err(e) = roxmltree::Document::parse_with_options(&bound, opt) {
            return Err(TestCaseError::fail(format!(
                "not well-formed: {e}\n{bound}"
            )));
        }
        Ok(())
    });
}

#[test]
fn generator_covers_the_model() {
    let c = Coverage::of(Target::Xar);
    println!("{c:#?}");
    c.assert_covers(&[
        ("links", c.links),
        ("links to parameters", c.links_to_parameters),
        ("pass-through links", c.pass_through_links),
        ("keys", c.keys),
        ("tangents", c.tangents),
        ("unknown children", c.unknown_children),
        ("recorded orders", c.recorded_orders),
        ("spellings", c.spellings),
        ("motion timelines", c.motion_timelines),
        ("plain flow-diagram holders", c.plain_holders),
        ("raw script contents", c.raw_contents),
    ]);
    // What only the split format keeps is not generated for XAR.
    assert_eq!((c.empty_records, c.codes_with_cr), (0, 0), "{c:?}");
}

/// Declares the `q` prefix on the root element of `xml`.
fn bind_prefix(xml: &str) -> String {
    let decl_end = xml.find("?>").map_or(0, |i| i + 2);
    let mut start = decl_end;
    // Skip prolog comments and PIs to the root element's name.
    while let Some(i) = xml[start..].find('<') {
        let at = start + i;
        if xml[at..].starts_with("<!--") {
            start = at + xml[at..].find("-->").unwrap() + 3;
        } else if xml[at..].starts_with("<?") {
            start = at + xml[at..].find("?>").unwrap() + 2;
        } else {
            let name_end = at
                + xml[at..]
                    .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                    .unwrap();
            return format!("{} xmlns:q=\"urn:q\"{}", &xml[..name_end], &xml[name_end..]);
        }
    }
    xml.to_string()
}

// ---------------------------------------------------------------- the escaping rule

#[test]
fn control_characters_outside_xml_are_written_as_references() {
    // XML 1.0 has no spelling for U+0001..U+0008, U+000B, U+000C, U+000E..U+001F, U+FFFE and
    // U+FFFF: raw, they make a file that is not XML, and the reader refuses them as binary
    // data. A model can still hold them (a source may spell them `&#x7;`, which quick-xml and
    // so our reader accept), and the writer writes them as such references, which read back
    // the same. Strict XML 1.0 parsers refuse the references too: the generator keeps to the
    // characters XML can hold.
    let mut f = read_xar(
        "t.xar",
        br#"<ChoregrapheBox xar_version="3"><Box name="root" id="-1" tooltip="bell&#x7;" /></ChoregrapheBox>"#,
    )
    .unwrap()
    .value;
    assert_eq!(f.root_box.tooltip.as_deref(), Some("bell\u{7}"));
    f.root_box.bitmaps = vec!["\u{1}x\u{FFFE}".into()];
    let written = write_xar(&f);
    assert!(written.contains("tooltip=\"bell&#x7;\""), "{written}");
    assert!(
        written.contains("<bitmap>&#x1;x&#xFFFE;</bitmap>"),
        "{written}"
    );
    assert!(!written.chars().any(|c| c < ' ' && c != '\n'), "{written}");
    let again = read_xar("w.xar", written.as_bytes()).unwrap().value;
    assert_eq!(again, f);
    assert!(
        roxmltree::Document::parse(&written).is_err(),
        "roxmltree refuses &#x7;"
    );
    // Raw, they are refused.
    let raw = written.replace("&#x7;", "\u{7}");
    assert_eq!(
        read_xar("raw.xar", raw.as_bytes()).unwrap_err().kind(),
        ErrorKind::NotXml
    );
}

#[test]
fn carriage_returns_survive_where_xml_can_keep_them() {
    let mut f = read_xar(
        "t.xar",
        br#"<ChoregrapheBox xar_version="3"><Box name="root" id="-1" /></ChoregrapheBox>"#,
    )
    .unwrap()
    .value;
    f.root_box.tooltip = Some("a\r\nb\rc".into());
    f.root_box.bitmaps = vec!["x\r\ny\r".into()];
    f.root_box.dialog_file = Some("\r".into());
    f.root_box.script = Some(Script {
        language: Some(ScriptLanguage::Python),
        content: Some(ScriptContent {
            code: "a = 1\r\nb = 2\r".into(),
            ..Default::default()
        }),
        extras: Extras::default(),
    });
    let written = write_xar(&f);
    let back = read_xar("w.xar", written.as_bytes()).unwrap().value;
    assert_eq!(back.root_box.tooltip, f.root_box.tooltip, "{written}");
    assert_eq!(back.root_box.bitmaps, f.root_box.bitmaps, "{written}");
    assert_eq!(
        back.root_box.dialog_file, f.root_box.dialog_file,
        "{written}"
    );
    // CDATA cannot keep a CR: XML turns CRLF and CR into LF before anyone sees the text.
    assert_eq!(back.root_box.code(), "a = 1\nb = 2\n");
}
