import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** Whether `file` is a file this user may run. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first of `names` found on PATH (as a shell would run it), or undefined. */
export function onPath(names: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of names) {
    for (const dir of dirs) {
      const file = path.join(dir, name);
      if (isExecutable(file)) return file;
    }
  }
  return undefined;
}
