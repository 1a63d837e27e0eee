//! Timelines and behavior layers (R16, R17, T1–T7, P4) and the bugs of earlier runtimes
//! around them, checked on the trace in virtual time.

use crate::support;

use choreo_engine::{Hook, NativeHost, Outcome, TimelineCommand, Value};
use support::*;

/// A box "T" with a playing timeline at `fps`, frames `start..end`, and `layers` (raw XML).
fn timeline_box(fps: &str, end: i32, layers: &str) -> String {
    format!(
        r#"<Box name="T" id="1">{PORTS}<Timeline enable="1" {fps} start_frame="1" end_frame="{end}" size="300">{layers}</Timeline></Box>"#
    )
}

/// A keyframe at `index` named `name` holding one box `inner_name` started by onLoad.
fn keyframe(name: &str, index: i32, inner_name: &str) -> String {
    format!(
        r#"<BehaviorKeyframe name="{name}" index="{index}"><Diagram>{}{}</Diagram></BehaviorKeyframe>"#,
        boxed(inner_name, 1, "", ""),
        link(0, 1, 1, 2)
    )
}

fn with_timeline(fps: &str, end: i32, layers: &str) -> String {
    behavior(&format!(
        "{}{}{}",
        timeline_box(fps, end, layers),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4)
    ))
}

fn two_keyframes() -> String {
    with_timeline(
        "fps=\"10\"",
        30,
        &format!(
            r#"<BehaviorLayer name="L">{}{}</BehaviorLayer>"#,
            keyframe("first", 1, "A"),
            keyframe("second", 10, "B")
        ),
    )
}

#[test]
fn r16_t1_t2_keyframes_load_on_arrival_and_unload_when_the_next_begins() {
    let (outcome, t) = run(&two_keyframes(), NativeHost::new());
    assert_eq!(outcome, Outcome::Finished, "{t:#?}");
    assert_in_order(
        &t,
        &[
            "root/T call onInput_onStart",
            "root/T frame 1",
            "root/T kf_on L/first",
            "root/T/A call onLoad",
            "root/T links_on",
            // P4: onLoad is the entry into a keyframe diagram.
            "root/T deliver (parent).onLoad -> A.onStart",
            "root/T tl play",
            "root/T frame 9",
            "root/T frame 10",
            // T2: the previous keyframe is unloaded first, then the new one is loaded.
            "root/T kf_off L/first",
            "root/T links_off",
            "root/T/A call onUnload",
            "root/T kf_on L/second",
            "root/T/B call onLoad",
            "root/T deliver (parent).onLoad -> B.onStart",
        ],
    );
}

#[test]
fn t6_g5_passing_the_end_frame_stops_the_timeline_then_fires_on_stopped() {
    let (outcome, t) = run(&two_keyframes(), NativeHost::new());
    assert_eq!(outcome, Outcome::Finished);
    assert_in_order(
        &t,
        &[
            "root/T frame 30",
            "root/T out onStopped None",
            "root/T tl stop",
            "root/T kf_off L/second",
            "root/T/B call onUnload",
            "root deliver T.onStopped -> (parent).onStopped",
            "beh end",
        ],
    );
    assert!(!t.iter().any(|l| l == "root/T frame 31"), "{t:#?}");
}

#[test]
fn t3_frames_come_at_exact_times() {
    let virtual_time = choreo_engine::Options {
        virtual_time: true,
        ..Default::default()
    };
    let events = run_to_end(&two_keyframes(), NativeHost::new(), virtual_time);
    let play = events
        .iter()
        .find(|e| e.short() == "root/T tl play")
        .unwrap()
        .time_ns;
    for e in &events {
        if let choreo_engine::trace::Step::Frame { frame } = e.step {
            // Frame f is due (f - start)/fps after play: 100 ms per frame at 10 fps.
            assert_eq!(
                e.time_ns - play,
                (frame as u64 - 1) * 100_000_000,
                "{}",
                e.short()
            );
        }
    }
}

#[test]
fn bug9_fps_zero_or_absent_never_divides_by_zero_and_never_advances() {
    for fps in ["fps=\"0\"", ""] {
        let (outcome, t) = run(
            &with_timeline(
                fps,
                30,
                &format!(
                    r#"<BehaviorLayer name="L">{}</BehaviorLayer>"#,
                    keyframe("k", 1, "A")
                ),
            ),
            NativeHost::new(),
        );
        // It loads its first keyframe, plays (cannot move), and waits for the world.
        assert_eq!(outcome, Outcome::Idle, "{t:#?}");
        assert!(t.iter().any(|l| l == "root/T kf_on L/k"));
        // Only the start frame (R16): the cursor never moves.
        assert_eq!(
            t.iter().filter(|l| l.contains(" frame ")).count(),
            1,
            "{t:#?}"
        );
        // The stop unloads it (bug 1: stop was a no-op).
        assert_in_order(
            &t,
            &[
                "beh stop",
                "root/T tl stop",
                "root/T kf_off L/k",
                "root/T/A call onUnload",
            ],
        );
    }
}

#[test]
fn t1_layers_are_independent_and_muted_layers_are_skipped() {
    let layers = format!(
        r#"<BehaviorLayer name="L1">{}</BehaviorLayer><BehaviorLayer name="L2">{}</BehaviorLayer><BehaviorLayer name="M" mute="1">{}</BehaviorLayer>"#,
        keyframe("a", 1, "A"),
        keyframe("b", 5, "B"),
        keyframe("m", 1, "M")
    );
    let (_, t) = run(&with_timeline("fps=\"25\"", 10, &layers), NativeHost::new());
    assert_in_order(
        &t,
        &["root/T kf_on L1/a", "root/T frame 5", "root/T kf_on L2/b"],
    );
    // Both stay loaded together until the end.
    assert!(pos(&t, "root/T kf_off L1/a") > pos(&t, "root/T kf_on L2/b"));
    assert!(!t.iter().any(|l| l.contains("M/m")), "{t:#?}");
}

#[test]
fn boxes_of_one_name_in_two_keyframes_have_distinct_paths() {
    // Two layers, each keyframe holding a box named "Go" (as the ApplicationTemplate of
    // real behaviors has a `gotoEnd` in two layers): a trace must tell them apart.
    let layers = format!(
        r#"<BehaviorLayer name="L1">{}</BehaviorLayer><BehaviorLayer name="L2">{}{}</BehaviorLayer>"#,
        keyframe("a", 1, "Go"),
        keyframe("b", 1, "Go"),
        keyframe("c", 5, "Go")
    );
    let xml = with_timeline("fps=\"25\"", 10, &layers);
    let (_, t) = run(&xml, NativeHost::new());
    assert_in_order(
        &t,
        &[
            "root/T kf_on L1/a",
            "root/T/Go call onLoad",
            "root/T kf_on L2/b",
            "root/T/Go[2] call onLoad",
            "root/T kf_on L2/c",
            "root/T/Go[3] call onLoad",
        ],
    );
    let file = choreo_xar::read_xar("t.xar", xml.as_bytes()).unwrap().value;
    let g = choreo_engine::graph::Graph::new(&file);
    let go3 = g.find("root/T/Go[3]").unwrap();
    assert_eq!(g.node(go3).name, "Go");
    assert!(g.find("root/T/Go[4]").is_none());
}

#[test]
fn t4_goto_a_label_from_a_keyframe_box_and_pause() {
    // A (in the first keyframe) jumps its parent timeline to "second" and pauses it.
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.parent_timeline(TimelineCommand::GoToLabel("second".into()));
            ctx.parent_timeline(TimelineCommand::Pause);
        }
        Ok(())
    });
    let (outcome, t) = run(&two_keyframes(), host);
    assert_eq!(outcome, Outcome::Idle, "paused: nothing more happens");
    assert_in_order(
        &t,
        &[
            "root/T tl goto 10",
            "root/T kf_off L/first",
            "root/T kf_on L/second",
        ],
    );
    assert!(pos(&t, "root/T tl pause") > pos(&t, "root/T tl goto 10"));
    assert!(!t.iter().any(|l| l == "root/T frame 11"), "{t:#?}");
}

#[test]
fn bug5_keyframe_boxes_are_not_loaded_before_their_keyframe() {
    let (_, t) = run(&two_keyframes(), NativeHost::new());
    assert!(pos(&t, "root/T/B call onLoad") > pos(&t, "root/T frame 10"));
}

#[test]
fn p1_on_event_forwards_only_into_a_loaded_diagram() {
    let event = r#"<Input name="ev" type="0" type_size="1" nature="1" inner="0" id="5"/>"#;
    let inner = format!("{}{}", boxed("B", 1, event, ""), link(0, 5, 1, 5));
    // A is a holder box with an onEvent input forwarded to B.ev; root sends ev before onStart.
    let a = format!(
        r#"<Box name="A" id="1">{PORTS}{event}<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>{inner}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box>"#
    );
    let xml = behavior(&format!("{a}{}", link(0, 2, 1, 5)));
    let (_, t) = run(&xml, NativeHost::new());
    assert_in_order(
        &t,
        &[
            "root/A in ev None",
            "root/A call onInput_ev",
            "root/A ret onInput_ev",
        ],
    );
    assert!(
        !t.iter().any(|l| l.contains("B.ev")),
        "A's diagram is not loaded: {t:#?}"
    );
    assert!(
        !t.iter().any(|l| l == "root/A links_on"),
        "P1: no load: {t:#?}"
    );
}

#[test]
fn s3_parameters_are_typed_and_inherited_by_name() {
    let params = r#"<Parameter name="Flag" inherits_from_parent="0" content_type="0" value="1" default_value="0" id="5"/><Parameter name="Speed" inherits_from_parent="0" content_type="1" value="120" default_value="100" id="6"/>"#;
    let child_params = r#"<Parameter name="Speed" inherits_from_parent="1" content_type="1" value="80" default_value="100" id="5"/>"#;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let host = NativeHost::new().with("C", move |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            let mut s = s2.lock().unwrap();
            s.push(ctx.parameter("Speed"));
            s.push(ctx.parameter("Flag"));
            s.push(ctx.parameter("Missing"));
        }
        Ok(())
    });
    let inner = format!("{}{}", boxed("C", 1, child_params, ""), link(0, 2, 1, 2));
    let a = boxed("A", 1, params, &inner);
    let xml = behavior(&format!("{a}{}", link(0, 2, 1, 2)));
    let _ = run(&xml, host);
    assert_eq!(
        *seen.lock().unwrap(),
        vec![Some(Value::Int(120)), Some(Value::Bool(true)), None],
        "bug 2 (booleans always false) and bug 3 (inheritance ignored) are absent"
    );
}

#[test]
fn bug14_inner_boxes_of_a_finished_timeline_get_on_unload_never_on_stop() {
    let (_, t) = run(&two_keyframes(), NativeHost::new());
    assert!(t.iter().any(|l| l == "root/T/B call onUnload"));
    assert!(
        !t.iter()
            .any(|l| l.starts_with("root/T/") && l.contains("onInput_onStop")),
        "{t:#?}"
    );
}

#[test]
fn t7_a_holder_has_no_cursor() {
    let inner = format!("{}{}", boxed("B", 1, "", ""), link(0, 2, 1, 2));
    let xml = behavior(&format!(
        "{}{}",
        boxed("A", 1, "", &inner),
        link(0, 2, 1, 2)
    ));
    let (_, t) = run(&xml, NativeHost::new());
    assert!(t.iter().any(|l| l == "root/A links_on"));
    assert!(
        !t.iter()
            .any(|l| l.contains(" frame ") || l.contains(" tl ")),
        "{t:#?}"
    );
}

#[test]
fn t4_set_fps_takes_effect_from_the_next_frame() {
    // A (first keyframe) doubles the parent timeline's fps at once: frames then come every 50 ms.
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.parent_timeline(TimelineCommand::SetFps(20));
        }
        Ok(())
    });
    let events = run_to_end(
        &two_keyframes(),
        host,
        choreo_engine::Options {
            virtual_time: true,
            ..Default::default()
        },
    );
    let frames: Vec<u64> = events
        .iter()
        .filter(|e| matches!(e.step, choreo_engine::trace::Step::Frame { frame } if frame >= 2))
        .map(|e| e.time_ns)
        .collect();
    assert!(
        frames.windows(2).all(|w| w[1] - w[0] == 50_000_000),
        "{frames:?}"
    );
}

#[test]
fn s9_t7_fps_is_readable_and_set_fps_is_seen_by_get_fps() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let host = NativeHost::new().with("A", move |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            let mut s = s2.lock().unwrap();
            s.push(ctx.parent_fps());
            ctx.parent_timeline(TimelineCommand::SetFps(20));
            s.push(Some(ctx.fps()));
        }
        Ok(())
    });
    let _ = run(&two_keyframes(), host);
    // The parent timeline plays at 10 fps; A's own fps is 0 (it has no timeline).
    assert_eq!(seen.lock().unwrap()[..2], [Some(10), Some(0)]);
}

#[test]
fn frames_are_reported_to_the_frame_observer() {
    let frames = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let f2 = frames.clone();
    let observer: choreo_engine::FrameObserver =
        std::sync::Arc::new(move |_, f| f2.lock().unwrap().push(f));
    let options = choreo_engine::Options {
        virtual_time: true,
        on_frame: Some(observer),
        ..Default::default()
    };
    let _ = run_to_end(&two_keyframes(), NativeHost::new(), options);
    assert_eq!(*frames.lock().unwrap(), (1..=30).collect::<Vec<i64>>());
}

#[test]
fn virtual_time_gives_the_same_trace_as_real_time() {
    // 100 fps, 30 frames: 0.3 s of real time.
    let xml = two_keyframes().replace("fps=\"10\"", "fps=\"100\"");
    let run_in = |virtual_time: bool| {
        let options = choreo_engine::Options {
            virtual_time,
            ..Default::default()
        };
        let events = run_to_end(&xml, NativeHost::new(), options);
        events.iter().map(|e| e.short()).collect::<Vec<_>>()
    };
    assert_eq!(run_in(true), run_in(false));
}

#[test]
fn r17_a_stop_pauses_unloads_the_active_keyframes_and_sets_the_cursor_to_minus_one() {
    // A (first keyframe) stops its parent timeline, then the timeline is played again: it
    // starts over from the start frame (the cursor was -1).
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.parent_timeline(TimelineCommand::Stop);
        }
        Ok(())
    });
    let (outcome, t) = run(&two_keyframes(), host);
    assert_eq!(outcome, Outcome::Idle);
    assert_in_order(
        &t,
        &[
            "root/T tl stop",
            "root/T kf_off L/first",
            "root/T links_off",
            "root/T/A call onUnload",
        ],
    );
    let stop = pos(&t, "root/T tl stop");
    assert!(
        !t[stop..].iter().any(|l| l.starts_with("root/T frame")),
        "no frame after the stop:\n{t:#?}"
    );
}

#[test]
fn t5_p4_the_parent_timeline_of_a_keyframe_box_is_its_owner_and_on_load_is_the_entry() {
    // A sits in the first keyframe of T: its parent timeline is T's. It is started only by
    // the keyframe diagram's onLoad (P4); it moves T to frame 10 (T5).
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            assert!(ctx.parent_timeline(TimelineCommand::GoToFrame(10)));
        }
        Ok(())
    });
    let (_, t) = run(&two_keyframes(), host);
    assert_in_order(
        &t,
        &[
            "root/T deliver (parent).onLoad -> A.onStart",
            "root/T tl goto 10",
            "root/T kf_on L/second",
        ],
    );
    // A box outside any timeline has no parent timeline.
    let host = NativeHost::new().with("T", |hook, ctx| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            assert!(!ctx.parent_timeline(TimelineCommand::Pause));
        }
        Ok(())
    });
    let (_, t) = run(&two_keyframes(), host);
    assert!(
        !t.iter().any(|l| l.contains("ret onInput_onStart err")),
        "{t:#?}"
    );
}

/// A sync that answers every start with `delay`, recording what it was asked; its lead is
/// zero for its first `lead_from` readings, then `lead`.
struct Delaying {
    delay: std::time::Duration,
    asked: std::sync::Mutex<Vec<(String, u32, u32)>>,
    readings: std::sync::atomic::AtomicU32,
    lead_from: u32,
    lead: std::time::Duration,
}

impl Delaying {
    fn new(delay_ms: u64, lead_from: u32, lead_ms: u64) -> Delaying {
        Delaying {
            delay: std::time::Duration::from_millis(delay_ms),
            asked: std::sync::Mutex::new(Vec::new()),
            readings: std::sync::atomic::AtomicU32::new(0),
            lead_from,
            lead: std::time::Duration::from_millis(lead_ms),
        }
    }
}

impl choreo_engine::engine::sync::TimelineSync for Delaying {
    fn arrive(&self, path: &str, occurrence: u32, fps: u32, go: choreo_engine::engine::sync::Go) {
        self.asked
            .lock()
            .unwrap()
            .push((path.to_string(), occurrence, fps));
        go(choreo_engine::engine::sync::Start {
            after: self.delay,
            lead: std::time::Duration::ZERO,
        });
    }

    fn lead(&self) -> std::time::Duration {
        let n = self
            .readings
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if n + 1 >= self.lead_from {
            self.lead
        } else {
            std::time::Duration::ZERO
        }
    }
}

/// The time of the first event `short` of `events`.
fn time_of(events: &[choreo_engine::trace::Event], short: &str) -> u64 {
    events
        .iter()
        .find(|e| e.short() == short)
        .unwrap_or_else(|| panic!("no {short}"))
        .time_ns
}

#[test]
fn a_timeline_sync_says_when_each_timeline_starts() {
    let sync = std::sync::Arc::new(Delaying::new(250, u32::MAX, 0));
    let options = choreo_engine::Options {
        virtual_time: true,
        timeline_sync: Some(sync.clone()),
        ..Default::default()
    };
    let events = run_to_end(&two_keyframes(), NativeHost::new(), options);
    let at = |short: &str| time_of(&events, short);
    // The start frame is reached, and its keyframe's box started, when the sync says (250
    // ms after the ask, at the box's start): a fleet's first frames start together. Frames
    // follow the play.
    assert_eq!(
        at("root/T frame 1") - at("root/T call onInput_onStart"),
        250_000_000
    );
    assert_eq!(at("root/T/A call onLoad"), at("root/T frame 1"));
    assert!(at("root/T tl play") == at("root/T frame 1"));
    assert_eq!(at("root/T frame 2") - at("root/T tl play"), 100_000_000);
    assert_eq!(
        *sync.asked.lock().unwrap(),
        vec![("root/T".to_string(), 1, 10)]
    );
}

#[test]
fn a_synced_timeline_follows_its_lead() {
    // The lead is read as each next frame is scheduled: at the play (frame 2 due at +100
    // ms), at frame 2 (frame 3 at +200), at frame 3: now 30 ms, so frame 4 is due 30 ms
    // earlier than the grid (+270), and frame 5 a frame later (+370).
    let sync = std::sync::Arc::new(Delaying::new(250, 3, 30));
    let options = choreo_engine::Options {
        virtual_time: true,
        timeline_sync: Some(sync),
        ..Default::default()
    };
    let events = run_to_end(&two_keyframes(), NativeHost::new(), options);
    let from_play = |short: &str| time_of(&events, short) - time_of(&events, "root/T tl play");
    assert_eq!(from_play("root/T frame 3"), 200_000_000);
    assert_eq!(from_play("root/T frame 4"), 270_000_000);
    assert_eq!(from_play("root/T frame 5"), 370_000_000);
}

#[test]
fn a_stop_while_a_synced_start_waits_voids_it() {
    // The sync answers after the behavior was stopped: the timeline never plays.
    struct Late(std::sync::Mutex<Option<choreo_engine::engine::sync::Go>>);
    impl choreo_engine::engine::sync::TimelineSync for Late {
        fn arrive(&self, _: &str, _: u32, _: u32, go: choreo_engine::engine::sync::Go) {
            *self.0.lock().unwrap() = Some(go);
        }
    }
    let late = std::sync::Arc::new(Late(std::sync::Mutex::new(None)));
    let options = choreo_engine::Options {
        timeline_sync: Some(late.clone()),
        ..Default::default()
    };
    let (engine, trace) = load_virtual(&two_keyframes(), &NativeHost::new(), options);
    engine.start();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while late.0.lock().unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "never asked");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    engine.stop();
    let _ = engine.wait(std::time::Duration::from_secs(10));
    if let Some(go) = late.0.lock().unwrap().take() {
        go(choreo_engine::engine::sync::Start::default());
    }
    std::thread::sleep(std::time::Duration::from_millis(50));
    let lines: Vec<String> = trace.events().iter().map(|e| e.short()).collect();
    assert!(!lines.iter().any(|l| l == "root/T tl play"), "{lines:#?}");
}
