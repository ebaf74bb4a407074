import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { Workload } from '../../src/contracts/workload.ts';
import { NO_FAULTS } from '../../src/ports/fault-points.ts';
import { openRouteConnectors, routeCapability } from '../../src/cli/route-connectors.ts';

const SECRET = 'hunter2-secret';

/** A route: mssql workload whose server is a closed local port (nothing listens on port 1). */
function workload(targetUrl = 'mssql://etl@127.0.0.1:1/warehouse?connect_timeout_ms=2000'): Workload {
  const endpoint = { password_env: 'DPONE_TEST_MSSQL_PW', table: 'dbo.events' };
  return {
    route: 'mssql',
    file: '/nowhere/workload.yaml',
    source: { ...endpoint, url: 'mssql://etl@127.0.0.1:1/source_db' },
    target: { ...endpoint, url: targetUrl },
    data: { columns: ['id', 'part'], natural_key: ['id'], partition: { column: 'part', value: 'p1' } },
  } as unknown as Workload;
}

async function refusal(promise: Promise<unknown>): Promise<DponeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DponeError);
  expect(`${(error as Error).message}${JSON.stringify(error)}`).not.toMatch(/hunter2|etl@|127\.0\.0\.1/);
  return error as DponeError;
}

describe('route mssql (real driver, no server)', () => {
  it('certifies the transactional commit marker', async () => {
    expect(await routeCapability(workload())).toBe('transactional-commit-marker');
  });

  it('builds the MSSQL target, which reports a closed port as FENCE_UNAVAILABLE', async () => {
    const env = { DPONE_TEST_MSSQL_PW: SECRET };
    const error = await refusal(openRouteConnectors(workload(), { env, faults: NO_FAULTS }));
    expect(error.code).toBe(ERROR_CODES.FENCE_UNAVAILABLE);
    expect(error.message).toContain('MSSQL');
  });

  it('reads passwords only through password_env and refuses one in the URL', async () => {
    const unset = await refusal(openRouteConnectors(workload(), { env: {}, faults: NO_FAULTS }));
    expect([unset.code, unset.fields.field]).toEqual([ERROR_CODES.INVALID_INPUT, 'source.password_env']);
    const inUrl = await refusal(
      openRouteConnectors(workload(`mssql://etl:${SECRET}@127.0.0.1:1/warehouse`), {
        env: { DPONE_TEST_MSSQL_PW: SECRET },
        faults: NO_FAULTS,
      }),
    );
    expect([inUrl.code, inUrl.fields.field]).toEqual([ERROR_CODES.INVALID_INPUT, 'target.url']);
  });
});
