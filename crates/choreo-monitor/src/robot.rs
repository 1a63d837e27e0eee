//! The robot as the page's 3D view draws it: the `robot` message, built from choreo-robot's
//! kinematic chain ([`choreo_robot::chain`]).

use choreo_robot::Model;
use serde_json::{Value, json};

/// The model a monitor's `model` option names (`nao`, `pepper`, any case; `juliette` too).
pub fn model(name: &str) -> Option<Model> {
    Model::from_hint(name)
}

/// The `robot` message of `model` (see docs/monitor.md): every joint's link in "Body"
/// order (parent `null`: the torso), and the ends a drawing needs.
pub fn robot(model: Model) -> Value {
    let chain = model.chain();
    let links: Vec<Value> = chain
        .links()
        .iter()
        .map(|l| {
            json!({
                "joint": l.joint, "parent": l.parent, "offset": l.offset,
                "rotation": l.rotation, "axis": l.axis,
            })
        })
        .collect();
    let ends: Vec<Value> = chain
        .ends()
        .iter()
        .map(|e| json!({"name": e.name, "parent": e.parent, "offset": e.offset}))
        .collect();
    // Every joint's range (hands: their opening ratio), for an editor's pose sliders; a
    // coupled joint's as points over the joint bounding it (NAO's head pitch by its yaw).
    let all = model.joints();
    let joints: Vec<Value> = all
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let coupled = model
                .coupled_points(i)
                .map(|(by, points)| json!({"by": all.get(by).map(|b| b.name), "points": points}));
            json!({"name": j.name, "min": j.min, "max": j.max, "coupled": coupled})
        })
        .collect();
    // The chains ALMotion names (`Head`, `LArm`, ...) and their joints: a timeline
    // editor's lanes, a chain folded into one.
    let chains: Vec<Value> = model
        .chains()
        .iter()
        .map(|c| {
            let names: Vec<&str> = model
                .resolve(c)
                .unwrap_or_default()
                .iter()
                .filter_map(|&i| all.get(i).map(|j| j.name))
                .collect();
            json!({"name": c, "joints": names})
        })
        .collect();
    json!({
        "type": "robot", "model": model.name().to_lowercase(), "links": links, "ends": ends,
        "joints": joints, "chains": chains,
    })
}
