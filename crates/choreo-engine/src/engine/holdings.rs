//! Who holds which resources (§6): the bookkeeping, apart from what the control thread does
//! to a holder in the way.

use std::collections::HashMap;

use crate::graph::BoxId;
use std::sync::Arc;

use crate::resource::{ResourceNode, ResourceTree};

/// Who holds which resources, under a robot's resource tree.
#[derive(Debug, Default)]
pub struct Holdings {
    held: HashMap<BoxId, Vec<ResourceNode>>,
    tree: Arc<ResourceTree>,
}

impl Holdings {
    /// Nobody holds anything yet; `tree` says which names overlap.
    pub fn new(tree: Arc<ResourceTree>) -> Holdings {
        Holdings {
            held: HashMap::new(),
            tree,
        }
    }

    /// For each holder in the way of `wanted`: the holder and its resources that overlap,
    /// in box order (deterministic). `shares(holder)` says which holders do not count: the
    /// asker itself and the boxes enclosing it, whose resources their inner boxes use (the
    /// stock Stand Up box holds "All motors" and its Goto Posture box asks for it again).
    pub fn conflicts(
        &self,
        wanted: &[ResourceNode],
        shares: impl Fn(BoxId) -> bool,
    ) -> Vec<(BoxId, Vec<&ResourceNode>)> {
        let mut out: Vec<(BoxId, Vec<&ResourceNode>)> = self
            .held
            .iter()
            .filter(|(holder, _)| !shares(**holder))
            .filter_map(|(holder, rs)| {
                let hit: Vec<&ResourceNode> = rs
                    .iter()
                    .filter(|r| wanted.iter().any(|w| self.tree.overlap(&w.name, &r.name)))
                    .collect();
                (!hit.is_empty()).then_some((*holder, hit))
            })
            .collect();
        out.sort_by_key(|(b, _)| *b);
        out
    }

    /// `b` now holds `resources`.
    pub fn grant(&mut self, b: BoxId, resources: &[ResourceNode]) {
        self.held.insert(b, resources.to_vec());
    }

    /// `b` holds nothing any more; returns what it held.
    pub fn release(&mut self, b: BoxId) -> Option<Vec<ResourceNode>> {
        self.held.remove(&b)
    }
}
