import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A stand-in server binary that records one of its arguments per start and exits at once with
 * `exitCode`, as a server whose port was taken between the probe and its bind does.
 */
export function exitingBinary(
  name: string,
  recordedArgument: number,
  exitCode: number,
): { readonly binary: string; starts(): string[]; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `dpone-${name}-start-`));
  const binary = join(dir, name);
  const calls = join(dir, 'calls');
  writeFileSync(binary, `#!/bin/sh\necho "$${recordedArgument}" >> '${calls}'\nexit ${exitCode}\n`);
  chmodSync(binary, 0o755);
  return {
    binary,
    starts: () => readFileSync(calls, 'utf8').trim().split('\n'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
