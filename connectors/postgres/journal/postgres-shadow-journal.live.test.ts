import { describe, expect, it } from 'vitest';
import { createCellsDatabase } from '../harness/env/postgres-admin.ts';
import { liveCluster, skipReason } from '../fixtures/live-cluster.ts';
import type { ShadowAttemptStart } from '../../../src/ports/shadow-journal.ts';
import { PostgresShadowJournal } from './postgres-shadow-journal.ts';

const cluster = liveCluster();

function start(holder: string): ShadowAttemptStart {
  return {
    operationId: 'op-race',
    intentDigest: 'sha256:intent',
    workloadId: 'wl',
    route: 'postgres',
    targetIdentity: 'target',
    partitionColumn: 'day',
    partitionValue: '2026-01-01',
    holder,
    policyDigest: 'sha256:policy',
    startedAt: new Date().toISOString(),
  };
}

describe.skipIf(skipReason !== undefined)(`PostgreSQL shadow journal ${skipReason ?? ''}`, () => {
  // CI's PostgreSQL suite once lost one of two racing shadow attempts: both first openers ran
  // CREATE TABLE IF NOT EXISTS at once and one failed on the catalog's unique index.
  it('records every attempt when the first openers of a fresh journal race', async () => {
    const database = `shadow_race_${process.pid}`;
    await createCellsDatabase(cluster(), database);
    const url = cluster().url(database);
    const openers = 8;
    const journals = await Promise.all(
      Array.from({ length: openers }, () =>
        PostgresShadowJournal.open(url, cluster().password, { timeoutMs: 10_000, create: true }),
      ),
    );
    try {
      const recorded = await Promise.all(
        journals.map((journal, i) => journal.begin(start(`w${i}`), () => 'proceed')),
      );
      expect(recorded.map((attempt) => attempt.tryNumber).sort((a, b) => a - b)).toEqual(
        Array.from({ length: openers }, (_, i) => i + 1),
      );
      expect(await journals[0]!.attempts(null)).toHaveLength(openers);
    } finally {
      await Promise.all(journals.map((journal) => journal.close()));
    }
  });
});
