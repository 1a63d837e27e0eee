//! A run shown on the monitor's page (choreo-monitor, docs/monitor.md): the other behaviors
//! its box code may play, drawn beside it, and what the page asks carried out.

use std::sync::Arc;

use choreo_engine::Engine;
use choreo_monitor::Command;

/// Behaviors a run plays beside its own, each with the prefix of its events' paths
/// ([`MonitorOptions::played`]).
pub type Played = Vec<(String, Arc<choreo_engine::graph::Graph>)>;

/// The other behaviors of `project`, which box code of `behavior` may run
/// (`ALBehaviorManager.runBehavior`): their events' paths start with their folder
/// (`selfie:root/Say`), as the monitor draws them.
pub fn others(
    project: &choreo_xar::source::Project,
    behavior: &choreo_xar::source::Behavior,
) -> Played {
    project
        .behaviors
        .iter()
        .filter(|b| b.path != behavior.path)
        .map(|b| {
            let folder = choreo_xar::source::Project::behavior_folder(b);
            (
                format!("{folder}:"),
                Arc::new(choreo_engine::graph::Graph::new(&b.xar)),
            )
        })
        .collect()
}

/// Carries out what pages asked (a person's doing on `robot`, the simulated robot, when
/// the run has one), `failed` told what could not be done; true when one asked to stop.
pub fn carry_out(
    receiver: &std::sync::mpsc::Receiver<Command>,
    engine: &Engine,
    robot: Option<&choreo_naoqi::SimRobot>,
    failed: &mut dyn FnMut(String),
) -> bool {
    let mut stop = false;
    while let Ok(c) = receiver.try_recv() {
        match c {
            Command::Stop => stop = true,
            Command::Stimulate { path, input, value } => {
                let value = choreo_stack::builtins::conditions::json_value(&value);
                if let Err(e) = engine.stimulate(&path, &input, value) {
                    failed(format!("cannot stimulate {path}.{input}: {e}"));
                }
            }
            Command::World(v) => match (robot, choreo_naoqi::scenario::world_action(&v)) {
                (Some(robot), Ok(action)) => robot.inject(&action),
                (None, _) => failed("only the simulated robot is acted on from the page".into()),
                (_, Err(e)) => failed(e.to_string()),
            },
            // A run's monitor is not an editor's: the server refuses edits to its pages.
            Command::Edit(_) | Command::Undo | Command::Redo | Command::Editor(_) => {}
        }
    }
    stop
}
