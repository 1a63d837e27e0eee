//! Choregraphe's boxes edited as Choregraphe edits them: the stock Say's text lives in its
//! Localized Text box's panel (one text a language), not in a parameter; the page shows it
//! in the Properties (of the Localized Text, and of the Say box holding it) and sets it as
//! the panel does — the plugin's field and the script generated from it — and the behavior
//! then says the new text. On Choregraphe 2.1's own Say (its stock library, in the corpus).

use super::{Editing, type_into};
use crate::support::cli::workspace;

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

/// What the run said.
fn said(e: &Editing) -> Vec<String> {
    e.run_fast()
        .iter()
        .filter(|v| v["event"] == "said")
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .collect()
}

/// A Number Edit feeding a Switch Case (cases `1` and `2` to one Say, the default to
/// another): the number set in its panel, a case changed, added and removed in the Switch
/// Case's table; each run says the case Choregraphe's generated script would take.
#[test]
fn a_number_and_a_switch_case_are_edited_in_their_panels_and_the_run_follows() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's plugin panels") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("behavior.xar");
    std::fs::copy(
        workspace().join("crates/choreo/tests/fixtures/panels.xar"),
        &file,
    )
    .unwrap();
    let mut e = Editing::serve(&browser, dir, file, "data-path=\"root/Switch Case\"");
    assert_eq!(said(&e), ["case 1"]);

    // The number: its panel's field, then the script's value.
    let number = e.at("g.box[data-path='root/Number Edit'] .box-bg", 0.0, -0.3);
    e.page.click(number.0, number.1);
    e.until("!!document.getElementById('plugin-0_0_1-number')");
    assert_eq!(
        e.page
            .eval("document.getElementById('plugin-0_0_1-number').value"),
        "1"
    );
    type_into(&mut e, "plugin-0_0_1-number", "2");
    assert!(e.answered(), "the number was not saved");
    assert!(e.bytes().contains("<number>2</number>"));
    assert_eq!(said(&e), ["case 2"]);

    // The second case becomes 5: 2 goes to the default.
    let switch = e.at("g.box[data-path='root/Switch Case'] .box-bg", 0.0, -0.3);
    e.page.click(switch.0, switch.1);
    e.until("document.querySelectorAll('#plugin-0_0_2-rows input').length === 2");
    let second = "#plugin-0_0_2-rows input[data-row='2']";
    e.page.eval(&format!(
        "document.querySelector(\"{second}\").id = 'case-2'"
    ));
    type_into(&mut e, "case-2", "5");
    assert!(e.answered(), "the case was not saved");
    assert!(e.bytes().contains("elif(p == self.typeConversion(5)):"));
    assert_eq!(said(&e), ["none"]);
    let before_add = e.bytes();

    // A third case: a keyword, an output the diagram draws, a branch; removed again, the
    // file is as it was.
    e.page
        .eval("document.getElementById('plugin-0_0_2-new-row').focus()");
    e.page.type_text("2");
    e.page.key("Enter", "Enter", 13, 0);
    assert!(e.answered(), "the row was not added");
    e.until("!!document.querySelector(\"g.box[data-path='root/Switch Case'] circle.output[data-port='output_3']\")");
    let added = e.bytes();
    assert!(added.contains("self.output_3(p)"), "{added}");
    assert!(added.contains("<keyword>2</keyword>"));
    e.until("document.querySelectorAll('#plugin-0_0_2-rows input').length === 3");
    e.page
        .eval("document.getElementById('plugin-0_0_2-remove-row').click()");
    assert!(e.answered(), "the row was not removed");
    assert_eq!(e.bytes(), before_add);
}
