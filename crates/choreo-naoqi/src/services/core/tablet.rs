//! ALTabletService (Pepper's tablet): what it shows. The page (a URL or an application's
//! page), the image and the video shown, the background colour, brightness and volume are
//! kept and read back; every change is shown to the observer. `robotIp()` is the address
//! the tablet reaches the robot at (Pepper's internal link, 198.18.0.1), which scripts use
//! to build their pages' URLs. Its video player is `video_player.rs`.

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim, first_served};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};
use crate::services::core::video_player;

/// The address the tablet reaches the robot at.
const ROBOT_IP: &str = choreo_robot::paths::TABLET_ROBOT_IP;

/// ALTabletService as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALTabletService",
    methods: &[
        ("robotIp", Op::Answer(Const::Str(ROBOT_IP))),
        ("getRobotIp", Op::Answer(Const::Str(ROBOT_IP))),
        ("showWebview", Op::Own),
        ("hideWebview", Op::Own),
        ("loadUrl", Op::Own),
        ("loadApplication", Op::Own),
        ("reloadPage", Op::Own),
        ("cleanWebview", Op::Own),
        ("executeJS", Op::Own),
        (
            "enableWebviewTouch",
            Op::Put("WebviewTouch", Const::Bool(true)),
        ),
        (
            "disableWebviewTouch",
            Op::Put("WebviewTouch", Const::Bool(false)),
        ),
        ("showImage", Op::Own),
        ("showImageNoCache", Op::Own),
        ("preLoadImage", Op::Own),
        ("hideImage", Op::Own),
        ("playVideo", Op::Own),
        ("pauseVideo", Op::Own),
        ("resumeVideo", Op::Own),
        ("stopVideo", Op::Own),
        ("getVideoLength", Op::Own),
        ("getVideoPosition", Op::Own),
        (
            "setBackgroundColor",
            Op::Set("BackgroundColor", Const::Bool(true)),
        ),
        ("setBrightness", Op::Set("Brightness", Const::Bool(true))),
        ("getBrightness", Op::Get("Brightness", Const::Float(1.0))),
        ("setVolume", Op::Set("Volume", Const::Bool(true))),
        ("getVolume", Op::Get("Volume", Const::Int(50))),
        ("turnScreenOn", Op::Set("ScreenOn", Const::None)),
        ("wakeUp", Op::Put("ScreenOn", Const::Bool(true))),
        ("goToSleep", Op::Put("ScreenOn", Const::Bool(false))),
        ("resetTablet", Op::Own),
    ],
    own,
    extractor: None,
};

/// What the tablet shows.
#[derive(Default)]
struct Screen {
    /// The page loaded, and whether the web view is shown.
    url: Option<String>,
    webview: bool,
    /// The image shown, and those preloaded.
    image: Option<String>,
    preloaded: Vec<String>,
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    first_served(&[screen, video_player::serve], sim, method, a)
}

/// Serves what the screen shows (pages, images); `NotServed` for another method.
fn screen(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let mut shown = None;
    let value = match method {
        "showWebview" => {
            let url = if a.len() > 0 {
                Some(a.str(0)?.to_string())
            } else {
                None
            };
            shown = Some(match &url {
                Some(u) => format!("shows web page {u}"),
                None => "shows the web view".to_string(),
            });
            sim.kept("ALTabletService", |s: &mut Screen| {
                if url.is_some() {
                    s.url = url;
                }
                s.webview = true;
            });
            Value::Bool(true)
        }
        "loadUrl" | "loadApplication" => {
            let arg = a.str(0)?;
            let url = if method == "loadApplication" {
                format!("http://{ROBOT_IP}/apps/{}/", arg.trim_end_matches('/'))
            } else {
                arg.to_string()
            };
            shown = Some(format!("loads {url}"));
            sim.kept("ALTabletService", |s: &mut Screen| s.url = Some(url));
            Value::Bool(true)
        }
        "hideWebview" => {
            shown = Some("hides the web view".to_string());
            sim.kept("ALTabletService", |s: &mut Screen| s.webview = false);
            Value::Bool(true)
        }
        "cleanWebview" => {
            sim.kept("ALTabletService", |s: &mut Screen| s.url = None);
            Value::None
        }
        "reloadPage" => {
            a.bool(0)?;
            Value::None
        }
        "executeJS" => {
            shown = Some(format!("runs JavaScript ({} bytes)", a.str(0)?.len()));
            Value::None
        }
        "showImage" | "showImageNoCache" => {
            let url = a.str(0)?.to_string();
            shown = Some(format!("shows image {url}"));
            sim.kept("ALTabletService", |s: &mut Screen| s.image = Some(url));
            Value::Bool(true)
        }
        "preLoadImage" => {
            let url = a.str(0)?.to_string();
            sim.kept("ALTabletService", |s: &mut Screen| s.preloaded.push(url));
            Value::Bool(true)
        }
        "hideImage" => {
            shown = Some("hides the image".to_string());
            sim.kept("ALTabletService", |s: &mut Screen| s.image = None);
            Value::None
        }
        "resetTablet" => {
            shown = Some("resets".to_string());
            sim.kept("ALTabletService", |s: &mut Screen| *s = Screen::default());
            video_player::serve(sim, "stopVideo", a)?;
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    if let Some(text) = shown {
        sim.notice("ALTabletService", text);
    }
    Ok(Reply::Now(value))
}
