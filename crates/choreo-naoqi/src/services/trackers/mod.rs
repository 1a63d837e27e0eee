//! NAOqi's trackers: ALTracker, and 1.x's ALRedBallTracker and ALFaceTracker.

pub(crate) mod legacy;
pub(crate) mod tracker;
