// choreo's live monitor: The robot pane: what the simulated robot says, shows (LEDs, posture), how its joints
// stand and whether it fell; the 3D view (robot3d.js) hears the joints, LEDs and balance from here.
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { h, s, fmtSeconds, isNum } from "./dom.js";

export class RobotPane {
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
    // a fall, as the run said it
    const fell = this.fell && typeof this.fell.text === "string" ? this.fell.text : "";
    E.fell.textContent = fell;
    E.fell.hidden = !fell;
    // the balance, for the 3D view (robot3d.js): the CoM and the support polygon
    const balanceKey = JSON.stringify([this.balance, fell]);
    if (balanceKey !== this.balanceKey) {
      this.balanceKey = balanceKey;
      try {
        document.dispatchEvent(new CustomEvent("choreo-monitor:balance", { detail: { balance: this.balance, fell } }));
      } catch { /* a listener's problem, not ours */ }
    }
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
}
