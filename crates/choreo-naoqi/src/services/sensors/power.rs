//! ALBattery and ALBodyTemperature: the readings of a healthy robot, from its ALMemory keys
//! (choreo-robot's `memory` tables). `ALBattery.getBatteryCharge()` is the battery's charge
//! in percent (`Device/SubDeviceList/Battery/Charge/Sensor/Value`, full unless a scenario
//! writes it, which also raises `BatteryChargeChanged` with the new percentage, as ALBattery
//! does); `enablePowerMonitoring(b)` is kept. `ALBodyTemperature.getTemperatureDiagnosis()`
//! is the last `TemperatureDiagnosisErrorChanged` (`[0, []]`: nothing hot, unless a scenario
//! raises another); its notifications' switch is kept. The other events (`BatteryLowDetected`,
//! `HotDeviceDetected`...) come from scenarios.

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};

/// ALBattery as served.
pub(crate) const BATTERY: Service = Service {
    name: "ALBattery",
    methods: &[
        ("getBatteryCharge", Op::Own),
        (
            "enablePowerMonitoring",
            Op::Set("PowerMonitoring", Const::None),
        ),
    ],
    own: battery,
    extractor: None,
};

/// ALBodyTemperature as served.
pub(crate) const TEMPERATURE: Service = Service {
    name: "ALBodyTemperature",
    methods: &[
        ("getTemperatureDiagnosis", Op::Own),
        (
            "setEnableNotifications",
            Op::Set("Notifications", Const::None),
        ),
        (
            "areNotificationsEnabled",
            Op::Get("Notifications", Const::Bool(true)),
        ),
    ],
    own: temperature,
    extractor: None,
};

/// The battery's charge key (0..1).
pub(crate) const CHARGE: &str = "Device/SubDeviceList/Battery/Charge/Sensor/Value";

/// A charge (0..1) in percent.
fn percent(charge: f64) -> i64 {
    (charge.clamp(0.0, 1.0) * 100.0).round() as i64
}

fn battery(sim: &Sim, method: &str, _: &Args<'_>) -> Result<Reply, CallError> {
    if method != "getBatteryCharge" {
        return Ok(Reply::NotServed);
    }
    let charge = crate::services::core::memory::read(sim, CHARGE)
        .as_ref()
        .and_then(number)
        .unwrap_or(1.0);
    Ok(Reply::Now(Value::Int(percent(charge))))
}

fn temperature(sim: &Sim, method: &str, _: &Args<'_>) -> Result<Reply, CallError> {
    if method != "getTemperatureDiagnosis" {
        return Ok(Reply::NotServed);
    }
    let diagnosis = sim
        .memory
        .get("TemperatureDiagnosisErrorChanged")
        .unwrap_or_else(|| Value::List(vec![Value::Int(0), Value::List(Vec::new())]));
    Ok(Reply::Now(diagnosis))
}

/// A new charge raises `BatteryChargeChanged` when the percentage changes (called by
/// `reactions.rs`).
pub(crate) fn charge_changed(sim: &Sim, previous: Option<&Value>, value: &Value) {
    let Some(now) = number(value) else {
        return;
    };
    let before = previous.and_then(number).unwrap_or(1.0);
    if percent(now) != percent(before) {
        sim.raise_quietly("BatteryChargeChanged", Value::Int(percent(now)));
    }
}
