//! Live human output on stderr while a behavior runs (`choreo run`, `choreo sim`): what the
//! robot does, errors, and a progress line while a timeline plays. Repeated lines are folded
//! ([`crate::report::fold`]); `-v` shows every line, `-q` only errors.

use std::io::Write as _;
use std::sync::{Arc, Mutex};

use choreo_engine::clock::Time;
use choreo_naoqi::RobotEvent;

use crate::report::fold::{Folder, Line};

/// How much the live output shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// Only errors (and the report).
    Quiet,
    /// Everything, repeated lines folded.
    Normal,
    /// Everything, every line, whole tracebacks.
    Verbose,
}

impl Verbosity {
    /// From the `-q` and `-v` flags (clap keeps them apart).
    pub fn from_flags(quiet: bool, verbose: bool) -> Verbosity {
        match (quiet, verbose) {
            (true, _) => Verbosity::Quiet,
            (false, true) => Verbosity::Verbose,
            (false, false) => Verbosity::Normal,
        }
    }
}

/// Whether a line is an error (shown even with `-q`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// What the robot does, what boxes log below `error`.
    Info,
    /// An exception or an error a box logged.
    Error,
}

/// The live output: cheap to clone (clones share the folding and the progress line).
#[derive(Clone)]
pub struct Live {
    verbosity: Verbosity,
    /// Virtual time: [`Live::tick`] does nothing (see there).
    virtual_time: bool,
    bar: Option<indicatif::ProgressBar>,
    folder: Arc<Mutex<Folder>>,
}

impl Live {
    /// Live output at `verbosity`, for a run in virtual time or not.
    pub fn new(verbosity: Verbosity, virtual_time: bool) -> Live {
        let bar = (verbosity != Verbosity::Quiet).then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar
        });
        Live {
            verbosity,
            virtual_time,
            bar,
            folder: Arc::new(Mutex::new(Folder::default())),
        }
    }

    /// A line at behavior time `at`.
    pub fn line(&self, at: Time, kind: Kind, line: Line) {
        match (self.verbosity, kind) {
            (Verbosity::Quiet, Kind::Info) => {}
            (Verbosity::Verbose, _) => self.print(at, &line.text()),
            _ => {
                let ready = self.folder().push(at, line);
                self.print_all(ready);
            }
        }
    }

    /// Extra lines under the last one, shown with `-v` only (a whole traceback).
    pub fn details(&self, text: &str) {
        if self.verbosity == Verbosity::Verbose {
            for l in text.lines() {
                self.print_raw(&format!("{:>12}{l}", ""));
            }
        }
    }

    /// Behavior time went on to `now`: folded lines that are over are printed. Real time
    /// only: in virtual time the engine's clock runs ahead of the lines delivered so far,
    /// by as much as the machine's load makes it, and a group closed by the clock could be
    /// one a line still on its way would have joined; there lines fold by their own times
    /// alone (each line closes the groups it is past, the end closes the rest), so the
    /// output is the same on every run.
    pub fn tick(&self, now: Time) {
        if self.virtual_time {
            return;
        }
        let ready = self.folder().tick(now);
        self.print_all(ready);
    }

    fn folder(&self) -> std::sync::MutexGuard<'_, Folder> {
        choreo_base::lock(&self.folder)
    }

    fn print_all(&self, lines: Vec<(Time, String)>) {
        for (at, text) in lines {
            self.print(at, &text);
        }
    }

    fn print(&self, at: Time, text: &str) {
        self.print_raw(&format!("{:>8.2}s  {text}", at.as_secs_f64()));
    }

    fn print_raw(&self, line: &str) {
        match &self.bar {
            Some(bar) if !bar.is_hidden() => bar.println(line),
            _ => {
                let _ = writeln!(std::io::stderr(), "{line}");
            }
        }
    }

    /// A timeline is at `frame`: the progress line says so.
    pub fn frame(&self, timeline: &str, frame: i64) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{timeline}: frame {frame}"));
            bar.tick();
        }
    }

    /// The end: every line still held is printed, the progress line cleared.
    pub fn finish(&self) {
        let ready = self.folder().finish();
        self.print_all(ready);
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// What the simulated robot does, as a person would notice it, in a run whose trace
    /// events are shown too: a fall is in the trace (a `log` warning), shown from there.
    pub fn robot_event(&self, at: Time, e: &RobotEvent) {
        if !matches!(e, RobotEvent::Fell { .. }) {
            self.robot_event_of("", at, e);
        }
    }

    /// What one robot of several does: its lines start with `who` (`robot 3: `).
    pub fn robot_event_of(&self, who: &str, at: Time, e: &RobotEvent) {
        if let Some((kind, mut line)) = describe(e) {
            line.head.insert_str(0, who);
            self.line(at, kind, line);
        }
    }
}

/// A robot event as a line; None for what says nothing new.
fn describe(e: &RobotEvent) -> Option<(Kind, Line)> {
    let line = match e {
        RobotEvent::Said { text, duration } => {
            Line::plain(format!("says {text:?} ({duration:.1} s)"))
        }
        RobotEvent::SpeechInterrupted { text } => Line::plain(format!("stops saying {text:?}")),
        RobotEvent::PostureChanged { posture } => Line::plain(format!("posture: {posture}")),
        RobotEvent::MotionStarted {
            method,
            joints,
            duration,
        } => Line::varying(
            format!("moves {}", joint_summary(joints)),
            format!("({method}, {duration:.1} s)"),
        ),
        RobotEvent::StiffnessChanged { joints, stiffness } => Line::plain(format!(
            "stiffness {stiffness:.1} on {}",
            joint_summary(joints)
        )),
        RobotEvent::MoveStarted { method, target } => Line::plain(match target {
            Some([x, y, t]) => format!("walks to x {x:.2} m, y {y:.2} m, θ {t:.2} ({method})"),
            None => format!("walks ({method})"),
        }),
        RobotEvent::Moved { position } => Line::plain(format!(
            "stands at x {:.2} m, y {:.2} m, θ {:.2}",
            position[0], position[1], position[2]
        )),
        RobotEvent::LedsChanged {
            group,
            rgb,
            duration,
        } => Line::varying(
            format!("LEDs {group} ->"),
            format!(
                "#{:02x}{:02x}{:02x} ({duration:.1} s)",
                channel(rgb[0]),
                channel(rgb[1]),
                channel(rgb[2])
            ),
        ),
        RobotEvent::SoundPlayed { file, duration } => Line::varying(
            "plays",
            match duration {
                Some(d) => format!("{file} ({d:.1} s)"),
                None => format!("{file} (looping)"),
            },
        ),
        RobotEvent::SoundStopped { file } => Line::varying("stops", file.clone()),
        // A service's own bookkeeping keys (ALTextToSpeech/TextDone, ...) say nothing new.
        RobotEvent::MemoryEvent { key, .. } if key.starts_with("AL") && key.contains('/') => {
            return None;
        }
        RobotEvent::MemoryEvent { key, value } => {
            Line::varying(format!("ALMemory {key} ="), value.to_string())
        }
        RobotEvent::TaskStopped {
            service, method, ..
        } => Line::plain(format!("{service}.{method} stopped")),
        RobotEvent::Unsupported {
            service,
            method,
            signature,
        } => Line::plain(format!("unsupported call {service}.{method}{signature}")),
        RobotEvent::CallFailed {
            service,
            method,
            error,
        } => Line::varying(format!("{service}.{method} failed:"), error.clone()),
        RobotEvent::ScriptError { message } => {
            return Some((Kind::Error, Line::varying("script error:", message.clone())));
        }
        RobotEvent::Fell { text, .. } => {
            return Some((Kind::Error, Line::plain(text.clone())));
        }
        RobotEvent::Log {
            level,
            source,
            message,
        } => Line::varying(format!("log [{level}] {source}:"), message.clone()),
        RobotEvent::Notice { service, text } => Line::varying(format!("{service}:"), text.clone()),
    };
    Some((Kind::Info, line))
}

fn channel(x: f64) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn joint_summary(joints: &[String]) -> String {
    match joints.len() {
        0 => "no joint".to_string(),
        1..=3 => joints.join(", "),
        n => format!("{n} joints"),
    }
}
