//! ALWorldRepresentation: objects placed in the world, as the stock World Representation
//! boxes keep them. Objects have a parent (the root, "World", or another object), a
//! category (created first: `createObjectCategory`), a position relative to their parent
//! (x, y, z in m, wx, wy, wz in rad: roll, pitch, yaw), and attributes (named records of
//! `[field, value]` pairs, declared by the category with `addAttributeToCategory`). Methods
//! that change something return 0 on success and 1 on failure (an unknown object, parent,
//! category or attribute), as the API's codes do; names are looked up as given. Positions
//! are read back in any object's frame (`getPosition(object, reference)`). Nothing is
//! saved to disk (`save`/`load` succeed and keep what is in memory). `select(criterion,
//! category, attribute, fields)` and `selectWithOrder(criterion, "Field ASC|DESC", ...)`
//! query the attribute records of a category's objects with an SQL WHERE clause
//! (`criterion.rs`): one row per matching record, the fields in the order of the attribute's
//! definition (`"*"`) or as listed (`"Name, Age"`); an unknown category, attribute or field
//! raises, as the real module's SQL does.

use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim, first_served};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service, to_pairs};

/// The root every object descends from.
pub(crate) const ROOT: &str = "World";

/// ALWorldRepresentation as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALWorldRepresentation",
    methods: &[
        ("createObjectCategory", Op::Own),
        ("removeObjectCategory", Op::Own),
        ("objectCategoryExists", Op::Own),
        ("addAttributeToCategory", Op::Own),
        ("getAttributesFromCategory", Op::Own),
        ("storeObject", Op::Own),
        ("storeObjectWithReference", Op::Own),
        ("clearObject", Op::Own),
        ("findObject", Op::Own),
        ("getObjectNames", Op::Own),
        ("getObjectsInCategory", Op::Own),
        ("getObjectCategory", Op::Own),
        ("getObjectParentName", Op::Own),
        ("getChildrenNames", Op::Own),
        ("getRootName", Op::Own),
        ("updatePosition", Op::Own),
        ("updatePositionWithReference", Op::Own),
        ("getPosition", Op::Own),
        ("getPosition6D", Op::Own),
        ("storeObjectAttribute", Op::Own),
        ("updateAttribute", Op::Own),
        ("deleteObjectAttribute", Op::Own),
        ("getObjectAttributes", Op::Own),
        ("getObjectLatestAttributes", Op::Own),
        ("getObjectAttributeValues", Op::Own),
        ("clearOldPositions", Op::Own),
        ("select", Op::Own),
        ("selectWithOrder", Op::Own),
        ("save", Op::Own),
        ("load", Op::Own),
    ],
    own,
    extractor: None,
};

/// A pose: x, y, z, wx, wy, wz.
pub(crate) type Pose = [f64; 6];

/// A rigid transform: rotation rows and translation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Transform {
    /// The rotation's rows.
    pub r: [[f64; 3]; 3],
    /// The translation.
    pub t: [f64; 3],
}

impl Transform {
    /// The transform of a pose: rotation Rz(wz)·Ry(wy)·Rx(wx), then the translation.
    pub fn of(p: Pose) -> Transform {
        let (sx, cx) = p[3].sin_cos();
        let (sy, cy) = p[4].sin_cos();
        let (sz, cz) = p[5].sin_cos();
        Transform {
            r: [
                [cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx],
                [sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx],
                [-sy, cy * sx, cy * cx],
            ],
            t: [p[0], p[1], p[2]],
        }
    }

    /// No move at all.
    pub fn identity() -> Transform {
        Transform::of([0.0; 6])
    }

    /// A pure translation to `p`.
    pub fn at(p: [f64; 3]) -> Transform {
        Transform::of([p[0], p[1], p[2], 0.0, 0.0, 0.0])
    }

    /// Point `p` (in the frame this transform leads to) expressed in its origin's frame.
    pub fn apply(&self, p: [f64; 3]) -> [f64; 3] {
        self.then(&Transform::at(p)).t
    }

    /// `self` then `other` (other expressed in self's frame).
    pub fn then(&self, other: &Transform) -> Transform {
        let r = std::array::from_fn(|i| {
            std::array::from_fn(|j| (0..3).map(|k| self.r[i][k] * other.r[k][j]).sum())
        });
        let t = std::array::from_fn(|i| {
            self.t[i] + (0..3).map(|k| self.r[i][k] * other.t[k]).sum::<f64>()
        });
        Transform { r, t }
    }

    /// The transform back.
    pub fn inverse(&self) -> Transform {
        let r = std::array::from_fn(|i| std::array::from_fn(|j| self.r[j][i]));
        let t = std::array::from_fn(|i| -(0..3).map(|k| self.r[k][i] * self.t[k]).sum::<f64>());
        Transform { r, t }
    }

    fn pose(&self) -> Pose {
        let r = &self.r;
        [
            self.t[0],
            self.t[1],
            self.t[2],
            r[2][1].atan2(r[2][2]),
            (-r[2][0]).clamp(-1.0, 1.0).asin(),
            r[1][0].atan2(r[0][0]),
        ]
    }
}

/// One object.
struct Object {
    parent: String,
    category: String,
    pose: Pose,
    attributes: BTreeMap<String, BTreeMap<String, Value>>,
}

/// The world.
#[derive(Default)]
struct World {
    /// Categories and their attributes' fields.
    categories: BTreeMap<String, BTreeMap<String, Value>>,
    objects: BTreeMap<String, Object>,
}

impl World {
    /// The transform from the root to `name`'s frame.
    fn frame(&self, name: &str) -> Option<Transform> {
        let mut chain = Vec::new();
        let mut at = name;
        while at != ROOT {
            let object = self.objects.get(at)?;
            chain.push(Transform::of(object.pose));
            at = &object.parent;
            if chain.len() > self.objects.len() {
                return None;
            }
        }
        Some(
            chain
                .iter()
                .rev()
                .fold(Transform::identity(), |acc, t| acc.then(t)),
        )
    }

    fn exists(&self, name: &str) -> bool {
        name == ROOT || self.objects.contains_key(name)
    }

    fn store(
        &mut self,
        name: &str,
        parent: &str,
        pose: Pose,
        category: &str,
        attributes: &[Value],
    ) -> i64 {
        if name == ROOT
            || !self.exists(parent)
            || !self.categories.contains_key(category)
            || self.descends(parent, name)
        {
            return 1;
        }
        let mut object = Object {
            parent: parent.to_string(),
            category: category.to_string(),
            pose,
            attributes: BTreeMap::new(),
        };
        for item in attributes {
            if let Value::List(kv) | Value::Tuple(kv) = item
                && let [Value::String(attr), Value::List(values)] = &kv[..]
            {
                object.attributes.insert(attr.clone(), record(values));
            }
        }
        self.objects.insert(name.to_string(), object);
        0
    }

    /// Whether `name` is `ancestor` or one of its descendants.
    fn descends(&self, name: &str, ancestor: &str) -> bool {
        let mut at = name;
        for _ in 0..=self.objects.len() {
            if at == ancestor {
                return true;
            }
            match self.objects.get(at) {
                Some(o) => at = &o.parent,
                None => return false,
            }
        }
        false
    }

    fn clear(&mut self, name: &str) -> i64 {
        if !self.objects.contains_key(name) {
            return 1;
        }
        let doomed: Vec<String> = self
            .objects
            .keys()
            .filter(|n| self.descends(n, name))
            .cloned()
            .collect();
        for n in doomed {
            self.objects.remove(&n);
        }
        0
    }
}

/// `[[field, value], ...]` as a record (other items are skipped).
fn record(values: &[Value]) -> BTreeMap<String, Value> {
    values
        .iter()
        .filter_map(|v| match v {
            Value::List(kv) | Value::Tuple(kv) => match &kv[..] {
                [Value::String(f), value] => Some((f.clone(), value.clone())),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn pose_arg(a: &Args<'_>, i: usize) -> Result<Pose, CallError> {
    let xs = a.floats(i)?;
    let mut pose = [0.0; 6];
    match xs.len() {
        3 | 6 => pose[..xs.len()].copy_from_slice(&xs),
        _ => return Err(a.bad(i, "a position [x, y, z] or [x, y, z, wx, wy, wz]")),
    }
    Ok(pose)
}

fn floats(p: Pose) -> Value {
    Value::List(p.iter().map(|x| Value::Float(*x)).collect())
}

fn names<'a>(items: impl Iterator<Item = &'a String>) -> Value {
    Value::List(items.map(|s| Value::from(s.as_str())).collect())
}

fn code(ok: bool) -> Value {
    Value::Int(if ok { 0 } else { 1 })
}

fn with<R>(sim: &Sim, f: impl FnOnce(&mut World) -> R) -> R {
    sim.kept("ALWorldRepresentation", f)
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    first_served(
        &[own_categories, own_objects, own_positions, own_attributes],
        sim,
        method,
        a,
    )
}

/// Serves ALWorldRepresentation's object categories; `NotServed` for another method.
fn own_categories(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "createObjectCategory" => {
            let (name, reset) = (a.str(0)?.to_string(), a.bool(1)?);
            with(sim, |w| {
                if reset {
                    let old: Vec<String> = w
                        .objects
                        .iter()
                        .filter(|(_, o)| o.category == name)
                        .map(|(n, _)| n.clone())
                        .collect();
                    for n in old {
                        w.clear(&n);
                    }
                }
                w.categories.entry(name).or_default();
            });
            code(true)
        }
        "removeObjectCategory" => {
            let name = a.str(0)?;
            code(with(sim, |w| {
                w.objects.retain(|_, o| o.category != name);
                w.categories.remove(name).is_some()
            }))
        }
        "objectCategoryExists" => {
            let name = a.str(0)?;
            Value::Bool(with(sim, |w| w.categories.contains_key(name)))
        }
        "addAttributeToCategory" => {
            let (category, attr) = (a.str(0)?, a.str(1)?.to_string());
            let fields = a.value(2);
            code(with(sim, |w| match w.categories.get_mut(category) {
                Some(c) if !c.contains_key(&attr) => {
                    c.insert(attr, fields);
                    true
                }
                _ => false,
            }))
        }
        "getAttributesFromCategory" => {
            let category = a.str(0)?;
            with(sim, |w| w.categories.get(category).map(to_pairs))
                .ok_or_else(|| missing(a, "category", category))?
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// The error of a call naming a `what` the world does not hold.
fn missing(a: &Args<'_>, what: &str, name: &str) -> CallError {
    CallError::Failed(format!("{}: no {what} {name:?}", a.name))
}

/// Serves ALWorldRepresentation's objects; `NotServed` for another method.
fn own_objects(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "storeObject" | "storeObjectWithReference" => {
            let with_ref = method == "storeObjectWithReference";
            let at = usize::from(with_ref);
            let (name, parent) = (a.str(0)?, a.str(1)?);
            let reference = if with_ref { a.str(2)? } else { parent };
            let pose = pose_arg(a, 2 + at)?;
            let category = a.str(3 + at)?;
            let attributes = a.list(4 + at).map(<[Value]>::to_vec).unwrap_or_default();
            let ret = with(sim, |w| {
                let Some(pose) = relative(w, parent, reference, pose) else {
                    return 1;
                };
                w.store(name, parent, pose, category, &attributes)
            });
            if ret == 0 {
                sim.notice(
                    "ALWorldRepresentation",
                    format!("stores {name:?} ({category}) in {parent:?}"),
                );
            }
            Value::Int(ret)
        }
        "clearObject" => {
            let name = a.str(0)?;
            let ret = with(sim, |w| w.clear(name));
            if ret == 0 {
                sim.notice("ALWorldRepresentation", format!("removes {name:?}"));
            }
            Value::Int(ret)
        }
        "findObject" => {
            let name = a.str(0)?;
            Value::Bool(with(sim, |w| w.objects.contains_key(name)))
        }
        "getObjectNames" => with(sim, |w| names(w.objects.keys())),
        "getObjectsInCategory" => {
            let category = a.str(0)?;
            with(sim, |w| {
                names(
                    w.objects
                        .iter()
                        .filter(|(_, o)| o.category == category)
                        .map(|(n, _)| n),
                )
            })
        }
        "getObjectCategory" | "getObjectParentName" => {
            let name = a.str(0)?;
            let parent = method == "getObjectParentName";
            with(sim, |w| {
                w.objects.get(name).map(|o| {
                    Value::from(if parent {
                        o.parent.as_str()
                    } else {
                        o.category.as_str()
                    })
                })
            })
            .ok_or_else(|| missing(a, "object", name))?
        }
        "getChildrenNames" => {
            let name = a.str(0)?;
            with(sim, |w| {
                names(
                    w.objects
                        .iter()
                        .filter(|(_, o)| o.parent == name)
                        .map(|(n, _)| n),
                )
            })
        }
        "getRootName" => Value::from(ROOT),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// Serves ALWorldRepresentation's positions of objects; `NotServed` for another method.
fn own_positions(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "updatePosition" | "updatePositionWithReference" => {
            let with_ref = method == "updatePositionWithReference";
            let name = a.str(0)?;
            let reference = if with_ref { Some(a.str(1)?) } else { None };
            let pose = pose_arg(a, 1 + usize::from(with_ref))?;
            code(with(sim, |w| {
                let Some(parent) = w.objects.get(name).map(|o| o.parent.clone()) else {
                    return false;
                };
                let Some(pose) = relative(w, &parent, reference.unwrap_or(&parent), pose) else {
                    return false;
                };
                w.objects.get_mut(name).map(|o| o.pose = pose).is_some()
            }))
        }
        "getPosition" | "getPosition6D" => {
            let (name, reference) = (a.str(0)?, a.str(1)?);
            let pose = with(sim, |w| {
                let (object, frame) = (w.frame(name)?, w.frame(reference)?);
                Some(frame.inverse().then(&object).pose())
            });
            floats(
                pose.ok_or_else(|| {
                    missing(a, "object or reference", &format!("{name}/{reference}"))
                })?,
            )
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// Serves ALWorldRepresentation's attributes, saving and selecting; `NotServed` for another method.
fn own_attributes(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "storeObjectAttribute" | "updateAttribute" => {
            let (name, attr) = (a.str(0)?, a.str(1)?);
            let values_at = if method == "updateAttribute" { 3 } else { 2 };
            let values = record(a.list(values_at)?);
            let replace = method == "storeObjectAttribute";
            code(with(sim, |w| {
                let declared = w.objects.get(name).is_some_and(|o| {
                    w.categories
                        .get(&o.category)
                        .is_some_and(|c| c.contains_key(attr))
                });
                match w.objects.get_mut(name) {
                    Some(o) if declared => {
                        let rec = o.attributes.entry(attr.to_string()).or_default();
                        if replace {
                            rec.clear();
                        }
                        rec.extend(values);
                        true
                    }
                    _ => false,
                }
            }))
        }
        "deleteObjectAttribute" => {
            let (name, attr) = (a.str(0)?, a.str(1)?);
            a.str(2)?;
            code(with(sim, |w| {
                w.objects
                    .get_mut(name)
                    .is_some_and(|o| o.attributes.remove(attr).is_some())
            }))
        }
        "getObjectAttributes" | "getObjectLatestAttributes" => {
            let name = a.str(0)?;
            with(sim, |w| {
                w.objects.get(name).map(|o| {
                    Value::List(
                        o.attributes
                            .iter()
                            .map(|(attr, rec)| {
                                Value::List(vec![Value::from(attr.as_str()), to_pairs(rec)])
                            })
                            .collect(),
                    )
                })
            })
            .ok_or_else(|| missing(a, "object", name))?
        }
        "getObjectAttributeValues" => {
            let (name, attr) = (a.str(0)?, a.str(1)?);
            with(sim, |w| {
                w.objects.get(name).map(|o| {
                    Value::List(o.attributes.get(attr).map(to_pairs).into_iter().collect())
                })
            })
            .ok_or_else(|| missing(a, "object", name))?
        }
        "clearOldPositions" => {
            a.str(0)?;
            a.int(1)?;
            code(true)
        }
        "save" | "load" => code(true),
        "select" => {
            let (criterion, category, attr, fields) = (a.str(0)?, a.str(1)?, a.str(2)?, a.str(3)?);
            select(sim, a, criterion, None, category, attr, fields)?
        }
        "selectWithOrder" => {
            let (criterion, order) = (a.str(0)?, a.str(1)?);
            let (category, attr, fields) = (a.str(2)?, a.str(3)?, a.str(4)?);
            select(sim, a, criterion, Some(order), category, attr, fields)?
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// The field names of an attribute's definition (`[[name, type], ...]` or `[name, ...]`).
fn definition_fields(definition: &Value) -> Vec<String> {
    let items = match definition {
        Value::List(items) | Value::Tuple(items) => items.as_slice(),
        _ => &[],
    };
    items
        .iter()
        .filter_map(|item| match item {
            Value::String(name) => Some(name.clone()),
            Value::List(kv) | Value::Tuple(kv) => match kv.first() {
                Some(Value::String(name)) => Some(name.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// `select` and `selectWithOrder`: the rows of `fields` of the `attr` records of
/// `category`'s objects matching `criterion`, ordered by `order` (`"Field ASC|DESC"`).
fn select(
    sim: &Sim,
    a: &Args<'_>,
    criterion: &str,
    order: Option<&str>,
    category: &str,
    attr: &str,
    fields: &str,
) -> Result<Value, CallError> {
    let fail = |what: String| CallError::Failed(format!("{}: {what}", a.name));
    let criterion = crate::services::core::criterion::Criterion::parse(criterion)
        .map_err(|e| fail(format!("criterion {criterion:?}: {e}")))?;
    let (defined, records) = with(sim, |w| {
        let definition = w.categories.get(category)?.get(attr)?;
        let records: Vec<BTreeMap<String, Value>> = w
            .objects
            .values()
            .filter(|o| o.category == category)
            .filter_map(|o| o.attributes.get(attr).cloned())
            .collect();
        Some((definition_fields(definition), records))
    })
    .ok_or_else(|| fail(format!("no attribute {attr:?} in category {category:?}")))?;
    let wanted: Vec<String> = if fields.trim() == "*" {
        defined.clone()
    } else {
        fields.split(',').map(|f| f.trim().to_string()).collect()
    };
    if let Some(unknown) = wanted.iter().find(|f| !defined.contains(f)) {
        return Err(fail(format!("no field {unknown:?} in attribute {attr:?}")));
    }
    let mut rows: Vec<&BTreeMap<String, Value>> =
        records.iter().filter(|r| criterion.matches(r)).collect();
    if let Some(order) = order {
        let mut words = order.split_whitespace();
        let field = words.next().unwrap_or("");
        let descending = match words.next().map(str::to_ascii_uppercase).as_deref() {
            None | Some("ASC") => false,
            Some("DESC") => true,
            Some(_) => return Err(a.bad(1, "\"Field ASC\" or \"Field DESC\"")),
        };
        if !defined.iter().any(|f| f == field) {
            return Err(fail(format!("no field {field:?} in attribute {attr:?}")));
        }
        rows.sort_by(|x, y| {
            let ordering = match (x.get(field), y.get(field)) {
                (Some(p), Some(q)) => crate::services::core::criterion::compare(p, q)
                    .unwrap_or(std::cmp::Ordering::Equal),
                (None, Some(_)) => std::cmp::Ordering::Less,
                (Some(_), None) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            };
            if descending {
                ordering.reverse()
            } else {
                ordering
            }
        });
    }
    Ok(Value::List(
        rows.iter()
            .map(|r| {
                Value::List(
                    wanted
                        .iter()
                        .map(|f| r.get(f).cloned().unwrap_or_default())
                        .collect(),
                )
            })
            .collect(),
    ))
}

/// `pose`, given in `reference`'s frame, in `parent`'s frame.
fn relative(w: &World, parent: &str, reference: &str, pose: Pose) -> Option<Pose> {
    if parent == reference {
        return w.exists(parent).then_some(pose);
    }
    let (p, r) = (w.frame(parent)?, w.frame(reference)?);
    Some(p.inverse().then(&r).then(&Transform::of(pose)).pose())
}
