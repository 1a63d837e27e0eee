//! The updates of one subscription (an ALMemory key, a module's signal), handed to box code
//! one at a time and in order by a background activity that lives while there are updates:
//! nothing waits but the updates, and virtual time waits for the delivery.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use choreo_engine::{Activity, MemorySink, Value};

/// Called with each update of a subscription: `(key, value)`, one at a time, in order.
pub type Deliver = Box<dyn Fn(String, Value) + Send + Sync>;

/// One subscription's updates not yet delivered.
pub(crate) struct Mailbox {
    activity: Arc<Activity>,
    deliver: Deliver,
    /// Updates not yet handed over, and whether an activity is handing them over.
    queue: Mutex<(VecDeque<(String, Value)>, bool)>,
}

impl Mailbox {
    /// The robot's sink for a subscription whose updates go to `deliver`, in order, on
    /// activities of `activity`.
    pub(crate) fn sink(activity: &Arc<Activity>, deliver: Deliver) -> MemorySink {
        let mailbox = Arc::new(Mailbox {
            activity: Arc::clone(activity),
            deliver,
            queue: Mutex::new((VecDeque::new(), false)),
        });
        Arc::new(move |key, value| Mailbox::post(&mailbox, key, value))
    }

    /// Called by the robot for each update (from its threads).
    fn post(this: &Arc<Mailbox>, key: &str, value: Value) {
        let mut queue = choreo_base::lock(&this.queue);
        queue.0.push_back((key.to_string(), value));
        if queue.1 {
            return;
        }
        queue.1 = true;
        drop(queue);
        let me = Arc::clone(this);
        // A thread started by a confined one is confined already (see `landlock::inherit`).
        let confined = choreo_sandbox::landlock::this_thread_confined();
        let spawned = this.activity.spawn(
            "choreo-memory",
            Box::new(move || {
                choreo_sandbox::landlock::inherit(confined);
                me.deliver_all()
            }),
        );
        if spawned.is_err() {
            let mut queue = choreo_base::lock(&this.queue);
            queue.0.clear();
            queue.1 = false;
        }
    }

    fn deliver_all(&self) {
        loop {
            let next = {
                let mut queue = choreo_base::lock(&self.queue);
                let next = queue.0.pop_front();
                queue.1 = next.is_some();
                next
            };
            let Some((key, value)) = next else {
                return;
            };
            (self.deliver)(key, value);
        }
    }
}
