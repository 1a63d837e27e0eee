//! Box resources (docs/runtime-rules.md §6): what a box declares, and the resource tree
//! ([`ResourceTree`]): the mechanism by which a group name (`All motors`, `Legs`) covers joints.
//! The NAO and Pepper trees are the robot's side (the simulated robot builds them from
//! choreo-robot's groups), given by `Robot::resource_tree` or `Options::resources`.
//!
//! Who holds what is the engine's `Holdings` (`engine/holdings.rs`), asked before a box that
//! declares resources starts; what happens to a holder that is in the way (wait, stop it, pause
//! it, call it back) is the engine's business (Q3).

use std::collections::HashMap;
use std::time::Duration;

pub use choreo_xar::model::LockType;

/// A resource a box declares (`<Resource name type timeout>`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceNode {
    /// ALResourceManager name: `Speech`, `All motors`, a joint name, ...
    pub name: String,
    /// What happens to this box when another box asks for the resource while it holds it.
    pub lock: LockType,
    /// How long the box waits for the resource when it starts; `None` waits until free.
    pub timeout: Option<Duration>,
}

impl ResourceNode {
    /// Reads a declaration: an unknown lock type is a `Lock` (the safe reading); a missing
    /// timeout is 0 (no waiting); a negative one waits until free.
    pub fn from_model(r: &choreo_xar::model::Resource) -> ResourceNode {
        ResourceNode {
            name: r.name.clone(),
            lock: r.lock().unwrap_or(LockType::Lock),
            timeout: match r.timeout {
                Some(t) if t < 0 => None,
                t => Some(Duration::from_secs(u64::from(
                    t.unwrap_or(0).unsigned_abs(),
                ))),
            },
        }
    }
}

/// A robot's resource tree (Q4): which leaves (joints) each group name covers. What the
/// groups of a NAO or a Pepper are is the robot side's knowledge (the simulated robot's
/// model gives it: [`crate::Robot::resource_tree`]); the engine only applies it. A name the
/// tree does not know is a leaf of its own (`Speech`, a joint), and with no tree at all every
/// name is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceTree {
    /// Group name → the leaves it covers (groups of groups already expanded).
    groups: HashMap<String, Vec<String>>,
}

impl ResourceTree {
    /// A tree with no group.
    pub fn new() -> ResourceTree {
        ResourceTree::default()
    }

    /// Adds group `name` covering `members`: leaves, or groups added before (their leaves).
    pub fn with_group(mut self, name: &str, members: &[&str]) -> ResourceTree {
        let mut leaves: Vec<String> = Vec::new();
        for m in members {
            match self.groups.get(*m) {
                Some(inner) => leaves.extend(inner.iter().cloned()),
                None => leaves.push((*m).to_string()),
            }
        }
        self.groups.insert(name.to_string(), leaves);
        self
    }

    /// The leaves a resource name covers: a group's, or the name itself.
    pub fn leaves<'a>(&'a self, name: &'a str) -> Vec<&'a str> {
        match self.groups.get(name) {
            Some(leaves) => leaves.iter().map(String::as_str).collect(),
            None => vec![name],
        }
    }

    /// Whether two resource names share a leaf (one covers the other, or they are equal).
    pub fn overlap(&self, a: &str, b: &str) -> bool {
        a == b || {
            let lb = self.leaves(b);
            self.leaves(a).iter().any(|l| lb.contains(l))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_their_joints_and_unknown_names_are_leaves() {
        let t = ResourceTree::new()
            .with_group("Head", &["HeadYaw", "HeadPitch"])
            .with_group("Left leg", &["LKneePitch"])
            .with_group("Right leg", &["RKneePitch"])
            .with_group("Legs", &["Left leg", "Right leg"])
            .with_group("All motors", &["Head", "Legs"]);
        assert!(t.overlap("All motors", "HeadYaw"));
        assert!(t.overlap("Legs", "LKneePitch"));
        assert!(t.overlap("Legs", "All motors"));
        assert!(!t.overlap("Legs", "Head"));
        assert!(!t.overlap("Left leg", "Right leg"));
        assert!(t.overlap("Speech", "Speech"));
        assert!(!t.overlap("Speech", "All motors"));
        assert!(!t.overlap("Standing", "Legs"));
        assert!(
            !ResourceTree::new().overlap("Legs", "LKneePitch"),
            "no tree: leaves"
        );
    }

    #[test]
    fn declarations_read_timeouts_and_lock_types() {
        let r = |lock: &str, timeout| choreo_xar::model::Resource {
            name: "Speech".into(),
            lock_type: lock.into(),
            timeout,
            extras: Default::default(),
        };
        assert_eq!(
            ResourceNode::from_model(&r("Stop on demand", Some(2))).timeout,
            Some(Duration::from_secs(2))
        );
        assert_eq!(ResourceNode::from_model(&r("Lock", Some(-1))).timeout, None);
        assert_eq!(
            ResourceNode::from_model(&r("Lock", None)).timeout,
            Some(Duration::ZERO)
        );
        assert_eq!(
            ResourceNode::from_model(&r("Pause on demand (beta)", None)).lock,
            LockType::PauseOnDemand
        );
        assert_eq!(
            ResourceNode::from_model(&r("whatever", None)).lock,
            LockType::Lock
        );
    }
}
