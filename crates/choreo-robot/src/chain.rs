//! The kinematic chains of NAO and Pepper as data: for every joint (in ALMotion's "Body"
//! order), its parent joint or the torso, where it sits on its parent (metres), the fixed
//! rotation of its frame where there is one, and its rotation axis; and the fixed points a
//! drawing of the robot needs (`End`: the top of the head, soles, Pepper's base and wheels).
//! Read once from `data/chain.txt`, whose header names its sources (the ROS URDFs of
//! ros-naoqi and the *Links* pages). The monitor's 3D view draws the robot from it;
//! [`Model::neck`] and [`Model::shoulder`] are read from it.
//!
//! ```
//! use choreo_robot::Model;
//! let nao = Model::Nao.chain();
//! let elbow = nao.link("LElbowYaw").map(|l| l.offset);
//! assert_eq!(elbow, Some([0.105, 0.015, 0.0]));
//! assert_eq!(nao.link("LElbowYaw").and_then(|l| l.parent), Some("LShoulderRoll"));
//! let sole = nao.rest_position("LSole").unwrap_or_default();
//! assert!((sole[2] + 0.333_09).abs() < 1e-9);
//! ```

use std::fmt;
use std::sync::OnceLock;

use crate::Model;

/// The chains' text (see its header for the format and the sources).
const TEXT: &str = include_str!("../data/chain.txt");

/// The name of the torso's frame (FRAME_TORSO) as a parent in the data file.
pub const TORSO: &str = "torso";

/// One joint's place in its chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// The joint (a NAOqi name).
    pub joint: &'static str,
    /// Its parent joint; `None`: the torso.
    pub parent: Option<&'static str>,
    /// The translation from the parent joint's frame to this joint's, m.
    pub offset: [f64; 3],
    /// The fixed rotation of this joint's frame on its parent's (roll, pitch, yaw, rad;
    /// zero but for Pepper's elbows).
    pub rotation: [f64; 3],
    /// The rotation axis, a unit vector in this joint's frame (a hand's: its wrist's).
    pub axis: [f64; 3],
}

/// A fixed point on a joint's link that no joint follows (`HeadTop`, `LSole`, `Base`, ...).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct End {
    /// Its name.
    pub name: &'static str,
    /// The joint whose frame it is fixed in; `None`: the torso.
    pub parent: Option<&'static str>,
    /// Where, in that frame, m.
    pub offset: [f64; 3],
}

/// A model's chain: its links in "Body" order (each after its parent), and its ends.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Chain {
    links: Vec<Link>,
    ends: Vec<End>,
}

/// A line of the chains' text that is not well formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainError {
    /// The line (from 1).
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "chain line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ChainError {}

/// NAO's chain and Pepper's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Chains {
    nao: Chain,
    pepper: Chain,
}

impl Chains {
    /// The chains of `data/chain.txt`, parsed once (a test keeps the file well formed; were
    /// it not, both chains would be empty).
    pub fn stock() -> &'static Chains {
        static CHAINS: OnceLock<Chains> = OnceLock::new();
        CHAINS.get_or_init(|| Chains::parse(TEXT).unwrap_or_default())
    }

    /// `model`'s chain.
    pub fn of(&self, model: Model) -> &Chain {
        match model {
            Model::Nao => &self.nao,
            Model::Pepper => &self.pepper,
        }
    }

    /// Reads chains in the format of `data/chain.txt`: section lines `[NAO]` and
    /// `[Pepper]`, joint lines `Joint | parent | x y z | ax ay az [| rpy r p y]`, end lines
    /// `end Name | parent | x y z`, `#` comments. Checks that every joint is the model's
    /// and comes once, after its parent; that numbers are finite and axes unit vectors; and
    /// that ends hang from the torso or a joint of the section.
    pub fn parse(text: &'static str) -> Result<Chains, ChainError> {
        let mut chains = Chains::default();
        for item in crate::model::sectioned(text, "a line") {
            let (line, model, content) =
                item.map_err(|(line, message)| ChainError { line, message })?;
            let fail = |message: String| ChainError { line, message };
            let chain = match model {
                Model::Nao => &mut chains.nao,
                Model::Pepper => &mut chains.pepper,
            };
            let fields: Vec<&'static str> = content.split('|').map(str::trim).collect();
            if let Some(name) = fields.first().and_then(|f| f.strip_prefix("end ")) {
                let [_, parent, offset] = fields[..] else {
                    return Err(fail("an end needs `end Name | parent | x y z`".into()));
                };
                let name = name.trim();
                if name.is_empty() || chain.end(name).is_some() {
                    return Err(fail(format!("end {name:?} is empty or comes twice")));
                }
                let parent = chain.parent(parent).map_err(fail)?;
                chain.ends.push(End {
                    name,
                    parent,
                    offset: vector(offset).map_err(fail)?,
                });
                continue;
            }
            let (joint, parent, offset, axis, rotation) = match fields[..] {
                [j, p, o, a] => (j, p, o, a, None),
                [j, p, o, a, r] => (j, p, o, a, Some(r)),
                _ => {
                    return Err(fail(
                        "a joint needs `Joint | parent | x y z | ax ay az [| rpy r p y]`".into(),
                    ));
                }
            };
            if model.joint_index(joint).is_none() {
                return Err(fail(format!(
                    "{joint:?} is not a joint of {}",
                    model.name()
                )));
            }
            if chain.link(joint).is_some() {
                return Err(fail(format!("{joint} comes twice")));
            }
            let parent = chain.parent(parent).map_err(fail)?;
            let axis = vector(axis).map_err(fail)?;
            let norm = axis.iter().map(|a| a * a).sum::<f64>().sqrt();
            if (norm - 1.0).abs() > 1e-6 {
                return Err(fail(format!("{joint}'s axis is not a unit vector")));
            }
            let rotation = match rotation {
                None => [0.0; 3],
                Some(r) => {
                    let r = r
                        .strip_prefix("rpy ")
                        .ok_or_else(|| fail(format!("{r:?} is not `rpy r p y`")))?;
                    vector(r).map_err(fail)?
                }
            };
            chain.links.push(Link {
                joint,
                parent,
                offset: vector(offset).map_err(fail)?,
                rotation,
                axis,
            });
        }
        Ok(chains)
    }
}

/// Three finite numbers separated by spaces.
pub(crate) fn vector(text: &str) -> Result<[f64; 3], String> {
    let numbers: Vec<f64> = text
        .split_whitespace()
        .map(|n| n.parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("{text:?} holds something that is not a number"))?;
    <[f64; 3]>::try_from(numbers).map_err(|_| format!("{text:?} is not three numbers"))
}

/// The rotation matrix of URDF's `rpy`: Rz(yaw) · Ry(pitch) · Rx(roll), applied to `v`.
fn rotate([roll, pitch, yaw]: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    let (sr, cr) = roll.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    let (sy, cy) = yaw.sin_cos();
    let [x, y, z] = v;
    // Rx
    let (y, z) = (cr * y - sr * z, sr * y + cr * z);
    // Ry
    let (x, z) = (cp * x + sp * z, -sp * x + cp * z);
    // Rz
    let (x, y) = (cy * x - sy * y, sy * x + cy * y);
    [x, y, z]
}

impl Chain {
    /// Every joint's link, in "Body" order (a parent before its children).
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The fixed points, in the data file's order.
    pub fn ends(&self) -> &[End] {
        &self.ends
    }

    /// Joint `joint`'s link.
    pub fn link(&self, joint: &str) -> Option<&Link> {
        self.links.iter().find(|l| l.joint == joint)
    }

    /// The end named `name`.
    pub fn end(&self, name: &str) -> Option<&End> {
        self.ends.iter().find(|e| e.name == name)
    }

    /// A parent as the data file names it: the torso or a joint already read.
    fn parent(&self, name: &'static str) -> Result<Option<&'static str>, String> {
        if name == TORSO {
            Ok(None)
        } else if self.link(name).is_some() {
            Ok(Some(name))
        } else {
            Err(format!("parent {name:?} is not a joint read before"))
        }
    }

    /// Where joint or end `name` is in FRAME_TORSO with every joint at angle 0, m.
    pub fn rest_position(&self, name: &str) -> Option<[f64; 3]> {
        let (mut point, mut parent) = match (self.link(name), self.end(name)) {
            (Some(l), _) => ([0.0; 3], Some(l.joint)),
            (None, Some(e)) => (e.offset, e.parent),
            (None, None) => return None,
        };
        while let Some(joint) = parent {
            let link = self.link(joint)?;
            let turned = rotate(link.rotation, point);
            point = [0, 1, 2].map(|k| link.offset[k] + turned[k]);
            parent = link.parent;
        }
        Some(point)
    }
}

impl Model {
    /// The model's kinematic chain ([`Chain`]).
    pub fn chain(self) -> &'static Chain {
        Chains::stock().of(self)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const MODELS: [Model; 2] = [Model::Nao, Model::Pepper];

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn the_data_file_is_well_formed() {
        assert!(Chains::parse(TEXT).is_ok(), "{:?}", Chains::parse(TEXT));
    }

    #[test]
    fn every_joint_has_a_link_in_body_order_after_its_parent() {
        for model in MODELS {
            let chain = model.chain();
            let names: Vec<&str> = chain.links().iter().map(|l| l.joint).collect();
            let joints: Vec<&str> = model.joints().iter().map(|j| j.name).collect();
            assert_eq!(names, joints, "{}", model.name());
            for (k, link) in chain.links().iter().enumerate() {
                if let Some(p) = link.parent {
                    assert!(
                        chain.links()[..k].iter().any(|l| l.joint == p),
                        "{}: {}'s parent {p}",
                        model.name(),
                        link.joint
                    );
                }
            }
            for end in chain.ends() {
                assert!(
                    end.parent.is_none_or(|p| chain.link(p).is_some()),
                    "{}",
                    end.name
                );
            }
        }
    }

    #[test]
    fn nao_has_the_lengths_of_its_links_page() {
        let nao = Model::Nao.chain();
        let offset = |j: &str| nao.link(j).unwrap().offset;
        assert_eq!(offset("HeadYaw"), [0.0, 0.0, 0.1265], "NeckOffsetZ");
        assert_eq!(
            offset("LShoulderPitch"),
            [0.0, 0.098, 0.1],
            "ShoulderOffsetY/Z"
        );
        assert_eq!(offset("LElbowYaw")[0], 0.105, "UpperArmLength");
        assert_eq!(offset("LElbowYaw")[1], 0.015, "ElbowOffsetY");
        assert_eq!(offset("LWristYaw")[0], 0.05595, "LowerArmLength");
        assert_eq!(offset("LHand"), [0.05775, 0.0, -0.01231], "HandOffsetX/Z");
        assert_eq!(offset("LHipYawPitch"), [0.0, 0.05, -0.085], "HipOffsetY/Z");
        assert_eq!(-offset("LKneePitch")[2], 0.100, "ThighLength");
        assert_eq!(-offset("LAnklePitch")[2], 0.1029, "TibiaLength");
        assert_eq!(-nao.end("LSole").unwrap().offset[2], 0.04519, "FootHeight");
        let axis = nao.link("LHipYawPitch").unwrap().axis;
        assert!(close(axis[1], -axis[2]) && axis[1] > 0.7, "{axis:?}");
    }

    #[test]
    fn the_right_side_mirrors_the_left() {
        for model in MODELS {
            let chain = model.chain();
            for left in chain.links().iter().filter(|l| l.joint.starts_with('L')) {
                let name = format!("R{}", &left.joint[1..]);
                let Some(right) = chain.link(&name) else {
                    continue;
                };
                let [x, y, z] = left.offset;
                assert_eq!(right.offset, [x, -y, z], "{name}");
                assert_eq!(right.rotation, left.rotation, "{name}");
                assert_eq!(right.axis.map(f64::abs), left.axis.map(f64::abs), "{name}");
                assert_eq!(
                    right.parent.map(|p| p.replacen('R', "L", 1)),
                    left.parent.map(str::to_string),
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn the_neck_and_shoulders_are_the_chains() {
        assert_eq!(Model::Nao.neck(), [0.0, 0.0, 0.1265]);
        assert_eq!(Model::Pepper.neck(), [-0.038, 0.0, 0.1699]);
        assert_eq!(Model::Nao.shoulder(), [0.0, 0.098, 0.1]);
        assert_eq!(Model::Pepper.shoulder(), [-0.057, 0.149_74, 0.086_82]);
    }

    #[test]
    fn each_robot_stands_as_tall_as_it_is() {
        // NAO is about 57 cm tall, Pepper about 1.2 m: from the floor (the soles, the base)
        // to the top of the head, every joint at 0.
        let height = |model: Model, floor: &str| {
            let chain = model.chain();
            chain.rest_position("HeadTop").unwrap()[2] - chain.rest_position(floor).unwrap()[2]
        };
        let nao = height(Model::Nao, "LSole");
        assert!((0.56..0.58).contains(&nao), "{nao}");
        let pepper = height(Model::Pepper, "Base");
        assert!((1.19..1.22).contains(&pepper), "{pepper}");
        // Pepper's wheels touch the floor: their axles one radius up.
        let pepper = Model::Pepper.chain();
        let base = pepper.rest_position("Base").unwrap()[2];
        for wheel in ["WheelFL", "WheelFR", "WheelB"] {
            let up = pepper.rest_position(wheel).unwrap()[2] - base;
            assert!(close(up, 0.07), "{wheel} {up}");
        }
    }

    #[test]
    fn pepper_s_forearms_rise_from_the_elbow_s_fixed_pitch() {
        let pepper = Model::Pepper.chain();
        let elbow = pepper.rest_position("LElbowRoll").unwrap();
        let wrist = pepper.rest_position("LWristYaw").unwrap();
        // A pitch of -0.157 rad turns the forearm's x axis up by 9 degrees.
        assert!(close(wrist[2] - elbow[2], 0.15 * 0.157_079_f64.sin()));
        assert!(close(wrist[0] - elbow[0], 0.15 * 0.157_079_f64.cos()));
        assert_eq!(pepper.rest_position("Nothing"), None);
    }

    #[test]
    fn malformed_lines_are_refused_with_their_line() {
        let bad = [
            ("HeadYaw | torso | 0 0 1 | 0 0 1\n", 1, "before any section"),
            ("[NAO]\nHeadYaw | torso | 0 0 | 0 0 1\n", 2, "three numbers"),
            ("[NAO]\nHeadYaw | torso | 0 0 1 | 0 0 2\n", 2, "unit vector"),
            (
                "[NAO]\nHeadPitch | HeadYaw | 0 0 0 | 0 1 0\n",
                2,
                "read before",
            ),
            (
                "[NAO]\nKneePitch | torso | 0 0 0 | 0 1 0\n",
                2,
                "not a joint",
            ),
            ("[NAO]\nend Top | Nowhere | 0 0 0\n", 2, "read before"),
            ("[NAO]\nHeadYaw | torso | 0 0 1 | 0 0 1 | 0 1 0\n", 2, "rpy"),
            ("[Romeo]\n", 1, "unknown section"),
        ];
        for (text, line, what) in bad {
            let e = Chains::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text}");
            assert!(e.message.contains(what), "{text}: {e}");
        }
    }
}
