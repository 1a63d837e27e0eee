//! The arguments several commands share: the robot model, a real robot to reach (its URL
//! and credentials), and the parsers of numbers and addresses that refuse bad values before
//! anything is loaded; `--monitor` ([`monitor`]) and `--sandbox` ([`sandbox`]) with what
//! they do around a command.

pub(crate) mod monitor;
pub(crate) mod sandbox;

use std::path::PathBuf;

/// The robot models `--robot-model` accepts.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum ModelArg {
    // No doc comments: clap would show them in `--help`.
    Nao,
    Pepper,
}

impl ModelArg {
    /// The model, as the robot crates name it.
    pub(crate) fn model(self) -> choreo_naoqi::Model {
        match self {
            ModelArg::Nao => choreo_naoqi::Model::Nao,
            ModelArg::Pepper => choreo_naoqi::Model::Pepper,
        }
    }
}

/// The longest `--timeout`, in seconds: 10 years, far inside what `Duration` and the engine's
/// clock (nanoseconds in a `u64`, about 584 years) hold.
pub(crate) const MAX_TIMEOUT_SECS: f64 = 10.0 * 365.0 * 86_400.0;

/// `--lang`: a language by its NAOqi name, QiChat code or locale.
pub(crate) fn language_arg(
    text: &str,
) -> Result<&'static choreo_robot::languages::Language, String> {
    use choreo_robot::languages::{LANGUAGES, by_code, by_locale, by_name};
    by_name(text)
        .or_else(|| by_code(text))
        .or_else(|| by_locale(text))
        .ok_or_else(|| {
            let names: Vec<&str> = LANGUAGES.iter().map(|l| l.name).collect();
            format!("no language {text:?} (one of: {})", names.join(", "))
        })
}

/// `--start-time`: a UTC date and time, as milliseconds since the Unix epoch.
pub(crate) fn start_time(text: &str) -> Result<u64, String> {
    choreo_robot::calendar::parse_utc(text)
        .ok_or_else(|| format!("{text}: not a UTC date and time after 1970 (2026-03-01T18:30:00Z)"))
}

/// `--timeout`: a number of seconds, more than 0 and at most [`MAX_TIMEOUT_SECS`].
pub(crate) fn timeout_secs(text: &str) -> Result<f64, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| "expected a number of seconds".to_string())?;
    if !secs.is_finite() {
        Err("expected a finite number of seconds".to_string())
    } else if secs <= 0.0 {
        Err("expected more than 0 seconds".to_string())
    } else if secs > MAX_TIMEOUT_SECS {
        Err(format!(
            "expected at most {MAX_TIMEOUT_SECS} seconds (10 years)"
        ))
    } else {
        Ok(secs)
    }
}

/// `--max-memory`: bytes, with an optional binary suffix (`512M`, `4G`), at least 64 MiB
/// (less could not even start Python).
pub(crate) fn memory_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().last() {
        Some((at, c)) if c.is_ascii_alphabetic() => (&text[..at], c.to_ascii_uppercase()),
        _ => (text, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => return Err("expected bytes, or a size like 512M or 4G".to_string()),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| "expected bytes, or a size like 512M or 4G".to_string())?;
    let bytes = n
        .checked_mul(1u64 << shift)
        .ok_or_else(|| "too large".to_string())?;
    if bytes < 64 << 20 {
        return Err("expected at least 64M".to_string());
    }
    Ok(bytes)
}

/// `--robot`: a qi URL whose port, if given, is 1 to 65535.
pub(crate) fn robot_url(text: &str) -> Result<String, String> {
    match qi_port(text)? {
        Some(0) => Err("port 0: expected a port from 1 to 65535".to_string()),
        _ => Ok(text.to_string()),
    }
}

/// `--listen`: a qi URL whose port, if given, is 0 (any free port) to 65535.
pub(crate) fn listen_url(text: &str) -> Result<String, String> {
    qi_port(text).map(|_| text.to_string())
}

/// Checks `tcp://HOST[:PORT]`, `tcps://HOST[:PORT]` or `HOST[:PORT]` (the forms the qi
/// session reads) and returns its port, if it has one. IPv6 hosts take brackets to have a
/// port (`[::1]:9559`); a bare one (`::1`) has none.
pub(crate) fn qi_port(text: &str) -> Result<Option<u16>, String> {
    let rest = match text.split_once("://") {
        Some(("tcp" | "tcps", rest)) => rest,
        Some((scheme, _)) => {
            return Err(format!("unknown scheme {scheme}:// (tcp:// or tcps://)"));
        }
        None => text,
    };
    let authority = rest.trim_end_matches('/');
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        match bracketed.split_once(']') {
            Some((host, "")) => (host, None),
            Some((host, tail)) => match tail.strip_prefix(':') {
                Some(port) => (host, Some(port)),
                None => return Err(format!("unexpected {tail:?} after the address")),
            },
            None => return Err("no ] after the IPv6 address".to_string()),
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) if !port.contains(':') => (host, Some(port)),
            _ => (authority, None),
        }
    };
    if host.is_empty() {
        return Err("no host".to_string());
    }
    port.map(|p| {
        p.parse::<u16>()
            .map_err(|_| format!("port {p:?}: expected a port from 0 to 65535"))
    })
    .transpose()
}

/// How to reach a real robot (`run`, `stack run`).
#[derive(clap::Args)]
pub(crate) struct RobotFlags {
    /// Run on a real robot over qi (`tcp://HOST:9559`, or `tcps://HOST:9503` for
    /// NAOqi 2.9 with TLS) instead of the simulated one. `run`: repeat it to run on a fleet.
    #[arg(long, value_name = "URL", value_parser = robot_url)]
    pub(crate) robot: Vec<String>,
    /// `run`: a fleet's robots, one URL a line (`#` starts a comment), after any `--robot`.
    #[arg(long, value_name = "FILE")]
    pub(crate) robots: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) credentials: Credentials,
}

/// How a robot is authenticated and its certificate checked (`run`, `stack run`, `robot`).
#[derive(clap::Args)]
pub(crate) struct Credentials {
    /// The user to authenticate as (NAOqi 2.9: `nao`).
    #[arg(long)]
    pub(crate) user: Option<String>,
    /// The token (NAOqi 2.9: the robot's password).
    #[arg(long)]
    pub(crate) token: Option<String>,
    /// `tcps://`: accept only this certificate (SHA-256 fingerprint, as
    /// `openssl x509 -noout -fingerprint -sha256` prints it). Without it any certificate
    /// is accepted, as libqi does: the link is encrypted but the robot not authenticated.
    #[arg(long, value_name = "SHA256")]
    pub(crate) pin: Option<String>,
}

impl Credentials {
    /// The robot at `url`, with these credentials.
    pub(crate) fn robot(&self, url: String) -> RobotArgs {
        RobotArgs {
            url,
            user: self.user.clone(),
            token: self.token.clone(),
            pin: self.pin.clone(),
        }
    }
}

impl RobotFlags {
    /// The robots asked for (none: the simulated one); every robot gets the credentials.
    pub(crate) fn args(&self) -> Result<Vec<RobotArgs>, String> {
        let mut urls = self.robot.clone();
        if let Some(file) = &self.robots {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("--robots {}: {e}", file.display()))?;
            for (n, line) in text.lines().enumerate() {
                let url = line.split('#').next().unwrap_or_default().trim();
                if url.is_empty() {
                    continue;
                }
                urls.push(
                    robot_url(url)
                        .map_err(|e| format!("--robots {}:{}: {e}", file.display(), n + 1))?,
                );
            }
            if urls.is_empty() {
                return Err(format!("--robots {}: no robot in it", file.display()));
            }
        }
        let c = &self.credentials;
        if urls.is_empty() && (c.user.is_some() || c.token.is_some() || c.pin.is_some()) {
            return Err("--user, --token and --pin are for a robot: give --robot URL".into());
        }
        Ok(urls.into_iter().map(|url| c.robot(url)).collect())
    }
}

/// Where `choreo robot` connects: a qi URL, and the credentials of NAOqi 2.9.
#[derive(clap::Args)]
pub(crate) struct RobotTarget {
    /// The robot: `tcp://HOST:9559`, or `tcps://HOST:9503` for NAOqi 2.9 with TLS.
    #[arg(value_name = "URL", value_parser = robot_url)]
    pub(crate) url: String,
    #[command(flatten)]
    pub(crate) credentials: Credentials,
    /// Print JSON instead of lines.
    #[arg(long)]
    pub(crate) json: bool,
}

impl RobotTarget {
    /// The robot to reach, and whether to print JSON.
    pub(crate) fn split(self) -> (RobotArgs, bool) {
        (self.credentials.robot(self.url), self.json)
    }
}

/// How to reach a real robot.
pub(crate) struct RobotArgs {
    /// `tcp://HOST:PORT` or `tcps://HOST:PORT`.
    pub(crate) url: String,
    /// Authentication user (NAOqi 2.9).
    pub(crate) user: Option<String>,
    /// Authentication token (NAOqi 2.9).
    pub(crate) token: Option<String>,
    /// The SHA-256 fingerprint the robot's TLS certificate must have.
    pub(crate) pin: Option<String>,
}

impl RobotArgs {
    /// The session options these ask for.
    pub(crate) fn options(&self) -> Result<choreo_qi::SessionOptions, String> {
        let tls = match &self.pin {
            Some(pin) => choreo_qi::TlsVerify::Pinned(vec![
                pin.parse::<choreo_qi::Fingerprint>()
                    .map_err(|e| format!("--pin {pin}: {e}"))?,
            ]),
            None => choreo_qi::TlsVerify::AcceptAny,
        };
        Ok(choreo_qi::SessionOptions {
            user: self.user.clone(),
            token: self.token.clone(),
            tls,
            ..choreo_qi::SessionOptions::default()
        })
    }
}
