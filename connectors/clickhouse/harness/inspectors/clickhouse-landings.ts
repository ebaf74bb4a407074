/**
 * How the ClickHouse inspector counts mutations without trusting the connector: from the parts the
 * SERVER created in the target table. Every INSERT, ATTACH PARTITION … FROM and REPLACE PARTITION
 * … FROM adds a part with a fresh block number N, named `<partition>_N_N_<level>`; a merge names
 * its result after a range (`_a_b_`, a < b) and a mutation keeps N (`_N_N_<level>_<version>`). So
 * a landing is one block number, and the server records it twice over:
 * - `system.part_log` NEW_PART events (flushed every 100 ms by the harness's server; a server
 *   killed right after a landing can lose the last events), and
 * - `system.parts`, active and outdated, whose `min_block_number = max_block_number` parts still
 *   name each landing not yet merged away.
 * The union is the landing set; blocks at or below the baseline (recorded when the audit was
 * installed) were there before the cell's workers started. An active merged part beyond the
 * baseline whose range holds no known landing counts as one more (its sources were lost from both
 * records). The `_dpone_*` columns are never read for this.
 */
export interface PartRecord {
  readonly partitionId: string;
  readonly minBlock: number;
  readonly maxBlock: number;
  readonly rows: number;
  readonly active: boolean;
}

export interface Landing {
  readonly marker: string;
  readonly rows: number;
}

/** Parses `<partition_id>_<min>_<max>_<level>[_<mutation>]`; the partition id itself has no `_`. */
export function parsePartName(name: string, rows: number): PartRecord | null {
  const parts = name.split('_');
  if (parts.length < 4 || parts.length > 5) return null;
  const [partitionId, min, max] = parts;
  if (!/^\d+$/.test(min!) || !/^\d+$/.test(max!)) return null;
  return { partitionId: partitionId!, minBlock: Number(min), maxBlock: Number(max), rows, active: true };
}

/**
 * The landings after `baseline`, in block order. `logged` come from part_log NEW_PART events,
 * `parts` from system.parts (active and outdated).
 */
export function landings(
  logged: readonly PartRecord[],
  parts: readonly PartRecord[],
  baseline: number,
): Landing[] {
  const byBlock = new Map<string, { block: number; rows: number }>();
  const add = (part: PartRecord) => {
    if (part.minBlock !== part.maxBlock || part.minBlock <= baseline) return;
    const key = `${part.partitionId}_${part.minBlock}`;
    // The logged row count is the landing's own; a part seen later may have been mutated since.
    if (!byBlock.has(key)) byBlock.set(key, { block: part.minBlock, rows: part.rows });
  };
  logged.forEach(add);
  parts.forEach(add);
  const found = [...byBlock.entries()].map(([key, { block, rows }]) => ({ key, block, rows }));
  for (const merged of parts) {
    if (!merged.active || merged.minBlock === merged.maxBlock || merged.maxBlock <= baseline) continue;
    const covered = found.some(
      (l) =>
        l.key.startsWith(`${merged.partitionId}_`) &&
        l.block >= merged.minBlock &&
        l.block <= merged.maxBlock,
    );
    if (!covered) {
      found.push({
        key: `${merged.partitionId}_${merged.minBlock}-${merged.maxBlock}`,
        block: merged.minBlock,
        rows: merged.rows,
      });
    }
  }
  return found.sort((a, b) => a.block - b.block).map((l) => ({ marker: `part:${l.key}`, rows: l.rows }));
}
