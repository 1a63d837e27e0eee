"""The part of Aldebaran's `almath` module that box scripts use (Move To, Obstacle
Avoidance, Represent Object; Choregraphe's 3D-view projects: Foot Steps, Collision): 2-D
poses, 6-D and 3-D positions, homogeneous transforms, angle helpers. Pure Python, with the
library's semantics: Pose2D `*` composes two poses (the second expressed in the frame of
the first), `+` and `-` work per component; a Transform is 3x4 (`r1_c1`..`r3_c4`, rotation
then translation column), built from ALMotion.getTransform's 12 or 16 values row by row;
rotations read as 6-D positions are Rz(wz).Ry(wy).Rx(wx), as ALMotion's."""

import math

PI = math.pi
PI_2 = math.pi / 2.0
TO_RAD = math.pi / 180.0
TO_DEG = 180.0 / math.pi


def modulo2PI(angle):
    """The angle brought into [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def _floats(args, count, name):
    """Constructor arguments: nothing, one value for all, `count` values, or one list."""
    if not args:
        return [0.0] * count
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    elif len(args) == 1:
        return [float(args[0])] * count
    if len(args) != count:
        raise TypeError("%s takes %d values, not %d" % (name, count, len(args)))
    return [float(a) for a in args]


class Pose2D(object):
    """x, y (m) and theta (rad) of a pose on the floor."""

    def __init__(self, *args):
        self.x, self.y, self.theta = _floats(args, 3, "Pose2D")

    def toVector(self):
        return [self.x, self.y, self.theta]

    def __mul__(self, other):
        c, s = math.cos(self.theta), math.sin(self.theta)
        return Pose2D(
            self.x + c * other.x - s * other.y,
            self.y + s * other.x + c * other.y,
            self.theta + other.theta,
        )

    def __add__(self, other):
        return Pose2D(self.x + other.x, self.y + other.y, self.theta + other.theta)

    def __sub__(self, other):
        return Pose2D(self.x - other.x, self.y - other.y, self.theta - other.theta)

    def inverse(self):
        c, s = math.cos(self.theta), math.sin(self.theta)
        return Pose2D(-c * self.x - s * self.y, s * self.x - c * self.y, -self.theta)

    def diff(self, other):
        """`other` seen from this pose (inference: the relative pose)."""
        return self.inverse() * other

    def distance(self, other):
        return math.hypot(self.x - other.x, self.y - other.y)

    def norm(self):
        return math.hypot(self.x, self.y)

    def __eq__(self, other):
        return isinstance(other, Pose2D) and self.toVector() == other.toVector()

    def __repr__(self):
        return "Pose2D(x=%g, y=%g, theta=%g)" % (self.x, self.y, self.theta)


def pose2DInverse(pose):
    return pose.inverse()


class Position6D(object):
    """x, y, z (m) and wx, wy, wz (rad)."""

    def __init__(self, *args):
        self.x, self.y, self.z, self.wx, self.wy, self.wz = _floats(args, 6, "Position6D")

    def toVector(self):
        return [self.x, self.y, self.z, self.wx, self.wy, self.wz]

    def __repr__(self):
        return "Position6D(%s)" % ", ".join("%g" % v for v in self.toVector())


class Position3D(object):
    """x, y, z (m)."""

    def __init__(self, *args):
        self.x, self.y, self.z = _floats(args, 3, "Position3D")

    def toVector(self):
        return [self.x, self.y, self.z]

    def norm(self):
        return math.sqrt(self.x * self.x + self.y * self.y + self.z * self.z)


    def __add__(self, other):
        return Position3D(self.x + other.x, self.y + other.y, self.z + other.z)

    def __sub__(self, other):
        return Position3D(self.x - other.x, self.y - other.y, self.z - other.z)

    def __mul__(self, k):
        return Position3D(self.x * k, self.y * k, self.z * k)

    def isNear(self, other, epsilon=0.0001):
        """Whether every coordinate is within `epsilon` of `other`'s."""
        return all(abs(a - b) <= epsilon for a, b in zip(self.toVector(), other.toVector()))

    def __repr__(self):
        return "Position3D(%s)" % ", ".join("%g" % v for v in self.toVector())


def vectorFloat(values=()):
    """A vector of floats (a list here)."""
    return [float(v) for v in values]


_CELLS = ["r%d_c%d" % (r, c) for r in (1, 2, 3) for c in (1, 2, 3, 4)]


class Transform(object):
    """A homogeneous transform: rotation r1_c1..r3_c3, translation r1_c4, r2_c4, r3_c4."""

    def __init__(self, *args):
        values = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            given = [float(v) for v in args[0]]
            if len(given) not in (12, 16):
                raise TypeError("Transform takes 12 or 16 values, not %d" % len(given))
            values = given[:12]
        elif len(args) == 3:
            values[3], values[7], values[11] = (float(a) for a in args)
        elif args:
            raise TypeError("Transform takes a list of 12 or 16 values or x, y, z")
        for name, value in zip(_CELLS, values):
            setattr(self, name, value)

    def _rows(self):
        return [[getattr(self, "r%d_c%d" % (r, c)) for c in (1, 2, 3, 4)] for r in (1, 2, 3)]

    def toVector(self):
        return [getattr(self, name) for name in _CELLS] + [0.0, 0.0, 0.0, 1.0]

    def __mul__(self, other):
        a, b = self._rows(), other._rows()
        out = []
        for r in range(3):
            for c in range(4):
                v = sum(a[r][k] * b[k][c] for k in range(3))
                out.append(v + (a[r][3] if c == 3 else 0.0))
        return Transform(out)

    def inverse(self):
        m = self._rows()
        out = []
        for r in range(3):
            rot = [m[k][r] for k in range(3)]
            out.extend(rot + [-sum(m[k][r] * m[k][3] for k in range(3))])
        return Transform(out)

    def __repr__(self):
        return "Transform(%s)" % ", ".join("%g" % v for v in self.toVector()[:12])


def transformInverse(transform):
    return transform.inverse()


def transformFromPosition3D(position):
    return Transform(position.x, position.y, position.z)


def _rotation(wx, wy, wz):
    """The rows of Rz(wz).Ry(wy).Rx(wx)."""
    sx, cx = math.sin(wx), math.cos(wx)
    sy, cy = math.sin(wy), math.cos(wy)
    sz, cz = math.sin(wz), math.cos(wz)
    return [
        [cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx],
        [sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx],
        [-sy, cy * sx, cy * cx],
    ]


def transformFromPosition6D(position):
    r = _rotation(position.wx, position.wy, position.wz)
    t = [position.x, position.y, position.z]
    return Transform([v for i in range(3) for v in r[i] + [t[i]]])


def transformFromPose2D(pose):
    return transformFromPosition6D(Position6D(pose.x, pose.y, 0.0, 0.0, 0.0, pose.theta))


def position6DFromTransform(transform):
    m = transform._rows()
    return Position6D(
        m[0][3],
        m[1][3],
        m[2][3],
        math.atan2(m[2][1], m[2][2]),
        math.asin(max(-1.0, min(1.0, -m[2][0]))),
        math.atan2(m[1][0], m[0][0]),
    )


def position3DFromTransform(transform):
    return Position3D(transform.r1_c4, transform.r2_c4, transform.r3_c4)


def pose2DFromTransform(transform):
    return Pose2D(transform.r1_c4, transform.r2_c4, math.atan2(transform.r2_c1, transform.r1_c1))


def orthogonalSpace(position):
    """A transform whose z axis points along `position` (normalized), at the origin; its x
    and y axes complete an orthonormal frame (inference: which ones almath picks)."""
    n = position.norm()
    if n == 0.0:
        return Transform()
    z = [position.x / n, position.y / n, position.z / n]
    helper = [1.0, 0.0, 0.0] if abs(z[0]) < 0.9 else [0.0, 1.0, 0.0]
    x = [helper[1] * z[2] - helper[2] * z[1], helper[2] * z[0] - helper[0] * z[2], helper[0] * z[1] - helper[1] * z[0]]
    nx = math.sqrt(sum(v * v for v in x))
    x = [v / nx for v in x]
    y = [z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]]
    return Transform([x[0], y[0], z[0], 0.0, x[1], y[1], z[1], 0.0, x[2], y[2], z[2], 0.0])
