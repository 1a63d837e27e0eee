//! Nothing typed is lost (docs/editor.md, "Nothing typed is lost"): a script typed in is
//! saved after a pause in the typing, and before whatever the user does next (a parameter
//! set, a box moved or clicked); a box's name typed is saved when another box is clicked;
//! what was typed and not saved survives the page's crash as a draft the page shows, saved
//! or discarded at the user's word; closing the page with typed text not saved warns.

use serde_json::Value;

use super::{CTRL, Editing, root_box, type_into, until_on};
use crate::support::browser::SWIFTSHADER;
use crate::support::devtools::LivePage;

/// The page waits an hour for a pause in the typing: only the other ways can have saved.
pub(super) const NEVER: &str = "window.choreoMonitor.typingPause = 3600000; true";

/// Say Hello's script in the file.
fn script(e: &Editing) -> String {
    root_box(&e.bytes(), "Say Hello")
        .unwrap()
        .code()
        .to_string()
}

/// Say Hello selected, its script's editor ready.
fn select_say_hello(e: &mut Editing) {
    let say = e.at("g.box[data-path='root/Say Hello'] .box-bg", 0.0, -0.3);
    e.page.click(say.0, say.1);
    e.page.shows("data-ready=\"true\"");
}

/// `text` typed at the end of the script's editor.
fn type_in_script(e: &mut Editing, text: &str) {
    // Its last line clicked (the middle of a long script may be scrolled away).
    let code = e.at("#prop-script .cm-line:last-child", 0.0, 0.0);
    e.page.click(code.0, code.1);
    e.until("document.activeElement?.classList.contains('cm-content')");
    e.page.key("End", "End", 35, CTRL);
    e.page.type_text(text);
}

/// The script's editor's text.
fn shown(e: &mut Editing) -> String {
    let text = e
        .page
        .eval("window.choreoMonitor.scriptView.state.doc.toString()");
    text.as_str().unwrap_or_default().to_string()
}

/// The page crashed once the server has the drafts it was sent, and opened again.
fn crash(e: &mut Editing) {
    e.until("window.choreoMonitor.draftsInFlight === 0");
    e.page.crash_and_reopen();
}

/// Whether closing the page now would warn (the page's `beforeunload` handler cancels).
fn closing_warns(e: &mut Editing) -> bool {
    e.page.eval(
        "(() => { const ev = new Event('beforeunload', { cancelable: true });
           window.dispatchEvent(ev); return ev.defaultPrevented; })()",
    ) == Value::Bool(true)
}

#[test]
fn a_script_typed_is_saved_after_a_pause_in_the_typing() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::open(&browser);
    select_say_hello(&mut e);
    let before = script(&e);
    type_in_script(&mut e, "    # paused\n");
    // Nothing else done: the page saves once the typing has paused (a second, real time).
    assert!(e.answered(), "the script typed was not saved");
    assert_eq!(script(&e), format!("{before}    # paused\n"));
    assert!(
        !closing_warns(&mut e),
        "closing warns with nothing left to save"
    );
}

#[test]
fn what_is_typed_is_saved_before_whatever_the_user_does_next() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::open(&browser);
    e.page.eval(NEVER);
    select_say_hello(&mut e);
    let before = script(&e);

    // A parameter of the same box set: the script typed is saved first, and still shown.
    type_in_script(&mut e, "    # one\n");
    type_into(&mut e, "param-Text", "Bonjour");
    assert!(
        e.answered() && e.answered(),
        "script and parameter not saved"
    );
    let said = root_box(&e.bytes(), "Say Hello").unwrap();
    assert_eq!(said.code(), format!("{before}    # one\n"));
    assert!(e.bytes().contains("value=\"Bonjour\""));
    e.properties_shown();
    assert!(
        shown(&mut e).ends_with("    # one\n"),
        "{:?}",
        shown(&mut e)
    );

    // Another box moved: the script typed first.
    type_in_script(&mut e, "    # two\n");
    let nod = e.at("g.box[data-path='root/Nod'] .box-bg", 0.0, -0.3);
    e.page.drag(nod, (nod.0 + 40.0, nod.1 + 40.0));
    assert!(e.answered() && e.answered(), "script and move not saved");
    assert_eq!(script(&e), format!("{before}    # one\n    # two\n"));
    assert!(
        !e.bytes()
            .contains(r#"tooltip="Nods the head." x="380" y="60""#),
        "Nod did not move"
    );

    // Another box clicked: the script typed is saved, the other box shown.
    e.properties_shown();
    type_in_script(&mut e, "    # three\n");
    let wake = e.at("g.box[data-path='root/Wake Up'] .box-bg", 0.0, -0.3);
    e.page.click(wake.0, wake.1);
    assert!(e.answered(), "the script was not saved");
    assert_eq!(
        script(&e),
        format!("{before}    # one\n    # two\n    # three\n")
    );
    e.until("document.getElementById('prop-name')?.value === 'Wake Up'");

    // A name typed, not left: clicking another box saves it.
    e.page.eval("document.getElementById('prop-name').focus(); document.getElementById('prop-name').select()");
    e.page.type_text("Rise");
    let nod = e.at("g.box[data-path='root/Nod'] .box-bg", 0.0, -0.3);
    e.page.click(nod.0, nod.1);
    assert!(e.answered(), "the name was not saved");
    assert!(e.bytes().contains("<Box name=\"Rise\" id=\"1\""));
    assert!(
        !closing_warns(&mut e),
        "closing warns with everything saved"
    );
}

#[test]
fn what_was_typed_survives_a_crash_of_the_page_and_closing_warns() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::open(&browser);
    let original = e.bytes();
    e.page.eval(NEVER);
    select_say_hello(&mut e);
    type_in_script(&mut e, "    # kept\n");
    // The tab gone as a crash takes it: nothing more sent.
    crash(&mut e);
    e.page.shows("data-path=\"root/Say Hello\"");
    e.page.shows("id=\"undo\"");
    e.answers = 0;
    assert_eq!(e.bytes(), original, "the crash saved the script");
    // The box shown again: the draft in the editor, the bar saying so; Save saves it.
    select_say_hello(&mut e);
    e.page.shows("id=\"draft-bar\"");
    assert!(
        shown(&mut e).ends_with("    # kept\n"),
        "{:?}",
        shown(&mut e)
    );
    assert!(closing_warns(&mut e), "closing with a draft does not warn");
    let save = e.at("#draft-save", 0.0, 0.0);
    e.page.click(save.0, save.1);
    assert!(e.answered(), "the draft was not saved");
    assert!(script(&e).ends_with("    # kept\n"));
    e.properties_shown();
    assert!(!closing_warns(&mut e), "closing warns with the draft saved");
    let kept = e.bytes();

    // Another draft, discarded: the file's text shown again, the file as it was.
    e.page.eval(NEVER);
    type_in_script(&mut e, "    # dropped\n");
    crash(&mut e);
    e.page.shows("id=\"undo\"");
    e.answers = 0;
    select_say_hello(&mut e);
    e.page.shows("id=\"draft-bar\"");
    let discard = e.at("#draft-discard", 0.0, 0.0);
    e.page.click(discard.0, discard.1);
    e.until("!document.getElementById('draft-bar') && !window.choreoMonitor.scriptView.state.doc.toString().includes('# dropped')");
    assert!(
        shown(&mut e).ends_with("    # kept\n"),
        "{:?}",
        shown(&mut e)
    );
    assert_eq!(e.bytes(), kept);
    assert!(
        !closing_warns(&mut e),
        "closing warns with the draft discarded"
    );

    // Typed and not saved yet: closing warns (and saves what it can on the way).
    e.page.eval(NEVER);
    type_in_script(&mut e, "    # closing\n");
    assert!(
        closing_warns(&mut e),
        "closing with typed text does not warn"
    );
    assert!(e.answered(), "closing did not save what it could");
    assert!(script(&e).ends_with("    # kept\n    # closing\n"));
}

/// Two pages on one file share its one history, and each says so: the second page's Undo
/// takes back the first page's edit.
#[test]
fn two_pages_share_one_history_and_say_so() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::open(&browser);
    let original = e.bytes();
    assert_eq!(
        e.page
            .eval("document.getElementById('shared-history').hidden"),
        Value::Bool(true),
        "one page says the history is shared"
    );
    let from = e.at("g.box[data-path='root/Nod'] .box-bg", 0.0, -0.3);
    e.page.drag(from, (from.0 + 60.0, from.1 + 30.0));
    assert!(e.answered(), "the move was not saved");

    // A second page (another browser's tab) on the same server.
    let url = e._served.url.clone();
    let mut other = LivePage::open(&browser, SWIFTSHADER, &url);
    other.shows("data-path=\"root/Nod\"");
    for page in [&mut e.page, &mut other] {
        until_on(
            page,
            "(() => { const s = document.getElementById('shared-history');
               return !!s && !s.hidden && s.dataset.pages === '2'; })()",
        );
    }
    // The second page's Undo takes back the first page's move.
    until_on(
        &mut other,
        "document.getElementById('undo')?.disabled === false",
    );
    other.eval("document.getElementById('undo').click(); true");
    assert!(e.answered(), "the first page was not told of the undo");
    assert_eq!(e.bytes(), original);
}
