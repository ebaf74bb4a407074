import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConnectorEndpoint, MarkerDialect } from 'dpone-cert';
import {
  FENCE_TABLE,
  MarkerTarget,
  NO_FAULTS,
  fenceContractVariantsFor,
  rowStreamOf,
  unsafeVariantsFor,
} from 'dpone-cert';
import { checkFenceContract, describeFenceConformance } from 'dpone-cert/testing';
import connector from './duckdb-connector.ts';
import { quote, withSession } from './duckdb-database.ts';
import { duckdbDialect } from './duckdb-dialect.ts';
import { DUCKDB_FENCE_LOCATION } from './duckdb-target.ts';
import { factory } from './fixtures/duckdb-kit-factory.ts';

const TABLE = 'conformance';

const certified = factory((endpoint, _path, faults) =>
  connector.target!.open(endpoint, { faults, readOnly: false }),
);

// The connector kit, exactly as a connector author runs it from their own test file.
describeFenceConformance('duckdb (examples/connectors/duckdb)', certified);

/** The dialect with ONE line broken: the guard's row count read as 1 whatever DuckDB said. */
function rowCountAlwaysOne(dialect: MarkerDialect): MarkerDialect {
  return {
    ...dialect,
    mutation: (body) =>
      dialect.mutation((tx) =>
        body({ ...tx, run: async (sql, params) => ({ ...(await tx.run(sql, params)), affected: 1 }) }),
      ),
  };
}

describe('the connector kit catches a broken DuckDB fence', () => {
  it('passes the certified target: every check holds', async () => {
    const results = await checkFenceContract(certified);
    expect(results.filter((result) => !result.passed)).toEqual([]);
  });

  it('fails when the guard row count line is broken on purpose (a replay, a zombie and another intent get through)', async () => {
    const broken = factory(
      async (endpoint, path, faults) =>
        new MarkerTarget(rowCountAlwaysOne(duckdbDialect(path, endpoint.table, false)), {
          identity: 'duckdb:conformance',
          fenceLocation: DUCKDB_FENCE_LOCATION,
          faults,
        }),
    );
    const failed = (await checkFenceContract(broken)).filter((result) => !result.passed).map((r) => r.name);
    expect(failed).toEqual(
      expect.arrayContaining([
        'refuses a second commit whatever the epoch: the same epoch again, or a newer one',
        'refuses a stale epoch (a zombie) and never lowers the epoch',
      ]),
    );
  });

  it('offers every variant of its capability; the fence contract must catch those that break the fence', () => {
    expect(connector.target!.unsafeVariants).toEqual(unsafeVariantsFor('transactional-commit-marker'));
    // The others (a changed value, a replace's delete outside the guard, the executor's own flaws)
    // are caught by the certification's cells, not by a fence contract.
    expect(fenceContractVariantsFor('transactional-commit-marker')).toEqual(
      expect.arrayContaining([
        'no-fence',
        'split-marker',
        'guard-epoch-only',
        'epoch-backwards',
        'unmarked-commit',
        'two-commits',
      ]),
    );
  });

  it.each(fenceContractVariantsFor('transactional-commit-marker'))(
    'fails the fence contract on the unsafe variant %s the connector offers the certification',
    async (variant) => {
      const unsafe = factory((endpoint, _path, faults) =>
        connector.target!.openUnsafe!(variant, endpoint, { faults, readOnly: false }),
      );
      expect((await checkFenceContract(unsafe)).some((result) => !result.passed)).toBe(true);
    },
  );
});

describe('plain writes (target.fence: none): capability none, no fence, nothing proven', () => {
  it('writes the batch in one transaction, creates no fence table, and answers unknown about any operation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-duckdb-plain-'));
    const path = join(dir, 'target.duckdb');
    const columns = ['id', 'part', 'v'];
    await withSession(path, false, (session) =>
      session.run(`CREATE TABLE ${TABLE} (${columns.map((c) => `${quote(c)} VARCHAR`).join(', ')})`),
    );
    const endpoint: ConnectorEndpoint = {
      url: 'duckdb:target.duckdb',
      table: TABLE,
      columns,
      naturalKey: ['id'],
      partitionColumn: 'part',
      baseDir: dir,
      field: 'target',
    };
    const count = () =>
      withSession(path, true, async (session) =>
        Number((await session.run(`SELECT count(*) AS n FROM ${TABLE}`)).rows[0]!.n),
      );
    const target = await connector.target!.openPlain!(endpoint, { faults: NO_FAULTS, readOnly: false });
    try {
      expect(target.capability).toBe('none');
      const fence = { operationId: 'op-plain', epoch: 1, intentDigest: 'sha256:i', holder: 'h' };
      expect((await target.prepareFence(fence, { create: true })).installed).toBe(false);
      const rows = [
        ['1', 'p1', 'a'],
        ['2', 'p1', 'b'],
      ];
      const request = { strategy: 'append' as const, partitionColumn: 'part', partitionValue: 'p1' };
      const receipt = await target.mutate({ ...request, fence, rows: rowStreamOf(columns, rows) });
      expect(receipt).toMatchObject({ applied: true, rowsWritten: 2 });
      expect(await count()).toBe(2);
      // Nothing refuses a second write: that is why a run on it ends COMMIT_UNKNOWN, never a replay.
      await target.mutate({ ...request, fence: { ...fence, epoch: 2 }, rows: rowStreamOf(columns, rows) });
      expect(await count()).toBe(4);
      expect((await target.queryFence(fence.operationId)).status).toBe('unknown');
    } finally {
      await target.close();
    }
    const fenceTables = await withSession(path, true, async (session) =>
      Number(
        (
          await session.run(
            `SELECT count(*) AS n FROM information_schema.tables WHERE table_name = '${FENCE_TABLE}'`,
          )
        ).rows[0]!.n,
      ),
    );
    expect(fenceTables).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('a third-party connector: nothing of dpone names it', () => {
  it('no file under src/, connectors/ or harness/ mentions DuckDB (it is loaded as a plug-in only)', () => {
    const root = join(import.meta.dirname, '..', '..', '..');
    const naming = ['src', 'connectors', 'harness']
      .flatMap((dir) => readdirSync(join(root, dir), { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((file) => /duckdb/i.test(file) || /duckdb/i.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(naming).toEqual([]);
  });
});
