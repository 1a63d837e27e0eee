//! NAOqi's sensor modules: ALLeds, ALInfrared, ALBattery, ALBodyTemperature, ALSentinel.

pub(crate) mod infrared;
pub(crate) mod leds;
pub(crate) mod power;
pub(crate) mod sentinel;
