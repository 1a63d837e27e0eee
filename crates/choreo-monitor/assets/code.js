// choreo edit's code editor: CodeMirror 6 (vendor/codemirror.min.js, bundled from npm by
// scripts/vendor-codemirror), loaded the first time a script is shown. Python is
// highlighted; the problems choreo check finds in the text as typed are marked in it.

let loaded = null;

/** CodeMirror's module (loaded once). */
export function codemirror() {
  if (!loaded) loaded = import("./vendor/codemirror.min.js");
  return loaded;
}

/**
 * A code editor in `parent` holding `text`: `onChange(text)` after each change, `onSave()`
 * on Ctrl+S. Its `view` is CodeMirror's EditorView.
 */
export async function codeEditor(parent, text, { language, onChange, onSave }) {
  const C = await codemirror();
  const view = new C.EditorView({
    parent,
    state: C.EditorState.create({
      doc: text,
      extensions: [
        C.keymap.of([{ key: "Mod-s", preventDefault: true, run: () => { onSave(); return true; } }]),
        C.basicSetup,
        C.oneDark,
        language === "python" ? C.python() : [],
        C.lintGutter(),
        C.EditorView.updateListener.of((u) => { if (u.docChanged) onChange(u.state.doc.toString()); }),
      ],
    }),
  });
  return view;
}

/** Marks `problems` ({line, column, severity, message}; lines from 1) in `view`. */
export async function showProblems(view, problems) {
  const C = await codemirror();
  const doc = view.state.doc;
  const diagnostics = [];
  for (const p of problems) {
    if (!(p.line >= 1 && p.line <= doc.lines)) continue;
    const line = doc.line(p.line);
    const from = Math.min(line.to, line.from + Math.max(0, (p.column || 1) - 1));
    diagnostics.push({ from, to: line.to > from ? line.to : from, severity: p.severity === "error" ? "error" : "warning", message: p.message });
  }
  view.dispatch(C.setDiagnostics(view.state, diagnostics));
}
