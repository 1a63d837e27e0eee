//! The engine's conformance rules (docs/runtime-rules.md) with Python boxes: the same trace
//! assertions as choreo-engine's conformance tests, the box code written as real scripts.

use crate::support;

use choreo_engine::Outcome;
use support::*;

/// A script that finishes as soon as it starts.
const FINISHER: &str = r#"
class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)

    def onInput_onStart(self):
        self.onStopped()
"#;

/// A script that does nothing (every hook defined, none acting).
const IDLE: &str = r#"
class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self, False)

    def onLoad(self):
        pass

    def onUnload(self):
        pass

    def onInput_onStart(self):
        pass

    def onInput_onStop(self):
        pass
"#;

#[test]
fn r1_load_constructs_every_box_before_any_on_load() {
    let (_, t) = run(&one_box("", FINISHER));
    let last_new = t.iter().rposition(|l| l.ends_with(" new")).unwrap();
    let first_load = t.iter().position(|l| l.ends_with("call onLoad")).unwrap();
    assert!(last_new < first_load, "{t:#?}");
    assert_eq!(t.iter().filter(|l| l.ends_with(" new")).count(), 2);
}

#[test]
fn r3_start_loads_the_root_then_stimulates_its_on_start() {
    let (_, t) = run(&one_box("", FINISHER));
    assert_in_order(
        &t,
        &[
            "beh start",
            "root call onLoad",
            "root ret onLoad",
            "root in onStart None",
            "root call onInput_onStart",
        ],
    );
    assert!(pos(&t, "root/A call onLoad") > pos(&t, "root ret onInput_onStart"));
}

#[test]
fn r5_r11_a_python_stopped_output_ends_the_behavior() {
    let (outcome, t) = run(&one_box("", FINISHER));
    assert_eq!(outcome, Outcome::Finished, "{t:#?}");
    assert_in_order(
        &t,
        &[
            "root/A out onStopped None",
            "root deliver A.onStopped -> (parent).onStopped",
            "root out onStopped None",
            "root links_off",
            "root/A call onUnload",
            "beh end",
            "root/A del",
        ],
    );
}

#[test]
fn r6_r7_parent_unloads_before_its_children() {
    let inner = format!("{}{}", py_box("B", 1, "", IDLE, ""), link(0, 2, 1, 2));
    let xml = behavior(&format!(
        "{}{}",
        py_box("A", 1, "", IDLE, &inner),
        link(0, 2, 1, 2)
    ));
    let (outcome, t) = run(&xml);
    assert_eq!(outcome, Outcome::Idle);
    // R6: loading A does not load B; B loads when A starts.
    assert!(pos(&t, "root/A ret onLoad") < pos(&t, "root/A call onInput_onStart"));
    assert!(pos(&t, "root/A/B call onLoad") > pos(&t, "root/A ret onInput_onStart"));
    // R7: A's onUnload returns before B's is called.
    assert_in_order(
        &t,
        &[
            "beh stop",
            "root/A call onUnload",
            "root/A ret onUnload",
            "root/A links_off",
            "root/A/B call onUnload",
            "root/A/B ret onUnload",
        ],
    );
}

#[test]
fn r8_r14_start_calls_the_hook_then_loads_the_diagram_then_forwards() {
    let inner = format!("{}{}", py_box("B", 1, "", IDLE, ""), link(0, 2, 1, 2));
    let xml = behavior(&format!(
        "{}{}",
        py_box("A", 1, "", IDLE, &inner),
        link(0, 2, 1, 2)
    ));
    let (_, t) = run(&xml);
    assert_in_order(
        &t,
        &[
            "root/A call onInput_onStart",
            "root/A ret onInput_onStart",
            "root/A/B call onLoad",
            "root/A/B ret onLoad",
            "root/A links_on",
            "root/A deliver (parent).onStart -> B.onStart",
            "root/A/B in onStart None",
            "root/A/B call onInput_onStart",
        ],
    );
}

#[test]
fn r14_outputs_fired_in_on_load_before_links_on_are_dropped() {
    let fires_on_load = r#"
class MyClass(GeneratedClass):
    def onLoad(self):
        self.onStopped()
"#;
    let xml = behavior(&format!(
        "{}{}{}",
        py_box("B", 1, "", fires_on_load, ""),
        py_box("C", 2, "", IDLE, ""),
        link(1, 4, 2, 2)
    ));
    let (_, t) = run(&xml);
    assert!(t.iter().any(|l| l == "root/B dropped onStopped"), "{t:#?}");
    assert!(!t.iter().any(|l| l == "root/C in onStart None"), "{t:#?}");
}

#[test]
fn r15_outputs_fired_after_links_off_deliver_nothing() {
    // B fires onStopped from its onUnload (the stock Say box does this): its diagram's links
    // are already off.
    let fires_on_unload = r#"
class MyClass(GeneratedClass):
    def onUnload(self):
        self.onStopped()
"#;
    let inner = format!(
        "{}{}{}",
        py_box("B", 1, "", fires_on_unload, ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    );
    let xml = behavior(&format!(
        "{}{}",
        py_box("A", 1, "", IDLE, &inner),
        link(0, 2, 1, 2)
    ));
    let (_, t) = run(&xml);
    assert_in_order(
        &t,
        &[
            "root/A links_off",
            "root/A/B call onUnload",
            "root/A/B dropped onStopped",
        ],
    );
    assert!(
        !t.iter().any(|l| l.contains("deliver B.onStopped")),
        "{t:#?}"
    );
}

#[test]
fn r10_on_stop_calls_the_hook_then_unloads_the_diagram_and_fires_nothing() {
    let stopper_out = r#"<Output name="go" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;
    let stopper = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.go()
"#;
    let inner = py_box("B", 1, "", IDLE, "");
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        py_box("A", 1, "", IDLE, &inner),
        py_box("S", 2, stopper_out, stopper, ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 5, 1, 3)
    ));
    let (_, t) = run(&xml);
    assert_in_order(
        &t,
        &[
            "root/A/B call onLoad",
            "root/A in onStop None",
            "root/A call onInput_onStop",
            "root/A ret onInput_onStop",
            "root/A links_off",
            "root/A/B call onUnload",
        ],
    );
    let stop_at = pos(&t, "root/A in onStop None");
    assert!(
        !t[stop_at..].iter().any(|l| l.starts_with("root/A out")),
        "{t:#?}"
    );
}

#[test]
fn r11_stopped_output_unloads_children_before_delivering() {
    let inner = format!(
        "{}{}{}",
        py_box("B", 1, "", FINISHER, ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    );
    let xml = behavior(&format!(
        "{}{}{}",
        py_box("A", 1, "", IDLE, &inner),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (outcome, t) = run(&xml);
    assert_eq!(outcome, Outcome::Finished);
    assert_in_order(
        &t,
        &[
            "root/A out onStopped None",
            "root/A links_off",
            "root/A/B call onUnload",
            "root/A/B ret onUnload",
            "root deliver A.onStopped -> (parent).onStopped",
        ],
    );
}

#[test]
fn p1_on_event_calls_the_hook_and_forwards_into_a_loaded_diagram_only() {
    let ev = r#"<Input name="ev" type="0" type_size="1" nature="1" inner="0" id="5"/>"#;
    let handler = r#"
class MyClass(GeneratedClass):
    def onInput_ev(self, p):
        self.log("ev %r" % (p,))
"#;
    let sender_out = r#"<Output name="out" type="0" type_size="1" nature="2" inner="0" id="5"/>"#;
    let sender = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.out(7)
"#;
    let inner = format!("{}{}", py_box("B", 1, ev, handler, ""), link(0, 5, 1, 5));
    let xml = behavior(&format!(
        "{}{}{}{}",
        py_box("A", 1, ev, handler, &inner),
        py_box("S", 2, sender_out, sender, ""),
        link(0, 2, 2, 2),
        link(2, 5, 1, 5)
    ));
    let (_, t) = run(&xml);
    assert_eq!(logs(&t, "root/A"), ["info: ev 7"]);
    // A's diagram is not loaded (A never started): nothing forwarded, nothing loaded.
    assert!(!t.iter().any(|l| l.starts_with("root/A/B call")), "{t:#?}");
    assert!(!t.iter().any(|l| l == "root/A links_on"), "{t:#?}");
}

#[test]
fn p7_the_hook_signature_decides_whether_it_gets_the_value() {
    let ports = r#"<Input name="a" type="0" type_size="1" nature="1" inner="0" id="5"/>
<Input name="b" type="0" type_size="1" nature="1" inner="0" id="6"/>
<Input name="c" type="0" type_size="1" nature="1" inner="0" id="7"/>
<Input name="d" type="0" type_size="1" nature="1" inner="0" id="8"/>"#;
    let code = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self, p):
        self.log("start %r" % (p,))
    def onInput_a(self):
        self.log("a")
    def onInput_b(self, p=None):
        self.log("b %r" % (p,))
    def onInput_c(self, *args):
        self.log("c %r" % (args,))
    onInput_d = lambda self, value: self.log("d %r" % (value,))
"#;
    let out = r#"<Output name="v" type="0" type_size="1" nature="2" inner="0" id="9"/>"#;
    let sender = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.v("x")
"#;
    let xml = behavior(&format!(
        "{}{}{}{}{}{}{}{}",
        py_box("A", 1, ports, code, ""),
        py_box("S", 2, out, sender, ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 9, 1, 5),
        link(2, 9, 1, 6),
        link(2, 9, 1, 7),
        link(2, 9, 1, 8)
    ));
    let (_, t) = run(&xml);
    let mut got = logs(&t, "root/A");
    got.sort();
    assert_eq!(
        got,
        [
            "info: a",
            "info: b 'x'",
            "info: c ('x',)",
            "info: d 'x'",
            "info: start None"
        ],
        "{t:#?}"
    );
}

#[test]
fn p8_outputs_are_methods_bang_or_value_and_an_undeclared_one_fails_when_called() {
    let outs = r#"<Output name="number" type="2" type_size="1" nature="2" inner="0" id="5"/>"#;
    let code = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.number(3.5)
        self.number([1, "two", (3, None)])
        self.number({"k": True})
        self.number()
        self.noSuchOutput()
"#;
    let (_, t) = run(&one_box(outs, code));
    assert_in_order(
        &t,
        &[
            "root/A call onLoad",
            "root/A out number 3.5",
            "root/A out number [1, \"two\", (3, None)]",
            "root/A out number {\"k\": True}",
            "root/A out number None",
            "root/A ret onInput_onStart err",
        ],
    );
    let errs = errors(&t, "root/A");
    assert!(
        errs[0].ends_with("AttributeError: 'MyClass' object has no attribute 'noSuchOutput'"),
        "{errs:#?}"
    );
}

#[test]
fn p9_parent_input_to_parent_output_stops_the_box_at_once() {
    let inner = link(0, 2, 0, 4);
    let xml = behavior(&format!(
        "{}{}{}",
        py_box("A", 1, "", IDLE, &inner),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (outcome, t) = run(&xml);
    assert_eq!(outcome, Outcome::Finished, "{t:#?}");
    assert_in_order(
        &t,
        &[
            "root/A call onInput_onStart",
            "root/A deliver (parent).onStart -> (parent).onStopped",
            "root/A out onStopped None",
            "beh end",
        ],
    );
}

#[test]
fn g1_a_box_stopping_itself_in_on_start_is_not_started_afterwards() {
    let inner = format!("{}{}", py_box("B", 1, "", IDLE, ""), link(0, 2, 1, 2));
    let xml = behavior(&format!(
        "{}{}",
        py_box("A", 1, "", FINISHER, &inner),
        link(0, 2, 1, 2)
    ));
    let (_, t) = run(&xml);
    let out = pos(&t, "root/A out onStopped None");
    assert!(!t[out..].iter().any(|l| l == "root/A links_on"), "{t:#?}");
    assert!(!t.iter().any(|l| l.starts_with("root/A/B call")), "{t:#?}");
}

#[test]
fn g2_on_stop_unloads_the_diagram_even_if_the_hook_fired_on_stopped() {
    let stops = r#"
class MyClass(GeneratedClass):
    def onInput_onStop(self):
        self.onStopped()
"#;
    let stopper_out = r#"<Output name="go" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;
    let stopper = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.go()
"#;
    let inner = py_box("B", 1, "", IDLE, "");
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        py_box("A", 1, "", stops, &inner),
        py_box("S", 2, stopper_out, stopper, ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 5, 1, 3)
    ));
    let (_, t) = run(&xml);
    assert_in_order(
        &t,
        &[
            "root/A call onInput_onStop",
            "root/A out onStopped None",
            "root/A links_off",
            "root/A/B call onUnload",
        ],
    );
}

#[test]
fn g5_the_end_of_a_timeline_fires_on_stopped() {
    let timeline = format!(
        r#"<Box name="T" id="1">{PORTS}{}<Timeline enable="1" fps="10" start_frame="1" end_frame="20" size="300"><BehaviorLayer name="L"><BehaviorKeyframe name="k" index="1"><Diagram>{}{}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box>"#,
        script(IDLE),
        py_box("In", 1, "", IDLE, ""),
        link(0, 1, 1, 2)
    );
    let xml = behavior(&format!(
        "{timeline}{}{}",
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ));
    let (outcome, events) = run_events(&xml, None);
    let t: Vec<String> = events.iter().map(|e| e.short()).collect();
    assert_eq!(outcome, Outcome::Finished, "{t:#?}");
    assert_in_order(
        &t,
        &[
            "root/T/In call onInput_onStart",
            "root/T frame 20",
            "root/T out onStopped None",
            "root/T tl stop",
            "root/T/In call onUnload",
            "root deliver T.onStopped -> (parent).onStopped",
            "beh end",
        ],
    );
    let end = events.iter().find(|e| e.short() == "beh end").unwrap();
    assert_eq!(
        end.time_ns, 2_000_000_000,
        "the cursor passes frame 20 at 10 fps"
    );
}

#[test]
fn s3_get_parameter_is_typed_and_inherited() {
    let params = r#"<Parameter name="B0" inherits_from_parent="0" content_type="0" value="0" default_value="1" id="5"/>
<Parameter name="B1" inherits_from_parent="0" content_type="0" value="1" default_value="0" id="6"/>
<Parameter name="I" inherits_from_parent="0" content_type="1" value="42" default_value="0" id="7"/>
<Parameter name="F" inherits_from_parent="0" content_type="2" value="1.5" default_value="0" id="8"/>
<Parameter name="S" inherits_from_parent="0" content_type="3" value="hello" default_value="" id="9"/>
<Parameter name="Speed (%)" inherits_from_parent="1" content_type="1" value="80" default_value="100" id="10"/>"#;
    let code = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        for name in ["B0", "B1", "I", "F", "S", "Speed (%)"]:
            v = self.getParameter(name)
            self.log("%s=%r %s" % (name, v, type(v).__name__))
        try:
            self.getParameter("Missing")
        except RuntimeError as e:
            self.log("missing: %s" % e)
"#;
    let speed = r#"<Parameter name="Speed (%)" inherits_from_parent="0" content_type="1" value="150" default_value="100" id="5"/>"#;
    let inner = format!("{}{}", py_box("A", 1, params, code, ""), link(0, 2, 1, 2));
    let xml = format!(
        r#"<ChoregrapheProject xar_version="3">{}</ChoregrapheProject>"#,
        boxed("root", -1, speed, &inner)
    );
    let (_, t) = run(&xml);
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: B0=False bool",
            "info: B1=True bool",
            "info: I=42 int",
            "info: F=1.5 float",
            "info: S='hello' str",
            "info: Speed (%)=150 int",
            "info: missing: box \"A\" has no parameter \"Missing\"",
        ]
    );
}

#[test]
fn s4_set_parameter_is_seen_by_get_parameter() {
    let param = r#"<Parameter name="N" inherits_from_parent="0" content_type="1" value="1" default_value="1" id="5"/>"#;
    let code = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.setParameter("N", 42)
        self.log("N=%r list=%r" % (self.getParameter("N"), self.getParametersList()))
        try:
            self.setParameter("Missing", 1)
        except RuntimeError as e:
            self.log(str(e))
"#;
    let (_, t) = run(&one_box(param, code));
    assert!(t.iter().any(|l| l == "root/A param N = 42"), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: N=42 list=['N']",
            "info: box \"A\" has no parameter \"Missing\""
        ]
    );
}

#[test]
fn e1_an_error_in_on_start_skips_loading_and_forwarding_and_calls_on_error() {
    let code = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        raise ValueError("boom")

    def onError(self, message):
        self.log("onError " + message)
"#;
    let inner = format!("{}{}", py_box("B", 1, "", IDLE, ""), link(0, 2, 1, 2));
    let xml = behavior(&format!(
        "{}{}",
        py_box("A", 1, "", code, &inner),
        link(0, 2, 1, 2)
    ));
    let (_, t) = run(&xml);
    assert_in_order(
        &t,
        &[
            "root/A call onInput_onStart",
            "root/A log info: onError root_A_1:boom",
            "root/A ret onInput_onStart err",
        ],
    );
    let errs = errors(&t, "root/A");
    assert!(
        errs[0].starts_with("onInput_onStart: Traceback"),
        "{errs:#?}"
    );
    assert!(!t.iter().any(|l| l == "root/A links_on"), "{t:#?}");
}

#[test]
fn c1_on_stop_reaches_a_box_blocked_in_on_start() {
    let busy = r#"
import time

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        time.sleep(10)
"#;
    let stopper = r#"
import time

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        time.sleep(1)
        self.onStopped()
"#;
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        py_box("Busy", 1, "", busy, ""),
        py_box("Stopper", 2, "", stopper, ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 4, 1, 3)
    ));
    let (_, t) = run(&xml);
    let stop = pos(&t, "root/Busy call onInput_onStop");
    let start_ret = pos(&t, "root/Busy ret onInput_onStart");
    assert!(
        stop < start_ret,
        "C1: onStop runs while onStart is blocked:\n{t:#?}"
    );
}

#[test]
fn c2_an_output_looped_to_its_own_input_runs_10000_rounds() {
    let ports = r#"<Input name="again" type="1" type_size="1" nature="1" inner="0" id="5"/><Output name="next" type="1" type_size="1" nature="2" inner="0" id="6"/>"#;
    let code = r#"
class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)
        self.n = 0

    def onInput_onStart(self):
        self.onInput_again()

    def onInput_again(self):
        self.n += 1
        if self.n <= 10000:
            self.next()
        else:
            self.log("rounds %d" % self.n)
            self.onStopped()
"#;
    let xml = behavior(&format!(
        "{}{}{}{}",
        py_box("Loop", 1, ports, code, ""),
        link(0, 2, 1, 2),
        link(1, 6, 1, 5),
        link(1, 4, 0, 4)
    ));
    let (outcome, t) = run(&xml);
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(logs(&t, "root/Loop"), ["info: rounds 10001"]);
}
