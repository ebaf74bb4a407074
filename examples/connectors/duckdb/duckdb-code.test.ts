import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Workload } from '../../../src/contracts/workload.ts';
import { PACKAGE_ROOT, importClosure } from '../../../src/cli/code-digest.ts';
import { builtInRouteCode } from '../../../src/cli/route-code.ts';
import { resolveRoute } from '../../../src/cli/route-connectors.ts';

describe('the example plug-in’s code, as a certification binds it', () => {
  it('is its module and what it imports by relative path, beside the built-in SQLite source', async () => {
    const plugin = join(PACKAGE_ROOT, 'examples/connectors/duckdb/duckdb-connector.ts');
    const workload = {
      file: join(PACKAGE_ROOT, 'examples/workload.yaml'),
      route: 'sqlite-to-duckdb',
      source: { url: 'sqlite:data/source.db', table: 'orders' },
      target: { url: 'duckdb:data/target.duckdb', table: 'events', connector: plugin },
    } as unknown as Workload;
    const code = (await resolveRoute(workload)).connectorCode();
    expect(code!.map((entry) => [entry.role, entry.name])).toEqual([
      ['source', 'sqlite'],
      ['target', 'dpone-connector-duckdb'],
    ]);
    expect(code![0]!.digest).toBe(builtInRouteCode('sqlite')![0]!.digest);
    const files = importClosure([plugin]).map((file) => relative(PACKAGE_ROOT, file));
    expect(files).toContain('examples/connectors/duckdb/duckdb-target.ts');
    expect(files.some((file) => file.endsWith('.test.ts'))).toBe(false);
  });
});
