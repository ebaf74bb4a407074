import { describe, expect, it } from 'vitest';
import { routeConnectorVersion } from '../../src/cli/certifications.ts';
import { BUILT_IN_CONNECTORS, SOURCE_ENGINES, TARGET_ENGINES } from '../../src/cli/engine-table.ts';
import { isBuiltInRouteId } from '../../src/cli/workload-fields.ts';
import { POSTGRES_ENGINE } from './engine.ts';

describe('PostgreSQL in the built-in engines table', () => {
  it('is a source and a target, with its folder; its name is the route postgres-to-postgres', () => {
    expect(BUILT_IN_CONNECTORS.postgres).toBe(POSTGRES_ENGINE);
    expect(SOURCE_ENGINES.postgres).toBe(POSTGRES_ENGINE.source);
    expect(TARGET_ENGINES.postgres).toBe(POSTGRES_ENGINE.target);
    expect(POSTGRES_ENGINE.folder.endsWith('/connectors/postgres/')).toBe(true);
    expect(isBuiltInRouteId('postgres')).toBe(true);
  });

  it('keeps the connector version its route shows in evidence and records', () => {
    expect(routeConnectorVersion('postgres')).toBe(
      'postgres-source/1+postgres-transactional-commit-marker/2',
    );
  });
});
