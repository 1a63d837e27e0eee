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

#[test]
fn play_takes_a_scenario_file_and_a_robot_url() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's Play options") else {
        return;
    };
    // examples/interactive with its scenario: the touch comes, the behavior answers it.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("behavior.xar");
    std::fs::copy(workspace().join("examples/interactive/behavior.xar"), &file).unwrap();
    let mut e = Editing::serve(&browser, dir, file, "id=\"play\"");
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
