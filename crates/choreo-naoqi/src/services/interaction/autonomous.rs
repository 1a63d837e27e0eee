//! ALAutonomousMoves and ALAutonomousBlinking: the small moves and blinks a robot makes by
//! itself. State only (the simulated robot makes no idle moves): settings kept and read
//! back, changes shown.

use crate::robot::table::{Const, Op, Service, no_own};

/// ALAutonomousMoves as served.
pub(crate) const MOVES: Service = Service {
    name: "ALAutonomousMoves",
    methods: &[
        (
            "setBackgroundStrategy",
            Op::Set("BackgroundStrategy", Const::None),
        ),
        (
            "getBackgroundStrategy",
            Op::Get("BackgroundStrategy", Const::Str("backToNeutral")),
        ),
        (
            "setExpressiveListeningEnabled",
            Op::Set("ExpressiveListeningEnabled", Const::None),
        ),
        (
            "getExpressiveListeningEnabled",
            Op::Get("ExpressiveListeningEnabled", Const::Bool(true)),
        ),
        (
            "startSmallDisplacements",
            Op::Put("SmallDisplacements", Const::Bool(true)),
        ),
        (
            "stopSmallDisplacements",
            Op::Put("SmallDisplacements", Const::Bool(false)),
        ),
    ],
    own: no_own,
    extractor: None,
};

/// ALAutonomousBlinking as served.
pub(crate) const BLINKING: Service = Service {
    name: "ALAutonomousBlinking",
    methods: &[
        ("setEnabled", Op::Set("Enabled", Const::None)),
        ("isEnabled", Op::Get("Enabled", Const::Bool(true))),
    ],
    own: no_own,
    extractor: None,
};
