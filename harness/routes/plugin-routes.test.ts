import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { defaultScenarioFiles } from '../cli/certify-run.ts';
import { configuredConnectors, pluginRoutes } from './plugin-routes.ts';

/** A folder holding one plug-in module whose harness declares `routes` (written as JSON). */
function pluginFolder(routes: unknown, packageJson?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-plugin-routes-'));
  writeFileSync(
    join(dir, 'plugin.mjs'),
    `export default {
      api: 'dpone.connector/v1',
      meta: { name: 'dpone-connector-example', version: '2.3.4' },
      target: { capability: 'transactional-commit-marker', fenceLocation: () => 'x', open: async () => { throw new Error('not opened'); } },
      harness: { routes: ${JSON.stringify(routes)}, target: { prepare: async () => { throw new Error('not prepared'); } } },
    };\n`,
  );
  if (packageJson !== undefined) writeFileSync(join(dir, 'package.json'), JSON.stringify(packageJson));
  return dir;
}

describe('plug-in routes of a certification run', () => {
  it('lists the routes a --connector module declares, with the module name and version it certifies', async () => {
    const dir = pluginFolder([{ id: 'sqlite-to-example', source: 'sqlite' }]);
    const routes = await pluginRoutes(dir, ['./plugin.mjs']);
    expect(Object.keys(routes)).toEqual(['sqlite-to-example']);
    const route = await routes['sqlite-to-example']!();
    expect(route).toMatchObject({
      id: 'sqlite-to-example',
      connectorVersion: 'dpone-connector-example@2.3.4',
    });
  });

  it('reads package.json dpone.connectors, and refuses a list that is not one', async () => {
    const listed = pluginFolder([{ id: 'sqlite-to-example', source: 'sqlite' }], {
      dpone: { connectors: ['./plugin.mjs'] },
    });
    expect(await configuredConnectors(listed)).toEqual(['./plugin.mjs']);
    expect(Object.keys(await pluginRoutes(listed))).toEqual(['sqlite-to-example']);
    const bad = pluginFolder([], { dpone: { connectors: './plugin.mjs' } });
    await expect(configuredConnectors(bad)).rejects.toMatchObject({ code: ERROR_CODES.INVALID_INPUT });
  });

  it("refuses a plug-in that claims a built-in route's id or a source it cannot pair with", async () => {
    for (const routes of [
      [{ id: 'sqlite', source: 'sqlite' }],
      // A composed built-in route's id, not only an alias, is refused.
      [{ id: 'sqlite-to-clickhouse', source: 'sqlite' }],
      [{ id: 'sqlite-to-example', source: 'kafka' }],
    ]) {
      const dir = pluginFolder(routes);
      await expect(pluginRoutes(dir, ['./plugin.mjs'])).rejects.toMatchObject({
        code: ERROR_CODES.INVALID_INPUT,
        fields: { field: '--connector' },
      });
    }
  });

  it('a plug-in route has a default suite (no --scenario): the embedded scenarios, none named for an engine', async () => {
    const dir = pluginFolder([{ id: 'sqlite-to-example', source: 'sqlite' }], {
      dpone: { connectors: ['./plugin.mjs'] },
    });
    const files = (await defaultScenarioFiles('sqlite-to-example', dir)).map((f) => f.split('/').pop());
    expect(files).toEqual(expect.arrayContaining(['crash.yaml', 'race.yaml', 'pause.yaml']));
    expect(files.some((name) => /^(postgres|clickhouse)-/.test(name ?? ''))).toBe(false);
  });
});
