//! XAR writer: [`XarFile`] in, XML text out.
//!
//! Writes what was read: the same attributes (absent stays absent), unknown attributes and
//! children in place, recorded child order and name spellings. A model built from scratch
//! comes out in Choregraphe 2.x style (4-space indentation, canonical order).

use std::fmt::Write as _;

use crate::model::*;
use crate::xml::{Real, XmlWriter, write_cdata};

/// Writes a XAR file as UTF-8 XML text.
pub fn write_xar(file: &XarFile) -> String {
    let mut w = XmlWriter::default();
    w.out
        .push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n");
    for p in &file.prolog {
        w.out.push_str(p);
        w.out.push('\n');
    }
    let name = file.extras.spelling().unwrap_or(file.root.element_name());
    w.open(name);
    w.attr_opt(&file.extras, "xmlns", file.namespace.as_deref());
    w.attr_opt(&file.extras, "xar_version", file.xar_version.as_deref());
    w.unknown_attributes(&file.extras);
    let root_children = file.root.canonical_children();
    w.children(root_children, &file.extras, |w, kind, n| match kind {
        ChildKind::Box if n == 0 => {
            w.write_box(&file.root_box);
            true
        }
        _ => false,
    });
    w.close(name);
    w.out
}

impl XmlWriter {
    fn name(extras: &Extras, kind: ChildKind) -> &str {
        extras.spelling().unwrap_or(kind.element_name())
    }

    /// [`XmlWriter::children`] of an element of kind `parent`: its known children go in
    /// [`ChildKind::canonical_children`] order unless `extras` recorded another.
    fn children_of(
        &mut self,
        parent: ChildKind,
        extras: &Extras,
        item: impl FnMut(&mut XmlWriter, ChildKind, usize) -> bool,
    ) {
        self.children(parent.canonical_children(), extras, item);
    }

    fn write_box(&mut self, b: &BoxDef) {
        let name = Self::name(&b.extras, ChildKind::Box);
        let e = &b.extras;
        self.open(name);
        self.attr(e, "name", &b.name);
        self.attr_num(e, "id", b.id);
        self.attr_num_opt(e, "localization", b.localization);
        self.attr_opt(e, "tooltip", b.tooltip.as_deref());
        self.attr_num_opt(e, "x", b.x);
        self.attr_num_opt(e, "y", b.y);
        self.attr_opt(e, "plugin", b.plugin.as_deref());
        self.attr_opt(e, "robot", b.robot.as_deref());
        self.attr_opt(e, "bitmap_expanded", b.bitmap_expanded.as_deref());
        self.unknown_attributes(e);
        self.children_of(ChildKind::Box, e, |w, kind, n| match kind {
            ChildKind::DialogFile => match (&b.dialog_file, n) {
                (Some(d), 0) => {
                    w.text_element("dialogFile", d);
                    true
                }
                _ => false,
            },
            ChildKind::Bitmap => b.bitmaps.get(n).is_some_and(|t| {
                w.text_element("bitmap", t);
                true
            }),
            ChildKind::Script => once(n, b.script.as_ref(), |s| w.write_script(s)),
            ChildKind::PluginContent => once(n, b.plugin_content.as_deref(), |p| w.raw(p)),
            ChildKind::Input => b.inputs.get(n).is_some_and(|p| {
                w.write_port(p, ChildKind::Input);
                true
            }),
            ChildKind::Output => b.outputs.get(n).is_some_and(|p| {
                w.write_port(p, ChildKind::Output);
                true
            }),
            ChildKind::Parameter => b.parameters.get(n).is_some_and(|p| {
                w.write_parameter(p);
                true
            }),
            ChildKind::Timeline => once(n, b.timeline.as_ref(), |t| w.write_timeline(t)),
            ChildKind::Resource => b.resources.get(n).is_some_and(|r| {
                w.write_resource(r);
                true
            }),
            _ => false,
        });
        self.close(name);
    }

    fn write_script(&mut self, s: &Script) {
        let name = Self::name(&s.extras, ChildKind::Script);
        self.open(name);
        self.attr_num_opt(&s.extras, "language", s.language.map(ScriptLanguage::code));
        self.unknown_attributes(&s.extras);
        self.children_of(ChildKind::Script, &s.extras, |w, kind, n| {
            kind == ChildKind::Content && once(n, s.content.as_ref(), |c| w.write_content(c))
        });
        self.close(name);
    }

    fn write_content(&mut self, c: &ScriptContent) {
        let name = Self::name(&c.extras, ChildKind::Content);
        self.begin_content();
        self.indent();
        self.out.push('<');
        self.out.push_str(name);
        self.unknown_attributes(&c.extras);
        self.out.push('>');
        match &c.raw {
            Some(raw) if super::content::code_of_raw_content(raw) == c.code => {
                self.out.push_str(raw)
            }
            _ => write_cdata(&mut self.out, &c.code),
        }
        let _ = writeln!(self.out, "</{name}>");
    }

    fn write_port<N: Copy + NatureCode>(&mut self, p: &Port<N>, kind: ChildKind) {
        let name = Self::name(&p.extras, kind);
        let e = &p.extras;
        self.open(name);
        self.attr(e, "name", &p.name);
        self.attr_num(e, "type", p.port_type.code());
        self.attr_num_opt(e, "type_size", p.type_size);
        self.attr_num(e, "nature", p.nature.nature_code());
        self.attr_opt(e, "stm_value_name", p.stm_value_name.as_deref());
        self.attr_flag(e, "inner", p.inner);
        self.attr_opt(e, "tooltip", p.tooltip.as_deref());
        self.attr_num(e, "id", p.id);
        self.unknown_attributes(e);
        self.children(&[], e, |_, _, _| false);
        self.close(name);
    }

    fn write_parameter(&mut self, p: &Parameter) {
        let name = Self::name(&p.extras, ChildKind::Parameter);
        let e = &p.extras;
        self.open(name);
        self.attr(e, "name", &p.name);
        self.attr_flag(e, "inherits_from_parent", p.inherits_from_parent);
        self.attr_num(e, "content_type", p.content_type.code());
        self.attr_opt(e, "value", p.value.as_deref());
        self.attr_opt(e, "default_value", p.default_value.as_deref());
        self.attr_num_opt(e, "min", p.min.map(Real));
        self.attr_num_opt(e, "max", p.max.map(Real));
        self.attr_flag(e, "custom_choice", p.custom_choice);
        self.attr_flag(e, "password", p.password);
        self.attr_opt(e, "tooltip", p.tooltip.as_deref());
        self.attr_num(e, "id", p.id);
        self.unknown_attributes(e);
        self.children_of(ChildKind::Parameter, e, |w, kind, n| {
            kind == ChildKind::Choice
                && p.choices.get(n).is_some_and(|c| {
                    let cname = Self::name(&c.extras, ChildKind::Choice);
                    w.open(cname);
                    w.attr(&c.extras, "value", &c.value);
                    w.unknown_attributes(&c.extras);
                    w.children(&[], &c.extras, |_, _, _| false);
                    w.close(cname);
                    true
                })
        });
        self.close(name);
    }

    fn write_resource(&mut self, r: &Resource) {
        let name = Self::name(&r.extras, ChildKind::Resource);
        let e = &r.extras;
        self.open(name);
        self.attr(e, "name", &r.name);
        self.attr(e, "type", &r.lock_type);
        self.attr_num_opt(e, "timeout", r.timeout);
        self.unknown_attributes(e);
        self.children(&[], e, |_, _, _| false);
        self.close(name);
    }

    fn write_timeline(&mut self, t: &Timeline) {
        let name = Self::name(&t.extras, ChildKind::Timeline);
        let e = &t.extras;
        self.open(name);
        self.attr_flag(e, "enable", t.enable);
        self.attr_num_opt(e, "fps", t.fps);
        self.attr_num_opt(e, "start_frame", t.start_frame);
        self.attr_num_opt(e, "end_frame", t.end_frame);
        self.attr_num_opt(e, "size", t.size);
        self.attr_num_opt(
            e,
            "resources_acquisition",
            t.resources_acquisition.map(ResourcesAcquisition::code),
        );
        self.attr_num_opt(e, "scale", t.scale.map(Real));
        self.unknown_attributes(e);
        self.children_of(ChildKind::Timeline, e, |w, kind, n| match kind {
            ChildKind::Watches => once(n, t.watches.then_some(()), |()| {
                w.open("watches");
                w.close("watches");
            }),
            ChildKind::BehaviorLayer => t.layers.get(n).is_some_and(|l| {
                w.write_layer(l);
                true
            }),
            ChildKind::ActuatorList => {
                once(n, t.actuator_list.as_ref(), |l| w.write_actuator_list(l))
            }
            _ => false,
        });
        self.close(name);
    }

    fn write_layer(&mut self, l: &BehaviorLayer) {
        let name = Self::name(&l.extras, ChildKind::BehaviorLayer);
        self.open(name);
        self.attr(&l.extras, "name", &l.name);
        self.attr_flag(&l.extras, "mute", l.mute);
        self.unknown_attributes(&l.extras);
        self.children_of(ChildKind::BehaviorLayer, &l.extras, |w, kind, n| {
            kind == ChildKind::BehaviorKeyframe
                && l.keyframes.get(n).is_some_and(|k| {
                    w.write_keyframe(k);
                    true
                })
        });
        self.close(name);
    }

    fn write_keyframe(&mut self, k: &BehaviorKeyframe) {
        let name = Self::name(&k.extras, ChildKind::BehaviorKeyframe);
        self.open(name);
        self.attr(&k.extras, "name", &k.name);
        self.attr_num(&k.extras, "index", k.index);
        self.attr_opt(&k.extras, "bitmap", k.bitmap.as_deref());
        self.unknown_attributes(&k.extras);
        self.children_of(ChildKind::BehaviorKeyframe, &k.extras, |w, kind, n| {
            kind == ChildKind::Diagram && once(n, k.diagram.as_ref(), |d| w.write_diagram(d))
        });
        self.close(name);
    }

    fn write_diagram(&mut self, d: &Diagram) {
        let name = Self::name(&d.extras, ChildKind::Diagram);
        self.open(name);
        self.attr_num_opt(&d.extras, "scale", d.scale.map(Real));
        self.unknown_attributes(&d.extras);
        self.children_of(ChildKind::Diagram, &d.extras, |w, kind, n| match kind {
            ChildKind::Box => d.boxes.get(n).is_some_and(|b| {
                w.write_box(b);
                true
            }),
            ChildKind::Link => d.links.get(n).is_some_and(|l| {
                w.write_link(l);
                true
            }),
            _ => false,
        });
        self.close(name);
    }

    fn write_link(&mut self, l: &Link) {
        let name = Self::name(&l.extras, ChildKind::Link);
        let e = &l.extras;
        self.open(name);
        self.attr_num(e, "inputowner", l.input_owner);
        self.attr_num(e, "indexofinput", l.index_of_input);
        self.attr_num(e, "outputowner", l.output_owner);
        self.attr_num(e, "indexofoutput", l.index_of_output);
        self.unknown_attributes(e);
        self.children(&[], e, |_, _, _| false);
        self.close(name);
    }

    fn write_actuator_list(&mut self, l: &ActuatorList) {
        let name = Self::name(&l.extras, ChildKind::ActuatorList);
        self.open(name);
        self.attr_opt(&l.extras, "model", l.model.as_deref());
        self.unknown_attributes(&l.extras);
        self.children_of(ChildKind::ActuatorList, &l.extras, |w, kind, n| {
            kind == ChildKind::ActuatorCurve
                && l.curves.get(n).is_some_and(|c| {
                    w.write_curve(c);
                    true
                })
        });
        self.close(name);
    }

    fn write_curve(&mut self, c: &ActuatorCurve) {
        let name = Self::name(&c.extras, ChildKind::ActuatorCurve);
        let e = &c.extras;
        self.open(name);
        self.attr_opt(e, "name", c.name.as_deref());
        self.attr(e, "actuator", &c.actuator);
        self.attr_flag(e, "recordable", c.recordable);
        self.attr_flag(e, "mute", c.mute);
        self.attr_num_opt(e, "unit", c.unit);
        self.attr_flag(e, "alwaysVisible", c.always_visible);
        self.unknown_attributes(e);
        self.children_of(ChildKind::ActuatorCurve, e, |w, kind, n| {
            kind == ChildKind::Key
                && c.keys.get(n).is_some_and(|k| {
                    w.write_key(k);
                    true
                })
        });
        self.close(name);
    }

    fn write_key(&mut self, k: &Key) {
        let name = Self::name(&k.extras, ChildKind::Key);
        let e = &k.extras;
        self.open(name);
        self.attr_num(e, "frame", k.frame);
        self.attr_num(e, "value", Real(k.value));
        self.attr_flag(e, "smooth", k.smooth);
        self.attr_flag(e, "symmetrical", k.symmetrical);
        self.unknown_attributes(e);
        self.children_of(ChildKind::Key, e, |w, kind, n| {
            kind == ChildKind::Tangent
                && k.tangents.get(n).is_some_and(|t| {
                    w.write_tangent(t);
                    true
                })
        });
        self.close(name);
    }

    fn write_tangent(&mut self, t: &Tangent) {
        let name = Self::name(&t.extras, ChildKind::Tangent);
        let e = &t.extras;
        self.open(name);
        self.attr(e, "side", t.side.as_str());
        self.attr_opt(e, "interpType", t.interp_type.as_deref());
        self.attr_num(e, "abscissaParam", Real(t.abscissa_param));
        self.attr_num(e, "ordinateParam", Real(t.ordinate_param));
        self.unknown_attributes(e);
        self.children(&[], e, |_, _, _| false);
        self.close(name);
    }
}

/// Writes the single child of an optional slot: only its 0th item exists.
fn once<T>(n: usize, value: Option<T>, write: impl FnOnce(T)) -> bool {
    match (n, value) {
        (0, Some(v)) => {
            write(v);
            true
        }
        _ => false,
    }
}

/// The integer code of a port nature, for the generic port writer.
pub(crate) trait NatureCode {
    /// The code written in `nature`.
    fn nature_code(self) -> i32;
}

impl NatureCode for InputNature {
    fn nature_code(self) -> i32 {
        self.code()
    }
}

impl NatureCode for OutputNature {
    fn nature_code(self) -> i32 {
        self.code()
    }
}
