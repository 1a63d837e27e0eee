//! ALAnimationPlayer, and the gestures the stock animations play on the simulated robot
//! (ALAnimatedSpeech's `^start(...)` plays them too).
//!
//! **Names.** ALAnimationPlayer reads a name as the robot does (choreo-robot's `animations`):
//! `[posture]` becomes the folder of the current posture family (`Stand`, `Sit`,
//! `SitOnPod`; in another family the name is not valid), `[robot]` the robot's (`Nao`,
//! `Pepper`). A name of the model's stock library plays that animation for its length (the
//! library says where each length comes from); a behavior ALBehaviorManager has installed
//! (a project's own animation, `package/path`) is run by ALBehaviorManager, as the real
//! ALAnimationPlayer, a wrapper of ALBehaviorManager, does; any other name raises, with the
//! closest stock names.
//!
//! **Gestures.** The simulated robot does not replay the stock curves: a stock animation
//! moves the head and arms (and Pepper's hip, for a bow) along a small shape its tags choose
//! (a wave for `hello`, a nod for `yes`, a head shake for `no`, a bow, else both arms open
//! as in `explain`), for its length, and back to where they were. Its motion is an ALMotion
//! task, as a timeline's is on the robot: the stock animations' timelines are Passive
//! (`resources_acquisition` 0 in every behavior of the library), so an animation takes the
//! joints at once, stopping older motions on them, and a newer motion stops its motion while
//! the animation goes on to its end. Stopping the animation (`stop(id)`) stops its motion
//! where it is. NAO's legs never move.
//!
//! **Tags.** `runTag(tag)` chooses among the animations tagged `tag` by addTagForAnimations
//! (first) and the stock animations of the current posture's folder and of the paths
//! declarePathForTags gave; `runTag(path, tag)` among those under `path`. The simulated
//! robot has no random seed: it takes the first, in that order (the library's), so a run
//! is deterministic. `reset()` forgets what was added.

use std::collections::BTreeMap;
use std::sync::Arc;

use choreo_engine::Value;
use choreo_robot::animations::{self, DEFAULT_SECONDS, Library, PACKAGE};

use crate::robot::args::Args;
use crate::robot::body::{Keys, Moves};
use crate::robot::core::{Plan, Task};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::table::{Op, Service};
use crate::robot::trajectory::after;
use crate::services::motion::orders::motion_plan;

/// ALAnimationPlayer as served.
pub(crate) const SERVICE: Service = Service {
    name: NAME,
    methods: &[
        ("run", Op::Own),
        ("runTag", Op::Own),
        ("reset", Op::Own),
        ("addTagForAnimations", Op::Own),
        ("declarePathForTags", Op::Own),
    ],
    own,
    extractor: None,
};

const NAME: &str = "ALAnimationPlayer";

/// How many close names an error proposes.
const SUGGESTIONS: usize = 3;

/// The shape a gesture follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// The right arm raised and waving (hello, hey, hi, call).
    Wave,
    /// The head nodding (yes, affirmative, ok).
    Nod,
    /// The head shaking (no, negative, reject).
    Shake,
    /// A bow: the head, and Pepper's hip (bow, bowing, salute).
    Bow,
    /// Both arms opening forward (explain, and every other animation).
    Explain,
    /// A small speaking gesture of one arm (true: the left), ALAnimatedSpeech's body
    /// language.
    Talk(bool),
}

/// A gesture's keys: times as fractions of its length, and per joint its offsets from where
/// it starts at those times (each joint comes back to its start at the end).
type Table = (&'static [f64], &'static [(&'static str, &'static [f64])]);

const WAVE: Table = (
    &[0.2, 0.35, 0.5, 0.65, 0.8],
    &[
        ("RShoulderPitch", &[-1.3, -1.3, -1.3, -1.3, -1.2]),
        ("RShoulderRoll", &[-0.25, -0.35, -0.25, -0.35, -0.2]),
        ("RElbowRoll", &[0.6, 0.2, 0.6, 0.2, 0.5]),
        ("RHand", &[0.6, 0.6, 0.6, 0.6, 0.6]),
        ("HeadPitch", &[-0.1, -0.1, -0.1, -0.1, -0.05]),
    ],
);

const NOD: Table = (
    &[0.2, 0.4, 0.6, 0.8],
    &[("HeadPitch", &[0.25, -0.05, 0.25, -0.05])],
);

const SHAKE: Table = (
    &[0.2, 0.4, 0.6, 0.8],
    &[("HeadYaw", &[0.4, -0.4, 0.4, -0.4])],
);

const BOW: Table = (
    &[0.35, 0.65],
    &[("HeadPitch", &[0.3, 0.3]), ("HipPitch", &[-0.35, -0.35])],
);

const EXPLAIN: Table = (
    &[0.3, 0.65],
    &[
        ("LShoulderPitch", &[-0.5, -0.3]),
        ("RShoulderPitch", &[-0.5, -0.3]),
        ("LShoulderRoll", &[0.2, 0.1]),
        ("RShoulderRoll", &[-0.2, -0.1]),
        ("LElbowRoll", &[0.35, 0.2]),
        ("RElbowRoll", &[-0.35, -0.2]),
        ("LHand", &[0.4, 0.3]),
        ("RHand", &[0.4, 0.3]),
        ("HeadPitch", &[-0.05, 0.0]),
    ],
);

const TALK_LEFT: Table = (
    &[0.45],
    &[
        ("LShoulderPitch", &[-0.3]),
        ("LElbowRoll", &[0.25]),
        ("LHand", &[0.3]),
        ("HeadYaw", &[0.05]),
    ],
);

const TALK_RIGHT: Table = (
    &[0.45],
    &[
        ("RShoulderPitch", &[-0.3]),
        ("RElbowRoll", &[-0.25]),
        ("RHand", &[0.3]),
        ("HeadYaw", &[-0.05]),
    ],
);

impl Shape {
    /// The shape of an animation with these tags.
    pub fn of(tags: &[&str]) -> Shape {
        let any = |names: &[&str]| tags.iter().any(|t| names.contains(t));
        if any(&["hello", "hey", "hi", "call", "yoo-hoo"]) {
            Shape::Wave
        } else if any(&["yes", "affirmative", "ok", "alright", "yeah"]) {
            Shape::Nod
        } else if any(&["no", "negative", "reject", "refute", "oppose"]) {
            Shape::Shake
        } else if any(&["bow", "bowing", "salute"]) {
            Shape::Bow
        } else {
            Shape::Explain
        }
    }

    fn table(self) -> Table {
        match self {
            Shape::Wave => WAVE,
            Shape::Nod => NOD,
            Shape::Shake => SHAKE,
            Shape::Bow => BOW,
            Shape::Explain => EXPLAIN,
            Shape::Talk(true) => TALK_LEFT,
            Shape::Talk(false) => TALK_RIGHT,
        }
    }
}

/// The keys of a gesture of `shape` lasting `seconds`, from where the joints are now, within
/// their limits; joints the model lacks are left out.
fn moves(sim: &Sim, shape: Shape, seconds: f64) -> Moves {
    let (times, joints) = shape.table();
    let model = sim.model;
    let now = sim.now();
    let state = sim.state();
    joints
        .iter()
        .filter_map(|(name, offsets)| {
            let i = model.joint_index(name)?;
            let start = state.body.angle(model, i, now);
            let by = model
                .coupled_to(i)
                .map_or(0.0, |c| state.body.angle(model, c, now));
            let keys = times
                .iter()
                .zip(offsets.iter())
                .map(|(f, d)| (f * seconds, model.clamp(i, start + d, by)))
                .chain(std::iter::once((seconds, start)))
                .collect();
            Some((i, Keys::Linear(keys)))
        })
        .collect()
}

/// Moves the joints along a gesture of `shape` lasting `seconds`, named `label` to the
/// observer: an ALMotion task claiming them (see the module documentation). Whoever
/// started it drives it at its end ([`Sim::drive`]) or stops it.
pub(crate) fn gesture(sim: &Sim, label: &str, shape: Shape, seconds: f64) -> Arc<Task> {
    let plan = motion_plan(sim, label, moves(sim, shape, seconds));
    sim.start_task("ALMotion", "angleInterpolationBezier", &[], plan)
}

/// What a name or a tag resolves to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Playable {
    /// A stock animation: its name, length and gesture.
    Stock {
        /// `animations/...`.
        name: String,
        /// How long it plays.
        seconds: f64,
        /// The gesture it plays.
        shape: Shape,
    },
    /// A behavior ALBehaviorManager has installed.
    Behavior(String),
}

impl Playable {
    /// How long it plays ([`DEFAULT_SECONDS`] for a behavior, whose length only its run
    /// tells).
    pub fn seconds(&self) -> f64 {
        match self {
            Playable::Stock { seconds, .. } => *seconds,
            Playable::Behavior(_) => DEFAULT_SECONDS,
        }
    }
}

/// What scripts added to the stock tags (addTagForAnimations, declarePathForTags, and
/// ALAnimatedSpeech's declareTagForAnimations).
#[derive(Default)]
pub(crate) struct Added {
    /// Per tag, the names given for it.
    pub tags: BTreeMap<String, Vec<String>>,
    /// Paths whose animations' tags count.
    pub paths: Vec<String>,
}

/// The current posture family ("Standing", "Sitting", ...).
fn family(sim: &Sim) -> &'static str {
    let now = sim.now();
    crate::services::motion::posture::current_family(sim.model, &sim.state().body, now)
}

fn installed(sim: &Sim, name: &str) -> bool {
    let args = [Value::from(name)];
    let a = Args::new("ALBehaviorManager", "isBehaviorInstalled", &args);
    matches!(
        crate::services::core::behaviors::serve(sim, "isBehaviorInstalled", &a),
        Ok(Reply::Now(Value::Bool(true)))
    )
}

/// What `name` plays on this robot now (see the module documentation).
pub(crate) fn resolve(sim: &Sim, name: &str) -> Result<Playable, CallError> {
    let model = sim.model;
    let name = animations::expand(name, model, family(sim))
        .map_err(|e| CallError::Failed(e.to_string()))?;
    if let Some(a) = Library::stock().find(model, &name) {
        return Ok(Playable::Stock {
            name,
            seconds: a.seconds,
            shape: Shape::of(&a.tags),
        });
    }
    if installed(sim, &name) {
        return Ok(Playable::Behavior(name));
    }
    let near = Library::stock().closest(model, &name, SUGGESTIONS);
    let hint = if near.is_empty() {
        format!("stock names start with {PACKAGE}/")
    } else {
        format!("closest: {}", near.join(", "))
    };
    Err(CallError::Failed(format!(
        "animation {name:?} is neither in {}'s animation library nor an installed behavior \
         ({hint}); a project's own animation plays once its package is installed",
        model.name()
    )))
}

/// What tag `tag` plays now, among the animations under `within` if given (see the module
/// documentation).
pub(crate) fn by_tag(sim: &Sim, tag: &str, within: Option<&str>) -> Result<Playable, CallError> {
    let model = sim.model;
    let family = family(sim);
    let (added, paths) = sim.kept(NAME, |a: &mut Added| {
        (
            a.tags.get(tag).cloned().unwrap_or_default(),
            a.paths.clone(),
        )
    });
    let prefixes: Vec<String> = match within {
        Some(path) => vec![
            animations::expand(path, model, family)
                .map_err(|e| CallError::Failed(e.to_string()))?,
        ],
        None => animations::posture_folder(family)
            .map(|f| format!("{PACKAGE}/{f}/"))
            .into_iter()
            .chain(
                paths
                    .iter()
                    .filter_map(|p| animations::expand(p, model, family).ok()),
            )
            .collect(),
    };
    let library = Library::stock();
    let stock = prefixes
        .iter()
        .flat_map(|p| library.tagged(model, tag, p).map(|a| a.name()));
    let first = added
        .into_iter()
        .filter(|n| within.is_none_or(|_| prefixes.iter().any(|p| n.starts_with(p.as_str()))))
        .chain(stock)
        .find_map(|name| resolve(sim, &name).ok());
    first.ok_or_else(|| {
        let known = prefixes
            .iter()
            .flat_map(|p| library.tags(model, p))
            .filter(|t| choreo_robot::naoqi::edit_distance(t, tag) <= 2)
            .take(SUGGESTIONS)
            .collect::<Vec<_>>();
        let hint = if known.is_empty() {
            String::new()
        } else {
            format!(" (close tags: {})", known.join(", "))
        };
        CallError::Failed(format!(
            "no animation tagged {tag:?} for {} in the posture family {family}{hint}",
            model.name()
        ))
    })
}

/// Plays `playable` from now: the task of ALAnimationPlayer's `run`.
pub(crate) fn play(sim: &Sim, playable: Playable) -> Plan {
    let now = sim.now();
    match playable {
        Playable::Stock {
            name,
            seconds,
            shape,
        } => {
            let end = after(now, seconds);
            let motion = gesture(sim, &name, shape, seconds);
            let stopped = Arc::clone(&motion);
            Plan::until(end)
                .at(end, move |sim: &Sim| {
                    sim.drive(&motion, None);
                })
                .on_stop(move |sim: &Sim| sim.stop_task(&stopped))
        }
        Playable::Behavior(name) => {
            // A nanosecond later, so that the task's driver (the caller, or the background
            // activity of a post) runs the behavior, not the call that starts the task.
            let at = after(now, 1e-9);
            Plan::until(at).at(at, move |sim: &Sim| {
                if let Err(e) = sim.call(
                    "ALBehaviorManager",
                    "runBehavior",
                    vec![Value::from(name.as_str())],
                ) {
                    sim.observe(RobotEvent::Log {
                        level: "error".into(),
                        source: NAME.into(),
                        message: format!("{name}: {e}"),
                    });
                }
            })
        }
    }
}

/// Argument `i` as `{tag: [names]}` (a map, or `[[tag, [names]], ...]` pairs).
pub(crate) fn tag_map(a: &Args<'_>, i: usize) -> Result<Vec<(String, Vec<String>)>, CallError> {
    let bad = || a.bad(i, "a map of tags to lists of animation names");
    let pairs: Vec<(&Value, &Value)> = match a.values.get(i) {
        Some(Value::Map(m)) => m.iter().map(|(k, v)| (k, v)).collect(),
        Some(Value::List(items) | Value::Tuple(items)) => items
            .iter()
            .map(|p| match p {
                Value::List(kv) | Value::Tuple(kv) if kv.len() == 2 => Ok((&kv[0], &kv[1])),
                _ => Err(bad()),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(bad()),
    };
    pairs
        .into_iter()
        .map(|(k, v)| {
            let Value::String(tag) = k else {
                return Err(bad());
            };
            let names = match v {
                Value::String(n) => vec![n.clone()],
                Value::List(ns) | Value::Tuple(ns) => ns
                    .iter()
                    .map(|n| match n {
                        Value::String(n) => Ok(n.clone()),
                        _ => Err(bad()),
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(bad()),
            };
            Ok((tag.clone(), names))
        })
        .collect()
}

/// Adds `{tag: [names]}` to the tags ALAnimationPlayer and ALAnimatedSpeech choose from.
pub(crate) fn add_tags(sim: &Sim, service: &str, map: Vec<(String, Vec<String>)>) {
    for (tag, names) in &map {
        sim.notice(service, format!("tag {tag:?}: {}", names.join(", ")));
    }
    sim.kept(NAME, |added: &mut Added| {
        for (tag, names) in map {
            let list = added.tags.entry(tag).or_default();
            for n in names {
                if !list.contains(&n) {
                    list.push(n);
                }
            }
        }
    });
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let failed = |e: CallError| CallError::Failed(format!("{}: {e}", a.name));
    // NAOqi's run takes a name alone, runTag a tag and at most a path (its metaObject).
    let most = if method == "runTag" { 2 } else { 1 };
    if matches!(method, "run" | "runTag") && a.len() > most {
        return Err(a.bad(most, "absent: no NAOqi version takes more arguments"));
    }
    Ok(match method {
        "run" => Reply::Timed(play(sim, resolve(sim, a.str(0)?).map_err(failed)?)),
        "runTag" => {
            // runTag(tag) and runTag(path, tag): a tag never holds a '/', a path does.
            let (tag, within) = if a.len() > 1 {
                let (x, y) = (a.str(0)?, a.str(1)?);
                if y.contains('/') && !x.contains('/') {
                    (x, Some(y))
                } else {
                    (y, Some(x))
                }
            } else {
                (a.str(0)?, None)
            };
            Reply::Timed(play(sim, by_tag(sim, tag, within).map_err(failed)?))
        }
        "reset" => {
            sim.kept(NAME, |added: &mut Added| *added = Added::default());
            sim.notice(NAME, "tags reset to the stock library's".into());
            Reply::Now(Value::None)
        }
        "addTagForAnimations" => {
            add_tags(sim, NAME, tag_map(a, 0)?);
            Reply::Now(Value::None)
        }
        "declarePathForTags" => {
            let path = a.str(0)?.to_string();
            sim.notice(NAME, format!("tags of the animations under {path}"));
            sim.kept(NAME, |added: &mut Added| {
                if !added.paths.contains(&path) {
                    added.paths.push(path);
                }
            });
            Reply::Now(Value::None)
        }
        _ => Reply::NotServed,
    })
}
