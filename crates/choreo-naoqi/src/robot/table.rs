//! What the modules that keep state without moving anything share (ALRobotPose,
//! ALWorldRepresentation, ALLogger, ALMood, ALTabletService...): a [`Service`] is a module's
//! name and a table of its methods, each with what it does ([`Op`]): answer a constant,
//! store its last argument as a setting, read a setting back, or leave it to the module's
//! own function. Settings and each module's own state ([`Sim::kept`]) live in [`Kept`],
//! part of the robot's state. Calls that change something are shown to the observer as a
//! [`RobotEvent::Notice`].
//!
//! What they keep is what a script reads back, as on the robot.

use std::any::TypeId;
use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;

/// A constant answer (or setting default) of a method table.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Const {
    /// `None` (a void method).
    None,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(&'static str),
    /// A list of strings.
    Strs(&'static [&'static str]),
    /// A list of floats.
    Floats(&'static [f64]),
}

impl Const {
    /// The value.
    pub fn value(self) -> Value {
        match self {
            Const::None => Value::None,
            Const::Bool(b) => Value::Bool(b),
            Const::Int(i) => Value::Int(i),
            Const::Float(x) => Value::Float(x),
            Const::Str(s) => Value::from(s),
            Const::Strs(v) => Value::List(v.iter().map(|s| Value::from(*s)).collect()),
            Const::Floats(v) => Value::List(v.iter().map(|x| Value::Float(*x)).collect()),
        }
    }
}

/// What a method of a [`Service`] does.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Op {
    /// Answers this.
    Answer(Const),
    /// Stores its last argument as setting `name`, shows the call, answers the constant.
    Set(&'static str, Const),
    /// Stores the constant as setting `name` (a method without argument: `start...`),
    /// shows the call.
    Put(&'static str, Const),
    /// Reads setting `name`, or the default.
    Get(&'static str, Const),
    /// The module's own function decides.
    Own,
}

/// A module's own function: `(sim, method, args)`.
pub(crate) type OwnFn = fn(&Sim, &str, &Args<'_>) -> Result<Reply, CallError>;

/// A module served from a table.
pub(crate) struct Service {
    /// Its NAOqi name.
    pub name: &'static str,
    /// Its methods and what each does.
    pub methods: &'static [(&'static str, Op)],
    /// Serves the methods marked [`Op::Own`].
    pub own: OwnFn,
    /// For an ALExtractor (a perception module clients subscribe to): the ALMemory keys
    /// it writes, and whether it is a vision extractor; it serves the extractor methods on
    /// top of its table (a method in its table takes precedence).
    pub extractor: Option<crate::robot::extractor::Extractor>,
}

impl Service {
    /// The names of its methods.
    pub fn method_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self.methods.iter().map(|(m, _)| *m).collect();
        for m in self.extractor.iter().flat_map(|e| e.methods()) {
            if !names.contains(&m) {
                names.push(m);
            }
        }
        names
    }
}

/// A module with no [`Op::Own`] method.
pub(crate) fn no_own(_: &Sim, _: &str, _: &Args<'_>) -> Result<Reply, CallError> {
    Ok(Reply::NotServed)
}

/// Serves `method` of `service`.
pub(crate) fn serve(
    sim: &Sim,
    service: &Service,
    method: &str,
    a: &Args<'_>,
) -> Result<Reply, CallError> {
    let Some((_, op)) = service.methods.iter().find(|(m, _)| *m == method) else {
        return Ok(match service.extractor {
            Some(e) => crate::robot::extractor::serve(sim, service.name, e, method, a)?,
            None => Reply::NotServed,
        });
    };
    Ok(match *op {
        Op::Answer(c) => Reply::Now(c.value()),
        Op::Set(name, answer) => {
            let Some(last) = a.values.last() else {
                return Err(a.bad(0, "a value"));
            };
            sim.set_setting(service.name, name, last.clone());
            sim.notice(service.name, format!("{method}({last})"));
            Reply::Now(answer.value())
        }
        Op::Put(name, c) => {
            sim.set_setting(service.name, name, c.value());
            sim.notice(service.name, format!("{method}()"));
            Reply::Now(Value::None)
        }
        Op::Get(name, default) => Reply::Now(
            sim.setting(service.name, name)
                .unwrap_or_else(|| default.value()),
        ),
        Op::Own => return (service.own)(sim, method, a),
    })
}

impl Sim {
    /// Runs `f` on module `service`'s own state of type `T` (created by `T::default()` at
    /// first use; a module may keep several types), under the state lock: `f` must be short
    /// and must not call the robot.
    pub(crate) fn kept<T: Default + Send + 'static, R>(
        &self,
        service: &'static str,
        f: impl FnOnce(&mut T) -> R,
    ) -> R {
        let mut state = self.state();
        let slot = state
            .kept
            .parts
            .entry((service, TypeId::of::<T>()))
            .or_insert_with(|| Box::new(T::default()));
        let mut fallback = T::default();
        let part = slot.downcast_mut::<T>().unwrap_or(&mut fallback);
        f(part)
    }

    /// Setting `name` of module `service`, if set.
    pub(crate) fn setting(&self, service: &'static str, name: &str) -> Option<Value> {
        self.state()
            .kept
            .settings
            .get(service)
            .and_then(|m| m.get(name))
            .cloned()
    }

    /// Sets setting `name` of module `service`.
    pub(crate) fn set_setting(&self, service: &'static str, name: &str, value: Value) {
        self.state()
            .kept
            .settings
            .entry(service)
            .or_default()
            .insert(name.to_string(), value);
    }

    /// Shows the observer what module `service` did.
    pub(crate) fn notice(&self, service: &str, text: String) {
        self.observe(RobotEvent::Notice {
            service: service.to_string(),
            text,
        });
    }
}

/// `setParameter(name, value)` and `getParameter(name)` of `service`: kept and read back;
/// reading a parameter never set raises, as for an unknown name.
pub(crate) fn parameter(
    sim: &Sim,
    service: &'static str,
    method: &str,
    a: &Args<'_>,
) -> Result<Reply, CallError> {
    let name = format!("parameter {}", a.str(0)?);
    Ok(Reply::Now(match method {
        "setParameter" => {
            let value = a
                .values
                .get(1)
                .cloned()
                .ok_or_else(|| a.bad(1, "a value"))?;
            sim.notice(service, format!("{name} = {value}"));
            sim.set_setting(service, &name, value);
            Value::None
        }
        "getParameter" => sim
            .setting(service, &name)
            .ok_or_else(|| CallError::Failed(format!("{}: no {name}", a.name)))?,
        _ => return Ok(Reply::NotServed),
    }))
}

/// Forgets every parameter `setParameter` kept for `service`.
pub(crate) fn reset_parameters(sim: &Sim, service: &'static str) {
    if let Some(settings) = sim.state().kept.settings.get_mut(service) {
        settings.retain(|name, _| !name.starts_with("parameter "));
    }
}

/// A state-only setting in `map`: `set<Name>` stores the last argument, `get<Name>` and
/// `is<Name>` read it, else `default(name)`. `None` if `method` is not one of them (no
/// default for its name).
pub(crate) fn setting(
    map: &mut BTreeMap<String, Value>,
    method: &str,
    a: &Args<'_>,
    default: impl Fn(&str) -> Option<Value>,
) -> Option<Result<Value, CallError>> {
    let name = stem(method);
    let default = default(name)?;
    if method.starts_with("set") {
        let Some(last) = a.values.last() else {
            return Some(Err(a.bad(0, "a value")));
        };
        map.insert(name.to_string(), last.clone());
        Some(Ok(Value::None))
    } else {
        Some(Ok(map.get(name).cloned().unwrap_or(default)))
    }
}

/// A state-only setting in `map` with a boolean default, for the names `defaults` lists (see
/// [`setting`]).
pub(crate) fn bool_setting(
    map: &mut BTreeMap<String, Value>,
    method: &str,
    a: &Args<'_>,
    defaults: &[(&str, bool)],
) -> Option<Result<Value, CallError>> {
    setting(map, method, a, |name| {
        defaults
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| Value::Bool(*d))
    })
}

/// The name a setter or getter is about: `setBreathEnabled` → `BreathEnabled`.
pub(crate) fn stem(method: &str) -> &str {
    ["set", "get", "is"]
        .iter()
        .find_map(|p| method.strip_prefix(p))
        .unwrap_or(method)
}

/// `[[name, value], ...]` pairs as a map (items of another shape are an error).
pub(crate) fn pairs(a: &Args<'_>, i: usize) -> Result<Vec<(String, Value)>, CallError> {
    a.list(i)?
        .iter()
        .map(|pair| match pair {
            Value::List(kv) | Value::Tuple(kv) if kv.len() == 2 => match &kv[0] {
                Value::String(k) => Ok((k.clone(), kv[1].clone())),
                _ => Err(a.bad(i, "[[name, value], ...]")),
            },
            _ => Err(a.bad(i, "[[name, value], ...]")),
        })
        .collect()
}

/// A map as `[[name, value], ...]`.
pub(crate) fn to_pairs<'a>(items: impl IntoIterator<Item = (&'a String, &'a Value)>) -> Value {
    Value::List(
        items
            .into_iter()
            .map(|(k, v)| Value::List(vec![Value::String(k.clone()), v.clone()]))
            .collect(),
    )
}
