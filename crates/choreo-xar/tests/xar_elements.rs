//! One test per XAR element and attribute: a small hand-written snippet is read, each model
//! field is checked, and the file is written back, read again (equal model) and compared with
//! the source as XML (same elements, attributes, text and comments).

use crate::support;

use choreo_xar::*;

const ALDEBARAN_NS: &str = "http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd";
const SOFTBANK_NS: &str = "http://www.ald.softbankrobotics.com/schema/choregraphe/project.xsd";

/// A 2.x project whose root box holds `body`.
fn project(body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="{ALDEBARAN_NS}" xar_version="3">
    <Box name="root" id="-1" localization="8" tooltip="Root box" x="0" y="0">
{body}
    </Box>
</ChoregrapheProject>
"#
    )
}

/// A project whose root box holds a flow diagram with `inner` (boxes and links).
fn diagram(inner: &str) -> String {
    project(&format!(
        r#"<Timeline enable="0"><BehaviorLayer name="behavior_layer1"><BehaviorKeyframe name="keyframe1" index="1"><Diagram>
{inner}
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>"#
    ))
}

/// Reads `xml` (no warnings allowed), writes it, reads it again: the models must be equal and
/// the written XML equivalent to the source. Returns the model read from the source.
fn check(xml: &str) -> XarFile {
    let parsed = read_xar("t.xar", xml.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert!(
        parsed.warnings.is_empty(),
        "unexpected warnings: {:?}",
        parsed.warnings
    );
    round_trip(xml, &parsed.value);
    parsed.value
}

/// Writes `model` and checks that it reads back equal and XML-equivalent to `source`.
fn round_trip(source: &str, model: &XarFile) -> String {
    let written = write_xar(model);
    let again = read_xar("w.xar", written.as_bytes())
        .unwrap_or_else(|e| panic!("rereading written XML: {e}\n{written}"));
    assert_eq!(
        &again.value, model,
        "model differs after write/read:\n{written}"
    );
    if let Err(d) = support::xml_equivalent(source, &written) {
        panic!("written XML differs from the source: {d}\nsource:\n{source}\nwritten:\n{written}");
    }
    written
}

fn first_child(f: &XarFile) -> &BoxDef {
    &f.root_box.diagrams().next().expect("a diagram").boxes[0]
}

// ---------------------------------------------------------------- roots and namespaces

#[test]
fn project_root_with_aldebaran_namespace() {
    let f = check(&project(""));
    assert_eq!(f.root, RootKind::Project);
    assert_eq!(f.namespace.as_deref(), Some(ALDEBARAN_NS));
    assert_eq!(f.namespace.as_deref(), Some(PROJECT_NAMESPACE));
    assert_eq!(f.xar_version.as_deref(), Some("3"));
    assert_eq!(f.root_box.name, "root");
    assert_eq!(f.root_box.id, -1);
}

#[test]
fn project_root_with_softbank_namespace() {
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="{SOFTBANK_NS}" xar_version="3">
  <Box name="root" id="1" localization="8" tooltip="" x="0" y="0" />
</ChoregrapheProject>
"#
    );
    let f = check(&xml);
    assert_eq!(f.root, RootKind::Project);
    assert_eq!(f.namespace.as_deref(), Some(SOFTBANK_NS));
    assert_eq!(f.root_box.id, 1);
    assert!(write_xar(&f).contains(SOFTBANK_NS));
}

#[test]
fn box_root_without_namespace() {
    let xml = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheBox xar_version="3">
    <Box name="root" id="-1" localization="8" tooltip="Say something" x="0" y="0">
        <bitmap>media/images/box/interaction/say.png</bitmap>
    </Box>
</ChoregrapheBox>
"#;
    let f = check(xml);
    assert_eq!(f.root, RootKind::Box);
    assert_eq!(f.namespace, None);
    let written = write_xar(&f);
    assert!(!written.contains("xmlns"), "{written}");
    assert!(
        written.contains("<ChoregrapheBox xar_version=\"3\">"),
        "{written}"
    );
}

#[test]
fn project_root_without_namespace_and_prolog_comment() {
    let xml = r#"<?xml version="1.0" encoding="UTF-8" ?>
<!-- exported by hand -->
<ChoregrapheProject xar_version="3"><Box name="root" id="-1" /></ChoregrapheProject>"#;
    let f = check(xml);
    assert_eq!(f.namespace, None);
    assert_eq!(f.prolog, vec!["<!-- exported by hand -->".to_string()]);
    assert!(f.root_box.tooltip.is_none() && f.root_box.x.is_none());
}

// ---------------------------------------------------------------- Box

#[test]
fn box_attributes_are_read() {
    let f = check(&diagram(
        r#"<Box name="Say &quot;hi&quot;" id="3" localization="-1" tooltip="line one&#x0A;line two &amp; &lt;three&gt;" x="445" y="51" plugin="textedit_plugin" />"#,
    ));
    let b = first_child(&f);
    assert_eq!(b.name, "Say \"hi\"");
    assert_eq!(b.id, 3);
    assert_eq!(b.localization, Some(-1));
    assert_eq!(b.tooltip.as_deref(), Some("line one\nline two & <three>"));
    assert_eq!((b.x, b.y), (Some(445), Some(51)));
    assert_eq!(b.plugin.as_deref(), Some("textedit_plugin"));
    assert_eq!(
        (b.robot.as_deref(), b.bitmap_expanded.as_deref()),
        (None, None)
    );
    assert!(b.extras.is_empty());
    // The newline in the tooltip is written as a character reference, not a raw newline.
    let written = write_xar(&f);
    assert!(written.contains("line one&#x0A;line two"), "{written}");
}

#[test]
fn box_bitmaps_repeat_and_keep_their_text() {
    let f = check(&project(
        "<bitmap>media/images/box/a.png</bitmap>\n<bitmap>media/images/box/b &amp; c.png</bitmap>",
    ));
    assert_eq!(
        f.root_box.bitmaps,
        vec![
            "media/images/box/a.png".to_string(),
            "media/images/box/b & c.png".to_string()
        ]
    );
    assert!(f.root_box.extras.order().is_empty());
}

#[test]
fn box_dialog_file_marks_a_dialog_box() {
    let f = check(&diagram(
        r#"<Box name="Dialog" id="1" localization="8" tooltip="" x="1" y="2"><dialogFile>../Main/Main.dlg</dialogFile><bitmap>media/images/box/box-dialog.png</bitmap><script language="4"><content><![CDATA[]]></content></script></Box>"#,
    ));
    let b = first_child(&f);
    assert_eq!(b.dialog_file.as_deref(), Some("../Main/Main.dlg"));
    assert_eq!(
        b.bitmaps,
        vec!["media/images/box/box-dialog.png".to_string()]
    );
    assert_eq!(b.code(), "");
    assert!(
        b.extras.order().is_empty(),
        "dialogFile first is the canonical order"
    );
}

#[test]
fn script_language_and_cdata_code() {
    let code = "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        self.onStopped() # a < b && c > d\n";
    let f = check(&project(&format!(
        "<script language=\"4\">\n<content>\n<![CDATA[{code}]]>\n</content>\n</script>"
    )));
    let s = f.root_box.script.as_ref().expect("script");
    assert_eq!(s.language, Some(ScriptLanguage::Python));
    let c = s.content.as_ref().expect("content");
    // Only the CDATA text: the indentation around it is not code.
    assert_eq!(c.code, code);
    assert_eq!(f.root_box.code(), code);
    assert_eq!(c.raw, None, "one CDATA section is the canonical form");
}

#[test]
fn script_code_containing_cdata_end_is_split_and_joined() {
    // `]]>` cannot appear inside one CDATA section: writers split it in two.
    let xml = project(
        "<script language=\"4\"><content><![CDATA[x = a[b[0]]]]><![CDATA[> 1\nprint(']]]]><![CDATA[>')]]></content></script>",
    );
    let f = check(&xml);
    assert_eq!(f.root_box.code(), "x = a[b[0]]> 1\nprint(']]>')");
    // A model built with such code is written split, and reads back equal.
    let mut m = f.clone();
    m.root_box.script = Some(Script {
        language: Some(ScriptLanguage::Python),
        content: Some(ScriptContent {
            code: "s = ']]>' + \"]]>\"\n".into(),
            ..Default::default()
        }),
        extras: Extras::default(),
    });
    let written = write_xar(&m);
    assert!(written.contains("]]]]><![CDATA[>"), "{written}");
    let again = read_xar("w.xar", written.as_bytes()).unwrap();
    assert_eq!(again.value.root_box.code(), "s = ']]>' + \"]]>\"\n");
    assert_eq!(again.value, m);
}

#[test]
fn script_languages_and_self_closing_forms() {
    for lang in ScriptLanguage::ALL {
        let f = check(&project(&format!(
            "<script language=\"{}\"><content><![CDATA[]]></content></script>",
            lang.code()
        )));
        assert_eq!(f.root_box.script.as_ref().unwrap().language, Some(*lang));
    }
    // The 2013 converter writes `<script/>`: no language, no content.
    let f = check(&project("<script />"));
    let s = f.root_box.script.as_ref().unwrap();
    assert_eq!((s.language, s.content.as_ref()), (None, None));
    // An empty content element is no code.
    let f = check(&project("<script language=\"4\"><content /></script>"));
    assert_eq!(f.root_box.code(), "");
}

#[test]
fn script_content_that_is_a_comment_is_kept_raw() {
    // The stock Choice box template.
    let f = check(&project(
        "<script language=\"4\"><content><!-- This is generated at runtime, plugin magic --></content></script>",
    ));
    let c = f
        .root_box
        .script
        .as_ref()
        .unwrap()
        .content
        .as_ref()
        .unwrap();
    assert_eq!(c.code, "");
    assert_eq!(
        c.raw.as_deref(),
        Some("<!-- This is generated at runtime, plugin magic -->")
    );
    assert!(write_xar(&f).contains("plugin magic"));
}

#[test]
fn plugin_content_is_kept_verbatim() {
    let plugin = "<pluginContent>\n            <text><![CDATA[Hello & bye]]></text>\n\t<color>#ff0000</color>  <keywords><keyword>a</keyword></keywords>\n        </pluginContent>";
    let f = check(&project(&format!(
        "<script language=\"4\"><content><![CDATA[]]></content></script>\n{plugin}"
    )));
    assert_eq!(f.root_box.plugin_content.as_deref(), Some(plugin));
    let written = write_xar(&f);
    assert!(
        written.contains(plugin),
        "whitespace inside pluginContent changed:\n{written}"
    );
}

// ---------------------------------------------------------------- Input / Output

#[test]
fn input_attributes_are_read() {
    let f = check(&project(
        r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="Signal sent when diagram is loaded." id="1" />
<Input name="onStart" type="0" type_size="3" nature="2" inner="0" tooltip="" id="2" />
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="stop" id="3" />
<Input name="onEvent" type="3" type_size="1" nature="1" inner="0" tooltip="" id="4" />
<Input name="FaceDetected" type="0" type_size="1" nature="4" stm_value_name="FaceDetected" inner="1" tooltip="mem" id="5" />
<Input name="minimal" type="2" nature="2" id="6" />"#,
    ));
    let i = &f.root_box.inputs;
    assert_eq!(i.len(), 6);
    assert_eq!(i[0].name, "onLoad");
    assert_eq!(i[0].port_type, PortType::Bang);
    assert_eq!(i[0].type_size, Some(1));
    assert_eq!(i[0].nature, InputNature::OnLoad);
    assert_eq!(i[0].inner, Some(true));
    assert!(i[0].is_inner());
    assert_eq!(
        i[0].tooltip.as_deref(),
        Some("Signal sent when diagram is loaded.")
    );
    assert_eq!(i[0].id, 1);
    assert_eq!(
        (i[1].port_type, i[1].type_size(), i[1].nature),
        (PortType::Dynamic, 3, InputNature::OnStart)
    );
    assert_eq!(i[2].nature, InputNature::OnStop);
    assert_eq!(
        (i[3].port_type, i[3].nature),
        (PortType::String, InputNature::OnEvent)
    );
    assert_eq!(i[4].nature, InputNature::Memory);
    assert_eq!(i[4].stm_value_name.as_deref(), Some("FaceDetected"));
    assert_eq!(i[0].stm_value_name, None);
    // Defaults when absent.
    assert_eq!(i[5].port_type, PortType::Number);
    assert_eq!((i[5].type_size, i[5].type_size()), (None, 1));
    assert_eq!((i[5].inner, i[5].is_inner()), (None, false));
    assert_eq!(i[5].tooltip, None);
}

#[test]
fn output_attributes_are_read() {
    let f = check(&project(
        r#"<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="done" id="1" />
<Output name="word" type="3" type_size="1" nature="2" inner="0" tooltip="" id="2" />
<Output name="pose" type="2" type_size="7" nature="0" inner="0" tooltip="" id="3" />
<Output name="bmp" type="4" type_size="1" nature="3" inner="0" tooltip="" id="4" />
<Output name="snd" type="5" nature="2" id="5" />"#,
    ));
    let o = &f.root_box.outputs;
    assert_eq!(o.len(), 5);
    assert_eq!(
        (o[0].port_type, o[0].nature, o[0].inner),
        (PortType::Bang, OutputNature::Stopped, Some(false))
    );
    assert_eq!(
        (o[1].port_type, o[1].nature),
        (PortType::String, OutputNature::Punctual)
    );
    assert_eq!(
        (o[2].type_size, o[2].nature),
        (Some(7), OutputNature::Undef)
    );
    assert_eq!(
        (o[3].port_type, o[3].nature),
        (PortType::Bitmap, OutputNature::Recurrent)
    );
    assert_eq!(o[4].port_type, PortType::Sound);
    assert_eq!(
        o.iter().map(|p| p.id).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5]
    );
    assert!(matches!(f.root_box.port(3), Some(PortRef::Output(p)) if p.name == "pose"));
}

// ---------------------------------------------------------------- Parameter / Choice

#[test]
fn parameter_every_content_type() {
    let f = check(&project(
        r#"<Parameter name="Bool" inherits_from_parent="0" content_type="0" value="1" default_value="0" tooltip="a flag" id="1" />
<Parameter name="Int" inherits_from_parent="1" content_type="1" value="3" default_value="2" min="-10" max="10" tooltip="" id="2" />
<Parameter name="Double" inherits_from_parent="0" content_type="2" value="0.5" default_value="1.25" min="0" max="4.82967e-06" tooltip="" id="3" />
<Parameter name="String" inherits_from_parent="0" content_type="3" value="hello" default_value="" custom_choice="1" tooltip="" id="4">
    <Choice value="hello" />
    <Choice value="bye &amp; see you" />
</Parameter>
<Parameter name="File" inherits_from_parent="0" content_type="4" value="/../html/x.png" default_value="" tooltip="" id="5" />
<Parameter name="Text" inherits_from_parent="0" content_type="5" value="line1&#x0A;line2" default_value="" password="1" tooltip="" id="6" />"#,
    ));
    let p = &f.root_box.parameters;
    assert_eq!(p.len(), 6);
    let types: Vec<_> = p.iter().map(|p| p.content_type).collect();
    assert_eq!(types, ContentType::ALL.to_vec());

    assert_eq!(p[0].inherits_from_parent, Some(false));
    assert_eq!(p[0].typed_value(), Some(ParameterValue::Bool(true)));
    assert_eq!(p[0].default_value.as_deref(), Some("0"));
    assert_eq!(p[0].tooltip.as_deref(), Some("a flag"));
    assert_eq!((p[0].min, p[0].max), (None, None));

    assert!(p[1].inherits());
    assert_eq!(p[1].typed_value(), Some(ParameterValue::Int(3)));
    assert_eq!((p[1].min, p[1].max), (Some(-10.0), Some(10.0)));

    assert_eq!(p[2].typed_value(), Some(ParameterValue::Double(0.5)));
    assert_eq!((p[2].min, p[2].max), (Some(0.0), Some(4.82967e-06)));

    assert_eq!(p[3].custom_choice, Some(true));
    assert_eq!(
        p[3].choices
            .iter()
            .map(|c| c.value.as_str())
            .collect::<Vec<_>>(),
        vec!["hello", "bye & see you"]
    );
    assert_eq!(
        p[4].typed_value(),
        Some(ParameterValue::String("/../html/x.png".into()))
    );
    assert_eq!(p[5].value.as_deref(), Some("line1\nline2"));
    assert_eq!(p[5].password, Some(true));
    assert_eq!(p[5].custom_choice, None);
    assert_eq!(f.root_box.parameter("Text").map(|p| p.id), Some(6));
    assert!(matches!(f.root_box.port(4), Some(PortRef::Parameter(p)) if p.name == "String"));
}

#[test]
fn parameter_value_of_the_wrong_type_is_a_warning_kept_as_text() {
    let xml = project(
        r#"<Parameter name="Speed" inherits_from_parent="0" content_type="1" value="fast" default_value="1" tooltip="" id="1" />"#,
    );
    let parsed = read_xar("t.xar", xml.as_bytes()).unwrap();
    assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
    let w = &parsed.warnings[0];
    assert_eq!(
        (w.kind, w.severity),
        (ErrorKind::BadValue, Severity::Warning)
    );
    assert_eq!(w.element_path, "root/Parameter[1]");
    // The body starts on line 4 of `project`, at column 1.
    assert_eq!(w.position, Some(TextPosition { line: 4, column: 1 }));
    let p = &parsed.value.root_box.parameters[0];
    assert_eq!(p.value.as_deref(), Some("fast"));
    assert_eq!(p.typed_value(), None);
    round_trip(&xml, &parsed.value);
}

// ---------------------------------------------------------------- Resource

#[test]
fn resource_lock_types_are_strings() {
    let f = check(&project(
        r#"<Resource name="Speech" type="Lock" timeout="0" />
<Resource name="All motors" type="Stop on demand" timeout="-1" />
<Resource name="Legs" type="Pause on demand" timeout="5" />
<Resource name="Left eye leds" type="Pause on demand (beta)" timeout="2" />
<Resource name="HeadYaw" type="Callback on demand" timeout="1" />
<Resource name="Standing" type="Something new" />"#,
    ));
    let r = &f.root_box.resources;
    assert_eq!(r.len(), 6);
    let locks: Vec<_> = r.iter().map(Resource::lock).collect();
    assert_eq!(
        locks,
        vec![
            Some(LockType::Lock),
            Some(LockType::StopOnDemand),
            Some(LockType::PauseOnDemand),
            Some(LockType::PauseOnDemand),
            Some(LockType::CallbackOnDemand),
            None
        ]
    );
    assert_eq!(r[3].lock_type, "Pause on demand (beta)");
    assert_eq!(r[1].name, "All motors");
    assert_eq!(
        r.iter().map(|r| r.timeout).collect::<Vec<_>>(),
        vec![Some(0), Some(-1), Some(5), Some(2), Some(1), None]
    );
}

// ---------------------------------------------------------------- Timeline and children

#[test]
fn timeline_holder_defaults() {
    let f = check(&diagram(""));
    let t = f.root_box.timeline.as_ref().unwrap();
    assert_eq!(t.enable, Some(false));
    assert!(!t.is_enabled());
    assert_eq!((t.fps, t.fps()), (None, 0));
    assert_eq!((t.start_frame, t.start_frame()), (None, 0));
    assert_eq!((t.end_frame, t.end_frame()), (None, -1));
    assert_eq!(t.size, None);
    assert_eq!(
        (t.resources_acquisition, t.resources_acquisition()),
        (None, ResourcesAcquisition::Passive)
    );
    assert_eq!(t.scale, None);
    assert!(!t.watches);
    assert_eq!(t.layers.len(), 1);
    assert_eq!(t.layers[0].name, "behavior_layer1");
    assert_eq!(t.layers[0].mute, None);
    let k = &t.layers[0].keyframes[0];
    assert_eq!(
        (k.name.as_str(), k.index, k.bitmap.as_deref()),
        ("keyframe1", 1, None)
    );
    assert_eq!(k.diagram.as_ref().unwrap().scale, None);
    assert!(t.actuator_list.is_none());
}

#[test]
fn timeline_without_enable_is_disabled() {
    let f = check(&project("<Timeline />"));
    let t = f.root_box.timeline.as_ref().unwrap();
    assert_eq!(t.enable, None);
    assert!(!t.is_enabled());
    assert!(t.layers.is_empty());
}

#[test]
fn motion_timeline_attributes() {
    let f = check(&project(
        r#"<Timeline enable="1" fps="25" start_frame="1" end_frame="-1" size="300" resources_acquisition="2">
<BehaviorLayer name="layer &amp; one" mute="1">
    <BehaviorKeyframe name="start" index="1" />
    <BehaviorKeyframe name="later" index="42"><Diagram scale="70.7107" /></BehaviorKeyframe>
</BehaviorLayer>
<BehaviorLayer name="two" mute="0" />
</Timeline>"#,
    ));
    let t = f.root_box.timeline.as_ref().unwrap();
    assert!(t.is_enabled());
    assert_eq!(t.fps, Some(25));
    assert_eq!(t.start_frame, Some(1));
    assert_eq!(t.end_frame, Some(-1));
    assert_eq!(t.size, Some(300));
    assert_eq!(
        t.resources_acquisition,
        Some(ResourcesAcquisition::Aggressive)
    );
    assert_eq!(t.layers.len(), 2);
    assert_eq!(t.layers[0].name, "layer & one");
    assert_eq!(t.layers[0].mute, Some(true));
    assert_eq!(t.layers[1].mute, Some(false));
    let kf = &t.layers[0].keyframes;
    assert_eq!(kf.len(), 2);
    assert!(kf[0].diagram.is_none());
    assert_eq!((kf[1].name.as_str(), kf[1].index), ("later", 42));
    assert_eq!(kf[1].diagram.as_ref().unwrap().scale, Some(70.7107));
}

#[test]
fn timeline_resources_acquisition_codes() {
    for r in ResourcesAcquisition::ALL {
        let f = check(&project(&format!(
            "<Timeline enable=\"1\" fps=\"10\" resources_acquisition=\"{}\" />",
            r.code()
        )));
        assert_eq!(f.root_box.timeline.unwrap().resources_acquisition, Some(*r));
    }
}

#[test]
fn watches_and_1x_holder_attributes() {
    let f = check(&diagram("").replace(
        "<Timeline enable=\"0\">",
        "<Timeline enable=\"0\" fps=\"10\" start_frame=\"0\" end_frame=\"-1\" size=\"-1\" resources_acquisition=\"0\" scale=\"10\">\n<watches />",
    ));
    let t = f.root_box.timeline.as_ref().unwrap();
    assert!(t.watches);
    assert_eq!(t.scale, Some(10.0));
    assert_eq!(
        (t.fps, t.start_frame, t.size),
        (Some(10), Some(0), Some(-1))
    );
    assert!(write_xar(&f).contains("<watches />"));
    // A model without watches writes none.
    let mut m = f.clone();
    m.root_box.timeline.as_mut().unwrap().watches = false;
    assert!(!write_xar(&m).contains("watches"));
}

#[test]
fn behavior_keyframe_bitmap_and_diagram_scale() {
    let f = check(&project(
        r#"<Timeline enable="1" fps="10"><BehaviorLayer name="l" mute="0"><BehaviorKeyframe name="k" index="5" bitmap="media/images/kf.png"><Diagram scale="-1" /></BehaviorKeyframe></BehaviorLayer></Timeline>"#,
    ));
    let k = &f.root_box.timeline.as_ref().unwrap().layers[0].keyframes[0];
    assert_eq!(k.bitmap.as_deref(), Some("media/images/kf.png"));
    assert_eq!(k.index, 5);
    assert_eq!(k.diagram.as_ref().unwrap().scale, Some(-1.0));
}

#[test]
fn links_of_every_direction() {
    let f = check(&project(
        r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="3" />
<Timeline enable="0"><BehaviorLayer name="behavior_layer1"><BehaviorKeyframe name="keyframe1" index="1"><Diagram>
<Box name="A" id="1" x="0" y="0">
    <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
    <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
    <Parameter name="P" inherits_from_parent="0" content_type="1" value="1" default_value="1" min="0" max="9" tooltip="" id="3" />
</Box>
<Box name="B" id="7" x="0" y="0">
    <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
    <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
</Box>
<Link inputowner="1" indexofinput="1" outputowner="0" indexofoutput="2" />
<Link inputowner="7" indexofinput="1" outputowner="1" indexofoutput="2" />
<Link inputowner="0" indexofinput="3" outputowner="7" indexofoutput="2" />
<Link inputowner="0" indexofinput="3" outputowner="0" indexofoutput="1" />
<Link inputowner="1" indexofinput="3" outputowner="7" indexofoutput="2" />
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>"#,
    ));
    let d = f.root_box.diagrams().next().unwrap();
    assert_eq!(d.boxes.len(), 2);
    assert_eq!(d.box_by_id(7).map(|b| b.name.as_str()), Some("B"));
    let l: Vec<_> = d
        .links
        .iter()
        .map(|l| {
            (
                l.input_owner,
                l.index_of_input,
                l.output_owner,
                l.index_of_output,
            )
        })
        .collect();
    assert_eq!(
        l,
        vec![
            (1, 1, 0, 2),
            (7, 1, 1, 2),
            (0, 3, 7, 2),
            (0, 3, 0, 1),
            (1, 3, 7, 2)
        ]
    );
    let mut names = Vec::new();
    f.root_box.walk(&mut |b| names.push(b.name.clone()));
    assert_eq!(names, vec!["root", "A", "B"]);
}

#[test]
fn actuator_list_curves_keys_and_tangents() {
    let f = check(&project(
        r#"<Timeline enable="1" fps="25" start_frame="1" end_frame="-1" size="60">
<ActuatorList model="juliette">
    <ActuatorCurve name="value" actuator="HeadYaw" recordable="1" mute="0" unit="0" alwaysVisible="1">
        <Key frame="1" value="-13.6000003815" />
        <Key frame="15" value="4.82967e-06" smooth="1" symmetrical="1">
            <Tangent side="left" interpType="bezier" abscissaParam="-4.66667" ordinateParam="0" />
            <Tangent side="right" interpType="bezier" abscissaParam="4.66667" ordinateParam="-2.5" />
        </Key>
        <Key frame="30" value="12" smooth="1" />
    </ActuatorCurve>
    <ActuatorCurve name="" actuator="RHand" recordable="0" mute="1" unit="1" />
    <ActuatorCurve actuator="LHand" />
</ActuatorList>
</Timeline>"#,
    ));
    let l = f
        .root_box
        .timeline
        .as_ref()
        .unwrap()
        .actuator_list
        .as_ref()
        .unwrap();
    assert_eq!(l.model.as_deref(), Some("juliette"));
    assert_eq!(l.curves.len(), 3);
    let c = &l.curves[0];
    assert_eq!(c.name.as_deref(), Some("value"));
    assert_eq!(c.actuator, "HeadYaw");
    assert_eq!(
        (c.recordable, c.mute, c.unit, c.always_visible),
        (Some(true), Some(false), Some(0), Some(true))
    );
    assert_eq!(c.keys.len(), 3);
    assert_eq!((c.keys[0].frame, c.keys[0].value), (1, -13.6000003815));
    assert_eq!((c.keys[0].smooth, c.keys[0].symmetrical), (None, None));
    assert!(c.keys[0].tangents.is_empty());
    let k = &c.keys[1];
    assert_eq!(
        (k.frame, k.value, k.smooth, k.symmetrical),
        (15, 4.82967e-06, Some(true), Some(true))
    );
    assert_eq!(k.tangents.len(), 2);
    assert_eq!(k.tangents[0].side, TangentSide::Left);
    assert_eq!(k.tangents[0].interp_type.as_deref(), Some("bezier"));
    assert_eq!(
        (k.tangents[0].abscissa_param, k.tangents[0].ordinate_param),
        (-4.66667, 0.0)
    );
    assert_eq!(k.tangents[1].side, TangentSide::Right);
    assert_eq!(
        (k.tangents[1].abscissa_param, k.tangents[1].ordinate_param),
        (4.66667, -2.5)
    );
    assert_eq!(
        (c.keys[2].smooth, c.keys[2].symmetrical),
        (Some(true), None)
    );
    let hand = &l.curves[1];
    assert_eq!(
        (hand.name.as_deref(), hand.recordable, hand.mute, hand.unit),
        (Some(""), Some(false), Some(true), Some(1))
    );
    let bare = &l.curves[2];
    assert_eq!(
        (
            bare.name.as_ref(),
            bare.mute,
            bare.unit,
            bare.always_visible
        ),
        (None, None, None, None)
    );
    // Floats are written the way Choregraphe writes them.
    let written = write_xar(&f);
    assert!(written.contains(r#"value="4.82967e-06""#), "{written}");
    assert!(written.contains(r#"value="12""#), "{written}");
}

#[test]
fn single_tangent_and_actuator_list_without_model() {
    let f = check(&project(
        r#"<Timeline enable="1" fps="25"><ActuatorList><ActuatorCurve actuator="HeadPitch" unit="-1"><Key frame="3" value="0.5"><Tangent side="right" abscissaParam="1" ordinateParam="1" /></Key></ActuatorCurve></ActuatorList></Timeline>"#,
    ));
    let l = f
        .root_box
        .timeline
        .as_ref()
        .unwrap()
        .actuator_list
        .as_ref()
        .unwrap();
    assert_eq!(l.model, None);
    let t = &l.curves[0].keys[0].tangents;
    assert_eq!(t.len(), 1);
    assert_eq!(
        (t[0].side, t[0].interp_type.as_deref()),
        (TangentSide::Right, None)
    );
}

// ---------------------------------------------------------------- attribute generations

#[test]
fn generation_a_1x_attributes() {
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="{ALDEBARAN_NS}" xar_version="3">
    <Box name="root" id="-1" tooltip="Root box of Choregraphe&apos;s project. Highest level possible." x="0" y="0" plugin="" robot="" bitmap_expanded="1">
        <bitmap>media/images/box/root.png</bitmap>
        <script language="4">
            <content>
                <![CDATA[]]>
</content>
        </script>
        <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
        <Timeline enable="0" fps="10" start_frame="0" end_frame="-1" size="0" scale="10" resources_acquisition="0">
            <watches />
            <BehaviorLayer name="behavior_layer1" mute="0">
                <BehaviorKeyframe name="keyframe1" index="1" bitmap="">
                    <Diagram scale="-1">
                        <Box name="Move" id="2" tooltip="" x="10" y="20" plugin="" robot="" bitmap_expanded="0">
                            <Timeline enable="1" fps="25" start_frame="0" end_frame="-1" size="300" scale="10" resources_acquisition="1">
                                <watches />
                                <ActuatorList model="Nao">
                                    <ActuatorCurve name="value" actuator="HeadYaw" recordable="1" mute="0" alwaysVisible="0">
                                        <Key frame="5" value="-3.5" />
                                    </ActuatorCurve>
                                </ActuatorList>
                            </Timeline>
                        </Box>
                    </Diagram>
                </BehaviorKeyframe>
            </BehaviorLayer>
        </Timeline>
    </Box>
</ChoregrapheProject>
"#
    );
    let f = check(&xml);
    let r = &f.root_box;
    assert_eq!(
        (
            r.robot.as_deref(),
            r.bitmap_expanded.as_deref(),
            r.plugin.as_deref()
        ),
        (Some(""), Some("1"), Some(""))
    );
    assert_eq!(r.localization, None);
    let t = r.timeline.as_ref().unwrap();
    assert!(t.watches);
    assert_eq!(t.scale, Some(10.0));
    assert_eq!(t.layers[0].mute, Some(false));
    assert_eq!(t.layers[0].keyframes[0].bitmap.as_deref(), Some(""));
    let d = t.layers[0].keyframes[0].diagram.as_ref().unwrap();
    assert_eq!(d.scale, Some(-1.0));
    let mv = &d.boxes[0];
    assert_eq!(mv.bitmap_expanded.as_deref(), Some("0"));
    let mt = mv.timeline.as_ref().unwrap();
    assert_eq!(
        (mt.start_frame, mt.resources_acquisition),
        (Some(0), Some(ResourcesAcquisition::Waiting))
    );
    let c = &mt.actuator_list.as_ref().unwrap().curves[0];
    assert_eq!((c.always_visible, c.unit), (Some(false), None));
    assert_eq!(
        mt.actuator_list.as_ref().unwrap().model.as_deref(),
        Some("Nao")
    );
}

#[test]
fn generation_b_2_0_attributes() {
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="{ALDEBARAN_NS}" xar_version="3">
    <Box name="root" id="-1" tooltip="Root box" x="0" y="0">
        <script language="4"><content><![CDATA[]]></content></script>
        <Timeline enable="0">
            <BehaviorLayer name="behavior_layer1">
                <BehaviorKeyframe name="keyframe1" index="1">
                    <Diagram>
                        <Box name="Wave" id="1" tooltip="" x="5" y="5">
                            <Timeline enable="1" fps="25" start_frame="0" end_frame="-1" size="40">
                                <ActuatorList model="nao">
                                    <ActuatorCurve name="value" actuator="RShoulderPitch" recordable="0" mute="0" unit="0">
                                        <Key frame="10" value="80.5" />
                                    </ActuatorCurve>
                                </ActuatorList>
                            </Timeline>
                        </Box>
                    </Diagram>
                </BehaviorKeyframe>
            </BehaviorLayer>
        </Timeline>
    </Box>
</ChoregrapheProject>
"#
    );
    let f = check(&xml);
    let r = &f.root_box;
    assert_eq!(
        (r.robot.as_ref(), r.bitmap_expanded.as_ref(), r.localization),
        (None, None, None)
    );
    let holder = r.timeline.as_ref().unwrap();
    assert_eq!(
        (holder.fps, holder.scale, holder.watches),
        (None, None, false)
    );
    let w = first_child(&f);
    let l = w.timeline.as_ref().unwrap().actuator_list.as_ref().unwrap();
    assert_eq!(l.model.as_deref(), Some("nao"));
    assert_eq!(
        (l.curves[0].unit, l.curves[0].always_visible),
        (Some(0), None)
    );
}

#[test]
fn generation_c_2x_attributes() {
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="{ALDEBARAN_NS}" xar_version="3">
  <Box name="root" id="-1" localization="8" tooltip="Root box" x="0" y="0">
    <bitmap>media/images/box/root.png</bitmap>
    <script language="4">
      <content>
        <![CDATA[]]>
      </content>
    </script>
    <Timeline enable="0">
      <BehaviorLayer name="behavior_layer1">
        <BehaviorKeyframe name="keyframe1" index="1">
          <Diagram>
            <Box name="Dialog" id="1" localization="8" tooltip="" x="1" y="1" plugin="dialog_plugin">
              <dialogFile>../Main/Main.dlg</dialogFile>
              <bitmap>media/images/box/box-dialog.png</bitmap>
              <script language="4"><content><![CDATA[]]></content></script>
            </Box>
            <Box name="Move" id="2" localization="0" tooltip="" x="1" y="1">
              <Timeline enable="1" fps="25" start_frame="1" end_frame="-1" size="50">
                <ActuatorList model="">
                  <ActuatorCurve name="value" actuator="HeadYaw" mute="0" unit="0">
                    <Key frame="10" value="1" smooth="1" symmetrical="1">
                      <Tangent side="left" interpType="bezier" abscissaParam="-3" ordinateParam="0.25" />
                      <Tangent side="right" interpType="bezier" abscissaParam="3" ordinateParam="-0.25" />
                    </Key>
                  </ActuatorCurve>
                </ActuatorList>
              </Timeline>
            </Box>
          </Diagram>
        </BehaviorKeyframe>
      </BehaviorLayer>
    </Timeline>
  </Box>
</ChoregrapheProject>
"#
    );
    let f = check(&xml);
    assert_eq!(f.root_box.localization, Some(8));
    let d = f.root_box.diagrams().next().unwrap();
    assert_eq!(d.boxes[0].dialog_file.as_deref(), Some("../Main/Main.dlg"));
    assert_eq!(d.boxes[0].plugin.as_deref(), Some("dialog_plugin"));
    assert_eq!(d.boxes[1].localization, Some(0));
    let t = d.boxes[1].timeline.as_ref().unwrap();
    assert_eq!(t.start_frame, Some(1));
    let l = t.actuator_list.as_ref().unwrap();
    assert_eq!(l.model.as_deref(), Some(""));
    let k = &l.curves[0].keys[0];
    assert_eq!(
        (k.smooth, k.symmetrical, k.tangents.len()),
        (Some(true), Some(true), 2)
    );
}

// ---------------------------------------------------------------- spelling and order variants

#[test]
fn element_name_casing_variants_are_read_and_kept() {
    let xml = diagram(
        r#"<BOX name="Upper" id="1" x="0" y="0"><Script language="4"><Content><![CDATA[pass]]></Content></Script><INPUT name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" /></BOX>"#,
    );
    let f = check(&xml);
    let b = first_child(&f);
    assert_eq!(b.name, "Upper");
    assert_eq!(b.extras.spelling(), Some("BOX"));
    let s = b.script.as_ref().unwrap();
    assert_eq!(s.extras.spelling(), Some("Script"));
    assert_eq!(
        s.content.as_ref().unwrap().extras.spelling(),
        Some("Content")
    );
    assert_eq!(b.code(), "pass");
    assert_eq!(b.inputs.len(), 1);
    assert_eq!(b.inputs[0].extras.spelling(), Some("INPUT"));
    let written = write_xar(&f);
    for name in ["<BOX ", "</BOX>", "<Script ", "<Content>", "<INPUT "] {
        assert!(written.contains(name), "{name} not kept:\n{written}");
    }
}

#[test]
fn attribute_name_casing_variants_are_read_and_kept() {
    // The 2013 converter reads `alwaysvisible`; we read any casing and write it back as found.
    let f = check(&project(
        r#"<Timeline enable="1" fps="25"><ActuatorList><ActuatorCurve actuator="HeadYaw" alwaysvisible="1" Mute="0" /></ActuatorList></Timeline>"#,
    ));
    let c = &f
        .root_box
        .timeline
        .as_ref()
        .unwrap()
        .actuator_list
        .as_ref()
        .unwrap()
        .curves[0];
    assert_eq!(c.always_visible, Some(true));
    assert_eq!(c.mute, Some(false));
    assert_eq!(
        c.extras.attribute_spelling("alwaysVisible"),
        "alwaysvisible"
    );
    assert_eq!(c.extras.attribute_spelling("mute"), "Mute");
    assert!(c.extras.attributes().is_empty());
}

#[test]
fn single_quoted_attributes() {
    let f = check(&diagram(
        r#"<Box name='Say "hello"' id='2' tooltip='it&apos;s &quot;q&quot;' x='1' y='2'><Input name='onStart' type='1' type_size='1' nature='2' inner='0' tooltip='' id='1' /></Box>"#,
    ));
    let b = first_child(&f);
    assert_eq!(b.name, "Say \"hello\"");
    assert_eq!(b.id, 2);
    assert_eq!(b.tooltip.as_deref(), Some("it's \"q\""));
    assert_eq!(b.inputs[0].nature, InputNature::OnStart);
}

#[test]
fn bitmap_last_child_order_is_kept() {
    let xml = project(
        r#"<script language="4"><content><![CDATA[]]></content></script>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
<bitmap>media/images/box/last.png</bitmap>"#,
    );
    let f = check(&xml);
    let b = &f.root_box;
    assert_eq!(b.bitmaps, vec!["media/images/box/last.png".to_string()]);
    assert_eq!(
        b.extras.order(),
        &[
            ChildKind::Script,
            ChildKind::Input,
            ChildKind::Output,
            ChildKind::Bitmap
        ]
    );
    let written = write_xar(&f);
    let (bitmap, output) = (
        written.find("<bitmap>").unwrap(),
        written.find("<Output").unwrap(),
    );
    assert!(bitmap > output, "bitmap must stay last:\n{written}");
}

#[test]
fn interleaved_ports_keep_their_order() {
    let f = check(&project(
        r#"<Output name="o" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
<Input name="i" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
<Parameter name="p" inherits_from_parent="0" content_type="3" value="" default_value="" tooltip="" id="3" />
<Input name="j" type="1" type_size="1" nature="3" inner="0" tooltip="" id="4" />"#,
    ));
    assert_eq!(
        f.root_box.extras.order(),
        &[
            ChildKind::Output,
            ChildKind::Input,
            ChildKind::Parameter,
            ChildKind::Input
        ]
    );
    assert_eq!(
        f.root_box.inputs.iter().map(|p| p.id).collect::<Vec<_>>(),
        vec![1, 4]
    );
}

// ---------------------------------------------------------------- unknown content

#[test]
fn unknown_attributes_and_children_are_kept_in_place() {
    let xml = project(
        r#"<bitmap>a.png</bitmap>
<!-- a comment between children -->
<futureElement kind="x"><nested a="1" /></futureElement>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" newAttr="v &amp; w"><portNote /></Input>
<Resource name="Speech" type="Lock" timeout="0" extra="1" />"#,
    );
    let f = check(&xml);
    let b = &f.root_box;
    assert_eq!(
        b.extras.children(),
        &[
            "<!-- a comment between children -->".to_string(),
            r#"<futureElement kind="x"><nested a="1" /></futureElement>"#.to_string()
        ]
    );
    assert_eq!(
        b.extras.order(),
        &[
            ChildKind::Bitmap,
            ChildKind::Unknown,
            ChildKind::Unknown,
            ChildKind::Input,
            ChildKind::Resource
        ]
    );
    let i = &b.inputs[0];
    assert_eq!(
        i.extras.attributes(),
        &[("newAttr".to_string(), "v & w".to_string())]
    );
    assert_eq!(i.extras.children(), &["<portNote />".to_string()]);
    assert_eq!(
        b.resources[0].extras.attributes(),
        &[("extra".to_string(), "1".to_string())]
    );
    let written = write_xar(&f);
    let (comment, input) = (
        written.find("<!-- a comment").unwrap(),
        written.find("<Input").unwrap(),
    );
    assert!(comment < input, "{written}");
}

#[test]
fn stray_text_between_children_is_kept_without_its_indentation() {
    let xml = project(
        "<bitmap>a.png</bitmap>\n        some stray words &amp; more\n   \t\n<!-- c -->tail<Input name=\"onStart\" type=\"1\" nature=\"2\" id=\"1\" />",
    );
    let f = check(&xml);
    assert_eq!(
        f.root_box.extras.children(),
        &[
            "some stray words &amp; more".to_string(),
            "<!-- c -->".to_string(),
            "tail".to_string()
        ]
    );
    // Writing twice gives the same text: indentation does not pile up around the text.
    let once = write_xar(&f);
    let twice = write_xar(&read_xar("w.xar", once.as_bytes()).unwrap().value);
    assert_eq!(once, twice);
}

#[test]
fn root_element_extras_are_kept() {
    let xml = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheBox xar_version="3" generator="hand">
    <!-- before -->
    <Box name="root" id="-1" />
    <trailer />
</ChoregrapheBox>
"#;
    let f = check(xml);
    assert_eq!(
        f.extras.attributes(),
        &[("generator".to_string(), "hand".to_string())]
    );
    assert_eq!(
        f.extras.children(),
        &["<!-- before -->".to_string(), "<trailer />".to_string()]
    );
}

#[test]
fn xar_version_other_than_3_is_read_with_a_warning() {
    let xml = r#"<ChoregrapheBox xar_version="4"><Box name="root" id="-1" /></ChoregrapheBox>"#;
    let parsed = read_xar("t.xar", xml.as_bytes()).unwrap();
    assert_eq!(parsed.value.xar_version.as_deref(), Some("4"));
    assert_eq!(parsed.warnings.len(), 1);
    assert_eq!(parsed.warnings[0].kind, ErrorKind::Unusual);
    round_trip(xml, &parsed.value);
}

#[test]
fn crlf_file_reads_like_lf() {
    let lf = project(
        "<script language=\"4\"><content><![CDATA[a = 1\nb = 2\n]]></content></script>\n<bitmap>x.png</bitmap>",
    );
    let crlf = lf.replace('\n', "\r\n");
    let a = read_xar("lf.xar", lf.as_bytes()).unwrap().value;
    let b = read_xar("crlf.xar", crlf.as_bytes()).unwrap().value;
    assert_eq!(a.root_box.code(), "a = 1\nb = 2\n");
    assert_eq!(b.root_box.code(), a.root_box.code());
    round_trip(&crlf, &b);
}

#[test]
fn a_model_built_from_scratch_is_written_canonically() {
    let mut root = BoxDef {
        name: "root".into(),
        id: -1,
        ..Default::default()
    };
    root.inputs.push(Port {
        name: "onStart".into(),
        port_type: PortType::Bang,
        type_size: Some(1),
        nature: InputNature::OnStart,
        stm_value_name: None,
        inner: Some(false),
        tooltip: Some("go\nnow".into()),
        id: 1,
        extras: Extras::default(),
    });
    root.bitmaps.push("b.png".into());
    let f = XarFile {
        root: RootKind::Project,
        namespace: Some(PROJECT_NAMESPACE.into()),
        xar_version: Some("3".into()),
        prolog: Vec::new(),
        root_box: root,
        extras: Extras::default(),
    };
    let written = write_xar(&f);
    assert!(
        written
            .starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<ChoregrapheProject xmlns=")
    );
    assert!(written.contains("tooltip=\"go&#x0A;now\""), "{written}");
    assert!(written.find("<bitmap>").unwrap() < written.find("<Input").unwrap());
    let again = read_xar("w.xar", written.as_bytes()).unwrap();
    assert_eq!(again.value, f);
    assert!(again.warnings.is_empty());
}
