//! ALAnimatedSpeech: speech (`tts.rs`'s timing and queue) with the animations its text
//! names, and body language.
//!
//! **Instructions** in the text are not said. `^start(anim)` starts an animation and the
//! speech goes on; `^wait(anim)` pauses the speech until that animation ends (at once if it
//! has); `^run(anim)` starts it and pauses the speech for its length; `^stop(anim)` stops
//! it. `^startTag(tag)`, `^waitTag(tag)`, `^runTag(tag)` and `^stopTag(tag)` do the same
//! with the animation the tag chooses (as ALAnimationPlayer's `runTag`). Names and tags
//! resolve as ALAnimationPlayer's (`animation.rs`): an animation it cannot find is logged as
//! a warning and skipped, and the speech goes on. `^mode(contextual|random|disabled)`
//! changes the body language mode for the rest of the text.
//!
//! **Durations.** The speech lasts its text's time plus the pauses `^wait` and `^run` make
//! (each animation's length from the animation library); `say` returns when the speech and
//! the animations it started have ended (docs/simulated-robot.md), then raises
//! `ALAnimatedSpeech/EndOfAnimatedSpeech` (value 1: no source says what it carries).
//!
//! **Body language.** In the contextual and random modes (the default: contextual), with
//! body talk enabled, the robot makes small speaking gestures, one arm then the other,
//! while it speaks and no animation of the text plays: strokes as long as the median of
//! NAO's stock speaking body-talk animations (`Stand/BodyTalk/Speaking`, 2.14 s), each
//! back to where it started. Disabled (the mode, a configuration's `bodyLanguageMode` or
//! `speakingMovementMode`, `^mode(disabled)`, `setBodyTalkEnabled(false)`): no gesture but
//! the text's own. The two modes move alike; words do not choose animations here
//! (`addTagsToWords` is kept, not used).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_robot::Model;
use choreo_robot::animations::{DEFAULT_SECONDS, Library};

use crate::robot::args::Args;
use crate::robot::core::{Plan, Task};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::trajectory::after;
use crate::services::audio::tts::Speech;
use crate::services::audio::tts::{speak, speed, walk};
use crate::services::motion::animation::{
    Playable, Shape, add_tags, by_tag, gesture, resolve, tag_map,
};

/// The body language modes, by their number (`setBodyLanguageMode`).
pub(crate) const MODES: &[&str] = &["disabled", "random", "contextual"];

const NAME: &str = "ALAnimatedSpeech";

/// The stock folder whose median length is a speaking gesture's.
const BODY_TALK: &str = "animations/Stand/BodyTalk/Speaking/";

/// The shortest stretch of speech that gets a speaking gesture, as a fraction of a stroke.
const SHORTEST_STROKE: f64 = 0.5;

/// What a cue does.
enum Action {
    /// Starts playable `.1` as start number `.0`.
    Start(usize, Playable),
    /// Stops start number `.0`.
    Stop(usize),
}

/// An animated text worked out before it is said: what happens when (seconds from the
/// speech's start).
#[derive(Default)]
struct Script {
    /// Cues in the order they come.
    cues: Vec<(f64, Action)>,
    /// Per start number: when it ends (its length, or its stop).
    ends: Vec<f64>,
    /// The start number each key (`name`, or `tag:name`) last had.
    keys: HashMap<String, usize>,
    /// The body language mode from each time on.
    modes: Vec<(f64, i64)>,
}

impl Script {
    fn new(mode: i64) -> Script {
        Script {
            modes: vec![(0.0, mode)],
            ..Script::default()
        }
    }

    fn start(&mut self, key: String, at: f64, playable: Playable) -> f64 {
        self.stop(&key, at);
        let seconds = playable.seconds();
        let n = self.ends.len();
        self.ends.push(at + seconds);
        self.keys.insert(key, n);
        self.cues.push((at, Action::Start(n, playable)));
        seconds
    }

    /// The end of the animation `key` names, if it plays after `at`.
    fn running(&self, key: &str, at: f64) -> Option<(usize, f64)> {
        let n = *self.keys.get(key)?;
        let end = *self.ends.get(n)?;
        (end > at).then_some((n, end))
    }

    fn stop(&mut self, key: &str, at: f64) {
        if let Some((n, _)) = self.running(key, at) {
            self.ends[n] = at;
            self.cues.push((at, Action::Stop(n)));
        }
    }

    /// One `^name(argument)` at `at`: the pause it makes.
    fn instruction(&mut self, sim: &Sim, name: &str, argument: &str, at: f64) -> f64 {
        let (verb, tagged) = match name.strip_suffix("Tag") {
            Some(verb) => (verb, true),
            None => (name, false),
        };
        let key = if tagged {
            format!("tag:{argument}")
        } else {
            argument.to_string()
        };
        match verb {
            "start" | "run" => {
                let found = if tagged {
                    by_tag(sim, argument, None)
                } else {
                    resolve(sim, &package(sim, argument))
                };
                match found {
                    Ok(playable) => {
                        let seconds = self.start(key, at, playable);
                        if verb == "run" { seconds } else { 0.0 }
                    }
                    Err(e) => {
                        warn(sim, format!("^{name}({argument}): {e}; skipped"));
                        0.0
                    }
                }
            }
            "wait" => self.running(&key, at).map_or(0.0, |(_, end)| end - at),
            "stop" => {
                self.stop(&key, at);
                0.0
            }
            "mode" if !tagged => {
                match mode_of(argument) {
                    Some(m) => self.modes.push((at, m)),
                    None => warn(
                        sim,
                        format!("^mode({argument}): not contextual, random or disabled"),
                    ),
                }
                0.0
            }
            _ => 0.0,
        }
    }

    /// Stretches of `[0, seconds]` where the robot speaks and no animation of the text
    /// plays, with the body language mode at their start.
    fn talking(&self, seconds: f64, pauses: &[(f64, f64)]) -> Vec<(f64, f64)> {
        let plays = self.cues.iter().filter_map(|(at, action)| match action {
            Action::Start(n, _) => self.ends.get(*n).map(|end| (*at, *end)),
            Action::Stop(_) => None,
        });
        // Where the mode is disabled, no stroke either.
        let disabled = self
            .modes
            .iter()
            .enumerate()
            .filter(|(_, (_, m))| *m == 0)
            .map(|(i, (at, _))| (*at, self.modes.get(i + 1).map_or(seconds, |(t, _)| *t)));
        pauses
            .iter()
            .copied()
            .chain(plays)
            .chain(disabled)
            .fold(vec![(0.0, seconds)], without)
    }

    /// Speaking gestures filling `stretches`.
    fn body_talk(&mut self, stretches: &[(f64, f64)]) {
        let stroke = Library::stock()
            .median_seconds(Model::Nao, BODY_TALK)
            .unwrap_or(DEFAULT_SECONDS);
        let mut left = true;
        for &(a, b) in stretches {
            let length = b - a;
            if length < stroke * SHORTEST_STROKE {
                continue;
            }
            let count = (length / stroke).round().max(1.0);
            let each = length / count;
            for k in 0..count as usize {
                let at = a + k as f64 * each;
                let playable = Playable::Stock {
                    name: "body language".into(),
                    seconds: each,
                    shape: Shape::Talk(left),
                };
                left = !left;
                self.start(format!("body:{at}"), at, playable);
            }
        }
    }
}

/// `stretches` less the times of `cut`.
fn without(stretches: Vec<(f64, f64)>, cut: (f64, f64)) -> Vec<(f64, f64)> {
    let (a, b) = cut;
    stretches
        .into_iter()
        .flat_map(|(x, y): (f64, f64)| [(x, y.min(a)), (x.max(b), y)])
        .filter(|(x, y)| y > x)
        .collect()
}

/// `name` as given, or under the package `declareAnimationsPackage` named when it is not an
/// animation as given.
fn package(sim: &Sim, name: &str) -> String {
    let declared = sim.setting(NAME, "AnimationsPackage");
    match declared {
        Some(Value::String(p)) if resolve(sim, name).is_err() => {
            format!("{}/{name}", p.trim_end_matches('/'))
        }
        _ => name.to_string(),
    }
}

fn warn(sim: &Sim, message: String) {
    sim.observe(RobotEvent::Log {
        level: "warning".into(),
        source: NAME.into(),
        message,
    });
}

fn mode_of(name: &str) -> Option<i64> {
    MODES
        .iter()
        .position(|m| m.eq_ignore_ascii_case(name.trim()))
        .map(|i| i as i64)
}

/// A configuration's body language mode (`bodyLanguageMode` or `speakingMovementMode`, a
/// name or a number), if it gives one.
fn configured_mode(a: &Args<'_>, i: usize) -> Result<Option<i64>, CallError> {
    let Some(config) = a.values.get(i) else {
        return Ok(None);
    };
    let pairs: Vec<(&Value, &Value)> = match config {
        Value::Map(m) => m.iter().map(|(k, v)| (k, v)).collect(),
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .filter_map(|p| match p {
                Value::List(kv) | Value::Tuple(kv) if kv.len() == 2 => Some((&kv[0], &kv[1])),
                _ => None,
            })
            .collect(),
        Value::None => return Ok(None),
        _ => return Err(a.bad(i, "a configuration map")),
    };
    for (k, v) in pairs {
        let Value::String(k) = k else { continue };
        if k == "bodyLanguageMode" || k == "speakingMovementMode" {
            let mode = match v {
                Value::String(name) => mode_of(name),
                Value::Int(m) if (0..MODES.len() as i64).contains(m) => Some(*m),
                _ => None,
            };
            return mode
                .map(Some)
                .ok_or_else(|| a.bad(i, "a bodyLanguageMode of contextual, random or disabled"));
        }
    }
    Ok(None)
}

/// What a start of the text left running, for its stop and its end.
enum Started {
    Gesture(Arc<Task>),
    Behavior(String),
}

type Slots = Arc<Mutex<Vec<Option<Started>>>>;

fn take(slots: &Slots, n: usize) -> Option<Started> {
    choreo_base::lock(slots).get_mut(n).and_then(Option::take)
}

/// Ends or stops what start number `n` left running: `end` lets a gesture reach its end,
/// else it is stopped where it is.
fn finish(sim: &Sim, slots: &Slots, n: usize, end: bool) {
    match take(slots, n) {
        Some(Started::Gesture(task)) if end => {
            sim.drive(&task, None);
        }
        Some(Started::Gesture(task)) => sim.stop_task(&task),
        Some(Started::Behavior(name)) if !end => {
            let _ = sim.call(
                "ALBehaviorManager",
                "stopBehavior",
                vec![Value::from(name.as_str())],
            );
        }
        Some(Started::Behavior(_)) | None => {}
    }
}

fn begin(sim: &Sim, slots: &Slots, n: usize, playable: Playable) {
    let started = match playable {
        Playable::Stock {
            name,
            seconds,
            shape,
        } => Started::Gesture(gesture(sim, &name, shape, seconds)),
        Playable::Behavior(name) => {
            if let Err(e) = sim.post_call(
                "ALBehaviorManager",
                "runBehavior",
                vec![Value::from(name.as_str())],
            ) {
                warn(sim, format!("{name}: {e}"));
            }
            Started::Behavior(name)
        }
    };
    if let Some(slot) = choreo_base::lock(slots).get_mut(n) {
        *slot = Some(started);
    }
}

/// Plans `say(text[, configuration])`.
fn say(sim: &Sim, a: &Args<'_>) -> Result<Plan, CallError> {
    let text = a.str(0)?;
    let (mode, talk) = {
        let mut state = sim.state();
        (
            state.part::<Speech>().body_language_mode,
            state.part::<Speech>().body_talk,
        )
    };
    let mode = configured_mode(a, 1)?.unwrap_or(mode);
    let mut script = Script::new(if talk { mode } else { 0 });
    let mut pauses = Vec::new();
    let (spoken, seconds) = walk(text, speed(sim), |name, argument, at| {
        let pause = script.instruction(sim, name, argument, at);
        if pause > 0.0 {
            pauses.push((at, at + pause));
        }
        pause
    });
    let stretches = script.talking(seconds, &pauses);
    script.body_talk(&stretches);
    let (plan, start) = speak(sim, spoken, seconds);
    Ok(animate(plan, start, seconds, script))
}

/// Adds the cues of `script` to the speech `plan` starting at `start`.
fn animate(plan: Plan, start: Time, seconds: f64, script: Script) -> Plan {
    let at = |s: f64| after(start, s);
    let slots: Slots = Arc::new(Mutex::new((0..script.ends.len()).map(|_| None).collect()));
    let last = script.ends.iter().copied().fold(seconds, f64::max);
    let end = at(last);
    let mut plan = plan.lasting_until(end);
    let stops: Vec<usize> = script
        .cues
        .iter()
        .filter_map(|(_, action)| match action {
            Action::Stop(n) => Some(*n),
            Action::Start(..) => None,
        })
        .collect();
    // Ends and stops first: at one instant, a gesture ends before the next one starts.
    for (n, &e) in script.ends.iter().enumerate() {
        if !stops.contains(&n) {
            let slots = Arc::clone(&slots);
            plan = plan.at(at(e), move |sim: &Sim| finish(sim, &slots, n, true));
        }
    }
    for (t, action) in &script.cues {
        if let Action::Stop(n) = *action {
            let slots = Arc::clone(&slots);
            plan = plan.at(at(*t), move |sim: &Sim| finish(sim, &slots, n, false));
        }
    }
    for (t, action) in script.cues {
        if let Action::Start(n, playable) = action {
            let slots = Arc::clone(&slots);
            plan = plan.at(at(t), move |sim: &Sim| begin(sim, &slots, n, playable));
        }
    }
    let stopped = Arc::clone(&slots);
    let count = script.ends.len();
    plan.at(end, |sim: &Sim| {
        sim.raise("ALAnimatedSpeech/EndOfAnimatedSpeech", Value::Int(1));
    })
    .on_stop(move |sim: &Sim| {
        for n in 0..count {
            finish(sim, &stopped, n, false);
        }
    })
}

/// Serves ALAnimatedSpeech.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let mode_name = |m: i64| MODES.get(m as usize).copied().unwrap_or("contextual");
    Ok(match method {
        "say" => Reply::Timed(say(sim, a)?),
        "setBodyLanguageMode" => {
            let m = a.int(0)?;
            if !(0..MODES.len() as i64).contains(&m) {
                return Err(a.bad(0, "0 (disabled), 1 (random) or 2 (contextual)"));
            }
            sim.state().part::<Speech>().body_language_mode = m;
            Reply::Now(Value::None)
        }
        "setBodyLanguageModeFromStr" => {
            let m = mode_of(a.str(0)?)
                .ok_or_else(|| a.bad(0, "\"disabled\", \"random\" or \"contextual\""))?;
            sim.state().part::<Speech>().body_language_mode = m;
            Reply::Now(Value::None)
        }
        "getBodyLanguageMode" => {
            Reply::Now(Value::Int(sim.state().part::<Speech>().body_language_mode))
        }
        "getBodyLanguageModeToStr" => Reply::Now(Value::from(mode_name(
            sim.state().part::<Speech>().body_language_mode,
        ))),
        "setBodyTalkEnabled" | "setBodyLanguageEnabled" => {
            let on = a.bool(0)?;
            sim.state().part::<Speech>().body_talk = on;
            Reply::Now(Value::None)
        }
        "isBodyTalkEnabled" | "isBodyLanguageEnabled" => {
            Reply::Now(Value::Bool(sim.state().part::<Speech>().body_talk))
        }
        "declareAnimationsPackage" => {
            let package = a.str(0)?;
            sim.notice(NAME, format!("animations package {package}"));
            sim.set_setting(NAME, "AnimationsPackage", Value::from(package));
            Reply::Now(Value::None)
        }
        "declareTagForAnimations" => {
            add_tags(sim, NAME, tag_map(a, 0)?);
            Reply::Now(Value::None)
        }
        "addTagsToWords" => {
            let words = tag_map(a, 0)?;
            for (word, tags) in words {
                sim.set_setting(
                    NAME,
                    &format!("word {word}"),
                    Value::List(tags.into_iter().map(Value::String).collect()),
                );
            }
            Reply::Now(Value::None)
        }
        _ => Reply::NotServed,
    })
}
