import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invalidInput } from '../../src/contracts/errors.ts';
import type { CertificationRecord } from '../../src/core/deployment-policy.ts';
import { CERTIFICATION_SCHEMA } from '../../src/core/deployment-policy.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import type { GateResult } from './gate.ts';
import { ACCEPTANCE_ITEMS } from './acceptance-items.ts';

/** A route id safe as a file name: it becomes `<dir>/<route>.json`. */
const ROUTE_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export function certificationRecord(evidence: Evidence, gate: GateResult, now: Date): CertificationRecord {
  const items = new Set(ACCEPTANCE_ITEMS.map((item) => item.id));
  return {
    schema: CERTIFICATION_SCHEMA,
    route: evidence.route,
    connector_version: evidence.environment.connector_version,
    runtime_version: evidence.environment.runtime_version,
    evidence_digest: evidence.digest ?? '',
    evidence_run_id: evidence.run_id,
    seed: evidence.seed,
    certified_at: now.toISOString(),
    acceptance: gate.lines
      .filter((line) => items.has(line.id))
      .map((line) => ({
        item: line.id,
        status: line.status,
        cells: line.cells,
        decided_by: line.decided_by ?? [],
      })),
  };
}

/** Writes `<dir>/<route>.json` atomically (temp file, rename), so the policy never reads half a record. */
export async function writeCertification(record: CertificationRecord, dir: string): Promise<string> {
  if (!ROUTE_ID.test(record.route))
    throw invalidInput(`route id ${JSON.stringify(record.route)} cannot name a file`, { field: '--route' });
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${record.route}.json`);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`);
  await rename(temporary, file);
  return file;
}
