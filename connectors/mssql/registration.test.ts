import { describe, expect, it } from 'vitest';
import { routeConnectorVersion } from '../../src/cli/certifications.ts';
import { expectTableLine } from '../../src/cli/engine-table.test-support.ts';
import { MSSQL_ENGINE } from './engine.ts';

describe('MSSQL in the built-in engines table', () => {
  it('is a source and a target, with its folder', () => {
    expectTableLine('mssql', MSSQL_ENGINE, ['source', 'target']);
  });

  it('keeps the connector version its route shows in evidence and records', () => {
    expect(routeConnectorVersion('mssql')).toBe('mssql-source/1+mssql-transactional-commit-marker/2');
  });
});
