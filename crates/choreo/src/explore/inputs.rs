//! What a person or the world can do at a point where a behavior waits, taken from what the
//! simulated robot listens for then ([`choreo_naoqi::Listening`]), never from a list the
//! user writes; and a path of such inputs as the scenario that replays it.

use choreo_engine::Value;
use choreo_naoqi::scenario::{Entry, Trigger};
use choreo_naoqi::{Action, Listening, Scenario, TOUCH_SENSORS, world_event};
use serde::{Deserialize, Serialize};

/// A phrase no rule of a topic is written for: what a person says that the behavior does not
/// expect (ALDialog then raises `Dialog/NotUnderstood`, the Choice box says it did not
/// understand). Two words no dialog of the corpus uses.
pub const UNKNOWN_PHRASE: &str = "purple elephant";

/// The confidence of a word heard unsure: below every threshold the stock boxes use (the
/// Speech Reco. box's "Confidence threshold (%)" defaults to 30, the Choice box's to 20 and
/// 30), so a box takes it as "not understood". What ALSpeechRecognition gives when a person
/// says what its vocabulary does not hold: it only ever reports vocabulary words
/// (ALSpeechRecognition's page, `WordRecognized`), each with a confidence.
pub const UNSURE_CONFIDENCE: f64 = 0.1;

/// How long "nothing happens" lasts: a path whose run reached its horizon with the behavior
/// still busy (moving, talking, looping) gets a child that waits this much longer, in
/// virtual time: ten minutes, for a long dance or lesson to reach its next question.
pub const WAIT_SECONDS: f64 = 600.0;

/// One thing a person or the world does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Input {
    /// The robot hears `words` (confidence 1: sure).
    Say {
        /// What is said.
        words: String,
    },
    /// The robot hears `word`, a word of its vocabulary, unsure ([`UNSURE_CONFIDENCE`]):
    /// someone said something else while only ALSpeechRecognition listened.
    Mishear {
        /// The vocabulary word reported.
        word: String,
    },
    /// A touch sensor is pressed and released ([`choreo_naoqi::TOUCH_SENSORS`]).
    Touch {
        /// Its ALMemory key.
        sensor: String,
    },
    /// ALMemory event `key` is raised with `value`.
    Event {
        /// The key.
        key: String,
        /// The value the NAOqi documentation gives for it.
        value: Value,
    },
    /// Nothing happens for [`WAIT_SECONDS`] more: the run goes on past its horizon.
    Wait,
    /// The robot is in `name` when the behavior starts (a person laid it on its belly, sat
    /// it down): one of ALRobotPosture's for the model (a scenario's `posture`).
    Posture {
        /// The posture.
        name: String,
    },
    /// The person the robot sees wears this face (a scenario's `face`): ALFaceCharacteristics
    /// reads it.
    Face {
        /// Female or male.
        gender: choreo_naoqi::Gender,
        /// The expression.
        expression: choreo_naoqi::Expression,
    },
    /// Box code's draw number `draw` by chance (a die, a random answer: `random.randint`,
    /// `choice`) takes `outcome` of its `of`, where the seed gave another
    /// (`choreo_engine::chance`; a scenario's `chance`).
    Chance {
        /// The draw's number in the run (the first is 1).
        draw: u64,
        /// How many outcomes it has.
        of: u64,
        /// The one it takes, in `0..of`.
        outcome: u64,
    },
}

impl Input {
    /// The scenario action that does it (none for a wait, nor for a draw: the scenario's
    /// `chance` sets it).
    pub fn action(&self) -> Option<Action> {
        Some(match self {
            Input::Wait | Input::Chance { .. } | Input::Posture { .. } | Input::Face { .. } => {
                return None;
            }
            Input::Say { words } => Action::Recognize {
                word: words.clone(),
                confidence: 1.0,
            },
            Input::Mishear { word } => Action::Recognize {
                word: word.clone(),
                confidence: UNSURE_CONFIDENCE,
            },
            Input::Touch { sensor } => Action::Touch {
                sensor: sensor.clone(),
                hold: choreo_naoqi::scenario::TOUCH_HOLD_SECONDS,
            },
            Input::Event { key, value } => Action::RaiseEvent {
                key: key.clone(),
                value: value.clone(),
            },
        })
    }

    /// A short description: `say "yes"`, `touch FrontTactilTouched`.
    pub fn describe(&self) -> String {
        match self {
            Input::Say { words } => format!("say {words:?}"),
            Input::Mishear { word } => format!("say something else (heard {word:?}, unsure)"),
            Input::Touch { sensor } => format!("touch {sensor}"),
            Input::Event { key, value } => format!("raise {key} = {value}"),
            Input::Wait => format!("wait {WAIT_SECONDS} s more"),
            Input::Chance { draw, of, outcome } => {
                format!("draw {draw} by chance takes {outcome} of {of}")
            }
            Input::Posture { name } => format!("the robot starts in {name}"),
            Input::Face { gender, expression } => {
                format!("the person seen is {gender:?}, {expression:?}").to_lowercase()
            }
        }
    }
}

/// An input at a moment of behavior time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Seconds of behavior time.
    pub at: f64,
    /// What happens.
    pub input: Input,
}

/// The events a project's web pages raise, with their values ([`super::tablet`]).
pub type Tablet = std::collections::BTreeMap<String, Vec<Value>>;

/// What can be done while the robot listens for `listening`, in a fixed order: the rules'
/// sentences (topic order), the vocabulary's words, something nothing expects (a phrase no
/// rule matches while a dialog listens; else, while only ALSpeechRecognition does, its first
/// word heard unsure, as it reports), then touches, world events and the `tablet`'s events of
/// the keys subscribed. Each at most once.
pub fn candidates(listening: &Listening, tablet: &Tablet) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    let mut push = |input: Input| {
        if !out.contains(&input) {
            out.push(input);
        }
    };
    for rule in &listening.rules {
        if let Some(sentence) = &rule.sentence {
            push(Input::Say {
                words: sentence.clone(),
            });
        }
        for key in &rule.events {
            let raised = keyed(key);
            if raised.is_empty() {
                push(Input::Event {
                    key: key.clone(),
                    value: Value::Int(1),
                });
            }
            raised.into_iter().for_each(&mut push);
        }
    }
    for word in &listening.words {
        push(Input::Say {
            words: word.clone(),
        });
    }
    if !listening.rules.is_empty() {
        push(Input::Say {
            words: UNKNOWN_PHRASE.to_string(),
        });
    } else if let Some(word) = listening.words.first() {
        push(Input::Mishear { word: word.clone() });
    }
    for key in &listening.keys {
        keyed(key).into_iter().for_each(&mut push);
        for value in tablet.get(key).into_iter().flatten() {
            push(Input::Event {
                key: key.clone(),
                value: value.clone(),
            });
        }
    }
    out
}

/// The inputs that raise `key` (none where the world does not raise it).
fn keyed(key: &str) -> Vec<Input> {
    if TOUCH_SENSORS.iter().any(|(sensor, _)| *sensor == key) {
        return vec![Input::Touch {
            sensor: key.to_string(),
        }];
    }
    // The world's events, each with the values its NAOqi documentation gives
    // (`choreo_naoqi::WORLD_EVENTS`); a key neither there nor a touch is the robot's own or
    // the behavior's, and explore names it as what it cannot produce.
    world_event(key)
        .map(|event| (event.values)())
        .unwrap_or_default()
        .into_iter()
        .map(|value| Input::Event {
            key: key.to_string(),
            value,
        })
        .collect()
}

/// Keys the robot raises itself for what explore does produce: what ALSpeechRecognition
/// heard and that it heard a voice (`WordRecognized`, `SpeechDetected`: ALSpeechRecognition's
/// page) and ALDialog's events.
fn raised_for_speech(key: &str) -> bool {
    matches!(key, "WordRecognized" | "SpeechDetected") || key.starts_with("Dialog/")
}

/// The keys among `listening`'s that explore cannot produce (the robot's own, the
/// behavior's own, the world's it has no documented value for).
pub fn unproduced(listening: &Listening, tablet: &Tablet) -> Vec<String> {
    listening
        .keys
        .iter()
        .filter(|k| keyed(k).is_empty() && !raised_for_speech(k) && !tablet.contains_key(*k))
        .cloned()
        .collect()
}

/// The scenario that plays `steps` (entries at their times).
pub fn scenario(steps: &[Step], name: &str) -> Scenario {
    Scenario {
        name: name.to_string(),
        entries: steps
            .iter()
            .filter_map(|s| {
                Some(Entry {
                    trigger: Trigger::At(s.at),
                    action: s.input.action()?,
                })
            })
            .collect(),
        chance: steps
            .iter()
            .filter_map(|s| match s.input {
                Input::Chance { draw, outcome, .. } => Some((draw, outcome)),
                _ => None,
            })
            .collect(),
        posture: start_posture(steps).map(str::to_string),
        face: face_of(steps),
    }
}

/// The face `steps` give the person the robot sees, if they say.
fn face_of(steps: &[Step]) -> Option<choreo_naoqi::Face> {
    steps.iter().find_map(|s| match s.input {
        Input::Face { gender, expression } => Some(choreo_naoqi::Face { gender, expression }),
        _ => None,
    })
}

/// The paths that run `steps` with the person the robot sees wearing each other face, one
/// property at a time (the other gender; each other expression), when box code analyzed a
/// face (`read`: when it first did) after the path's last input and the path does not set
/// it: a box that waits for a gender or an expression (the stock Get Gender and Get
/// Expression) is run once with each.
pub fn other_faces(steps: &[Step], read: Option<f64>) -> Vec<Vec<Step>> {
    let since = steps.last().map_or(0.0, |s| s.at);
    if face_of(steps).is_some() || read.is_none_or(|t| t < since) {
        return Vec::new();
    }
    let usual = choreo_naoqi::Face::default();
    let other_gender = match usual.gender {
        choreo_naoqi::Gender::Female => choreo_naoqi::Gender::Male,
        choreo_naoqi::Gender::Male => choreo_naoqi::Gender::Female,
    };
    let faces = std::iter::once(choreo_naoqi::Face {
        gender: other_gender,
        ..usual
    })
    .chain(
        choreo_naoqi::Expression::ALL
            .into_iter()
            .filter(|e| *e != usual.expression)
            .map(|expression| choreo_naoqi::Face {
                expression,
                ..usual
            }),
    );
    faces
        .map(|face| {
            let mut path = vec![Step {
                at: 0.0,
                input: Input::Face {
                    gender: face.gender,
                    expression: face.expression,
                },
            }];
            path.extend(steps.iter().cloned());
            path
        })
        .collect()
}

/// The posture `steps` start the robot in, if they say.
fn start_posture(steps: &[Step]) -> Option<&str> {
    steps.iter().find_map(|s| match &s.input {
        Input::Posture { name } => Some(name.as_str()),
        _ => None,
    })
}

/// The paths that start `steps` with the robot in each other posture family of `model`
/// (its first posture of the family in the library's order: NAO's Crouch, Sit, LyingBelly,
/// LyingBack; Pepper's Crouch), when the run asked the robot's posture (`read`: when it
/// first did) after the path's last input and the path does not set it: a behavior that
/// reads the posture (the stock 1.x Stand Up and Sit Down boxes switch on ALRobotPose's) is
/// run once from each, with the same inputs.
pub fn other_postures(steps: &[Step], read: Option<f64>, model: crate::Model) -> Vec<Vec<Step>> {
    let since = steps.last().map_or(0.0, |s| s.at);
    if start_posture(steps).is_some() || read.is_none_or(|t| t < since) {
        return Vec::new();
    }
    let all = model.postures();
    let wake = all.iter().find(|p| p.name == model.wake_posture());
    let mut families: Vec<&str> = wake.map(|p| p.family).into_iter().collect();
    let mut out = Vec::new();
    for p in &all {
        if families.contains(&p.family) {
            continue;
        }
        families.push(p.family);
        let mut path = vec![Step {
            at: 0.0,
            input: Input::Posture {
                name: p.name.to_string(),
            },
        }];
        path.extend(steps.iter().cloned());
        out.push(path);
    }
    out
}

/// How many of the draws after a path's last input `choreo explore` tries otherwise.
pub const DRAWS_VARIED: usize = 2;

/// The most outcomes of a draw `choreo explore` tries each of: a die, a menu of answers, the
/// stock 1.x Choice box's nine animations (`randint(0, 8)`); a draw of more (a colour, a
/// number to guess) is a quantity more than a branch, and keeps the seed's.
pub const OUTCOMES_VARIED: u64 = 12;

/// A draw box code made, when ([`crate::explore::Ran`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Drawn {
    /// Seconds of behavior time.
    pub time: f64,
    /// Its number in the run.
    pub draw: u64,
    /// How many outcomes it had.
    pub of: u64,
    /// The one it took.
    pub outcome: u64,
}

/// The other outcomes of the first [`DRAWS_VARIED`] draws made after `steps`' last input,
/// each a step of its own (of draws of 2 to [`OUTCOMES_VARIED`] outcomes, not set by a
/// step already): what chance could have done instead.
pub fn other_draws(steps: &[Step], draws: &[Drawn]) -> Vec<Step> {
    let since = steps.last().map_or(0.0, |s| s.at);
    let set = steps
        .iter()
        .filter_map(|s| match s.input {
            Input::Chance { draw, .. } => Some(draw),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    draws
        .iter()
        .filter(|d| d.time >= since && d.draw > set && (2..=OUTCOMES_VARIED).contains(&d.of))
        .take(DRAWS_VARIED)
        .flat_map(|d| {
            (0..d.of).filter(|o| *o != d.outcome).map(|outcome| Step {
                at: (d.time * 1000.0).round() / 1000.0,
                input: Input::Chance {
                    draw: d.draw,
                    of: d.of,
                    outcome,
                },
            })
        })
        .collect()
}

/// `steps` as a scenario file (YAML, the `--events` format: docs/scenarios.md) that
/// `choreo run --events` replays; strings and values written as JSON, which YAML reads. A
/// wait is a comment: a run without `--timeout` goes on by itself.
pub fn scenario_file(steps: &[Step], description: &str) -> String {
    let json = |v: &serde_json::Value| serde_json::to_string(v).unwrap_or_default();
    let text = |s: &str| json(&serde_json::Value::from(s));
    let mut out = format!("description: {}\nevents:\n", text(description));
    if steps.iter().all(|s| s.input.action().is_none()) {
        out = format!("description: {}\nevents: []\n", text(description));
    }
    let mut chance = String::new();
    for s in steps {
        if matches!(s.input, Input::Posture { .. } | Input::Face { .. }) {
            continue;
        }
        if let Input::Chance { draw, of, outcome } = &s.input {
            chance.push_str(&format!(
                "  - {{draw: {draw}, outcome: {outcome}}}  # of {of}, at {} s\n",
                s.at
            ));
            continue;
        }
        if s.input == Input::Wait {
            out.push_str(&format!(
                "  # from {} s, nothing happens for a while\n",
                s.at
            ));
            continue;
        }
        out.push_str(&format!("  - at: {}\n", s.at));
        match &s.input {
            Input::Wait | Input::Chance { .. } | Input::Posture { .. } | Input::Face { .. } => {}
            Input::Say { words } => out.push_str(&format!(
                "    recognize: {{word: {}, confidence: 1.0}}\n",
                text(words)
            )),
            Input::Mishear { word } => out.push_str(&format!(
                "    recognize: {{word: {}, confidence: {UNSURE_CONFIDENCE}}}\n",
                text(word)
            )),
            Input::Touch { sensor } => out.push_str(&format!("    touch: {}\n", text(sensor))),
            Input::Event { key, value } => out.push_str(&format!(
                "    raise_event: {{key: {}, value: {}}}\n",
                text(key),
                json(&serde_json::to_value(value).unwrap_or_default())
            )),
        }
    }
    if !chance.is_empty() {
        out.push_str("chance:\n");
        out.push_str(&chance);
    }
    if let Some(name) = start_posture(steps) {
        out.push_str(&format!("posture: {}\n", text(name)));
    }
    if let Some(face) = face_of(steps) {
        let face = json(&serde_json::to_value(face).unwrap_or_default());
        out.push_str(&format!("face: {face}\n"));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use choreo_qichat::dialog::listening::Listened;

    #[test]
    fn a_path_written_as_a_scenario_reads_back_as_the_same_entries() {
        let steps = vec![
            Step {
                at: 2.5,
                input: Input::Say {
                    words: "yes \"please\"".into(),
                },
            },
            Step {
                at: 3.0,
                input: Input::Mishear { word: "red".into() },
            },
            Step {
                at: 4.0,
                input: Input::Touch {
                    sensor: "FrontTactilTouched".into(),
                },
            },
            Step {
                at: 7.25,
                input: Input::Event {
                    key: "robotHasFallen".into(),
                    value: Value::Bool(true),
                },
            },
            Step {
                at: 60.0,
                input: Input::Wait,
            },
        ];
        let text = scenario_file(&steps, "a: path");
        let read = Scenario::from_str(&text, "path.yaml").unwrap();
        assert_eq!(read.entries, scenario(&steps, "x").entries);
    }

    #[test]
    fn what_is_listened_for_gives_each_input_once_in_order() {
        let listening = Listening {
            words: vec!["yes".into(), "no".into()],
            rules: vec![Listened {
                topic: "t".into(),
                line: 3,
                sentence: Some("yes".into()),
                events: vec!["MiddleTactilTouched".into()],
            }],
            keys: vec!["FrontTactilTouched".into(), "MyApp/Go".into()],
        };
        let tablet = Tablet::from([("MyApp/Go".to_string(), vec![Value::Int(2)])]);
        let described = |listening: &Listening| -> Vec<String> {
            let inputs = candidates(listening, &Tablet::new());
            inputs.iter().map(Input::describe).collect()
        };
        assert_eq!(
            described(&listening),
            [
                "say \"yes\"",
                "touch MiddleTactilTouched",
                "say \"no\"",
                "say \"purple elephant\"",
                "touch FrontTactilTouched"
            ]
        );
        assert_eq!(unproduced(&listening, &Tablet::new()), ["MyApp/Go"]);
        // A key the project's web pages raise is raised with their value.
        let with_tablet = candidates(&listening, &tablet);
        assert_eq!(
            with_tablet.last().map(Input::describe).as_deref(),
            Some("raise MyApp/Go = 2")
        );
        assert!(unproduced(&listening, &tablet).is_empty());
        // Only ALSpeechRecognition listens: what else is said comes back as its first word,
        // unsure, never as words outside its vocabulary.
        let asr = Listening {
            rules: Vec::new(),
            ..listening
        };
        assert_eq!(
            described(&asr),
            [
                "say \"yes\"",
                "say \"no\"",
                "say something else (heard \"yes\", unsure)",
                "touch FrontTactilTouched"
            ]
        );
        match candidates(&asr, &Tablet::new())[2].action() {
            Some(Action::Recognize { word, confidence }) => {
                assert_eq!(word, "yes");
                assert!(confidence < 0.2, "below the Choice box's lower threshold");
            }
            other => panic!("{other:?}"),
        }
    }
}
