// choreo edit: a timeline box's motion as Choregraphe's timeline editor shows it
// (docs/editor.md, "Timelines"). Above, the frames and the seconds they are at, then the
// Motion layer (a tick at each key's frame) and each behavior layer (its keyframes from
// their frame to the next one's). Below, a lane a chain (the chains ALMotion names: Head,
// LArm, ...; the robot message lists their joints), folded to one row of key ticks or
// unfolded to a lane a joint: its name, its axis in degrees (a hand's in its opening
// ratio) and its curve with its keys, so that keys at one frame are told apart and picked
// joint by joint. A key dragged moves along one axis (the one the pointer went furthest
// along); Shift frees it. A click shows its fields (timeline_edit.js's `renderKey`).
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { h, s, isNum } from "./dom.js";
import { DEG, HANDS, shown } from "./timeline_edit.js";

/** The width of a lane's drawing, in its own units (it is stretched to the pane's). */
const W = 800;
/** A joint lane's height and a folded chain's, in pixels. */
const LANE_H = 56;
const FOLDED_H = 18;
/** Above so many curves the chains start folded (the one of the key picked excepted). */
const UNFOLDED_CURVES = 6;

export class CurvesPane {
  /** The motion of timeline box `box` (inspect's answer): its curves as choreo-motion
   * samples them (from the structure) and the file's keys, lane by lane. */
  renderCurves(P, box, change) {
    const t = box.timeline;
    const node = [...this.boxes.values()].find((b) => JSON.stringify(b.ref) === JSON.stringify(box.ref));
    const sampled = new Map((node?.content?.curves || []).map((c) => [c.joint, c]));
    const keys = t.curves.flatMap((c) => c.keys.map((k) => ({ ...k, actuator: c.actuator, mute: c.mute })));
    const first = Math.min(t.start ?? 1, ...keys.map((k) => k.frame));
    const last = Math.max((t.end ?? -1) > 0 ? t.end : 0, ...keys.map((k) => k.frame), first + 10) + 5;
    const X = (f) => ((f - first) / (last - first)) * W;
    const frames = { first, last, X };
    const lanes = h("div", { id: "tl-curves", class: "tl-lanes" });
    lanes.append(this.frameRuler(frames, t.fps, t.start ?? 0), this.layerRow("Motion", frames, keys.map((k) => k.frame), "tl-motion"));
    t.layers.forEach((l, i) => lanes.append(this.behaviorLayerRow(l, i, frames)));
    // The chains with curves, in ALMotion's order; joints of none last.
    const byJoint = new Map(t.curves.map((c) => [c.actuator, c]));
    const chains = (this.robotChain?.chains || []).map((c) => ({ name: c.name, joints: c.joints.filter((j) => byJoint.has(j)) }));
    const placed = new Set(chains.flatMap((c) => c.joints));
    chains.push({ name: "Other", joints: [...byJoint.keys()].filter((j) => !placed.has(j)) });
    if (!this.unfolded) this.unfolded = new Set();
    const picked = this.curveKey?.actuator;
    for (const chain of chains.filter((c) => c.joints.length)) {
      const open = this.unfolded.has(chain.name) || t.curves.length <= UNFOLDED_CURVES || chain.joints.includes(picked);
      const chainKeys = keys.filter((k) => chain.joints.includes(k.actuator));
      const toggle = h("button", { type: "button", class: "tl-fold", "data-chain": chain.name, title: open ? "fold this chain into one row" : "a lane a joint",
        text: `${open ? "▾" : "▸"} ${chain.name}`, onclick: () => {
          if (open) this.unfolded.delete(chain.name);
          else this.unfolded.add(chain.name);
          if (open && chain.joints.includes(picked)) this.curveKey = null;
          this.renderProps(box);
        } });
      const head = h("div", { class: "tl-lane-label" }, toggle, h("span", { class: "dim", text: `${chain.joints.length} joints · ${chainKeys.length} keys` }));
      lanes.append(h("div", { class: "tl-lane tl-chain", "data-chain": chain.name }, head,
        this.tickRow(frames, chainKeys.map((k) => k.frame), FOLDED_H, "tl-chain-keys")));
      if (!open) continue;
      for (const joint of chain.joints) lanes.append(this.jointLane(joint, byJoint.get(joint), sampled.get(joint), frames, change));
    }
    if (!this.keyDragSetUp) {
      this.keyDragSetUp = true;
      window.addEventListener("mousemove", (e) => this.keyMove(e));
      window.addEventListener("mouseup", (e) => this.keyUp(e));
    }
    this.keyPanel = h("div", { id: "tl-key", class: "tl-key-panel" }, h("span", { class: "dim", text: "click a key to edit it; drag it to move it (Shift: along both axes)" }));
    P.append(h("h4", { text: `Motion (${t.curves.length} curves, ${keys.length} keys)` }), lanes, this.keyPanel);
    if (this.curveKey) {
      const k = keys.find((q) => q.actuator === this.curveKey.actuator && q.frame === this.curveKey.frame);
      if (k) this.renderKey(k, change);
    }
  }

  /** The frames (clean whole numbers, `ticks`) and the seconds they are at. */
  frameRuler(frames, fps, start) {
    const svg = s("svg", { class: "tl-ruler-svg", viewBox: `0 0 ${W} 28`, preserveAspectRatio: "none" });
    const label = h("div", { class: "tl-lane-label", text: isNum(fps) && fps > 0 ? `frames · s (${fps} fps)` : "frames" });
    const marks = h("div", { class: "tl-ruler-marks" });
    for (const f of this.ticks(frames.first, frames.last)) {
      const left = `${(frames.X(f) / W) * 100}%`;
      svg.append(s("line", { class: "tl-tick", x1: frames.X(f), x2: frames.X(f), y1: 20, y2: 28 }));
      const secs = isNum(fps) && fps > 0 ? `${+((f - start) / fps).toFixed(2)} s` : "";
      // the end marks inside the lane: the first starts at its tick, the last ends there
      const edge = frames.X(f) > W * 0.96 ? "translateX(-100%)" : frames.X(f) < W * 0.04 ? "none" : "translateX(-50%)";
      marks.append(h("span", { class: "tl-mark", "data-frame": f, style: `left:${left};transform:${edge}`, text: String(f) }, h("small", { text: secs })));
    }
    return h("div", { class: "tl-lane tl-ruler-lane" }, label, h("div", { class: "tl-lane-draw" }, svg, marks));
  }

  /** A layer's row: a tick at each frame in `at`. */
  layerRow(name, frames, at, cls) {
    return h("div", { class: `tl-lane ${cls}` }, h("div", { class: "tl-lane-label", text: name }), this.tickRow(frames, at, FOLDED_H, "tl-layer-keys"));
  }

  /** A behavior layer's row: its keyframes from their frame to the next's, named. */
  behaviorLayerRow(layer, index, frames) {
    const svg = s("svg", { class: "tl-lane-svg", viewBox: `0 0 ${W} ${FOLDED_H}`, preserveAspectRatio: "none", style: `height:${FOLDED_H}px` });
    const names = h("div", { class: "tl-kf-names" });
    layer.keyframes.forEach((k, i) => {
      const to = layer.keyframes[i + 1]?.index ?? frames.last;
      const x0 = frames.X(k.index), x1 = frames.X(to);
      svg.append(s("rect", { class: "tl-kf-span", x: x0, y: 2, width: Math.max(1, x1 - x0), height: FOLDED_H - 4 }));
      names.append(h("span", { class: "tl-kf-label", style: `left:${(x0 / W) * 100}%`, text: k.name }));
    });
    return h("div", { class: "tl-lane tl-behavior-layer", "data-layer": index }, h("div", { class: "tl-lane-label", text: layer.name }),
      h("div", { class: "tl-lane-draw" }, svg, names));
  }

  /** A row of ticks at the frames `at`. */
  tickRow(frames, at, height, cls) {
    const svg = s("svg", { class: `tl-lane-svg ${cls}`, viewBox: `0 0 ${W} ${height}`, preserveAspectRatio: "none", style: `height:${height}px` });
    for (const f of new Set(at)) svg.append(s("line", { class: "tl-tick-key", x1: frames.X(f), x2: frames.X(f), y1: 3, y2: height - 3 }));
    return h("div", { class: "tl-lane-draw" }, svg);
  }

  /** One joint's lane: its name and axis, its sampled curve and its keys. */
  jointLane(joint, curve, sampled, frames, change) {
    const hand = HANDS.has(joint);
    const unit = hand ? 1 : DEG;
    const values = curve.keys.map((k) => k.value).concat((sampled?.values || []).filter(isNum));
    // The axis: the values' span padded, ten degrees (a tenth of a hand's range) at least.
    let lo = Math.min(...values), hi = Math.max(...values);
    const least = hand ? 0.1 : 10 / DEG;
    if (hi - lo < least) {
      const mid = (hi + lo) / 2;
      lo = mid - least / 2;
      hi = mid + least / 2;
    }
    const pad = (hi - lo) * 0.12;
    lo -= pad;
    hi += pad;
    const Y = (v) => LANE_H - ((v - lo) / (hi - lo)) * LANE_H;
    const svg = s("svg", { class: "tl-lane-svg tl-curve-edit", "data-joint": joint, viewBox: `0 0 ${W} ${LANE_H}`, preserveAspectRatio: "none", style: `height:${LANE_H}px` });
    svg.scale = { first: frames.first, last: frames.last, lo, hi, H: LANE_H };
    if (lo < 0 && hi > 0) svg.append(s("line", { class: "tl-zero", x1: 0, x2: W, y1: Y(0), y2: Y(0) }));
    if (sampled) {
      const pts = sampled.values.map((v, k) => (isNum(v) ? `${frames.X(sampled.from + k * sampled.step)},${Y(v)}` : null)).filter(Boolean).join(" ");
      svg.append(s("polyline", { class: "curve", "data-joint": joint, points: pts }));
    }
    for (const k of curve.keys.map((q) => ({ ...q, actuator: joint, mute: curve.mute }))) {
      // A line of no length with round ends: a dot that stays round in the stretched drawing.
      const dot = s("line", { class: `tl-key${k.mute ? " muted" : ""}`, x1: frames.X(k.frame), y1: Y(k.value), x2: frames.X(k.frame), y2: Y(k.value), "data-actuator": joint, "data-frame": k.frame },
        s("title", { text: `${joint} ${shown(joint, k.value)} at frame ${k.frame}` }));
      if (this.curveKey?.actuator === joint && this.curveKey.frame === k.frame) dot.classList.add("picked");
      dot.addEventListener("mousedown", (e) => {
        e.stopPropagation();
        e.preventDefault();
        this.keyDrag = { k, dot, svg, x: e.clientX, y: e.clientY, moved: false, change };
      });
      svg.append(dot);
    }
    const axis = (v) => (hand ? v.toFixed(2) : `${Math.round(v * unit)}°`);
    const label = h("div", { class: "tl-lane-label tl-joint", title: `${joint}: its axis from ${axis(lo)} to ${axis(hi)}` },
      h("span", { class: "tl-joint-name", text: joint }),
      h("span", { class: "tl-axis" }, h("small", { text: axis(hi) }), h("small", { text: axis(lo) })));
    return h("div", { class: "tl-lane tl-joint-lane", "data-joint": joint }, label, h("div", { class: "tl-lane-draw" }, svg));
  }

  /** Frame and value under the pointer in a joint's lane. */
  curvePoint(svg, e) {
    const r = svg.getBoundingClientRect();
    const c = svg.scale;
    const frame = Math.max(1, Math.round(c.first + ((e.clientX - r.left) / r.width) * (c.last - c.first)));
    const value = c.hi - ((e.clientY - r.top) / r.height) * (c.hi - c.lo);
    return { frame, value };
  }

  keyMove(e) {
    const d = this.keyDrag;
    if (!d) return;
    if (!d.moved && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 3) return;
    d.moved = true;
    const p = this.curvePoint(d.svg, e);
    // Along one axis, the one the pointer went furthest along (a sideways drag keeps the
    // value, an upward one the frame); Shift frees it.
    if (!e.shiftKey) {
      if (Math.abs(e.clientX - d.x) >= Math.abs(e.clientY - d.y)) p.value = d.k.value;
      else p.frame = d.k.frame;
    }
    const c = d.svg.scale;
    const x = ((p.frame - c.first) / (c.last - c.first)) * W;
    const y = c.H - ((p.value - c.lo) / (c.hi - c.lo)) * c.H;
    for (const [k, v] of [["x1", x], ["x2", x], ["y1", y], ["y2", y]]) d.dot.setAttribute(k, v);
    d.to = p;
  }

  keyUp() {
    const d = this.keyDrag;
    if (!d) return;
    this.keyDrag = null;
    this.curveKey = { actuator: d.k.actuator, frame: d.moved && d.to ? d.to.frame : d.k.frame };
    if (d.moved && d.to) {
      d.change({ op: "move_key", actuator: d.k.actuator, frame: d.k.frame, to: d.to.frame, value: d.to.value });
    } else {
      for (const el of document.querySelectorAll("#tl-curves .tl-key.picked")) el.classList.remove("picked");
      d.dot.classList.add("picked");
      this.renderKey(d.k, d.change);
    }
  }
}
