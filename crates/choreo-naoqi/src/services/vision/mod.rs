//! NAOqi's vision modules: ALVideoDevice, ALPhotoCapture, ALVideoRecorder,
//! ALVisualCompass, the detections (movement, darkness, backlighting; sound's too),
//! ALLocalization, ALVisionToolbox.

pub(crate) mod capture;
pub(crate) mod compass;
pub(crate) mod detection;
pub(crate) mod files;
pub(crate) mod localization;
pub(crate) mod toolbox;
pub(crate) mod video;
