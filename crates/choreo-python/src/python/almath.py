"""The part of Aldebaran's `almath` module that box scripts use (Move To, Obstacle
Avoidance, Represent Object): 2-D poses, 6-D positions, angle helpers. Pure Python, with
the library's semantics: Pose2D `*` composes two poses (the second expressed in the frame of
the first), `+` and `-` work per component."""

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
