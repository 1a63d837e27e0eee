//! ALTextToSpeech: speech that takes the time a robot would take (ALAnimatedSpeech builds
//! on it: `animated_speech.rs`).
//!
//! **Duration** (docs/simulated-robot.md, Durations): the text is cleaned (`\tag\` commands and `^name(...)`
//! markup removed, runs of white space made one space, trimmed); each remaining character
//! takes 0.065 s and each sentence end (a run of `.`, `!`, `?`) 0.3 s more, both divided by
//! speed/100, where the speed is the `speed` parameter (default 100) or a `\RSPD=n\` tag in
//! force (`\RST\` resets it); each `\PAU=ms\` adds its milliseconds; ALAnimatedSpeech adds
//! the pauses its `^wait(...)` and `^run(...)` make. A text with something to say lasts at
//! least 0.4 s; an empty one takes no time. A 60-character sentence lasts
//! 60 × 0.065 + 0.3 = 4.2 s.
//!
//! Speeches queue (B4): a `say` while another speaks starts when it ends. Events:
//! `ALTextToSpeech/TextStarted` = 1 at the start, `ALTextToSpeech/TextDone` = 1 at the end,
//! `ALTextToSpeech/TextInterrupted` = 1 when stopped while speaking.

use std::collections::BTreeMap;

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_robot::languages::LANGUAGES;

use crate::robot::args::Args;
use crate::robot::core::Plan;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::trajectory::after;

/// Seconds per spoken character (about 150 words a minute).
pub const SECONDS_PER_CHARACTER: f64 = 0.065;
/// Seconds added per sentence end.
pub const SECONDS_PER_SENTENCE_END: f64 = 0.3;
/// The shortest speech, in seconds.
pub const MINIMUM_SECONDS: f64 = 0.4;

/// The speech state.
pub(crate) struct Speech {
    /// Every text spoken, in order of start.
    pub spoken: Vec<String>,
    language: String,
    volume: f64,
    parameters: BTreeMap<String, f64>,
    voice: String,
    /// ALAnimatedSpeech's body language mode (`animated_speech::MODES`' index).
    pub body_language_mode: i64,
    /// Whether ALAnimatedSpeech's body language is enabled (`setBodyTalkEnabled`).
    pub body_talk: bool,
    /// Speeches queued or speaking: (serial, text, start, end).
    queue: Vec<(u64, String, Time, Time)>,
    next_serial: u64,
}

impl Default for Speech {
    fn default() -> Speech {
        Speech {
            spoken: Vec::new(),
            language: "English".into(),
            volume: 1.0,
            parameters: BTreeMap::from([
                ("speed".to_string(), 100.0),
                ("pitchShift".to_string(), 1.0),
                ("doubleVoice".to_string(), 0.0),
                ("doubleVoiceLevel".to_string(), 0.0),
                ("doubleVoiceTimeShift".to_string(), 0.0),
            ]),
            voice: "naoenu".into(),
            body_language_mode: 2,
            body_talk: true,
            queue: Vec::new(),
            next_serial: 0,
        }
    }
}

impl Speech {
    /// Sets the speech language (an installed one's name).
    pub(crate) fn set_language(&mut self, name: &str) {
        self.language = name.to_string();
    }

    /// The text being spoken at `now`.
    pub fn speaking(&self, now: Time) -> Option<String> {
        self.queue
            .iter()
            .find(|(_, _, start, end)| *start <= now && now < *end)
            .map(|(_, text, _, _)| text.clone())
    }

    fn forget(&mut self, serial: u64) {
        self.queue.retain(|(s, ..)| *s != serial);
    }
}

/// What a text says and how long it takes (see the module documentation); its `^...`
/// instructions are not said and take no time.
pub fn speech_duration(text: &str, base_speed: f64) -> (String, f64) {
    walk(text, base_speed, |_, _, _| 0.0)
}

/// Speaks `text` in thought: returns what is said and how long it takes (see the module
/// documentation). Each `^name(argument)` instruction is handed to `instruction` with the
/// time it comes at (seconds from the start, pauses included); what it returns is a pause
/// added there (ALAnimatedSpeech's `^wait`, `^run`).
pub(crate) fn walk(
    text: &str,
    base_speed: f64,
    mut instruction: impl FnMut(&str, &str, f64) -> f64,
) -> (String, f64) {
    let mut spoken = String::new();
    let mut seconds = 0.0;
    let mut pauses = 0.0;
    let mut speed = base_speed;
    let mut pending_space = false;
    let mut chars = text.chars().peekable();
    let per = |speed: f64| 100.0 / speed.max(1.0);
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let tag: String = chars.by_ref().take_while(|&c| c != '\\').collect();
                let (name, value) = tag.split_once('=').unwrap_or((tag.as_str(), ""));
                let value: Option<f64> = value.trim().parse().ok();
                match (name.trim().to_ascii_uppercase().as_str(), value) {
                    ("RSPD", Some(v)) if v > 0.0 => speed = v,
                    ("RST", _) => speed = base_speed,
                    ("PAU", Some(ms)) if ms > 0.0 => pauses += ms / 1000.0,
                    _ => {}
                }
            }
            '^' => {
                let mut name = String::new();
                while let Some(&c) = chars.peek() {
                    if !c.is_ascii_alphanumeric() && c != '_' {
                        break;
                    }
                    name.push(c);
                    chars.next();
                }
                let mut argument = String::new();
                if chars.peek() == Some(&'(') {
                    chars.next();
                    argument = chars.by_ref().take_while(|&c| c != ')').collect();
                }
                let pause = instruction(&name, argument.trim(), seconds + pauses);
                if pause.is_finite() && pause > 0.0 {
                    pauses += pause;
                }
            }
            c if c.is_whitespace() => pending_space = !spoken.is_empty(),
            c => {
                if pending_space {
                    spoken.push(' ');
                    seconds += SECONDS_PER_CHARACTER * per(speed);
                    pending_space = false;
                }
                let sentence_end =
                    matches!(c, '.' | '!' | '?') && !matches!(chars.peek(), Some('.' | '!' | '?'));
                spoken.push(c);
                seconds += SECONDS_PER_CHARACTER * per(speed);
                if sentence_end {
                    seconds += SECONDS_PER_SENTENCE_END * per(speed);
                }
            }
        }
    }
    let total = seconds + pauses;
    let total = if spoken.is_empty() && pauses == 0.0 {
        0.0
    } else {
        total.max(MINIMUM_SECONDS)
    };
    (spoken, total)
}

fn language(a: &Args<'_>, i: usize) -> Result<String, CallError> {
    let name = a.str(i)?;
    if installed(name) {
        Ok(name.to_string())
    } else {
        let names: Vec<&str> = LANGUAGES.iter().map(|l| l.name).collect();
        Err(CallError::Failed(format!(
            "{}: language {name:?} is not installed (available: {})",
            a.name,
            names.join(", ")
        )))
    }
}

/// Whether the simulated robot speaks language `name` (it has every language pack).
pub(crate) fn installed(name: &str) -> bool {
    choreo_robot::languages::by_name(name).is_some()
}

/// Languages as a value.
pub(crate) fn languages() -> Value {
    Value::List(LANGUAGES.iter().map(|l| Value::from(l.name)).collect())
}

/// The speed of speech in force (the `speed` parameter).
pub(crate) fn speed(sim: &Sim) -> f64 {
    sim.state()
        .part::<Speech>()
        .parameters
        .get("speed")
        .copied()
        .unwrap_or(100.0)
}

/// Plans the speech of `spoken`, lasting `seconds`, queued after the speeches in progress:
/// the plan (TextStarted at its start, TextDone at its end, TextInterrupted if stopped while
/// speaking) and when it starts.
pub(crate) fn speak(sim: &Sim, spoken: String, seconds: f64) -> (Plan, Time) {
    let now = sim.now();
    let mut state = sim.state();
    let start = state
        .part::<Speech>()
        .queue
        .iter()
        .map(|(_, _, _, end)| *end)
        .max()
        .unwrap_or(now)
        .max(now);
    let end = after(start, seconds);
    let serial = state.part::<Speech>().next_serial;
    state.part::<Speech>().next_serial += 1;
    state
        .part::<Speech>()
        .queue
        .push((serial, spoken.clone(), start, end));
    drop(state);
    let (said, stopped) = (spoken.clone(), spoken);
    let plan = Plan::until(end)
        .at(start, move |sim: &Sim| {
            sim.state().part::<Speech>().spoken.push(said.clone());
            sim.observe(RobotEvent::Said {
                text: said.clone(),
                duration: seconds,
            });
            sim.insert("ALTextToSpeech/CurrentSentence", Value::String(said));
            sim.raise("ALTextToSpeech/TextStarted", Value::Int(1));
        })
        .at(end, move |sim: &Sim| {
            sim.state().part::<Speech>().forget(serial);
            sim.raise("ALTextToSpeech/TextDone", Value::Int(1));
        })
        .on_stop(move |sim: &Sim| {
            let now = sim.now();
            let started = {
                let mut state = sim.state();
                let started = state
                    .part::<Speech>()
                    .queue
                    .iter()
                    .any(|(s, _, start, _)| *s == serial && *start <= now);
                state.part::<Speech>().forget(serial);
                started
            };
            if started {
                sim.observe(RobotEvent::SpeechInterrupted { text: stopped });
                sim.raise("ALTextToSpeech/TextInterrupted", Value::Int(1));
            }
        });
    (plan, start)
}

/// Serves ALTextToSpeech.
pub(crate) fn serve_tts(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    Ok(match method {
        "say" => {
            if a.len() > 1 {
                language(a, 1)?;
            }
            let (spoken, seconds) = speech_duration(a.str(0)?, speed(sim));
            Reply::Timed(speak(sim, spoken, seconds).0)
        }
        "stopAll" => {
            sim.stop_all("ALTextToSpeech", &["say"]);
            sim.stop_all("ALAnimatedSpeech", &["say"]);
            Reply::Now(Value::None)
        }
        "getLanguage" => Reply::Now(Value::String(sim.state().part::<Speech>().language.clone())),
        "setLanguage" => {
            let l = language(a, 0)?;
            sim.state().part::<Speech>().language = l;
            Reply::Now(Value::None)
        }
        "getAvailableLanguages" | "getSupportedLanguages" => Reply::Now(languages()),
        "locale" => Reply::Now(Value::from("en_US")),
        "setVolume" => {
            let v = a.f64(0)?;
            if !(0.0..=1.0).contains(&v) {
                return Err(CallError::Failed(format!(
                    "{}: volume {v} is not in 0..1",
                    a.name
                )));
            }
            sim.state().part::<Speech>().volume = v;
            Reply::Now(Value::None)
        }
        "getVolume" => Reply::Now(Value::Float(sim.state().part::<Speech>().volume)),
        "setParameter" => {
            let (name, value) = (a.str(0)?, a.f64(1)?);
            if name == "speed" && !(50.0..=400.0).contains(&value) {
                return Err(CallError::Failed(format!(
                    "{}: speed {value} is not in 50..400",
                    a.name
                )));
            }
            sim.state()
                .part::<Speech>()
                .parameters
                .insert(name.to_string(), value);
            Reply::Now(Value::None)
        }
        "getParameter" => {
            let name = a.str(0)?;
            let value = sim.state().part::<Speech>().parameters.get(name).copied();
            Reply::Now(Value::Float(value.ok_or_else(|| {
                CallError::Failed(format!("{}: unknown parameter {name:?}", a.name))
            })?))
        }
        "resetSpeed" => {
            sim.state()
                .part::<Speech>()
                .parameters
                .insert("speed".to_string(), 100.0);
            Reply::Now(Value::None)
        }
        "setVoice" => {
            let v = a.str(0)?.to_string();
            sim.state().part::<Speech>().voice = v;
            Reply::Now(Value::None)
        }
        "getVoice" => Reply::Now(Value::String(sim.state().part::<Speech>().voice.clone())),
        "getAvailableVoices" => Reply::Now(Value::List(vec![Value::from("naoenu")])),
        _ => Reply::NotServed,
    })
}

/// Argument 0: the name of an installed language (ALSpeechRecognition and ALDialog take
/// the languages the robot speaks).
pub(crate) fn checked_language(a: &Args<'_>) -> Result<String, CallError> {
    let name = a.str(0)?;
    if installed(name) {
        Ok(name.to_string())
    } else {
        Err(CallError::Failed(format!(
            "{}: language {name:?} is not installed",
            a.name
        )))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn duration_follows_the_formula() {
        let (text, s) = speech_duration("Hello, how are you?", 100.0);
        assert_eq!(text, "Hello, how are you?");
        assert!(close(s, 19.0 * 0.065 + 0.3), "{s}");
        let (_, s) = speech_duration("Hi", 100.0);
        assert!(close(s, 0.4));
        let (_, s) = speech_duration("", 100.0);
        assert!(close(s, 0.0));
    }

    #[test]
    fn tags_are_not_spoken_and_change_timing() {
        let (text, s) = speech_duration("\\RSPD=50\\ \\VCT=100\\ Hello  world \\RST\\", 100.0);
        assert_eq!(text, "Hello world");
        assert!(close(s, 11.0 * 0.065 * 2.0), "{s}");
        let (text, s) = speech_duration("Wait\\PAU=1000\\...", 100.0);
        assert_eq!(text, "Wait...");
        assert!(close(s, 7.0 * 0.065 + 0.3 + 1.0), "{s}");
    }

    #[test]
    fn instructions_are_not_said_and_their_pauses_count() {
        let t =
            "^start(animations/Stand/Gestures/Hey_1) Hello ^wait(animations/Stand/Gestures/Hey_1)";
        let (text, plain) = speech_duration(t, 100.0);
        assert_eq!(text, "Hello");
        assert!(close(plain, 0.4));
        let mut seen = Vec::new();
        let (_, paused) = walk("One ^run(x) two ^mode(disabled)", 100.0, |name, arg, at| {
            seen.push((name.to_string(), arg.to_string(), at));
            if name == "run" { 1.5 } else { 0.0 }
        });
        assert_eq!(seen[0].0, "run");
        assert_eq!(seen[0].1, "x");
        assert!(close(seen[0].2, 3.0 * 0.065), "{seen:?}");
        assert!(close(seen[1].2, 7.0 * 0.065 + 1.5), "{seen:?}");
        assert!(close(paused, 7.0 * 0.065 + 1.5), "{paused}");
    }
}
