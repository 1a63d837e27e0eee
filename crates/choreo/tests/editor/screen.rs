//! A screen that fits the work: on a 1366×768 laptop the diagram takes most of the page;
//! the splitters resize the panes and the page opens again as it was left; a drag on the
//! background frames boxes (Choregraphe's rubber band); Fit keeps box names readable on a
//! long diagram; each box shows a glyph of its icon's kind. Screenshots at 1366×768 and 1920×1080 for docs/editor.md.

use serde_json::Value;

use super::{Editing, root_names};
use crate::support::cli::workspace;

/// The size of the element `id` on the page: [width, height].
fn size(e: &mut Editing, id: &str) -> (f64, f64) {
    let r = e.page.eval(&format!(
        "(() => {{ const r = document.getElementById('{id}').getBoundingClientRect(); return [r.width, r.height]; }})()"
    ));
    (r[0].as_f64().unwrap(), r[1].as_f64().unwrap())
}

#[test]
fn the_diagram_fills_a_laptop_screen_and_the_panes_keep_their_sizes() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's panes") else {
        return;
    };
    let mut e = Editing::open(&browser);
    let shots = workspace().join("target/editor-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    e.page.viewport(1920, 1080);
    let nod = e.at("g.box[data-path='root/Nod'] .box-bg", 0.0, -0.3);
    e.page.click(nod.0, nod.1);
    e.page.shows("data-ready=\"true\"");
    e.page.screenshot(&shots.join("editor-1920x1080.png"));

    // A laptop: the diagram gets more than half the height and most of the width.
    e.page.viewport(1366, 768);
    e.until("document.getElementById('diagram').getBoundingClientRect().width < 1366");
    let (w, h) = size(&mut e, "diagram");
    assert!(h > 0.55 * 768.0, "the diagram is {h} px tall of 768");
    assert!(w > 0.7 * 1366.0, "the diagram is {w} px wide of 1366");
    e.page.screenshot(&shots.join("editor-1366x768.png"));

    // The bottom tabs' splitter dragged 120 px up: they are 120 px taller, and stay so when
    // the page is opened again.
    let (_, bottom) = size(&mut e, "bottom");
    let grip = e.at("#split-bottom", 0.0, 0.0);
    e.page.drag(grip, (grip.0, grip.1 - 120.0));
    let (_, taller) = size(&mut e, "bottom");
    assert!(
        (taller - bottom - 120.0).abs() <= 2.0,
        "{bottom} → {taller}"
    );
    e.page.reload();
    e.until("!!document.getElementById('split-bottom')");
    let (_, kept) = size(&mut e, "bottom");
    assert!(
        (kept - taller).abs() <= 1.0,
        "{taller} → {kept} after a reload"
    );
    // A double-click puts it back.
    let grip = e.at("#split-bottom", 0.0, 0.0);
    e.page.mouse("mouseMoved", grip.0, grip.1);
    e.page.eval(
        "document.getElementById('split-bottom').dispatchEvent(new MouseEvent('dblclick', { bubbles: true })); true",
    );
    let (_, back) = size(&mut e, "bottom");
    assert!((back - bottom).abs() <= 1.0, "{bottom} → {back} put back");
}

#[test]
fn a_drag_on_the_background_selects_the_boxes_it_frames() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's rubber band") else {
        return;
    };
    let mut e = Editing::open(&browser);
    // Each box with the glyph of its icon's kind: hello's are Python Script boxes
    // (`media/images/box/box-python-script.png`).
    assert_eq!(
        e.page.eval(
            "[...document.querySelectorAll('g.box')].map((g) => g.querySelector('.glyph path')?.getAttribute('d'))"
        ),
        serde_json::Value::from(vec!["M5.5 4L2 8l3.5 4M10.5 4L14 8l-3.5 4"; 3])
    );
    // From above-left of Wake Up to below-right of Nod, on the background.
    let wake = e.at("g.box[data-path='root/Wake Up'] .box-bg", -0.5, -0.5);
    let nod = e.at("g.box[data-path='root/Nod'] .box-bg", 0.5, 0.5);
    e.page
        .drag((wake.0 - 12.0, wake.1 - 12.0), (nod.0 + 12.0, nod.1 + 12.0));
    assert_eq!(
        e.page
            .eval("document.querySelectorAll('g.box.selected').length"),
        Value::from(3)
    );
    let group = e.at("#group-boxes", 0.0, 0.0);
    e.page.click(group.0, group.1);
    assert!(e.answered(), "the framed boxes were not grouped");
    assert_eq!(root_names(&e.bytes()), ["Group"]);
}

/// Sixty boxes in a row, 200 units apart: Fit would draw them at a tenth of their size.
fn long_row() -> String {
    let boxes: String = (1..=60)
        .map(|i| {
            format!(
                "<Box name=\"Step {i}\" id=\"{i}\" localization=\"8\" tooltip=\"\" x=\"{}\" y=\"40\"><Input name=\"onStart\" type=\"1\" type_size=\"1\" nature=\"2\" inner=\"0\" tooltip=\"\" id=\"1\" /></Box>",
                i * 200
            )
        })
        .collect();
    super::EMPTY.replace("<Diagram />", &format!("<Diagram>{boxes}</Diagram>"))
}

#[test]
fn fit_keeps_the_names_of_a_long_diagram_readable() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's Fit") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("behavior.xar");
    std::fs::write(&file, long_row()).unwrap();
    let mut e = Editing::serve(&browser, dir, file, "data-path=\"root/Step 60\"");
    let fit = e.at("#fit", 0.0, 0.0);
    e.page.click(fit.0, fit.1);
    // (all in view would be about 0.08: 12,000 units on some 1,000 pixels)
    assert!(e.scale() > 0.749, "Fit draws at {}", e.scale());
    // The first boxes are in view; the last a pan away.
    let first = e.at("g.box[data-path='root/Step 1'] .box-bg", 0.0, 0.0);
    let (w, _) = size(&mut e, "diagram-svg");
    assert!(first.0 < w, "the first box is not in view");
}
