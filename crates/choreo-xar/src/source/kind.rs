//! What a file is, told by its content: Choregraphe's XML roots, archive magic numbers and
//! the first meaningful line of a text file, the name only breaking ties.

use crate::error::{Diagnostic, Error, ErrorKind, Severity};

/// What a file is, as told by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A behavior: `<ChoregrapheProject>` (`behavior.xar`).
    Xar,
    /// A box-library entry: `<ChoregrapheBox>` (`box.xar`).
    BoxXar,
    /// A project file: `<Package>` (`.pml`).
    Pml,
    /// A package manifest: `<package>` (`manifest.xml`).
    Manifest,
    /// A dialog descriptor: `multilanguage:` (`.dlg`).
    Dialog,
    /// A QiChat topic: `topic:` (`.top`).
    Topic,
    /// A project archive: ar (`.crg`; also any ar archive not named `.cbl`).
    Crg,
    /// A box-library archive: ar named `.cbl`.
    Cbl,
    /// A package: zip (`.pkg`).
    Pkg,
    /// A library folder index: `<Folder>` (`xalinfo`).
    Xalinfo,
    /// A folder type tag: `Type: Choregraphe...` (`.metadata`).
    Metadata,
    /// A stand-alone animation: `<Animation>` (`.qianim`).
    Qianim,
    /// Python source.
    Python,
    /// A macOS AppleDouble metadata file (`._name`): junk, skipped.
    AppleDouble,
    /// A folder (never returned by [`sniff`]; used in [`FileReport::kind`](super::FileReport::kind)).
    Folder,
}

impl FileKind {
    /// What this kind of file is, in words (`a Choregraphe project file (<Package>, .pml)`).
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Xar => "a behavior (<ChoregrapheProject>, behavior.xar)",
            FileKind::BoxXar => "a library box (<ChoregrapheBox>, box.xar)",
            FileKind::Pml => "a Choregraphe project file (<Package>, .pml)",
            FileKind::Manifest => "a package manifest (<package>, manifest.xml)",
            FileKind::Dialog => "a dialog descriptor (multilanguage:, .dlg)",
            FileKind::Topic => "a QiChat topic (topic:, .top)",
            FileKind::Crg => "a Choregraphe project archive (ar, .crg)",
            FileKind::Cbl => "a box library archive (ar, .cbl)",
            FileKind::Pkg => "a package archive (zip, .pkg)",
            FileKind::Xalinfo => "a library folder index (<Folder>, xalinfo)",
            FileKind::Metadata => "a folder type tag (.metadata)",
            FileKind::Qianim => "an animation (<Animation>, .qianim)",
            FileKind::Python => "Python source",
            FileKind::AppleDouble => "a macOS AppleDouble metadata file (._*)",
            FileKind::Folder => "a folder",
        }
    }

    /// Kinds read by the same reader (`.xar` files of both roots, archives of every format).
    pub(super) fn family(self) -> FileKind {
        match self {
            FileKind::BoxXar => FileKind::Xar,
            FileKind::Cbl | FileKind::Pkg => FileKind::Crg,
            k => k,
        }
    }

    /// Whether files of this kind are XML documents.
    pub(super) fn is_xml(self) -> bool {
        matches!(
            self,
            FileKind::Xar
                | FileKind::BoxXar
                | FileKind::Pml
                | FileKind::Manifest
                | FileKind::Xalinfo
                | FileKind::Qianim
        )
    }
}

/// What a file is: by content (XML root element, archive magic, first meaningful text line),
/// with the name only as a tie-breaker (`.cbl` for ar archives) or when the content tells
/// nothing (an empty `.top`, binary junk named `.pml`). `None`: not a Choregraphe file
/// (sounds, images, other resources).
pub fn sniff(name: &str, bytes: &[u8]) -> Option<FileKind> {
    if is_apple_double(name, bytes) {
        return Some(FileKind::AppleDouble);
    }
    let by_name = kind_from_name(name);
    match sniff_content(bytes) {
        Some((FileKind::Crg, _)) if by_name == Some(FileKind::Cbl) => Some(FileKind::Cbl),
        Some((kind, _)) => Some(kind),
        None => by_name,
    }
}

/// The kind of an XML file whose root element has local name `root`.
pub(crate) fn kind_of_root(root: &str) -> Option<FileKind> {
    match root {
        "Package" => Some(FileKind::Pml),
        "package" => Some(FileKind::Manifest),
        r if r.eq_ignore_ascii_case("ChoregrapheProject") => Some(FileKind::Xar),
        r if r.eq_ignore_ascii_case("ChoregrapheBox") => Some(FileKind::BoxXar),
        r if r.eq_ignore_ascii_case("Folder") => Some(FileKind::Xalinfo),
        r if r.eq_ignore_ascii_case("Animation") => Some(FileKind::Qianim),
        _ => None,
    }
}

/// An error if `bytes` clearly hold something other than a file of kind `expected`, naming
/// what they hold ([`ErrorKind::WrongRoot`] for another XML document, else
/// [`ErrorKind::Unsupported`]).
pub(crate) fn content_mismatch(file: &str, bytes: &[u8], expected: FileKind) -> Option<Error> {
    let name = file.rsplit(['/', '\\', '!']).next().unwrap_or(file);
    let (found, offset) = if is_apple_double(name, bytes) {
        (FileKind::AppleDouble, 0)
    } else {
        sniff_content(bytes)?
    };
    if found.family() == expected.family() {
        return None;
    }
    let kind = if found.is_xml() {
        ErrorKind::WrongRoot
    } else {
        ErrorKind::Unsupported
    };
    let message = format!(
        "this file holds {}, not {}",
        found.describe(),
        expected.describe()
    );
    Some(match std::str::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => {
            Diagnostic::at_offset(Severity::Error, kind, file, text, offset, "", message).into()
        }
        _ => Error::file_level(kind, file, message),
    })
}

/// The last component of a path (`a/b/c.xar` gives `c.xar`; archive members too).
pub(super) fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\', '!']).next().unwrap_or(name)
}

pub(super) fn is_apple_double(name: &str, bytes: &[u8]) -> bool {
    base_name(name).starts_with("._") || bytes.starts_with(b"\x00\x05\x16\x07")
}

pub(super) fn kind_from_name(name: &str) -> Option<FileKind> {
    let base = base_name(name).to_ascii_lowercase();
    match base.as_str() {
        "manifest.xml" => return Some(FileKind::Manifest),
        "xalinfo" => return Some(FileKind::Xalinfo),
        ".metadata" | "metadata" => return Some(FileKind::Metadata),
        "box.xar" => return Some(FileKind::BoxXar),
        _ => {}
    }
    let (_, ext) = base.rsplit_once('.')?;
    Some(match ext {
        "xar" => FileKind::Xar,
        "pml" => FileKind::Pml,
        "dlg" => FileKind::Dialog,
        "top" => FileKind::Topic,
        "crg" => FileKind::Crg,
        "cbl" => FileKind::Cbl,
        "pkg" => FileKind::Pkg,
        "qianim" => FileKind::Qianim,
        "py" => FileKind::Python,
        _ => return None,
    })
}

/// How much of a file sniffing looks at.
const SNIFF_LEN: usize = 64 * 1024;

/// The kind told by the content alone, with the byte offset of what tells it.
pub(super) fn sniff_content(bytes: &[u8]) -> Option<(FileKind, usize)> {
    if bytes.starts_with(b"!<arch>\n") {
        return Some((FileKind::Crg, 0));
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return Some((FileKind::Pkg, 0));
    }
    let head = &bytes[..bytes.len().min(SNIFF_LEN)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    if text.contains('\0') {
        return None;
    }
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[bom..];
    if body.trim_start().starts_with('<') {
        let (root, offset) = xml_root(body)?;
        let local = root.rsplit(':').next().unwrap_or(root);
        return kind_of_root(local).map(|k| (k, offset + bom));
    }
    text_kind(body).map(|(k, o)| (k, o + bom))
}

/// The name and offset of the root element of an XML text (prolog skipped).
fn xml_root(text: &str) -> Option<(&str, usize)> {
    let mut i = 0;
    loop {
        let rest = &text[i..];
        let trimmed = rest.trim_start();
        i += rest.len() - trimmed.len();
        let skip_to = |end: &str| trimmed.find(end).map(|e| e + end.len());
        let skip = if trimmed.starts_with("<?") {
            skip_to("?>")?
        } else if trimmed.starts_with("<!--") {
            skip_to("-->")?
        } else if trimmed.starts_with("<!") {
            skip_to(">")?
        } else {
            let name = trimmed.strip_prefix('<')?;
            let end = name
                .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .unwrap_or(name.len());
            return (end > 0).then(|| (&name[..end], i));
        };
        i += skip;
    }
}

/// The kind told by the first meaningful line of a text file.
fn text_kind(text: &str) -> Option<(FileKind, usize)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let at = start + (line.len() - line.trim_start().len());
        let python_comment = t.starts_with("#!")
            || t.starts_with("# -*-")
            || t.starts_with("# coding")
            || t.starts_with("#coding");
        if python_comment {
            return Some((FileKind::Python, at));
        }
        if t.starts_with('#') {
            continue;
        }
        let python_code = ["import ", "from ", "def ", "class ", "@"]
            .iter()
            .any(|p| t.starts_with(p));
        let kind = if t.starts_with("multilanguage:") {
            FileKind::Dialog
        } else if t.starts_with("topic:") {
            FileKind::Topic
        } else if t.starts_with("Type:") && t.contains("Choregraphe") {
            FileKind::Metadata
        } else if python_code {
            FileKind::Python
        } else {
            return None;
        };
        return Some((kind, at));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_wins_over_extension_and_names_break_ties() {
        let pml = br#"<?xml version="1.0"?><Package name="P" format_version="4"/>"#;
        assert_eq!(sniff("x.dlg", pml), Some(FileKind::Pml));
        assert_eq!(
            sniff("x.pml", b"import qi\nprint(1)\n"),
            Some(FileKind::Python)
        );
        assert_eq!(sniff("x.cbl", b"!<arch>\n"), Some(FileKind::Cbl));
        assert_eq!(sniff("x.bin", b"!<arch>\n"), Some(FileKind::Crg));
        assert_eq!(
            sniff("._x.pml", b"\x00\x05\x16\x07junk"),
            Some(FileKind::AppleDouble)
        );
        assert_eq!(
            sniff("a.top", b"# c\n\ntopic: ~a()\n"),
            Some(FileKind::Topic)
        );
        assert_eq!(sniff("empty.top", b""), Some(FileKind::Topic));
        assert_eq!(sniff("sound.wav", b"RIFF\0\0"), None);
        assert_eq!(
            sniff("b", b"<!-- x --><ChoregrapheBox xar_version=\"3\"/>"),
            Some(FileKind::BoxXar)
        );
    }
}
