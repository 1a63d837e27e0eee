//! The splices of a [`TimelineEdit`] (the rules: `timeline.rs`).
//!
//! Elements added are written on one line each (a new layer with its keyframe and diagram
//! too): Choregraphe reads any layout, and the lines around stay as they were.

use choreo_robot::Model;

use super::timeline::{Interpolation, TimelineEdit};
use super::{BoxRef, Document, EditError, Splice, escaped, refused};
use crate::model::{TangentSide, Timeline};

/// A value as Choregraphe writes one: at most six decimals, no trailing zeros.
fn number(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// `name` is a name a layer or keyframe may take among `others`.
fn check_name(
    what: &str,
    name: &str,
    mut others: impl Iterator<Item = String>,
) -> Result<(), EditError> {
    if name.trim().is_empty() {
        return Err(refused(format!("a {what}'s name cannot be empty")));
    }
    if others.any(|o| o == name) {
        return Err(refused(format!("there is already a {what} named {name:?}")));
    }
    Ok(())
}

impl Document {
    /// The splices of `change` to the timeline of the box at `at`.
    pub(super) fn timeline(
        &self,
        at: &BoxRef,
        change: &TimelineEdit,
    ) -> Result<Vec<Splice>, EditError> {
        let def = self.box_def(at)?;
        let t = def
            .timeline
            .as_ref()
            .filter(|t| t.enable == Some(true))
            .ok_or_else(|| {
                refused(format!(
                    "{} is not a timeline box: it has no frames",
                    def.name
                ))
            })?;
        let node = self
            .spans
            .child(self.box_node(at)?, "Timeline")
            .ok_or_else(|| EditError::NotFound("the box has no Timeline element".to_string()))?;
        match change {
            TimelineEdit::Frames { fps, start, end } => self.frames(t, node, *fps, *start, *end),
            TimelineEdit::AddLayer { name } => {
                check_name("layer", name, t.layers.iter().map(|l| l.name.clone()))?;
                let element = format!(
                    "<BehaviorLayer name=\"{}\"><BehaviorKeyframe name=\"keyframe1\" index=\"1\"><Diagram /></BehaviorKeyframe></BehaviorLayer>",
                    escaped(name)
                );
                let layers: Vec<usize> = self.spans.children_named(node, "BehaviorLayer").collect();
                Ok(vec![
                    match (layers.last(), self.spans.child(node, "ActuatorList")) {
                        (Some(&last), _) => self.insert_after(last, &element),
                        (None, Some(list)) => self.insert_before(list, &element),
                        (None, None) => self.insert_last(node, &element),
                    },
                ])
            }
            TimelineEdit::RenameLayer { layer, name } => {
                let others = t.layers.iter().enumerate().filter(|(i, _)| i != layer);
                check_name("layer", name, others.map(|(_, l)| l.name.clone()))?;
                Ok(self.set_attribute(self.layer_node(node, *layer)?, "name", name))
            }
            TimelineEdit::DeleteLayer { layer } => {
                Ok(vec![self.remove_element(self.layer_node(node, *layer)?)])
            }
            TimelineEdit::AddKeyframe { layer, name, index } => {
                self.add_keyframe(t, node, *layer, name, *index)
            }
            TimelineEdit::SetKeyframe {
                layer,
                keyframe,
                name,
                index,
            } => self.set_keyframe(t, node, *layer, *keyframe, name.as_deref(), *index),
            TimelineEdit::DeleteKeyframe { layer, keyframe } => {
                let layer = self.layer_node(node, *layer)?;
                Ok(vec![
                    self.remove_element(self.keyframe_node(layer, *keyframe)?),
                ])
            }
            TimelineEdit::SetKeys { frame, keys, robot } => {
                self.set_keys(t, node, *frame, keys, *robot)
            }
            TimelineEdit::MoveKey {
                actuator,
                frame,
                to,
                value,
                robot,
            } => self.move_key(t, node, actuator, *frame, *to, *value, *robot),
            TimelineEdit::DeleteKeys { frame, actuators } => {
                let mut out = Vec::new();
                for a in actuators {
                    out.push(self.remove_element(self.key_node(node, a, *frame)?));
                }
                Ok(out)
            }
            TimelineEdit::SetInterpolation {
                actuator,
                frame,
                side,
                how,
            } => self.set_interpolation(node, actuator, *frame, *side, *how),
        }
    }

    fn frames(
        &self,
        t: &Timeline,
        node: usize,
        fps: Option<i32>,
        start: Option<i32>,
        end: Option<i32>,
    ) -> Result<Vec<Splice>, EditError> {
        if fps.is_some_and(|f| f < 1) {
            return Err(refused("the frame rate is 1 frame a second or more"));
        }
        let first = start.or(t.start_frame).unwrap_or(0);
        if first < 0 {
            return Err(refused("the start frame is 0 or more"));
        }
        let last = end.or(t.end_frame).unwrap_or(-1);
        if last != -1 && last < first {
            return Err(refused(format!(
                "the end frame ({last}) is before the start frame ({first}); -1 ends at the last motion key"
            )));
        }
        let mut out = Vec::new();
        for (name, v) in [("fps", fps), ("start_frame", start), ("end_frame", end)] {
            if let Some(v) = v {
                out.extend(self.set_attribute(node, name, &v.to_string()));
            }
        }
        Ok(out)
    }

    fn layer_node(&self, timeline: usize, layer: usize) -> Result<usize, EditError> {
        self.spans
            .children_named(timeline, "BehaviorLayer")
            .nth(layer)
            .ok_or_else(|| EditError::NotFound(format!("the timeline has no layer {layer}")))
    }

    fn keyframe_node(&self, layer: usize, keyframe: usize) -> Result<usize, EditError> {
        self.spans
            .children_named(layer, "BehaviorKeyframe")
            .nth(keyframe)
            .ok_or_else(|| EditError::NotFound(format!("the layer has no keyframe {keyframe}")))
    }

    fn add_keyframe(
        &self,
        t: &Timeline,
        timeline: usize,
        layer: usize,
        name: &str,
        index: i32,
    ) -> Result<Vec<Splice>, EditError> {
        let l = t
            .layers
            .get(layer)
            .ok_or_else(|| EditError::NotFound(format!("the timeline has no layer {layer}")))?;
        check_name("keyframe", name, l.keyframes.iter().map(|k| k.name.clone()))?;
        let indices: Vec<i32> = l.keyframes.iter().map(|k| k.index).collect();
        check_index(index, &indices)?;
        let element = format!(
            "<BehaviorKeyframe name=\"{}\" index=\"{index}\"><Diagram /></BehaviorKeyframe>",
            escaped(name)
        );
        let node = self.layer_node(timeline, layer)?;
        Ok(vec![self.insert_in_order(
            node,
            "BehaviorKeyframe",
            &indices,
            index,
            &element,
        )])
    }

    fn set_keyframe(
        &self,
        t: &Timeline,
        timeline: usize,
        layer: usize,
        keyframe: usize,
        name: Option<&str>,
        index: Option<i32>,
    ) -> Result<Vec<Splice>, EditError> {
        let l = t
            .layers
            .get(layer)
            .ok_or_else(|| EditError::NotFound(format!("the timeline has no layer {layer}")))?;
        let k = l
            .keyframes
            .get(keyframe)
            .ok_or_else(|| EditError::NotFound(format!("the layer has no keyframe {keyframe}")))?;
        let others = || {
            l.keyframes
                .iter()
                .enumerate()
                .filter(move |(i, _)| *i != keyframe)
                .map(|(_, k)| k)
        };
        if let Some(name) = name {
            check_name("keyframe", name, others().map(|k| k.name.clone()))?;
        }
        let layer_node = self.layer_node(timeline, layer)?;
        let node = self.keyframe_node(layer_node, keyframe)?;
        let mut out = Vec::new();
        if let Some(name) = name {
            out.extend(self.set_attribute(node, "name", name));
        }
        let Some(index) = index.filter(|&i| i != k.index) else {
            return Ok(out);
        };
        let indices: Vec<i32> = others().map(|k| k.index).collect();
        check_index(index, &indices)?;
        out.extend(self.set_attribute(node, "index", &index.to_string()));
        // Still in index order where it is: the attribute is enough. Else the element moves.
        let before = indices.iter().filter(|&&i| i < index).count();
        if before == keyframe {
            return Ok(out);
        }
        let moved = Document::with_splices(
            &self.text[self.spans.nodes[node].span()],
            &out,
            self.spans.nodes[node].open.start,
        );
        let rest: Vec<usize> = self
            .spans
            .children_named(layer_node, "BehaviorKeyframe")
            .filter(|&n| n != node)
            .collect();
        let place = match rest.get(before) {
            Some(&next) => self.insert_before(next, &moved),
            None => self.insert_after(rest[rest.len() - 1], &moved),
        };
        Ok(vec![self.remove_element(node), place])
    }

    /// Inserts `element` among the children of `parent` named `name`, whose order values are
    /// `order` (as the file has them): before the first with a larger one.
    fn insert_in_order(
        &self,
        parent: usize,
        name: &str,
        order: &[i32],
        value: i32,
        element: &str,
    ) -> Splice {
        let nodes: Vec<usize> = self.spans.children_named(parent, name).collect();
        match order
            .iter()
            .position(|&o| o > value)
            .and_then(|i| nodes.get(i))
        {
            Some(&next) => self.insert_before(next, element),
            None => match nodes.last() {
                Some(&last) => self.insert_after(last, element),
                None => self.insert_last(parent, element),
            },
        }
    }

    /// The text of `span_text` (the element starting at `start` in the file) with the
    /// splices of `splices` that fall inside it applied.
    fn with_splices(span_text: &str, splices: &[Splice], start: usize) -> String {
        let mut text = span_text.to_string();
        let mut sorted: Vec<&Splice> = splices
            .iter()
            .filter(|s| s.at >= start && s.at <= start + span_text.len())
            .collect();
        sorted.sort_by_key(|s| std::cmp::Reverse(s.at));
        for s in sorted {
            let at = s.at - start;
            text.replace_range(at..at + s.removed.len(), &s.inserted);
        }
        text
    }

    fn curve_node(&self, timeline: usize, actuator: &str) -> Option<usize> {
        let list = self.spans.child(timeline, "ActuatorList")?;
        self.spans
            .children_named(list, "ActuatorCurve")
            .find(|&c| self.attribute(c, "actuator") == Some(actuator))
    }

    fn key_node(&self, timeline: usize, actuator: &str, frame: i32) -> Result<usize, EditError> {
        let curve = self.curve_node(timeline, actuator).ok_or_else(|| {
            EditError::NotFound(format!("the timeline has no curve of {actuator}"))
        })?;
        self.spans
            .children_named(curve, "Key")
            .find(|&k| {
                self.attribute(k, "frame")
                    .and_then(|f| f.trim().parse::<i32>().ok())
                    == Some(frame)
            })
            .ok_or_else(|| EditError::NotFound(format!("{actuator} has no key at frame {frame}")))
    }

    fn set_keys(
        &self,
        t: &Timeline,
        timeline: usize,
        frame: i32,
        keys: &[(String, f64)],
        robot: Model,
    ) -> Result<Vec<Splice>, EditError> {
        if frame < 1 {
            return Err(refused("a motion key is at frame 1 or more"));
        }
        if keys.is_empty() {
            return Err(refused("no joint to store"));
        }
        for (i, (joint, value)) in keys.iter().enumerate() {
            if keys[..i].iter().any(|(j, _)| j == joint) {
                return Err(refused(format!("{joint} is given twice")));
            }
            check_range(t, robot, joint, *value, keys)?;
        }
        let mut out = Vec::new();
        let mut new_curves = Vec::new();
        for (joint, value) in keys {
            let key = format!("<Key frame=\"{frame}\" value=\"{}\" />", number(*value));
            let Some(curve) = self.curve_node(timeline, joint) else {
                let unit = i32::from(choreo_robot::is_hand(joint));
                new_curves.push(format!(
                    "<ActuatorCurve name=\"value\" actuator=\"{}\" mute=\"0\" unit=\"{unit}\">{key}</ActuatorCurve>",
                    escaped(joint)
                ));
                continue;
            };
            match self.key_node(timeline, joint, frame) {
                Ok(existing) => out.extend(self.set_attribute(existing, "value", &number(*value))),
                Err(_) => {
                    let frames = self.key_frames(curve);
                    out.push(self.insert_in_order(curve, "Key", &frames, frame, &key));
                }
            }
        }
        if !new_curves.is_empty() {
            out.push(match self.spans.child(timeline, "ActuatorList") {
                Some(list) => self.insert_last(list, &new_curves.join("")),
                None => {
                    let model = match robot {
                        Model::Nao => "nao",
                        Model::Pepper => "juliette",
                    };
                    let list = format!(
                        "<ActuatorList model=\"{model}\">{}</ActuatorList>",
                        new_curves.join("")
                    );
                    self.insert_last(timeline, &list)
                }
            });
        }
        Ok(out)
    }

    fn key_frames(&self, curve: usize) -> Vec<i32> {
        self.spans
            .children_named(curve, "Key")
            .map(|k| {
                self.attribute(k, "frame")
                    .and_then(|f| f.trim().parse().ok())
                    .unwrap_or(i32::MAX)
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn move_key(
        &self,
        t: &Timeline,
        timeline: usize,
        actuator: &str,
        frame: i32,
        to: i32,
        value: Option<f64>,
        robot: Model,
    ) -> Result<Vec<Splice>, EditError> {
        if to < 1 {
            return Err(refused("a motion key is at frame 1 or more"));
        }
        let node = self.key_node(timeline, actuator, frame)?;
        if to != frame && self.key_node(timeline, actuator, to).is_ok() {
            return Err(refused(format!(
                "{actuator} already has a key at frame {to}"
            )));
        }
        if let Some(v) = value {
            check_range(t, robot, actuator, v, &[])?;
        }
        let mut out = self.set_attribute(node, "frame", &to.to_string());
        if let Some(v) = value {
            out.extend(self.set_attribute(node, "value", &number(v)));
        }
        let curve = self
            .curve_node(timeline, actuator)
            .ok_or_else(|| EditError::NotFound(actuator.to_string()))?;
        let others: Vec<(usize, i32)> = self
            .spans
            .children_named(curve, "Key")
            .zip(self.key_frames(curve))
            .filter(|&(n, _)| n != node)
            .collect();
        let before = others.iter().filter(|(_, f)| *f < to).count();
        let now = self
            .spans
            .children_named(curve, "Key")
            .position(|n| n == node)
            .unwrap_or(0);
        if before == now {
            return Ok(out);
        }
        let moved = Document::with_splices(
            &self.text[self.spans.nodes[node].span()],
            &out,
            self.spans.nodes[node].open.start,
        );
        let place = match others.get(before) {
            Some(&(next, _)) => self.insert_before(next, &moved),
            None => self.insert_after(others[others.len() - 1].0, &moved),
        };
        Ok(vec![self.remove_element(node), place])
    }

    fn set_interpolation(
        &self,
        timeline: usize,
        actuator: &str,
        frame: i32,
        side: TangentSide,
        how: Interpolation,
    ) -> Result<Vec<Splice>, EditError> {
        let key = self.key_node(timeline, actuator, frame)?;
        let existing = self
            .spans
            .children_named(key, "Tangent")
            .find(|&n| self.attribute(n, "side") == Some(side.as_str()));
        let (interp, abscissa, ordinate) = match how {
            Interpolation::Auto => {
                return Ok(existing
                    .map(|n| vec![self.remove_element(n)])
                    .unwrap_or_default());
            }
            Interpolation::Constant => ("constant", 0.0, 0.0),
            Interpolation::Linear => ("linear", 0.0, 0.0),
            Interpolation::Bezier { abscissa, ordinate } => {
                let toward = match side {
                    TangentSide::Left => abscissa <= 0.0,
                    TangentSide::Right => abscissa >= 0.0,
                };
                if !abscissa.is_finite() || !ordinate.is_finite() || !toward {
                    return Err(refused(format!(
                        "a {} handle points towards the {} key (abscissa {} 0)",
                        side.as_str(),
                        if side == TangentSide::Left {
                            "previous"
                        } else {
                            "next"
                        },
                        if side == TangentSide::Left {
                            "≤"
                        } else {
                            "≥"
                        }
                    )));
                }
                ("bezier", abscissa, ordinate)
            }
        };
        let element = format!(
            "<Tangent side=\"{}\" interpType=\"{interp}\" abscissaParam=\"{}\" ordinateParam=\"{}\" />",
            side.as_str(),
            number(abscissa),
            number(ordinate)
        );
        Ok(vec![match existing {
            Some(n) => {
                let span = self.spans.nodes[n].span();
                Splice {
                    at: span.start,
                    removed: self.text[span].to_string(),
                    inserted: element,
                }
            }
            None => self.insert_last(key, &element),
        }])
    }
}

/// A keyframe's start frame: 1 or more, and none of the layer's others there.
fn check_index(index: i32, others: &[i32]) -> Result<(), EditError> {
    if index < 1 {
        return Err(refused("a behavior keyframe starts at frame 1 or more"));
    }
    if others.contains(&index) {
        return Err(refused(format!(
            "the layer already has a keyframe at frame {index}: its keyframes run one after the other"
        )));
    }
    Ok(())
}

/// `value` (in the unit of `joint`'s curve in `t`) is within the joint's range on `robot`;
/// a coupled joint's range is that its partner's value in `with` gives (else its value at 0).
fn check_range(
    t: &Timeline,
    robot: Model,
    joint: &str,
    value: f64,
    with: &[(String, f64)],
) -> Result<(), EditError> {
    let i = robot
        .joint_index(joint)
        .ok_or_else(|| refused(format!("{} has no joint {joint:?}", robot.name())))?;
    let degrees = |name: &str| {
        let unit = t
            .actuator_list
            .iter()
            .flat_map(|l| l.curves.iter())
            .find(|c| c.actuator == name)
            .and_then(|c| c.unit)
            .filter(|&u| u == 0 || u == 1);
        match unit {
            Some(u) => u == 0,
            None => !choreo_robot::is_hand(name),
        }
    };
    let radians = |name: &str, v: f64| if degrees(name) { v.to_radians() } else { v };
    if !value.is_finite() {
        return Err(refused(format!("{joint}: not a number")));
    }
    let by = robot
        .coupled_to(i)
        .and_then(|p| robot.joints().get(p))
        .and_then(|p| {
            with.iter()
                .find(|(n, _)| n == p.name)
                .map(|(n, v)| radians(n, *v))
        })
        .unwrap_or(0.0);
    let (lo, hi) = robot.limits(i, by);
    let v = radians(joint, value);
    // Within a thousandth of a degree: the file's six decimals round the range's ends.
    let slack = 1e-5;
    if v < lo - slack || v > hi + slack {
        let shown = |r: f64| {
            if degrees(joint) {
                format!("{:.2}°", r.to_degrees())
            } else {
                format!("{r:.2}")
            }
        };
        return Err(refused(format!(
            "{joint} {} is outside its range on {}, {} to {}",
            shown(v),
            robot.name(),
            shown(lo),
            shown(hi)
        )));
    }
    Ok(())
}
