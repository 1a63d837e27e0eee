//! Signals: inputs stimulated, outputs fired, links delivering (R8, R10, R11, P1–P6).

use std::sync::Arc;

use choreo_xar::model::{InputNature, OutputNature};

use crate::engine::state::{Control, LastCommand, Step};
use crate::graph::{BoxId, Graph, Target};
use crate::hook::Hook;
use crate::trace::{Compact, End};
use crate::value::Value;

impl Control {
    /// An input of box `b` is stimulated: what happens depends on its nature (R8, R10, P1).
    pub(super) fn stimulate(&mut self, b: BoxId, input: u16, value: Value) {
        let g = &self.shared.graph;
        let port = &g.node(b).inputs[usize::from(input)];
        let (name, nature) = (port.name.clone(), port.nature);
        self.compact(b, Compact::In(input, value.clone()));
        let hook = Hook::Input {
            name,
            value: value.clone(),
        };
        match nature {
            InputNature::OnStart => {
                let acquire = (!g.node(b).resources.is_empty()).then_some(Step::Acquire(b));
                self.spawn_op(acquire.into_iter().chain([
                    Step::Started(b),
                    Step::Hook(b, hook),
                    Step::AfterStart(b, input, value),
                ]));
            }
            InputNature::OnStop => {
                // G2.
                self.boxes[b.0 as usize].last = LastCommand::Stop;
                self.spawn_op([
                    Step::Hook(b, hook),
                    Step::UnloadContent(b),
                    Step::Release(b),
                ]);
            }
            InputNature::OnEvent | InputNature::OnLoad | InputNature::Memory => {
                self.spawn_op([Step::Hook(b, hook), Step::Forward(b, input, value)]);
            }
        }
    }

    /// Output `output` of box `b` is stimulated (by its code, or by a link to a parent
    /// output): a Stopped output unloads the box's content first (R11, G4).
    pub(super) fn fire(&mut self, b: BoxId, output: u16, value: Value) {
        let nature = self.shared.graph.node(b).outputs[usize::from(output)].nature;
        self.compact(b, Compact::Out(output, value.clone()));
        if nature != OutputNature::Stopped {
            // P5, P6: Punctual, unDef and Recurrent outputs only deliver.
            self.deliver_output(b, output, value);
            return;
        }
        // G4: release, stop the content, then deliver.
        self.release(b);
        self.boxes[b.0 as usize].last = LastCommand::Stop;
        if b == Graph::ROOT {
            self.spawn_op(vec![Step::UnloadContent(b), Step::EndBehavior]);
        } else {
            self.spawn_op(vec![
                Step::UnloadContent(b),
                Step::Deliver(b, output, value),
            ]);
        }
    }

    /// Delivers an output along its links in the parent diagram, if they are on.
    pub(super) fn deliver_output(&mut self, b: BoxId, output: u16, value: Value) {
        let g = &self.shared.graph;
        let node = g.node(b);
        let Some((_, d)) = node.parent else { return };
        if !self.links_on[d.0 as usize] {
            self.compact(b, Compact::Dropped(output));
            return;
        }
        let g = Arc::clone(g);
        for &t in &g.node(b).outputs[usize::from(output)].targets {
            // An earlier link may have unloaded the diagram (a parent's Stopped output).
            if !self.links_on[d.0 as usize] {
                break;
            }
            self.deliver(End::Output(b, output), t, value.clone());
        }
    }

    /// One link carries `value` to `target`.
    pub(super) fn deliver(&mut self, from: End, target: Target, value: Value) {
        let g = &self.shared.graph;
        let (owner_of_link, to) = match target {
            Target::Input(c, i) => (g.node(c).parent.map_or(c, |(p, _)| p), End::Input(c, i)),
            Target::Parameter(c, i) => {
                (g.node(c).parent.map_or(c, |(p, _)| p), End::Parameter(c, i))
            }
            Target::OwnerOutput(o, i) => (o, End::OwnerOutput(o, i)),
        };
        self.compact(owner_of_link, Compact::Deliver(from, to));
        match target {
            Target::Input(c, i) => self.stimulate(c, i, value),
            Target::Parameter(c, i) => {
                let name = g.node(c).parameters[usize::from(i)].name.clone();
                self.shared.set_parameter(c, &name, value);
            }
            Target::OwnerOutput(o, i) => self.fire(o, i, value),
        }
    }
}
