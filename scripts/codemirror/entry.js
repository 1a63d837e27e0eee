// What the editor's page takes from CodeMirror 6, bundled into one ES module.
export { EditorView, basicSetup } from "codemirror";
export { EditorState } from "@codemirror/state";
export { keymap } from "@codemirror/view";
export { python } from "@codemirror/lang-python";
export { StreamLanguage, indentUnit } from "@codemirror/language";
export { setDiagnostics, lintGutter } from "@codemirror/lint";
export { oneDark } from "@codemirror/theme-one-dark";
export { autocompletion } from "@codemirror/autocomplete";
