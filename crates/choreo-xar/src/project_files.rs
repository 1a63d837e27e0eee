//! Project files: `.pml`, `manifest.xml`, `.dlg` and `.top`.
//!
//! `.pml` and `manifest.xml` are read into a small lossless XML tree ([`XmlDocument`]: every
//! element, attribute, comment and text kept, in order) plus typed fields for what runtimes
//! need ([`Pml`], [`Manifest`]). Writing ([`write_pml`], [`write_manifest`]) writes the tree,
//! so reading then writing gives the same XML up to insignificant whitespace and attribute
//! quoting; unknown elements and attributes survive. The typed fields are what the document
//! said when it was read: to change a file, edit [`XmlDocument`] and write it.
//!
//! `.dlg` ([`read_dlg`]) and `.top` ([`read_top`]) are small line-oriented texts, read into
//! [`Dialog`] and [`Topic`] with line-numbered errors.
//!
//! The readers sniff the content: a `.pml` holding Python source, or a `.dlg` holding a
//! `.pml` document, is refused with an error saying what the file really holds.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::Parsed;
use crate::error::{Diagnostic, Error, ErrorKind, Result, Severity};
use crate::model::Extras;
use crate::source::{FileKind, content_mismatch, kind_of_root};
use crate::xml::{Cursor, Element, Item, decode_text, escape_attribute};

// ---------------------------------------------------------------------------------------------
// Lossless XML tree

/// A whole XML file kept without loss: declaration, comments around the root, and the tree.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct XmlDocument {
    /// The `<?xml ...?>` declaration as written, if any.
    pub declaration: Option<String>,
    /// Comments, processing instructions and doctype before the root, verbatim.
    pub prolog: Vec<String>,
    /// The root element.
    pub root: XmlElement,
    /// Comments and processing instructions after the root, verbatim.
    pub epilog: Option<String>,
    /// How the file was laid out, reused when writing.
    pub style: XmlStyle,
}

/// Layout details of an XML file, so that writing a file read from disk changes little.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlStyle {
    /// One level of indentation (`.pml` files use four spaces, `manifest.xml` one).
    pub indent: String,
    /// Empty elements are written `<a />` (true) or `<a/>` (false).
    pub space_before_slash: bool,
}

impl Default for XmlStyle {
    fn default() -> XmlStyle {
        XmlStyle {
            indent: "    ".to_string(),
            space_before_slash: true,
        }
    }
}

/// One element: name as written, attributes in document order, children.
#[derive(Debug, Clone, Default)]
pub struct XmlElement {
    /// The name as written, with any namespace prefix.
    pub name: String,
    /// Attributes as (name as written, unescaped value), in document order.
    pub attributes: Vec<(String, String)>,
    /// Child elements and the markup between them.
    pub children: Vec<XmlNode>,
    /// Byte offset of the start tag in the source (for messages; not compared).
    offset: usize,
}

impl PartialEq for XmlElement {
    fn eq(&self, other: &XmlElement) -> bool {
        self.name == other.name
            && self.attributes == other.attributes
            && self.children == other.children
    }
}

/// A child of an [`XmlElement`].
#[derive(Debug, Clone, PartialEq)]
pub enum XmlNode {
    /// A child element.
    Element(XmlElement),
    /// Text, entity references, CDATA sections and comments between child elements, as
    /// written (escaped), without the whitespace around them.
    Markup(String),
}

impl XmlElement {
    /// An element with no attributes and no children.
    pub fn new(name: impl Into<String>) -> XmlElement {
        XmlElement {
            name: name.into(),
            ..XmlElement::default()
        }
    }

    /// The byte offset of its start tag in the text it was read from (after any byte-order
    /// mark); 0 for an element built in memory. For messages: turn it into a line and column
    /// with [`crate::TextPosition::of_offset`].
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The name without its namespace prefix.
    pub fn local_name(&self) -> &str {
        self.name.rsplit(':').next().unwrap_or(&self.name)
    }

    /// The value of attribute `name` (matched exactly, else case-insensitively).
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == name)
            .or_else(|| {
                self.attributes
                    .iter()
                    .find(|(k, _)| !k.contains(':') && k.eq_ignore_ascii_case(name))
            })
            .map(|(_, v)| v.as_str())
    }

    /// The child elements.
    pub fn elements(&self) -> impl Iterator<Item = &XmlElement> {
        self.children.iter().filter_map(|c| match c {
            XmlNode::Element(e) => Some(e),
            XmlNode::Markup(_) => None,
        })
    }

    /// The child elements whose local name is `name` (case-insensitively).
    pub fn elements_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s XmlElement> {
        self.elements()
            .filter(move |e| e.local_name().eq_ignore_ascii_case(name))
    }

    /// The first child element named `name`.
    pub fn element(&self, name: &str) -> Option<&XmlElement> {
        self.elements()
            .find(|e| e.local_name().eq_ignore_ascii_case(name))
    }

    /// The character data and CDATA directly inside this element (comments left out),
    /// trimmed.
    pub fn text(&self) -> String {
        let mut raw = String::new();
        for c in &self.children {
            if let XmlNode::Markup(m) = c {
                raw.push_str(m);
            }
        }
        crate::xar::code_of_raw_content(&raw).trim().to_string()
    }
}

impl XmlDocument {
    /// Reads an XML file into a lossless tree (no check of what the root is).
    pub fn parse(file: &str, bytes: &[u8]) -> Result<XmlDocument> {
        parse_document(file, decode_text(file, bytes)?)
    }

    /// Writes the document: the declaration, the tree indented with [`XmlStyle::indent`],
    /// text-only elements on one line.
    pub fn to_xml(&self) -> String {
        let mut out = String::new();
        if let Some(d) = &self.declaration {
            out.push_str(d);
            out.push('\n');
        }
        for p in &self.prolog {
            out.push_str(p);
            out.push('\n');
        }
        write_element(&mut out, &self.root, 0, &self.style);
        if let Some(e) = &self.epilog {
            out.push_str(e);
            out.push('\n');
        }
        out
    }
}

fn write_element(out: &mut String, el: &XmlElement, depth: usize, style: &XmlStyle) {
    let indent = |out: &mut String, depth: usize| {
        for _ in 0..depth {
            out.push_str(&style.indent);
        }
    };
    indent(out, depth);
    out.push('<');
    out.push_str(&el.name);
    for (k, v) in &el.attributes {
        let _ = write!(out, " {k}=\"");
        escape_attribute(out, v);
        out.push('"');
    }
    if el.children.is_empty() {
        out.push_str(if style.space_before_slash {
            " />\n"
        } else {
            "/>\n"
        });
        return;
    }
    out.push('>');
    if el.elements().next().is_none() {
        for c in &el.children {
            if let XmlNode::Markup(m) = c {
                out.push_str(m);
            }
        }
    } else {
        out.push('\n');
        for c in &el.children {
            match c {
                XmlNode::Element(e) => write_element(out, e, depth + 1, style),
                XmlNode::Markup(m) => {
                    indent(out, depth + 1);
                    out.push_str(m);
                    out.push('\n');
                }
            }
        }
        indent(out, depth);
    }
    let _ = writeln!(out, "</{}>", el.name);
}

/// The `<?xml ...?>` declaration at the start of `text`, if any.
fn declaration_of(text: &str) -> Option<String> {
    let rest = text.trim_start();
    let after = rest.strip_prefix("<?xml")?;
    if !after.starts_with(|c: char| c.is_ascii_whitespace()) {
        return None;
    }
    let end = rest.find("?>")?;
    Some(rest[..end + 2].to_string())
}

fn parse_document(file: &str, text: &str) -> Result<XmlDocument> {
    let declaration = declaration_of(text);
    let mut cur = Cursor::new(file, text)?;
    let mut prolog = Vec::new();
    let root = cur.root_element(&mut prolog)?;
    let mut builder = TreeBuilder::default();
    let root = builder.element(&mut cur, root, 0)?;
    let end = cur.consumed();
    cur.expect_document_end()?;
    let epilog = text
        .get(end..)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let defaults = XmlStyle::default();
    Ok(XmlDocument {
        declaration,
        prolog,
        root,
        epilog,
        style: XmlStyle {
            indent: builder.indent.unwrap_or(defaults.indent),
            space_before_slash: builder
                .space_before_slash
                .unwrap_or(defaults.space_before_slash),
        },
    })
}

/// Builds an [`XmlElement`] tree from a [`Cursor`], noting the layout on the way.
#[derive(Default)]
struct TreeBuilder {
    indent: Option<String>,
    space_before_slash: Option<bool>,
}

impl TreeBuilder {
    fn element<'a>(
        &mut self,
        cur: &mut Cursor<'a>,
        el: Element<'a>,
        depth: usize,
    ) -> Result<XmlElement> {
        let mut extras = Extras::default();
        cur.attributes(&el)?.finish(&mut extras);
        let mut node = XmlElement {
            name: el.name().to_string(),
            attributes: extras.attributes().to_vec(),
            children: Vec::new(),
            offset: el.offset,
        };
        let text = cur.text();
        if el.empty {
            if self.space_before_slash.is_none() {
                let tag = text.get(..cur.consumed()).unwrap_or("");
                let before = tag.trim_end_matches("/>");
                self.space_before_slash = Some(before.ends_with(|c: char| c.is_whitespace()));
            }
            return Ok(node);
        }
        // The span of markup (text, comments, CDATA) seen since the last child element.
        let mut markup: Option<(usize, usize)> = None;
        let flush = |markup: &mut Option<(usize, usize)>, children: &mut Vec<XmlNode>| {
            if let Some((start, end)) = markup.take() {
                children.push(XmlNode::Markup(
                    text.get(start..end).unwrap_or("").to_string(),
                ));
            }
        };
        loop {
            match cur.next_item()? {
                Item::Misc(raw) => {
                    let end = cur.consumed();
                    let start = end.saturating_sub(raw.len());
                    markup = Some((markup.map_or(start, |m| m.0), end));
                }
                Item::Element(child) => {
                    flush(&mut markup, &mut node.children);
                    if depth == 0 && self.indent.is_none() {
                        let before = text.get(..child.offset).unwrap_or("");
                        let line = before.rsplit('\n').next().unwrap_or("");
                        if before.contains('\n') && line.chars().all(|c| c == ' ' || c == '\t') {
                            self.indent = Some(line.to_string());
                        }
                    }
                    let child = self.element(cur, child, depth + 1)?;
                    node.children.push(XmlNode::Element(child));
                }
                Item::End => {
                    flush(&mut markup, &mut node.children);
                    return Ok(node);
                }
            }
        }
    }
}

/// Reads `bytes` as the XML document of a `kind` file whose root must be `root_name`.
fn read_document<'b>(
    file: &str,
    bytes: &'b [u8],
    kind: FileKind,
    root_name: &str,
) -> Result<(XmlDocument, &'b str)> {
    if let Some(e) = content_mismatch(file, bytes, kind) {
        return Err(e);
    }
    let text = decode_text(file, bytes)?;
    let document = parse_document(file, text)?;
    let root = &document.root;
    if root.local_name() != root_name {
        let hint = kind_of_root(root.local_name())
            .filter(|k| *k != kind)
            .map(|k| format!(": this is {}", k.describe()))
            .unwrap_or_default();
        return Err(Diagnostic::at_offset(
            Severity::Error,
            ErrorKind::WrongRoot,
            file,
            text,
            root.offset,
            "",
            format!(
                "root element is <{}>, expected <{root_name}> ({}){hint}",
                root.name,
                kind.describe()
            ),
        )
        .into());
    }
    Ok((document, text))
}

/// Reads the typed fields out of a tree, with errors placed in the source.
struct Extract<'t> {
    file: &'t str,
    text: &'t str,
    warnings: Vec<Diagnostic>,
}

impl Extract<'_> {
    fn diagnostic(
        &self,
        severity: Severity,
        el: &XmlElement,
        path: &str,
        kind: ErrorKind,
        message: String,
    ) -> Diagnostic {
        Diagnostic::at_offset(
            severity, kind, self.file, self.text, el.offset, path, message,
        )
    }

    /// The `src` of the `.pml`'s `Manifest` element, the first if there are several (a
    /// warning then).
    fn manifest_src(&mut self, root: &XmlElement, p: &str) -> Result<Option<String>> {
        let mut manifest = None;
        for (i, m) in root.elements_named("Manifest").enumerate() {
            let path = format!("{p}/{}", m.name);
            let src = self.required(m, &path, "src")?;
            if i > 0 {
                self.warn(
                    m,
                    &path,
                    ErrorKind::BadStructure,
                    "a second Manifest element; the first one is used".to_string(),
                );
            } else {
                manifest = Some(src);
            }
        }
        Ok(manifest)
    }

    fn warn(&mut self, el: &XmlElement, path: &str, kind: ErrorKind, message: String) {
        let d = self.diagnostic(Severity::Warning, el, path, kind, message);
        self.warnings.push(d);
    }

    fn required(&self, el: &XmlElement, path: &str, name: &str) -> Result<String> {
        match el.attribute(name) {
            Some(v) => Ok(v.to_string()),
            None => Err(self
                .diagnostic(
                    Severity::Error,
                    el,
                    path,
                    ErrorKind::MissingAttribute,
                    format!("attribute {name} is required"),
                )
                .into()),
        }
    }

    /// Reads every `<item>` of every `<list>` child of `parent` (at `path`) with `read`,
    /// which gets the element and its path (`Package/Dialogs/Dialog[2]`).
    fn items<T>(
        &self,
        parent: &XmlElement,
        path: &str,
        list: &str,
        item: &str,
        mut read: impl FnMut(&XmlElement, &str) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        for l in parent.elements_named(list) {
            for el in l.elements_named(item) {
                let p = format!("{path}/{}/{}[{}]", l.name, el.name, out.len() + 1);
                out.push(read(el, &p)?);
            }
        }
        Ok(out)
    }
}

fn attr(el: &XmlElement, name: &str) -> Option<String> {
    el.attribute(name).map(str::to_string)
}

// ---------------------------------------------------------------------------------------------
// .pml

/// A Choregraphe project file (`<Package name format_version>`).
#[derive(Debug, Clone, PartialEq)]
pub struct Pml {
    /// `Package@name`: the project name.
    pub name: String,
    /// `Package@format_version` (`4` or `5`).
    pub format_version: Option<String>,
    /// `Manifest@src`, relative to the `.pml`'s folder (`manifest.xml`).
    pub manifest: Option<String>,
    /// `BehaviorDescriptions/BehaviorDescription`.
    pub behaviors: Vec<BehaviorDescription>,
    /// `Dialogs/Dialog`: `.dlg` files.
    pub dialogs: Vec<FileRef>,
    /// `Resources/File`: every other file of the project.
    pub resources: Vec<FileRef>,
    /// `Topics/Topic`: `.top` files.
    pub topics: Vec<TopicRef>,
    /// `Translations/Translation`: Qt `.ts` files.
    pub translations: Vec<TranslationRef>,
    /// `IgnoredPaths/Path@src`.
    pub ignored_paths: Vec<String>,
    /// qibuild additions (`<qibuild name>`, `<qipython name>`, `<qilinguist name>`).
    pub qibuild: Vec<QiProject>,
    /// The whole file, written back by [`write_pml`].
    pub document: XmlDocument,
}

/// A `BehaviorDescription`: one behavior of the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BehaviorDescription {
    /// `name` (always `behavior` in real files).
    pub name: Option<String>,
    /// `src`: the behavior's folder, relative to the `.pml`'s folder (`.` for the same folder).
    pub src: String,
    /// `xar`: the file name in that folder (`behavior.xar` when absent).
    pub xar: Option<String>,
}

impl BehaviorDescription {
    /// The XAR file, relative to the `.pml`'s folder: `src/xar`.
    pub fn xar_path(&self) -> String {
        in_folder(&self.src, self.xar.as_deref().unwrap_or("behavior.xar"))
    }
}

/// `file` in `folder` (a relative path; empty or `.` is the folder itself), joined by `/`.
pub(crate) fn in_folder(folder: &str, file: &str) -> String {
    let folder = folder.trim_end_matches(['/', '\\']);
    if folder.is_empty() || folder == "." {
        file.to_string()
    } else {
        format!("{folder}/{file}")
    }
}

/// A `Dialog` or `File` entry: a named file of the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// `name`.
    pub name: Option<String>,
    /// `src`, relative to the `.pml`'s folder.
    pub src: String,
}

/// A `Topic` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicRef {
    /// `name` (`Main_enu`).
    pub name: Option<String>,
    /// `src`, relative to the `.pml`'s folder.
    pub src: String,
    /// `topicName` (`Main`).
    pub topic_name: Option<String>,
    /// `language`: usually a locale (`en_US`), sometimes a QiChat code (`enu`).
    pub language: Option<String>,
    /// `nuance` (format 5): the 3-letter ASR code.
    pub nuance: Option<String>,
}

/// A `Translation` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslationRef {
    /// `name`.
    pub name: Option<String>,
    /// `src`, relative to the `.pml`'s folder.
    pub src: String,
    /// `language` (a locale).
    pub language: Option<String>,
}

/// A qibuild project named in a `.pml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QiProject {
    /// The element: `qibuild`, `qipython` or `qilinguist`.
    pub kind: String,
    /// Its `name`.
    pub name: Option<String>,
}

impl Pml {
    /// Every file the project names, relative to the `.pml`'s folder, with what names it:
    /// the manifest, behavior XAR files, dialogs, resources, topics and translations.
    pub fn referenced_files(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(m) = &self.manifest {
            out.push(("manifest", m.clone()));
        }
        out.extend(self.behaviors.iter().map(|b| ("behavior", b.xar_path())));
        out.extend(self.dialogs.iter().map(|d| ("dialog", d.src.clone())));
        out.extend(self.resources.iter().map(|r| ("resource", r.src.clone())));
        out.extend(self.topics.iter().map(|t| ("topic", t.src.clone())));
        out.extend(
            self.translations
                .iter()
                .map(|t| ("translation", t.src.clone())),
        );
        out
    }
}

/// Reads a `.pml` project file. `file` names it in messages.
pub fn read_pml(file: &str, bytes: &[u8]) -> Result<Parsed<Pml>> {
    let (document, text) = read_document(file, bytes, FileKind::Pml, "Package")?;
    let mut x = Extract {
        file,
        text,
        warnings: Vec::new(),
    };
    let root = &document.root;
    let p = root.name.as_str();
    let name = x.required(root, p, "name")?;
    let format_version = attr(root, "format_version");
    if let Some(v) = format_version.as_deref()
        && !matches!(v.trim(), "4" | "5")
    {
        x.warn(
            root,
            p,
            ErrorKind::Unusual,
            format!("format_version=\"{v}\": only 4 and 5 are known"),
        );
    }
    let manifest = x.manifest_src(root, p)?;
    let file_ref = |el: &XmlElement, path: &str| -> Result<FileRef> {
        Ok(FileRef {
            name: attr(el, "name"),
            src: x.required(el, path, "src")?,
        })
    };
    let behaviors = x.items(
        root,
        p,
        "BehaviorDescriptions",
        "BehaviorDescription",
        |el, path| {
            Ok(BehaviorDescription {
                name: attr(el, "name"),
                src: x.required(el, path, "src")?,
                xar: attr(el, "xar"),
            })
        },
    )?;
    let dialogs = x.items(root, p, "Dialogs", "Dialog", file_ref)?;
    let resources = x.items(root, p, "Resources", "File", file_ref)?;
    let topics = x.items(root, p, "Topics", "Topic", |el, path| {
        Ok(TopicRef {
            name: attr(el, "name"),
            src: x.required(el, path, "src")?,
            topic_name: attr(el, "topicName"),
            language: attr(el, "language"),
            nuance: attr(el, "nuance"),
        })
    })?;
    let translations = x.items(root, p, "Translations", "Translation", |el, path| {
        Ok(TranslationRef {
            name: attr(el, "name"),
            src: x.required(el, path, "src")?,
            language: attr(el, "language"),
        })
    })?;
    let ignored_paths = x.items(root, p, "IgnoredPaths", "Path", |el, path| {
        x.required(el, path, "src")
    })?;
    let qibuild = root
        .elements()
        .filter(|e| {
            ["qibuild", "qipython", "qilinguist"]
                .iter()
                .any(|k| e.local_name().eq_ignore_ascii_case(k))
        })
        .map(|e| QiProject {
            kind: e.local_name().to_string(),
            name: attr(e, "name"),
        })
        .collect();
    let value = Pml {
        name,
        format_version,
        manifest,
        behaviors,
        dialogs,
        resources,
        topics,
        translations,
        ignored_paths,
        qibuild,
        document,
    };
    Ok(Parsed {
        value,
        warnings: x.warnings,
    })
}

/// Writes a `.pml` file: its [`Pml::document`].
pub fn write_pml(pml: &Pml) -> String {
    pml.document.to_xml()
}

// ---------------------------------------------------------------------------------------------
// manifest.xml

/// A package manifest (`<package uuid version>`).
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// `uuid`: the package id; behaviors are addressed as `<uuid>/<behavior path>`.
    pub uuid: Option<String>,
    /// `version`.
    pub version: Option<String>,
    /// `names/name`.
    pub names: Vec<Localized>,
    /// `descriptions/description`.
    pub descriptions: Vec<Localized>,
    /// `supportedLanguages/language`.
    pub supported_languages: Vec<String>,
    /// `contents/behaviorContent`.
    pub behaviors: Vec<BehaviorContent>,
    /// `contents/dialogContent`.
    pub dialogs: Vec<DialogContent>,
    /// `requirements/naoqiRequirement@minVersion`.
    pub naoqi_min_version: Option<String>,
    /// `requirements/naoqiRequirement@maxVersion`.
    pub naoqi_max_version: Option<String>,
    /// `requirements/robotRequirement@model` (`NAO`, `JULIETTE`, `JULIETTE_Y20`).
    pub robot_models: Vec<String>,
    /// `services/service`: the programs ServiceManager runs for the package.
    pub services: Vec<PackageService>,
    /// The whole file, written back by [`write_manifest`].
    pub document: XmlDocument,
}

/// A service of a package (`<service name="myservice" autorun="true" execStart="..."/>`,
/// the 2.8 page "Creating a new application outside Choregraphe using the qi Framework").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageService {
    /// `name`: ServiceManager knows it as `<uuid>.<name>` (and, for compatibility, `name`).
    pub name: String,
    /// `execStart`: the command line, run in the package's folder.
    pub exec_start: String,
    /// `autorun="true"`: started at boot and after installation.
    pub autorun: bool,
}

/// A text with its language (`<name lang="en_US">Hello</name>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Localized {
    /// `lang`.
    pub lang: Option<String>,
    /// The text, trimmed.
    pub text: String,
}

/// A `behaviorContent`: one behavior the package installs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BehaviorContent {
    /// `path`: the behavior folder in the package (`.` = the package root).
    pub path: String,
    /// `nature`: `interactive` or `solitary`.
    pub nature: Option<String>,
    /// `userRequestable` is present.
    pub user_requestable: bool,
    /// `names/name`.
    pub names: Vec<Localized>,
    /// `triggerSentences/sentence`.
    pub trigger_sentences: Vec<Localized>,
    /// `loadingResponses/sentence`.
    pub loading_responses: Vec<Localized>,
    /// The element names inside `permissions` (`canRunOnPod`, `canSitDown`, `canStandUp`).
    pub permissions: Vec<String>,
}

impl BehaviorContent {
    /// The XAR file of this behavior in the package: `path/behavior.xar`.
    pub fn xar_path(&self) -> String {
        in_folder(&self.path, "behavior.xar")
    }
}

/// A `dialogContent`: one QiChat topic in several languages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogContent {
    /// `topicName`.
    pub topic_name: Option<String>,
    /// `typeVersion`.
    pub type_version: Option<String>,
    /// `topic` children.
    pub topics: Vec<ManifestTopic>,
}

/// A `topic` of a `dialogContent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestTopic {
    /// `path`: the `.top` file in the package.
    pub path: String,
    /// `language` (a locale).
    pub language: Option<String>,
}

/// Reads the `<name lang>` children of the `list` children of `el`.
fn localized(el: &XmlElement, list: &str, item: &str) -> Vec<Localized> {
    el.elements_named(list)
        .flat_map(|l| l.elements_named(item))
        .map(|e| Localized {
            lang: attr(e, "lang"),
            text: e.text(),
        })
        .collect()
}

/// Reads a `manifest.xml`. `file` names it in messages.
pub fn read_manifest(file: &str, bytes: &[u8]) -> Result<Parsed<Manifest>> {
    let (document, text) = read_document(file, bytes, FileKind::Manifest, "package")?;
    let mut x = Extract {
        file,
        text,
        warnings: Vec::new(),
    };
    let root = &document.root;
    let p = root.name.as_str();
    let uuid = attr(root, "uuid");
    if uuid.is_none() {
        x.warn(
            root,
            p,
            ErrorKind::MissingAttribute,
            "no uuid: the package cannot be installed on a robot".to_string(),
        );
    }
    let behaviors = x.items(root, p, "contents", "behaviorContent", |el, path| {
        Ok(BehaviorContent {
            path: x.required(el, path, "path")?,
            nature: el.element("nature").map(XmlElement::text),
            user_requestable: el.element("userRequestable").is_some(),
            names: localized(el, "names", "name"),
            trigger_sentences: localized(el, "triggerSentences", "sentence"),
            loading_responses: localized(el, "loadingResponses", "sentence"),
            permissions: el
                .elements_named("permissions")
                .flat_map(XmlElement::elements)
                .map(|e| e.local_name().to_string())
                .collect(),
        })
    })?;
    let dialogs = x.items(root, p, "contents", "dialogContent", |el, path| {
        let mut topics = Vec::new();
        for t in el.elements_named("topic") {
            let tp = format!("{path}/{}[{}]", t.name, topics.len() + 1);
            topics.push(ManifestTopic {
                path: x.required(t, &tp, "path")?,
                language: attr(t, "language"),
            });
        }
        Ok(DialogContent {
            topic_name: attr(el, "topicName"),
            type_version: attr(el, "typeVersion"),
            topics,
        })
    })?;
    let services = x.items(root, p, "services", "service", |el, path| {
        Ok(PackageService {
            name: x.required(el, path, "name")?,
            exec_start: x.required(el, path, "execStart")?,
            autorun: attr(el, "autorun").is_some_and(|a| a.eq_ignore_ascii_case("true")),
        })
    })?;
    let requirements = || {
        root.elements_named("requirements")
            .flat_map(XmlElement::elements)
    };
    let naoqi = requirements().find(|e| e.local_name().eq_ignore_ascii_case("naoqiRequirement"));
    let value = Manifest {
        uuid,
        version: attr(root, "version"),
        names: localized(root, "names", "name"),
        descriptions: localized(root, "descriptions", "description"),
        supported_languages: root
            .elements_named("supportedLanguages")
            .flat_map(|l| l.elements_named("language"))
            .map(XmlElement::text)
            .collect(),
        behaviors,
        dialogs,
        naoqi_min_version: naoqi.and_then(|e| attr(e, "minVersion")),
        naoqi_max_version: naoqi.and_then(|e| attr(e, "maxVersion")),
        robot_models: requirements()
            .filter(|e| e.local_name().eq_ignore_ascii_case("robotRequirement"))
            .filter_map(|e| attr(e, "model"))
            .collect(),
        services,
        document,
    };
    Ok(Parsed {
        value,
        warnings: x.warnings,
    })
}

/// Writes a `manifest.xml`: its [`Manifest::document`].
pub fn write_manifest(manifest: &Manifest) -> String {
    manifest.document.to_xml()
}

// ---------------------------------------------------------------------------------------------
// .dlg and .top

/// A dialog descriptor (`.dlg`): a topic name and its file per language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialog {
    /// The name after `multilanguage:`.
    pub name: String,
    /// One `.top` file per language, in file order.
    pub topics: Vec<DialogTopic>,
}

/// One `  enu:Main_enu.top` line of a `.dlg`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogTopic {
    /// The QiChat language code (`enu`, `frf`, ...).
    pub language: String,
    /// The `.top` file, relative to the `.dlg`'s folder.
    pub file: String,
}

/// A QiChat topic file (`.top`): its header and a rule count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    /// The name in `topic: ~Name()`.
    pub name: String,
    /// The code in `language: enu`.
    pub language: Option<String>,
    /// The number of top-level user rules (`u:` lines).
    pub user_rules: usize,
}

/// The lines of `text` with the byte offset of their first non-blank character; blank lines
/// are left out, line ends removed.
fn meaningful_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').filter_map(move |line| {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let trimmed = content.trim_start();
        let skip = content.len() - trimmed.len();
        let trimmed = trimmed.trim_end();
        (!trimmed.is_empty()).then_some((start + skip, trimmed))
    })
}

/// The text of a `.dlg` or `.top`: UTF-8 (a byte-order mark skipped), else Latin-1, with a
/// warning at the first byte that is not UTF-8. Why Latin-1: Choregraphe on Windows saved
/// these files in the machine's code page, and NAOqi's dialog engine reads topics so (the
/// runtime's topic reader, choreo-qichat's `text::decode`, does the same).
fn decode_dialog_text<'b>(file: &str, bytes: &'b [u8]) -> (Cow<'b, str>, Option<Diagnostic>) {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => (Cow::Borrowed(text), None),
        Err(e) => {
            let text: String = bytes.iter().map(|&b| char::from(b)).collect();
            let offset = text
                .char_indices()
                .nth(e.valid_up_to())
                .map_or(text.len(), |(i, _)| i);
            let warning = Diagnostic::at_offset(
                Severity::Warning,
                ErrorKind::NotUtf8,
                file,
                &text,
                offset,
                "",
                "not UTF-8: read as Latin-1; save it as UTF-8 to silence this",
            );
            (Cow::Owned(text), Some(warning))
        }
    }
}

fn text_error(file: &str, text: &str, offset: usize, kind: ErrorKind, message: String) -> Error {
    Diagnostic::at_offset(Severity::Error, kind, file, text, offset, "", message).into()
}

/// Reads a `.dlg` dialog descriptor. `file` names it in messages.
pub fn read_dlg(file: &str, bytes: &[u8]) -> Result<Parsed<Dialog>> {
    if let Some(e) = content_mismatch(file, bytes, FileKind::Dialog) {
        return Err(e);
    }
    let (text, latin1) = decode_dialog_text(file, bytes);
    let text = text.as_ref();
    let mut warnings: Vec<Diagnostic> = latin1.into_iter().collect();
    let mut dialog: Option<Dialog> = None;
    for (offset, line) in meaningful_lines(text) {
        let Some((key, value)) = line.split_once(':') else {
            return Err(text_error(
                file,
                text,
                offset,
                ErrorKind::BadStructure,
                format!(
                    "expected `multilanguage:<name>` or `<language>:<file>.top`, found {line:?}"
                ),
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        if value.is_empty() {
            return Err(text_error(
                file,
                text,
                offset,
                ErrorKind::BadValue,
                format!("nothing after `{key}:`"),
            ));
        }
        match &mut dialog {
            None if key == "multilanguage" => {
                dialog = Some(Dialog {
                    name: value.to_string(),
                    topics: Vec::new(),
                });
            }
            None => {
                return Err(text_error(
                    file,
                    text,
                    offset,
                    ErrorKind::BadStructure,
                    format!("a .dlg starts with `multilanguage:<name>`, found {line:?}"),
                ));
            }
            Some(_) if key == "multilanguage" => {
                return Err(text_error(
                    file,
                    text,
                    offset,
                    ErrorKind::BadStructure,
                    "a second `multilanguage:` line".to_string(),
                ));
            }
            Some(d) => {
                if d.topics.iter().any(|t| t.language == key) {
                    warnings.push(Diagnostic::at_offset(
                        Severity::Warning,
                        ErrorKind::Unusual,
                        file,
                        text,
                        offset,
                        "",
                        format!("language {key} is listed twice"),
                    ));
                }
                d.topics.push(DialogTopic {
                    language: key.to_string(),
                    file: value.to_string(),
                });
            }
        }
    }
    match dialog {
        Some(value) => Ok(Parsed { value, warnings }),
        None => Err(Error::file_level(
            ErrorKind::Truncated,
            file,
            "empty .dlg: no `multilanguage:<name>` line",
        )),
    }
}

/// Reads a `.top` QiChat topic's header (`topic: ~Name()`, `language: enu`) and counts its
/// user rules. `file` names it in messages.
pub fn read_top(file: &str, bytes: &[u8]) -> Result<Parsed<Topic>> {
    if let Some(e) = content_mismatch(file, bytes, FileKind::Topic) {
        return Err(e);
    }
    let (text, latin1) = decode_dialog_text(file, bytes);
    let text = text.as_ref();
    let mut lines = meaningful_lines(text).filter(|(_, l)| !l.starts_with('#'));
    let Some((offset, first)) = lines.next() else {
        return Err(Error::file_level(
            ErrorKind::Truncated,
            file,
            "empty .top: no `topic: ~Name()` line",
        ));
    };
    let bad_header = || {
        text_error(
            file,
            text,
            offset,
            ErrorKind::BadStructure,
            format!("a .top starts with `topic: ~Name()`, found {first:?}"),
        )
    };
    let header = first.strip_prefix("topic:").ok_or_else(bad_header)?;
    let name: String = header
        .trim_start()
        .strip_prefix('~')
        .ok_or_else(bad_header)?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if name.is_empty() {
        return Err(bad_header());
    }
    let mut warnings: Vec<Diagnostic> = latin1.into_iter().collect();
    let mut language = None;
    let mut user_rules = 0;
    for (i, (offset, line)) in lines.enumerate() {
        if i == 0 {
            match line.strip_prefix("language:") {
                Some(code) => language = Some(code.trim().to_string()),
                None => warnings.push(Diagnostic::at_offset(
                    Severity::Warning,
                    ErrorKind::Unusual,
                    file,
                    text,
                    offset,
                    "",
                    "no `language:` line after the topic line",
                )),
            }
        }
        if line.starts_with("u:") {
            user_rules += 1;
        }
    }
    Ok(Parsed {
        value: Topic {
            name,
            language,
            user_rules,
        },
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_only_elements_stay_on_one_line_and_markup_is_kept() {
        let src = "<?xml version='1.0'?>\n<!-- c -->\n<a x=\"1\">\n <b>t &amp; u</b>\n <c/>\n <!-- k -->\n</a>\n";
        let doc = XmlDocument::parse("t.xml", src.as_bytes()).unwrap_or_default();
        assert_eq!(doc.style.indent, " ");
        assert!(!doc.style.space_before_slash);
        assert_eq!(
            doc.root.element("b").map(XmlElement::text).as_deref(),
            Some("t & u")
        );
        assert_eq!(doc.to_xml(), src);
    }

    #[test]
    fn behavior_paths_join_src_and_xar() {
        let b = |src: &str, xar: Option<&str>| BehaviorDescription {
            name: None,
            src: src.to_string(),
            xar: xar.map(str::to_string),
        };
        assert_eq!(
            b("behavior_1", Some("behavior.xar")).xar_path(),
            "behavior_1/behavior.xar"
        );
        assert_eq!(b(".", None).xar_path(), "behavior.xar");
        assert_eq!(b("a/", Some("x.xar")).xar_path(), "a/x.xar");
    }
}
