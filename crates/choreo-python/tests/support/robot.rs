//! A robot double for the Python host's tests: records every call; ALMemory keeps data and
//! delivers raiseEvent/insertData to subscribers; `post` starts a task lasting one second of
//! behavior time that `wait`, `stop` and `isRunning` act on; `ALBroken` fails every call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::clock::Time;
use choreo_engine::{Activity, MemorySink, Robot, RobotError, SubscriptionId, Value};

/// How long a posted task lasts.
pub const TASK: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct TestRobot {
    /// Every call, as `service.method(args)` (posts as `service.post.method(args)`).
    pub calls: Mutex<Vec<String>>,
    subscribers: Mutex<Vec<(String, SubscriptionId, MemorySink)>>,
    data: Mutex<HashMap<String, Value>>,
    /// Task id → (end time, stopped).
    tasks: Mutex<HashMap<i64, Time>>,
    time: Mutex<Option<Arc<Activity>>>,
}

impl TestRobot {
    pub fn new() -> Arc<TestRobot> {
        Arc::new(TestRobot::default())
    }

    /// The calls so far.
    pub fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }

    /// How many subscriptions are active.
    pub fn subscriptions(&self) -> usize {
        self.subscribers.lock().unwrap().len()
    }

    fn now(&self) -> Time {
        self.time
            .lock()
            .unwrap()
            .as_ref()
            .map_or(Time(0), |t| t.now())
    }

    fn running(&self, id: i64) -> bool {
        let now = self.now();
        self.tasks
            .lock()
            .unwrap()
            .get(&id)
            .is_some_and(|end| *end > now)
    }

    fn record(&self, what: String) {
        self.calls.lock().unwrap().push(what);
    }

    fn raise(&self, key: &str, value: Value) {
        self.data
            .lock()
            .unwrap()
            .insert(key.to_string(), value.clone());
        let sinks: Vec<MemorySink> = self
            .subscribers
            .lock()
            .unwrap()
            .iter()
            .filter(|(k, _, _)| k == key)
            .map(|(_, _, s)| s.clone())
            .collect();
        for sink in sinks {
            sink(key, value.clone());
        }
    }

    /// `wait(id, ms)`: True if the timeout expired, False when the task ended (0: no timeout).
    fn wait(&self, id: i64, ms: i64) -> bool {
        let Some(time) = self.time.lock().unwrap().clone() else {
            return false;
        };
        let deadline = (ms > 0).then(|| Time(time.now().0 + ms as u64 * 1_000_000));
        loop {
            if !self.running(id) {
                return false;
            }
            let now = time.now();
            if deadline.is_some_and(|d| now >= d) {
                return true;
            }
            let end = self.tasks.lock().unwrap().get(&id).copied().unwrap_or(now);
            // Small steps, so that a stop from another thread is seen soon.
            let step = Time(now.0 + 10_000_000)
                .min(end)
                .min(deadline.unwrap_or(end));
            time.sleep_until(step);
        }
    }
}

fn shown(args: &[Value]) -> String {
    args.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn int(args: &[Value], i: usize) -> i64 {
    match args.get(i) {
        Some(Value::Int(n)) => *n,
        _ => 0,
    }
}

impl Robot for TestRobot {
    /// Every module but `ALMissing`.
    fn has_service(&self, service: &str) -> bool {
        service != "ALMissing"
    }

    fn call(&self, service: &str, method: &str, args: Vec<Value>) -> Result<Value, RobotError> {
        self.record(format!("{service}.{method}({})", shown(&args)));
        if service == "ALBroken" {
            return Err(RobotError::Failed(format!("{service}.{method}: broken")));
        }
        let key = match args.first() {
            Some(Value::String(k)) => k.clone(),
            _ => String::new(),
        };
        match method {
            "raiseEvent" | "insertData" if service == "ALMemory" => {
                self.raise(&key, args.get(1).cloned().unwrap_or_default());
                Ok(Value::None)
            }
            "getData" if service == "ALMemory" => self
                .data
                .lock()
                .unwrap()
                .get(&key)
                .cloned()
                .ok_or_else(|| RobotError::Failed(format!("ALMemory.getData: no key {key:?}"))),
            "wait" => Ok(Value::Bool(self.wait(int(&args, 0), int(&args, 1)))),
            "isRunning" => Ok(Value::Bool(self.running(int(&args, 0)))),
            "stop" => {
                let now = self.now();
                if let Some(end) = self.tasks.lock().unwrap().get_mut(&int(&args, 0)) {
                    *end = (*end).min(now);
                }
                Ok(Value::None)
            }
            "echo" => Ok(Value::List(args)),
            _ => Ok(Value::None),
        }
    }

    fn post(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, RobotError> {
        self.record(format!("{service}.post.{method}({})", shown(&args)));
        let end = Time(self.now().0 + TASK.as_nanos() as u64);
        let mut tasks = self.tasks.lock().unwrap();
        let id = tasks.len() as i64 + 1;
        tasks.insert(id, end);
        Ok(id)
    }

    fn subscribe(&self, key: &str, id: SubscriptionId, sink: MemorySink) -> Result<(), RobotError> {
        self.subscribers
            .lock()
            .unwrap()
            .push((key.to_string(), id, sink));
        Ok(())
    }

    fn unsubscribe(&self, id: SubscriptionId) {
        self.subscribers
            .lock()
            .unwrap()
            .retain(|(_, i, _)| *i != id);
    }

    fn attach(&self, time: Arc<Activity>) {
        *self.time.lock().unwrap() = Some(time);
    }
}
