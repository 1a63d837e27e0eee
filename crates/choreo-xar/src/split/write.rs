//! Model to split tree: [`to_tree`].

use std::collections::HashSet;

use serde::Serialize;
use toml::Spanned;

use super::layout::{
    BOX_FILE, LINKS_FILE, MARKER_FILE, MOTION_FILE, PLUGIN_FILE, RESERVED, SCRIPT_FILE, join,
};
use super::repr::{
    BoxRepr, DiagramRepr, ExtrasRepr, FileRepr, KeyframeRepr, LayerRepr, ScriptRepr, TimelineRepr,
};
use super::text::{write_links, write_motion};
use crate::FileTree;
use crate::model::*;

/// Writes a behavior as a split tree: `behavior.toml` and the root box's files at the top,
/// one subfolder per child box. [`super::from_tree`] reads it back unchanged.
pub fn to_tree(x: &XarFile) -> FileTree {
    let mut w = Writer::default();
    w.put_toml(MARKER_FILE.to_string(), &FileRepr::of(x));
    w.write_box("", &x.root_box);
    w.files
}

#[derive(Default)]
struct Writer {
    files: FileTree,
}

/// A table value without a source position (written, not read).
fn unplaced<T>(value: T) -> Spanned<T> {
    Spanned::new(0..0, value)
}

impl Writer {
    fn put(&mut self, path: String, text: String) {
        self.files.insert(path, text.into_bytes());
    }

    fn put_toml<T: Serialize>(&mut self, path: String, value: &T) {
        // The structures hold only strings, integers, finite numbers and tables, which
        // TOML always represents; the fallback only keeps this function total.
        let text = toml::to_string(value).unwrap_or_else(|e| format!("# not written: {e}\n"));
        self.put(path, text);
    }

    fn write_box(&mut self, folder: &str, b: &BoxDef) {
        let mut repr = BoxRepr::of(b);
        if let Some(s) = &b.script {
            repr.script = ScriptRepr::of(s).map(unplaced);
            if let Some(c) = &s.content {
                self.put(join(folder, SCRIPT_FILE), c.code.clone());
            }
        }
        if let Some(p) = &b.plugin_content {
            self.put(join(folder, PLUGIN_FILE), p.clone());
        }
        let mut diagrams: Vec<(String, &Diagram)> = Vec::new();
        if let Some(t) = &b.timeline {
            if let Some(d) = t.holder_diagram() {
                repr.diagram = Some(unplaced(DiagramRepr::of(d)));
                diagrams.push((folder.to_string(), d));
            } else {
                repr.timeline = Some(unplaced(timeline_repr(folder, t, &mut diagrams)));
            }
            if let Some(list) = &t.actuator_list {
                self.put(join(folder, MOTION_FILE), write_motion(list));
            }
        }
        self.put_toml(join(folder, BOX_FILE), &repr);
        for (diagram_folder, d) in diagrams {
            if let Some(links) = write_links(d, b) {
                self.put(join(&diagram_folder, LINKS_FILE), links);
            }
            let mut taken = Taken::default();
            for child in &d.boxes {
                let name = taken.unique(format!("{:02}-{}", child.id, safe(&child.name, "box")));
                self.write_box(&join(&diagram_folder, &name), child);
            }
        }
    }
}

/// The `[timeline]` table of `t`. A timeline with a single diagram keeps it in the box
/// folder; otherwise each keyframe's diagram gets `<layer>/<index>-<keyframe>/`. The
/// diagrams and their folders are added to `diagrams`.
fn timeline_repr<'a>(
    folder: &str,
    t: &'a Timeline,
    diagrams: &mut Vec<(String, &'a Diagram)>,
) -> TimelineRepr {
    let own_folders = t
        .layers
        .iter()
        .flat_map(|l| &l.keyframes)
        .filter(|k| k.diagram.is_some())
        .count()
        > 1;
    let mut layer_names = Taken::default();
    let layers = t
        .layers
        .iter()
        .map(|l| {
            let layer_folder = layer_names.unique(safe(&l.name, "layer"));
            let mut keyframe_names = Taken::default();
            let keyframe = l
                .keyframes
                .iter()
                .map(|k| {
                    let relative = match &k.diagram {
                        Some(d) if own_folders => {
                            let name = keyframe_names.unique(format!(
                                "{}-{}",
                                k.index,
                                safe(&k.name, "keyframe")
                            ));
                            let relative = format!("{layer_folder}/{name}");
                            diagrams.push((join(folder, &relative), d));
                            Some(relative)
                        }
                        Some(d) => {
                            diagrams.push((folder.to_string(), d));
                            None
                        }
                        None => None,
                    };
                    KeyframeRepr {
                        name: k.name.clone(),
                        index: k.index,
                        bitmap: k.bitmap.clone(),
                        folder: relative.map(unplaced),
                        diagram: k.diagram.as_ref().map(DiagramRepr::of),
                        extras: ExtrasRepr::of(&k.extras),
                    }
                })
                .collect();
            LayerRepr {
                name: l.name.clone(),
                mute: l.mute,
                keyframe,
                extras: ExtrasRepr::of(&l.extras),
            }
        })
        .collect();
    TimelineRepr::of(t, layers)
}

/// Folder names already used in one folder, compared without case (for case-insensitive
/// file systems); the format's file names count as used.
#[derive(Default)]
struct Taken(HashSet<String>);

impl Taken {
    /// `base`, or `base~2`, `base~3`, ... if it is taken.
    fn unique(&mut self, base: String) -> String {
        let mut candidate = base.clone();
        let mut n = 1;
        while RESERVED.contains(&candidate.as_str()) || !self.0.insert(candidate.to_lowercase()) {
            n += 1;
            candidate = format!("{base}~{n}");
        }
        candidate
    }
}

/// Longest folder name made from a box, layer or keyframe name.
const MAX_NAME: usize = 32;

/// `name` as a portable folder name: ASCII letters, digits, `-`, `_` and inner `.`; every
/// other run of characters becomes one `_`. `fallback` when nothing is left.
fn safe(name: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
            c
        } else {
            '_'
        };
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
        if out.len() >= MAX_NAME {
            break;
        }
    }
    let trimmed = out.trim_matches(|c| c == '_' || c == '.');
    if trimmed.is_empty() {
        fallback.to_string()
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_are_portable_and_unique() {
        assert_eq!(safe("Say Text", "box"), "Say_Text");
        assert_eq!(safe("Speech Reco.", "box"), "Speech_Reco");
        assert_eq!(safe("Motor On/Off", "box"), "Motor_On_Off");
        assert_eq!(safe("..", "box"), "box");
        assert_eq!(safe("Gangnam Staïle", "box"), "Gangnam_Sta_le");
        let mut t = Taken::default();
        assert_eq!(t.unique("03-Say".into()), "03-Say");
        assert_eq!(t.unique("03-say".into()), "03-say~2");
        assert_eq!(t.unique("box.toml".into()), "box.toml~2");
    }
}
