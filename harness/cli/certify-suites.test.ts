import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { CONNECTOR_PARTS, EMBEDDED_ENGINE, routeAliases } from '../routes/route-registry.ts';
import { defaultScenarioFiles } from '../scenario/scenario-suites.ts';

// Engine-neutral on purpose: the scenarios named for an engine (its storage and journal files) are
// asserted in that engine's folder (connectors/<engine>/harness/suites.test.ts).
const names = (files: readonly string[]) => files.map((file) => basename(file));

describe('certify run suites', () => {
  it('the default suite needs no Airflow and kills at every statement; the full suite adds scenarios/airflow/ and large/', async () => {
    const plain = names(await defaultScenarioFiles(EMBEDDED_ENGINE, process.cwd()));
    const full = names(await defaultScenarioFiles(EMBEDDED_ENGINE, process.cwd(), 'full'));
    expect(plain).toContain('crash.yaml');
    expect(plain).not.toContain('airflow-live.yaml');
    expect(plain).not.toContain('large-partition.yaml');
    // Every suite must catch two-commits, which only statement cells see.
    expect(plain).toContain('statements.yaml');
    expect(full).toEqual(
      expect.arrayContaining([...plain, 'airflow-live.yaml', 'airflow-shadow.yaml', 'large-partition.yaml']),
    );
    expect(full).not.toContain('million-crash.yaml');
  });

  it('the huge suite is the 1,000,000-row crash scenario alone, on every route an alias names', async () => {
    expect(routeAliases().length).toBeGreaterThan(0);
    for (const alias of routeAliases())
      expect(names(await defaultScenarioFiles(alias, process.cwd(), 'huge')), alias).toEqual([
        'million-crash.yaml',
      ]);
  });

  it('leaves out what the embedded route cannot run, and the scenarios named for another target engine', async () => {
    const embedded = names(await defaultScenarioFiles(EMBEDDED_ENGINE, process.cwd(), 'full'));
    // The embedded route has no network to cut and no server to kill.
    expect(embedded).not.toEqual(expect.arrayContaining(['network.yaml']));
    expect(
      embedded.some((name) => ['network.yaml', 'lost-ack.yaml', 'server-kill.yaml'].includes(name)),
    ).toBe(false);
    const others = Object.keys(CONNECTOR_PARTS).filter((engine) => engine !== EMBEDDED_ENGINE);
    expect(others.length).toBeGreaterThan(0);
    expect(embedded.some((name) => others.some((engine) => name.startsWith(`${engine}-`)))).toBe(false);
  });

  it('an unknown suite is bad input naming --suite', async () => {
    await expect(defaultScenarioFiles(EMBEDDED_ENGINE, process.cwd(), 'nightly')).rejects.toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: '--suite' },
    });
  });
});
