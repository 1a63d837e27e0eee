//! Forward kinematics: where every joint's frame is in FRAME_TORSO for a set of joint
//! angles, from the chain of `choreo_robot::chain`; and the centre of mass from the masses
//! of `choreo_robot::body`.

use choreo_robot::Model;

use crate::per_model::PerModel;
use crate::pose::Pose;

/// One joint of a model's chain, resolved to indices once.
#[derive(Debug, Clone)]
struct Step {
    /// The joint's index in the model's joints.
    joint: usize,
    /// The parent's index; `None`: the torso.
    parent: Option<usize>,
    /// Where the joint's frame is on its parent's at angle 0 (offset, then fixed rotation).
    fixed: Pose,
    axis: [f64; 3],
    /// A hand (its value is an opening, not an angle): it does not turn.
    hand: bool,
    /// Where its angle is in the angles given ([`Model::dof`]).
    dof: usize,
}

impl Step {
    /// The joint's frame for `angles` (by dof), on its parent's frame `parent`.
    fn pose(&self, parent: Pose, angles: &[f64]) -> Pose {
        let here = if self.fixed.r == Pose::IDENTITY.r {
            Pose {
                r: parent.r,
                t: parent.apply(self.fixed.t),
            }
        } else {
            parent.then(&self.fixed)
        };
        if self.hand {
            here
        } else {
            let q = angles.get(self.dof).copied().unwrap_or(0.0);
            here.turned(self.axis, q)
        }
    }
}

/// Per joint of `model`, its angle in `angles` (by dof; missing: 0).
fn joint_angles(model: Model, angles: &[f64]) -> Vec<f64> {
    indices(model)
        .dofs
        .iter()
        .map(|&d| angles.get(d).copied().unwrap_or(0.0))
        .collect()
}

/// The chain of `model` in "Body" order, each joint after its parent.
fn steps(model: Model) -> &'static [Step] {
    static MADE: PerModel<Vec<Step>> = PerModel::new();
    MADE.get(model, || {
        model
            .chain()
            .links()
            .iter()
            .filter_map(|l| {
                let joint = model.joint_index(l.joint)?;
                Some(Step {
                    joint,
                    dof: model.dof(joint),
                    parent: l.parent.and_then(|p| model.joint_index(p)),
                    fixed: Pose::at(l.offset).then(&Pose::rpy(l.rotation)),
                    axis: l.axis,
                    hand: choreo_robot::is_hand(l.joint),
                })
            })
            .collect()
    })
}

/// The joint index (`None`: the torso) of each mass, support, touch point and shape of a
/// model's body, in the body's order, found once (a name lookup per point per step would
/// cost more than the kinematics).
pub(crate) struct Indices {
    /// Per joint, where its angle is in the angles given ([`Model::dof`]).
    pub dofs: Vec<usize>,
    pub masses: Vec<Option<usize>>,
    pub supports: Vec<Option<usize>>,
    pub touches: Vec<Option<usize>>,
    pub shapes: Vec<Option<usize>>,
}

pub(crate) fn indices(model: Model) -> &'static Indices {
    static MADE: PerModel<Indices> = PerModel::new();
    MADE.get(model, || {
        let body = model.body();
        let at = |j: Option<&str>| j.and_then(|j| model.joint_index(j));
        Indices {
            dofs: (0..model.joints().len()).map(|i| model.dof(i)).collect(),
            masses: body.masses().iter().map(|m| at(m.joint)).collect(),
            supports: body.supports().iter().map(|s| at(s.joint)).collect(),
            touches: body.touches().iter().map(|s| at(s.joint)).collect(),
            shapes: body.shapes().iter().map(|s| at(s.joint)).collect(),
        }
    })
}

/// Every joint's frame in FRAME_TORSO, for one set of angles.
#[derive(Debug, Clone)]
pub struct Frames {
    model: Model,
    angles: Vec<f64>,
    poses: Vec<Pose>,
    /// Which frames [`Frames::move_to`] computed again (kept: a step allocates nothing).
    changed: Vec<bool>,
}

impl Frames {
    /// The frames for `angles`, one per joint of `model` in its order (`RHipYawPitch`
    /// follows `LHipYawPitch`, as on the robot; missing angles are 0).
    pub fn new(model: Model, angles: &[f64]) -> Frames {
        let mut poses = vec![Pose::IDENTITY; model.joints().len()];
        for s in steps(model) {
            let parent = s.parent.map_or(Pose::IDENTITY, |p| poses[p]);
            poses[s.joint] = s.pose(parent, angles);
        }
        Frames {
            model,
            angles: joint_angles(model, angles),
            changed: vec![false; poses.len()],
            poses,
        }
    }

    /// The frames for `angles` (as [`Frames::new`]), computed again only for the joints
    /// whose angle or parent's frame changed from these: following a motion step by step,
    /// the joints it leaves alone (the legs of an arm gesture) cost nothing. The same
    /// frames as [`Frames::new`], to the bit.
    pub fn moved(&self, angles: &[f64]) -> Frames {
        let mut frames = self.clone();
        frames.move_to(angles);
        frames
    }

    /// These frames made [`Frames::moved`] to `angles`, in place: a step of a motion
    /// followed without copying the frames.
    pub fn move_to(&mut self, angles: &[f64]) {
        let model = self.model;
        let changed = &mut self.changed;
        changed.clear();
        changed.resize(self.poses.len(), false);
        for s in steps(model) {
            let parent_changed = s.parent.is_some_and(|p| changed[p]);
            let now = angles.get(s.dof).copied().unwrap_or(0.0);
            let turned = !s.hand && self.angles.get(s.joint) != Some(&now);
            if parent_changed || turned {
                let parent = s.parent.map_or(Pose::IDENTITY, |p| self.poses[p]);
                self.poses[s.joint] = s.pose(parent, angles);
                changed[s.joint] = true;
            }
        }
        for (a, &d) in self.angles.iter_mut().zip(&indices(model).dofs) {
            *a = angles.get(d).copied().unwrap_or(0.0);
        }
    }

    /// The joints' angles the frames are for (hands: openings).
    pub fn angles(&self) -> &[f64] {
        &self.angles
    }

    /// The model.
    pub fn model(&self) -> Model {
        self.model
    }

    /// The frame of joint `i` (after its turn); the torso's for an unknown index.
    pub fn joint(&self, i: usize) -> Pose {
        self.poses.get(i).copied().unwrap_or(Pose::IDENTITY)
    }

    /// The frame named `joint` (`None`: the torso).
    pub fn frame(&self, joint: Option<&str>) -> Pose {
        self.frame_at(joint.and_then(|j| self.model.joint_index(j)))
    }

    /// The frame of joint `i` (`None`: the torso).
    pub fn frame_at(&self, i: Option<usize>) -> Pose {
        i.map_or(Pose::IDENTITY, |i| self.joint(i))
    }

    /// Point `p` of the frame named `joint`, in FRAME_TORSO.
    pub fn point(&self, joint: Option<&str>, p: [f64; 3]) -> [f64; 3] {
        self.frame(joint).apply(p)
    }

    /// The whole body's centre of mass in FRAME_TORSO.
    pub fn com(&self) -> [f64; 3] {
        self.com_of(|_| true)
    }

    /// The centre of mass of the links whose joint `keep` accepts (`None`: the torso).
    pub fn com_of(&self, keep: impl Fn(Option<&str>) -> bool) -> [f64; 3] {
        let mut sum = [0.0; 3];
        let mut total = 0.0;
        let masses = self.model.body().masses();
        for (m, &at) in masses
            .iter()
            .zip(&indices(self.model).masses)
            .filter(|(m, _)| keep(m.joint))
        {
            let p = self.frame_at(at).apply(m.com);
            for (s, v) in sum.iter_mut().zip(p) {
                *s += m.kg * v;
            }
            total += m.kg;
        }
        if total > 0.0 {
            sum.map(|s| s / total)
        } else {
            [0.0; 3]
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn frames_moved_are_the_frames_made_anew() {
        for model in [Model::Nao, Model::Pepper] {
            let n = model.joints().len();
            let start: Vec<f64> = (0..n).map(|i| 0.1 * (i as f64).sin()).collect();
            let mut frames = Frames::new(model, &start);
            // An arm alone, then a leg and the head, then everything.
            for moved in [vec![2, 3], vec![0, 9, 12], (0..n).collect()] {
                let mut angles = frames.angles().to_vec();
                for &j in &moved {
                    if let Some(a) = angles.get_mut(model.dof(j)) {
                        *a += 0.05;
                    }
                }
                frames = frames.moved(&angles);
                let fresh = Frames::new(model, &angles);
                assert_eq!(frames.angles(), fresh.angles());
                for i in 0..n {
                    assert_eq!(frames.joint(i), fresh.joint(i), "{model:?} joint {i}");
                }
            }
        }
    }

    #[test]
    fn at_zero_every_frame_is_its_offsets_summed() {
        // NAO's links page: the hand at ShoulderOffsetY + ElbowOffsetY = 0.113 m left,
        // UpperArmLength + LowerArmLength + HandOffsetX = 0.2187 m ahead, ShoulderOffsetZ -
        // HandOffsetZ = 0.08769 m up.
        let f = Frames::new(Model::Nao, &[]);
        let hand = f.frame(Some("LHand")).t;
        let want = [0.105 + 0.05595 + 0.05775, 0.098 + 0.015, 0.1 - 0.01231];
        assert!(
            hand.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-9),
            "{hand:?}"
        );
    }

    #[test]
    fn a_shoulder_pitched_down_a_quarter_turn_hangs_the_arm() {
        // ShoulderPitch turns about y: +π/2 takes the arm from ahead (x) to down (-z).
        let mut q = vec![0.0; Model::Nao.joints().len()];
        q[Model::Nao.joint_index("LShoulderPitch").unwrap()] = std::f64::consts::FRAC_PI_2;
        let hand = Frames::new(Model::Nao, &q).frame(Some("LHand")).t;
        let want = [-0.01231, 0.113, 0.1 - 0.2187];
        assert!(
            hand.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-9),
            "{hand:?}"
        );
    }
}
