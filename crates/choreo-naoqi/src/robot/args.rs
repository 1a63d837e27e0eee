//! Lenient argument reading shared by every service: NAOqi's `m` (dynamic) parameters
//! accept many shapes (a name or a list of names, an angle or a list of lists, int for
//! float), and a script's bad argument must become an error naming the method, never a panic.

use choreo_engine::Value;

use crate::robot::error::CallError;

/// The arguments of one call, with the `Service.method` name for error messages.
pub(crate) struct Args<'a> {
    /// `Service.method`, as errors show it.
    pub name: String,
    /// The values, as the script passed them.
    pub values: &'a [Value],
}

impl<'a> Args<'a> {
    /// Wraps the arguments of `service.method`.
    pub fn new(service: &str, method: &str, values: &'a [Value]) -> Args<'a> {
        Args {
            name: format!("{service}.{method}"),
            values,
        }
    }

    /// How many arguments were given.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// The error for argument `i` that is not what the method expects: bad arguments of
    /// this call.
    pub fn bad(&self, i: usize, expected: &str) -> CallError {
        let message = match self.values.get(i) {
            Some(v) => format!(
                "{}: argument {} must be {expected}, got {v} (args: {})",
                self.name,
                i + 1,
                signature(self.values)
            ),
            None => format!(
                "{}: missing argument {} ({expected}) (args: {})",
                self.name,
                i + 1,
                signature(self.values)
            ),
        };
        CallError::BadArguments {
            call: self.name.clone(),
            message,
        }
    }

    /// Argument `i` as a string.
    pub fn str(&self, i: usize) -> Result<&'a str, CallError> {
        match self.values.get(i) {
            Some(Value::String(s)) => Ok(s),
            _ => Err(self.bad(i, "a string")),
        }
    }

    /// Argument `i` as a number (int or float).
    pub fn f64(&self, i: usize) -> Result<f64, CallError> {
        self.values
            .get(i)
            .and_then(number)
            .ok_or_else(|| self.bad(i, "a number"))
    }

    /// Argument `i` as a number, or `default` when absent.
    pub fn f64_or(&self, i: usize, default: f64) -> Result<f64, CallError> {
        if i < self.values.len() {
            self.f64(i)
        } else {
            Ok(default)
        }
    }

    /// Argument `i` as an integer (a float with no fraction is accepted).
    pub fn int(&self, i: usize) -> Result<i64, CallError> {
        match self.values.get(i) {
            Some(Value::Int(n)) => Ok(*n),
            Some(Value::Bool(b)) => Ok(i64::from(*b)),
            Some(Value::Float(x)) if x.fract() == 0.0 && x.abs() < 9.0e15 => Ok(*x as i64),
            _ => Err(self.bad(i, "an integer")),
        }
    }

    /// Argument `i` as a boolean (Python truthiness of numbers is accepted).
    pub fn bool(&self, i: usize) -> Result<bool, CallError> {
        match self.values.get(i) {
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::Int(n)) => Ok(*n != 0),
            Some(Value::Float(x)) => Ok(*x != 0.0),
            _ => Err(self.bad(i, "a boolean")),
        }
    }

    /// Argument `i` as one name or a list of names.
    pub fn names(&self, i: usize) -> Result<Vec<String>, CallError> {
        match self.values.get(i) {
            Some(Value::String(s)) => Ok(vec![s.clone()]),
            Some(Value::List(items) | Value::Tuple(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(self.bad(i, "a name or a list of names")),
                })
                .collect(),
            _ => Err(self.bad(i, "a name or a list of names")),
        }
    }

    /// Argument `i` as one number or a list of numbers.
    pub fn floats(&self, i: usize) -> Result<Vec<f64>, CallError> {
        match self.values.get(i) {
            Some(Value::List(items) | Value::Tuple(items)) => items
                .iter()
                .map(|v| number(v).ok_or_else(|| self.bad(i, "a number or a list of numbers")))
                .collect(),
            Some(v) => number(v)
                .map(|x| vec![x])
                .ok_or_else(|| self.bad(i, "a number or a list of numbers")),
            None => Err(self.bad(i, "a number or a list of numbers")),
        }
    }

    /// Argument `i` as the items of a list (or a one-item list of a scalar).
    pub fn list(&self, i: usize) -> Result<&'a [Value], CallError> {
        match self.values.get(i) {
            Some(Value::List(items) | Value::Tuple(items)) => Ok(items),
            Some(v) => Ok(std::slice::from_ref(v)),
            None => Err(self.bad(i, "a list")),
        }
    }

    /// Argument `i`: one of the names `allowed`, or an error naming them (`what` says what
    /// such a name is: "a life state").
    pub fn one_of(&self, i: usize, what: &str, allowed: &[&str]) -> Result<&'a str, CallError> {
        let name = self.str(i)?;
        if allowed.contains(&name) {
            Ok(name)
        } else {
            Err(CallError::Failed(format!(
                "{}: {name:?} is not {what} ({})",
                self.name,
                allowed.join(", ")
            )))
        }
    }

    /// Argument `i`, whatever it is (`Value::None` when absent).
    pub fn value(&self, i: usize) -> Value {
        self.values.get(i).cloned().unwrap_or_default()
    }
}

/// A value as a number, if it is one (bools count, as in Python).
pub(crate) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(n) => Some(*n as f64),
        Value::UInt(n) => Some(*n as f64),
        Value::Float(x) => Some(*x),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// The qi signature of arguments, as NAOqi's errors show it: `(sf)`, `([s][f]f)`.
pub fn signature(values: &[Value]) -> String {
    format!("({})", values.iter().map(letters).collect::<String>())
}

fn letters(v: &Value) -> String {
    match v {
        Value::None => "v".into(),
        Value::Bool(_) => "b".into(),
        Value::Int(_) => "i".into(),
        Value::UInt(_) => "L".into(),
        Value::Float(_) => "f".into(),
        Value::String(_) => "s".into(),
        Value::Raw(_) => "r".into(),
        Value::List(items) => {
            let first = items.first().map(letters);
            let same = items.iter().all(|x| Some(letters(x)) == first);
            match first {
                Some(l) if same => format!("[{l}]"),
                Some(_) => "[m]".into(),
                None => "[m]".into(),
            }
        }
        Value::Tuple(items) => format!("({})", items.iter().map(letters).collect::<String>()),
        Value::Map(_) => "{mm}".into(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn signatures_look_like_qi() {
        let v = vec![
            Value::from("HeadYaw"),
            Value::List(vec![Value::Float(0.1), Value::Float(0.2)]),
            Value::Int(1),
        ];
        assert_eq!(signature(&v), "(s[f]i)");
    }

    #[test]
    fn bad_arguments_name_the_method() {
        let v = vec![Value::Int(3)];
        let a = Args::new("ALLeds", "on", &v);
        let e = a.str(0).unwrap_err();
        assert!(
            e.message()
                .starts_with("ALLeds.on: argument 1 must be a string"),
            "{e}"
        );
        assert!(
            a.f64(1)
                .unwrap_err()
                .message()
                .contains("missing argument 2")
        );
    }

    #[test]
    fn bad_arguments_are_told_from_other_errors() {
        use choreo_engine::RobotError;
        let v = vec![Value::Int(3)];
        let a = Args::new("ALLeds", "on", &v);
        let of_this_call =
            |e: CallError| matches!(e.into_robot_error(&a.name), RobotError::BadArguments(_));
        assert!(of_this_call(a.str(0).unwrap_err()));
        assert!(of_this_call(a.f64(1).unwrap_err()));
        assert!(of_this_call(a.bad(0, "a colour")));
        let blue = vec![Value::from("blue")];
        let named = Args::new("ALLeds", "on", &blue);
        assert!(!of_this_call(
            named.one_of(0, "a colour", &["red"]).unwrap_err()
        ));
        assert!(!of_this_call(CallError::Failed(
            "ALLeds.on: unknown LED or group \"Nose\"".into()
        )));
        // Another method's complaint about its arguments is not this call's.
        let other = Args::new("ALLeds", "fade", &v);
        assert!(!of_this_call(other.str(0).unwrap_err()));
    }
}
