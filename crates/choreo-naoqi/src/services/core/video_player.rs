//! ALTabletService's video player: a video plays as long as its file lasts. `playVideo`
//! emits `videoStarted` at once and `videoFinished` when the video's end comes in behavior
//! time (the stock Play Video box waits for it); pausing holds the position, resuming plays
//! the rest, stopping closes the player with no signal. Positions and lengths are in
//! milliseconds, as the API page gives them.
//!
//! The length is read from the video's file when the URL names one of a package's pages
//! (`http://198.18.0.1/apps/<package>/<path>`: the package's `html/<path>`, as the robot's
//! web server maps it). A video whose file cannot be read here (a URL on the Internet, a
//! file the project's copy lacks) plays for [`DEFAULT_SECONDS`], and a notice says so: the
//! robot would play it, so the behavior must go on.

use std::sync::Arc;

use choreo_engine::Value;
use choreo_engine::activity::Nap;
use choreo_engine::clock::Time;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::trajectory::after;
use crate::services::media;

/// How long a video whose file cannot be read plays.
pub(crate) const DEFAULT_SECONDS: f64 = 3.0;

/// The module whose player this is.
const TABLET: &str = "ALTabletService";

/// The video in the player.
struct Video {
    /// Which play this is: a finish planned for an earlier one does nothing.
    serial: u64,
    length: f64,
    /// Where the video was when it last started playing, and when that was; `None` while
    /// paused.
    from: f64,
    since: Option<Time>,
    /// The sleep of the activity that ends this play: cut short when the video is paused,
    /// resumed or closed, so that a run does not wait on for a video no longer playing.
    end: Arc<Nap>,
}

impl Video {
    fn position(&self, now: Time) -> f64 {
        let played = self
            .since
            .map_or(0.0, |s| now.0.saturating_sub(s.0) as f64 / 1e9);
        (self.from + played).min(self.length)
    }
}

/// The player: the video open, if any, and the last play's serial.
#[derive(Default)]
struct Player {
    video: Option<Video>,
    serials: u64,
}

fn with<R>(sim: &Sim, f: impl FnOnce(&mut Player) -> R) -> R {
    sim.kept(TABLET, f)
}

/// Serves the video player's methods; `NotServed` for another method.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let now = sim.now();
    let value = match method {
        "playVideo" => {
            let url = a.str(0)?.to_string();
            play(sim, &url);
            Value::Bool(true)
        }
        "pauseVideo" => {
            let paused = with(sim, |p| match &mut p.video {
                Some(v) if v.since.is_some() => {
                    v.from = v.position(now);
                    v.since = None;
                    Some(Arc::clone(&v.end))
                }
                _ => None,
            });
            wake(sim, paused.as_deref());
            Value::Bool(paused.is_some())
        }
        "resumeVideo" => {
            let resumed = with(sim, |p| {
                p.serials += 1;
                let serial = p.serials;
                let v = p.video.as_mut()?;
                v.since.get_or_insert(now);
                v.serial = serial;
                let before = std::mem::take(&mut v.end);
                Some((
                    serial,
                    v.length - v.position(now),
                    before,
                    Arc::clone(&v.end),
                ))
            });
            if let Some((serial, rest, before, end)) = &resumed {
                wake(sim, Some(before));
                finish_later(sim, *serial, after(now, *rest), Arc::clone(end));
            }
            Value::Bool(resumed.is_some())
        }
        "stopVideo" => {
            let closed = with(sim, |p| p.video.take());
            wake(sim, closed.as_ref().map(|v| &*v.end));
            Value::Bool(closed.is_some())
        }
        "getVideoLength" => Value::Int(with(sim, |p| {
            p.video.as_ref().map_or(-1, |v| millis(v.length))
        })),
        "getVideoPosition" => Value::Int(with(sim, |p| {
            p.video.as_ref().map_or(-1, |v| millis(v.position(now)))
        })),
        _ => return Ok(Reply::NotServed),
    };
    if method != "getVideoLength" && method != "getVideoPosition" && value == Value::Bool(true) {
        let text = match method {
            "playVideo" => format!("plays video {}", a.str(0)?),
            _ => method.trim_end_matches("Video").to_string() + "s the video",
        };
        sim.notice(TABLET, text);
    }
    Ok(Reply::Now(value))
}

fn millis(seconds: f64) -> i64 {
    (seconds * 1000.0).round() as i64
}

/// Opens `url` in the player and plays it from its start.
fn play(sim: &Sim, url: &str) {
    let length = match length(sim, url) {
        Ok(seconds) => seconds,
        Err(why) => {
            sim.notice(
                TABLET,
                format!(
                    "cannot read the length of video {url} ({why}): it plays {DEFAULT_SECONDS} s"
                ),
            );
            DEFAULT_SECONDS
        }
    };
    let now = sim.now();
    let end = Arc::new(Nap::default());
    let (serial, before) = with(sim, |p| {
        p.serials += 1;
        let before = p.video.replace(Video {
            serial: p.serials,
            length,
            from: 0.0,
            since: Some(now),
            end: Arc::clone(&end),
        });
        (p.serials, before)
    });
    wake(sim, before.as_ref().map(|v| &*v.end));
    sim.emit(TABLET, "videoStarted", Vec::new());
    finish_later(sim, serial, after(now, length), end);
}

/// The length in seconds of the video at `url`, or why it cannot be read.
fn length(sim: &Sim, url: &str) -> Result<f64, &'static str> {
    let robot = choreo_robot::paths::tablet_page(url).ok_or("not a package's page")?;
    let file = sim
        .robot_file(&robot)
        .ok_or("no package folder in this run")?;
    if !file.is_file() {
        return Err("not in the package's html folder");
    }
    media::video_length(&file).ok_or("not a video the demuxers read")
}

/// Cuts short the sleep of `nap`, if any: its play no longer ends then.
fn wake(sim: &Sim, nap: Option<&Nap>) {
    if let (Some(nap), Ok(time)) = (nap, sim.time()) {
        time.wake_nap(nap);
    }
}

/// At `end`, the video of play `serial` ends, if it still plays then: the player closes and
/// `videoFinished` is emitted. The wait is `nap`, which a pause, a resume or a close cuts.
fn finish_later(sim: &Sim, serial: u64, end: Time, nap: Arc<Nap>) {
    let (Some(me), Ok(time)) = (sim.arc(), sim.time()) else {
        return;
    };
    let spawned = time.clone().spawn("video", move || {
        time.nap_until(end, &nap);
        let ended = with(&me, |p| {
            let playing = p
                .video
                .as_ref()
                .is_some_and(|v| v.serial == serial && v.since.is_some());
            if playing {
                p.video = None;
            }
            playing
        });
        if ended {
            me.notice(TABLET, "the video ends".to_string());
            me.emit(TABLET, "videoFinished", Vec::new());
        }
    });
    if let Err(e) = spawned {
        sim.script_error(format!("ALTabletService: the video cannot play: {e}"));
    }
}
