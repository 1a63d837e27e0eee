//! Property tests: random behaviors (nested flow diagrams, playing timelines, native boxes that
//! sleep, fire, fail and command timelines, loops of links) run in virtual time, and lifecycle
//! invariants checked on their traces (docs/runtime-rules.md §0–§1, §5).
//!
//! Invariants (see [`check`] and [`bounds`]):
//! 1. no `in` / `call onInput_*` reaches a box that is not loaded (R6, R14, R15);
//! 2. no `deliver` in a diagram whose links are off: exact for flow-diagram holders (and the
//!    root) by `links_on`/`links_off` of the owner; for a timeline's keyframe diagrams, the
//!    keyframe must be on (`kf_on`, no `kf_off` since) and its owner must have turned links on
//!    since that `kf_on` (the trace does not say which keyframe a `links_on` belongs to); a
//!    P9 `deliver` (`(parent).x -> (parent).y`) needs some diagram of its owner with links on;
//! 3. `call onLoad` / `call onUnload` alternate per box, starting with onLoad, and end with
//!    onUnload; likewise `links_on`/`links_off` per holder and `kf_on`/`kf_off` per keyframe;
//! 4. after the behavior is stopped: every box had one `new` and one `del`, nothing is loaded,
//!    every `call` has its `ret` but those of hooks that sleep on a worker (one may outlive
//!    the run, and the trace ends with the run: docs/trace.md), and no `call`, `in`,
//!    `deliver`, `links_on`, `kf_on`, `frame` or `tl` comes after the first `del`;
//! 5. `seq` is gap-free from 0 and `time_ns` never decreases;
//! 6. the same case run twice gives the same trace (short forms and times); for a run with a
//!    loop of links stopped in real time (the loud-link warning, "signals per second", is in
//!    either trace, or the harness stopped either run as a loop), only up to the first
//!    `beh stop` of either run: where a real-time stop lands is up to the OS;
//! 7. (R17) after `tl stop`, no `frame` of that timeline but its start frame until `tl play`;
//! 8. (§6) no box gets resources that overlap those another box holds (Q4: groups cover their
//!    joints), except a box enclosing it; every `got` is matched by one `free`, and nothing
//!    is held at the end;
//! 9. no hook is reported as stalled (blocked outside the clock): box code here only sleeps on
//!    the clock, so such a report would mean the engine lost count of what runs;
//! 10. `Engine::peak_operations` is at most 4 per box plus 16 per copy of a loop (a rule that
//!     fires into a loop starts one more copy each of the `MAX_ACTS` times it acts, with as
//!     many operations in flight as the first), unless the case's signal graph
//!     ([`crate::properties::case::Case::loops`]) has a loop that multiplies signals (a port on the loop
//!     linked to two ports that both lead back to a loop), or that runs on operations alone
//!     (every box on the loop inline) through a port with two links or more (the operation
//!     delivering the other links waits on the ready stack under the loop's next turn: one
//!     more per turn, whatever the boxes those links lead to), or whose turns start what waits for virtual time (a hook that sleeps on a
//!     worker, resources), which stands still beside the loop: then only the engine's cap
//!     (100,000) bounds them;
//! 11. the trace stays sane: without a loop in the signal graph, at most 1,000 events per box
//!     plus, per frame of each timeline (120 s at 30 fps at most), 2 and 20 per box in
//!     keyframes; with one, up to the stop and per second of behavior time, that plus
//!     16 × (`LOUD_LINK` + 1) events per box (a link target gets at most `LOUD_LINK` signals
//!     in a second before the loud-link warning); after a stop that does not wait for virtual
//!     time, at most 4 events per operation in flight at the peak, 100 per box and 8 per step
//!     of a budget of 4,096 steps at each instant of virtual time after the stop, plus one (a
//!     stop ends a loop once the unload is done, and beside a loop time moves to the next
//!     instant anything is due, an onUnload's sleep say, at the end of each budget).
//!
//! Properties: `lifecycle_invariants_hold` (1–5, 7–11) and `same_case_same_trace` (6), on any
//! behavior the generator makes. Each run ends by itself (Finished, Idle or TimeLimit at
//! 120 s of virtual time) or is stopped in real time as a loop of links: a loop in zero
//! virtual time never ends by itself, and virtual time goes on beside it (towards the time
//! limit) only after 2 s of real time, so a run is stopped as soon as the loud-link warning
//! comes, the operations in flight pass `PEAK_STOP`, or virtual time stands still for
//! `STANDING` while events keep coming (a loop through hooks on workers is slow to get loud).
//! Then it is stopped, and its hooks return.
//!
//! Generated links are always valid. Besides links between any ports, a diagram sometimes
//! has P9 links (an input of its owner straight to an output of its owner; not in the root's
//! diagram, where they would only end the behavior) and links that close cycles between its
//! boxes (a later box's output back to an earlier box's input, or a box's output to its own
//! input, sometimes kicked by the diagram's entry), through the ports that let signals
//! through where there are some: a flow-diagram box's P9 links, a box whose code (inline on
//! the control thread, or on a worker) echoes an input to an output every time. Such loops
//! run in zero virtual time. Box rules act at most `MAX_ACTS` times each. A loop that may
//! multiply signals runs its box code inline (see [`crate::properties::case::build`]). The engine bugs these
//! properties found are fixed; the `engine_bug_*` tests of [`engine_bugs`] reproduce each one.
//!
//! The files, each using only those listed after it: this one (the properties), `engine_bugs`,
//! `check` (the invariants), `run` (a case run to its end), `case` (a behavior built from
//! raw data), `generate` (the raw data), `settings`.
//!
//! Cases: `PROPTEST_CASES` (default 256: about 15 s for both properties on 2 cores); a failure
//! shrinks and shows the XAR and the box code.
//! `PROPS_STATS=1` (with `--nocapture`) prints one line per case of `lifecycle_invariants_hold`:
//! its loops, how it ended, its peak of operations, events and real time.

mod case;
mod check;
mod engine_bugs;
mod generate;
mod run;
mod settings;

use std::collections::HashSet;

use choreo_engine::trace::Step;
use proptest::prelude::*;
use proptest::test_runner::Config;

use crate::properties::case::case;
use crate::properties::check::{bounds, check};
use crate::properties::run::{Run, execute, is_loud, window};

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Invariants 1–5 and 7–11 hold on every run.
    #[test]
    fn lifecycle_invariants_hold(case in case()) {
        let run = execute(&case)?;
        if std::env::var("PROPS_STATS").is_ok() {
            let stop = run.events.iter().position(|e| e.short() == "beh stop");
            eprintln!(
                "STATS boxes={} loud_at={} loops={:?} looped={} loud={} first={:?} peak={} events={} after_stop={} instants_after_stop={} took_ms={}",
                case.boxes.len(),
                run.events.iter().position(is_loud).unwrap_or(0),
                case.loops(),
                run.looped,
                run.loud(),
                run.first,
                run.peak,
                run.events.len(),
                stop.map_or(0, |i| run.events.len() - i),
                stop.map_or(0, |i| run.events[i..].iter().map(|e| e.time_ns).collect::<HashSet<_>>().len()),
                run.took.as_millis()
            );
        }
        if let Err(e) = bounds(&case, &run).and_then(|()| check(&case, &run.events)) {
            return Err(TestCaseError::fail(format!(
                "run ended {:?}{}: {e}",
                run.first,
                if run.looped { " (a loop, stopped)" } else { "" }
            )));
        }
    }

    /// Invariant 6: the same case run twice gives the same trace (for a loop stopped in real
    /// time, up to the stop).
    #[test]
    fn same_case_same_trace(case in case()) {
        let a = execute(&case)?;
        let b = execute(&case)?;
        // Up to the last `del` (hooks still running then may log after it, in real time).
        let short = |r: &Run| -> Vec<(u64, String)> {
            let end = r
                .events
                .iter()
                .rposition(|e| e.step == Step::Del)
                .map_or(r.events.len(), |i| i + 1);
            r.events[..end].iter().map(|e| (e.time_ns, e.short())).collect()
        };
        let (mut sa, mut sb) = (short(&a), short(&b));
        if a.loud() || b.loud() || a.looped || b.looped {
            // A loop of links stopped in real time: the same up to the stop of either run.
            let stop = |s: &[(u64, String)]| s.iter().position(|(_, l)| l == "beh stop");
            let end = [stop(&sa), stop(&sb), Some(sa.len()), Some(sb.len())]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(0);
            sa.truncate(end);
            sb.truncate(end);
        }
        if sa != sb {
            let i = sa.iter().zip(&sb).position(|(x, y)| x != y).unwrap_or(sa.len().min(sb.len()));
            let show = |s: &[(u64, String)]| -> String {
                let lines: Vec<String> = s.iter().map(|(t, l)| format!("{t} {l}")).collect();
                window(&lines, i.min(lines.len().saturating_sub(1)))
            };
            return Err(TestCaseError::fail(format!(
                "traces differ at event {i}:\nfirst run:\n{}\nsecond run:\n{}",
                show(&sa),
                show(&sb)
            )));
        }
    }
}
