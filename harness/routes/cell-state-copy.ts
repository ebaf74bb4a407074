import { cp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Replaces the durable files of one cell folder by those of another (while no worker holds either
 * open): every name `durable` accepts is first removed from `toDir` (a file the snapshot has not,
 * e.g. a WAL, must not survive), then copied from `fromDir`.
 */
export async function copyDurableFiles(
  fromDir: string,
  toDir: string,
  durable: (name: string) => boolean,
): Promise<void> {
  for (const name of (await readdir(toDir)).filter(durable))
    await rm(join(toDir, name), { recursive: true, force: true });
  for (const name of (await readdir(fromDir)).filter(durable))
    await cp(join(fromDir, name), join(toDir, name), { recursive: true });
}

/**
 * A plug-in's cell state: the embedded durable files (`embedded`: the embedded engine's files with
 * their side files, and the state folder) and its declared `stateFiles`, copied only
 * when `fromDir` holds at least one of the declared files. A folder with none holds nothing of the
 * target (a dummy name such as `target.conn` the connector never writes, on a target that lives on
 * a server): copying the journal alone would start a cell from a journal ahead of a fresh target,
 * so nothing is copied and the answer is false (the cell kills a first attempt again instead).
 */
export async function copyDeclaredState(
  fromDir: string,
  toDir: string,
  declared: ReadonlySet<string>,
  embedded: (name: string) => boolean,
): Promise<boolean> {
  if (!(await readdir(fromDir)).some((name) => declared.has(name))) return false;
  await copyDurableFiles(fromDir, toDir, (name) => embedded(name) || declared.has(name));
  return true;
}
