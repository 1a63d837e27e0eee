//! ALConnectionManager: the robot's network. The simulated robot is online through one
//! wired connection and sees no Wi-Fi network around it: `services()` lists that connection
//! (a list of `[key, value]` pairs per service, as NAOqi gives them: scripts read them with
//! `dict(service)`), a scan finds nothing new, and the state is `online`.

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};

/// ALConnectionManager as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALConnectionManager",
    methods: &[
        ("scan", Op::Answer(Const::None)),
        ("services", Op::Own),
        ("service", Op::Own),
        ("state", Op::Answer(Const::Str("online"))),
        (
            "technologies",
            Op::Answer(Const::Strs(&["ethernet", "wifi"])),
        ),
        ("country", Op::Get("Country", Const::Str("FR"))),
        ("setCountry", Op::Set("Country", Const::None)),
    ],
    own,
    extractor: None,
};

/// The one connection: its properties, as `[key, value]` pairs.
fn wired() -> Value {
    let pair = |k: &str, v: Value| Value::List(vec![Value::from(k), v]);
    Value::List(vec![
        pair("ServiceId", Value::from("ethernet_choreo_sim_cable")),
        pair("Name", Value::from("")),
        pair("Type", Value::from("ethernet")),
        pair("State", Value::from("online")),
        pair("Strength", Value::Int(0)),
        pair("Favorite", Value::Bool(true)),
    ])
}

fn own(_sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "services" => Value::List(vec![wired()]),
        "service" => {
            let id = a.str(0)?;
            if id != "ethernet_choreo_sim_cable" {
                return Err(CallError::Failed(format!(
                    "ALConnectionManager.service: no service {id:?}"
                )));
            }
            wired()
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
