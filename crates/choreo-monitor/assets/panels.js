// choreo edit: Choregraphe's panels (docs/editor.md, "Choregraphe's panels"). A stock box
// whose settings Choregraphe edits through a panel of its own (its `plugin`) gets a form
// of that panel in the Properties tab: Text Edit's text, Localized Text's (the stock Say's)
// text a language, Number Edit's number, Color Edit's colour, Angle Edit's angle and unit,
// Set Language's language and switches, and the tables of Switch Case, Multi Edit and Choice
// (a row a case, a value, an answer; each row a port of the box). The server writes what
// Choregraphe writes (choreo-xar's edit/plugin.rs): `plugin_text` and `plugin_rows` edits.
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { h, refKey } from "./dom.js";

/** The panels whose fields are one value each, the `<input>` of each field. */
const VALUE_INPUTS = {
  numberedit_plugin: { number: { type: "number", step: "any" } },
  coloredit_plugin: { color: { type: "color" } },
  angleedit_plugin: { angle: { type: "number", step: "any" } },
};

export class PanelsPane {
  /** The forms of the panels of the box shown and of the boxes of its diagram (the stock
   * Say's Localized Text is inside it). */
  renderPanels(box) {
    const out = [];
    for (const entry of box.plugin_texts || []) {
      const form = this.panelForm(entry);
      if (form.length) out.push(h("h3", { text: entry.plugin === "ui_choice_plugin" || entry.tables?.length ? "Table" : "Text" }), ...form);
    }
    return out;
  }

  /** The rows of one box's panel. */
  panelForm(entry) {
    const texts = entry.texts || [];
    const key = refKey(entry.box);
    const id = `plugin-${entry.box.map((s) => s.join("_")).join("-") || "root"}`;
    const send = (field, text) => this.sendEdit({ kind: "plugin_text", box: entry.box, field, text });
    const label = () => h("label", { text: entry.name, title: `${entry.plugin}: what Choregraphe's panel edits` });
    const row = (...children) => h("div", { class: "prop-row plugin-text", "data-plugin": entry.plugin ?? "" }, ...children);
    const value = (f) => texts.find((t) => t.field === f)?.text ?? "";
    if (entry.tables?.length) return [this.panelTable(entry, id)];
    switch (entry.plugin) {
      case "textedit_plugin":
      case "localizationbox_plugin":
        return texts.length ? [this.panelText(entry, id, key, row, label)] : [];
      case "numberedit_plugin":
      case "coloredit_plugin":
      case "angleedit_plugin": {
        const fields = Object.entries(VALUE_INPUTS[entry.plugin]).map(([f, attrs]) => {
          const input = h("input", { id: `${id}-${f}`, ...attrs });
          return this.draftField(input, `${key}\nplugin ${f}`, value(f), (text) => send(f, text));
        });
        if (entry.plugin === "angleedit_plugin") {
          // Angle Edit's unit: 0 degrees, 1 radians (what the script sends is in radians)
          const unit = h("select", { id: `${id}-unit`, onchange: () => send("unit", unit.value) },
            [["0", "degrees"], ["1", "radians"]].map(([v, t]) => h("option", { value: v, text: t, selected: value("unit") === v })));
          fields.push(unit);
        }
        return [row(label(), ...fields)];
      }
      case "setlanguage_plugin": {
        const pick = h("select", { id: `${id}-language`, onchange: () => send("language", pick.value) },
          [...new Set([value("language"), ...(entry.languages || [])])].map((l) => h("option", { value: l, text: l, selected: l === value("language") })));
        const switches = [["asr", "speech recognition"], ["dialog", "dialog"]].filter(([f]) => texts.some((t) => t.field === f)).map(([f, name]) => {
          const box = h("input", { id: `${id}-${f}`, type: "checkbox", checked: value(f) === "1", onchange: () => send(f, box.checked ? "1" : "0") });
          return h("label", { class: "plugin-switch" }, box, name);
        });
        return [row(label(), pick, ...switches)];
      }
      default:
        return [];
    }
  }

  /** Text Edit's text, or Localized Text's in the language picked (English first, as the
   * simulated robot speaks). */
  panelText(entry, id, key, row, label) {
    const texts = entry.texts;
    const field = h("textarea", { id, rows: 2 });
    const holder = row(label());
    const show = (f) => {
      const t = texts.find((x) => x.field === f) || texts[0];
      this.pluginField = { key, field: t.field };
      const fresh = field.cloneNode(false);
      (holder.field ?? field).replaceWith(fresh);
      this.draftField(fresh, `${key}\nplugin ${t.field}`, t.text, (text) => this.sendEdit({ kind: "plugin_text", box: entry.box, field: t.field, text }));
      holder.field = fresh;
    };
    if (texts.length > 1) {
      const remembered = this.pluginField?.key === key ? this.pluginField.field : null;
      const start = remembered || (texts.some((t) => t.field === "english") ? "english" : texts[0].field);
      const pick = h("select", { class: "plugin-language", onchange: () => show(pick.value) },
        texts.map((t) => h("option", { value: t.field, text: t.field, selected: t.field === start })));
      holder.append(pick, field);
      show(start);
    } else {
      holder.append(field);
      show(texts[0].field);
    }
    return holder;
  }

  /** A table's rows (Switch Case's cases as Python literals, `"Back"` or `5`; Multi Edit's
   * values; Choice's answers, `apple pie / pie`, a language at a time): a row edited when
   * left, one added after the last, the last removed (its port's links with it). */
  panelTable(entry, id) {
    const tables = entry.tables;
    const key = refKey(entry.box);
    const remembered = this.pluginTable?.key === key ? this.pluginTable.table : null;
    let shown = tables.find((t) => t.table === remembered) || tables.find((t) => t.table === "english") || tables[0];
    const list = h("ol", { id: `${id}-rows`, class: "plugin-rows" });
    const send = (rows) => this.sendEdit({ kind: "plugin_rows", box: entry.box, table: shown.table, rows });
    const current = () => [...list.querySelectorAll("input")].map((i) => i.value);
    const fill = () => {
      this.pluginTable = { key, table: shown.table };
      list.replaceChildren(...shown.rows.map((r, i) => {
        const input = h("input", { type: "text", "data-row": String(i + 1), title: `output ${i + 1}` });
        this.draftField(input, `${key}\nrows ${shown.table} ${i + 1}`, r, () => send(current()));
        return h("li", {}, input);
      }));
    };
    const add = h("input", { id: `${id}-new-row`, type: "text", placeholder: "new row", title: "a new row: typed, then Enter" });
    add.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" || !add.value.trim()) return;
      send([...current(), add.value]);
      add.value = "";
    });
    const remove = h("button", { id: `${id}-remove-row`, type: "button", text: "Remove the last row", onclick: () => shown.rows.length > 1 && send(current().slice(0, -1)) });
    const head = [h("label", { text: entry.name, title: `${entry.plugin}: what Choregraphe's panel edits` })];
    if (tables.length > 1) {
      const pick = h("select", { class: "plugin-language", onchange: () => { shown = tables.find((t) => t.table === pick.value) || shown; fill(); } },
        tables.map((t) => h("option", { value: t.table, text: t.table, selected: t === shown })));
      head.push(pick);
    }
    fill();
    return h("div", { class: "plugin-table", "data-plugin": entry.plugin ?? "" }, h("div", { class: "prop-row" }, ...head), list, h("div", { class: "prop-row" }, add, remove));
  }
}
