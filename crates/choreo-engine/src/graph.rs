//! Instantiation: a behavior's model becomes a flat graph of box instances with every port,
//! parameter and link resolved to indices once, so running it needs no string look-ups.
//!
//! Boxes are [`BoxId`]s, diagrams [`DiagramId`]s and a link's end a [`Target`]; each
//! timeline's keyframes are sorted and its end frame resolved here.

use std::collections::HashMap;
use std::sync::Arc;

use choreo_xar::model::{
    ActuatorList, BoxDef, ContentType, Diagram, InputNature, OutputNature, PortRef,
    ResourcesAcquisition, Timeline, XarFile,
};

use crate::resource::ResourceNode;
use choreo_base::Value;
use smallvec::SmallVec;

/// A box instance, as an index into [`Graph::boxes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoxId(pub u32);

/// A diagram instance, as an index into [`Graph::diagrams`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DiagramId(pub u32);

/// Where a link delivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Input `1` (index into [`BoxNode::inputs`]) of a box of the diagram.
    Input(BoxId, u16),
    /// Parameter `1` (index into [`BoxNode::parameters`]) of a box of the diagram.
    Parameter(BoxId, u16),
    /// Output `1` of the box that owns the diagram (a child's result leaving the diagram).
    OwnerOutput(BoxId, u16),
}

/// An input of a box instance.
#[derive(Debug, Clone)]
pub struct InputNode {
    /// Its name (`onStart`); the hook is `onInput_<name>`.
    pub name: crate::hook::PortName,
    /// What a stimulation does.
    pub nature: InputNature,
    /// ALMemory key of a memory input.
    pub memory_key: Option<String>,
}

/// An output of a box instance, with the links leaving it in the parent diagram.
#[derive(Debug, Clone)]
pub struct OutputNode {
    /// Its name (`onStopped`).
    pub name: crate::hook::PortName,
    /// What firing it does.
    pub nature: OutputNature,
    /// Destinations in the enclosing diagram, in file order. The usual one in place: a
    /// signal hop reads it with the output, not from a list of its own (a cache miss per
    /// hop in a behavior of many boxes).
    pub targets: SmallVec<[Target; 1]>,
}

/// A parameter of a box instance (its initial value; runtime values live in the engine).
#[derive(Debug, Clone)]
pub struct ParameterNode {
    /// Its name.
    pub name: String,
    /// How its text is read.
    pub content_type: ContentType,
    /// Its value as read from the file, typed (S3).
    pub value: Value,
    /// Whether the value comes from the nearest ancestor with a same-named parameter.
    pub inherits: bool,
}

/// A behavior keyframe of a timeline layer.
#[derive(Debug, Clone)]
pub struct KeyframeNode {
    /// Label (a goto target).
    pub name: String,
    /// Frame from which its diagram is active.
    pub index: i64,
    /// Its diagram.
    pub diagram: DiagramId,
}

/// A behavior layer of a timeline.
#[derive(Debug, Clone)]
pub struct LayerNode {
    /// Layer name.
    pub name: String,
    /// Keyframes sorted by index.
    pub keyframes: Vec<KeyframeNode>,
}

/// What a box contains.
#[derive(Debug, Clone)]
pub enum Content {
    /// Nothing: a script box.
    None,
    /// A flow-diagram holder (`Timeline enable="0"`): its diagrams load with the box (T7).
    Holder(Vec<DiagramId>),
    /// A timeline that plays.
    Timeline(TimelineNode),
}

/// A playing timeline's fixed data.
#[derive(Debug, Clone)]
pub struct TimelineNode {
    /// Frames per second; 0 means it cannot play (no frame ever comes; no division by 0).
    pub fps: u32,
    /// Where the cursor starts.
    pub start_frame: i64,
    /// The frame after which it ends, if it ends by itself (T6).
    pub end_frame: Option<i64>,
    /// Unmuted behavior layers.
    pub layers: Vec<LayerNode>,
    /// Its motion curves, if it has any (played by `choreo-motion`'s orders).
    pub actuators: Option<Arc<ActuatorList>>,
    /// How its motion takes the joints (docs/motion.md, "Resources").
    pub acquisition: ResourcesAcquisition,
    /// The `end_frame` attribute as written (−1: the last key), for the motion's cut.
    pub end_request: i32,
}

/// A box instance's fixed data.
///
/// What a signal hop reads of a box (its inputs, its outputs, its parent) comes first, in
/// one line of memory (the struct starts on one: `align(64)`); laid out by the compiler,
/// those were four lines apart, a cache miss each per hop in a behavior of many boxes.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct BoxNode {
    /// Inputs, in file order.
    pub inputs: Vec<InputNode>,
    /// Outputs, in file order.
    pub outputs: Vec<OutputNode>,
    /// The box enclosing this one and the diagram holding it; `None` for the root.
    pub parent: Option<(BoxId, DiagramId)>,
    /// `root/Dance/Say`: names from the root, for traces and messages. Unique in the
    /// behavior: the second box of a name under the same parent (two keyframes of a timeline
    /// each holding a `gotoEnd`, two `Comment` boxes of a diagram) is `gotoEnd[2]`, the
    /// third `gotoEnd[3]`, in file order, so a trace says which box did what.
    pub path: String,
    /// Display name.
    pub name: String,
    /// Where the editor drew it in its diagram (`x`, `y`), if the file says: the engine
    /// does not use it; the monitor draws diagrams from it.
    pub position: Option<(i32, i32)>,
    /// Parameters, in file order.
    pub parameters: Vec<ParameterNode>,
    /// Resources it takes when started (§6).
    pub resources: Vec<ResourceNode>,
    /// Diagram or timeline.
    pub content: Content,
    /// The script's code (for script hosts).
    pub code: String,
    /// The frame rate `getFPS` reports at first: the timeline's fps; for a holder its fps
    /// attribute, or 25 when absent (T7); 0 for a box without a timeline.
    pub fps: u32,
    /// The box's id in its diagram, as the file and its links name it (the editor names a
    /// box by these ids and its diagrams' places: `choreo_xar::edit::BoxRef`).
    pub xar_id: i32,
    /// The editor's icon for it (`media/images/box/interaction/say.png`): the engine does not
    /// use it; the monitor draws a glyph of its kind.
    pub bitmap: Option<String>,
}

/// A diagram instance.
#[derive(Debug, Clone)]
pub struct DiagramNode {
    /// The box that owns it.
    pub owner: BoxId,
    /// Its boxes, in file order.
    pub boxes: Vec<BoxId>,
    /// For each input of the owner (same index): where a stimulation of it is forwarded
    /// inside this diagram.
    pub from_owner: Vec<Vec<Target>>,
    /// Where the file has it in its owner's timeline: (layer, keyframe), counted in the
    /// file's order, muted layers included.
    pub place: (usize, usize),
}

/// The code of a box whose script is made when the behavior runs, if it is one of those.
pub type GeneratedCode<'a> = dyn Fn(&BoxDef) -> Option<String> + 'a;

/// What building a graph keeps besides the graph: the code of generated boxes, and for
/// each box path taken more than once, the last number given to it.
struct Build<'a> {
    generated: &'a GeneratedCode<'a>,
    suffixes: HashMap<String, u32>,
    /// Port names, one shared name per text: a box's `onStart` is every box's (85 bytes
    /// less per box of the engine bench's behavior), and so is its `onStopped`.
    port_names: HashMap<String, crate::hook::PortName>,
}

impl Build<'_> {
    /// The shared name of text `name`.
    fn port_name(&mut self, name: &str) -> crate::hook::PortName {
        if let Some(shared) = self.port_names.get(name) {
            return shared.clone();
        }
        let shared = crate::hook::PortName::from(name);
        self.port_names.insert(name.to_string(), shared.clone());
        shared
    }
}

/// A whole behavior, instantiated.
#[derive(Debug, Clone)]
pub struct Graph {
    /// Every box, the root first, parents before children.
    pub boxes: Vec<BoxNode>,
    /// Every diagram.
    pub diagrams: Vec<DiagramNode>,
    /// Each box's path to its id.
    by_path: HashMap<String, BoxId>,
}

impl Graph {
    /// The root box.
    pub const ROOT: BoxId = BoxId(0);

    /// Instantiates a behavior (the reader has already checked its links and ids).
    pub fn new(x: &XarFile) -> Graph {
        Graph::with_generated_code(x, &|_| None)
    }

    /// Like [`Graph::new`], with `generated` giving the code of the boxes whose script the
    /// editor made when the behavior ran (see [`crate::host::ScriptHost::generated_code`]).
    pub fn with_generated_code(x: &XarFile, generated: &GeneratedCode<'_>) -> Graph {
        let mut g = Graph {
            boxes: Vec::new(),
            diagrams: Vec::new(),
            by_path: HashMap::new(),
        };
        let mut build = Build {
            generated,
            suffixes: HashMap::new(),
            port_names: HashMap::new(),
        };
        g.add_box(&x.root_box, None, String::new(), &mut build);
        g
    }

    /// The box at `path` (`root/Dance/Say`), if there is one.
    pub fn find(&self, path: &str) -> Option<BoxId> {
        self.by_path.get(path).copied()
    }

    /// The box with id `id`.
    pub fn node(&self, id: BoxId) -> &BoxNode {
        &self.boxes[id.0 as usize]
    }

    /// The diagram with id `id`.
    pub fn diagram(&self, id: DiagramId) -> &DiagramNode {
        &self.diagrams[id.0 as usize]
    }

    /// The input named `name` of box `b`.
    pub fn input_index(&self, b: BoxId, name: &str) -> Option<u16> {
        let i = self.node(b).inputs.iter().position(|p| p.name == name)?;
        u16::try_from(i).ok()
    }

    /// The output named `name` of box `b`.
    pub fn output_index(&self, b: BoxId, name: &str) -> Option<u16> {
        let i = self.node(b).outputs.iter().position(|p| p.name == name)?;
        u16::try_from(i).ok()
    }

    fn add_box(
        &mut self,
        def: &BoxDef,
        parent: Option<(BoxId, DiagramId)>,
        prefix: String,
        build: &mut Build<'_>,
    ) -> BoxId {
        let id = BoxId(self.boxes.len() as u32);
        let named = if prefix.is_empty() {
            def.name.clone()
        } else {
            format!("{prefix}/{}", def.name)
        };
        let mut path = named.clone();
        if self.by_path.contains_key(&path) {
            // Counted per name, so many boxes of one name are numbered in linear time.
            let n = build.suffixes.entry(named.clone()).or_insert(1);
            loop {
                *n += 1;
                path = format!("{named}[{n}]");
                if !self.by_path.contains_key(&path) {
                    break;
                }
            }
        }
        self.by_path.insert(path.clone(), id);
        self.boxes.push(BoxNode {
            path: path.clone(),
            name: def.name.clone(),
            position: def.x.zip(def.y),
            parent,
            inputs: def
                .inputs
                .iter()
                .map(|p| InputNode {
                    name: build.port_name(&p.name),
                    nature: p.nature,
                    memory_key: p.stm_value_name.clone(),
                })
                .collect(),
            outputs: def
                .outputs
                .iter()
                .map(|p| OutputNode {
                    name: build.port_name(&p.name),
                    nature: p.nature,
                    targets: SmallVec::new(),
                })
                .collect(),
            parameters: def
                .parameters
                .iter()
                .map(|p| ParameterNode {
                    name: p.name.clone(),
                    content_type: p.content_type,
                    value: typed_value(
                        p.content_type,
                        p.value
                            .as_deref()
                            .or(p.default_value.as_deref())
                            .unwrap_or(""),
                    ),
                    inherits: p.inherits(),
                })
                .collect(),
            resources: def.resources.iter().map(ResourceNode::from_model).collect(),
            content: Content::None,
            code: (build.generated)(def).unwrap_or_else(|| def.code().to_string()),
            fps: match &def.timeline {
                None => 0,
                Some(t) if !t.is_enabled() => t.fps.map_or(25, |f| u32::try_from(f).unwrap_or(0)),
                Some(t) => u32::try_from(t.fps()).unwrap_or(0),
            },
            xar_id: def.id,
            bitmap: def.bitmaps.first().cloned(),
        });
        let content = match &def.timeline {
            None => Content::None,
            Some(t) if !t.is_enabled() => {
                let diagrams = first_keyframes(t)
                    .map(|d| self.add_diagram(def, id, d, &path, build))
                    .collect();
                Content::Holder(diagrams)
            }
            Some(t) => Content::Timeline(self.add_timeline(def, id, t, &path, build)),
        };
        self.boxes[id.0 as usize].content = content;
        id
    }

    fn add_timeline(
        &mut self,
        def: &BoxDef,
        id: BoxId,
        t: &Timeline,
        path: &str,
        build: &mut Build<'_>,
    ) -> TimelineNode {
        let mut layers = Vec::new();
        for l in t.layers.iter().filter(|l| !l.mute.unwrap_or(false)) {
            let mut keyframes: Vec<KeyframeNode> = l
                .keyframes
                .iter()
                .filter_map(|k| {
                    let d = k.diagram.as_ref()?;
                    Some(KeyframeNode {
                        name: k.name.clone(),
                        index: i64::from(k.index),
                        diagram: self.add_diagram(def, id, d, path, build),
                    })
                })
                .collect();
            keyframes.sort_by_key(|k| k.index);
            layers.push(LayerNode {
                name: l.name.clone(),
                keyframes,
            });
        }
        let last_key = t
            .actuator_list
            .iter()
            .flat_map(|l| l.curves.iter())
            .filter(|c| !c.mute.unwrap_or(false))
            .flat_map(|c| c.keys.iter())
            .map(|k| i64::from(k.frame))
            .max();
        let end_frame = if t.end_frame() >= 1 {
            Some(i64::from(t.end_frame()))
        } else {
            last_key
        };
        TimelineNode {
            fps: u32::try_from(t.fps()).unwrap_or(0),
            start_frame: i64::from(t.start_frame()),
            end_frame,
            layers,
            actuators: t
                .actuator_list
                .as_ref()
                .filter(|l| !l.curves.is_empty())
                .map(|l| Arc::new(l.clone())),
            acquisition: t.resources_acquisition(),
            end_request: t.end_frame(),
        }
    }

    /// Adds the diagram `d` owned by box `owner` (whose model is `def`) and its boxes.
    fn add_diagram(
        &mut self,
        def: &BoxDef,
        owner: BoxId,
        d: &Diagram,
        path: &str,
        build: &mut Build<'_>,
    ) -> DiagramId {
        let did = DiagramId(self.diagrams.len() as u32);
        self.diagrams.push(DiagramNode {
            owner,
            boxes: Vec::new(),
            from_owner: vec![Vec::new(); def.inputs.len()],
            place: place_of(def, d),
        });
        let children: Vec<(i32, BoxId)> = d
            .boxes
            .iter()
            .map(|b| {
                let id = self.add_box(b, Some((owner, did)), path.to_string(), build);
                (b.id, id)
            })
            .collect();
        self.diagrams[did.0 as usize].boxes = children.iter().map(|(_, b)| *b).collect();
        // By XAR id: a map, so a diagram of thousands of boxes loads in linear time.
        let by_id: HashMap<i32, (BoxId, &BoxDef)> = children
            .iter()
            .zip(&d.boxes)
            .map(|((i, b), def)| (*i, (*b, def)))
            .collect();
        let child = |xml_id: i32| by_id.get(&xml_id).map(|(b, _)| *b);
        let child_def = |xml_id: i32| by_id.get(&xml_id).map(|(_, def)| *def);
        for link in &d.links {
            // The reader checked owners, ports and directions; anything else is skipped.
            let (target_box, target_def) = if link.input_owner == 0 {
                (owner, def)
            } else {
                let Some(b) = child(link.input_owner) else {
                    continue;
                };
                let Some(bd) = child_def(link.input_owner) else {
                    continue;
                };
                (b, bd)
            };
            let target = match target_def.port(link.index_of_input) {
                Some(PortRef::Input(p)) if link.input_owner != 0 => {
                    index_of(&target_def.inputs, p).map(|i| Target::Input(target_box, i))
                }
                Some(PortRef::Parameter(p)) if link.input_owner != 0 => {
                    index_of(&target_def.parameters, p).map(|i| Target::Parameter(target_box, i))
                }
                Some(PortRef::Output(p)) if link.input_owner == 0 => {
                    index_of(&target_def.outputs, p).map(|i| Target::OwnerOutput(owner, i))
                }
                _ => None,
            };
            let Some(target) = target else { continue };
            if link.output_owner == 0 {
                if let Some(PortRef::Input(p)) = def.port(link.index_of_output)
                    && let Some(i) = index_of(&def.inputs, p)
                {
                    self.diagrams[did.0 as usize].from_owner[usize::from(i)].push(target);
                }
            } else if let (Some(src), Some(sd)) =
                (child(link.output_owner), child_def(link.output_owner))
                && let Some(PortRef::Output(p)) = sd.port(link.index_of_output)
                && let Some(i) = index_of(&sd.outputs, p)
            {
                self.boxes[src.0 as usize].outputs[usize::from(i)]
                    .targets
                    .push(target);
            }
        }
        did
    }
}

/// The diagrams a disabled timeline holds: the first keyframe of each unmuted layer.
/// Where diagram `d` of box `def` is in its timeline: (layer, keyframe), in file order.
fn place_of(def: &BoxDef, d: &Diagram) -> (usize, usize) {
    def.timeline
        .iter()
        .flat_map(|t| t.layers.iter().enumerate())
        .find_map(|(l, layer)| {
            let k = layer
                .keyframes
                .iter()
                .position(|k| k.diagram.as_ref().is_some_and(|x| std::ptr::eq(x, d)))?;
            Some((l, k))
        })
        .unwrap_or((0, 0))
}

fn first_keyframes(t: &Timeline) -> impl Iterator<Item = &Diagram> {
    t.layers
        .iter()
        .filter(|l| !l.mute.unwrap_or(false))
        .filter_map(|l| l.keyframes.iter().min_by_key(|k| k.index))
        .filter_map(|k| k.diagram.as_ref())
}

/// The position of `item` (by address) in `list`, as a port index.
fn index_of<T>(list: &[T], item: &T) -> Option<u16> {
    let i = list.iter().position(|x| std::ptr::eq(x, item))?;
    u16::try_from(i).ok()
}

/// A parameter's text as a typed value (S3): bool from "0"/"1", int, float, else string.
pub fn typed_value(content_type: ContentType, text: &str) -> Value {
    use choreo_xar::model::{ParameterValue, parse_parameter_value};
    match parse_parameter_value(content_type, text) {
        Some(ParameterValue::Bool(b)) => Value::Bool(b),
        Some(ParameterValue::Int(i)) => Value::Int(i),
        Some(ParameterValue::Double(x)) => Value::Float(x),
        Some(ParameterValue::String(s)) => Value::String(s),
        // A value that does not fit its type (the reader warned) stays text.
        None => Value::String(text.to_string()),
    }
}
