import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONNECTOR_PARTS } from '../../../harness/routes/route-registry.ts';
import { defaultScenarioFiles } from '../../../harness/scenario/scenario-suites.ts';

const names = (files: readonly string[]) => files.map((file) => basename(file));

describe('the suites of the PostgreSQL route', () => {
  it('the full suite has the server faults and its own journal and storage files, none named for another target', async () => {
    const postgres = names(await defaultScenarioFiles('postgres', process.cwd(), 'full'));
    expect(postgres).toEqual(
      expect.arrayContaining([
        'network.yaml',
        'server-kill.yaml',
        'postgres-journal-loss.yaml',
        'postgres-power-loss.yaml',
        'postgres-full-disk.yaml',
        'postgres-journal-corruption.yaml',
        'crash.yaml',
        'airflow-live.yaml',
      ]),
    );
    const others = Object.keys(CONNECTOR_PARTS).filter((engine) => engine !== 'postgres');
    expect(postgres.some((name) => others.some((engine) => name.startsWith(`${engine}-`)))).toBe(false);
  });
});
