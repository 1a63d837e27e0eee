//! The invariants.

use std::collections::{HashMap, HashSet};

use choreo_engine::engine::LOUD_LINK;
use choreo_engine::trace::{Event, Step};

use crate::properties::case::{Case, DiagKey, Kind};
use crate::properties::run::{Run, window};
use crate::properties::settings::{MAX_OPS, STEP_BUDGET, TIME_LIMIT};
use crate::support::test_tree;

/// The box name in a `deliver` end (`Name.port` or `(parent).port`).
pub(crate) fn end_box(end: &str) -> Option<&str> {
    let (b, _) = end.split_once('.')?;
    (b != "(parent)").then_some(b)
}

/// Invariants 10 and 11: the engine's queues and the trace stay bounded.
pub(crate) fn bounds(case: &Case, run: &Run) -> Result<(), String> {
    let loops = case.loops();
    let boxes = case.boxes.len();
    // (10) A box has few operations in flight at once (its start, a stop, a load or
    // unload of its diagram, a hook); only a loop that multiplies signals, that runs on
    // operations alone through a fan-out, or whose turns start what waits for time, adds
    // more with each turn, up to the engine's cap.
    let most = if loops.multiplying || loops.waits || (loops.inline_cycle && loops.fan_out) {
        MAX_OPS
    } else {
        (4 * boxes + 16) * loops.copies
    };
    if run.peak > most {
        return Err(format!(
            "(10) {} operations in flight at once, more than {most} ({loops:?})",
            run.peak
        ));
    }
    // (11) Without a loop: a few events per hook and link, which box code triggers at most
    // MAX_ACTS times per rule, and per frame of a timeline (30 fps at most) its `frame` and
    // the loads and unloads of the boxes in its keyframes. With one: besides, per second of
    // behavior time and up to the stop, each turn of the loop acts on every box at most,
    // with a few events each, and a link target gets at most LOUD_LINK signals before the
    // loud-link warning (then the run is stopped, or time moves beside the loop only after
    // 2 s of real time).
    let lines = || -> Vec<String> { run.events.iter().map(Event::short).collect() };
    let timelines: Vec<&str> = case
        .boxes
        .iter()
        .filter(|b| b.kind == Kind::Timeline)
        .map(|b| b.path.as_str())
        .collect();
    let in_keyframes = case
        .boxes
        .iter()
        .filter(|b| {
            timelines
                .iter()
                .any(|t| b.path.starts_with(&format!("{t}/")))
        })
        .count();
    let per_frame = timelines.len() * (2 + 20 * in_keyframes);
    let n = run.events.len();
    let stop = run.events.iter().position(|e| {
        e.step
            == Step::Behavior {
                what: "stop".into(),
            }
    });
    if loops.any {
        let most = 1_000 * boxes + 30 * per_frame + 16 * (LOUD_LINK as usize + 1) * boxes;
        let mut seconds: HashMap<u64, usize> = HashMap::new();
        for e in &run.events[..stop.unwrap_or(n)] {
            *seconds.entry(e.time_ns / 1_000_000_000).or_default() += 1;
        }
        if let Some((second, count)) = seconds.iter().find(|(_, c)| **c > most) {
            return Err(format!(
                "(11) {count} events in second {second} of behavior time, more than {most}"
            ));
        }
    } else {
        let most = 1_000 * boxes + 30 * TIME_LIMIT.as_secs() as usize * per_frame;
        if n > most {
            return Err(format!(
                "(11) {n} events without a loop of links, more than {most}"
            ));
        }
    }
    // A stop ends a loop once the unload is done: after it come the operations already in
    // flight, the unload of every box and, beside a loop, a budget of steps at each instant
    // of virtual time (once stopping, time moves beside a loop not loud yet at the end of
    // each budget, to the next instant anything is due: an onUnload's sleep, or what the
    // unload waits for), plus the one under way at the stop. A budget counts the commands
    // (a hop through box code on a worker: its fire and its return) and the steps of a
    // whole budget of operations; the operations between commands come with them: a hop
    // through a worker box and an inline box beside it is 9 events for two steps. At most
    // 8 events a step.
    if let Some(stop) = stop {
        let instants: HashSet<u64> = run.events[stop..].iter().map(|e| e.time_ns).collect();
        let most = 4 * run.peak + 100 * boxes + 8 * STEP_BUDGET * (1 + instants.len());
        if n - stop > most {
            return Err(format!(
                "(11) {} events after the stop, more than {most}\n{}",
                n - stop,
                window(&lines(), stop)
            ));
        }
    }
    Ok(())
}

/// Checks invariants 1–5 and 7–9 on the trace of a stopped behavior.
pub(crate) fn check(case: &Case, events: &[Event]) -> Result<(), String> {
    let tree = test_tree();
    let lines: Vec<String> = events.iter().map(Event::short).collect();
    let fail = |i: usize, what: String| Err(format!("{what}\n{}", window(&lines, i)));
    let mut loaded: HashSet<&str> = HashSet::new();
    let mut running: HashMap<(&str, &str), i64> = HashMap::new();
    let mut holders_on: HashSet<&str> = HashSet::new();
    // (owner, layer/keyframe) -> links turned on by the owner since its kf_on
    let mut keyframes_on: HashMap<(&str, &str), bool> = HashMap::new();
    let mut news: HashMap<&str, usize> = HashMap::new();
    let mut dels: HashMap<&str, usize> = HashMap::new();
    let mut first_del: Option<usize> = None;
    let mut stopped_timelines: HashSet<&str> = HashSet::new();
    // Who holds which resources (invariant 8).
    let mut holding: HashMap<&str, Vec<String>> = HashMap::new();
    let mut last_time = 0;
    for (i, e) in events.iter().enumerate() {
        if e.seq != i as u64 {
            return fail(i, format!("(5) seq {} at position {i}", e.seq));
        }
        if e.time_ns < last_time {
            return fail(
                i,
                format!("(5) time goes back: {} < {last_time}", e.time_ns),
            );
        }
        last_time = e.time_ns;
        let p = e.path.as_str();
        if let Some(d) = first_del
            && matches!(
                e.step,
                Step::Call { .. }
                    | Step::In { .. }
                    | Step::Deliver { .. }
                    | Step::LinksOn
                    | Step::KfOn { .. }
                    | Step::Frame { .. }
                    | Step::Timeline { .. }
            )
        {
            return fail(
                i,
                format!("(4) activity after the boxes were destroyed (event {d})"),
            );
        }
        match &e.step {
            Step::New => {
                *news.entry(p).or_default() += 1;
                if first_del.is_some() {
                    return fail(i, "(4) new after del".into());
                }
            }
            Step::Del => {
                *dels.entry(p).or_default() += 1;
                first_del.get_or_insert(i);
            }
            Step::Call { hook } => {
                *running.entry((p, hook.as_str())).or_default() += 1;
                match hook.as_str() {
                    "onLoad" => {
                        if !loaded.insert(p) {
                            return fail(i, "(3) onLoad of a loaded box".into());
                        }
                    }
                    "onUnload" => {
                        if !loaded.remove(p) {
                            return fail(i, "(3) onUnload of a box that is not loaded".into());
                        }
                    }
                    _ => {
                        if !loaded.contains(p) {
                            return fail(i, "(1) an input hook of a box that is not loaded".into());
                        }
                    }
                }
            }
            Step::Ret { hook, .. } => {
                let n = running.entry((p, hook.as_str())).or_default();
                *n -= 1;
                if *n < 0 {
                    return fail(i, "(4) ret without call".into());
                }
            }
            Step::In { .. } if !loaded.contains(p) => {
                return fail(i, "(1) input of a box that is not loaded".into());
            }
            Step::Deliver { from, to } => {
                let Some(child) = end_box(from).or_else(|| end_box(to)) else {
                    // A P9 link: in the diagram of `p`, a holder's or a keyframe's.
                    let on = match case.info(p).map(|b| b.kind) {
                        Some(Kind::Holder) => holders_on.contains(p),
                        Some(Kind::Timeline) => keyframes_on
                            .iter()
                            .any(|((owner, _), linked)| *owner == p && *linked),
                        _ => return fail(i, "a P9 deliver in a box without a diagram".into()),
                    };
                    if !on {
                        return fail(i, "(2) P9 deliver in a diagram whose links are off".into());
                    }
                    continue;
                };
                let key = case.by_name(child).and_then(|b| b.diagram.as_ref());
                match key {
                    Some(DiagKey::Holder(owner)) if owner == p => {
                        if !holders_on.contains(p) {
                            return fail(i, "(2) deliver in a diagram whose links are off".into());
                        }
                    }
                    Some(DiagKey::Keyframe(owner, kf)) if owner == p => {
                        if keyframes_on.get(&(p, kf.as_str())) != Some(&true) {
                            return fail(
                                i,
                                format!("(2) deliver in keyframe {kf}, whose links are off"),
                            );
                        }
                    }
                    _ => return fail(i, format!("deliver names {child}, not in {p}")),
                }
            }
            Step::LinksOn => match case.info(p).map(|b| b.kind) {
                Some(Kind::Holder) => {
                    if !holders_on.insert(p) {
                        return fail(i, "(3) links_on of a diagram whose links are on".into());
                    }
                }
                Some(Kind::Timeline) => {
                    for ((owner, _), linked) in keyframes_on.iter_mut() {
                        if *owner == p {
                            *linked = true;
                        }
                    }
                }
                _ => return fail(i, "links_on of a box without a diagram".into()),
            },
            Step::LinksOff
                if case.info(p).map(|b| b.kind) == Some(Kind::Holder) && !holders_on.remove(p) =>
            {
                return fail(i, "(3) links_off of a diagram whose links are off".into());
            }
            Step::KfOn { layer, keyframe } => {
                let kf = format!("{layer}/{keyframe}");
                let key = case
                    .boxes
                    .iter()
                    .filter_map(|b| b.diagram.as_ref())
                    .find_map(|k| match k {
                        DiagKey::Keyframe(o, k) if o == p && *k == kf => Some(k.as_str()),
                        _ => None,
                    });
                // Keyframes are keyed by the case's strings (which outlive the loop).
                let Some(k) = key else {
                    return fail(i, "kf_on of an unknown keyframe".into());
                };
                if keyframes_on.insert((p, k), false).is_some() {
                    return fail(i, "(3) kf_on of a keyframe that is on".into());
                }
            }
            Step::KfOff { layer, keyframe } => {
                let kf = format!("{layer}/{keyframe}");
                let key = keyframes_on
                    .keys()
                    .find(|(o, k)| *o == p && *k == kf)
                    .copied();
                if key.and_then(|k| keyframes_on.remove(&k)).is_none() {
                    return fail(i, "(3) kf_off of a keyframe that is off".into());
                }
            }
            Step::Timeline { command, .. } => match command.as_str() {
                "stop" => {
                    stopped_timelines.insert(p);
                }
                "play" => {
                    stopped_timelines.remove(p);
                }
                _ => {}
            },
            Step::Frame { frame } => {
                let start = case.info(p).map_or(0, |b| b.start_frame);
                if stopped_timelines.contains(p) && *frame != start {
                    return fail(i, "(7) frame of a stopped timeline".into());
                }
            }
            // Box code here only sleeps on the clock: a stall means the engine lost count.
            Step::Log { message, .. } if message.contains("neither returned nor slept") => {
                return fail(i, "(9) a hook counted as running outside the clock".into());
            }
            Step::Resource { what, names } => match what.as_str() {
                "got" => {
                    let clash = holding.iter().find(|(q, held)| {
                        // A box shares what the boxes enclosing it hold.
                        **q != p
                            && !p.starts_with(&format!("{q}/"))
                            && held
                                .iter()
                                .any(|h| names.iter().any(|n| tree.overlap(h, n)))
                    });
                    if let Some((q, _)) = clash {
                        return fail(i, format!("(8) {p} got {names:?} while {q} holds them"));
                    }
                    holding.insert(p, names.clone());
                }
                "free" if holding.remove(p).is_none() => {
                    return fail(i, "(8) free without got".into());
                }
                _ => {}
            },
            _ => {}
        }
    }
    if let Some(p) = holding.keys().next() {
        let history: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with(&format!("{p} ")))
            .collect();
        return fail(
            events.len().saturating_sub(1),
            format!("(8) {p} still holds its resources at the end:\n{history:#?}"),
        );
    }
    let end = events.len().saturating_sub(1);
    for b in &case.boxes {
        let p = b.path.as_str();
        if news.get(p) != Some(&1) || dels.get(p) != Some(&1) {
            return fail(
                end,
                format!(
                    "(4) {p}: {} new, {} del",
                    news.get(p).unwrap_or(&0),
                    dels.get(p).unwrap_or(&0)
                ),
            );
        }
    }
    if let Some(p) = loaded.iter().next() {
        return fail(end, format!("(3)(4) {p} is still loaded at the end"));
    }
    if let Some(p) = holders_on.iter().next() {
        return fail(
            end,
            format!("(3)(4) the links of {p} are still on at the end"),
        );
    }
    if let Some((p, k)) = keyframes_on.keys().next() {
        return fail(
            end,
            format!("(3)(4) keyframe {k} of {p} is still on at the end"),
        );
    }
    // A hook that sleeps on a worker may still sleep when every box is destroyed: the trace
    // ends there, without its `ret`.
    let may_outlive = |p: &str, h: &str| {
        case.boxes.iter().any(|b| {
            b.path == p && !b.inline && b.rules.iter().any(|r| r.hook == h && r.sleep_ms > 0)
        })
    };
    if let Some(((p, h), n)) = running
        .iter()
        .find(|((p, h), n)| **n != 0 && !(**n > 0 && may_outlive(p, h)))
    {
        return fail(end, format!("(4) {p} {h}: {n} call(s) without ret"));
    }
    Ok(())
}
