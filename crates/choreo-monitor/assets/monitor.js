// choreo's live monitor: the page's script (an ES module, no framework, no network but its
// own WebSocket). The protocol is docs/monitor.md; the trace events docs/trace.md.
//
//   import { start } from "./monitor.js";
//   start({ socketFactory: (url) => new WebSocket(url), url: "ws://host/ws" });
//
// Loaded by itself (index.html) it starts at once with a real WebSocket at /ws (plus the
// page's ?token=), unless <body data-autostart="false"> (fixture.html starts it itself).

const SVGNS = "http://www.w3.org/2000/svg";
const BOX_W = 124;
const BOX_HEAD = 24;
const PORT_DY = 15;
const BOX_MIN_H = 60;
const OWNER_GAP = 120;
const LOG_DOM_CAP = 5000;
const LOG_STORE_CAP = 50000;
const FLASH_MS = 300;
const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
const KINDS = [
  "new", "del", "call", "ret", "err", "in", "out", "deliver", "dropped", "param",
  "links_on", "links_off", "timeline", "frame", "kf_on", "kf_off", "robot_call",
  "robot_return", "resource", "log", "motion", "joints", "behavior", "said", "leds",
  "posture",
];

// ---------------------------------------------------------------- small DOM helpers

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  appendKids(el, kids);
  return el;
}

function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVGNS, tag);
  setAttrs(el, attrs);
  appendKids(el, kids);
  return el;
}

function setAttrs(el, attrs) {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

function appendKids(el, kids) {
  for (const k of kids.flat()) {
    if (k === undefined || k === null || k === false) continue;
    el.append(k instanceof Node ? k : String(k));
  }
}

/** Small icons drawn as SVG (no icon font: the page works offline with any fonts). */
function icon(name) {
  const paths = {
    play: "M4 2.5v11l9-5.5z",
    pause: "M4 2.5h3v11H4zM9 2.5h3v11H9z",
    back: "M3 2.5h2v11H3zM14 2.5v11L6 8z",
    forward: "M11 2.5h2v11h-2zM2 2.5v11L10 8z",
    stop: "M3.5 3.5h9v9h-9z",
  };
  return s("svg", { class: "icon", viewBox: "0 0 16 16", width: 12, height: 12, "aria-hidden": "true" },
    s("path", { d: paths[name] || "", fill: "currentColor" }));
}

function fmtSeconds(ns) {
  if (typeof ns !== "number" || !isFinite(ns)) return "–";
  return (ns / 1e9).toFixed(3) + " s";
}

function fmtValue(v, max = 160) {
  let t;
  try {
    t = v === undefined ? "" : JSON.stringify(v);
  } catch {
    t = String(v);
  }
  if (t === undefined) t = String(v);
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

function isNum(v) {
  return typeof v === "number" && isFinite(v);
}

function truncate(t, n) {
  return t.length > n ? t.slice(0, n - 1) + "…" : t;
}

function defaultUrl() {
  const loc = window.location;
  const proto = loc.protocol === "https:" ? "wss:" : "ws:";
  const token = new URLSearchParams(loc.search).get("token");
  return `${proto}//${loc.host}/ws` + (token ? `?token=${encodeURIComponent(token)}` : "");
}

/** The one-line description of a trace event (what the log shows after its kind). */
export function describeEvent(ev) {
  switch (ev.event) {
    case "call": return ev.hook ?? "";
    case "ret": return `${ev.hook ?? ""}${ev.ok === false ? "  ✗ raised" : ""}`;
    case "err": return `${ev.hook ?? ""}: ${ev.text ?? ""}`;
    case "in":
    case "out": return `${ev.port} = ${fmtValue(ev.value)}`;
    case "deliver": return `${ev.from} → ${ev.to}`;
    case "dropped": return `${ev.port} (links off)`;
    case "param": return `${ev.name} = ${fmtValue(ev.value)}`;
    case "timeline": return ev.frame === undefined || ev.frame === null ? ev.command : `${ev.command} ${ev.frame}`;
    case "frame": return String(ev.frame);
    case "kf_on":
    case "kf_off": return `${ev.layer}/${ev.keyframe}`;
    case "robot_call": return `${ev.method}(${(ev.args || []).map((a) => fmtValue(a, 80)).join(", ")})`;
    case "robot_return": return ev.ok === false
      ? `${ev.method}  ✗ raised${ev.error ? `: ${truncate(String(ev.error), 200)}` : ""}`
      : `${ev.method}  → ${ev.value === undefined ? "ok" : fmtValue(ev.value, 120)}`;
    case "resource": return `${ev.what} ${(ev.names || []).join(", ")}`;
    case "log": return `[${ev.level}] ${ev.message}`;
    case "motion": return `${ev.what} from frame ${ev.frame} [${(ev.joints || []).join(", ")}] ${isNum(ev.seconds) ? ev.seconds.toFixed(3) + " s" : ""}`;
    case "joints": {
      const names = ev.names || [];
      const vals = ev.values || [];
      const parts = names.slice(0, 6).map((n, i) => `${n}=${isNum(vals[i]) ? vals[i].toFixed(3) : "?"}`);
      return `${names.length} joints: ${parts.join(" ")}${names.length > 6 ? " …" : ""}`;
    }
    case "behavior": return ev.what ?? "";
    case "said": return `"${ev.text}"${isNum(ev.seconds) ? ` (${ev.seconds.toFixed(2)} s)` : ""}`;
    case "leds": return `${(ev.groups || []).join(", ")}${isNum(ev.seconds) ? ` in ${ev.seconds.toFixed(2)} s` : ""}`;
    case "posture": return String(ev.name ?? "");
    default: {
      const rest = { ...ev };
      for (const k of ["seq", "time_ns", "path", "event"]) delete rest[k];
      const t = fmtValue(rest, 200);
      return t === "{}" ? "" : t;
    }
  }
}

// ---------------------------------------------------------------- the monitor

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
      case "refused": return this.toast(`refused: ${msg.why ?? "?"}`);
      case "robot": return this.onRobot(msg);
      case "stack": return this.onStack(msg);
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
    this.mergeStack(msg.stack);
    this.addStackEvents(msg.stack_recent);
    for (const [p, t] of Object.entries(msg.errors || {})) if (t !== null && t !== undefined) this.errors.set(p, String(t));
    this.dropped = msg.dropped || 0;
    this.seq = isNum(msg.seq) ? msg.seq : null;
    this.timeNs = isNum(msg.time_ns) ? msg.time_ns : null;
    if (msg.ended) this.ended = msg.ended;
    else if (this.hello?.mode === "replay") this.ended = null;

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
    if (ch.leds) this.setLeds(ch.leds, false);
    if (ch.posture !== undefined) this.posture = ch.posture;
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
    E.ledList = h("span", { id: "leds", class: "leds" });
    E.jointsBody = h("tbody");
    E.jointsTable = h("table", { id: "joints", class: "joints" },
      h("thead", {}, h("tr", {}, h("th", { text: "joint" }), h("th", { class: "num", text: "rad" }), h("th", { class: "num", text: "deg" }))),
      E.jointsBody);
    E.jointsEmpty = h("div", { class: "empty-note", text: "no joint has moved" });
    E.robot = h("section", { id: "robot", class: "pane" },
      h("div", { class: "pane-head" }, h("h2", { text: "Robot" }), E.posture, h("span", { class: "grow" }), E.ledList),
      h("div", { class: "robot-body" }, E.said, E.robot3d, E.jointsEmpty, E.jointsTable));

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
    const mode = hello?.mode ?? "…";
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
    E.stop.hidden = mode === "replay" || !!this.ended;
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

  renderReplay() {
    const E = this.el;
    const r = this.replay;
    if (!r) return;
    E.rpPlay.replaceChildren(icon(r.playing ? "pause" : "play"), r.playing ? " Pause" : " Play");
    E.rpPlay.dataset.playing = r.playing ? "true" : "false";
    E.rpSeek.max = String(r.last);
    if (!this.seeking) E.rpSeek.value = String(r.seq);
    E.rpPos.textContent = `seq ${r.seq} / ${r.last}`;
    let best = SPEEDS[0];
    for (const sp of SPEEDS) if (Math.abs(sp - r.speed) < Math.abs(best - r.speed)) best = sp;
    if (document.activeElement !== E.rpSpeed) E.rpSpeed.value = String(best);
    E.rpBack.disabled = r.seq <= 0;
    E.rpFwd.disabled = r.seq >= r.last;
  }

  replayToggle() {
    const playing = this.replay?.playing;
    this.send({ type: playing ? "pause" : "play" });
  }

  replayStep(d) {
    const seq = this.replay?.seq ?? this.seq ?? 0;
    if (d < 0) this.send({ type: "seek", seq: Math.max(0, seq - 1) });
    else this.send({ type: "step", count: 1 });
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

  updateBoxes() {
    const litPaths = [...this.lit];
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
    return t;
  }

  // ------------------------------------------------------------ diagram

  renderDiagram() {
    const E = this.el;
    // forget what the old drawing registered
    for (const [, els] of this.boxEls) for (const el of els) if (el.closest && el.closest("#diagram")) els.delete(el);
    this.portEls.clear();
    this.linkEls.clear();
    E.svg.textContent = "";
    const frame = this.stack[this.stack.length - 1];
    const { diagram: did } = this.frameDiagram(frame);
    const d = this.diagrams.get(did);
    this.drawn = { frame, diagram: did ?? null };
    this.renderCrumbs();
    this.renderDiagramTools();
    if (!d) {
      E.diagNote.hidden = false;
      E.diagNote.textContent = this.boxes.size ? "no diagram here" : "waiting for the behavior's structure…";
      this.view = null;
      return;
    }
    E.diagNote.hidden = true;
    const layout = this.layoutDiagram(d);
    this.layout = layout;
    const defs = s("defs", {},
      s("marker", { id: "arrow", viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" },
        s("path", { d: "M0,0 L8,4 L0,8 z", class: "arrowhead" })));
    const gLinks = s("g", { class: "links" });
    const gBoxes = s("g", { class: "boxes" });
    const gOwner = s("g", { class: "owner-ports" });
    this.gView = s("g", { class: "view" }, gOwner, gLinks, gBoxes);
    E.svg.append(defs, this.gView);

    // owner ports
    const owner = this.boxes.get(d.owner);
    for (const p of layout.ownerIn) {
      const g = s("g", { class: `owner-port in nature-${p.nature}`, "data-port": p.name },
        s("title", { text: `${owner?.name ?? "(parent)"} input ${p.name} (${p.nature})` }),
        s("rect", { x: p.x - p.w, y: p.y - 10, width: p.w, height: 20, rx: 10 }),
        s("text", { x: p.x - p.w / 2, y: p.y + 4, "text-anchor": "middle", text: truncate(p.name, 16) }),
        s("circle", { cx: p.x, cy: p.y, r: 4.5, class: "port" }));
      if (owner) this.portEls.set(`${owner.path}\0in\0${p.name}`, g);
      gOwner.append(g);
    }
    for (const p of layout.ownerOut) {
      const g = s("g", { class: `owner-port out nature-${p.nature}`, "data-port": p.name },
        s("title", { text: `${owner?.name ?? "(parent)"} output ${p.name} (${p.nature})` }),
        s("rect", { x: p.x, y: p.y - 10, width: p.w, height: 20, rx: 10 }),
        s("text", { x: p.x + p.w / 2, y: p.y + 4, "text-anchor": "middle", text: truncate(p.name, 16) }),
        s("circle", { cx: p.x, cy: p.y, r: 4.5, class: "port" }));
      if (owner) this.portEls.set(`${owner.path}\0out\0${p.name}`, g);
      gOwner.append(g);
    }

    // boxes
    for (const L of layout.boxes.values()) {
      const b = L.box;
      const kind = b.content.kind;
      const g = s("g", {
        class: `box kind-${kind}${this.enterable(b) ? " enterable" : ""}`,
        "data-path": b.path,
        "data-box": b.id,
        transform: `translate(${L.x},${L.y})`,
      });
      g.append(s("title", { text: this.boxTitle(b.path) }));
      g.append(s("rect", { class: "box-bg", x: 0, y: 0, width: L.w, height: L.h, rx: 8 }));
      g.append(s("text", { class: "box-name", x: L.w / 2, y: 16, "text-anchor": "middle", text: truncate(b.name, 17) }));
      if (kind === "holder" && this.enterable(b)) {
        g.append(s("g", { class: "icon" },
          s("rect", { x: L.w / 2 - 9, y: L.h - 17, width: 11, height: 8, rx: 1.5 }),
          s("rect", { x: L.w / 2 - 2, y: L.h - 13, width: 11, height: 8, rx: 1.5 })));
      }
      if (kind === "timeline") {
        const prog = s("g", { class: "tl-progress" },
          s("rect", { class: "tlp-track", x: 12, y: L.h - 12, width: L.w - 24, height: 4, rx: 2 }),
          s("rect", { class: "tlp-fill", x: 12, y: L.h - 12, width: 0, height: 4, rx: 2 }));
        prog.dataset.w = String(L.w - 24);
        g.append(prog);
      }
      g.append(s("circle", { class: "err-badge", cx: L.w - 2, cy: 2, r: 7 }), s("text", { class: "err-mark", x: L.w - 2, y: 6, "text-anchor": "middle", text: "!" }));
      for (const p of L.left) {
        const c = s("circle", { class: `port ${p.kind} nature-${p.nature}`, cx: 0, cy: p.y - L.y, r: p.kind === "parameter" ? 4 : 5, "data-port": p.name },
          s("title", { text: `${p.kind === "parameter" ? "parameter" : "input"} ${p.name} (${p.nature})${this.hello?.control && p.kind === "input" ? "\nclick to stimulate" : ""}` }));
        if (p.kind === "parameter") c.classList.add("param");
        if (this.hello?.control && p.kind === "input") {
          c.classList.add("stimulable");
          c.addEventListener("click", (e) => {
            e.stopPropagation();
            if (this.send({ type: "stimulate", path: b.path, input: p.name, value: null })) this.toast(`stimulated ${b.name}.${p.name}`);
          });
        }
        this.portEls.set(`${b.path}\0in\0${p.name}`, c);
        g.append(c);
      }
      for (const p of L.right) {
        const c = s("circle", { class: `port output nature-${p.nature}`, cx: L.w, cy: p.y - L.y, r: 5, "data-port": p.name },
          s("title", { text: `output ${p.name} (${p.nature})` }));
        this.portEls.set(`${b.path}\0out\0${p.name}`, c);
        g.append(c);
      }
      g.addEventListener("click", (e) => {
        if (this.dragged || e.detail > 1) return; // a double-click enters once
        e.stopPropagation();
        if (this.enterable(b)) this.enter(b);
      });
      this.registerBoxEl(b.path, g);
      gBoxes.append(g);
    }

    // links
    const ownerPath = owner?.path ?? "";
    for (const l of d.links) {
      const a = this.linkEnd(layout, l.from, "from");
      const z = this.linkEnd(layout, l.to, "to");
      if (!a || !z) continue;
      const dx = Math.max(40, Math.abs(z.x - a.x) * 0.5) + (z.x < a.x ? 60 : 0);
      const path = `M${a.x},${a.y} C${a.x + dx},${a.y} ${z.x - dx},${z.y} ${z.x},${z.y}`;
      const fromName = this.endName(l.from, "from");
      const toName = this.endName(l.to, "to");
      const title = s("title", { text: `${fromName} → ${toName}` });
      const g = s("g", { class: `link to-${l.to?.kind ?? "input"}`, "data-from": fromName, "data-to": toName },
        title,
        s("path", { class: "hit", d: path }),
        s("path", { class: "wire", d: path, "marker-end": "url(#arrow)" }));
      g.addEventListener("mouseenter", () => { title.textContent = this.linkTitle(owner, l, fromName, toName); });
      const key = `${ownerPath}|${fromName}|${toName}`;
      if (!this.linkEls.has(key)) this.linkEls.set(key, []);
      this.linkEls.get(key).push(g);
      gLinks.append(g);
    }

    this.bounds = layout.bounds;
    this.fitView();
    this.updateBoxes();
  }

  endName(end, side) {
    if (!end || end.box === null || end.box === undefined) return `(parent).${end?.port}`;
    const b = this.boxes.get(end.box);
    return `${b ? b.name : "?"}.${end.port}`;
  }

  linkTitle(owner, l, fromName, toName) {
    let v;
    let has = false;
    if (l.from.box === null || l.from.box === undefined) {
      const k = `${owner?.path}\0${l.from.port}`;
      has = this.lastIn.has(k);
      v = this.lastIn.get(k);
    } else {
      const b = this.boxes.get(l.from.box);
      const k = `${b?.path}\0${l.from.port}`;
      has = this.lastOut.has(k);
      v = this.lastOut.get(k);
    }
    return `${fromName} → ${toName}\n${has ? `last value: ${fmtValue(v, 300)}` : "nothing carried yet"}`;
  }

  linkEnd(layout, end, side) {
    if (!end) return null;
    if (end.box === null || end.box === undefined) {
      const list = side === "from" ? layout.ownerIn : layout.ownerOut;
      const p = list.find((q) => q.name === end.port);
      return p ? { x: side === "to" ? p.x - 5 : p.x, y: p.y } : null;
    }
    const L = layout.boxes.get(end.box);
    if (!L) return null;
    if (side === "from") {
      const p = L.right.find((q) => q.name === end.port);
      return p ? { x: L.x + L.w, y: p.y } : null;
    }
    const p = L.left.find((q) => q.name === end.port && (end.kind !== "parameter" || q.kind === "parameter")) || L.left.find((q) => q.name === end.port);
    return p ? { x: L.x - 5, y: p.y } : null; // the arrow stops at the port's edge
  }

  layoutDiagram(d) {
    const boxes = d.boxes.map((id) => this.boxes.get(id)).filter(Boolean);
    const inDiagram = new Set(boxes.map((b) => b.id));
    // ports, with any a link names that the structure did not list
    const ports = new Map();
    for (const b of boxes) {
      const left = b.inputs.map((p) => ({ name: p.name, nature: p.nature || "other", kind: "input" }))
        .concat(b.parameters.map((p) => ({ name: p.name, nature: p.nature || "parameter", kind: "parameter" })));
      const right = b.outputs.map((p) => ({ name: p.name, nature: p.nature || "other", kind: "output" }));
      ports.set(b.id, { left, right });
    }
    const owner = this.boxes.get(d.owner);
    const ownerIn = (owner?.inputs || []).map((p) => ({ name: p.name, nature: p.nature || "other" }));
    const ownerOut = (owner?.outputs || []).map((p) => ({ name: p.name, nature: p.nature || "other" }));
    for (const l of d.links) {
      const f = l.from || {};
      const t = l.to || {};
      if (f.box === null || f.box === undefined) {
        if (!ownerIn.some((p) => p.name === f.port)) ownerIn.push({ name: f.port, nature: "other" });
      } else if (inDiagram.has(f.box)) {
        const P = ports.get(f.box);
        if (!P.right.some((p) => p.name === f.port)) P.right.push({ name: f.port, nature: "other", kind: "output" });
      }
      if (t.box === null || t.box === undefined) {
        if (!ownerOut.some((p) => p.name === t.port)) ownerOut.push({ name: t.port, nature: "other" });
      } else if (inDiagram.has(t.box)) {
        const P = ports.get(t.box);
        const kind = t.kind === "parameter" ? "parameter" : "input";
        if (!P.left.some((p) => p.name === t.port)) P.left.push({ name: t.port, nature: kind === "parameter" ? "parameter" : "other", kind });
      }
    }
    // positions (Choregraphe's x/y; boxes without one in a row below)
    const placed = boxes.filter((b) => isNum(b.x) && isNum(b.y));
    let minX = Math.min(...placed.map((b) => b.x));
    let minY = Math.min(...placed.map((b) => b.y));
    let maxX = Math.max(...placed.map((b) => b.x + BOX_W));
    let maxY = Math.max(...placed.map((b) => b.y + BOX_MIN_H));
    if (!placed.length) { minX = 0; minY = 0; maxX = BOX_W; maxY = BOX_MIN_H; }
    const out = new Map();
    let rowX = minX;
    const rowY = placed.length ? maxY + 80 : 0;
    for (const b of boxes) {
      const P = ports.get(b.id);
      const hgt = Math.max(BOX_MIN_H, BOX_HEAD + PORT_DY * Math.max(P.left.length, P.right.length) + 10);
      let x, y;
      if (isNum(b.x) && isNum(b.y)) { x = b.x; y = b.y; }
      else { x = rowX; y = rowY; rowX += BOX_W + 50; }
      const place = (list) => list.map((p, i) => ({ ...p, y: y + BOX_HEAD + 4 + PORT_DY * i + PORT_DY / 2 }));
      out.set(b.id, { box: b, x, y, w: BOX_W, h: hgt, left: place(P.left), right: place(P.right) });
    }
    let bx0 = Infinity, by0 = Infinity, bx1 = -Infinity, by1 = -Infinity;
    for (const L of out.values()) {
      bx0 = Math.min(bx0, L.x); by0 = Math.min(by0, L.y);
      bx1 = Math.max(bx1, L.x + L.w); by1 = Math.max(by1, L.y + L.h);
    }
    if (!out.size) { bx0 = 0; by0 = 0; bx1 = 200; by1 = 100; }
    const midY = (by0 + by1) / 2;
    const pillW = (p) => Math.max(56, 7 * Math.min(16, p.name.length) + 18);
    const spread = (list, x) => list.map((p, i) => ({ ...p, x, w: pillW(p), y: midY + (i - (list.length - 1) / 2) * 34 }));
    const inX = bx0 - OWNER_GAP;
    const outX = bx1 + OWNER_GAP;
    const oIn = spread(ownerIn, inX);
    const oOut = spread(ownerOut, outX);
    const wIn = Math.max(0, ...oIn.map((p) => p.w));
    const wOut = Math.max(0, ...oOut.map((p) => p.w));
    const yAll = [...oIn, ...oOut].map((p) => p.y);
    const bounds = {
      x0: (oIn.length ? inX - wIn : bx0) - 30,
      y0: Math.min(by0, ...yAll.map((y) => y - 12)) - 30,
      x1: (oOut.length ? outX + wOut : bx1) + 30,
      y1: Math.max(by1, ...yAll.map((y) => y + 12)) + 30,
    };
    return { boxes: out, ownerIn: oIn, ownerOut: oOut, bounds };
  }

  updateProgress(path, prog) {
    const b = this.byPath.get(path);
    const fill = prog.querySelector(".tlp-fill");
    if (!b || !fill) return;
    const c = b.content;
    const f = this.frames.get(path);
    const w = Number(prog.dataset.w || 0);
    const span = Math.max(1, (c.end ?? 1) - (c.start ?? 0));
    const p = f === undefined ? 0 : Math.min(1, Math.max(0, (f - (c.start ?? 0)) / span));
    fill.setAttribute("width", String(w * p));
  }

  renderCrumbs() {
    const E = this.el;
    E.crumbs.textContent = "";
    this.stack.forEach((f, i) => {
      const b = this.boxes.get(f.box);
      if (!b) return;
      if (i > 0) E.crumbs.append(h("span", { class: "crumb-sep", text: "›" }));
      const last = i === this.stack.length - 1;
      let label = b.name;
      if (b.content.kind === "timeline" && f.layer && (b.content.layers || []).length > 1) label += ` · ${f.layer}`;
      E.crumbs.append(h("button", {
        type: "button",
        class: `crumb${last ? " current" : ""}`,
        "data-path": undefined,
        "data-crumb": b.path,
        text: label,
        onclick: () => {
          this.stack = this.stack.slice(0, i + 1);
          this.renderDiagram();
        },
      }));
    });
  }

  renderDiagramTools() {
    const E = this.el;
    const T = E.diagTools;
    const frame = this.drawn?.frame;
    const b = this.boxes.get(frame?.box);
    T.textContent = "";
    if (!b) return;
    const c = b.content;
    if (c.kind === "holder" && (c.diagrams || []).length > 1) {
      const sel = h("select", { id: "diagram-pick", onchange: () => { frame.pin = Number(sel.value); this.renderDiagram(); } },
        c.diagrams.map((d, i) => h("option", { value: d, text: `diagram ${i + 1}`, selected: d === this.drawn.diagram })));
      T.append(sel);
    }
    if (c.kind === "timeline") {
      const info = this.frameDiagram(frame);
      const layers = c.layers || [];
      if (layers.length > 1) {
        const sel = h("select", { id: "layer-pick", title: "layer", onchange: () => { frame.layer = sel.value; frame.pin = null; this.renderDiagram(); } },
          layers.map((l) => h("option", { value: l.name, text: l.name, selected: l.name === frame.layer })));
        T.append(sel);
      }
      const layer = info.layer;
      if (layer && (layer.keyframes || []).length) {
        const loaded = this.keyframes.get(b.path) || new Set();
        const sel = h("select", { id: "keyframe-pick", title: "keyframe", onchange: () => { frame.pin = sel.value === "" ? null : Number(sel.value); this.renderDiagram(); } },
          h("option", { value: "", text: "follow the loaded keyframe", selected: frame.pin === null }),
          layer.keyframes.map((k) => h("option", {
            value: k.diagram, selected: frame.pin === k.diagram,
            text: `${k.name} @${k.index}${loaded.has(`${layer.name}/${k.name}`) ? " (loaded)" : ""}`,
          })));
        T.append(sel);
        if (info.keyframe && !info.loaded) T.append(h("span", { class: "note", text: "not loaded" }));
      }
      const f = this.frames.get(b.path);
      const span = Math.max(1, (c.end ?? 1) - (c.start ?? 0));
      const p = f === undefined ? 0 : Math.min(1, Math.max(0, (f - (c.start ?? 0)) / span));
      T.append(h("span", { class: "diag-cursor" },
        h("span", { class: "mini-bar" }, h("span", { class: "mini-fill", style: `width:${(p * 100).toFixed(1)}%` })),
        h("span", { class: "stat", text: `frame ${f ?? "–"} / ${c.start ?? "?"}–${c.end ?? "?"}` })));
    }
  }

  // pan and zoom over the SVG's viewBox

  setupPanZoom() {
    const svg = this.el.svg;
    let drag = null;
    svg.addEventListener("mousedown", (e) => {
      if (e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, v: this.view ? { ...this.view } : null };
      this.dragged = false;
    });
    window.addEventListener("mousemove", (e) => {
      if (!drag || !drag.v) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!this.dragged && Math.hypot(dx, dy) < 4) return;
      this.dragged = true;
      svg.classList.add("panning");
      const k = this.unitsPerPixel();
      this.view = { ...drag.v, x: drag.v.x - dx * k, y: drag.v.y - dy * k };
      this.fitted = false;
      this.applyView();
    });
    window.addEventListener("mouseup", () => {
      if (!drag) return;
      drag = null;
      svg.classList.remove("panning");
      setTimeout(() => { this.dragged = false; }, 0);
    });
    svg.addEventListener("wheel", (e) => {
      if (!this.view) return;
      e.preventDefault();
      const pt = this.clientToUser(e.clientX, e.clientY);
      const f = Math.exp(Math.sign(e.deltaY) * Math.min(Math.abs(e.deltaY), 200) * 0.0025);
      const v = this.view;
      const w = Math.min(20000, Math.max(60, v.w * f));
      const r = w / v.w;
      this.view = { x: pt.x - (pt.x - v.x) * r, y: pt.y - (pt.y - v.y) * r, w, h: v.h * r };
      this.fitted = false;
      this.applyView();
    }, { passive: false });
    svg.addEventListener("dblclick", (e) => {
      if (e.target === svg) this.fitView();
    });
    // a pane that changes size refits the drawing, unless the user moved it
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(() => { if (this.fitted) this.fitView(); }).observe(svg);
    }
  }

  unitsPerPixel() {
    const svg = this.el.svg;
    const r = svg.getBoundingClientRect();
    if (!this.view || !r.width || !r.height) return 1;
    return Math.max(this.view.w / r.width, this.view.h / r.height);
  }

  clientToUser(cx, cy) {
    const svg = this.el.svg;
    const ctm = svg.getScreenCTM?.();
    if (ctm) {
      const p = new DOMPoint(cx, cy).matrixTransform(ctm.inverse());
      return { x: p.x, y: p.y };
    }
    return { x: this.view.x + this.view.w / 2, y: this.view.y + this.view.h / 2 };
  }

  fitView() {
    const b = this.bounds;
    if (!b) return;
    this.fitted = true;
    this.view = { x: b.x0, y: b.y0, w: Math.max(1, b.x1 - b.x0), h: Math.max(1, b.y1 - b.y0) };
    // never blow small diagrams up past 1.15× their size
    const r = this.el.svg.getBoundingClientRect();
    if (r.width && r.height) {
      const scale = Math.min(r.width / this.view.w, r.height / this.view.h);
      if (scale > 1.15) {
        const cx = this.view.x + this.view.w / 2;
        const cy = this.view.y + this.view.h / 2;
        const w = r.width / 1.15;
        const hh = r.height / 1.15;
        this.view = { x: cx - w / 2, y: cy - hh / 2, w, h: hh };
      }
    }
    this.applyView();
  }

  applyView() {
    const v = this.view;
    if (!v) return;
    this.el.svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
  }

  // ------------------------------------------------------------ events: flashes, values

  animateEvent(e) {
    switch (e.event) {
      case "deliver": {
        const els = this.linkEls.get(`${e.path}|${e.from}|${e.to}`);
        if (els) for (const el of els) this.flash(el);
        break;
      }
      case "in": {
        const el = this.portEls.get(`${e.path}\0in\0${e.port}`);
        if (el) this.flash(el);
        break;
      }
      case "out": {
        const el = this.portEls.get(`${e.path}\0out\0${e.port}`);
        if (el) this.flash(el);
        break;
      }
      default:
    }
  }

  flash(el) {
    const t = this.flashTimers.get(el);
    if (t) clearTimeout(t);
    else el.classList.add("flash");
    this.flashTimers.set(el, setTimeout(() => {
      el.classList.remove("flash");
      this.flashTimers.delete(el);
    }, FLASH_MS));
  }

  // ------------------------------------------------------------ timelines pane

  buildTimelines() {
    const E = this.el;
    E.tlList.textContent = "";
    this.tlEls = new Map();
    for (const b of this.timelines) {
      const c = b.content;
      const start = c.start ?? 0;
      const end = c.end ?? start + 1;
      const span = Math.max(1, end - start);
      const pos = (f) => `${(Math.min(1, Math.max(0, (f - start) / span)) * 100).toFixed(3)}%`;
      const frameEl = h("span", { class: "frame", "data-timeline": b.path });
      const secEl = h("span", { class: "tl-sec" });
      const cursor = h("div", { class: "tl-cursor" });
      const labels = h("div", { class: "tl-labels" }, h("div", { class: "tl-ruler-label", text: `${isNum(c.fps) ? c.fps : "?"} fps` }));
      const ruler = h("div", { class: "tl-ruler" });
      const ticks = this.ticks(start, end);
      for (const t of ticks) ruler.append(h("span", { class: "tick", style: `left:${pos(t)}`, text: String(t) }));
      const tracks = h("div", { class: "tl-tracks" }, ruler);
      const kfEls = [];
      for (const l of c.layers || []) {
        labels.append(h("div", { class: "tl-layer-name", title: l.name, text: l.name }));
        const track = h("div", { class: "tl-track", "data-layer": l.name });
        const kfs = [...(l.keyframes || [])].sort((a, b2) => (a.index ?? 0) - (b2.index ?? 0));
        kfs.forEach((k, i) => {
          const from = k.index ?? start;
          const to = i + 1 < kfs.length ? kfs[i + 1].index ?? end : end;
          const el = h("button", {
            type: "button",
            class: "kf",
            "data-keyframe": `${l.name}/${k.name}`,
            title: `${l.name}/${k.name} at frame ${k.index}${k.diagram !== undefined && k.diagram !== null ? "\nclick to show its diagram" : ""}`,
            style: `left:${pos(from)};width:calc(${pos(Math.max(from, to))} - ${pos(from)})`,
            onclick: () => {
              if (k.diagram === undefined || k.diagram === null) return;
              this.revealDiagramOf(b, k.diagram);
            },
          }, h("span", { class: "kf-mark" }), h("span", { class: "kf-name", text: k.name }));
          kfEls.push(el);
          track.append(el);
        });
        tracks.append(track);
      }
      // the motion curves, each sampled from the start (`from`, every `step` frames)
      const curves = (Array.isArray(c.curves) ? c.curves : []).filter((cv) => cv && typeof cv.joint === "string" && Array.isArray(cv.values) && isNum(cv.from) && isNum(cv.step) && cv.step > 0);
      const valuesEl = h("div", { class: "tl-values", "data-values": b.path });
      if (curves.length) {
        labels.append(h("div", { class: "tl-layer-name tl-curves-name", text: `motion (${curves.length})` }));
        const all = curves.flatMap((cv) => cv.values.filter(isNum));
        const lo = Math.min(...all), hi = Math.max(...all);
        const y = (v) => (hi > lo ? 96 - ((v - lo) / (hi - lo)) * 92 : 50).toFixed(2);
        const x = (f) => (((f - start) / span) * 1000).toFixed(2);
        const svg = s("svg", { class: "tl-curves-svg", viewBox: "0 0 1000 100", preserveAspectRatio: "none" });
        curves.forEach((cv, i) => {
          const pts = cv.values.map((v, k) => (isNum(v) ? `${x(cv.from + k * cv.step)},${y(v)}` : null)).filter(Boolean).join(" ");
          svg.append(s("polyline", { points: pts, class: "curve", "data-joint": cv.joint, style: `stroke:hsl(${(i * 137) % 360} 70% 62%)` },
            s("title", { text: cv.joint })));
        });
        tracks.append(h("div", { class: "tl-track tl-curves", "data-curves": String(curves.length) }, svg));
      }
      tracks.append(cursor);
      const name = h("button", { type: "button", class: "tl-name", text: b.name, title: `${b.path}\nclick to show it in the diagram`, onclick: () => this.reveal(b.path) });
      const row = h("div", { class: "tl", "data-tl": b.path },
        h("div", { class: "tl-head" },
          name, h("span", { class: "tl-path", text: b.path }), h("span", { class: "grow" }),
          h("span", { class: "tl-framebox" }, "frame ", frameEl, h("span", { class: "dim", text: ` / ${start}–${end}` })), secEl),
        h("div", { class: "tl-body" }, labels, tracks), valuesEl);
      this.registerBoxEl(b.path, row);
      E.tlList.append(row);
      this.tlEls.set(b.path, { row, frameEl, secEl, cursor, kfEls, pos, c, curves, valuesEl });
    }
    if (!this.timelines.length) E.tlList.append(h("div", { class: "empty-note", text: "no timeline in this behavior" }));
    this.renderTimelines();
  }

  ticks(start, end) {
    const span = end - start;
    if (span <= 0) return [start];
    const raw = span / 8;
    const mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((st) => st >= raw) || raw;
    const out = [start];
    for (let t = Math.ceil(start / step) * step; t < end; t += step) if (t - start > step * 0.4 && end - t > step * 0.4) out.push(t);
    out.push(end);
    return out;
  }

  revealDiagramOf(timelineBox, diagramId) {
    // go to the timeline (through its parents), pinned on that keyframe
    this.reveal(timelineBox.path);
    if (this.enterable(timelineBox)) {
      this.stack.push(this.frameFor(timelineBox, diagramId));
      this.renderDiagram();
    }
  }

  renderTimelines() {
    if (!this.tlEls) return;
    for (const [path, T] of this.tlEls) {
      const f = this.frames.get(path);
      const txt = f === undefined || f === null ? "" : String(f);
      if (T.frameEl.textContent !== txt) T.frameEl.textContent = txt;
      const fps = T.c.fps;
      T.secEl.textContent = f !== undefined && isNum(fps) && fps > 0 ? `${((f - (T.c.start ?? 0)) / fps).toFixed(2)} s` : "";
      T.cursor.hidden = f === undefined;
      if (f !== undefined) T.cursor.style.left = T.pos(f);
      const loaded = this.keyframes.get(path) || new Set();
      for (const el of T.kfEls) el.classList.toggle("loaded", loaded.has(el.dataset.keyframe));
      // the curves' values under the cursor (radians; the first few)
      if (T.curves.length && isNum(f)) {
        const parts = T.curves.slice(0, 8).map((cv) => {
          const k = Math.min(cv.values.length - 1, Math.max(0, Math.round((f - cv.from) / cv.step)));
          const v = cv.values[k];
          return `${cv.joint} ${isNum(v) ? v.toFixed(3) : "–"}`;
        });
        const more = T.curves.length > 8 ? ` … (${T.curves.length - 8} more)` : "";
        T.valuesEl.textContent = `at frame ${f}: ${parts.join(" · ")}${more}`;
      } else {
        T.valuesEl.textContent = "";
      }
      T.row.classList.toggle("started", f !== undefined);
    }
  }

  // ------------------------------------------------------------ robot pane

  renderRobot() {
    const E = this.el;
    // said
    const said = this.said;
    if (said && typeof said === "object" && said.text !== undefined) {
      E.said.classList.remove("empty");
      E.saidText.textContent = said.text;
      const bits = [];
      if (isNum(said.seconds)) bits.push(`${said.seconds.toFixed(2)} s`);
      if (isNum(said.time_ns)) bits.push(`at ${fmtSeconds(said.time_ns)}`);
      E.saidMeta.textContent = bits.join(" · ");
    } else {
      E.said.classList.add("empty");
      E.saidText.textContent = "";
      E.saidMeta.textContent = "the robot has said nothing";
    }
    this.renderSaidState();
    // posture and LEDs
    E.posture.textContent = this.posture ? `posture: ${this.posture}` : "";
    E.posture.hidden = !this.posture;
    const colours = this.leds?.colours || {};
    const key = JSON.stringify(colours);
    if (key !== this.ledKey) {
      this.ledKey = key;
      E.ledList.textContent = "";
      for (const [group, c] of Object.entries(colours)) {
        if (!Array.isArray(c) || c.length !== 3) continue;
        const hex = `#${c.map((x) => Math.round(Math.min(1, Math.max(0, Number(x) || 0)) * 255).toString(16).padStart(2, "0")).join("")}`;
        E.ledList.append(h("span", { class: "led", "data-led": group, "data-rgb": hex, title: `${group} ${hex}`, style: `background:${hex}` }));
      }
    }
    // joints
    const body = E.jointsBody;
    if (!this.jointRows || this.jointRows.size !== this.jointOrder.length || this.jointOrder.some((n) => !this.jointRows.has(n))) {
      body.textContent = "";
      this.jointRows = new Map();
      for (const n of this.jointOrder) {
        const val = h("td", { class: "num val", "data-joint": n });
        const deg = h("td", { class: "num deg" });
        const tr = h("tr", {}, h("td", { class: "jname", text: n }), val, deg);
        body.append(tr);
        this.jointRows.set(n, { val, deg, last: undefined });
      }
    }
    let moved = false;
    for (const [n, R] of this.jointRows) {
      const v = this.joints.get(n);
      if (v === R.last) continue;
      R.last = v;
      moved = true;
      R.val.textContent = isNum(v) ? v.toFixed(3) : "–";
      R.deg.textContent = isNum(v) && !/Hand$/.test(n) ? `${((v * 180) / Math.PI).toFixed(1)}°` : "";
    }
    E.jointsEmpty.hidden = this.jointOrder.length > 0;
    E.jointsTable.hidden = this.jointOrder.length === 0;
    if (moved) {
      // for the 3D view (robot3d.js): document.addEventListener("choreo-monitor:joints", ...)
      try {
        document.dispatchEvent(new CustomEvent("choreo-monitor:joints", { detail: { names: [...this.jointOrder], values: this.jointOrder.map((n) => this.joints.get(n)) } }));
      } catch { /* a listener's problem, not ours */ }
    }
  }

  renderSaidState() {
    const said = this.said;
    const speaking = !!(said && isNum(said.time_ns) && isNum(said.seconds) && isNum(this.timeNs) &&
      this.timeNs >= said.time_ns && this.timeNs < said.time_ns + said.seconds * 1e9 && !this.ended);
    this.el.said.classList.toggle("speaking", speaking);
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

  // ------------------------------------------------------------ log

  addEvents(events, live) {
    const fresh = [];
    for (const e of events) {
      if (!isNum(e.seq)) e.seq = this.lastSeq + 1;
      if (e.seq <= this.lastSeq) continue; // already have it
      if (this.lastSeq >= 0 && e.seq > this.lastSeq + 1) e._gap = e.seq - this.lastSeq - 1;
      this.lastSeq = e.seq;
      this.log.push(e);
      this.noteValues(e);
      fresh.push(e);
    }
    if (this.log.length > LOG_STORE_CAP) this.log.splice(0, this.log.length - LOG_STORE_CAP);
    if (live && fresh.length) this.appendLogRows(fresh);
  }

  filters() {
    const E = this.el;
    return {
      path: E.fPath.value.trim(),
      kind: E.fKind.value,
      text: E.fText.value.trim().toLowerCase(),
    };
  }

  matches(e, f) {
    if (f.kind && e.event !== f.kind) return false;
    if (f.path && !(e.path || "").includes(f.path)) return false;
    if (f.text) {
      const hay = `${e.seq} ${e.path} ${e.event} ${describeEvent(e)}`.toLowerCase();
      if (!hay.includes(f.text)) return false;
    }
    return true;
  }

  logRow(e, showGaps) {
    const frag = [];
    if (showGaps && e._gap) frag.push(h("div", { class: "ev gap", text: `… ${e._gap} event${e._gap > 1 ? "s" : ""} not received …` }));
    frag.push(h("div", { class: `ev ev-${e.event}${e.event === "log" ? ` lvl-${e.level}` : ""}${(e.event === "ret" || e.event === "robot_return") && e.ok === false ? " failed" : ""}`, "data-seq": e.seq, "data-event": e.event },
      h("span", { class: "ev-seq", text: String(e.seq) }),
      h("span", { class: "ev-time", text: isNum(e.time_ns) ? (e.time_ns / 1e9).toFixed(3) : "" }),
      h("span", { class: "ev-path", title: e.path ? "click: show this box" : "", text: e.path || "" }),
      h("span", { class: "ev-kind", text: e.event }),
      h("span", { class: "ev-detail", text: describeEvent(e) })));
    return frag;
  }

  rebuildLog() {
    const E = this.el;
    const f = this.filters();
    const showGaps = !f.path && !f.kind && !f.text;
    const rows = [];
    for (let i = this.log.length - 1; i >= 0 && rows.length < LOG_DOM_CAP; i--) {
      const e = this.log[i];
      if (this.matches(e, f)) rows.push(e);
    }
    rows.reverse();
    this.logShown = rows.length;
    const frag = document.createDocumentFragment();
    for (const e of rows) frag.append(...this.logRow(e, showGaps));
    E.logRows.textContent = "";
    E.logRows.append(frag);
    this.updateLogCount();
    this.scrollLog(true);
  }

  appendLogRows(events) {
    const E = this.el;
    const f = this.filters();
    const showGaps = !f.path && !f.kind && !f.text;
    const frag = document.createDocumentFragment();
    let n = 0;
    for (const e of events) {
      if (!this.matches(e, f)) continue;
      frag.append(...this.logRow(e, showGaps));
      n++;
    }
    if (n) {
      E.logRows.append(frag);
      let extra = E.logRows.childElementCount - LOG_DOM_CAP;
      while (extra-- > 0 && E.logRows.firstChild) E.logRows.firstChild.remove();
      this.logShown = Math.min(LOG_DOM_CAP, (this.logShown || 0) + n);
      this.scrollLog();
    }
    this.updateLogCount();
  }

  scrollLog(force) {
    const E = this.el;
    if (!E.follow.checked && !force) return;
    if (!E.follow.checked) return;
    this.programScroll = true;
    E.logRows.scrollTop = E.logRows.scrollHeight;
  }

  // ------------------------------------------------------------ stack (behavior stack runs)

  renderStack() {
    const E = this.el;
    const shape = this.stackShape;
    if (!shape) return;
    const now = this.stackNow || { stack: [], in_scope: new Set(), active: new Set() };
    const top = now.stack.length ? now.stack[now.stack.length - 1] : null;
    // the tree, from the base through declared delegates (one seen before: not again)
    const key = JSON.stringify([shape.base, [...shape.behaviors.keys()]]);
    if (key !== this.stackTreeKey) {
      this.stackTreeKey = key;
      E.stackTree.textContent = "";
      this.stackNodeEls = new Map();
      const seen = new Set();
      const todo = [[shape.base, 0]];
      while (todo.length) {
        const [name, depth] = todo.pop();
        const b = shape.behaviors.get(name);
        const again = seen.has(name);
        seen.add(name);
        const el = h("div", { class: "stack-node", "data-behavior": name, style: `padding-left:${8 + depth * 16}px` },
          h("span", { class: "sn-dot" }),
          h("span", { class: "sn-name", text: name }),
          h("span", { class: "sn-class", text: again ? "(see above)" : b?.class || "" }));
        E.stackTree.append(el);
        if (!again) {
          this.stackNodeEls.set(name, el);
          for (const d of [...(b?.delegates || [])].reverse()) todo.push([d, depth + 1]);
        }
      }
    }
    for (const [name, el] of this.stackNodeEls || []) {
      el.classList.toggle("in-scope", now.in_scope.has(name));
      el.classList.toggle("active", now.active.has(name));
      el.classList.toggle("top", name === top);
    }
    E.stackNow.textContent = now.stack.length ? `stack: ${now.stack.join(" › ")}` : "stack: empty";
    E.stackNow.dataset.stack = now.stack.join(" > ");
    this.renderStrip();
    this.renderStackEvents();
  }

  renderStrip() {
    const svg = this.el.stackStrip;
    const segs = [...this.stackSegments.values()];
    svg.textContent = "";
    const lanes = [];
    for (const sg of segs) if (!lanes.includes(sg.name)) lanes.push(sg.name);
    const end = Math.max(1, this.stackNow?.time_ns || 0, ...segs.map((sg) => sg.to_ns || sg.from_ns || 0));
    const W = Math.max(300, svg.clientWidth || 600), LANE = 16, LABEL = 110, AXIS = 14;
    const H = Math.max(LANE, lanes.length * LANE) + AXIS;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("preserveAspectRatio", "xMinYMin meet");
    svg.setAttribute("height", String(H));
    // the time axis: 0 and the end
    svg.append(s("text", { x: LABEL, y: H - 3, class: "strip-label", text: "0 s" }));
    svg.append(s("text", { x: W - 4, y: H - 3, class: "strip-label", "text-anchor": "end", text: fmtSeconds(end) }));
    const x = (ns) => LABEL + ((W - LABEL - 4) * (ns || 0)) / end;
    lanes.forEach((name, i) => {
      svg.append(s("text", { x: 2, y: i * LANE + 12, class: "strip-label", text: name }));
    });
    for (const sg of segs) {
      const lane = lanes.indexOf(sg.name);
      const to = isNum(sg.to_ns) ? sg.to_ns : end;
      const title = `${sg.name}: ${fmtSeconds(sg.from_ns)} → ${isNum(sg.to_ns) ? fmtSeconds(sg.to_ns) : "now"}${sg.why ? ` — ${sg.why}` : ""}`;
      svg.append(s("rect", {
        x: x(sg.from_ns), y: lane * LANE + 2, width: Math.max(1.5, x(to) - x(sg.from_ns)), height: LANE - 4,
        rx: 2, class: `seg${isNum(sg.to_ns) ? "" : " open"}`, "data-behavior": sg.name, "data-why": sg.why || "",
      }, s("title", { text: title })));
    }
  }

  renderStackEvents() {
    const box = this.el.stackEvents;
    const shown = this.stackEvents.slice(-300);
    const key = `${this.stackEvents.length}:${shown.length ? shown[shown.length - 1].seq : ""}`;
    if (key === this.stackEventsKey) return;
    this.stackEventsKey = key;
    box.textContent = "";
    for (const e of shown) {
      const rest = { ...e };
      for (const k of ["tick", "seq", "event", "time_ns"]) delete rest[k];
      const detail = Object.entries(rest).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ");
      box.append(h("div", { class: `ev ev-stack ev-${e.event}`, "data-event": e.event },
        h("span", { class: "ev-seq", text: String(e.tick ?? "") }),
        h("span", { class: "ev-time", text: isNum(e.time_ns) ? fmtSeconds(e.time_ns) : "" }),
        h("span", { class: "ev-kind", text: String(e.event ?? "") }),
        h("span", { class: "ev-detail", text: detail })));
    }
    box.scrollTop = box.scrollHeight;
  }

  updateLogCount() {
    const E = this.el;
    const total = this.log.length;
    const shown = this.logShown || 0;
    E.logCount.textContent = shown === total ? `${total} events` : `${shown} of ${total} events`;
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
