import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultScenarioFiles } from '../../../harness/scenario/scenario-suites.ts';

const names = (files: readonly string[]) => files.map((file) => basename(file));

describe('the suites of the SQLite route', () => {
  it('the full suite adds scenarios/airflow/, large/ and its storage/ files to the default suite', async () => {
    const plain = names(await defaultScenarioFiles('sqlite', process.cwd()));
    const full = names(await defaultScenarioFiles('sqlite', process.cwd(), 'full'));
    expect(full).toEqual(
      expect.arrayContaining([
        ...plain,
        'airflow-live.yaml',
        'airflow-shadow.yaml',
        'large-partition.yaml',
        'sqlite-power-loss.yaml',
        'sqlite-target-power-loss.yaml',
        'sqlite-full-disk.yaml',
        'sqlite-read-only-disk.yaml',
        'sqlite-journal-corruption.yaml',
      ]),
    );
    expect(full).toHaveLength(plain.length + 8);
  });
});
