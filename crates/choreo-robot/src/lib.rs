//! choreo-robot: what a NAO and a Pepper *are*, as data, in one place low in the stack.
//!
//! Joints in ALMotion's "Body" order with their limits, speeds and torques (motion.md §10, from
//! the public URDF files and the *NAO - Joints* pages), NAO's coupled ranges (head pitch by yaw,
//! ankle roll by ankle pitch: [`Model::coupled_to`]), `RHipYawPitch` following `LHipYawPitch`,
//! chains and the groups of the resource manager, the neck, top camera and shoulder offsets, and
//! how a model is recognised (a manifest's requirement, a timeline's `model` hint, the joints a
//! timeline animates). Beside the model, one module a table:
//!
//! - [`naoqi`]: NAOqi's API (modules, methods, signatures, versions), from `data/naoqi.txt`;
//! - [`animations`]: the stock animation library (names, lengths, tags), `data/animations.txt`;
//! - [`chain`]: the kinematic chains (each joint's parent, offset and axis; what the monitor's
//!   3D view draws), `data/chain.txt`;
//! - [`body`]: each link's mass and centre of mass, the supports, the self-collision shapes,
//!   `data/body.txt`;
//! - [`postures`]: ALRobotPosture's postures and their families;
//! - [`leds`]: every light's channels and NAOqi's groups; [`memory`]: the ALMemory device keys
//!   and the keys a robot holds from boot;
//! - [`languages`]: NAOqi's names, QiChat's codes, manifests' locales; [`calendar`]: the
//!   robot's UTC calendar;
//! - [`paths`]: the robot's folders and Play's layout; [`python`]: the Python packages NAOqi OS
//!   ships and what box code gets for each, `data/python.txt`.
//!
//! The data files are read once, a bad line an error at its line. The motion curves, the
//! engine's resource mechanism, the body, the qi server, the simulated robot and the command
//! line read it from here; none keeps a copy.
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
