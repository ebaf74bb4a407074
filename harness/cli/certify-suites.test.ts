import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { defaultScenarioFiles } from '../scenario/scenario-suites.ts';

const names = (files: readonly string[]) => files.map((file) => basename(file));

describe('certify run suites', () => {
  it('the default suite needs no Airflow and kills at every statement; the full suite adds scenarios/airflow/, large/ and storage/', async () => {
    const plain = names(await defaultScenarioFiles('sqlite', process.cwd()));
    const full = names(await defaultScenarioFiles('sqlite', process.cwd(), 'full'));
    expect(plain).toContain('crash.yaml');
    expect(plain).not.toContain('airflow-live.yaml');
    expect(plain).not.toContain('large-partition.yaml');
    // Every suite must catch two-commits, which only statement cells see.
    expect(plain).toContain('statements.yaml');
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
    expect(full).not.toContain('million-crash.yaml');
  });

  it('the huge suite is the 1,000,000-row crash scenario alone, on sqlite and postgres', async () => {
    expect(names(await defaultScenarioFiles('sqlite', process.cwd(), 'huge'))).toEqual([
      'million-crash.yaml',
    ]);
    expect(names(await defaultScenarioFiles('postgres', process.cwd(), 'huge'))).toEqual([
      'million-crash.yaml',
    ]);
  });

  it('leaves out what the route cannot run, and the scenarios named for another target engine', async () => {
    const sqlite = names(await defaultScenarioFiles('sqlite', process.cwd(), 'full'));
    const postgres = names(await defaultScenarioFiles('postgres', process.cwd(), 'full'));
    const clickhouse = names(await defaultScenarioFiles('postgres-to-clickhouse', process.cwd(), 'full'));
    // The embedded route has no network to cut and no server to kill.
    expect(sqlite).not.toEqual(expect.arrayContaining(['network.yaml']));
    expect(sqlite.some((name) => ['network.yaml', 'lost-ack.yaml', 'server-kill.yaml'].includes(name))).toBe(
      false,
    );
    expect(sqlite.some((name) => name.startsWith('postgres-') || name.startsWith('clickhouse-'))).toBe(false);
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
    expect(postgres.some((name) => name.startsWith('clickhouse-'))).toBe(false);
    // A PostgreSQL source does not bring the PostgreSQL target's fence moves along.
    expect(clickhouse).toEqual(expect.arrayContaining(['network.yaml', 'server-kill.yaml', 'crash.yaml']));
    expect(clickhouse).not.toContain('postgres-journal-loss.yaml');
  });

  it('an unknown suite is bad input naming --suite', async () => {
    await expect(defaultScenarioFiles('sqlite', process.cwd(), 'nightly')).rejects.toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: '--suite' },
    });
  });
});
