// Tests of what `choreo.runWithMonitor` runs (out/behavior.js, compiled from src/behavior.ts).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { findBehavior, resolveExecutable } = require('../out/behavior');

const roots = [];
test.after(() => roots.forEach((r) => fs.rmSync(r, { recursive: true, force: true })));

/** A temporary tree: { 'a/b.txt': 'text', ... }; returns its root. */
function tree(files) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'choreo-vscode-'));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) {
    const p = path.join(root, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  return root;
}

test('a .top file in a behavior of a project runs the project with --behavior', () => {
  const root = tree({
    'proj/manifest.xml': '<package/>',
    'proj/behavior_1/behavior.xar': '<x/>',
    'proj/behavior_1/dlg/dlg_enu.top': 'topic: ~dlg()',
    'proj/dances/salsa/behavior.xar': '<x/>',
  });
  assert.deepStrictEqual(findBehavior(path.join(root, 'proj/behavior_1/dlg/dlg_enu.top')), {
    target: path.join(root, 'proj'),
    behavior: 'behavior_1',
  });
  assert.deepStrictEqual(findBehavior(path.join(root, 'proj/dances/salsa')), {
    target: path.join(root, 'proj'),
    behavior: 'dances/salsa',
  });
});

test('a behavior folder with no project above runs alone', () => {
  const root = tree({ 'lone/behavior.xar': '<x/>', 'lone/d/x_enu.top': 'topic: ~x()' });
  assert.deepStrictEqual(findBehavior(path.join(root, 'lone/d/x_enu.top')), { target: path.join(root, 'lone') });
});

test('a file outside any behavior folder runs the project of its manifest.xml', () => {
  const root = tree({
    'proj/manifest.xml': '<package/>',
    'proj/dialogs/main_enu.top': 'topic: ~main()',
    'proj/dialogs/main.dlg': 'multilanguage:main',
  });
  assert.deepStrictEqual(findBehavior(path.join(root, 'proj/dialogs/main_enu.top')), { target: path.join(root, 'proj') });
  assert.deepStrictEqual(findBehavior(path.join(root, 'proj/manifest.xml')), { target: path.join(root, 'proj') });
});

test('a .xar or a .pml is run as it is', () => {
  const root = tree({
    'proj/manifest.xml': '<package/>',
    'proj/proj.pml': '<Package/>',
    'proj/behavior_1/behavior.xar': '<x/>',
    'lone/dance.xar': '<x/>',
  });
  assert.deepStrictEqual(findBehavior(path.join(root, 'proj/proj.pml')), { target: path.join(root, 'proj/proj.pml') });
  assert.deepStrictEqual(findBehavior(path.join(root, 'proj/behavior_1/behavior.xar')), { target: path.join(root, 'proj/behavior_1/behavior.xar') });
  assert.deepStrictEqual(findBehavior(path.join(root, 'lone/dance.xar')), { target: path.join(root, 'lone/dance.xar') });
});

test('no behavior above the file: undefined', () => {
  const root = tree({ 'notes/readme.top': 'topic: ~x()' });
  assert.strictEqual(findBehavior(path.join(root, 'notes/readme.top')), undefined);
});

test('a folder named like a marker is not a marker', () => {
  const root = tree({ 'a/manifest.xml/keep': '', 'a/b/x.top': '' });
  assert.strictEqual(findBehavior(path.join(root, 'a/b/x.top')), undefined);
});

test('choreo.path: a bare name stays for PATH, a relative path is the workspace folder\'s, ~ is home', () => {
  const ws = path.resolve('/work/ws');
  assert.strictEqual(resolveExecutable('choreo', ws), 'choreo');
  assert.strictEqual(resolveExecutable('', ws), 'choreo');
  assert.strictEqual(resolveExecutable(undefined, undefined), 'choreo');
  assert.strictEqual(resolveExecutable('target/release/choreo', ws), path.join(ws, 'target/release/choreo'));
  assert.strictEqual(resolveExecutable('target/release/choreo', undefined), 'target/release/choreo');
  assert.strictEqual(resolveExecutable('/usr/local/bin/choreo', ws), '/usr/local/bin/choreo');
  assert.strictEqual(resolveExecutable('~/bin/choreo', ws), path.join(os.homedir(), 'bin/choreo'));
});
