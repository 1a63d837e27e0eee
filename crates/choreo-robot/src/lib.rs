//! choreo-robot: what a NAO and a Pepper *are*, as data, in one place low in the stack.
//!
//! Joints in ALMotion's "Body" order with their limits and speeds (motion.md §10, from the
//! public URDF files and the *NAO - Joints* pages), NAO's yaw-dependent head pitch range,
//! `RHipYawPitch` following `LHipYawPitch`, chains and the groups of the resource manager,
//! and how a model is recognised (a manifest's requirement, a timeline's `model` hint, the
//! joints a timeline animates); NAOqi's API ([`naoqi`]: modules, methods, signatures,
//! versions); the stock animation library ([`animations`]: names, lengths, tags); the
//! languages it speaks ([`languages`]: NAOqi's names, QiChat's codes); and the kinematic
//! chains ([`chain`]: each joint's parent, offset and axis, what the monitor's 3D view
//! draws). The motion curves, the engine's resource mechanism, the qi server and the
//! simulated robot read it from here; none keeps a copy.
//!
//! ```
//! use choreo_robot::Model;
//! let nao = Model::Nao;
//! let i = nao.joint_index("LElbowRoll").unwrap_or(0);
//! assert_eq!(nao.clamp(i, 0.5, 0.0), -0.0349);
//! assert_eq!(Model::from_joints(["HipPitch", "HeadYaw"]), Some(Model::Pepper));
//! ```

pub mod animations;
pub mod body;
pub mod calendar;
pub mod chain;
pub mod languages;
pub mod leds;
pub mod memory;
mod model;
pub mod naoqi;
pub mod paths;
pub mod postures;
pub mod python;

pub use model::{Joint, Model, is_hand};
