//! Every corpus project (each `.pml` with its folder, each `.crg` and `.cbl`) goes to its
//! readable folder and back to its own kind, and to a `.pkg`: every file byte for byte, each
//! behavior the same model; the readable folder itself loads as the same project.

use crate::support;

use choreo_xar::archive::unpack;
use choreo_xar::project::{Container, from_readable, is_readable_tree};
use choreo_xar::source::{Project, load_path, load_tree, read_dir_tree};
use std::collections::BTreeMap;

use choreo_xar::{FileTree, XarFile, read_xar};

/// What differs between two projects' files: paths on one side only, other files not byte
/// for byte equal, behaviors (`xars`: path and model) not the same model.
fn differences(
    name: &str,
    xars: &BTreeMap<&str, &XarFile>,
    want: &FileTree,
    got: &FileTree,
) -> Vec<String> {
    let mut out = Vec::new();
    for path in want.keys().chain(got.keys()) {
        let model = xars.get(path.as_str());
        match (want.get(path), got.get(path)) {
            (Some(_), Some(b)) if model.is_some() => {
                let same = model.is_some_and(|m| read_xar(path, b).unwrap().value == **m);
                if !same {
                    out.push(format!("{name}: behavior {path} changed"));
                }
            }
            (Some(a), Some(b)) if a != b => out.push(format!("{name}: {path} changed")),
            (Some(_), None) => out.push(format!("{name}: {path} lost")),
            (None, Some(_)) => out.push(format!("{name}: {path} added")),
            _ => {}
        }
    }
    out
}

/// Round trips `project` (loaded from `name`) and returns what went wrong.
fn round_trip(name: &str, project: &Project) -> Vec<String> {
    let packed = project.packed();
    let xars: BTreeMap<&str, &XarFile> = project
        .behaviors
        .iter()
        .map(|b| (b.path.as_str(), &b.xar))
        .collect();
    let readable = match project.readable(name) {
        Ok(r) => r,
        Err(e) => return vec![format!("to_readable: {e}")],
    };
    assert!(is_readable_tree(&readable), "{name}");
    // No behavior is left as XAR in the readable folder.
    let mut failures: Vec<String> = xars
        .keys()
        .filter(|x| readable.contains_key(**x))
        .map(|x| format!("{name}: {x} still a XAR in the readable folder"))
        .collect();
    let back = match from_readable(name, &readable) {
        Ok(b) => b,
        Err(e) => return vec![format!("from_readable: {e}")],
    };
    if !back.warnings.is_empty() {
        failures.push(format!("{name}: warnings {:?}", back.warnings));
    }
    let back = back.value;
    if back.container != packed.container
        || (&back.control, &back.name, &back.pml) != (&packed.control, &packed.name, &packed.pml)
    {
        failures.push(format!("{name}: container or control changed"));
    }
    failures.extend(differences(name, &xars, &packed.files, &back.files));
    // Back to its own kind: an archive packed and unpacked; a folder written and read.
    let title = project.name.as_str();
    let again = match back.container {
        Container::Folder => {
            let dir = tempfile::tempdir().unwrap();
            for (path, bytes) in &back.files {
                let p = dir.path().join(path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, bytes).unwrap();
            }
            read_dir_tree(dir.path()).unwrap()
        }
        other => {
            let bytes = other
                .pack(name, title, back.control.as_deref(), &back.files)
                .unwrap()
                .unwrap();
            let u = unpack(name, &bytes).unwrap().value;
            if u.control != back.control {
                failures.push(format!("{name}: control changed in the archive"));
            }
            u.files
        }
    };
    // Packing is byte for byte: what comes out is what went in.
    if again != back.files {
        failures.push(format!("{name}: changed in its own kind"));
    }
    // And as a package, whatever it was.
    let pkg = Container::Pkg
        .pack(name, title, None, &back.files)
        .unwrap()
        .unwrap();
    if unpack(name, &pkg).unwrap().value.files != back.files {
        failures.push(format!("{name}: changed as a .pkg"));
    }
    // The readable folder loads as the same project.
    match load_tree(name, readable) {
        Ok(p) => {
            let models = |p: &Project| -> Vec<_> {
                p.behaviors
                    .iter()
                    .map(|b| (b.name.clone(), b.path.clone(), b.xar.clone()))
                    .collect()
            };
            if models(&p) != models(project) || p.container != project.container {
                failures.push(format!("{name}: the readable folder loads otherwise"));
            }
        }
        Err(e) => failures.push(format!("load_tree of the readable folder: {e}")),
    }
    failures
}

#[test]
fn every_corpus_project_round_trips_through_its_readable_folder() {
    let Some(files) = support::corpus_files("projects (.pml, .crg, .cbl)", 100, &|p| {
        let junk = p.file_name().unwrap().to_string_lossy().starts_with("._");
        !junk
            && p.extension()
                .is_some_and(|e| e == "pml" || e == "crg" || e == "cbl")
    }) else {
        return;
    };
    let mut failures = Vec::new();
    let (mut behaviors, mut kept) = (0, 0);
    for f in &files {
        let name = f.display().to_string();
        let project = load_path(f).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = match f.extension().and_then(|e| e.to_str()) {
            Some("crg") => Container::Crg,
            Some("cbl") => Container::Cbl,
            _ => Container::Folder,
        };
        assert_eq!(project.container, expected, "{name}");
        behaviors += project.behaviors.len();
        kept += project.files.len() - project.behaviors.len();
        failures.extend(round_trip(&name, &project));
    }
    println!(
        "corpus projects: {} round-tripped, {behaviors} behaviors split, {kept} other files kept",
        files.len()
    );
    support::assert_no_failures(&failures);
}
