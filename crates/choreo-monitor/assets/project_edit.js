// choreo's live monitor: an editor's project tools (`choreo edit`, docs/editor.md): the
// project's behaviors in the header, the one shown chosen there; New behavior, Rename and
// Delete, each one action of the history (Undo takes it back). Methods of the page's
// Monitor (monitor.js), mixed into it there.

import { h } from "./dom.js";

export class ProjectEditPane {
  /** The header's behavior tools, made once; the project is asked for. */
  setupProject() {
    const E = this.el;
    if (!E.behaviors) {
      E.behaviors = h("select", { id: "behaviors", title: "the project's behaviors: the one shown", onchange: () => this.send({ type: "open_behavior", file: E.behaviors.value }) });
      E.addBehavior = h("button", { id: "add-behavior", type: "button", title: "a new empty behavior in the project", text: "New behavior", onclick: () => this.sendEdit({ kind: "project_add" }) });
      E.renameBehavior = h("button", { id: "rename-behavior", type: "button", title: "rename the shown behavior's folder", text: "Rename", onclick: () => this.onRenameBehavior() });
      E.deleteBehavior = h("button", { id: "delete-behavior", type: "button", class: "danger", title: "delete the shown behavior (Undo takes it back)", text: "Delete", onclick: () => this.sendEdit({ kind: "project_delete", file: E.behaviors.value }) });
      E.projectTools = h("span", { class: "edit-tools project-tools", hidden: true }, E.behaviors, E.addBehavior, E.renameBehavior, E.deleteBehavior);
      E.header.insertBefore(E.projectTools, E.header.querySelector(".edit-tools"));
    }
    this.send({ type: "project" });
  }

  /** The `project` message: the behaviors, the one shown selected. */
  onProject(msg) {
    const E = this.el;
    if (!E.behaviors) return;
    E.behaviors.replaceChildren(...msg.behaviors.map((b) => h("option", { value: b.file, text: b.folder, selected: b.shown })));
    E.projectTools.hidden = false;
    for (const b of [E.addBehavior, E.renameBehavior, E.deleteBehavior]) b.hidden = !msg.editable;
    const shown = msg.behaviors.find((b) => b.shown);
    if (shown && this.shownBehavior !== shown.file) {
      // another behavior: the selection and the diagram entered were the last one's
      this.shownBehavior = shown.file;
      this.selectedKey = null;
      this.selectedLink = null;
      this.markSelection();
    }
  }

  /** Rename: the new folder name typed in place of the list; Enter renames, Escape not. */
  onRenameBehavior() {
    const E = this.el;
    const option = E.behaviors.selectedOptions[0];
    if (!option) return;
    const field = h("input", { id: "behavior-name", type: "text", value: option.textContent.split("/").pop() });
    const done = (name) => {
      field.replaceWith(E.behaviors);
      if (name && name !== option.textContent) this.sendEdit({ kind: "project_rename", file: option.value, name });
    };
    field.addEventListener("keydown", (e) => {
      if (e.key === "Enter") done(field.value.trim());
      else if (e.key === "Escape") done(null);
      e.stopPropagation(); // the diagram's keys (Delete, Ctrl+Z) are not the field's
    });
    E.behaviors.replaceWith(field);
    field.focus();
    field.select();
  }
}
