//! XAR reading and writing throughput, side by side with bare XML parsers on the same bytes.
//!
//! Inputs:
//! - `corpus`: every `.xar` of `../shared/corpus` that reads (the merge-conflict file is left
//!   out), as a list of files read one after the other;
//! - `generated_10k`: one generated behavior of exactly 10,000 boxes (3 levels of nested flow
//!   diagrams, ports, parameters, scripts, links, 50 motion timelines with curves); about
//!   32 MB of XAR text.
//!
//! For each input: `read_xar` (bytes to checked model), `roxmltree` (`Document::parse`: UTF-8
//! check plus DOM), `quick_xml_events` (UTF-8 check plus a pull loop over every event and
//! attribute value), and `write_xar` (model to text). Throughput is in bytes of XAR text.
//!
//! Run: `cargo bench -p choreo-xar --bench parse`; results and ratios are in
//! `docs/benchmarks.md`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use choreo_xar::*;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quick_xml::events::Event;

// ---------------------------------------------------------------- inputs

/// The corpus XAR files that read without error, or `None` after a NOTICE. Benchmarks are
/// never run by CI, so an absent corpus is a NOTICE here whatever `CI` says.
fn corpus_files() -> Option<Vec<Vec<u8>>> {
    let dir = choreo_testkit::required(
        &choreo_testkit::corpus_dir(),
        "the corpus benchmarks",
        false,
    )?;
    let paths = choreo_testkit::files_under(&dir, &|p| choreo_testkit::has_extension(p, &["xar"]));
    let files: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| std::fs::read(p).expect("corpus file"))
        .filter(|b| read_xar("bench.xar", b).is_ok())
        .collect();
    Some(files)
}

fn port<N>(name: &str, port_type: PortType, nature: N, inner: bool, id: i32, tip: &str) -> Port<N> {
    Port {
        name: name.into(),
        port_type,
        type_size: Some(1),
        nature,
        stm_value_name: None,
        inner: Some(inner),
        tooltip: Some(tip.into()),
        id,
        extras: Extras::default(),
    }
}

const CODE: &str = r#"class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)

    def onLoad(self):
        self.tts = self.session().service("ALTextToSpeech")

    def onUnload(self):
        pass

    def onInput_onStart(self):
        sentence = self.getParameter("Text")
        if sentence and len(sentence) < 300:
            self.tts.say(str(sentence))
        self.onStopped()

    def onInput_onStop(self):
        self.onUnload()
        self.onStopped()
"#;

/// A box of the generated behavior with the usual four ports and two parameters.
fn plain_box(name: String, id: i32, code: &str) -> BoxDef {
    BoxDef {
        name,
        id,
        localization: Some(8),
        tooltip: Some("Say some text.&#x0A;V1.1.0".replace("&#x0A;", "\n")),
        x: Some(100 + id * 7),
        y: Some(50 + id * 3),
        bitmaps: vec!["media/images/box/interaction/say.png".into()],
        script: Some(Script {
            language: Some(ScriptLanguage::Python),
            content: Some(ScriptContent {
                code: code.into(),
                ..Default::default()
            }),
            extras: Extras::default(),
        }),
        inputs: vec![
            port(
                "onLoad",
                PortType::Bang,
                InputNature::OnLoad,
                true,
                1,
                "Signal sent when diagram is loaded.",
            ),
            port(
                "onStart",
                PortType::Bang,
                InputNature::OnStart,
                false,
                2,
                "Box behavior starts when a signal is received on this input.",
            ),
            port(
                "onStop",
                PortType::Bang,
                InputNature::OnStop,
                false,
                3,
                "Box behavior stops when a signal is received on this input.",
            ),
        ],
        outputs: vec![port(
            "onStopped",
            PortType::Bang,
            OutputNature::Stopped,
            false,
            4,
            "Signal sent when box behavior is finished.",
        )],
        parameters: vec![
            Parameter {
                name: "Text".into(),
                inherits_from_parent: Some(false),
                content_type: ContentType::Text,
                value: Some("Hello, I am a robot & I like <xml>".into()),
                default_value: Some(String::new()),
                min: None,
                max: None,
                custom_choice: Some(false),
                password: None,
                tooltip: Some("The text to say.".into()),
                id: 5,
                choices: Vec::new(),
                extras: Extras::default(),
            },
            Parameter {
                name: "Speed (%)".into(),
                inherits_from_parent: Some(true),
                content_type: ContentType::Int,
                value: Some("100".into()),
                default_value: Some("100".into()),
                min: Some(50.0),
                max: Some(200.0),
                custom_choice: None,
                password: None,
                tooltip: Some("Speed of speech.".into()),
                id: 6,
                choices: Vec::new(),
                extras: Extras::default(),
            },
        ],
        resources: vec![Resource {
            name: "Speech".into(),
            lock_type: "Lock".into(),
            timeout: Some(0),
            extras: Extras::default(),
        }],
        ..Default::default()
    }
}

const JOINTS: [&str; 25] = [
    "HeadPitch",
    "HeadYaw",
    "LAnklePitch",
    "LAnkleRoll",
    "LElbowRoll",
    "LElbowYaw",
    "LHand",
    "LHipPitch",
    "LHipRoll",
    "LHipYawPitch",
    "LKneePitch",
    "LShoulderPitch",
    "LShoulderRoll",
    "LWristYaw",
    "RAnklePitch",
    "RAnkleRoll",
    "RElbowRoll",
    "RElbowYaw",
    "RHand",
    "RHipPitch",
    "RHipRoll",
    "RKneePitch",
    "RShoulderPitch",
    "RShoulderRoll",
    "RWristYaw",
];

/// A motion timeline: 25 curves of 12 keys, some with tangents.
fn motion_timeline(seed: i32) -> Timeline {
    let curves = JOINTS
        .iter()
        .enumerate()
        .map(|(j, joint)| ActuatorCurve {
            name: Some("value".into()),
            actuator: (*joint).into(),
            recordable: None,
            mute: Some(false),
            unit: Some(if joint.ends_with("Hand") { 1 } else { 0 }),
            always_visible: None,
            keys: (0..12)
                .map(|k| {
                    let value = f64::from((seed * 31 + (j as i32) * 7 + k * 13) % 2400) / 20.0
                        - 60.0
                        + 0.123_456;
                    let tangents = if k % 4 == 1 {
                        vec![
                            Tangent {
                                side: TangentSide::Left,
                                interp_type: Some("bezier".into()),
                                abscissa_param: -2.666_67,
                                ordinate_param: 0.0,
                                extras: Extras::default(),
                            },
                            Tangent {
                                side: TangentSide::Right,
                                interp_type: Some("bezier".into()),
                                abscissa_param: 2.666_67,
                                ordinate_param: -1.5,
                                extras: Extras::default(),
                            },
                        ]
                    } else {
                        Vec::new()
                    };
                    Key {
                        frame: 1 + k * 8,
                        value,
                        smooth: (k % 4 == 1).then_some(true),
                        symmetrical: (k % 4 == 1).then_some(true),
                        tangents,
                        extras: Extras::default(),
                    }
                })
                .collect(),
            extras: Extras::default(),
        })
        .collect();
    Timeline {
        enable: Some(true),
        fps: Some(25),
        start_frame: Some(1),
        end_frame: Some(-1),
        size: Some(96),
        actuator_list: Some(ActuatorList {
            model: Some("nao".into()),
            curves,
            extras: Extras::default(),
        }),
        ..Default::default()
    }
}

/// A flow-diagram holder with `boxes` chained: parent onStart -> first, each onStopped -> next
/// onStart, parent onStop -> every box after the first, last onStopped -> parent onStopped,
/// parent onLoad -> a parameter of the first.
fn holder(boxes: Vec<BoxDef>) -> Timeline {
    let mut links = Vec::new();
    let link = |input_owner, index_of_input, output_owner, index_of_output| Link {
        input_owner,
        index_of_input,
        output_owner,
        index_of_output,
        extras: Extras::default(),
    };
    if let (Some(first), Some(last)) = (boxes.first(), boxes.last()) {
        links.push(link(first.id, 2, 0, 2));
        links.push(link(first.id, 5, 0, 1));
        for w in boxes.windows(2) {
            links.push(link(w[1].id, 2, w[0].id, 4));
            links.push(link(w[1].id, 3, 0, 3));
        }
        links.push(link(0, 4, last.id, 4));
    }
    Timeline::holder(Diagram {
        boxes,
        links,
        ..Default::default()
    })
}

/// A behavior of exactly 10,000 boxes: 10 groups x 9 subgroups x 110 leaves
/// (10 + 90 + 9,900); every 198th leaf is a motion box (50 motion timelines).
fn generated_10k() -> String {
    let mut leaf_count = 0;
    let groups = (1..=10)
        .map(|g| {
            let subgroups = (1..=9)
                .map(|s| {
                    let leaves = (1..=110)
                        .map(|l| {
                            leaf_count += 1;
                            let mut b = plain_box(format!("Say {g}.{s}.{l}"), l, CODE);
                            if leaf_count % 198 == 0 {
                                b.name = format!("Move {g}.{s}.{l}");
                                b.script.as_mut().unwrap().content.as_mut().unwrap().code =
                                    String::new();
                                b.timeline = Some(motion_timeline(leaf_count));
                            }
                            b
                        })
                        .collect();
                    let mut b = plain_box(format!("Group {g}.{s}"), s, "");
                    b.timeline = Some(holder(leaves));
                    b
                })
                .collect();
            let mut b = plain_box(format!("Group {g}"), g, "");
            b.timeline = Some(holder(subgroups));
            b
        })
        .collect();
    let mut root = plain_box("root".into(), -1, "");
    root.timeline = Some(holder(groups));
    let file = XarFile {
        root: RootKind::Project,
        namespace: Some(PROJECT_NAMESPACE.into()),
        xar_version: Some("3".into()),
        prolog: Vec::new(),
        root_box: root,
        extras: Extras::default(),
    };
    let text = write_xar(&file);
    let parsed = read_xar("generated.xar", text.as_bytes()).expect("the generated behavior reads");
    let mut boxes = 0;
    parsed.value.root_box.walk(&mut |_| boxes += 1);
    assert_eq!(boxes, 10_001, "10,000 boxes plus the root");
    text
}

// ---------------------------------------------------------------- measured work

fn roxmltree_parse(bytes: &[u8]) -> usize {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let doc = roxmltree::Document::parse(text).expect("well-formed");
    doc.descendants().count()
}

/// A pull loop that touches every element and every attribute value (normalised).
fn quick_xml_events(bytes: &[u8]) -> usize {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let mut reader = quick_xml::Reader::from_str(text);
    let mut n = 0;
    loop {
        match reader.read_event().expect("well-formed") {
            Event::Start(e) | Event::Empty(e) => {
                n += 1;
                for a in e.attributes() {
                    let a = a.expect("attribute");
                    n += a
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .expect("value")
                        .len();
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    n
}

fn bench_set(c: &mut Criterion, group_name: &str, files: &[Vec<u8>], sample_size: usize) {
    let total: usize = files.iter().map(Vec::len).sum();
    let models: Vec<XarFile> = files
        .iter()
        .map(|b| read_xar("bench.xar", b).expect("reads").value)
        .collect();
    let written: usize = models.iter().map(|m| write_xar(m).len()).sum();
    eprintln!(
        "{group_name}: {} file(s), {:.2} MB read, {:.2} MB written",
        files.len(),
        total as f64 / 1e6,
        written as f64 / 1e6
    );
    let mut g = c.benchmark_group(group_name);
    g.sample_size(sample_size);
    g.measurement_time(Duration::from_secs(8));
    g.throughput(Throughput::Bytes(total as u64));
    g.bench_function("read_xar", |b| {
        b.iter(|| {
            for f in files {
                black_box(read_xar("bench.xar", black_box(f)).expect("reads"));
            }
        });
    });
    g.bench_function("roxmltree", |b| {
        b.iter(|| {
            for f in files {
                black_box(roxmltree_parse(black_box(f)));
            }
        });
    });
    g.bench_function("quick_xml_events", |b| {
        b.iter(|| {
            for f in files {
                black_box(quick_xml_events(black_box(f)));
            }
        });
    });
    g.throughput(Throughput::Bytes(written as u64));
    g.bench_function("write_xar", |b| {
        b.iter(|| {
            for m in &models {
                black_box(write_xar(black_box(m)));
            }
        });
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    if let Some(files) = corpus_files() {
        bench_set(c, "corpus", &files, 30);
    }
    let generated = generated_10k().into_bytes();
    bench_set(c, "generated_10k", std::slice::from_ref(&generated), 20);
}

criterion_group!(parse, benches);
criterion_main!(parse);
