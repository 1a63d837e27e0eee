//! NAOqi's motion modules: ALMotion, ALNavigation, ALRobotPosture, ALRobotPose,
//! ALAnimationPlayer, DCM, and the aiming of head and arms they share (`gaze`).

pub(crate) mod almotion;
pub(crate) mod animation;
pub(crate) mod dcm;
pub(crate) mod fall_manager;
pub(crate) mod frames;
pub(crate) mod gaze;
pub(crate) mod navigation;
pub(crate) mod orders;
pub(crate) mod posture;
pub(crate) mod robot_pose;
pub(crate) mod self_collision;
pub(crate) mod stiffness;
pub(crate) mod walks;
