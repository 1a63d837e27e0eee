// choreo's live monitor: The diagram pane: a flow diagram laid out and drawn in SVG, boxes lit as they run, links
// flashing as values pass, breadcrumbs, pan and zoom.
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { BOX_W, BOX_HEAD, PORT_DY, BOX_MIN_H, OWNER_GAP, FLASH_MS, h, s, icon, fmtValue, isNum, truncate } from "./dom.js";
import { glyph } from "./glyphs.js";

/** Fit never draws a diagram smaller than this (pixels per unit): a box's name stays
 * readable (12 px names drawn at 9 px); a larger diagram shows its top left, the rest a pan
 * away. */
const MIN_FIT_SCALE = 0.75;

export class DiagramPane {
  // ------------------------------------------------------------ diagram

  renderDiagram() {
    const E = this.el;
    // forget what the old drawing registered
    for (const [, els] of this.boxEls) for (const el of els) if (el.closest && el.closest("#diagram")) els.delete(el);
    this.portEls.clear();
    this.linkEls.clear();
    E.svg.textContent = "";
    E.dragSvg?.replaceChildren(); // a dragged box is drawn again in its diagram
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
      this.editPort(g, null, p.name, true);
      gOwner.append(g);
    }
    for (const p of layout.ownerOut) {
      const g = s("g", { class: `owner-port out nature-${p.nature}`, "data-port": p.name },
        s("title", { text: `${owner?.name ?? "(parent)"} output ${p.name} (${p.nature})` }),
        s("rect", { x: p.x, y: p.y - 10, width: p.w, height: 20, rx: 10 }),
        s("text", { x: p.x + p.w / 2, y: p.y + 4, "text-anchor": "middle", text: truncate(p.name, 16) }),
        s("circle", { cx: p.x, cy: p.y, r: 4.5, class: "port" }));
      if (owner) this.portEls.set(`${owner.path}\0out\0${p.name}`, g);
      this.editPort(g, null, p.name, false);
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
      } else {
        // its icon's kind, drawn in its body (glyphs.js)
        g.append(glyph(b.bitmap, L.w / 2 - 9, 24, 18));
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
        this.editPort(c, b, p.name, false);
        g.append(c);
      }
      for (const p of L.right) {
        const c = s("circle", { class: `port output nature-${p.nature}`, cx: L.w, cy: p.y - L.y, r: 5, "data-port": p.name },
          s("title", { text: `output ${p.name} (${p.nature})` }));
        this.portEls.set(`${b.path}\0out\0${p.name}`, c);
        this.editPort(c, b, p.name, true);
        g.append(c);
      }
      g.addEventListener("click", (e) => {
        if (this.dragged || e.detail > 1) return; // a double-click enters once
        e.stopPropagation();
        if (this.editing()) return; // editing: a click selects (edit.js), a double-click enters
        if (this.enterable(b)) this.enter(b);
      });
      this.editBox(g, b, L);
      this.registerBoxEl(b.path, g);
      gBoxes.append(g);
    }

    // links (each box's, to redraw them while it is dragged)
    const ownerPath = owner?.path ?? "";
    this.linksOfBox = new Map();
    for (const l of d.links) {
      const a = this.linkEnd(layout, l.from, "from");
      const z = this.linkEnd(layout, l.to, "to");
      if (!a || !z) continue;
      const path = this.linkPath(a, z);
      const fromName = this.endName(l.from, "from");
      const toName = this.endName(l.to, "to");
      const title = s("title", { text: `${fromName} → ${toName}` });
      const paths = [s("path", { class: "hit", d: path }), s("path", { class: "wire", d: path, "marker-end": "url(#arrow)" })];
      const g = s("g", { class: `link to-${l.to?.kind ?? "input"}`, "data-from": fromName, "data-to": toName, "data-key": this.linkKey(l) },
        title, ...paths);
      for (const end of [l.from?.box, l.to?.box]) {
        if (end === null || end === undefined) continue;
        if (!this.linksOfBox.has(end)) this.linksOfBox.set(end, []);
        this.linksOfBox.get(end).push({ l, paths });
      }
      this.editLink(g, l);
      g.addEventListener("mouseenter", () => { title.textContent = this.linkTitle(owner, l, fromName, toName); });
      const key = `${ownerPath}|${fromName}|${toName}`;
      if (!this.linkEls.has(key)) this.linkEls.set(key, []);
      this.linkEls.get(key).push(g);
      gLinks.append(g);
    }

    this.bounds = layout.bounds;
    // an edit redraws the diagram where the user had it
    if (this.keepView && this.view) this.applyView();
    else this.fitView();
    this.keepView = false;
    this.updateBoxes();
  }

  /** A link's curve from `a` (an output) to `z` (an input). */
  linkPath(a, z) {
    const dx = Math.max(40, Math.abs(z.x - a.x) * 0.5) + (z.x < a.x ? 60 : 0);
    return `M${a.x},${a.y} C${a.x + dx},${a.y} ${z.x - dx},${z.y} ${z.x},${z.y}`;
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
      // In the editor a left drag on the background selects the boxes it frames (edit.js),
      // as Choregraphe's; the middle button, or Alt with the left, pans there.
      if (this.editing() && e.button === 0 && !e.altKey) return this.startBand(e);
      if (e.button !== 0 && e.button !== 1) return;
      if (e.button === 1) e.preventDefault(); // no autoscroll
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
    // where the pointer is in the diagram (a paste goes there)
    svg.addEventListener("mousemove", (e) => {
      if (this.view) this.pointer = { ...this.clientToUser(e.clientX, e.clientY), diagram: this.drawn?.diagram };
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
      } else if (scale < MIN_FIT_SCALE) {
        // A large diagram: names kept readable, its top left shown, the rest a pan away.
        this.view = { x: b.x0, y: b.y0, w: r.width / MIN_FIT_SCALE, h: r.height / MIN_FIT_SCALE };
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
}
