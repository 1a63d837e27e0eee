//! A simulated robot served over qi messaging (`choreo sim`): the address of each robot of
//! a fleet, and the log of the calls it receives.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex};

use choreo_engine::trace::Step;
use choreo_engine::{Activity, Trace};
use choreo_qi::{CallLog, CallReport};

use crate::report::fold::Line;
use crate::report::live::{Kind, Live};

/// Why a fleet's addresses cannot be made from the one given.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadAddress(pub String);

/// The URL of robot `index` (from 0): `listen` with its port moved up by `index` (port 0
/// stays 0: any free port).
pub fn nth_url(listen: &str, index: u16) -> Result<String, BadAddress> {
    nth(listen, index).map_err(BadAddress)
}

fn nth(listen: &str, index: u16) -> Result<String, String> {
    if index == 0 {
        return Ok(listen.to_string());
    }
    let url = choreo_qi::session::parse_url(listen).map_err(|e| e.to_string())?;
    let (host, port) = url
        .address
        .rsplit_once(':')
        .ok_or_else(|| format!("{listen}: no port"))?;
    let port: u16 = port
        .parse()
        .map_err(|_| format!("{listen}: bad port {port}"))?;
    let port = if port == 0 {
        0
    } else {
        port.checked_add(index).ok_or_else(|| {
            format!(
                "{listen}: robot {} would need a port above 65535",
                index + 1
            )
        })?
    };
    let scheme = if url.tls { "tcps" } else { "tcp" };
    Ok(format!("{scheme}://{host}:{port}"))
}

/// Whether `url` listens on the loopback interface only (`localhost`, `127.x`, `::1`).
pub fn loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.rsplit_once(':').map_or(rest, |(h, _)| h);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The log of robot number `robot`'s calls: each shown live (`who` before it), recorded in
/// `trace` for the monitor, and written to the calls file as a JSON line.
pub fn call_log(
    live: &Live,
    time: &Arc<Activity>,
    who: &str,
    robot: u16,
    file: Option<Arc<Mutex<BufWriter<File>>>>,
    trace: Option<Trace>,
) -> CallLog {
    let (live, time, who) = (live.clone(), Arc::clone(time), who.to_string());
    Arc::new(move |c: &CallReport<'_>| {
        if let Some(trace) = &trace {
            // For the monitor: each call and how it ended, at the robot's time.
            let (at, method) = (time.now(), format!("{}.{}", c.service, c.method));
            let args = c.args.to_vec();
            trace.record(
                at,
                "",
                Step::RobotCall {
                    method: method.clone(),
                    args,
                },
            );
            trace.record(at, "", Step::returned(method, c.result));
        }
        let args: Vec<String> = c.args.iter().map(ToString::to_string).collect();
        let result = match c.result {
            Ok(v) => format!("-> {v}"),
            Err(e) => format!("-> error: {e}"),
        };
        live.line(
            time.now(),
            Kind::Info,
            Line::call(
                format!("{who}{}.{}", c.service, c.method),
                format!("({}) {result}", args.join(", ")),
            ),
        );
        if let Some(file) = &file {
            // Wall-clock seconds: calls of robots served by several processes compare.
            let unix = |at: std::time::SystemTime| {
                at.duration_since(std::time::UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64())
            };
            let line = serde_json::json!({
                "t": unix(c.received),
                "done": unix(std::time::SystemTime::now()),
                "robot": robot,
                "method": format!("{}.{}", c.service, c.method),
                "args": c.args,
            });
            if let Ok(mut w) = file.lock() {
                // Each line as it comes (the file can be watched); a full disk shows at the
                // final flush.
                let _ = writeln!(w, "{line}").and_then(|()| w.flush());
            }
        }
    })
}
