//! The robot around the engine in tests: memory in a map, a clock the test sets, and NAOqi
//! methods answering what the test says.

use std::collections::HashMap;

use choreo_qichat::dialog::{CallArg, Host, HostError};

/// Memory, a clock (ms since the epoch) and `^call` results by `Service.method` (`None`:
/// the method returns nothing; a method not listed fails).
#[derive(Default)]
pub struct TestHost {
    pub memory: HashMap<String, String>,
    pub now: u64,
    pub results: HashMap<String, Option<String>>,
}

impl Host for TestHost {
    fn get(&self, key: &str) -> Option<String> {
        self.memory.get(key).cloned()
    }
    fn set(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(v) => self.memory.insert(key.into(), v.into()),
            None => self.memory.remove(key),
        };
    }
    fn now_ms(&self) -> u64 {
        self.now
    }
    fn call(
        &mut self,
        service: &str,
        method: &str,
        _: &[CallArg],
    ) -> Result<Option<String>, HostError> {
        self.results
            .get(&format!("{service}.{method}"))
            .cloned()
            .ok_or_else(|| HostError::Failed {
                service: service.to_string(),
                method: method.to_string(),
                reason: format!("{service}.{method} is not stubbed"),
            })
    }
}
