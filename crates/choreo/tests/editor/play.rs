//! Play's options from the page: a scenario file (examples/interactive waits for a touch on
//! its head; its scenario touches it a second after it asks), and a robot URL (`choreo sim`
//! served over qi messaging: the robot the run drives says what the behavior says).

use super::Editing;
use crate::support::cli::workspace;
use crate::support::sim::{served_sim, stop_sim};

/// `value` typed into the Play options' field `id` (the options opened first).
fn option(e: &mut Editing, id: &str, value: &str) {
    e.page
        .eval("document.getElementById('play-options').open = true");
    super::type_into(e, id, value);
}

/// Play clicked; waits for this run's end, shown in the header: its outcome.
fn play(e: &mut Editing) -> String {
    let play = e.at("#play", 0.0, 0.0);
    e.page.click(play.0, play.1);
    e.until(
        "(() => { const o = document.getElementById('outcome');
           return !o.hidden && !document.getElementById('play').disabled; })()",
    );
    e.page
        .eval("document.getElementById('outcome').dataset.outcome")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// examples/interactive (it asks for a touch on the head and answers it), edited.
fn interactive(browser: &std::path::Path) -> Editing {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("behavior.xar");
    std::fs::copy(workspace().join("examples/interactive/behavior.xar"), &file).unwrap();
    Editing::serve(browser, dir, file, "id=\"play\"")
}

#[test]
fn play_takes_a_scenario_file_and_a_robot_url() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's Play options") else {
        return;
    };
    // examples/interactive with its scenario: the touch comes, the behavior answers it.
    let mut e = interactive(&browser);
    let touch = workspace().join("examples/interactive/touch.yaml");
    option(&mut e, "play-events", touch.to_str().unwrap());
    assert_eq!(play(&mut e), "finished");
    assert_eq!(
        e.page
            .eval("document.getElementById('said-text').textContent"),
        "Hello! You touched my head."
    );

    // examples/hello on `choreo sim`: the robot says the hello.
    let (sim, url) = served_sim();
    let mut e = Editing::open(&browser);
    option(&mut e, "play-robot", &url);
    assert_eq!(play(&mut e), "finished");
    let log = stop_sim(sim);
    assert!(
        log.contains("says \"Hello! I am running in choreo.\""),
        "{log}"
    );
}

/// Play clicked, then the Talk tab (marked while the run plays).
fn play_and_talk(e: &mut Editing) {
    let play_button = e.at("#play", 0.0, 0.0);
    e.page.click(play_button.0, play_button.1);
    e.until("document.querySelector(\"button.tab[data-tab='talk']\").classList.contains('live')");
    let tab = e.at("button.tab[data-tab='talk']", 0.0, 0.0);
    e.page.click(tab.0, tab.1);
}

/// The Talk tab while Play runs: examples/interactive asks for a touch on its head and gets
/// it from the page's "Touch head"; examples/dialog's topic hears the sentences typed and
/// answers as the topic says (greet_enu.top: `u:(my name is _*) Nice to meet you, $1.`,
/// `u:([goodbye bye]) ^first["Goodbye $name!" ...] $onStopped=1`), the conversation shown.
#[test]
fn the_talk_tab_touches_and_speaks_to_the_behavior_playing() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's Talk tab") else {
        return;
    };
    let mut e = interactive(&browser);
    play_and_talk(&mut e);
    let said = |who: &str, text: &str| {
        format!(
            "[...document.querySelectorAll('#conversation .line.{who} .what')].some((l) => l.textContent === {text:?})"
        )
    };
    e.until(&said("said", "Touch my head, please."));
    let head = e.at("#talk-head", 0.0, 0.0);
    e.page.click(head.0, head.1);
    e.until(&said("heard", "touched: touch head"));
    e.until(&said("said", "Hello! You touched my head."));
    e.until("!document.getElementById('play').disabled");
    assert_eq!(
        e.page
            .eval("document.getElementById('outcome').dataset.outcome"),
        "finished"
    );

    // examples/dialog: a conversation to its end.
    let dir = tempfile::tempdir().unwrap();
    crate::editor::copy_tree(&workspace().join("examples/dialog"), dir.path());
    let file = dir.path().join("behavior.xar");
    let mut e = Editing::serve(&browser, dir, file, "id=\"play\"");
    play_and_talk(&mut e);
    e.until(&said(
        "said",
        "Hello! Tell me your name, ask me to dance, or say goodbye.",
    ));
    e.until("!document.getElementById('said').classList.contains('speaking')");
    for (line, answer) in [
        ("my name is Ada", "Nice to meet you, Ada."),
        ("goodbye", "Goodbye Ada!"),
    ] {
        e.page
            .eval("document.getElementById('talk-sentence').focus()");
        e.page.type_text(line);
        e.page.key("Enter", "Enter", 13, 0);
        e.until(&said("heard", line));
        e.until(&said("said", answer));
        // A person answers once the robot has spoken (ALDialog does not listen while the
        // robot speaks; the answer's `$name=$1` is done once it is said).
        e.until("!document.getElementById('said').classList.contains('speaking')");
    }
    e.until("!document.getElementById('play').disabled");
    assert_eq!(
        e.page
            .eval("document.getElementById('outcome').dataset.outcome"),
        "finished"
    );

    // A face shown: fixtures/face.xar waits for FaceDetected, reads the face's expression
    // (a woman at rest unless told: not sad) and finishes.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("behavior.xar");
    std::fs::copy(
        workspace().join("crates/choreo/tests/fixtures/face.xar"),
        &file,
    )
    .unwrap();
    let mut e = Editing::serve(&browser, dir, file, "id=\"play\"");
    play_and_talk(&mut e);
    e.until("document.getElementById('talk-face')?.disabled === false");
    let face = e.at("#talk-face", 0.0, 0.0);
    e.page.click(face.0, face.1);
    e.until(&said("heard", "shows a face"));
    e.until("!document.getElementById('play').disabled");
    assert_eq!(
        e.page
            .eval("document.getElementById('outcome').dataset.outcome"),
        "finished"
    );
}
