//! The behavior as the page draws it: boxes with their ports, positions and contents, and
//! each diagram's links, from the engine's instantiated [`Graph`] (so paths are the trace's).

use std::sync::Arc;

use choreo_engine::graph::{BoxId, Content, Graph, Target, TimelineNode};
use choreo_motion::motion::Motion;
use choreo_robot::Model;
use serde_json::{Value, json};

/// How many values a timeline's motion curve is sampled at, at most (a long timeline is
/// sampled every few frames).
pub const CURVE_SAMPLES: usize = 600;

/// The `structure` message of `graph` and of the behaviors it plays (see docs/monitor.md):
/// each `played` graph after it, its ids after the ones before, its paths prefixed, its root
/// a root of its own; timelines' motion curves are sampled for `model` (else the robot their
/// joints say, else NAO).
pub fn structure(graph: &Graph, played: &[(String, Arc<Graph>)], model: Option<Model>) -> Value {
    let (mut boxes, mut diagrams) = (Vec::new(), Vec::new());
    for (prefix, g) in with_played(graph, played) {
        let offset = Offset {
            boxes: boxes.len(),
            diagrams: diagrams.len(),
            prefix,
        };
        boxes.extend(box_list(g, &offset, model));
        diagrams.extend(diagram_list(g, &offset));
    }
    json!({"type": "structure", "boxes": boxes, "diagrams": diagrams})
}

/// `graph` (its paths as they are) and the `played` graphs, each with its paths' prefix.
pub(crate) fn with_played<'a>(
    graph: &'a Graph,
    played: &'a [(String, Arc<Graph>)],
) -> impl Iterator<Item = (&'a str, &'a Graph)> {
    std::iter::once(("", graph)).chain(played.iter().map(|(p, g)| (p.as_str(), &**g)))
}

/// Where a graph's boxes and diagrams go in a structure of several: ids shifted, paths
/// prefixed.
struct Offset<'a> {
    boxes: usize,
    diagrams: usize,
    prefix: &'a str,
}

impl Offset<'_> {
    fn b(&self, b: BoxId) -> usize {
        self.boxes + b.0 as usize
    }

    fn d(&self, d: usize) -> usize {
        self.diagrams + d
    }
}

/// The boxes of `graph`, placed by `at`.
fn box_list(graph: &Graph, at: &Offset<'_>, model: Option<Model>) -> Vec<Value> {
    graph
        .boxes
        .iter()
        .enumerate()
        .map(|(id, b)| {
            let content = match &b.content {
                Content::None => json!({"kind": "none"}),
                Content::Holder(diagrams) => json!({
                    "kind": "holder",
                    "diagrams": diagrams.iter().map(|d| at.d(d.0 as usize)).collect::<Vec<_>>(),
                }),
                Content::Timeline(t) => json!({
                    "kind": "timeline",
                    "fps": t.fps,
                    "start": t.start_frame,
                    "end": t.end_frame,
                    "layers": t.layers.iter().map(|l| json!({
                        "name": l.name,
                        "keyframes": l.keyframes.iter().map(|k| json!({
                            "name": k.name, "index": k.index, "diagram": at.d(k.diagram.0 as usize),
                        })).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                    "curves": curves(t, model),
                }),
            };
            json!({
                "id": at.boxes + id,
                "path": format!("{}{}", at.prefix, b.path),
                // A played behavior's root is known by its prefix (`Dance`), not as `root`.
                "name": match (id, at.prefix) {
                    (0, prefix) if !prefix.is_empty() => prefix.trim_end_matches(':'),
                    _ => b.name.as_str(),
                },
                "parent": b.parent.map(|(owner, d)| json!({
                    "box": at.b(owner), "diagram": at.d(d.0 as usize),
                })),
                "ref": place_in_file(graph, BoxId(id as u32)),
                "bitmap": b.bitmap,
                "x": b.position.map(|p| p.0),
                "y": b.position.map(|p| p.1),
                "inputs": b.inputs.iter().map(|p| json!({
                    "name": p.name.to_string(), "nature": p.nature.name(),
                })).collect::<Vec<_>>(),
                "outputs": b.outputs.iter().map(|p| json!({
                    "name": p.name.to_string(), "nature": p.nature.name(),
                })).collect::<Vec<_>>(),
                "content": content,
            })
        })
        .collect()
}

/// Where box `id` is in its file, as the editor names it (`choreo_xar::edit::BoxRef`): from
/// the root, each diagram's (layer, keyframe) in its owner's timeline and the box's id.
fn place_in_file(graph: &Graph, id: BoxId) -> Vec<[i64; 3]> {
    let mut steps = Vec::new();
    let mut at = graph.node(id);
    while let Some((owner, diagram)) = at.parent {
        let (layer, keyframe) = graph.diagram(diagram).place;
        steps.push([layer as i64, keyframe as i64, i64::from(at.xar_id)]);
        at = graph.node(owner);
    }
    steps.reverse();
    steps
}

/// The diagrams of `graph`, placed by `at`.
fn diagram_list(graph: &Graph, at: &Offset<'_>) -> Vec<Value> {
    graph
        .diagrams
        .iter()
        .enumerate()
        .map(|(id, d)| {
            let mut links = Vec::new();
            let owner = graph.node(d.owner);
            for (i, targets) in d.from_owner.iter().enumerate() {
                let port = owner.inputs.get(i).map(|p| p.name.to_string());
                for t in targets {
                    links.push(
                        json!({"from": {"box": null, "port": port}, "to": to(graph, at, *t)}),
                    );
                }
            }
            for &b in &d.boxes {
                for out in &graph.node(b).outputs {
                    for t in &out.targets {
                        links.push(json!({
                            "from": {"box": at.b(b), "port": out.name.to_string()},
                            "to": to(graph, at, *t),
                        }));
                    }
                }
            }
            json!({
                "id": at.d(id),
                "owner": at.b(d.owner),
                // Its layer and keyframe in its owner's timeline, as the editor names it.
                "place": [d.place.0, d.place.1],
                "boxes": d.boxes.iter().map(|&b| at.b(b)).collect::<Vec<_>>(),
                "links": links,
            })
        })
        .collect()
}

/// A timeline's motion curves, each sampled from the timeline's start to its end (the last
/// key when it has no end) every `step` frames: `{"joint", "from", "step", "values"}`,
/// radians (hands: opening ratio), as the editor shows each curve alone.
fn curves(t: &TimelineNode, model: Option<Model>) -> Vec<Value> {
    let Some(list) = t.actuators.as_deref() else {
        return Vec::new();
    };
    let robot = model
        .or_else(|| choreo_motion::motion::made_for(list))
        .unwrap_or(Model::Nao);
    let fps = i32::try_from(t.fps).unwrap_or(i32::MAX);
    let start = i32::try_from(t.start_frame).unwrap_or(0);
    let Some(motion) = Motion::from_list(list, fps, start, t.end_request, robot) else {
        return Vec::new();
    };
    let from = t.start_frame;
    let to = t
        .end_frame
        .unwrap_or_else(|| i64::from(motion.end_frame()))
        .max(from);
    let span = usize::try_from(to - from).unwrap_or(0);
    let step = span.div_ceil(CURVE_SAMPLES).max(1);
    let frames: Vec<f64> = (0..=span)
        .step_by(step)
        .map(|i| (from + i as i64) as f64)
        .collect();
    motion
        .samples(&frames)
        .into_iter()
        .map(
            |(joint, values)| json!({"joint": joint, "from": from, "step": step, "values": values}),
        )
        .collect()
}

/// Where a link goes, as the protocol says it.
fn to(graph: &Graph, at: &Offset<'_>, t: Target) -> Value {
    let (b, kind, name) = match t {
        Target::Input(b, i) => {
            let name = graph
                .node(b)
                .inputs
                .get(usize::from(i))
                .map(|p| p.name.to_string());
            (Some(b), "input", name)
        }
        Target::Parameter(b, i) => {
            let name = graph
                .node(b)
                .parameters
                .get(usize::from(i))
                .map(|p| p.name.clone());
            (Some(b), "parameter", name)
        }
        Target::OwnerOutput(b, i) => {
            let name = graph
                .node(b)
                .outputs
                .get(usize::from(i))
                .map(|p| p.name.to_string());
            (None, "output", name)
        }
    };
    json!({"box": b.map(|b: BoxId| at.b(b)), "port": name, "kind": kind})
}
