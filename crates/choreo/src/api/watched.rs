//! The robot a run talks to, wrapped so that a run that ends waiting can say for what: the
//! ALMemory keys subscribed (by memory inputs and box scripts alike).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use choreo_engine::resource::ResourceTree;
use choreo_engine::{Activity, MemorySink, Robot, RobotError, SubscriptionId, Value};

/// A robot that remembers which ALMemory keys are subscribed (by memory inputs and box
/// scripts alike), so a run that ends waiting can say for what. Everything else goes to the
/// robot it wraps.
pub struct Watched {
    inner: Arc<dyn Robot>,
    keys: Mutex<BTreeMap<SubscriptionId, String>>,
}

impl Watched {
    /// Watches `inner`.
    pub fn new(inner: Arc<dyn Robot>) -> Watched {
        Watched {
            inner,
            keys: Mutex::new(BTreeMap::new()),
        }
    }

    /// The keys subscribed now, each once, sorted.
    pub fn subscribed(&self) -> Vec<String> {
        let keys = choreo_base::lock(&self.keys);
        let set: BTreeSet<&String> = keys.values().collect();
        set.into_iter().cloned().collect()
    }
}

impl Robot for Watched {
    fn call(&self, service: &str, method: &str, args: Vec<Value>) -> Result<Value, RobotError> {
        self.inner.call(service, method, args)
    }

    fn post(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, RobotError> {
        self.inner.post(service, method, args)
    }

    fn subscribe(&self, key: &str, id: SubscriptionId, sink: MemorySink) -> Result<(), RobotError> {
        self.inner.subscribe(key, id, sink)?;
        choreo_base::lock(&self.keys).insert(id, key.to_string());
        Ok(())
    }

    fn unsubscribe(&self, id: SubscriptionId) {
        choreo_base::lock(&self.keys).remove(&id);
        self.inner.unsubscribe(id);
    }

    fn connect_signal(
        &self,
        service: &str,
        signal: &str,
        id: SubscriptionId,
        sink: MemorySink,
    ) -> Result<(), RobotError> {
        self.inner.connect_signal(service, signal, id, sink)
    }

    fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }

    fn resource_tree(&self) -> Option<Arc<ResourceTree>> {
        self.inner.resource_tree()
    }

    fn model(&self) -> Option<choreo_robot::Model> {
        self.inner.model()
    }

    fn has_service(&self, service: &str) -> bool {
        self.inner.has_service(service)
    }

    fn attach(&self, time: Arc<Activity>) {
        self.inner.attach(time);
    }
}
