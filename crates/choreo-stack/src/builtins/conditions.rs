//! The built-in conditions and their JSON (behavior-stack.md §10.1): `Compound` (`and`, `or`,
//! `not`, every operand sampled: K4), `True`, `False`, `Timer`, `Memory` (an ALMemory value
//! compared), `InputSeen` (an input arrived while the window was open) and
//! `BehaviorFinished` (a behavior ended on its own while the window was open).

use std::time::Duration;

use choreo_engine::Value;
use serde_json::Value as Json;

use crate::core::condition::Condition;
use crate::core::world::World;
use crate::definitions::definition::{DefinitionError, Spec};

/// How deep `Compound` conditions may nest (the original allowed 2).
const MAX_DEPTH: usize = 8;

/// The condition(s) under `key` of a definition: one object, or a list of them.
pub fn read(spec: &Spec<'_>, key: &str) -> Result<Vec<Box<dyn Condition>>, DefinitionError> {
    match spec.get(key) {
        None => Ok(Vec::new()),
        Some(Json::Array(items)) => items.iter().map(|c| parse(spec, key, c, 0)).collect(),
        Some(c) => Ok(vec![parse(spec, key, c, 0)?]),
    }
}

fn parse(
    spec: &Spec<'_>,
    key: &str,
    json: &Json,
    depth: usize,
) -> Result<Box<dyn Condition>, DefinitionError> {
    let bad = |m: String| spec.error(key, m);
    if depth > MAX_DEPTH {
        return Err(bad(format!("conditions nested more than {MAX_DEPTH} deep")));
    }
    let Json::Object(map) = json else {
        return Err(bad("a condition is an object with a conditionType".into()));
    };
    let kind = map
        .get("conditionType")
        .and_then(Json::as_str)
        .ok_or_else(|| bad("a condition needs a conditionType".into()))?;
    let allowed: &[&str] = match kind {
        "Compound" => &["and", "or", "not"],
        "True" | "False" => &[],
        "Timer" => &["seconds"],
        "Memory" => &["key", "op", "value"],
        "InputSeen" => &["name", "value"],
        "BehaviorFinished" => &["behavior"],
        other => {
            return Err(bad(format!(
                "unknown conditionType {other:?} (known: Compound, True, False, Timer, Memory, InputSeen, BehaviorFinished)"
            )));
        }
    };
    if let Some(k) = map
        .keys()
        .find(|k| *k != "conditionType" && !allowed.contains(&k.as_str()))
    {
        return Err(bad(format!("unknown key {k:?} in a {kind} condition")));
    }
    let text = |k: &str| -> Result<String, DefinitionError> {
        map.get(k)
            .and_then(Json::as_str)
            .map(str::to_string)
            .ok_or_else(|| bad(format!("a {kind} condition needs {k} (a string)")))
    };
    Ok(match kind {
        "Compound" => {
            let (op, operands) = match (map.get("and"), map.get("or"), map.get("not")) {
                (Some(Json::Array(v)), None, None) => (Op::And, v.iter().collect()),
                (None, Some(Json::Array(v)), None) => (Op::Or, v.iter().collect()),
                (None, None, Some(c @ Json::Object(_))) => (Op::Not, vec![c]),
                _ => {
                    return Err(bad(
                        "a Compound condition has one of and (a list), or (a list), not (an object)"
                            .into(),
                    ));
                }
            };
            let operands = operands
                .into_iter()
                .map(|c| parse(spec, key, c, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(Compound { op, operands })
        }
        "True" => Box::new(Constant(true)),
        "False" => Box::new(Constant(false)),
        "Timer" => {
            let s = map
                .get("seconds")
                .and_then(Json::as_f64)
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| bad("a Timer condition needs seconds (a number ≥ 0)".into()))?;
            Box::new(Timer {
                after: Duration::from_secs_f64(s),
                opened: Duration::ZERO,
            })
        }
        "Memory" => {
            let op = map.get("op").and_then(Json::as_str).unwrap_or("==");
            let op = Compare::parse(op)
                .ok_or_else(|| bad(format!("op {op:?} is not one of ==, !=, <, <=, >, >=")))?;
            let value = map
                .get("value")
                .map(json_value)
                .ok_or_else(|| bad("a Memory condition needs a value".into()))?;
            Box::new(Memory {
                key: text("key")?,
                op,
                value,
            })
        }
        "InputSeen" => Box::new(InputSeen {
            name: text("name")?,
            value: map.get("value").map(json_value),
            seen: false,
        }),
        _ => Box::new(BehaviorFinished {
            behavior: text("behavior")?,
            opened: 0,
        }),
    })
}

/// A JSON value as a robot value (numbers as ints where they are, objects as maps).
pub fn json_value(j: &Json) -> Value {
    match j {
        Json::Null => Value::None,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => n
            .as_i64()
            .map(Value::Int)
            .or_else(|| n.as_u64().map(Value::UInt))
            .unwrap_or_else(|| Value::Float(n.as_f64().unwrap_or(0.0))),
        Json::String(s) => Value::String(s.clone()),
        Json::Array(v) => Value::List(v.iter().map(json_value).collect()),
        Json::Object(m) => Value::Map(
            m.iter()
                .map(|(k, v)| (Value::String(k.clone()), json_value(v)))
                .collect(),
        ),
    }
}

#[derive(Debug, Clone, Copy)]
enum Op {
    And,
    Or,
    Not,
}

struct Compound {
    op: Op,
    operands: Vec<Box<dyn Condition>>,
}

impl Condition for Compound {
    fn describe(&self) -> String {
        let parts: Vec<String> = self.operands.iter().map(|c| c.describe()).collect();
        match self.op {
            Op::And => format!("({})", parts.join(" and ")),
            Op::Or => format!("({})", parts.join(" or ")),
            Op::Not => format!("not {}", parts.join("")),
        }
    }
    fn inputs(&self) -> Vec<String> {
        self.operands.iter().flat_map(|c| c.inputs()).collect()
    }
    fn set_active(&mut self, active: bool, world: &World) {
        for c in &mut self.operands {
            c.set_active(active, world);
        }
    }
    fn is_met(&mut self, world: &World) -> bool {
        // Every operand is sampled, as the original did: stateful ones depend on it.
        let values: Vec<bool> = self.operands.iter_mut().map(|c| c.is_met(world)).collect();
        match self.op {
            Op::And => values.iter().all(|v| *v),
            Op::Or => values.iter().any(|v| *v),
            Op::Not => !values.first().copied().unwrap_or(false),
        }
    }
}

struct Constant(bool);

impl Condition for Constant {
    fn describe(&self) -> String {
        self.0.to_string()
    }
    fn is_met(&mut self, _: &World) -> bool {
        self.0
    }
}

/// True once its window has been open `after`.
struct Timer {
    after: Duration,
    opened: Duration,
}

impl Condition for Timer {
    fn describe(&self) -> String {
        format!("timer {} s", self.after.as_secs_f64())
    }
    fn set_active(&mut self, active: bool, world: &World) {
        if active {
            self.opened = world.now;
        }
    }
    fn is_met(&mut self, world: &World) -> bool {
        world.now.saturating_sub(self.opened) >= self.after
    }
}

#[derive(Debug, Clone, Copy)]
enum Compare {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Compare {
    fn parse(s: &str) -> Option<Compare> {
        Some(match s {
            "==" => Compare::Eq,
            "!=" => Compare::Ne,
            "<" => Compare::Lt,
            "<=" => Compare::Le,
            ">" => Compare::Gt,
            ">=" => Compare::Ge,
            _ => return None,
        })
    }

    fn holds(self, a: &Value, b: &Value) -> bool {
        let num = |v: &Value| match v {
            Value::Int(i) => Some(*i as f64),
            Value::UInt(u) => Some(*u as f64),
            Value::Float(x) => Some(*x),
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        };
        let order = match (num(a), num(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => match (a, b) {
                (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
                _ => (a == b).then_some(std::cmp::Ordering::Equal),
            },
        };
        match (self, order) {
            (Compare::Eq, o) => o == Some(std::cmp::Ordering::Equal),
            (Compare::Ne, o) => o != Some(std::cmp::Ordering::Equal),
            (_, None) => false,
            (Compare::Lt, Some(o)) => o.is_lt(),
            (Compare::Le, Some(o)) => o.is_le(),
            (Compare::Gt, Some(o)) => o.is_gt(),
            (Compare::Ge, Some(o)) => o.is_ge(),
        }
    }
}

/// An ALMemory value compared with a constant; false when there is no robot or no such key.
struct Memory {
    key: String,
    op: Compare,
    value: Value,
}

impl Condition for Memory {
    fn describe(&self) -> String {
        format!("memory {} {:?} {}", self.key, self.op, self.value)
    }
    fn is_met(&mut self, world: &World) -> bool {
        let Some(robot) = &world.robot else {
            return false;
        };
        match robot.call("ALMemory", "getData", vec![Value::String(self.key.clone())]) {
            Ok(v) => self.op.holds(&v, &self.value),
            Err(_) => false,
        }
    }
}

/// True once an input `name` (with `value`, if given) arrived while the window was open.
struct InputSeen {
    name: String,
    value: Option<Value>,
    seen: bool,
}

impl Condition for InputSeen {
    fn describe(&self) -> String {
        format!("input {} seen", self.name)
    }
    fn inputs(&self) -> Vec<String> {
        vec![self.name.clone()]
    }
    fn set_active(&mut self, active: bool, _: &World) {
        if active {
            self.seen = false;
        }
    }
    fn is_met(&mut self, world: &World) -> bool {
        self.seen |= world.inputs.iter().any(|i| {
            i.name == self.name
                && self
                    .value
                    .as_ref()
                    .is_none_or(|v| Compare::Eq.holds(&i.value, v))
        });
        self.seen
    }
}

/// True once `behavior` ended on its own (cancelled itself) while the window was open.
struct BehaviorFinished {
    behavior: String,
    opened: u64,
}

impl Condition for BehaviorFinished {
    fn describe(&self) -> String {
        format!("{} finished", self.behavior)
    }
    fn set_active(&mut self, active: bool, world: &World) {
        if active {
            self.opened = world.tick;
        }
    }
    fn is_met(&mut self, world: &World) -> bool {
        world
            .finished
            .get(&self.behavior)
            .is_some_and(|t| *t >= self.opened)
    }
}
