//! The robot models: NAO and Pepper joints with their limits and speeds (motion.md §10),
//! chains, resource groups, and how a model is recognised.

use std::sync::OnceLock;

use serde::Serialize;

/// A robot model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Model {
    /// NAO V5/V6 (H25): legs, walks.
    Nao,
    /// Pepper 1.8: no legs, rolls on wheels.
    Pepper,
}

/// One joint: limits in radians (hands: opening ratio), max speed in rad/s, max torque in
/// N·m (the URDFs' `effort`, what `getLimits` answers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Joint {
    /// The NAOqi name.
    pub name: &'static str,
    /// Lower limit.
    pub min: f64,
    /// Upper limit.
    pub max: f64,
    /// Maximum speed.
    pub max_speed: f64,
    /// Maximum torque.
    pub max_torque: f64,
}

const fn j(name: &'static str, min: f64, max: f64, max_speed: f64, max_torque: f64) -> Joint {
    Joint {
        name,
        min,
        max,
        max_speed,
        max_torque,
    }
}

/// NAO joints, in ALMotion's "Body" order. `RHipYawPitch` is listed but follows
/// `LHipYawPitch` (one motor; see [`Model::dof`]).
const NAO: &[Joint] = &[
    j("HeadYaw", -2.0857, 2.0857, 8.27, 1.547),
    j("HeadPitch", -0.6720, 0.5149, 7.19, 1.532),
    j("LShoulderPitch", -2.0857, 2.0857, 8.27, 1.329),
    j("LShoulderRoll", -0.3142, 1.3265, 7.19, 1.7835),
    j("LElbowYaw", -2.0857, 2.0857, 8.27, 1.547),
    j("LElbowRoll", -1.5446, -0.0349, 7.19, 1.532),
    j("LWristYaw", -1.8238, 1.8238, 24.62, 0.4075),
    j("LHand", 0.0, 1.0, 8.33, 0.292),
    j("LHipYawPitch", -1.1453, 0.7407, 4.16, 3.348),
    j("LHipRoll", -0.3794, 0.7905, 4.16, 3.348),
    j("LHipPitch", -1.5359, 0.4840, 6.40, 3.023),
    j("LKneePitch", -0.0923, 2.1126, 6.40, 3.023),
    j("LAnklePitch", -1.1894, 0.9226, 6.40, 3.023),
    j("LAnkleRoll", -0.3978, 0.7690, 4.16, 3.348),
    j("RHipYawPitch", -1.1453, 0.7407, 4.16, 3.348),
    j("RHipRoll", -0.7905, 0.3794, 4.16, 3.348),
    j("RHipPitch", -1.5359, 0.4840, 6.40, 3.0226),
    j("RKneePitch", -0.0923, 2.1126, 6.40, 3.0226),
    j("RAnklePitch", -1.1863, 0.9320, 6.40, 3.0226),
    j("RAnkleRoll", -0.7690, 0.3978, 4.16, 3.348),
    j("RShoulderPitch", -2.0857, 2.0857, 8.27, 1.329),
    j("RShoulderRoll", -1.3265, 0.3142, 7.19, 1.783),
    j("RElbowYaw", -2.0857, 2.0857, 8.27, 1.547),
    j("RElbowRoll", 0.0349, 1.5446, 7.19, 1.532),
    j("RWristYaw", -1.8238, 1.8238, 24.62, 0.4075),
    j("RHand", 0.0, 1.0, 8.33, 0.292),
];

/// Pepper joints, in ALMotion's "Body" order.
const PEPPER: &[Joint] = &[
    j("HeadYaw", -2.0857, 2.0857, 7.34, 5.428),
    j("HeadPitch", -0.7069, 0.6370, 9.23, 2.666),
    j("HipRoll", -0.5149, 0.5149, 2.27, 10.1884),
    j("HipPitch", -1.0385, 1.0385, 2.93, 19.787),
    j("KneePitch", -0.5149, 0.5149, 2.93, 27.702),
    j("LShoulderPitch", -2.0857, 2.0857, 7.34, 5.428),
    j("LShoulderRoll", 0.0087, 1.5621, 9.23, 2.666),
    j("LElbowYaw", -2.0857, 2.0857, 7.34, 5.428),
    j("LElbowRoll", -1.5621, -0.0087, 9.23, 2.666),
    j("LWristYaw", -1.8239, 1.8239, 17.38, 0.2014),
    j("LHand", 0.02, 0.98, 12.56, 0.144),
    j("RShoulderPitch", -2.0857, 2.0857, 7.34, 5.428),
    j("RShoulderRoll", -1.5621, -0.0087, 9.23, 2.666),
    j("RElbowYaw", -2.0857, 2.0857, 7.34, 5.428),
    j("RElbowRoll", 0.0087, 1.5621, 9.23, 2.666),
    j("RWristYaw", -1.8239, 1.8239, 17.38, 0.2014),
    j("RHand", 0.02, 0.98, 12.56, 0.144),
];

/// NAO head pitch limits by |HeadYaw| (motion.md §10), interpolated linearly.
const HEAD_PITCH: &[(f64, f64, f64)] = &[
    (0.0, -0.672, 0.515),
    (0.486, -0.672, 0.422),
    (0.756, -0.548, 0.370),
    (0.903, -0.480, 0.330),
    (1.090, -0.430, 0.300),
    (1.527, -0.330, 0.200),
    (2.086, -0.449, 0.330),
];

/// NAO's left ankle roll limits by LAnklePitch, the shells' "anti collision limitation" of
/// the joints page (NAOqi 2.8, NAO V6; the same table for V4/V5 in 2.1), in radians; the
/// right ankle mirrors them (its roll range is the left one's negated). Between the page's
/// points, interpolated linearly (the page gives the points only).
const ANKLE_ROLL: &[(f64, f64, f64)] = &[
    (-1.189442, -0.049916, 0.075049),
    (-0.840027, -0.179943, 0.169995),
    (-0.700051, -0.397935, 0.220086),
    (-0.449946, -0.397935, 0.768992),
    (0.100007, -0.397935, 0.768992),
    (0.349938, -0.397935, 0.550477),
    (0.922755, 0.0, 0.049916),
];

/// A point of a coupled joint's range: the bounding joint's angle, and the range there.
pub type RangePoint = (f64, f64, f64);

/// Which anti-collision table bounds a joint (see [`Model::coupled_to`]).
#[derive(Debug, Clone, Copy)]
enum Coupling {
    /// NAO's head pitch, by |HeadYaw| ([`HEAD_PITCH`]).
    HeadPitch,
    /// The left ankle's roll, by its pitch ([`ANKLE_ROLL`]).
    LeftAnkle,
    /// The right one's: the left's table mirrored.
    RightAnkle,
}

/// The range a table of (key, min, max) points gives at `x`: linear between points, the end
/// points' beyond them.
fn between(table: &[(f64, f64, f64)], x: f64) -> (f64, f64) {
    let (Some(first), Some(last)) = (table.first(), table.last()) else {
        return (f64::NEG_INFINITY, f64::INFINITY);
    };
    if x <= first.0 {
        return (first.1, first.2);
    }
    for pair in table.windows(2) {
        let ((x0, lo0, hi0), (x1, lo1, hi1)) = (pair[0], pair[1]);
        if x <= x1 {
            let s = (x - x0) / (x1 - x0);
            return (lo0 + s * (lo1 - lo0), hi0 + s * (hi1 - hi0));
        }
    }
    (last.1, last.2)
}

/// Whether joint `name` is a hand (`LHand`, `RHand`): its value is an opening ratio
/// (0 closed, 1 open), never an angle. Choregraphe itself decides by these two names.
pub fn is_hand(name: &str) -> bool {
    name == "LHand" || name == "RHand"
}

impl Model {
    /// The robot a package is made for, from its manifest's `robotRequirement` models:
    /// Pepper when one is a `JULIETTE` model (Pepper's code name), else NAO.
    pub fn required_by<S: AsRef<str>>(robot_models: &[S]) -> Model {
        let pepper = robot_models.iter().any(|r| {
            r.as_ref()
                .get(..8)
                .is_some_and(|p| p.eq_ignore_ascii_case("JULIETTE"))
        });
        if pepper { Model::Pepper } else { Model::Nao }
    }

    /// The model a timeline's `ActuatorList` `model` attribute names: `Nao` (any case) is
    /// NAO, `juliette` (Pepper's code name, any case) is Pepper; empty or anything else
    /// names none.
    pub fn from_hint(hint: &str) -> Option<Model> {
        let hint = hint.trim();
        if hint.eq_ignore_ascii_case("nao") {
            Some(Model::Nao)
        } else if hint.eq_ignore_ascii_case("juliette") || hint.eq_ignore_ascii_case("pepper") {
            Some(Model::Pepper)
        } else {
            None
        }
    }

    /// The model whose joints these are (motion.md §10): Pepper's `HipRoll`, `HipPitch` or
    /// `KneePitch` mean Pepper, a NAO leg joint means NAO; None when every name is shared
    /// (head, arms, hands) or unknown, or when both kinds appear.
    pub fn from_joints<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Option<Model> {
        let (mut nao, mut pepper) = (false, false);
        for name in names {
            let name = name.as_ref();
            let on_nao = Model::Nao.joint_index(name).is_some();
            let on_pepper = Model::Pepper.joint_index(name).is_some();
            nao |= on_nao && !on_pepper;
            pepper |= on_pepper && !on_nao;
        }
        match (nao, pepper) {
            (true, false) => Some(Model::Nao),
            (false, true) => Some(Model::Pepper),
            _ => None,
        }
    }

    /// The model a motion timeline is made for: the joints it animates when they tell,
    /// else its `model` hint ([`Model::from_hint`]), else none (the caller's robot). The
    /// joints come first because the hint is an editor setting that files get wrong, while
    /// a curve on a joint only one model has cannot be meant for the other.
    pub fn detect<S: AsRef<str>>(
        hint: Option<&str>,
        joints: impl IntoIterator<Item = S>,
    ) -> Option<Model> {
        Model::from_joints(joints).or_else(|| hint.and_then(Model::from_hint))
    }

    /// Its name as ALSystem and reports show it.
    pub fn name(self) -> &'static str {
        match self {
            Model::Nao => "NAO",
            Model::Pepper => "Pepper",
        }
    }

    /// Every joint, in "Body" order.
    pub fn joints(self) -> &'static [Joint] {
        match self {
            Model::Nao => NAO,
            Model::Pepper => PEPPER,
        }
    }

    /// The index of joint `name`.
    pub fn joint_index(self, name: &str) -> Option<usize> {
        self.joints().iter().position(|j| j.name == name)
    }

    /// The joint whose motor drives joint `i`: `RHipYawPitch` follows `LHipYawPitch`.
    pub fn dof(self, i: usize) -> usize {
        match (self, self.joints().get(i).map(|j| j.name)) {
            (Model::Nao, Some("RHipYawPitch")) => self.joint_index("LHipYawPitch").unwrap_or(i),
            _ => i,
        }
    }

    /// The joints of a chain or joint name ("Head", "LArm", "Body", "HeadYaw", ...), as
    /// indices; `None` for an unknown name.
    pub fn resolve(self, name: &str) -> Option<Vec<usize>> {
        let joints = self.joints();
        let all = || (0..joints.len()).collect::<Vec<_>>();
        let prefixed = |names: &[&str]| -> Vec<usize> {
            names
                .iter()
                .filter_map(|n| self.joint_index(n))
                .collect::<Vec<_>>()
        };
        let arm = |side: &str| {
            prefixed(&[
                &format!("{side}ShoulderPitch"),
                &format!("{side}ShoulderRoll"),
                &format!("{side}ElbowYaw"),
                &format!("{side}ElbowRoll"),
                &format!("{side}WristYaw"),
                &format!("{side}Hand"),
            ])
        };
        let leg = |side: &str| {
            prefixed(&[
                &format!("{side}HipYawPitch"),
                &format!("{side}HipRoll"),
                &format!("{side}HipPitch"),
                &format!("{side}KneePitch"),
                &format!("{side}AnklePitch"),
                &format!("{side}AnkleRoll"),
            ])
        };
        let found = match name {
            "Body" | "JointActuators" | "Joints" | "Actuators" | "BodyJoints" => all(),
            "Head" => prefixed(&["HeadYaw", "HeadPitch"]),
            "LArm" => arm("L"),
            "RArm" => arm("R"),
            "Arms" => [arm("L"), arm("R")].concat(),
            "LLeg" if self == Model::Nao => leg("L"),
            "RLeg" if self == Model::Nao => leg("R"),
            "Legs" if self == Model::Nao => [leg("L"), leg("R")].concat(),
            "Leg" if self == Model::Pepper => prefixed(&["HipRoll", "HipPitch", "KneePitch"]),
            _ => self.joint_index(name).map(|i| vec![i])?,
        };
        Some(found)
    }

    /// The groups of the robot's resource manager (docs/runtime-rules.md, Q4) that box
    /// resources name (`Head`, `Left arm`, `Legs`, `All motors`, Pepper's `Lower body` with
    /// its wheels), each with what it covers (joints, or groups listed before it), in order.
    /// The engine's `ResourceTree` is built from them.
    pub fn resource_groups(self) -> Vec<(&'static str, Vec<&'static str>)> {
        let names = |chain: &str| -> Vec<&'static str> {
            self.resolve(chain)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|i| self.joints().get(i).map(|j| j.name))
                .collect()
        };
        let mut groups = vec![
            ("Head", names("Head")),
            ("Left arm", names("LArm")),
            ("Right arm", names("RArm")),
            ("Arms", vec!["Left arm", "Right arm"]),
        ];
        let lower = match self {
            Model::Nao => {
                groups.push(("Left leg", names("LLeg")));
                groups.push(("Right leg", names("RLeg")));
                groups.push(("Legs", vec!["Left leg", "Right leg"]));
                "Legs"
            }
            Model::Pepper => {
                let mut lower = names("Leg");
                lower.extend(["WheelFL", "WheelFR", "WheelB"]);
                groups.push(("Lower body", lower));
                "Lower body"
            }
        };
        groups.push(("All motors", vec!["Head", "Arms", lower]));
        groups
    }

    /// The chain names [`Model::resolve`] accepts (for `getBodyNames`).
    pub fn chains(self) -> &'static [&'static str] {
        match self {
            Model::Nao => &["Head", "LArm", "LLeg", "RLeg", "RArm"],
            Model::Pepper => &["Head", "LArm", "Leg", "RArm"],
        }
    }

    /// The joint whose angle bounds joint `i`'s range, if any: NAO's head pitch by its
    /// yaw, each ankle's roll by its pitch (the joints page's anti-collision limitations).
    /// It always comes before `i` in ALMotion's order.
    pub fn coupled_to(self, i: usize) -> Option<usize> {
        self.couplings().get(i).copied().flatten().map(|(by, _)| by)
    }

    /// Per joint, the joint bounding it and which table does ([`Model::coupled_to`]); found
    /// once (joint names are compared once, not at every clamp).
    fn couplings(self) -> &'static [Option<(usize, Coupling)>] {
        static NAO: OnceLock<Vec<Option<(usize, Coupling)>>> = OnceLock::new();
        let find = |model: Model| {
            model
                .joints()
                .iter()
                .map(|j| {
                    let (by, how) = match j.name {
                        "HeadPitch" => ("HeadYaw", Coupling::HeadPitch),
                        "LAnkleRoll" => ("LAnklePitch", Coupling::LeftAnkle),
                        "RAnkleRoll" => ("RAnklePitch", Coupling::RightAnkle),
                        _ => return None,
                    };
                    Some((model.joint_index(by)?, how))
                })
                .collect()
        };
        match self {
            Model::Nao => NAO.get_or_init(|| find(Model::Nao)),
            Model::Pepper => &[],
        }
    }

    /// Limits of joint `i`; `by`: the angle of the joint that bounds it
    /// ([`Model::coupled_to`]), ignored for the others.
    pub fn limits(self, i: usize, by: f64) -> (f64, f64) {
        let Some(joint) = self.joints().get(i) else {
            return (f64::NEG_INFINITY, f64::INFINITY);
        };
        match self.couplings().get(i).copied().flatten() {
            None => (joint.min, joint.max),
            Some((_, Coupling::HeadPitch)) => between(HEAD_PITCH, by.abs()),
            Some((_, Coupling::LeftAnkle)) => between(ANKLE_ROLL, by),
            Some((_, Coupling::RightAnkle)) => {
                let (lo, hi) = between(ANKLE_ROLL, by);
                (-hi, -lo)
            }
        }
    }

    /// The range of a coupled joint `i` as points over the bounding joint's angle: that
    /// joint, and (angle, min, max) in increasing angle, linear between points and the end
    /// points' beyond them, exactly [`Model::limits`] (NAO's head pitch table mirrored over
    /// negative yaws). For an editor's sliders, whose ranges follow as the robot's do.
    pub fn coupled_points(self, i: usize) -> Option<(usize, Vec<RangePoint>)> {
        let (by, how) = self.couplings().get(i).copied().flatten()?;
        let points = match how {
            Coupling::HeadPitch => HEAD_PITCH
                .iter()
                .rev()
                .filter(|p| p.0 > 0.0)
                .map(|&(x, lo, hi)| (-x, lo, hi))
                .chain(HEAD_PITCH.iter().copied())
                .collect(),
            Coupling::LeftAnkle => ANKLE_ROLL.to_vec(),
            Coupling::RightAnkle => ANKLE_ROLL
                .iter()
                .map(|&(x, lo, hi)| (x, -hi, -lo))
                .collect(),
        };
        Some((by, points))
    }

    /// `value` brought within the limits of joint `i` ([`Model::limits`]; `by` as there).
    pub fn clamp(self, i: usize, value: f64, by: f64) -> f64 {
        let (lo, hi) = self.limits(i, by);
        value.clamp(lo, hi)
    }

    /// Every joint of `angles` (ALMotion's order) brought within its limits, a coupled
    /// joint within those its (already clamped) partner's angle gives.
    pub fn clamp_all(self, angles: &mut [f64]) {
        for i in 0..angles.len() {
            let by = self
                .coupled_to(i)
                .and_then(|j| angles.get(j).copied())
                .unwrap_or(0.0);
            angles[i] = self.clamp(i, angles[i], by);
        }
    }

    /// Walking speeds: metres per second and radians per second (§5, inference).
    pub fn base_speed(self) -> (f64, f64) {
        match self {
            Model::Nao => (0.1, 0.5),
            Model::Pepper => (0.35, 1.0),
        }
    }

    /// Where the head turns (the HeadYaw axis) in FRAME_TORSO, m (the links pages of NAO
    /// and Pepper: NeckOffsetZ, Pepper's NeckOffsetX; read from the model's [`chain`]).
    ///
    /// [`chain`]: Model::chain
    pub fn neck(self) -> [f64; 3] {
        self.chain().link("HeadYaw").map_or([0.0; 3], |l| l.offset)
    }

    /// The top camera in the head's frame (HeadYaw and HeadPitch at 0), m (NAO V5's links
    /// page; Pepper's **inference**).
    pub fn top_camera(self) -> [f64; 3] {
        match self {
            Model::Nao => [0.058_71, 0.0, 0.063_64],
            Model::Pepper => [0.0868, 0.0, 0.0631],
        }
    }

    /// The left shoulder (the ShoulderPitch axis) in FRAME_TORSO, m; the right one mirrors
    /// it (the links pages: ShoulderOffsetX/Y/Z; read from the model's [`chain`]).
    ///
    /// [`chain`]: Model::chain
    pub fn shoulder(self) -> [f64; 3] {
        self.chain()
            .link("LShoulderPitch")
            .map_or([0.0; 3], |l| l.offset)
    }
}

/// The lines of a data file made of `[NAO]` / `[Pepper]` sections (`data/animations.txt`,
/// `data/chain.txt`), `#` comments and blank lines left out: each as (line number from 1,
/// its section's model, its content trimmed), or (line number, what is wrong) for an unknown
/// section or a line before any; `what` names the file's lines in that message.
pub(crate) fn sectioned<'t>(
    text: &'t str,
    what: &'static str,
) -> impl Iterator<Item = Result<(usize, Model, &'t str), (usize, String)>> {
    let mut section: Option<Model> = None;
    text.lines().enumerate().filter_map(move |(i, raw)| {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            return None;
        }
        if let Some(name) = content.strip_prefix('[').and_then(|c| c.strip_suffix(']')) {
            return match name {
                "NAO" => {
                    section = Some(Model::Nao);
                    None
                }
                "Pepper" => {
                    section = Some(Model::Pepper);
                    None
                }
                _ => Some(Err((line, format!("unknown section [{name}]")))),
            };
        }
        Some(match section {
            Some(model) => Ok((line, model, content)),
            None => Err((line, format!("{what} before any section"))),
        })
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn coupled_points_give_the_limits_everywhere() {
        let nao = Model::Nao;
        for name in ["HeadPitch", "LAnkleRoll", "RAnkleRoll"] {
            let i = nao.joint_index(name).unwrap();
            let (by, points) = nao.coupled_points(i).unwrap();
            assert_eq!(Some(by), nao.coupled_to(i));
            assert!(points.windows(2).all(|w| w[0].0 < w[1].0), "{name}");
            for k in -250..=250 {
                let x = f64::from(k) / 100.0;
                let (lo, hi) = between(&points, x);
                let (want_lo, want_hi) = nao.limits(i, x);
                assert!(
                    (lo - want_lo).abs() < 1e-12 && (hi - want_hi).abs() < 1e-12,
                    "{name} at {x}"
                );
            }
        }
        assert!(
            nao.coupled_points(nao.joint_index("HeadYaw").unwrap())
                .is_none()
        );
    }

    use super::*;

    #[test]
    fn chains_resolve_to_real_joints() {
        assert_eq!(Model::Nao.joints().len(), 26);
        assert_eq!(Model::Pepper.joints().len(), 17);
        assert_eq!(Model::Nao.resolve("LArm").map(|v| v.len()), Some(6));
        assert_eq!(Model::Pepper.resolve("LLeg"), None);
        assert_eq!(Model::Pepper.resolve("Leg").map(|v| v.len()), Some(3));
        assert_eq!(Model::Nao.resolve("Body").map(|v| v.len()), Some(26));
    }

    #[test]
    fn a_juliette_requirement_means_pepper() {
        assert_eq!(Model::required_by(&["JULIETTE_Y20"]), Model::Pepper);
        assert_eq!(Model::required_by(&["NAO", "juliette"]), Model::Pepper);
        assert_eq!(Model::required_by(&["NAO"]), Model::Nao);
        assert_eq!(Model::required_by(&["JULIET"]), Model::Nao);
        assert_eq!(Model::required_by::<&str>(&[]), Model::Nao);
    }

    #[test]
    fn head_pitch_range_narrows_with_yaw() {
        let i = Model::Nao.joint_index("HeadPitch").unwrap_or(0);
        assert_eq!(Model::Nao.limits(i, 0.0), (-0.672, 0.515));
        let (_, hi) = Model::Nao.limits(i, 1.527);
        assert!((hi - 0.2).abs() < 1e-9);
        assert_eq!(Model::Pepper.limits(1, 1.5), (-0.7069, 0.6370));
    }

    /// The joints page (NAOqi 2.8, NAO V6), "Anti collision limitation" of each ankle: at
    /// LAnklePitch -0.840027 rad, LAnkleRoll goes from -0.179943 to 0.169995; at
    /// RAnklePitch 0.922755, RAnkleRoll from -0.049916 to 0. Halfway between the points at
    /// -0.449946 and 0.100007 both bounds stay (-0.397935, 0.768992); halfway between 0.349938
    /// and 0.922755 the upper one is (0.550477 + 0.049916) / 2 = 0.3001965.
    #[test]
    fn ankle_roll_range_follows_the_ankle_pitch_as_the_joints_page_gives_it() {
        let nao = Model::Nao;
        let l = nao.joint_index("LAnkleRoll").unwrap_or(0);
        let r = nao.joint_index("RAnkleRoll").unwrap_or(0);
        let near = |(a, b): (f64, f64), (c, d): (f64, f64)| {
            assert!(
                (a - c).abs() < 1e-9 && (b - d).abs() < 1e-9,
                "{a} {b} / {c} {d}"
            );
        };
        assert_eq!(nao.coupled_to(l), nao.joint_index("LAnklePitch"));
        near(nao.limits(l, -0.840027), (-0.179943, 0.169995));
        near(nao.limits(r, 0.922755), (-0.049916, 0.0));
        near(
            nao.limits(l, (-0.449946 + 0.100007) / 2.0),
            (-0.397935, 0.768992),
        );
        near(
            nao.limits(l, (0.349938 + 0.922755) / 2.0),
            ((-0.397935 + 0.0) / 2.0, 0.3001965),
        );
        // A rolled ankle is brought back as the pitch asks, whole-body: at pitch -1.1, the
        // way from the page's -1.189442 to -0.840027 is 0.089442 / 0.349415; the upper
        // bound goes from 0.075049 to 0.169995 as far.
        let mut pose = vec![0.0; nao.joints().len()];
        let lp = nao.joint_index("LAnklePitch").unwrap_or(0);
        pose[lp] = -1.1;
        pose[l] = 0.5;
        nao.clamp_all(&mut pose);
        let hi = 0.075049 + 0.089442 / 0.349415 * (0.169995 - 0.075049);
        assert!((pose[l] - hi).abs() < 1e-9, "{} / {hi}", pose[l]);
        assert_eq!(Model::Pepper.coupled_to(1), None);
    }

    #[test]
    fn a_timeline_model_is_told_by_its_joints_then_its_hint() {
        assert_eq!(Model::from_hint("Nao"), Some(Model::Nao));
        assert_eq!(Model::from_hint("nao"), Some(Model::Nao));
        assert_eq!(Model::from_hint("juliette"), Some(Model::Pepper));
        assert_eq!(Model::from_hint("Juliette"), Some(Model::Pepper));
        assert_eq!(Model::from_hint(""), None);
        assert_eq!(Model::from_joints(["HeadYaw", "LHand"]), None);
        assert_eq!(
            Model::from_joints(["HeadYaw", "LKneePitch"]),
            Some(Model::Nao)
        );
        assert_eq!(Model::from_joints(["KneePitch"]), Some(Model::Pepper));
        assert_eq!(Model::from_joints(["KneePitch", "LKneePitch"]), None);
        assert_eq!(
            Model::detect(Some("juliette"), ["HeadYaw"]),
            Some(Model::Pepper)
        );
        assert_eq!(
            Model::detect(Some("juliette"), ["RAnkleRoll"]),
            Some(Model::Nao),
            "a joint only NAO has decides"
        );
        assert_eq!(Model::detect(None, ["HeadYaw"]), None);
        assert!(is_hand("LHand") && is_hand("RHand") && !is_hand("LHipPitch"));
    }

    #[test]
    fn the_resource_groups_name_only_joints_or_earlier_groups() {
        for model in [Model::Nao, Model::Pepper] {
            let groups = model.resource_groups();
            for (k, (name, covers)) in groups.iter().enumerate() {
                for c in covers {
                    let earlier = groups[..k].iter().any(|(g, _)| g == c);
                    let wheel = c.starts_with("Wheel");
                    assert!(
                        earlier || wheel || model.joint_index(c).is_some(),
                        "{name} covers {c}"
                    );
                }
            }
            assert_eq!(groups.last().map(|g| g.0), Some("All motors"));
        }
    }
}
