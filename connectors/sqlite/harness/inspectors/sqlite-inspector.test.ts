import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { SqliteTarget } from '../../sqlite-target.ts';
import { UNSAFE_SQLITE_VARIANTS } from '../../sqlite-unsafe-variants.ts';
import { PARTITION_ROWS, insertBatch, sqliteCell } from '../fixtures/sqlite-cell.ts';
import { AUDIT_TABLE } from './sqlite-inspector.ts';
import { rowStreamOf } from '../../../../src/ports/row-stream.ts';
import { ONE_LANDING_OF_THREE } from '../../../../harness/inspectors/fixtures/one-landing.ts';

describe('SqliteInspector on real SQLite files', () => {
  it('reports one mutation, no duplicates and row parity after one whole batch', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    insertBatch(cell.targetPath, PARTITION_ROWS);
    const snapshot = await cell.inspector.snapshot();
    expect(snapshot).toMatchObject(ONE_LANDING_OF_THREE);
    expect(snapshot.target_digest).toBe(snapshot.source_digest);
    expect(snapshot.audit?.mutation_records).toEqual([{ marker: 'run-1', rows: 3 }]);
    expect(snapshot.first_difference).toBeUndefined();
  });

  it('counts an audited double insert as two mutations and shows the duplicated keys', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    insertBatch(cell.targetPath, PARTITION_ROWS);
    insertBatch(cell.targetPath, PARTITION_ROWS);
    const snapshot = await cell.inspector.snapshot();
    expect(snapshot.mutations).toBe(2);
    expect(snapshot.duplicate_rows).toBe(3);
    expect(snapshot.duplicate_keys).toHaveLength(3);
    expect(snapshot.row_parity).toBe(false);
    expect(snapshot.first_difference).toEqual({ key: { day: '2026-01-01', id: '1' }, kind: 'duplicate' });
  });

  it('sees a replay even when the replay deleted the first copy (replace-partition), through the audit', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    insertBatch(cell.targetPath, PARTITION_ROWS);
    const db = new DatabaseSync(cell.targetPath);
    db.exec("DELETE FROM events WHERE day = '2026-01-01'");
    db.close();
    insertBatch(cell.targetPath, PARTITION_ROWS);
    const snapshot = await cell.inspector.snapshot();
    expect(snapshot).toMatchObject({ mutations: 2, duplicate_rows: 0, row_parity: true });
  });

  it('leaves no audit row for a rolled-back mutation', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    insertBatch(cell.targetPath, PARTITION_ROWS, true);
    insertBatch(cell.targetPath, PARTITION_ROWS);
    const snapshot = await cell.inspector.snapshot();
    expect(snapshot).toMatchObject({ mutations: 1, duplicate_rows: 0, row_parity: true });
    expect(snapshot.audit?.audited_inserts).toBe(3);
  });

  it('reports an untouched target as zero mutations and no parity', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    await cell.inspector.installAudit();
    const snapshot = await cell.inspector.snapshot();
    expect(snapshot).toMatchObject({ mutations: 0, row_count: 0, row_parity: false, source_row_count: 3 });
    expect(snapshot.first_difference).toEqual({ key: { day: '2026-01-01', id: '1' }, kind: 'missing' });
  });

  it('reads the target alone to the digest and count a snapshot reports, before and after a load', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    const empty = await cell.inspector.snapshot({ firstDifference: false });
    expect(empty.first_difference).toBeUndefined();
    expect(await cell.inspector.targetDigest()).toEqual({ digest: empty.target_digest, rows: 0 });
    insertBatch(cell.targetPath, [PARTITION_ROWS[2]!, PARTITION_ROWS[0]!, ['2026-01-01', 2, 99]]);
    const changed = await cell.inspector.snapshot();
    expect(await cell.inspector.targetDigest()).toEqual({ digest: changed.target_digest, rows: 3 });
    expect(changed.target_digest).not.toBe(empty.target_digest);
  });

  it('detects a changed value through the order-independent digest, never exposing values', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    insertBatch(cell.targetPath, [PARTITION_ROWS[2]!, PARTITION_ROWS[0]!, ['2026-01-01', 2, 99]]);
    const snapshot = await cell.inspector.snapshot();
    expect(snapshot).toMatchObject({ mutations: 1, duplicate_rows: 0, row_count: 3, row_parity: false });
    expect(snapshot.first_difference).toEqual({
      key: { day: '2026-01-01', id: '2' },
      kind: 'value',
      columns: ['amount'],
    });
    // The key is an identifier and may be printed; the changed value never is.
    expect(JSON.stringify({ ...snapshot, first_difference: undefined })).not.toContain('2026-01-01');
    expect(JSON.stringify(snapshot)).not.toContain('20.5');
  });

  it('counts from the target, not the fence: a second write the fence never saw shows two mutations', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    const columns = ['day', 'id', 'amount'];
    await using target = await SqliteTarget.open({
      path: cell.targetPath,
      table: 'events',
      columns,
      naturalKey: ['day', 'id'],
    });
    const fence = {
      operationId: `sha256:${'a'.repeat(64)}`,
      epoch: 1,
      intentDigest: 'sha256:i',
      holder: 'h',
    };
    // A stream is read once: each mutation gets its own.
    const request = () => ({
      fence,
      strategy: 'append' as const,
      partitionColumn: 'day',
      partitionValue: '2026-01-01',
      rows: rowStreamOf(columns, PARTITION_ROWS),
    });
    await target.prepareFence(fence, { create: true });
    await target.mutate(request());
    expect((await cell.inspector.snapshot()).mutations).toBe(1);
    // The certified fence refuses a second commit; a target without a fence (the no-fence variant)
    // writes again while the fence still answers "committed" once: the harness audit shows both.
    expect(await target.mutate(request())).toMatchObject({ applied: false });
    expect((await cell.inspector.snapshot()).mutations).toBe(1);
    await using unfenced = await UNSAFE_SQLITE_VARIANTS['no-fence']!({
      path: cell.targetPath,
      table: 'events',
      columns,
      naturalKey: ['day', 'id'],
    });
    await unfenced.mutate(request());
    expect((await target.queryFence(fence.operationId)).status).toBe('committed');
    const snapshot = await cell.inspector.snapshot();
    expect(snapshot).toMatchObject({ mutations: 2, duplicate_rows: 3, row_parity: false });
    const audit = new DatabaseSync(cell.targetPath);
    expect(audit.prepare(`SELECT count(*) AS n FROM ${AUDIT_TABLE}`).get()).toEqual({ n: 6 });
    audit.close();
  });

  it('rejects with a coded error when the source cannot be read', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    const db = new DatabaseSync(cell.sourcePath);
    db.exec('DROP TABLE events');
    db.close();
    await expect(cell.inspector.snapshot()).rejects.toMatchObject({ code: 'DPONE_ENVIRONMENT_UNAVAILABLE' });
  });
});
