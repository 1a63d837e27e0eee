//! `choreo edit` in a real browser: Debian's chromium, headless, driven over DevTools as a
//! user drives it (the mouse drags a box and draws links, keys delete, copy, paste, undo and
//! redo, fields are typed into), and after each action the file on disk is read back by
//! choreo's reader, or compared byte for byte with the bytes the action should give.
//! Screenshots go to `target/editor-screenshots/`. Without chromium: a NOTICE and a skip, a
//! failure under `CI=true` (`scripts/test` installs it).

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::browser::SWIFTSHADER;
use support::cli::workspace;
use support::devtools::LivePage;
use support::served::Served;

/// Key modifiers as DevTools numbers them.
const CTRL: u32 = 2;
const SHIFT: u32 = 8;

/// A page of `choreo edit` on a copy of examples/hello, and that copy.
struct Editing {
    page: LivePage,
    file: PathBuf,
    /// How many answers (`edited`) the page has had.
    answers: u64,
    _served: Served,
    _dir: tempfile::TempDir,
}

impl Editing {
    /// `choreo edit FILE` (in `dir`, kept as long as the page) in chromium, once the page
    /// shows `ready` and its editing tools.
    fn serve(browser: &Path, dir: tempfile::TempDir, file: PathBuf, ready: &str) -> Editing {
        Editing::serve_with(browser, dir, file, ready, &[])
    }

    /// [`Editing::serve`] with more of `choreo edit`'s options.
    fn serve_with(
        browser: &Path,
        dir: tempfile::TempDir,
        file: PathBuf,
        ready: &str,
        options: &[&str],
    ) -> Editing {
        let mut args = vec!["edit", file.to_str().unwrap()];
        args.extend(options);
        let served = Served::start(&args);
        let mut page = LivePage::open(browser, SWIFTSHADER, &served.url);
        page.shows(ready);
        page.shows("id=\"undo\"");
        Editing {
            page,
            file,
            answers: 0,
            _served: served,
            _dir: dir,
        }
    }

    /// A copy of examples/hello, edited.
    fn open(browser: &Path) -> Editing {
        Editing::open_with(browser, &[])
    }

    /// A copy of examples/hello, edited with more of `choreo edit`'s options.
    fn open_with(browser: &Path, options: &[&str]) -> Editing {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("behavior.xar");
        std::fs::copy(workspace().join("examples/hello/behavior.xar"), &file).unwrap();
        Editing::serve_with(browser, dir, file, "data-path=\"root/Nod\"", options)
    }

    /// A new behavior ([`EMPTY`]), edited.
    fn empty(browser: &Path) -> Editing {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("behavior.xar");
        std::fs::write(&file, EMPTY).unwrap();
        Editing::serve(browser, dir, file, "id=\"add-box\"")
    }

    /// The palette's box `key` added, found by typing `search`.
    fn add(&mut self, search: &str, key: &str) {
        let add = self.at("#add-box", 0.0, 0.0);
        self.page.click(add.0, add.1);
        self.page.type_text(search);
        self.page.shows(&format!("data-key=\"{key}\""));
        let item = self.at(&format!(".palette-item[data-key='{key}']"), 0.0, 0.0);
        self.page.click(item.0, item.1);
        assert!(self.answered(), "{key} was not added");
    }

    /// A link drawn from the port `from` selects to the port `to` selects.
    fn link(&mut self, from: &str, to: &str) {
        let (a, z) = (self.at(from, 0.0, 0.0), self.at(to, 0.0, 0.0));
        self.page.drag(a, z);
        assert!(self.answered(), "{from} → {to} was not linked");
    }

    /// `choreo run --fast` of the file as saved: its trace's events.
    fn run_fast(&self) -> Vec<Value> {
        let trace = self.file.with_file_name("trace.jsonl");
        let run = support::cli::choreo(&[
            "run",
            self.file.to_str().unwrap(),
            "--fast",
            "--trace",
            trace.to_str().unwrap(),
        ]);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        std::fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn bytes(&self) -> String {
        std::fs::read_to_string(&self.file).unwrap()
    }

    /// The centre of the element `selector` selects, in CSS pixels of the page; `dx`, `dy`
    /// move it as fractions of its size (−0.5: its left or top edge).
    fn at(&mut self, selector: &str, dx: f64, dy: f64) -> (f64, f64) {
        // Where it is once the page has settled: a pane that grows (a timeline's row) fits
        // the diagram again a frame later.
        let r = self.page.eval(&format!(
            "(async () => {{
               const frame = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
               const rect = () => {{ const r = document.querySelector({selector:?}).getBoundingClientRect();
                 return [r.x + r.width * (0.5 + {dx}), r.y + r.height * (0.5 + {dy})]; }};
               // Scrolled to, as a user scrolls a pane to reach it.
               document.querySelector({selector:?}).scrollIntoView({{ block: 'nearest', inline: 'nearest' }});
               let was = rect();
               for (let i = 0; i < 100; i++) {{
                 await frame();
                 const now = rect();
                 if (now[0] === was[0] && now[1] === was[1]) return now;
                 was = now;
               }}
               return was; }})()"
        ));
        (r[0].as_f64().unwrap(), r[1].as_f64().unwrap())
    }

    /// Waits for the server's answer to the action just made: whether it was saved.
    fn answered(&mut self) -> bool {
        self.answers += 1;
        let want = self.answers;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let state = self.page.eval(
                "(() => { const e = document.getElementById('edit-state');
                   return [Number(e.dataset.seq || 0), e.dataset.ok]; })()",
            );
            if state[0].as_u64().unwrap_or(0) >= want {
                return state[1] == "true";
            }
            assert!(Instant::now() < deadline, "no answer to edit {want}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the page's `expression` is true (two minutes of real time at most).
    fn until(&mut self, expression: &str) {
        until_on(&mut self.page, expression);
    }

    /// Waits for the Properties tab to show its box as the last answer left it.
    fn properties_shown(&mut self) {
        let want = self.answers.to_string();
        let deadline = Instant::now() + Duration::from_secs(60);
        while self
            .page
            .eval("document.getElementById('props').dataset.seq")
            != Value::String(want.clone())
        {
            assert!(
                Instant::now() < deadline,
                "the Properties tab was not shown again"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Pixels of the page per unit of the diagram (the SVG's scale), as the browser draws it.
    fn scale(&mut self) -> f64 {
        self.page
            .eval("document.getElementById('diagram-svg').getScreenCTM().a")
            .as_f64()
            .unwrap()
    }
}

/// Waits until `page`'s `expression` is true (two minutes of real time at most).
fn until_on(page: &mut LivePage, expression: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while page.eval(expression) != Value::Bool(true) {
        assert!(Instant::now() < deadline, "never true: {expression}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The behavior in `text`, as choreo's reader reads it.
fn model(text: &str) -> choreo_xar::model::XarFile {
    choreo_xar::read_xar("edited", text.as_bytes())
        .unwrap()
        .value
}

/// The root diagram's links, as (from box, from port, to box, to port) ids.
fn links(text: &str) -> Vec<(i32, i32, i32, i32)> {
    diagram_links(model(text).root_box.diagrams().next().unwrap())
}

/// A diagram's links, as (from box, from port, to box, to port) ids.
fn diagram_links(d: &choreo_xar::model::Diagram) -> Vec<(i32, i32, i32, i32)> {
    d.links
        .iter()
        .map(|l| {
            (
                l.output_owner,
                l.index_of_output,
                l.input_owner,
                l.index_of_input,
            )
        })
        .collect()
}

/// The names of the root diagram's boxes, in the file's order.
fn root_names(text: &str) -> Vec<String> {
    model(text)
        .root_box
        .diagrams()
        .next()
        .unwrap()
        .boxes
        .iter()
        .map(|b| b.name.clone())
        .collect()
}

/// Every file under `from` copied to the same place under `to`.
fn copy_tree(from: &Path, to: &Path) {
    for f in choreo_testkit::files_under(from, &|_| true) {
        let at = to.join(f.strip_prefix(from).unwrap());
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::copy(&f, &at).unwrap();
    }
}

/// A box of the root diagram by name.
fn root_box(text: &str, name: &str) -> Option<choreo_xar::model::BoxDef> {
    let xar = model(text);
    let d = xar.root_box.diagrams().next().unwrap();
    d.boxes.iter().find(|b| b.name == name).cloned()
}

#[test]
fn a_user_edits_the_hello_diagram_in_the_page_and_each_action_is_on_disk() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::open(&browser);
    let original = e.bytes();

    // Drag Nod by (90, 45) pixels, by its name: it moves by that over the drawing's scale,
    // and only its x and y change in the file.
    let k = e.scale();
    let from = e.at("g.box[data-path='root/Nod'] .box-bg", 0.0, -0.3);
    e.page.drag(from, (from.0 + 90.0, from.1 + 45.0));
    assert!(e.answered(), "the move was not saved");
    let (x, y) = (
        380 + (90.0 / k).round() as i32,
        60 + (45.0 / k).round() as i32,
    );
    let moved = e.bytes();
    let nod = root_box(&moved, "Nod").unwrap();
    assert!(
        (nod.x.unwrap() - x).abs() <= 1 && (nod.y.unwrap() - y).abs() <= 1,
        "Nod at {:?}, {:?}; the drag says {x}, {y}",
        nod.x,
        nod.y
    );
    let expected = original.replace(
        r#"tooltip="Nods the head." x="380" y="60""#,
        &format!(
            r#"tooltip="Nods the head." x="{}" y="{}""#,
            nod.x.unwrap(),
            nod.y.unwrap()
        ),
    );
    assert_eq!(moved, expected, "the move changed more than Nod's x and y");

    // A link drawn from Wake Up's onStopped (port 4) to Nod's onStart (port 2).
    let out = e.at(
        "g.box[data-path='root/Wake Up'] circle.output[data-port='onStopped']",
        0.0,
        0.0,
    );
    let into = e.at(
        "g.box[data-path='root/Nod'] circle.input[data-port='onStart']",
        0.0,
        0.0,
    );
    e.page.drag(out, into);
    assert!(e.answered(), "the link was not saved");
    let linked = e.bytes();
    assert!(
        links(&linked).contains(&(1, 4, 3, 2)),
        "{:?}",
        links(&linked)
    );
    assert_eq!(links(&linked).len(), 5);

    // Choregraphe's rule: onLoad is visible only inside its box, so no link reaches it from
    // the diagram ("Box - Inputs/outputs", 2.8): refused, said, and the file unchanged.
    let onload = e.at(
        "g.box[data-path='root/Nod'] circle.input[data-port='onLoad']",
        0.0,
        0.0,
    );
    e.page.drag(out, onload);
    assert!(!e.answered(), "a link into an inner input was saved");
    assert_eq!(e.bytes(), linked);
    let why = e.page.eval("document.getElementById('toast').textContent");
    assert!(why.as_str().unwrap().contains("onLoad"), "{why}");

    // The link Say Hello → Nod clicked, then Delete: it is gone; Ctrl+Z brings the file
    // back byte for byte, Ctrl+Shift+Z takes it away again.
    let link = "g.link[data-from='Say Hello.onStopped'][data-to='Nod.onStart'] .wire";
    let mid = e.page.eval(&format!(
        "(() => {{ const p = document.querySelector({link:?}); const l = p.getTotalLength();
           const m = p.getPointAtLength(l / 2).matrixTransform(p.getScreenCTM());
           return [m.x, m.y]; }})()"
    ));
    e.page
        .click(mid[0].as_f64().unwrap(), mid[1].as_f64().unwrap());
    e.page.key("Delete", "Delete", 46, 0);
    assert!(e.answered(), "the unlink was not saved");
    let unlinked = e.bytes();
    assert!(!links(&unlinked).contains(&(2, 4, 3, 2)));
    assert_eq!(links(&unlinked).len(), 4);
    e.page.key("z", "KeyZ", 90, CTRL);
    assert!(e.answered());
    assert_eq!(e.bytes(), linked, "undo did not give the bytes back");
    e.page.key("z", "KeyZ", 90, CTRL | SHIFT);
    assert!(e.answered());
    assert_eq!(e.bytes(), unlinked, "redo did not give the edit's bytes");

    // Say Hello selected: its Properties; its Text typed, then its name.
    let say = e.at("g.box[data-path='root/Say Hello'] .box-bg", 0.0, -0.3);
    e.page.click(say.0, say.1);
    e.page.shows("id=\"param-Text\"");
    e.page
        .eval("document.getElementById('param-Text').select()");
    e.page.type_text("Bonjour from the page");
    e.page.eval("document.getElementById('param-Text').blur()");
    assert!(e.answered(), "the parameter was not saved");
    e.properties_shown();
    let said = root_box(&e.bytes(), "Say Hello").unwrap();
    assert_eq!(
        said.parameter("Text").unwrap().value.as_deref(),
        Some("Bonjour from the page")
    );
    e.page.eval("document.getElementById('prop-name').select()");
    e.page.type_text("Greet");
    e.page.eval("document.getElementById('prop-name').blur()");
    assert!(e.answered(), "the rename was not saved");
    e.properties_shown();
    assert!(root_box(&e.bytes(), "Greet").is_some());

    // An output added to Greet with the Edit box's fields: name, type, nature.
    type_into(&mut e, "port-name", "done");
    e.page.eval("(() => { const k = document.getElementById('port-kind'); k.value = 'output'; k.dispatchEvent(new Event('change')); })()");
    let add = e.at("#port-add", 0.0, 0.0);
    e.page.click(add.0, add.1);
    assert!(
        e.answered(),
        "the output was not added: {}",
        e.page.eval("document.getElementById('toast').textContent")
    );
    e.properties_shown();
    let greet_box = root_box(&e.bytes(), "Greet").unwrap();
    let done = greet_box.outputs.iter().find(|p| p.name == "done").unwrap();
    // Say Hello's ports and parameter are ids 1 to 5: the new output is 6, a punctual bang.
    assert_eq!(
        (done.id, done.nature.name(), done.port_type.name()),
        (6, "punctual", "bang")
    );

    // Copied (Ctrl+C) and pasted (Ctrl+V): a fifth box, Greet's copy, with the lowest free id.
    let greet = e.at("g.box[data-path='root/Greet'] .box-bg", 0.0, -0.3);
    e.page.click(greet.0, greet.1);
    e.page.key("c", "KeyC", 67, CTRL);
    e.page.shows("copied Greet");
    e.page.mouse("mouseMoved", greet.0 + 40.0, greet.1 + 160.0);
    e.page.key("v", "KeyV", 86, CTRL);
    assert!(e.answered(), "the paste was not saved");
    let pasted = e.bytes();
    let xar = model(&pasted);
    let boxes = &xar.root_box.diagrams().next().unwrap().boxes;
    assert_eq!(boxes.len(), 4);
    let copy = boxes.iter().find(|b| b.id == 4).unwrap();
    assert_eq!(copy.name, "Greet");
    assert_eq!(
        copy.parameter("Text").unwrap().value.as_deref(),
        Some("Bonjour from the page")
    );

    let shots = workspace().join("target/editor-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    e.page.screenshot(&shots.join("editor.png"));

    // Nod selected and deleted: it goes with its links, and from the Properties tab.
    let nod = e.at("g.box[data-path='root/Nod'] .box-bg", 0.0, -0.3);
    e.page.click(nod.0, nod.1);
    e.until("document.getElementById('prop-name')?.value === 'Nod'");
    e.page.key("Delete", "Delete", 46, 0);
    assert!(e.answered(), "the delete was not saved");
    e.properties_shown();
    assert_eq!(
        e.page.eval(
            "document.getElementById('prop-name') === null
             && document.getElementById('props').textContent"
        ),
        Value::from("select a box to edit its properties")
    );
    let deleted = e.bytes();
    assert!(root_box(&deleted, "Nod").is_none());
    assert!(links(&deleted).iter().all(|l| l.0 != 3 && l.2 != 3));

    // Undo all the way: the original bytes (eight edits: move, link, unlink, parameter,
    // rename, output, paste, delete; the unlink undone and redone).
    let mut undone = 0;
    while e.page.eval("document.getElementById('undo').disabled") == Value::Bool(false) {
        e.page.key("z", "KeyZ", 90, CTRL);
        assert!(e.answered());
        undone += 1;
        assert!(undone <= 8, "more to undo than was done");
    }
    assert_eq!(undone, 8);
    assert_eq!(
        e.bytes(),
        original,
        "undoing everything did not give the file back"
    );
}

/// A new behavior as Choregraphe starts one: a root whose flow diagram is empty.
const EMPTY: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3">
    <Box name="root" id="-1" localization="8" tooltip="The behavior." x="0" y="0">
        <bitmap>media/images/box/root.png</bitmap>
        <script language="4">
            <content>
                <![CDATA[]]>
            </content>
        </script>
        <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="Signal sent when diagram is loaded." id="1" />
        <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="Starts the behavior." id="2" />
        <Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="Stops the behavior." id="3" />
        <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="Sent when it is over." id="4" />
        <Timeline enable="0">
            <BehaviorLayer name="behavior_layer1">
                <BehaviorKeyframe name="keyframe1" index="1">
                    <Diagram />
                </BehaviorKeyframe>
            </BehaviorLayer>
        </Timeline>
    </Box>
</ChoregrapheProject>
"#;

#[test]
fn a_behavior_built_from_nothing_in_the_page_runs_as_built() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::empty(&browser);

    // From the palette, searched by name: a Say, then a Wait.
    for (search, key) in [
        ("say", "basic/say"),
        ("wai", "basic/wait"),
        ("dia", "basic/dialog"),
    ] {
        e.add(search, key);
    }
    assert_eq!(root_names(&e.bytes()), ["Say", "Wait", "Dialog"]);
    // The diagram fitted in view (its Fit button), as a user does to see every box.
    let fit = e.at("#fit", 0.0, 0.0);
    e.page.click(fit.0, fit.1);
    // The Dialog box comes with a dialog of its own beside the behavior, as Choregraphe's.
    let dlg = e.file.with_file_name("dialog/dialog.dlg");
    assert_eq!(
        std::fs::read_to_string(&dlg).unwrap(),
        "multilanguage:dialog\n  enu:dialog_enu.top\n"
    );

    // Linked as a user draws: the behavior's onStart → Say → Wait → its onStopped.
    let port = |b: &str, side: &str, p: &str| {
        format!("g.box[data-path='root/{b}'] circle.{side}[data-port='{p}']")
    };
    let drags = [
        (
            "g.owner-port.in[data-port='onStart'] circle".to_string(),
            port("Say", "input", "onStart"),
        ),
        (
            port("Say", "output", "onStopped"),
            port("Wait", "input", "onStart"),
        ),
        (
            port("Wait", "output", "onStopped"),
            port("Dialog", "input", "onStart"),
        ),
        (
            port("Dialog", "output", "onStopped"),
            "g.owner-port.out[data-port='onStopped'] rect".to_string(),
        ),
    ];
    for (from, to) in drags {
        e.link(&from, &to);
    }

    // Say's text and Wait's timeout typed in the Properties tab.
    for (b, field, value) in [
        ("Say", "param-Text", "Built in the page"),
        ("Wait", "param-Timeout__s_", "2.5"),
    ] {
        let at = e.at(&format!("g.box[data-path='root/{b}'] .box-bg"), 0.0, -0.3);
        e.page.click(at.0, at.1);
        e.page.shows(&format!("id=\"{field}\""));
        e.page
            .eval(&format!("document.getElementById('{field}').select()"));
        e.page.type_text(value);
        e.page
            .eval(&format!("document.getElementById('{field}').blur()"));
        assert!(e.answered(), "{b}'s {field} was not saved");
        e.properties_shown();
    }

    // The Dialog's topic: a rule for its start, typed in the page and saved.
    let dialog = e.at("g.box[data-path='root/Dialog'] .box-bg", 0.0, -0.3);
    e.page.click(dialog.0, dialog.1);
    e.until("document.querySelector('#topic-code[data-ready=true]') !== null");
    let code = e.at("#topic-code .cm-content", 0.0, 0.0);
    e.page.click(code.0, code.1);
    e.page.key("End", "End", 35, CTRL);
    e.page
        .type_text("u:(e:onStart) The dialog says hello. $onStopped=1");
    e.page.key("s", "KeyS", 83, CTRL);
    assert!(e.answered(), "the topic was not saved");

    // Run as saved: the robot says the text, the Wait holds 2.5 s of behavior time, the
    // dialog speaks and stops, and the behavior ends by its onStopped.
    let events = e.run_fast();
    let said = events
        .iter()
        .find(|v| v["event"] == "said")
        .expect("nothing said");
    assert_eq!(said["text"], "Built in the page");
    let said: Vec<&Value> = events
        .iter()
        .filter(|v| v["event"] == "said")
        .map(|v| &v["text"])
        .collect();
    assert_eq!(said, ["Built in the page", "The dialog says hello."]);
    let wait_in = events
        .iter()
        .find(|v| v["path"] == "root/Wait" && v["event"] == "in" && v["port"] == "onStart")
        .unwrap();
    let wait_out = events
        .iter()
        .find(|v| v["path"] == "root/Wait" && v["event"] == "out" && v["port"] == "onStopped")
        .unwrap();
    let waited = wait_out["time_ns"].as_i64().unwrap() - wait_in["time_ns"].as_i64().unwrap();
    assert_eq!(waited, 2_500_000_000, "the Wait held {waited} ns");
    assert!(
        events
            .iter()
            .any(|v| v["path"] == "root" && v["event"] == "out" && v["port"] == "onStopped")
    );

    // Played from the page, in real time: the run finishes, the dialog said last.
    let play = e.at("#play", 0.0, 0.0);
    e.page.click(play.0, play.1);
    e.page.shows("data-outcome=\"finished\"");
    assert_eq!(
        e.page
            .eval("document.getElementById('said-text').textContent"),
        "The dialog says hello."
    );

    // Played from the Say box: that box alone runs and the run finishes; the Dialog, which
    // the Wait would have started, never speaks.
    let saved = e.bytes();
    let say = e.at("g.box[data-path='root/Say'] .box-bg", 0.0, -0.3);
    e.page.click(say.0, say.1);
    // The Say's Properties shown (the Dialog's were before).
    e.until(
        "document.getElementById('prop-name')?.value === 'Say' && !document.getElementById('props').hidden",
    );
    let from_box = e.at("#play-box", 0.0, 0.0);
    e.page.click(from_box.0, from_box.1);
    e.until("document.getElementById('said-text').textContent === 'Built in the page'");
    // This run's end (a new run's snapshot hid the last one's outcome).
    e.until(
        "(() => { const o = document.getElementById('outcome');
           return !o.hidden && o.dataset.outcome === 'finished'; })()",
    );
    assert_eq!(
        e.page
            .eval("document.getElementById('said-text').textContent"),
        "Built in the page"
    );
    assert_eq!(e.bytes(), saved, "playing changed the behavior");
}

/// A page opened again after edits (a reload) can undo them with its Undo button, as its
/// Ctrl+Z could: the page asks what Undo and Redo can do as it opens.
#[test]
fn a_reloaded_page_can_undo_the_edits_made_before() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::open(&browser);
    let original = e.bytes();
    let from = e.at("g.box[data-path='root/Nod'] .box-bg", 0.0, -0.3);
    e.page.drag(from, (from.0 + 60.0, from.1 + 30.0));
    assert!(e.answered(), "the move was not saved");
    assert_ne!(e.bytes(), original);
    e.page.reload();
    e.until("!!document.getElementById('undo') && !document.getElementById('undo').disabled");
    assert_eq!(
        e.page.eval("document.getElementById('redo').disabled"),
        Value::Bool(true)
    );
    // The reloaded page counts its answers from none.
    e.answers = 0;
    e.page.shows("data-path=\"root/Nod\"");
    let undo = e.at("#undo", 0.0, 0.0);
    e.page.click(undo.0, undo.1);
    assert!(e.answered(), "the undo was not made");
    assert_eq!(e.bytes(), original);
}

#[test]
fn a_script_is_checked_as_it_is_typed_and_its_problems_are_listed_once_saved() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::open(&browser);
    let original = e.bytes();
    // No pause in the typing is long enough to save (typed.rs shows that one): Ctrl+S saves.
    e.page.eval(typed::NEVER);
    e.page.shows(">choreo check finds no problem<");
    let nod = e.at("g.box[data-path='root/Nod'] .box-bg", 0.0, -0.3);
    e.page.click(nod.0, nod.1);
    // The script in CodeMirror, Python highlighted (its keywords in spans of their own).
    e.page.shows("data-ready=\"true\"");
    let highlighted = e.page.eval(
        "[...document.querySelectorAll('#prop-script .cm-line span')].some((s) => s.textContent === 'class')",
    );
    assert_eq!(highlighted, Value::Bool(true), "`class` is not highlighted");
    let code = e.at("#prop-script .cm-content", 0.0, 0.0);
    e.page.click(code.0, code.1);
    e.page.key("End", "End", 35, CTRL);
    e.page.type_text("    def broken(:\n");
    e.page.shows("line 13: ");
    // Marked where it is, in the code editor too.
    e.until("document.querySelector('#prop-script .cm-lintRange-error') !== null");
    assert_eq!(e.bytes(), original, "typing saved the script");

    // Ctrl+S in the code editor saves it, as Save script does.
    e.page.key("s", "KeyS", 83, CTRL);
    assert!(e.answered(), "the script was not saved");
    let saved = root_box(&e.bytes(), "Nod").unwrap();
    assert!(
        saved
            .code()
            .ends_with("        self.onStopped()\n    def broken(:\n")
    );
    let html = e.page.shows("Problems (1)");
    let problem = e.page.eval(
        "(() => { const p = document.querySelector('#problems .problem.error');
           return p ? p.textContent : null; })()",
    );
    let problem = problem
        .as_str()
        .unwrap_or_else(|| panic!("no problem listed: {html}"));
    assert!(
        problem.contains("root/Nod") && problem.contains("SyntaxError"),
        "{problem}"
    );

    // Undone with the header's button (the code editor, focused, would take Ctrl+Z as its
    // own undo of the typing).
    e.properties_shown();
    let undo = e.at("#undo", 0.0, 0.0);
    e.page.click(undo.0, undo.1);
    assert!(e.answered());
    assert_eq!(e.bytes(), original);
    e.page.shows(">choreo check finds no problem<");

    // A new line in a block is indented by four spaces more, as in Choregraphe's editor.
    let code = e.at("#prop-script .cm-content", 0.0, 0.0);
    e.page.click(code.0, code.1);
    e.page.key("End", "End", 35, CTRL);
    e.page.type_text("    def more(self):");
    e.page.key("Enter", "Enter", 13, 0);
    e.page.type_text("pass");
    let typed = e
        .page
        .eval("document.querySelector('#prop-script .cm-content').innerText");
    let typed = typed.as_str().unwrap_or_default().to_string();
    assert!(
        typed.ends_with("\n    def more(self):\n        pass"),
        "{typed:?}"
    );
}

/// What `choreo edit` cannot edit in place is refused before it serves, with its exit code
/// (docs/commands.md) and what to do instead.
#[test]
fn what_cannot_be_edited_in_place_is_refused_with_its_exit_code() {
    // A behavior's split folder (not a project: no project file says what to write back).
    let dir = tempfile::tempdir().unwrap();
    let split = dir.path().join("hello");
    let made = support::cli::choreo(&[
        "convert",
        "examples/hello/behavior.xar",
        split.to_str().unwrap(),
    ]);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let refused = support::cli::choreo(&["edit", split.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("choreo convert"));

    let nowhere = support::cli::choreo(&["edit", "no/such/behavior.xar"]);
    assert_eq!(nowhere.status.code(), Some(2));

    let library = support::cli::choreo(&["edit", "examples/hello", "--library", "no/such/library"]);
    assert_eq!(library.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&library.stderr).contains("no/such/library"));
}

/// Clicks the slider `id` at `fraction` of its width (a user's click on its track): the
/// value it took, as the page reads it.
fn slide(e: &mut Editing, id: &str, fraction: f64) -> f64 {
    let at = e.at(&format!("#{id}"), fraction - 0.5, 0.0);
    e.page.click(at.0, at.1);
    e.page
        .eval(&format!("Number(document.getElementById('{id}').value)"))
        .as_f64()
        .unwrap()
}

/// Types `value` into the field `id` (all of it replaced) and leaves it.
fn type_into(e: &mut Editing, id: &str, value: &str) {
    e.page
        .eval(&format!("document.getElementById('{id}').select()"));
    e.page.type_text(value);
    e.page
        .eval(&format!("document.getElementById('{id}').blur()"));
}

#[test]
fn a_timeline_is_keyed_in_the_page_and_moves_the_robot_as_keyed() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::empty(&browser);

    // A Timeline from the palette, between the behavior's onStart and its onStopped.
    e.add("timeline", "basic/timeline");
    let drags = [
        (
            "g.owner-port.in[data-port='onStart'] circle",
            "g.box[data-path='root/Timeline'] circle.input[data-port='onStart']",
        ),
        (
            "g.box[data-path='root/Timeline'] circle.output[data-port='onStopped']",
            "g.owner-port.out[data-port='onStopped'] rect",
        ),
    ];
    for (from, to) in drags {
        e.link(from, to);
    }

    // Selected: its Timeline section; 10 frames a second.
    let tl = e.at("g.box[data-path='root/Timeline'] .box-bg", 0.0, -0.3);
    e.page.click(tl.0, tl.1);
    e.page.shows("id=\"tl-fps\"");
    type_into(&mut e, "tl-fps", "10");
    assert!(e.answered(), "the frame rate was not saved");
    e.properties_shown();

    // HeadYaw's slider at two fifths of its track, stored at frame 1; at three quarters,
    // stored at frame 11.
    e.page.shows("id=\"pose-HeadYaw\"");
    let mut stored = Vec::new();
    for (frame, fraction) in [(1, 0.4), (11, 0.75)] {
        let yaw = slide(&mut e, "pose-HeadYaw", fraction);
        type_into(&mut e, "pose-frame", &frame.to_string());
        let store = e.at("#pose-store", 0.0, 0.0);
        e.page.click(store.0, store.1);
        assert!(e.answered(), "the pose at frame {frame} was not stored");
        e.properties_shown();
        stored.push((frame, yaw));
    }
    let xar = model(&e.bytes());
    let t = xar.root_box.diagrams().next().unwrap().boxes[0]
        .timeline
        .clone()
        .unwrap();
    assert_eq!(t.fps, Some(10));
    let curve = &t.actuator_list.as_ref().unwrap().curves[0];
    assert_eq!((curve.actuator.as_str(), curve.unit), ("HeadYaw", Some(0)));
    let keys: Vec<(i32, f64)> = curve.keys.iter().map(|k| (k.frame, k.value)).collect();
    assert_eq!(keys.len(), 2);
    for ((frame, radians), (f, degrees)) in stored.iter().zip(&keys) {
        assert_eq!(frame, f);
        // Stored in degrees, six decimals.
        assert!(
            (radians.to_degrees() - degrees).abs() < 1e-5,
            "{radians} rad, {degrees}°"
        );
    }

    // The key at 11 dragged later in the curve editor, the hand wobbling 6 px: the drag
    // keeps to one axis, the value stays.
    let value_of = |text: &str| {
        model(text).root_box.diagrams().next().unwrap().boxes[0]
            .timeline
            .clone()
            .unwrap()
            .actuator_list
            .unwrap()
            .curves[0]
            .keys[1]
            .value
    };
    let before = value_of(&e.bytes());
    let key = "#tl-curves .tl-key[data-frame='11']";
    let from = e.at(key, 0.0, 0.0);
    e.page.drag(from, (from.0 + 60.0, from.1 - 6.0));
    assert!(e.answered(), "the key was not moved");
    let xar = model(&e.bytes());
    let t = xar.root_box.diagrams().next().unwrap().boxes[0]
        .timeline
        .clone()
        .unwrap();
    let moved = t.actuator_list.as_ref().unwrap().curves[0].keys[1].clone();
    assert!(moved.frame > 11, "the key is at frame {}", moved.frame);
    assert!(
        (moved.value - before).abs() < 1e-6,
        "a sideways drag changed the value: {before} → {}",
        moved.value
    );
    e.properties_shown();

    // Its left side made Bezier, the handle typed: 4 frames before it, 10° above. The file
    // keeps a handle in the curve's unit (degrees).
    let left = "tl-key-left";
    e.until(&format!("!!document.getElementById('{left}')"));
    e.page.eval(&format!(
        "(() => {{ const s = document.getElementById('{left}'); s.value = 'bezier';
           s.dispatchEvent(new Event('change')); }})()"
    ));
    assert!(e.answered(), "the interpolation was not saved");
    e.properties_shown();
    e.until(&format!("!!document.getElementById('{left}-abscissa')"));
    type_into(&mut e, &format!("{left}-abscissa"), "-4");
    assert!(e.answered(), "the handle's frames were not saved");
    e.properties_shown();
    e.until(&format!("!!document.getElementById('{left}-ordinate')"));
    type_into(&mut e, &format!("{left}-ordinate"), "10");
    assert!(e.answered(), "the handle's value was not saved");
    e.properties_shown();
    let xar = model(&e.bytes());
    let t = xar.root_box.diagrams().next().unwrap().boxes[0]
        .timeline
        .clone()
        .unwrap();
    let key = &t.actuator_list.as_ref().unwrap().curves[0].keys[1];
    let handle = key
        .tangents
        .iter()
        .find(|g| g.side == choreo_xar::model::TangentSide::Left)
        .expect("no left handle");
    assert_eq!(handle.interp_type.as_deref(), Some("bezier"));
    assert!((handle.abscissa_param + 4.0).abs() < 1e-9, "{handle:?}");
    assert!((handle.ordinate_param - 10.0).abs() < 1e-6, "{handle:?}");
    e.at("#tl-curves", 0.0, 0.0);
    let shots = workspace().join("target/editor-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    e.page.screenshot(&shots.join("timeline.png"));
    let last = (moved.frame, moved.value.to_radians());

    // Run as saved: the head turns to the last key's angle, reached at its frame.
    let events = e.run_fast();
    let yaw: Vec<(i64, f64)> = events
        .iter()
        .filter(|v| v["event"] == "joints" && v["path"] == "root/Timeline")
        .filter_map(|v| {
            let i = v["names"].as_array()?.iter().position(|n| n == "HeadYaw")?;
            Some((v["time_ns"].as_i64()?, v["values"][i].as_f64()?))
        })
        .collect();
    let (_, end) = *yaw.last().expect("no joints of the timeline in the trace");
    assert!(
        (end - last.1).abs() < 1e-3,
        "the head ended at {end} rad, keyed {}",
        last.1
    );
    let (start, _) = yaw[0];
    let (at, _) = *yaw.iter().find(|(_, v)| (v - last.1).abs() < 1e-3).unwrap();
    // Frames 1 to the last key at 10 fps: (frame − 1) / 10 s.
    assert_eq!(
        at - start,
        i64::from(last.0 - 1) * 100_000_000,
        "reached at {} ns",
        at - start
    );
}

#[test]
fn a_dialog_topic_is_edited_checked_completed_and_tried_in_the_page() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    // A copy of examples/dialog: its Chat box's greet/greet.dlg names greet_enu.top and
    // greet_frf.top.
    let dir = tempfile::tempdir().unwrap();
    let source = workspace().join("examples/dialog");
    for f in [
        "behavior.xar",
        "greet/greet.dlg",
        "greet/greet_enu.top",
        "greet/greet_frf.top",
    ] {
        let to = dir.path().join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(source.join(f), &to).unwrap();
    }
    let file = dir.path().join("behavior.xar");
    let topic = dir.path().join("greet/greet_enu.top");
    let original = std::fs::read_to_string(&topic).unwrap();
    let served = Served::start(&["edit", file.to_str().unwrap()]);
    let mut page = LivePage::open(&browser, SWIFTSHADER, &served.url);
    page.shows("data-path=\"root/Chat\"");
    let mut e = Editing {
        page,
        file,
        answers: 0,
        _served: served,
        _dir: dir,
    };

    let chat = e.at("g.box[data-path='root/Chat'] .box-bg", 0.0, -0.3);
    e.page.click(chat.0, chat.1);
    e.page.shows("data-language=\"frf\"");
    e.page.shows("id=\"topic-code\"");
    e.page.shows("data-ready=\"true\"");
    // QiChat highlighted: a concept's name is a token of its own.
    let concept = e.page.eval(
        "[...document.querySelectorAll('#topic-code .cm-line span')].some((s) => s.textContent === '~hello')",
    );
    assert_eq!(concept, Value::Bool(true), "~hello is not highlighted");

    // A rule typed at the end, its parenthesis not closed yet: the language server's error.
    let code = e.at("#topic-code .cm-content", 0.0, 0.0);
    e.page.click(code.0, code.1);
    e.page.key("End", "End", 35, CTRL);
    e.page.key("Enter", "Enter", 13, 0);
    e.page.type_text("u:(how are you");
    e.until("document.querySelector('#topic-code .cm-lintRange-error') !== null");
    e.until("Number(document.getElementById('topic-problems').dataset.count) > 0");
    e.page.type_text(") I am fine, thank you.");
    e.until("document.getElementById('topic-problems').dataset.count === '0'");
    e.until("document.querySelector('#topic-code .cm-lintRange-error') === null");

    // Completion: after `~`, the topic's concepts, as the language server offers them.
    e.page.key("Enter", "Enter", 13, 0);
    e.page.type_text("u:(~");
    e.page.key(" ", "Space", 32, CTRL);
    e.until(
        "[...document.querySelectorAll('.cm-tooltip-autocomplete li')].some((o) => o.textContent.includes('hello'))",
    );
    e.page.key("Escape", "Escape", 27, 0);
    e.page.type_text("hello there) Hello again!");

    // Try this rule: the topic as typed hears the sentence.
    type_into(&mut e, "try-sentence", "how are you");
    let try_it = e.at("#try-rule", 0.0, 0.0);
    e.page.click(try_it.0, try_it.1);
    e.until("document.getElementById('tried').textContent.includes('I am fine, thank you.')");

    // Leaving the topic for the sentence's field saved it; undone with the header's Undo:
    // the file as it was.
    assert!(e.answered(), "the topic was not saved");
    let saved = std::fs::read_to_string(&topic).unwrap();
    assert_eq!(
        saved,
        format!("{original}\nu:(how are you) I am fine, thank you.\nu:(~hello there) Hello again!")
    );
    let undo = e.at("#undo", 0.0, 0.0);
    e.page.click(undo.0, undo.1);
    assert!(e.answered(), "undo was not answered");
    assert_eq!(std::fs::read_to_string(&topic).unwrap(), original);

    // A topic in German added: the .dlg's line after the others, the topic as Choregraphe
    // starts one, its tab shown; undone, neither is left.
    let dlg = topic.with_file_name("greet.dlg");
    let dlg_0 = std::fs::read_to_string(&dlg).unwrap();
    // The Properties as the undo left them, the dialog's topics read again.
    e.properties_shown();
    e.until("!!document.getElementById('topic-language')");
    e.page
        .eval("document.getElementById('topic-language').value = 'ged'");
    let add = e.at("#topic-language-add", 0.0, 0.0);
    e.page.click(add.0, add.1);
    assert!(e.answered(), "the language was not added");
    assert_eq!(
        std::fs::read_to_string(&dlg).unwrap(),
        format!("{dlg_0}  ged:greet_ged.top\n")
    );
    let german = topic.with_file_name("greet_ged.top");
    assert_eq!(
        std::fs::read_to_string(&german).unwrap(),
        "topic: ~greet()\nlanguage: ged\n\n"
    );
    e.page.shows("data-language=\"ged\"");
    e.page.key("z", "KeyZ", 90, CTRL);
    assert!(e.answered(), "undo was not answered");
    assert_eq!(std::fs::read_to_string(&dlg).unwrap(), dlg_0);
    assert!(!german.exists());
}

/// A project one of whose behaviors does not read (the corpus's yoga project: a merge
/// conflict left in `behavior_without_feedback`) still opens the behavior asked for.
#[test]
fn a_project_with_a_broken_behavior_still_opens_the_one_asked_for() {
    let Some(corpus) = choreo_testkit::corpus("choreo edit on a corpus project") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &corpus.join("foteinipapadopoulou__HRI_yoga_robot/Yoga_Nao_Choregraphe"),
        dir.path(),
    );
    let project = dir.path().to_str().unwrap();
    let served = Served::start(&["edit", project, "--behavior", "behavior_demo_with_feedback"]);
    // It serves (a project with a broken behavior was refused whole: exit 4, no URL).
    assert!(
        served.url.starts_with("http://127.0.0.1:"),
        "{}",
        served.url
    );
}

mod project;

mod ports;

mod group;

mod pose;

mod play;

mod library;

mod typed;

mod screen;

mod panels;

mod lanes;
