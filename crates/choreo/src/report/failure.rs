//! Errors box code raised or logged, as the run report shows them: an exception summarized
//! from its traceback (its type, message and the box's line), a logged error.

use std::fmt;

use choreo_engine::Value;
use choreo_engine::trace::Step;

/// An exception that escaped box code, as a person wants to read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The box (`root/Say`).
    pub path: String,
    /// The hook (`onInput_onStart`) or what failed.
    pub hook: String,
    /// The line of the box's script where it was raised, when the traceback says it.
    pub line: Option<u32>,
    /// The exception (`ValueError: boom`): the traceback's last lines, on one line.
    pub message: String,
    /// The whole text (the traceback).
    pub text: String,
}

impl Failure {
    /// The failure an `err` event of box `path` tells.
    pub fn new(path: &str, hook: &str, text: &str) -> Failure {
        let (line, message) = summarize(path, text);
        Failure {
            path: path.to_string(),
            hook: hook.to_string(),
            line,
            message,
            text: text.to_string(),
        }
    }
}

impl fmt::Display for Failure {
    /// `root/Say line 4 (onInput_onStart): ValueError: boom`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(
                f,
                "{} line {line} ({}): {}",
                self.path, self.hook, self.message
            ),
            None => write!(f, "{} ({}): {}", self.path, self.hook, self.message),
        }
    }
}

/// The line of box `path`'s script where a traceback's exception was raised (its last frame
/// in that box), and the exception on one line. A text that is not a Python traceback is
/// its own message.
pub fn summarize(path: &str, text: &str) -> (Option<u32>, String) {
    let lines: Vec<&str> = text.lines().collect();
    let one_line = |lines: &[&str]| {
        lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    if !lines
        .first()
        .is_some_and(|l| l.starts_with("Traceback (most recent call last)"))
    {
        return (None, one_line(&lines));
    }
    let mut line = None;
    let mut last_frame = 0;
    for (i, l) in lines.iter().enumerate() {
        let Some(rest) = l.trim_start().strip_prefix("File \"") else {
            continue;
        };
        let Some((file, after)) = rest.split_once("\", line ") else {
            continue;
        };
        last_frame = i;
        // A nested behavior's box is `folder:root/X` in the trace, `root/X` to Python.
        if file == path || path.split_once(':').is_some_and(|(_, inner)| inner == file) {
            let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
            line = digits.parse().ok().or(line);
        }
    }
    // After the last frame: its source line (and 3.11's carets), then the exception.
    let exception: Vec<&str> = lines
        .get(last_frame + 1..)
        .unwrap_or_default()
        .iter()
        .skip_while(|l| l.starts_with("    "))
        .copied()
        .collect();
    (line, one_line(&exception))
}

/// An error a box logged (`self.logger.error`, `ALLogger.error`): counted apart from the
/// exceptions.
#[derive(Debug, Clone, PartialEq)]
pub struct Logged {
    /// The box.
    pub path: String,
    /// What it logged.
    pub message: String,
}

impl fmt::Display for Logged {
    /// `root/A: no ball`; a traceback (an exception in a callback or a thread, E2) as its
    /// box's line and the exception, as errors are shown: `root/A line 11: RuntimeError: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self
            .message
            .starts_with("Traceback (most recent call last)")
        {
            return match summarize(&self.path, &self.message) {
                (Some(line), exception) => write!(f, "{} line {line}: {exception}", self.path),
                (None, exception) => write!(f, "{}: {exception}", self.path),
            };
        }
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// The error a box logged, if `step` is one: a log at level `error` or `fatal`, or a call of
/// `ALLogger.error` / `ALLogger.fatal` (whether or not the robot serves it).
pub fn logged_error(path: &str, step: &Step) -> Option<Logged> {
    let message = match step {
        Step::Log { level, message } if level == "error" || level == "fatal" => message.clone(),
        Step::RobotCall { method, args }
            if matches!(
                method.as_str(),
                "ALLogger.error" | "ALLogger.fatal" | "ALLogger.post.error" | "ALLogger.post.fatal"
            ) =>
        {
            match args.last() {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            }
        }
        _ => return None,
    };
    Some(Logged {
        path: path.to_string(),
        message,
    })
}

/// A traceback as CPython prints it, for the tests of the report.
#[cfg(test)]
pub(super) const TRACEBACK: &str = "Traceback (most recent call last):
  File \"root/Oops\", line 4, in onInput_onStart
    helper()
  File \"root/Oops\", line 7, in helper
    raise ValueError(\"boom\")
    ^^^^^^^^^^^^^^^^^^^^^^^^
ValueError: boom";

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_traceback_gives_its_exception_and_the_box_line() {
        assert_eq!(
            summarize("root/Oops", TRACEBACK),
            (Some(7), "ValueError: boom".to_string())
        );
        assert_eq!(
            summarize("selfie:root/Oops", TRACEBACK).0,
            Some(7),
            "a nested behavior's box"
        );
        let f = Failure::new("root/Oops", "onInput_onStart", TRACEBACK);
        assert_eq!(
            f.to_string(),
            "root/Oops line 7 (onInput_onStart): ValueError: boom"
        );
    }

    #[test]
    fn frames_outside_the_box_and_multi_line_messages() {
        let text = "Traceback (most recent call last):
  File \"root/App\", line 5, in onLoad
    self.m = self.session().service(\"ALServiceManager\")
  File \"choreo/qi.py\", line 411, in service
    proxy = naoqi.ALProxy.of(name, self._box)
RuntimeError: ALProxy::ALProxy
\tCan't find service: ALServiceManager";
        assert_eq!(
            summarize("root/App", text),
            (
                Some(5),
                "RuntimeError: ALProxy::ALProxy Can't find service: ALServiceManager".into()
            )
        );
        // Not a traceback: the text itself, on one line.
        assert_eq!(
            summarize("root/X", "cannot subscribe\nto Foo"),
            (None, "cannot subscribe to Foo".into())
        );
        // A syntax error: the frame has no function.
        let text = "Traceback (most recent call last):\n  File \"root/X\", line 3\n    def f(:\n          ^\nSyntaxError: invalid syntax";
        assert_eq!(
            summarize("root/X", text),
            (Some(3), "SyntaxError: invalid syntax".into())
        );
    }

    #[test]
    fn a_logged_traceback_shows_its_line_and_exception() {
        // What E2 logs for an exception that ended a thread a box started.
        let text = "Traceback (most recent call last):\n  File \"/usr/lib/python3.11/threading.py\", line 1038, in _bootstrap_inner\n    self.run()\n  File \"root/Sound\", line 11, in work\n    raise RuntimeError(\"the sound file is missing\")\nRuntimeError: the sound file is missing";
        let logged = Logged {
            path: "root/Sound".into(),
            message: text.into(),
        };
        assert_eq!(
            logged.to_string(),
            "root/Sound line 11: RuntimeError: the sound file is missing"
        );
    }
}
