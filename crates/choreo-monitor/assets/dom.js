// choreo's live monitor: the constants and small DOM helpers every part of the page uses.

export const SVGNS = "http://www.w3.org/2000/svg";
export const BOX_W = 124;
export const BOX_HEAD = 24;
export const PORT_DY = 15;
export const BOX_MIN_H = 60;
export const OWNER_GAP = 120;
export const LOG_DOM_CAP = 5000;
export const LOG_STORE_CAP = 50000;
export const FLASH_MS = 300;
export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
export const KINDS = [
  "new", "del", "call", "ret", "err", "in", "out", "deliver", "dropped", "param",
  "links_on", "links_off", "timeline", "frame", "kf_on", "kf_off", "robot_call",
  "robot_return", "resource", "log", "motion", "joints", "behavior", "said", "leds",
  "posture",
];


// ---------------------------------------------------------------- small DOM helpers

/** A box's `ref` as one string, to know it again after the structure is redrawn. */
export const refKey = (ref) => JSON.stringify(ref ?? null);

export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  appendKids(el, kids);
  return el;
}

export function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVGNS, tag);
  setAttrs(el, attrs);
  appendKids(el, kids);
  return el;
}

export function setAttrs(el, attrs) {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

export function appendKids(el, kids) {
  for (const k of kids.flat()) {
    if (k === undefined || k === null || k === false) continue;
    el.append(k instanceof Node ? k : String(k));
  }
}

/** Small icons drawn as SVG (no icon font: the page works offline with any fonts). */
export function icon(name) {
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

export function fmtSeconds(ns) {
  if (typeof ns !== "number" || !isFinite(ns)) return "–";
  return (ns / 1e9).toFixed(3) + " s";
}

export function fmtValue(v, max = 160) {
  let t;
  try {
    t = v === undefined ? "" : JSON.stringify(v);
  } catch {
    t = String(v);
  }
  if (t === undefined) t = String(v);
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

export function isNum(v) {
  return typeof v === "number" && isFinite(v);
}

export function truncate(t, n) {
  return t.length > n ? t.slice(0, n - 1) + "…" : t;
}
