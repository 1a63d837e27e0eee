//! The robots `choreo sim` serves: each built, served on its address, watched on the
//! monitor, its calls logged.

use std::fs::File;
use std::io::BufWriter;
use std::sync::{Arc, Mutex};

use choreo_engine::{Activity, Robot, Trace};
use choreo_monitor::Monitor;
use choreo_naoqi::{Model, RobotEvent, SimRobot};
use choreo_qi::{Pem, RobotServer, ServerOptions, ServerTls};

use crate::cli::args::ModelArg;
use crate::cli::args::monitor::{MonitorFlags, Source};
use crate::cli::error::{CliError, CliResult};
use crate::looks::Sampler;
use crate::report::live::{Live, Verbosity};

use super::args::SimArgs;

/// An empty behavior: what the monitor of a served robot draws (no diagram; the robot,
/// the calls it receives).
const NO_BEHAVIOR: &str = r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">
</Box></ChoregrapheProject>"#;

/// The monitor of a served robot: its page, the trace that feeds it (calls as
/// `robot_call`/`robot_return`, what the robot shows), the joints sampled.
pub(super) struct Watching {
    pub(super) monitor: Arc<Monitor>,
    trace: Trace,
    pub(super) sampler: Option<Sampler>,
}

/// One served robot.
pub(super) struct Served {
    pub(super) robot: Arc<SimRobot>,
    pub(super) server: RobotServer,
}

/// What every served robot shares: the arguments, the clock, the scenario, the calls file
/// and the live output.
pub(super) struct Fleet<'a> {
    pub(super) args: &'a SimArgs,
    model: Model,
    tls: Option<ServerTls>,
    /// The user and token clients must authenticate with, if any ([`credentials`]).
    credentials: Option<(String, String)>,
    pub(super) time: Arc<Activity>,
    scenario: Option<choreo_naoqi::Scenario>,
    pub(super) calls: Option<Arc<Mutex<BufWriter<File>>>>,
    pub(super) live: Live,
}

impl<'a> Fleet<'a> {
    /// Everything read and opened before the first robot is served.
    pub(super) fn new(args: &'a SimArgs) -> CliResult<Fleet<'a>> {
        let time = Activity::real()
            .map_err(|e| CliError::Robot(format!("cannot start the clock: {e}")))?;
        let scenario = match &args.events {
            Some(file) => Some(
                choreo_naoqi::Scenario::from_path(file)
                    .map_err(|e| CliError::Load(e.to_string()))?,
            ),
            None => None,
        };
        let calls = match &args.calls {
            Some(path) => match File::create(path) {
                Ok(f) => Some(Arc::new(Mutex::new(BufWriter::new(f)))),
                Err(e) => return Err(CliError::Usage(format!("{}: {e}", path.display()))),
            },
            None => None,
        };
        if args.monitor.monitor.is_some() && args.count > 1 {
            return Err(CliError::Usage(
                "--monitor shows one robot: not a fleet's (yet)".to_string(),
            ));
        }
        if !args.latency.is_empty() && args.listen.starts_with("tcps:") {
            return Err(CliError::Usage(
                "--latency delays tcp:// connections only (not tcps://)".to_string(),
            ));
        }
        Ok(Fleet {
            args,
            model: args.robot_model.map_or(Model::Nao, ModelArg::model),
            credentials: credentials(args)?,
            tls: args
                .cert
                .clone()
                .zip(args.key.clone())
                .map(|(certificate, key)| ServerTls {
                    certificate: Pem::File(certificate),
                    key: Pem::File(key),
                }),
            time,
            scenario,
            calls,
            live: Live::new(Verbosity::from_flags(args.quiet, false), false),
        })
    }

    /// Serves robot `index` (from 0); the first one is watched by the monitor when asked
    /// (`watching`).
    pub(super) fn serve(&self, index: u16, watching: &mut Option<Watching>) -> CliResult<Served> {
        let args = self.args;
        let who = if args.count > 1 {
            format!("robot {}: ", index + 1)
        } else {
            String::new()
        };
        let url = crate::served::nth_url(&args.listen, index).map_err(|e| CliError::Usage(e.0))?;
        let robot = Arc::new(SimRobot::new(self.model));
        // Real time: a `say` takes as long as on the robot.
        robot.attach(Arc::clone(&self.time));
        // It reports the version of the generation whose dialect it speaks.
        if let Some(version) = choreo_robot::naoqi::Version::from_name(args.naoqi.name()) {
            robot.set_naoqi(version);
        }
        if let Some(s) = &self.scenario {
            robot.load_scenario(s.clone());
        }
        if index == 0 {
            *watching = watch(&args.monitor, &robot)?;
        }
        {
            let (live, time, who) = (self.live.clone(), Arc::clone(&self.time), who.clone());
            let shows = watching
                .as_ref()
                .map(|w| (w.trace.clone(), SimRobot::clone(&robot)));
            robot.set_observer(Arc::new(move |e: &RobotEvent| {
                let at = time.now();
                live.robot_event_of(&who, at, e);
                if let Some((trace, robot)) = &shows {
                    crate::looks::record(trace, robot, at, e);
                }
            }));
        }
        let trace = watching.as_ref().map(|w| w.trace.clone());
        let log = crate::served::call_log(
            &self.live,
            &self.time,
            &who,
            index + 1,
            self.calls.clone(),
            trace,
        );
        let latency = args
            .latency
            .get(usize::from(index) % args.latency.len().max(1))
            .copied();
        let options = ServerOptions {
            tls: self.tls.clone(),
            credentials: self.credentials.clone(),
            generation: args.naoqi,
            latency,
            ..ServerOptions::default()
        };
        let server = choreo_qi::serve_robot(
            Arc::clone(&robot) as Arc<dyn Robot>,
            &url,
            Some(log),
            options,
        )
        .map_err(|e| CliError::Robot(format!("{url}: cannot serve: {e}")))?;
        errln!(
            "{who}serving a simulated {} (NAOqi {} dialect{}) at {}{}",
            self.model.name(),
            args.naoqi,
            latency.map_or(String::new(), |l| format!(", {l} away")),
            server.url,
            match (args.count, &self.credentials) {
                (1, None) => ": any qi client can drive it; Ctrl-C stops",
                (1, Some(_)) => ": qi clients that authenticate can drive it; Ctrl-C stops",
                _ => "",
            }
        );
        if index == 0 {
            self.say_access();
        }
        Ok(Served { robot, server })
    }

    /// How clients get in, said once: the credentials they need, or that anyone may.
    fn say_access(&self) {
        let args = self.args;
        if let Some((user, token)) = &self.credentials {
            errln!(
                "clients authenticate as user {user} with token {token} (robot options \
                 --user/--token; `choreo sim --no-auth` serves openly)"
            );
        } else if args.no_auth && !crate::served::loopback(&args.listen) {
            errln!(
                "serving without authentication (--no-auth): any machine that reaches the \
                 port drives the robot"
            );
        }
    }
}

/// The user and token clients must authenticate with: beyond loopback always (a random
/// token unless `--token`), as a NAOqi 2.9 robot asks, unless `--no-auth`; on loopback only
/// when `--token` is given. NAOqi 2.1's protocol has no authentication: beyond loopback it
/// is served openly only with `--no-auth`.
fn credentials(args: &SimArgs) -> CliResult<Option<(String, String)>> {
    if args.no_auth || (crate::served::loopback(&args.listen) && args.token.is_none()) {
        return Ok(None);
    }
    if args.naoqi == choreo_qi::Generation::V2_1 {
        return Err(CliError::Usage(
            "NAOqi 2.1's protocol has no authentication: serving it beyond loopback needs \
             --no-auth"
                .to_string(),
        ));
    }
    let token = match &args.token {
        Some(token) => token.clone(),
        None => {
            let mut bytes = [0u8; 16];
            getrandom::fill(&mut bytes)
                .map_err(|e| CliError::Runtime(format!("cannot make a random token: {e}")))?;
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        }
    };
    Ok(Some((args.user.clone(), token)))
}

/// The monitor of the served `robot`, when asked: its page's URL printed.
fn watch(flags: &MonitorFlags, robot: &SimRobot) -> CliResult<Option<Watching>> {
    if flags.monitor.is_none() {
        return Ok(None);
    }
    let xar = choreo_xar::read_xar("robot.xar", NO_BEHAVIOR.as_bytes())
        .map_err(|e| {
            CliError::Runtime(format!(
                "internal error: the empty behavior does not read: {e}"
            ))
        })?
        .value;
    let model = robot.model().name();
    let monitor = crate::cli::args::monitor::start(
        flags,
        &choreo_engine::graph::Graph::new(&xar),
        &format!("simulated {model}"),
        Some(&model.to_lowercase()),
        Source::Run(Vec::new()),
    )?;
    Ok(monitor.map(|monitor| {
        let trace = Trace::unkept(None);
        crate::cli::args::monitor::feed(&monitor, &trace);
        Watching {
            sampler: Sampler::start(SimRobot::clone(robot), trace.clone()),
            monitor,
            trace,
        }
    }))
}
