//! Signals: inputs stimulated, outputs fired, links delivering (R8, R10, R11, P1–P6).

use std::sync::Arc;

use choreo_xar::model::{InputNature, OutputNature};

use crate::engine::op::Step;
use crate::engine::rate::LOUD_LINK;
use crate::engine::state::{Control, LastCommand};
use crate::graph::{BoxId, DiagramId, Graph, Target};
use crate::hook::Hook;
use crate::trace::{Compact, End, Step as TraceStep};
use choreo_base::Value;

impl Control {
    /// An input of box `b` is stimulated: what happens depends on its nature (R8, R10, P1).
    /// `from_link`: the value came along a link, so the operation it starts first checks
    /// that the box is still loaded when its turn comes (a stop may come first, between two
    /// budgets of a loop of links, and no hook of an unloaded box runs).
    pub(super) fn stimulate(&mut self, b: BoxId, input: u16, value: Value, from_link: bool) {
        if from_link && self.starts_inline(b, input) {
            self.stimulate_start(b, input, value);
            return;
        }
        let g = &self.shared.graph;
        let port = &g.node(b).inputs[usize::from(input)];
        self.compact(b, Compact::In(input, &value));
        let (name, nature) = (port.name.clone(), port.nature);
        let hook = Hook::Input {
            name,
            value: value.clone(),
        };
        let guard = from_link.then_some(b);
        match nature {
            InputNature::OnStart => {
                let acquire = (!g.node(b).resources.is_empty()).then_some(Step::Acquire(b));
                self.spawn_guarded(
                    acquire.into_iter().chain([
                        Step::Started(b),
                        Step::Hook(b, hook),
                        Step::AfterStart(b, input, value),
                    ]),
                    guard,
                );
            }
            InputNature::OnStop => {
                // G2.
                self.boxes[b.0 as usize].last = LastCommand::Stop;
                self.spawn_guarded(
                    [
                        Step::Hook(b, hook),
                        Step::UnloadContent(b),
                        Step::Release(b),
                    ],
                    guard,
                );
            }
            InputNature::OnEvent | InputNature::OnLoad | InputNature::Memory => {
                self.spawn_guarded([Step::Hook(b, hook), Step::Forward(b, input, value)], guard);
            }
        }
    }

    /// [`Control::stimulate`] along a link: inlined into the delivery, the hop's usual
    /// case (an inline box's start) made without a call.
    #[inline(always)]
    fn stimulate_along_link(&mut self, b: BoxId, input: u16, value: Value) {
        if self.starts_inline(b, input) {
            self.stimulate_start(b, input, value);
        } else {
            self.stimulate(b, input, value, true);
        }
    }

    /// Whether input `input` of box `b`, stimulated along a link, starts the box as a
    /// [`Control::spawn_start`]: an onStart input of an inline box without resources.
    #[inline(always)]
    fn starts_inline(&self, b: BoxId, input: u16) -> bool {
        self.boxes[b.0 as usize].starts_inline
            && self.shared.graph.node(b).inputs[usize::from(input)].nature == InputNature::OnStart
    }

    /// The start [`Control::starts_inline`] says an input makes: its stimulus recorded, the
    /// start made ready.
    #[inline(always)]
    fn stimulate_start(&mut self, b: BoxId, input: u16, value: Value) {
        self.compact(b, Compact::In(input, &value));
        self.spawn_start(b, input, value);
    }

    /// Output `output` of box `b` is stimulated (by its code, or by a link to a parent
    /// output): a Stopped output unloads the box's content first (R11, G4).
    pub(super) fn fire(&mut self, b: BoxId, output: u16, value: Value) {
        let nature = self.shared.graph.node(b).outputs[usize::from(output)].nature;
        self.compact(b, Compact::Out(output, &value));
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
    #[inline(always)]
    pub(super) fn deliver_output(&mut self, b: BoxId, output: u16, value: Value) {
        let node = self.shared.graph.node(b);
        let Some((_, d)) = node.parent else {
            return;
        };
        if !self.diagrams.links_on[d.0 as usize] {
            self.compact(b, Compact::Dropped(output));
            return;
        }
        // One link, the usual case, is taken out of the graph without a count of it.
        let from = End::Output(b, output);
        match node.outputs[usize::from(output)].targets[..] {
            [] => {}
            [t] => self.links(d, from, &[t], value),
            _ => {
                let g = Arc::clone(&self.shared.graph);
                let targets = &g.node(b).outputs[usize::from(output)].targets;
                self.links(d, from, targets, value);
            }
        }
    }

    /// `value` leaves `from` along `targets`, links of diagram `d` whose links are on. A
    /// single link to an input or a parameter delivers at once (that only makes the input's
    /// operation ready); otherwise each link is a step of a new operation, and checks that
    /// the diagram's links are still on when its turn comes (an earlier one may have
    /// stopped the diagram's owner). Nothing here calls back into itself: a loop of links,
    /// however deep the boxes it crosses, never grows the stack.
    #[inline(always)]
    pub(super) fn links(&mut self, d: DiagramId, from: End, targets: &[Target], value: Value) {
        match targets {
            [] => {}
            [t @ (Target::Input(..) | Target::Parameter(..))] => self.deliver(from, *t, value),
            _ => self.spawn_op(
                targets
                    .iter()
                    .map(|t| Step::Link(d, from, *t, value.clone())),
            ),
        }
    }

    /// One link carries `value` to `target`.
    #[inline(always)]
    pub(super) fn deliver(&mut self, from: End, target: Target, value: Value) {
        let g = &self.shared.graph;
        let to = match target {
            Target::Input(c, i) => End::Input(c, i),
            Target::Parameter(c, i) => End::Parameter(c, i),
            Target::OwnerOutput(o, i) => End::OwnerOutput(o, i),
        };
        self.record_delivery(from, to);
        if self.watch.rates.count(g, target, self.shared.time.now()) {
            let owner_of_link = to.link_owner(g);
            self.record(
                owner_of_link,
                TraceStep::Log {
                    level: "warning".into(),
                    message: format!(
                        "the link to {} carries more than {LOUD_LINK} signals per second of \
                         behavior time: a loop of links?",
                        to.name(g)
                    ),
                },
            );
        }
        match target {
            Target::Input(c, i) => self.stimulate_along_link(c, i, value),
            Target::Parameter(c, i) => {
                let name = g.node(c).parameters[usize::from(i)].name.clone();
                self.shared.set_parameter(c, &name, value);
            }
            // A new operation: a chain of outputs of enclosing boxes is as deep as the file
            // makes it, and must not be followed by recursion.
            Target::OwnerOutput(o, i) => self.spawn_op([Step::FireOutput(o, i, value)]),
        }
    }
}
