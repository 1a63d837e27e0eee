// choreo edit's code editor: CodeMirror 6 (vendor/codemirror.min.js, bundled from npm by
// scripts/vendor-codemirror), loaded the first time a script or a topic is shown. Python and
// QiChat are highlighted (QiChat by the small mode below, from the QiChat syntax page's
// elements); the problems choreo check or the language server find in the text as typed are
// marked in it; a topic's completions are the language server's.

/** QiChat, token by token, for CodeMirror's stream parser: rule and topic keywords, comments,
 * quoted strings, ~concepts, $variables, ^functions, %bookmarks, e:events, brackets. */
const QICHAT = {
  name: "qichat",
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match(/^#.*/)) return "comment";
    if (stream.match(/^(topic|language|concept|dynamic|include|proposal|u\d*)\s*:/i)) return "keyword";
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return "string";
    if (stream.match(/^~[\w-]+/)) return "variable-2";
    if (stream.match(/^\$[\w/-]+/)) return "variable";
    if (stream.match(/^\^[\w]+/)) return "builtin";
    if (stream.match(/^%[\w]+/)) return "meta";
    if (stream.match(/^e:[\w/-]+/)) return "atom";
    if (stream.match(/^[[\]{}()<>]/)) return "bracket";
    if (stream.match(/^(_\*|\*|=|!)/)) return "operator";
    stream.next();
    return null;
  },
};

let loaded = null;

/** CodeMirror's module (loaded once). */
export function codemirror() {
  if (!loaded) loaded = import("./vendor/codemirror.min.js");
  return loaded;
}

/**
 * A code editor in `parent` holding `text` (`language`: "python" or "qichat"):
 * `onChange(text)` after each change, `onSave()` on Ctrl+S, `complete(text, line, column)`
 * (from 1) → a promise of `[{label, detail, insert}]` for completions. Resolves to
 * CodeMirror's EditorView.
 */
export async function codeEditor(parent, text, { language, onChange, onSave, complete }) {
  const C = await codemirror();
  const languages = { python: () => C.python(), qichat: () => C.StreamLanguage.define(QICHAT) };
  const completion = complete ? C.autocompletion({
    override: [async (ctx) => {
      const word = ctx.matchBefore(/[~$^%\w-]*/);
      if (!ctx.explicit && (!word || word.from === word.to)) return null;
      const line = ctx.state.doc.lineAt(ctx.pos);
      const items = await complete(ctx.state.doc.toString(), line.number, ctx.pos - line.from + 1);
      // The server's labels are names without their sigil (`hello` after `~`).
      const from = word ? word.from + (/^[~$^%]/.test(word.text) ? 1 : 0) : ctx.pos;
      return { from, options: items.map((i) => ({ label: i.label, detail: i.detail ?? undefined, apply: i.insert ?? i.label })) };
    }],
  }) : [];
  const view = new C.EditorView({
    parent,
    state: C.EditorState.create({
      doc: text,
      extensions: [
        C.keymap.of([{ key: "Mod-s", preventDefault: true, run: () => { onSave(); return true; } }]),
        C.basicSetup,
        // Choregraphe's script editor indents by four spaces (its stock boxes' scripts do).
        C.indentUnit.of("    "),
        C.oneDark,
        languages[language] ? languages[language]() : [],
        completion,
        C.lintGutter(),
        C.EditorView.updateListener.of((u) => { if (u.docChanged) onChange(u.state.doc.toString()); }),
      ],
    }),
  });
  return view;
}

/** Puts `text` in `view` in place of its text (the file's, taken again). */
export function setText(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

/** Marks `problems` ({line, column, severity, message}; lines from 1) in `view`. */
export async function showProblems(view, problems) {
  const C = await codemirror();
  const doc = view.state.doc;
  const diagnostics = [];
  for (const p of problems) {
    if (!(p.line >= 1 && p.line <= doc.lines)) continue;
    const line = doc.line(p.line);
    // From the column to the line's end; at the end itself, its last character (a range of
    // nothing is drawn as a point only).
    let from = Math.min(line.to, line.from + Math.max(0, (p.column || 1) - 1));
    if (from === line.to && from > line.from) from -= 1;
    diagnostics.push({ from, to: line.to > from ? line.to : from, severity: p.severity === "error" ? "error" : "warning", message: p.message });
  }
  view.dispatch(C.setDiagnostics(view.state, diagnostics));
}
