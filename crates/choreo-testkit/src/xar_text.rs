//! Small behaviors written as XAR text, for tests of every layer that runs them (the
//! engine, the simulated robot, the Python host), and checks on a trace in short form.

/// Standard ports: 1 onLoad (inner), 2 onStart, 3 onStop, 4 onStopped.
pub const PORTS: &str = r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>"#;

/// A box with the standard ports, `extra` elements, and a flow diagram holding `inner`
/// (empty: a script box).
pub fn boxed(name: &str, id: i32, extra: &str, inner: &str) -> String {
    let content = if inner.is_empty() {
        String::new()
    } else {
        format!(
            r#"<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>{inner}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>"#
        )
    };
    format!(r#"<Box name="{name}" id="{id}">{PORTS}{extra}{content}</Box>"#)
}

/// A link from (source box, port) to (destination box, port); box 0 is the enclosing box.
pub fn link(src: i32, src_port: i32, dst: i32, dst_port: i32) -> String {
    format!(
        r#"<Link inputowner="{dst}" indexofinput="{dst_port}" outputowner="{src}" indexofoutput="{src_port}"/>"#
    )
}

/// A behavior whose root holds `inner`.
pub fn behavior(inner: &str) -> String {
    format!(
        r#"<ChoregrapheProject xar_version="3">{}</ChoregrapheProject>"#,
        boxed("root", -1, "", inner)
    )
}

/// Asserts that `lines` contains `expected` in this order (other lines may come between).
pub fn assert_in_order(lines: &[String], expected: &[&str]) {
    let mut at = 0;
    for e in expected {
        match lines[at..].iter().position(|l| l == e) {
            Some(i) => at += i + 1,
            None => panic!("{e:?} not found (in order) in trace:\n{}", lines.join("\n")),
        }
    }
}

/// The position of `line` in the trace.
pub fn pos(lines: &[String], line: &str) -> usize {
    lines
        .iter()
        .position(|l| l == line)
        .unwrap_or_else(|| panic!("{line:?} not in trace:\n{}", lines.join("\n")))
}
