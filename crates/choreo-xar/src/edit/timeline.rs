//! Editing a box's timeline as Choregraphe's Timeline panel and Timeline Editor do (2.8:
//! `software/choregraphe/panels/timeline_panel.html`, `timeline_editor.html`): its frame rate
//! and start and end frames, its behavior layers and their keyframes, and the motion keys of
//! its curves with their interpolation.
//!
//! The rules, from those pages and the format:
//! - a flow diagram box (`Timeline enable="0"`) has no frames: none of this applies to it;
//! - the frame rate ("Framerate (FPS)", "the execution speed of the Timeline") is a whole
//!   number, 1 or more (0 cannot play);
//! - the start frame is 0 or more ("by default, Start frame is set to the Frame 0"); the end
//!   frame is -1 (at the last motion key) or at or after the start;
//! - a behavior layer "can run one or several Behavior keyframes sequentially": no two at one
//!   frame; a keyframe's index (its start frame) is 1 or more, and the file keeps them in
//!   index order; layer and keyframe names are not empty and differ from their siblings' (a
//!   keyframe's name is a goto target);
//! - a motion key is at frame 1 or more, one per joint and frame, its value in its curve's
//!   unit (degrees; a hand's opening ratio) and within the joint's range as the robot has it
//!   (`choreo_robot`: NAO's head pitch bounded by its yaw, its ankle rolls by their pitches);
//! - a new key's interpolation is Automatic Bezier, "the default mode for new keyframes" (a
//!   key side without `Tangent`); Constant, Linear and Bezier sides get a `Tangent`.
//!
//! The splices each change makes: `timeline_splices`.

use choreo_robot::Model;

use crate::model::TangentSide;

/// How one side of a motion key joins its neighbour (the Timeline Editor's modes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Interpolation {
    /// Automatic Bezier: the handle computed (no `Tangent`).
    Auto,
    /// The key's value held up to the next key.
    Constant,
    /// A straight line.
    Linear,
    /// A Bezier handle, as offsets from the key: in frames, and in the curve's unit.
    Bezier {
        /// Frames (0 or less on the left, 0 or more on the right).
        abscissa: f64,
        /// Value units.
        ordinate: f64,
    },
}

/// One change to a timeline box's timeline.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineEdit {
    /// Frame rate, start and end frames (`None`: as they are).
    Frames {
        /// Frames per second.
        fps: Option<i32>,
        /// The start frame.
        start: Option<i32>,
        /// The end frame (-1: the last motion key).
        end: Option<i32>,
    },
    /// A behavior layer added after the others, with one keyframe at frame 1.
    AddLayer {
        /// Its name.
        name: String,
    },
    /// A behavior layer renamed.
    RenameLayer {
        /// The layer, counted in file order.
        layer: usize,
        /// Its new name.
        name: String,
    },
    /// A behavior layer deleted with its keyframes.
    DeleteLayer {
        /// The layer.
        layer: usize,
    },
    /// A behavior keyframe (an empty diagram) added at frame `index`.
    AddKeyframe {
        /// The layer.
        layer: usize,
        /// Its name.
        name: String,
        /// Its start frame.
        index: i32,
    },
    /// A behavior keyframe renamed, or moved to another frame (or both).
    SetKeyframe {
        /// The layer.
        layer: usize,
        /// The keyframe, counted in file order.
        keyframe: usize,
        /// Its new name.
        name: Option<String>,
        /// Its new start frame.
        index: Option<i32>,
    },
    /// A behavior keyframe deleted with its diagram.
    DeleteKeyframe {
        /// The layer.
        layer: usize,
        /// The keyframe.
        keyframe: usize,
    },
    /// Motion keys stored at `frame` ("Store joints in keyframe"): each joint's value in its
    /// curve's unit; a key already there takes the value, keeping its interpolation.
    SetKeys {
        /// The frame.
        frame: i32,
        /// (joint, value).
        keys: Vec<(String, f64)>,
        /// The robot whose joints these are (their ranges; a new curve list's model).
        robot: Model,
    },
    /// A joint's key moved to another frame, perhaps to another value.
    MoveKey {
        /// The joint.
        actuator: String,
        /// Where the key is.
        frame: i32,
        /// Where it goes.
        to: i32,
        /// Its new value (`None`: as it is).
        value: Option<f64>,
        /// The robot (the joint's range).
        robot: Model,
    },
    /// Joints' keys at `frame` removed ("Remove joints from keyframe").
    DeleteKeys {
        /// The frame.
        frame: i32,
        /// The joints.
        actuators: Vec<String>,
    },
    /// One side of a key's interpolation.
    SetInterpolation {
        /// The joint.
        actuator: String,
        /// The key's frame.
        frame: i32,
        /// Which side.
        side: TangentSide,
        /// How.
        how: Interpolation,
    },
}
