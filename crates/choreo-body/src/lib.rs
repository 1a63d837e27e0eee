//! choreo-body: what physics a NAO's and a Pepper's body obeys, computed from the robot's
//! data in `choreo-robot` (its chain, masses, supports and shapes), with nothing simulated
//! beyond it: forward kinematics ([`Frames`]), the centre of mass, the support polygon
//! ([`Stance`]), balance over time (the CoM and the cart-table ZMP against the polygon,
//! [`Balance`]), the motors' speed limits ([`speed`]) and self-collision ([`collision`]); a
//! robot tipping over its feet, followed until a hand, an elbow, a knee or the pelvis catches
//! it or it falls ([`tip`]); a body down on the floor, followed until it stands on its soles
//! again ([`floor`]). The functions are pure: joint angles and time in. The simulated robot
//! (choreo-naoqi) falls, clamps and avoids with it; `choreo check --body` ([`check`]) runs it
//! over a behavior's timelines without running the behavior.
//!
//! ```
//! use choreo_body::{Frames, Stance};
//! use choreo_robot::Model;
//! // NAO with every joint at 0 stands on both feet, its centre of mass above them.
//! let stance = Stance::of(&Frames::new(Model::Nao, &[]));
//! assert_eq!(stance.on_ground, ["LFoot", "RFoot"]);
//! assert!(stance.margin([stance.com[0], stance.com[1]]) > 0.02);
//! ```

pub mod balance;
pub mod check;
pub mod collision;
pub mod floor;
pub mod kinematics;
mod per_model;
pub mod pose;
pub mod speed;
pub mod stance;
pub mod tip;

pub use balance::{Balance, Fall};
pub use kinematics::Frames;
pub use pose::Pose;
pub use stance::Stance;
pub use tip::{Tip, Tipped};
