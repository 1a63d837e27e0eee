//! ALPreferenceManager: the robot's preferences, string values by domain and setting, as
//! applications keep their settings (the 2.8 overview and API pages). A run's robot starts
//! with none, as a robot whose owner set none; what box code or a package's service sets is
//! kept for the run (the robot's own database, `prefs.db`, and its Cloud copy are not
//! simulated). Only strings are kept: another value is ignored, as the API says. Each change
//! raises its ALMemory event (`preferenceAdded`, `preferenceChanged`, `preferenceRemoved`:
//! `[domain, setting]`; `preferenceDomainRemoved`: the domain) and emits its qi signal
//! (`preferenceAdded` and `preferenceUpdated` with the value, `preferenceRemoved`,
//! `preferenceDomainRemoved`).
//!
//! The pages do not say how the lists are laid out: `getValueList(domain)` gives
//! `[setting, value]` pairs and `getValues()` `[domain, setting, value]` triples, in order.

use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};

/// The module's name.
const NAME: &str = "ALPreferenceManager";

/// ALPreferenceManager as served.
pub(crate) const SERVICE: Service = Service {
    name: NAME,
    methods: &[
        ("getValue", Op::Own),
        ("setValue", Op::Own),
        ("setValues", Op::Own),
        ("getValueList", Op::Own),
        ("getValues", Op::Own),
        ("getDomainList", Op::Own),
        ("removeValue", Op::Own),
        ("removeDomainValues", Op::Own),
        // Synchronizing with the Cloud: no Cloud here, nothing comes from it.
        ("update", Op::Own),
    ],
    own,
    extractor: None,
};

/// Domain → setting → value.
type Preferences = BTreeMap<String, BTreeMap<String, String>>;

/// What a change did, for its event and signal.
enum Change {
    Added(String, String, String),
    Updated(String, String, String),
    Removed(String, String),
    DomainRemoved(String),
}

fn with<R>(sim: &Sim, f: impl FnOnce(&mut Preferences) -> R) -> R {
    sim.kept(NAME, f)
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let mut changes = Vec::new();
    let value = match method {
        "getValue" => {
            let (domain, setting) = (a.str(0)?, a.str(1)?);
            with(sim, |p| {
                p.get(domain)
                    .and_then(|d| d.get(setting))
                    .map_or(Value::None, |v| Value::from(v.as_str()))
            })
        }
        "setValue" => {
            if let Value::String(value) = a.value(2) {
                changes.extend(set(sim, a.str(0)?, a.str(1)?, value));
            }
            Value::None
        }
        "setValues" => {
            let values = a.value(0);
            for (domain, settings) in pairs(&values) {
                for (setting, value) in pairs(settings) {
                    if let Value::String(value) = value {
                        changes.extend(set(sim, &domain, &setting, value.clone()));
                    }
                }
            }
            Value::None
        }
        "getValueList" => {
            let domain = a.str(0)?;
            Value::List(with(sim, |p| {
                p.get(domain)
                    .into_iter()
                    .flatten()
                    .map(|(s, v)| {
                        Value::List(vec![Value::from(s.as_str()), Value::from(v.as_str())])
                    })
                    .collect()
            }))
        }
        "getValues" => Value::List(with(sim, |p| {
            p.iter()
                .flat_map(|(d, settings)| {
                    settings.iter().map(move |(s, v)| {
                        Value::List(vec![
                            d.as_str().into(),
                            s.as_str().into(),
                            v.as_str().into(),
                        ])
                    })
                })
                .collect()
        })),
        "getDomainList" => Value::List(with(sim, |p| {
            p.keys().map(|d| Value::from(d.as_str())).collect()
        })),
        "removeValue" => {
            let (domain, setting) = (a.str(0)?.to_string(), a.str(1)?.to_string());
            let removed = with(sim, |p| {
                let settings = p.get_mut(&domain)?;
                settings.remove(&setting)?;
                if settings.is_empty() {
                    p.remove(&domain);
                }
                Some(())
            });
            changes.extend(removed.map(|()| Change::Removed(domain, setting)));
            Value::None
        }
        "removeDomainValues" => {
            let domain = a.str(0)?.to_string();
            if with(sim, |p| p.remove(&domain)).is_some() {
                changes.push(Change::DomainRemoved(domain));
            }
            Value::None
        }
        "update" => Value::None,
        _ => return Ok(Reply::NotServed),
    };
    for change in changes {
        announce(sim, change);
    }
    Ok(Reply::Now(value))
}

/// Sets `domain`'s `setting` to `value`: what changed, if anything did.
fn set(sim: &Sim, domain: &str, setting: &str, value: String) -> Option<Change> {
    let before = with(sim, |p| {
        p.entry(domain.to_string())
            .or_default()
            .insert(setting.to_string(), value.clone())
    });
    let (d, s) = (domain.to_string(), setting.to_string());
    match before {
        None => Some(Change::Added(d, s, value)),
        Some(old) if old != value => Some(Change::Updated(d, s, value)),
        Some(_) => None,
    }
}

/// A map's entries, keyed by text (`setValues`' `{domain: {setting: value}}`).
fn pairs(value: &Value) -> Vec<(String, &Value)> {
    match value {
        Value::Map(entries) => entries
            .iter()
            .filter_map(|(k, v)| match k {
                Value::String(k) => Some((k.clone(), v)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Raises `change`'s ALMemory event and emits its signal.
fn announce(sim: &Sim, change: Change) {
    let text = |s: &str| Value::from(s);
    let (event, key, signal, args) = match &change {
        Change::Added(d, s, v) => (
            "preferenceAdded",
            Value::List(vec![text(d), text(s)]),
            "preferenceAdded",
            vec![text(d), text(s), text(v)],
        ),
        Change::Updated(d, s, v) => (
            "preferenceChanged",
            Value::List(vec![text(d), text(s)]),
            "preferenceUpdated",
            vec![text(d), text(s), text(v)],
        ),
        Change::Removed(d, s) => (
            "preferenceRemoved",
            Value::List(vec![text(d), text(s)]),
            "preferenceRemoved",
            vec![text(d), text(s)],
        ),
        Change::DomainRemoved(d) => (
            "preferenceDomainRemoved",
            text(d),
            "preferenceDomainRemoved",
            vec![text(d)],
        ),
    };
    sim.raise(event, key);
    sim.emit(NAME, signal, args);
}
