//! Archives: `.crg` / `.cbl` (ar holding data.tar.gz) and `.pkg` (zip), unpacked into a
//! [`crate::FileTree`] with path checks and a size cap.
//!
//! [`unpack`] sniffs the bytes (`!<arch>\n` is ar, `PK\x03\x04` is zip), never the name.
//! It never writes to disk and never trusts a size written in the archive: entries with an
//! absolute path, a `..` component, or that are links or devices are refused
//! ([`ErrorKind::UnsafePath`]); the total unpacked size and the number of entries are capped
//! while decompressing ([`ErrorKind::TooLarge`]), so a decompression bomb fails early instead
//! of filling memory. Errors name the archive and the member, e.g. `x.crg!data.tar.gz`.
//!
//! [`pack_ar`] and [`pack_zip`] write them back the way Choregraphe does (ar members
//! `debian-binary`, `control.tar.gz`, `data.tar.gz`; every date 1970, owner 0, mode 0644), so
//! the same files always give the same bytes.

use std::io::{self, Read};

use crate::error::{Diagnostic, Error, ErrorKind, Result, Severity};
use crate::{FileTree, Parsed};

/// The default cap on the total size of the files unpacked from one archive (256 MiB).
pub const MAX_TOTAL_SIZE: u64 = 256 * 1024 * 1024;

/// The default cap on the number of entries of one archive.
pub const MAX_ENTRIES: usize = 50_000;

/// How much one archive may unpack to. [`Limits::default`] is [`MAX_TOTAL_SIZE`] and
/// [`MAX_ENTRIES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest total size, in bytes, of the unpacked files.
    pub max_total_size: u64,
    /// Largest number of entries (files, folders and tar metadata entries).
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_total_size: MAX_TOTAL_SIZE,
            max_entries: MAX_ENTRIES,
        }
    }
}

/// An unpacked archive.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Unpacked {
    /// The files: for `.crg`/`.cbl` the content of `data.tar.gz`, for `.pkg` the zip entries.
    /// Folders are not listed (only the files in them).
    pub files: FileTree,
    /// For `.crg`/`.cbl`, the text of the file in `control.tar.gz` (`control` in projects:
    /// `Type: ChoregrapheProject` / `Version: 2.0` / `title: ...`; an empty `content` in box
    /// libraries); read its fields with [`control_field`]. `None` for `.pkg` or when the
    /// archive has no control member.
    pub control: Option<String>,
}

/// Unpacks a `.crg`, `.cbl` (ar) or `.pkg` (zip) with the default [`Limits`].
///
/// A `.crg` holding only `debian-binary` (Choregraphe exported nothing) is a valid, empty
/// project: it unpacks to no files, with a warning saying so.
pub fn unpack(file: &str, bytes: &[u8]) -> Result<Parsed<Unpacked>> {
    unpack_with(file, bytes, Limits::default())
}

/// Unpacks an archive like [`unpack`], with the given limits.
pub fn unpack_with(file: &str, bytes: &[u8], limits: Limits) -> Result<Parsed<Unpacked>> {
    let mut budget = Budget {
        limits,
        bytes_left: limits.max_total_size,
        entries_left: limits.max_entries,
    };
    if bytes.starts_with(AR_MAGIC) {
        unpack_ar(file, bytes, &mut budget)
    } else if bytes.starts_with(ZIP_MAGIC) || bytes.starts_with(ZIP_EMPTY_MAGIC) {
        let files = unzip(file, bytes, &mut budget)?;
        Ok(Parsed {
            value: Unpacked {
                files,
                control: None,
            },
            warnings: Vec::new(),
        })
    } else if let Some(e) =
        crate::source::content_mismatch(file, bytes, crate::source::FileKind::Crg)
    {
        Err(e)
    } else {
        Err(Error::file_level(
            ErrorKind::Archive,
            file,
            "not an archive: neither ar (.crg, .cbl: `!<arch>`) nor zip (.pkg: `PK`)",
        ))
    }
}

/// The value of `key` in a `Key: value` text such as a `.crg` control file or a `.metadata`
/// file (`title` gives `Joker` for `title: Joker`); keys match case-insensitively.
pub fn control_field<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        k.trim().eq_ignore_ascii_case(key).then(|| v.trim())
    })
}

/// The `debian-binary` member of a `.crg` / `.cbl`.
const DEBIAN_BINARY: &[u8] = b"2.0\n";

/// Writes an ar archive as Choregraphe writes `.crg` (`control_member` `control`) and `.cbl`
/// (`content`): `debian-binary`, then `control.tar.gz` holding `control_member` with the text
/// `control`, then `data.tar.gz` holding `files`. Paths must be relative (as [`unpack`]
/// gives them); `file` names the archive in errors.
pub fn pack_ar(
    file: &str,
    control_member: &str,
    control: &str,
    files: &FileTree,
) -> Result<Vec<u8>> {
    let mut one = FileTree::new();
    one.insert(control_member.to_string(), control.as_bytes().to_vec());
    let control_tar = tar_gz(file, &one)?;
    let data_tar = tar_gz(file, files)?;
    let mut out = AR_MAGIC.to_vec();
    for (name, data) in [
        ("debian-binary", DEBIAN_BINARY),
        ("control.tar.gz", control_tar.as_slice()),
        ("data.tar.gz", data_tar.as_slice()),
    ] {
        let header = format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            format!("{name}/"),
            0,
            0,
            0,
            100_644,
            data.len()
        );
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        if data.len() % 2 == 1 {
            out.push(b'\n');
        }
    }
    Ok(out)
}

/// A gzip-compressed tar of `files` with fixed dates, owners and modes.
fn tar_gz(file: &str, files: &FileTree) -> Result<Vec<u8>> {
    let failed =
        |e: io::Error| Error::file_level(ErrorKind::Archive, file, format!("cannot pack: {e}"));
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    for (path, data) in files {
        check_packable(file, path)?;
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut header, path, data.as_slice())
            .map_err(failed)?;
    }
    tar.into_inner()
        .and_then(flate2::write::GzEncoder::finish)
        .map_err(failed)
}

/// Writes `files` as a zip (`.pkg`), deflated, every date 1980-01-01 (zip's first), mode
/// 0644, made "by Unix" (the robot's system) whatever system writes it: the same project
/// gives the same bytes on every platform. `file` names the archive in errors.
pub fn pack_zip(file: &str, files: &FileTree) -> Result<Vec<u8>> {
    use std::io::Write as _;
    let failed =
        |e: String| Error::file_level(ErrorKind::Archive, file, format!("cannot pack: {e}"));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644)
        .system(zip::System::Unix);
    let mut zip = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
    for (path, data) in files {
        check_packable(file, path)?;
        zip.start_file(path, options)
            .map_err(|e| failed(e.to_string()))?;
        zip.write_all(data).map_err(|e| failed(e.to_string()))?;
    }
    zip.finish()
        .map(io::Cursor::into_inner)
        .map_err(|e| failed(e.to_string()))
}

/// Refuses to pack a path [`unpack`] would refuse.
fn check_packable(file: &str, path: &str) -> Result<()> {
    match safe_relative_path(path) {
        Some(p) if p == path && !p.is_empty() => Ok(()),
        _ => Err(unsafe_path(file, path)),
    }
}

/// A relative path made safe: `\` read as `/`, empty and `.` components dropped. `None` if the
/// path is absolute (`/x`, `C:/x`), has a `..` component or holds a NUL character. An empty
/// result names the root folder itself.
fn safe_relative_path(path: &str) -> Option<String> {
    if path.contains('\0') {
        return None;
    }
    let path = path.replace('\\', "/");
    if path.starts_with('/') {
        return None;
    }
    let mut parts = Vec::new();
    for (i, part) in path.split('/').enumerate() {
        let drive =
            part.len() == 2 && part.ends_with(':') && part.as_bytes()[0].is_ascii_alphabetic();
        match part {
            "" | "." => {}
            ".." => return None,
            _ if i == 0 && drive => return None,
            _ => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

const AR_MAGIC: &[u8] = b"!<arch>\n";
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
/// An empty zip holds only its end-of-central-directory record.
const ZIP_EMPTY_MAGIC: &[u8] = b"PK\x05\x06";
const AR_HEADER_LEN: usize = 60;
const GZIP_MAGIC: &[u8] = b"\x1f\x8b";
/// Tar headers, padding and metadata entries allowed per entry on top of the file sizes.
const TAR_OVERHEAD_PER_ENTRY: u64 = 1536;

/// What is left of the [`Limits`] of one archive.
struct Budget {
    limits: Limits,
    bytes_left: u64,
    entries_left: usize,
}

impl Budget {
    fn too_large(&self, file: &str) -> Error {
        Error::file_level(
            ErrorKind::TooLarge,
            file,
            format!(
                "the archive unpacks to more than {} bytes (a decompression bomb?)",
                self.limits.max_total_size
            ),
        )
    }

    /// Counts one more entry.
    fn entry(&mut self, file: &str) -> Result<()> {
        if self.entries_left == 0 {
            return Err(Error::file_level(
                ErrorKind::TooLarge,
                file,
                format!(
                    "the archive has more than {} entries",
                    self.limits.max_entries
                ),
            ));
        }
        self.entries_left -= 1;
        Ok(())
    }

    /// Reads one entry of `declared` bytes (as its header says) from `reader`, within budget.
    fn read(
        &mut self,
        file: &str,
        entry: &str,
        declared: u64,
        reader: impl Read,
    ) -> Result<Vec<u8>> {
        if declared > self.bytes_left {
            return Err(self.too_large(file));
        }
        let initial = usize::try_from(declared.min(1 << 20)).unwrap_or(0);
        let mut data = Vec::with_capacity(initial);
        reader
            .take(self.bytes_left.saturating_add(1))
            .read_to_end(&mut data)
            .map_err(|e| self.io_error(file, &format!("reading entry {entry}"), &e))?;
        let len = u64::try_from(data.len()).unwrap_or(u64::MAX);
        if len > self.bytes_left {
            return Err(self.too_large(file));
        }
        self.bytes_left -= len;
        Ok(data)
    }

    fn io_error(&self, file: &str, what: &str, e: &io::Error) -> Error {
        if e.kind() == io::ErrorKind::FileTooLarge {
            self.too_large(file)
        } else {
            Error::file_level(ErrorKind::Archive, file, format!("{what}: {e}"))
        }
    }
}

/// A reader that fails with [`io::ErrorKind::FileTooLarge`] after `left` bytes: it bounds
/// what the tar reader may hold in memory for long names and pax headers.
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    "decompressed stream exceeds the size cap",
                )),
            };
        }
        let want = usize::try_from(self.left)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= u64::try_from(n).unwrap_or(self.left);
        Ok(n)
    }
}

/// One member of an ar archive.
struct ArMember<'a> {
    name: String,
    data: &'a [u8],
}

/// Splits an ar archive (magic checked by the caller) into its members.
fn ar_members<'a>(file: &str, bytes: &'a [u8]) -> Result<Vec<ArMember<'a>>> {
    let mut members = Vec::new();
    let mut pos = AR_MAGIC.len();
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        if rest.iter().all(|&b| b == b'\n') {
            break;
        }
        let Some(header) = rest.get(..AR_HEADER_LEN) else {
            return Err(Error::file_level(
                ErrorKind::Archive,
                file,
                format!(
                    "member header at offset {pos} is cut short ({} of {AR_HEADER_LEN} bytes): truncated archive",
                    rest.len()
                ),
            ));
        };
        if &header[58..60] != b"`\n" {
            return Err(Error::file_level(
                ErrorKind::Archive,
                file,
                format!("bad ar member header at offset {pos} (no end marker)"),
            ));
        }
        let name = std::str::from_utf8(&header[..16])
            .map(|n| n.trim_end().trim_end_matches('/').to_string())
            .map_err(|_| {
                Error::file_level(
                    ErrorKind::Archive,
                    file,
                    format!("ar member name at offset {pos} is not text"),
                )
            })?;
        let size = std::str::from_utf8(&header[48..58])
            .ok()
            .map(str::trim)
            .and_then(|s| s.parse::<u64>().ok())
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(|| {
                Error::file_level(
                    ErrorKind::Archive,
                    file,
                    format!("ar member {name:?} has a bad size field"),
                )
            })?;
        let start = pos + AR_HEADER_LEN;
        let available = bytes.len() - start;
        if size > available {
            return Err(Error::file_level(
                ErrorKind::Archive,
                file,
                format!(
                    "ar member {name:?} claims {size} bytes but only {available} remain: truncated archive"
                ),
            ));
        }
        let end = start + size;
        members.push(ArMember {
            name,
            data: &bytes[start..end],
        });
        pos = end + size % 2;
    }
    Ok(members)
}

fn unpack_ar(file: &str, bytes: &[u8], budget: &mut Budget) -> Result<Parsed<Unpacked>> {
    let mut warnings = Vec::new();
    let mut data: Option<ArMember<'_>> = None;
    let mut control: Option<ArMember<'_>> = None;
    let mut debian_binary = false;
    for member in ar_members(file, bytes)? {
        let slot = if member.name.starts_with("data.tar") {
            &mut data
        } else if member.name.starts_with("control.tar") {
            &mut control
        } else {
            if member.name == "debian-binary" {
                debian_binary = true;
            } else {
                warnings.push(Diagnostic::file_level(
                    Severity::Warning,
                    ErrorKind::Unusual,
                    file,
                    format!("unknown ar member {:?} ignored", member.name),
                ));
            }
            continue;
        };
        if slot.is_some() {
            return Err(Error::file_level(
                ErrorKind::Archive,
                file,
                format!("ar member {:?} appears twice", member.name),
            ));
        }
        *slot = Some(member);
    }
    let control = match control {
        Some(m) => {
            let tree = untar(&format!("{file}!{}", m.name), m.data, budget, &mut warnings)?;
            let text = tree
                .get("control")
                .or_else(|| tree.get("content"))
                .or_else(|| tree.values().next());
            text.map(|t| String::from_utf8_lossy(t).into_owned())
        }
        None => None,
    };
    let files = match data {
        Some(m) => untar(&format!("{file}!{}", m.name), m.data, budget, &mut warnings)?,
        None => {
            let what = if debian_binary {
                "holds only debian-binary (no data.tar.gz): an empty project"
            } else {
                "has no data.tar.gz member: an empty project"
            };
            warnings.push(Diagnostic::file_level(
                Severity::Warning,
                ErrorKind::Unusual,
                file,
                what,
            ));
            FileTree::new()
        }
    };
    Ok(Parsed {
        value: Unpacked { files, control },
        warnings,
    })
}

/// Reads a tar member (gzip-compressed or not: some `.crg` hold a plain tar under the name
/// `data.tar.gz`, and gzip streams are often followed by zero padding).
fn untar(
    file: &str,
    bytes: &[u8],
    budget: &mut Budget,
    warnings: &mut Vec<Diagnostic>,
) -> Result<FileTree> {
    if bytes.is_empty() {
        return Ok(FileTree::new());
    }
    let entries = u64::try_from(budget.limits.max_entries).unwrap_or(u64::MAX);
    let cap = budget
        .limits
        .max_total_size
        .saturating_add(entries.saturating_mul(TAR_OVERHEAD_PER_ENTRY));
    if bytes.starts_with(GZIP_MAGIC) {
        let reader = Capped {
            inner: flate2::read::GzDecoder::new(bytes),
            left: cap,
        };
        read_tar(file, reader, budget, warnings)
    } else if bytes.get(257..262) == Some(b"ustar") || bytes.len().is_multiple_of(512) {
        let reader = Capped {
            inner: bytes,
            left: cap,
        };
        read_tar(file, reader, budget, warnings)
    } else {
        Err(Error::file_level(
            ErrorKind::Archive,
            file,
            "neither gzip nor tar data",
        ))
    }
}

fn read_tar(
    file: &str,
    reader: impl Read,
    budget: &mut Budget,
    warnings: &mut Vec<Diagnostic>,
) -> Result<FileTree> {
    let mut files = FileTree::new();
    let mut archive = tar::Archive::new(reader);
    let entries = archive
        .entries()
        .map_err(|e| budget.io_error(file, "malformed tar data", &e))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| budget.io_error(file, "malformed tar data", &e))?;
        budget.entry(file)?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        let Some(path) = safe_relative_path(&name) else {
            return Err(unsafe_path(file, &name));
        };
        match kind {
            tar::EntryType::Regular | tar::EntryType::Continuous => {}
            tar::EntryType::Directory | tar::EntryType::XGlobalHeader => continue,
            tar::EntryType::Symlink
            | tar::EntryType::Link
            | tar::EntryType::Char
            | tar::EntryType::Block
            | tar::EntryType::Fifo => {
                return Err(Error::file_level(
                    ErrorKind::UnsafePath,
                    file,
                    format!("entry {name:?} is a link or a device, not a file: refused"),
                ));
            }
            other => {
                return Err(Error::file_level(
                    ErrorKind::Unsupported,
                    file,
                    format!("entry {name:?} has an unsupported tar entry type {other:?}"),
                ));
            }
        }
        if path.is_empty() || name.ends_with('/') {
            continue;
        }
        let declared = entry.size();
        let data = budget.read(file, &name, declared, &mut entry)?;
        if files.insert(path, data).is_some() {
            warnings.push(Diagnostic::file_level(
                Severity::Warning,
                ErrorKind::Unusual,
                file,
                format!("entry {name:?} appears twice; the later one is kept"),
            ));
        }
    }
    Ok(files)
}

fn unsafe_path(file: &str, name: &str) -> Error {
    Error::file_level(
        ErrorKind::UnsafePath,
        file,
        format!("entry {name:?} has an absolute path or a `..` component: refused"),
    )
}

fn unzip(file: &str, bytes: &[u8], budget: &mut Budget) -> Result<FileTree> {
    let malformed = |e: zip::result::ZipError| {
        Error::file_level(ErrorKind::Archive, file, format!("malformed zip: {e}"))
    };
    let mut zip = zip::ZipArchive::new(io::Cursor::new(bytes)).map_err(malformed)?;
    let mut files = FileTree::new();
    for i in 0..zip.len() {
        budget.entry(file)?;
        let entry = zip.by_index(i).map_err(malformed)?;
        let name = match entry.name() {
            Ok(n) => n.into_owned(),
            Err(_) => String::from_utf8_lossy(entry.name_raw()).into_owned(),
        };
        if entry.is_symlink() {
            return Err(Error::file_level(
                ErrorKind::UnsafePath,
                file,
                format!("entry {name:?} is a symbolic link: refused"),
            ));
        }
        let Some(path) = safe_relative_path(&name) else {
            return Err(unsafe_path(file, &name));
        };
        if entry.is_dir() || path.is_empty() {
            continue;
        }
        let declared = entry.size();
        let data = budget.read(file, &name, declared, entry)?;
        if files.insert(path, data).is_some() {
            return Err(Error::file_level(
                ErrorKind::Archive,
                file,
                format!("entry {name:?} appears twice"),
            ));
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn safe_paths_are_normalised_and_unsafe_ones_refused() {
        assert_eq!(
            safe_relative_path("./a//b/./c.xar").as_deref(),
            Some("a/b/c.xar")
        );
        assert_eq!(safe_relative_path("a\\b.txt").as_deref(), Some("a/b.txt"));
        assert_eq!(safe_relative_path("./").as_deref(), Some(""));
        for bad in [
            "/etc/passwd",
            "../x",
            "a/../../x",
            "C:/x",
            "c:\\x",
            "\\\\server\\x",
            "a\0b",
        ] {
            assert_eq!(safe_relative_path(bad), None, "{bad:?}");
        }
        // A colon elsewhere is just a character of the name.
        assert_eq!(safe_relative_path("a/b:c").as_deref(), Some("a/b:c"));
    }

    #[test]
    fn packed_archives_unpack_to_the_same_files_and_are_reproducible() {
        let mut files = FileTree::new();
        files.insert("behavior_1/behavior.xar".into(), b"<x/>".to_vec());
        files.insert("sounds/a b.wav".into(), vec![0, 1, 2, 255]);
        files.insert(format!("{}/long.txt", "d".repeat(120)), b"odd".to_vec());
        let crg = pack_ar("t.crg", "control", "Type: ChoregrapheProject\n", &files).unwrap();
        assert_eq!(
            crg,
            pack_ar("t.crg", "control", "Type: ChoregrapheProject\n", &files).unwrap()
        );
        let back = unpack("t.crg", &crg).unwrap();
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        assert_eq!(back.value.files, files);
        assert_eq!(
            back.value.control.as_deref(),
            Some("Type: ChoregrapheProject\n")
        );
        let pkg = pack_zip("t.pkg", &files).unwrap();
        assert_eq!(pkg, pack_zip("t.pkg", &files).unwrap());
        assert_eq!(unpack("t.pkg", &pkg).unwrap().value.files, files);
        // Each central directory header (APPNOTE 4.3.12, "PK\x01\x02"): made by UNIX (3, the
        // upper byte of "version made by", 4.4.2.2) on every platform, mode 0644 in the
        // upper half of the external attributes.
        let headers: Vec<usize> = pkg
            .windows(4)
            .enumerate()
            .filter(|(_, w)| *w == b"PK\x01\x02")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(headers.len(), files.len());
        for at in headers {
            assert_eq!(pkg[at + 5], 3, "made by UNIX");
            let external = u32::from_le_bytes(pkg[at + 38..at + 42].try_into().unwrap());
            assert_eq!((external >> 16) & 0o777, 0o644);
        }
        let mut bad = FileTree::new();
        bad.insert("../x".into(), Vec::new());
        assert!(pack_zip("t.pkg", &bad).is_err());
        assert!(pack_ar("t.crg", "control", "", &bad).is_err());
    }

    #[test]
    fn control_fields_are_found_case_insensitively() {
        let text = "Type: ChoregrapheProject\nVersion: 2.0\ntitle: Joker\n";
        assert_eq!(control_field(text, "Title"), Some("Joker"));
        assert_eq!(control_field(text, "type"), Some("ChoregrapheProject"));
        assert_eq!(control_field(text, "author"), None);
    }

    #[test]
    fn capped_reader_fails_past_its_cap_only_when_more_data_follows() {
        let mut exact = Capped {
            inner: &b"abcd"[..],
            left: 4,
        };
        let mut out = Vec::new();
        assert!(exact.read_to_end(&mut out).is_ok());
        assert_eq!(out, b"abcd");
        let mut over = Capped {
            inner: &b"abcde"[..],
            left: 4,
        };
        let err = over.read_to_end(&mut Vec::new()).err();
        assert_eq!(err.map(|e| e.kind()), Some(io::ErrorKind::FileTooLarge));
    }
}
