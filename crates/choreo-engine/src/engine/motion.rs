//! A timeline's motion (docs/motion.md): when it plays, one
//! `ALMotion.angleInterpolationBezier` order covering the rest of its curves from the current
//! frame; pause, stop, goTo, a new fps and the end kill that order (`ALMotion.stop(id)`), and
//! a play after them sends a new one from the frame the cursor is on. A goTo while stopped
//! moves the joints to the curves' values there. Robot calls may block (over qi), so every
//! one runs on the engine's robot thread, in order: a kill always finds the id of the order
//! sent before it. The orders are built by `choreo-motion`, for the robot's model.
//!
//! The timeline's resources mode says how an order goes (docs/motion.md, "Resources"): Passive
//! sends it; Waiting holds the frame while a box holds the joints or the robot says they are
//! busy, at most [`MOTION_WAIT_LIMIT`], then sends it with a warning; Aggressive kills the
//! robot's tasks on those joints first (`ALMotion.killTasksUsingResources`). Each robot call is
//! traced as the box's.

use std::sync::{Arc, Mutex};

use choreo_motion::{BezierCommand, Handle, Motion, Warning};
use choreo_robot::Model;
use choreo_xar::model::ResourcesAcquisition;

use crate::clock::Time;
use crate::context::BoxContext;
use crate::engine::command::Command;
use crate::engine::state::{Control, EarlyPosture, MotionState};
use crate::graph::{BoxId, Content};
use crate::resource::{LockType, ResourceNode};
use crate::trace::Step as TraceStep;
use choreo_base::Value;
use choreo_base::lock;

/// How long, in behavior time, a Waiting timeline holds its frame while its joints are
/// taken before it sends anyway (with a warning). The reference waits without bound
/// (docs/motion.md, "Resources"): a behavior stuck for ever behind a posture that never ends.
pub const MOTION_WAIT_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The speed fraction of the move of a goTo while stopped: the reference's 25 %
/// (docs/motion.md, "Kill and re-send").
const GOTO_SPEED: f64 = 0.25;

impl Control {
    /// The motion of timeline `b` for the robot, built at its first load (its warnings go to
    /// the trace then); None without curves, fps or robot.
    fn motion_state(&mut self, b: BoxId) -> Option<&mut MotionState> {
        let robot = Arc::clone(self.shared.robot.as_ref()?);
        if self.timeline_state(b).motion.is_none() {
            let graph = Arc::clone(&self.shared.graph);
            let node = match &graph.node(b).content {
                Content::Timeline(t) => t,
                _ => return None,
            };
            let list = node.actuators.as_ref()?;
            let fps = i32::try_from(node.fps).unwrap_or(0);
            let start = i32::try_from(node.start_frame).unwrap_or(0);
            let model = robot
                .model()
                .or_else(|| {
                    Model::detect(
                        list.model.as_deref(),
                        list.curves.iter().map(|c| c.actuator.as_str()),
                    )
                })
                .unwrap_or(Model::Nao);
            let motion = Motion::from_list(list, fps, start, node.end_request, model)?;
            self.record_motion_warnings(b, &motion);
            self.timeline_state(b).motion = Some(MotionState {
                motion: Arc::new(motion),
                in_flight: false,
                holding: None,
                checking: false,
                epoch: 0,
                task: Arc::new(Mutex::new(None)),
                early: Arc::new(Mutex::new(None)),
            });
        }
        self.timeline_state(b).motion.as_mut()
    }

    /// The timeline plays from its cursor: send its order unless one is in flight
    /// (docs/motion.md, "One order per play"), as its resources mode says ("Resources"). In Waiting mode the cursor holds until it is sent.
    pub(super) fn send_motion(&mut self, b: BoxId) {
        let mode = match &self.shared.graph.node(b).content {
            Content::Timeline(t) => t.acquisition,
            _ => return,
        };
        let now = self.now();
        let (from, fps, stops) = {
            let state = self.timeline_state(b);
            (state.cursor, state.fps, state.stops)
        };
        let Some(m) = self.motion_state(b) else {
            return;
        };
        if m.in_flight || m.checking {
            return;
        }
        let early = Arc::clone(&m.early);
        let waited = m.holding.map(|since| now.0.saturating_sub(since.0));
        let force = waited.is_some_and(|w| w >= MOTION_WAIT_LIMIT.as_nanos() as u64);
        let motion = Arc::clone(&m.motion);
        let from = i32::try_from(from).unwrap_or(i32::MAX);
        let fps = i32::try_from(fps).unwrap_or(0);
        let (joints, seconds) = motion.extent_from(from, fps);
        if joints.is_empty() {
            return;
        }
        let waiting = mode == ResourcesAcquisition::Waiting && !force;
        if waiting && self.motors_taken(b, &joints) {
            self.hold_motion(b, &joints);
            return;
        }
        if self.shared.robot.is_none() {
            return;
        }
        if force {
            self.say_motion_forced(b);
        }
        let ctx = self.robot_context(b);
        let Some((epoch, task)) = self.mark_motion(b, waiting, now) else {
            return;
        };
        if !waiting {
            self.record_motion(b, "send", from, joints.clone(), seconds);
        }
        let queue = self.shared.queue.clone();
        let kill_first = mode == ResourcesAcquisition::Aggressive;
        self.robot_job(Box::new(move || {
            let names = Value::List(joints.iter().cloned().map(Value::String).collect());
            let report = |text: String| {
                let _ = queue.send(Command::BoxError {
                    b,
                    hook: "motion".into(),
                    text: text.into(),
                });
            };
            if waiting && !resources_free(&ctx, &names) {
                let _ = queue.send(Command::Motion {
                    b,
                    epoch,
                    sent: false,
                });
                return;
            }
            if kill_first
                && let Err(e) =
                    ctx.call_robot("ALMotion", "killTasksUsingResources", vec![names.clone()])
            {
                report(format!("ALMotion.killTasksUsingResources: {e}"));
            }
            let early = lock(&early)
                .take()
                .filter(|e| e.stops == stops && e.joints == joints);
            let posture = match early {
                Some(e) => e.posture,
                None => posture(&ctx, &joints, names),
            };
            let command = motion.command_at(from, fps, &|name| {
                joints
                    .iter()
                    .position(|j| j == name)
                    .and_then(|i| posture.get(i).copied().flatten())
            });
            if !command.is_empty() {
                match ctx.post_robot("ALMotion", "angleInterpolationBezier", order_args(&command)) {
                    Ok(id) => *lock(&task) = Some(id),
                    Err(e) => report(format!("ALMotion.angleInterpolationBezier: {e}")),
                }
            }
            if waiting {
                let _ = queue.send(Command::Motion {
                    b,
                    epoch,
                    sent: true,
                });
            }
        }));
    }

    /// The trace says that timeline `b`'s joints stayed taken past [`MOTION_WAIT_LIMIT`]
    /// and that its motion is sent anyway.
    fn say_motion_forced(&self, b: BoxId) {
        self.record(
            b,
            TraceStep::Log {
                level: "warning".into(),
                message: format!(
                    "its joints stayed taken for {} s: the motion is sent anyway",
                    MOTION_WAIT_LIMIT.as_secs()
                ),
            },
        );
    }

    /// Timeline `b`'s motion marked as checking its joints (`waiting`, since `now` at the
    /// latest) or in flight; its epoch and the slot its task id goes in.
    fn mark_motion(
        &mut self,
        b: BoxId,
        waiting: bool,
        now: Time,
    ) -> Option<(u64, Arc<Mutex<Option<i64>>>)> {
        let m = self.motion_state(b)?;
        if waiting {
            m.checking = true;
            if m.holding.is_none() {
                m.holding = Some(now);
            }
        } else {
            m.in_flight = true;
            m.holding = None;
        }
        Some((m.epoch, Arc::clone(&m.task)))
    }

    /// A sync said when timeline `b` starts (docs/robots.md, "Robots far away"): the angles
    /// its order starts from are read now, so that the order leaves at its time and not a
    /// round trip later. Read later, at the order, only if the play was voided meanwhile or
    /// the cursor moved.
    pub(super) fn read_posture_early(&mut self, b: BoxId, stops: u64) {
        let (from, fps) = {
            let state = self.timeline_state(b);
            (state.cursor, state.fps)
        };
        let Some(m) = self.motion_state(b) else {
            return;
        };
        if m.in_flight || m.checking {
            return;
        }
        let (motion, early) = (Arc::clone(&m.motion), Arc::clone(&m.early));
        let from = i32::try_from(from).unwrap_or(i32::MAX);
        let fps = i32::try_from(fps).unwrap_or(0);
        let (joints, _) = motion.extent_from(from, fps);
        if joints.is_empty() || self.shared.robot.is_none() {
            return;
        }
        let ctx = self.robot_context(b);
        self.robot_job(Box::new(move || {
            let names = Value::List(joints.iter().cloned().map(Value::String).collect());
            let posture = posture(&ctx, &joints, names);
            *lock(&early) = Some(EarlyPosture {
                stops,
                joints,
                posture,
            });
        }));
    }

    /// Whether another box (not `b`, not one enclosing it) holds a resource covering one of
    /// `joints`: the engine's resource manager is the robot's, shared with box resources.
    fn motors_taken(&self, b: BoxId, joints: &[String]) -> bool {
        let wanted: Vec<ResourceNode> = joints
            .iter()
            .map(|j| ResourceNode {
                name: j.clone(),
                lock: LockType::Lock,
                timeout: None,
            })
            .collect();
        !self
            .resources
            .holdings
            .conflicts(&wanted, |h| self.encloses(h, b))
            .is_empty()
    }

    /// Waiting mode, joints taken: the frame holds (traced once per wait).
    fn hold_motion(&mut self, b: BoxId, joints: &[String]) {
        let now = self.now();
        let cursor = self.timeline_state(b).cursor;
        let Some(m) = self.motion_state(b) else {
            return;
        };
        if m.holding.is_none() {
            m.holding = Some(now);
            self.record_motion(
                b,
                "busy",
                i32::try_from(cursor).unwrap_or(0),
                joints.to_vec(),
                0.0,
            );
        }
    }

    /// The robot thread's answer to a Waiting check: sent (the frame moves on from now) or
    /// the joints were taken (the frame holds; the next frame tick asks again).
    pub(super) fn motion_reply(&mut self, b: BoxId, epoch: u64, sent: bool) {
        let now = self.now();
        let (cursor, fps) = {
            let s = self.timeline_state(b);
            (s.cursor, s.fps)
        };
        let Some(m) = self.timeline_state(b).motion.as_mut() else {
            return;
        };
        if m.epoch != epoch || !m.checking {
            return;
        }
        m.checking = false;
        let motion = Arc::clone(&m.motion);
        let from = i32::try_from(cursor).unwrap_or(0);
        let (joints, seconds) = motion.extent_from(from, i32::try_from(fps).unwrap_or(0));
        if sent {
            m.in_flight = true;
            m.holding = None;
            self.record_motion(b, "send", from, joints, seconds);
            let state = self.timeline_state(b);
            state.origin = now;
            state.origin_frame = cursor;
            if state.playing {
                self.cancel_frames(b);
                self.schedule_next_frame(b);
            }
        } else {
            self.hold_motion(b, &joints);
        }
    }

    /// Whether the timeline's frame holds (Waiting mode, joints taken): the frame tick then
    /// asks again instead of moving the cursor.
    pub(super) fn motion_holds(&self, b: BoxId) -> bool {
        self.timelines
            .get(&b)
            .and_then(|s| s.motion.as_ref())
            .is_some_and(|m| m.holding.is_some())
    }

    /// Kills the order in flight, if any (pause, stop, goTo, new fps, the end:
    /// docs/motion.md, "Kill and re-send").
    pub(super) fn kill_motion(&mut self, b: BoxId) {
        let cursor = self.timeline_state(b).cursor;
        let Some(m) = self.timelines.get_mut(&b).and_then(|s| s.motion.as_mut()) else {
            return;
        };
        let was = m.in_flight || m.checking;
        m.epoch += 1;
        m.in_flight = false;
        m.checking = false;
        m.holding = None;
        if !was {
            return;
        }
        let task = Arc::clone(&m.task);
        let joints = m.motion.curves.iter().map(|c| c.actuator.clone()).collect();
        self.record_motion(b, "kill", i32::try_from(cursor).unwrap_or(0), joints, 0.0);
        let ctx = self.robot_context(b);
        self.robot_job(Box::new(move || {
            // An order that already ended has nothing to stop; its error says nothing new.
            if let Some(id) = lock(&task).take() {
                let _ = ctx.call_robot("ALMotion", "stop", vec![Value::Int(id)]);
            }
        }));
    }

    /// A goTo while the timeline does not play: the joints move to the curves' values at
    /// `frame` at a quarter of their speed (docs/motion.md,
    /// "Kill and re-send").
    pub(super) fn goto_motion(&mut self, b: BoxId, frame: i64) {
        let Some(m) = self.motion_state(b) else {
            return;
        };
        let values = m.motion.values_at(frame as f64);
        if values.is_empty() {
            return;
        }
        let (names, angles): (Vec<String>, Vec<f64>) =
            values.into_iter().map(|(n, v)| (n.to_string(), v)).unzip();
        self.record_motion(
            b,
            "goto",
            i32::try_from(frame).unwrap_or(0),
            names.clone(),
            0.0,
        );
        let ctx = self.robot_context(b);
        let queue = self.shared.queue.clone();
        self.robot_job(Box::new(move || {
            let args = vec![
                Value::List(names.into_iter().map(Value::String).collect()),
                Value::List(angles.into_iter().map(Value::Float).collect()),
                Value::Float(GOTO_SPEED),
            ];
            if let Err(e) = ctx.post_robot("ALMotion", "angleInterpolationWithSpeed", args) {
                let _ = queue.send(Command::BoxError {
                    b,
                    hook: "motion".into(),
                    text: format!("ALMotion.angleInterpolationWithSpeed: {e}").into(),
                });
            }
        }));
    }

    /// What the motion mended, in the trace: keys clamped to the joints' limits on one line
    /// (stock dances have a few), the follower joint as information, the rest one by one.
    fn record_motion_warnings(&self, b: BoxId, motion: &Motion) {
        let log = |level: &str, message: String| {
            self.record(
                b,
                TraceStep::Log {
                    level: level.into(),
                    message,
                },
            );
        };
        let mut clamped = Vec::new();
        for (joint, warning) in &motion.warnings {
            match warning {
                Warning::Clamped { keys, worst, .. } => {
                    clamped.push(format!("{joint} {keys} (furthest {worst:.4})"));
                }
                Warning::Follower => log("info", format!("motion: {warning}")),
                _ => log("warning", format!("motion curve {joint}: {warning}")),
            }
        }
        if !clamped.is_empty() {
            log(
                "warning",
                format!(
                    "motion: keys beyond the joint limits of {}, clamped: {}",
                    motion.robot.name(),
                    clamped.join(", ")
                ),
            );
        }
    }

    /// Box `b`'s context for the robot thread: its robot calls are traced as the box's, like
    /// those of its code (`svc`, `svc_ret`), so a trace shows every order with its arguments.
    fn robot_context(&self, b: BoxId) -> BoxContext {
        BoxContext {
            shared: Arc::clone(&self.shared),
            id: b,
        }
    }

    fn record_motion(&self, b: BoxId, what: &str, frame: i32, joints: Vec<String>, seconds: f64) {
        self.record(
            b,
            TraceStep::Motion {
                what: what.into(),
                frame: i64::from(frame),
                joints,
                seconds,
            },
        );
    }
}

/// The joints' current angles (`ALMotion.getAngles(names, True)`), one per name; None where
/// the robot could not tell (the order then starts those joints from their first key).
fn posture(ctx: &BoxContext, joints: &[String], names: Value) -> Vec<Option<f64>> {
    let angles = ctx.call_robot("ALMotion", "getAngles", vec![names, Value::Bool(true)]);
    let list = match angles {
        Ok(Value::List(xs) | Value::Tuple(xs)) if xs.len() == joints.len() => xs,
        _ => return vec![None; joints.len()],
    };
    list.iter()
        .map(|v| match v {
            Value::Float(x) => Some(*x),
            Value::Int(x) => Some(*x as f64),
            _ => None,
        })
        .collect()
}

/// `angleInterpolationBezier`'s arguments: names, times, and control points
/// `[value, [type, dt, dv], [type, dt, dv]]` (time offset second, as every real caller
/// sends them: docs/motion.md, "One order per play").
pub fn order_args(command: &BezierCommand) -> Vec<Value> {
    let handle = |h: &Handle| {
        Value::List(vec![
            Value::Int(h.interp as i64),
            Value::Float(h.dx),
            Value::Float(h.dy),
        ])
    };
    let names = command.names.iter().cloned().map(Value::String).collect();
    let times = command
        .times
        .iter()
        .map(|t| Value::List(t.iter().copied().map(Value::Float).collect()))
        .collect();
    let keys = command
        .keys
        .iter()
        .map(|ks| {
            Value::List(
                ks.iter()
                    .map(|k| {
                        Value::List(vec![
                            Value::Float(k.value),
                            handle(&k.left),
                            handle(&k.right),
                        ])
                    })
                    .collect(),
            )
        })
        .collect();
    vec![Value::List(names), Value::List(times), Value::List(keys)]
}

/// Whether ALMotion says the joints `names` are free. A check that fails counts as free: the
/// motion is sent anyway, as the reference does (docs/motion.md, "Resources").
fn resources_free(ctx: &BoxContext, names: &Value) -> bool {
    let free = ctx.call_robot("ALMotion", "areResourcesAvailable", vec![names.clone()]);
    !matches!(free, Ok(Value::Bool(false)))
}
