//! From definitions to a runner: the classes a `behaviorClass` may name (the built-in
//! dispatchers and `Wait`, and any a caller registers, such as `PlayChoregraphe` or Python
//! behaviors), each reading its keys through a [`Spec`].

use std::collections::BTreeMap;
use std::time::Duration;

use choreo_engine::Value;
use serde_json::Value as Json;

use crate::builtins::conditions;
use crate::builtins::dispatch::{Child, Dispatcher, Rule, Wait};
use crate::builtins::robot::{CallLeaf, PlayChoregraphe, RobotCall};
use crate::core::behavior::Behavior;
use crate::core::builder::{Builder, Options};
use crate::core::error::SetupError;
use crate::core::runner::Runner;
use crate::definitions::definition::{Definition, DefinitionError, Spec};

/// Makes a behavior of one class from its definition's keys (reading every key it accepts:
/// the rest are refused).
pub type Factory =
    Box<dyn Fn(&Spec<'_>) -> Result<Box<dyn Behavior>, DefinitionError> + Send + Sync>;

/// Why a stack folder could not become a runner.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A definition is wrong (located).
    #[error(transparent)]
    Definition(#[from] DefinitionError),
    /// The behaviors do not make a stack (unknown names, cycles, ...).
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// No base was named and the definitions do not have exactly one root.
    #[error("name the base behavior: {0}")]
    NoBase(String),
}

/// The classes a definition may name.
pub struct Classes {
    factories: BTreeMap<String, Factory>,
}

impl Default for Classes {
    fn default() -> Classes {
        Classes::builtin()
    }
}

impl Classes {
    /// The dispatchers of §10.2, `Wait`, the robot leaves (`Say`, `Animation`, `Posture`,
    /// `RobotCall`) and `PlayChoregraphe` of an installed behavior.
    pub fn builtin() -> Classes {
        let mut c = Classes {
            factories: BTreeMap::new(),
        };
        let dispatcher = |name: &'static str| -> Factory {
            Box::new(move |spec: &Spec<'_>| {
                dispatcher(name, spec).map(|d| Box::new(d) as Box<dyn Behavior>)
            })
        };
        for name in [
            "DispatcherStrictPriority",
            "DispatcherStrictPriorityWithCooldown",
            "DispatcherQueue",
            "DispatcherRandom",
            "DispatcherScoring",
            "DispatcherRerun",
            "DispatcherPassThrough",
        ] {
            c.register(name, dispatcher(name));
        }
        c.register(
            "Say",
            call_leaf(|spec| {
                let text = spec.string("text")?;
                Ok(RobotCall::new(
                    "ALTextToSpeech",
                    "say",
                    vec![Value::String(text)],
                ))
            }),
        );
        c.register(
            "Animation",
            call_leaf(|spec| {
                let name = spec.string("animation")?;
                Ok(RobotCall::new(
                    "ALAnimationPlayer",
                    "run",
                    vec![Value::String(name)],
                ))
            }),
        );
        c.register(
            "Posture",
            call_leaf(|spec| {
                let posture = spec.string("posture")?;
                let speed = spec.f64_or("speed", 0.8)?;
                if !(speed > 0.0 && speed <= 1.0) {
                    return Err(spec.error("speed", "must be more than 0 and at most 1"));
                }
                Ok(RobotCall::new(
                    "ALRobotPosture",
                    "goToPosture",
                    vec![Value::String(posture), Value::Float(speed)],
                ))
            }),
        );
        c.register(
            "RobotCall",
            call_leaf(|spec| {
                let service = spec.string("service")?;
                let method = spec.string("method")?;
                let args = match spec.get("args") {
                    None => Vec::new(),
                    Some(Json::Array(v)) => v.iter().map(conditions::json_value).collect(),
                    Some(_) => return Err(spec.error("args", "must be a list")),
                };
                Ok(RobotCall::new(&service, &method, args))
            }),
        );
        c.register(
            "PlayChoregraphe",
            Box::new(|spec: &Spec<'_>| {
                let name = spec.string("installed")?;
                Ok(Box::new(PlayChoregraphe::new(&name)) as Box<dyn Behavior>)
            }),
        );
        c.register(
            "Wait",
            Box::new(|spec: &Spec<'_>| {
                let s = spec.f64_or("seconds", 1.0)?;
                if s < 0.0 {
                    return Err(spec.error("seconds", "must be ≥ 0"));
                }
                Ok(Box::new(Wait::new(Duration::from_secs_f64(s))) as Box<dyn Behavior>)
            }),
        );
        c
    }

    /// Adds (or replaces) class `name`.
    pub fn register(&mut self, name: &str, factory: Factory) {
        self.factories.insert(name.to_string(), factory);
    }

    /// The class names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.factories.keys().map(String::as_str).collect()
    }

    /// A runner of `defs` on `base` (or, if `None`, on the one behavior no other declares as
    /// a delegate or linked behavior).
    pub fn build(
        &self,
        defs: &[Definition],
        base: Option<&str>,
        options: Options,
    ) -> Result<Runner, LoadError> {
        let mut builder = Builder::new();
        let mut named: Vec<(String, Vec<String>)> = Vec::new();
        for def in defs {
            let spec = def.spec();
            let factory = self.factories.get(&def.class).ok_or_else(|| {
                def.error(
                    Some("behaviorClass"),
                    format!(
                        "unknown behaviorClass {:?} (known: {})",
                        def.class,
                        self.names().join(", ")
                    ),
                )
            })?;
            let wtba = conditions::read(&spec, "wantsToBeActivatedCondition")?;
            let cancel = conditions::read(&spec, "wantsToCancelSelfCondition")?;
            let behavior = factory(&spec)?;
            spec.finish()?;
            let mut refs = behavior.delegates();
            refs.extend(behavior.linked());
            match &def.owner {
                None => {
                    named.push((def.id.clone(), refs));
                    builder.add(&def.id, behavior);
                }
                Some(owner) => {
                    builder.add_anonymous(owner, &def.id, behavior);
                }
            }
            builder.conditions(wtba, cancel);
        }
        let base = match base {
            Some(b) => b.to_string(),
            None => {
                let roots: Vec<&str> = named
                    .iter()
                    .filter(|(id, _)| !named.iter().any(|(_, refs)| refs.contains(id)))
                    .map(|(id, _)| id.as_str())
                    .collect();
                match roots.as_slice() {
                    [one] => one.to_string(),
                    [] => {
                        return Err(LoadError::NoBase(
                            "every behavior is some other's delegate".into(),
                        ));
                    }
                    many => {
                        return Err(LoadError::NoBase(format!(
                            "several behaviors are no other's delegate: {}",
                            many.join(", ")
                        )));
                    }
                }
            }
        };
        Ok(builder.build(&base, options)?)
    }
}

/// A class of leaves that run one robot call, made by `call` from the keys.
fn call_leaf(
    call: impl Fn(&Spec<'_>) -> Result<RobotCall, DefinitionError> + Send + Sync + 'static,
) -> Factory {
    Box::new(move |spec: &Spec<'_>| Ok(Box::new(CallLeaf::new(call(spec)?)) as Box<dyn Behavior>))
}

/// A dispatcher of class `class` from its keys.
fn dispatcher(class: &str, spec: &Spec<'_>) -> Result<Dispatcher, DefinitionError> {
    let link = spec.bool_or("linkScope", false)?;
    let single = |spec: &Spec<'_>| -> Result<Vec<Child>, DefinitionError> {
        Ok(vec![Child::plain(&spec.string("delegateID")?)])
    };
    let (rule, children, link, interrupt) = match class {
        "DispatcherStrictPriority" => {
            let once = spec.bool_or("actAsSelector", false)?;
            let interrupt = spec.bool_or("interruptActiveBehavior", true)?;
            (
                Rule::Priority { once },
                children(spec, "behaviors")?,
                link,
                interrupt,
            )
        }
        "DispatcherStrictPriorityWithCooldown" => {
            let interrupt = spec.bool_or("interruptActiveBehavior", true)?;
            (
                Rule::Priority { once: false },
                children(spec, "behaviors")?,
                link,
                interrupt,
            )
        }
        "DispatcherQueue" => (Rule::Queue, children(spec, "behaviors")?, link, false),
        "DispatcherRandom" => {
            let seed = u64::try_from(spec.i64_or("seed", 1)?)
                .map_err(|_| spec.error("seed", "must be ≥ 0"))?;
            let one_shot = spec.bool_or("oneShot", true)?;
            let interrupt = spec.bool_or("interruptActiveBehavior", false)?;
            (
                Rule::Random { seed, one_shot },
                children(spec, "behaviors")?,
                link,
                interrupt,
            )
        }
        "DispatcherScoring" => {
            let interrupt = spec.bool_or("interruptActiveBehavior", false)?;
            (Rule::Scoring, children(spec, "behaviors")?, link, interrupt)
        }
        "DispatcherRerun" => {
            let runs = spec.i64_or("numRuns", 1)?;
            if runs < -1 {
                return Err(spec.error("numRuns", "must be ≥ 0, or -1 (for ever)"));
            }
            (Rule::Rerun { runs }, single(spec)?, link, false)
        }
        _ => (Rule::PassThrough, single(spec)?, true, false),
    };
    Ok(Dispatcher::new(rule, children, link, interrupt))
}

/// A dispatcher's `behaviors`: ids, or objects with `behavior` and the options its class
/// takes (`weight`, `score`, `cooldown_s`; −1: only once).
fn children(spec: &Spec<'_>, key: &str) -> Result<Vec<Child>, DefinitionError> {
    let items = spec.list(key)?;
    if items.is_empty() {
        return Err(spec.error(key, "lists no behavior"));
    }
    items
        .iter()
        .map(|item| match item {
            Json::String(id) => Ok(Child::plain(id)),
            Json::Object(m) => {
                let mut child = Child::plain(
                    m.get("behavior")
                        .and_then(Json::as_str)
                        .ok_or_else(|| spec.error(key, "an entry needs behavior (an id)"))?,
                );
                for (k, v) in m {
                    let number = || {
                        v.as_f64()
                            .filter(|x| x.is_finite())
                            .ok_or_else(|| spec.error(key, format!("{k} must be a number")))
                    };
                    match k.as_str() {
                        "behavior" => {}
                        "weight" => child.weight = number()?.max(0.0),
                        "score" => child.score = number()?,
                        "cooldown_s" => {
                            let c = number()?;
                            child.cooldown = if c < 0.0 {
                                None
                            } else {
                                Some(Duration::from_secs_f64(c))
                            };
                        }
                        other => {
                            return Err(
                                spec.error(key, format!("unknown key {other:?} in an entry"))
                            );
                        }
                    }
                }
                Ok(child)
            }
            _ => Err(spec.error(key, "each entry is an id or an object")),
        })
        .collect()
}
