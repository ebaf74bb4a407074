import { describe, expect, it } from 'vitest';
import { routeConnectorVersion } from '../../src/cli/certifications.ts';
import { BUILT_IN_CONNECTORS, SOURCE_ENGINES, TARGET_ENGINES } from '../../src/cli/engine-table.ts';
import { MSSQL_ENGINE } from './engine.ts';

describe('MSSQL in the built-in engines table', () => {
  it('is a source and a target, with its folder', () => {
    expect(BUILT_IN_CONNECTORS.mssql).toBe(MSSQL_ENGINE);
    expect(SOURCE_ENGINES.mssql).toBe(MSSQL_ENGINE.source);
    expect(TARGET_ENGINES.mssql).toBe(MSSQL_ENGINE.target);
    expect(MSSQL_ENGINE.folder.endsWith('/connectors/mssql/')).toBe(true);
  });

  it('keeps the connector version its route shows in evidence and records', () => {
    expect(routeConnectorVersion('mssql')).toBe('mssql-source/1+mssql-transactional-commit-marker/2');
  });
});
