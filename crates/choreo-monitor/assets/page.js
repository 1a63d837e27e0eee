// choreo's live monitor: The page's frame: its skeleton (panes, tabs, header, report), the navigation between
// diagrams, the outline of every box, and what is redrawn when the state changes.
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { SPEEDS, KINDS, h, s, icon, fmtSeconds } from "./dom.js";

export class Page {
  // ------------------------------------------------------------ navigation

  rootStack() {
    const roots = [...this.boxes.values()].filter((b) => !b.parent);
    const root = roots.find((b) => b.path === "root") || roots[0];
    if (!root) return [];
    return [this.frameFor(root)];
  }

  frameFor(box, pin = null) {
    if (box.content.kind === "timeline") {
      const layers = box.content.layers || [];
      let layer = layers[0]?.name ?? null;
      if (pin !== null) {
        const where = this.diagramOf.get(pin);
        if (where?.layer) layer = where.layer;
      }
      return { box: box.id, layer, pin };
    }
    return { box: box.id, layer: null, pin };
  }

  enterable(box) {
    const c = box.content;
    if (c.kind === "holder") return (c.diagrams || []).length > 0;
    if (c.kind === "timeline") return (c.layers || []).some((l) => (l.keyframes || []).length > 0);
    return false;
  }

  /** The diagram a navigation frame shows, and a note when it is not the loaded one. */
  frameDiagram(f) {
    const box = this.boxes.get(f?.box);
    if (!box) return { diagram: null };
    const c = box.content;
    if (c.kind === "holder") {
      const ds = c.diagrams || [];
      return { diagram: f.pin !== null && ds.includes(f.pin) ? f.pin : ds[0] ?? null };
    }
    if (c.kind === "timeline") {
      const layer = (c.layers || []).find((l) => l.name === f.layer) || (c.layers || [])[0];
      if (!layer) return { diagram: null };
      const loaded = this.keyframes.get(box.path) || new Set();
      const kfs = layer.keyframes || [];
      const on = kfs.find((k) => loaded.has(`${layer.name}/${k.name}`));
      if (f.pin !== null) {
        const k = kfs.find((k) => k.diagram === f.pin);
        if (k) return { diagram: k.diagram, keyframe: k, layer, loaded: k === on };
      }
      if (on) return { diagram: on.diagram, keyframe: on, layer, loaded: true };
      const k = kfs[0];
      return { diagram: k ? k.diagram : null, keyframe: k, layer, loaded: false };
    }
    return { diagram: null };
  }

  enter(box, pin = null) {
    if (!this.enterable(box)) return;
    this.stack.push(this.frameFor(box, pin));
    this.renderDiagram();
  }

  /** Show the diagram that holds `path`, and make it pulse. */
  reveal(path) {
    const box = this.byPath.get(path);
    if (!box) return;
    const chain = [];
    let b = box;
    while (b && b.parent) {
      const parent = this.boxes.get(b.parent.box);
      if (!parent) break;
      chain.unshift(this.frameFor(parent, parent.content.kind === "timeline" ? b.parent.diagram : b.parent.diagram));
      b = parent;
    }
    if (!chain.length) {
      if (this.enterable(box)) chain.push(this.frameFor(box));
      else return;
    }
    this.stack = chain;
    this.renderDiagram();
    for (const el of this.boxEls.get(path) || []) {
      if (!el.closest || !el.closest("#diagram")) continue;
      el.classList.remove("focus");
      void el.getBoundingClientRect();
      el.classList.add("focus");
      setTimeout(() => el.classList.remove("focus"), 1600);
    }
  }

  // ------------------------------------------------------------ DOM skeleton

  buildDom() {
    const root = this.root;
    root.textContent = "";
    root.classList.add("monitor");

    // header
    this.el = {};
    const E = this.el;
    E.title = h("h1", { id: "title", text: "choreo monitor" });
    E.mode = h("span", { id: "mode", class: "badge" });
    E.conn = h("span", { id: "conn", class: "conn" });
    E.model = h("span", { id: "model", class: "badge dim" });
    E.time = h("span", { id: "time", class: "stat" });
    E.dropped = h("span", { id: "dropped", class: "stat" });
    E.stop = h("button", { id: "stop", class: "danger", type: "button", title: "stop the behavior (as Ctrl-C)", onclick: () => this.onStop() });
    E.outcome = h("span", { id: "outcome", class: "outcome", hidden: true });
    E.toast = h("span", { id: "toast", class: "toast", hidden: true });
    E.header = h("header", { id: "header" },
      h("div", { class: "brand" }, s("svg", { class: "logo", viewBox: "0 0 16 16", width: 16, height: 16 }, s("path", { d: "M8 1l7 7-7 7-7-7z", fill: "currentColor" })), E.title),
      E.mode, E.conn, E.model,
      h("span", { class: "sep" }),
      h("label", { class: "statl", text: "time" }), E.time,
      h("label", { class: "statl", text: "missed" }), E.dropped,
      E.toast,
      h("span", { class: "grow" }),
      E.outcome, E.stop);

    // replay controls
    E.rpBack = h("button", { id: "replay-back", type: "button", title: "step back one event", onclick: () => this.replayStep(-1) }, icon("back"));
    E.rpPlay = h("button", { id: "replay-play", type: "button", class: "primary", onclick: () => this.replayToggle() }, icon("play"), " Play");
    E.rpFwd = h("button", { id: "replay-forward", type: "button", title: "step forward one event", onclick: () => this.replayStep(1) }, icon("forward"));
    E.rpSpeed = h("select", { id: "replay-speed", title: "speed", onchange: () => this.send({ type: "speed", speed: Number(E.rpSpeed.value) }) },
      SPEEDS.map((sp) => h("option", { value: sp, text: `${sp}×`, selected: sp === 1 })));
    E.rpSeek = h("input", { id: "replay-seek", type: "range", min: 0, max: 0, value: 0, step: 1 });
    E.rpSeek.addEventListener("input", () => { this.seeking = true; E.rpPos.textContent = `seq ${E.rpSeek.value} / ${E.rpSeek.max}`; });
    E.rpSeek.addEventListener("change", () => { this.seeking = false; this.send({ type: "seek", seq: Number(E.rpSeek.value) }); });
    E.rpPos = h("span", { id: "replay-pos", class: "stat" });
    E.replay = h("div", { id: "replay", hidden: true },
      h("span", { class: "statl", text: "replay" }), E.rpBack, E.rpPlay, E.rpFwd, E.rpSpeed, E.rpSeek, E.rpPos);

    // report
    E.reportText = h("pre", { id: "report-text" });
    E.reportSummary = h("summary", { text: "Report" });
    E.report = h("details", { id: "report", hidden: true }, E.reportSummary, E.reportText);

    // diagram pane
    E.crumbs = h("nav", { id: "crumbs", class: "crumbs" });
    E.diagTools = h("div", { class: "diag-tools" });
    E.fit = h("button", { id: "fit", type: "button", title: "fit the diagram in view", text: "Fit", onclick: () => this.fitView() });
    E.svg = s("svg", { id: "diagram-svg", class: "diagram-svg" });
    E.diagNote = h("div", { class: "diag-note", hidden: true });
    E.diagram = h("section", { id: "diagram", class: "pane" },
      h("div", { class: "pane-head" }, E.crumbs, E.diagTools, h("span", { class: "grow" }), E.fit),
      h("div", { class: "diag-wrap" }, E.svg, E.diagNote));
    this.setupPanZoom();

    // timelines
    E.tlList = h("div", { id: "timeline-list" });
    E.timelines = h("section", { id: "timelines", class: "pane" },
      h("div", { class: "pane-head" }, h("h2", { text: "Timelines" })), E.tlList);

    // robot
    E.saidText = h("div", { id: "said-text", class: "said-text" });
    E.saidMeta = h("div", { id: "said-meta", class: "said-meta" });
    E.said = h("div", { id: "said", class: "bubble empty" }, E.saidText, E.saidMeta);
    E.robot3d = h("div", { id: "robot3d" });
    E.posture = h("span", { id: "posture", class: "badge dim", title: "the posture it last reached" });
    E.fell = h("div", { id: "fell", class: "fell", hidden: true });
    E.ledList = h("span", { id: "leds", class: "leds" });
    E.jointsBody = h("tbody");
    E.jointsTable = h("table", { id: "joints", class: "joints" },
      h("thead", {}, h("tr", {}, h("th", { text: "joint" }), h("th", { class: "num", text: "rad" }), h("th", { class: "num", text: "deg" }))),
      E.jointsBody);
    E.jointsEmpty = h("div", { class: "empty-note", text: "no joint has moved" });
    E.robot = h("section", { id: "robot", class: "pane" },
      h("div", { class: "pane-head" }, h("h2", { text: "Robot" }), E.posture, h("span", { class: "grow" }), E.ledList),
      h("div", { class: "robot-body" }, E.said, E.fell, E.robot3d, E.jointsEmpty, E.jointsTable));

    // bottom: log / boxes
    E.tabLog = h("button", { type: "button", class: "tab active", "data-tab": "log", text: "Log", onclick: () => this.showTab("log") });
    E.tabBoxes = h("button", { type: "button", class: "tab", "data-tab": "outline", text: "Boxes", onclick: () => this.showTab("outline") });
    E.tabStack = h("button", { type: "button", class: "tab", "data-tab": "stack", text: "Stack", hidden: true, onclick: () => this.showTab("stack") });
    E.fPath = h("input", { id: "filter-path", type: "search", placeholder: "box path…", oninput: () => this.rebuildLog() });
    E.fKind = h("select", { id: "filter-kind", onchange: () => this.rebuildLog() },
      h("option", { value: "", text: "all events" }), KINDS.map((k) => h("option", { value: k, text: k })));
    E.fText = h("input", { id: "filter-text", type: "search", placeholder: "text…", oninput: () => this.rebuildLog() });
    E.follow = h("input", { id: "follow", type: "checkbox", checked: true });
    E.logCount = h("span", { id: "log-count", class: "stat" });
    E.logFilters = h("div", { class: "log-filters" }, E.fPath, E.fKind, E.fText,
      h("label", { class: "check" }, E.follow, " follow"), E.logCount);
    E.logRows = h("div", { id: "log-rows", class: "log-rows" });
    E.logRows.addEventListener("scroll", () => {
      const r = E.logRows;
      const atBottom = r.scrollHeight - r.scrollTop - r.clientHeight < 30;
      if (this.programScroll) { this.programScroll = false; return; }
      E.follow.checked = atBottom;
    });
    E.logRows.addEventListener("click", (e) => {
      const p = e.target.closest?.(".ev-path");
      if (p && p.textContent) this.reveal(p.textContent);
    });
    E.log = h("div", { id: "log", class: "tabpane" }, E.logRows);
    E.outline = h("div", { id: "outline", class: "tabpane", hidden: true });
    E.stackTree = h("div", { id: "stack-tree", class: "stack-tree" });
    E.stackNow = h("div", { id: "stack-now", class: "stack-now" });
    E.stackStrip = s("svg", { id: "stack-strip", class: "stack-strip" });
    E.stackEvents = h("div", { id: "stack-events", class: "log-rows stack-events" });
    E.stackPane = h("div", { id: "stack", class: "tabpane stack-pane", hidden: true },
      E.stackTree, h("div", { class: "stack-side" }, E.stackNow, E.stackStrip, E.stackEvents));
    E.bottom = h("section", { id: "bottom", class: "pane" },
      h("div", { class: "pane-head" }, E.tabLog, E.tabBoxes, E.tabStack, h("span", { class: "grow" }), E.logFilters),
      E.log, E.outline, E.stackPane);

    E.main = h("main", { id: "main" }, E.diagram, E.timelines, E.robot, E.bottom);
    root.append(E.header, E.replay, E.report, E.main);
    this.setupLayout();


    this.renderHeader();
    this.renderRobot();
    this.renderTimelines();
    this.updateLogCount();
    setInterval(() => this.tick(), 500);
  }

  showTab(which) {
    const E = this.el;
    E.log.hidden = which !== "log";
    E.outline.hidden = which !== "outline";
    E.stackPane.hidden = which !== "stack";
    if (E.props) E.props.hidden = which !== "props";
    if (E.problems) E.problems.hidden = which !== "problems";
    if (E.talk) E.talk.hidden = which !== "talk";
    E.tabTalk?.classList.toggle("active", which === "talk");
    E.tabProps?.classList.toggle("active", which === "props");
    E.tabProblems?.classList.toggle("active", which === "problems");
    E.logFilters.hidden = which !== "log";
    E.tabLog.classList.toggle("active", which === "log");
    E.tabBoxes.classList.toggle("active", which === "outline");
    E.tabStack.classList.toggle("active", which === "stack");
  }

  tick() {
    if (this.connState === "reconnecting") this.renderHeader();
    this.renderSaidState();
  }

  toast(text) {
    const t = this.el.toast;
    t.textContent = text;
    t.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { t.hidden = true; }, 4000);
  }

  onStop() {
    if (this.send({ type: "stop" })) {
      this.stopping = true;
      this.renderHeader();
    }
  }

  // ------------------------------------------------------------ header, report, replay

  renderHeader() {
    const E = this.el;
    if (!E) return;
    const hello = this.hello;
    // an editor's page has no run: no time, no events missed
    const mode = this.editing() ? "edit" : hello?.mode ?? "…";
    for (const el of [E.time, E.dropped, E.time.previousSibling, E.dropped.previousSibling]) el.hidden = this.editing();
    E.title.textContent = hello?.title || "choreo monitor";
    E.mode.textContent = mode;
    E.mode.className = `badge mode-${mode}`;
    E.mode.dataset.mode = mode;
    let conn = this.connState;
    let connText = conn;
    if (conn === "reconnecting") {
      const left = Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000));
      connText = `reconnecting in ${left} s`;
    } else if (conn === "open") connText = "connected";
    else if (conn === "closed") connText = "disconnected";
    E.conn.textContent = connText;
    E.conn.className = `conn conn-${conn}`;
    E.conn.dataset.state = conn;
    const model = hello ? hello.model : undefined;
    E.model.textContent = model === undefined ? "" : model === null ? "no robot" : String(model).toUpperCase();
    E.model.hidden = model === undefined;
    E.time.textContent = this.timeNs === null ? "–" : fmtSeconds(this.timeNs);
    E.time.dataset.ns = this.timeNs ?? "";
    E.dropped.textContent = String(this.dropped || 0);
    E.dropped.classList.toggle("warn", (this.dropped || 0) > 0);
    E.stop.hidden = mode === "replay" || !!this.ended || this.editing();
    E.stop.disabled = conn !== "open" || this.stopping;
    const stopLabel = this.stopping ? "stopping…" : "Stop";
    if (E.stop.dataset.label !== stopLabel) {
      E.stop.dataset.label = stopLabel;
      E.stop.replaceChildren(...(this.stopping ? [] : [icon("stop"), " "]), stopLabel);
    }
    if (this.ended) {
      E.outcome.hidden = false;
      E.outcome.textContent = this.ended.outcome;
      E.outcome.dataset.outcome = this.ended.outcome;
      E.outcome.className = `outcome ${/^finish/.test(this.ended.outcome) ? "good" : /(error|fail|crash)/i.test(this.ended.outcome) ? "bad" : "meh"}`;
    } else {
      E.outcome.hidden = true;
    }
    E.replay.hidden = mode !== "replay";
  }

  renderReport() {
    const E = this.el;
    if (this.ended && this.ended.report) {
      E.report.hidden = false;
      E.reportSummary.textContent = `Report – ${this.ended.outcome}`;
      E.reportText.textContent = this.ended.report;
    } else {
      E.report.hidden = true;
    }
  }

  // ------------------------------------------------------------ refresh after state changes

  refreshAll(keyframesChanged = true) {
    this.renderHeader();
    if (keyframesChanged && this.drawn && this.drawn.frame) {
      const want = this.frameDiagram(this.drawn.frame).diagram;
      if (want !== this.drawn.diagram) this.renderDiagram();
      else this.renderDiagramTools();
    } else if (this.drawn?.frame) {
      this.renderDiagramTools();
    }
    this.updateBoxes();
    this.renderTimelines();
    this.renderRobot();
    this.renderReport();
    this.renderStack();
  }

  registerBoxEl(path, el) {
    let set = this.boxEls.get(path);
    if (!set) this.boxEls.set(path, (set = new Set()));
    set.add(el);
  }

  // An exploration's coverage (`choreo explore --monitor`): the boxes some path entered,
  // and why each other one never was.
  onCoverage(msg) {
    const entered = Array.isArray(msg.entered) ? msg.entered : [];
    const never = Array.isArray(msg.never_entered) ? msg.never_entered : [];
    this.coverage = {
      entered: new Set(entered.filter((p) => typeof p === "string")),
      never: new Map(never.filter((n) => n && typeof n.path === "string").map((n) => [n.path, String(n.why ?? "")])),
    };
    this.updateBoxes();
  }

  updateBoxes() {
    const litPaths = [...this.lit];
    const cov = this.coverage;
    for (const [path, els] of this.boxEls) {
      const lit = this.lit.has(path);
      const err = this.errors.get(path);
      const prefix = path + "/";
      const inner = !lit && litPaths.some((p) => p.startsWith(prefix));
      for (const el of els) {
        if (!el.isConnected) { els.delete(el); continue; }
        el.classList.toggle("lit", lit);
        el.classList.toggle("inner-lit", inner);
        el.classList.toggle("error", err !== undefined);
        el.classList.toggle("covered", cov?.entered.has(path) ?? false);
        el.classList.toggle("uncovered", cov?.never.has(path) ?? false);
        if (err !== undefined) el.setAttribute("data-error", err);
        else el.removeAttribute("data-error");
        const t = el.querySelector(":scope > title");
        if (t) t.textContent = this.boxTitle(path);
        else if (!(el instanceof SVGElement)) el.title = this.boxTitle(path);
        const prog = el.querySelector?.(":scope > .tl-progress");
        if (prog) this.updateProgress(path, prog);
      }
    }
  }

  boxTitle(path) {
    const b = this.byPath.get(path);
    let t = b ? `${b.name}\n${path}` : path;
    if (b && this.enterable(b)) t += `\n(click to open its ${b.content.kind === "timeline" ? "keyframes" : "diagram"})`;
    if (this.lit.has(path)) t += "\nrunning";
    const e = this.errors.get(path);
    if (e !== undefined) t += `\nerror: ${e}`;
    if (this.coverage?.entered.has(path)) t += "\nentered on a path explored";
    const why = this.coverage?.never.get(path);
    if (why !== undefined) t += `\nnever entered: ${why}`;
    return t;
  }

  // ------------------------------------------------------------ outline (every box)

  buildOutline() {
    const E = this.el;
    E.outline.textContent = "";
    const kids = new Map();
    for (const b of this.boxes.values()) {
      const k = b.parent ? b.parent.box : null;
      if (!kids.has(k)) kids.set(k, []);
      kids.get(k).push(b);
    }
    const ul = (parent) => {
      const list = kids.get(parent);
      if (!list) return null;
      return h("ul", {}, list.map((b) => {
        const item = h("div", { class: `ob kind-${b.content.kind}`, "data-path": b.path, title: this.boxTitle(b.path) },
          h("span", { class: "dot" }), h("span", { class: "ob-name", text: b.name }),
          h("span", { class: "ob-kind", text: b.content.kind === "none" ? "" : b.content.kind }));
        item.addEventListener("click", () => this.reveal(b.path));
        this.registerBoxEl(b.path, item);
        return h("li", {}, item, ul(b.id));
      }));
    };
    const tree = ul(null);
    if (tree) E.outline.append(tree);
  }
}
