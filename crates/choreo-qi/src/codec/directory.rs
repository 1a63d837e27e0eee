//! The ServiceDirectory (qi-protocol.md §9): its member uids and `ServiceInfo`.

use choreo_base::Value;

use crate::error::Error;

/// The SD's service id.
pub const SERVICE_ID: u32 = 1;
/// `service(s)` → ServiceInfo.
pub const SERVICE: u32 = 100;
/// `services()` → `[ServiceInfo]`.
pub const SERVICES: u32 = 101;
/// `registerService(ServiceInfo)` → `I`.
pub const REGISTER_SERVICE: u32 = 102;
/// `unregisterService(I)`.
pub const UNREGISTER_SERVICE: u32 = 103;
/// `serviceReady(I)`.
pub const SERVICE_READY: u32 = 104;
/// `updateServiceInfo(ServiceInfo)`.
pub const UPDATE_SERVICE_INFO: u32 = 105;
/// Signal `serviceAdded(Is)`.
pub const SERVICE_ADDED: u32 = 106;
/// Signal `serviceRemoved(Is)`.
pub const SERVICE_REMOVED: u32 = 107;
/// `machineId()` → `s`.
pub const MACHINE_ID: u32 = 108;
/// `_socketOfService(I)` → `o` (internal; not served).
pub const SOCKET_OF_SERVICE: u32 = 109;

/// The signature of `ServiceInfo` as libqi 4.x writes it (7 fields).
pub const SERVICE_INFO_SIGNATURE: &str =
    "(sIsI[s]ss)<ServiceInfo,name,serviceId,machineId,processId,endpoints,sessionId,objectUid>";

/// The signature of `ServiceInfo` before NAOqi 2.9 (6 fields, no `objectUid`).
pub const SERVICE_INFO_SIGNATURE_6: &str =
    "(sIsI[s]s)<ServiceInfo,name,serviceId,machineId,processId,endpoints,sessionId>";

/// Where a service lives and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServiceInfo {
    /// Service name, e.g. `ALTextToSpeech`.
    pub name: String,
    /// Its id (the header's `service`).
    pub service_id: u32,
    /// The hosting machine's UUID.
    pub machine_id: String,
    /// The hosting process.
    pub process_id: u32,
    /// `qi:<Name>` (relative: the socket already held) or `tcp://host:port` endpoints.
    pub endpoints: Vec<String>,
    /// The providing session's id.
    pub session_id: String,
    /// The 20-byte ObjectUid of its main object (empty for the SD itself).
    pub object_uid: Vec<u8>,
}

impl ServiceInfo {
    /// This info as a value of [`SERVICE_INFO_SIGNATURE`].
    pub fn to_value(&self) -> Value {
        Value::Tuple(vec![
            Value::String(self.name.clone()),
            Value::Int(i64::from(self.service_id)),
            Value::String(self.machine_id.clone()),
            Value::Int(i64::from(self.process_id)),
            Value::List(
                self.endpoints
                    .iter()
                    .map(|e| Value::String(e.clone()))
                    .collect(),
            ),
            Value::String(self.session_id.clone()),
            Value::Raw(self.object_uid.clone()),
        ])
    }

    /// Reads an info from a decoded value: the 7-field form, or the older 6-field one.
    pub fn from_value(value: &Value) -> Result<ServiceInfo, Error> {
        let bad = || Error::Protocol(format!("not a ServiceInfo: {value}"));
        let (Value::Tuple(f) | Value::List(f)) = value else {
            return Err(bad());
        };
        if f.len() != 6 && f.len() != 7 {
            return Err(bad());
        }
        let text = |v: &Value| match v {
            Value::String(s) => Ok(s.clone()),
            Value::Raw(r) => Ok(String::from_utf8_lossy(r).into_owned()),
            _ => Err(bad()),
        };
        let id = |v: &Value| match v {
            Value::Int(i) => u32::try_from(*i).map_err(|_| bad()),
            _ => Err(bad()),
        };
        let endpoints = match &f[4] {
            Value::List(l) => l.iter().map(text).collect::<Result<Vec<_>, _>>()?,
            _ => return Err(bad()),
        };
        let object_uid = match f.get(6) {
            Some(Value::String(s)) => s.as_bytes().to_vec(),
            Some(Value::Raw(r)) => r.clone(),
            Some(_) => return Err(bad()),
            None => Vec::new(),
        };
        Ok(ServiceInfo {
            name: text(&f[0])?,
            service_id: id(&f[1])?,
            machine_id: text(&f[2])?,
            process_id: id(&f[3])?,
            endpoints,
            session_id: text(&f[5])?,
            object_uid,
        })
    }
}
