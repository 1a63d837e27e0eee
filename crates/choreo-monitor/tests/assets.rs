//! The page's modules and a token: a monitor beyond loopback serves its files only with the
//! token, which index.html's import map adds to each module it lists. A module another
//! imports (`from "./x.js"`) but the map lists not would be asked for without the token and
//! refused, and the page would not start: each must be listed (or loaded by index.html
//! itself with the token).

use std::path::Path;

#[test]
fn every_module_the_page_imports_is_in_the_import_map() {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let index = std::fs::read_to_string(assets.join("index.html")).unwrap();
    let list = index
        .split("const parts = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("index.html lists its modules in `parts`");
    let parts: Vec<&str> = list
        .split(',')
        .map(|p| p.trim().trim_matches('"'))
        .collect();
    let mut imported = Vec::new();
    for entry in std::fs::read_dir(&assets).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "js") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for piece in text.split("from \"./").skip(1) {
            // vendor/ files are listed in the map by their own path
            if let Some(name) = piece.split(".js\"").next().filter(|n| !n.contains('/')) {
                imported.push((path.file_name().unwrap().to_owned(), name.to_string()));
            }
        }
    }
    assert!(imported.len() > 10, "{imported:?}");
    for (by, name) in imported {
        // index.html loads its entry module itself, the token added (`./monitor.js${q}`).
        let loaded = index.contains(&format!("./{name}.js${{q}}"));
        assert!(
            loaded || parts.contains(&name.as_str()),
            "{by:?} imports {name}.js, which index.html's parts do not list"
        );
    }
}
