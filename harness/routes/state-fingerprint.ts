import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * What differs between two kills that left the same durable state: the dead worker's holder name
 * (`host:pid:hex`) and wall-clock instants. Both are masked so only the logical state compares,
 * and so is a journal row's `row_checksum`: a digest of the row's fields, holder and instants
 * included, it differs wherever they do and says nothing the fields do not.
 */
export function maskVolatile(text: string): string {
  // A holder starts where a run of name characters starts (the lookbehind): without it every
  // position inside a long run (the dataset's 4 KiB labels) retried the match to the run's end.
  return text
    .replace(/"row_checksum":"[0-9a-f]{64}"/g, '"row_checksum":"<checksum>"')
    .replace(/(?<![\w.-])[\w.-]+:\d+:[0-9a-f]{8}/g, '<holder>')
    .replace(/\b1\d{12}\b/g, '<ms>');
}

/** JSON for a row read with bigints: a safe integer as the number it always was, a bigger one as its digits. */
function exactIntegers(_key: string, value: unknown): unknown {
  if (typeof value !== 'bigint') return value;
  return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
}

function dumpDatabase(file: string): string {
  const db = new DatabaseSync(file);
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[];
    return tables
      .map(({ name }) => {
        const select = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`);
        // Integers beyond 2^53 (the dataset's `big`) read exactly: a number would throw or round.
        select.setReadBigInts(true);
        return `${name}\n${select
          .all()
          .map((row) => JSON.stringify(row, exactIntegers))
          .sort()
          .join('\n')}`;
      })
      .join('\n');
  } finally {
    db.close();
  }
}

async function dumpFolder(root: string, dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const parts: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) parts.push(...(await dumpFolder(root, path)));
    else parts.push(`${relative(root, path)}\n${await readFile(path, 'utf8')}`);
  }
  return parts;
}

/** sha256 of the text with holder names and instants masked. */
export function maskedDigest(text: string): string {
  return `sha256:${createHash('sha256').update(maskVolatile(text)).digest('hex')}`;
}

/** The logical content of one SQLite database file: every table, rows sorted (masked by the caller). */
export function sqliteDump(file: string): string {
  return existsSync(file) ? dumpDatabase(file) : 'absent';
}

/**
 * A digest of a cell folder's logical durable state: every table of the named SQLite database
 * files (rows sorted) and every file of the state folder, with holder names and instants masked.
 * Two first-attempt kills with equal fingerprints left the same state, so recovery from them is
 * the same test. `extra`: dumps of state kept elsewhere (a plug-in target's own dump).
 */
export async function stateFingerprint(
  dir: string,
  files: readonly string[],
  stateFolder: string,
  extra: readonly string[] = [],
): Promise<string> {
  const parts = files
    .filter((name) => existsSync(join(dir, name)))
    .map((name) => `${name}\n${dumpDatabase(join(dir, name))}`);
  parts.push(...(await dumpFolder(dir, join(dir, stateFolder))), ...extra);
  return maskedDigest(parts.join('\n\n'));
}
