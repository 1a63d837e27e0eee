//! Why a box was never entered: what its diagram's links, its timeline's frames and its
//! memory inputs say could lead to it, followed back to the nearest thing that did run —
//! the box whose output never fired, the timeline whose frame never came — so a report
//! names the cause once, not "what leads to it never fired" for each box behind it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use choreo_engine::graph::{Content, Graph, Target};
use choreo_xar::model::InputNature;

/// One way into a box.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
enum Lead {
    /// Output `output` of box `from` (a sibling in the diagram) links to it.
    Output { from: String, output: String },
    /// A stimulation of input `input` of `owner`, the box whose diagram holds it.
    OwnerInput { owner: String, input: String },
    /// A memory input of the diagram: ALMemory `key` raised.
    Memory { key: String },
    /// Its diagram's loading (the links from `owner`'s onLoad input), which comes when
    /// `owner` starts.
    Loaded { owner: String },
    /// Its diagram is a keyframe of timeline `timeline`, active from `frame`.
    Frame { timeline: String, frame: i64 },
}

/// Every box's ways in, by path.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Leads(BTreeMap<String, Vec<Lead>>);

/// Why a box was never entered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Why {
    /// The cause, where what leads to the box stops: `no link leads to it`, `it waits for
    /// ALMemory KEY`, `root/Ask was entered; its output onDone never fired`, `no link leads
    /// to root/Menu` (a box it is behind), ...
    pub cause: String,
    /// The box it is directly behind, when the cause is further back (also never entered).
    pub behind: Option<String>,
}

impl Leads {
    /// Reads the ways into each box of `graph`.
    pub fn of(graph: &Graph) -> Leads {
        let path = |id: u32| graph.boxes[id as usize].path.clone();
        // Every box, those nothing leads to included.
        let mut leads: BTreeMap<String, Vec<Lead>> = graph
            .boxes
            .iter()
            .map(|b| (b.path.clone(), Vec::new()))
            .collect();
        let mut add = |to: u32, lead: Lead| leads.entry(path(to)).or_default().push(lead);
        for b in &graph.boxes {
            for output in &b.outputs {
                for t in &output.targets {
                    if let Target::Input(to, _) = t {
                        add(
                            to.0,
                            Lead::Output {
                                from: b.path.clone(),
                                output: output.name.to_string(),
                            },
                        );
                    }
                }
            }
        }
        for (d, diagram) in graph.diagrams.iter().enumerate() {
            let owner = &graph.boxes[diagram.owner.0 as usize];
            // A keyframe's diagram loads when its frame comes: its owner's onLoad links
            // start their boxes then (runtime-rules.md, P4). A box of the keyframe nothing
            // links to (a 1.x Comment box) is not started by the frame: no link leads to it.
            let frame = match &owner.content {
                Content::Timeline(timeline) => timeline
                    .layers
                    .iter()
                    .flat_map(|l| &l.keyframes)
                    .find(|k| k.diagram.0 as usize == d),
                _ => None,
            };
            for (i, targets) in diagram.from_owner.iter().enumerate() {
                let Some(input) = owner.inputs.get(i) else {
                    continue;
                };
                let loads = input.nature == InputNature::OnLoad;
                for t in targets {
                    let Target::Input(to, _) = t else { continue };
                    let lead = match (&input.memory_key, loads) {
                        (Some(key), _) => Lead::Memory { key: key.clone() },
                        (None, true) => match frame {
                            Some(k) => Lead::Frame {
                                timeline: owner.path.clone(),
                                frame: k.index,
                            },
                            None => Lead::Loaded {
                                owner: owner.path.clone(),
                            },
                        },
                        (None, false) => Lead::OwnerInput {
                            owner: owner.path.clone(),
                            input: input.name.to_string(),
                        },
                    };
                    add(to.0, lead);
                }
            }
        }
        Leads(leads)
    }

    /// Adds `other`'s boxes this one lacks (each path's run reads the same behavior; a box
    /// of a behavior started through ALBehaviorManager shows in none).
    pub fn extend(&mut self, other: &Leads) {
        for (b, leads) in &other.0 {
            self.0.entry(b.clone()).or_insert_with(|| leads.clone());
        }
    }

    /// Whether the box at `path` is one of the behavior's own (its links are read).
    pub fn knows(&self, path: &str) -> bool {
        self.0.contains_key(path)
    }

    /// Why `path` was never entered, given the boxes `entered` on some path: its ways in
    /// followed back, breadth first (the nearest cause), to one that ran. Iterative, each
    /// box visited once: a diagram's loops and depth cannot make it recurse.
    pub fn why(&self, path: &str, entered: &BTreeSet<String>) -> Why {
        let none = Vec::new();
        let own = self.0.get(path).unwrap_or(&none);
        if own.is_empty() {
            return Why {
                cause: "no link leads to it".into(),
                behind: None,
            };
        }
        let mut keys: BTreeSet<&str> = BTreeSet::new();
        // The nearest box behind it that nothing leads to, if the walk meets one.
        let mut unlinked: Option<&str> = None;
        let mut seen: BTreeSet<&str> = BTreeSet::from([path]);
        let mut queue: VecDeque<(&str, Option<&str>)> = VecDeque::from([(path, None)]);
        while let Some((b, behind)) = queue.pop_front() {
            let leads = self.0.get(b).unwrap_or(&none);
            if leads.is_empty() && unlinked.is_none() {
                unlinked = Some(b);
            }
            for lead in leads {
                let (source, cause) = match lead {
                    Lead::Memory { key } => {
                        keys.insert(key);
                        continue;
                    }
                    Lead::Output { from, output } => (
                        from,
                        format!("{from} was entered; its output {output} never fired"),
                    ),
                    Lead::OwnerInput { owner, input } => (
                        owner,
                        format!("{owner} was entered; its input {input} never was"),
                    ),
                    Lead::Loaded { owner } => (
                        owner,
                        format!("{owner} was entered; its diagram never loaded"),
                    ),
                    Lead::Frame { timeline, frame } => (
                        timeline,
                        format!("{timeline} was entered; its frame {frame} never came"),
                    ),
                };
                if entered.contains(source) {
                    return Why {
                        cause,
                        behind: behind.map(str::to_string),
                    };
                }
                if seen.insert(source) {
                    queue.push_back((source, behind.or(Some(source))));
                }
            }
        }
        let cause = match (keys.is_empty(), unlinked) {
            (false, _) => {
                let keys: Vec<&str> = keys.into_iter().collect();
                format!("it waits for ALMemory {}", keys.join(", "))
            }
            (true, Some(b)) => format!("no link leads to {b}"),
            (true, None) => "nothing that leads to it was entered".to_string(),
        };
        let direct_keys_only = own.iter().all(|l| matches!(l, Lead::Memory { .. }));
        Why {
            cause,
            behind: (!direct_keys_only)
                .then(|| own.iter().find_map(source_of))
                .flatten(),
        }
    }
}

/// The box a way in comes from, if a box.
fn source_of(lead: &Lead) -> Option<String> {
    match lead {
        Lead::Output { from, .. } => Some(from.clone()),
        Lead::OwnerInput { owner, .. } | Lead::Loaded { owner } => Some(owner.clone()),
        Lead::Frame { timeline, .. } => Some(timeline.clone()),
        Lead::Memory { .. } => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn out(from: &str, output: &str) -> Lead {
        Lead::Output {
            from: from.into(),
            output: output.into(),
        }
    }

    #[test]
    fn the_cause_is_the_nearest_box_that_ran() {
        // root/A (entered) --onDone--> root/B --out--> root/C; B and C never entered;
        // root/L loops on itself and root/M waits for a key.
        let leads = Leads(BTreeMap::from([
            ("root/A".into(), vec![]),
            ("root/B".into(), vec![out("root/A", "onDone")]),
            ("root/C".into(), vec![out("root/B", "out")]),
            (
                "root/L".into(),
                vec![out("root/L", "again"), out("root/C", "x")],
            ),
            (
                "root/M".into(),
                vec![Lead::Memory {
                    key: "MyApp/Go".into(),
                }],
            ),
            ("root/N".into(), vec![out("root/M", "done")]),
            // root/P has no way in; root/Q sits behind it.
            ("root/P".into(), vec![]),
            ("root/Q".into(), vec![out("root/P", "done")]),
        ]));
        let entered = BTreeSet::from(["root/A".to_string()]);
        let cause = "root/A was entered; its output onDone never fired";
        assert_eq!(
            leads.why("root/B", &entered),
            Why {
                cause: cause.into(),
                behind: None
            }
        );
        assert_eq!(
            leads.why("root/C", &entered),
            Why {
                cause: cause.into(),
                behind: Some("root/B".into())
            }
        );
        assert_eq!(leads.why("root/L", &entered).cause, cause);
        assert_eq!(
            leads.why("root/A", &BTreeSet::new()).cause,
            "no link leads to it"
        );
        assert_eq!(
            leads.why("root/Q", &entered),
            Why {
                cause: "no link leads to root/P".into(),
                behind: Some("root/P".into())
            }
        );
        assert_eq!(
            leads.why("root/N", &entered),
            Why {
                cause: "it waits for ALMemory MyApp/Go".into(),
                behind: Some("root/M".into())
            }
        );
    }
}
