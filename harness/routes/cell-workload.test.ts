import { describe, expect, it } from 'vitest';
import { DATASET_COLUMNS, generateDataset } from '../data/dataset.ts';
import { cellParity } from './cell-workload.ts';

describe('cell parity basis', () => {
  it("hands a target inspector the dataset's column types and the rows the target held before, under the cell's strategy", () => {
    const options = { rows: 4, strategy: 'replace-partition', leaseTtlMs: 5_000, seed: 7 } as const;
    const dataset = generateDataset(options);
    expect(dataset.target.length).toBeGreaterThan(0); // replace-partition seeds rows to remove and keep
    expect(cellParity(dataset, options)).toEqual({
      types: Object.fromEntries(DATASET_COLUMNS.map((c) => [c.name, c.type])),
      before: { rows: dataset.target, strategy: 'replace-partition', partition: dataset.partition },
    });
  });
});
