//! The messages the control thread acts on, from box code, workers, the clock, the robot and
//! the engine's user.
//!
//! What it is told: start, stop, stimulate an input, fire an output, a hook done, a clock
//! wake-up, a timeline command ([`TimelineCommand`]), a memory event, a box's error outside its
//! hooks, a motion check's answer, a timeline sync's answer, a nested run's failure, every box
//! constructed, quit.

use crate::clock::TimerToken;
use crate::graph::{BoxId, DiagramId};
use choreo_base::Value;

/// What a hook's call came to: it returned, or the text of the error it raised (or of its
/// panic).
pub(crate) type Returned = Result<(), String>;

/// A message to the control thread.
///
/// 40 bytes: a signal hop moves one through the queue, so the rare big ones are boxed.
pub(crate) enum Command {
    /// Start the behavior; the gate, if any, opens once the start has been acted on (see
    /// [`StartGate`]).
    Start(Option<StartGate>),
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
        returned: Returned,
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
        hook: Box<str>,
        text: Box<str>,
    },
    /// The robot thread's answer to a Waiting timeline's check of its joints
    /// (docs/motion.md, "Resources"): the order was sent, or the joints were taken. `epoch`: the order's, void after
    /// a kill.
    Motion {
        b: BoxId,
        epoch: u64,
        sent: bool,
    },
    /// A [`crate::engine::sync::TimelineSync`] said when the timeline of box `b` starts
    /// (`start`), for the play asked at stop count `stops`.
    Synced {
        b: BoxId,
        stops: u64,
        start: Box<crate::engine::sync::Start>,
    },
    /// A nested run nobody waits for failed (see [`crate::Engine::fails_its_owner`]): a
    /// strict run stops with its outcome.
    NestedFailed(Box<crate::engine::Outcome>),
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

/// What box code waiting for a nested run to start waits on ([`crate::Engine::start_parked`]):
/// parked on the time base until the control thread has acted on the start and on what
/// followed at that instant, then counted again and woken. Dropped unopened (the control
/// thread is gone), it opens too.
pub(crate) struct StartGate(std::sync::Arc<Gate>);

/// See [`StartGate`].
pub(crate) struct Gate {
    time: std::sync::Arc<crate::activity::Activity>,
    opened: std::sync::Mutex<bool>,
    changed: std::sync::Condvar,
    /// The waiter's turn (crate::turn): whoever opens the gate puts it back in line.
    waiter: Option<crate::turn::TurnId>,
}

impl Gate {
    /// A closed gate, its waiter (the caller) parked on `time` from now on.
    pub(crate) fn parked(
        time: &std::sync::Arc<crate::activity::Activity>,
    ) -> (std::sync::Arc<Gate>, StartGate) {
        let gate = std::sync::Arc::new(Gate {
            time: std::sync::Arc::clone(time),
            opened: std::sync::Mutex::new(false),
            changed: std::sync::Condvar::new(),
            waiter: time.turns().mine(),
        });
        time.park();
        (std::sync::Arc::clone(&gate), StartGate(gate))
    }

    fn opened(&self) -> std::sync::MutexGuard<'_, bool> {
        choreo_base::lock(&self.opened)
    }

    /// Waits until the gate opens.
    pub(crate) fn wait(&self) {
        crate::activity::waiting(|| {
            let mine = self.time.give_turn();
            let mut opened = self.opened();
            while !*opened {
                opened = self
                    .changed
                    .wait(opened)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            drop(opened);
            self.time.take_turn(mine);
        });
    }
}

impl Drop for StartGate {
    /// Opens the gate: the waiter counts again (before it wakes) and goes on.
    fn drop(&mut self) {
        let mut opened = self.0.opened();
        if !*opened {
            *opened = true;
            self.0.time.unpark(1);
            self.0.time.wake_turn(self.0.waiter);
            self.0.changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_command_is_40_bytes_as_documented() {
        assert_eq!(std::mem::size_of::<super::Command>(), 40);
    }
}
