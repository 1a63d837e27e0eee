//! NAOqi's people perception modules: ALFaceDetection, ALPeoplePerception,
//! ALFaceCharacteristics.

pub(crate) mod face;
pub(crate) mod perception;
pub(crate) mod person;
