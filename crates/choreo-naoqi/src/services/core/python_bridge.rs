//! ALPythonBridge: NAOqi's module that evaluates Python in the robot's interpreter, the one
//! box scripts run in (`eval(code)` answers the error, empty when none; `evalReturn(expr)`
//! the value; `evalFull(code)` `[value, exceptions, stdout, stderr]`: its 1.12 C++ proxy
//! header). A box script's calls are evaluated by choreo's script host in the interpreter
//! the boxes share (choreo-python's `naoqi` shim), over the names the boxes share, so that
//! what such code does (`sys.path` additions, imports, names it defines) is seen by the
//! boxes, as on a robot. The simulated robot has no interpreter of its own: a call that
//! reaches it (from a native host or a qi client) fails and says so.

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};

/// ALPythonBridge as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALPythonBridge",
    methods: &[
        ("eval", Op::Own),
        ("evalReturn", Op::Own),
        ("evalFull", Op::Own),
    ],
    own,
    extractor: None,
};

fn own(_: &Sim, _: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    Err(CallError::Failed(format!(
        "{}: the simulated robot has no Python interpreter of its own; box scripts' calls \
         are evaluated by choreo's Python host",
        a.name
    )))
}
