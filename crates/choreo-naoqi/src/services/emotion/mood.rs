//! ALMood: the robot's estimate of the mood of the person it engages and of the room. The
//! simulated robot perceives nobody: the states read are neutral with zero confidence, the
//! emotional reaction is "none"; subscribers (a name and a mode, "Active" or "Passive") are
//! kept and read back (`getSubscribers`, and `getSubscribersInfo`: name -> mode, as the 2.8
//! ALMood page's example shows).

use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};

/// ALMood as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALMood",
    methods: &[
        ("subscribe", Op::Own),
        ("unsubscribe", Op::Own),
        ("getSubscribers", Op::Own),
        ("getSubscribersInfo", Op::Own),
        (
            "getEmotionalReaction",
            Op::Answer(crate::robot::table::Const::Str("none")),
        ),
        ("currentPersonState", Op::Own),
        ("personStateFromUserSession", Op::Own),
        ("personStateFromPeoplePerception", Op::Own),
        ("ambianceState", Op::Own),
        ("persons", Op::Own),
    ],
    own,
    extractor: None,
};

/// Subscribers and their mode.
#[derive(Default)]
struct Subscribers(BTreeMap<String, String>);

/// `{"value": x, "confidence": 0}`.
fn estimate(value: f64) -> Value {
    Value::Map(vec![
        (Value::from("value"), Value::Float(value)),
        (Value::from("confidence"), Value::Float(0.0)),
    ])
}

/// A person's state with nothing perceived.
fn neutral_person() -> Value {
    Value::Map(vec![
        (Value::from("valence"), estimate(0.0)),
        (Value::from("attention"), estimate(0.0)),
        (
            Value::from("bodyLanguageState"),
            Value::Map(vec![(Value::from("ease"), estimate(0.0))]),
        ),
        (Value::from("smile"), estimate(0.0)),
        (Value::from("expressions"), Value::Map(Vec::new())),
    ])
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "subscribe" => {
            let (name, mode) = (a.str(0)?.to_string(), a.str(1)?.to_string());
            if !["Active", "Passive"].contains(&mode.as_str()) {
                return Err(a.bad(1, "\"Active\" or \"Passive\""));
            }
            sim.notice("ALMood", format!("{name} subscribed ({mode})"));
            sim.kept("ALMood", |s: &mut Subscribers| s.0.insert(name, mode));
            Value::Bool(true)
        }
        "unsubscribe" => {
            let name = a.str(0)?;
            Value::Bool(
                sim.kept("ALMood", |s: &mut Subscribers| s.0.remove(name))
                    .is_some(),
            )
        }
        "getSubscribers" => Value::List(sim.kept("ALMood", |s: &mut Subscribers| {
            s.0.keys().map(|n| Value::from(n.as_str())).collect()
        })),
        "getSubscribersInfo" => Value::Map(sim.kept("ALMood", |s: &mut Subscribers| {
            s.0.iter()
                .map(|(n, m)| (Value::from(n.as_str()), Value::from(m.as_str())))
                .collect()
        })),
        "currentPersonState" => neutral_person(),
        "personStateFromUserSession" | "personStateFromPeoplePerception" => {
            a.int(0)?;
            neutral_person()
        }
        "ambianceState" => Value::Map(vec![
            (Value::from("agitation"), estimate(0.0)),
            (Value::from("calm"), estimate(0.0)),
        ]),
        "persons" => Value::List(Vec::new()),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
