//! A behavior stack's run (`choreo stack run --monitor`) as the page's Stack view shows it:
//! the delegation tree ([`StackShape`], sent once as the `stack` message), and from the
//! stack's events (its trace, behaviors named: `choreo stack run --trace`'s lines with a
//! `time_ns`) which behaviors are in scope, activated and on the stack, and a time strip of
//! who was activated when and why (who delegated, and the dispatcher's reason it logged).

use std::collections::{BTreeSet, HashMap, VecDeque};

use serde_json::{Value, json};

/// How many segments of the time strip are kept (the oldest go first).
pub const STRIP: usize = 10_000;

/// The behaviors of a stack and their declared delegates: what `choreo stack tree` prints.
#[derive(Debug, Clone, Default)]
pub struct StackShape {
    /// The base behavior's name.
    pub base: String,
    /// Every behavior.
    pub behaviors: Vec<StackNode>,
}

/// One behavior of a [`StackShape`].
#[derive(Debug, Clone)]
pub struct StackNode {
    /// Its name (the definition's id; `owner/@id` for an anonymous one).
    pub name: String,
    /// Its class (`StrictPriority`, `PlayChoregraphe`, ...).
    pub class: String,
    /// The behaviors it may delegate to, in declared order.
    pub delegates: Vec<String>,
}

impl StackShape {
    /// The `stack` message (docs/monitor.md).
    pub fn message(&self) -> Value {
        json!({
            "type": "stack",
            "base": self.base,
            "behaviors": self.behaviors.iter().map(|b| json!({
                "name": b.name, "class": b.class, "delegates": b.delegates,
            })).collect::<Vec<_>>(),
        })
    }
}

/// One activation of a behavior: from `activated` to `deactivated`.
#[derive(Debug, Clone)]
struct Segment {
    id: u64,
    name: String,
    /// Its place on the stack (0: the base).
    depth: usize,
    from_ns: u64,
    to_ns: Option<u64>,
    why: String,
}

impl Segment {
    fn json(&self) -> Value {
        json!({
            "id": self.id, "name": self.name, "depth": self.depth,
            "from_ns": self.from_ns, "to_ns": self.to_ns, "why": self.why,
        })
    }
}

/// The stack's state as the page shows it.
#[derive(Debug, Default)]
pub(crate) struct StackState {
    tick: u64,
    time_ns: u64,
    in_scope: BTreeSet<String>,
    active: BTreeSet<String>,
    stack: Vec<String>,
    strip: VecDeque<Segment>,
    next_segment: u64,
    /// Why a behavior about to be activated was chosen: who delegated to it, and the
    /// reason the delegator logged (a dispatcher's `chose X: why`).
    chosen: HashMap<String, String>,
}

/// What some stack events changed: whether anything did, and the segments touched.
#[derive(Debug, Default)]
pub(crate) struct StackChanges {
    changed: bool,
    segments: BTreeSet<u64>,
}

impl StackState {
    /// Applies one stack event (its JSON line, behaviors named).
    pub(crate) fn apply(&mut self, e: &Value, changes: &mut StackChanges) {
        let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default();
        if let Some(t) = e.get("tick").and_then(Value::as_u64) {
            self.tick = t;
        }
        if let Some(t) = e.get("time_ns").and_then(Value::as_u64) {
            self.time_ns = t;
        }
        changes.changed = true;
        let b = text("b").to_string();
        match text("event") {
            "entered_scope" => {
                self.in_scope.insert(b);
            }
            "left_scope" => {
                self.in_scope.remove(&b);
            }
            "push" => self.stack.push(b),
            "pop" => {
                if let Some(i) = self.stack.iter().rposition(|s| *s == b) {
                    self.stack.remove(i);
                }
            }
            "activated" => {
                let why = self.chosen.remove(&b).unwrap_or_else(|| {
                    if self.stack.len() <= 1 {
                        "the base".to_string()
                    } else {
                        String::new()
                    }
                });
                let segment = Segment {
                    id: self.next_segment,
                    depth: self.stack.iter().rposition(|s| *s == b).unwrap_or(0),
                    name: b.clone(),
                    from_ns: self.time_ns,
                    to_ns: None,
                    why,
                };
                self.next_segment += 1;
                changes.segments.insert(segment.id);
                if self.strip.len() == STRIP {
                    self.strip.pop_front();
                }
                self.strip.push_back(segment);
                self.active.insert(b);
            }
            "deactivated" => {
                if let Some(s) = self
                    .strip
                    .iter_mut()
                    .rev()
                    .find(|s| s.name == b && s.to_ns.is_none())
                {
                    s.to_ns = Some(self.time_ns);
                    changes.segments.insert(s.id);
                }
                self.active.remove(&b);
            }
            "delegate" if text("result") == "ok" => {
                let (from, to) = (text("from"), text("to"));
                self.chosen
                    .insert(to.to_string(), format!("delegated by {from}"));
            }
            // A dispatcher says why it chose a delegate just after delegating to it.
            "log" if text("level") == "info" => {
                let said = text("text");
                let by = format!("delegated by {b}");
                if let Some((_, why)) = self
                    .chosen
                    .iter_mut()
                    .find(|(to, why)| **why == by && said.starts_with(&format!("chose {to}")))
                {
                    *why = format!("{by}: {said}");
                }
            }
            _ => {}
        }
    }

    /// The stack now, for the `stack` key of a snapshot: every segment kept.
    pub(crate) fn snapshot(&self) -> Value {
        let mut v = self.now();
        v["segments"] = self.strip.iter().map(Segment::json).collect();
        v
    }

    /// What `changes` changed, for the `stack` key of a batch's changes (`None`: nothing):
    /// the stack now and the segments touched.
    pub(crate) fn changes(&self, changes: &StackChanges) -> Option<Value> {
        if !changes.changed {
            return None;
        }
        let mut v = self.now();
        let first = self.strip.front().map_or(0, |s| s.id);
        v["segments"] = changes
            .segments
            .iter()
            .filter_map(|id| {
                let i = usize::try_from(id.checked_sub(first)?).ok()?;
                self.strip.get(i).map(Segment::json)
            })
            .collect();
        Some(v)
    }

    fn now(&self) -> Value {
        json!({
            "tick": self.tick,
            "time_ns": self.time_ns,
            "stack": self.stack,
            "in_scope": self.in_scope,
            "active": self.active,
        })
    }
}
