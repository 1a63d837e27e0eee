//! Behaviors generated as XAR text for benchmarks: boxes with the standard ports, links, and
//! the hop chain (`n` boxes `hop`, each passing the start to the next), which the engine's
//! and the monitor's benchmarks run.

use std::fmt::Write as _;

/// Standard ports: 1 onLoad (inner), 2 onStart, 3 onStop, 4 onStopped.
pub const PORTS: &str = r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/><Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/><Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/><Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>"#;
/// A Punctual output `next`, id 5.
pub const NEXT: &str =
    r#"<Output name="next" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;
/// A Punctual output `out`, id 5.
pub const OUT: &str = r#"<Output name="out" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;
/// An onEvent input `in`, id 5.
pub const IN: &str = r#"<Input name="in" type="1" type_size="1" nature="1" inner="0" id="5"/>"#;

/// Appends a box with the standard ports and `extra`; `inner` (if any) is its flow diagram.
pub fn push_box(out: &mut String, name: &str, id: i64, extra: &str, inner: Option<&str>) {
    let _ = write!(out, r#"<Box name="{name}" id="{id}">{PORTS}{extra}"#);
    if let Some(inner) = inner {
        let _ = write!(
            out,
            r#"<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>{inner}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>"#
        );
    }
    out.push_str("</Box>");
}

/// Appends a link from (box, port) to (box, port); box 0 is the enclosing box.
pub fn push_link(out: &mut String, src: i64, src_port: u32, dst: i64, dst_port: u32) {
    let _ = write!(
        out,
        r#"<Link inputowner="{dst}" indexofinput="{dst_port}" outputowner="{src}" indexofoutput="{src_port}"/>"#
    );
}

/// The XAR text of a behavior whose root diagram is `inner`.
pub fn behavior(inner: &str) -> String {
    let mut xml = String::from(r#"<ChoregrapheProject xar_version="3">"#);
    push_box(&mut xml, "root", -1, "", Some(inner));
    xml.push_str("</ChoregrapheProject>");
    xml
}

/// The root diagram of `n` boxes `hop` (output `next`, id 5): root.onStart → box 1; chained
/// (`linked`: each `next` → the following box's onStart, the last → root.onStopped), or only
/// box 1's `next` → root.onStopped.
pub fn hop_chain(n: i64, linked: bool) -> String {
    let mut d = String::new();
    for i in 1..=n {
        push_box(&mut d, "hop", i, NEXT, None);
    }
    push_link(&mut d, 0, 2, 1, 2);
    if linked {
        for i in 1..n {
            push_link(&mut d, i, 5, i + 1, 2);
        }
        push_link(&mut d, n, 5, 0, 4);
    } else {
        push_link(&mut d, 1, 5, 0, 4);
    }
    d
}
