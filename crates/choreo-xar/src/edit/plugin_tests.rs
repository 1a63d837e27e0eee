//! A stock box's text set as Choregraphe's panels set it, on Choregraphe's own files: the
//! 2.1 library's Say (its Localized Text holds `<english>Hello</english>`, its generated
//! script `"English" : " Hello ",`) and a 2.x project's Text Edit (CDATA; the script's
//! `self.onStopped("...")` with `\r\n` for its Windows line ends). Expected bytes: the file's,
//! with exactly those two places changed, derived here by hand.
#![allow(clippy::unwrap_used)]

use super::*;

/// The 2.1 stock library's Say behavior, relative to the library.
const SAY: &str = "standard/Audio/Voice/Say/behavior.xar";

fn localized_text() -> BoxRef {
    BoxRef(vec![Step {
        layer: 0,
        keyframe: 0,
        id: 5,
    }])
}

/// The English text of the Say's Localized Text, as its panel shows it.
fn english(doc: &Document) -> Option<String> {
    let def = doc.box_def(&localized_text()).unwrap();
    plugin_texts(def)
        .into_iter()
        .find(|(f, _)| f == "english")
        .map(|(_, t)| t)
}

#[test]
fn the_stock_say_s_english_text_is_set_in_its_panel_s_field_and_its_generated_script() {
    let Some(library) = choreo_testkit::library("the stock Say box's Localized Text") else {
        return;
    };
    let original = std::fs::read_to_string(library.join(SAY)).unwrap();
    let mut doc = Document::open("behavior.xar", original.as_bytes()).unwrap();
    assert_eq!(english(&doc).as_deref(), Some("Hello"));
    let text = "Good \"morning\" & <welcome>";
    let patch = doc
        .apply(&Edit::SetPluginText {
            at: localized_text(),
            field: "english".into(),
            text: text.into(),
        })
        .unwrap();
    let expected = original
        .replacen(
            "<english>Hello</english>",
            "<english>Good \"morning\" &amp; &lt;welcome&gt;</english>",
            1,
        )
        .replacen(
            "\"English\" : \" Hello \",",
            "\"English\" : \" Good \\\"morning\\\" & <welcome> \",",
            1,
        );
    assert_ne!(expected, original);
    assert_eq!(String::from_utf8(doc.bytes().to_vec()).unwrap(), expected);
    assert_eq!(english(&doc).as_deref(), Some(text));
    // Undone: the file's bytes.
    doc.apply_patch(&patch.inverse()).unwrap();
    assert_eq!(String::from_utf8(doc.bytes().to_vec()).unwrap(), original);
    // Only a panel's texts are set.
    for (field, why) in [("Klingon", "no text"), ("script", "no text")] {
        let refused = doc.apply(&Edit::SetPluginText {
            at: localized_text(),
            field: field.into(),
            text: "x".into(),
        });
        assert!(
            matches!(&refused, Err(EditError::Refused(w)) if w.contains(why)),
            "{refused:?}"
        );
    }
}

#[test]
fn a_text_edit_box_s_cdata_and_generated_string_are_set_with_its_line_ends() {
    let text = concat!(
        r#"<?xml version="1.0" encoding="UTF-8" ?><ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3"><Box name="root" id="-1" localization="8" tooltip="" x="0" y="0"><script language="4"><content><![CDATA[]]></content></script><Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" /><Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>"#,
        r#"<Box name="Text Edit" id="3" localization="8" tooltip="" plugin="textedit_plugin" x="1" y="2"><script language="4"><content><![CDATA[# /!\ Generated content. Do not edit!
class MyClass(GeneratedClass):
	def onInput_onStart(self):
		self.onStopped("old\r\ntext")]]></content></script><pluginContent><text><![CDATA[old
text]]></text></pluginContent><Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" /><Output name="onStopped" type="3" type_size="1" nature="1" inner="0" tooltip="" id="4" /></Box>"#,
        "</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>\n"
    );
    let mut doc = Document::open("t.xar", text.as_bytes()).unwrap();
    let at = BoxRef(vec![Step {
        layer: 0,
        keyframe: 0,
        id: 3,
    }]);
    doc.apply(&Edit::SetPluginText {
        at,
        field: "text".into(),
        text: "new\r\nline \\ end".into(),
    })
    .unwrap();
    let expected = text
        .replacen(
            "<text><![CDATA[old\ntext]]></text>",
            "<text><![CDATA[new\r\nline \\ end]]></text>",
            1,
        )
        .replacen(
            r#"self.onStopped("old\r\ntext")"#,
            r#"self.onStopped("new\r\nline \\ end")"#,
            1,
        );
    assert_eq!(String::from_utf8(doc.bytes().to_vec()).unwrap(), expected);
}

/// What Choregraphe wrote, written again: a 2.x project's Localized Text (CDATA in its
/// panel, `"English" : " Hello, I\'m  ",` in its script) set to the text its panel holds
/// gives the file's own bytes — the escaping and the padding are Choregraphe's.
#[test]
fn setting_the_text_choregraphe_wrote_gives_choregraphe_s_bytes() {
    let Some(corpus) = choreo_testkit::corpus("a project's Localized Text") else {
        return;
    };
    let original =
        std::fs::read_to_string(corpus.join("icoxfog417__PepperYesMan/behavior.xar")).unwrap();
    let mut doc = Document::open("behavior.xar", original.as_bytes()).unwrap();
    let mut set = 0;
    for at in panel_boxes(&doc) {
        let def = doc.box_def(&at).unwrap().clone();
        for (field, text) in plugin_texts(&def) {
            doc.apply(&Edit::SetPluginText {
                at: at.clone(),
                field,
                text,
            })
            .unwrap();
            set += 1;
        }
    }
    assert!(set > 20, "{set} texts set");
    assert_eq!(String::from_utf8(doc.bytes().to_vec()).unwrap(), original);
}

/// Every box of `doc` that has a panel (a `plugin`), by its ref.
pub(super) fn panel_boxes(doc: &Document) -> Vec<BoxRef> {
    let mut out = Vec::new();
    let mut todo = vec![BoxRef::default()];
    while let Some(at) = todo.pop() {
        let def = doc.box_def(&at).unwrap();
        if def.plugin.as_deref().is_some_and(|p| !p.is_empty()) {
            out.push(at.clone());
        }
        for (layer, l) in def
            .timeline
            .iter()
            .flat_map(|t| t.layers.iter())
            .enumerate()
        {
            for (keyframe, k) in l.keyframes.iter().enumerate() {
                for b in k.diagram.iter().flat_map(|d| d.boxes.iter()) {
                    let mut r = at.clone();
                    r.0.push(Step {
                        layer,
                        keyframe,
                        id: b.id,
                    });
                    todo.push(r);
                }
            }
        }
    }
    out
}
