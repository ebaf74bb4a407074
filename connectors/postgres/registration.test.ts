import { describe, expect, it } from 'vitest';
import { routeConnectorVersion } from '../../src/cli/certifications.ts';
import { expectTableLine } from '../../src/cli/engine-table.test-support.ts';
import { isBuiltInRouteId } from '../../src/cli/workload-fields.ts';
import { POSTGRES_ENGINE } from './engine.ts';

describe('PostgreSQL in the built-in engines table', () => {
  it('is a source and a target, with its folder; its name is the route postgres-to-postgres', () => {
    expectTableLine('postgres', POSTGRES_ENGINE, ['source', 'target']);
    expect(isBuiltInRouteId('postgres')).toBe(true);
  });

  it('keeps the connector version its route shows in evidence and records', () => {
    expect(routeConnectorVersion('postgres')).toBe(
      'postgres-source/1+postgres-transactional-commit-marker/2',
    );
  });
});
