//! The robot's paths in the trace. A run on the simulated robot lays the robot's folders out
//! under a temporary folder of its own (`/tmp/choreo-XXXXXX/home/nao/...`), whose name is
//! new every run; box code sees those host paths and puts them in what it logs, raises,
//! passes along links and to the robot. Shown as they are, the same run would give another
//! trace every time. So every text of an event is shown as the robot would show it: the
//! run's root (`Trace::set_robot_root`) stands for the robot's `/`.

use choreo_base::Value;

use crate::trace::event::Step;

/// `text` with every path under `root` (a folder, no trailing `/`) written as the robot's:
/// `<root>/home/nao/x` is `/home/nao/x`, `<root>` alone is `/`. `None` when nothing is under
/// it (the common case: no copy is made).
pub(super) fn robot_view(text: &str, root: &str) -> Option<String> {
    if root.is_empty() || !text.contains(root) {
        return None;
    }
    // A Windows root (`C:\Users\nao\AppData\Local\Temp\choreo-Ab12Cd`): the separators of
    // the path that follows it, to its end (a quote, a line's end), are the robot's `/` too.
    let windows = root.contains('\\');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(root) {
        out.push_str(&rest[..at]);
        rest = &rest[at + root.len()..];
        if windows {
            let end = rest.find(['"', '\'', '\n', '\r']).unwrap_or(rest.len());
            let path = rest[..end].replace('\\', "/");
            if !path.starts_with('/') {
                out.push('/');
            }
            out.push_str(&path);
            rest = &rest[end..];
        } else if !rest.starts_with('/') {
            out.push('/');
        }
    }
    out.push_str(rest);
    Some(out)
}

fn text(s: &mut String, root: &str) {
    if let Some(seen) = robot_view(s, root) {
        *s = seen;
    }
}

/// Every text in `value`, however deep (a stack, not recursion: box code chooses the depth).
fn value(v: &mut Value, root: &str) {
    // Most values along links are bangs, numbers and short texts: no stack for them.
    match v {
        Value::String(s) => return text(s, root),
        Value::List(_) | Value::Tuple(_) | Value::Map(_) => {}
        _ => return,
    }
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        match v {
            Value::String(s) => text(s, root),
            Value::List(items) | Value::Tuple(items) => todo.extend(items.iter_mut()),
            Value::Map(pairs) => {
                for (k, v) in pairs.iter_mut() {
                    todo.push(k);
                    todo.push(v);
                }
            }
            _ => {}
        }
    }
}

/// `step`'s texts (values, errors, messages, what is said) as the robot's paths.
pub(super) fn robot_step(step: &mut Step, root: &str) {
    match step {
        Step::In { value: v, .. } | Step::Out { value: v, .. } | Step::Param { value: v, .. } => {
            value(v, root);
        }
        Step::Err { text: t, .. } | Step::Said { text: t, .. } => text(t, root),
        Step::Log { message, .. } => text(message, root),
        Step::RobotCall { args, .. } => args.iter_mut().for_each(|a| value(a, root)),
        Step::RobotReturn {
            value: v, error, ..
        } => {
            if let Some(v) = v {
                value(v, root);
            }
            if let Some(e) = error {
                text(e, root);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_under_the_root_read_as_the_robots() {
        let root = "/tmp/choreo-Ab12Cd";
        assert_eq!(
            robot_view(
                "cannot read \"/tmp/choreo-Ab12Cd/home/nao/x.dlg\": no such file",
                root
            )
            .as_deref(),
            Some("cannot read \"/home/nao/x.dlg\": no such file")
        );
        assert_eq!(robot_view("/tmp/choreo-Ab12Cd", root).as_deref(), Some("/"));
        assert_eq!(robot_view("/tmp/other/home/nao", root), None);
        // On Windows, with what box code joined with `\` or `/`.
        let root = r"Z:\tmp\choreo-Ab12Cd";
        assert_eq!(
            robot_view(
                r#"cannot read "Z:\tmp\choreo-Ab12Cd\home\nao\b/../d\t.top": Invalid name"#,
                root
            )
            .as_deref(),
            Some(r#"cannot read "/home/nao/b/../d/t.top": Invalid name"#)
        );
        assert_eq!(robot_view(root, root).as_deref(), Some("/"));
        let root = "/tmp/choreo-Ab12Cd";
        let mut v = Value::List(vec![Value::Map(vec![(
            Value::from("file"),
            Value::from("/tmp/choreo-Ab12Cd/tmp/a.wav"),
        )])]);
        value(&mut v, root);
        assert_eq!(
            v,
            Value::List(vec![Value::Map(vec![(
                Value::from("file"),
                Value::from("/tmp/a.wav")
            )])])
        );
    }
}
