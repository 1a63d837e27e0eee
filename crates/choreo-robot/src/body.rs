//! The bodies of NAO and Pepper as data: each link's mass and centre of mass, the points the
//! robot stands on, and the shapes self-collision avoidance keeps apart. Read once from
//! `data/body.txt`, whose header names its sources (the ros-naoqi URDFs' inertials,
//! ALMotion's foot bounds; the shapes are an inference, said there). Frames are the chain's
//! ([`crate::chain`]): a joint's, or the torso's.
//!
//! ```
//! use choreo_robot::Model;
//! let nao = Model::Nao.body();
//! assert!((nao.total_mass() - 5.305).abs() < 0.001);
//! assert_eq!(nao.support("LFoot").count(), 4);
//! ```

use std::fmt;
use std::sync::OnceLock;

use crate::Model;
use crate::chain::{TORSO, vector};

/// The bodies' text (see its header for the format and the sources).
const TEXT: &str = include_str!("../data/body.txt");

/// A link's mass, in the frame of the joint that moves it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mass {
    /// The link's name (the URDF's, but for the wrists and ankles).
    pub link: &'static str,
    /// The joint whose frame it is in; `None`: the torso.
    pub joint: Option<&'static str>,
    /// Kilograms.
    pub kg: f64,
    /// Its centre of mass, m.
    pub com: [f64; 3],
}

/// A point the robot stands on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Support {
    /// What it belongs to (`LFoot`, `RFoot`, Pepper's `Base`).
    pub name: &'static str,
    /// The joint whose frame it is in.
    pub joint: Option<&'static str>,
    /// Where, m.
    pub point: [f64; 3],
    /// Whether it stops the robot tipping over its feet (a hand, an elbow, a knee, the
    /// pelvis: the robot then leans on it, kneels or sits) rather than meeting the floor
    /// only once the robot has fallen (the trunk, the head). False for a support.
    pub catches: bool,
}

/// A shape of self-collision avoidance: a capsule (a segment swept by a ball; a sphere is
/// one whose two ends are the same point).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// `LArm`, `RArm` (the protected chains) or `Body`.
    pub group: &'static str,
    /// Its name in the group (`Torso`, `ForeArm`, ...).
    pub name: &'static str,
    /// The joint whose frame it is in.
    pub joint: Option<&'static str>,
    /// The segment's ends, m.
    pub ends: [[f64; 3]; 2],
    /// The radius, m.
    pub radius: f64,
}

/// A model's body.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Body {
    masses: Vec<Mass>,
    supports: Vec<Support>,
    touches: Vec<Support>,
    shapes: Vec<Shape>,
}

/// A line of the bodies' text that is not well formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyError {
    /// The line (from 1).
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "body line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for BodyError {}

impl Body {
    /// Every link's mass.
    pub fn masses(&self) -> &[Mass] {
        &self.masses
    }

    /// The whole robot's mass, kg.
    pub fn total_mass(&self) -> f64 {
        self.masses.iter().map(|m| m.kg).sum()
    }

    /// Every point the robot may stand on.
    pub fn supports(&self) -> &[Support] {
        &self.supports
    }

    /// The points of one support (`LFoot`).
    pub fn support<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Support> + 'a {
        self.supports.iter().filter(move |s| s.name == name)
    }

    /// Points of the body other than its supports that meet the floor when the robot is
    /// not standing on them (sitting, kneeling, on its hands): where they would go below
    /// the floor, the robot is not standing.
    pub fn touches(&self) -> &[Support] {
        &self.touches
    }

    /// The self-collision shapes.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }
}

/// NAO's body and Pepper's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bodies {
    nao: Body,
    pepper: Body,
}

impl Bodies {
    /// The bodies of `data/body.txt`, parsed once (a test keeps the file well formed).
    pub fn stock() -> &'static Bodies {
        static BODIES: OnceLock<Bodies> = OnceLock::new();
        BODIES.get_or_init(|| Bodies::parse(TEXT).unwrap_or_default())
    }

    /// `model`'s body.
    pub fn of(&self, model: Model) -> &Body {
        match model {
            Model::Nao => &self.nao,
            Model::Pepper => &self.pepper,
        }
    }

    /// Reads bodies in the format of `data/body.txt`, checking that every frame is the
    /// torso or a joint of the model, numbers are finite, masses and radii positive.
    pub fn parse(text: &'static str) -> Result<Bodies, BodyError> {
        let mut bodies = Bodies::default();
        for item in crate::model::sectioned(text, "a line") {
            let (line, model, content) =
                item.map_err(|(line, message)| BodyError { line, message })?;
            let fail = |message: String| BodyError { line, message };
            let body = match model {
                Model::Nao => &mut bodies.nao,
                Model::Pepper => &mut bodies.pepper,
            };
            let fields: Vec<&'static str> = content.split('|').map(str::trim).collect();
            let (kind, name) = fields
                .first()
                .and_then(|f| f.split_once(' '))
                .map(|(k, n)| (k, n.trim()))
                .ok_or_else(|| {
                    fail("expected `mass`, `support`, `touch`, `sphere` or `capsule`".into())
                })?;
            let frame = |f: &str| -> Result<Option<&'static str>, BodyError> {
                if f == TORSO {
                    return Ok(None);
                }
                model
                    .joints()
                    .iter()
                    .find(|j| j.name == f)
                    .map(|j| Some(j.name))
                    .ok_or_else(|| fail(format!("{f:?} is neither the torso nor a joint")))
            };
            let positive = |f: &str| -> Result<f64, BodyError> {
                f.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .ok_or_else(|| fail(format!("{f:?} is not a positive number")))
            };
            match (kind, &fields[1..]) {
                ("mass", [joint, kg, com]) => body.masses.push(Mass {
                    link: name,
                    joint: frame(joint)?,
                    kg: positive(kg)?,
                    com: vector(com).map_err(fail)?,
                }),
                ("support", [joint, point]) => body.supports.push(Support {
                    name,
                    joint: frame(joint)?,
                    point: vector(point).map_err(fail)?,
                    catches: false,
                }),
                ("touch", [joint, point, role]) => body.touches.push(Support {
                    name,
                    joint: frame(joint)?,
                    point: vector(point).map_err(fail)?,
                    catches: match *role {
                        "catch" => true,
                        "lie" => false,
                        _ => return Err(fail(format!("{role:?} is neither `catch` nor `lie`"))),
                    },
                }),
                ("sphere" | "capsule", rest) => {
                    let (group, short) = name
                        .split_once('.')
                        .ok_or_else(|| fail(format!("{name:?} is not `Group.Name`")))?;
                    let (joint, a, b, r) = match rest {
                        [joint, at, r] if kind == "sphere" => (joint, at, at, r),
                        [joint, a, b, r] if kind == "capsule" => (joint, a, b, r),
                        _ => return Err(fail(format!("a {kind} line has the wrong fields"))),
                    };
                    body.shapes.push(Shape {
                        group,
                        name: short,
                        joint: frame(joint)?,
                        ends: [vector(a).map_err(fail)?, vector(b).map_err(fail)?],
                        radius: positive(r)?,
                    });
                }
                _ => return Err(fail(format!("a {kind} line has the wrong fields"))),
            }
        }
        Ok(bodies)
    }
}

impl Model {
    /// The model's body (masses, supports, shapes) from `data/body.txt`.
    pub fn body(self) -> &'static Body {
        Bodies::stock().of(self)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_data_file_is_well_formed() {
        let bodies = Bodies::parse(TEXT).unwrap();
        assert_eq!(bodies.of(Model::Nao).masses().len(), 25);
        assert_eq!(bodies.of(Model::Pepper).supports().len(), 3);
    }

    #[test]
    fn the_robots_weigh_what_their_urdfs_say() {
        // Sums of the URDFs' link masses (the fingers' 2 mg links apart): NAO 5.305 kg,
        // Pepper 28.68 kg (the manufacturer says "28 kg").
        assert!((Model::Nao.body().total_mass() - 5.305_38).abs() < 1e-4);
        assert!((Model::Pepper.body().total_mass() - 28.681_2).abs() < 1e-3);
    }

    #[test]
    fn the_right_side_mirrors_the_left() {
        for model in [Model::Nao, Model::Pepper] {
            let body = model.body();
            for m in body.masses().iter().filter(|m| m.link.starts_with('L')) {
                let right = format!("R{}", &m.link[1..]);
                let r = body.masses().iter().find(|r| r.link == right).unwrap();
                assert_eq!(r.kg, m.kg, "{}", m.link);
                assert_eq!([r.com[0], -r.com[1], r.com[2]], m.com, "{}", m.link);
            }
        }
    }

    #[test]
    fn malformed_lines_are_refused_with_their_line() {
        let bad = Bodies::parse("[NAO]\nmass torso | torso | -1 | 0 0 0\n").unwrap_err();
        assert_eq!(bad.line, 2);
        let bad = Bodies::parse("[NAO]\n\nsphere Torso | torso | 0 0 0 | 0.1\n").unwrap_err();
        assert_eq!(bad.line, 3);
        assert!(bad.message.contains("Group.Name"), "{bad}");
        let bad = Bodies::parse("[NAO]\nsupport X | KneePitch | 0 0 0\n").unwrap_err();
        assert!(bad.message.contains("KneePitch"), "{bad}");
        let bad = Bodies::parse("[NAO]\ntouch X | torso | 0 0 0 | lean\n").unwrap_err();
        assert!(bad.message.contains("`catch` nor `lie`"), "{bad}");
    }

    #[test]
    fn the_limbs_and_the_pelvis_catch_a_tipping_nao_and_the_trunk_and_head_do_not() {
        let body = Model::Nao.body();
        let catching: Vec<&str> = body
            .touches()
            .iter()
            .filter(|t| t.catches)
            .map(|t| t.name)
            .collect();
        assert_eq!(
            catching,
            [
                "Buttocks", "LKnee", "RKnee", "LHand", "RHand", "LElbow", "RElbow"
            ]
        );
    }
}
