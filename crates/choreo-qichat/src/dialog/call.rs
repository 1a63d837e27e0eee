//! `^call(Service.method(args))`: the target read, the arguments typed.

/// An argument of a NAOqi method called from a topic.
#[derive(Debug, Clone, PartialEq)]
pub enum CallArg {
    /// A quoted or non-numeric value.
    Str(String),
    /// A whole number.
    Int(i64),
    /// A number with a fraction.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
}

/// `Service.method(a, b)` split: the service, the method and the arguments as written
/// (split on top-level commas).
pub(super) fn target(text: &str) -> Option<(String, String, Vec<String>)> {
    let text = text.trim();
    let open = text.find('(')?;
    let inner = text[open + 1..].strip_suffix(')')?;
    let (service, method) = text[..open].trim().rsplit_once('.')?;
    if service.is_empty() || method.is_empty() {
        return None;
    }
    let mut args = Vec::new();
    let mut current = String::new();
    let (mut depth, mut quoted) = (0usize, false);
    for c in inner.chars() {
        match c {
            '"' => quoted = !quoted,
            '(' | '[' if !quoted => depth += 1,
            ')' | ']' if !quoted => depth = depth.saturating_sub(1),
            ',' if !quoted && depth == 0 => {
                args.push(std::mem::take(&mut current).trim().to_string());
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() || !args.is_empty() {
        args.push(current.trim().to_string());
    }
    Some((service.to_string(), method.to_string(), args))
}

/// A value as the method gets it: a quoted one is text, else a number or a boolean when it
/// reads as one.
pub(super) fn typed(value: &str, quoted: bool) -> CallArg {
    if quoted {
        return CallArg::Str(value.to_string());
    }
    match value {
        "true" | "True" => CallArg::Bool(true),
        "false" | "False" => CallArg::Bool(false),
        _ => match (value.parse::<i64>(), value.parse::<f64>()) {
            (Ok(i), _) => CallArg::Int(i),
            (_, Ok(f)) => CallArg::Float(f),
            _ => CallArg::Str(value.to_string()),
        },
    }
}
