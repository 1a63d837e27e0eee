//! Box resources (runtime-semantics.md §6): what a box declares, the resource tree, and who
//! holds what.
//!
//! The engine asks [`Holdings::conflicts`] before starting a box that declares resources and
//! records grants and releases here; what happens to a holder that is in the way (wait, stop
//! it, pause it, call it back) is the engine's business (Q3).

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

/// NAO and Pepper joints, by group: a group name covers its joints (Q4).
const GROUPS: &[(&str, &[&str])] = &[
    ("Head", &["HeadYaw", "HeadPitch"]),
    (
        "Left arm",
        &[
            "LShoulderPitch",
            "LShoulderRoll",
            "LElbowYaw",
            "LElbowRoll",
            "LWristYaw",
            "LHand",
        ],
    ),
    (
        "Right arm",
        &[
            "RShoulderPitch",
            "RShoulderRoll",
            "RElbowYaw",
            "RElbowRoll",
            "RWristYaw",
            "RHand",
        ],
    ),
    (
        "Left leg",
        &[
            "LHipYawPitch",
            "LHipRoll",
            "LHipPitch",
            "LKneePitch",
            "LAnklePitch",
            "LAnkleRoll",
        ],
    ),
    (
        "Right leg",
        &[
            "RHipYawPitch",
            "RHipRoll",
            "RHipPitch",
            "RKneePitch",
            "RAnklePitch",
            "RAnkleRoll",
        ],
    ),
    // Pepper's lower body.
    (
        "Lower body",
        &[
            "HipRoll",
            "HipPitch",
            "KneePitch",
            "WheelFL",
            "WheelFR",
            "WheelB",
        ],
    ),
];

/// Groups made of groups.
const SUPER_GROUPS: &[(&str, &[&str])] = &[
    ("Arms", &["Left arm", "Right arm"]),
    ("Legs", &["Left leg", "Right leg"]),
    (
        "All motors",
        &[
            "Head",
            "Left arm",
            "Right arm",
            "Left leg",
            "Right leg",
            "Lower body",
        ],
    ),
];

/// The leaves a resource name covers: the joints of a group, or the name itself (a joint,
/// or a name the tree does not know, which is a leaf of its own).
pub fn leaves(name: &str) -> Vec<&str> {
    let group = |g: &str| GROUPS.iter().find(|(n, _)| *n == g).map(|(_, j)| *j);
    if let Some(joints) = group(name) {
        return joints.to_vec();
    }
    if let Some((_, groups)) = SUPER_GROUPS.iter().find(|(n, _)| *n == name) {
        return groups
            .iter()
            .filter_map(|g| group(g))
            .flatten()
            .copied()
            .collect();
    }
    vec![name]
}

/// Whether two resource names share a leaf (one covers the other, or they are equal).
pub fn overlap(a: &str, b: &str) -> bool {
    a == b || {
        let lb = leaves(b);
        leaves(a).iter().any(|l| lb.contains(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_their_joints_and_unknown_names_are_leaves() {
        assert!(overlap("All motors", "HeadYaw"));
        assert!(overlap("Legs", "LKneePitch"));
        assert!(overlap("Legs", "All motors"));
        assert!(!overlap("Legs", "Head"));
        assert!(!overlap("Left arm", "Right arm"));
        assert!(overlap("Speech", "Speech"));
        assert!(!overlap("Speech", "All motors"));
        assert!(!overlap("Standing", "Legs"));
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
