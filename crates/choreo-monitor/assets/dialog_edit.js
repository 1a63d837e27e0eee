// choreo's live monitor: an editor's dialog tools (`choreo edit`, docs/editor.md), in the
// Properties tab of a selected Dialog box: its topics, one per language, in the code editor
// with QiChat highlighted, the language server's problems as typed and its completions,
// "Try this rule" (a sentence heard by the topic as typed: the dialog engine's answer); the
// topic saved as a script is (drafts.js: after a pause, when left, Save topic or Ctrl+S),
// undone and redone as the behavior's edits are; Add language (a topic in another language,
// named in the .dlg and the project's .pml).
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { h } from "./dom.js";
import { codeEditor, setText, showProblems } from "./code.js";

export class DialogEditPane {
  /** The Dialog section of a Dialog box's Properties: its topics are asked for (again when
   * the box is shown again: `sync`). */
  renderDialog(box) {
    this.dialogHolder = h("div", { id: "dialog-edit", class: "dialog-edit" }, h("span", { class: "dim", text: "reading its topics…" }));
    const section = h("div", { class: "typed-section" }, h("h3", { text: `Dialog ${box.dialog}` }), this.dialogHolder);
    this.dialogBox = JSON.stringify(box.ref);
    section.sync = () => this.send({ type: "dialog", box: box.ref });
    section.sync();
    return section;
  }

  /** The topics (`dialog`: `{box, file, topics: [{language, path, text}]}`): a tab each. */
  onDialog(msg) {
    const D = this.dialogHolder;
    if (!D?.isConnected || JSON.stringify(msg.box) !== this.dialogBox) return;
    const topics = Array.isArray(msg.topics) ? msg.topics : [];
    // The topic shown, read again: its editor stays (its focus, and a draft typed in it).
    const shown = this.topicTyped && !this.topicTyped.gone() && topics.find((t) => t.path === this.topicPath);
    if (shown && D.querySelector(".dialog-tabs")?.dataset.paths === topics.map((t) => t.path).join("\n")) {
      if (this.topicTyped.sync(shown.text) && this.topicView) setText(this.topicView, this.topicTyped.current);
      this.renderDraftBar(this.el.props);
      return;
    }
    D.textContent = "";
    const tabs = h("div", { class: "dialog-tabs", "data-paths": topics.map((t) => t.path).join("\n") });
    const body = h("div", { class: "dialog-body" });
    D.append(tabs, body);
    const show = (t) => {
      this.flushTyping(); // the topic left is saved
      this.dialogLanguage = t.language;
      for (const b of tabs.children) b.classList.toggle("active", b.dataset.language === t.language);
      this.renderTopic(body, t);
      this.renderDraftBar(this.el.props);
    };
    for (const t of topics) {
      tabs.append(h("button", { type: "button", class: "tab dialog-tab", "data-language": t.language, text: t.language, onclick: () => show(t) }));
    }
    // Add language: a topic in a language the dialog has not, made as Choregraphe makes it
    const have = new Set(topics.map((t) => t.language));
    const missing = (msg.languages || []).filter((l) => !have.has(l.code));
    if (missing.length) {
      const pick = h("select", { id: "topic-language", title: "a language the dialog has no topic in" }, missing.map((l) => h("option", { value: l.code, text: `${l.name} (${l.code})` })));
      const ref = JSON.parse(this.dialogBox);
      tabs.append(pick, h("button", { id: "topic-language-add", type: "button", text: "Add language", onclick: () => {
        this.dialogLanguage = pick.value; // shown once the dialog is read again
        this.sendEdit({ kind: "topic_add", box: ref, language: pick.value });
      } }));
    }
    const first = topics.find((t) => t.language === this.dialogLanguage) || topics[0];
    if (first) show(first);
    else D.append(h("div", { class: "empty-note", text: "its .dlg names no topic" }));
  }

  renderTopic(body, t) {
    body.textContent = "";
    this.topicPath = t.path;
    this.topicView = null;
    const holder = h("div", { id: "topic-code", class: "script", "data-path": t.path });
    const typed = this.typedCode(`topic ${t.path}`, t.text, (now) => this.sendEdit({ kind: "text", path: t.path, text: now }));
    typed.gone = () => !holder.isConnected;
    this.topicTyped = typed;
    const problems = h("ul", { id: "topic-problems", class: "script-problems" });
    const sentence = h("input", { id: "try-sentence", type: "text", placeholder: "a sentence to try (else the rule's own)" });
    const tried = h("div", { id: "tried", class: "tried" });
    const tryRule = () => {
      const view = this.topicView;
      const line = view ? view.state.doc.lineAt(view.state.selection.main.head).number : 1;
      this.send({ type: "try_rule", path: t.path, text: typed.current, line, sentence: sentence.value });
    };
    body.append(holder, problems,
      h("div", { class: "topic-tools" },
        h("button", { id: "topic-save", type: "button", text: "Save topic", onclick: () => typed.flush(true) }),
        sentence,
        h("button", { id: "try-rule", type: "button", text: "Try this rule", title: "the rule where the cursor is hears the sentence", onclick: tryRule })),
      tried);
    const check = (text) => this.send({ type: "text_check", path: t.path, text });
    holder.addEventListener("focusout", () => typed.flush());
    codeEditor(holder, typed.current, {
      language: "qichat",
      onSave: () => typed.flush(true),
      onChange: (now) => {
        typed.change(now);
        clearTimeout(this.topicTimer);
        this.topicTimer = setTimeout(() => check(now), 250);
      },
      complete: (text, line, column) => this.completeTopic(t.path, text, line, column),
    }).then((view) => {
      if (!holder.isConnected) return view.destroy();
      this.topicView = view;
      if (view.state.doc.toString() !== typed.current) setText(view, typed.current); // synced while it loaded
      holder.dataset.ready = "true";
      check(typed.current);
    }, (e) => {
      holder.textContent = `could not load the code editor: ${e}`;
    });
  }

  /** The language server's completions at `line`, `column` of `text` (a promise). */
  completeTopic(path, text, line, column) {
    this.completionId = (this.completionId || 0) + 1;
    const id = this.completionId;
    if (!this.pendingCompletions) this.pendingCompletions = new Map();
    this.send({ type: "complete", path, text, line, column, id });
    return new Promise((resolve) => {
      this.pendingCompletions.set(id, resolve);
      setTimeout(() => {
        if (this.pendingCompletions.delete(id)) resolve([]);
      }, 10000);
    });
  }

  onCompletions(msg) {
    const resolve = this.pendingCompletions?.get(msg.id);
    if (!resolve) return;
    this.pendingCompletions.delete(msg.id);
    resolve(Array.isArray(msg.items) ? msg.items : []);
  }

  onTextProblems(msg) {
    const list = document.getElementById("topic-problems");
    if (!list || msg.path !== this.topicPath) return;
    list.textContent = "";
    for (const p of msg.problems || []) list.append(h("li", { class: p.severity, text: `line ${p.line}: ${p.message}` }));
    list.dataset.count = String((msg.problems || []).length);
    if (this.topicView) showProblems(this.topicView, msg.problems || []);
  }

  onTried(msg) {
    const el = document.getElementById("tried");
    if (!el || msg.path !== this.topicPath) return;
    el.textContent = msg.answer || "";
  }
}
