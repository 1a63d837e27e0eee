// choreo's live monitor: editing (`choreo edit`, docs/editor.md). When the hello says `edit`,
// the diagram's boxes are dragged to move them, a port dragged onto another links them, a
// click selects a box or a link (Delete removes it), Ctrl+C / Ctrl+V copy and paste a box,
// Ctrl+Z / Ctrl+Y undo and redo, and the Properties tab edits the selected box's name,
// parameters and script. Each action is one `edit` message; the server answers with the new
// `structure` and `edited` (ok, or why not: then the drawing is put back as it was).
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { BOX_W, BOX_MIN_H, h, refKey, s } from "./dom.js";
import { codeEditor, setText, showProblems } from "./code.js";
import { glyphIcon } from "./glyphs.js";

export class EditPane {
  editing() {
    return !!this.hello?.edit && this.hello?.mode !== "replay";
  }

  // ------------------------------------------------------------ set-up (once)

  setupEditing() {
    if (!this.editing()) return;
    // the boxes the palette offers, the behavior's problems and what Undo and Redo can do
    // (again after a reconnection, or a reload of the page after edits)
    this.send({ type: "library" });
    this.send({ type: "problems" });
    this.send({ type: "history" });
    this.askDrafts();
    if (this.editSetUp) return this.setupProject();
    this.editSetUp = true;
    const E = this.el;
    this.root.classList.add("editing");
    E.undo = h("button", { id: "undo", type: "button", title: "undo (Ctrl+Z)", text: "Undo", disabled: true, onclick: () => this.undoRedo("undo") });
    E.redo = h("button", { id: "redo", type: "button", title: "redo (Ctrl+Y)", text: "Redo", disabled: true, onclick: () => this.undoRedo("redo") });
    E.reload = h("button", { id: "reload", type: "button", hidden: true, title: "take the file as the other program left it", text: "Reload", onclick: () => this.send({ type: "reload" }) });
    E.editState = h("span", { id: "edit-state", class: "stat" });
    E.shared = h("span", { id: "shared-history", class: "stat", hidden: true });
    E.header.insertBefore(h("span", { class: "edit-tools" }, E.undo, E.redo, E.reload, E.editState, E.shared), E.outcome);

    // Play: the behavior as saved, run apart (choreo run), its events lighting this page
    E.play = h("button", { id: "play", type: "button", class: "primary", title: "run the behavior as saved on the simulated robot (or the robot URL below)", text: "Play", onclick: () => this.onPlay() });
    E.stopRun = h("button", { id: "stop-run", type: "button", class: "danger", hidden: true, text: "Stop", onclick: () => this.send({ type: "stop" }) });
    E.playEvents = h("input", { id: "play-events", type: "text", placeholder: "scenario file (optional)" });
    E.playRobot = h("input", { id: "play-robot", type: "text", placeholder: "robot URL, tcp://… (optional)" });
    E.playOptions = h("details", { id: "play-options", class: "play-options" }, h("summary", { text: "Play options" }), E.playEvents, E.playRobot);
    E.header.append(E.play, E.stopRun, E.playOptions);

    E.tabProblems = h("button", { type: "button", class: "tab", "data-tab": "problems", text: "Problems", onclick: () => this.showTab("problems") });
    E.problems = h("div", { id: "problems", class: "tabpane log-rows", hidden: true });

    // the palette: the boxes to add, searched by name
    E.paletteSearch = h("input", { id: "palette-search", type: "search", placeholder: "search boxes…", oninput: () => this.renderPalette() });
    E.paletteList = h("div", { id: "palette-list", class: "palette-list" });
    E.palette = h("div", { id: "palette", class: "palette", hidden: true }, E.paletteSearch, E.paletteList);
    E.addBox = h("button", { id: "add-box", type: "button", title: "add a box to this diagram", text: "Add box", onclick: () => {
      E.palette.hidden = !E.palette.hidden;
      if (!E.palette.hidden) { this.renderPalette(); E.paletteSearch.focus(); E.paletteSearch.select(); }
    } });
    E.fit.before(E.addBox);
    E.groupBoxes = h("button", { id: "group-boxes", type: "button", title: "group the selected boxes into a diagram box (Ctrl+G; Shift+click selects several)", text: "Group", onclick: () => this.groupSelection() });
    E.fit.before(E.groupBoxes);
    E.svg.parentNode.append(E.palette);

    E.tabProps = h("button", { type: "button", class: "tab", "data-tab": "props", text: "Properties", onclick: () => this.showTab("props") });
    E.tabStack.after(E.tabProps, E.tabProblems);
    E.props = h("div", { id: "props", class: "tabpane props", hidden: true });
    this.clearProps();
    E.bottom.append(E.props, E.problems);
    this.setupTalk();

    window.addEventListener("mousemove", (e) => this.editMove(e));
    window.addEventListener("mouseup", (e) => this.editUp(e));
    window.addEventListener("keydown", (e) => this.editKey(e));
    // Closing the page (or reloading it) with typed text the file does not hold yet warns;
    // the drafts survive anyway (drafts.js).
    window.addEventListener("beforeunload", (e) => {
      this.flushTyping();
      if (this.unsavedTyping()) e.preventDefault();
    });
    this.setupProject();
  }

  // ------------------------------------------------------------ the drawing's hooks

  /** Called for each box drawn (diagram.js): dragging moves it, a click selects it. */
  editBox(g, b, L) {
    if (!this.editing() || !b.ref) return;
    if (refKey(b.ref) === this.selectedKey) g.classList.add("selected");
    g.addEventListener("mousedown", (e) => {
      if (e.button !== 0 || e.target.closest(".port")) return;
      e.stopPropagation();
      const start = this.clientToUser(e.clientX, e.clientY);
      this.boxDrag = {
        b, L, g, start, client: { x: e.clientX, y: e.clientY }, moved: false,
        x0: L.x, y0: L.y,
        ys: [...L.left.map((p) => p.y), ...L.right.map((p) => p.y)],
      };
    });
    g.addEventListener("dblclick", (e) => {
      e.stopPropagation();
      if (this.enterable(b)) this.enter(b);
    });
  }

  /** Called for each port drawn: dragging from a port that sends draws a link. */
  editPort(el, b, name, sends) {
    if (!this.editing()) return;
    el.classList.add("linkable");
    if (!sends) return;
    el.addEventListener("mousedown", (e) => {
      if (e.button !== 0) return;
      e.stopPropagation();
      const a = this.clientToUser(e.clientX, e.clientY);
      const wire = s("path", { class: "link-draft" });
      this.gView?.append(wire);
      this.linkDrag = { from: { box: b ? this.fileId(b) : null, port: name }, a, wire };
    });
  }

  /** Called for each link drawn: a click selects it. */
  editLink(g, l) {
    if (!this.editing()) return;
    const key = this.linkKey(l);
    if (key === this.selectedLink) g.classList.add("selected");
    g.addEventListener("mousedown", (e) => e.stopPropagation());
    g.addEventListener("click", (e) => {
      e.stopPropagation();
      this.selectLink(key, l);
    });
  }

  // ------------------------------------------------------------ dragging

  editMove(e) {
    const pt = () => this.clientToUser(e.clientX, e.clientY);
    if (this.band) {
      const p = pt();
      const a = this.band.a;
      this.band.b = p;
      const r = this.band.rect;
      r.setAttribute("x", Math.min(a.x, p.x));
      r.setAttribute("y", Math.min(a.y, p.y));
      r.setAttribute("width", Math.abs(p.x - a.x));
      r.setAttribute("height", Math.abs(p.y - a.y));
    } else if (this.boxDrag) {
      const d = this.boxDrag;
      if (!d.moved && Math.hypot(e.clientX - d.client.x, e.clientY - d.client.y) < 4) return;
      if (!d.moved) this.lift(d);
      d.moved = true;
      const p = pt();
      const dx = p.x - d.start.x;
      const dy = p.y - d.start.y;
      d.L.x = d.x0 + dx;
      d.L.y = d.y0 + dy;
      const ports = [...d.L.left, ...d.L.right];
      ports.forEach((q, i) => { q.y = d.ys[i] + dy; });
      d.g.setAttribute("transform", `translate(${d.L.x},${d.L.y})`);
      this.redrawLinksOf(d.b.id);
    } else if (this.linkDrag) {
      const p = pt();
      const a = this.linkDrag.a;
      this.linkDrag.wire.setAttribute("d", `M${a.x},${a.y} L${p.x},${p.y}`);
    }
  }

  editUp(e) {
    if (this.band) this.endBand(e);
    if (this.boxDrag) {
      const d = this.boxDrag;
      this.boxDrag = null;
      if (d.moved) {
        this.dragged = true;
        setTimeout(() => { this.dragged = false; }, 0);
        this.sendEdit({ kind: "move", box: d.b.ref, x: Math.round(d.L.x), y: Math.round(d.L.y) });
      } else if (e.shiftKey) {
        this.toggleGrouped(d.b);
      } else {
        this.selectBox(d.b);
      }
    }
    if (this.linkDrag) {
      const d = this.linkDrag;
      this.linkDrag = null;
      d.wire.remove();
      const to = this.portUnder(e.clientX, e.clientY);
      if (to) this.sendEdit({ kind: "link", diagram: this.diagramRef(), from: d.from, to });
    }
  }

  /**
   * Moves the dragged box and its links to a drawing of their own over the diagram (a
   * layer of its own: `will-change`), so that each frame rasters them alone. Drawn in the
   * diagram, a frame rastered the diagram under the box again: with WebGL on the CPU, 333 ms
   * a frame at 500 boxes, 16.7 ms with this layer (docs/benchmarks.md, Editor). The next
   * drawing puts them back.
   */
  lift(d) {
    const E = this.el;
    if (!E.dragSvg) {
      E.dragSvg = s("svg", { id: "drag-svg", class: "diagram-svg drag-layer" });
      E.svg.after(E.dragSvg);
    }
    E.dragSvg.setAttribute("viewBox", E.svg.getAttribute("viewBox") || "");
    const g = s("g", { class: "view" });
    E.dragSvg.replaceChildren(g);
    for (const { paths } of this.linksOfBox?.get(d.b.id) || []) g.append(paths[0].parentNode);
    g.append(d.g);
  }

  /** The port under the pointer that a link may reach: `{box, port, kind}` as the edit says it. */
  portUnder(x, y) {
    const el = document.elementFromPoint(x, y);
    const owner = el?.closest?.("g.owner-port.out");
    if (owner) return { box: null, port: owner.dataset.port, kind: "output" };
    const port = el?.closest?.("circle.port");
    const g = port?.closest("g.box");
    if (!port || !g || port.classList.contains("output")) return null;
    const b = this.boxes.get(Number(g.dataset.box));
    if (!b) return null;
    return { box: this.fileId(b), port: port.dataset.port, kind: port.classList.contains("parameter") ? "parameter" : "input" };
  }

  /** Redraws the links that touch box `id` (while it is dragged). */
  redrawLinksOf(id) {
    for (const { l, paths } of this.linksOfBox?.get(id) || []) {
      const a = this.linkEnd(this.layout, l.from, "from");
      const z = this.linkEnd(this.layout, l.to, "to");
      if (!a || !z) continue;
      const d = this.linkPath(a, z);
      for (const p of paths) p.setAttribute("d", d);
    }
  }

  // ------------------------------------------------------------ selection, keys

  /** A left drag on the diagram's background: the rubber band (Shift: adds to the
   * selection). */
  startBand(e) {
    const a = this.clientToUser(e.clientX, e.clientY);
    const rect = s("rect", { class: "band", x: a.x, y: a.y, width: 0, height: 0 });
    this.gView?.append(rect);
    this.band = { a, b: a, rect, add: e.shiftKey, client: { x: e.clientX, y: e.clientY } };
  }

  /** The band let go: the boxes it touches are selected (one alone shows its Properties);
   * a click without a drag selects nothing. */
  endBand(e) {
    const { a, b, rect, add, client } = this.band;
    this.band = null;
    rect.remove();
    if (Math.hypot(e.clientX - client.x, e.clientY - client.y) < 4) return;
    const [x0, x1, y0, y1] = [Math.min(a.x, b.x), Math.max(a.x, b.x), Math.min(a.y, b.y), Math.max(a.y, b.y)];
    const keys = new Set(add ? this.selectedBoxes().map((x) => refKey(x.ref)) : []);
    for (const [id, L] of this.layout?.boxes || []) {
      const box = this.boxes.get(id);
      if (box?.ref?.length && L.x < x1 && x0 < L.x + L.w && L.y < y1 && y0 < L.y + L.h) keys.add(refKey(box.ref));
    }
    const chosen = [...this.boxes.values()].filter((x) => x.ref?.length && keys.has(refKey(x.ref)));
    if (chosen.length === 1) return this.selectBox(chosen[0]);
    this.flushTyping();
    this.grouped = keys;
    this.selectedKey = null;
    this.selectedLink = null;
    this.markSelection();
  }

  selectBox(b) {
    this.flushTyping();
    this.grouped = new Set();
    this.selectedKey = refKey(b.ref);
    this.selectedLink = null;
    this.markSelection();
    this.send({ type: "inspect", box: b.ref });
  }

  selectLink(key, l) {
    this.selectedLink = key;
    this.selectedLinkEnds = l;
    this.selectedKey = null;
    this.markSelection();
  }

  /** Shift+click: a box added to the selection (or taken out), for Group. */
  toggleGrouped(b) {
    if (!this.grouped) this.grouped = new Set();
    if (this.selectedKey) this.grouped.add(this.selectedKey);
    const key = refKey(b.ref);
    if (this.grouped.has(key)) this.grouped.delete(key); else this.grouped.add(key);
    this.selectedKey = null;
    this.selectedLink = null;
    this.markSelection();
  }

  /** The boxes selected in the diagram shown: the shift-clicked ones, else the one clicked. */
  selectedBoxes() {
    const keys = this.grouped?.size ? this.grouped : new Set(this.selectedKey ? [this.selectedKey] : []);
    return [...this.boxes.values()].filter((b) => b.ref?.length && keys.has(refKey(b.ref)));
  }

  /** Group (Ctrl+G): the selected boxes into one flow-diagram box, as Choregraphe's
   * "Convert to box" (named "Group": rename it in Properties). */
  groupSelection() {
    const boxes = this.selectedBoxes();
    if (!boxes.length) return this.toast("select boxes to group (Shift+click adds one)");
    this.grouped = new Set();
    this.selectedKey = null;
    this.sendEdit({ kind: "group", diagram: this.diagramRef(), boxes: boxes.map((b) => b.ref[b.ref.length - 1][2]), name: "Group" });
  }

  markSelection() {
    for (const g of this.el.svg.querySelectorAll("g.box")) {
      const b = this.boxes.get(Number(g.dataset.box));
      const key = b ? refKey(b.ref) : null;
      g.classList.toggle("selected", !!b && (key === this.selectedKey || !!this.grouped?.has(key)));
    }
    for (const g of this.el.svg.querySelectorAll("g.link")) {
      g.classList.toggle("selected", g.dataset.key === this.selectedLink);
    }
  }

  selectedBox() {
    if (!this.selectedKey) return null;
    for (const b of this.boxes.values()) if (refKey(b.ref) === this.selectedKey) return b;
    return null;
  }

  editKey(e) {
    if (!this.editing()) return;
    const typing = e.target.closest?.("input, textarea, select, [contenteditable]");
    const mod = e.ctrlKey || e.metaKey;
    const key = e.key.toLowerCase();
    if (mod && key === "z" && !typing) {
      e.preventDefault();
      this.undoRedo(e.shiftKey ? "redo" : "undo");
    } else if (mod && key === "y" && !typing) {
      e.preventDefault();
      this.undoRedo("redo");
    } else if ((e.key === "Delete" || e.key === "Backspace") && !typing) {
      this.deleteSelection();
    } else if (mod && key === "c" && !typing) {
      const b = this.selectedBox();
      if (b) {
        this.copying = true;
        this.send({ type: "inspect", box: b.ref });
      }
    } else if (mod && key === "g" && !typing) {
      e.preventDefault();
      this.groupSelection();
    } else if (mod && key === "v" && !typing && this.clipboard) {
      e.preventDefault();
      this.paste();
    }
  }

  deleteSelection() {
    const b = this.selectedBox();
    if (b && b.ref.length) {
      this.selectedKey = null;
      this.sendEdit({ kind: "delete", box: b.ref });
    } else if (this.selectedLink && this.selectedLinkEnds) {
      const l = this.selectedLinkEnds;
      this.selectedLink = null;
      this.sendEdit({ kind: "unlink", diagram: this.diagramRef(), from: this.linkSide(l.from), to: this.linkSide(l.to) });
    }
  }

  /** Adds the copied box to the diagram shown, beside where it was or at the view's middle. */
  paste() {
    const v = this.view || { x: 0, y: 0, w: 200, h: 200 };
    const p = this.pointer && this.pointer.diagram === this.drawn?.diagram ? this.pointer : { x: v.x + v.w / 2, y: v.y + v.h / 2 };
    this.sendEdit({ kind: "add", diagram: this.diagramRef(), text: this.clipboard, ...this.freeSpot(p.x, p.y) });
  }

  // ------------------------------------------------------------ the file's names

  /** A box's id in its diagram, as the file (and links) name it. */
  fileId(b) {
    const last = b.ref?.[b.ref.length - 1];
    return last ? last[2] : null;
  }

  /** The diagram shown, as the editor names it: its owner's ref, layer and keyframe. */
  diagramRef() {
    const d = this.diagrams.get(this.drawn?.diagram);
    const owner = d && this.boxes.get(d.owner);
    if (!d || !owner) return null;
    const [layer, keyframe] = d.place || [0, 0];
    return { owner: owner.ref, layer, keyframe };
  }

  linkSide(end) {
    const b = end.box === null || end.box === undefined ? null : this.boxes.get(end.box);
    return { box: b ? this.fileId(b) : null, port: end.port, kind: end.kind };
  }

  linkKey(l) {
    return JSON.stringify([l.from?.box ?? null, l.from?.port, l.to?.box ?? null, l.to?.port, l.to?.kind]);
  }

  // ------------------------------------------------------------ messages

  sendEdit(edit) {
    this.flushTyping(); // what was typed is saved first, in the order it was made
    if (!edit.diagram && ["link", "unlink", "add"].includes(edit.kind)) {
      this.toast("no diagram here to edit");
      return false;
    }
    this.pendingEdit = edit.kind;
    this.el.editState.textContent = "saving…";
    return this.send({ type: "edit", edit });
  }

  /** Undo or redo (`which`) of the history, what was typed saved first (so undone first). */
  undoRedo(which) {
    this.followFile();
    this.send({ type: which });
  }

  /** What Undo and Redo can do, told to a page as it opens. */
  onHistory(msg) {
    const E = this.el;
    if (!E.undo) return;
    E.undo.disabled = !msg.undo;
    E.redo.disabled = !msg.redo;
    this.renderShared(msg.pages);
  }

  /** Several pages (tabs) open on one server share its one history: each says so. */
  renderShared(pages) {
    const E = this.el;
    const n = Number(pages) || 1;
    E.shared.hidden = n < 2;
    E.shared.dataset.pages = String(n);
    E.shared.textContent = `${n} pages open, one history`;
    E.shared.title = "Undo and Redo take back the last edit made in any of the pages open on this file";
  }

  /** The server's answer to an edit, an undo, a redo or a reload; or the file changed on disk. */
  onEdited(msg) {
    const E = this.el;
    if (!E.undo) return;
    E.undo.disabled = !msg.undo;
    E.redo.disabled = !msg.redo;
    E.reload.hidden = !msg.changed_on_disk;
    this.renderShared(msg.pages);
    E.editState.dataset.ok = String(!!msg.ok);
    this.answers = (this.answers || 0) + 1;
    E.editState.dataset.seq = String(this.answers); // for the tests: one more answer
    if (msg.ok) {
      this.draftsSaved();
      E.editState.textContent = "saved";
      E.editState.title = msg.file ?? "";
      // The box shown again as it is now; none when it went (deleted, grouped away).
      const b = this.selectedBox();
      if (b) this.send({ type: "inspect", box: b.ref });
      else this.clearProps();
    } else {
      E.editState.textContent = "not saved";
      E.editState.title = msg.why ?? "";
      this.toast(`not saved: ${msg.why ?? "?"}`);
      this.renderDiagram(); // puts back what the page moved before asking
    }
    this.pendingEdit = null;
  }

  /** A box's fields (the answer to `inspect`): copied, or shown in the Properties tab. */
  onBox(msg) {
    if (this.copying) {
      this.copying = false;
      this.clipboard = msg.text;
      this.toast(`copied ${msg.name}`);
      return;
    }
    if (refKey(msg.ref) !== this.selectedKey) return;
    this.renderProps(msg);
  }

  // ------------------------------------------------------------ play, problems

  /** Play: the behavior as saved, or (`box`: a box's ref) that box alone. */
  onPlay(box = null) {
    const E = this.el;
    this.flushTyping(); // the behavior as saved: with what was typed
    if (this.send({ type: "play", box, events: E.playEvents.value, robot: E.playRobot.value })) {
      E.play.disabled = true;
    }
  }

  /** The run started (`playing`) or ended (`ended`, or a refusal of the play). */
  renderPlay(playing) {
    const E = this.el;
    if (!E.play) return;
    this.playing = playing;
    E.play.disabled = playing;
    E.stopRun.hidden = !playing;
    this.renderTalk(playing);
  }

  onProblems(msg) {
    const E = this.el;
    const list = Array.isArray(msg.problems) ? msg.problems : [];
    E.problems.textContent = "";
    E.tabProblems.textContent = list.length ? `Problems (${list.length})` : "Problems";
    E.tabProblems.classList.toggle("warn", list.some((p) => p.severity === "error"));
    for (const p of list) {
      const path = h("span", { class: "ev-path", text: p.box || "" });
      path.addEventListener("click", () => this.reveal(p.box));
      E.problems.append(h("div", { class: `problem ${p.severity}` },
        h("span", { class: "sev", text: p.severity }), path, h("span", { class: "msg", text: p.message })));
    }
    if (!list.length) E.problems.append(h("div", { class: "empty-note", text: "choreo check finds no problem" }));
  }

  onScriptProblems(msg) {
    const list = this.el.props.querySelector("#script-problems");
    if (!list || refKey(msg.box) !== this.selectedKey) return;
    list.textContent = "";
    for (const p of msg.problems || []) {
      list.append(h("li", { class: p.severity, text: `line ${p.line}: ${p.message}` }));
    }
    list.dataset.count = String((msg.problems || []).length);
    if (this.scriptView) showProblems(this.scriptView, msg.problems || []);
  }

  // ------------------------------------------------------------ the palette

  onLibrary(msg) {
    this.library = Array.isArray(msg.boxes) ? msg.boxes : [];
    if (this.el.palette && !this.el.palette.hidden) this.renderPalette();
  }

  renderPalette() {
    const E = this.el;
    const q = E.paletteSearch.value.trim().toLowerCase();
    const shown = (this.library || []).filter((b) => !q || b.name.toLowerCase().includes(q) || b.group.toLowerCase().includes(q));
    E.paletteList.textContent = "";
    let group = null;
    for (const b of shown.slice(0, 300)) {
      if (b.group !== group) {
        group = b.group;
        E.paletteList.append(h("div", { class: "palette-group", text: group }));
      }
      // its glyph, its name and where it comes from (two "Say" boxes differ by their group)
      E.paletteList.append(h("button", {
        type: "button", class: "palette-item", "data-key": b.key, title: `${b.name} (${b.group})\n${b.tooltip}`,
        onclick: () => this.addFromLibrary(b.key),
      }, glyphIcon(b.bitmap), h("span", { class: "palette-name", text: b.name }), h("span", { class: "palette-from", text: b.group })));
    }
    if (!shown.length) E.paletteList.append(h("div", { class: "empty-note", text: "no box by that name" }));
  }

  /** Adds library box `key` at the middle of the view. */
  addFromLibrary(key) {
    const v = this.view || { x: 0, y: 0, w: 200, h: 200 };
    this.el.palette.hidden = true;
    const at = this.freeSpot(v.x + v.w / 2 - BOX_W / 2, v.y + v.h / 2 - BOX_MIN_H / 2);
    this.sendEdit({ kind: "add", diagram: this.diagramRef(), library: key, ...at });
  }

  /** (x, y), or the first place right of it where a new box covers none of the diagram's. */
  freeSpot(x, y) {
    const boxes = [...(this.layout?.boxes.values() || [])];
    const covers = (px) => boxes.some((L) => px < L.x + L.w + 20 && L.x < px + BOX_W + 20 && y < L.y + L.h + 20 && L.y < y + BOX_MIN_H + 20);
    let px = x;
    for (let i = 0; i < 200 && covers(px); i++) px += BOX_W / 2;
    return { x: Math.round(px), y: Math.round(y) };
  }

  // ------------------------------------------------------------ the Properties tab

  /** No box selected: the Properties tab says so (as of the last answer, for the tests). */
  clearProps() {
    const E = this.el;
    E.props.replaceChildren(h("div", { class: "empty-note", text: "select a box to edit its properties" }));
    E.props.dataset.seq = E.editState?.dataset.seq || "0";
  }

  /**
   * The selected box's fields. Shown again (after an edit's answer), the same box keeps its
   * script or dialog section as it is (the code editor's focus, cursor and text typed since
   * the last save) and the field focused keeps its focus; its other fields show their drafts.
   */
  renderProps(box) {
    const E = this.el;
    const P = E.props;
    const key = `${refKey(box.ref)}\n${this.shownBehavior ?? ""}`;
    const kept = this.propsKey === key ? P.querySelector(":scope > .typed-section") : null;
    if (!kept) this.flushTyping();
    const active = document.activeElement;
    const focused = active && P.contains(active) && !kept?.contains(active) && active.id
      ? { id: active.id, value: active.value, start: active.selectionStart, end: active.selectionEnd } : null;
    for (const c of [...P.children]) if (c !== kept) c.remove();
    this.propsKey = key;
    if (!kept) this.restoredDrafts = new Map();
    P.dataset.seq = E.editState.dataset.seq || "0"; // the box as of that answer (for the tests)
    const at = box.ref;
    const name = this.draftField(h("input", { id: "prop-name", type: "text" }), `${refKey(at)}\nname`, box.name,
      (text) => this.sendEdit({ kind: "rename", box: at, name: text }));
    // Play from this box: the box alone, started and stopped as the behavior (docs/editor.md)
    const playBox = at.length ? h("button", { id: "play-box", type: "button", title: "run this box on its own on the simulated robot (or the robot URL of Play options)", text: "Play from this box", onclick: () => this.onPlay(at) }) : null;
    // Ungroup: a flow-diagram box's boxes in its place (the server says why not, if not)
    const shown = this.selectedBox();
    const ungroup = at.length && shown && this.enterable(shown) && !box.timeline ? h("button", { id: "ungroup", type: "button", title: "put this diagram box's boxes in its place", text: "Ungroup", onclick: () => this.sendEdit({ kind: "ungroup", box: at }) }) : null;
    const head = [h("div", { class: "prop-row" }, h("label", { text: "name", for: "prop-name" }), name, playBox, ungroup)];
    if (box.parameters.length) head.push(h("h3", { text: "Parameters" }));
    for (const p of box.parameters) head.push(this.parameterField(at, p));
    head.push(...this.renderPanels(box), ...this.renderFields(box));
    if (kept) kept.before(...head);
    else P.append(...head);
    // A Dialog box's script is generated at run time, as Choregraphe's: its topics are shown.
    if (kept) kept.sync(box);
    else if (box.script !== null && box.script !== undefined && !box.dialog) P.append(this.renderScript(at, box.script));
    else if (box.dialog) P.append(this.renderDialog(box));
    if (box.timeline) this.renderTimelineEditor(P, box);
    this.renderDraftBar(P);
    if (focused) {
      // the field typed in keeps its focus, and what was typed (a drafted field has it already)
      const el = document.getElementById(focused.id);
      if (el && !el.dataset.draft && typeof focused.value === "string" && el.value !== focused.value) el.value = focused.value;
      el?.focus();
      try { el?.setSelectionRange(focused.start, focused.end); } catch { /* a number field has no selection */ }
    }
    this.showTab("props");
  }

  /** The script in a code editor, checked as it is typed; saved after a pause in the typing,
   * when left, before another action, with Save script or Ctrl+S (drafts.js). */
  renderScript(at, text) {
    const holder = h("div", { id: "prop-script", class: "script" });
    const problems = h("ul", { id: "script-problems", class: "script-problems" });
    const typed = this.typedCode(`${refKey(at)}\nscript`, text, (now) => this.sendEdit({ kind: "script", box: at, text: now }));
    typed.gone = () => !holder.isConnected;
    const apply = h("button", { id: "prop-script-apply", type: "button", text: "Save script", onclick: () => typed.flush(true) });
    const section = h("div", { class: "typed-section" }, h("h3", { text: "Script" }), holder, problems, h("div", {}, apply));
    const check = (now) => {
      // choreo check's reading of the script as it is typed
      clearTimeout(this.checkTimer);
      this.checkTimer = setTimeout(() => this.send({ type: "check", box: at, text: now }), 250);
    };
    section.sync = (box) => {
      if (typed.sync(box.script ?? "") && this.scriptView) setText(this.scriptView, typed.current);
    };
    holder.addEventListener("focusout", () => typed.flush());
    this.scriptView = null;
    codeEditor(holder, typed.current, {
      language: "python",
      onSave: () => typed.flush(true),
      onChange: (now) => {
        typed.change(now);
        check(now);
      },
    }).then((view) => {
      if (!holder.isConnected) return view.destroy();
      this.scriptView = view;
      if (view.state.doc.toString() !== typed.current) setText(view, typed.current); // synced while it loaded
      holder.dataset.ready = "true";
      if (typed.current !== text) check(typed.current);
    }, (e) => {
      holder.textContent = `could not load the code editor: ${e}`;
    });
    return section;
  }

  /** The box's inputs, outputs, parameters and resources: each removable or changed in
   * place (✎ puts its fields in the row below, which then changes it, keeping its links),
   * one added with Choregraphe's fields (Edit box: name, type, nature; a parameter's value). */
  renderFields(box) {
    const at = box.ref;
    const remove = (kind, name) => h("button", { type: "button", class: "tl-del", title: `remove ${kind} ${name} (its links go with it)`, text: "×",
      onclick: () => this.sendEdit({ kind: "port_remove", box: at, name, port_kind: kind }) });
    const change = (kind, q) => h("button", { type: "button", class: "tl-del port-change", title: `change ${kind} ${q.name} (its links stay)`, text: "✎",
      onclick: () => changing(kind, q) });
    const list = (title, kind, items) => h("div", { class: "prop-ports", "data-ports": kind }, h("h3", { text: title }),
      h("ul", {}, items.map((q) => h("li", { "data-port": q.name, title: q.tooltip ?? "" },
        `${q.name} (${q.type}${q.nature ? `, ${q.nature}` : ""}) `, change(kind, q), remove(kind, q.name)))));
    const cols = h("div", { class: "prop-cols" }, list("Inputs", "input", box.inputs), list("Outputs", "output", box.outputs),
      list("Parameters", "parameter", box.parameters),
      h("div", { class: "prop-ports", "data-ports": "resource" }, h("h3", { text: "Resources" }),
        h("ul", {}, (box.resources || []).map((r) => h("li", { "data-resource": r.name }, `${r.name} (${r.lock}) `,
          h("button", { type: "button", class: "tl-del", text: "×", onclick: () => this.sendEdit({ kind: "resource_remove", box: at, name: r.name }) }))))));
    // Adding one: the fields its kind has.
    const kind = h("select", { id: "port-kind" }, ["input", "output", "parameter"].map((k) => h("option", { value: k, text: k })));
    const name = h("input", { id: "port-name", type: "text", placeholder: "name" });
    const type = h("select", { id: "port-type" });
    const nature = h("select", { id: "port-nature" });
    const value = h("input", { id: "port-value", type: "text", placeholder: "value" });
    const fill = () => {
      const k = kind.value;
      const types = k === "parameter" ? ["bool", "int", "double", "string", "text", "file"] : ["bang", "number", "string", "dynamic"];
      type.replaceChildren(...types.map((t) => h("option", { value: t, text: t })));
      const natures = k === "input" ? ["onEvent", "onStart", "onStop", "onLoad", "memory"] : k === "output" ? ["punctual", "stopping"] : [];
      nature.replaceChildren(...natures.map((n) => h("option", { value: n, text: n })));
      nature.hidden = k === "parameter";
      value.hidden = k !== "parameter";
    };
    kind.addEventListener("change", fill);
    fill();
    // what is typed in the row is kept as the other fields' drafts are (no save: Add saves it)
    const typedKey = (f) => `${refKey(at)}\nport ${f}`;
    for (const [el, f] of [[name, "name"], [value, "value"]]) {
      el.value = this.draftOr(typedKey(f), "", null);
      el.addEventListener("input", () => { if (el.value) this.keepDraft(typedKey(f), el.value); else this.dropDraft(typedKey(f)); });
    }
    let changed = null; // the port the row changes: {kind, name, min, max}; null: it adds
    const label = h("label", { text: "add" });
    const add = h("button", { id: "port-add", type: "button", text: "Add", onclick: () => {
      const port = { kind: kind.value, name: name.value, type: type.value, nature: nature.value, value: value.value };
      this.dropDraft(typedKey("name"));
      this.dropDraft(typedKey("value"));
      if (!changed) return this.sendEdit({ kind: "port_add", box: at, port });
      Object.assign(port, { min: changed.min, max: changed.max, tooltip: changed.tooltip });
      this.sendEdit({ kind: "port_change", box: at, name: changed.name, port_kind: changed.kind, port });
    } });
    const changing = (k, q) => {
      changed = { kind: k, name: q.name, min: q.min ?? null, max: q.max ?? null, tooltip: q.tooltip ?? "" };
      kind.value = k;
      fill();
      kind.disabled = true; // a port keeps its kind
      name.value = q.name;
      type.value = q.type;
      nature.value = q.nature ?? "";
      value.value = q.default ?? q.value ?? "";
      label.textContent = `change ${q.name}`;
      add.textContent = "Change";
      name.focus();
    };
    return [cols, h("div", { class: "prop-row port-add" }, label, h("span", { class: "port-fields" }, kind, name, type, nature, value, add))];
  }

  /** One parameter's field, as Choregraphe's panel offers it for its type. */
  parameterField(at, p) {
    const id = `param-${p.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
    const set = (value) => this.sendEdit({ kind: "parameter", box: at, parameter: p.name, value });
    let field;
    if (p.type === "bool") {
      field = h("input", { id, type: "checkbox", checked: p.value === "1" || p.value === "true" });
      field.addEventListener("change", () => set(field.checked ? "1" : "0"));
    } else if (p.choices.length && !p.custom_choice) {
      field = h("select", { id }, p.choices.map((c) => h("option", { value: c, text: c, selected: c === p.value })));
      field.addEventListener("change", () => set(field.value));
    } else {
      // typed: drafted as typed, saved when left (drafts.js)
      const number = p.type === "int" || p.type === "double";
      field = number ? h("input", { id, type: "number", min: p.min ?? undefined, max: p.max ?? undefined, step: p.type === "int" ? 1 : "any" })
        : p.type === "text" ? h("textarea", { id, rows: 3 })
          : h("input", { id, type: p.password ? "password" : "text" });
      this.draftField(field, `${refKey(at)}\nparameter ${p.name}`, p.value ?? "", set);
    }
    const range = p.min !== null && p.min !== undefined ? ` ${p.min}…${p.max}` : "";
    return h("div", { class: "prop-row", title: p.tooltip ?? "" },
      h("label", { for: id, text: p.name }), field, h("span", { class: "dim", text: `${p.type}${range}` }));
  }
}
