//! ALFaceCharacteristics: age, gender, expression and smile of the people the robot sees.
//! The simulated robot sees nobody unless a scenario says so: `analyzeFaceCharacteristics(id)`
//! is True only for a person in ALMemory's `PeoplePerception/PeopleList` (a scenario's
//! `insert_data`, or someone the world shows: `perception.rs`), and then writes that
//! person's properties under `PeoplePerception/Person/<id>/...`, as the robot does: those of
//! the simulated person's [`Face`] (a scenario's `face`), unless the scenario wrote its own.

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::extractor::Extractor;
use crate::robot::table::{Const, Op, Service};
use crate::services::people::person::Face;

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
        let face = *sim.state().part::<Face>();
        for (name, values) in face.properties() {
            let key = format!("PeoplePerception/Person/{id}/{name}");
            if sim.memory.get(&key).is_none() {
                sim.insert(
                    &key,
                    Value::List(values.into_iter().map(Value::Float).collect()),
                );
            }
        }
    }
    Ok(Reply::Now(Value::Bool(seen)))
}
