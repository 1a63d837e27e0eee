// choreo's live monitor: the panes' sizes. Three splitters — the robot column's left edge,
// the timelines' top edge, the bottom tabs' top edge — are dragged to resize the panes
// (a double-click puts one back); the sizes are kept in the browser's storage, so the page
// opens as it was left (docs/monitor.md). Methods of the page's Monitor (monitor.js).

import { h } from "./dom.js";

/** The storage key of the sizes. */
const KEY = "choreo-layout";

/** Each splitter: the pane it sits on, the CSS variable it sets, the edge it drags (which
 * way the pane grows), and the pane's bounds in pixels. */
const SPLITTERS = [
  { id: "split-side", pane: "robot", name: "--side-w", axis: "x", grows: -1, min: 200, max: 0.6 },
  { id: "split-timelines", pane: "timelines", name: "--tl-h", axis: "y", grows: -1, min: 60, max: 0.7 },
  { id: "split-bottom", pane: "bottom", name: "--bottom-h", axis: "y", grows: -1, min: 80, max: 0.7 },
];

function saved() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "{}");
    return v && typeof v === "object" ? v : {};
  } catch {
    return {}; // storage refused or not ours: the default sizes
  }
}

export class LayoutPane {
  /** The splitters, and the sizes the page was left with. */
  setupLayout() {
    const E = this.el;
    const sizes = saved();
    for (const sp of SPLITTERS) {
      if (Number.isFinite(sizes[sp.name])) E.main.style.setProperty(sp.name, `${sizes[sp.name]}px`);
      const handle = h("div", { id: sp.id, class: `splitter ${sp.axis}`, title: "drag to resize (double-click: as it was)" });
      handle.addEventListener("mousedown", (e) => this.startSplit(e, sp));
      handle.addEventListener("dblclick", () => this.setSize(sp, null));
      E[sp.pane].append(handle);
    }
    window.addEventListener("mousemove", (e) => this.moveSplit(e));
    window.addEventListener("mouseup", () => { this.split = null; });
  }

  startSplit(e, sp) {
    if (e.button !== 0) return;
    e.preventDefault();
    e.stopPropagation();
    const r = this.el[sp.pane].getBoundingClientRect();
    this.split = { sp, from: sp.axis === "x" ? e.clientX : e.clientY, size: sp.axis === "x" ? r.width : r.height };
  }

  moveSplit(e) {
    const d = this.split;
    if (!d) return;
    const { sp } = d;
    const at = sp.axis === "x" ? e.clientX : e.clientY;
    const whole = sp.axis === "x" ? window.innerWidth : window.innerHeight;
    const size = Math.round(Math.min(whole * sp.max, Math.max(sp.min, d.size + (at - d.from) * sp.grows)));
    this.setSize(sp, size);
  }

  /** Sets a pane's size (`null`: its default) and keeps it. */
  setSize(sp, size) {
    const sizes = saved();
    if (size === null) {
      this.el.main.style.removeProperty(sp.name);
      delete sizes[sp.name];
    } else {
      this.el.main.style.setProperty(sp.name, `${size}px`);
      sizes[sp.name] = size;
    }
    try {
      localStorage.setItem(KEY, JSON.stringify(sizes));
    } catch {
      // not kept: the page still has the size
    }
  }
}
