//! `choreo check`'s cache: what each file's check showed, kept in the user's cache folder
//! (`$XDG_CACHE_HOME/choreo/check`, else `~/.cache/choreo/check`), so that a file unchanged
//! since the last check is not checked again (an editor's on-save check, a pre-commit hook).
//!
//! An entry is found by the file's path, the choreo build (the executable's size and time:
//! a rebuilt choreo checks anew) and the check's options; it is used only while the file is
//! unchanged: the same length and modification time, or else the same content (hashed). An
//! entry that cannot be read or parsed, or that names another file or build, is ignored and
//! written again: the cache is never trusted. Entries are written to a temporary file and
//! renamed into place, so a run beside another never reads half an entry.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

/// The format of an entry; a new one makes old entries misses.
const FORMAT: &str = "choreo check cache 1";

/// How close (ns) to its entry's writing a file's modification time must be for the time
/// alone not to vouch for it (git's "racily clean" files).
const RACY: u128 = 2_000_000_000;

/// Numbers the temporary files of this process's writes (two threads never share one).
static WRITES: AtomicU64 = AtomicU64::new(0);

/// What one file's check showed: what the cache keeps.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Checked {
    /// `ok`, `warn` or `error`.
    pub status: String,
    /// The lines printed for it (its status line, its diagnostics).
    pub text: String,
    /// Its `--json` object.
    pub json: serde_json::Value,
}

/// One entry on disk.
#[derive(Serialize, Deserialize)]
struct Entry {
    /// The key it was written for (the file, the build, the options).
    key: String,
    len: u64,
    modified_ns: u128,
    /// When the entry was written: a file changed in the same clock tick as an earlier
    /// version may keep its length and time, so a file modified less than [`RACY`] before
    /// its entry is compared by content.
    written_ns: u128,
    /// The content's hash when it was checked.
    content: String,
    shown: Checked,
}

/// The cache of a run of `choreo check`.
pub struct Cache {
    dir: PathBuf,
    build: String,
}

impl Cache {
    /// The cache in the user's cache folder, or `None` when there is no such folder or it
    /// cannot be made (the check then runs without one).
    pub fn open() -> Option<Cache> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        let dir = base.join("choreo").join("check");
        std::fs::create_dir_all(&dir).ok()?;
        let exe = std::env::current_exe().ok()?;
        let meta = std::fs::metadata(exe).ok()?;
        let build = format!(
            "{FORMAT} {} {} {}",
            env!("CARGO_PKG_VERSION"),
            meta.len(),
            modified_ns(&meta)
        );
        Some(Cache { dir, build })
    }

    /// The key of `file` (its absolute path: two `a.top` in two folders are two files).
    fn key(&self, file: &Path, options: &str) -> String {
        let absolute = dunce::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        format!("{}\0{options}\0{}", self.build, absolute.display())
    }

    fn entry_path(&self, key: &str) -> PathBuf {
        self.dir
            .join(format!("{}.json", hex(&Sha1::digest(key.as_bytes()))))
    }

    /// What `file`'s check showed with `options`, if the file has not changed since.
    pub fn get(&self, file: &Path, options: &str) -> Option<Checked> {
        let meta = std::fs::metadata(file)
            .ok()
            .filter(std::fs::Metadata::is_file)?;
        let key = self.key(file, options);
        let text = std::fs::read(self.entry_path(&key)).ok()?;
        let entry: Entry = serde_json::from_slice(&text).ok()?;
        if entry.key != key {
            return None;
        }
        let racy = entry.modified_ns + RACY > entry.written_ns;
        if !racy && entry.len == meta.len() && entry.modified_ns == modified_ns(&meta) {
            return Some(entry.shown);
        }
        // Touched but perhaps not changed: the content decides.
        let bytes = std::fs::read(file).ok()?;
        (entry.content == content_hash(&bytes)).then_some(entry.shown)
    }

    /// Keeps what `file`'s check showed with `options` (a file that cannot be read, or a
    /// cache that cannot be written, is left out: the next run checks it again).
    pub fn put(&self, file: &Path, options: &str, shown: &Checked) {
        let Ok(meta) = std::fs::metadata(file) else {
            return;
        };
        let Ok(bytes) = std::fs::read(file) else {
            return;
        };
        let key = self.key(file, options);
        let entry = Entry {
            len: meta.len(),
            modified_ns: modified_ns(&meta),
            written_ns: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
            content: content_hash(&bytes),
            shown: shown.clone(),
            key,
        };
        let Ok(text) = serde_json::to_vec(&entry) else {
            return;
        };
        let path = self.entry_path(&entry.key);
        let n = WRITES.fetch_add(1, Ordering::Relaxed);
        let temp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
        let written = std::fs::File::create(&temp).and_then(|mut f| f.write_all(&text));
        if written.is_err() || std::fs::rename(&temp, &path).is_err() {
            let _ = std::fs::remove_file(&temp);
        }
    }
}

fn modified_ns(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

fn content_hash(bytes: &[u8]) -> String {
    hex(&Sha1::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
