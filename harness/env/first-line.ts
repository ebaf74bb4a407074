import { execFile } from 'node:child_process';

const PROBE_TIMEOUT_MS = 3_000;

/** First line of `binary args…`, or null when it does not answer within the timeout (doctor's probes). */
export function firstLine(binary: string, args: readonly string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(binary, [...args], { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) => {
      const line = String(stdout ?? '')
        .split('\n')
        .find((candidate) => candidate.trim() !== '');
      resolve(error && !line ? null : (line?.trim() ?? null));
    });
  });
}
