// choreo's live monitor: The stack pane (`choreo stack run`): the behavior stack's tree, its strip over time, and
// its events.
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { h, s, fmtSeconds, isNum } from "./dom.js";

export class StackPane {
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
}
