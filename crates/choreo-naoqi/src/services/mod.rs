//! The NAOqi modules the simulated robot serves, one file each (or one folder), in the
//! groups of NAOqi's documentation. Each reaches the robot through the core's types
//! (`crate::robot`); the registry (`crate::registry`) knows them all, none knows it.

pub(crate) mod audio;
pub(crate) mod core;
pub(crate) mod emotion;
pub(crate) mod interaction;
pub(crate) mod media;
pub(crate) mod motion;
pub(crate) mod people;
pub(crate) mod sensors;
pub(crate) mod trackers;
pub(crate) mod vision;
