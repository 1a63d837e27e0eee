// A way to exercise the monitor page without choreo: a fake WebSocket whose fake server plays
// a recorded run of a small hand-written behavior (live), or replays it (?mode=replay).
// Only fixture.html loads this file; monitor.js never does.
//
// The behavior: root (a flow diagram) with
//   Speed  -> a parameter of Say
//   Say    (says "Hello, I am NAO") -> Dance and Greet
//   Broken (raises ZeroDivisionError)
//   Dance  a timeline (25 fps, frames 1..120): layer behavior_layer1 with keyframe1 (Wave)
//          at 1 and keyframe2 (Bow) at 60; layer leds_layer with kf_lights (Eyes) at 1
//   Greet  a holder whose diagram holds Hello
//
// window.fixture exposes the fake server, the recorded events and what the page sent.

import { start } from "./monitor.js";

const params = new URLSearchParams(location.search);
const MODE = params.get("mode") === "replay" ? "replay" : "live";
const DELAY = Number(params.get("delay") || 40);
const STEPS = params.has("steps") ? Number(params.get("steps")) : Infinity;
const LOSE = params.get("lose") !== "0";
const CLOSE_AFTER = params.has("close") ? Number(params.get("close")) : Infinity;
const NOEND = params.get("noend") === "1";
const AUTOPLAY = params.get("autoplay") === "1";
const CONTROL = params.get("control") === "1";

// ------------------------------------------------------------------ the behavior

const P = (name, nature) => ({ name, nature });
const STD_IN = [P("onStart", "onStart"), P("onStop", "onStop")];
const STD_OUT = [P("onStopped", "stopped")];

const boxes = [
  { id: 0, path: "root", name: "root", parent: null, x: 0, y: 0,
    inputs: [P("onLoad", "onLoad"), ...STD_IN], outputs: STD_OUT,
    content: { kind: "holder", diagrams: [0] } },
  { id: 1, path: "root/Say", name: "Say", parent: { box: 0, diagram: 0 }, x: 220, y: 40,
    inputs: STD_IN, outputs: STD_OUT, content: { kind: "none" } },
  { id: 2, path: "root/Dance", name: "Dance", parent: { box: 0, diagram: 0 }, x: 440, y: 20,
    inputs: STD_IN, outputs: STD_OUT,
    content: { kind: "timeline", fps: 25, start: 1, end: 120, layers: [
      { name: "behavior_layer1", keyframes: [
        { name: "keyframe1", index: 1, diagram: 1 },
        { name: "keyframe2", index: 60, diagram: 2 }] },
      { name: "leds_layer", keyframes: [{ name: "kf_lights", index: 1, diagram: 3 }] }] } },
  { id: 3, path: "root/Broken", name: "Broken", parent: { box: 0, diagram: 0 }, x: 220, y: 200,
    inputs: STD_IN, outputs: [P("onStopped", "stopped"), P("onError", "punctual")], content: { kind: "none" } },
  { id: 4, path: "root/Greet", name: "Greet", parent: { box: 0, diagram: 0 }, x: 440, y: 170,
    inputs: STD_IN, outputs: STD_OUT, content: { kind: "holder", diagrams: [4] } },
  { id: 5, path: "root/Speed", name: "Speed", parent: { box: 0, diagram: 0 }, x: 20, y: 120,
    inputs: [P("onStart", "onStart")], outputs: [P("onStopped", "stopped")], content: { kind: "none" } },
  { id: 6, path: "root/Dance/Wave", name: "Wave", parent: { box: 2, diagram: 1 }, x: 150, y: 60,
    inputs: STD_IN, outputs: STD_OUT, content: { kind: "none" } },
  { id: 7, path: "root/Dance/Bow", name: "Bow", parent: { box: 2, diagram: 2 }, x: 150, y: 60,
    inputs: STD_IN, outputs: STD_OUT, content: { kind: "none" } },
  { id: 8, path: "root/Dance/Eyes", name: "Eyes", parent: { box: 2, diagram: 3 }, x: 150, y: 60,
    inputs: STD_IN, outputs: STD_OUT, content: { kind: "none" } },
  { id: 9, path: "root/Greet/Hello", name: "Hello", parent: { box: 4, diagram: 4 }, x: 150, y: 60,
    inputs: STD_IN, outputs: STD_OUT, content: { kind: "none" } },
];

const L = (fromBox, fromPort, toBox, toPort, kind = "input") => ({
  from: { box: fromBox, port: fromPort },
  to: { box: toBox, port: toPort, kind: toBox === null ? "output" : kind },
});

const diagrams = [
  { id: 0, owner: 0, boxes: [5, 1, 3, 2, 4], links: [
    L(null, "onStart", 5, "onStart"),
    L(null, "onStart", 1, "onStart"),
    L(null, "onStart", 3, "onStart"),
    L(null, "onStop", 2, "onStop"),
    L(5, "onStopped", 1, "speed", "parameter"),
    L(1, "onStopped", 2, "onStart"),
    L(1, "onStopped", 4, "onStart"),
    L(3, "onError", 4, "onStop"),
    L(2, "onStopped", null, "onStopped")] },
  { id: 1, owner: 2, boxes: [6], links: [L(null, "onStart", 6, "onStart"), L(6, "onStopped", null, "onStopped")] },
  { id: 2, owner: 2, boxes: [7], links: [L(null, "onStart", 7, "onStart"), L(7, "onStopped", null, "onStopped")] },
  { id: 3, owner: 2, boxes: [8], links: [L(null, "onStart", 8, "onStart")] },
  { id: 4, owner: 4, boxes: [9], links: [L(null, "onStart", 9, "onStart"), L(9, "onStopped", null, "onStopped")] },
];

const structure = { type: "structure", boxes, diagrams };
const byPath = new Map(boxes.map((b) => [b.path, b]));

// ------------------------------------------------------------------ the recorded run

const JOINTS = ["HeadYaw", "HeadPitch", "LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll",
  "LWristYaw", "LHand", "RShoulderPitch", "RShoulderRoll", "RElbowYaw", "RElbowRoll", "RWristYaw", "RHand"];

function jointValues(frame) {
  const t = (frame - 1) / 25;
  return JOINTS.map((n, i) => {
    if (n.endsWith("Hand")) return Math.round((0.3 + 0.25 * Math.sin(t * 2 + i)) * 1e4) / 1e4;
    const amp = n.startsWith("Head") ? 0.35 : 0.6;
    return Math.round(amp * Math.sin(t * 1.7 + i * 0.6) * 1e4) / 1e4;
  });
}

function record() {
  const evs = [];
  let t = 0;
  const E = (path, event, extra = {}) => evs.push({ seq: evs.length, time_ns: Math.round(t), path, event, ...extra });
  const start = (path, box) => {
    E(path, "in", { port: "onStart", value: null });
    if (box) E(path, "call", { hook: "onInput_onStart" });
  };
  E("", "behavior", { what: "start" });
  for (const p of ["root", "root/Speed", "root/Say", "root/Broken", "root/Dance", "root/Greet"]) E(p, "new");
  E("root/Say", "call", { hook: "onLoad" });
  E("root/Say", "ret", { hook: "onLoad", ok: true });
  E("root", "links_on");
  start("root");
  E("root", "deliver", { from: "(parent).onStart", to: "Speed.onStart" });
  start("root/Speed", true);
  E("root/Speed", "out", { port: "onStopped", value: 80 });
  E("root", "deliver", { from: "Speed.onStopped", to: "Say.speed" });
  E("root/Say", "param", { name: "speed", value: 80 });
  E("root/Speed", "ret", { hook: "onInput_onStart", ok: true });
  E("root", "deliver", { from: "(parent).onStart", to: "Say.onStart" });
  start("root/Say", true);
  E("root/Say", "robot_call", { method: "ALTextToSpeech.say", args: ["Hello, I am NAO"] });
  E("", "said", { text: "Hello, I am NAO", seconds: 1.2 });
  E("root", "deliver", { from: "(parent).onStart", to: "Broken.onStart" });
  start("root/Broken", true);
  E("root/Broken", "log", { level: "warning", message: "about to divide by zero" });
  E("root/Broken", "err", { hook: "onInput_onStart", text: "ZeroDivisionError: division by zero" });
  E("root/Broken", "ret", { hook: "onInput_onStart", ok: false });
  t = 1.2e9;
  E("root/Say", "robot_return", { method: "ALTextToSpeech.say", ok: true });
  E("root/Say", "out", { port: "onStopped", value: null });
  E("root", "deliver", { from: "Say.onStopped", to: "Dance.onStart" });
  start("root/Dance");
  E("root/Dance", "timeline", { command: "play", frame: null });
  E("root/Dance", "frame", { frame: 1 });
  E("root/Dance", "kf_on", { layer: "behavior_layer1", keyframe: "keyframe1" });
  E("root/Dance/Wave", "new");
  E("root/Dance", "deliver", { from: "(parent).onStart", to: "Wave.onStart" });
  start("root/Dance/Wave", true);
  E("root/Dance/Wave", "resource", { what: "ask", names: ["Left arm"] });
  E("root/Dance/Wave", "resource", { what: "got", names: ["Left arm"] });
  E("root/Dance", "kf_on", { layer: "leds_layer", keyframe: "kf_lights" });
  E("root/Dance/Eyes", "new");
  E("root/Dance", "deliver", { from: "(parent).onStart", to: "Eyes.onStart" });
  start("root/Dance/Eyes", true);
  E("root/Dance/Eyes", "robot_call", { method: "ALLeds.fadeRGB", args: ["FaceLeds", "blue", 0.5] });
  E("root/Dance", "motion", { what: "send", frame: 1, joints: JOINTS.slice(0, 6), seconds: 2.36 });
  E("root/Dance", "joints", { names: JOINTS, values: jointValues(1) });
  E("root", "deliver", { from: "Say.onStopped", to: "Greet.onStart" });
  start("root/Greet");
  E("root/Greet/Hello", "new");
  E("root/Greet", "deliver", { from: "(parent).onStart", to: "Hello.onStart" });
  start("root/Greet/Hello", true);
  E("root/Greet/Hello", "log", { level: "info", message: "hi from Hello" });
  E("root/Say", "ret", { hook: "onInput_onStart", ok: true });
  for (let f = 2; f <= 75; f++) {
    t = 1.2e9 + (f - 1) * 40e6;
    E("root/Dance", "frame", { frame: f });
    E("root/Dance", "joints", { names: JOINTS, values: jointValues(f) });
    if (f === 13) {
      E("root/Dance/Eyes", "robot_return", { method: "ALLeds.fadeRGB", ok: true });
      E("root/Dance/Eyes", "out", { port: "onStopped", value: null });
      E("root/Dance/Eyes", "ret", { hook: "onInput_onStart", ok: true });
    }
    if (f === 25) {
      E("root/Greet/Hello", "out", { port: "onStopped", value: "done" });
      E("root/Greet", "deliver", { from: "Hello.onStopped", to: "(parent).onStopped" });
      E("root/Greet", "out", { port: "onStopped", value: "done" });
      E("root/Greet/Hello", "ret", { hook: "onInput_onStart", ok: true });
    }
    if (f === 40) E("root/Dance/Wave", "robot_call", { method: "ALMotion.setStiffnesses", args: ["LArm", 1.0] });
    if (f === 41) E("root/Dance/Wave", "robot_return", { method: "ALMotion.setStiffnesses", ok: true });
    if (f === 60) {
      E("root/Dance", "kf_off", { layer: "behavior_layer1", keyframe: "keyframe1" });
      E("root/Dance/Wave", "resource", { what: "free", names: ["Left arm"] });
      E("root/Dance/Wave", "del");
      E("root/Dance", "kf_on", { layer: "behavior_layer1", keyframe: "keyframe2" });
      E("root/Dance/Bow", "new");
      E("root/Dance", "deliver", { from: "(parent).onStart", to: "Bow.onStart" });
      start("root/Dance/Bow", true);
      E("root/Dance/Bow", "robot_call", { method: "ALTextToSpeech.say", args: ["Thank you!"] });
      E("", "said", { text: "Thank you!", seconds: 0.9 });
    }
    if (f === 70) E("root/Dance/Bow", "robot_return", { method: "ALTextToSpeech.say", ok: true });
  }
  return evs;
}

const EVENTS = record();

// ------------------------------------------------------------------ the state rule (state.rs)

class State {
  constructor() {
    this.lit = new Set();
    this.frames = {};
    this.keyframes = {};
    this.joints = null;
    this.said = null;
    this.errors = {};
    this.seq = null;
    this.time_ns = 0;
  }
  apply(e) {
    this.seq = e.seq;
    this.time_ns = e.time_ns;
    const box = byPath.get(e.path);
    const nature = (list, name) => (list || []).find((p) => p.name === name)?.nature;
    switch (e.event) {
      case "in": {
        const n = nature(box?.inputs, e.port);
        if (n === "onStart") { this.lit.add(e.path); delete this.errors[e.path]; }
        if (n === "onStop") this.lit.delete(e.path);
        break;
      }
      case "out":
        if (nature(box?.outputs, e.port) === "stopped") this.lit.delete(e.path);
        break;
      case "del": this.lit.delete(e.path); break;
      case "err": this.errors[e.path] = e.text; break;
      case "frame": this.frames[e.path] = e.frame; break;
      case "kf_on": (this.keyframes[e.path] ||= new Set()).add(`${e.layer}/${e.keyframe}`); break;
      case "kf_off": this.keyframes[e.path]?.delete(`${e.layer}/${e.keyframe}`); break;
      case "joints": this.joints = { names: e.names, values: e.values }; break;
      case "said": this.said = { text: e.text, seconds: e.seconds, time_ns: e.time_ns }; break;
      default:
    }
  }
  copy() {
    const c = new State();
    c.lit = new Set(this.lit);
    c.frames = { ...this.frames };
    c.keyframes = Object.fromEntries(Object.entries(this.keyframes).map(([k, v]) => [k, new Set(v)]));
    c.joints = this.joints;
    c.said = this.said;
    c.errors = { ...this.errors };
    c.seq = this.seq;
    c.time_ns = this.time_ns;
    return c;
  }
}

const kfJson = (kf) => Object.fromEntries(Object.entries(kf).map(([k, v]) => [k, [...v].sort()]));

function stateAt(seq, events = EVENTS) {
  const st = new State();
  for (const e of events) {
    if (e.seq > seq) break;
    st.apply(e);
  }
  return st;
}

function snapshot(seq, extra = {}, events = EVENTS) {
  const st = stateAt(seq, events);
  const recent = events.filter((e) => e.seq <= seq).slice(-2000);
  return {
    type: "snapshot", seq: st.seq ?? 0, time_ns: st.time_ns, lit: [...st.lit].sort(), frames: st.frames,
    keyframes: kfJson(st.keyframes), joints: st.joints, said: st.said, errors: st.errors,
    recent, dropped: 0, ended: null, ...extra,
  };
}

/** The batch of `events` applied to `before` (a State, changed in place). */
function batch(before, events, dropped) {
  const after = before.copy();
  for (const e of events) after.apply(e);
  const ch = {};
  const lit = [...after.lit].filter((p) => !before.lit.has(p));
  const unlit = [...before.lit].filter((p) => !after.lit.has(p));
  if (lit.length) ch.lit = lit;
  if (unlit.length) ch.unlit = unlit;
  const frames = Object.fromEntries(Object.entries(after.frames).filter(([k, v]) => before.frames[k] !== v));
  if (Object.keys(frames).length) ch.frames = frames;
  const kf = {};
  for (const k of new Set([...Object.keys(after.keyframes), ...Object.keys(before.keyframes)])) {
    const a = [...(after.keyframes[k] || [])].sort().join("|");
    const b = [...(before.keyframes[k] || [])].sort().join("|");
    if (a !== b) kf[k] = [...(after.keyframes[k] || [])].sort();
  }
  if (Object.keys(kf).length) ch.keyframes = kf;
  if (after.joints !== before.joints) ch.joints = after.joints;
  if (after.said !== before.said) ch.said = after.said;
  const errors = {};
  for (const k of new Set([...Object.keys(after.errors), ...Object.keys(before.errors)])) {
    if (after.errors[k] !== before.errors[k]) errors[k] = after.errors[k] ?? null;
  }
  if (Object.keys(errors).length) ch.errors = errors;
  Object.assign(before, after);
  return { type: "batch", events, changes: ch, dropped };
}

/** Events grouped by 50 ms of behavior time, as the server batches them (an empty group
 *  for 50 ms without events: no batch then). */
function buckets(events) {
  const out = [];
  let k0 = null;
  for (const e of events) {
    const k = Math.floor(e.time_ns / 50e6);
    if (k0 === null) k0 = k;
    while (out.length <= k - k0) out.push([]);
    out[k - k0].push(e);
  }
  return out;
}

function report(outcome, events) {
  const last = events[events.length - 1];
  const errs = events.filter((e) => e.event === "err");
  const calls = {};
  for (const e of events) if (e.event === "robot_call") calls[e.method] = (calls[e.method] || 0) + 1;
  const lines = [
    "fixture/dance",
    `  outcome        ${outcome}`,
    `  duration       ${(last.time_ns / 1e9).toFixed(2)} s behavior time, 0.42 s real time`,
    `  boxes run      ${new Set(events.filter((e) => e.event === "in").map((e) => e.path)).size}`,
    `  robot calls    ${Object.values(calls).reduce((a, b) => a + b, 0)}`,
    ...Object.entries(calls).map(([m, n]) => `                   ${m} ×${n}`),
    `  errors         ${errs.length}`,
    ...errs.map((e) => `                   ${e.path}: ${e.hook}: ${e.text}`),
  ];
  return lines.join("\n");
}

// ------------------------------------------------------------------ the fake server

class FakeServer {
  constructor(mode) {
    this.mode = mode;
    this.clients = new Set();
    this.sent = []; // what pages sent
    this.connections = 0;
    this.events = EVENTS.slice();
    this.hello = { type: "hello", protocol: 1, mode, title: "dance", model: "nao", control: CONTROL };
    this.ended = null;
    if (mode === "live") {
      // the run goes on whoever watches: it started with the first 12 events already done
      this.script = buckets(this.events.slice(12));
      this.pos = 12 - 1; // seq of the last event that happened
      this.batchIndex = 0;
      this.timer = null;
    } else {
      this.cursor = 0;
      this.playing = false;
      this.speed = 1;
    }
  }

  connect(sock) {
    this.connections += 1;
    const c = { sock, messages: 0, batches: 0, lost: 0, losing: 0, dropped: 0 };
    this.clients.add(c);
    this.to(c, this.hello);
    // robustness: something that is not JSON, and a type this page does not know
    this.to(c, "{not json", true);
    this.to(c, { type: "mystery", hello: "ignore me" });
    this.to(c, structure);
    if (this.mode === "live") {
      this.to(c, snapshot(this.pos, { ended: this.ended }, this.events));
      if (this.ended) this.to(c, this.ended);
      if (!this.timer && !this.ended) this.timer = setInterval(() => this.tickLive(), DELAY);
    } else {
      this.to(c, snapshot(this.cursor));
      this.to(c, this.replayMsg());
      if (AUTOPLAY && this.connections === 1) this.receive(c.sock, { type: "play" });
    }
  }

  disconnect(sock) {
    for (const c of this.clients) if (c.sock === sock) this.clients.delete(c);
  }

  to(c, msg, raw = false) {
    if (c.messages >= STEPS) return;
    c.messages += 1;
    c.sock._deliver(raw ? msg : JSON.stringify(msg));
  }

  // live: one batch of the script per tick, to every page
  tickLive() {
    if (this.batchIndex >= this.script.length) {
      clearInterval(this.timer);
      this.timer = null;
      if (!NOEND && !this.ended) {
        this.ended = { type: "ended", outcome: this.stopped ? "stopped" : "timeout", report: report(this.stopped ? "stopped: interrupted; every box was unloaded" : "stopped: timeout (4 s of behavior time, --timeout)", this.events) };
        for (const c of this.clients) {
          this.catchUp(c);
          this.to(c, this.ended);
        }
      }
      return;
    }
    const events = this.script[this.batchIndex++];
    if (!events.length) return;
    const before = stateAt(this.pos, this.events);
    this.pos = events[events.length - 1].seq;
    for (const c of [...this.clients]) {
      c.batches += 1;
      // a slow page: batches 20..22 do not reach it; then it gets a fresh snapshot
      if (LOSE && this.connections === 1 && c.batches >= 20 && c.batches <= 22) {
        c.dropped += events.length;
        c.owes = true;
        continue;
      }
      if (c.owes) this.catchUp(c); // the snapshot has this batch's events
      else this.to(c, batch(before.copy(), events, c.dropped));
      if (c.batches >= CLOSE_AFTER && this.connections === 1) {
        this.clients.delete(c);
        c.sock._serverClose();
      }
    }
  }

  /** A page that lost batches gets a fresh snapshot before anything else. */
  catchUp(c) {
    if (!c.owes) return;
    c.owes = false;
    this.to(c, snapshot(this.pos, { dropped: c.dropped }, this.events));
  }

  receive(sock, msg) {
    this.sent.push(msg);
    const c = [...this.clients].find((x) => x.sock === sock);
    if (!c) return;
    if (this.mode === "live") {
      if (msg.type === "stop") {
        if (this.ended) return;
        // the rest of the run is replaced by unloading everything
        const st = stateAt(this.pos, this.events);
        const last = this.events[this.pos];
        const stop = [];
        const E = (path, event, extra = {}) => stop.push({ seq: this.pos + 1 + stop.length, time_ns: last.time_ns, path, event, ...extra });
        E("", "behavior", { what: "stop" });
        for (const p of [...st.lit].sort().reverse()) E(p, "del");
        this.events = this.events.slice(0, this.pos + 1).concat(stop);
        this.script = this.script.slice(0, this.batchIndex).concat([stop]);
        this.stopped = true;
        if (!this.timer) this.timer = setInterval(() => this.tickLive(), DELAY);
      } else {
        this.to(c, { type: "refused", why: `${msg.type}: not in a live run` });
      }
      return;
    }
    // replay
    switch (msg.type) {
      case "play":
        if (this.cursor >= this.events.length - 1) this.cursor = 0;
        this.playing = true;
        clearInterval(this.timer);
        this.timer = setInterval(() => this.tickReplay(), 50);
        this.broadcast(this.replayMsg());
        break;
      case "pause":
        this.playing = false;
        clearInterval(this.timer);
        this.broadcast(this.replayMsg());
        break;
      case "speed":
        this.speed = Math.min(8, Math.max(0.25, Number(msg.speed) || 1));
        this.broadcast(this.replayMsg());
        break;
      case "seek":
        this.cursor = Math.min(this.events.length - 1, Math.max(0, Number(msg.seq) || 0));
        this.broadcast(snapshot(this.cursor));
        this.broadcast(this.replayMsg());
        break;
      case "step": {
        const n = Math.max(1, Number(msg.count) || 1);
        this.advanceTo(Math.min(this.events.length - 1, this.cursor + n));
        break;
      }
      default:
        this.to(c, { type: "refused", why: `unknown command ${msg.type}` });
    }
  }

  tickReplay() {
    const now = this.events[this.cursor].time_ns + 50e6 * this.speed;
    let to = this.cursor;
    while (to + 1 < this.events.length && this.events[to + 1].time_ns <= now) to++;
    if (to === this.cursor && to + 1 < this.events.length) to++;
    this.advanceTo(to);
  }

  advanceTo(to) {
    if (to > this.cursor) {
      const before = stateAt(this.cursor);
      const events = this.events.slice(this.cursor + 1, to + 1);
      this.cursor = to;
      this.broadcast(batch(before, events, 0));
    }
    if (this.cursor >= this.events.length - 1) {
      this.playing = false;
      clearInterval(this.timer);
      if (!NOEND) this.broadcast({ type: "ended", outcome: "finished", report: report("finished (end of the trace)", this.events) });
    }
    this.broadcast(this.replayMsg());
  }

  replayMsg() {
    return { type: "replay", seq: this.cursor, last: this.events.length - 1, playing: this.playing, speed: this.speed };
  }

  broadcast(msg) {
    for (const c of this.clients) this.to(c, msg);
  }
}

class FakeSocket {
  constructor(url, server) {
    this.url = url;
    this.server = server;
    this.readyState = 0;
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
    setTimeout(() => {
      this.readyState = 1;
      this.onopen?.({ type: "open" });
      server.connect(this);
    }, 5);
  }
  send(data) {
    if (this.readyState !== 1) throw new Error("not open");
    this.server.receive(this, JSON.parse(data));
  }
  close() {
    if (this.readyState >= 2) return;
    this.readyState = 3;
    this.server.disconnect(this);
    setTimeout(() => this.onclose?.({ type: "close", code: 1000 }), 0);
  }
  _deliver(data) {
    if (this.readyState === 1) this.onmessage?.({ type: "message", data });
  }
  _serverClose() {
    this.readyState = 3;
    setTimeout(() => this.onclose?.({ type: "close", code: 1006 }), 0);
  }
}

const server = new FakeServer(MODE);
const sockets = [];
window.fixture = { server, events: EVENTS, structure, sockets, sent: server.sent };

start({
  url: "ws://fixture.invalid/ws",
  socketFactory: (url) => {
    const s = new FakeSocket(url, server);
    sockets.push(s);
    return s;
  },
});
