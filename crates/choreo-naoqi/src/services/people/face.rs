//! ALFaceCharacteristics: age, gender, expression and smile of the people the robot sees.
//! The simulated robot sees nobody unless a scenario says so: `analyzeFaceCharacteristics(id)`
//! is True only for a person in ALMemory's `PeoplePerception/PeopleList` (a scenario's
//! `insert_data`), and then writes that person's properties (neutral values, unless the
//! scenario wrote its own) under `PeoplePerception/Person/<id>/...`, as the robot does.

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::extractor::Extractor;
use crate::robot::table::{Const, Op, Service};

/// ALFaceCharacteristics as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALFaceCharacteristics",
    methods: &[
        ("analyzeFaceCharacteristics", Op::Own),
        (
            "setSmilingThreshold",
            Op::Set("SmilingThreshold", Const::None),
        ),
        (
            "getSmilingThreshold",
            Op::Get("SmilingThreshold", Const::Float(0.7)),
        ),
    ],
    own,
    extractor: Some(Extractor::plain(&["FaceCharacteristics/PersonSmiling"])),
};

/// A person's properties and their neutral values: age [years, confidence], gender
/// [0 female .. 1 male, confidence], expression [neutral, happy, surprised, angry, sad],
/// smile [degree, confidence].
const PROPERTIES: &[(&str, &[f64])] = &[
    ("AgeProperties", &[30.0, 0.0]),
    ("GenderProperties", &[0.5, 0.0]),
    ("ExpressionProperties", &[1.0, 0.0, 0.0, 0.0, 0.0]),
    ("SmileProperties", &[0.0, 0.0]),
];

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    if method != "analyzeFaceCharacteristics" {
        return Ok(Reply::NotServed);
    }
    let id = a.int(0)?;
    let seen = match sim.memory.get("PeoplePerception/PeopleList") {
        Some(Value::List(ids)) => ids.iter().any(|v| number(v) == Some(id as f64)),
        _ => false,
    };
    if seen {
        for (name, neutral) in PROPERTIES {
            let key = format!("PeoplePerception/Person/{id}/{name}");
            if sim.memory.get(&key).is_none() {
                sim.insert(
                    &key,
                    Value::List(neutral.iter().map(|x| Value::Float(*x)).collect()),
                );
            }
        }
    }
    Ok(Reply::Now(Value::Bool(seen)))
}
