import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import type { ConnectorEndpoint } from '../ports/connector-plugin.ts';
import { CONNECTOR_PLUGIN_API, pluginProblem } from '../ports/connector-plugin.ts';
import { BUILT_IN_CONNECTORS, SOURCE_ENGINES, TARGET_ENGINES, runtimeRouteIds } from './engine-table.ts';
import { routeConnectorVersion } from './certifications.ts';
import { LazyConnectors } from './lazy-connectors.ts';
import { BUILT_IN_ENGINES } from './route-names.ts';
import { isBuiltInRouteId } from './workload-fields.ts';
import { endpointPassword } from '../ports/built-in-engine.ts';
import { openRouteConnectors, resolveRoute, routeCapability } from './route-connectors.ts';
import { sqliteFilePath } from '../../connectors/sqlite/sqlite-file.ts';
import { exampleCopy } from './commands/example-workload.test-support.ts';
import { readWorkloadFile } from './workload-file.ts';
import { collectRows } from '../ports/row-stream.ts';

async function caught(run: () => unknown): Promise<DponeError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(DponeError);
    return error as DponeError;
  }
  throw new TypeError('expected a refusal');
}

describe('sqliteFilePath', () => {
  it('resolves relative paths against the workload folder and keeps absolute ones', () => {
    expect(sqliteFilePath('sqlite:data/t.db', '/w/workload.yaml', 'target.url')).toBe('/w/data/t.db');
    expect(sqliteFilePath('sqlite:///abs/t.db', '/w/workload.yaml', 'target.url')).toBe('/abs/t.db');
  });

  it.each(['postgres://h/db', 'sqlite://host/t.db', 'sqlite:', 'sqlite:dir/'])(
    'refuses %s naming the field',
    async (url) => {
      const error = await caught(() => sqliteFilePath(url, '/w/workload.yaml', 'source.url'));
      expect(error.code).toBe(ERROR_CODES.INVALID_INPUT);
      expect(error.fields.field).toBe('source.url');
    },
  );
});

describe('endpointPassword', () => {
  const endpoint = { url: 'postgres://etl@127.0.0.1/db', table: 't', password_env: 'TARGET_PW' };

  it('reads the password only from the named environment variable', () => {
    expect(endpointPassword(endpoint, 'target', { TARGET_PW: 's3cret' })).toBe('s3cret');
    expect(endpointPassword({ url: 'x', table: 't' }, 'target', { TARGET_PW: 's3cret' })).toBeUndefined();
  });

  it('names the variable, never a value, when it is unset', async () => {
    const error = await caught(() => endpointPassword(endpoint, 'target', {}));
    expect(error.fields.field).toBe('target.password_env');
    expect(error.message).toContain('TARGET_PW');
  });
});

describe('resolveRoute', () => {
  it('answers capability, version and fence location from one lookup, and opens through it', async () => {
    const example = exampleCopy();
    const workload = await readWorkloadFile(example.workload);
    const route = await resolveRoute(workload);
    expect(route.capability).toBe('transactional-commit-marker');
    expect(route.connectorVersion).toMatch(/sqlite/);
    expect(await route.fenceLocation()).toBe(await (await resolveRoute(workload)).fenceLocation());
    const connectors = await route.open({ env: {}, faults: NO_FAULTS });
    await using _source = connectors.source;
    await using _target = connectors.target;
    expect(connectors.target.capability).toBe(route.capability);
  });

  it('says none for a workload written without a fence', async () => {
    const workload = await readWorkloadFile(exampleCopy().workload);
    const fenceless = { ...workload, target: { ...workload.target, fence: 'none' as const } };
    const route = await resolveRoute(fenceless);
    expect(route.capability).toBe('none');
    expect(await route.fenceLocation()).toBe('none');
  });

  it('refuses a route with no connectors in this build before anything opens', async () => {
    const error = await caught(() => resolveRoute({ route: 'no-such-route' } as Workload));
    expect(error.code).toBe(ERROR_CODES.ROUTE_NOT_CERTIFIED);
  });
});

describe('openRouteConnectors', () => {
  it('opens the sqlite route and reads exactly the partition', async () => {
    const example = exampleCopy();
    const workload = await readWorkloadFile(example.workload);
    const connectors = await openRouteConnectors(workload, { env: {}, faults: NO_FAULTS });
    await using _source = connectors.source;
    await using _target = connectors.target;
    const stream = await connectors.source.read({ partitionColumn: 'day', partitionValue: '2026-07-18' });
    const id = stream.columns.indexOf('id');
    expect((await collectRows(stream)).map((row) => Number(row[id])).sort()).toEqual([2, 3, 4, 5, 6]);
    expect(connectors.target.capability).toBe(await routeCapability(workload));
  });

  it('refuses a route with no connectors in this build', async () => {
    const workload = { route: 'no-such-route' } as Workload;
    const error = await caught(() => openRouteConnectors(workload, { env: {}, faults: NO_FAULTS }));
    expect(error.code).toBe(ERROR_CODES.ROUTE_NOT_CERTIFIED);
  });
});

describe('LazyConnectors', () => {
  it('connects on the first call only, once, and closes what it opened', async () => {
    const example = exampleCopy();
    const workload = await readWorkloadFile(example.workload);
    let opens = 0;
    const lazy = new LazyConnectors(
      { source: 's', target: 't', capability: 'transactional-commit-marker', fenceLocation: 'f' },
      () => {
        opens++;
        return openRouteConnectors(workload, { env: {}, faults: NO_FAULTS });
      },
    );
    expect(lazy.connected).toBe(false);
    await lazy.target.queryFence(`sha256:${'0'.repeat(64)}`);
    await lazy.source.read({ partitionColumn: 'day', partitionValue: '2026-07-18' });
    expect(opens).toBe(1);
    await lazy.close();
    const error = await caught(() => lazy.source.read({ partitionColumn: 'day', partitionValue: 'x' }));
    expect(error.code).toBe(ERROR_CODES.INTERNAL);
  });

  it('never opens when closed unused', async () => {
    let opens = 0;
    const lazy = new LazyConnectors(
      { source: 's', target: 't', capability: 'none', fenceLocation: 'f' },
      async () => {
        opens++;
        throw new TypeError('must not be called');
      },
    );
    await lazy[Symbol.asyncDispose]();
    expect(opens).toBe(0);
  });
});

describe('the clickhouse route’s source', () => {
  it.each([
    ["'sqlite:data/source.db'", 'sqlite:'],
    ["'postgres://etl@127.0.0.1:5432/dw'", 'postgres:'],
    ["'clickhouse://etl@127.0.0.1:8123/dw'", 'clickhouse:'],
  ])('source url %s opens a %s source (without connecting)', async (url, kind) => {
    const example = exampleCopy();
    const workload = await readWorkloadFile(
      example.variant('ch.yaml', (text) =>
        text
          .replace('route: sqlite', 'route: clickhouse')
          .replace("url: 'sqlite:data/source.db'", `url: ${url}`)
          .replace("url: 'sqlite:data/target.db'", "url: 'clickhouse://etl@127.0.0.1:8123/dw'"),
      ),
      example.dir,
    );
    expect(workload.route).toBe(`${kind.slice(0, -1)}-to-clickhouse`);
    const engine = workload.route.split('-to-')[0]!;
    // A built-in source reads its endpoint from the workload the host hands it (HostContext).
    await using source = await SOURCE_ENGINES[engine]!.open({} as ConnectorEndpoint, { workload, env: {} });
    expect(source.identity.startsWith(kind)).toBe(true);
  });
});

describe('routes as compositions', () => {
  it('every source engine goes with every target engine', () => {
    const ids = runtimeRouteIds();
    for (const id of [
      'sqlite-to-sqlite',
      'postgres-to-clickhouse',
      'mssql-to-clickhouse',
      'sqlite-to-postgres',
    ])
      expect(ids).toContain(id);
  });

  it('the built-in engines a plug-in route may not target are exactly the engines registered here', () => {
    expect([...BUILT_IN_ENGINES].sort()).toEqual(Object.keys(TARGET_ENGINES).sort());
    expect(isBuiltInRouteId('sqlite-to-clickhouse')).toBe(true);
    expect(isBuiltInRouteId('postgres')).toBe(true);
    expect(isBuiltInRouteId('clickhouse')).toBe(true);
    // A plug-in's own target engine (an example plug-in route) is not a built-in route.
    expect(isBuiltInRouteId('sqlite-to-acme')).toBe(false);
  });

  it('a workload may name the full id or an alias, and keeps the full id', async () => {
    const example = exampleCopy();
    const aliased = await readWorkloadFile(example.workload);
    expect(aliased.route).toBe('sqlite-to-sqlite');
    const full = await readWorkloadFile(
      example.variant('full.yaml', (text) => text.replace('route: sqlite', 'route: sqlite-to-sqlite')),
      example.dir,
    );
    expect(full.route).toBe('sqlite-to-sqlite');
  });

  it('refuses a source or target URL of another engine than the route names, naming the field', async () => {
    const example = exampleCopy();
    const file = example.variant('pg.yaml', (text) =>
      text.replace('route: sqlite', 'route: postgres-to-sqlite'),
    );
    const error = await caught(() => readWorkloadFile(file, example.dir));
    expect(error.code).toBe(ERROR_CODES.INVALID_INPUT);
    expect(error.fields.field).toBe('source.url');
    expect(error.message).toContain('a sqlite URL, but the route');
  });

  it('an engine this build has no connector for is ROUTE_NOT_CERTIFIED (26), not bad input', async () => {
    const workload = { route: 'sqlite-to-acme', source: { url: 'sqlite:x.db' } } as Workload;
    const error = await caught(() => openRouteConnectors(workload, { env: {}, faults: NO_FAULTS }));
    expect(error.code).toBe(ERROR_CODES.ROUTE_NOT_CERTIFIED);
    expect(error.message).toContain('SOURCE-to-TARGET');
  });
});

describe('the built-in engines table', () => {
  it('lists each engine as a plug-in on the public contract, with its folder', () => {
    expect(Object.keys(BUILT_IN_CONNECTORS)).toEqual(['sqlite', 'postgres', 'mssql', 'clickhouse']);
    for (const [name, plugin] of Object.entries(BUILT_IN_CONNECTORS)) {
      expect(plugin.api).toBe(CONNECTOR_PLUGIN_API);
      expect(pluginProblem(plugin)).toBeNull();
      expect(plugin.meta.name).toBe(name);
      expect(plugin.folder.endsWith(`/connectors/${name}/`)).toBe(true);
    }
  });

  it('keeps the connector versions built-in routes show in evidence and records', () => {
    expect(routeConnectorVersion('sqlite')).toBe('sqlite-source/1+sqlite-transactional-commit-marker/2');
    expect(routeConnectorVersion('postgres')).toBe(
      'postgres-source/1+postgres-transactional-commit-marker/2',
    );
    expect(routeConnectorVersion('sqlite-to-clickhouse')).toBe(
      'sqlite-source/1+clickhouse-staging-swap-generation/1',
    );
    expect(routeConnectorVersion('mssql')).toBe('mssql-source/1+mssql-transactional-commit-marker/2');
  });

  it('a built-in opened without the workload (no host context) is an internal error, never a guess', async () => {
    const open = BUILT_IN_CONNECTORS.postgres!.target!.open({} as ConnectorEndpoint, {
      faults: NO_FAULTS,
      readOnly: false,
    });
    const error = await open.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DponeError);
    expect((error as DponeError).code).toBe(ERROR_CODES.INTERNAL);
  });
});
