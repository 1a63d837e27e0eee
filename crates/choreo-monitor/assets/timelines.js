// choreo's live monitor: The timelines pane: each timeline box's frames, layers and keyframes, as they play.
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { h, s, isNum } from "./dom.js";

export class TimelinesPane {
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

  /** The ruler's frames from `start` to `end`: about eight, at a round step of whole frames
   * (a frame is the timeline's unit: no 1.6, nor the 1.5999999999999999 that adding 0.2
   * gives), each a multiple of the step. */
  ticks(start, end) {
    const span = end - start;
    if (span <= 0) return [start];
    const raw = Math.max(1, span / 8);
    const mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((st) => st >= raw) || raw;
    const out = [start];
    for (let k = Math.ceil(start / step); k * step < end; k++) {
      const t = k * step;
      if (t - start > step * 0.4 && end - t > step * 0.4) out.push(t);
    }
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
}
