//! The report of a run that box code ended (`os._exit`, a signal, a hook that never gave the
//! run back), as the supervising parent prints it (docs/security.md).

use std::time::Duration;

use choreo_sandbox::supervisor::{Ended, Exit};

/// The report of a run box code ended: how, where, what was left (`left`: a line of the
/// processes killed, or nothing); after the report the child printed (box code ended the
/// process once the run was over), its last lines. `grace`: the real time box code had
/// past `--timeout`.
pub fn abnormal(ended: &Ended, left: &str, grace: Duration) -> String {
    let how = match (ended.out_of_time, ended.exit) {
        (true, _) => format!(
            "stopped: timeout; box code did not give the run back within {} s of real time \
             after --timeout, so the process was killed",
            grace.as_secs()
        ),
        (false, Exit::Code(code)) => format!(
            "the run's process exited with code {code} before the run ended: box code \
             ended it (os._exit, or exit from native code)"
        ),
        (false, Exit::Signal(signal)) => format!(
            "the run's process was killed by signal {signal} ({}){}",
            crate::ended::signal_name(signal),
            crate::ended::signal_cause(signal)
        ),
    };
    let mut o = if ended.report {
        format!("  afterwards     {how}\n")
    } else {
        format!("run report\n  outcome        {how}\n")
    };
    let mut wheres: Vec<String> = ended.notes.clone();
    if let Some(at) = crate::ended::box_frame(&ended.fault) {
        wheres.push(at);
    }
    for (i, at) in wheres.iter().enumerate() {
        o.push_str(&format!(
            "  {:<14} {at}\n",
            if i == 0 { "where" } else { "" }
        ));
    }
    o.push_str(left);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(exit: Exit, report: bool) -> Ended {
        Ended {
            exit,
            report,
            output_closed: false,
            done: None,
            notes: vec!["root/Box line 4 (onInput_onStart): os._exit(0)".to_string()],
            fault: String::new(),
            out_of_time: false,
            left_behind: 0,
        }
    }

    #[test]
    fn the_report_says_how_box_code_ended_the_run_and_where() {
        // os._exit(0) before the report: located.
        let text = abnormal(&ended(Exit::Code(0), false), "", Duration::from_secs(30));
        assert!(
            text.starts_with("run report\n  outcome        the run's process exited with code 0"),
            "{text}"
        );
        assert!(
            text.contains("  where          root/Box line 4 (onInput_onStart): os._exit(0)"),
            "{text}"
        );
        // A crash once the report was printed: a line that follows it.
        let after = abnormal(&ended(Exit::Signal(11), true), "", Duration::from_secs(30));
        assert!(
            after.starts_with(
                "  afterwards     the run's process was killed by signal 11 (SIGSEGV)"
            ),
            "{after}"
        );
    }

    #[test]
    fn the_box_frame_is_the_current_threads_innermost_box_code() {
        // faulthandler's dump, as CPython 3.11 prints it.
        let dump = "Fatal Python error: Segmentation fault\n\nThread 0x00007f (most recent call first):\n  File \"root/Other\", line 9 in onLoad\n\nCurrent thread 0x00007e (most recent call first):\n  File \"/usr/lib/python3.11/ctypes/__init__.py\", line 519 in string_at\n  File \"root/Hostile\", line 4 in onInput_onStart\n  File \"choreo/generated.py\", line 300 in run_hook\n";
        assert_eq!(
            crate::ended::box_frame(dump).as_deref(),
            Some("root/Hostile line 4 (onInput_onStart)")
        );
        assert_eq!(crate::ended::box_frame("no dump"), None);
    }
}
