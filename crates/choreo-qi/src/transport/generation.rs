//! Protocol generations: what the libqi of each NAOqi release says on the wire, so that a
//! client or server of ours can talk to (or play) any of them (issue 15).
//!
//! The facts come from libqi's public history (github.com/aldebaran/libqi; the commits and
//! tags are named on each item); docs/robots.md tells the whole story.
//! Telling a peer's generation from the capabilities it advertised
//! ([`Generation::of_peer`]) is in [`crate::transport::capability`], which builds on this file.
//!
//! | | 2.1 | 2.5 (2.3–2.7) | 2.8 | 2.9 (4.x) |
//! |---|---|---|---|---|
//! | capabilities | a Capability message each way at connect | in `authenticate` | in `authenticate` | in `authenticate` |
//! | MetaObjectCache | yes | yes | no | no |
//! | RemoteCancelableCalls | no | yes | yes | yes |
//! | ObjectPtrUID (uid after object refs) | no | no | yes | yes |
//! | ServiceInfo fields | 6 | 6 | 6 | 7 (`objectUid`) |
//! | RelativeEndpointURI (`qi:Name` endpoints) | no | no | no | yes |
//! | `+T` (optional) parsed | no | no | yes | yes |
//! | `#T` (varargs) parsed | no | yes | yes | yes |
//!
//! Clients ([`SessionOptions::generation`](crate::SessionOptions::generation)) and servers
//! ([`ServerOptions::generation`](crate::ServerOptions::generation)) speak any of them; a
//! peer's generation is recognised at the handshake, and each link speaks the older of its two
//! ends' generations: 6-field ServiceInfos to a peer before 2.9, members the peer cannot parse
//! left out of the MetaObjects it gets, a MetaObjectCache per link where the generation has
//! one.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use choreo_base::Value;

use crate::codec::directory::{SERVICE_INFO_SIGNATURE, SERVICE_INFO_SIGNATURE_6};
use crate::codec::metaobject::MetaObject;
use crate::codec::signature::Signature;

/// The six capabilities libqi 4.x advertises, with its values (§8.2).
pub const LOCAL: [(&str, bool); 6] = [
    ("ClientServerSocket", true),
    ("MessageFlags", true),
    ("MetaObjectCache", false),
    ("ObjectPtrUID", true),
    ("RelativeEndpointURI", true),
    ("RemoteCancelableCalls", true),
];

/// A generation of libqi's protocol, named after the NAOqi release that shipped it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Generation {
    /// NAOqi 2.1 (NAO V4/V5, Choregraphe 2.1): qimessaging of 2014, before authentication
    /// (added 2015-01-05, commit 6ad4de17). Each end sends its capabilities in a Capability
    /// message when the socket opens (`TcpTransportSocket::startReading`, commit 9a592f66);
    /// a call to service 0 is answered `can't find service, address: {0.0.8, id:N}`.
    V2_1,
    /// NAOqi 2.3 to 2.7 (Pepper 2.4/2.5): libqi tags `v2.3`, `v2.5.7.1`. Authentication
    /// with the capability map; MetaObjectCache advertised; no ObjectPtrUID.
    V2_5,
    /// NAOqi 2.8 (NAO6): qi-framework 1.2 to 1.6 (2018–2019). ObjectPtrUID (commit
    /// 4da2af16, tag `qi-framework-v1.2.0`), MetaObjectCache no longer advertised,
    /// optional types `+T` (commit c3b57c9d, `qi-framework-v1.4.0`); ServiceInfo still 6
    /// fields (`qi-framework-v1.6.15`, `src/registration.cpp`).
    V2_8,
    /// NAOqi 2.9 (Pepper 2.9) and libqi 4.x: ServiceInfo's `objectUid` (added field,
    /// `qi-framework-v1.8.0`), RelativeEndpointURI (commit b9cf4541). What choreo speaks by
    /// default.
    #[default]
    V2_9,
}

impl Generation {
    /// Every generation, oldest first.
    pub const ALL: [Generation; 4] = [
        Generation::V2_1,
        Generation::V2_5,
        Generation::V2_8,
        Generation::V2_9,
    ];

    /// The capabilities this generation's libqi advertises, in its `defaultCapabilities()`
    /// order of keys (a map: sorted by key on the wire).
    pub fn capabilities(self) -> &'static [(&'static str, bool)] {
        match self {
            // `ClientServerSocket` (commit a66f1239), `MetaObjectCache` (a76b81f3) and
            // `MessageFlags` (b7760b84), all of early 2014.
            Generation::V2_1 => &[
                ("ClientServerSocket", true),
                ("MessageFlags", true),
                ("MetaObjectCache", true),
            ],
            // `v2.5.7.1:src/messaging/streamcontext.cpp`.
            Generation::V2_5 => &[
                ("ClientServerSocket", true),
                ("MessageFlags", true),
                ("MetaObjectCache", true),
                ("RemoteCancelableCalls", true),
            ],
            // `qi-framework-v1.6.15:src/messaging/streamcontext.cpp`.
            Generation::V2_8 => &[
                ("ClientServerSocket", true),
                ("MessageFlags", true),
                ("MetaObjectCache", false),
                ("ObjectPtrUID", true),
                ("RemoteCancelableCalls", true),
            ],
            Generation::V2_9 => &LOCAL,
        }
    }

    /// Whether the generation has the authentication step (`authenticate`, service 0,
    /// action 8) that also carries the capabilities.
    pub fn authenticates(self) -> bool {
        self != Generation::V2_1
    }

    /// Whether a `ServiceInfo` has the 7th field, `objectUid`.
    pub fn service_info_has_uid(self) -> bool {
        self >= Generation::V2_9
    }

    /// Whether the generation's signature parser knows `+T`.
    pub fn parses_optional(self) -> bool {
        self >= Generation::V2_8
    }

    /// Whether the generation's signature parser knows `#T` (libqi's VarArgs arrived in
    /// June 2014, commit f24b9ecb; no public source says whether NAOqi 2.1's release branch
    /// had it, so 2.1 peers are treated as not knowing it: hiding a member costs less than
    /// a MetaObject the peer cannot read at all).
    pub fn parses_varargs(self) -> bool {
        self >= Generation::V2_5
    }

    /// `sig` as this generation reads it: the 6-field `ServiceInfo` in place of the 7-field
    /// one before 2.9. Borrowed when nothing changes.
    pub fn adapt_signature<'a>(self, sig: &'a Signature) -> Cow<'a, Signature> {
        if self.service_info_has_uid() {
            return Cow::Borrowed(sig);
        }
        let text = sig.to_string();
        if !text.contains(SERVICE_INFO_SIGNATURE) {
            return Cow::Borrowed(sig);
        }
        match Signature::parse(&text.replace(SERVICE_INFO_SIGNATURE, SERVICE_INFO_SIGNATURE_6)) {
            Ok(adapted) => Cow::Owned(adapted),
            Err(_) => Cow::Borrowed(sig),
        }
    }

    /// `value` (of signature `sig`) as this generation reads it: before 2.9, each
    /// `ServiceInfo` inside loses its `objectUid`, and its relative endpoints (`qi:Name`,
    /// RelativeEndpointURI), which older libqi cannot connect to. Signatures are ours (a
    /// served method's), so the walk's depth is bounded by code, not by input.
    pub fn adapt_value(self, value: Value, sig: &Signature) -> Value {
        if self.service_info_has_uid() {
            return value;
        }
        older_service_infos(value, sig)
    }

    /// `meta` as a peer of this generation can read it: ServiceInfo signatures adapted, and
    /// the members whose signatures its parser does not know left out. `None` when nothing
    /// changes.
    pub fn adapt_meta_object(self, meta: &MetaObject) -> Option<MetaObject> {
        let readable = |sig: &str| {
            (self.parses_optional() || !sig.contains('+'))
                && (self.parses_varargs() || !sig.contains('#'))
        };
        let adapt = |sig: &str| -> String {
            if self.service_info_has_uid() {
                sig.to_string()
            } else {
                sig.replace(SERVICE_INFO_SIGNATURE, SERVICE_INFO_SIGNATURE_6)
            }
        };
        let mut out = meta.clone();
        out.methods
            .retain(|_, m| readable(&m.parameters_signature) && readable(&m.return_signature));
        out.signals.retain(|_, s| readable(&s.signature));
        out.properties.retain(|_, p| readable(&p.signature));
        for m in out.methods.values_mut() {
            m.parameters_signature = adapt(&m.parameters_signature);
            m.return_signature = adapt(&m.return_signature);
        }
        (out != *meta).then_some(out)
    }

    /// The generation's usual name, `2.1` … `2.9`.
    pub fn name(self) -> &'static str {
        match self {
            Generation::V2_1 => "2.1",
            Generation::V2_5 => "2.5",
            Generation::V2_8 => "2.8",
            Generation::V2_9 => "2.9",
        }
    }
}

fn older_service_infos(value: Value, sig: &Signature) -> Value {
    match (value, sig) {
        (Value::Tuple(mut fields), Signature::Tuple(types, Some(annotation)))
            if annotation.starts_with("ServiceInfo,") && types.len() == 7 =>
        {
            fields.truncate(6);
            if let Some(Value::List(endpoints)) = fields.get_mut(4) {
                endpoints.retain(|e| !matches!(e, Value::String(e) if e.starts_with("qi:")));
            }
            Value::Tuple(fields)
        }
        (Value::Tuple(fields), Signature::Tuple(types, _)) => Value::Tuple(
            fields
                .into_iter()
                .zip(types.iter().chain(std::iter::repeat(&Signature::Dynamic)))
                .map(|(v, t)| older_service_infos(v, t))
                .collect(),
        ),
        (Value::List(items), Signature::List(t) | Signature::VarArgs(t)) => Value::List(
            items
                .into_iter()
                .map(|v| older_service_infos(v, t))
                .collect(),
        ),
        (Value::Map(entries), Signature::Map(k, v)) => Value::Map(
            entries
                .into_iter()
                .map(|(a, b)| (older_service_infos(a, k), older_service_infos(b, v)))
                .collect(),
        ),
        (value, _) => value,
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Generation {
    type Err = String;

    /// `2.1`, `2.3` … `2.7` (the 2.5 dialect), `2.8`, `2.9` (and `4`, libqi 4.x).
    fn from_str(s: &str) -> Result<Generation, String> {
        Ok(match s.trim() {
            "2.1" => Generation::V2_1,
            "2.3" | "2.4" | "2.5" | "2.6" | "2.7" => Generation::V2_5,
            "2.8" => Generation::V2_8,
            "2.9" | "4" | "4.0" => Generation::V2_9,
            other => {
                return Err(format!(
                    "unknown NAOqi generation '{other}' (expected 2.1, 2.3 to 2.7, 2.8 or 2.9)"
                ));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::capability::CapabilityMap;

    #[test]
    fn peers_are_placed_by_what_they_advertise() {
        let map = |keys: &[&str]| {
            CapabilityMap(
                keys.iter()
                    .map(|k| (k.to_string(), Value::Bool(true)))
                    .collect(),
            )
        };
        assert_eq!(
            Generation::of_peer(&CapabilityMap::default(), true),
            Generation::V2_1
        );
        assert_eq!(
            Generation::of_peer(&map(&["MetaObjectCache", "RemoteCancelableCalls"]), false),
            Generation::V2_5
        );
        assert_eq!(
            Generation::of_peer(&map(&["ObjectPtrUID"]), false),
            Generation::V2_8
        );
        assert_eq!(
            Generation::of_peer(&map(&["ObjectPtrUID", "RelativeEndpointURI"]), false),
            Generation::V2_9
        );
        for g in Generation::ALL {
            assert_eq!(g.name().parse::<Generation>(), Ok(g));
            let advertised = map(&g
                .capabilities()
                .iter()
                .filter(|(_, v)| *v)
                .map(|(k, _)| *k)
                .collect::<Vec<_>>());
            assert_eq!(Generation::of_peer(&advertised, !g.authenticates()), g);
        }
        assert!("3.0".parse::<Generation>().is_err());
    }

    #[test]
    fn service_infos_lose_their_uid_before_2_9() {
        let Ok(seven) = Signature::parse(&format!("[{SERVICE_INFO_SIGNATURE}]")) else {
            panic!("the ServiceInfo signature parses");
        };
        let six = Generation::V2_8.adapt_signature(&seven);
        assert_eq!(six.to_string(), format!("[{SERVICE_INFO_SIGNATURE_6}]"));
        assert!(matches!(
            Generation::V2_9.adapt_signature(&seven),
            Cow::Borrowed(_)
        ));
        let info = Value::Tuple((0..7).map(Value::Int).collect());
        let adapted = Generation::V2_5.adapt_value(Value::List(vec![info.clone()]), &seven);
        assert_eq!(
            adapted,
            Value::List(vec![Value::Tuple((0..6).map(Value::Int).collect())])
        );
        assert_eq!(
            Generation::V2_9.adapt_value(Value::List(vec![info.clone()]), &seven),
            Value::List(vec![info])
        );
    }
}
