//! Split tree to model: [`from_tree`].

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::de::DeserializeOwned;
use toml::Spanned;

use super::layout::{
    BOX_FILE, FORMAT_VERSION, LINKS_FILE, MARKER_FILE, MOTION_FILE, PLUGIN_FILE, RESERVED,
    SCRIPT_FILE, join,
};
use super::repr::{BoxParts, BoxRepr, DiagramRepr, ExtrasRepr, FileRepr, ScriptRepr, TimelineRepr};
use super::text::{Endpoint, Fault, Owner, item_lines, parse_link, parse_motion, port_name};
use crate::error::{Diagnostic, Error, ErrorKind, Result, Severity};
use crate::model::*;
use crate::{FileTree, Parsed, read_xar, write_xar};

/// Box folders nested deeper than this are refused (real behaviors stay under 10).
const MAX_DEPTH: usize = 200;

/// Reads a split tree written by [`super::to_tree`] (or by hand). `name` names the tree in
/// messages (e.g. the folder it came from); errors name the file in the tree, with line and
/// column where there is one.
///
/// Besides its own checks (files, TOML types, link lines naming existing boxes and ports
/// in the right direction), the result is checked by writing it as XAR and reading that
/// back with [`read_xar`], so that it holds exactly what a XAR file may hold (unique ids,
/// well-formed raw XML, ...); problems found that way name the element path but no line.
pub fn from_tree(name: &str, files: &FileTree) -> Result<Parsed<XarFile>> {
    let mut r = TreeReader::new(name, files);
    let value = r.file()?;
    r.leftovers()?;
    r.check_as_xar(&value)?;
    Ok(Parsed {
        value,
        warnings: r.warnings,
    })
}

/// A TOML file being read: where errors about its tables point.
#[derive(Clone, Copy)]
struct Source<'t> {
    path: &'t str,
    text: &'t str,
}

struct TreeReader<'t> {
    name: &'t str,
    files: &'t FileTree,
    /// The box folders inside each folder.
    box_folders: BTreeMap<&'t str, Vec<&'t str>>,
    /// Files read so far.
    consumed: HashSet<&'t str>,
    /// Folders already read as a diagram.
    diagram_folders: HashSet<String>,
    warnings: Vec<Diagnostic>,
}

impl<'t> TreeReader<'t> {
    fn new(name: &'t str, files: &'t FileTree) -> TreeReader<'t> {
        let mut box_folders: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for path in files.keys() {
            if let Some(folder) = path
                .strip_suffix(BOX_FILE)
                .and_then(|f| f.strip_suffix('/'))
            {
                let parent = folder.rsplit_once('/').map_or("", |(p, _)| p);
                box_folders.entry(parent).or_default().push(folder);
            }
        }
        TreeReader {
            name,
            files,
            box_folders,
            consumed: HashSet::new(),
            diagram_folders: HashSet::new(),
            warnings: Vec::new(),
        }
    }

    /// `path` as shown in messages: under the tree's name.
    fn shown(&self, path: &str) -> String {
        let root = self.name.trim_end_matches('/');
        if root.is_empty() {
            path.to_string()
        } else if path.is_empty() {
            root.to_string()
        } else {
            format!("{root}/{path}")
        }
    }

    fn error_at(
        &self,
        kind: ErrorKind,
        src: Source<'_>,
        offset: usize,
        element_path: &str,
        message: impl Into<String>,
    ) -> Error {
        Diagnostic::at_offset(
            Severity::Error,
            kind,
            &self.shown(src.path),
            src.text,
            offset,
            element_path,
            message,
        )
        .into()
    }

    fn error_file(
        &self,
        kind: ErrorKind,
        path: &str,
        element_path: &str,
        message: impl Into<String>,
    ) -> Error {
        let mut d = Diagnostic::file_level(Severity::Error, kind, &self.shown(path), message);
        d.element_path = element_path.to_string();
        d.into()
    }

    /// The text of `path`, if the tree has it.
    fn text(&mut self, path: &str) -> Result<Option<&'t str>> {
        let Some((key, bytes)) = self.files.get_key_value(path) else {
            return Ok(None);
        };
        self.consumed.insert(key.as_str());
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(Some(text)),
            Err(e) => {
                let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or("");
                let src = Source { path, text: valid };
                Err(self.error_at(ErrorKind::NotUtf8, src, valid.len(), "", "not UTF-8 text"))
            }
        }
    }

    /// The text of `path`, which must be there.
    fn required(&mut self, path: &str, element_path: &str, why: &str) -> Result<&'t str> {
        match self.text(path)? {
            Some(text) => Ok(text),
            None => Err(self.error_file(
                ErrorKind::BadStructure,
                path,
                element_path,
                format!("{path} is missing: {why}"),
            )),
        }
    }

    fn parse_toml<T: DeserializeOwned>(&self, src: Source<'_>, element_path: &str) -> Result<T> {
        toml::from_str(src.text).map_err(|e| match e.span() {
            Some(span) => self.error_at(
                ErrorKind::BadValue,
                src,
                span.start,
                element_path,
                e.message(),
            ),
            None => self.error_file(ErrorKind::BadValue, src.path, element_path, e.message()),
        })
    }

    fn file(&mut self) -> Result<XarFile> {
        let text = self.required(MARKER_FILE, "", "it marks the top of a split tree")?;
        let src = Source {
            path: MARKER_FILE,
            text,
        };
        let repr: FileRepr = self.parse_toml(src, "")?;
        if repr.split_format != FORMAT_VERSION {
            return Err(self.error_file(
                ErrorKind::Unsupported,
                MARKER_FILE,
                "",
                format!(
                    "split_format = {} is not supported: this library reads version {FORMAT_VERSION}",
                    repr.split_format
                ),
            ));
        }
        let root_box = self.read_box("", "", 0)?;
        Ok(XarFile {
            root: repr.kind.0,
            namespace: repr.namespace,
            xar_version: repr.xar_version,
            prolog: repr.prolog,
            root_box,
            extras: ExtrasRepr::into_extras(repr.extras),
        })
    }

    /// Reads the box of `folder`; `parent_path` is the element path of the enclosing box.
    fn read_box(&mut self, folder: &str, parent_path: &str, depth: usize) -> Result<BoxDef> {
        let path = join(folder, BOX_FILE);
        if depth > MAX_DEPTH {
            return Err(self.error_file(
                ErrorKind::TooDeep,
                &path,
                parent_path,
                format!("boxes are nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        let text = self.required(&path, parent_path, "every box folder has one")?;
        let src = Source { path: &path, text };
        // Until its name is read, the box is known by its file alone.
        let repr: BoxRepr = self.parse_toml(src, "")?;
        let (mut b, parts) = repr.into_box();
        let element_path = if parent_path.is_empty() {
            b.name.clone()
        } else {
            format!("{parent_path}/{}", b.name)
        };
        let BoxParts {
            script,
            diagram,
            timeline,
        } = parts;
        b.script = self.script(folder, script, src, &element_path)?;
        b.plugin_content = self.text(&join(folder, PLUGIN_FILE))?.map(str::to_string);
        b.timeline = self.timeline(folder, &b, diagram, timeline, src, &element_path, depth)?;
        Ok(b)
    }

    /// The script: `script.py` and the `[script]` table.
    fn script(
        &mut self,
        folder: &str,
        repr: Option<Spanned<ScriptRepr>>,
        src: Source<'_>,
        element_path: &str,
    ) -> Result<Option<Script>> {
        let code = self.text(&join(folder, SCRIPT_FILE))?.map(str::to_string);
        let Some(repr) = repr else {
            return Ok(code.map(|code| Script {
                language: Some(ScriptLanguage::Python),
                content: Some(ScriptContent {
                    code,
                    ..ScriptContent::default()
                }),
                extras: Extras::default(),
            }));
        };
        let at = repr.span().start;
        let r = repr.into_inner();
        let content = match code {
            Some(code) => Some(ScriptContent {
                code,
                raw: r.raw,
                extras: ExtrasRepr::into_extras(r.content_extras),
            }),
            None if r.raw.is_some() || r.content_extras.is_some() => {
                return Err(self.error_at(
                    ErrorKind::BadStructure,
                    src,
                    at,
                    element_path,
                    format!("[script] has raw or content_extras, which belong to the code, but there is no {SCRIPT_FILE}"),
                ));
            }
            None => None,
        };
        Ok(Some(Script {
            language: r.language.map(|l| l.0),
            content,
            extras: ExtrasRepr::into_extras(r.extras),
        }))
    }

    /// The timeline: `[diagram]` or `[timeline]`, the diagrams, and `motion.txt`.
    #[allow(clippy::too_many_arguments)]
    fn timeline(
        &mut self,
        folder: &str,
        b: &BoxDef,
        diagram: Option<Spanned<DiagramRepr>>,
        timeline: Option<Spanned<TimelineRepr>>,
        src: Source<'_>,
        element_path: &str,
        depth: usize,
    ) -> Result<Option<Timeline>> {
        let motion_path = join(folder, MOTION_FILE);
        let motion = self.text(&motion_path)?;
        let mut t = match (diagram, timeline) {
            (Some(_), Some(t)) => {
                return Err(self.error_at(
                    ErrorKind::BadStructure,
                    src,
                    t.span().start,
                    element_path,
                    "a box has [diagram] (a plain flow diagram) or [timeline], not both",
                ));
            }
            (Some(d), None) => {
                let at = d.span().start;
                let d = self.diagram(folder, d.into_inner(), at, b, src, element_path, depth)?;
                Timeline::holder(d)
            }
            (None, Some(t)) => self.full_timeline(folder, t, b, src, element_path, depth)?,
            (None, None) if motion.is_some() => {
                return Err(self.error_file(
                    ErrorKind::BadStructure,
                    &motion_path,
                    element_path,
                    format!(
                        "{MOTION_FILE} belongs to a timeline, but box.toml has no [timeline] table"
                    ),
                ));
            }
            (None, None) => return Ok(None),
        };
        if let Some(text) = motion {
            let list = parse_motion(text).map_err(|f| {
                let src = Source {
                    path: &motion_path,
                    text,
                };
                self.error_at(ErrorKind::BadValue, src, f.offset, element_path, f.message)
            })?;
            t.actuator_list = Some(list);
        }
        Ok(Some(t))
    }

    fn full_timeline(
        &mut self,
        folder: &str,
        repr: Spanned<TimelineRepr>,
        b: &BoxDef,
        src: Source<'_>,
        element_path: &str,
        depth: usize,
    ) -> Result<Timeline> {
        let at = repr.span().start;
        let (mut t, layers) = repr.into_inner().into_timeline();
        for l in layers {
            let mut keyframes = Vec::with_capacity(l.keyframe.len());
            for k in l.keyframe {
                let diagram = match (k.diagram, k.folder) {
                    (None, Some(f)) => {
                        return Err(self.error_at(
                            ErrorKind::BadStructure,
                            src,
                            f.span().start,
                            element_path,
                            "folder names where a keyframe's diagram is, but the keyframe has no diagram table",
                        ));
                    }
                    (None, None) => None,
                    (Some(d), None) => {
                        Some(self.diagram(folder, d, at, b, src, element_path, depth)?)
                    }
                    (Some(d), Some(f)) => {
                        let f_at = f.span().start;
                        let diagram_folder = self.keyframe_folder(folder, f, src, element_path)?;
                        Some(self.diagram(&diagram_folder, d, f_at, b, src, element_path, depth)?)
                    }
                };
                keyframes.push(BehaviorKeyframe {
                    name: k.name,
                    index: k.index,
                    bitmap: k.bitmap,
                    diagram,
                    extras: ExtrasRepr::into_extras(k.extras),
                });
            }
            t.layers.push(BehaviorLayer {
                name: l.name,
                mute: l.mute,
                keyframes,
                extras: ExtrasRepr::into_extras(l.extras),
            });
        }
        Ok(t)
    }

    /// The folder of a keyframe's diagram: `relative` inside the box folder.
    fn keyframe_folder(
        &self,
        folder: &str,
        relative: Spanned<String>,
        src: Source<'_>,
        element_path: &str,
    ) -> Result<String> {
        let at = relative.span().start;
        let relative = relative.into_inner();
        let bad_segment = |s: &str| s.is_empty() || s == "." || s == ".." || RESERVED.contains(&s);
        if relative.contains('\\') || relative.split('/').any(bad_segment) {
            return Err(self.error_at(
                ErrorKind::BadValue,
                src,
                at,
                element_path,
                format!("folder {relative:?} is not a relative path of plain folder names inside the box folder"),
            ));
        }
        Ok(join(folder, &relative))
    }

    /// Reads the diagram kept in `folder`: its box subfolders and `links.txt`. `parent` is
    /// the box that holds it; `at` is where its table is in `src`.
    #[allow(clippy::too_many_arguments)]
    fn diagram(
        &mut self,
        folder: &str,
        repr: DiagramRepr,
        at: usize,
        parent: &BoxDef,
        src: Source<'_>,
        element_path: &str,
        depth: usize,
    ) -> Result<Diagram> {
        if !self.diagram_folders.insert(folder.to_string()) {
            return Err(self.error_at(
                ErrorKind::BadStructure,
                src,
                at,
                element_path,
                format!(
                    "two diagrams are kept in the same folder {:?}",
                    self.shown(folder)
                ),
            ));
        }
        let child_folders = self.box_folders.get(folder).cloned().unwrap_or_default();
        let mut children: Vec<(&str, BoxDef)> = Vec::with_capacity(child_folders.len());
        let mut ids: HashMap<i32, &str> = HashMap::with_capacity(child_folders.len());
        for child in child_folders {
            let b = self.read_box(child, element_path, depth + 1)?;
            if let Some(first) = ids.insert(b.id, child) {
                return Err(self.error_file(
                    ErrorKind::DuplicateId,
                    &join(child, BOX_FILE),
                    element_path,
                    format!(
                        "box folders {:?} and {:?} have the same id {} in one diagram",
                        self.shown(first),
                        self.shown(child),
                        b.id
                    ),
                ));
            }
            children.push((child, b));
        }
        let boxes = match repr.boxes {
            None => {
                children.sort_by_key(|(_, b)| b.id);
                children.into_iter().map(|(_, b)| b).collect()
            }
            Some(order) => {
                let at = order.span().start;
                let order = order.into_inner();
                let mut slots: Vec<Option<BoxDef>> =
                    children.into_iter().map(|(_, b)| Some(b)).collect();
                let mut boxes = Vec::with_capacity(slots.len());
                for id in &order {
                    let found = slots
                        .iter_mut()
                        .find(|s| s.as_ref().is_some_and(|b| b.id == *id));
                    match found.and_then(Option::take) {
                        Some(b) => boxes.push(b),
                        None => {
                            return Err(self.error_at(
                                ErrorKind::BadStructure,
                                src,
                                at,
                                element_path,
                                format!("boxes lists id {id}, but no other box folder of this diagram has that id"),
                            ));
                        }
                    }
                }
                if let Some(b) = slots.into_iter().flatten().next() {
                    return Err(self.error_at(
                        ErrorKind::BadStructure,
                        src,
                        at,
                        element_path,
                        format!(
                            "boxes does not list id {} (box {:?}), which is in this diagram",
                            b.id, b.name
                        ),
                    ));
                }
                boxes
            }
        };
        let links = self.links(folder, parent, &boxes, element_path)?;
        Ok(Diagram {
            scale: repr.scale.map(|n| n.0),
            boxes,
            links,
            extras: ExtrasRepr::into_extras(repr.extras),
        })
    }

    /// Reads `links.txt` of the diagram in `folder`.
    fn links(
        &mut self,
        folder: &str,
        parent: &BoxDef,
        boxes: &[BoxDef],
        element_path: &str,
    ) -> Result<Vec<Link>> {
        let path = join(folder, LINKS_FILE);
        let Some(text) = self.text(&path)? else {
            return Ok(Vec::new());
        };
        let src = Source { path: &path, text };
        let mut links = Vec::new();
        for (start, line) in item_lines(text) {
            let fail = |kind, f: Fault| {
                self.error_at(kind, src, start + f.offset, element_path, f.message)
            };
            let l = parse_link(line).map_err(|f| fail(ErrorKind::BadValue, f))?;
            let (output_owner, index_of_output) =
                resolve(&l.source, true, parent, boxes).map_err(|(k, f)| fail(k, f))?;
            let (input_owner, index_of_input) =
                resolve(&l.destination, false, parent, boxes).map_err(|(k, f)| fail(k, f))?;
            links.push(Link {
                input_owner,
                index_of_input,
                output_owner,
                index_of_output,
                extras: l.extras,
            });
        }
        Ok(links)
    }

    /// Fails on box folders that are not part of the behavior; warns about other files of
    /// this format that were not read.
    fn leftovers(&mut self) -> Result<()> {
        for path in self.files.keys() {
            if self.consumed.contains(path.as_str()) {
                continue;
            }
            let file = path.rsplit('/').next().unwrap_or(path);
            if file == BOX_FILE {
                return Err(self.error_file(
                    ErrorKind::BadStructure,
                    path,
                    "",
                    "this box is not part of the behavior: the folder above it is not the folder of a diagram (a box with [diagram], or a keyframe's folder)",
                ));
            }
            if RESERVED.contains(&file) {
                self.warnings.push(Diagnostic::file_level(
                    Severity::Warning,
                    ErrorKind::Unusual,
                    &self.shown(path),
                    "ignored: this folder is not a box or diagram folder of the behavior",
                ));
            }
        }
        Ok(())
    }

    /// Runs the XAR reader's checks on `x` by writing it as XAR and reading that back.
    fn check_as_xar(&mut self, x: &XarFile) -> Result<()> {
        let shown = self.shown("");
        let shown = if shown.is_empty() {
            "split tree".to_string()
        } else {
            shown
        };
        let relocate = |d: Diagnostic| Diagnostic {
            file: shown.clone(),
            position: None,
            source_line: None,
            message: format!("{} (found when checking the behavior as XAR)", d.message),
            ..d
        };
        let xml = write_xar(x);
        let parsed = read_xar(&shown, xml.as_bytes()).map_err(|e| Error::from(relocate(*e.0)))?;
        self.warnings
            .extend(parsed.warnings.into_iter().map(relocate));
        if parsed.value != *x {
            self.warnings.push(Diagnostic::file_level(
                Severity::Warning,
                ErrorKind::Unusual,
                &shown,
                "this behavior changes when written as XAR and read back (its extras hold XML that reads as known elements or attributes)",
            ));
        }
        Ok(())
    }
}

/// The (owner id, port id) of a link end, checked against the diagram: the box and port
/// exist, carry the names written, and can be a source (`source`) or a destination.
fn resolve(
    end: &Endpoint,
    source: bool,
    parent: &BoxDef,
    boxes: &[BoxDef],
) -> std::result::Result<(i32, i32), (ErrorKind, Fault)> {
    let fail = |kind, message: String| {
        Err((
            kind,
            Fault {
                offset: end.offset,
                message,
            },
        ))
    };
    let (owner, b) = match &end.owner {
        Owner::Parent => (0, parent),
        Owner::Child { name, id } => match boxes.iter().find(|b| b.id == *id) {
            None => {
                return fail(
                    ErrorKind::DanglingLink,
                    format!(
                        "the link names box {name:?}#{id}, but this diagram has no box with id {id}"
                    ),
                );
            }
            Some(b) if b.name != *name => {
                return fail(
                    ErrorKind::DanglingLink,
                    format!("box #{id} is named {:?}, not {name:?}", b.name),
                );
            }
            Some(b) => (*id, b),
        },
    };
    let who = if owner == 0 {
        format!("the enclosing box {:?}", b.name)
    } else {
        format!("box {:?}#{owner}", b.name)
    };
    let Some(port) = b.port(end.port) else {
        return fail(
            ErrorKind::DanglingLink,
            format!("{who} has no port #{}", end.port),
        );
    };
    if port_name(port) != end.port_name {
        return fail(
            ErrorKind::DanglingLink,
            format!(
                "port #{} of {who} is named {:?}, not {:?}",
                end.port,
                port_name(port),
                end.port_name
            ),
        );
    }
    let fits = matches!(
        (source, owner == 0, port),
        (true, true, PortRef::Input(_))
            | (true, false, PortRef::Output(_))
            | (false, true, PortRef::Output(_))
            | (false, false, PortRef::Input(_) | PortRef::Parameter(_))
    );
    if !fits {
        let role = if source {
            "a source: use an output of a box or an input of parent"
        } else {
            "a destination: use an input or parameter of a box or an output of parent"
        };
        return fail(
            ErrorKind::LinkDirection,
            format!("port {:?} of {who} cannot be {role}", end.port_name),
        );
    }
    Ok((owner, end.port))
}
