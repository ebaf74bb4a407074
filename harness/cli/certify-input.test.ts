import { existsSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

/** Issue 14 rows 3, 5, 7 and 13 for `dpone certify …`, through the real CLI. */

const BIN = fileURLToPath(new URL('../../bin/dpone.js', import.meta.url));
const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

function certify(args: readonly string[], cwd: string) {
  return execa(process.execPath, [BIN, 'certify', ...args], { cwd, reject: false, env: { CI: 'true' } });
}

/** Process state letter of a pid (`T` = stopped), or null once it is gone. */
function processState(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0]!;
  } catch {
    return null;
  }
}

/** The wait status of a zombie (field 52 of /proc/PID/stat): low 7 bits = the signal that killed it. */
function exitStatus(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields.at(-1));
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

const PAUSE_SCENARIO = `name: pause-interrupt
variants: false
faults:
  - kind: pause
    points: ['cas:PREPARED->COMMITTING:after', 'target.commit:before', 'fence.prepare:after', 'source.read:after']
`;

/**
 * One interrupted run: wait until a pause worker is SIGSTOPped, send `signal` to `certify run`, and
 * watch the stopped worker. `status` is its wait status when its zombie was caught before the runner
 * reaped it (a loaded machine can reap first: then it is null and the caller tries again).
 */
async function interruptStoppedWorker(signal: 'SIGINT' | 'SIGTERM') {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-certify-int-'));
  writeFileSync(join(dir, 'pause.yaml'), PAUSE_SCENARIO);
  const run = certify(['run', '--scenario', 'pause.yaml', '--concurrency', '2', '--out', 'out'], dir);
  let stopped: number | null = null;
  for (let i = 0; i < 1200 && stopped === null; i++) {
    stopped = childrenOf(run.pid!).find((pid) => processState(pid) === 'T') ?? null;
    if (stopped === null) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(stopped, 'no pause worker was ever seen stopped').not.toBeNull();
  const children = childrenOf(run.pid!);
  run.kill(signal);
  let finished = false;
  void run.then(() => (finished = true));
  let status: number | null = null;
  while (!finished && status === null) {
    const state = processState(stopped!);
    if (state === null) break;
    if (state === 'Z') status = exitStatus(stopped!);
    else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return { dir, stopped: stopped!, children, status, result: await run };
}

describe('row 3: certify run on SIGINT / SIGTERM (a pause worker SIGSTOPped at that moment)', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: workers killed (the stopped one too), scratch removed, one line, exit 130, no evidence',
    async (signal) => {
      // Killed where it stands: the stopped worker dies of SIGKILL (its zombie's exit status says
      // so), it is not continued to run on to its own exit. Every attempt must meet every check;
      // attempts repeat only until one catches the zombie's status (at most three).
      let killedBy: number | null = null;
      for (let attempt = 0; attempt < 3 && killedBy === null; attempt++) {
        const { dir, stopped, children, status, result } = await interruptStoppedWorker(signal);
        if (status !== null) killedBy = status & 0x7f;
        expect(result.exitCode).toBe(130);
        const lines = result.stderr.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          new RegExp(
            `^dpone: DPONE_INTERRUPTED: certify run \\S+ interrupted by ${signal} .*scratch removed; no evidence written`,
          ),
        );
        for (const pid of [stopped, ...children]) expect(processState(pid), `worker ${pid}`).toBeNull();
        // The run's own scratch folder (named by the run id it announced) is gone.
        const runId = /run (\S+), route/.exec(result.stdout)?.[1];
        expect(runId, result.stdout).toBeDefined();
        expect(existsSync(join(SCRATCH, `dpone-${runId}`))).toBe(false);
        expect(existsSync(join(dir, 'out', 'evidence.json'))).toBe(false);
      }
      expect(killedBy, 'the runner reaped the stopped worker first in three attempts').not.toBeNull();
      expect(killedBy).toBe(9);
    },
  );
});

describe('row 5 and same-class flags: certify run checks its flags before anything runs', () => {
  it.each([
    [
      '--out naming a file',
      (dir: string) => ['--out', join(dir, 'taken')],
      '--out',
      /is a file, not a folder/,
    ],
    [
      '--out below a file',
      (dir: string) => ['--out', join(dir, 'taken', 'sub')],
      '--out',
      /cannot be created \(ENOTDIR\)/,
    ],
    ['--concurrency 100000', () => ['--concurrency', '100000'], '--concurrency', /from 1 to 64/],
    ['--shard 1/100000', () => ['--shard', '1/100000'], '--shard', /N <= 9999/],
  ])('%s: exit 2 naming the flag, nothing run, nothing changed', async (_label, flags, field, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-certify-out-'));
    writeFileSync(join(dir, 'taken'), 'keep me\n');
    const result = await certify(['run', ...flags(dir)], dir);
    expect(result.exitCode).toBe(2);
    const line = result.stderr.split('\n').find((candidate) => candidate.startsWith('dpone:'))!;
    expect(line).toContain('DPONE_INVALID_INPUT');
    expect(line).toMatch(message);
    expect(line).toContain(`(${field})`);
    expect(result.stdout).toBe(''); // no run started: it would have announced its id
    expect(readFileSync(join(dir, 'taken'), 'utf8')).toBe('keep me\n');
  });

  it('row 7 for scenarios and evidence: an oversized scenario and /dev/zero as evidence are exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-certify-big-'));
    const big = join(dir, 'big.yaml');
    writeFileSync(big, 'name: big\n');
    truncateSync(big, 2 * 1024 * 1024);
    const scenario = await certify(['run', '--scenario', big], dir);
    expect(scenario.exitCode).toBe(2);
    expect(scenario.stderr).toMatch(/scenario file .* is 2097152 bytes; a scenario file is at most 1 MiB/);
    for (const command of [
      ['report', '/dev/zero'],
      ['verify', '/dev/zero'],
    ]) {
      const result = await certify(command, dir);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/not a regular file/);
    }
  });
});

describe('row 13: certify report on a tampered evidence file', () => {
  it('renders it under a visible "digest does not match" banner and exits 1; an intact one renders clean', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-certify-report-'));
    writeFileSync(
      join(dir, 'small.yaml'),
      'name: small\nvariants: false\nfaults:\n  - kind: intent-conflict\n',
    );
    const made = await certify(['run', '--scenario', 'small.yaml', '--out', 'run'], dir);
    expect(made.exitCode, made.stderr).toBe(0);
    const file = join(dir, 'run', 'evidence.json');

    const intact = await certify(['report', file, '--out', 'intact'], dir);
    expect(intact.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'intact', 'index.html'), 'utf8')).not.toContain('NOT VERIFIED');

    // A hand edit that keeps the file well-formed: the seed, so no stored verdict changes.
    const evidence = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...evidence, seed: evidence.seed + 1 }, null, 2));
    const tampered = await certify(['report', file, '--out', 'tampered'], dir);
    expect(tampered.exitCode).toBe(1);
    expect(tampered.stderr).toMatch(/NOT VERIFIED: the evidence digest does not match its content/);
    const page = readFileSync(join(dir, 'tampered', 'index.html'), 'utf8');
    const banner = page.indexOf('class="tampered"');
    expect(banner).toBeGreaterThan(-1);
    expect(banner).toBeLessThan(page.indexOf('<header'));
    expect(page).toContain('NOT VERIFIED: the evidence digest does not match its content');
    expect(page).toMatch(/<title>\s*NOT VERIFIED/);
    expect(readFileSync(join(dir, 'tampered', 'summary.md'), 'utf8')).toMatch(
      /^> \*\*NOT VERIFIED: the evidence digest/,
    );
    expect(readFileSync(join(dir, 'tampered', 'junit.xml'), 'utf8')).toMatch(
      /<testsuite name="evidence integrity" tests="1" failures="1"[\s\S]*digest does not match/,
    );
  });
});
