//! Choregraphe's boxes edited as Choregraphe edits them: the stock Say's text lives in its
//! Localized Text box's panel (one text a language), not in a parameter; the page shows it
//! in the Properties (of the Localized Text, and of the Say box holding it) and sets it as
//! the panel does — the plugin's field and the script generated from it — and the behavior
//! then says the new text. On Choregraphe 2.1's own Say (its stock library, in the corpus).

use super::{Editing, type_into};

#[test]
fn the_stock_say_s_text_is_edited_in_its_panel_and_said() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's plugin panels") else {
        return;
    };
    let Some(library) = choreo_testkit::library("the stock Say box") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("behavior.xar");
    std::fs::copy(library.join("standard/Audio/Voice/Say/behavior.xar"), &file).unwrap();
    let mut e = Editing::serve(&browser, dir, file, "data-path=\"root/Localized Text\"");
    let text = e.at("g.box[data-path='root/Localized Text'] .box-bg", 0.0, -0.3);
    e.page.click(text.0, text.1);
    e.until("document.querySelector('.plugin-text select')?.value === 'english'");
    let id = e
        .page
        .eval("document.querySelector('.plugin-text textarea').id")
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        e.page
            .eval(&format!("document.getElementById('{id}').value")),
        "Hello"
    );
    type_into(&mut e, &id, "Good morning");
    assert!(e.answered(), "the text was not saved");
    let saved = e.bytes();
    assert!(saved.contains("<english>Good morning</english>"), "{saved}");
    assert!(
        saved.contains("\"English\" : \" Good morning \","),
        "{saved}"
    );
    let said: Vec<String> = e
        .run_fast()
        .iter()
        .filter(|v| v["event"] == "said")
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .collect();
    assert_eq!(said, ["Good morning"]);
}
