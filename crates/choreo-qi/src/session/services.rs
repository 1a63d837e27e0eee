//! The ServiceDirectory's side of a session: the services it lists, a service's object
//! (on the session's socket, or on a socket of its own to the process that hosts it), the
//! `serviceAdded`/`serviceRemoved` signals, and registering services.

use std::sync::Arc;

use choreo_base::Value;
use choreo_base::lock;

use super::Session;
use super::call::PendingCall;
use super::link::Link;
use super::remoteobject::{RemoteObject, SignalLink};
use super::url::parse_url;
use crate::codec::directory::{
    self, SERVICE_INFO_SIGNATURE, SERVICE_INFO_SIGNATURE_6, ServiceInfo,
};
use crate::codec::header::{Address, Flags};
use crate::codec::signature::Signature;
use crate::codec::value;
use crate::error::{Error, Result};
use crate::transport::generation::Generation;

/// The reserved `isStatsEnabled()` member every bound object answers (qi-protocol.md §4).
const IS_STATS_ENABLED: u32 = 80;

impl Session {
    /// The ServiceDirectory object (service 1, object 1).
    pub fn directory(&self) -> Result<RemoteObject> {
        let generation = self.generation();
        if let Some((g, sd)) = &*lock(&self.inner.directory)
            && *g == generation
            && sd.is_connected()
        {
            return Ok(sd.clone());
        }
        let link = self.link()?;
        let sd = RemoteObject::fetch(
            &link,
            "ServiceDirectory",
            directory::SERVICE_ID,
            1,
            Some(self.setup_timeout()),
        )?;
        *lock(&self.inner.directory) = Some((generation, sd.clone()));
        Ok(sd)
    }

    /// Every registered service.
    pub fn services(&self) -> Result<Vec<ServiceInfo>> {
        match self.directory()?.call("services", &[])? {
            Value::List(v) => v.iter().map(ServiceInfo::from_value).collect(),
            other => Err(Error::Protocol(format!("services() returned {other}"))),
        }
    }

    /// The ServiceDirectory's record of service `name`.
    pub fn service_info(&self, name: &str) -> Result<ServiceInfo> {
        let v = self
            .directory()?
            .call("service", &[Value::String(name.to_string())])
            .map_err(|e| match e {
                Error::Remote(text) => Error::NotFound(format!("service {name}: {text}")),
                other => other,
            })?;
        ServiceInfo::from_value(&v)
    }

    /// A handle on service `name`'s main object. A service living with the directory
    /// (`qi:ServiceDirectory` among its endpoints, or this session's URL) uses the session's
    /// socket; otherwise a socket to the service's first reachable endpoint is opened (and
    /// kept for later services there): `tcps://` ones only for a tcps session, `tcp://`
    /// ones first for a tcp session.
    pub fn service(&self, name: &str) -> Result<RemoteObject> {
        let info = self.service_info(name)?;
        if info.endpoints.is_empty() {
            return Err(Error::NotFound(format!(
                "service {name}: No endpoints returned"
            )));
        }
        let same = info.endpoints.iter().any(|e| {
            e == "qi:ServiceDirectory" || parse_url(e).ok() == parse_url(&self.inner.url).ok()
        });
        let link = if same {
            self.link()?
        } else {
            self.extra_link(&info.endpoints, info.service_id)?
        };
        RemoteObject::fetch(&link, name, info.service_id, 1, Some(self.setup_timeout())).map(|o| {
            RemoteObject::new(
                Arc::clone(&o.inner.link),
                name.to_string(),
                info.service_id,
                1,
                o.inner.meta.clone(),
                self.inner.options.call_timeout,
                false,
            )
        })
    }

    /// A socket to one of `endpoints`, where service `service` lives (its keep-alive
    /// probes that service).
    fn extra_link(&self, endpoints: &[String], service: u32) -> Result<Arc<Link>> {
        let mut last = Error::NotFound(format!("no reachable endpoint among {endpoints:?}"));
        let secure = parse_url(&self.inner.url).is_ok_and(|u| u.tls);
        let tcps = endpoints.iter().filter(|e| e.starts_with("tcps://"));
        let tcp = endpoints.iter().filter(|e| e.starts_with("tcp://"));
        let candidates: Vec<&String> = if secure {
            tcps.collect()
        } else {
            tcp.chain(tcps).collect()
        };
        if candidates.is_empty() && secure {
            return Err(Error::NotFound(format!(
                "no tcps:// endpoint among {endpoints:?} (a tcps session does not fall back to tcp)"
            )));
        }
        for url in candidates {
            if let Some(link) = lock(&self.inner.extra).get(url)
                && link.check_alive().is_ok()
            {
                return Ok(Arc::clone(link));
            }
            let weak = Arc::downgrade(&self.inner);
            let key = url.clone();
            let on_close = Box::new(move |_why: String| {
                if let Some(inner) = weak.upgrade() {
                    lock(&inner.extra).remove(&key);
                }
            });
            let probe = Address::new(service, 1, IS_STATS_ENABLED);
            match Link::connect(url, &self.inner.options, probe, on_close) {
                Ok(link) => {
                    lock(&self.inner.extra).insert(url.clone(), Arc::clone(&link));
                    return Ok(link);
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Calls `handler(id, name)` on every `serviceAdded` signal.
    pub fn on_service_added(
        &self,
        handler: impl Fn(u32, String) + Send + Sync + 'static,
    ) -> Result<SignalLink> {
        self.directory_signal("serviceAdded", handler)
    }

    /// Calls `handler(id, name)` on every `serviceRemoved` signal.
    pub fn on_service_removed(
        &self,
        handler: impl Fn(u32, String) + Send + Sync + 'static,
    ) -> Result<SignalLink> {
        self.directory_signal("serviceRemoved", handler)
    }

    fn directory_signal(
        &self,
        signal: &str,
        handler: impl Fn(u32, String) + Send + Sync + 'static,
    ) -> Result<SignalLink> {
        self.directory()?.connect(signal, move |args| {
            if let [Value::Int(id), Value::String(name)] = args.as_slice() {
                handler(u32::try_from(*id).unwrap_or_default(), name.clone());
            }
        })
    }

    /// Registers a service hosted at `endpoints` with the directory; returns its id.
    pub fn register_service(&self, info: &ServiceInfo) -> Result<u32> {
        // The directory says which ServiceInfo it reads: 7 fields, or 6 before NAOqi 2.9.
        let sd = self.directory()?;
        let seven = Signature::parse(SERVICE_INFO_SIGNATURE)?;
        let (sig, value) = match sd.meta_object().methods_named("registerService").next() {
            Some(m) if !m.parameters_signature.contains(SERVICE_INFO_SIGNATURE) => (
                Signature::parse(SERVICE_INFO_SIGNATURE_6)?,
                Generation::V2_8.adapt_value(info.to_value(), &seven),
            ),
            _ => (seven, info.to_value()),
        };
        let args = Value::Tuple(vec![value]);
        let mut payload = Vec::new();
        value::encode(&args, &Signature::tuple(vec![sig]), &mut payload)?;
        let link = self.link()?;
        let address = Address::new(directory::SERVICE_ID, 1, directory::REGISTER_SERVICE);
        let (id, rx) = link.call(address, &payload, Flags::default())?;
        let pending = PendingCall {
            id,
            address,
            rx,
            link,
            returns: Signature::UInt32,
            timeout: Some(self.setup_timeout()),
        };
        match pending.wait()?.value {
            Value::Int(id) => {
                u32::try_from(id).map_err(|_| Error::Protocol(format!("service id {id}")))
            }
            other => Err(Error::Protocol(format!("registerService returned {other}"))),
        }
    }

    /// Tells the directory that service `id` is ready (it then emits `serviceAdded`).
    pub fn service_ready(&self, id: u32) -> Result<()> {
        self.directory()?
            .call("serviceReady", &[Value::Int(i64::from(id))])
            .map(|_| ())
    }

    /// Removes service `id` from the directory.
    pub fn unregister_service(&self, id: u32) -> Result<()> {
        self.directory()?
            .call("unregisterService", &[Value::Int(i64::from(id))])
            .map(|_| ())
    }

    /// The directory's machine id.
    pub fn machine_id(&self) -> Result<String> {
        match self.directory()?.call("machineId", &[])? {
            Value::String(s) => Ok(s),
            other => Err(Error::Protocol(format!("machineId() returned {other}"))),
        }
    }
}
