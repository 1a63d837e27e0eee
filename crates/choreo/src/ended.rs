//! How box code's process ended, in the report's words: a signal's name and usual cause,
//! the box frame of a fatal error's dump (the supervising parent's report, and the box
//! host's end).

/// How box code's own process (the box host) ended, from its exit status.
pub(crate) fn described(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    match (status.code(), signal) {
        (Some(code), _) => format!(
            "box code's process exited with code {code} before the run ended: box code ended \
             it (os._exit, or exit from native code)"
        ),
        (None, Some(signal)) => format!(
            "box code's process was killed by signal {signal} ({}){}",
            signal_name(signal),
            signal_cause(signal)
        ),
        (None, None) => "box code's process ended before the run did".to_string(),
    }
}

/// How a box host ended, in the report's words, when it ended before choreo let it go
/// (box code ended it, or choreo stopped it); `None` while it runs or once let go.
pub(crate) fn box_host_how(ended: &choreo_python::remote::Ended) -> Option<String> {
    if ended.let_go || (ended.status.is_none() && ended.stopped.is_none()) {
        return None;
    }
    Some(match (&ended.stopped, ended.status) {
        _ if ended.out_of_time => "timeout; box code did not give the run back in time \
                                   after --timeout, so its process was stopped"
            .to_string(),
        (Some(why), _) => format!("choreo stopped box code's process: it {why}"),
        (None, Some(status)) => described(status),
        (None, None) => "box code's process ended before the run did".to_string(),
    })
}

/// What usually sends `signal` to a run.
#[cfg(unix)]
pub(crate) fn signal_cause(signal: i32) -> &'static str {
    use nix::sys::signal::Signal;
    match Signal::try_from(signal) {
        Ok(Signal::SIGSEGV | Signal::SIGBUS | Signal::SIGILL | Signal::SIGFPE) => {
            ": a fatal error in native code box code called (ctypes, a C extension)"
        }
        Ok(Signal::SIGABRT) => ": native code aborted",
        _ => ": box code, or another program, sent it",
    }
}

/// A signal's name (`SIGSEGV`).
#[cfg(unix)]
pub(crate) fn signal_name(signal: i32) -> &'static str {
    nix::sys::signal::Signal::try_from(signal).map_or("unknown", |s| s.as_str())
}

/// Windows has no signals: a process ends with a code.
#[cfg(not(unix))]
pub(crate) fn signal_cause(_signal: i32) -> &'static str {
    ""
}

/// Windows has no signals (see the Unix one).
#[cfg(not(unix))]
pub(crate) fn signal_name(_signal: i32) -> &'static str {
    "unknown"
}

/// The innermost frame of box code in a fatal error's dump (faulthandler's: `File "root/Box",
/// line 4 in onInput_onStart`), the current thread's first: `root/Box line 4
/// (onInput_onStart)`. Box code's files are box paths; Python's own and the shims' are not.
pub(crate) fn box_frame(dump: &str) -> Option<String> {
    let current = dump.find("Current thread").map_or(dump, |at| &dump[at..]);
    [current, dump].iter().find_map(|text| {
        text.lines().find_map(|line| {
            let rest = line.trim().strip_prefix("File \"")?;
            let (file, rest) = rest.split_once('"')?;
            let rest = rest.trim().strip_prefix(", line ")?;
            let (line_no, function) = rest.split_once(" in ")?;
            let ours =
                file.starts_with('/') || file.starts_with('<') || file.starts_with("choreo/");
            (!ours).then(|| format!("{file} line {line_no} ({function})"))
        })
    })
}
