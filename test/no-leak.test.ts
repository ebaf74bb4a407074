import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CERTIFY_COMMANDS } from '../harness/cli/commands.ts';
import { CELL_TEXTS } from '../harness/data/cell-text.ts';
import { inflatePage } from '../harness/reporters/html-lazy-bodies.ts';

/**
 * No leaks, checked: every connection setting carries a canary secret and the source rows carry
 * canary values; the runtime, the recovery commands and (when `certify run` exists) a certification
 * suite with its reporters run; then every output — stdout, stderr, logs, journal bytes,
 * checkpoints, XCom, evidence JSON, HTML, Markdown, JUnit — is searched for any canary. The source
 * and target databases are the only files allowed to hold row values.
 */

const BIN = fileURLToPath(new URL('../bin/dpone.js', import.meta.url));
const SECRET = `canarysecret${randomBytes(6).toString('hex')}`;
const ROW = `canaryrow${randomBytes(6).toString('hex')}`;
const CANARIES = [SECRET, ROW];
/** Files that legitimately hold row values: the data itself. */
const DATA_FILES = /(^|\/)(source|target)\.db(-wal|-shm|-journal)?$/;

const ENV = {
  DPONE_SOURCE_PASSWORD: SECRET,
  DPONE_TARGET_PASSWORD: SECRET,
  DPONE_JOURNAL_PASSWORD: SECRET,
  PGPASSWORD: SECRET,
  DPONE_PLATFORM_IDENTITY: 'platform:leak-check',
};

interface Output {
  readonly what: string;
  readonly text: string;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** Every canary occurrence in outputs and in the files under `dirs` (data files excepted). */
function leaks(outputs: readonly Output[], dirs: readonly string[]): string[] {
  const found: string[] = [];
  const search = (what: string, bytes: Buffer) => {
    for (const canary of CANARIES)
      if (bytes.includes(canary))
        found.push(`${what} holds ${canary === SECRET ? 'the secret' : 'a row value'}`);
  };
  for (const output of outputs) search(output.what, Buffer.from(output.text));
  for (const dir of dirs) {
    for (const file of files(dir)) {
      if (DATA_FILES.test(file)) continue;
      search(relative(dir, file), readFileSync(file));
      // The report packs collapsed cells' details compressed: read them as a reader opens them.
      if (file.endsWith('.html'))
        search(`${relative(dir, file)} (cells opened)`, Buffer.from(inflatePage(readFileSync(file, 'utf8'))));
    }
  }
  return found;
}

function seed(dir: string): void {
  const db = new DatabaseSync(join(dir, 'source.db'));
  db.exec('CREATE TABLE orders (id INTEGER, day TEXT, amount REAL, region TEXT)');
  const insert = db.prepare('INSERT INTO orders VALUES (?, ?, ?, ?)');
  for (let id = 1; id <= 4; id++) insert.run(id, '2026-07-18', id * 1.5, `${ROW}-${id}`);
  db.close();
}

function workload(dir: string, name: string, extra: { sourceUrl?: string; route?: string } = {}): string {
  const path = join(dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path,
    `identity:
  release_id: r1
  deployment_id: d1
  dag_id: leak_dag
  dag_run_logical_identity: 'scheduled__2026-07-18'
  workload_id: leak_check
  mapped_partition_identity: all
  canonical_interval: { start: '2026-07-18T00:00:00Z', end: '2026-07-19T00:00:00Z' }
  canonical_target_identity: 'sqlite:events'
intent:
  pack_fingerprint: p1
  normalized_load_strategy: append
  source_snapshot_or_partition_identity: 'orders:day=2026-07-18'
  target_contract: 'events(id,day,amount,region)'
  schema_fingerprint: s1
route: ${extra.route ?? 'sqlite'}
source: { url: '${extra.sourceUrl ?? 'sqlite:source.db'}', table: orders, password_env: DPONE_SOURCE_PASSWORD }
target: { url: 'sqlite:target.db', table: events, password_env: DPONE_TARGET_PASSWORD }
data: { columns: [id, day, amount, region], natural_key: [id], partition: { column: day, value: '2026-07-18' } }
execution: { lease_ttl_ms: 300, state_dir: state }
`,
  );
  return path;
}

async function dpone(
  outputs: Output[],
  dir: string,
  args: readonly string[],
  env: Record<string, string> = {},
) {
  const result = await execa(process.execPath, ['--no-warnings', BIN, ...args], {
    cwd: dir,
    reject: false,
    env: { ...ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  const what = args.slice(0, 4).join(' ');
  outputs.push(
    { what: `stdout of ${what}`, text: String(result.stdout) },
    { what: `stderr of ${what}`, text: String(result.stderr) },
  );
  return result;
}

describe('no canary secret or row value leaks', () => {
  it('from dpone run, identity and the recovery commands, in success and failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-no-leak-'));
    seed(dir);
    const file = workload(dir, 'workload.yaml');
    const outputs: Output[] = [];
    const identity = JSON.parse(
      String((await dpone(outputs, dir, ['identity', '--workload', file, '--json'])).stdout),
    );
    const op = identity.operation_id as string;

    // First attempt dies right after the commit was recorded: TARGET_COMMITTED, lease left behind.
    const plan = JSON.stringify({
      stop: { point: 'cas:COMMITTING->TARGET_COMMITTED:after', hit: 1 },
      notifyFd: 3,
    });
    const first = execa(process.execPath, ['--no-warnings', BIN, 'run', '--workload', file, '--json'], {
      cwd: dir,
      reject: false,
      env: { ...ENV, DPONE_FAULT_PLAN: plan },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve) => first.stdio[3]!.on('data', () => resolve()));
    first.kill('SIGKILL');
    const killed = await first;
    outputs.push(
      { what: 'stdout of killed run', text: String(killed.stdout) },
      { what: 'stderr of killed run', text: String(killed.stderr) },
    );
    await new Promise((resolve) => setTimeout(resolve, 400)); // the dead worker's lease expires

    const read = ['--operation-id', op, '--route', file];
    for (const command of ['inspect', 'plan']) {
      for (const json of [[], ['--json']])
        await dpone(outputs, dir, ['recovery', 'target-commit', command, ...read, ...json]);
    }
    const version = JSON.parse(
      String((await dpone(outputs, dir, ['recovery', 'target-commit', 'inspect', ...read, '--json'])).stdout),
    ).entry.version;
    const apply = ['recovery', 'target-commit', 'apply', ...read, '--action', 'complete-state'];
    const refused = await dpone(outputs, dir, [
      ...apply,
      '--expected-version',
      String(version),
      '--reason',
      `password=${SECRET}`,
    ]);
    expect(refused.exitCode).toBe(2);
    const stale = await dpone(outputs, dir, [...apply, '--expected-version', String(version - 1), '--json']);
    expect(stale.exitCode).toBe(23);
    expect(
      (await dpone(outputs, dir, [...apply, '--expected-version', String(version), '--json'])).exitCode,
    ).toBe(0);
    const xcom = join(dir, 'xcom', 'return.json');
    mkdirSync(join(dir, 'xcom'));
    expect((await dpone(outputs, dir, ['run', '--workload', file, '--json', '--xcom', xcom])).exitCode).toBe(
      0,
    );
    expect(existsSync(xcom)).toBe(true);

    // Failures that carry connection settings: a password in a URL, an unreachable server journal.
    // This input holds the secret on purpose, so it lives outside the searched folder.
    const inUrl = workload(mkdtempSync(join(tmpdir(), 'dpone-no-leak-input-')), 'password-in-url.yaml', {
      sourceUrl: `postgres://dpone:${SECRET}@127.0.0.1:1/db`,
      route: 'postgres',
    });
    expect((await dpone(outputs, dir, ['run', '--workload', inUrl, '--json'])).exitCode).toBe(2);
    const badJournal = `postgres://dpone:${SECRET}@127.0.0.1:1/journal?password=${SECRET}`;
    const unreachable = await dpone(outputs, dir, [
      'run',
      '--workload',
      file,
      '--journal',
      badJournal,
      '--json',
    ]);
    expect(unreachable.exitCode).not.toBe(0);
    await dpone(outputs, dir, [
      'recovery',
      'target-commit',
      'inspect',
      '--operation-id',
      op,
      '--journal',
      badJournal,
    ]);

    expect(outputs.length).toBeGreaterThan(20);
    expect(files(dir).some((path) => path.endsWith('journal.db'))).toBe(true);
    expect(leaks(outputs, [dir])).toEqual([]);
  });

  const certify = CERTIFY_COMMANDS['certify run'] ? it : it.skip;
  certify('from a certification suite, its unsafe-variant failures and every reporter', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dpone-no-leak-certify-'));
    const inputs = mkdtempSync(join(tmpdir(), 'dpone-no-leak-scenario-'));
    const scenario = join(inputs, 'leak.yaml');
    // Small on purpose: an intent conflict, and a 2-worker race that also runs against every
    // unsafe variant, so failing cells (whose details show duplicates) are searched too.
    writeFileSync(
      scenario,
      'name: leak-check\nroute: sqlite\nseed: 7\nworkload: { rows: 5 }\nfaults:\n  - kind: intent-conflict\n  - kind: race\n    workers: 2\n',
    );
    const outputs: Output[] = [];
    const result = await dpone(outputs, out, [
      'certify',
      'run',
      '--scenario',
      scenario,
      '--out',
      join(out, 'report'),
    ]);
    expect([0, 1, 3]).toContain(result.exitCode);
    const produced = files(out).map((path) => relative(out, path));
    for (const report of ['evidence.json', 'index.html', 'summary.md', 'junit.xml']) {
      expect(produced.some((path) => path.endsWith(report))).toBe(true);
    }
    expect(leaks(outputs, [out])).toEqual([]);
    // The embedded route seeds labels `item-<n>`: none may appear outside the data files either.
    const rowValues = [
      ...outputs.map((o) => o.text),
      ...files(out)
        .filter((f) => !DATA_FILES.test(f))
        .map((f) => readFileSync(f, 'latin1')),
    ];
    expect(rowValues.filter((text) => /item-\d+/.test(text))).toEqual([]);
    // The value-changed variant's cells fail parity at a key: the evidence names the key and the
    // differing column, while none of the label texts every cell's source holds (the NFD one is
    // what the variant changed) appears anywhere, in UTF-8 as written.
    const texts = [
      ...outputs.map((o) => o.text),
      ...files(out)
        .filter((f) => !DATA_FILES.test(f))
        .map((f) => readFileSync(f, 'utf8')),
    ];
    const labels = CELL_TEXTS.filter((text): text is string => text !== null && text.length >= 6);
    expect(labels.length).toBeGreaterThan(4);
    expect(labels.filter((label) => texts.some((text) => text.includes(label)))).toEqual([]);
    const evidence = JSON.parse(
      readFileSync(
        produced.map((p) => join(out, p)).find((p) => p.endsWith('evidence.json'))!,
        'utf8',
      ),
    ) as { cells: { target: { first_difference?: unknown } | null }[] };
    const differences = evidence.cells.map((cell) => cell.target?.first_difference).filter(Boolean);
    expect(differences).toContainEqual({
      key: { id: expect.stringMatching(/^\d+$/) },
      kind: 'value',
      columns: ['label'],
    });
  });
});
