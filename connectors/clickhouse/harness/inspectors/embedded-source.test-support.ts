import { mkdirSync } from 'node:fs';
import type { CellScalar } from '../../../../harness/checkers/target-snapshot.ts';
import type { SourceRows } from '../../../../harness/inspectors/source-rows.ts';
import { embeddedHost } from '../../../../harness/routes/route-registry.ts';
import type { CellTable } from '../../../../harness/routes/target-part.ts';

/**
 * The source of a ClickHouse cell in these tests: the embedded engine's seeded source file (what a
 * route from it brings: route-registry.ts embeddedHost) in `cellDir`, created, as table `src` of
 * `columns` (their kinds) holding `rows`; returns the harness's own reader of `partition` in it.
 */
export async function embeddedSource(
  cellDir: string,
  columns: CellTable['columns'],
  rows: readonly (readonly CellScalar[])[],
  partition: CellTable['partition'],
): Promise<SourceRows> {
  mkdirSync(cellDir, { recursive: true });
  const { source } = await embeddedHost();
  const table: CellTable = { name: 'src', columns, naturalKey: [columns[0]!.name], partition };
  source.write(cellDir, table, rows);
  return source.rows(cellDir, table);
}
