//! `choreo run --trace` on the simulated robot: what the joints did, recorded as `joints`
//! trace events at every frame of every playing timeline (`choreo plot --trace` draws them).
//!
//! Which joints: those the playing timeline's motion curves drive, and every joint that has
//! moved since the start of the run (whatever moved it: a timeline, a box's own ALMotion
//! calls), in the robot's "Body" order. Joints nothing touched are left out: a dance's trace
//! grows by its animated joints only, and a timeline without curves records nothing until a
//! joint moves.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use choreo_engine::graph::BoxId;
use choreo_engine::trace::Step;
use choreo_engine::{Engine, FrameObserver, Trace};
use choreo_motion::Motion;
use choreo_motion::motion::timelines;
use choreo_naoqi::SimRobot;
use choreo_xar::model::XarFile;

/// How far a joint must be from where it was at the start to count as moved (radians or
/// ratio): far below what a plot shows, far above rounding.
const MOVED: f64 = 1e-6;

/// Records the simulated joints into a trace at each frame; see the module's text.
pub struct JointRecorder {
    robot: SimRobot,
    trace: Trace,
    /// Set once the behavior is loaded ([`JointRecorder::bind`]); frames before are not
    /// recorded (none comes before the start).
    bound: OnceLock<Bound>,
    /// Per joint, in "Body" order: moved since the start (only ever set).
    moved: Vec<AtomicBool>,
}

/// What the recorder knows once the behavior is loaded.
struct Bound {
    /// Per box of the engine's graph (by [`BoxId`]): its path, and the joints its motion
    /// curves drive (indices in "Body" order, sorted).
    boxes: Vec<(String, Vec<usize>)>,
    /// The joints where they were at the start.
    start: Vec<f64>,
}

impl JointRecorder {
    /// A recorder of `robot`'s joints into `trace`.
    pub fn new(robot: SimRobot, trace: Trace) -> Arc<JointRecorder> {
        let joints = robot.model().joints().len();
        Arc::new(JointRecorder {
            robot,
            trace,
            bound: OnceLock::new(),
            moved: (0..joints).map(|_| AtomicBool::new(false)).collect(),
        })
    }

    /// The engine's frame observer ([`choreo_engine::Options::on_frame`]) that records.
    pub fn observer(self: &Arc<JointRecorder>) -> FrameObserver {
        let me = Arc::clone(self);
        Arc::new(move |b, _frame| me.on_frame(b))
    }

    /// Learns the loaded behavior (`xar`, as `engine` instantiated it): which joints each
    /// timeline box's curves drive, and where the joints are now, before the start.
    pub fn bind(&self, engine: &Engine, xar: &XarFile) {
        let model = self.robot.model();
        let curves = timelines(&xar.root_box);
        let joints_of = |path: &str| -> Vec<usize> {
            let mut joints: Vec<usize> = curves
                .iter()
                .filter(|(p, _)| p == path)
                .filter_map(|(_, t)| Motion::from_timeline(t, model))
                .flat_map(|m| {
                    m.curves
                        .iter()
                        .filter_map(|c| model.joint_index(&c.actuator))
                        .collect::<Vec<_>>()
                })
                .collect();
            joints.sort_unstable();
            joints.dedup();
            joints
        };
        let boxes = engine
            .graph()
            .boxes
            .iter()
            .map(|node| (node.path.clone(), joints_of(&node.path)))
            .collect();
        let (_, start) = self.robot.joint_angles();
        let _ = self.bound.set(Bound { boxes, start });
    }

    /// On the engine's control thread, at each frame of timeline box `b`: reads the joints
    /// (one short lock of the robot's state) and records those to record, at the behavior
    /// time of the reading. Never waits on anything else.
    fn on_frame(&self, b: BoxId) {
        let Some(bound) = self.bound.get() else {
            return;
        };
        let Some((path, driven)) = bound.boxes.get(b.0 as usize) else {
            return;
        };
        let (now, angles) = self.robot.joint_angles();
        let joints = self.robot.model().joints();
        let (mut names, mut values) = (Vec::new(), Vec::new());
        let each = angles.iter().zip(joints).zip(&self.moved).enumerate();
        for (i, ((angle, joint), moved)) in each {
            let away = bound
                .start
                .get(i)
                .is_some_and(|s| (angle - s).abs() > MOVED);
            if away {
                moved.store(true, Ordering::Relaxed);
            }
            if moved.load(Ordering::Relaxed) || driven.binary_search(&i).is_ok() {
                names.push(joint.name.to_string());
                values.push(*angle);
            }
        }
        if !names.is_empty() {
            self.trace.record(now, path, Step::Joints { names, values });
        }
    }
}
