//! NAOqi's emotion modules: ALMood.

pub(crate) mod mood;
