//! A box's port changed in place from the Properties tab (Choregraphe's Edit box dialog
//! edits a port's fields without removing it): it keeps its id, so its links stay, and
//! only its changed attribute is written; a change its links' rules refuse ("Box -
//! Inputs/outputs", 2.8: a Bang output does not feed a String input) is refused, saying
//! which link would break.

use super::{CTRL, Editing, links};

#[test]
fn a_port_changed_in_place_keeps_its_id_and_links_and_a_breaking_change_is_refused() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::open(&browser);
    let original = e.bytes();

    // Say Hello's onStopped renamed "said": the one attribute on its line, the link from it
    // (Say Hello 4 → Nod 2) as it was.
    let say = e.at("g.box[data-path='root/Say Hello'] .box-bg", 0.0, -0.3);
    e.page.click(say.0, say.1);
    e.page.shows("data-ports=\"output\"");
    let pen = e.at(
        "[data-ports='output'] li[data-port='onStopped'] .port-change",
        0.0,
        0.0,
    );
    e.page.click(pen.0, pen.1);
    e.until("document.activeElement?.id === 'port-name'");
    e.page.eval("document.getElementById('port-name').select()");
    e.page.type_text("said");
    let change = e.at("#port-add", 0.0, 0.0);
    e.page.click(change.0, change.1);
    assert!(e.answered(), "the port was not changed");
    e.properties_shown();
    let line = r#"<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="Sent when the text is said." id="4" />"#;
    assert_eq!(
        e.bytes(),
        original.replace(line, &line.replace("onStopped", "said"))
    );
    assert_eq!(links(&e.bytes()), links(&original));

    // Nod's onStart made a string input: the bang from Say Hello could no longer reach it.
    let nod = e.at("g.box[data-path='root/Nod'] .box-bg", 0.0, -0.3);
    e.page.click(nod.0, nod.1);
    e.until("document.getElementById('prop-name')?.value === 'Nod'");
    let pen = e.at(
        "[data-ports='input'] li[data-port='onStart'] .port-change",
        0.0,
        0.0,
    );
    e.page.click(pen.0, pen.1);
    e.page.eval(
        "(() => { const t = document.getElementById('port-type'); t.value = 'string';
           t.dispatchEvent(new Event('change')); })()",
    );
    let change = e.at("#port-add", 0.0, 0.0);
    e.page.click(change.0, change.1);
    assert!(!e.answered(), "a change breaking a link was saved");
    let why = e.page.eval("document.getElementById('edit-state').title");
    assert!(why.as_str().unwrap().contains("would break"), "{why}");

    // Undone: the original bytes.
    e.page.key("z", "KeyZ", 90, CTRL);
    assert!(e.answered(), "the undo was not answered");
    assert_eq!(e.bytes(), original);
}
