//! The typed model of a XAR file (`behavior.xar`, `box.xar`).
//!
//! Field names follow the XML attribute names (snake_case). An attribute that real files
//! sometimes omit is an `Option`, so that reading and writing again gives back the same
//! attributes; accessor methods apply the documented defaults. Everything the model does not
//! know (unknown attributes, unknown elements, comments, unusual child order, other
//! spellings of names) is kept in each element's [`Extras`], so nothing is lost on write.

/// What the typed fields of an element do not hold; kept so that writing loses nothing.
///
/// Empty for almost every element of a real file, so it costs one pointer until used.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras(Option<std::boxed::Box<ExtraData>>);

/// The content of non-empty [`Extras`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExtraData {
    /// Attributes this library does not know, in document order (name as written, value unescaped).
    pub attributes: Vec<(String, String)>,
    /// Children this library does not model (unknown elements, comments, stray text), as raw XML.
    pub children: Vec<String>,
    /// The order in which children appeared, recorded only when it differs from the order
    /// Choregraphe writes or when unknown children must be put back in their place.
    pub order: Vec<ChildKind>,
    /// The element name as written, when it differs from the canonical spelling (e.g. `Script`).
    pub spelling: Option<String>,
    /// Known attributes written with another spelling, as (canonical, as written).
    pub attribute_spellings: Vec<(String, String)>,
}

impl Extras {
    /// True when nothing beyond the typed fields was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The recorded extras, if any.
    pub fn get(&self) -> Option<&ExtraData> {
        self.0.as_deref()
    }

    /// The extras, created empty on first use.
    pub fn get_mut(&mut self) -> &mut ExtraData {
        self.0.get_or_insert_with(Default::default)
    }

    /// Unknown attributes, in document order.
    pub fn attributes(&self) -> &[(String, String)] {
        self.get().map_or(&[], |d| &d.attributes)
    }

    /// Unknown children, as raw XML.
    pub fn children(&self) -> &[String] {
        self.get().map_or(&[], |d| &d.children)
    }

    /// The recorded child order (empty: canonical order).
    pub fn order(&self) -> &[ChildKind] {
        self.get().map_or(&[], |d| &d.order)
    }

    /// The element name as written, when it is not the canonical spelling.
    pub fn spelling(&self) -> Option<&str> {
        self.get().and_then(|d| d.spelling.as_deref())
    }

    /// How a known attribute was spelled in the source (the canonical name if not recorded).
    pub fn attribute_spelling<'a>(&'a self, canonical: &'a str) -> &'a str {
        self.get()
            .and_then(|d| {
                d.attribute_spellings
                    .iter()
                    .find(|(c, _)| c == canonical)
                    .map(|(_, w)| w.as_str())
            })
            .unwrap_or(canonical)
    }

    /// Drops the record when it holds nothing.
    pub(crate) fn shrink(&mut self) {
        if self
            .0
            .as_deref()
            .is_some_and(|d| *d == ExtraData::default())
        {
            self.0 = None;
        }
    }
}

/// Declares [`ChildKind`] from its variants and their element names.
macro_rules! child_kinds {
    ($($(#[$vm:meta])* $variant:ident = $element:literal),+ $(,)?) => {
        /// The kind of a child element, used to record child order in [`ExtraData::order`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)] // one variant per element name, named after it
        pub enum ChildKind { $($(#[$vm])* $variant),+ }

        impl ChildKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [ChildKind] = &[$(ChildKind::$variant),+];

            /// Every kind with its variant name (`DialogFile`), the name the split format writes.
            pub(crate) const VARIANT_NAMES: &'static [(ChildKind, &'static str)] =
                &[$((ChildKind::$variant, stringify!($variant))),+];

            /// The element name Choregraphe writes (`dialogFile`, `script`, `Input`, ...);
            /// empty for [`ChildKind::Unknown`].
            pub fn element_name(self) -> &'static str {
                match self { $(ChildKind::$variant => $element),+ }
            }
        }
    };
}

child_kinds! {
    DialogFile = "dialogFile",
    Bitmap = "bitmap",
    Script = "script",
    PluginContent = "pluginContent",
    Input = "Input",
    Output = "Output",
    Parameter = "Parameter",
    Timeline = "Timeline",
    Resource = "Resource",
    Content = "content",
    Choice = "Choice",
    Watches = "watches",
    BehaviorLayer = "BehaviorLayer",
    ActuatorList = "ActuatorList",
    BehaviorKeyframe = "BehaviorKeyframe",
    Diagram = "Diagram",
    Box = "Box",
    Link = "Link",
    ActuatorCurve = "ActuatorCurve",
    Key = "Key",
    Tangent = "Tangent",
    /// A child kept as raw XML in [`ExtraData::children`].
    Unknown = "",
}

impl ChildKind {
    /// The known children of this element in the order Choregraphe writes them (the order
    /// that [`ExtraData::order`] need not record); empty for elements without modelled
    /// children. `script`'s `content` is read as text: it has none.
    pub fn canonical_children(self) -> &'static [ChildKind] {
        use ChildKind as K;
        match self {
            K::Box => &[
                K::DialogFile,
                K::Bitmap,
                K::Script,
                K::PluginContent,
                K::Input,
                K::Output,
                K::Parameter,
                K::Timeline,
                K::Resource,
            ],
            K::Script => &[K::Content],
            K::Parameter => &[K::Choice],
            K::Timeline => &[K::Watches, K::BehaviorLayer, K::ActuatorList],
            K::BehaviorLayer => &[K::BehaviorKeyframe],
            K::BehaviorKeyframe => &[K::Diagram],
            K::Diagram => &[K::Box, K::Link],
            K::ActuatorList => &[K::ActuatorCurve],
            K::ActuatorCurve => &[K::Key],
            K::Key => &[K::Tangent],
            K::DialogFile
            | K::Bitmap
            | K::PluginContent
            | K::Input
            | K::Output
            | K::Resource
            | K::Content
            | K::Choice
            | K::Watches
            | K::Link
            | K::Tangent
            | K::Unknown => &[],
        }
    }
}

/// Declares an enum stored in XML as an integer code.
macro_rules! code_enum {
    ($(#[$m:meta])* $name:ident {
        $($(#[$vm:meta])* $variant:ident = $code:literal => $short:literal),+ $(,)?
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $variant),+ }
        impl $name {
            /// Every variant, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every variant with its short name (as the split format and `inspect` write it).
            pub const NAMES: &'static [($name, &'static str)] = &[$(($name::$variant, $short)),+];
            /// The integer written in the file.
            pub fn code(self) -> i32 { match self { $($name::$variant => $code),+ } }
            /// The variant written as `code`, if there is one.
            pub fn from_code(code: i32) -> Option<$name> {
                match code { $($code => Some($name::$variant),)+ _ => None }
            }
            /// The short name (`bang`, `onStart`, `stopping`, ...).
            pub fn name(self) -> &'static str { match self { $($name::$variant => $short),+ } }
        }
    };
}

code_enum!(
    /// `Input@type` / `Output@type`: what a port carries.
    PortType {
        /// Any value (0).
        Dynamic = 0 => "dynamic",
        /// A signal without value (1).
        Bang = 1 => "bang",
        /// A number (2).
        Number = 2 => "number",
        /// A string (3).
        String = 3 => "string",
        /// A bitmap (4, never seen in real files).
        Bitmap = 4 => "bitmap",
        /// A sound (5, never seen in real files).
        Sound = 5 => "sound",
    }
);

code_enum!(
    /// `Input@nature`: what a stimulation of the input does.
    InputNature {
        /// Fired when the enclosing diagram is loaded (inner).
        OnLoad = 0 => "onLoad",
        /// Calls the handler and forwards into the loaded diagram; does not start or stop the box.
        OnEvent = 1 => "onEvent",
        /// Starts the box.
        OnStart = 2 => "onStart",
        /// Stops the box.
        OnStop = 3 => "onStop",
        /// Fired on each update of the ALMemory key `stm_value_name` while loaded (inner).
        Memory = 4 => "memory",
    }
);

code_enum!(
    /// `Output@nature`: what firing the output does.
    OutputNature {
        /// Undefined (never seen).
        Undef = 0 => "undefined",
        /// Stops and unloads the box, then signals the parent (onStopped, success, failure).
        Stopped = 1 => "stopping",
        /// Signals the parent without stopping.
        Punctual = 2 => "punctual",
        /// Recurrent (never seen).
        Recurrent = 3 => "recurrent",
    }
);

code_enum!(
    /// `Parameter@content_type`: how the parameter's text value is read.
    ContentType {
        /// `"0"` / `"1"`.
        Bool = 0 => "bool",
        /// Integer.
        Int = 1 => "int",
        /// Floating point.
        Double = 2 => "double",
        /// Text on one line.
        String = 3 => "string",
        /// A path relative to the behavior folder, starting with `/`.
        File = 4 => "file",
        /// Multi-line text (the Say box's `Text`; undocumented, read as a string).
        Text = 5 => "text",
    }
);

code_enum!(
    /// `script@language`.
    ScriptLanguage {
        /// C++.
        Cpp = 0 => "cpp",
        /// URBI.
        Urbi = 1 => "urbi",
        /// Ruby.
        Ruby = 2 => "ruby",
        /// A dynamic library.
        DynamicLibrary = 3 => "library",
        /// Python (every real script).
        Python = 4 => "python",
        /// QiChat.
        QiChat = 5 => "qichat",
        /// No script.
        None = 6 => "none",
    }
);

code_enum!(
    /// `Timeline@resources_acquisition`: how a motion timeline takes its motors (see motion.md).
    ResourcesAcquisition {
        /// Passive.
        Passive = 0 => "passive",
        /// Waiting.
        Waiting = 1 => "waiting",
        /// Aggressive.
        Aggressive = 2 => "aggressive",
    }
);

/// Which root element a XAR file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RootKind {
    /// `<ChoregrapheProject>`: a behavior (`behavior.xar`).
    Project,
    /// `<ChoregrapheBox>`: one box-library entry (`box.xar`).
    Box,
}

impl RootKind {
    /// The root element's name.
    pub fn element_name(self) -> &'static str {
        match self {
            RootKind::Project => "ChoregrapheProject",
            RootKind::Box => "ChoregrapheBox",
        }
    }

    /// The known children of the root element, in canonical order: the root [`ChildKind::Box`].
    pub fn canonical_children(self) -> &'static [ChildKind] {
        &[ChildKind::Box]
    }
}

/// The namespace Choregraphe writes on `ChoregrapheProject` (the Aldebaran one).
pub const PROJECT_NAMESPACE: &str =
    "http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd";

/// A whole XAR file.
#[derive(Debug, Clone, PartialEq)]
pub struct XarFile {
    /// Project or box-library entry.
    pub root: RootKind,
    /// The default namespace (`xmlns`) of the root element, if any.
    pub namespace: Option<String>,
    /// `xar_version` (always `"3"` in real files).
    pub xar_version: Option<String>,
    /// Comments and processing instructions before the root element, as raw XML.
    pub prolog: Vec<String>,
    /// The root box (named `root`), holding the whole tree.
    pub root_box: BoxDef,
    /// Unknown attributes and children of the root element.
    pub extras: Extras,
}

/// A `Box`: the unit of behavior, with ports, parameters, script and content.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoxDef {
    /// Display name (`root` for the root box).
    pub name: String,
    /// Unique among the boxes of one diagram; links name boxes by it.
    pub id: i32,
    /// Opaque editor tag (`8` on most boxes); written only by 2.x editors.
    pub localization: Option<i32>,
    /// Free text; may hold newlines.
    pub tooltip: Option<String>,
    /// Editor position.
    pub x: Option<i32>,
    /// Editor position.
    pub y: Option<i32>,
    /// The editor plugin that owns the box (`textedit_plugin`, ...).
    pub plugin: Option<String>,
    /// 1.x editors only, always empty.
    pub robot: Option<String>,
    /// 1.x editors only.
    pub bitmap_expanded: Option<String>,
    /// Path of a `.dlg` file relative to the XAR's folder: this is a Dialog box.
    pub dialog_file: Option<String>,
    /// Icon paths (0-2); not needed at run time.
    pub bitmaps: Vec<String>,
    /// The box's code.
    pub script: Option<Script>,
    /// The editor widget's state (`<pluginContent>` element), kept verbatim as raw XML.
    pub plugin_content: Option<String>,
    /// Inputs, in document order.
    pub inputs: Vec<Input>,
    /// Outputs, in document order.
    pub outputs: Vec<Output>,
    /// Parameters, in document order.
    pub parameters: Vec<Parameter>,
    /// Flow diagram holder or motion/sequence timeline.
    pub timeline: Option<Timeline>,
    /// Resources the box takes while running.
    pub resources: Vec<Resource>,
    /// Everything else.
    pub extras: Extras,
}

/// What a port id of a box designates: ports and parameters share one id space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PortRef<'a> {
    /// An input.
    Input(&'a Input),
    /// An output.
    Output(&'a Output),
    /// A parameter (a link into it sets its value).
    Parameter(&'a Parameter),
}

impl BoxDef {
    /// The input, output or parameter with port id `id`.
    pub fn port(&self, id: i32) -> Option<PortRef<'_>> {
        if let Some(i) = self.inputs.iter().find(|p| p.id == id) {
            return Some(PortRef::Input(i));
        }
        if let Some(o) = self.outputs.iter().find(|p| p.id == id) {
            return Some(PortRef::Output(o));
        }
        self.parameters
            .iter()
            .find(|p| p.id == id)
            .map(PortRef::Parameter)
    }

    /// The parameter named `name`.
    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// The script's code, or `""` for boxes without one.
    pub fn code(&self) -> &str {
        self.script
            .as_ref()
            .and_then(|s| s.content.as_ref())
            .map_or("", |c| c.code.as_str())
    }

    /// The diagrams directly inside this box (one for a flow-diagram holder).
    pub fn diagrams(&self) -> impl Iterator<Item = &Diagram> {
        self.timeline
            .iter()
            .flat_map(|t| t.layers.iter())
            .flat_map(|l| l.keyframes.iter())
            .filter_map(|k| k.diagram.as_ref())
    }

    /// Calls `f` on this box and every box below it, parents before children.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a BoxDef)) {
        f(self);
        for d in self.diagrams() {
            for b in &d.boxes {
                b.walk(f);
            }
        }
    }
}

/// A `script` element.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    /// `language` (Python in every real file); absent on `<script/>` written by the 2013 converter.
    pub language: Option<ScriptLanguage>,
    /// The `content` element.
    pub content: Option<ScriptContent>,
    /// Everything else.
    pub extras: Extras,
}

/// A script's `content` element.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScriptContent {
    /// The source code: the CDATA text only (whitespace around the CDATA is not code).
    pub code: String,
    /// The element's inner XML as written, kept when it is not one CDATA section
    /// (e.g. the stock Choice box's `<!-- ... plugin magic -->` comment). The writer uses it
    /// only while `code` still matches it.
    pub raw: Option<String>,
    /// Everything else.
    pub extras: Extras,
}

/// An `Input` or an `Output` of a box; `N` is [`InputNature`] or [`OutputNature`].
#[derive(Debug, Clone, PartialEq)]
pub struct Port<N> {
    /// Port name: the script handler is `onInput_<name>`, the output method `self.<name>()`.
    pub name: String,
    /// What the port carries.
    pub port_type: PortType,
    /// Tuple arity (1 almost always).
    pub type_size: Option<i32>,
    /// What a stimulation does.
    pub nature: N,
    /// ALMemory key of a [`InputNature::Memory`] input.
    pub stm_value_name: Option<String>,
    /// `1`: visible only inside the box's own diagram.
    pub inner: Option<bool>,
    /// Free text.
    pub tooltip: Option<String>,
    /// Port id, in the id space shared with the other ports and the parameters.
    pub id: i32,
    /// Everything else.
    pub extras: Extras,
}

/// A box input.
pub type Input = Port<InputNature>;
/// A box output.
pub type Output = Port<OutputNature>;

impl<N> Port<N> {
    /// Tuple arity, 1 when absent.
    pub fn type_size(&self) -> i32 {
        self.type_size.unwrap_or(1)
    }

    /// Whether the port is visible only inside the box (false when absent).
    pub fn is_inner(&self) -> bool {
        self.inner.unwrap_or(false)
    }
}

/// A box `Parameter`.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// Name, as used by `getParameter`.
    pub name: String,
    /// `1`: the value comes from the enclosing box's parameter of the same name.
    pub inherits_from_parent: Option<bool>,
    /// How the value is read.
    pub content_type: ContentType,
    /// Current value as text.
    pub value: Option<String>,
    /// Factory value as text.
    pub default_value: Option<String>,
    /// Lower bound (int and double parameters).
    pub min: Option<f64>,
    /// Upper bound (int and double parameters).
    pub max: Option<f64>,
    /// `1`: a value outside the choices is allowed.
    pub custom_choice: Option<bool>,
    /// `1`: the UI hides the value.
    pub password: Option<bool>,
    /// Free text.
    pub tooltip: Option<String>,
    /// Id in the port id space (links may set the parameter).
    pub id: i32,
    /// Allowed values.
    pub choices: Vec<Choice>,
    /// Everything else.
    pub extras: Extras,
}

/// A typed parameter value, read from its text according to the content type.
#[derive(Debug, Clone, PartialEq)]
pub enum ParameterValue {
    /// A bool parameter.
    Bool(bool),
    /// An int parameter.
    Int(i64),
    /// A double parameter.
    Double(f64),
    /// A string, text or attached-file parameter.
    String(String),
}

impl Parameter {
    /// Whether the value is inherited from the parent box (false when absent).
    pub fn inherits(&self) -> bool {
        self.inherits_from_parent.unwrap_or(false)
    }

    /// The value (or else the default value) read according to the content type;
    /// `None` when the text is not a value of that type.
    pub fn typed_value(&self) -> Option<ParameterValue> {
        let text = self
            .value
            .as_deref()
            .or(self.default_value.as_deref())
            .unwrap_or("");
        parse_parameter_value(self.content_type, text)
    }
}

/// Reads parameter text as a value of `content_type` (`None` if it is not one).
pub fn parse_parameter_value(content_type: ContentType, text: &str) -> Option<ParameterValue> {
    let t = text.trim();
    match content_type {
        ContentType::Bool => match t {
            "1" | "true" | "True" => Some(ParameterValue::Bool(true)),
            "0" | "false" | "False" | "" => Some(ParameterValue::Bool(false)),
            _ => None,
        },
        ContentType::Int => t.parse().ok().map(ParameterValue::Int),
        ContentType::Double => t
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(ParameterValue::Double),
        ContentType::String | ContentType::File | ContentType::Text => {
            Some(ParameterValue::String(text.to_string()))
        }
    }
}

/// A `Choice` of a parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The allowed value, as text.
    pub value: String,
    /// Everything else.
    pub extras: Extras,
}

/// A `Resource` a box takes while running (an ALResourceManager resource).
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// Resource name (`Speech`, `All motors`, a joint name, ...).
    pub name: String,
    /// Lock type as written (`Lock`, `Stop on demand`, `Pause on demand (beta)`, ...).
    pub lock_type: String,
    /// Seconds to wait for the resource; `-1` waits until free.
    pub timeout: Option<i32>,
    /// Everything else.
    pub extras: Extras,
}

/// How a box holds a resource, read from [`Resource::lock_type`] by prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockType {
    /// `Lock`.
    Lock,
    /// `Stop on demand`.
    StopOnDemand,
    /// `Pause on demand` (also `Pause on demand (beta)`).
    PauseOnDemand,
    /// `Callback on demand`.
    CallbackOnDemand,
}

impl Resource {
    /// The lock type, compared by prefix as real files vary; `None` if unknown.
    pub fn lock(&self) -> Option<LockType> {
        let t = self.lock_type.trim();
        [
            ("Lock", LockType::Lock),
            ("Stop on demand", LockType::StopOnDemand),
            ("Pause on demand", LockType::PauseOnDemand),
            ("Callback on demand", LockType::CallbackOnDemand),
        ]
        .into_iter()
        .find(|(p, _)| t.starts_with(p))
        .map(|(_, l)| l)
    }
}

/// A `Timeline`: a flow-diagram holder (`enable="0"`) or a motion/sequence timeline.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timeline {
    /// `1`: frames tick; `0` (or absent): static holder.
    pub enable: Option<bool>,
    /// Frames per second; absent or 0 means the timeline cannot play.
    pub fps: Option<i32>,
    /// Frame where the cursor starts.
    pub start_frame: Option<i32>,
    /// Last frame; `-1` ends at the last motion key.
    pub end_frame: Option<i32>,
    /// Editor ruler length; not used for playback.
    pub size: Option<i32>,
    /// How motion resources are taken.
    pub resources_acquisition: Option<ResourcesAcquisition>,
    /// 1.x editor setting.
    pub scale: Option<f64>,
    /// Whether an (always empty) 1.x `<watches/>` element is present.
    pub watches: bool,
    /// Parallel behavior tracks.
    pub layers: Vec<BehaviorLayer>,
    /// Motion curves.
    pub actuator_list: Option<ActuatorList>,
    /// Everything else.
    pub extras: Extras,
}

impl Timeline {
    /// Whether frames tick (false when absent).
    pub fn is_enabled(&self) -> bool {
        self.enable.unwrap_or(false)
    }

    /// Frames per second, 0 when absent (0 means "cannot play"; never divide by it unchecked).
    pub fn fps(&self) -> i32 {
        self.fps.unwrap_or(0)
    }

    /// Start frame, 0 when absent.
    pub fn start_frame(&self) -> i32 {
        self.start_frame.unwrap_or(0)
    }

    /// End frame, -1 (end at the last key) when absent.
    pub fn end_frame(&self) -> i32 {
        self.end_frame.unwrap_or(-1)
    }

    /// Motion resource mode, Passive when absent.
    pub fn resources_acquisition(&self) -> ResourcesAcquisition {
        self.resources_acquisition
            .unwrap_or(ResourcesAcquisition::Passive)
    }

    /// The timeline Choregraphe writes around a box's flow diagram: `<Timeline enable="0">`
    /// with one layer `behavior_layer1` holding one keyframe `keyframe1` at index 1.
    pub fn holder(diagram: Diagram) -> Timeline {
        Timeline {
            enable: Some(false),
            layers: vec![BehaviorLayer {
                name: HOLDER_LAYER.to_string(),
                keyframes: vec![BehaviorKeyframe {
                    name: HOLDER_KEYFRAME.to_string(),
                    index: 1,
                    diagram: Some(diagram),
                    ..BehaviorKeyframe::default()
                }],
                ..BehaviorLayer::default()
            }],
            ..Timeline::default()
        }
    }

    /// The diagram of this timeline if it is exactly [`Timeline::holder`] of it.
    pub(crate) fn holder_diagram(&self) -> Option<&Diagram> {
        // Destructured in full so that a new model field cannot be forgotten here.
        let Timeline {
            enable,
            fps,
            start_frame,
            end_frame,
            size,
            resources_acquisition,
            scale,
            watches,
            layers,
            actuator_list,
            extras,
        } = self;
        let [
            BehaviorLayer {
                name: layer_name,
                mute,
                keyframes,
                extras: layer_extras,
            },
        ] = layers.as_slice()
        else {
            return None;
        };
        let [
            BehaviorKeyframe {
                name: keyframe_name,
                index,
                bitmap,
                diagram,
                extras: keyframe_extras,
            },
        ] = keyframes.as_slice()
        else {
            return None;
        };
        let plain = *enable == Some(false)
            && fps.is_none()
            && start_frame.is_none()
            && end_frame.is_none()
            && size.is_none()
            && resources_acquisition.is_none()
            && scale.is_none()
            && !watches
            && actuator_list.is_none()
            && extras.is_empty()
            && layer_name == HOLDER_LAYER
            && mute.is_none()
            && layer_extras.is_empty()
            && keyframe_name == HOLDER_KEYFRAME
            && *index == 1
            && bitmap.is_none()
            && keyframe_extras.is_empty();
        diagram.as_ref().filter(|_| plain)
    }
}

/// The layer name of a flow-diagram holder ([`Timeline::holder`]).
const HOLDER_LAYER: &str = "behavior_layer1";
/// The keyframe name of a flow-diagram holder ([`Timeline::holder`]).
const HOLDER_KEYFRAME: &str = "keyframe1";

/// A `BehaviorLayer`: one parallel track of keyframes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BehaviorLayer {
    /// Layer name.
    pub name: String,
    /// `1`: the layer is skipped.
    pub mute: Option<bool>,
    /// Keyframes, in document order.
    pub keyframes: Vec<BehaviorKeyframe>,
    /// Everything else.
    pub extras: Extras,
}

/// A `BehaviorKeyframe`: a diagram active from frame `index` until the layer's next keyframe.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BehaviorKeyframe {
    /// Label, usable as a goto target.
    pub name: String,
    /// Frame (from 1) at which the diagram becomes active.
    pub index: i32,
    /// 1.x editor icon.
    pub bitmap: Option<String>,
    /// The boxes and links active from this keyframe.
    pub diagram: Option<Diagram>,
    /// Everything else.
    pub extras: Extras,
}

/// A flow `Diagram`: boxes and the links between them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diagram {
    /// Editor zoom.
    pub scale: Option<f64>,
    /// Child boxes.
    pub boxes: Vec<BoxDef>,
    /// Links.
    pub links: Vec<Link>,
    /// Everything else.
    pub extras: Extras,
}

impl Diagram {
    /// The child box with id `id`.
    pub fn box_by_id(&self, id: i32) -> Option<&BoxDef> {
        self.boxes.iter().find(|b| b.id == id)
    }
}

/// A `Link`: from port `index_of_output` of box `output_owner` (the source) to port
/// `index_of_input` of box `input_owner` (the destination). Owner `0` is the box enclosing
/// the diagram, whose inputs are sources and outputs are sinks inside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// Destination box id (`inputowner`).
    pub input_owner: i32,
    /// Destination port or parameter id (`indexofinput`).
    pub index_of_input: i32,
    /// Source box id (`outputowner`).
    pub output_owner: i32,
    /// Source port id (`indexofoutput`).
    pub index_of_output: i32,
    /// Everything else.
    pub extras: Extras,
}

/// An `ActuatorList`: the motion curves of a timeline.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActuatorList {
    /// Robot hint (`Nao`, `juliette`, ...); unreliable, decide from actuator names.
    pub model: Option<String>,
    /// Curves, one per joint.
    pub curves: Vec<ActuatorCurve>,
    /// Everything else.
    pub extras: Extras,
}

/// An `ActuatorCurve`: keys for one joint.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActuatorCurve {
    /// Meaningless label; use `actuator`.
    pub name: Option<String>,
    /// Joint name.
    pub actuator: String,
    /// Editor flag.
    pub recordable: Option<bool>,
    /// `1`: the curve is not played.
    pub mute: Option<bool>,
    /// `0` degrees, `1` dimensionless (hands), `-1`/absent: decided by the joint name.
    pub unit: Option<i32>,
    /// 1.x editor flag.
    pub always_visible: Option<bool>,
    /// Keys, in document order (real files have them sorted; the reader warns otherwise).
    pub keys: Vec<Key>,
    /// Everything else.
    pub extras: Extras,
}

/// A `Key` of a curve.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Key {
    /// Frame number (from 1).
    pub frame: i32,
    /// Value in the curve's unit.
    pub value: f64,
    /// Editor flag.
    pub smooth: Option<bool>,
    /// Editor flag.
    pub symmetrical: Option<bool>,
    /// Explicit Bezier handles; a missing side is Bezier-auto.
    pub tangents: Vec<Tangent>,
    /// Everything else.
    pub extras: Extras,
}

/// Which side of a key a [`Tangent`] handle is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TangentSide {
    /// Towards the previous key.
    Left,
    /// Towards the next key.
    Right,
}

impl TangentSide {
    /// The attribute value.
    pub fn as_str(self) -> &'static str {
        match self {
            TangentSide::Left => "left",
            TangentSide::Right => "right",
        }
    }
}

/// A `Tangent`: a Bezier handle as offsets from its key.
#[derive(Debug, Clone, PartialEq)]
pub struct Tangent {
    /// Left or right.
    pub side: TangentSide,
    /// Interpolation type (`bezier` in every real file).
    pub interp_type: Option<String>,
    /// Offset in frames.
    pub abscissa_param: f64,
    /// Offset in value units.
    pub ordinate_param: f64,
    /// Everything else.
    pub extras: Extras,
}
