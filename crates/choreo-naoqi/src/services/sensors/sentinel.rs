//! ALSentinel (NAO 1.x): the chest button's default actions (say the robot's name and
//! battery on a click...) and the battery and heat watch, enabled or not. State only: the
//! settings are kept and read back; the events a disabled default action raises instead
//! (`ALSentinel/SimpleClickOccured`...) come from scenarios (`raise_event`).

use crate::robot::table::{Const, Op, Service, no_own};

/// ALSentinel as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALSentinel",
    methods: &[
        (
            "enableDefaultActionSimpleClick",
            Op::Set("DefaultActionSimpleClick", Const::None),
        ),
        (
            "enableDefaultActionDoubleClick",
            Op::Set("DefaultActionDoubleClick", Const::None),
        ),
        (
            "enableDefaultActionTripleClick",
            Op::Set("DefaultActionTripleClick", Const::None),
        ),
        (
            "enableBatteryMeasure",
            Op::Set("BatteryMeasure", Const::None),
        ),
        (
            "enableHeatMonitoring",
            Op::Set("HeatMonitoring", Const::None),
        ),
        (
            "isDefaultActionSimpleClickEnabled",
            Op::Get("DefaultActionSimpleClick", Const::Bool(true)),
        ),
        (
            "isDefaultActionDoubleClickEnabled",
            Op::Get("DefaultActionDoubleClick", Const::Bool(true)),
        ),
        (
            "isDefaultActionTripleClickEnabled",
            Op::Get("DefaultActionTripleClick", Const::Bool(true)),
        ),
        (
            "isBatteryMeasureEnabled",
            Op::Get("BatteryMeasure", Const::Bool(true)),
        ),
        (
            "isHeatMonitoringEnabled",
            Op::Get("HeatMonitoring", Const::Bool(true)),
        ),
        ("setPowerLimit", Op::Set("PowerLimit", Const::None)),
        ("getPowerLimit", Op::Get("PowerLimit", Const::Float(0.0))),
        // A simulated battery is full.
        ("getBatteryLevel", Op::Answer(Const::Int(100))),
    ],
    own: no_own,
    extractor: None,
};
