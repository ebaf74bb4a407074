import { copyFileSync, existsSync, unlinkSync } from 'node:fs';

/**
 * Moves a database file and its side files (`-wal`, `-shm`, … as `sides`) from `from` to `to`
 * across file systems (copy, then remove), replacing what was at `to`: how the storage fault
 * kinds put a cell's journal or target onto their own file system and back.
 */
export function moveFile(from: string, to: string, sides: readonly string[]): void {
  for (const suffix of ['', ...sides]) {
    if (existsSync(`${to}${suffix}`)) unlinkSync(`${to}${suffix}`);
    if (!existsSync(`${from}${suffix}`)) continue;
    copyFileSync(`${from}${suffix}`, `${to}${suffix}`);
    unlinkSync(`${from}${suffix}`);
  }
}
