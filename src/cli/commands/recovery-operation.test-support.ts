import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { deriveIntentDigest, deriveOperationId } from '../../contracts/identity.ts';
import { intentDataOf } from '../../contracts/workload.ts';
import { RecoveryAwareExecutor } from '../../core/executor.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import { NO_FAULTS } from '../../ports/fault-points.ts';
import type { TargetConnector } from '../../ports/connector.ts';
import type { StateSink } from '../../ports/state-sink.ts';
import { changeFile } from '../embedded-files.test-support.ts';
import { embeddedJournalUrl } from '../embedded-journal.test-support.ts';
import { embeddedEngine } from '../engine-roles.ts';
import { openJournal } from '../journal-url.ts';
import { openRouteConnectors } from '../route-connectors.ts';
import { readWorkloadFile } from '../workload-file.ts';

/** The embedded engine: its route (its alias) and file URLs, opened through the runtime's registration. */
const EMBEDDED = embeddedEngine()[0];

/** A workload whose operation was driven to COMMIT_UNKNOWN (fence answer lost) or COMMITTED_INCOMPLETE. */
export async function operationIn(state: 'COMMIT_UNKNOWN' | 'COMMITTED_INCOMPLETE') {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-recovery-cli-'));
  changeFile(
    join(dir, 'source.db'),
    "CREATE TABLE orders (id INTEGER, day TEXT, amount REAL); INSERT INTO orders VALUES (1,'2026-07-18',1.5),(2,'2026-07-18',2.5),(3,'2026-07-19',3)",
  );
  const workloadFile = join(dir, 'workload.yaml');
  writeFileSync(
    workloadFile,
    `identity:
  release_id: r1
  deployment_id: d1
  dag_id: orders_daily
  dag_run_logical_identity: 'scheduled__2026-07-18'
  workload_id: orders_to_events
  mapped_partition_identity: all
  canonical_interval: { start: '2026-07-18T00:00:00Z', end: '2026-07-19T00:00:00Z' }
  canonical_target_identity: '${EMBEDDED}:events'
intent:
  pack_fingerprint: p1
  normalized_load_strategy: append
  source_snapshot_or_partition_identity: 'orders:day=2026-07-18'
  target_contract: 'events(id,day,amount)'
  schema_fingerprint: s1
route: ${EMBEDDED}
source: { url: '${EMBEDDED}:source.db', table: orders }
target: { url: '${EMBEDDED}:target.db', table: events }
data: { columns: [id, day, amount], natural_key: [id], partition: { column: day, value: '2026-07-18' } }
execution: { lease_ttl_ms: 1, state_dir: state }
`,
  );
  const workload = await readWorkloadFile(workloadFile);
  const operationId = deriveOperationId(workload.identity);
  mkdirSync(workload.execution.state_dir!, { recursive: true });
  const journalPath = join(workload.execution.state_dir!, 'journal.db');
  {
    await using journal = await openJournal(embeddedJournalUrl(journalPath), { cwd: dir, env: {} });
    const opened = await openRouteConnectors(workload, { env: {}, faults: NO_FAULTS });
    await using source = opened.source;
    await using target = opened.target;
    // COMMIT_UNKNOWN: the fence's answer is lost once, right after the commit.
    let lost = state === 'COMMIT_UNKNOWN';
    const lossy = Object.assign(Object.create(target) as TargetConnector, {
      queryFence: async (id: string) => {
        if (lost) {
          lost = false;
          return {
            status: 'unknown' as const,
            epoch: null,
            committedEpoch: null,
            rowsWritten: null,
            intentDigest: null,
            holder: null,
          };
        }
        return target.queryFence(id);
      },
      prepareFence: target.prepareFence.bind(target),
      mutate: target.mutate.bind(target),
    });
    const failingSink: StateSink = { complete: async () => Promise.reject(new Error('state store down')) };
    const executor = new RecoveryAwareExecutor({
      journal,
      source,
      target: lossy,
      state: failingSink,
      faults: NO_FAULTS,
      clock: SYSTEM_CLOCK,
    });
    await expect(
      executor.execute({
        operationId,
        intentDigest: deriveIntentDigest(workload.intent, intentDataOf(workload)),
        metadata: { workload_id: 'orders_to_events', target_identity: `${EMBEDDED}:events`, route: EMBEDDED },
        strategy: 'append',
        partitionColumn: 'day',
        partitionValue: '2026-07-18',
        holder: 'w1',
        leaseTtlMs: 1,
      }),
    ).rejects.toMatchObject({
      code: state === 'COMMIT_UNKNOWN' ? 'DPONE_TARGET_COMMIT_UNKNOWN' : 'DPONE_TARGET_COMMITTED_INCOMPLETE',
    });
  }
  return {
    dir,
    workloadFile,
    operationId,
    journalPath,
    targetPath: join(dir, 'target.db'),
    stateDir: workload.execution.state_dir!,
  };
}
