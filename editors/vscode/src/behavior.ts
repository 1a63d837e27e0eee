// Finding what `choreo run` should run, and the choreo executable: plain Node, no VS Code API,
// so that test/behavior.test.js can exercise it.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Files that are a behavior on their own: `choreo run` takes them as they are. */
const BEHAVIOR_FILE = /\.(xar|pml)$/i;

/** What `choreo run` is given: a file or folder, and the behavior of a project to run. */
export interface RunTarget {
  target: string;
  behavior?: string;
}

/**
 * What runs the behavior `file` belongs to: the file itself when it is a `.xar` or a `.pml`;
 * otherwise the project above it (the nearest folder holding a `manifest.xml`), with
 * `--behavior` naming the behavior folder (the nearest one holding a `behavior.xar`) the
 * file is in, as the manifest names it (`behavior_1`), so that the project's other files
 * (its dialogs, its other behaviors) are there; a behavior folder with no project above it
 * runs alone. `undefined` when there is neither up to the file system's root.
 */
export function findBehavior(file: string): RunTarget | undefined {
  const abs = path.resolve(file);
  if (BEHAVIOR_FILE.test(abs) && isFile(abs)) {
    return { target: abs };
  }
  let behaviorDir: string | undefined;
  let dir = isDirectory(abs) ? abs : path.dirname(abs);
  for (;;) {
    if (isFile(path.join(dir, 'manifest.xml'))) {
      if (behaviorDir === undefined) {
        return { target: dir };
      }
      return { target: dir, behavior: path.relative(dir, behaviorDir).split(path.sep).join('/') };
    }
    if (behaviorDir === undefined && isFile(path.join(dir, 'behavior.xar'))) {
      behaviorDir = dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      return behaviorDir === undefined ? undefined : { target: behaviorDir };
    }
    dir = parent;
  }
}

/**
 * The command to start for the `choreo.path` setting: `~/` is the home folder; a relative
 * path with a folder in it (`target/release/choreo`) is taken from the workspace folder; a
 * bare name (`choreo`) is left for the system to find on PATH.
 */
export function resolveExecutable(setting: string | undefined, workspaceDir: string | undefined): string {
  let exe = (setting ?? '').trim() || 'choreo';
  if (exe === '~' || exe.startsWith('~/') || exe.startsWith('~\\')) {
    exe = path.join(os.homedir(), exe.slice(1));
  }
  const hasFolder = exe.includes('/') || exe.includes('\\');
  if (hasFolder && !path.isAbsolute(exe) && workspaceDir) {
    exe = path.resolve(workspaceDir, exe);
  }
  return exe;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
