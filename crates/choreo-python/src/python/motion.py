"""The constants of NAOqi's old `motion` Python module (frames, axis masks, units), which a
few box scripts import."""

import math

TO_RAD = math.pi / 180.0
TO_DEG = 180.0 / math.pi

FRAME_TORSO = 0
FRAME_WORLD = 1
FRAME_ROBOT = 2
SPACE_TORSO = FRAME_TORSO
SPACE_WORLD = FRAME_WORLD
SPACE_NAO = FRAME_ROBOT

AXIS_MASK_X = 1
AXIS_MASK_Y = 2
AXIS_MASK_Z = 4
AXIS_MASK_WX = 8
AXIS_MASK_WY = 16
AXIS_MASK_WZ = 32
AXIS_MASK_VEL = 7
AXIS_MASK_ROT = 56
AXIS_MASK_ALL = 63
