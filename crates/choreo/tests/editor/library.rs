//! A box of Choregraphe's own library (2.1's stock library, in the corpus: `--library`)
//! added from the page's palette, found by its name: it goes in as the library wrote it.

use super::{Editing, model, root_names};

#[test]
fn a_box_of_choregraphes_library_is_added_from_the_palette() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's library boxes") else {
        return;
    };
    let Some(corpus) = choreo_testkit::corpus("Choregraphe's stock box library") else {
        return;
    };
    let library = corpus.join(choreo_testkit::LIBRARY);
    let mut e = Editing::open_with(&browser, &["--library", library.to_str().unwrap()]);
    let add = e.at("#add-box", 0.0, 0.0);
    e.page.click(add.0, add.1);
    // Two "Say" boxes (the basic one, the library's): each says where it comes from, with
    // its glyph, under group headings that show however long the list.
    e.page.type_text("Say");
    e.until("document.querySelectorAll('.palette-item').length > 1");
    let froms = e.page.eval(
        "[...document.querySelectorAll('.palette-item')].filter((i) => i.querySelector('.palette-name').textContent === 'Say')
           .map((i) => [i.querySelector('.palette-from').textContent, !!i.querySelector('svg.glyph-icon')])",
    );
    let froms = froms.as_array().unwrap();
    assert!(froms.len() >= 2, "{froms:?}");
    assert!(froms.iter().all(|f| f[1] == true), "{froms:?}");
    assert_ne!(froms[0][0], froms[1][0], "two Say boxes look the same");
    e.page.eval("document.getElementById('palette-search').value = ''; document.getElementById('palette-search').dispatchEvent(new Event('input')); true");
    assert_eq!(
        e.page.eval(
            "[...document.querySelectorAll('.palette-group')].every((g) => g.getBoundingClientRect().height >= 10)"
        ),
        serde_json::Value::Bool(true),
        "a group heading is squeezed out"
    );
    e.page
        .eval("document.getElementById('palette-search').select(); true");
    e.page.type_text("Only Once");
    let item = ".palette-item[data-key*='Flow Control/Only Once']";
    e.until(&format!("!!document.querySelector(\"{item}\")"));
    let at = e.at(item, 0.0, 0.0);
    e.page.click(at.0, at.1);
    assert!(e.answered(), "the library's box was not added");
    assert_eq!(
        root_names(&e.bytes()),
        ["Wake Up", "Say Hello", "Nod", "Only Once"]
    );
    // As the library wrote it: its ports and its script.
    let xar = model(&e.bytes());
    let added = xar.root_box.diagrams().next().unwrap().boxes[3].clone();
    let source = library.join("standard/Flow Control/Only Once/box.xar");
    let written = choreo_xar::read_xar("box.xar", &std::fs::read(&source).unwrap())
        .unwrap()
        .value;
    let original = written.root_box;
    let ports = |b: &choreo_xar::model::BoxDef| {
        let names =
            |ps: &[choreo_xar::model::Input]| ps.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        (
            names(&b.inputs),
            b.outputs.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(ports(&added), ports(&original));
    assert_eq!(added.code(), original.code());
}
