//! ALInfrared, NAO's infrared link of NAOqi 1.x (its C++ proxy header of 1.12), as
//! Choregraphe 2.1's IR boxes call it: `initReception(repeatThreshold)` starts listening,
//! `send8`, `send32`, `sendIpAddress`, `sendRemoteKey` and `sendRemoteKeyWithTime` send (to
//! nobody: every sending is shown). What the robot receives comes from scenarios raising
//! the module's events with their real shape: `InfraRedRemoteKeyReceived` = `[lircCode,
//! repeat, key, remote, side (0 left..7 right)]`, `InfraRedOneByteReceived` = an octet,
//! `InfraRedFourBytesReceived` = four octets, `InfraRedIpAdressReceived` = an address,
//! `InfraRedSide` = the side (0..7).

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};

/// ALInfrared as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALInfrared",
    methods: &[
        ("initReception", Op::Own),
        ("send8", Op::Own),
        ("send32", Op::Own),
        ("sendIpAddress", Op::Own),
        ("sendRemoteKey", Op::Own),
        ("sendRemoteKeyWithTime", Op::Own),
    ],
    own,
    extractor: None,
};

/// The events of what the robot receives.
pub(crate) const EVENTS: &[&str] = &[
    "InfraRedRemoteKeyReceived",
    "InfraRedOneByteReceived",
    "InfraRedFourBytesReceived",
    "InfraRedIpAdressReceived",
    "InfraRedSide",
];

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let octet = |i: usize| -> Result<i64, CallError> {
        let x = a.int(i)?;
        if (0..=255).contains(&x) {
            Ok(x)
        } else {
            Err(a.bad(i, "an octet (0..255)"))
        }
    };
    let shown = match method {
        "initReception" => {
            let threshold = a.int(0)?;
            sim.set_setting(SERVICE.name, "RepeatThreshold", Value::Int(threshold));
            format!("listens (repeat threshold {threshold})")
        }
        "send8" => format!("sends {}", octet(0)?),
        "send32" => match a.values {
            [Value::String(data)] => format!("sends {data:?}"),
            _ => format!(
                "sends {} {} {} {}",
                octet(0)?,
                octet(1)?,
                octet(2)?,
                octet(3)?
            ),
        },
        "sendIpAddress" => {
            let ip = a.str(0)?;
            if ip.parse::<std::net::Ipv4Addr>().is_err() {
                return Err(a.bad(0, "an IP address"));
            }
            format!("sends the address {ip}")
        }
        "sendRemoteKey" | "sendRemoteKeyWithTime" => {
            let (remote, key) = (a.str(0)?, a.str(1)?);
            if method == "sendRemoteKeyWithTime" {
                a.int(2)?;
            }
            format!("sends key {key:?} of remote {remote:?}")
        }
        _ => return Ok(Reply::NotServed),
    };
    sim.notice(SERVICE.name, shown);
    Ok(Reply::Now(Value::None))
}
