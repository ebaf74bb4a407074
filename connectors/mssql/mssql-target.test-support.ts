import { expect } from 'vitest';
import type { DponeError } from '../../src/contracts/errors.ts';
import { dponeRejection } from '../../testing/journal-conformance-kit.ts';
import type { MutationRequest, Row } from '../../src/ports/connector.ts';
import { rowStreamOf } from '../../src/ports/row-stream.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import type { FakeMssql } from './mssql-fake-driver.ts';
import type { MssqlTargetOptions } from './mssql-target.ts';
import { MssqlTarget } from './mssql-target.ts';

/** Shared by the MSSQL target's unit tests: one workload's values, a target on the fake, and a leak check. */
export const PASSWORD = 'hunter2-secret';
export const URL = 'mssql://etl_user@db.example:1433/warehouse?encrypt=true';
/** Nothing of these may appear in an error's message or JSON. */
export const LEAKS = [
  PASSWORD,
  'etl_user',
  'db.example',
  'warehouse',
  'SELECT',
  'UPDATE',
  'INSERT',
  'DELETE',
  '_dpone_fence',
  '@@ROWCOUNT',
];
export const COLUMNS = ['id', 'part', 'v'];
export const OP = 'sha256:' + 'ab'.repeat(32);
export const INTENT = 'sha256:' + '1'.repeat(64);
export const ref = (epoch: number, holder = `h${epoch}`) => ({
  operationId: OP,
  epoch,
  intentDigest: INTENT,
  holder,
});
export const CREATE = { create: true } as const;

/** Rows of a test partition, with their columns (`request` streams them). */
export interface TestRows {
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
}

export function batch(n: number, columns = COLUMNS): TestRows {
  const rows = Array.from({ length: n }, (_, i) =>
    columns.map((c, j) => (j === 0 ? i : c === 'part' ? 'p1' : `v${i}`)),
  );
  return { columns, rows };
}

export function request(
  epoch: number,
  rows = batch(2),
  strategy: MutationRequest['strategy'] = 'append',
): MutationRequest {
  return {
    fence: ref(epoch),
    strategy,
    partitionColumn: 'part',
    partitionValue: 'p1',
    rows: rowStreamOf(rows.columns, rows.rows),
  };
}

/** The test workload's target on the fake: URL's server as etl_user, `dbo.events`, an empty environment. */
export function targetOptions(fake: FakeMssql): MssqlTargetOptions {
  return {
    url: URL,
    password: PASSWORD,
    table: 'dbo.events',
    columns: COLUMNS,
    naturalKey: ['id'],
    env: {},
    loadDriver: async () => fake.driver(),
  };
}

/** That target opened, its opening statements cleared from the fake's record. */
export async function open(fake: FakeMssql, extra: { faults?: FaultPoints; env?: NodeJS.ProcessEnv } = {}) {
  const target = await MssqlTarget.open({
    ...targetOptions(fake),
    ...(extra.env ? { env: extra.env } : {}),
    ...(extra.faults ? { faults: extra.faults } : {}),
  });
  fake.events.length = 0;
  return target;
}

/** The DponeError `promise` rejects with (testing's dponeRejection), which leaks none of LEAKS. */
export async function caught(promise: Promise<unknown>): Promise<DponeError> {
  const error = await dponeRejection(promise);
  const shown = `${error.message} ${JSON.stringify(error)}`;
  for (const leak of LEAKS) expect(shown).not.toContain(leak);
  return error;
}
