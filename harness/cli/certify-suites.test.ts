import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { defaultScenarioFiles } from './certify-run.ts';

const names = (files: readonly string[]) => files.map((file) => basename(file));

describe('certify run suites', () => {
  it('the default suite needs no Airflow; the full suite adds scenarios/airflow/', async () => {
    const plain = names(await defaultScenarioFiles('sqlite', process.cwd()));
    const full = names(await defaultScenarioFiles('sqlite', process.cwd(), 'full'));
    expect(plain).toContain('crash.yaml');
    expect(plain).not.toContain('airflow-live.yaml');
    expect(full).toEqual(expect.arrayContaining([...plain, 'airflow-live.yaml']));
    expect(full).toHaveLength(plain.length + 1);
  });

  it('leaves out the scenarios named for another route', async () => {
    const sqlite = names(await defaultScenarioFiles('sqlite', process.cwd(), 'full'));
    const postgres = names(await defaultScenarioFiles('postgres', process.cwd(), 'full'));
    expect(sqlite.some((name) => name.startsWith('postgres-'))).toBe(false);
    expect(postgres).toEqual(
      expect.arrayContaining(['postgres-network.yaml', 'crash.yaml', 'airflow-live.yaml']),
    );
  });

  it('an unknown suite is bad input naming --suite', async () => {
    await expect(defaultScenarioFiles('sqlite', process.cwd(), 'nightly')).rejects.toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: '--suite' },
    });
  });
});
