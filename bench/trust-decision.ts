import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { seedEmbeddedSource } from '../examples/seed-embedded.ts';
import { certificationFor, keyPair, writePolicy, writeSigned } from '../src/cli/fixtures/trusted-record.ts';
import { median, round } from './stats.ts';

/**
 * What the trust decision costs `dpone run` on its start path: `dpone run` of the example workload
 * (already complete, so the run is start-up, journal read and decision) with no policy beside it,
 * against the same with a policy and one key-signed record that binds this code (the decision then
 * digests the connectors, the runtime and the suite and verifies a signature). Both measured in
 * the same process, alternated; reported as the median ratio. `node bench/trust-decision.ts [N]`.
 */
const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'dpone.js');

function workload(withPolicy: boolean): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-bench-trust-'));
  execFileSync('cp', [join(ROOT, 'examples', 'workload.yaml'), join(dir, 'workload.yaml')]);
  seedEmbeddedSource(join(dir, 'data', 'source.db'));
  if (withPolicy) {
    const signer = keyPair('ed25519');
    writePolicy(dir, [{ name: 'bench', publicPem: signer.publicPem, routes: ['*'] }]);
    writeSigned(join(dir, 'certifications', 'sqlite.json'), certificationFor('sqlite'), signer.privatePem);
  }
  return { dir, file: join(dir, 'workload.yaml') };
}

function once(file: string, journal: string): { ms: number; protection: string } {
  const start = performance.now();
  const out = execFileSync(
    process.execPath,
    [BIN, 'run', '--workload', file, '--json', '--journal', journal],
    {
      env: { ...process.env, DPONE_POLICY: '' },
      encoding: 'utf8',
    },
  );
  return {
    ms: performance.now() - start,
    protection: (JSON.parse(out) as { protection: string }).protection,
  };
}

export function trustDecisionCost(repeats = 15) {
  const plain = workload(false);
  const trusted = workload(true);
  try {
    const journals = [plain, trusted].map(
      ({ dir }) => `sqlite://${join(dir, 'journal.db')}?durability=shared`,
    );
    once(plain.file, journals[0]!);
    once(trusted.file, journals[1]!);
    const without: number[] = [];
    const withPolicy: number[] = [];
    let protection = '';
    for (let i = 0; i < repeats; i += 1) {
      without.push(once(plain.file, journals[0]!).ms);
      const result = once(trusted.file, journals[1]!);
      withPolicy.push(result.ms);
      protection = result.protection;
    }
    return {
      runs: repeats,
      no_policy_median_ms: round(median(without)),
      signed_record_median_ms: round(median(withPolicy)),
      ratio: round(median(withPolicy) / median(without)),
      protection_with_record: protection,
    };
  } finally {
    for (const { dir } of [plain, trusted]) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(trustDecisionCost(Number(process.argv[2] ?? 15)), null, 2));
