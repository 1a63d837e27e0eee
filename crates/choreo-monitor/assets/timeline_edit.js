// choreo's live monitor: an editor's timeline tools (`choreo edit`, docs/editor.md), in the
// Properties tab of a selected timeline box: its frame rate and start and end frames, its
// behavior layers and keyframes, its motion (curves.js: lanes a chain and a joint; a key
// clicked shows its value and interpolation, here), and a pose made with the joints' sliders
// or by dragging a limb of the 3D robot (the sliders keep the joints' ranges, coupled ones
// following their partner) stored as keys ("Store joints in keyframe").
// Each change is a `timeline` edit; the server answers as for any edit.
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { h } from "./dom.js";

export const DEG = 180 / Math.PI;
export const HANDS = new Set(["LHand", "RHand"]);
/** A joint's value as the page shows it: degrees, a hand's ratio as it is. */
export const shown = (joint, v) => (HANDS.has(joint) ? v.toFixed(2) : `${(v * DEG).toFixed(1)}°`);

export class TimelineEditPane {
  /** The timeline section of the Properties tab of timeline box `box` (inspect's answer). */
  renderTimelineEditor(P, box) {
    const t = box.timeline;
    const change = (c) => this.sendEdit({ kind: "timeline", box: box.ref, change: c });
    const num = (id, value, onChange) => {
      const el = h("input", { id, type: "number", step: 1, value: value ?? "" });
      el.addEventListener("change", () => onChange(el.value === "" ? null : Number(el.value)));
      return el;
    };
    P.append(h("h3", { text: "Timeline" }),
      h("div", { class: "prop-row tl-frames" },
        h("label", { text: "fps, start, end" }),
        h("span", { class: "tl-frame-fields" },
          num("tl-fps", t.fps, (v) => change({ op: "frames", fps: v })),
          num("tl-start", t.start, (v) => change({ op: "frames", start: v })),
          num("tl-end", t.end, (v) => change({ op: "frames", end: v }))),
        h("span", { class: "dim", text: "end -1: at the last motion key" })));
    this.renderLayers(P, t, change);
    this.renderCurves(P, box, change);
    this.renderPose(P, t, change);
  }

  renderLayers(P, t, change) {
    const list = h("div", { id: "tl-layers", class: "tl-layers" });
    t.layers.forEach((l, layer) => {
      const name = h("input", { class: "tl-layer-input", "data-layer": layer, type: "text", value: l.name });
      name.addEventListener("change", () => change({ op: "rename_layer", layer, name: name.value }));
      const kfs = l.keyframes.map((k, keyframe) => {
        const kname = h("input", { class: "tl-kf-name", type: "text", value: k.name, title: "keyframe name (a goto target)" });
        kname.addEventListener("change", () => change({ op: "set_keyframe", layer, keyframe, name: kname.value }));
        const index = h("input", { class: "tl-kf-index", type: "number", min: 1, step: 1, value: k.index, title: "its start frame" });
        index.addEventListener("change", () => change({ op: "set_keyframe", layer, keyframe, index: Number(index.value) }));
        return h("span", { class: "tl-kf-edit", "data-keyframe": `${layer}/${keyframe}` }, kname, index,
          h("button", { type: "button", class: "tl-del", title: "delete this keyframe", text: "×", onclick: () => change({ op: "delete_keyframe", layer, keyframe }) }));
      });
      const next = Math.max(0, ...l.keyframes.map((k) => k.index)) + 10;
      const add = h("button", { type: "button", class: "tl-add-kf", text: "+ keyframe", onclick: () => change({ op: "add_keyframe", layer, name: `keyframe${l.keyframes.length + 1}`, index: next }) });
      list.append(h("div", { class: "tl-layer-edit", "data-layer": layer }, name, ...kfs, add,
        h("button", { type: "button", class: "tl-del", title: "delete this layer", text: "delete layer", onclick: () => change({ op: "delete_layer", layer }) })));
    });
    const add = h("button", { id: "tl-add-layer", type: "button", text: "+ behavior layer", onclick: () => change({ op: "add_layer", name: `behavior_layer${t.layers.length + 1}` }) });
    P.append(h("h4", { text: "Behavior layers" }), list, add);
  }

  /** The selected key's fields: value, each side's interpolation, delete. */
  renderKey(k, change) {
    const panel = this.keyPanel;
    panel.textContent = "";
    const degrees = !HANDS.has(k.actuator);
    const value = h("input", { id: "tl-key-value", type: "number", step: degrees ? 0.1 : 0.01, value: degrees ? (k.value * DEG).toFixed(2) : k.value });
    value.addEventListener("change", () => {
      const v = degrees ? Number(value.value) / DEG : Number(value.value);
      change({ op: "move_key", actuator: k.actuator, frame: k.frame, to: k.frame, value: v });
    });
    const side = (which) => {
      const t = (k.tangents || []).find((g) => g.side === which);
      const now = t ? t.interp : "auto";
      const sel = h("select", { id: `tl-key-${which}`, title: `${which} side` },
        ["auto", "constant", "linear", "bezier"].map((m) => h("option", { value: m, text: m === "auto" ? "automatic Bezier" : m, selected: m === now })));
      sel.addEventListener("change", () => {
        const how = sel.value;
        const handle = how === "bezier" ? { abscissa: which === "left" ? -3 : 3, ordinate: 0 } : {};
        change({ op: "interpolation", actuator: k.actuator, frame: k.frame, side: which, how, ...handle });
      });
      if (now !== "bezier" || !t) return sel;
      // A Bezier side's handle: how many frames from the key, and how far in value (° or a
      // hand's ratio), typed.
      const unit = degrees ? DEG : 1;
      const along = h("input", { id: `tl-key-${which}-abscissa`, type: "number", step: 0.1, title: "the handle: frames from the key", value: t.abscissa ?? 0 });
      const up = h("input", { id: `tl-key-${which}-ordinate`, type: "number", step: degrees ? 0.1 : 0.01, title: "the handle: value from the key", value: ((t.ordinate ?? 0) * unit).toFixed(2) });
      const set = () => change({ op: "interpolation", actuator: k.actuator, frame: k.frame, side: which, how: "bezier",
        abscissa: Number(along.value), ordinate: Number(up.value) / unit });
      along.addEventListener("change", set);
      up.addEventListener("change", set);
      return h("span", { class: "tl-handle" }, sel, along, up);
    };
    panel.append(h("span", { class: "tl-key-name", text: `${k.actuator} at frame ${k.frame}` }),
      h("label", { text: degrees ? "value (°)" : "value" }), value,
      h("label", { text: "left" }), side("left"), h("label", { text: "right" }), side("right"),
      h("button", { id: "tl-key-delete", type: "button", text: "delete key", onclick: () => change({ op: "delete_keys", frame: k.frame, actuators: [k.actuator] }) }));
  }

  // ------------------------------------------------------------ pose → keys

  /** A slider per joint (its range from the robot message; a coupled joint's follows the
   * joint bounding it, as the robot's does: NAO's head pitch by its yaw); the 3D robot takes
   * the pose, and a limb dragged on it moves its joint's slider. */
  renderPose(P, t, change) {
    const joints = this.robotChain?.joints || [];
    if (!this.pose) this.pose = new Map();
    const touched = new Set();
    const frame = h("input", { id: "pose-frame", type: "number", min: 1, step: 1, value: this.curveKey?.frame ?? Math.max(1, t.start ?? 1) });
    const range = (j) => (j.coupled ? between(j.coupled.points || [], this.pose.get(j.coupled.by) ?? 0) : [j.min, j.max]);
    const sliders = new Map();
    const set = (j, x) => {
      const { slider, label } = sliders.get(j.name);
      this.pose.set(j.name, x);
      touched.add(j.name);
      label.textContent = shown(j.name, x);
      // the joints this one bounds: their ranges follow, their values within them
      for (const k of joints.filter((k) => k.coupled?.by === j.name)) {
        const [lo, hi] = range(k);
        const other = sliders.get(k.name);
        if (!other) continue;
        other.slider.min = lo;
        other.slider.max = hi;
        const v = Number(other.slider.value);
        const within = Math.min(hi, Math.max(lo, v));
        if (this.pose.has(k.name) && within !== this.pose.get(k.name)) set(k, within);
        other.slider.value = within;
      }
    };
    const rows = joints.map((j) => {
      const [lo, hi] = range(j);
      const v = this.pose.get(j.name) ?? Math.min(hi, Math.max(lo, 0));
      const label = h("span", { class: "dim pose-value", text: shown(j.name, v) });
      const slider = h("input", { id: `pose-${j.name}`, class: "pose-slider", type: "range", min: lo, max: hi, step: 0.001, value: v });
      sliders.set(j.name, { slider, label });
      slider.addEventListener("input", () => {
        set(j, Number(slider.value));
        this.showPose();
      });
      return h("div", { class: "pose-row" }, h("label", { for: `pose-${j.name}`, text: j.name }), slider, label);
    });
    if (!this.poseDragHeard) {
      // a limb dragged on the 3D robot (robot3d.js): its joint's slider moves by as much
      this.poseDragHeard = true;
      document.addEventListener("choreo-monitor:pose-drag", (e) => {
        const slider = document.getElementById(`pose-${e.detail?.joint}`);
        if (!slider || !Number.isFinite(e.detail?.delta)) return;
        slider.value = Number(slider.value) + e.detail.delta; // the range input keeps it within
        slider.dispatchEvent(new Event("input"));
      });
    }
    const store = h("button", { id: "pose-store", type: "button", class: "primary", text: "Store joints in keyframe", onclick: () => {
      const names = [...touched];
      if (!names.length) return this.toast("move a joint's slider first");
      change({ op: "keys", frame: Number(frame.value), joints: Object.fromEntries(names.map((n) => [n, this.pose.get(n)])) });
      touched.clear();
    } });
    P.append(h("h4", { text: "Pose" }),
      h("div", { class: "prop-row" }, h("label", { for: "pose-frame", text: "at frame" }), frame, store),
      h("div", { id: "pose", class: "pose" }, rows.length ? rows : h("div", { class: "empty-note", text: "no robot to pose" })));
  }

  /** The pose the sliders make, on the 3D robot. */
  showPose() {
    const names = [...this.pose.keys()];
    try {
      document.dispatchEvent(new CustomEvent("choreo-monitor:joints", { detail: { names, values: names.map((n) => this.pose.get(n)) } }));
    } catch { /* a listener's problem, not ours */ }
  }
}

/** The range a coupled joint's points give at `x`: linear between points, the end points'
 * beyond them (choreo-robot's `Model::limits`). */
function between(points, x) {
  if (!points.length) return [-Infinity, Infinity];
  if (x <= points[0][0]) return [points[0][1], points[0][2]];
  for (let i = 1; i < points.length; i++) {
    const [x0, lo0, hi0] = points[i - 1];
    const [x1, lo1, hi1] = points[i];
    if (x <= x1) {
      const t = (x - x0) / (x1 - x0);
      return [lo0 + t * (lo1 - lo0), hi0 + t * (hi1 - hi0)];
    }
  }
  const last = points[points.length - 1];
  return [last[1], last[2]];
}
