//! The font text is drawn in, found at run time.

use std::path::{Path, PathBuf};

use plotters::style::FontStyle;

/// Where fonts are looked for when `CHOREO_PLOT_FONT` is not set.
const FOLDERS: [&str; 2] = ["/usr/share/fonts", "/usr/local/share/fonts"];

/// The font preferred among them.
const PREFERRED: &str = "DejaVuSans.ttf";

/// Finds a font and registers it as [`FONT`]: the file `CHOREO_PLOT_FONT` names (and no
/// other: a test or a user can ask for none), else DejaVu Sans, else the first
/// TrueType file under [`FOLDERS`]. False when none could be read. The font's bytes
/// stay for the rest of the process (the font registry keeps them; read once).
pub fn register() -> bool {
    let candidates = match std::env::var_os("CHOREO_PLOT_FONT") {
        Some(file) => vec![PathBuf::from(file)],
        None => {
            let mut found = Vec::new();
            for folder in FOLDERS {
                collect(Path::new(folder), 4, &mut found);
            }
            found.sort_by_key(|p| (p.file_name().is_none_or(|n| n != PREFERRED), p.clone()));
            found
        }
    };
    candidates.iter().any(|file| {
        let Ok(bytes) = std::fs::read(file) else {
            return false;
        };
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font(FONT, FontStyle::Normal, bytes).is_ok()
    })
}

/// The `.ttf` files at most `depth` folders below `dir`.
fn collect(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if depth > 0 {
                collect(&path, depth - 1, out);
            }
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ttf"))
        {
            out.push(path);
        }
    }
}

/// The font family text is drawn in (registered by [`register`]).
pub(super) const FONT: &str = "sans-serif";
