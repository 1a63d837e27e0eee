//! The messages the control thread acts on, from box code, workers, the clock, the robot and
//! the engine's user.

use crate::clock::TimerToken;
use crate::graph::{BoxId, DiagramId};
use crate::value::Value;

/// A message to the control thread.
pub(crate) enum Command {
    Start,
    Stop,
    Stimulate {
        b: BoxId,
        input: u16,
        value: Value,
    },
    Fire {
        b: BoxId,
        output: u16,
        value: Value,
    },
    HookDone {
        ticket: u64,
        ok: bool,
        text: String,
    },
    Wake(TimerToken),
    Timeline {
        b: BoxId,
        command: TimelineCommand,
    },
    /// An ALMemory update for memory input `input` of the owner of diagram `d` (P3).
    Memory {
        d: DiagramId,
        input: u16,
        value: Value,
    },
    /// A box's request failed outside its hooks (a memory input's subscription): traced as
    /// an error of the box, and in strict mode the behavior stops.
    BoxError {
        b: BoxId,
        hook: String,
        text: String,
    },
    /// The robot thread's answer to a Waiting timeline's check of its joints (motion.md
    /// §8): the order was sent, or the joints were taken. `epoch`: the order's, void after
    /// a kill.
    Motion {
        b: BoxId,
        epoch: u64,
        sent: bool,
    },
    /// Every box is constructed: its code waits in the control thread's code slot.
    Constructed,
    Quit,
}

/// A timeline command, from box code or from the engine's user.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineCommand {
    /// Resume, or load and play a stopped timeline.
    Play,
    /// Freeze the cursor; loaded diagrams stay loaded.
    Pause,
    /// R17: unload and set the cursor to -1.
    Stop,
    /// Move the cursor to a frame.
    GoToFrame(i64),
    /// Move the cursor to a behavior keyframe's index, by its name.
    GoToLabel(String),
    /// Change the frame rate from the next frame on.
    SetFps(u32),
}
