import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { SafeErrorFields } from '../contracts/errors.ts';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';

/** Size caps for the files a command reads: far above any real one, far below what hurts. */
export const MAX_BYTES = {
  workload: 1024 * 1024,
  scenario: 1024 * 1024,
  identity: 4 * 1024,
  evidence: 256 * 1024 * 1024,
} as const;

export interface BoundedRead {
  /** What the file is, for messages: "workload file", "scenario file", … */
  readonly what: string;
  readonly maxBytes: number;
  /** Where the error points: the flag or field that named the file. */
  readonly fields: SafeErrorFields;
  /** The code when the file cannot be read at all (default DPONE_INVALID_INPUT). */
  readonly unreadableCode?: DponeError['code'];
}

function mebibytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}

/**
 * Reads a UTF-8 text file of at most `maxBytes`. It refuses, as coded errors naming the file and
 * the flag or field, what is not a regular file (a folder, /dev/zero, a FIFO that never ends) and
 * a file over the cap — checked while reading, so a file that lies about its size (procfs) or
 * grows cannot exhaust memory either.
 */
export async function readBoundedText(file: string, options: BoundedRead): Promise<string> {
  const unreadable = (why: string, cause?: unknown) =>
    new DponeError(
      options.unreadableCode ?? ERROR_CODES.INVALID_INPUT,
      `${options.what} ${file} ${why}`,
      { ...options.fields, location: file },
      cause === undefined ? undefined : { cause },
    );
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO nobody writes must not hang; regular files ignore the flag.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw unreadable(`cannot be read (${code})`, error);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw unreadable('is a folder, not a file');
    if (!stat.isFile()) throw unreadable('is not a regular file');
    const limit = options.maxBytes;
    if (stat.size > limit)
      throw unreadable(`is ${stat.size} bytes; a ${options.what} is at most ${mebibytes(limit)}`);
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit) throw unreadable(`is over ${mebibytes(limit)}; a ${options.what} is at most that`);
    }
    return buffer.toString('utf8', 0, length);
  } catch (error) {
    if (error instanceof DponeError) throw error;
    throw unreadable(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, error);
  } finally {
    await handle.close();
  }
}
