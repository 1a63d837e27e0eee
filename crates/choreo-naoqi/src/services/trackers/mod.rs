//! NAOqi's trackers: ALTracker, and 1.x's ALRedBallTracker and ALFaceTracker.

pub(crate) mod tracker;
pub(crate) mod trackers;
