//! Box libraries: a folder (or `.cbl`) of box folders, each holding a `box.xar` or
//! `behavior.xar`, named by its percent-encoded folder name.

use super::kind::base_name;
use super::loaded::Project;
use super::reads::Reads;
use crate::archive;
use crate::error::{Error, ErrorKind, Result};

/// Decodes the percent escapes of a library folder name (`Speech Reco%2e` gives
/// `Speech Reco.`, `Motor On%2fOff` gives `Motor On/Off`); other text is kept as it is.
pub fn decode_folder_name(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Loads every box folder of a library tree into `project`, titled by its `metadata` file.
pub(super) fn load_library(
    project: &mut Project,
    prefix: &str,
    container: &str,
    reads: Option<&Reads>,
) -> Result<()> {
    let entries: Vec<(String, String)> = project
        .files
        .keys()
        .filter_map(|path| {
            let (folder, file) = path.rsplit_once('/')?;
            matches!(file, "box.xar" | "behavior.xar")
                .then(|| (decode_folder_name(base_name(folder)), path.clone()))
        })
        .collect();
    if entries.is_empty() {
        return Err(Error::file_level(
            ErrorKind::Unsupported,
            container,
            "no .pml, manifest.xml, behavior.xar or box library folder here",
        ));
    }
    if let Some(title) = ["metadata", ".metadata"]
        .iter()
        .filter_map(|m| project.files.get(*m))
        .find_map(|m| {
            let text = String::from_utf8_lossy(m);
            archive::control_field(&text, "title")
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        })
    {
        project.name = title;
    }
    for (name, path) in entries {
        project.add_behavior(prefix, name, path, reads);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_are_percent_decoded() {
        assert_eq!(decode_folder_name("Speech Reco%2e"), "Speech Reco.");
        assert_eq!(decode_folder_name("Motor On%2fOff"), "Motor On/Off");
        assert_eq!(decode_folder_name("100%"), "100%");
        assert_eq!(decode_folder_name("a%zzb"), "a%zzb");
        assert_eq!(decode_folder_name("a%+1b"), "a%+1b");
    }
}
