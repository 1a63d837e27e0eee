//! Boxes grouped into a diagram box and ungrouped from the page, as a user does it: a
//! click, a Shift+click, Group; then Ungroup in the group box's Properties. The expected
//! file is derived by hand from examples/hello and the 2.8 Flow diagram panel page ("How to
//! group several boxes into a single one": the new box replaces the selected boxes; its
//! inputs and outputs are the links that cross its border).

use super::{CTRL, Editing, SHIFT, links, model};
use serde_json::Value;

#[test]
fn boxes_are_grouped_into_a_diagram_box_and_ungrouped_back_from_the_page() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::open(&browser);
    let original = e.bytes();

    // Wake Up (id 1, at 60,60) clicked, Say Hello (id 2) Shift+clicked, then Group.
    let wake = e.at("g.box[data-path='root/Wake Up'] .box-bg", 0.0, -0.3);
    e.page.click(wake.0, wake.1);
    e.until("document.getElementById('prop-name')?.value === 'Wake Up'");
    let say = e.at("g.box[data-path='root/Say Hello'] .box-bg", 0.0, -0.3);
    e.page.click_with(say.0, say.1, SHIFT);
    let group = e.at("#group-boxes", 0.0, 0.0);
    e.page.click(group.0, group.1);
    assert!(e.answered(), "the boxes were not grouped");
    // Grouped away, Wake Up is no more in the Properties tab.
    e.properties_shown();
    assert_eq!(
        e.page.eval("document.getElementById('prop-name') === null"),
        Value::Bool(true)
    );

    // The root: Nod (3) and the group box, id 4 (the next free), at the boxes' smallest x, y.
    let xar = model(&e.bytes());
    let root = xar.root_box.diagrams().next().unwrap();
    let g = root.boxes.iter().find(|b| b.name == "Group").unwrap();
    assert_eq!((g.id, g.x, g.y), (4, Some(60), Some(60)));
    // Its ports: onLoad (1), Wake Up's onStart as its input (2), Say Hello's onStopped as
    // its output (3).
    let ports: Vec<(&str, i32)> = g
        .inputs
        .iter()
        .map(|p| (p.name.as_str(), p.id))
        .chain(g.outputs.iter().map(|p| (p.name.as_str(), p.id)))
        .collect();
    assert_eq!(ports, [("onLoad", 1), ("onStart", 2), ("onStopped", 3)]);
    // Outside: root's onStart → the group's input, its output → Nod, Nod → root's onStopped.
    let mut outside = links(&e.bytes());
    outside.sort_unstable();
    assert_eq!(outside, [(0, 2, 4, 2), (3, 4, 0, 4), (4, 3, 3, 2)]);
    // Inside: the group's input → Wake Up → Say Hello → the group's output.
    let inner = g.diagrams().next().unwrap();
    let mut inside = super::diagram_links(inner);
    inside.sort_unstable();
    assert_eq!(inside, [(0, 2, 1, 2), (1, 4, 2, 2), (2, 4, 0, 3)]);

    // Ungrouped from its Properties: the boxes and links as they were.
    let g = e.at("g.box[data-path='root/Group'] .box-bg", 0.0, -0.3);
    e.page.click(g.0, g.1);
    e.page.shows("id=\"ungroup\"");
    let ungroup = e.at("#ungroup", 0.0, 0.0);
    e.page.click(ungroup.0, ungroup.1);
    assert!(e.answered(), "the box was not ungrouped");
    let (mut now, mut was) = (links(&e.bytes()), links(&original));
    now.sort_unstable();
    was.sort_unstable();
    assert_eq!(now, was);
    let placed = |text: &str| {
        let mut v: Vec<(String, i32, Option<i32>, Option<i32>)> = model(text)
            .root_box
            .diagrams()
            .next()
            .unwrap()
            .boxes
            .iter()
            .map(|b| (b.name.clone(), b.id, b.x, b.y))
            .collect();
        v.sort();
        v
    };
    assert_eq!(placed(&e.bytes()), placed(&original));

    // Both undone: the original bytes.
    for _ in 0..2 {
        e.page.key("z", "KeyZ", 90, CTRL);
        assert!(e.answered(), "an undo was not answered");
    }
    assert_eq!(e.bytes(), original);
}
