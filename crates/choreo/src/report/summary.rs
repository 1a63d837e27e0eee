//! The run report `choreo run` prints at the end.

use std::collections::BTreeMap;
use std::time::Duration;

use choreo_engine::clock::Time;

use crate::report::Tally;
use crate::{Ending, StoppedBy};

/// What the report is made of.
pub struct Report {
    /// How the run ended.
    pub ending: Ending,
    /// The simulated robot's model and language where the project chose them, and why.
    pub implied: Vec<String>,
    /// `--timeout`, seconds.
    pub timeout: Option<f64>,
    /// Behavior time at the end.
    pub behavior_time: Time,
    /// Real time the run took.
    pub real: Duration,
    /// What the trace showed.
    pub tally: Tally,
    /// Robot calls the simulation does not support, with their counts.
    pub unsupported: BTreeMap<String, u64>,
    /// The run's seed and start time (ms since the epoch): what repeats it.
    pub seed: u64,
    /// The run's start, ms since the epoch.
    pub start_ms: u64,
    /// What the sandbox refused box code, with the flag that allows each.
    pub refused: Vec<String>,
    /// Processes box code started, still running in its box host's namespace at the end,
    /// killed with it.
    pub left_running: usize,
}

impl Report {
    /// The report as `choreo run` prints it, under `title`.
    pub fn text(&self, title: &str) -> String {
        report_text(title, self)
    }
}

fn report_text(title: &str, r: &Report) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let tally = &r.tally;
    // What an idle behavior waits for: events subscribed, box code that has not returned.
    let awaited: &[String] = match &r.ending {
        Ending::Idle { awaiting } => awaiting,
        _ => &[],
    };
    let mut waits: Vec<String> = awaited
        .iter()
        .map(|key| format!("ALMemory event {key}"))
        .collect();
    waits.extend(tally.running_at_stop.iter().flatten().cloned());
    let how = match &r.ending {
        Ending::Finished => "finished".to_string(),
        Ending::Failed { .. } => "stopped at the first error in box code (--strict)".to_string(),
        Ending::TimeLimit => match r.timeout {
            Some(t) => format!("stopped: timeout ({t} s of behavior time, --timeout)"),
            None => "stopped: timeout".to_string(),
        },
        Ending::Idle { .. } if waits.is_empty() => {
            "stopped: nothing left to do, yet the behavior did not finish (its root never fired onStopped)"
                .to_string()
        }
        Ending::Idle { .. } => "stopped: waiting for an event nobody sent".to_string(),
        Ending::Stopped {
            by: StoppedBy::Interrupt | StoppedBy::Program,
        } => "stopped: interrupted (Ctrl-C); every box was unloaded".to_string(),
        Ending::Stopped {
            by: StoppedBy::Page,
        } => "stopped from the monitor's page; every box was unloaded".to_string(),
        Ending::RobotLost => "stopped: the robot disconnected".to_string(),
        Ending::Crashed { .. } => {
            "stopped: the engine crashed (a bug of choreo's; please report it)".to_string()
        }
        Ending::BoxHostEnded { how, .. } => format!("stopped: {how}"),
        Ending::Stopped {
            by: StoppedBy::Fleet,
        } => "stopped: another robot of the fleet did not finish (--all-or-nothing)".to_string(),
    };
    let _ = writeln!(o, "{title}");
    let _ = writeln!(o, "  outcome        {how}");
    if let Ending::BoxHostEnded { at: Some(at), .. } = &r.ending {
        let _ = writeln!(o, "  where          {at}");
    }
    if matches!(r.ending, Ending::Idle { .. }) && !waits.is_empty() {
        for (i, w) in waits.iter().enumerate() {
            let title = if i == 0 { "waiting for" } else { "" };
            let _ = writeln!(o, "  {title:<14} {w}");
        }
        if !awaited.is_empty() {
            let _ = writeln!(
                o,
                "  {:<14} (a scenario can send events: --events, docs/scenarios.md)",
                ""
            );
        }
    }
    for (i, why) in r.implied.iter().enumerate() {
        let _ = writeln!(o, "  {:<14} {why}", if i == 0 { "robot" } else { "" });
    }
    let _ = writeln!(
        o,
        "  duration       {:.2} s behavior time, {:.2} s real time",
        r.behavior_time.as_secs_f64(),
        r.real.as_secs_f64()
    );
    let _ = writeln!(
        o,
        "  repeat with    --seed {} --start-time {}",
        r.seed,
        choreo_robot::calendar::format_utc(r.start_ms)
    );
    let _ = writeln!(o, "  boxes run      {}", tally.boxes_run.len());
    write_counts(&mut o, "robot calls", &tally.calls);
    write_counts(&mut o, "stubbed", &tally.stubbed);
    write_counts(&mut o, "unsupported", &r.unsupported);
    write_counts(&mut o, "failed calls", &tally.failed_calls);
    write_list(&mut o, "errors", &tally.failures, true);
    write_list(&mut o, "logged errors", &tally.logged, false);
    write_list(&mut o, "refused", &r.refused, false);
    if r.left_running > 0 {
        let n = r.left_running;
        let _ = writeln!(
            o,
            "  left running   {n} process(es) box code started: killed"
        );
    }
    o
}

/// `title` and how many `items`, then each distinct one once with its count (`×3`), into `o`.
fn write_list<T: std::fmt::Display>(o: &mut String, title: &str, items: &[T], always: bool) {
    use std::fmt::Write as _;
    if items.is_empty() && !always {
        return;
    }
    let _ = writeln!(o, "  {title:<14} {}", items.len());
    let mut distinct: Vec<(String, usize)> = Vec::new();
    for item in items {
        let text = item.to_string();
        match distinct.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => distinct.push((text, 1)),
        }
    }
    for (text, n) in distinct {
        if n > 1 {
            let _ = writeln!(o, "    {text} (×{n})");
        } else {
            let _ = writeln!(o, "    {text}");
        }
    }
}

fn write_counts(o: &mut String, title: &str, counts: &BTreeMap<String, u64>) {
    use std::fmt::Write as _;
    if counts.is_empty() && title != "robot calls" {
        return;
    }
    let total: u64 = counts.values().sum();
    let _ = writeln!(o, "  {title:<14} {total}");
    for (m, n) in counts {
        let _ = writeln!(o, "    {m:<24} {n}");
    }
}
