import { describe, expect, it } from 'vitest';
import { MANDATORY_ACCEPTANCE_ITEMS } from '../../src/contracts/certification.ts';
import { routeConnectorVersion } from '../../src/cli/certifications.ts';
import { embeddedEngine } from '../../src/cli/engine-roles.ts';
import { BUILT_IN_CONNECTORS, SOURCE_ENGINES } from '../../src/cli/engine-table.ts';
import { expectTableLine } from '../../src/cli/engine-table.test-support.ts';
import { routeAcceptanceItems } from '../../src/cli/route-acceptance.ts';
import { acceptanceItems } from '../../harness/gate/acceptance-items.ts';
import { SQLITE_ENGINE } from './engine.ts';

/** The storage lines a route into SQLite adds, after the plain-write line (its file journal and target). */
const STORAGE_ITEMS = [
  'power-loss-journal-durable',
  'power-loss-target-durable',
  'full-disk-refused-then-one',
  'read-only-refused-then-one',
  'journal-corruption-detected',
];

/** Another source engine: a route from it into SQLite still has SQLite's target items. */
const OTHER_SOURCE = Object.keys(SOURCE_ENGINES).find((engine) => engine !== 'sqlite')!;

describe('SQLite in the built-in engines table', () => {
  it('is the embedded engine, listed first, a source and a target, with its folder', () => {
    expect(Object.keys(BUILT_IN_CONNECTORS)[0]).toBe('sqlite');
    expectTableLine('sqlite', SQLITE_ENGINE, ['source', 'target']);
    expect(embeddedEngine()[0]).toBe('sqlite');
  });

  it('keeps the connector version its route shows in evidence and records', () => {
    expect(routeConnectorVersion('sqlite')).toBe('sqlite-source/1+sqlite-transactional-commit-marker/2');
  });

  it('a record for a route into SQLite lacks, after the mandatory items, the plain-write item and its storage items', () => {
    expect(routeAcceptanceItems(`${OTHER_SOURCE}-to-sqlite`)).toEqual([
      ...MANDATORY_ACCEPTANCE_ITEMS,
      'shadow-report-exact',
      ...STORAGE_ITEMS,
    ]);
    // The gate prints its route lines after the shared fault lines, its storage lines last.
    expect(
      acceptanceItems('sqlite')
        .map((item) => item.id)
        .slice(6),
    ).toEqual(['airflow-one-mutation', 'clock-skew', 'shadow-report-exact', ...STORAGE_ITEMS]);
  });
});
