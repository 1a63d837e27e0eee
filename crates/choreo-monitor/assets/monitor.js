// choreo's live monitor: the page's main module (ES modules, no framework, no network but its
// own WebSocket). The protocol is docs/monitor.md; the trace events docs/trace.md.
//
//   import { start } from "./monitor.js";
//   start({ socketFactory: (url) => new WebSocket(url), url: "ws://host/ws" });
//
// Loaded by itself (index.html) it starts at once with a real WebSocket at /ws (plus the
// page's ?token=), unless <body data-autostart="false"> (fixture.html starts it itself).
//
// The page's parts, each a module of methods mixed into Monitor here: page.js (the frame,
// navigation), layout.js (the panes' sizes), diagram.js, timelines.js, robot.js (the robot
// pane; robot3d.js draws it in 3D), log.js, stack.js, replay.js, edit.js, timeline_edit.js,
// dialog_edit.js and project_edit.js (`choreo edit`; code.js its code editor, drafts.js
// what is typed, talk.js the Talk tab); dom.js holds the helpers they share. This file
// keeps the connection and the protocol's messages.

import { s, isNum } from "./dom.js";
import { Page } from "./page.js";
import { Replay } from "./replay.js";
import { DiagramPane } from "./diagram.js";
import { TimelinesPane } from "./timelines.js";
import { RobotPane } from "./robot.js";
import { LogPane } from "./log.js";
import { StackPane } from "./stack.js";
import { EditPane } from "./edit.js";
import { TimelineEditPane } from "./timeline_edit.js";
import { DialogEditPane } from "./dialog_edit.js";
import { ProjectEditPane } from "./project_edit.js";
import { DraftsPane } from "./drafts.js";
import { TalkPane } from "./talk.js";
import { PanelsPane } from "./panels.js";
import { CurvesPane } from "./curves.js";
import { LayoutPane } from "./layout.js";

export { describeEvent } from "./log.js";

function defaultUrl() {
  const loc = window.location;
  const proto = loc.protocol === "https:" ? "wss:" : "ws:";
  const token = new URLSearchParams(loc.search).get("token");
  return `${proto}//${loc.host}/ws` + (token ? `?token=${encodeURIComponent(token)}` : "");
}

export class Monitor {
  constructor(opts = {}) {
    this.opts = opts;
    this.root = opts.root || document.getElementById("app") || document.body;
    this.socketFactory = opts.socketFactory || ((url) => new WebSocket(url));
    this.url = opts.url || defaultUrl();

    // connection
    this.socket = null;
    this.connState = "connecting";
    this.retries = 0;
    this.retryTimer = null;
    this.retryAt = 0;

    // what the server told
    this.hello = null;
    this.robotChain = null; // the robot message, for the 3D view
    this.stackShape = null; // the stack message (a behavior stack's run)
    this.boxes = new Map(); // id -> box
    this.byPath = new Map(); // path -> box
    this.diagrams = new Map(); // id -> diagram
    this.diagramOf = new Map(); // diagram id -> {owner box, layer, keyframe}
    this.timelines = []; // timeline boxes
    this.resetRunState();
    this.ended = null;
    this.replay = null;

    // what the page remembers
    this.lastOut = new Map(); // "path\0port" -> value of its last out
    this.lastIn = new Map(); // "path\0port" -> value of its last in
    this.log = []; // events, by seq
    this.lastSeq = -1;
    this.stack = []; // navigation frames {box, layer, pin}
    this.drawn = null; // what the diagram pane shows
    this.boxEls = new Map(); // path -> Set of elements that show the box
    this.portEls = new Map(); // "path\0in|out\0port" -> element
    this.linkEls = new Map(); // "owner|from|to" -> [link groups]
    this.flashTimers = new Map();
    this.stopping = false;

    this.buildDom();
    this.connect();
  }

  resetRunState() {
    this.lit = new Set();
    this.frames = new Map();
    this.keyframes = new Map(); // path -> Set("layer/keyframe")
    this.joints = new Map(); // name -> value
    this.jointOrder = [];
    this.said = null;
    this.leds = null; // {colours: {group: [r, g, b]}, seconds}
    this.posture = null;
    this.balance = null; // {com, floor, polygon, standing, margin}: FRAME_TORSO, m
    this.fell = null; // {text, time_ns}
    this.stackNow = null; // {tick, time_ns, stack, in_scope, active}
    this.stackSegments = new Map(); // id -> {name, depth, from_ns, to_ns, why}
    this.stackEvents = [];
    this.errors = new Map();
    this.dropped = 0;
    this.timeNs = null;
    this.seq = null;
  }

  // ------------------------------------------------------------ connection

  connect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.setConn("connecting");
    let sock;
    try {
      sock = this.socketFactory(this.url);
    } catch (e) {
      console.error("monitor: cannot open the socket", e);
      this.scheduleReconnect();
      return;
    }
    this.socket = sock;
    sock.onopen = () => {
      if (this.socket !== sock) return;
      this.setConn("open");
    };
    sock.onmessage = (e) => {
      if (this.socket !== sock) return;
      this.receive(e.data);
    };
    sock.onerror = () => {
      /* the close that follows says it all */
    };
    sock.onclose = () => {
      if (this.socket !== sock) return;
      this.socket = null;
      if (this.ended && this.hello?.mode !== "replay") {
        this.setConn("closed");
        return;
      }
      this.scheduleReconnect();
    };
  }

  scheduleReconnect() {
    const delay = Math.min(10000, 500 * 2 ** this.retries);
    this.retries += 1;
    this.retryAt = Date.now() + delay;
    this.setConn("reconnecting");
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  send(msg) {
    const sock = this.socket;
    if (!sock || (sock.readyState !== undefined && sock.readyState !== 1)) {
      this.toast("not connected");
      return false;
    }
    try {
      sock.send(JSON.stringify(msg));
      return true;
    } catch (e) {
      console.error("monitor: send failed", e);
      return false;
    }
  }

  setConn(state) {
    this.connState = state;
    this.renderHeader();
  }

  // ------------------------------------------------------------ messages

  receive(data) {
    let msg;
    try {
      msg = typeof data === "string" ? JSON.parse(data) : data;
    } catch (e) {
      console.error("monitor: a message that is not JSON", e, data);
      return;
    }
    if (!msg || typeof msg !== "object" || typeof msg.type !== "string") {
      console.error("monitor: a message without a type", msg);
      return;
    }
    try {
      this.handle(msg);
    } catch (e) {
      console.error(`monitor: a malformed ${msg.type} message`, e, msg);
    }
  }

  handle(msg) {
    switch (msg.type) {
      case "hello": return this.onHello(msg);
      case "structure": return this.onStructure(msg);
      case "snapshot": return this.onSnapshot(msg);
      case "batch": return this.onBatch(msg);
      case "ended": return this.onEnded(msg);
      case "replay": return this.onReplay(msg);
      case "refused":
        this.renderPlay(false);
        return this.toast(`refused: ${msg.why ?? "?"}`);
      case "robot": return this.onRobot(msg);
      case "stack": return this.onStack(msg);
      case "edited": return this.onEdited(msg);
      case "history": return this.onHistory(msg);
      case "drafts": return this.onDrafts(msg);
      case "draft_kept": return this.onDraftKept(msg);
      case "world_done": return this.onWorldDone(msg);
      case "box": return this.onBox(msg);
      case "library": return this.onLibrary(msg);
      case "problems": return this.onProblems(msg);
      case "script_problems": return this.onScriptProblems(msg);
      case "playing": return this.renderPlay(true);
      case "dialog": return this.onDialog(msg);
      case "text_problems": return this.onTextProblems(msg);
      case "completions": return this.onCompletions(msg);
      case "tried": return this.onTried(msg);
      case "project": return this.onProject(msg);
      case "coverage": return this.onCoverage(msg);
      default: return; // unknown types are for a newer page
    }
  }

  onHello(msg) {
    this.hello = msg;
    this.retries = 0;
    if (msg.protocol !== undefined && msg.protocol !== 1) {
      console.warn("monitor: protocol", msg.protocol, "(this page speaks 1)");
    }
    if (msg.title) document.title = `${msg.title} – choreo monitor`;
    this.stopping = false;
    this.setupEditing();
    this.renderHeader();
  }

  onRobot(msg) {
    // for the 3D view (robot3d.js), kept for it if it loads after this message
    this.robotChain = msg;
    try {
      document.dispatchEvent(new CustomEvent("choreo-monitor:robot", { detail: msg }));
    } catch { /* a listener's problem, not ours */ }
  }

  onStructure(msg) {
    const boxes = Array.isArray(msg.boxes) ? msg.boxes : [];
    const diagrams = Array.isArray(msg.diagrams) ? msg.diagrams : [];
    const previous = this.stack.map((f) => ({ ...f, path: this.boxes.get(f.box)?.path }));
    this.boxes = new Map();
    this.byPath = new Map();
    this.diagrams = new Map();
    this.diagramOf = new Map();
    for (const b of boxes) {
      if (!b || typeof b !== "object") continue;
      b.inputs = Array.isArray(b.inputs) ? b.inputs : [];
      b.outputs = Array.isArray(b.outputs) ? b.outputs : [];
      b.parameters = Array.isArray(b.parameters) ? b.parameters : [];
      b.content = b.content && typeof b.content === "object" ? b.content : { kind: "none" };
      this.boxes.set(b.id, b);
      this.byPath.set(b.path, b);
    }
    for (const d of diagrams) {
      if (!d || typeof d !== "object") continue;
      d.boxes = Array.isArray(d.boxes) ? d.boxes : [];
      d.links = Array.isArray(d.links) ? d.links : [];
      this.diagrams.set(d.id, d);
    }
    for (const b of this.boxes.values()) {
      const c = b.content;
      if (c.kind === "holder") {
        for (const d of c.diagrams || []) this.diagramOf.set(d, { box: b });
      } else if (c.kind === "timeline") {
        for (const l of c.layers || []) {
          for (const k of l.keyframes || []) {
            if (k.diagram !== undefined && k.diagram !== null) {
              this.diagramOf.set(k.diagram, { box: b, layer: l.name, keyframe: k.name });
            }
          }
        }
      }
    }
    this.timelines = [...this.boxes.values()]
      .filter((b) => b.content.kind === "timeline")
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

    // keep where the user was if those boxes still exist
    const kept = [];
    for (const f of previous) {
      const b = f.path !== undefined ? this.byPath.get(f.path) : undefined;
      if (!b) break;
      kept.push({ box: b.id, layer: f.layer, pin: this.diagrams.has(f.pin) ? f.pin : null });
    }
    this.stack = kept.length ? kept : this.rootStack();
    this.keepView = this.editing() && kept.length > 0;
    this.drawn = null;
    this.buildOutline();
    this.buildTimelines();
    this.renderDiagram();
  }

  onSnapshot(msg) {
    this.resetRunState();
    for (const p of msg.lit || []) this.lit.add(p);
    for (const [p, f] of Object.entries(msg.frames || {})) this.frames.set(p, f);
    for (const [p, ks] of Object.entries(msg.keyframes || {})) this.keyframes.set(p, new Set(ks || []));
    this.mergeJoints(msg.joints);
    this.said = msg.said || null;
    this.setLeds(msg.leds, true);
    this.posture = msg.posture ?? null;
    this.balance = msg.balance ?? null;
    this.fell = msg.fell ?? null;
    this.mergeStack(msg.stack);
    this.addStackEvents(msg.stack_recent);
    for (const [p, t] of Object.entries(msg.errors || {})) if (t !== null && t !== undefined) this.errors.set(p, String(t));
    this.dropped = msg.dropped || 0;
    this.seq = isNum(msg.seq) ? msg.seq : null;
    this.timeNs = isNum(msg.time_ns) ? msg.time_ns : null;
    if (msg.ended) this.ended = msg.ended;
    else if (this.hello?.mode === "replay" || this.editing()) this.ended = null; // a new run

    // the log: keep what came before the snapshot's recent events, then those
    const recent = Array.isArray(msg.recent) ? msg.recent.filter((e) => e && typeof e === "object") : [];
    const first = recent.length ? recent[0].seq : isNum(msg.seq) ? msg.seq + 1 : Infinity;
    const upto = isNum(msg.seq) ? msg.seq : Infinity;
    this.log = this.log.filter((e) => e.seq < first && e.seq <= upto);
    this.lastSeq = this.log.length ? this.log[this.log.length - 1].seq : -1;
    this.lastOut.clear();
    this.lastIn.clear();
    for (const e of this.log) this.noteValues(e);
    this.addEvents(recent, false);
    this.rebuildLog();

    this.refreshAll();
  }

  onBatch(msg) {
    const ch = msg.changes || {};
    for (const p of ch.lit || []) {
      this.lit.add(p);
      this.errors.delete(p); // marked "until it is lit again"
    }
    for (const p of ch.unlit || []) this.lit.delete(p);
    for (const [p, f] of Object.entries(ch.frames || {})) {
      if (f === null) this.frames.delete(p);
      else this.frames.set(p, f);
    }
    for (const [p, ks] of Object.entries(ch.keyframes || {})) this.keyframes.set(p, new Set(ks || []));
    if (ch.joints) this.mergeJoints(ch.joints);
    if (ch.said !== undefined) this.said = ch.said;
    if (ch.said && this.editing()) this.talkSaid(ch.said);
    if (ch.leds) this.setLeds(ch.leds, false);
    if (ch.posture !== undefined) this.posture = ch.posture;
    if (ch.balance !== undefined) this.balance = ch.balance;
    if (ch.fell !== undefined) this.fell = ch.fell;
    if (ch.stack) this.mergeStack(ch.stack);
    this.addStackEvents(msg.stack_events);
    for (const [p, t] of Object.entries(ch.errors || {})) {
      if (t === null || t === undefined || t === "") this.errors.delete(p);
      else this.errors.set(p, String(t));
    }
    if (isNum(msg.dropped)) this.dropped = msg.dropped;
    const events = Array.isArray(msg.events) ? msg.events.filter((e) => e && typeof e === "object") : [];
    if (events.length) {
      const last = events[events.length - 1];
      if (isNum(last.time_ns)) this.timeNs = last.time_ns;
      if (isNum(last.seq)) this.seq = last.seq;
    }
    this.addEvents(events, true);
    for (const e of events) this.animateEvent(e);
    const kfChanged = ch.keyframes && Object.keys(ch.keyframes).length > 0;
    this.refreshAll(kfChanged);
  }

  onEnded(msg) {
    this.ended = { outcome: msg.outcome ?? "ended", report: msg.report ?? "" };
    this.stopping = false;
    this.renderPlay(false);
    this.renderHeader();
    this.renderReport();
  }

  onReplay(msg) {
    this.replay = {
      seq: isNum(msg.seq) ? msg.seq : 0,
      last: isNum(msg.last) ? msg.last : 0,
      playing: !!msg.playing,
      speed: isNum(msg.speed) ? msg.speed : 1,
    };
    this.renderReplay();
  }

  setLeds(leds, snapshot) {
    if (!leds || typeof leds !== "object" || !leds.colours || typeof leds.colours !== "object") return;
    this.leds = { colours: { ...(this.leds?.colours || {}), ...leds.colours }, seconds: isNum(leds.seconds) ? leds.seconds : 0 };
    // for the 3D view (robot3d.js): document.addEventListener("choreo-monitor:leds", ...)
    try {
      document.dispatchEvent(new CustomEvent("choreo-monitor:leds", { detail: { colours: leds.colours, seconds: snapshot ? 0 : this.leds.seconds } }));
    } catch { /* a listener's problem, not ours */ }
  }

  onStack(msg) {
    this.stackShape = {
      base: String(msg.base ?? ""),
      behaviors: new Map((Array.isArray(msg.behaviors) ? msg.behaviors : [])
        .filter((b) => b && typeof b.name === "string")
        .map((b) => [b.name, { name: b.name, class: String(b.class ?? ""), delegates: Array.isArray(b.delegates) ? b.delegates.map(String) : [] }])),
    };
    this.el.tabStack.hidden = false;
    this.showTab("stack");
    this.renderStack();
  }

  mergeStack(st) {
    if (!st || typeof st !== "object") return;
    this.stackNow = {
      tick: st.tick, time_ns: st.time_ns,
      stack: Array.isArray(st.stack) ? st.stack : [],
      in_scope: new Set(Array.isArray(st.in_scope) ? st.in_scope : []),
      active: new Set(Array.isArray(st.active) ? st.active : []),
    };
    for (const seg of Array.isArray(st.segments) ? st.segments : []) {
      if (seg && isNum(seg.id)) this.stackSegments.set(seg.id, seg);
    }
    while (this.stackSegments.size > 10000) this.stackSegments.delete(this.stackSegments.keys().next().value);
  }

  addStackEvents(events) {
    if (!Array.isArray(events) || !events.length) return;
    for (const e of events) if (e && typeof e === "object") this.stackEvents.push(e);
    if (this.stackEvents.length > 2000) this.stackEvents.splice(0, this.stackEvents.length - 2000);
  }

  mergeJoints(j) {
    if (!j || !Array.isArray(j.names)) return;
    const vals = Array.isArray(j.values) ? j.values : [];
    j.names.forEach((n, i) => {
      if (!this.joints.has(n)) this.jointOrder.push(n);
      this.joints.set(n, vals[i]);
    });
  }

  noteValues(e) {
    if (e.event === "out") this.lastOut.set(`${e.path}\0${e.port}`, e.value);
    else if (e.event === "in") this.lastIn.set(`${e.path}\0${e.port}`, e.value);
  }
}

// Each part's methods become the Monitor's, as if written in its class.
for (const part of [Page, Replay, DiagramPane, TimelinesPane, RobotPane, LogPane, StackPane, EditPane, TimelineEditPane, DialogEditPane, ProjectEditPane, DraftsPane, TalkPane, LayoutPane, PanelsPane, CurvesPane]) {
  for (const name of Object.getOwnPropertyNames(part.prototype)) {
    if (name !== "constructor") {
      Object.defineProperty(Monitor.prototype, name, Object.getOwnPropertyDescriptor(part.prototype, name));
    }
  }
}

/** Start the monitor. Options: socketFactory(url) → a WebSocket-like object, url, root. */
export function start(opts = {}) {
  const m = new Monitor(opts);
  window.choreoMonitor = m;
  return m;
}

if (typeof document !== "undefined" && document.body && document.body.dataset.autostart !== "false") {
  start();
}
