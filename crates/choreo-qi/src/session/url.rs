//! qi URLs: `tcp://host:port`, `tcps://host:port`, or a bare `host[:port]`, with NAOqi's
//! default ports.

use crate::error::{Error, Result};

/// A parsed qi URL: `tcp://host:port` or `tcps://host:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QiUrl {
    /// `tcps`: TLS.
    pub tls: bool,
    /// `host:port` (an IPv6 host in brackets).
    pub address: String,
}

impl QiUrl {
    /// The host without the port.
    pub fn host(&self) -> &str {
        self.address
            .rsplit_once(':')
            .map_or(self.address.as_str(), |(h, _)| h)
    }

    /// The URL written back (`tcp://host:port` or `tcps://host:port`).
    pub fn url(&self) -> String {
        format!(
            "{}://{}",
            if self.tls { "tcps" } else { "tcp" },
            self.address
        )
    }
}

/// Default port of `tcp://` URLs (NAOqi).
pub const DEFAULT_TCP_PORT: u16 = 9559;
/// Default port of `tcps://` URLs (NAOqi 2.9's Pepper).
pub const DEFAULT_TCPS_PORT: u16 = 9503;

/// Parses `tcp://host[:port]`, `tcps://host[:port]`, or a bare `host[:port]` (tcp); the port
/// defaults to 9559 for tcp and 9503 for tcps.
pub fn parse_url(url: &str) -> Result<QiUrl> {
    let (tls, rest) = if let Some(rest) = url.strip_prefix("tcp://") {
        (false, rest)
    } else if let Some(rest) = url.strip_prefix("tcps://") {
        (true, rest)
    } else if url.contains("://") {
        return Err(Error::Url {
            url: url.to_string(),
            reason: "unknown scheme (tcp:// or tcps://)".to_string(),
        });
    } else {
        (false, url)
    };
    let rest = rest.trim_end_matches('/');
    if rest.is_empty() {
        return Err(Error::Url {
            url: url.to_string(),
            reason: "no host".to_string(),
        });
    }
    let has_port = rest
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        && !rest.ends_with(']');
    let address = if has_port {
        rest.to_string()
    } else {
        let port = if tls {
            DEFAULT_TCPS_PORT
        } else {
            DEFAULT_TCP_PORT
        };
        format!("{rest}:{port}")
    };
    Ok(QiUrl { tls, address })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_url_is_its_own_error_naming_the_url() {
        let e = parse_url("udp://robot:9559").err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("bad URL udp://robot:9559: unknown scheme (tcp:// or tcps://)")
        );
        assert!(
            matches!(parse_url("tcp://"), Err(Error::Url { reason, .. }) if reason == "no host")
        );
        assert_eq!(
            parse_url("robot").ok().map(|u| u.url()),
            Some("tcp://robot:9559".to_string())
        );
    }
}
