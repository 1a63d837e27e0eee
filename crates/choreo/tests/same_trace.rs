//! Property: a behavior gives the same trace on every run, whatever the machine's load.
//! Random behaviors are made of Python boxes that call the simulated robot (a blocking
//! `say`, posted motions and LED fades, memory writes), sleep, start threads of their own,
//! draw random numbers and fire outputs at one another, and of motion timelines; each is run
//! three times in virtual time while busy loops in other processes keep every core loaded,
//! and the three traces (every event with its behavior time) must be equal.

use crate::support;

use std::fmt::Write as _;
use std::time::Duration;

use choreo_engine::Outcome;
use proptest::prelude::*;
use support::Run;

/// Standard ports, and an output `out` (id 5) fired mid-way.
const PORTS: &str = r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/><Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/><Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/><Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/><Output name="out" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;

/// One thing a Python box does when started.
#[derive(Debug, Clone)]
enum Act {
    Say(u8),
    Sleep(u8),
    PostMotion(u8),
    Fade(u8),
    Memory(u8),
    Thread(u8),
    Random,
    Out,
}

fn act() -> impl Strategy<Value = Act> {
    prop_oneof![
        (0u8..4).prop_map(Act::Say),
        (0u8..5).prop_map(Act::Sleep),
        (0u8..4).prop_map(Act::PostMotion),
        (0u8..4).prop_map(Act::Fade),
        (0u8..4).prop_map(Act::Memory),
        (0u8..3).prop_map(Act::Thread),
        Just(Act::Random),
        Just(Act::Out),
    ]
}

/// Sleeps, in seconds: none, less than a frame, a frame, a long one.
const SLEEPS: [&str; 5] = ["0", "0.01", "0.04", "0.1", "0.5"];

impl Act {
    /// The Python lines, indented for `onInput_onStart`.
    fn python(&self, out: &mut String) {
        let line = match self {
            Act::Say(k) => format!("self.tts.say(\"word {k}\")"),
            Act::Sleep(k) => format!("time.sleep({})", SLEEPS[*k as usize % SLEEPS.len()]),
            Act::PostMotion(k) => format!(
                "self.motion.post.angleInterpolation(\"HeadYaw\", {:.2}, 0.{}, True)",
                f64::from(*k) * 0.2 - 0.3,
                k + 2
            ),
            Act::Fade(k) => format!(
                "self.leds.post.fadeRGB(\"FaceLeds\", {}, 0.{})",
                0x10_20_30 * (u32::from(*k) + 1),
                k + 1
            ),
            Act::Memory(k) => {
                format!("self.memory.raiseEvent(\"Prop/K{k}\", random.randint(0, 9))")
            }
            Act::Thread(k) => format!("threading.Thread(target=self.side, args=({k},)).start()"),
            Act::Random => "self.log(\"drew %r\" % random.random())".to_string(),
            Act::Out => "self.out()".to_string(),
        };
        let _ = writeln!(out, "        {line}");
    }
}

/// A box of the root diagram.
#[derive(Debug, Clone)]
enum Piece {
    Python(Vec<Act>),
    /// A HeadPitch timeline at 25 fps: its frames, and the key value in degrees.
    Timeline(u8, i8),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        4 => prop::collection::vec(act(), 1..7).prop_map(Piece::Python),
        1 => (5u8..40, -20i8..20).prop_map(|(n, v)| Piece::Timeline(n, v)),
    ]
}

/// A behavior: its boxes (ids 1..) and links from (box, output) to a later box's onStart
/// (no loop: a loop of links is the engine's property tests' subject, and through Python
/// boxes it takes 10,000 hand-offs before time goes on beside it); the root starts the
/// first box and stops when the last one stops.
#[derive(Debug, Clone)]
struct Case {
    pieces: Vec<Piece>,
    links: Vec<(usize, u32, usize)>,
}

fn case() -> impl Strategy<Value = Case> {
    prop::collection::vec(piece(), 2..6).prop_flat_map(|pieces| {
        let n = pieces.len();
        let links = prop::collection::vec((0..n, prop_oneof![Just(4u32), Just(5u32)], 0..n), 0..6);
        (Just(pieces), links).prop_map(|(pieces, links)| Case {
            pieces,
            links: links
                .into_iter()
                .filter(|&(a, _, b)| a != b)
                .map(|(a, port, b)| (a.min(b), port, a.max(b)))
                .collect(),
        })
    })
}

const SCRIPT_HEAD: &str = "import random\nimport threading\nimport time\n\nclass MyClass(GeneratedClass):\n    def onLoad(self):\n        self.tts = ALProxy(\"ALTextToSpeech\")\n        self.motion = ALProxy(\"ALMotion\")\n        self.leds = ALProxy(\"ALLeds\")\n        self.memory = ALProxy(\"ALMemory\")\n\n    def side(self, k):\n        self.log(\"side %d %r\" % (k, random.random()))\n        time.sleep(0.02 * k)\n        self.memory.insertData(\"Prop/Side\", k)\n\n    def onInput_onStart(self):\n";

impl Case {
    fn xml(&self) -> String {
        let mut d = String::new();
        for (i, p) in self.pieces.iter().enumerate() {
            let id = i + 1;
            match p {
                Piece::Python(acts) => {
                    let mut script = SCRIPT_HEAD.to_string();
                    for a in acts {
                        a.python(&mut script);
                    }
                    script.push_str("        self.onStopped()\n");
                    let _ = write!(
                        d,
                        r#"<Box name="P{id}" id="{id}"><script language="4"><content><![CDATA[{script}]]></content></script>{PORTS}</Box>"#
                    );
                }
                Piece::Timeline(frames, value) => {
                    let _ = write!(
                        d,
                        r#"<Box name="T{id}" id="{id}">{PORTS}<Timeline enable="1" fps="25" start_frame="1" end_frame="-1" size="300"><ActuatorList model="Nao"><ActuatorCurve name="value" actuator="HeadPitch" recordable="0" mute="0" unit="0"><Key frame="1" value="0"/><Key frame="{frames}" value="{value}"/></ActuatorCurve></ActuatorList></Timeline></Box>"#
                    );
                }
            }
        }
        let link = |d: &mut String, src: usize, port: u32, dst: usize, dst_port: u32| {
            let _ = write!(
                d,
                r#"<Link inputowner="{dst}" indexofinput="{dst_port}" outputowner="{src}" indexofoutput="{port}"/>"#
            );
        };
        link(&mut d, 0, 2, 1, 2);
        link(&mut d, self.pieces.len(), 4, 0, 4);
        for &(src, port, dst) in &self.links {
            link(&mut d, src + 1, port, dst + 1, 2);
        }
        format!(
            r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">{PORTS}<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>{d}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#
        )
    }
}

/// One run of `xml` for up to 10 virtual seconds: `time path event fields` per event.
fn trace(xml: &str) -> Vec<String> {
    let x = choreo_xar::read_xar("case.xar", xml.as_bytes())
        .unwrap()
        .value;
    let run = Run::load(&x, &std::env::temp_dir(), None, 10.0).unwrap();
    run.engine.start();
    let outcome = run.engine.wait(Duration::from_secs(120));
    assert_ne!(outcome, Outcome::TimedOut, "{}", run.dump());
    if !outcome.is_final() {
        run.engine.stop();
        assert!(run.engine.wait(Duration::from_secs(120)).is_final());
    }
    run.events()
        .iter()
        .map(|e| format!("{} {}", e.time_ns, e.short()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn random_behaviors_give_the_same_trace_three_times_under_load(case in case()) {
        let xml = case.xml();
        let _load = support::Hogs::every_core();
        let first = trace(&xml);
        for n in 2..=3 {
            let again = trace(&xml);
            let at = first.iter().zip(&again).position(|(a, b)| a != b);
            prop_assert!(
                at.is_none() && first.len() == again.len(),
                "run {} differs at event {:?}:\n{}\n--- run 1 ---\n{}\n--- run {} ---\n{}",
                n,
                at,
                xml,
                first.join("\n"),
                n,
                again.join("\n")
            );
        }
    }
}
