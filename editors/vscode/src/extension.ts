// The choreo extension: starts `choreo lsp` for QiChat and Choregraphe files, runs the
// behavior of the current file with the monitor in a terminal, and asks the server's
// "Try this rule" with a sentence typed by the user.
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from 'vscode-languageclient/node';
import { findBehavior, resolveExecutable } from './behavior';

/** The documents `choreo lsp` serves. Python box scripts are left to the Python extension. */
const DOCUMENTS = [
  { scheme: 'file', language: 'qichat' },
  { scheme: 'untitled', language: 'qichat' },
  { scheme: 'file', language: 'qichat-dlg' },
  { scheme: 'file', pattern: '**/*.{xar,pml}' },
  { scheme: 'file', pattern: '**/manifest.xml' },
];

let client: LanguageClient | undefined;
let watcher: vscode.FileSystemWatcher | undefined;
let runTerminal: vscode.Terminal | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  watcher = vscode.workspace.createFileSystemWatcher('**/*.{top,dlg,xar,pml,xml}');
  context.subscriptions.push(
    watcher,
    vscode.commands.registerCommand('choreo.restartServer', restartServer),
    vscode.commands.registerCommand('choreo.runWithMonitor', runWithMonitor),
    vscode.commands.registerCommand('choreo.trySentence', trySentence),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('choreo.path')) {
        void restartServer();
      }
    }),
    vscode.window.onDidCloseTerminal((t) => {
      if (t === runTerminal) {
        runTerminal = undefined;
      }
    }),
  );
  await startServer();
}

export async function deactivate(): Promise<void> {
  await stopServer();
}

function workspaceDir(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

function choreoPath(): string {
  return resolveExecutable(vscode.workspace.getConfiguration('choreo').get<string>('path'), workspaceDir());
}

async function startServer(): Promise<void> {
  const command = choreoPath();
  // No `transport`: the client would add `--stdio`; the server is exactly `<choreo> lsp`.
  const serverOptions: ServerOptions = { command, args: ['lsp'], options: { cwd: workspaceDir() } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENTS,
    synchronize: { fileEvents: watcher },
  };
  // The id `choreo` makes the client read the `choreo.trace.server` setting.
  const c = new LanguageClient('choreo', 'choreo', serverOptions, clientOptions);
  client = c;
  try {
    await c.start();
  } catch (err) {
    if (client === c) {
      client = undefined;
    }
    const message = err instanceof Error ? err.message : String(err);
    const open = 'Open Settings';
    const choice = await vscode.window.showErrorMessage(
      `choreo: could not start "${command} lsp" (${message}). Set choreo.path to the choreo executable.`,
      open,
    );
    if (choice === open) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'choreo.path');
    }
  }
}

async function stopServer(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.dispose();
    } catch {
      // A server that never started or already died has nothing left to stop.
    }
  }
}

async function restartServer(): Promise<void> {
  await stopServer();
  await startServer();
}

/** Runs `<choreo.path> run <behavior> --monitor` in a terminal of its own. */
async function runWithMonitor(resource?: vscode.Uri): Promise<void> {
  const uri = resource instanceof vscode.Uri ? resource : vscode.window.activeTextEditor?.document.uri;
  if (!uri || uri.scheme !== 'file') {
    void vscode.window.showErrorMessage('choreo: open a file of a behavior (or its .xar / .pml) first.');
    return;
  }
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc?.isDirty) {
    await doc.save();
  }
  const run = findBehavior(uri.fsPath);
  if (!run) {
    void vscode.window.showErrorMessage(`choreo: no behavior.xar or manifest.xml in the folders above ${uri.fsPath}.`);
    return;
  }
  // One run at a time: the monitor of the previous run would hold its port.
  runTerminal?.dispose();
  runTerminal = vscode.window.createTerminal({
    name: `choreo run ${run.behavior ?? path.basename(run.target)}`,
    shellPath: choreoPath(),
    shellArgs: ['run', run.target, ...(run.behavior ? ['--behavior', run.behavior] : []), '--monitor'],
    cwd: vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(run.target),
  });
  runTerminal.show();
}

/**
 * "Try a sentence": the server's `choreo.tryRule` command (the one behind its "Try this rule"
 * code action) with a sentence the user types; the server shows the dialog's answer.
 */
async function trySentence(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'qichat') {
    void vscode.window.showErrorMessage('choreo: put the cursor on a rule of a .top file first.');
    return;
  }
  if (!client?.isRunning()) {
    void vscode.window.showErrorMessage('choreo: the language server is not running (see choreo.path).');
    return;
  }
  const sentence = await vscode.window.showInputBox({
    prompt: 'What the human says to this topic',
    placeHolder: 'hello robot',
  });
  if (!sentence) {
    return;
  }
  try {
    await client.sendRequest(ExecuteCommandRequest.type, {
      command: 'choreo.tryRule',
      arguments: [editor.document.uri.toString(), editor.selection.active.line, sentence],
    });
  } catch (err) {
    void vscode.window.showErrorMessage(`choreo: ${err instanceof Error ? err.message : String(err)}`);
  }
}
