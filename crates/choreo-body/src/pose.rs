//! Rigid transforms: a rotation matrix and a translation, composed as NAOqi's
//! `Transform`s are (`a * b` maps b's frame into a's).

/// Where a frame is in another: `apply(p)` maps a point of the frame into the other.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Rotation, row-major.
    pub r: [[f64; 3]; 3],
    /// Translation, m.
    pub t: [f64; 3],
}

impl Default for Pose {
    fn default() -> Self {
        Pose::IDENTITY
    }
}

impl Pose {
    /// The frame itself.
    pub const IDENTITY: Pose = Pose {
        r: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        t: [0.0; 3],
    };

    /// A translation.
    pub fn at(t: [f64; 3]) -> Pose {
        Pose {
            t,
            ..Pose::IDENTITY
        }
    }

    /// A turn of `angle` about unit vector `axis` (Rodrigues).
    pub fn turn(axis: [f64; 3], angle: f64) -> Pose {
        let [x, y, z] = axis;
        let (s, c) = angle.sin_cos();
        let v = 1.0 - c;
        Pose {
            r: [
                [c + x * x * v, x * y * v - z * s, x * z * v + y * s],
                [y * x * v + z * s, c + y * y * v, y * z * v - x * s],
                [z * x * v - y * s, z * y * v + x * s, c + z * z * v],
            ],
            t: [0.0; 3],
        }
    }

    /// Roll, pitch, yaw (URDF's `rpy`: about x, then y, then z, fixed axes).
    pub fn rpy([roll, pitch, yaw]: [f64; 3]) -> Pose {
        Pose::turn([0.0, 0.0, 1.0], yaw)
            .then(&Pose::turn([0.0, 1.0, 0.0], pitch))
            .then(&Pose::turn([1.0, 0.0, 0.0], roll))
    }

    /// `self` turned by `angle` about unit vector `axis` of its own frame:
    /// `self.then(&Pose::turn(axis, angle))`, cheaper about x, y or z (every joint of NAO's
    /// but the hips turns about one of them).
    pub fn turned(&self, axis: [f64; 3], angle: f64) -> Pose {
        let (s, c) = angle.sin_cos();
        let column = |j: usize| [self.r[0][j], self.r[1][j], self.r[2][j]];
        let mix = |a: [f64; 3], ka: f64, b: [f64; 3], kb: f64| {
            [
                ka * a[0] + kb * b[0],
                ka * a[1] + kb * b[1],
                ka * a[2] + kb * b[2],
            ]
        };
        let (c0, c1, c2) = (column(0), column(1), column(2));
        let columns = match axis {
            [1.0, 0.0, 0.0] => [c0, mix(c1, c, c2, s), mix(c1, -s, c2, c)],
            [0.0, 1.0, 0.0] => [mix(c0, c, c2, -s), c1, mix(c0, s, c2, c)],
            [0.0, 0.0, 1.0] => [mix(c0, c, c1, s), mix(c0, -s, c1, c), c2],
            _ => return self.then(&Pose::turn(axis, angle)),
        };
        let mut r = [[0.0; 3]; 3];
        for (j, col) in columns.iter().enumerate() {
            for (i, row) in r.iter_mut().enumerate() {
                row[j] = col[i];
            }
        }
        Pose { r, t: self.t }
    }

    /// `self * other`: other's frame, placed in self's.
    pub fn then(&self, other: &Pose) -> Pose {
        let mut r = [[0.0; 3]; 3];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell = (0..3).map(|k| self.r[i][k] * other.r[k][j]).sum();
            }
        }
        Pose {
            r,
            t: self.apply(other.t),
        }
    }

    /// A point of this frame, in the outer one.
    pub fn apply(&self, p: [f64; 3]) -> [f64; 3] {
        let mut out = self.t;
        for (i, o) in out.iter_mut().enumerate() {
            *o += (0..3).map(|k| self.r[i][k] * p[k]).sum::<f64>();
        }
        out
    }

    /// The outer frame, placed in this one.
    pub fn inverse(&self) -> Pose {
        let mut r = [[0.0; 3]; 3];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell = self.r[j][i];
            }
        }
        let t = r.map(|row| -(0..3).map(|k| row[k] * self.t[k]).sum::<f64>());
        Pose { r, t }
    }

    /// NAOqi's 6D position: x, y, z, then the rotation as roll (wx), pitch (wy), yaw (wz).
    pub fn six(&self) -> [f64; 6] {
        let r = &self.r;
        let pitch = (-r[2][0]).clamp(-1.0, 1.0).asin();
        let (roll, yaw) = if r[2][0].abs() < 1.0 - 1e-12 {
            (r[2][1].atan2(r[2][2]), r[1][0].atan2(r[0][0]))
        } else {
            (0.0, (-r[0][1]).atan2(r[1][1]))
        };
        [self.t[0], self.t[1], self.t[2], roll, pitch, yaw]
    }

    /// The 12 first numbers of NAOqi's 4×4 transform, row by row, then `0 0 0 1`.
    pub fn matrix(&self) -> [f64; 16] {
        let mut m = [0.0; 16];
        for i in 0..3 {
            m[4 * i..4 * i + 3].copy_from_slice(&self.r[i]);
            m[4 * i + 3] = self.t[i];
        }
        m[15] = 1.0;
        m
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    #[test]
    fn a_quarter_turn_about_z_takes_x_to_y() {
        let p = Pose::turn([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_2).apply([1.0, 0.0, 0.0]);
        assert!(close(p, [0.0, 1.0, 0.0]), "{p:?}");
    }

    #[test]
    fn a_pose_then_its_inverse_is_nothing() {
        let a = Pose::at([0.1, -0.2, 0.3]).then(&Pose::rpy([0.3, -0.4, 1.2]));
        let p = a.inverse().then(&a).apply([0.5, 0.6, 0.7]);
        assert!(close(p, [0.5, 0.6, 0.7]), "{p:?}");
    }

    #[test]
    fn a_turn_about_an_axis_is_the_general_turn() {
        let a = Pose::at([0.1, -0.2, 0.3]).then(&Pose::rpy([0.3, -0.4, 1.2]));
        for axis in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] {
            let fast = a.turned(axis, 0.7);
            let slow = a.then(&Pose::turn(axis, 0.7));
            for i in 0..3 {
                assert!(close(fast.r[i], slow.r[i]), "{axis:?}");
            }
        }
    }

    #[test]
    fn six_reads_back_roll_pitch_yaw() {
        let six = Pose::at([1.0, 2.0, 3.0])
            .then(&Pose::rpy([0.1, -0.2, 0.3]))
            .six();
        let want = [1.0, 2.0, 3.0, 0.1, -0.2, 0.3];
        assert!(
            six.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12),
            "{six:?}"
        );
    }
}
