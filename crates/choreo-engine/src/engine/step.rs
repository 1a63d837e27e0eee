//! The step interpreter: each lifecycle operation is a small program of steps that waits when
//! it calls a hook and resumes when the hook returns (R6–R15).
//!
//! Operations wait on a ready stack, run one step at a time in the reference's depth-first
//! order: an operation that starts another waits under it, and one whose last step started
//! another ends, so a loop of links runs in constant stack. A load cancelled by an unload goes
//! to the top and ends at once. An inline box's onStart along a link waits as itself
//! (`Ready::Start`) and runs as its operation would; it is made an operation only if it must
//! wait or yield.

use std::sync::Arc;

use choreo_xar::model::InputNature;

use crate::engine::op::{OpId, Step};
use crate::engine::outcome::Outcome;
use crate::engine::state::{Awaited, Control, LastCommand, MAX_OPS, Phase, Ready};
use crate::graph::{BoxId, Content, DiagramId, Graph};
use crate::hook::Hook;
use crate::trace::{End, HookRef, Step as TraceStep};
use choreo_base::Value;

impl Control {
    /// Starts an operation: it runs (from [`Control::run_ready`]) before the operation that
    /// started it goes on, as a call would in the reference, but without recursion.
    pub(super) fn spawn_op(&mut self, steps: impl IntoIterator<Item = Step>) {
        self.spawn_guarded(steps, None);
    }

    /// [`Control::spawn_op`], the operation running only if box `guard` is still loaded when
    /// its turn comes.
    pub(super) fn spawn_guarded(
        &mut self,
        steps: impl IntoIterator<Item = Step>,
        guard: Option<BoxId>,
    ) {
        if !self.room_for_one() {
            return;
        }
        let id = self.work.ops.insert(steps, guard);
        self.work.ready.push(Ready::Op(id));
        self.work.count_peak();
    }

    /// An input of nature onStart of box `b`, stimulated along a link, the box inline and
    /// without resources: ready to run as the operation [`Step::Started`], [`Step::Hook`],
    /// [`Step::AfterStart`] guarded by the box would, without making one
    /// ([`Control::run_start`]).
    #[inline(always)]
    pub(super) fn spawn_start(&mut self, b: BoxId, input: u16, value: Value) {
        if !self.room_for_one() {
            return;
        }
        self.work.starts += 1;
        let slot = self.work.start_values.put(value);
        self.work.ready.push(Ready::Start(b, input, slot));
        self.work.count_peak();
    }

    /// Whether one more operation may be in flight; if not, the trace says so.
    #[inline(always)]
    fn room_for_one(&mut self) -> bool {
        // A stop is never dropped: it is what ends a loop that filled the cap (nor the start,
        // which a stop waits for while it loads the root).
        if self.work.in_flight() >= MAX_OPS && !self.uncapped {
            self.too_many_ops();
            return false;
        }
        true
    }

    /// The hook of input `input` of box `b` given `value`.
    fn input_hook(&self, b: BoxId, input: u16, value: Value) -> Hook {
        Hook::Input {
            name: self.shared.graph.node(b).inputs[usize::from(input)]
                .name
                .clone(),
            value,
        }
    }

    /// Runs a [`Ready::Start`] as its operation would, one step of `budget` for each of its
    /// three steps; returns the operation to go on with when what is left must run as one:
    /// the whole of it when the budget cannot take its three steps (it then stops where
    /// the operation would), what follows its hook when the hook made others ready (they
    /// run first, as under an operation), the steps after its start (the box's content to
    /// load).
    fn run_start(
        &mut self,
        b: BoxId,
        input: u16,
        value: Value,
        budget: &mut usize,
    ) -> Option<OpId> {
        if *budget < 3 {
            let hook = self.input_hook(b, input, value.clone());
            let steps = [
                Step::Started(b),
                Step::Hook(b, hook),
                Step::AfterStart(b, input, value),
            ];
            return Some(self.work.ops.insert(steps, Some(b)));
        }
        // The guard, checked before the start and the hook (nothing runs between them).
        if !self.boxes[b.0 as usize].loaded {
            return None;
        }
        *budget -= 2;
        self.boxes[b.0 as usize].last = LastCommand::Start;
        // The value goes to the hook and comes back for what follows it: not copied; so does
        // the name, kept for the next start.
        let port = &self.shared.graph.node(b).inputs[usize::from(input)];
        let name = match self.work.spare_name.take() {
            Some(name) if name.same(&port.name) => name,
            _ => port.name.clone(),
        };
        let hook = Hook::Input { name, value };
        let mark = self.work.ready.len();
        let ok = self.call_inline(b, &hook, HookRef::Input(input));
        // Taken apart where it lies: the value moved out whole only if something follows
        // (moved as a pair, a bang's tag stored alone was loaded whole right after).
        let Hook::Input { name, value } = hook else {
            unreachable!("made an input's hook above")
        };
        self.work.spare_name = Some(name);
        if self.work.ready.len() > mark {
            self.work.ready[mark..].reverse();
            let id = self
                .work
                .ops
                .insert([Step::AfterStart(b, input, value)], None);
            if let Some(op) = self.work.ops.get_mut(id) {
                op.last_ok = ok;
            }
            self.work.ready.insert(mark, Ready::Op(id));
            return None;
        }
        *budget -= 1;
        let more = self.steps_after_start(ok, b, input, value);
        (!more.is_empty()).then(|| self.work.ops.insert(more, None))
    }

    /// Runs ready operations, top of the stack first, one step at a time, until none is
    /// ready or `budget` steps ran (then the command loop looks at its queue: a loop of
    /// signals never shuts out a stop). An operation that made others ready (started them,
    /// or resumed them) goes on only after them, and they run in the order they were made
    /// ready; an operation whose last step started another simply ends, so a loop of
    /// signals keeps the stack at a constant height.
    pub(super) fn run_ready(&mut self, mut budget: usize) {
        while let Some(entry) = self.work.ready.pop() {
            let id = match entry {
                Ready::Op(id) => id,
                Ready::Start(b, input, slot) => {
                    self.work.starts -= 1;
                    let value = self.work.start_values.take(slot);
                    if self.life.destroyed {
                        continue;
                    }
                    match self.run_start(b, input, value, &mut budget) {
                        Some(id) => id,
                        None => continue,
                    }
                }
            };
            if self.life.destroyed {
                // Every box is gone: what was still ready has nothing left to act on.
                self.work.ops.remove(id);
                continue;
            }
            loop {
                if budget == 0 {
                    self.work.ready.push(Ready::Op(id));
                    return;
                }
                budget -= 1;
                let mark = self.work.ready.len();
                let Some(op) = self.work.ops.get_mut(id) else {
                    break;
                };
                // Checked before every step up to the hook: a stop or a Stopped output
                // handled in between may have unloaded the box. Not after the hook: what
                // follows (a diagram's load under way) must run to its end.
                if let Some(b) = op.guard {
                    if !self.boxes[b.0 as usize].loaded {
                        self.work.ops.remove(id);
                        break;
                    }
                    if matches!(op.steps.front(), Some(Step::Hook(..))) {
                        op.guard = None;
                    }
                }
                let Some(step) = op.steps.pop_front() else {
                    self.work.ops.remove(id);
                    break;
                };
                let more = self.execute(id, step);
                let Some(op) = self.work.ops.get_mut(id) else {
                    break;
                };
                for s in more.into_iter().rev() {
                    op.steps.push_front(s);
                }
                let (waiting, done) = (op.waiting, op.steps.is_empty());
                if self.work.ready.len() > mark {
                    self.work.ready[mark..].reverse();
                    if done && !waiting {
                        self.work.ops.remove(id);
                    } else if !waiting {
                        self.work.ready.insert(mark, Ready::Op(id));
                    }
                    break;
                }
                if waiting {
                    break;
                }
                if done {
                    self.work.ops.remove(id);
                    break;
                }
            }
        }
    }

    /// The cap on operations in flight is reached (a loop of signals that multiplies them):
    /// the new one is dropped, and the trace says so once per run.
    #[cold]
    fn too_many_ops(&mut self) {
        self.work.dropped_ops += 1;
        if self.work.dropped_ops == 1 {
            self.shared.trace.record(
                self.now(),
                "",
                TraceStep::Err {
                    hook: "signal".into(),
                    text: format!(
                        "more than {MAX_OPS} operations in flight (a loop of links that \
                         multiplies signals?): signals are dropped while it lasts"
                    ),
                },
            );
        }
    }

    /// Executes one step of op `id`; returns the steps it expands into. Each step is the
    /// work of a function below, grouped by what it acts on: a box's lifecycle, a box's
    /// content and its diagrams, links and signals, the behavior as a whole.
    pub(super) fn execute(&mut self, id: OpId, step: Step) -> Vec<Step> {
        match step {
            // A box's lifecycle.
            Step::Hook(b, hook) => {
                self.dispatch(id, b, hook);
                Vec::new()
            }
            Step::AfterStart(b, input, value) => self.after_start(id, b, input, value),
            Step::Acquire(b) => self.acquire(b),
            Step::TakeResources(b, blocked) => self.take_resources(id, b, blocked),
            Step::Started(b) => {
                self.boxes[b.0 as usize].last = LastCommand::Start;
                Vec::new()
            }
            Step::Release(b) => {
                self.release(b);
                Vec::new()
            }
            Step::ResourceError(b) => self.resource_error(b),
            Step::FireStopped(b) => {
                self.fire_stopped(b);
                Vec::new()
            }
            Step::LoadBox(b) => {
                self.load_box(id, b);
                Vec::new()
            }
            Step::UnloadBox(b) => self.unload_box(id, b),
            // A box's content and its diagrams.
            Step::LoadContent(b) => self.load_content(b),
            Step::UnloadContent(b) => self.unload_content(b),
            Step::LoadDiagram(d, kf) => self.load_diagram(id, d, kf),
            Step::UnloadDiagram(d, kf) => self.unload_diagram(id, d, kf),
            Step::LoadBoxIn(d, b) => {
                if self.diagrams.phases[d.0 as usize] != (Phase::Loading { cancelled: true }) {
                    self.load_box(id, b);
                }
                Vec::new()
            }
            Step::LoadDone(d) => self.diagram_done(d, Phase::Loaded),
            Step::UnloadDone(d) => self.diagram_done(d, Phase::Unloaded),
            // Links and signals.
            Step::LinksOn(d) => {
                self.turn_links_on(d);
                Vec::new()
            }
            Step::LinksOff(d) => {
                self.turn_links_off(d);
                Vec::new()
            }
            Step::ForwardInto(d, input, value) => {
                self.forward_into(d, input, value);
                Vec::new()
            }
            Step::Forward(b, input, value) => self
                .loaded_diagrams(b)
                .into_iter()
                .map(|d| Step::ForwardInto(d, input, value.clone()))
                .collect(),
            Step::Link(d, from, target, value) => {
                if self.diagrams.links_on[d.0 as usize] {
                    self.deliver(from, target, value);
                }
                Vec::new()
            }
            Step::FireOutput(b, output, value) => {
                self.fire(b, output, value);
                Vec::new()
            }
            Step::Deliver(b, output, value) => {
                self.deliver_output(b, output, value);
                Vec::new()
            }
            Step::Play(b, stops) => {
                self.start_playing(b, stops);
                Vec::new()
            }
            // The behavior as a whole.
            Step::StartRoot => {
                self.start_root();
                Vec::new()
            }
            Step::RootLoaded => {
                self.diagrams.root_loading = false;
                self.unpark(Awaited::RootLoad)
            }
            Step::AfterRootLoad => {
                if self.diagrams.root_loading {
                    self.park(id, Awaited::RootLoad, Step::AfterRootLoad)
                } else {
                    Vec::new()
                }
            }
            Step::EndBehavior => self.end_behavior(),
            Step::Destroy => {
                self.destroy();
                Vec::new()
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // A box's lifecycle

    /// G1: after an onStart hook, the box's content loads and the input is forwarded into
    /// it, if the hook succeeded and no stop came meanwhile.
    #[inline]
    fn after_start(&mut self, id: OpId, b: BoxId, input: u16, value: Value) -> Vec<Step> {
        let ok = self.work.ops.get(id).is_some_and(|op| op.last_ok);
        self.steps_after_start(ok, b, input, value)
    }

    /// What follows an onStart hook that returned `ok` (G1).
    #[inline(always)]
    fn steps_after_start(&self, ok: bool, b: BoxId, input: u16, value: Value) -> Vec<Step> {
        if !ok {
            // G1 step 4: a failed hook releases and stops there.
            vec![Step::Release(b)]
        } else if self.boxes[b.0 as usize].last == LastCommand::Start
            && self.boxes[b.0 as usize].holds
        {
            vec![Step::LoadContent(b), Step::Forward(b, input, value)]
        } else {
            value.discard();
            Vec::new()
        }
    }

    /// R9: the resources never came: `onResourceError` if the box defines it, else
    /// `onStopped`.
    fn resource_error(&mut self, b: BoxId) -> Vec<Step> {
        if self.code[b.0 as usize].defines(&Hook::ResourceError) {
            vec![Step::Hook(b, Hook::ResourceError)]
        } else {
            vec![Step::FireStopped(b)]
        }
    }

    /// Fires the box's `onStopped` output, if it has one (R9, R12).
    fn fire_stopped(&mut self, b: BoxId) {
        if let Some(o) = self
            .shared
            .graph
            .node(b)
            .outputs
            .iter()
            .position(|o| o.name == "onStopped")
        {
            self.fire(b, o as u16, Value::None);
        }
    }

    /// R7, if box `b` is loaded: its resources are released, onUnload is called, and its
    /// content unloads after it returns.
    #[inline]
    fn unload_box(&mut self, id: OpId, b: BoxId) -> Vec<Step> {
        let state = &mut self.boxes[b.0 as usize];
        if !state.loaded {
            return Vec::new();
        }
        state.loaded = false;
        state.last = LastCommand::Stop;
        self.shared.set_loaded(b, false);
        let has_content = !matches!(self.shared.graph.node(b).content, Content::None);
        self.forget_resource_waits(b);
        // G6: resources are released before onUnload, called at once (as the op's
        // next step would), and the content is unloaded after it returns.
        self.release(b);
        self.dispatch(id, b, Hook::Unload);
        if has_content {
            vec![Step::UnloadContent(b)]
        } else {
            Vec::new()
        }
    }

    // ---------------------------------------------------------------------------------------
    // A box's content and its diagrams

    /// R8 step 3: the diagram(s) of a holder load, or a timeline loads and plays.
    #[inline]
    fn load_content(&mut self, b: BoxId) -> Vec<Step> {
        match &self.shared.graph.node(b).content {
            Content::None => Vec::new(),
            Content::Holder(ds) => ds.iter().map(|d| Step::LoadDiagram(*d, None)).collect(),
            Content::Timeline(_) => self.timeline_load_and_play(b),
        }
    }

    /// A box's content unloads: its timeline stops, and every diagram not unloaded yet
    /// unloads.
    fn unload_content(&mut self, b: BoxId) -> Vec<Step> {
        let mut steps = match &self.shared.graph.node(b).content {
            Content::Timeline(_) => self.timeline_stop(b),
            _ => Vec::new(),
        };
        // Every diagram of b that is not unloaded yet, also those another op is
        // unloading right now (waiting for it, so b counts as unloaded only then).
        steps.extend(
            self.content_diagrams(b)
                .into_iter()
                .filter(|(d, _)| self.diagrams.phases[d.0 as usize] != Phase::Unloaded)
                .map(|(d, kf)| Step::UnloadDiagram(d, kf)),
        );
        steps
    }

    /// R14: diagram `d` loads (its boxes, its links, its owner's onLoad inputs), after a
    /// load or unload of it under way.
    #[inline]
    fn load_diagram(&mut self, id: OpId, d: DiagramId, kf: Option<(String, String)>) -> Vec<Step> {
        match self.diagrams.phases[d.0 as usize] {
            Phase::Loaded => Vec::new(),
            Phase::Loading { .. } | Phase::Unloading => {
                self.park(id, Awaited::Diagram(d), Step::LoadDiagram(d, kf))
            }
            // Stopped since this load was asked for: nothing to load.
            Phase::Unloaded if !self.wants_loaded(d) => Vec::new(),
            Phase::Unloaded => {
                let g = &self.shared.graph;
                self.diagrams.phases[d.0 as usize] = Phase::Loading { cancelled: false };
                self.diagrams.load_ops.insert(d, id);
                let owner = g.diagram(d).owner;
                if let Some((layer, keyframe)) = kf {
                    self.record(owner, TraceStep::KfOn { layer, keyframe });
                }
                let mut steps: Vec<Step> = g
                    .diagram(d)
                    .boxes
                    .iter()
                    .map(|b| Step::LoadBoxIn(d, *b))
                    .collect();
                steps.push(Step::LinksOn(d));
                for (i, input) in g.node(owner).inputs.iter().enumerate() {
                    if input.nature == InputNature::OnLoad {
                        steps.push(Step::ForwardInto(d, i as u16, Value::None));
                    }
                }
                steps.push(Step::LoadDone(d));
                steps
            }
        }
    }

    /// R15: diagram `d` unloads (its links, then its boxes), after an unload under way; a
    /// load under way is cancelled and waited for.
    #[inline]
    fn unload_diagram(
        &mut self,
        id: OpId,
        d: DiagramId,
        kf: Option<(String, String)>,
    ) -> Vec<Step> {
        match self.diagrams.phases[d.0 as usize] {
            Phase::Unloaded => Vec::new(),
            Phase::Loading { .. } => {
                self.diagrams.phases[d.0 as usize] = Phase::Loading { cancelled: true };
                self.finish_cancelled_load(d);
                self.park(id, Awaited::Diagram(d), Step::UnloadDiagram(d, kf))
            }
            Phase::Unloading => self.park(id, Awaited::Diagram(d), Step::UnloadDiagram(d, kf)),
            Phase::Loaded => {
                let g = &self.shared.graph;
                self.diagrams.phases[d.0 as usize] = Phase::Unloading;
                let owner = g.diagram(d).owner;
                if let Some((layer, keyframe)) = kf {
                    self.record(owner, TraceStep::KfOff { layer, keyframe });
                }
                let mut steps = vec![Step::LinksOff(d)];
                steps.extend(g.diagram(d).boxes.iter().map(|b| Step::UnloadBox(*b)));
                steps.push(Step::UnloadDone(d));
                steps
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Links and signals

    /// The links of diagram `d` carry signals from now on (and its memory events
    /// subscribe), unless its load was cancelled.
    #[inline]
    fn turn_links_on(&mut self, d: DiagramId) {
        if self.diagrams.phases[d.0 as usize] != (Phase::Loading { cancelled: false }) {
            return;
        }
        self.diagrams.links_on[d.0 as usize] = true;
        self.record(self.shared.graph.diagram(d).owner, TraceStep::LinksOn);
        self.subscribe_memory(d);
    }

    /// The links of diagram `d` carry no more signals (and its memory events unsubscribe).
    #[inline]
    fn turn_links_off(&mut self, d: DiagramId) {
        if !self.diagrams.links_on[d.0 as usize] {
            // A cancelled load never turned them on.
            return;
        }
        self.diagrams.links_on[d.0 as usize] = false;
        self.record(self.shared.graph.diagram(d).owner, TraceStep::LinksOff);
        self.unsubscribe_memory(d);
    }

    /// Owner input `input` of diagram `d` carries `value` along its links inside `d`.
    #[inline]
    fn forward_into(&mut self, d: DiagramId, input: u16, value: Value) {
        // A load cancelled by an unload forwards nothing more.
        if self.diagrams.links_on[d.0 as usize]
            && self.diagrams.phases[d.0 as usize] != (Phase::Loading { cancelled: true })
        {
            let g = Arc::clone(&self.shared.graph);
            let owner = g.diagram(d).owner;
            let targets = &g.diagram(d).from_owner[usize::from(input)];
            self.links(d, End::OwnerInput(owner, input), targets, value);
        }
    }

    // ---------------------------------------------------------------------------------------
    // The behavior as a whole

    /// R3: the root's onStart is stimulated, unless a stop came while the root loaded (it
    /// unloads the root, nothing starts).
    fn start_root(&mut self) {
        if self.life.stopping {
            return;
        }
        if let Some(i) = self
            .shared
            .graph
            .node(Graph::ROOT)
            .inputs
            .iter()
            .position(|p| p.nature == InputNature::OnStart)
        {
            self.stimulate(Graph::ROOT, i as u16, Value::None, false);
        }
    }

    /// R5: `beh(end)`; the root unloads (after its onLoad, which may be what fired its
    /// Stopped output) and every box is destroyed.
    fn end_behavior(&mut self) -> Vec<Step> {
        if self.life.stopping {
            // A stop came first (R4): it unloads and destroys everything, and the run ends
            // stopped. The root's Stopped output, fired before the stop but still on its way
            // (behind a loop of links), ends nothing more.
            return Vec::new();
        }
        self.life.ended = true;
        self.life.stopping = true;
        self.mark_ended();
        self.record_behavior("end");
        // The root's onLoad may be what fired its Stopped output: it returns first.
        vec![
            Step::AfterRootLoad,
            Step::UnloadBox(Graph::ROOT),
            Step::Destroy,
        ]
    }

    /// R4 step 2: every box is destroyed, once, and the run ends with its outcome.
    fn destroy(&mut self) {
        if self.life.destroyed {
            return;
        }
        self.life.destroyed = true;
        for b in 0..self.shared.graph.boxes.len() {
            self.record(BoxId(b as u32), TraceStep::Del);
        }
        let outcome = if self.life.ended {
            Outcome::Finished
        } else {
            self.life.stop_reason.take().unwrap_or(Outcome::Stopped)
        };
        if self.owns_time {
            // Every box is gone: the run's trace ends here (docs/trace.md). Before the
            // outcome, which wakes box code still sleeping on the clock: what it does then
            // is not the run's.
            self.shared.trace.close();
        }
        self.finish(outcome);
    }

    /// R6, if box `b` is not loaded: it counts as loaded and its onLoad is called at once
    /// (as the op's next step would: nothing runs in between, no allocation per box).
    fn load_box(&mut self, id: OpId, b: BoxId) {
        let state = &mut self.boxes[b.0 as usize];
        if state.loaded {
            return;
        }
        state.loaded = true;
        state.last = LastCommand::None;
        self.shared.set_loaded(b, true);
        self.dispatch(id, b, Hook::Load);
    }

    /// Op `id` waits for `what` to finish; `step` runs again after it.
    pub(super) fn park(&mut self, id: OpId, what: Awaited, step: Step) -> Vec<Step> {
        if let Some(op) = self.work.ops.get_mut(id) {
            op.waiting = true;
        }
        self.diagrams.parked.entry(what).or_default().push(id);
        vec![step]
    }

    /// `what` finished: the ops waiting for it go on, in arrival order. No step follows.
    pub(super) fn unpark(&mut self, what: Awaited) -> Vec<Step> {
        for id in self.diagrams.parked.remove(&what).unwrap_or_default() {
            self.work.resume(id);
        }
        Vec::new()
    }

    /// The load or unload of diagram `d` finished, leaving it in `phase`: the ops waiting
    /// for it go on. No step follows.
    fn diagram_done(&mut self, d: DiagramId, phase: Phase) -> Vec<Step> {
        self.diagrams.phases[d.0 as usize] = phase;
        if phase == Phase::Loaded {
            self.diagrams.load_ops.remove(&d);
        }
        self.unpark(Awaited::Diagram(d))
    }

    /// The load of `d` was just cancelled by an unload, which waits for it. If the loading
    /// operation is not waiting for a hook, it is only ready under operations it started (its
    /// onLoad links), which run first, and a loop of links among them never ends: it goes
    /// to the top of the ready stack, to run its last (cancelled, so empty) steps now. The
    /// unload then goes on and unloads the boxes of that loop.
    fn finish_cancelled_load(&mut self, d: DiagramId) {
        let Some(&load) = self.diagrams.load_ops.get(&d) else {
            return;
        };
        if self.work.ops.get(load).is_none_or(|op| op.waiting) {
            return;
        }
        if let Some(at) = self.work.ready.iter().rposition(|r| *r == Ready::Op(load)) {
            self.work.ready.remove(at);
            self.work.ready.push(Ready::Op(load));
        }
    }

    /// Every diagram of box `b`, with its layer and keyframe names for a timeline's.
    pub(super) fn content_diagrams(&self, b: BoxId) -> Vec<(DiagramId, Option<(String, String)>)> {
        match &self.shared.graph.node(b).content {
            Content::None => Vec::new(),
            Content::Holder(ds) => ds.iter().map(|d| (*d, None)).collect(),
            Content::Timeline(t) => t
                .layers
                .iter()
                .flat_map(|l| {
                    l.keyframes
                        .iter()
                        .map(|k| (k.diagram, Some((l.name.clone(), k.name.clone()))))
                })
                .collect(),
        }
    }

    /// The diagrams of box `b` whose links are on.
    pub(super) fn loaded_diagrams(&self, b: BoxId) -> Vec<DiagramId> {
        self.content_diagrams(b)
            .into_iter()
            .map(|(d, _)| d)
            .filter(|d| self.diagrams.links_on[d.0 as usize])
            .collect()
    }

    /// Whether diagram `d` should still be loaded when a load asked earlier gets its turn:
    /// its owner is loaded and still started (a holder, G1), or the keyframe is still
    /// active in its timeline (T1). A stop in between makes the pending load void.
    pub(super) fn wants_loaded(&self, d: DiagramId) -> bool {
        let owner = self.shared.graph.diagram(d).owner;
        let state = &self.boxes[owner.0 as usize];
        if !state.loaded {
            return false;
        }
        match &self.shared.graph.node(owner).content {
            Content::None => false,
            Content::Holder(_) => state.last == LastCommand::Start,
            Content::Timeline(t) => {
                let active = self.timelines.get(&owner).map(|s| s.active.as_slice());
                t.layers.iter().enumerate().any(|(li, l)| {
                    l.keyframes.iter().enumerate().any(|(ki, k)| {
                        k.diagram == d
                            && active.and_then(|a| a.get(li)).copied().flatten() == Some(ki)
                    })
                })
            }
        }
    }
}
