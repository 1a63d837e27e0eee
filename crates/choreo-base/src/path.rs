//! Where a path really is: the sandbox judges a path box code names, and the simulated robot
//! a file it is asked to write, by the place its links lead to, so that a link inside the
//! run's folders to a file outside counts as outside.

use std::path::{Component, Path, PathBuf};

/// `path` absolute, its links followed as far as it exists, `.` and `..` gone: where it
/// really is, so that a link inside the run's folders to a file outside is judged by the
/// file.
pub fn resolved(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    // The longest part that exists, its links followed; the rest taken as written.
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = dunce::canonicalize(existing) {
            let mut out = real;
            for part in rest.iter().rev() {
                match part {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::Normal(p) => out.push(p),
                    _ => {}
                }
            }
            return out;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return absolute,
        }
    }
}
