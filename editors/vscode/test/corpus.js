#!/usr/bin/env node
// Corpus test of the TextMate grammars: tokenizes every .top and .dlg file of the corpus
// (CHOREO_CORPUS, default ../../../shared/corpus from editors/vscode) with vscode-textmate,
// as VS Code does, and checks that on every line where a QiChat keyword starts an entry the
// keyword gets a `keyword` scope, and that a commented-out entry (`#u:(...)`) is a comment.
// Prints file:line of each failure; exits 1 on any failure. An absent corpus is a NOTICE and
// exit 0, or exit 1 under CI=true.
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const ROOT = path.resolve(__dirname, '..');
const CORPUS = path.resolve(ROOT, process.env.CHOREO_CORPUS || '../../../shared/corpus');
const GRAMMARS = {
  'source.qichat': path.join(ROOT, 'syntaxes/qichat.tmLanguage.json'),
  'source.qichat-dlg': path.join(ROOT, 'syntaxes/qichat-dlg.tmLanguage.json'),
};

// The entry keywords the brief names, and choreo-qichat's parser reads, at a line's start.
const TOP_KEYWORD = /^([ \t]*)(#[ \t]*)?(topic|language|concept|include|dynamic|proposal|Proposal|u(?:[1-9][0-9]*)?)[ \t]*:/;
const DLG_KEYWORD = /^([ \t]*)(#[ \t]*)?(multilanguage)[ \t]*:/;

/** Decodes a file's bytes: UTF-8 (with or without BOM), UTF-16 LE/BE (BOM or zero bytes), else Latin-1. */
function decode(buf) {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
    return buf.subarray(3).toString('utf8');
  }
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString('utf16le');
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return swap16(buf.subarray(2)).toString('utf16le');
  const sample = buf.subarray(0, 512);
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < sample.length; i++) {
    if (sample[i] === 0) (i % 2 === 0 ? evenZeros++ : oddZeros++);
  }
  if (sample.length >= 4 && oddZeros > sample.length / 4) return buf.toString('utf16le');
  if (sample.length >= 4 && evenZeros > sample.length / 4) return swap16(buf).toString('utf16le');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    return buf.toString('latin1');
  }
}

function swap16(buf) {
  const out = Buffer.from(buf.subarray(0, buf.length - (buf.length % 2)));
  return out.swap16();
}

function walk(dir, out) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    console.error(`cannot read ${dir}: ${e.message}`);
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && /\.(top|dlg)$/i.test(e.name)) out.push(p);
  }
  return out;
}

async function loadRegistry() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  return new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    // Embedded grammars (source.python in %script) are not ours: left out, as in a bare VS Code.
    loadGrammar: async (scope) => {
      const file = GRAMMARS[scope];
      return file ? vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file) : null;
    },
  });
}

/** The scopes of the character at `col` of a tokenized line. */
function scopesAt(tokens, col) {
  for (const t of tokens) if (col >= t.startIndex && col < t.endIndex) return t.scopes;
  return [];
}

/** Checks one file: the keyword lines checked and passed, and a failure message per failing line. */
function checkFile(file, name, grammar, keywordRe) {
  const failures = [];
  let checked = 0;
  let passed = 0;
  let text;
  try {
    text = decode(fs.readFileSync(file));
  } catch (e) {
    return { checked, passed, failures: [`${name}: cannot read: ${e.message}`] };
  }
  const lines = text.split(/\r\n|\r|\n/);
  let stack = vsctm.INITIAL;
  let inScript = false;
  lines.forEach((line, i) => {
    const where = `${name}:${i + 1}`;
    let result;
    try {
      result = grammar.tokenizeLine(line, stack, 2000);
    } catch (e) {
      failures.push(`${where}: tokenizer threw: ${e.message}`);
      return;
    }
    stack = result.ruleStack;
    if (result.stoppedEarly) {
      failures.push(`${where}: tokenizing took more than 2 s`);
      return;
    }
    // Lines between two `%script` lines are Python, not QiChat.
    if (line.trim() === '%script') {
      inScript = !inScript;
      return;
    }
    if (inScript) return;
    const m = keywordRe.exec(line);
    if (!m) return;
    checked++;
    const [, indent, hash, word] = m;
    const start = indent.length + (hash ? hash.length : 0);
    for (let col = start; col < start + word.length; col++) {
      const scopes = scopesAt(result.tokens, col);
      const ok = hash
        ? scopes.some((s) => s.startsWith('comment')) && !scopes.some((s) => s.startsWith('keyword'))
        : scopes.some((s) => s.startsWith('keyword'));
      if (!ok) {
        const want = hash ? 'a comment' : 'a keyword scope';
        failures.push(`${where}:${col + 1}: '${word}' is not ${want} (scopes: ${scopes.join(' ') || 'none'})\n    ${line.trim()}`);
        return;
      }
    }
    passed++;
  });
  return { checked, passed, failures };
}

async function main() {
  if (!fs.existsSync(CORPUS) || !fs.statSync(CORPUS).isDirectory()) {
    if (process.env.CI === 'true') {
      console.error(`corpus absent (${CORPUS}) and CI=true: the corpus grammar test cannot run`);
      process.exit(1);
    }
    console.log('NOTICE: corpus absent, corpus grammar test skipped');
    return;
  }
  const registry = await loadRegistry();
  const top = await registry.loadGrammar('source.qichat');
  const dlg = await registry.loadGrammar('source.qichat-dlg');
  const files = walk(CORPUS, []).sort();
  let lines = 0;
  let passed = 0;
  const failures = [];
  const counts = { top: 0, dlg: 0 };
  for (const file of files) {
    const isDlg = /\.dlg$/i.test(file);
    counts[isDlg ? 'dlg' : 'top']++;
    const name = path.relative(CORPUS, file);
    const r = checkFile(file, name, isDlg ? dlg : top, isDlg ? DLG_KEYWORD : TOP_KEYWORD);
    lines += r.checked;
    passed += r.passed;
    failures.push(...r.failures);
  }
  for (const f of failures) console.log(`FAIL ${f}`);
  console.log(`corpus ${CORPUS}: ${counts.top} .top and ${counts.dlg} .dlg files, ${lines} keyword lines checked`);
  console.log(`grammar corpus: ${passed} passed, ${failures.length} failed`);
  if (files.length === 0) {
    console.log('FAIL: the corpus folder holds no .top or .dlg file');
    process.exitCode = 1;
  }
  if (failures.length > 0) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
