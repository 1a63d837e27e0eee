//! Timelines (R16, R17, T1–T7): cursor, frames, keyframe switching, commands.

use std::sync::atomic::Ordering;

use choreo_xar::model::OutputNature;

use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Time, TimerToken};
use crate::engine::command::{Command, TimelineCommand};
use crate::engine::op::Step;
use crate::engine::state::{Control, SLOW_STOP, TimelineState, Timer};
use crate::engine::sync::{Start, TimelineSync};
use crate::graph::{BoxId, Content};
use crate::trace::Step as TraceStep;
use choreo_base::Value;

impl Control {
    pub(super) fn timeline(&self, b: BoxId) -> Option<&crate::graph::TimelineNode> {
        match &self.shared.graph.node(b).content {
            Content::Timeline(t) => Some(t),
            _ => None,
        }
    }

    pub(super) fn timeline_state(&mut self, b: BoxId) -> &mut TimelineState {
        let (fps, layers) = self.timeline(b).map_or((0, 0), |t| (t.fps, t.layers.len()));
        self.timelines.entry(b).or_insert_with(|| TimelineState {
            cursor: -1,
            fps,
            active: vec![None; layers],
            ..TimelineState::default()
        })
    }

    /// The keyframe of each layer active at `frame` (T1).
    pub(super) fn active_at(&self, b: BoxId, frame: i64) -> Vec<Option<usize>> {
        self.timeline(b).map_or_else(Vec::new, |t| {
            t.layers
                .iter()
                .map(|l| l.keyframes.iter().rposition(|k| k.index <= frame))
                .collect()
        })
    }

    /// Steps that move the layers of `b` from their active keyframes to those active at
    /// `frame`: unload the old, then load the new (T2).
    pub(super) fn switch_keyframes(&mut self, b: BoxId, frame: i64) -> Vec<Step> {
        let wanted = self.active_at(b, frame);
        let Some(t) = self.timeline(b).cloned() else {
            return Vec::new();
        };
        let state = self.timeline_state(b);
        let mut steps = Vec::new();
        for (li, layer) in t.layers.iter().enumerate() {
            let (old, new) = (state.active[li], wanted[li]);
            if old == new {
                continue;
            }
            if let Some(k) = old {
                let kf = &layer.keyframes[k];
                steps.push(Step::UnloadDiagram(
                    kf.diagram,
                    Some((layer.name.clone(), kf.name.clone())),
                ));
            }
            if let Some(k) = new {
                let kf = &layer.keyframes[k];
                steps.push(Step::LoadDiagram(
                    kf.diagram,
                    Some((layer.name.clone(), kf.name.clone())),
                ));
            }
            state.active[li] = new;
        }
        steps
    }

    /// R16 (cursor to the start frame, its keyframes loaded), then play (R8 step 4). With a
    /// [`TimelineSync`], the start frame is reached and its keyframes load when the sync
    /// says, just before the play: the boxes of a fleet's first frame start together too.
    pub(super) fn timeline_load_and_play(&mut self, b: BoxId) -> Vec<Step> {
        let start = self.timeline(b).map_or(0, |t| t.start_frame);
        self.timeline_state(b).cursor = start;
        let stops = self.timeline_state(b).stops;
        if self.shared.sync.is_some() {
            return vec![Step::Play(b, stops)];
        }
        let mut steps = self.start_frame(b);
        steps.push(Step::Play(b, stops));
        steps
    }

    /// The cursor's frame is reached as the one a play starts from: its keyframes load.
    fn start_frame(&mut self, b: BoxId) -> Vec<Step> {
        let frame = self.timeline_state(b).cursor;
        self.frame_reached(b, frame);
        self.switch_keyframes(b, frame)
    }

    /// `Step::Play`: plays now, or, with a [`TimelineSync`], asks it when (unless the sync
    /// already said: the start frame's keyframes were loaded for this play).
    pub(super) fn start_playing(&mut self, b: BoxId, stops: u64) {
        if !self.may_play(b, stops) {
            return;
        }
        let released = std::mem::take(&mut self.timeline_state(b).released);
        let Some(sync) = self.shared.sync.clone().filter(|_| !released) else {
            self.play(b);
            return;
        };
        let state = self.timeline_state(b);
        state.plays = state.plays.saturating_add(1);
        let (occurrence, fps) = (state.plays, state.fps);
        let path = self.shared.graph.node(b).path.clone();
        let shared = Arc::downgrade(&self.shared);
        let sync: Arc<dyn TimelineSync> = sync;
        sync.arrive(
            &path,
            occurrence,
            fps,
            Box::new(move |start| {
                if let Some(shared) = shared.upgrade() {
                    shared.post(Command::Synced {
                        b,
                        stops,
                        start: Box::new(start),
                    });
                }
            }),
        );
    }

    /// The sync's answer: play once `start.after` has passed, unless the timeline was
    /// stopped, then follow the run's lead; the posture its order starts from is read now.
    pub(super) fn synced(&mut self, b: BoxId, stops: u64, start: Start) {
        if !self.may_play(b, stops) {
            return;
        }
        let nanos = u64::try_from(start.after.as_nanos()).unwrap_or(u64::MAX);
        let at = Time(self.now().0.saturating_add(nanos));
        self.timeline_state(b).lead = Some(start.lead);
        self.schedule(at, Timer::SyncedPlay(b, stops));
        self.read_posture_early(b, stops);
    }

    /// A timeline started by a sync follows its run's lead ([`Start::lead`]): its frames
    /// come earlier by what the lead grew since the last frame, later by what it shrank.
    fn follow_lead(&mut self, b: BoxId) {
        let Some(sync) = self.shared.sync.clone() else {
            return;
        };
        let state = self.timeline_state(b);
        let Some(old) = state.lead else {
            return;
        };
        let new = sync.lead();
        let nanos = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        state.origin = if new > old {
            Time(state.origin.0.saturating_sub(nanos(new - old)))
        } else {
            Time(state.origin.0.saturating_add(nanos(old - new)))
        };
        state.lead = Some(new);
    }

    /// The play asked before stop count `stops` still stands.
    fn may_play(&mut self, b: BoxId, stops: u64) -> bool {
        let state = self.timeline_state(b);
        state.stops == stops && state.cursor >= 0 && !state.playing
    }

    /// Starts the cursor moving from where it is; frame deadlines count from now.
    pub(super) fn play(&mut self, b: BoxId) {
        self.record(
            b,
            TraceStep::Timeline {
                command: "play".into(),
                frame: None,
            },
        );
        let now = self.now();
        let state = self.timeline_state(b);
        state.playing = true;
        state.origin = now;
        state.origin_frame = state.cursor;
        self.schedule_next_frame(b);
        self.send_motion(b);
    }

    pub(super) fn schedule_next_frame(&mut self, b: BoxId) {
        self.follow_lead(b);
        let state = self.timeline_state(b);
        if !state.playing || state.fps == 0 {
            // fps 0: the timeline cannot play; no frame ever comes (and nothing divides by 0).
            return;
        }
        let n = (state.cursor + 1 - state.origin_frame).max(1) as u64;
        let deadline = Time::frame_deadline(state.origin, n, state.fps);
        let token = self.schedule(deadline, Timer::Frame(b));
        self.timeline_state(b).token = Some(token);
    }

    pub(super) fn cancel_frames(&mut self, b: BoxId) {
        if let Some(token) = self.timeline_state(b).token.take() {
            self.cancel_timer(token);
        }
    }

    /// A clock token came due.
    pub(super) fn wake(&mut self, token: TimerToken) {
        match self.wakeups.timers.remove(&token) {
            Some(Timer::Frame(b)) => self.next_frame(b, token),
            Some(Timer::SyncedPlay(b, stops)) if self.may_play(b, stops) => {
                self.timeline_state(b).released = true;
                if let Some(sync) = self.shared.sync.clone() {
                    let occurrence = self.timeline_state(b).plays;
                    sync.played(&self.shared.graph.node(b).path, occurrence);
                }
                let mut steps = self.start_frame(b);
                steps.push(Step::Play(b, stops));
                self.spawn_op(steps);
            }
            Some(Timer::ResourceDeadline(b)) => self.resource_timeout(b, token),
            Some(Timer::Limit) => self.limit_reached(),
            Some(Timer::SlowStop(ticket)) => {
                if let Some(p) = self.pending.waiting.get(&ticket) {
                    let (b, hook) = (p.b, p.hook.name(&self.shared.graph, p.b));
                    self.record(
                        b,
                        TraceStep::Log {
                            level: "warning".into(),
                            message: format!(
                                "{hook} still running after {} s; waiting for it (R13)",
                                SLOW_STOP.as_secs()
                            ),
                        },
                    );
                }
            }
            Some(Timer::SyncedPlay(..)) | None => {}
        }
    }

    /// A frame deadline came: move the cursor, switch keyframes, end past the end (T6, G5).
    pub(super) fn next_frame(&mut self, b: BoxId, token: TimerToken) {
        let state = self.timeline_state(b);
        if state.token != Some(token) || !state.playing {
            return;
        }
        state.token = None;
        if self.motion_holds(b) {
            // Waiting mode (docs/motion.md, "Resources"): the frame does not move while
            // the joints are taken; the next frame's deadline counts from now, and the joints are asked for
            // again.
            let now = self.now();
            let state = self.timeline_state(b);
            state.origin = now;
            state.origin_frame = state.cursor;
            self.send_motion(b);
            self.schedule_next_frame(b);
            return;
        }
        let state = self.timeline_state(b);
        state.cursor += 1;
        let frame = state.cursor;
        let end = self.timeline(b).and_then(|t| t.end_frame);
        if end.is_some_and(|e| frame > e) {
            // G5: the Stopped output fires; as for any Stopped output (R11, G4) the timeline
            // is then stopped and unloaded, and only then the signal leaves the box.
            match self.stopped_output(b) {
                Some(o) => self.fire(b, o, Value::None),
                None => {
                    let steps = self.timeline_stop(b);
                    self.spawn_op(steps);
                }
            }
            return;
        }
        self.frame_reached(b, frame);
        let steps = self.switch_keyframes(b, frame);
        self.schedule_next_frame(b);
        if !steps.is_empty() {
            self.spawn_op(steps);
        }
    }

    pub(super) fn frame_reached(&self, b: BoxId, frame: i64) {
        self.shared.set_cursor(b, frame);
        self.record(b, TraceStep::Frame { frame });
        if let Some(f) = &self.shared.on_frame {
            f(b, frame);
        }
    }

    /// G5: `onStopped` if the box has it, else its first Stopped output.
    pub(super) fn stopped_output(&self, b: BoxId) -> Option<u16> {
        let outputs = &self.shared.graph.node(b).outputs;
        let i = outputs
            .iter()
            .position(|o| o.name == "onStopped" && o.nature == OutputNature::Stopped)
            .or_else(|| {
                outputs
                    .iter()
                    .position(|o| o.nature == OutputNature::Stopped)
            })?;
        u16::try_from(i).ok()
    }

    /// R17: pause, unload the active keyframes, cursor to -1.
    pub(super) fn timeline_stop(&mut self, b: BoxId) -> Vec<Step> {
        if self.timeline_state(b).cursor < 0 {
            return Vec::new();
        }
        self.cancel_frames(b);
        self.kill_motion(b);
        self.record(
            b,
            TraceStep::Timeline {
                command: "stop".into(),
                frame: None,
            },
        );
        let steps = self.switch_keyframes(b, i64::MIN);
        let state = self.timeline_state(b);
        state.playing = false;
        state.cursor = -1;
        state.stops += 1;
        state.released = false;
        self.shared.set_cursor(b, -1);
        steps
    }

    /// A timeline command from box code (T4).
    pub(super) fn timeline_command(&mut self, b: BoxId, command: TimelineCommand) {
        if let TimelineCommand::SetFps(fps) = command
            && let Some(f) = self.shared.fps.get(b.0 as usize)
        {
            // Holders too: their getFPS reports it (T7).
            f.store(fps, Ordering::SeqCst);
        }
        if self.timeline(b).is_none() || !self.boxes[b.0 as usize].loaded {
            // A box that is not loaded has no timeline to command.
            return;
        }
        let steps = match command {
            TimelineCommand::Play => {
                if self.timeline_state(b).cursor < 0 {
                    self.timeline_load_and_play(b)
                } else {
                    if !self.timeline_state(b).playing {
                        self.play(b);
                    }
                    Vec::new()
                }
            }
            TimelineCommand::Pause => {
                self.cancel_frames(b);
                self.kill_motion(b);
                self.timeline_state(b).playing = false;
                self.record(
                    b,
                    TraceStep::Timeline {
                        command: "pause".into(),
                        frame: None,
                    },
                );
                Vec::new()
            }
            TimelineCommand::Stop => self.timeline_stop(b),
            TimelineCommand::GoToFrame(f) => self.goto(b, f),
            TimelineCommand::GoToLabel(label) => {
                let frame = self.timeline(b).and_then(|t| {
                    t.layers
                        .iter()
                        .flat_map(|l| l.keyframes.iter())
                        .find(|k| k.name == label)
                        .map(|k| k.index)
                });
                match frame {
                    Some(f) => self.goto(b, f),
                    None => {
                        self.record(
                            b,
                            TraceStep::Err {
                                hook: "goTo".into(),
                                text: format!("no behavior keyframe named {label:?}"),
                            },
                        );
                        Vec::new()
                    }
                }
            }
            TimelineCommand::SetFps(fps) => {
                let state = self.timeline_state(b);
                state.fps = fps;
                if state.playing {
                    // The order in flight was timed for the old rate: a new one (docs/motion.md,
                    // "Kill and re-send").
                    self.cancel_frames(b);
                    self.kill_motion(b);
                    self.play(b);
                }
                Vec::new()
            }
        };
        if !steps.is_empty() {
            self.spawn_op(steps);
        }
    }

    /// T4 goTo: move the cursor, switch keyframes, keep playing or paused.
    pub(super) fn goto(&mut self, b: BoxId, frame: i64) -> Vec<Step> {
        self.record(
            b,
            TraceStep::Timeline {
                command: "goto".into(),
                frame: Some(frame),
            },
        );
        let steps = self.switch_keyframes(b, frame);
        let playing = {
            let state = self.timeline_state(b);
            state.cursor = frame;
            state.playing
        };
        self.shared.set_cursor(b, frame);
        if playing {
            // docs/motion.md, "Kill and re-send": the order in flight is killed, a new one goes from the new frame.
            self.cancel_frames(b);
            self.kill_motion(b);
            let now = self.now();
            let state = self.timeline_state(b);
            state.origin = now;
            state.origin_frame = frame;
            self.schedule_next_frame(b);
            self.send_motion(b);
        } else {
            self.goto_motion(b, frame);
        }
        steps
    }
}
