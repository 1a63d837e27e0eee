// choreo edit: nothing typed is lost (docs/editor.md, "Nothing typed is lost"). What the
// user types in a field of the Properties tab (a box's name, a parameter, a script, a
// topic) is sent to the server as a draft as it is typed, so that a reload or a crash of the
// page does not lose it (choreo-editor's serve/drafts.rs keeps it); it is dropped once the
// file holds it. A code editor's text is saved after a pause in the typing, when the editor
// loses focus and before any other action of the page; the other fields save when they are
// left, as before. Methods of the page's Monitor (monitor.js), mixed into it there.

import { h } from "./dom.js";

/** How long the typing pauses before a script or a topic is saved (ms); the tests lengthen
 * it to show what the other ways of saving do. */
export const TYPING_PAUSE = 1000;

export class DraftsPane {
  /** The server's key of field `name` of the behavior shown (each behavior its own). */
  draftKey(name) {
    return `${this.shownBehavior ?? ""}\n${name}`;
  }

  /** The drafts the server keeps, as this page knows them: asked as it opens. */
  askDrafts() {
    if (!this.pageId) this.pageId = Math.random().toString(36).slice(2);
    this.draftsInFlight = 0;
    this.send({ type: "drafts" });
  }

  onDrafts(msg) {
    this.serverDrafts = new Map(Object.entries(msg.drafts && typeof msg.drafts === "object" ? msg.drafts : {}));
  }

  /** The server kept a draft (this page's: one fewer on the way). */
  onDraftKept(msg) {
    if (msg.from === this.pageId) this.draftsInFlight = Math.max(0, (this.draftsInFlight || 0) - 1);
  }

  /** The draft of field `name`, or null. */
  stored(name) {
    return this.serverDrafts?.get(this.draftKey(name)) ?? null;
  }

  /** Tells the server field `name`'s draft (`text`; null: none). */
  tellDraft(name, text) {
    const key = this.draftKey(name);
    if (!this.serverDrafts) this.serverDrafts = new Map();
    if (text === null) this.serverDrafts.delete(key);
    else this.serverDrafts.set(key, text);
    if (this.send({ type: "draft", name: key, text, from: this.pageId })) this.draftsInFlight = (this.draftsInFlight || 0) + 1;
  }

  keepDraft(name, text) {
    if (!this.typedHere) this.typedHere = new Set();
    this.typedHere.add(name);
    this.tellDraft(name, text);
  }

  dropDraft(name) {
    this.typedHere?.delete(name);
    this.restoredDrafts?.delete(name);
    if (this.stored(name) !== null) this.tellDraft(name, null);
  }

  /**
   * What field `name` shows when the file holds `saved`: the draft typed and not saved yet,
   * else `saved` (a draft the file now holds is dropped). A draft not typed in this page
   * (one kept before a reload or a crash) is listed in the draft bar, which saves it with
   * `save(text)` (none: a field only Add saves).
   */
  draftOr(name, saved, save) {
    const draft = this.stored(name);
    if (draft === null || draft === saved) {
      if (draft !== null) this.dropDraft(name);
      return saved;
    }
    if (save && !this.typedHere?.has(name)) {
      if (!this.restoredDrafts) this.restoredDrafts = new Map();
      this.restoredDrafts.set(name, save);
    }
    return draft;
  }

  /** Draft `name` was sent to be saved as `text`: dropped once the answer says saved. */
  draftSent(name, text) {
    if (!this.sentDrafts) this.sentDrafts = new Map();
    this.sentDrafts.set(name, text);
  }

  /** An edit was saved: the drafts sent before it are in the file (unless typed on since). */
  draftsSaved() {
    for (const [name, text] of this.sentDrafts || []) {
      if (this.stored(name) === text) this.dropDraft(name);
    }
    this.sentDrafts?.clear();
  }

  /** Whether some text typed here is not in the file yet (closing the page warns). */
  unsavedTyping() {
    const names = [...(this.typedHere || []), ...(this.restoredDrafts?.keys() || [])];
    return names.some((name) => this.stored(name) !== null);
  }

  /** A text field of the Properties tab (`el`: input or textarea) showing `saved`: drafted
   * as typed, `save(text)` when it is left changed (or the draft bar's Save). */
  draftField(el, name, saved, save) {
    el.value = this.draftOr(name, saved, save);
    el.classList.toggle("draft", el.value !== saved);
    el.dataset.draft = name;
    el.addEventListener("input", () => {
      this.keepDraft(name, el.value);
      el.classList.toggle("draft", el.value !== saved);
    });
    el.addEventListener("change", () => {
      this.draftSent(name, el.value);
      save(el.value);
    });
    return el;
  }

  /**
   * A code editor's text (`name`; the file holds `saved`): drafted as typed, saved by
   * `send(text)` after a pause, when left, on Ctrl+S and before another action (`flush`);
   * `sync(text)` when the file's is read again.
   */
  typedCode(name, saved, send) {
    const t = { name, saved, current: this.draftOr(name, saved, (text) => { t.current = text; t.flush(true); }), timer: null };
    t.sent = t.current; // a draft from before is saved at the user's word (the bar), or typed on
    t.change = (now) => {
      t.current = now;
      clearTimeout(t.timer);
      if (now === t.saved) return this.dropDraft(name); // typed back to the file's (or shown from it)
      this.keepDraft(name, now);
      t.timer = setTimeout(() => t.flush(), this.typingPause ?? TYPING_PAUSE);
    };
    t.flush = (again = false) => {
      clearTimeout(t.timer);
      t.timer = null;
      if (t.current === t.saved || (t.current === t.sent && !again)) return;
      t.sent = t.current;
      this.draftSent(name, t.current);
      send(t.current);
    };
    // The file's text `text` read again: true when the editor is to show it (no draft of
    // its own, or an undo or a redo asked for the file's); a draft stays, saved as typed.
    t.sync = (text) => {
      t.saved = text;
      if (t.current === text) {
        t.sent = text;
        this.dropDraft(name);
        return false;
      }
      if (!t.follow && this.stored(name) !== null) return false;
      t.follow = false;
      t.current = text;
      t.sent = text;
      return true;
    };
    if (!this.typedCodes) this.typedCodes = new Map();
    this.typedCodes.set(name, t);
    return t;
  }

  /** Saves every code text typed and not saved yet (before another action of the page);
   * forgets the editors no longer shown. */
  flushTyping() {
    if (this.flushing) return; // a flush's own save
    this.flushing = true;
    try {
      for (const [name, t] of this.typedCodes || []) {
        t.flush();
        if (t.gone?.()) this.typedCodes.delete(name);
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Undo or redo: the code editors show the file's text as it comes back (what was typed
   * is saved first, so undone first). */
  followFile() {
    this.flushTyping();
    for (const t of this.typedCodes?.values() || []) t.follow = true;
  }

  /** The draft bar over the Properties: the drafts kept before the page was reloaded or
   * closed, with Save and Discard. */
  renderDraftBar(P) {
    P.querySelector("#draft-bar")?.remove();
    const drafts = this.restoredDrafts;
    if (!drafts?.size) return;
    const names = [...drafts.keys()].map((n) => n.split("\n").pop());
    const bar = h("div", { id: "draft-bar", class: "draft-bar" },
      h("span", { text: `Typed and not saved (before the page was reloaded, or in another tab): ${names.join(", ")}` }),
      h("button", { id: "draft-save", type: "button", class: "primary", text: "Save", onclick: () => {
        const saves = [...drafts.entries()];
        drafts.clear();
        bar.remove();
        for (const [name, save] of saves) save(this.stored(name) ?? "");
      } }),
      h("button", { id: "draft-discard", type: "button", text: "Discard", onclick: () => {
        for (const name of [...drafts.keys()]) this.dropDraft(name);
        bar.remove();
        const b = this.selectedBox();
        if (b) this.send({ type: "inspect", box: b.ref });
      } }));
    P.prepend(bar);
  }
}
