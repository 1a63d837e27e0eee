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

/// A copy of `source` edited, once the page shows the box at `path`; that box clicked.
fn edit_box(browser: &std::path::Path, source: &std::path::Path, path: &str) -> Editing {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(source.file_name().unwrap());
    std::fs::copy(source, &file).unwrap();
    let mut e = Editing::serve(browser, dir, file, &format!("data-path=\"{path}\""));
    let at = e.at(&format!("g.box[data-path='{path}'] .box-bg"), 0.0, -0.3);
    e.page.click(at.0, at.1);
    e
}

/// The colour of Choregraphe 2.1's Eye LEDs (its Color Edit), a 2.x project's Set Language
/// and the stock Choice's French answers, each edited in its form: what each panel writes.
#[test]
fn a_colour_a_language_and_a_choice_s_answers_are_edited_in_their_panels() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's plugin panels") else {
        return;
    };
    let Some(corpus) = choreo_testkit::corpus("the stock LED, Set Language and Choice boxes")
    else {
        return;
    };
    let library = corpus.join(choreo_testkit::LIBRARY);

    // Colour: #ff8000 is [255, 128, 0].
    let leds = library.join("standard/LEDs/Fade/Eye LEDs/box.xar");
    let mut e = edit_box(&browser, &leds, "root/Color Edit");
    e.until("document.getElementById('plugin-0_0_16-color')?.value === '#0051ff'");
    e.page.eval(
        "(() => { const c = document.getElementById('plugin-0_0_16-color'); c.value = '#ff8000';
           c.dispatchEvent(new Event('input')); c.dispatchEvent(new Event('change')); })()",
    );
    assert!(e.answered(), "the colour was not saved");
    let saved = e.bytes();
    assert!(saved.contains("<color>#ff8000</color>"), "{saved}");
    assert!(saved.contains("self.onStopped([255, 128, 0])"), "{saved}");

    // Set Language: German to French, speech recognition on.
    let project =
        corpus.join("Humanoid-Robots-as-Edu-Assistants__evolution_game/behavior_1/behavior.xar");
    let mut e = edit_box(&browser, &project, "root/Set Speech Lang.");
    e.until("document.getElementById('plugin-0_0_2-language')?.value === 'German'");
    e.page.eval(
        "(() => { const s = document.getElementById('plugin-0_0_2-language'); s.value = 'French';
           s.dispatchEvent(new Event('change')); })()",
    );
    assert!(e.answered(), "the language was not saved");
    e.properties_shown();
    e.until("!!document.getElementById('plugin-0_0_2-asr')");
    e.page
        .eval("document.getElementById('plugin-0_0_2-asr').click()");
    assert!(e.answered(), "the switch was not saved");
    let saved = e.bytes();
    for written in [
        "<language>French</language>",
        "<asr use=\"1\" />",
        "self.language = \"French\"",
        "self.setASR = True",
    ] {
        assert!(saved.contains(written), "{written}");
    }

    // Choice: the French table's second answer retyped, a third added (an output for it,
    // an empty row in the other languages).
    let choice = library.join("standard/Audio/Voice/Choice/behavior.xar");
    let mut e = edit_box(&browser, &choice, "root/Choice");
    e.until("!!document.querySelector('.plugin-table select')");
    e.page.eval(
        "(() => { const s = document.querySelector('.plugin-table select'); s.value = 'french';
           s.dispatchEvent(new Event('change')); })()",
    );
    e.until("document.querySelector(\"#plugin-0_0_1-rows input[data-row='2']\")?.value === 'non'");
    e.page
        .eval("document.querySelector(\"#plugin-0_0_1-rows input[data-row='2']\").id = 'answer-2'");
    type_into(&mut e, "answer-2", "pas du tout");
    assert!(e.answered(), "the answer was not saved");
    e.properties_shown();
    e.until("!!document.getElementById('plugin-0_0_1-new-row')");
    e.page
        .eval("document.getElementById('plugin-0_0_1-new-row').focus()");
    e.page.type_text("peut-être");
    e.page.key("Enter", "Enter", 13, 0);
    assert!(e.answered(), "the answer was not added");
    e.until("!!document.querySelector(\"g.box[data-path='root/Choice'] circle.output[data-port='output_3']\")");
    let saved = e.bytes();
    assert!(saved.contains("<keyword>pas du tout</keyword>"), "retyped");
    assert!(saved.contains("<keyword>peut-être</keyword>"), "added");
    assert!(
        saved.contains("<Output name=\"output_3\""),
        "no output for it"
    );
}
