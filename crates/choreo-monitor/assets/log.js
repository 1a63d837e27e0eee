// choreo's live monitor: The log pane: every trace event, filtered and searched, its rows capped in the page.
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { LOG_DOM_CAP, LOG_STORE_CAP, h, s, fmtValue, isNum, truncate } from "./dom.js";

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

export class LogPane {
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

  updateLogCount() {
    const E = this.el;
    const total = this.log.length;
    const shown = this.logShown || 0;
    E.logCount.textContent = shown === total ? `${total} events` : `${shown} of ${total} events`;
  }
}
