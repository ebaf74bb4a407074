import type { CellScalar } from '../checkers/target-snapshot.ts';

/**
 * The source partition as an inspector reads it for row parity: with its own connection, never
 * through the connector under test. A route composes the reader of its source engine with the
 * inspector of its target engine. Each engine's reader lives in its folder
 * (`connectors/<engine>/harness/inspectors/<engine>-source-rows.ts`).
 */
export interface SourceRows {
  /** Safe identity: the engine and the table (`<engine>:<table>`), never a path or URL. */
  readonly identity: string;
  read(): Promise<readonly Record<string, CellScalar>[]>;
  /**
   * Visits every row once, keeping none (a 1,000,000-row partition is never held whole), and
   * returns how many it visited. Absent: `eachSourceRow` visits what `read()` returns.
   */
  each?(visit: (row: Record<string, CellScalar>) => void): Promise<number>;
}

/** Every row of the source, one at a time: its cursor when it has one, else its whole read. */
export async function eachSourceRow(
  source: SourceRows,
  visit: (row: Record<string, CellScalar>) => void,
): Promise<number> {
  if (source.each) return source.each(visit);
  const rows = await source.read();
  for (const row of rows) visit(row);
  return rows.length;
}
