//! XAR reader: bytes of a `behavior.xar` / `box.xar` in, [`XarFile`] out.
//!
//! Tolerant where real files vary (namespaces, name casing, child order, attribute
//! generations, unknown content kept), strict where meaning would be lost (bad numbers,
//! unknown codes, dangling or backwards links, duplicate ids).
//!
//! One generic child loop (`children`) reads every element's children; links, ids and
//! directions are checked once a box is complete (`check_diagram`).

use std::collections::HashMap;

use crate::Parsed;
use crate::error::{ErrorKind, Result};
use crate::model::*;
use crate::xml::{ChildOrder, Cursor, Element, Item, TextContent, decode_text};

/// Reads a XAR file. `file` names it in messages.
pub fn read_xar(file: &str, bytes: &[u8]) -> Result<Parsed<XarFile>> {
    let text = decode_text(file, bytes)?;
    let mut r = XarReader {
        cur: Cursor::new(file, text)?,
    };
    let value = r.document()?;
    Ok(Parsed {
        value,
        warnings: r.cur.warnings,
    })
}

/// Where the boxes and links of one diagram are in the source, for checks made once the
/// enclosing box is complete (its ports may come after its timeline).
struct DiagramSpans {
    path: String,
    boxes: Vec<usize>,
    links: Vec<usize>,
}

struct XarReader<'a> {
    cur: Cursor<'a>,
}

/// Matches a child element against the kinds an element may hold: the kind, and the name as
/// written when it is not the canonical spelling.
fn known(el: &Element<'_>, kinds: &[ChildKind]) -> Option<(ChildKind, Option<String>)> {
    if el.has_prefix() {
        return None;
    }
    let local = el.local_name();
    for &k in kinds {
        let name = k.element_name();
        if local == name {
            return Some((k, None));
        }
    }
    for &k in kinds {
        if local.eq_ignore_ascii_case(k.element_name()) {
            return Some((k, Some(local.to_string())));
        }
    }
    None
}

fn set_spelling(extras: &mut Extras, spelling: Option<String>) {
    if spelling.is_some() {
        extras.get_mut().spelling = spelling;
    }
}

/// What a child handler did with a child element of a known kind.
enum Taken {
    /// Read into the model.
    Read,
    /// Not modelled after all (unexpected content): kept raw, in place.
    Raw(String),
}

impl<'a> XarReader<'a> {
    /// Reads the children of `el` into `node`: elements of a `canonical` kind go to `take`
    /// (with their name as written, if not canonical); everything else, and what `take` hands
    /// back, is kept raw in the node's extras. Records the child order when it matters.
    fn children<T>(
        &mut self,
        el: &Element<'a>,
        canonical: &[ChildKind],
        node: &mut T,
        extras: fn(&mut T) -> &mut Extras,
        mut take: impl FnMut(&mut Self, &mut T, ChildKind, Element<'a>, Option<String>) -> Result<Taken>,
    ) -> Result<()> {
        let mut order = ChildOrder::default();
        if !el.empty {
            loop {
                let raw = match self.cur.next_item()? {
                    Item::End => break,
                    Item::Misc(raw) => raw.to_string(),
                    Item::Element(child) => match known(&child, canonical) {
                        Some((kind, spelling)) => match take(self, node, kind, child, spelling)? {
                            Taken::Read => {
                                order.push(kind);
                                continue;
                            }
                            Taken::Raw(raw) => raw,
                        },
                        None => self.cur.raw_element(&child)?.to_string(),
                    },
                };
                extras(node).get_mut().children.push(raw);
                order.push(ChildKind::Unknown);
            }
        }
        let extras = extras(node);
        order.finish(canonical, extras);
        extras.shrink();
        Ok(())
    }

    /// Children of an element that has none of its own: all kept raw.
    fn leaf_children(&mut self, el: &Element<'a>, extras: &mut Extras) -> Result<()> {
        self.children(el, &[], extras, |e| e, |_, _, _, _, _| Ok(Taken::Read))
    }

    /// An error for a second child where one is allowed.
    fn second(&self, offset: usize, message: &str) -> crate::error::Error {
        self.cur.error(ErrorKind::BadStructure, offset, message)
    }

    fn document(&mut self) -> Result<XarFile> {
        let mut prolog = Vec::new();
        let root = self.cur.root_element(&mut prolog)?;
        let local = root.local_name();
        let kind = if local.eq_ignore_ascii_case("ChoregrapheProject") {
            RootKind::Project
        } else if local.eq_ignore_ascii_case("ChoregrapheBox") {
            RootKind::Box
        } else {
            let found = root.name().to_string();
            let hint = match found.as_str() {
                "Package" => " (this is a .pml project file)",
                "package" => " (this is a manifest.xml)",
                _ => "",
            };
            return Err(self.cur.error(
                ErrorKind::WrongRoot,
                root.offset,
                format!(
                    "root element is <{found}>, expected <ChoregrapheProject> or <ChoregrapheBox>{hint}"
                ),
            ));
        };
        let mut extras = Extras::default();
        let (namespace, xar_version) = {
            let mut a = self.cur.attributes(&root)?;
            let ns = a.string("xmlns");
            let v = a.string("xar_version");
            a.finish(&mut extras);
            (ns, v)
        };
        if let Some(v) = &xar_version
            && v.trim() != "3"
        {
            self.cur.warn(
                ErrorKind::Unusual,
                root.offset,
                format!("xar_version=\"{v}\": only version 3 is known; reading it as version 3"),
            );
        }
        let canonical_name = kind.element_name();
        if local != canonical_name {
            extras.get_mut().spelling = Some(root.name().to_string());
        }
        let mut top = (None::<BoxDef>, extras);
        self.children(
            &root,
            kind.canonical_children(),
            &mut top,
            |t| &mut t.1,
            |r, t, _, child, spelling| {
                if t.0.is_some() {
                    return Err(r.second(
                        child.offset,
                        "a second root Box: the root element holds exactly one",
                    ));
                }
                let (mut b, _) = r.read_box(child)?;
                set_spelling(&mut b.extras, spelling);
                t.0 = Some(b);
                Ok(Taken::Read)
            },
        )?;
        let (root_box, extras) = top;
        let Some(root_box) = root_box else {
            return Err(self.cur.error(
                ErrorKind::BadStructure,
                root.offset,
                format!("<{canonical_name}> has no root Box"),
            ));
        };
        self.cur.expect_document_end()?;
        Ok(XarFile {
            root: kind,
            namespace,
            xar_version,
            prolog,
            root_box,
            extras,
        })
    }

    /// Reads a simple text element (`bitmap`, `dialogFile`): its text, or, when it holds
    /// anything richer (attributes, children, comments), its raw XML to keep verbatim.
    fn text_element(&mut self, el: &Element<'a>) -> Result<std::result::Result<String, String>> {
        let has_attributes = el.start.attributes().next().is_some();
        let (content, _) = self.cur.text_content(el)?;
        match content {
            TextContent::Text(t) if !has_attributes => Ok(Ok(t)),
            _ => Ok(Err(
                self.cur.text()[el.offset..self.cur.consumed()].to_string()
            )),
        }
    }

    /// Reads a `Box`; returns it with the offset of its start tag.
    fn read_box(&mut self, el: Element<'a>) -> Result<(BoxDef, usize)> {
        let offset = el.offset;
        let mut b = self.box_attributes(&el)?;
        self.cur.push(b.name.clone(), None);
        let mut spans: Vec<DiagramSpans> = Vec::new();
        let mut port_offsets: Vec<(i32, usize)> = Vec::new();
        self.children(
            &el,
            ChildKind::Box.canonical_children(),
            &mut b,
            |b| &mut b.extras,
            |r, b, kind, child, spelling| {
                let at = child.offset;
                match kind {
                    ChildKind::DialogFile | ChildKind::Bitmap => {
                        let text = match (spelling, r.text_element(&child)?) {
                            (None, Ok(text)) => text,
                            (_, Err(raw)) => return Ok(Taken::Raw(raw)),
                            (Some(_), Ok(_)) => {
                                let raw = r.cur.text()[at..r.cur.consumed()].to_string();
                                return Ok(Taken::Raw(raw));
                            }
                        };
                        if kind == ChildKind::Bitmap {
                            b.bitmaps.push(text);
                        } else if b.dialog_file.replace(text).is_some() {
                            return Err(r.second(at, "a box has at most one dialogFile"));
                        }
                    }
                    ChildKind::Script => {
                        let mut s = r.read_script(&child)?;
                        set_spelling(&mut s.extras, spelling);
                        if b.script.replace(s).is_some() {
                            return Err(r.second(at, "a box has at most one script"));
                        }
                    }
                    ChildKind::PluginContent => {
                        let raw = r.cur.raw_element(&child)?.to_string();
                        if b.plugin_content.replace(raw).is_some() {
                            return Err(r.second(at, "a box has at most one pluginContent"));
                        }
                    }
                    ChildKind::Input => {
                        let n = b.inputs.len() + 1;
                        let mut p: Input =
                            r.read_port(&child, "Input", n, InputNature::from_code)?;
                        set_spelling(&mut p.extras, spelling);
                        port_offsets.push((p.id, at));
                        b.inputs.push(p);
                    }
                    ChildKind::Output => {
                        let n = b.outputs.len() + 1;
                        let mut p: Output =
                            r.read_port(&child, "Output", n, OutputNature::from_code)?;
                        set_spelling(&mut p.extras, spelling);
                        port_offsets.push((p.id, at));
                        b.outputs.push(p);
                    }
                    ChildKind::Parameter => {
                        let mut p = r.read_parameter(&child, b.parameters.len() + 1)?;
                        set_spelling(&mut p.extras, spelling);
                        port_offsets.push((p.id, at));
                        b.parameters.push(p);
                    }
                    ChildKind::Timeline => {
                        let (mut t, s) = r.read_timeline(&child)?;
                        set_spelling(&mut t.extras, spelling);
                        if b.timeline.replace(t).is_some() {
                            return Err(r.second(at, "a box has at most one Timeline"));
                        }
                        spans = s;
                    }
                    _ => {
                        let mut res = r.read_resource(&child, b.resources.len() + 1)?;
                        set_spelling(&mut res.extras, spelling);
                        b.resources.push(res);
                    }
                }
                Ok(Taken::Read)
            },
        )?;
        self.check_port_ids(&port_offsets)?;
        for (diagram, s) in b.diagrams().zip(&spans) {
            self.check_diagram(&b, diagram, s)?;
        }
        self.cur.pop();
        Ok((b, offset))
    }

    /// A box with its attributes read (its children come next).
    fn box_attributes(&mut self, el: &Element<'a>) -> Result<BoxDef> {
        let mut b = BoxDef::default();
        let mut a = self.cur.attributes(el)?;
        b.name = a.required("name")?;
        b.id = a.required_int("id")?;
        b.localization = a.int("localization")?;
        b.tooltip = a.string("tooltip");
        b.x = a.int("x")?;
        b.y = a.int("y")?;
        b.plugin = a.string("plugin");
        b.robot = a.string("robot");
        b.bitmap_expanded = a.string("bitmap_expanded");
        a.finish(&mut b.extras);
        Ok(b)
    }

    fn check_port_ids(&self, ports: &[(i32, usize)]) -> Result<()> {
        let mut seen: HashMap<i32, usize> = HashMap::with_capacity(ports.len());
        for &(id, offset) in ports {
            if seen.insert(id, offset).is_some() {
                return Err(self.cur.error(
                    ErrorKind::DuplicateId,
                    offset,
                    format!("port id {id} is used twice (inputs, outputs and parameters share one id space)"),
                ));
            }
        }
        Ok(())
    }

    /// Checks one diagram of `parent`: unique box ids, links between existing ports, in the
    /// right direction.
    fn check_diagram(&self, parent: &BoxDef, d: &Diagram, spans: &DiagramSpans) -> Result<()> {
        let err = |kind, offset, msg: String| {
            crate::error::Error::from(crate::error::Diagnostic::at_offset(
                crate::error::Severity::Error,
                kind,
                self.cur.file(),
                self.cur.text(),
                offset,
                &spans.path,
                msg,
            ))
        };
        let ids = boxes_by_id(d, spans, &err)?;
        for (link, &offset) in d.links.iter().zip(&spans.links) {
            let describe = |owner: i32| {
                if owner == 0 {
                    format!("the enclosing box {:?}", parent.name)
                } else {
                    ids.get(&owner)
                        .map_or_else(|| format!("box {owner}"), |b| format!("box {:?}", b.name))
                }
            };
            let owner_box = |owner: i32| -> Result<&BoxDef> {
                if owner == 0 {
                    return Ok(parent);
                }
                ids.get(&owner).copied().ok_or_else(|| {
                    err(
                        ErrorKind::DanglingLink,
                        offset,
                        format!("link names box id {owner}, which is not in this diagram"),
                    )
                })
            };
            let src = owner_box(link.output_owner)?;
            let dst = owner_box(link.input_owner)?;
            let src_port = src.port(link.index_of_output).ok_or_else(|| {
                err(
                    ErrorKind::DanglingLink,
                    offset,
                    format!(
                        "link source: {} has no port {}",
                        describe(link.output_owner),
                        link.index_of_output
                    ),
                )
            })?;
            let dst_port = dst.port(link.index_of_input).ok_or_else(|| {
                err(
                    ErrorKind::DanglingLink,
                    offset,
                    format!(
                        "link destination: {} has no port {}",
                        describe(link.input_owner),
                        link.index_of_input
                    ),
                )
            })?;
            // Inside a diagram the parent's inputs are sources and its outputs sinks.
            let source_ok = matches!(
                (link.output_owner == 0, src_port),
                (true, PortRef::Input(_)) | (false, PortRef::Output(_))
            );
            let destination_ok = matches!(
                (link.input_owner == 0, dst_port),
                (true, PortRef::Output(_)) | (false, PortRef::Input(_) | PortRef::Parameter(_))
            );
            let port_name = |p: PortRef<'_>| match p {
                PortRef::Input(i) => format!("input {:?}", i.name),
                PortRef::Output(o) => format!("output {:?}", o.name),
                PortRef::Parameter(p) => format!("parameter {:?}", p.name),
            };
            if !source_ok {
                return Err(err(
                    ErrorKind::LinkDirection,
                    offset,
                    format!(
                        "link goes the wrong way: its source is {} of {}, which is a sink in this diagram",
                        port_name(src_port),
                        describe(link.output_owner)
                    ),
                ));
            }
            if !destination_ok {
                return Err(err(
                    ErrorKind::LinkDirection,
                    offset,
                    format!(
                        "link goes the wrong way: its destination is {} of {}, which is a source in this diagram",
                        port_name(dst_port),
                        describe(link.input_owner)
                    ),
                ));
            }
        }
        Ok(())
    }

    fn read_script(&mut self, el: &Element<'a>) -> Result<Script> {
        let mut s = Script::default();
        {
            let mut a = self.cur.attributes(el)?;
            s.language = a.code("language", ScriptLanguage::from_code)?;
            a.finish(&mut s.extras);
        }
        self.cur.push("script", None);
        self.children(
            el,
            ChildKind::Script.canonical_children(),
            &mut s,
            |s| &mut s.extras,
            |r, s, _, child, spelling| {
                let at = child.offset;
                let mut c = r.read_content(&child)?;
                set_spelling(&mut c.extras, spelling);
                if s.content.replace(c).is_some() {
                    return Err(r.second(at, "a script has at most one content"));
                }
                Ok(Taken::Read)
            },
        )?;
        self.cur.pop();
        Ok(s)
    }

    fn read_content(&mut self, el: &Element<'a>) -> Result<ScriptContent> {
        let mut c = ScriptContent::default();
        {
            let a = self.cur.attributes(el)?;
            a.finish(&mut c.extras);
        }
        let (content, inner) = self.cur.text_content(el)?;
        // Keep the source only when our CDATA writing would not give it back.
        let canonical_form = match content {
            // One section can hold no `]]>`, so the writer gives it back as it is.
            TextContent::Cdata(code, true) => {
                c.code = code;
                true
            }
            TextContent::Cdata(code, false) => {
                let mut canonical = String::new();
                crate::xml::write_cdata(&mut canonical, &code);
                c.code = code;
                canonical == inner.trim()
            }
            _ => {
                c.code = super::content::code_of_raw_content(inner);
                inner.is_empty()
            }
        };
        if !canonical_form {
            c.raw = Some(inner.to_string());
        }
        c.extras.shrink();
        Ok(c)
    }

    fn read_port<N>(
        &mut self,
        el: &Element<'a>,
        label: &'static str,
        n: usize,
        nature: fn(i32) -> Option<N>,
    ) -> Result<Port<N>> {
        self.cur.push(label, Some(n));
        let mut extras = Extras::default();
        let port = {
            let mut a = self.cur.attributes(el)?;
            let port = Port {
                name: a.required("name")?,
                port_type: a.required_code("type", PortType::from_code)?,
                type_size: a.int("type_size")?,
                nature: a.required_code("nature", nature)?,
                stm_value_name: a.string("stm_value_name"),
                inner: a.flag("inner")?,
                tooltip: a.string("tooltip"),
                id: a.required_int("id")?,
                extras: Extras::default(),
            };
            a.finish(&mut extras);
            port
        };
        let mut port = Port { extras, ..port };
        self.leaf_children(el, &mut port.extras)?;
        self.cur.pop();
        Ok(port)
    }

    fn read_parameter(&mut self, el: &Element<'a>, n: usize) -> Result<Parameter> {
        self.cur.push("Parameter", Some(n));
        let mut p = {
            let mut a = self.cur.attributes(el)?;
            let mut p = Parameter {
                name: a.required("name")?,
                inherits_from_parent: a.flag("inherits_from_parent")?,
                content_type: a.required_code("content_type", ContentType::from_code)?,
                value: a.string("value"),
                default_value: a.string("default_value"),
                min: a.float("min")?,
                max: a.float("max")?,
                custom_choice: a.flag("custom_choice")?,
                password: a.flag("password")?,
                tooltip: a.string("tooltip"),
                id: a.required_int("id")?,
                choices: Vec::new(),
                extras: Extras::default(),
            };
            a.finish(&mut p.extras);
            p
        };
        for (which, text) in [("value", &p.value), ("default_value", &p.default_value)] {
            if let Some(t) = text
                && parse_parameter_value(p.content_type, t).is_none()
            {
                let msg = format!(
                    "parameter {:?}: {which}=\"{t}\" is not a {:?} value; kept as text",
                    p.name, p.content_type
                );
                self.cur.warn(ErrorKind::BadValue, el.offset, msg);
            }
        }
        self.children(
            el,
            ChildKind::Parameter.canonical_children(),
            &mut p,
            |p| &mut p.extras,
            |r, p, _, child, spelling| {
                let mut c = Choice {
                    value: String::new(),
                    extras: Extras::default(),
                };
                {
                    let mut a = r.cur.attributes(&child)?;
                    c.value = a.required("value")?;
                    a.finish(&mut c.extras);
                }
                set_spelling(&mut c.extras, spelling);
                r.leaf_children(&child, &mut c.extras)?;
                p.choices.push(c);
                Ok(Taken::Read)
            },
        )?;
        self.cur.pop();
        Ok(p)
    }

    fn read_resource(&mut self, el: &Element<'a>, n: usize) -> Result<Resource> {
        self.cur.push("Resource", Some(n));
        let mut r = {
            let mut a = self.cur.attributes(el)?;
            let mut r = Resource {
                name: a.required("name")?,
                lock_type: a.required("type")?,
                timeout: a.int("timeout")?,
                extras: Extras::default(),
            };
            a.finish(&mut r.extras);
            r
        };
        self.leaf_children(el, &mut r.extras)?;
        self.cur.pop();
        Ok(r)
    }

    fn read_timeline(&mut self, el: &Element<'a>) -> Result<(Timeline, Vec<DiagramSpans>)> {
        let mut t = Timeline::default();
        {
            let mut a = self.cur.attributes(el)?;
            t.enable = a.flag("enable")?;
            t.fps = a.int("fps")?;
            t.start_frame = a.int("start_frame")?;
            t.end_frame = a.int("end_frame")?;
            t.size = a.int("size")?;
            t.resources_acquisition =
                a.code("resources_acquisition", ResourcesAcquisition::from_code)?;
            t.scale = a.float("scale")?;
            a.finish(&mut t.extras);
        }
        if t.fps.is_some_and(|f| f < 0) {
            return Err(self
                .cur
                .error(ErrorKind::BadValue, el.offset, "Timeline fps is negative"));
        }
        // A flow-diagram holder adds nothing to the path: its boxes read as children of the box.
        let holder = !t.is_enabled();
        if !holder {
            self.cur.push("Timeline", None);
        }
        let mut spans = Vec::new();
        self.children(
            el,
            ChildKind::Timeline.canonical_children(),
            &mut t,
            |t| &mut t.extras,
            |r, t, kind, child, spelling| {
                match kind {
                    ChildKind::Watches => {
                        if spelling.is_some()
                            || !child.empty
                            || child.start.attributes().next().is_some()
                        {
                            return Ok(Taken::Raw(r.cur.raw_element(&child)?.to_string()));
                        }
                        t.watches = true;
                    }
                    ChildKind::BehaviorLayer => {
                        let n = t.layers.len() + 1;
                        let mut l = r.read_layer(&child, n, holder, &mut spans)?;
                        set_spelling(&mut l.extras, spelling);
                        t.layers.push(l);
                    }
                    _ => {
                        let at = child.offset;
                        let mut l = r.read_actuator_list(&child)?;
                        set_spelling(&mut l.extras, spelling);
                        if t.actuator_list.replace(l).is_some() {
                            return Err(r.second(at, "a Timeline has at most one ActuatorList"));
                        }
                    }
                }
                Ok(Taken::Read)
            },
        )?;
        if !holder {
            self.cur.pop();
        }
        Ok((t, spans))
    }

    fn read_layer(
        &mut self,
        el: &Element<'a>,
        n: usize,
        holder: bool,
        spans: &mut Vec<DiagramSpans>,
    ) -> Result<BehaviorLayer> {
        let mut l = BehaviorLayer::default();
        {
            let mut a = self.cur.attributes(el)?;
            l.name = a.required("name")?;
            l.mute = a.flag("mute")?;
            a.finish(&mut l.extras);
        }
        if !holder {
            self.cur.push("BehaviorLayer", Some(n));
        }
        self.children(
            el,
            ChildKind::BehaviorLayer.canonical_children(),
            &mut l,
            |l| &mut l.extras,
            |r, l, _, child, spelling| {
                let k = l.keyframes.len() + 1;
                let mut kf = r.read_keyframe(&child, k, holder, spans)?;
                set_spelling(&mut kf.extras, spelling);
                l.keyframes.push(kf);
                Ok(Taken::Read)
            },
        )?;
        if !holder {
            self.cur.pop();
        }
        Ok(l)
    }

    fn read_keyframe(
        &mut self,
        el: &Element<'a>,
        n: usize,
        holder: bool,
        spans: &mut Vec<DiagramSpans>,
    ) -> Result<BehaviorKeyframe> {
        let mut k = BehaviorKeyframe::default();
        {
            let mut a = self.cur.attributes(el)?;
            k.name = a.required("name")?;
            k.index = a.required_int("index")?;
            k.bitmap = a.string("bitmap");
            a.finish(&mut k.extras);
        }
        if !holder {
            self.cur.push("BehaviorKeyframe", Some(n));
        }
        self.children(
            el,
            ChildKind::BehaviorKeyframe.canonical_children(),
            &mut k,
            |k| &mut k.extras,
            |r, k, _, child, spelling| {
                let at = child.offset;
                let (mut d, s) = r.read_diagram(&child, holder)?;
                set_spelling(&mut d.extras, spelling);
                if k.diagram.replace(d).is_some() {
                    return Err(r.second(at, "a BehaviorKeyframe has at most one Diagram"));
                }
                spans.push(s);
                Ok(Taken::Read)
            },
        )?;
        if !holder {
            self.cur.pop();
        }
        Ok(k)
    }

    fn read_diagram(&mut self, el: &Element<'a>, holder: bool) -> Result<(Diagram, DiagramSpans)> {
        let mut d = Diagram::default();
        {
            let mut a = self.cur.attributes(el)?;
            d.scale = a.float("scale")?;
            a.finish(&mut d.extras);
        }
        if !holder {
            self.cur.push("Diagram", None);
        }
        let mut spans = DiagramSpans {
            path: self.cur.path(),
            boxes: Vec::new(),
            links: Vec::new(),
        };
        self.children(
            el,
            ChildKind::Diagram.canonical_children(),
            &mut d,
            |d| &mut d.extras,
            |r, d, kind, child, spelling| {
                if kind == ChildKind::Box {
                    let (mut b, offset) = r.read_box(child)?;
                    set_spelling(&mut b.extras, spelling);
                    spans.boxes.push(offset);
                    d.boxes.push(b);
                } else {
                    spans.links.push(child.offset);
                    let mut link = r.read_link(&child, d.links.len() + 1)?;
                    set_spelling(&mut link.extras, spelling);
                    d.links.push(link);
                }
                Ok(Taken::Read)
            },
        )?;
        if !holder {
            self.cur.pop();
        }
        Ok((d, spans))
    }

    fn read_link(&mut self, el: &Element<'a>, n: usize) -> Result<Link> {
        self.cur.push("Link", Some(n));
        let mut link = {
            let mut a = self.cur.attributes(el)?;
            let mut link = Link {
                input_owner: a.required_int("inputowner")?,
                index_of_input: a.required_int("indexofinput")?,
                output_owner: a.required_int("outputowner")?,
                index_of_output: a.required_int("indexofoutput")?,
                extras: Extras::default(),
            };
            a.finish(&mut link.extras);
            link
        };
        self.leaf_children(el, &mut link.extras)?;
        self.cur.pop();
        Ok(link)
    }

    fn read_actuator_list(&mut self, el: &Element<'a>) -> Result<ActuatorList> {
        let mut l = ActuatorList::default();
        {
            let mut a = self.cur.attributes(el)?;
            l.model = a.string("model");
            a.finish(&mut l.extras);
        }
        self.cur.push("ActuatorList", None);
        self.children(
            el,
            ChildKind::ActuatorList.canonical_children(),
            &mut l,
            |l| &mut l.extras,
            |r, l, _, child, spelling| {
                let mut c = r.read_curve(&child, l.curves.len() + 1)?;
                set_spelling(&mut c.extras, spelling);
                l.curves.push(c);
                Ok(Taken::Read)
            },
        )?;
        self.cur.pop();
        Ok(l)
    }

    fn read_curve(&mut self, el: &Element<'a>, n: usize) -> Result<ActuatorCurve> {
        let mut c = ActuatorCurve::default();
        {
            let mut a = self.cur.attributes(el)?;
            c.name = a.string("name");
            c.actuator = a.required("actuator")?;
            c.recordable = a.flag("recordable")?;
            c.mute = a.flag("mute")?;
            c.unit = a.int("unit")?;
            c.always_visible = a.flag("alwaysVisible")?;
            a.finish(&mut c.extras);
        }
        self.cur
            .push(format!("ActuatorCurve[{n}]({})", c.actuator), None);
        let canonical = ChildKind::ActuatorCurve.canonical_children();
        self.children(el, canonical, &mut c, |c| &mut c.extras, |r, c, _, child, spelling| {
            let offset = child.offset;
            let n = c.keys.len() + 1;
            let mut k = r.read_key(&child, n)?;
            set_spelling(&mut k.extras, spelling);
            if let Some(prev) = c.keys.last()
                && k.frame <= prev.frame
            {
                let msg = if k.frame == prev.frame {
                    format!("two keys at frame {}; the later one wins", k.frame)
                } else {
                    format!(
                        "key at frame {} comes after a key at frame {}: keys out of order (played sorted)",
                        k.frame, prev.frame
                    )
                };
                r.cur.push("Key", Some(n));
                r.cur.warn(ErrorKind::KeyOrder, offset, msg);
                r.cur.pop();
            }
            c.keys.push(k);
            Ok(Taken::Read)
        })?;
        self.cur.pop();
        Ok(c)
    }

    fn read_key(&mut self, el: &Element<'a>, n: usize) -> Result<Key> {
        let mut k = Key::default();
        self.cur.push("Key", Some(n));
        {
            let mut a = self.cur.attributes(el)?;
            k.frame = a.required_int("frame")?;
            k.value = a.required_float("value")?;
            k.smooth = a.flag("smooth")?;
            k.symmetrical = a.flag("symmetrical")?;
            a.finish(&mut k.extras);
        }
        self.children(
            el,
            ChildKind::Key.canonical_children(),
            &mut k,
            |k| &mut k.extras,
            |r, k, _, child, spelling| {
                let mut t = r.read_tangent(&child)?;
                set_spelling(&mut t.extras, spelling);
                k.tangents.push(t);
                Ok(Taken::Read)
            },
        )?;
        self.cur.pop();
        Ok(k)
    }

    fn read_tangent(&mut self, el: &Element<'a>) -> Result<Tangent> {
        let mut extras = Extras::default();
        let t = {
            let mut a = self.cur.attributes(el)?;
            let side = a.required("side")?;
            let side = match side.trim() {
                s if s.eq_ignore_ascii_case("left") => TangentSide::Left,
                s if s.eq_ignore_ascii_case("right") => TangentSide::Right,
                _ => {
                    return Err(self.cur.error(
                        ErrorKind::BadValue,
                        el.offset,
                        format!("Tangent side=\"{side}\" is neither left nor right"),
                    ));
                }
            };
            let t = Tangent {
                side,
                interp_type: a.string("interpType"),
                abscissa_param: a.required_float("abscissaParam")?,
                ordinate_param: a.required_float("ordinateParam")?,
                extras: Extras::default(),
            };
            a.finish(&mut extras);
            t
        };
        let mut t = Tangent { extras, ..t };
        self.leaf_children(el, &mut t.extras)?;
        Ok(t)
    }
}

/// A diagram's boxes by id: an id 0 (the enclosing box's in links) or one used twice is an
/// error at the box.
fn boxes_by_id<'d>(
    d: &'d Diagram,
    spans: &DiagramSpans,
    err: &dyn Fn(ErrorKind, usize, String) -> crate::error::Error,
) -> Result<HashMap<i32, &'d BoxDef>> {
    let mut ids: HashMap<i32, &BoxDef> = HashMap::with_capacity(d.boxes.len());
    for (b, &offset) in d.boxes.iter().zip(&spans.boxes) {
        if b.id == 0 {
            return Err(err(
                ErrorKind::BadValue,
                offset,
                format!(
                    "box {:?} has id 0, which links use for the enclosing box",
                    b.name
                ),
            ));
        }
        if let Some(first) = ids.insert(b.id, b) {
            return Err(err(
                ErrorKind::DuplicateId,
                offset,
                format!(
                    "boxes {:?} and {:?} have the same id {} in one diagram",
                    first.name, b.name, b.id
                ),
            ));
        }
    }
    Ok(ids)
}
