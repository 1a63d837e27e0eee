//! The robots' posture library, as ALRobotPosture names it: each posture's joint angles
//! and its family. The angles are approximations of the robot's library (degrees, from the
//! postures' pictures and Choregraphe's posture library), close enough for the current
//! posture to be recognised, not measured values.

use crate::Model;

/// A named posture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Posture {
    /// Its name (`StandInit`).
    pub name: &'static str,
    /// Its family (`Standing`).
    pub family: &'static str,
    /// Degrees in "Body" order (hands: the opening ratio).
    pub degrees: &'static [f64],
}

/// NAO postures, degrees in "Body" order (hands: opening ratio), with their family.
#[rustfmt::skip]
const NAO: &[(&str, &str, [f64; 26])] = &[
    ("StandInit", "Standing", [0.0, 0.0, 84.0, 9.0, -70.0, -40.0, -6.0, 0.25, 0.0, 0.0, -25.0, 40.0, -20.0, 0.0, 0.0, 0.0, -25.0, 40.0, -20.0, 0.0, 84.0, -9.0, 70.0, 40.0, 6.0, 0.25]),
    ("Stand", "Standing", [0.0, 0.0, 84.0, 9.0, -70.0, -40.0, -6.0, 0.25, 0.0, 0.0, -6.0, 10.0, -5.0, 0.0, 0.0, 0.0, -6.0, 10.0, -5.0, 0.0, 84.0, -9.0, 70.0, 40.0, 6.0, 0.25]),
    ("StandZero", "Standing", [0.0; 26]),
    ("Crouch", "Crouching", [0.0, 0.0, 40.0, 10.0, -70.0, -60.0, 0.0, 0.3, -10.0, 0.0, -49.0, 123.0, -68.0, 0.0, -10.0, 0.0, -49.0, 123.0, -68.0, 0.0, 40.0, -10.0, 70.0, 60.0, 0.0, 0.3]),
    ("Sit", "Sitting", [0.0, 0.0, 40.0, 5.0, 0.0, -45.0, 0.0, 0.3, -38.0, 10.0, -50.0, 60.0, 15.0, 0.0, -38.0, -10.0, -50.0, 60.0, 15.0, 0.0, 40.0, -5.0, 0.0, 45.0, 0.0, 0.3]),
    ("SitRelax", "Sitting", [0.0, 0.0, 110.0, 0.0, 60.0, -10.0, 0.0, 0.3, -20.0, 10.0, -40.0, 50.0, 20.0, 0.0, -20.0, -10.0, -40.0, 50.0, 20.0, 0.0, 110.0, 0.0, -60.0, 10.0, 0.0, 0.3]),
    ("LyingBelly", "LyingBelly", [0.0, 25.0, 90.0, 10.0, -90.0, -10.0, 0.0, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 90.0, -10.0, 90.0, 10.0, 0.0, 0.3]),
    ("LyingBack", "LyingBack", [0.0, -30.0, 100.0, 20.0, -60.0, -30.0, 0.0, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 100.0, -20.0, 60.0, 30.0, 0.0, 0.3]),
];

/// Pepper postures, degrees in "Body" order (hands: opening ratio), with their family.
#[rustfmt::skip]
const PEPPER: &[(&str, &str, [f64; 17])] = &[
    ("Stand", "Standing", [0.0, -12.0, 0.0, -2.0, 0.0, 90.0, 6.0, -70.0, -30.0, 0.0, 0.6, 90.0, -6.0, 70.0, 30.0, 0.0, 0.6]),
    ("StandInit", "Standing", [0.0, -12.0, 0.0, -2.0, 0.0, 85.0, 8.0, -80.0, -40.0, 0.0, 0.6, 85.0, -8.0, 80.0, 40.0, 0.0, 0.6]),
    ("StandZero", "Standing", [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5]),
    ("Crouch", "Crouching", [0.0, 25.0, 0.0, -59.0, 29.0, 90.0, 5.0, -70.0, -40.0, 0.0, 0.3, 90.0, -5.0, 70.0, 40.0, 0.0, 0.3]),
];

const fn p(name: &'static str, family: &'static str, degrees: &'static [f64]) -> Posture {
    Posture {
        name,
        family,
        degrees,
    }
}

/// How close (rad) the joints must be to a posture, every joint but the hands, to be in it.
pub const TOLERANCE: f64 = 0.25;

/// How close (rad) the joints below the head and arms must be to a posture's for the robot
/// to be in its family: a bow of Pepper's hip stays Standing.
pub const FAMILY_TOLERANCE: f64 = 0.5;

impl Model {
    /// The posture ALMotion's wakeUp leaves the robot in, and the one it starts in:
    /// StandInit for NAO, Stand for Pepper.
    pub fn wake_posture(self) -> &'static str {
        match self {
            Model::Nao => "StandInit",
            Model::Pepper => "Stand",
        }
    }

    /// The posture the joints at `angles` (radians in "Body" order) are in: the closest,
    /// every joint within [`TOLERANCE`] (hands left out).
    pub fn posture_of(self, angles: &[f64]) -> Option<&'static str> {
        self.closest_posture(angles, &[], TOLERANCE).map(|p| p.name)
    }

    /// The posture family the joints at `angles` are in, read from the joints other than
    /// the head's and the arms' (a gesture does not change it, as on the robot).
    pub fn family_of(self, angles: &[f64]) -> Option<&'static str> {
        let upper: Vec<usize> = ["Head", "LArm", "RArm"]
            .iter()
            .filter_map(|chain| self.resolve(chain))
            .flatten()
            .collect();
        self.closest_posture(angles, &upper, FAMILY_TOLERANCE)
            .map(|p| p.family)
    }

    /// The posture closest to `angles`, every joint but the hands and `skip` within
    /// `tolerance` (rad).
    fn closest_posture(self, angles: &[f64], skip: &[usize], tolerance: f64) -> Option<Posture> {
        let joints = self.joints();
        self.postures()
            .into_iter()
            .filter_map(|p| {
                let target = self.posture(p.name)?;
                let gap = target
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !skip.contains(i) && !crate::is_hand(joints[*i].name))
                    .map(|(i, t)| (angles.get(i).copied().unwrap_or(0.0) - t).abs())
                    .fold(0.0, f64::max);
                Some((p, gap))
            })
            .filter(|(_, gap)| *gap < tolerance)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(p, _)| p)
    }

    /// The model's postures.
    pub fn postures(self) -> Vec<Posture> {
        match self {
            Model::Nao => NAO.iter().map(|(n, f, a)| p(n, f, a)).collect(),
            Model::Pepper => PEPPER.iter().map(|(n, f, a)| p(n, f, a)).collect(),
        }
    }

    /// The angles of `posture` (radians, hands as ratios), clamped to the joint limits.
    pub fn posture(self, posture: &str) -> Option<Vec<f64>> {
        let found = self.postures().into_iter().find(|p| p.name == posture)?;
        let joints = self.joints();
        let mut angles: Vec<f64> = found
            .degrees
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                if crate::is_hand(joints[i].name) {
                    d
                } else {
                    d.to_radians()
                }
            })
            .collect();
        self.clamp_all(&mut angles);
        Some(angles)
    }
}
