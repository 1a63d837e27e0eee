//! The robot boundary: how the engine (and box code, through its context) reaches a robot.
//! The simulated robot, a real robot over qi, or a test double implement [`Robot`]; the
//! engine knows none of them.
//!
//! [`Robot`]'s methods: service calls and background tasks (`post`), ALMemory subscriptions and
//! signals, `is_connected`, `resource_tree`, `model`, `has_service`, and `attach` (from then on
//! the robot's durations follow the engine's clock). Each says whether it may block; the
//! engine calls none that may on its control thread.

use std::sync::Arc;

use crate::activity::Activity;
use crate::error::RobotError;
use crate::resource::ResourceTree;
use choreo_base::Value;

/// Identifies one subscription, so it can be removed; chosen by the subscriber.
pub type SubscriptionId = u64;

/// Receives ALMemory updates: `(key, value)`. Called from the robot's threads; must be short.
pub type MemorySink = Arc<dyn Fn(&str, Value) + Send + Sync>;

/// A robot: service calls, and ALMemory subscriptions for memory inputs (P3).
///
/// **Which methods may block.** `call`, `post`, `subscribe`, `unsubscribe` and
/// `has_service` may (over qi each is one or more network round trips; a `say` lasts as long
/// as the speech): the engine calls them only from worker threads, box code, the thread that
/// constructs the boxes, or its robot thread, never from its control thread. `is_connected`,
/// `resource_tree` and `attach` must not block: the engine calls them on its control thread
/// or while it loads.
pub trait Robot: Send + Sync {
    /// Calls `service.method(args)` and waits for its result; an `Err` says why it failed (a
    /// module or method the robot does not serve, a bad argument, the method's own error, a
    /// lost link).
    fn call(&self, service: &str, method: &str, args: Vec<Value>) -> Result<Value, RobotError>;

    /// Starts `service.method(args)` in the background and returns its task id at once
    /// (`proxy.post.method(...)`); the service's `wait`, `stop` and `isRunning` methods,
    /// reached through [`Robot::call`], then act on that id. A robot without tasks refuses
    /// ([`RobotError::CannotPost`]).
    fn post(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, RobotError> {
        let _ = args;
        Err(RobotError::CannotPost(format!("{service}.post.{method}")))
    }

    /// Starts delivering every update of ALMemory `key` (raiseEvent, insertData) to `sink`.
    fn subscribe(&self, key: &str, id: SubscriptionId, sink: MemorySink) -> Result<(), RobotError>;

    /// Stops the subscription or signal link `id` (no effect if there is none).
    fn unsubscribe(&self, id: SubscriptionId);

    /// Starts delivering every emission of signal `signal` of module `service`
    /// (`ALServiceManager.serviceStarted`) to `sink`, with the signal's name and its
    /// arguments as a list, until [`Robot::unsubscribe`] with `id`. A robot that does not
    /// deliver its modules' signals refuses (the default).
    fn connect_signal(
        &self,
        service: &str,
        signal: &str,
        id: SubscriptionId,
        sink: MemorySink,
    ) -> Result<(), RobotError> {
        let _ = (id, sink);
        Err(RobotError::Failed(format!(
            "{service}.{signal}: this robot does not deliver its modules' signals"
        )))
    }

    /// Whether the robot can still be reached. The engine looks at it while it waits for
    /// something to do (every 50 ms at most) and stops the behavior when it turns false
    /// ([`crate::Outcome::RobotLost`]). Must not block. A robot that is always there (the
    /// simulated one) says yes.
    fn is_connected(&self) -> bool {
        true
    }

    /// The robot's resource tree: which joints the resource groups of its model cover
    /// (`All motors`, `Legs`, ...: Q4). `None`: the robot does not know (every resource
    /// name is then a leaf of its own unless [`crate::Options::resources`] gives a tree).
    fn resource_tree(&self) -> Option<Arc<ResourceTree>> {
        None
    }

    /// Which robot this is (its joints and limits: motion orders are built for it). `None`:
    /// it cannot tell; a motion timeline is then played for the model its joints name, NAO
    /// by default. Must not block.
    fn model(&self) -> Option<choreo_robot::Model> {
        None
    }

    /// Whether the robot has module `service`. Script hosts ask it when a proxy is
    /// created (`ALProxy("X")` raises for a module NAOqi does not have, and stock boxes
    /// catch that to switch to a "simulation mode"). A robot that cannot tell says yes.
    fn has_service(&self, service: &str) -> bool {
        let _ = service;
        true
    }

    /// Called when an engine that will use this robot is created: from then on the robot's
    /// durations (a `say`, a motion) and background work follow `time`, so that in virtual
    /// time they take no real time and the trace stays deterministic. A robot with no
    /// notion of time ignores it.
    fn attach(&self, time: Arc<Activity>) {
        let _ = time;
    }
}
