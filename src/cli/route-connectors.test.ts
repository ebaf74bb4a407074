import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import type { ConnectorEndpoint } from '../ports/connector-plugin.ts';
import { CONNECTOR_PLUGIN_API, pluginProblem } from '../ports/connector-plugin.ts';
import { BUILT_IN_CONNECTORS, SOURCE_ENGINES, TARGET_ENGINES, runtimeRouteIds } from './engine-table.ts';
import { LazyConnectors } from './lazy-connectors.ts';
import { BUILT_IN_ENGINES } from './route-names.ts';
import { isBuiltInRouteId } from './workload-fields.ts';
import { endpointPassword } from '../ports/built-in-engine.ts';
import { openRouteConnectors, resolveRoute, routeCapability } from './route-connectors.ts';
import { embeddedEngine } from './engine-roles.ts';
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

/** The embedded engine: the example workload's route, source and target. */
const [EMBEDDED] = embeddedEngine();

describe('endpointPassword', () => {
  const endpoint = { url: 'server://etl@127.0.0.1/db', table: 't', password_env: 'TARGET_PW' };

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
    expect(route.connectorVersion).toContain(`${EMBEDDED}-source/`);
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
  it('opens the embedded route and reads exactly the partition', async () => {
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

describe('routes as compositions', () => {
  it('every source engine goes with every target engine', () => {
    const ids = runtimeRouteIds();
    for (const source of Object.keys(SOURCE_ENGINES))
      for (const target of Object.keys(TARGET_ENGINES)) expect(ids).toContain(`${source}-to-${target}`);
    expect(ids).toHaveLength(Object.keys(SOURCE_ENGINES).length * Object.keys(TARGET_ENGINES).length);
  });

  it('the built-in engines a plug-in route may not target are exactly the engines registered here', () => {
    expect([...BUILT_IN_ENGINES].sort()).toEqual(Object.keys(TARGET_ENGINES).sort());
    for (const id of runtimeRouteIds()) expect(isBuiltInRouteId(id), id).toBe(true);
    // A plug-in's own target engine (an example plug-in route) is not a built-in route.
    expect(isBuiltInRouteId(`${EMBEDDED}-to-acme`)).toBe(false);
  });

  it('a workload may name the full id or an alias, and keeps the full id', async () => {
    const example = exampleCopy();
    const aliased = await readWorkloadFile(example.workload);
    expect(aliased.route).toBe(`${EMBEDDED}-to-${EMBEDDED}`);
    const full = await readWorkloadFile(
      example.variant('full.yaml', (text) =>
        text.replace(`route: ${EMBEDDED}`, `route: ${EMBEDDED}-to-${EMBEDDED}`),
      ),
      example.dir,
    );
    expect(full.route).toBe(`${EMBEDDED}-to-${EMBEDDED}`);
  });

  it('refuses a source or target URL of another engine than the route names, naming the field', async () => {
    const example = exampleCopy();
    const other = Object.keys(SOURCE_ENGINES).find((engine) => engine !== EMBEDDED)!;
    const file = example.variant('other.yaml', (text) =>
      text.replace(`route: ${EMBEDDED}`, `route: ${other}-to-${EMBEDDED}`),
    );
    const error = await caught(() => readWorkloadFile(file, example.dir));
    expect(error.code).toBe(ERROR_CODES.INVALID_INPUT);
    expect(error.fields.field).toBe('source.url');
    expect(error.message).toContain(`a ${EMBEDDED} URL, but the route`);
  });

  it('an engine this build has no connector for is ROUTE_NOT_CERTIFIED (26), not bad input', async () => {
    const workload = { route: `${EMBEDDED}-to-acme`, source: { url: `${EMBEDDED}:x.db` } } as Workload;
    const error = await caught(() => openRouteConnectors(workload, { env: {}, faults: NO_FAULTS }));
    expect(error.code).toBe(ERROR_CODES.ROUTE_NOT_CERTIFIED);
    expect(error.message).toContain('SOURCE-to-TARGET');
  });
});

describe('the built-in engines table', () => {
  it('lists each engine as a plug-in on the public contract, with its folder, the embedded engine first', () => {
    expect(Object.keys(BUILT_IN_CONNECTORS)[0]).toBe(EMBEDDED);
    for (const [name, plugin] of Object.entries(BUILT_IN_CONNECTORS)) {
      expect(plugin.api).toBe(CONNECTOR_PLUGIN_API);
      expect(pluginProblem(plugin)).toBeNull();
      expect(plugin.meta.name).toBe(name);
      expect(plugin.folder.endsWith(`/connectors/${name}/`)).toBe(true);
    }
  });

  it('a built-in opened without the workload (no host context) is an internal error, never a guess', async () => {
    for (const [name, plugin] of Object.entries(BUILT_IN_CONNECTORS))
      for (const side of ['source', 'target'] as const) {
        const part = plugin[side];
        if (part === undefined) continue;
        const open = part.open({} as ConnectorEndpoint, { faults: NO_FAULTS, readOnly: false });
        const error = await open.then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error, `${name} ${side}`).toBeInstanceOf(DponeError);
        expect((error as DponeError).code).toBe(ERROR_CODES.INTERNAL);
      }
  });
});
