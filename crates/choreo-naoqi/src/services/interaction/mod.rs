//! NAOqi's interaction modules: ALDialog, ALBasicAwareness, ALAutonomousLife and the
//! autonomous abilities (ALAutonomousMoves, ALAutonomousBlinking).

pub(crate) mod autonomous;
pub(crate) mod awareness;
pub(crate) mod dialog;
pub(crate) mod life;
